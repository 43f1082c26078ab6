#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/run.sh [--quick] [--ms-print-done] - the benchmark suite of issue 6.
#
# Builds every workload of bench/workloads.sh four times (uninstrumented,
# -DMTRACE=3, 2, 1; $CC -O2, from the repository root; traced builds with
# libmtrace.so, the library use, or with BENCH_USE=oneline the one-line
# use; Lua, when LUA_SRC names its source tree, by bench/build.sh), runs each build
# BENCH_RUNS times (default 5, 1 with --quick) in alternating, rotating
# order, and prints a markdown report on stdout: median wall time of the
# uninstrumented build, the other builds as ratios to it (per round, so
# that a slow moment of this shared machine hits both sides of a ratio),
# trace bytes per record, peak RSS.  When installed, heaptrack and
# valgrind --tool=massif run each workload at a smaller size, and an
# empty program for their start-up, subtracted in the report.  Every
# run's checksum must equal the uninstrumented one: a mismatch, a crash or
# a non-zero exit status is reported loudly and makes the exit status 1.
# Then the call stacks of issue 13: churn, tree and the JSON workloads
# built at level 1 with frame pointers (as mtrace-cc builds), the same
# binary run with MTRACE_DEPTH unset, 8 and 30, in the same rotating rounds
# as the uninstrumented program and the level-1 build without frame
# pointers; the report's "Call stacks (issue 13)" tables.
# Then the heap check against glibc's check, Electric Fence and ASan
# (bench/heapcheck.sh, without BENCH_ONLY; BENCH_HEAPCHECK=0 skips it,
# `make bench-heapcheck` runs it alone).  Then C++'s new and delete beside
# malloc and free, plain, at levels 2 and 1 and under heaptrack
# (bench/cxx.sh, without BENCH_ONLY; BENCH_CXX=0 skips it, `make bench-cxx`
# runs it alone).  Then the tool benchmarks: bench/ms_print.sh and
# bench/mtrace2massif.sh.
# Progress goes to stderr.  Traces and builds live in a temporary
# directory that is removed at exit.
#
# Environment: BENCH_RUNS (rounds), BENCH_PEERS=0 (skip heaptrack and
# massif), BENCH_PEER_RUNS (their rounds, default 3, 1 with --quick), BENCH_ONLY (names of
# the workloads to run, e.g. "churn json-records"; the word "stacks" runs the
# call-stack part, which runs otherwise only without BENCH_ONLY: BENCH_ONLY=stacks
# is that part alone, `make bench-stacks`), BENCH_TOOLS=0 (skip the tool benchmarks), BENCH_M2M_RECORDS
# (records for bench/mtrace2massif.sh), BENCH_USE (lib, the default, or
# oneline), BENCH_MTRACE_REV (a commit: its mtrace.c and mtrace.h instead
# of the working tree's), BENCH_MTRACE_SRC (a directory: its mtrace.c and
# mtrace.h, a candidate change measured without touching the tree), LUA_SRC (a Lua 5.4 source tree: the lua workload), CC.
# --ms-print-done: `make bench` already ran bench/ms_print.sh (the ms_print
# section of the Makefile makes `bench` depend on it); don't run it twice.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
export BENCH_TOP=$TOP
. "$TOP/bench/workloads.sh"

MODE=full MS_PRINT=run
for a in "$@"; do
    case $a in
    --quick) MODE=quick ;;
    --ms-print-done) MS_PRINT=done ;;
    *) echo "usage: bench/run.sh [--quick] [--ms-print-done]" >&2; exit 2 ;;
    esac
done
if [ "$MODE" = quick ]; then RUNS=${BENCH_RUNS:-1}; else RUNS=${BENCH_RUNS:-5}; fi
case $RUNS in ''|*[!0-9]*|0) echo "BENCH_RUNS must be a positive number" >&2; exit 2 ;; esac
# heaptrack and massif take seconds per run and their ratios are large:
# at most 3 rounds (1 in quick mode) unless asked for more
if [ "$MODE" = quick ]; then PEER_RUNS=${BENCH_PEER_RUNS:-1}
else PEER_RUNS=${BENCH_PEER_RUNS:-$(( RUNS < 3 ? RUNS : 3 ))}; fi
case $PEER_RUNS in ''|*[!0-9]*|0) echo "BENCH_PEER_RUNS must be a positive number" >&2; exit 2 ;; esac
NCPU=$(nproc 2>/dev/null || echo 1)
# BENCH_ONLY: workload names, and "stacks" for the call-stack part
ONLY=$(echo "${BENCH_ONLY:-}" | tr ',' ' ')
ONLY_MAIN=$(for w in $ONLY; do [ "$w" = stacks ] || echo "$w"; done | tr '\n' ' ')
ONLY_MAIN=${ONLY_MAIN% }
if [ -z "$ONLY" ] || [[ " $(echo $ONLY) " == *" stacks "* ]]; then STACKS=1; else STACKS=0; fi
unset MTRACE_DEPTH MTRACE_ALLOC_FN MTRACE_REPORT
CC=${CC:-cc}
export CC

W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-bench.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
export BENCH_GEN=$W
mkdir -p "$W/bin" "$W/run" "$W/peer"
: > "$W/results"; : > "$W/traces"; : > "$W/memory"; : > "$W/errors"; : > "$W/stackinfo"
T0=$(date +%s)

say() { echo "bench: $*" >&2; }
# error MESSAGE: loud on stderr, and kept for the report
error() { echo "*** bench ERROR: $*" >&2; echo "$*" >> "$W/errors"; }

# ---- what is installed ------------------------------------------------------
PEERS=""
if [ "${BENCH_PEERS:-1}" != 0 ]; then
    command -v heaptrack >/dev/null 2>&1 && PEERS="$PEERS heaptrack"
    command -v valgrind >/dev/null 2>&1 && PEERS="$PEERS massif"
fi

# ---- build ------------------------------------------------------------------
say "building the workloads ($MODE, $CC -O2) in $W"
TB=$(date +%s)
"$CC" -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || { echo "cannot build bench/timeit.c" >&2; exit 2; }
bench_generate "$MODE"
# The tracer as it is now: others may be editing it while we build.
mkdir -p "$W/src"
if [ -n "${BENCH_MTRACE_REV:-}" ]; then  # a committed tracer, for a result that can be reproduced
    git -C "$TOP" archive "$BENCH_MTRACE_REV" mtrace.h mtrace.c $(git -C "$TOP" ls-tree --name-only "$BENCH_MTRACE_REV" runtime) \
        | tar -x -C "$W/src" || exit 2
elif [ -n "${BENCH_MTRACE_SRC:-}" ]; then  # a candidate change, outside the tree
    cp -r "$BENCH_MTRACE_SRC/mtrace.h" "$BENCH_MTRACE_SRC/mtrace.c" "$W/src/" || exit 2
    [ ! -d "$BENCH_MTRACE_SRC/runtime" ] || cp -r "$BENCH_MTRACE_SRC/runtime" "$W/src/" || exit 2
else
    cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$W/src/" || exit 2
fi
export BENCH_MTRACE_DIR=$W/src
case ${BENCH_USE:=lib} in lib | oneline) ;; *) echo "BENCH_USE must be lib or oneline" >&2; exit 2 ;; esac
export BENCH_USE
make -s -C "$W/src" -f "$TOP/Makefile" libmtrace.so >&2 || { echo "cannot build libmtrace.so" >&2; exit 2; }
if [ -n "${BENCH_MTRACE_REV:-}" ]; then
    TRACER="$(cd "$TOP" && git log -1 --format='%h %s' "$BENCH_MTRACE_REV" -- mtrace.c mtrace.h runtime) (BENCH_MTRACE_REV=$BENCH_MTRACE_REV)"
elif [ -n "${BENCH_MTRACE_SRC:-}" ]; then
    TRACER="the files of $BENCH_MTRACE_SRC (BENCH_MTRACE_SRC), md5 $(cat "$W/src/mtrace.c" "$W/src/mtrace.h" "$W/src"/runtime/* | md5sum | cut -c1-12)"
else
    TRACER="$(cd "$TOP" && git log -1 --format='%h %s' -- mtrace.c mtrace.h runtime 2>/dev/null)"
    (cd "$TOP" && git diff --quiet HEAD -- mtrace.c mtrace.h runtime 2>/dev/null) ||
        TRACER="$TRACER (+ uncommitted changes in the working tree)"
fi
# the workloads to run: all, or those named in BENCH_ONLY
selected() {
    [ -n "$ONLY" ] && [ -z "$ONLY_MAIN" ] && return 0    # BENCH_ONLY=stacks
    bench_workloads "$MODE" | awk -F'|' -v only="$ONLY_MAIN" '
        BEGIN { n = split(only, o, /[ ,]+/); for (i = 1; i <= n; i++) want[o[i]] = 1 }
        only == "" || ($1 in want)'
}
[ -n "$(selected)" ] || [ "$STACKS" = 1 ] ||
    { echo "BENCH_ONLY names no workload of bench/workloads.sh" >&2; exit 2; }
PROGS=$(selected | cut -d'|' -f2 | sort -u)
[ -n "$PROGS" ] || PEERS=""     # BENCH_ONLY=stacks: no peer runs
# the call-stack part: its programs at levels 0 and 1, and "fp" (level 1
# with frame pointers)
SPROGS=""
[ "$STACKS" = 1 ] && SPROGS=$(bench_stack_workloads "$MODE" | cut -d'|' -f2 | sort -u)
# Lua first, by bench/build.sh (its own makefile, make -j$NCPU)
if [[ " $(echo $PROGS) " == *" lua "* ]]; then
    say "building Lua from $LUA_SRC (bench/build.sh --build-only)"
    "$TOP/bench/build.sh" --build-only "$W/bin" >&2 || true
fi
"$CC" -O2 -I"$TOP/bench" -o "$W/bin/empty.0" "$TOP/bench/empty.c" || exit 2
# All builds in parallel, one per core: nothing is timed yet.  A build
# that fails is an error; its runs are reported as FAILED, the rest go on.
builds() {
    for p in $PROGS; do [ "$p" = lua ] || for l in 0 3 2 1; do echo "$p $l"; done; done
    for p in $SPROGS; do
        [[ " $(echo $PROGS) " == *" $p "* ]] || echo "$p 0
$p 1"
        echo "$p fp"
    done
}
builds | xargs -P "$NCPU" -n 2 bash -c '. "$BENCH_TOP/bench/workloads.sh"
        if [ "$2" = fp ]; then set -- "$1" 1 "$2" $BENCH_FP_FLAGS; else set -- "$1" "$2" "$2"; fi
        out=$BENCH_GEN/bin/$1.$3; lvl=$2; prog=$1; shift 3
        bench_build "$prog" "$lvl" "$out" "$@" 2> "$out.log" ||
        { echo "build of $prog at MTRACE=$lvl $* failed:"; head -n 20 "$out.log"; }' _ >&2
while read -r p l; do
    [ -x "$W/bin/$p.$l" ] || error "build failed: $p at MTRACE=$l (see the compiler's messages above)"
done < <(builds)
say "built in $(($(date +%s) - TB)) s"

# ---- one timed run -------------------------------------------------------------
# one NAME PROG BUILD ROUND ARGS...: runs the build, appends a result line,
# checks status and checksum against the first run of the reference build.
declare -A REF
one() {
    local name=$1 prog=$2 build=$3 round=$4 cmd ref key csum ops wall user sys rss status depth="" report=""
    shift 4
    case $build in
    base | small) cmd=("$W/bin/$prog.0") ;;
    m[123]) cmd=("$W/bin/$prog.${build#m}") ;;
    fp) cmd=("$W/bin/$prog.fp") ;;
    d[0-9]*) cmd=("$W/bin/$prog.fp"); depth=${build#d} ;;
    heaptrack) cmd=(heaptrack -o "$W/peer/heaptrack" "$W/bin/$prog.0") ;;
    massif) cmd=(valgrind --tool=massif --massif-out-file="$W/peer/massif.out" "$W/bin/$prog.0") ;;
    esac
    if [ ! -x "${cmd[${#cmd[@]} - 1]}" ]; then
        echo "$name $build $round 0 0 0 0 996 - 0" >> "$W/results"
        return
    fi
    rm -f "$W/trace" "$W/report.json"
    # the call-stack part: the tracer's own bytes at the peak, exact, from
    # the JSON report (the summary gives them as a percentage)
    [[ $name == stacks/* && $build != base ]] && report=$W/report.json
    if [ -n "$depth" ]; then
        (cd "$W/run" && MTRACE="$W/trace" MTRACE_DEPTH=$depth MTRACE_REPORT=$report \
             "$W/timeit" "$W/time" "${cmd[@]}" "$@" > "$W/out" 2> "$W/err")
    elif [ -n "$report" ]; then
        (cd "$W/run" && MTRACE="$W/trace" MTRACE_REPORT=$report "$W/timeit" "$W/time" "${cmd[@]}" "$@" > "$W/out" 2> "$W/err")
    else
        (cd "$W/run" && MTRACE="$W/trace" "$W/timeit" "$W/time" "${cmd[@]}" "$@" > "$W/out" 2> "$W/err")
    fi
    read -r wall user sys rss status < "$W/time" || { wall=0 user=0 sys=0 rss=0 status=999; }
    # Lua: the checksum of bench/alloc.lua's own lines (heaptrack writes on stdout too)
    if [ "$prog" = lua ]; then csum=$(grep -E '^(trees|long-lived|strings|tables) ' "$W/out" | cksum | tr ' ' -)
    else csum=$(awk '$1 == "checksum" { print $2 }' "$W/out"); fi
    ops=$(awk '$1 == "ops" { print $2 }' "$W/out")
    if [ "$status" != 0 ]; then
        error "$name: $build (round $round) exited with status $status; its stderr ends with:"
        tail -n 5 "$W/err" | sed 's/^/    /' | tee -a "$W/errors" >&2
    elif [ -z "$csum" ]; then
        error "$name: $build (round $round) printed no checksum"; status=998
    else
        case $build in base | m[123] | fp | d[0-9]*) key=$name ;; *) key=$name.small ;; esac
        ref=${REF[$key]:-}
        if [ -z "$ref" ]; then
            REF[$key]=$csum
        elif [ "$csum" != "$ref" ]; then
            error "CHECKSUM MISMATCH in $name: $build (round $round) printed $csum, the first run printed $ref"
            status=997
        fi
    fi
    echo "$name $build $round $wall $user $sys $rss $status ${csum:--} ${ops:-0}" >> "$W/results"
    # the first full trace of each workload: bytes per record
    if [ "$build" = m1 ] && [ "$round" = 1 ] && [ -f "$W/trace" ]; then
        echo "$name $(stat -c %s "$W/trace") $(LC_ALL=C grep -c '^[-+<>] ' "$W/trace")" >> "$W/traces"
    fi
    # the first MTRACE=2 summary: the tracer's own memory at the peak
    if [ "$build" = m2 ] && [ "$round" = 1 ] && [ "$status" = 0 ]; then
        local live over
        live=$(awk '$1 == "live" { print $2 }' "$W/out")
        over=$(awk '/max traced memory size/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) b = $i;
                    if (match($0, /overhead [0-9.]+%/)) { p = substr($0, RSTART + 9, RLENGTH - 10); printf "%.0f", b * p / 100 } }' "$W/err")
        [ -n "$live" ] && echo "$name $live $over" >> "$W/memory"
    fi
    # the call-stack part, first round: the trace (bytes, records, distinct
    # stacks) and the tracer's own bytes at the peak, per build
    if [[ $name == stacks/* ]] && [ "$round" = 1 ] && [ "$status" = 0 ] && [ -f "$W/trace" ]; then
        local tb
        tb=$(sed -n 's/.*"tracer_bytes_at_peak": *\([0-9]*\).*/\1/p' "$W/report.json" 2>/dev/null | head -n 1)
        echo "$name $build $(stat -c %s "$W/trace") $(LC_ALL=C grep -c '^[-+<>] ' "$W/trace")" \
             "$(LC_ALL=C grep -c '^#stack ' "$W/trace") ${tb:--}" >> "$W/stackinfo"
    fi
    rm -rf "$W/trace" "$W/report.json" "$W/peer"/* "$W/run"/*
}

# ---- the rounds ------------------------------------------------------------------
BUILDS=(base m3 m2 m1)
NAMES="" SIZES=""
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
if [ -n "$PEERS" ]; then
    # their start-up: an empty program, as many rounds as the workloads
    say "start-up: $PEER_RUNS round(s) of an empty program, uninstrumented +$PEERS"
    for r in $(seq "$PEER_RUNS"); do
        one startup empty small "$r"
        for t in $PEERS; do one startup empty "$t" "$r"; done
    done
fi
while IFS='|' read -r name prog args peer what; do
    NAMES="$NAMES $name"
    label=$args
    [ "$prog" = sites ] && label="$(bench_sites "$MODE") sites, $args"
    [ -n "$PEERS" ] && label="$label (peers: $peer)"
    SIZES="$SIZES$name=$label;"
    nr=$(bench_max_rounds "$name")
    [ -n "$nr" ] && [ "$nr" -lt "$RUNS" ] || nr=$RUNS
    npr=$(bench_max_rounds "$name")
    [ -n "$npr" ] && [ "$npr" -lt "$PEER_RUNS" ] || npr=$PEER_RUNS
    say "$name ($what): $nr round(s) of ${BUILDS[*]}"
    for r in $(seq "$nr"); do
        # rotate the order each round, so no build always runs first
        for i in 0 1 2 3; do
            # shellcheck disable=SC2086
            one "$name" "$prog" "${BUILDS[(i + r - 1) % 4]}" "$r" $args
        done
    done
    if [ -n "$PEERS" ]; then
        say "$name: $npr round(s) of uninstrumented +$PEERS at size '$peer'"
        for r in $(seq "$npr"); do
            # shellcheck disable=SC2086
            one "$name" "$prog" small "$r" $peer
            for t in $PEERS; do
                # shellcheck disable=SC2086
                one "$name" "$prog" "$t" "$r" $peer
            done
        done
    fi
done < <(selected)
# The call stacks (issue 13): the frame-pointer build (fp) run with
# MTRACE_DEPTH unset, 8 and 30, with the uninstrumented program and the
# level-1 build without frame pointers, in rotating order.
SBUILDS=(base m1 fp d8 d30)
SNAMES=""
if [ "$STACKS" = 1 ]; then
    while IFS='|' read -r name prog args peer what; do
        SNAMES="$SNAMES $name"
        SIZES="${SIZES}stacks/$name=$args;"
        say "call stacks, $name ($what): $RUNS round(s) of ${SBUILDS[*]}"
        for r in $(seq "$RUNS"); do
            for i in 0 1 2 3 4; do
                # shellcheck disable=SC2086
                one "stacks/$name" "$prog" "${SBUILDS[(i + r - 1) % 5]}" "$r" $args
            done
        done
    done < <(bench_stack_workloads "$MODE")
fi
T1=$(date +%s)

# ---- the report ----------------------------------------------------------------------
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
echo "## mtrace benchmarks ($MODE)"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $NCPU cores (nproc), ${cpu:-unknown CPU}, $(uname -sr)"
echo "- load average (1, 5, 15 min) at the start: $LOAD0; at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "- compiler: $("$CC" --version 2>/dev/null | head -n 1) (-O2)"
echo "- tracer: mtrace.c at $TRACER; traced builds: $([ "$BENCH_USE" = lib ] && echo "the library use (-DMTRACE_LIB, libmtrace.so)" || echo "the one-line use (-include mtrace.h, BENCH_USE=oneline)")"
if [ -n "${LUA_SRC:-}" ]; then
    echo "- Lua: $LUA_SRC, built by bench/build.sh --build-only (Lua's makefile and flags, without -march=native)"
else
    echo "- Lua: not run (LUA_SRC is not set; make bench LUA_SRC=/path/to/lua-5.4)"
fi
echo "- command: bench/run.sh${1:+ $*}, BENCH_RUNS=$RUNS; peers:${PEERS:- none}${PEERS:+, BENCH_PEER_RUNS=$PEER_RUNS}"
echo "- builds and workloads: $((T1 - T0)) s"
echo
awk -v order="$NAMES" -v sizes="$SIZES" -v peer_list="$PEERS" -v ncpu="$NCPU" -v peer_rounds="$PEER_RUNS" -v rounds="$RUNS" \
    -v sorder="$SNAMES" -f "$TOP/bench/report.awk" "$W/results" "$W/traces" "$W/memory" "$W/stackinfo"
if [ -z "$PEERS" ] && [ -n "$NAMES" ]; then
    echo
    if [ "${BENCH_PEERS:-1}" = 0 ]; then echo "heaptrack and massif: skipped (BENCH_PEERS=0)."
    else echo "heaptrack and valgrind are not installed: no peer columns."; fi
fi

# ---- the tool benchmarks -----------------------------------------------------------------
# Scripts of the other parts of the project: run as they are, and a
# failure is reported here without stopping the suite.
tool() {
    local script=$1 status
    shift
    if [ ! -x "$TOP/bench/$script" ]; then
        echo "- bench/$script: not there, skipped"
        return
    fi
    say "running bench/$script $*"
    (cd "$TOP" && TMPDIR=$W "bench/$script" "$@") > "$W/tool.out" 2>&1
    status=$?
    if [ $status = 0 ]; then
        echo "- bench/$script $*:"
    else
        echo "- bench/$script $*: **FAILED** (exit status $status); its output:"
    fi
    echo
    echo '```'
    tail -n 20 "$W/tool.out"
    echo '```'
}
# ---- the heap check against its peers (bench/heapcheck.sh) ------------------------------
# in the whole suite (no BENCH_ONLY); BENCH_HEAPCHECK=0 skips it; alone: make bench-heapcheck
if [ "${BENCH_HEAPCHECK:-1}" != 0 ] && [ -z "$ONLY" ]; then
    echo
    say "running bench/heapcheck.sh"
    TMPDIR=$W BENCH_PEER_RUNS=$PEER_RUNS "$TOP/bench/heapcheck.sh" $([ "$MODE" = quick ] && echo --quick) ||
        error "bench/heapcheck.sh: a wrong checksum or a failed build (see its lines above)"
fi
# ---- C++'s new and delete beside malloc and free (bench/cxx.sh) --------------------------
# in the whole suite (no BENCH_ONLY); BENCH_CXX=0 skips it; alone: make bench-cxx
if [ "${BENCH_CXX:-1}" != 0 ] && [ -z "$ONLY" ]; then
    echo
    say "running bench/cxx.sh"
    TMPDIR=$W BENCH_RUNS=$RUNS BENCH_PEER_RUNS=$PEER_RUNS "$TOP/bench/cxx.sh" $([ "$MODE" = quick ] && echo --quick) ||
        error "bench/cxx.sh: a run failed, a wrong checksum or a failed build (see its lines above)"
fi
echo
echo "### Tools"
echo
if [ "${BENCH_TOOLS:-1}" = 0 ]; then
    echo "- skipped (BENCH_TOOLS=0)"
else
    if [ "$MODE" = quick ]; then
        echo "- bench/ms_print.sh: skipped in quick mode (its Massif input takes minutes to generate)"
    elif [ "$MS_PRINT" = done ]; then
        echo "- bench/ms_print.sh: run by make's bench-ms_print target before this report (see above)"
    else
        tool ms_print.sh 3
    fi
    if [ "$MODE" = quick ]; then records=${BENCH_M2M_RECORDS:-1000000}; else records=${BENCH_M2M_RECORDS:-20000000}; fi
    tool mtrace2massif.sh "$records"
fi
say "done in $(($(date +%s) - T0)) s"

if [ -s "$W/errors" ]; then
    echo
    echo "### ERRORS"
    echo
    sed 's/^/    /' "$W/errors"
    echo "*** bench: $(grep -c '' "$W/errors") error line(s), see above" >&2
    exit 1
fi
exit 0
