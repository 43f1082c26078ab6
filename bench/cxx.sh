#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/cxx.sh [--quick] - what a traced new/delete pair costs beside a
# malloc/free pair (issue 41), in one run: bench/newdelete.cpp built
# plainly ($CXX -O2, default c++) and by mtrace-c++ at MTRACE_LEVEL=2 and
# 1 (the library use: libmtrace.so built from a snapshot of the tree, or
# the one in BENCH_MTRACE_DIR, bench/run.sh's snapshot), each of its
# three pairs (::operator new and delete, new[] and delete[], malloc and
# free) run BENCH_RUNS times (default 5, 1 with --quick) in rounds whose
# order rotates; heaptrack, when installed, at a quarter of the pairs (a
# tenth with --quick) next to the plain program at that size, its
# start-up on 0 pairs subtracted from both sides as bench/run.sh does,
# BENCH_PEER_RUNS rounds (default 3, 1 with --quick; BENCH_PEERS=0 skips
# it).  Prints markdown on stdout: wall time over the plain program's
# (median of the per-round ratios), CPU time per pair in ns (level 1's
# writer thread and heaptrack's interpreter included) and its ratio, and
# each pair over malloc/free's in the same build.  Every run must print
# the plain program's checksum and exit 0, else it is an error and the
# exit status is 1; a peer that is not installed says so in its cells.
# Without a C++ compiler it prints a note and exits 0.  Run by
# bench/run.sh (`make bench`, BENCH_CXX=0 skips it), or alone: `make
# bench-cxx`.  BENCH_CXX_PAIRS="PAIRS PEER-PAIRS" sets the sizes.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MODE=full
[ "${1:-}" = --quick ] && MODE=quick
if [ "$MODE" = quick ]; then
    RUNS=${BENCH_RUNS:-1} PEER_RUNS=${BENCH_PEER_RUNS:-1} SIZES=${BENCH_CXX_PAIRS:-1000000 100000}
else
    RUNS=${BENCH_RUNS:-5} PEER_RUNS=${BENCH_PEER_RUNS:-3} SIZES=${BENCH_CXX_PAIRS:-10000000 2500000}
fi
for n in "$RUNS" "$PEER_RUNS"; do
    case $n in ''|*[!0-9]*|0) echo "BENCH_RUNS and BENCH_PEER_RUNS must be positive numbers" >&2; exit 2 ;; esac
done
read -r PAIRS PEER_PAIRS <<< "$SIZES"
case "${PAIRS:-x} ${PEER_PAIRS:-x}" in *[!0-9\ ]*) echo "BENCH_CXX_PAIRS must be two numbers: PAIRS PEER-PAIRS" >&2; exit 2 ;; esac
CXX=${CXX:-c++}
CC=${CC:-cc}
say() { echo "bench/cxx.sh: $*" >&2; }
if ! command -v "${CXX%% *}" > /dev/null 2>&1; then
    echo "### C++'s new and delete beside malloc and free"
    echo
    echo "- not run: no C++ compiler ($CXX; set CXX)"
    exit 0
fi
if [ "${BENCH_PEERS:-1}" = 0 ]; then PEER_STATE="skipped (BENCH_PEERS=0)"
elif ! command -v heaptrack > /dev/null 2>&1; then PEER_STATE="not installed"
else PEER_STATE=""; fi
unset MTRACE_DEPTH MTRACE_ALLOC_FN MTRACE_REPORT MTRACE_CHECK MTRACE_QUARANTINE MTRACE_DOUBLE_FREE MTRACE_LEVEL MTRACE_CXX
W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-cxxbench.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

# ---- build: plain, and mtrace-c++ at levels 2 and 1 against a snapshot of
# the tracer (an edit of the tree during the run cannot mix two versions):
# bench/run.sh's (BENCH_MTRACE_DIR, its libmtrace.so built), else our own.
# mtrace-c++ takes the header and library beside it.
say "building in $W"
mkdir -p "$W/src" "$W/bin" "$W/run"
if [ -n "${BENCH_MTRACE_DIR:-}" ]; then
    for f in "$BENCH_MTRACE_DIR"/mtrace.h "$BENCH_MTRACE_DIR"/libmtrace.so*; do
        ln -s "$(cd "$(dirname "$f")" && pwd)/${f##*/}" "$W/src/" || exit 2
    done
    [ -e "$W/src/libmtrace.so" ] || { echo "no libmtrace.so in BENCH_MTRACE_DIR ($BENCH_MTRACE_DIR)" >&2; exit 2; }
    TRACER="bench/run.sh's (BENCH_MTRACE_DIR), as in its report's header"
else
    cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$W/src/" || exit 2
    make -s -C "$W/src" -f "$TOP/Makefile" libmtrace.so >&2 || { echo "cannot build libmtrace.so" >&2; exit 2; }
    TRACER=$(cd "$TOP" && git log -1 --format='%h' -- mtrace.c mtrace.h runtime 2>/dev/null)
    (cd "$TOP" && git diff --quiet HEAD -- mtrace.c mtrace.h runtime 2>/dev/null) || TRACER="$TRACER (+ uncommitted changes)"
fi
cp "$TOP/mtrace-cc" "$W/src/mtrace-c++" || exit 2      # called by this name, it is the C++ wrapper
"$CC" -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || exit 2
(cd "$TOP" && $CXX -O2 -Ibench -o "$W/bin/newdelete.0" bench/newdelete.cpp &&
    for level in 2 1; do
        MTRACE_CXX=$CXX MTRACE_LEVEL=$level "$W/src/mtrace-c++" -O2 -Ibench -o "$W/bin/newdelete.$level" bench/newdelete.cpp || exit 1
    done) || { echo "bench/newdelete.cpp did not build" >&2; exit 2; }

# ---- one timed run: one PAIR BUILD ROUND PAIRS -> a line of $W/results:
# PAIR BUILD ROUND WALL CPU STATUS (STATUS 0, or what went wrong).  BUILD:
# base, m2, m1, small (plain at the peer's size), heaptrack; PAIR "start"
# is 0 pairs (the start-up).
declare -A REF
one() {
    local pair=$1 build=$2 round=$3 n=$4 exe=$W/bin/newdelete.0 cmd wall user sys status csum
    case $build in m2) exe=$W/bin/newdelete.2 ;; m1) exe=$W/bin/newdelete.1 ;; esac
    cmd=("$exe" "${pair/start/malloc}" "$n")
    [ "$build" = heaptrack ] && cmd=(heaptrack -o "$W/run/heaptrack" "${cmd[@]}")
    (cd "$W/run" && MTRACE="$W/trace" "$W/timeit" "$W/time" "${cmd[@]}" > "$W/out" 2> "$W/err")
    read -r wall user sys _ status < "$W/time" || { wall=0 user=0 sys=0 status=999; }
    csum=$(awk '$1 == "checksum" { print $2 }' "$W/out")
    if [ "$status" != 0 ]; then status=exit-$status
    elif [ -z "$csum" ]; then status=no-checksum
    elif [ -z "${REF[$n]:-}" ]; then REF[$n]=$csum
    elif [ "$csum" != "${REF[$n]}" ]; then status=checksum
    fi
    [ "$status" = 0 ] || { echo "*** bench/cxx.sh ERROR: $pair: $build (round $round): $status; its stderr ends with:" >&2
                           tail -n 3 "$W/err" | sed 's/^/    /' >&2; }
    echo "$pair $build $round $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $status" >> "$W/results"
    rm -rf "$W/run"/* "$W/trace"
}

# ---- the rounds: the pairs in turn, each pair's builds in an order that
# rotates from round to round; then the peer's rounds
PAIRS_ORDER=(new array malloc)
BUILDS=(base m2 m1)
: > "$W/results"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
say "$RUNS round(s) of ${BUILDS[*]} on each pair (${PAIRS_ORDER[*]}), $PAIRS pairs"
for r in $(seq "$RUNS"); do
    for j in 0 1 2; do
        for i in 0 1 2; do one "${PAIRS_ORDER[(j + r - 1) % 3]}" "${BUILDS[(i + r - 1) % 3]}" "$r" "$PAIRS"; done
    done
done
if [ -z "$PEER_STATE" ]; then
    say "$PEER_RUNS round(s) of plain and heaptrack, $PEER_PAIRS pairs, and their start-up on 0"
    for r in $(seq "$PEER_RUNS"); do
        for pair in start "${PAIRS_ORDER[@]}"; do
            n=$PEER_PAIRS
            [ "$pair" = start ] && n=0
            one "$pair" small "$r" "$n"
            one "$pair" heaptrack "$r" "$n"
        done
    done
fi

# ---- the report
echo "### C++'s new and delete beside malloc and free"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); tracer: $TRACER; load average at the start: $LOAD0, at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "- bench/newdelete.cpp: 64 live blocks of 16 to 1040 bytes, $PAIRS pairs, $RUNS round(s); $($CXX --version 2>/dev/null | head -n 1) -O2, traced by mtrace-c++ (MTRACE_LEVEL=2, 1: the library use, libmtrace.so)"
echo "- heaptrack: ${PEER_STATE:-$(heaptrack --version 2>/dev/null | head -n 1), $PEER_PAIRS pairs, $PEER_RUNS round(s), its start-up (0 pairs) subtracted from it and from the plain program: (heaptrack − start-up) / (plain − start-up)}"
echo
awk -v pairs="$PAIRS" -v peer_pairs="$PEER_PAIRS" -v peer_state="$PEER_STATE" -f "$TOP/bench/cxx.awk" "$W/results"
! grep -qv ' 0$' "$W/results"
