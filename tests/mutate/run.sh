#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/mutate/run.sh [ID...] - a mutation check of the test suite (issue 22,
# item 5; `make mutate`).
# tests/mutate/run.sh --check - only the list's STALE entries (below), in
# the tree as it is: nothing built, nothing run; status 0 when there is
# none, 1 when there are (each printed), 2 for a list that does not parse.
# tests/ci.sh runs it, so that `make test` fails as soon as a change to the
# source leaves an entry behind, not at the next `make mutate`.
#
# Copies the tree (its tracked files and the untracked ones git does not
# ignore) to a temporary directory, checks that every mutant's original text
# (tests/mutate/mutants.txt) occurs exactly once there, builds it and runs
# the suites the mutants name once as they are (a suite that fails on the
# unchanged tree can judge nothing: it is left out, and the run fails).  Then, mutant by mutant: apply it,
# `make -s all`, run its suites in order, each under `timeout`, stopping at
# the first that fails (KILLED), revert.  A mutant that does not build is
# killed by the compiler, said apart (a bad mutant: rewrite it); a suite
# that fails without a FAIL line (killed from outside?) is said so.  At the end
# the score, "N of M killed (P%)", and the survivors.  Equivalent entries
# are listed, never run, never counted.
#
# The suites run with MUTATE_COPY=1 in their environment: in the copy the
# mutant applied has made its own text stale, so tests/ci.sh skips --check.
#
# Exit status: 0 when the score is at least MUTATE_TARGET percent and no
# entry is STALE; 1 otherwise; 2 if the tree cannot be copied or built, or
# a suite fails on the unchanged tree.  The copy and the list are taken at
# the start: the tree and this file may change during a run.
#
# Environment:
#   MUTATE_TARGET=95       the score to reach, in percent
#   MUTATE_TIMEOUT=900     seconds per suite run (a timeout kills the mutant)
#   MUTATE_LIST=FILE       another list than tests/mutate/mutants.txt
#   MUTATE_SUITES="a b"    run these suites for every mutant instead of its own
#   MUTATE_ALL=1           run all of a mutant's suites, naming every one that
#                          kills it (to choose the suites; no early stop)
#   MUTATE_BASELINE=0      skip the run on the unchanged tree
#   MUTATE_KEEP=1          keep the copy and the logs (the path is printed)
#   MUTATE_VERBOSE=1       show the failing lines of each killing suite
#
# Suites: NAME is tests/NAME.sh, run as `SUITES=NAME tests/run.sh`;
# (`gaps` is tests/gaps.sh); `model[:ARGS]` runs tests/model/run.sh
# ARGS and `convmodel[:ARGS]` tests/convmodel/run.sh ARGS (ARGS
# comma-separated, VAR=value ones set in the suite's environment:
# model:MODEL_BUILD=lib,60 is 60 seeds, library builds only).
set -u
# (all in one function, read whole before it runs: editing this file
# during a run does not change the run)
main() {
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
LIST=${MUTATE_LIST:-$HERE/mutants.txt}
case $LIST in /*) ;; *) LIST=$PWD/$LIST ;; esac
TARGET=${MUTATE_TARGET:-95}
TIMEOUT=${MUTATE_TIMEOUT:-900}
[ -r "$LIST" ] || { echo "mutate: cannot read $LIST" >&2; exit 2; }
command -v python3 > /dev/null || { echo "mutate: python3 is needed" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-mutate.XXXXXX")
COPY=$WORK/tree ORIG=$WORK/orig LOGS=$WORK/logs
mkdir -p "$COPY" "$ORIG" "$LOGS"
cleanup() {
    if [ -n "${MUTATE_KEEP:-}" ]; then echo "mutate: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'echo "mutate: interrupted"; exit 130' INT TERM
start=$(date +%s)

# The list, parsed once: helper.py parse | check | apply | files.
cat > "$WORK/helper.py" <<'EOT'
import sys

def parse(path):
    entries, cur, lineno = [], None, 0
    def close():
        if cur is not None:
            entries.append(cur)
    for raw in open(path, encoding="utf-8"):
        lineno += 1
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            close()
            cur = None
            continue
        key, sep, value = line.partition(":")
        if not sep or key not in ("id", "file", "from", "to", "suites", "equivalent", "why"):
            sys.exit("%s:%d: not KEY: VALUE: %s" % (path, lineno, line))
        value = value[1:] if value.startswith(" ") else value
        if key == "id":
            close()
            cur = {"id": value.strip(), "at": lineno}
            continue
        if cur is None:
            sys.exit("%s:%d: %s: before any id:" % (path, lineno, key))
        if key in cur:
            sys.exit("%s:%d: %s: twice in %s" % (path, lineno, key, cur["id"]))
        cur[key] = value if key in ("from", "to") else value.strip()
    close()
    seen = set()
    for e in entries:
        for k in ("file", "from", "to", "why"):
            if k not in e:
                sys.exit("%s:%d: %s has no %s:" % (path, e["at"], e["id"], k))
        if ("suites" in e) == ("equivalent" in e):
            sys.exit("%s:%d: %s needs suites: or equivalent:, not both" % (path, e["at"], e["id"]))
        if e["id"] in seen:
            sys.exit("%s:%d: id %s twice" % (path, e["at"], e["id"]))
        if e["from"] == e["to"]:
            sys.exit("%s:%d: %s changes nothing" % (path, e["at"], e["id"]))
        seen.add(e["id"])
    return entries

cmd, path, tree = sys.argv[1], sys.argv[2], sys.argv[3]
entries = parse(path)
if cmd == "parse":          # id TAB file TAB suites-or-"=" TAB why
    for e in entries:
        print("\t".join([e["id"], e["file"], e.get("suites") or "=", e.get("equivalent") or e["why"]]))
elif cmd == "check":        # the STALE ones: id TAB reason
    for e in entries:
        try:
            n = open("%s/%s" % (tree, e["file"]), encoding="utf-8").read().count(e["from"])
        except OSError as err:
            print("%s\t%s: %s" % (e["id"], e["file"], err.strerror))
            continue
        if n != 1:
            print("%s\tits text occurs %d times in %s" % (e["id"], n, e["file"]))
elif cmd == "apply":        # apply ID ORIGDIR: the original from ORIGDIR, mutated into the tree
    e = [x for x in entries if x["id"] == sys.argv[4]][0]
    text = open("%s/%s" % (sys.argv[5], e["file"]), encoding="utf-8").read()
    open("%s/%s" % (tree, e["file"]), "w", encoding="utf-8").write(text.replace(e["from"], e["to"], 1))
EOT
helper() { python3 "$WORK/helper.py" "$@"; }
if [ "${1:-}" = --check ]; then      # (the helper's text stays in one place: here)
    MUTATE_KEEP=
    helper check "$LIST" "$SRC" > "$WORK/stale" || exit 2
    while IFS=$'\t' read -r id why; do echo "STALE    $id: $why"; done < "$WORK/stale"
    [ -s "$WORK/stale" ] && exit 1
    exit 0
fi
LISTED=$LIST LIST=$WORK/mutants.txt         # the list as it was at the start
cp "$LISTED" "$LIST"
helper parse "$LIST" "$COPY" > "$WORK/entries" || exit 2

# --- the copy: tracked files and untracked ones that git does not ignore
(cd "$SRC" && git ls-files -co --exclude-standard -z) |
    (cd "$SRC" && while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$COPY" -xf - || { echo "mutate: cannot copy the tree" >&2; exit 2; }
if ! (cd "$COPY" && make -s all > "$LOGS/build.log" 2>&1); then
    echo "mutate: the unchanged tree does not build:"; tail -20 "$LOGS/build.log"; exit 2
fi

# --- which entries: the IDs given, or all
want=" $* "
selected() { while IFS=$'\t' read -r id file suites why; do
    if [ "$want" = "  " ] || case $want in *" $id "*) true ;; *) false ;; esac; then
        printf '%s\t%s\t%s\t%s\n' "$id" "$file" "$suites" "$why"; fi; done < "$WORK/entries"; }
selected > "$WORK/run"
for id in "$@"; do
    grep -q "^$id	" "$WORK/entries" || { echo "mutate: no mutant $id in $LISTED" >&2; exit 2; }
done

# --- stale entries: their text is gone (or twice) in the tree as it is now
helper check "$LIST" "$COPY" > "$WORK/stale"
nstale=0
while IFS=$'\t' read -r id why; do
    grep -q "^$id	" "$WORK/run" || continue
    echo "STALE    $id: $why"
    nstale=$((nstale + 1))
done < "$WORK/stale"

# run_suite NAME[:ARGS] LOG: one suite in the copy, under timeout; its
# status.  ARGS: comma-separated; VAR=value ones go to the environment.
run_suite() {
    local name=${1%%:*} args= log=$2 a
    local -a env=()
    if [ "$name" != "$1" ]; then
        local IFS=,
        for a in ${1#*:}; do
            case $a in *=*) env+=("$a") ;; *) args="$args $a" ;; esac
        done
        unset IFS
    fi
    (
        cd "$COPY" || exit 2
        [ ${#env[@]} -gt 0 ] && export "${env[@]}"
        export MUTATE_COPY=1
        case $name in
            model|convmodel) exec timeout -k 30 "$TIMEOUT" bash "tests/$name/run.sh" $args ;;
            *) [ -f "tests/$name.sh" ] || { echo "no suite tests/$name.sh"; exit 2; }
               SUITES=$name exec timeout -k 30 "$TIMEOUT" tests/run.sh ;;
        esac
    ) > "$log" 2>&1 < /dev/null
}
suites_of() { if [ -n "${MUTATE_SUITES:-}" ]; then echo "$MUTATE_SUITES"; else echo "$1"; fi; }

# --- the baseline: every suite used passes on the unchanged tree (one
#     that does not is left out of this run, and the run fails)
broken=
if [ "${MUTATE_BASELINE:-1}" != 0 ]; then
    used=$(while IFS=$'\t' read -r id file suites why; do
        [ "$suites" = = ] || grep -q "^$id	" "$WORK/stale" || suites_of "$suites"; done < "$WORK/run" | tr ' ' '\n' | awk 'NF && !seen[$0]++')
    for s in $used; do
        t0=$(date +%s)
        log=$LOGS/baseline-${s//[:\/=]/_}.log
        if ! run_suite "$s" "$log"; then
            echo "baseline $s: FAILS on the unchanged tree: it judges no mutant in this run ($(($(date +%s) - t0)) s)"
            grep -E '^FAIL' "$log" | head -3 | cut -c1-150 | sed 's/^/    /'
            broken="$broken $s"
        else
            echo "baseline $s: passes ($(($(date +%s) - t0)) s)"
        fi
    done
fi

# --- the mutants
killed=0 counted=0 compiled_out=0 equivalent=0
survivors= badmutants=
while IFS=$'\t' read -r id file suites why; do
    if [ "$suites" = = ]; then
        printf '%-28s EQUIVALENT (not counted): %s\n' "$id" "$why"
        equivalent=$((equivalent + 1))
        continue
    fi
    grep -q "^$id	" "$WORK/stale" && continue
    t0=$(date +%s)
    counted=$((counted + 1))
    mkdir -p "$ORIG/$(dirname "$file")"
    cp "$COPY/$file" "$ORIG/$file"
    helper apply "$LIST" "$COPY" "$id" "$ORIG" < /dev/null
    verdict= by=
    if ! (cd "$COPY" && make -s all > "$LOGS/$id.build" 2>&1 < /dev/null); then
        verdict="KILLED by the compiler (a bad mutant: rewrite it)"
        compiled_out=$((compiled_out + 1)) badmutants="$badmutants $id"
        killed=$((killed + 1))
    else
        for s in $(suites_of "$suites"); do
            case " $broken " in *" $s "*) continue ;; esac
            log=$LOGS/$id.${s//[:\/=]/_}.log
            run_suite "$s" "$log"
            rc=$?
            if [ $rc -ne 0 ]; then
                why1=$(grep -m1 -E '^FAIL' "$log" | cut -c6-90)
                [ -n "$why1" ] || why1="exit $rc, no FAIL line"
                [ $rc -eq 124 ] || [ $rc -eq 137 ] && why1="timeout after $TIMEOUT s"
                by="$by${by:+, }$s${why1:+ ($why1)}"
                if [ -n "${MUTATE_VERBOSE:-}" ]; then grep -E '^FAIL' "$log" | head -5 | sed 's/^/      /'; fi
                [ -n "${MUTATE_ALL:-}" ] || break
            fi
        done
        if [ -n "$by" ]; then
            verdict="KILLED by $by" killed=$((killed + 1))
        else
            verdict=SURVIVED survivors="$survivors $id"
        fi
    fi
    cp "$ORIG/$file" "$COPY/$file"     # a new mtime: the next build takes it
    printf '%-28s %s  [%s s]\n' "$id" "$verdict" "$(($(date +%s) - t0))"
done < "$WORK/run"

echo
pct=$(awk -v k=$killed -v n=$counted 'BEGIN {printf "%.1f", n ? 100 * k / n : 0}')
secs=$(($(date +%s) - start))
echo "mutate: $killed of $counted killed ($pct%); $equivalent equivalent (not counted); $nstale stale; $((secs / 60)) min $((secs % 60)) s"
[ -n "$survivors" ] && echo "mutate: survivors:$survivors"
[ -n "$badmutants" ] && echo "mutate: killed by the compiler (bad mutants):$badmutants"
status=0
if [ $nstale -gt 0 ]; then echo "mutate: FAIL: $nstale stale entries in $LISTED"; status=1; fi
if [ -n "$broken" ]; then echo "mutate: FAIL: suites that fail on the unchanged tree:$broken"; status=2; fi
if [ $((100 * killed)) -lt $((TARGET * counted)) ]; then echo "mutate: FAIL: below the target of $TARGET%"; status=1; fi
return $status
}
main "$@"
exit
