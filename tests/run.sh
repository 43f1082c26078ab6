#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/run.sh - runs every suite tests/*.sh and prints the grand total.
#
# Suites are independent (each has its own temporary directory), so they
# run TEST_JOBS at a time (default: the number of cores), the longest
# first; each suite's output is printed whole when it ends, so that the
# log reads suite by suite.  SUITES="a b" runs only those.
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
running=
for name in $list; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n
        for r in $running; do
            [ -f "$LOGS/$r.rc" ] && { show "$r"; running=$(echo " $running " | sed "s/ $r / /"); }
        done
    done
    (bash "tests/$name.sh" > "$LOGS/$name.log" 2>&1; echo $? > "$LOGS/$name.rc.tmp"; mv "$LOGS/$name.rc.tmp" "$LOGS/$name.rc") &
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
