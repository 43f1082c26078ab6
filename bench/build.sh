#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/build.sh - what mtrace costs in the build and in the run of a real
# multi-file program: Lua 5.4, built from source by its own makefile with
# one make job (make -j1).
#
#   make bench-build LUA_SRC=/path/to/lua      (or: LUA_SRC=... bench/build.sh)
#
# LUA_SRC is a checkout of github.com/lua/lua at a 5.4 release tag (its
# developer makefile at the top); nothing is fetched here.  Without it the
# script says so and exits 0.  BUILD_RUNS rounds (default 3); every figure
# printed is the median of the rounds.
#
# The builds differ only in what is appended to Lua's own MYCFLAGS and
# MYLIBS (read from `make echo`, so Lua's warnings and -O2 stay):
#   plain     nothing
#   one-line  -DMTRACE=N -include mtrace.h
#   lib .so   -DMTRACE=N -DMTRACE_LIB -include mtrace.h; -lmtrace (shared)
#   lib .a    the same; MYLIBS += libmtrace.a (the archive named on the link)
# Each build is made in a fresh copy of LUA_SRC.  The tracer is copied and
# its libraries built in the temporary directory first, so that edits to
# mtrace.c during the run do not mix two versions.
#
# Prints markdown on stdout: (1) the whole build at MTRACE=1, time and
# size of the lua executable; (2) lvm.c and lparser.c compiled alone at
# -O0 and -O2, against the target "library use within 10% or 0.05 s of
# the plain compile"; (3) bench/alloc.lua run by every build at MTRACE=2
# and 1 (level 1 writes its trace to a file), cost per allocator call.
# Every run must print the plain build's output, exit 0 and (traced) print
# the summary; anything else is an error and the exit status is 1.
#
#   bench/build.sh --build-only OUTDIR   (used by bench/run.sh for `make bench`)
# only builds lua four times, OUTDIR/lua.0 plain and OUTDIR/lua.3, .2, .1 at
# those levels, with the library (.so) or, with BENCH_USE=oneline, the
# one-line use, against the tracer in BENCH_MTRACE_DIR when set (its
# mtrace.h and libmtrace.so already built there), with make -j(nproc);
# nothing is timed.  Lua's CFLAGS without its -march=native (Valgrind
# stops on instructions it does not know, and Massif runs this build).
# Exit status 1 if a build fails.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD_ONLY=
if [ "${1:-}" = --build-only ]; then
    BUILD_ONLY=${2:?usage: bench/build.sh --build-only OUTDIR}
    BUILD_ONLY=$(cd "$BUILD_ONLY" && pwd) || exit 2
fi
if [ -z "${LUA_SRC:-}" ]; then
    echo "bench/build.sh: skipped: LUA_SRC is not set (make bench-build LUA_SRC=/path/to/lua," \
        "a checkout of github.com/lua/lua at a 5.4 tag)"
    exit 0
fi
LUA_SRC=$(cd "$LUA_SRC" && pwd) || exit 2
[ -f "$LUA_SRC/lvm.c" ] && [ -f "$LUA_SRC/makefile" ] ||
    { echo "bench/build.sh: $LUA_SRC: no lvm.c and makefile (want a lua/lua checkout)" >&2; exit 2; }
RUNS=${BUILD_RUNS:-3}
unset MAKEFLAGS MFLAGS MAKELEVEL  # Lua's make is on its own, even under `make bench-build`
W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-build.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
say() { echo "build.sh: $*" >&2; }
error() { echo "*** build.sh ERROR: $*" >&2; echo "$*" >> "$W/errors"; }
: > "$W/res"; : > "$W/errors"; : > "$W/notes"
T0=$(date +%s) LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the tracer, the timer, Lua's own flags ----------------------------------
M=$W/mt
mkdir -p "$M" "$W/bin" "$W/run"
if [ -n "$BUILD_ONLY" ] && [ -n "${BENCH_MTRACE_DIR:-}" ]; then
    M=$BENCH_MTRACE_DIR  # bench/run.sh's snapshot, its libraries built
elif [ -n "${MTRACE_REV:-}" ]; then  # a committed tracer, for a result that can be reproduced
    git -C "$TOP" archive "$MTRACE_REV" mtrace.h mtrace.c $(git -C "$TOP" ls-tree --name-only "$MTRACE_REV" runtime) \
        | tar -x -C "$M" || exit 2
else
    cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$M/" || exit 2
fi
[ -f "$M/libmtrace.so" ] || make -s -C "$M" -f "$TOP/Makefile" libmtrace.so libmtrace.a >&2 || exit 2
cc -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || exit 2
luavar() { make -s -C "$LUA_SRC" echo | sed -n "s/^$1 = *//p"; }
BASE_CFLAGS=$(luavar MYCFLAGS) BASE_LIBS=$(luavar MYLIBS)
BUILDS=(plain one so a)
label() { case $1 in plain) echo plain ;; one) echo one-line ;; so) echo "library .so" ;; a) echo "library .a" ;; esac; }
# cflags BUILD LEVEL, libs BUILD: what each build appends
cflags() {
    case $1 in
    one) echo "-DMTRACE=$2 -include $M/mtrace.h" ;;
    so | a) echo "-DMTRACE=$2 -DMTRACE_LIB -include $M/mtrace.h" ;;
    esac
}
libs() { case $1 in so) echo "-L$M -Wl,-rpath,$M -lmtrace" ;; a) echo "$M/libmtrace.a" ;; esac; }
if [ -n "$BUILD_ONLY" ]; then
    case ${BENCH_USE:-lib} in lib) use=so ;; oneline) use=one ;; *) echo "BENCH_USE: lib or oneline" >&2; exit 2 ;; esac
    all=$(luavar CFLAGS | sed 's/ -march=native//')
    for l in 0 3 2 1; do
        if [ "$l" = 0 ]; then b=plain; else b=$use; fi
        d=$W/lua.$l
        rm -rf "$d" && cp -r "$LUA_SRC" "$d" || exit 2
        if ! (cd "$d" && make -j"$(nproc)" CFLAGS="$all $(cflags "$b" "$l")" \
                MYLIBS="$BASE_LIBS $(libs "$b")") > "$W/log" 2>&1; then
            echo "bench/build.sh: the $(label "$b") build of Lua at MTRACE=$l failed:" >&2
            tail -n 20 "$W/log" >&2
            exit 1
        fi
        cp "$d/lua" "$BUILD_ONLY/lua.$l" && rm -rf "$d" || exit 2
    done
    exit 0
fi
# timed RESULT-KEY COMMAND...: runs it, appends "KEY wall cpu" to the results
timed() {
    local key=$1 wall user sys rss status
    shift
    "$W/timeit" "$W/t" "$@"
    read -r wall user sys rss status < "$W/t"
    echo "$key $wall $(echo "$user $sys" | awk '{ print $1 + $2 }')" >> "$W/res"
    return "$status"
}
# median KEY FIELD [DECIMALS]: of the results with that key (field 2 wall, 3 cpu)
median() {
    awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$W/res" | sort -g |
        awk -v d="${3:-2}" '{ v[NR] = $1 } END { if (NR) printf "%.*f\n", d, v[int((NR + 1) / 2)] }'
}

# ---- 1. whole builds (MTRACE=1 timed, MTRACE=2 once for the runs) --------------
build() {  # build BUILD LEVEL ROUND
    local d=$W/lua.$1$2 key=make.$1
    rm -rf "$d" && cp -r "$LUA_SRC" "$d" || exit 2
    [ "$2" = 2 ] && key=untimed
    if ! (cd "$d" && timed "$key" make -j1 MYCFLAGS="$BASE_CFLAGS $(cflags "$1" "$2")" \
            MYLIBS="$BASE_LIBS $(libs "$1")") > "$W/log" 2>&1; then
        error "the $(label "$1") build at MTRACE=$2 failed:"; tail -n 20 "$W/log" >&2; return
    fi
    if [ "$3" = 1 ]; then
        grep -E 'warning:|error:' "$W/log" | sed "s|^|$(label "$1") MTRACE=$2: |" >> "$W/notes"
        cp "$d/lua" "$W/bin/lua.$1$2"
    fi
    # 2. one translation unit alone, in the tree just built
    if [ "$2" = 1 ] && [ "$1" != a ]; then
        local f o k cmd
        for f in lvm lparser; do for o in 0 2; do
            rm -f "$d/$f.o"
            cmd=$(cd "$d" && make -s -n "$f.o" MYCFLAGS="$BASE_CFLAGS $(cflags "$1" 1) -O$o")
            for k in 1 2 3; do  # three times: short, and this machine is shared
                (cd "$d" && timed "cc.$f.O$o.$1" sh -c "$cmd") ||
                    error "$f.c at -O$o ($(label "$1")) failed to compile"
            done
            [ "$3" = 1 ] && echo "size.$f.O$o.$1 $(size "$d/$f.o" | awk 'NR == 2 { print $1 }')" >> "$W/res"
        done; done
    fi
    rm -rf "$d"
}
say "building Lua from $LUA_SRC, $RUNS round(s) of: ${BUILDS[*]} (make -j1)"
for r in $(seq "$RUNS"); do
    for i in 0 1 2 3; do  # the order rotates from one round to the next
        b=${BUILDS[(i + r - 1) % 4]}
        say "round $r: $(label "$b")"
        build "$b" 1 "$r"
    done
done
for b in one so a; do build "$b" 2 1; done

V=$(awk '/define LUA_VERSION_(MAJOR|MINOR|RELEASE)[ \t]/ { gsub(/"/, "", $3); v = v (v == "" ? "" : ".") $3 } END { print v }' "$LUA_SRC/lua.h")
echo "## Build cost: Lua $V ($LUA_SRC)"
echo
echo "- machine: $(nproc) cores, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo); load at the start: $LOAD0"
if [ -n "${MTRACE_REV:-}" ]; then TRACER="$(git -C "$TOP" log -1 --format=%h "$MTRACE_REV" -- mtrace.c mtrace.h runtime) (MTRACE_REV=$MTRACE_REV)"
else TRACER="$(git -C "$TOP" log -1 --format=%h -- mtrace.c mtrace.h runtime)$(git -C "$TOP" diff --quiet HEAD -- mtrace.c mtrace.h runtime || echo ' + uncommitted changes')"; fi
echo "- compiler: $(cc --version | head -n 1); tracer: mtrace.c at $TRACER"
echo "- medians of $RUNS rounds (compiles of one file: 3 per round); CPU = user + system of make and the compilers; sizes of lua as built (no -g) and after strip"
echo
echo "| build (MTRACE=1) | make -j1 wall s | CPU s | × plain CPU | text | data | bss | lua bytes | stripped |"
echo "|---|---|---|---|---|---|---|---|---|"
pc=$(median make.plain 3)
for b in "${BUILDS[@]}"; do
    f=$W/bin/lua.${b}1
    [ -x "$f" ] || { echo "| $(label "$b") | FAILED |||||||"; continue; }
    strip -o "$W/stripped" "$f"
    c=$(median "make.$b" 3)
    echo "| $(label "$b") | $(median "make.$b" 2) | $c | $(awk -v a="$c" -v p="$pc" 'BEGIN { printf "%.2f", a / p }') |" \
        "$(size "$f" | awk 'NR == 2 { print $1 " | " $2 " | " $3 }') | $(stat -c %s "$f") | $(stat -c %s "$W/stripped") |"
done
echo
echo "One translation unit alone (the compiler command of Lua's makefile, -O0 or -O2 appended; CPU s, object text bytes):"
echo
echo "| file | plain | one-line | library | object text plain / one-line / library | library within 10% or 0.05 s? |"
echo "|---|---|---|---|---|---|"
for f in lvm lparser; do for o in 0 2; do
    p=$(median "cc.$f.O$o.plain" 3 3) one=$(median "cc.$f.O$o.one" 3 3) lib=$(median "cc.$f.O$o.so" 3 3)
    ratio() { awk -v a="$1" -v p="$p" 'BEGIN { printf "%s (%+.0f%%)", a, (a / p - 1) * 100 }'; }
    met=$(awk -v a="$lib" -v p="$p" 'BEGIN { print (a <= p * 1.10 || a - p <= 0.05) ? "met" : "**not met**" }')
    echo "| $f.c -O$o | $p | $(ratio "$one") | $(ratio "$lib") |" \
        "$(median "size.$f.O$o.plain" 2 0) / $(median "size.$f.O$o.one" 2 0) / $(median "size.$f.O$o.so" 2 0) | $met |"
done; done

# ---- 3. the runs ------------------------------------------------------------------
RUNSET=(plain1 one2 so2 a2 one1 so1 a1)
say "allocator calls of bench/alloc.lua (one run, its trace counted through a pipe)"
CALLS=$(cd "$W/run" && MTRACE=/dev/fd/3 "$W/bin/lua.so1" "$TOP/bench/alloc.lua" 3>&1 > /dev/null 2>&1 |
    LC_ALL=C grep -c '^[-+>] ')
say "$CALLS calls; $RUNS round(s) of: ${RUNSET[*]}"
for r in $(seq "$RUNS"); do
    for i in "${!RUNSET[@]}"; do
        x=${RUNSET[(i + r - 1) % ${#RUNSET[@]}]}
        [ -x "$W/bin/lua.$x" ] || continue
        rm -f "$W/trace"
        (cd "$W/run" && MTRACE=$W/trace timed "run.$x" "$W/bin/lua.$x" "$TOP/bench/alloc.lua" \
            > "$W/out.$x" 2> "$W/err.$x") || error "lua ($x, round $r) exited with status $?: $(tail -n 3 "$W/err.$x")"
        case $x in
        plain*) ;;
        *1) [ -s "$W/trace" ] || error "lua ($x, round $r) wrote no trace"
            [ "$r" = 1 ] && echo "trace $(stat -c %s "$W/trace")" >> "$W/res" ;;
        esac
        rm -f "$W/trace"
        [ -f "$W/out.ref" ] || cp "$W/out.$x" "$W/out.ref"
        cmp -s "$W/out.ref" "$W/out.$x" || error "lua ($x, round $r): output differs from the first run's"
        case $x in
        plain*) [ -s "$W/err.$x" ] && error "plain lua wrote on stderr: $(head -n 3 "$W/err.$x")" ;;
        *) grep -q 'max traced memory size' "$W/err.$x" || error "lua ($x): no summary on stderr"
           # what the summary does not always say: leaks, warnings, anything new
           [ "$r" = 1 ] && grep -vE 'max resident|max traced|^ *max bytes|^ *[0-9]+ +[^ ]+ +[^ ]+:[0-9]+$|To get a graph' \
               "$W/err.$x" | sed "s/^/lua.$x: /" >> "$W/notes" ;;
        esac
    done
done
echo
echo "bench/alloc.lua (binary trees of depth 16, string building, table churn), $CALLS allocator calls;" \
    "level 1 writes its trace to a file ($(median trace 2 0) bytes, in the temporary directory); output identical in every run: $(grep -q 'output differs' "$W/errors" && echo NO || echo yes)"
echo
echo "| build | MTRACE | wall s | CPU s | × plain CPU | ns per call over plain (CPU) |"
echo "|---|---|---|---|---|---|"
pc=$(median run.plain1 3 3)
for x in "${RUNSET[@]}"; do
    c=$(median "run.$x" 3 3)
    [ -n "$c" ] || continue
    case $x in plain*) lv=— ;; *) lv=${x: -1} ;; esac
    echo "| $(label "${x%?}") | $lv | $(median "run.$x" 2 3) | $c |" \
        "$(awk -v c="$c" -v p="$pc" -v n="$CALLS" 'BEGIN { printf "%.2f | %.1f", c / p, (c - p) / n * 1e9 }') |"
done
echo
echo "- load at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - T0)) s in all"
if [ -s "$W/notes" ]; then
    echo "- compiler warnings and tracer lines (first round):"
    echo; echo '```'; sort -u "$W/notes" | head -n 40; echo '```'
fi
if [ -s "$W/errors" ]; then
    echo; echo "### ERRORS"; echo; sed 's/^/    /' "$W/errors"
    exit 1
fi
exit 0
