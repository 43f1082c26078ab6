#!/bin/bash
# SPDX-License-Identifier: MIT
# mtrace in CI (issue 14): suppressions (MTRACE_SUPPRESS), a memory budget
# (MTRACE_MAX_HEAP) and the JSON report (MTRACE_REPORT), checked against
# the text report.  tests/ci/cache.c leaks 300 bytes on purpose (its
# vendor's cache, vendor.h:5) and 10 by mistake (cache.c:16); its peak is
# 8300 bytes, at record 2.  Last, the project's own CI: the mutation
# check's list still fits the source (tests/mutate/run.sh --check), and
# its generator (tests/mutate/gen.py) makes each kind of mutant by its
# rule from a small C file, and none where the rules say none; convert/'s
# folders use one another one way (tests/ci/folders.py); and the runtime
# compiles without a warning under gcc and clang.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/ci" || exit 2
for level in 1 2 3; do
    $CC $CFLAGS_T -O0 -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" cache.c -o "$TMP/cache$level" \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
done
# the levels are 0 to 3 (doc/guide.md, Levels): any other value stops the
# compile at the header's #error, not a build that half works
for level in -1 4; do
    $CC -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" -c cache.c -o "$TMP/level$level.o" 2> "$TMP/level$level.cc"
    check "-DMTRACE=$level: no object" test ! -e "$TMP/level$level.o"
    has "-DMTRACE=$level: the header's error" "$TMP/level$level.cc" "mtrace: MTRACE must be 0, 1, 2 or 3"
done
# run NAME LEVEL [VAR=value...]: runs cacheLEVEL in $TMP with the variables;
# stdout, stderr, status in $TMP/NAME.{out,err,rc}
run() {
    local name=$1 level=$2; shift 2
    (cd "$TMP" && env "$@" MTRACE=$name.trace ./cache$level > $name.out 2> $name.err; echo $? > $name.rc)
}
rc() { [ "$(cat "$TMP/$1.rc")" = "$2" ] || { echo "     exit status $(cat "$TMP/$1.rc"), expected $2"; return 1; }; }

# --- suppressions
cat > "$TMP/supp" <<'EOT'
# the vendor's cache is kept until exit on purpose
fun:vendor_*
src:nowhere.c:3
EOT
run supp 2 MTRACE_SUPPRESS=supp
has "suppressed: counted in one line" "$TMP/supp.err" "*** MTRACE: 300 bytes in 1 blocks suppressed"
hasnt "suppressed: no error for the vendor's cache" "$TMP/supp.err" "vendor.h:5: error"
has "suppressed: the real leak still is one" "$TMP/supp.err" "cache.c:16: error: 10 bytes in 1 block leaked here (in main)"
has "a suppression that matched nothing: named by file:line" "$TMP/supp.err" "supp:3: warning: suppression matched no leak"
check "a real leak left: exit status 1" rc supp 1
for pattern in "src:vendor.h" "src:vendor.*" "src:vendor.h:5" "src:v*.h:5"; do
    printf '%s\nsrc:cache.c:16\n' "$pattern" > "$TMP/supp2"
    run supp2 3 MTRACE_SUPPRESS=supp2
    check "suppressions '$pattern' and src:cache.c:16: nothing left, exit status 0, one line" \
        sh -c "test \"\$(cat '$TMP/supp2.err')\" = '*** MTRACE: 310 bytes in 2 blocks suppressed' && test \"\$(cat '$TMP/supp2.rc')\" = 0"
done
printf 'fun:vendor_cache\nleak:what\nsrc:\n' > "$TMP/supp3"
run supp3 3 MTRACE_SUPPRESS=supp3
has "a malformed line: one warning naming file:line" "$TMP/supp3.err" \
    "*** MTRACE: supp3:2: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): leak:what"
has "a malformed line: the next one too" "$TMP/supp3.err" "supp3:3: not a suppression"
has "a malformed line: the good ones still apply" "$TMP/supp3.err" "300 bytes in 1 blocks suppressed"
run nosupp 3 MTRACE_SUPPRESS=/nonexistent/supp
has "a missing suppression file: one warning" "$TMP/nosupp.err" \
    "*** MTRACE: warning: cannot read the suppression file /nonexistent/supp: No such file or directory"
check "a missing suppression file: the program unchanged (output, status 1 for its leaks)" \
    sh -c "test \"\$(cat '$TMP/nosupp.out')\" = done && test \"\$(cat '$TMP/nosupp.rc')\" = 1"

# --- the memory budget
printf 'fun:vendor_*\nsrc:cache.c:16\n' > "$TMP/all"
run budget 3 MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=8K
# (compiled in tests/ci, run in $TMP: the report's paths are absolute)
cat > "$TMP/budget.expected" <<EOT
*** MTRACE: 310 bytes in 2 blocks suppressed
*** MTRACE: error: peak traced memory 8300 bytes exceeds the budget of 8K (at record 2)
$TOP/tests/ci/cache.c:11: note: 5000 bytes held here at the peak (in main)
$TOP/tests/ci/cache.c:12: note: 3000 bytes held here at the peak (in main)
$TOP/tests/ci/vendor.h:5: note: 300 bytes held here at the peak (in vendor_cache)
EOT
same "over the budget: the peak, its record, the three sites that held most" "$TMP/budget.expected" "$TMP/budget.err"
check "over the budget: exit status 1" rc budget 1
run within 3 MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=9000
check "within the budget: exit status 0" rc within 0
hasnt "within the budget: no error" "$TMP/within.err" "error"
run badsize 3 MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=12Q
has "MTRACE_MAX_HEAP=12Q: one warning" "$TMP/badsize.err" "*** MTRACE: warning: MTRACE_MAX_HEAP=12Q is not a size (bytes, or with K, M or G): no budget"
check "MTRACE_MAX_HEAP=12Q: the program unchanged (status 0)" rc badsize 0

# --- the JSON report, at every level, checked against the text report
for level in 1 2 3; do
    run json$level $level MTRACE_SUPPRESS=supp MTRACE_MAX_HEAP=8K MTRACE_REPORT=report-%p.json
    r=$(ls "$TMP"/report-*.json 2> /dev/null | head -n 1)
    check "JSON report, level $level: written, with %p as the pid" test -n "$r"
    [ -n "$r" ] || continue
    mv "$r" "$TMP/json$level.json"
    check "JSON report, level $level: valid JSON (python3 -m json.tool)" \
        sh -c "python3 -m json.tool '$TMP/json$level.json' > /dev/null"
done
J=$TMP/json2.json
# field FIELD: the value of a top-level field
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$J" "$1"; }
text_peak=$(sed -n 's/.*max traced memory size: *\([0-9]*\) bytes.*/\1/p' "$TMP/json2.err")
text_rss=$(sed -n 's/.*max resident  set size: *\([0-9]*\) bytes.*/\1/p' "$TMP/json2.err")
check "JSON: peak_bytes = the summary's max traced memory ($text_peak)" test "$(field peak_bytes)" = "$text_peak"
check "JSON: max_rss_bytes = the summary's max resident set size" test "$(field max_rss_bytes)" = "$text_rss"
check "JSON: peak_record = the budget error's record (2)" test "$(field peak_record)" = 2
check "JSON: suppressed_bytes and blocks = the report's line (300, 1)" \
    test "$(field suppressed_bytes) $(field suppressed_blocks)" = "300 1"
check "JSON: leaked_bytes and blocks (10, 1)" test "$(field leaked_bytes) $(field leaked_blocks)" = "10 1"
check "JSON: the program's status (0) and the status given (1)" test "$(field program_status) $(field exit_status)" = "0 1"
check "JSON: over_budget, budget_bytes" test "$(field over_budget) $(field budget_bytes)" = "True 8192"
check "JSON: the trace is named at level 1, null at level 2" \
    sh -c "python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[\"trace\"]; sys.exit(not t.endswith(\"json1.trace\"))' '$TMP/json1.json' && test \"\$(J='$J'; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"trace\"])' '$J')\" = None"
# every site: its peak as in the summary, its live bytes as in the leak lines
python3 - "$J" > "$TMP/json.sites" <<'EOT'
import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    print("%10d%10d %23s   %s:%d" % (s["peak_bytes"], s["peak_blocks"], s["function"], s["file"], s["line"]))
EOT
grep -E '^ +[0-9]+ +[0-9]+ +[a-z_]+ +[^ ]+:[0-9]+$' "$TMP/json2.err" > "$TMP/text.sites"
same "JSON: every site's peak = the summary's table" "$TMP/text.sites" "$TMP/json.sites"
python3 - "$J" > "$TMP/json.leaks" <<'EOT'
import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    if s["live_bytes"] and not s["suppressed"]:
        print("%s:%d: error: %d bytes in %d block%s leaked here (in %s)" % (s["file"], s["line"], s["live_bytes"],
              s["live_blocks"], "" if s["live_blocks"] == 1 else "s", s["function"]))
EOT
grep ': error: .* leaked here' "$TMP/json2.err" > "$TMP/text.leaks"
same "JSON: the unsuppressed live bytes = the leak lines" "$TMP/text.leaks" "$TMP/json.leaks"
check "JSON: bytes_at_peak of the three sites = the budget notes (5000, 3000, 300)" \
    test "$(python3 -c 'import json,sys; print(sorted(s["bytes_at_peak"] for s in json.load(open(sys.argv[1]))["sites"]))' "$J")" = "[0, 300, 3000, 5000]"
# names that JSON must escape
mkdir -p "$TMP/odd"
cp cache.c vendor.h "$TMP/odd/"
(cd "$TMP/odd" && mv cache.c 'we"ird\name.c' && $CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" 'we"ird\name.c' -o odd \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace && MTRACE_REPORT=odd.json ./odd > /dev/null 2>&1)
cat > "$TMP/odd.py" <<'EOT'
import json, sys
files = [s["file"] for s in json.load(open(sys.argv[1]))["sites"]]
sys.exit(0 if 'we"ird\\name.c' in files else 1)
EOT
check "JSON: a file name with a quote and a backslash stays valid JSON, and reads back" python3 "$TMP/odd.py" "$TMP/odd/odd.json"
# --- lost or still reachable (MTRACE_LEAK_CHECK=reachable), against Memcheck:
#     tests/ci/reach.c keeps a cache in a global, loses a list and a cycle,
#     and has a block only another thread's stack points to
$CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" reach.c -o "$TMP/reach" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
(cd "$TMP" && MTRACE_LEAK_CHECK=reachable ./reach > reach.out 2> reach.err; echo $? > reach.rc)
lost=$(awk '/ error: .* bytes in .* leaked here/ {s += $3} END {print s + 0}' "$TMP/reach.err")
kept=$(awk '/ note: .* bytes in .* still reachable here/ {s += $3} END {print s + 0}' "$TMP/reach.err")
echo "     mtrace: $lost bytes lost, $kept still reachable"
if [ -z "$ASAN" ]; then     # (under ASan its allocator's own tables point into the blocks)
    check "reachable mode: the list and the cycle are the errors (96 + 64 bytes)" test "$lost" = 160
    check "reachable mode: the global cache and the other thread's block are notes (100 + 64 bytes)" test "$kept" = 164
fi
check "reachable mode: errors make the exit status 1" rc reach 1
(cd "$TMP" && ./reach > /dev/null 2> reach-all.err)
check "default mode: every block live at exit is a leak (324 bytes)" \
    test "$(awk '/ error: .* bytes in .* leaked here/ {s += $3} END {print s + 0}' "$TMP/reach-all.err")" = 324
if command -v valgrind > /dev/null && [ -z "$ASAN" ]; then
    $CC -g -O0 reach.c -o "$TMP/reach-plain" -lpthread
    valgrind --leak-check=full "$TMP/reach-plain" > /dev/null 2> "$TMP/reach.vg"
    vlost=$(awk '/definitely lost:|indirectly lost:/ {gsub(",", "", $4); s += $4} END {print s + 0}' "$TMP/reach.vg")
    vkept=$(awk '/still reachable:/ {gsub(",", "", $4); print $4}' "$TMP/reach.vg")
    echo "     Memcheck: $vlost bytes definitely or indirectly lost, $vkept still reachable"
    check "reachable mode: lost = Memcheck's definitely + indirectly lost ($vlost)" test "$lost" = "$vlost"
    check "reachable mode: still reachable = Memcheck's ($vkept)" test "$kept" = "$vkept"
fi

# --- every range of the block table scanned: N blocks of 64 KiB, each a
#     range of its own, all held by a global; from 100 to 4000 ranges the
#     directory's every slot holds one in some run
$CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" reach-ranges.c -o "$TMP/reach-ranges" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
for n in 100 300 700 1500 2500 4000; do
    (cd "$TMP" && MTRACE_LEAK_CHECK=reachable ./reach-ranges $n 2> rr-$n.err)
    echo "$n $(grep -c 'leaked here' "$TMP/rr-$n.err") $(grep -o '[0-9]* bytes in [0-9]* blocks still reachable here' "$TMP/rr-$n.err")"
done > "$TMP/rr.all"
check "reachable mode, 100 to 4000 blocks each in a 64 KiB range of its own: all still reachable, none lost" \
    awk '$2 != 0 || $3 != $1 * 65536 || $6 != $1 { bad = 1; print "     " $0 } END { exit bad }' "$TMP/rr.all"

# --- the same when threads have ended (issue 37): glibc keeps an ended
#     thread's stack, its TLS at the top, for the next thread; words of the
#     ended thread's last calls there kept lost blocks "still reachable"
#     (tests/ci/reach-threads.c says each case); a thread that took such a
#     stack over and still runs keeps what it holds reachable
$CC $CFLAGS_T -O1 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" reach-threads.c -o "$TMP/reach-threads" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
[ -z "$ASAN" ] && command -v valgrind > /dev/null && $CC -g -O1 reach-threads.c -o "$TMP/reach-threads-plain" -lpthread
# reach_threads CASE LOST KEPT: the case's lost and still reachable bytes, as Memcheck's
reach_threads() {
    local case=$1 want_lost=$2 want_kept=$3 lost kept vg
    (cd "$TMP" && MTRACE_LEAK_CHECK=reachable ./reach-threads "$case" > "rt-$case.out" 2> "rt-$case.err")
    lost=$(awk '/ error: .* bytes in .* leaked here/ {s += $3} END {print s + 0}' "$TMP/rt-$case.err")
    kept=$(awk '/ note: .* bytes in .* still reachable here/ {s += $3} END {print s + 0}' "$TMP/rt-$case.err")
    check "reachable mode, threads that ended ($case): $want_lost bytes lost, $want_kept still reachable" \
        test "$lost $kept" = "$want_lost $want_kept"
    [ -x "$TMP/reach-threads-plain" ] || return 0
    vg=$(valgrind --leak-check=full "$TMP/reach-threads-plain" "$case" 2>&1 > /dev/null | awk '
        /definitely lost:|indirectly lost:/ {gsub(",", "", $4); l += $4}
        /still reachable:/ {gsub(",", "", $4); k = $4} END {print l + 0, k + 0}')
    check "reachable mode, threads that ended ($case): as Memcheck ($vg)" test "$lost $kept" = "$vg"
}
if [ -z "$ASAN" ]; then
    reach_threads realloc 40 0
    reach_threads free 50 0
    reach_threads arena 704 0
    reach_threads reuse 0 64
    has "reachable mode: the second thread took the ended one's stack over (glibc's cache)" "$TMP/rt-reuse.out" reused
    reach_threads reuse-traced 0 64
    # the list's bound (doc/limits.md): 256 ended threads' stacks at once
    # are all skipped; of 300, the 44 listed first are scanned again
    (cd "$TMP" && MTRACE_LEAK_CHECK=reachable ./reach-threads many 256 2> rt-256.err
        MTRACE_LEAK_CHECK=reachable ./reach-threads many 300 2> rt-300.err)
    has "reachable mode, 256 threads that ended at once: every block lost" "$TMP/rt-256.err" \
        "12288 bytes in 256 blocks leaked here"
    hasnt "reachable mode, 256 threads that ended at once: ...none still reachable" "$TMP/rt-256.err" "still reachable here"
    has "reachable mode, 300 threads that ended at once: 256 blocks lost" "$TMP/rt-300.err" "12288 bytes in 256 blocks leaked here"
    has "reachable mode, 300 threads that ended at once: ...44 still reachable (the stacks listed first, scanned again)" \
        "$TMP/rt-300.err" "2112 bytes in 44 blocks still reachable here"
fi

# the example in doc/report-json.md has exactly the fields the runtime writes
cat > "$TMP/keys.py" <<'EOT'
import json, re, sys
doc = json.loads(re.search(r"```json\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1))
real = json.load(open(sys.argv[2]))
ok = list(doc) == list(real) and list(doc["sites"][0]) == list(real["sites"][0]) \
    and list(doc["leaks"][0]) == list(real["leaks"][0])
sys.exit(0 if ok else 1)
EOT
check "doc/report-json.md: its example has the runtime's fields, in its order" \
    python3 "$TMP/keys.py" "$TOP/doc/report-json.md" "$J"

# every variable the runtime reads (each "MTRACE..." string of runtime/: the
# names it asks mtrace_getenv for) is named in mtrace(7)'s ENVIRONMENT and in
# the guide's Environment section, the two lists a user reads
env_vars=$(cat "$TOP"/runtime/*.c "$TOP"/runtime/*.h | grep -oE '"MTRACE[A-Z0-9_]*"' | tr -d '"' | sort -u)
sed -n '/^\.SH ENVIRONMENT/,/^\.SH REPORTS/p' "$TOP/doc/mtrace.7" > "$TMP/env.7"
awk '/^## Environment/ { on = 1; next } /^## / { on = 0 } on' "$TOP/doc/guide.md" > "$TMP/env.md"
env_missing() {
    for v in $env_vars; do grep -qE "(^|[^A-Z0-9_])$v([^A-Z0-9_]|\$)" "$1" || printf ' %s' "$v"; done
}
miss7=$(env_missing "$TMP/env.7") missmd=$(env_missing "$TMP/env.md")
check "mtrace(7)'s ENVIRONMENT names every variable the runtime reads ($(echo $env_vars | wc -w))" \
    test -n "$env_vars" -a -z "$miss7" || echo "     missing:$miss7"
check "the guide's Environment names every variable the runtime reads" \
    test -n "$env_vars" -a -z "$missmd" || echo "     missing:$missmd"

# the mutants made by rule (tests/mutate/gen.py): each operator on a small
# file, as text (op TAB from TAB to), and what the rules leave alone
mkdir -p "$TMP/gen"
cat > "$TMP/gen/snip.c" <<'EOT'
#include <fcntl.h>
#define LIMIT 16
static char buf[64];
int f(int a, int b, const char *path)
{
    int n = 0;          /* a < b && b in a comment */
    (void)b;
    if (a < b && b != 3)
        n++;
    while (a >= LIMIT)
        a--;
    do { } while (0);
    n = open(path, O_RDONLY | O_CLOEXEC);
    g("x < y || z", n);
    n++;
    n++;
    return n + buf[0];
}
EOT
gen_flat() {    # gen.py generate DIR snip.c, one mutant a line: op TAB from TAB to [TAB nth]
    python3 "$TOP/tests/mutate/gen.py" generate "$1" snip.c |
        awk '/^op: /{op=substr($0,5)} /^nth: /{nth="\t" substr($0,6)} /^from: /{f=substr($0,7)}
             /^to: /{t=substr($0,5)} /^id: /{id=substr($0,5)}
             /^why: /{print op "\t" f "\t" t nth > "/dev/stdout"; print id > ids; nth=""}' ids="$2"
}
gen_flat "$TMP/gen" "$TMP/gen/ids" > "$TMP/gen/flat"
T=$(printf '\t')
has "gen.py rel: < made <=" "$TMP/gen/flat" "rel$T    if (a < b && b != 3)$T    if (a <= b && b != 3)"
has "gen.py rel: != made ==" "$TMP/gen/flat" "rel$T    if (a < b && b != 3)$T    if (a < b && b == 3)"
has "gen.py rel: >= made >" "$TMP/gen/flat" "rel$T    while (a >= LIMIT)$T    while (a > LIMIT)"
has "gen.py logic: && made ||" "$TMP/gen/flat" "logic$T    if (a < b && b != 3)$T    if (a < b || b != 3)"
has "gen.py const: plus one" "$TMP/gen/flat" "const$T    if (a < b && b != 3)$T    if (a < b && b != 4)"
has "gen.py const: minus one" "$TMP/gen/flat" "const$T    if (a < b && b != 3)$T    if (a < b && b != 2)"
has "gen.py const: a #define's bound" "$TMP/gen/flat" "const$T#define LIMIT 16$T#define LIMIT 15"
has "gen.py const: 0 made 1, never -1" "$TMP/gen/flat" "const$T    int n = 0;          /* a < b && b in a comment */$T    int n = 1;"
hasnt "gen.py const: 0 made 1, never -1 (none)" "$TMP/gen/flat" "n = -1"
has "gen.py cond: if forced true" "$TMP/gen/flat" "cond$T    if (a < b && b != 3)$T    if (1)"
has "gen.py cond: if forced false" "$TMP/gen/flat" "cond$T    if (a < b && b != 3)$T    if (0)"
has "gen.py cond: while forced false" "$TMP/gen/flat" "cond$T    while (a >= LIMIT)$T    while (0)"
hasnt "gen.py cond: while never forced true" "$TMP/gen/flat" "while (1)"
has "gen.py stmt: a call removed" "$TMP/gen/flat" "stmt$T    g(\"x < y || z\", n);$T    ;"
has "gen.py stmt: an assignment removed" "$TMP/gen/flat" "stmt$T    n = open(path, O_RDONLY | O_CLOEXEC);$T    ;"
has "gen.py stmt: under an if" "$TMP/gen/flat" "stmt$T        n++;$T        ;"
has "gen.py flag: O_CLOEXEC dropped" "$TMP/gen/flat" "flag$T    n = open(path, O_RDONLY | O_CLOEXEC);$T    n = open(path, O_RDONLY);"
hasnt "gen.py flag: O_RDONLY (0) never dropped" "$TMP/gen/flat" "open(path, O_CLOEXEC)"
hasnt "gen.py: nothing in comments" "$TMP/gen/flat" "a <= b && b in a comment"
hasnt "gen.py: nothing in strings" "$TMP/gen/flat" '"x <= y'
hasnt "gen.py: nothing in #include" "$TMP/gen/flat" "#include <=fcntl"
hasnt "gen.py: no array size in a declaration" "$TMP/gen/flat" "buf[65]"
has "gen.py: an array index is a constant" "$TMP/gen/flat" "buf[1]"
hasnt "gen.py: no while (0) made while (1)" "$TMP/gen/flat" "do { } while (1);"
hasnt "gen.py stmt: no declaration removed" "$TMP/gen/flat" "stmt$T    int n = 0;"
hasnt "gen.py stmt: no (void)x; removed" "$TMP/gen/flat" "stmt$T    (void)b;"
hasnt "gen.py stmt: no return removed" "$TMP/gen/flat" "stmt$T    return"
has "gen.py: equal lines told apart (nth: 2)" "$TMP/gen/flat" "stmt$T    n++;$T    ;${T}2"
# the ids are the lines' text, not their places: a line more above, the same ids
sed '1a /* one line more */' "$TMP/gen/snip.c" > "$TMP/gen/snip.tmp" && mv "$TMP/gen/snip.tmp" "$TMP/gen/snip.c"
gen_flat "$TMP/gen" "$TMP/gen/ids2" > /dev/null
same "gen.py: the same ids when the lines move" "$TMP/gen/ids" "$TMP/gen/ids2"

# the runtime compiles without a warning under gcc and clang (the flags of
# the Makefile's build, the analysis only): a variable read before it is
# set (clang's -Wuninitialized) is code that may do anything  [callers.c:stmt:efd338eb]
for cc in gcc clang; do
    command -v $cc > /dev/null || { fail "$cc is not installed (tests/setup.sh)"; continue; }
    (cd "$TOP" && $cc -fsyntax-only -Wall -Wextra -DMTRACE_RUNTIME mtrace.c) > "$TMP/warn-$cc" 2>&1
    check "the runtime: no warning from $cc -Wall -Wextra" test ! -s "$TMP/warn-$cc"
    [ -s "$TMP/warn-$cc" ] && head -5 "$TMP/warn-$cc" | sed 's/^/     /'
done

# every entry of tests/mutate/mutants.txt still finds its text once in its
# file: code reformatted or moved fails here, at once, not as STALE at the
# next `make mutate`.  Not in make mutate's own copy (MUTATE_COPY), where
# the mutant applied has made its own text stale.
if [ -z "${MUTATE_COPY:-}" ]; then
    if MUTATE_LIST= MUTATE_KEEP= bash "$TOP/tests/mutate/run.sh" --check > "$TMP/stale" 2>&1 && [ ! -s "$TMP/stale" ]; then
        pass "tests/mutate/mutants.txt: no stale entry (tests/mutate/run.sh --check)"
    else
        fail "tests/mutate/mutants.txt: stale entries (rewrite their from:, or their file:)"
        sed 's/^/     /' "$TMP/stale"
    fi
fi

# convert/'s folders use one another one way, as their README.md files say
# (tests/ci/folders.py: the includes, and the symbols taken across folders)
if python3 "$TOP/tests/ci/folders.py" "$TOP" "$CC" > "$TMP/folders" 2>&1; then
    pass "convert/: each folder uses only the folders its README.md allows, one way"
else
    fail "convert/: a folder uses one its README.md does not allow"
    sed 's/^/     /' "$TMP/folders"
fi
# doc/platforms.md: what is not plain POSIX lives in runtime/platform.c;
# no other file of the runtime tests which C library or system it is on,
# but entry.c for glibc's memalign and pvalloc (as mtrace.h binds them),
# and Linux's /proc is read by the four files its port section names.
# The tools use posix_fadvise in m2m_files.c only.
(cd "$TOP" && grep -nE '^[[:space:]]*#[[:space:]]*(if|elif).*(__GLIBC__|__linux|__gnu_linux__|__APPLE__|__MACH__|BSD__|__unix|__sun|_WIN32|__musl)' \
    runtime/*.c runtime/*.h mtrace.c | grep -v '^runtime/platform\.c:') > "$TMP/platform-ifs"
check "platforms.md: the runtime's system tests are platform.c's, and entry.c's two __GLIBC__ (memalign, pvalloc)" \
    test "$(sed -E 's/:[0-9]+:/ /' "$TMP/platform-ifs" | tr -s ' ' | sort | uniq -c | tr -s ' ')" = " 2 runtime/entry.c #ifdef __GLIBC__"
check "platforms.md: /proc is read by reach.c, report.c, stacks.c and trace.c (and platform.c) only" \
    test "$(cd "$TOP" && grep -l '"/proc/' runtime/*.c | tr '\n' ' ')" = "runtime/platform.c runtime/reach.c runtime/report.c runtime/stacks.c runtime/trace.c "
check "platforms.md: posix_fadvise is used by mtrace2massif's m2m_files.c only" \
    test "$(cd "$TOP" && grep -rlw posix_fadvise convert runtime mtrace.h | tr '\n' ' ')" = "convert/mtrace2massif/m2m_files.c "
# doc/design.md, "Other rules" and "The two uses": the runtime's files use
# one way, in mtrace.c's order (tests/ci/oneway.py); the one-line use
# defines weak names only, each the runtime's own or an allocator name
# libmtrace exports too;
# mtrace.c without MTRACE_RUNTIME and without the header is an empty unit
python3 "$TOP/tests/ci/oneway.py" "$TOP" > "$TMP/oneway" 2>&1
check "design.md: each runtime file uses only the files above it in mtrace.c" test ! -s "$TMP/oneway" ||
    sed 's/^/     /' "$TMP/oneway"
for cc in gcc clang; do
    command -v $cc > /dev/null || continue
    (cd "$TOP" && $cc -std=c89 -fsyntax-only -Wall -Wextra -DMTRACE_RUNTIME mtrace.c) > "$TMP/c89-$cc" 2>&1
    check "design.md: the runtime compiles with $cc -std=c89 -Wall -Wextra, no warning" test ! -s "$TMP/c89-$cc"
done
python3 "$TOP/tests/ci/libcnames.py" "$TOP" > "$TMP/libcnames" 2>&1
check "design.md: the C library's functions platform.c binds privately are called by those names only" \
    test ! -s "$TMP/libcnames" || sed 's/^/     /' "$TMP/libcnames"
printf '#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n' > "$TMP/oneline.c"
$CC -O0 -DMTRACE=1 -include "$TOP/mtrace.h" -c "$TMP/oneline.c" -o "$TMP/oneline.o"
nm -g --defined-only "$TMP/oneline.o" | awk '$3 != "main"' > "$TMP/oneline.syms"
nm -D --defined-only "$TOP/libmtrace.so" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort > "$TMP/lib.syms"
check "design.md: the one-line use defines weak names only (and main)" \
    test -s "$TMP/oneline.syms" -a -z "$(awk '$2 != "W" && $2 != "V"' "$TMP/oneline.syms")"
check "design.md: ...each of them mtrace_*, MTRACE_*, pmtrace, or an allocator's name libmtrace exports" \
    test -z "$(awk '$3 !~ /^(mtrace_|MTRACE_|pmtrace$)/ { print $3 }' "$TMP/oneline.syms" | sort | comm -23 - "$TMP/lib.syms")"
check "design.md: libmtrace.so is linked with -z nodelete (NODELETE in its dynamic section)" \
    sh -c "readelf -d '$TOP/libmtrace.so' | grep -q 'Flags:.*NODELETE'"
# doc/design.md's picture is drawn by doc/design-path.py: the SVG is what
# the script draws (--check), and --check sees a stale copy
check "design.md: doc/design-path.svg is what doc/design-path.py draws (--check)" python3 "$TOP/doc/design-path.py" --check
mkdir -p "$TMP/stale-svg" && cp "$TOP/doc/design-path.py" "$TMP/stale-svg/" &&
    sed 's/malloc/mallok/' "$TOP/doc/design-path.svg" > "$TMP/stale-svg/design-path.svg"
check "design.md: ...and --check fails on an SVG edited by hand" sh -c "! python3 '$TMP/stale-svg/design-path.py' --check 2> /dev/null"
$CC -c "$TOP/mtrace.c" -o "$TMP/empty.o"
check "design.md: mtrace.c without MTRACE_RUNTIME or the header: an empty unit" \
    test -z "$(nm "$TMP/empty.o")" -a "$(size "$TMP/empty.o" | awk 'NR == 2 { print $1 + $2 + $3 }')" = 0
finish
