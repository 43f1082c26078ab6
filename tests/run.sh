#!/bin/sh
# tests/run.sh - runs every suite tests/*.sh and prints the grand total.
cd "$(dirname "$0")/.." || exit 2
RESULTS=$(mktemp); export RESULTS
status=0
for suite in tests/*.sh; do
    case $suite in tests/lib.sh|tests/run.sh) continue ;; esac
    [ -n "${SUITES:-}" ] && case " $SUITES " in *" $(basename "$suite" .sh) "*) ;; *) continue ;; esac
    echo "=== $suite"
    bash "$suite" || status=1
done
awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}' "$RESULTS"
[ -s "$RESULTS" ] || status=1
rm -f "$RESULTS"
exit $status
