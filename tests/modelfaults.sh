#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/modelfaults.sh - the heap check's guarantee, checked by a model
# (issue 38): random programs with injected faults (writes past the end,
# before the start, after free; on threads, in forked children, with a
# small quarantine, MTRACE_CHECK_EVERY, mtrace_check_heap(), continue and
# stop mode) run under MTRACE_CHECK=heap, and tests/model/faults.py
# predicts from doc/guide.md every report (text, sizes, bytes, where it
# was found, the places, the order), each child's end and the exit status.
#
#   tests/modelfaults.sh [SEEDS] [FIRST]   (MODEL_FAULT_SEEDS: the default count, 200)
# Seed S builds its script and options from S alone: a failure names the
# first failing seed, writes its script to MODEL_KEEP (default: the
# suite's directory; MTRACE_TEST_KEEP=1 keeps it), and `tests/modelfaults.sh
# 1 S` runs it again; `python3 tests/model/faults.py show S` prints the
# script and what the model predicts.  MODEL_BUILD=lib|header forces one use.
. "$(dirname "$0")/lib.sh"
HERE=$TOP/tests/model
seeds=${1:-${MODEL_FAULT_SEEDS:-200}} first=${2:-1}

if [ -n "$ASAN" ]; then         # the check is off under a sanitizer (guide)
    echo "     AddressSanitizer: the heap check is off, nothing to model"
    finish
    exit
fi
# The driver at each level, in both uses, as tests/model/run.sh builds it.
. "$HERE/build.sh"
pids=
for use in lib header; do
    for l in 1 2 3; do model_build $use $l & pids="$pids $!"; done
done
for p in $pids; do wait $p; done
built=1
for use in lib header; do
    for l in 1 2 3; do
        [ -x "$TMP/driver-$use-$l" ] && [ ! -s "$TMP/build-$use-$l.log" ] && continue
        built=
        sed 's/^/     /' "$TMP/build-$use-$l.log" | head -10
    done
done
check "modelfaults: the driver (poke, check) builds silently at levels 1-3, both uses" test -n "$built"
[ -n "$built" ] || { finish; exit 1; }

start=$(date +%s)
python3 "$HERE/faults.py" check --seeds "$seeds" --first "$first" --bin-dir "$TMP" --work "$TMP" \
    --jobs "${MODEL_JOBS:-$(nproc 2> /dev/null || echo 2)}" --keep "${MODEL_KEEP:-$TMP}" > "$TMP/verdicts" 2>&1
status=$?
# the properties faults.py judges, one line each whatever the seeds
title() {
    case $1 in
        reports) echo "modelfaults: each heap report as the model predicts (text, sizes, bytes, where found, places, order)" ;;
        children) echo "modelfaults: each forked child ends as predicted (exit status or SIGABRT)" ;;
        status) echo "modelfaults: each run's exit status as predicted (134 at a stop, 1 after a report or a leak)" ;;
        json) echo "modelfaults: the JSON report's heap_errors counts the reports (continue mode)" ;;
        *) echo "modelfaults: $1" ;;
    esac
}
model_verdicts modelfaults faults.py "$status"
echo "     modelfaults: $(($(date +%s) - start)) s"
finish
