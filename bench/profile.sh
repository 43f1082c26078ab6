#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/profile.sh WORKLOAD LEVEL [quick|full] - where a traced workload
# spends its time.
#
# Builds the workload of bench/workloads.sh (e.g. churn, json-records,
# threads-4) at -DMTRACE=LEVEL (0 for the uninstrumented program) with
# -O2 -g -fno-omit-frame-pointer, runs it under `perf record` and prints
# the top functions (self time, then with callers' inclusive time).  When
# perf is missing or not allowed (perf_event_paranoid, containers), it uses
# valgrind --tool=callgrind instead: instruction counts, slower but
# repeatable on a noisy machine (then at the quick size, unless "full" is
# given).  PROFILE_TOP=N lines (default 25); PROFILE_TOOL=callgrind forces
# callgrind.  MTRACE_DEPTH=N in the environment profiles the call stacks
# (issue 13): the program is then built with -DMTRACE_FRAME_POINTERS too,
# as mtrace-cc builds it, so that the walk follows its frames.
# Everything is built and written in a temporary directory.
set -u
if [ $# -lt 2 ]; then
    echo "usage: bench/profile.sh WORKLOAD LEVEL [quick|full]" >&2
    echo "workloads:" $(. "$(dirname "$0")/workloads.sh"; bench_workloads full | cut -d'|' -f1) >&2
    exit 2
fi
NAME=$1 LEVEL=$2 MODE=${3:-}
TOP_N=${PROFILE_TOP:-25}
case $LEVEL in 0|1|2|3) ;; *) echo "LEVEL is 0 (uninstrumented), 1, 2 or 3" >&2; exit 2 ;; esac
TOP=$(cd "$(dirname "$0")/.." && pwd)
export BENCH_TOP=$TOP
. "$TOP/bench/workloads.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-profile.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
export BENCH_GEN=$W

# perf is usable when it can count our own user-space cycles
TOOL=${PROFILE_TOOL:-}
if [ -z "$TOOL" ]; then
    if command -v perf >/dev/null 2>&1 && perf stat -e task-clock -o /dev/null true >/dev/null 2>&1; then
        TOOL=perf
    elif command -v valgrind >/dev/null 2>&1; then
        TOOL=callgrind
    else
        echo "neither perf nor valgrind is usable here" >&2; exit 2
    fi
fi
[ -z "$MODE" ] && { [ "$TOOL" = perf ] && MODE=full || MODE=quick; }

line=$( { bench_workloads "$MODE"; bench_stack_workloads "$MODE"; } | awk -F'|' -v n="$NAME" '$1 == n' | head -n 1)
[ -n "$line" ] || { echo "no workload '$NAME' (see bench/workloads.sh)" >&2; exit 2; }
IFS='|' read -r _ prog args _ what <<< "$line"
bench_generate "$MODE"
if [ -n "${MTRACE_DEPTH:-}" ]; then fp=-DMTRACE_FRAME_POINTERS; else fp=; fi
bench_build "$prog" "$LEVEL" "$W/prog" -g -fno-omit-frame-pointer $fp || exit 2
echo "profile of $NAME ($what), MTRACE=$LEVEL${MTRACE_DEPTH:+ MTRACE_DEPTH=$MTRACE_DEPTH}, size '$args', with $TOOL"
cd "$W" || exit 2
export MTRACE=$W/trace

if [ "$TOOL" = perf ]; then
    # shellcheck disable=SC2086
    perf record -q -g -o "$W/perf.data" "$W/prog" $args > "$W/out" 2> "$W/err" ||
        { echo "perf record failed:"; cat "$W/err"; exit 1; }
    grep -h '^checksum' "$W/out"
    echo
    echo "--- self time, top $TOP_N"
    perf report -i "$W/perf.data" --stdio --no-children --fields overhead,sym -g none 2>/dev/null |
        grep -v '^#' | grep -v '^$' | head -n "$TOP_N"
    echo
    echo "--- inclusive time (self + callees), top $TOP_N"
    perf report -i "$W/perf.data" --stdio --children --fields overhead_children,overhead,sym -g none 2>/dev/null |
        grep -v '^#' | grep -v '^$' | head -n "$TOP_N"
else
    # callgrind_annotate prints the totals, then the per-function table
    # under a second "Ir" header: keep the table's first lines
    table() { awk -v n="$TOP_N" '/^Ir/ { h++; next } h >= 2 && !/^-+$/ && NF && k++ < n'; }
    # shellcheck disable=SC2086
    valgrind -q --tool=callgrind --callgrind-out-file="$W/cg.out" "$W/prog" $args > "$W/out" 2> "$W/err" ||
        { echo "callgrind failed:"; tail "$W/err"; exit 1; }
    grep -h '^checksum' "$W/out"
    echo
    echo "--- instructions, self, top $TOP_N"
    callgrind_annotate "$W/cg.out" 2>/dev/null | table
    echo
    echo "--- instructions, inclusive, top $TOP_N"
    callgrind_annotate --inclusive=yes "$W/cg.out" 2>/dev/null | table
fi
