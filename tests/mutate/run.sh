#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/mutate/run.sh [--sample N | --all] [--seed S] [--no-hand] [ID...]
#   - a mutation check of the test suite (issue 22, item 5; issue 37;
#   `make mutate`, `make mutate-all`, tests/mutate/README.md).
# tests/mutate/run.sh --check - only the hand-written list's STALE entries
# (below), in the tree as it is: nothing built, nothing run; status 0 when
# there is none, 1 when there are (each printed), 2 for a list that does
# not parse.  tests/ci.sh runs it, so that `make test` fails as soon as a
# change to the source leaves an entry behind, not at the next `make mutate`.
#
# Two kinds of mutants, run the same way:
#   - the hand-written list, tests/mutate/mutants.txt (a regression list:
#     each entry names the suites that kill it); run by default;
#   - mutants made by rule (tests/mutate/gen.py: its header says the rules)
#     over runtime/, mtrace.h and convert/, generated from the copy at the
#     start: --sample N takes N of them stratified by file (the same tree
#     and --seed S, default 1, give the same ones), --all every one.
#     Their ids have colons (FILE:OP:HASH); the reviewed equivalents,
#     tests/mutate/equivalent.txt, are never run, listed once.
# IDs: only those (a hand-written one, or FILE:OP:HASH); --no-hand: the
# generated ones only.
#
# Copies the tree (its tracked files and the untracked ones git does not
# ignore) to a temporary directory, checks that every hand-written mutant's
# original text occurs exactly once there (or its nth: line is there),
# builds it and runs the suites the mutants name once as they are (a suite
# that fails on the unchanged tree can judge nothing: it is left out, and
# the run fails); their times set each suite's timeout in this run.  Then,
# mutant by mutant: apply it, `make -s all`, run its suites in order, each
# under `timeout`, stopping at the first that fails (KILLED), revert.  A
# hand-written mutant that does not build is killed by the compiler, said
# apart (a bad mutant: rewrite it); a generated one that does not build is
# not counted ("not built").  A suite that fails without a FAIL line (killed
# from outside?) is said so.
#
# The whole suite: a generated mutant that no suite of its file kills
# (gen.py SUITES_BY_FILE, fastest first) is not yet a survivor.  After the
# last mutant, the whole suite (tests/run.sh: every tests/*.sh, tracer,
# oneline and shapes included) runs once on the unchanged tree, then for
# each such mutant: applied, built, the whole suite but the suites it has
# passed already; a FAIL line the unchanged tree did not have, or a suite
# that ends without its "N passed" line, kills it (the suite named).
# Only then is it SURVIVED.  (MUTATE_WHOLE=0 skips this: such mutants are
# then "survived its suites", counted as survivors.)  A generated mutant
# whose build made the same code as the unchanged tree's (the runtime's
# object and the tools, stripped) is said so: dead code in this build,
# another platform's or configuration's, which only another machine's
# run can judge; it still runs every suite.
#
# At the end: the hand-written list's score, "N of M killed (P%)", and its
# survivors; the generated mutants' score by file (killed of counted, %),
# every survivor with its diff, the ones that did not build, the reviewed
# equivalents with their reasons.  The whole output is kept in a report
# file, ${TMPDIR:-/tmp}/mtrace-mutate-report.XXXXXX, its path printed last.
#
# The suites run with MUTATE_COPY=1 in their environment: in the copy the
# mutant applied has made its own text stale, so tests/ci.sh skips --check.
#
# Exit status: 0 when the hand-written list's score is at least
# MUTATE_TARGET percent, the generated ones' at least MUTATE_GEN_TARGET
# and no entry is STALE; 1 otherwise; 2 if the tree cannot be copied or
# built, or a suite fails on the unchanged tree.  The copy, the list and
# gen.py are taken at the start: the tree and these files may change
# during a run.
#
# Environment:
#   MUTATE_TARGET=95       the hand-written list's score to reach, in percent
#   MUTATE_GEN_TARGET=0    the generated mutants' (none: their score is a
#                          measure, its survivors the work to do)
#   MUTATE_TIMEOUT=900     at most this many seconds per suite run (a timeout
#                          kills the mutant); after the baseline, a suite's
#                          limit is 4 times its time there plus 60 s, if less
#   MUTATE_WHOLE=0         no whole-suite step for the generated survivors
#   MUTATE_WHOLE_SUITES="a b"  the whole suite is these (to try the step)
#   MUTATE_WHOLE_TIMEOUT=3600  at most this long for one whole-suite run
#                          (after its baseline: twice its time plus 300 s)
#   MUTATE_LIST=FILE       another list than tests/mutate/mutants.txt
#   MUTATE_SUITES="a b"    run these suites for every mutant instead of its own
#   MUTATE_ALL=1           run all of a mutant's suites, naming every one that
#                          kills it (to choose the suites; no early stop)
#   MUTATE_BASELINE=0      skip the runs on the unchanged tree
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
GEN_TARGET=${MUTATE_GEN_TARGET:-0}
TIMEOUT=${MUTATE_TIMEOUT:-900}
WHOLE_TIMEOUT=${MUTATE_WHOLE_TIMEOUT:-3600}
[ -r "$LIST" ] || { echo "mutate: cannot read $LIST" >&2; exit 2; }
command -v python3 > /dev/null || { echo "mutate: python3 is needed" >&2; exit 2; }

check= gen= seed=1 hand=1
while [ $# -gt 0 ]; do
    case $1 in
        --check) check=1 ;;
        --sample) gen=${2:?--sample needs a number}; shift ;;
        --all) gen=all ;;
        --seed) seed=${2:?--seed needs a value}; shift ;;
        --no-hand) hand= ;;
        -*) echo "mutate: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-mutate.XXXXXX")
COPY=$WORK/tree ORIG=$WORK/orig LOGS=$WORK/logs
mkdir -p "$COPY" "$ORIG" "$LOGS"
cleanup() {
    if [ -n "${MUTATE_KEEP:-}" ]; then echo "mutate: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'echo "mutate: interrupted"; exit 130' INT TERM
start=$(date +%s)

# The lists' parser and the generator, as they are now: gen.py parse |
# check | apply | generate | report (its header says how).
cp "$HERE/gen.py" "$WORK/gen.py"
helper() { python3 "$WORK/gen.py" "$@"; }
if [ -n "$check" ]; then
    MUTATE_KEEP=
    helper check "$LIST" "$SRC" > "$WORK/stale" || exit 2
    while IFS=$'\t' read -r id why; do echo "STALE    $id: $why"; done < "$WORK/stale"
    [ -s "$WORK/stale" ] && exit 1
    exit 0
fi
LISTED=$LIST LIST=$WORK/mutants.txt         # the list as it was at the start
cp "$LISTED" "$LIST"

# --- the copy: tracked files and untracked ones that git does not ignore
(cd "$SRC" && git ls-files -co --exclude-standard -z) |
    (cd "$SRC" && while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$COPY" -xf - || { echo "mutate: cannot copy the tree" >&2; exit 2; }

# --- the generated mutants, from the copy, after the hand-written list
genids=
for id in "$@"; do case $id in *:*) genids="$genids $id" ;; esac; done
if [ -n "$genids" ]; then
    helper generate "$COPY" --ids "$genids" >> "$LIST" || exit 2
elif [ $# -eq 0 ] && [ -n "$gen" ]; then
    if [ "$gen" = all ]; then
        helper generate "$COPY" >> "$LIST" || exit 2
    else
        helper generate "$COPY" --sample "$gen" --seed "$seed" >> "$LIST" || exit 2
    fi
fi
grep '^# reviewed equivalent' "$LIST" | sed 's/^# /mutate: note: /'
helper parse "$LIST" "$COPY" > "$WORK/entries" || exit 2

if ! (cd "$COPY" && make -s all > "$LOGS/build.log" 2>&1); then
    echo "mutate: the unchanged tree does not build:"; tail -20 "$LOGS/build.log"; exit 2
fi
# code_sig: the code this build made (the runtime's object and the four
# tools, stripped of their debug information and build ids): the same
# for a mutant means its change is dead code in this build (another
# platform's branch, another configuration's); it still runs its suites
# (the one-line use, -m32 and musl compile the runtime otherwise)
code_sig() {
    local f
    for f in mtrace.pic.o ms_print mtrace2massif mtrace-diff mtrace-top; do
        strip --remove-section=.note.gnu.build-id -o "$WORK/stripped" "$COPY/$f" 2> /dev/null && cksum < "$WORK/stripped"
    done | cksum
}
base_sig=$(code_sig)

# --- which entries: the IDs given, or all (the hand-written ones unless
#     --no-hand, the generated ones asked for)
want=" $* "
selected() { while IFS=$'\t' read -r id file suites why; do
    if [ "$want" = "  " ]; then
        case $id in *:*) ;; *) [ -n "$hand" ] || continue ;; esac
        printf '%s\t%s\t%s\t%s\n' "$id" "$file" "$suites" "$why"
    elif case $want in *" $id "*) true ;; *) false ;; esac; then
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

# run_suite NAME[:ARGS] LOG: one suite in the copy, under timeout (its
# limit: TIMEOUT, or from its baseline time); its status.  ARGS:
# comma-separated; VAR=value ones go to the environment.
declare -A limit=()
run_suite() {
    local name=${1%%:*} args= log=$2 a t=${limit[$1]:-$TIMEOUT}
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
            model|convmodel) exec timeout -k 30 "$t" bash "tests/$name/run.sh" $args ;;
            *) [ -f "tests/$name.sh" ] || { echo "no suite tests/$name.sh"; exit 2; }
               SUITES=$name exec timeout -k 30 "$t" tests/run.sh ;;
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
            t=$(($(date +%s) - t0))
            limit[$s]=$((4 * t + 60 < TIMEOUT ? 4 * t + 60 : TIMEOUT))
            echo "baseline $s: passes ($t s; a mutant's run at most ${limit[$s]} s)"
        fi
    done
fi

# --- the mutants
killed=0 counted=0 compiled_out=0 equivalent=0
survivors= badmutants=
: > "$WORK/results"         # generated ones: id TAB killed|survived|stillborn|whole TAB detail
while IFS=$'\t' read -r id file suites why; do
    if [ "$suites" = = ]; then
        printf '%-28s EQUIVALENT (not counted): %s\n' "$id" "$why"
        equivalent=$((equivalent + 1))
        continue
    fi
    grep -q "^$id	" "$WORK/stale" && continue
    generated=; case $id in *:*) generated=1 ;; esac
    t0=$(date +%s)
    [ -n "$generated" ] || counted=$((counted + 1))
    mkdir -p "$ORIG/$(dirname "$file")"
    cp "$COPY/$file" "$ORIG/$file"
    helper apply "$LIST" "$COPY" "$id" "$ORIG" < /dev/null
    verdict= by= same=
    if ! (cd "$COPY" && make -s all > "$LOGS/$id.build" 2>&1 < /dev/null); then
        if [ -n "$generated" ]; then
            verdict="NOT BUILT (not counted): $(grep -m1 'error' "$LOGS/$id.build" | cut -c1-100)"
            printf '%s\tstillborn\t\n' "$id" >> "$WORK/results"
        else
            verdict="KILLED by the compiler (a bad mutant: rewrite it)"
            compiled_out=$((compiled_out + 1)) badmutants="$badmutants $id"
            killed=$((killed + 1))
        fi
    else
        [ -n "$generated" ] && [ "$(code_sig)" = "$base_sig" ] && same="; the same code as the unchanged tree in this build"
        ran=
        for s in $(suites_of "$suites"); do
            case " $broken " in *" $s "*) continue ;; esac
            ran="$ran ${s%%:*}"
            log=$LOGS/$id.${s//[:\/=]/_}.log
            run_suite "$s" "$log"
            rc=$?
            if [ $rc -ne 0 ]; then
                why1=$(grep -m1 -E '^FAIL' "$log" | cut -c6-90)
                [ -n "$why1" ] || why1="exit $rc, no FAIL line"
                [ $rc -eq 124 ] || [ $rc -eq 137 ] && why1="timeout after ${limit[$s]:-$TIMEOUT} s"
                by="$by${by:+, }$s${why1:+ ($why1)}"
                if [ -n "${MUTATE_VERBOSE:-}" ]; then grep -E '^FAIL' "$log" | head -5 | sed 's/^/      /'; fi
                [ -n "${MUTATE_ALL:-}" ] || break
            fi
        done
        if [ -n "$by" ]; then
            verdict="KILLED by $by"
            if [ -n "$generated" ]; then printf '%s\tkilled\t%s\n' "$id" "$by" >> "$WORK/results"
            else killed=$((killed + 1)); fi
        elif [ -n "$generated" ] && [ "${MUTATE_WHOLE:-1}" != 0 ]; then
            verdict="lives through its suites ($suites): the whole suite later$same"
            printf '%s\twhole\t%s\t%s\n' "$id" "$ran" "$same" >> "$WORK/results"
        elif [ -n "$generated" ]; then
            verdict="SURVIVED its suites (MUTATE_WHOLE=0: not the whole suite)$same"
            printf '%s\tsurvived\tits suites only, not the whole suite%s\n' "$id" "$same" >> "$WORK/results"
        else
            verdict=SURVIVED survivors="$survivors $id"
        fi
    fi
    cp "$ORIG/$file" "$COPY/$file"     # a new mtime: the next build takes it
    printf '%-28s %s  [%s s]\n' "$id" "$verdict" "$(($(date +%s) - t0))"
done < "$WORK/run"

# --- the whole suite, for the generated mutants no suite of theirs killed
#     (the copy is the unchanged tree again)
if grep -q '	whole	' "$WORK/results"; then
    all=${MUTATE_WHOLE_SUITES:-$(cd "$COPY" && ls tests/*.sh | sed 's|tests/||; s|\.sh$||' | grep -vxE 'lib|run|setup' | tr '\n' ' ')}
    (cd "$COPY" && make -s all > "$LOGS/build.log" 2>&1 < /dev/null)
    t0=$(date +%s)
    (cd "$COPY" && MUTATE_COPY=1 SUITES="$all" timeout -k 60 "$WHOLE_TIMEOUT" tests/run.sh) > "$LOGS/whole-baseline.log" 2>&1 < /dev/null
    t=$(($(date +%s) - t0))
    helper failures "$LOGS/whole-baseline.log" "$COPY" > "$WORK/whole-baseline"
    wlimit=$((2 * t + 300 < WHOLE_TIMEOUT ? 2 * t + 300 : WHOLE_TIMEOUT))
    echo
    echo "baseline, the whole suite ($all): $t s; $(grep -c . "$WORK/whole-baseline") failing checks on the unchanged tree (these kill no mutant); a mutant's run at most $wlimit s"
    sed 's/^/    /' "$WORK/whole-baseline" | cut -c1-150
    grep '	whole	' "$WORK/results" > "$WORK/whole"
    sed -i '/	whole	/d' "$WORK/results"
    while IFS=$'\t' read -r id _ ran same; do
        t0=$(date +%s)
        file=$(awk -F'\t' -v id="$id" '$1 == id {print $2}' "$WORK/entries")
        cp "$COPY/$file" "$ORIG/$file"
        helper apply "$LIST" "$COPY" "$id" "$ORIG" < /dev/null
        rest=$(for s in $all; do case " $ran " in *" $s "*) ;; *) printf '%s ' "$s" ;; esac; done)
        (cd "$COPY" && make -s all > "$LOGS/$id.build" 2>&1 < /dev/null)
        (cd "$COPY" && MUTATE_COPY=1 SUITES="$rest" timeout -k 60 "$wlimit" tests/run.sh) > "$LOGS/$id.whole.log" 2>&1 < /dev/null
        rc=$?
        helper failures "$LOGS/$id.whole.log" "$COPY" | grep -vxF -f "$WORK/whole-baseline" > "$WORK/new"
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            by="the whole suite (timeout after $wlimit s)"
        elif [ -s "$WORK/new" ]; then
            by="the whole suite: $(cut -f1 "$WORK/new" | awk '!seen[$0]++' | tr '\n' ' ')($(head -n 1 "$WORK/new" | cut -f2 | cut -c1-80))"
        else
            by=
        fi
        if [ -n "$by" ]; then
            verdict="KILLED by $by"
            printf '%s\tkilled\t%s\n' "$id" "$by" >> "$WORK/results"
        else
            verdict="SURVIVED$same"
            printf '%s\tsurvived\tits suites (%s) and the whole suite%s\n' "$id" "${ran# }" "$same" >> "$WORK/results"
        fi
        cp "$ORIG/$file" "$COPY/$file"
        printf '%-28s %s  [%s s]\n' "$id" "$verdict" "$(($(date +%s) - t0))"
    done < "$WORK/whole"
fi

echo
secs=$(($(date +%s) - start))
status=0
if cut -f1 "$WORK/run" | grep -qv ':'; then        # hand-written ones ran
    pct=$(awk -v k=$killed -v n=$counted 'BEGIN {printf "%.1f", n ? 100 * k / n : 0}')
    echo "mutate: the hand-written list: $killed of $counted killed ($pct%); $nstale stale"
    [ -n "$survivors" ] && echo "mutate: survivors:$survivors"
    [ -n "$badmutants" ] && echo "mutate: killed by the compiler (bad mutants):$badmutants"
    if [ $((100 * killed)) -lt $((TARGET * counted)) ]; then echo "mutate: FAIL: below the target of $TARGET%"; status=1; fi
fi
if cut -f1 "$WORK/run" | grep -q ':'; then         # generated ones
    echo
    helper report "$LIST" "$WORK/results"
    gk=$(grep -c '	killed	' "$WORK/results") gn=$(grep -cE '	(killed|survived)	' "$WORK/results")
    if [ $((100 * gk)) -lt $((GEN_TARGET * gn)) ]; then echo "mutate: FAIL: generated mutants below the target of $GEN_TARGET%"; status=1; fi
fi
echo "mutate: $equivalent equivalent (not counted); $((secs / 60)) min $((secs % 60)) s"
if [ $nstale -gt 0 ]; then echo "mutate: FAIL: $nstale stale entries in $LISTED"; status=1; fi
if [ -n "$broken" ]; then echo "mutate: FAIL: suites that fail on the unchanged tree:$broken"; status=2; fi
return $status
}
case " $* " in
    *" --check "*) main "$@"; exit ;;
esac
REPORT=$(mktemp "${TMPDIR:-/tmp}/mtrace-mutate-report.XXXXXX") || exit 2
main "$@" 2>&1 | tee "$REPORT"
status=${PIPESTATUS[0]}
echo "mutate: this report: $REPORT"
exit "$status"
