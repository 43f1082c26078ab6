#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/modelcxx.sh - the mismatched free's contract, checked by a model
# (issue 41): random C++ programs (tests/model/driver.cpp scripts: malloc,
# calloc, realloc, free; new and new[] of a trivial type, of a type with a
# destructor, of an over-aligned type, plain and nothrow; delete and
# delete[] expressions, sized or not as the compiler emits them, and the
# operators by name; a block freed by each wrong family, twice, or by its
# array cookie's address; on a thread, in forked children; stop and
# continue mode; one seed in four clean; MTRACE_CHECK=heap in one in four),
# built with mtrace-c++ under g++ and clang++ at levels 1-3, and
# tests/model/cxx.py predicts from
# doc/guide.md ("C++"), doc/limits.md and doc/report-json.md every report
# (text, place, the allocation's note), each process's exit report (leak
# errors, the counts, "No memory leaks"), each child's end, the exit
# status and the JSON report's counts; a clean program must run clean.
# Then MODEL_CXX_MEMCHECK_SEEDS (8) scripts, built without mtrace, under
# Memcheck: the same bad frees as the model's.
#
#   tests/modelcxx.sh [SEEDS] [FIRST]   (MODEL_CXX_SEEDS: the default count, 200)
# Seed S builds its script, mode, compiler and level from S alone: a
# failure names the first failing seed, writes its script to MODEL_KEEP
# (default: the suite's directory; MTRACE_TEST_KEEP=1 keeps it), and
# `tests/modelcxx.sh 1 S` runs it again; `python3 tests/model/cxx.py show S`
# prints the script and what the model predicts.
. "$(dirname "$0")/lib.sh"
HERE=$TOP/tests/model
. "$HERE/build.sh"        # (model_verdicts)
seeds=${1:-${MODEL_CXX_SEEDS:-200}} first=${2:-1}

if [ -n "$ASAN" ]; then         # ASan's own new and delete take libmtrace's place (limits.md)
    echo "     AddressSanitizer: new and delete are the sanitizer's, nothing to model"
    finish
    exit
fi
# The driver with each compiler at each level, compiled from its own
# directory (its sites are driver.cpp:LINE), without tail calls (the
# return address is the call's line); clang++ at -O0: at -O1 it merges
# each function's two identical calls (sites a and b) into one, of line 0.
build() {
    local c=$1 level=$2 opt=-O1
    [ "$c" = clang++ ] && opt=-O0
    (cd "$HERE" && MTRACE_CXX=$c MTRACE_LEVEL=$level "$TOP/mtrace-c++" -std=c++17 -g $opt \
        -fno-optimize-sibling-calls -Wall -Wextra driver.cpp -o "$TMP/driver-cxx-$c-$level" -lpthread) \
        > "$TMP/build-$c-$level.log" 2>&1
}
unset MTRACE_CXX MTRACE_LEVEL
for c in g++ clang++; do
    pids=
    for l in 1 2 3; do build $c $l & pids="$pids $!"; done
    for p in $pids; do wait $p; done
done
built=1
for c in g++ clang++; do
    for l in 1 2 3; do
        [ -x "$TMP/driver-cxx-$c-$l" ] && [ ! -s "$TMP/build-$c-$l.log" ] && continue
        built=
        sed 's/^/     /' "$TMP/build-$c-$l.log" | head -10
    done
done
check "modelcxx: the C++ driver builds silently with mtrace-c++, g++ and clang++, levels 1-3" test -n "$built"
[ -n "$built" ] || { finish; exit 1; }

start=$(date +%s)
python3 "$HERE/cxx.py" check --seeds "$seeds" --first "$first" --bin-dir "$TMP" --work "$TMP" \
    --jobs "${MODEL_JOBS:-$(nproc 2> /dev/null || echo 2)}" --keep "${MODEL_KEEP:-$TMP}" > "$TMP/verdicts" 2>&1
status=$?
# the properties cxx.py judges, one line each whatever the seeds
title() {
    case $1 in
        reports) echo "modelcxx: each report and exit report as the model predicts (mismatched, double and invalid frees, places, leaks, counts)" ;;
        clean) echo "modelcxx: a clean program runs clean (no error, no note, exit 0)" ;;
        children) echo "modelcxx: each forked child ends as predicted (exit status or SIGABRT)" ;;
        status) echo "modelcxx: each run's exit status as predicted (134 at a stop, 1 after a report or a leak)" ;;
        json) echo "modelcxx: the JSON report's mismatched_frees, double_frees, invalid_frees, leaks and exit_status, each process's" ;;
        guard) echo "modelcxx: no double free of the scripts was an address handed out again (driver.cpp's guard)" ;;
        *) echo "modelcxx: $1" ;;
    esac
}
model_verdicts modelcxx cxx.py "$status"

# The same scripts, built plainly, under Memcheck: its bad-free errors are
# the model's (kind, the free's line, the allocation's line, in order;
# Memcheck prints each kind and call stack once), realloc of new's block
# included (a mismatch to both).
if command -v valgrind > /dev/null; then
    (cd "$HERE" && g++ -std=c++17 -g -O1 -fno-optimize-sibling-calls driver.cpp -o "$TMP/driver-cxx-plain" -lpthread) \
        > "$TMP/build-plain.log" 2>&1
    python3 "$HERE/cxx.py" memcheck --seeds "${MODEL_CXX_MEMCHECK_SEEDS:-8}" --first "$first" --driver "$TMP/driver-cxx-plain" \
        --work "$TMP" --keep "${MODEL_KEEP:-$TMP}" > "$TMP/memcheck" 2>&1
    mstatus=$?
    verdict=$(grep -m1 '^PASS\|^FAIL' "$TMP/memcheck")
    case $verdict in
        PASS*) pass "modelcxx: Memcheck finds the model's bad frees in the plain build (kind, free's line, allocation's line, in order) ${verdict#PASS memcheck }" ;;
        *) fail "modelcxx: Memcheck finds the model's bad frees in the plain build (status $mstatus)"
           grep -v '^PASS\|^FAIL' "$TMP/memcheck" | head -10 | sed 's/^INFO //; s/^/     /' ;;
    esac
else
    echo "     (no valgrind: the comparison with Memcheck is not made)"
fi
echo "     modelcxx: $(($(date +%s) - start)) s"
finish
