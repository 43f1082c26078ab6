#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/model/run.sh - random programs checked against a reference model of
# mtrace's documented contract (issue 22, item 3).
#
#   tests/model/run.sh [SEEDS] [FIRST]     SEEDS seeds (default 200) from FIRST (1)
#   tests/model/run.sh --long N [FIRST]    N longer scripts (for a make target)
#   tests/model/run.sh --script FILE [--level L] [--mode continue|abort] [--stacks N]
#                      [--reach] [--suppress FILE] [--alloc-fn LIST] [--max-heap SIZE]
#                                          one script, every difference shown
#                                          (--stacks: with MTRACE_DEPTH=N; the
#                                          others: MTRACE_LEAK_CHECK=reachable,
#                                          MTRACE_SUPPRESS, MTRACE_ALLOC_FN,
#                                          MTRACE_MAX_HEAP for the continue-mode
#                                          runs)
#
# Each seed is a script for tests/model/driver.c, written by model.py's
# generator, run at levels 1, 2 and 3 with MTRACE_DOUBLE_FREE=continue,
# and again without it (abort mode) when it frees something badly; one
# script in three that does is run once more with MTRACE_DEPTH (--long:
# every one).  Scripts fork (children, grandchildren, each with its own
# trace and report) and free in a child what its parent had.  Half the
# scripts store pointers (in globals, blocks, main's frame): some of their
# runs scan for reachable blocks (MTRACE_LEAK_CHECK=reachable); a third of
# the runs read a random suppression file (MTRACE_SUPPRESS); scripts that
# allocate through the driver's own wrappers get a run with stacks and
# MTRACE_ALLOC_FN; a quarter of the runs get a budget near the peak
# (MTRACE_MAX_HEAP) (issue 37).
# model.py predicts every run from README.md and doc/ and compares: one
# ok/FAIL line per property, not per seed.  A failure names the first seed
# and level that differ, shrinks that script to a minimal one and prints the
# command that reproduces it.
#
# Environment: CC (default cc) and TEST_CFLAGS (default -g -O1) build the
# driver; MODEL_KINDS picks the kinds of bad free (default all; `old`:
# double, realloc-double and stack, what mtrace reported before issue 22;
# `new`: double-far, interior, realloc-interior, static, mmap, unmapped,
# fork; or a list of kinds, e.g. MODEL_KINDS=double-far,interior);
# MODEL_BUILD=lib|header forces one build (default: the library for even
# seeds, the one-line use for odd ones); MODEL_TOP tests another tree's
# mtrace.h and libmtrace; MODEL_JOBS (default: the number of CPUs);
# MODEL_SHRINK=0 skips the shrinking, MODEL_SHRINK_SECONDS bounds it (120);
# MODEL_KEEP is where the shrunk script is written ($TMPDIR/mtrace-model);
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${MODEL_TOP:-$(cd "$HERE/../.." && pwd)}
BASH_ARGV0=model      # finish names the suite after $0: "model: N passed", not "run"

seeds=200 first=1 long= script= level= mode= seeded= stacks= reach= suppress= allocfn= maxheap=
while [ $# -gt 0 ]; do
    case $1 in
        --long) long=--long seeds=${2:?--long N} seeded=1 first=1000001; shift 2 ;;
        --script) script=${2:?--script FILE}; shift 2 ;;
        --level) level=${2:?}; shift 2 ;;
        --mode) mode=${2:?}; shift 2 ;;
        --stacks) stacks=${2:?}; shift 2 ;;
        --reach) reach=1; shift ;;
        --suppress) suppress=${2:?}; shift 2 ;;
        --alloc-fn) allocfn=${2:?}; shift 2 ;;
        --max-heap) maxheap=${2:?}; shift 2 ;;
        -*) echo "usage: $0 [SEEDS] [FIRST] | --long N [FIRST] | --script FILE [--level L] [--mode M] [--stacks N] [--reach] [--suppress FILE] [--alloc-fn LIST] [--max-heap SIZE]" >&2; exit 2 ;;
        *) if [ -z "$seeded" ]; then seeds=$1 seeded=1; else first=$1; fi; shift ;;
    esac
done
case $script in /*|'') ;; *) script=$PWD/$script ;; esac
case $suppress in /*|'') ;; *) suppress=$PWD/$suppress ;; esac

# The driver at each level, in both uses (tests/model/build.sh).
. "$HERE/build.sh"
builds="lib header"
[ -n "${MODEL_BUILD:-}" ] && builds=$MODEL_BUILD
[ -n "$script" ] && builds=${MODEL_BUILD:-lib}
pids=
for use in $builds; do
    for l in 1 2 3; do model_build $use $l & pids="$pids $!"; done
done
built=1
for p in $pids; do wait $p || built=; done
for use in $builds; do
    for l in 1 2 3; do
        if [ ! -x "$TMP/driver-$use-$l" ] || [ -s "$TMP/build-$use-$l.log" ]; then
            fail "model: the driver builds silently ($use use, level $l)"
            sed 's/^/     /' "$TMP/build-$use-$l.log" | head -20
            built=
        fi
    done
done
if [ -z "$built" ]; then finish; exit 1; fi
pass "model: the driver builds silently at levels 1-3 ($builds use)"

# model.py prints "PASS name", "FAIL name", indented details, "INFO ...":
# counted here, so that the suite's total holds one line per property.  A
# model.py that stops without saying why (a traceback) is a failure too.
report() {
    local verdict rest failed=
    while IFS= read -r line; do
        verdict=${line%% *} rest=${line#* }
        case $verdict in
            PASS) pass "$rest" ;;
            FAIL) fail "$rest"; failed=1 ;;
            INFO) printf '     %s\n' "$rest" ;;
            *) printf '%s\n' "$line" ;;
        esac
    done
    [ -n "$failed" ] && return 1
    return 0
}
export MODEL_KINDS=${MODEL_KINDS:-all}
# Under AddressSanitizer mtrace reports no bad free (doc/limits.md: ASan's
# allocator stays the program's, and ASan stops at the first one itself).
if [ -n "$ASAN" ]; then
    MODEL_KINDS=none
    echo "     AddressSanitizer: no bad frees (MODEL_KINDS=none)"
fi
if [ -n "$script" ]; then
    set -- script "$script" ${level:+--level "$level"} ${mode:+--mode "$mode"} ${stacks:+--stacks "$stacks"} \
        ${reach:+--reach} ${suppress:+--suppress "$suppress"} ${allocfn:+--alloc-fn "$allocfn"} \
        ${maxheap:+--max-heap "$maxheap"}
else
    set -- check --seeds "$seeds" --first "$first" $long --jobs "${MODEL_JOBS:-$(nproc 2> /dev/null || echo 2)}"
fi
# model ARGS...: model.py's verdicts, counted here
model() {
    local statuses
    python3 "$HERE/model.py" "$@" --bin-dir "$TMP" --work "$TMP" 2>&1 | report
    statuses=("${PIPESTATUS[@]}")
    if [ "${statuses[0]}" -ne 0 ] && [ "${statuses[1]}" -eq 0 ]; then
        fail "model: model.py $1 stopped with status ${statuses[0]} and no FAIL line"
    fi
}
shopt -s lastpipe       # report runs in this shell: its pass/fail counts stay
start=$(date +%s)
model "$@"
# The scripts found by earlier runs (shrunk, with what they showed), kept
# as they are: one line each, whatever the seeds.
if [ -z "$script" ] && [ "$MODEL_KINDS" != none ]; then
    for found in "$HERE"/found/*.script; do
        [ -e "$found" ] && model script "$found" --one-line
    done
fi
echo "     model: $(($(date +%s) - start)) s"
finish
