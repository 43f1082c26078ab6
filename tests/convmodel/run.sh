#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/convmodel/run.sh [SEEDS] [check.py options]   e.g. 1-80, 17, 3,9,12
# tests/convmodel/run.sh --long N [FIRST]              N seeds from FIRST (default: from the clock)
#
# Random traces checked against a model (issue 22, item 4).  gen.py makes a
# valid trace from each seed and models the heap it describes; check.py
# converts it with ./mtrace2massif (default options, --time-unit=B, =i, and
# random --threshold/--depth/--peak-inaccuracy/--max-snapshots/
# --detailed-freq/--heap-admin/--alloc-fn), compares every Massif file with
# the model, prints it with ./ms_print (and /usr/bin/ms_print on every 4th
# seed), then feeds both programs damaged traces and damaged Massif files.
# One ok/FAIL line per property group, not per seed; a failure names the
# seed, the property and the command that reproduces it.  Default: seeds
# 1-100, about 25 s on 2 cores (all cores are used).
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)    # lib.sh's TOP is tests/ from here
HERE=$TOP/tests/convmodel
BASH_ARGV0=convmodel  # finish names the suite after $0: "convmodel: N passed", not "run"

SEEDS=1-100
case ${1:-} in
--long)
    N=${2:?usage: run.sh --long N [FIRST]}
    FIRST=${3:-$(( ($(date +%s) % 100000) * 1000 + 100 ))}
    SEEDS=$FIRST-$((FIRST + N - 1))
    shift $(( $# >= 3 ? 3 : 2 )) ;;
""|-*) ;;
*)  SEEDS=$1; shift ;;
esac

# the programs under test (others may be moving the sources: retry)
for try in 1 2 3; do
    [ -x "$TOP/mtrace2massif" ] && [ -x "$TOP/ms_print" ] && break
    make -s -C "$TOP" mtrace2massif ms_print > "$TMP/make.log" 2>&1 && break
    echo "# make mtrace2massif ms_print failed (try $try), retrying in a minute"; sleep 60
done
command -v python3 > /dev/null || { fail "python3 is needed"; finish; exit; }

echo "# seeds $SEEDS"
start=$(date +%s)
python3 "$HERE/check.py" --seeds "$SEEDS" --top "$TOP" "$@" > "$TMP/out" 2> "$TMP/err"
rc=$?
while IFS=$'\t' read -r tag a b c d; do
    case $tag in
    RESULT) if [ "$a" = ok ]; then pass "$b ($c checks${d:+; $d})"; else fail "$b ($c checks): $d"; fi ;;
    DETAIL) echo "     $a" ;;
    INFO)   echo "# $a" ;;
    esac
done < "$TMP/out"
if [ -s "$TMP/err" ] || ! grep -q '^RESULT' "$TMP/out"; then
    fail "check.py ran (exit $rc)"; sed 's/^/     /' "$TMP/err" | head -20
fi
echo "# $(( $(date +%s) - start )) s"
finish
