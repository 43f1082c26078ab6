#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/run.sh - runs every suite tests/*.sh and prints the grand total.
#
# Suites are independent (each has its own temporary directory), so they
# run TEST_JOBS at a time (default: the number of cores), the longest
# first; each suite's output is printed whole when it ends, so that the
# log reads suite by suite.  SUITES="a b" runs only those.  A suite that
# runs past SUITE_TIMEOUT seconds (default 1500, five times the slowest
# suite's time on a loaded 2-core machine) is stopped with its whole process
# group and counted as one failure naming it: a hang must end the run with
# its name, not run into CI's own limit with none.
cd "$(dirname "$0")/.." || exit 2
RESULTS=$(mktemp); export RESULTS
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS" "$RESULTS"' EXIT
jobs_max=${TEST_JOBS:-$(nproc 2> /dev/null || echo 2)}
# the longest suites first (minutes), then the rest in name order
order="tracer oneline shapes hardening packaging html musl ecosystem"
list=
for name in $order $(ls tests/*.sh | sed 's|tests/||; s|\.sh$||'); do
    case " $list " in *" $name "*) continue ;; esac
    case $name in lib|run|setup) continue ;; esac
    [ -f "tests/$name.sh" ] || continue
    [ -n "${SUITES:-}" ] && case " $SUITES " in *" $name "*) ;; *) continue ;; esac
    list="$list $name"
done

status=0
# show NAME: a finished suite's whole output
show() {
    echo "=== tests/$1.sh"
    cat "$LOGS/$1.log"
    [ "$(cat "$LOGS/$1.rc")" = 0 ] || status=1
}
# run_suite NAME: the suite under the watchdog; timeout(1) signals the
# whole process group it leads, so the suite's programs go with it
suite_timeout=${SUITE_TIMEOUT:-1500}
run_suite() {
    timeout -k 10 "$suite_timeout" bash "tests/$1.sh"
    local rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        echo "FAIL $1: still running after ${suite_timeout} s, stopped (a hang: its last lines are above)"
        echo "0 1" >> "$RESULTS"
    fi
    return $rc
}
running=
for name in $list; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n
        for r in $running; do
            [ -f "$LOGS/$r.rc" ] && { show "$r"; running=$(echo " $running " | sed "s/ $r / /"); }
        done
    done
    (run_suite "$name" > "$LOGS/$name.log" 2>&1; echo $? > "$LOGS/$name.rc.tmp"; mv "$LOGS/$name.rc.tmp" "$LOGS/$name.rc") &
    running="$running $name"
done
wait
for r in $running; do
    show "$r"
done
# the failed checks once more, by suite, just above the total: a long log
# is often read by its tail only
if [ "$status" != 0 ]; then
    echo "=== failed"
    for name in $list; do
        grep -H '^FAIL' "$LOGS/$name.log" 2> /dev/null | sed "s|^$LOGS/||; s|\.log:| |"
    done
fi
awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}' "$RESULTS"
[ -s "$RESULTS" ] || status=1
exit $status
