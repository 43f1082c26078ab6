#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/heapcheck.sh [--quick] - the heap check (MTRACE_CHECK=heap) against
# its peers, in one run: the plain program, level 2, level 2 with the
# check, glibc's own check (MALLOC_CHECK_=3 MALLOC_PERTURB_=165, with
# libc_malloc_debug.so preloaded: glibc 2.34 on reads MALLOC_CHECK_ only
# there), Electric Fence (LD_PRELOAD=libefence.so) and an AddressSanitizer
# build (-fsanitize=address, ASAN_OPTIONS=detect_leaks=0: the others check
# no leaks either).  Workloads: churn, bigtree, the JSON pipeline in one
# thread and, with LUA_SRC, Lua running bench/alloc.lua, at the peers'
# sizes of bench/workloads.sh.  BENCH_PEER_RUNS rounds (default 3, 1 with
# --quick; Electric Fence one, BENCH_HEAP_TIMEOUT seconds a run at most,
# default 120), the builds in an order that rotates; prints markdown on
# stdout: wall time over the plain program's (median of the per-round
# ratios) and peak RSS, each run's checksum checked against the plain
# program's.  A peer that fails a run (Electric Fence out of memory
# mappings, a time-out) says so in its cell.  Run by bench/run.sh (`make
# bench`), or alone: `make bench-heapcheck`.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
export BENCH_TOP=$TOP
. "$TOP/bench/workloads.sh"
MODE=full
[ "${1:-}" = --quick ] && MODE=quick
if [ "$MODE" = quick ]; then RUNS=${BENCH_PEER_RUNS:-1}; else RUNS=${BENCH_PEER_RUNS:-3}; fi
case $RUNS in ''|*[!0-9]*|0) echo "BENCH_PEER_RUNS must be a positive number" >&2; exit 2 ;; esac
LIMIT=${BENCH_HEAP_TIMEOUT:-120}    # seconds a run may take (Electric Fence can crawl)
CC=${CC:-cc}
export CC
unset MTRACE_DEPTH MTRACE_ALLOC_FN MTRACE_REPORT MTRACE_CHECK MTRACE_QUARANTINE
W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-heapbench.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
export BENCH_GEN=$W
say() { echo "bench/heapcheck.sh: $*" >&2; }

# the workloads: NAME|PROG|ARGS at the peers' size of bench/workloads.sh
workloads() {
    bench_workloads "$MODE" | awk -F'|' '$1 == "churn" || $1 == "bigtree" || $1 == "json-mt-1" || $1 == "lua" { print $1 "|" $2 "|" $4 }'
}
DEBUG_SO=$(ls /lib/*/libc_malloc_debug.so.0 /usr/lib/*/libc_malloc_debug.so.0 2>/dev/null | head -n 1)
EFENCE_SO=$(ls /usr/lib/libefence.so.0 /usr/lib/*/libefence.so.0 2>/dev/null | head -n 1)

# ---- build: plain, level 2 (libmtrace.so, a snapshot of the tree), ASan
say "building in $W"
mkdir -p "$W/src" "$W/bin" "$W/run"
cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$W/src/" || exit 2
export BENCH_MTRACE_DIR=$W/src
make -s -C "$W/src" -f "$TOP/Makefile" libmtrace.so >&2 || { echo "cannot build libmtrace.so" >&2; exit 2; }
"$CC" -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || exit 2
# build_lua OUT CFLAGS LIBS: Lua from $LUA_SRC (its src/ folder, as for
# bench/build.sh) with Lua's own flags, without -march=native
build_lua() {
    local d=$W/lua-build all
    rm -rf "$d" && cp -r "$LUA_SRC" "$d" || return 1
    (cd "$d" && make clean > /dev/null 2>&1
     all=$(make -s echo | sed -n 's/^CFLAGS = *//p' | sed 's/ -march=native//')
     libs=$(make -s echo | sed -n 's/^MYLIBS = *//p')
     make -j"$(nproc)" CFLAGS="$all $2" MYLIBS="$libs $3") > "$W/lua.log" 2>&1 && cp "$d/lua" "$1"
}
while IFS='|' read -r name prog args; do
    if [ "$prog" = lua ]; then
        build_lua "$W/bin/lua.0" "" "" &&
        build_lua "$W/bin/lua.2" "-DMTRACE=2 -DMTRACE_LIB -include $W/src/mtrace.h" "-L$W/src -Wl,-rpath,$W/src -lmtrace" &&
        build_lua "$W/bin/lua.asan" "-fsanitize=address" "-fsanitize=address" || { say "Lua did not build:"; tail -n 5 "$W/lua.log" >&2; }
        continue
    fi
    bench_build "$prog" 0 "$W/bin/$prog.0" || exit 2
    bench_build "$prog" 2 "$W/bin/$prog.2" || exit 2
    bench_build "$prog" 0 "$W/bin/$prog.asan" -fsanitize=address || exit 2
done < <(workloads)

# ---- one timed run: one NAME PROG BUILD ROUND ARGS... -> a line of $W/results
# NAME BUILD ROUND WALL RSS-KB STATUS (STATUS: 0, or what went wrong)
declare -A REF
one() {
    local name=$1 prog=$2 build=$3 round=$4 exe wall user sys rss status csum
    shift 4
    exe=$W/bin/$prog.0
    case $build in m2 | check) exe=$W/bin/$prog.2 ;; asan) exe=$W/bin/$prog.asan ;; esac
    if [ ! -x "$exe" ] || { [ "$build" = glibc ] && [ -z "$DEBUG_SO" ]; } || { [ "$build" = efence ] && [ -z "$EFENCE_SO" ]; }; then
        echo "$name $build $round 0 0 absent" >> "$W/results"
        return
    fi
    (cd "$W/run" && case $build in
        check) MTRACE_CHECK=heap "$W/timeit" "$W/time" timeout "$LIMIT" "$exe" "$@" ;;
        glibc) MALLOC_CHECK_=3 MALLOC_PERTURB_=165 LD_PRELOAD=$DEBUG_SO "$W/timeit" "$W/time" timeout "$LIMIT" "$exe" "$@" ;;
        efence) LD_PRELOAD=$EFENCE_SO "$W/timeit" "$W/time" timeout "$LIMIT" "$exe" "$@" ;;
        asan) ASAN_OPTIONS=detect_leaks=0 "$W/timeit" "$W/time" timeout "$LIMIT" "$exe" "$@" ;;
        *) "$W/timeit" "$W/time" timeout "$LIMIT" "$exe" "$@" ;;
        esac > "$W/out" 2> "$W/err")
    read -r wall user sys rss status < "$W/time" || { wall=0 rss=0 status=999; }
    if [ "$prog" = lua ]; then csum=$(grep -E '^(trees|long-lived|strings|tables) ' "$W/out" | cksum | tr ' ' -)
    else csum=$(awk '$1 == "checksum" { print $2 }' "$W/out"); fi
    if [ "$status" = 124 ]; then status=timeout
    elif [ "$build" = efence ] && [ "$status" != 0 ] && grep -qi 'mprotect\|mmap' "$W/err"; then status=mappings
    elif [ "$status" != 0 ]; then status=exit-$status
    elif [ -z "${REF[$name]:-}" ]; then REF[$name]=$csum
    elif [ "$csum" != "${REF[$name]}" ]; then status=checksum
    fi
    [ "$status" = 0 ] || { say "$name: $build (round $round): $status; its stderr ends with:"; tail -n 3 "$W/err" | sed 's/^/    /' >&2; }
    echo "$name $build $round $wall $rss $status" >> "$W/results"
    rm -rf "$W/run"/*
}

BUILDS=(base m2 check glibc efence asan)
: > "$W/results"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
NAMES=""
while IFS='|' read -r name prog args; do
    NAMES="$NAMES $name"
    say "$name ($args): $RUNS round(s) of ${BUILDS[*]}"
    for r in $(seq "$RUNS"); do
        for i in 0 1 2 3 4 5; do
            b=${BUILDS[(i + r - 1) % 6]}
            [ "$b" = efence ] && [ "$r" -gt 1 ] && continue     # one round: it takes minutes
            # shellcheck disable=SC2086
            one "$name" "$prog" "$b" "$r" $args
        done
    done
done < <(workloads)

# ---- the report
echo "### The heap check and its peers"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); tracer: $(cd "$TOP" && git log -1 --format='%h' -- mtrace.c mtrace.h runtime 2>/dev/null); load average at the start: $LOAD0, at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "- $RUNS round(s); wall time over the plain program's (median of the per-round ratios), and peak RSS; sizes: $(workloads | awk -F'|' '{ printf "%s%s %s", s, $1, $3; s = ", " }')"
echo "- heap check: MTRACE=2 (libmtrace.so), MTRACE_CHECK=heap, the default quarantine; glibc: MALLOC_CHECK_=3 MALLOC_PERTURB_=165 with ${DEBUG_SO:-libc_malloc_debug.so (absent)}; Electric Fence: ${EFENCE_SO:-not installed (apt-get install electric-fence)}, its defaults; ASan: $CC -O2 -fsanitize=address, ASAN_OPTIONS=detect_leaks=0"
echo
awk -v order="$NAMES" -v limit="$LIMIT" '
    { key = $1 " " $2; if ($6 != "0") { bad[key] = $6; next }
      if ($2 == "base") base[$1 " " $3] = $4
      t[key, ++n[key]] = $4; round[key, n[key]] = $3; rss[key, n[key]] = $5 }
    function median(a, k,    i, j, x, m) {
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    function why(s) {
        if (s == "mappings") return "ran out of memory mappings"
        if (s == "timeout") return "timed out (over " limit " s)"
        if (s == "absent") return "not installed"
        return s == "checksum" ? "wrong checksum" : "failed (" s ")" }
    function cell(w, b, what,    key, i, k, r, q) {
        key = w " " b
        if (key in bad) return why(bad[key])
        k = 0
        for (i = 1; i <= n[key]; i++) {
            r = round[key, i]
            if (what == "rss") q[++k] = rss[key, i] / 1024
            else if (b == "base") q[++k] = t[key, i]
            else if (base[w " " r] > 0) q[++k] = t[key, i] / base[w " " r]
        }
        if (!k) return "-"
        if (what == "rss") return sprintf("%.1f", median(q, k))
        return b == "base" ? sprintf("%.3f", median(q, k)) : sprintf("%.2f×", median(q, k)) }
    END {
        split("base m2 check glibc efence asan", bs, " ")
        print "| workload | plain s | MTRACE=2 | MTRACE=2 + MTRACE_CHECK=heap | MALLOC_CHECK_=3 | Electric Fence | ASan |"
        print "|---|---|---|---|---|---|---|"
        nw = split(order, ws, " ")
        for (i = 1; i <= nw; i++) { line = "| " ws[i]; for (j = 1; j <= 6; j++) line = line " | " cell(ws[i], bs[j], "time"); print line " |" }
        print ""
        print "| peak RSS, MB | plain | MTRACE=2 | MTRACE=2 + MTRACE_CHECK=heap | MALLOC_CHECK_=3 | Electric Fence | ASan |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= nw; i++) { line = "| " ws[i]; for (j = 1; j <= 6; j++) line = line " | " cell(ws[i], bs[j], "rss"); print line " |" }
    }' "$W/results"
# a wrong checksum is an error of the suite; a peer that cannot run is a finding
! grep -q ' checksum$' "$W/results"
