#!/bin/bash
# SPDX-License-Identifier: MIT
# mtrace-diff: two runs of tests/diff/grow.c (its heap grows with its
# argument), traced with MTRACE and MTRACE_REPORT; the table checked
# against the two JSON reports' own figures (tests/diff/expect.py, python's
# json module), the trace route against the JSON route, version 1 reports,
# the --fail-on-increase gate at its boundary, and every bad input: one
# line "mtrace-diff: FILE[:LINE]: ...", exit status 2, never a crash.
# --html=FILE: each page opened in headless Chromium (tests/html/cdp.js,
# the steps tests/diff/page.js): its figures the text's, the colours of
# grown and shrunk frames, hostile names inert, no error, no request.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/diff
DIFF=$TOP/mtrace-diff
[ -x "$DIFF" ] || make -s -C "$TOP" mtrace-diff || exit 2
cd "$TMP" || exit 2
# -O0: at -O1 gcc may delete a malloc whose result is unused
$CC $CFLAGS_T -O0 -DMTRACE=1 -include "$TOP/mtrace.h" "$D/grow.c" -o grow || exit 2
MTRACE=a.trace MTRACE_REPORT=a.json ./grow 2 2> /dev/null
MTRACE=b.trace MTRACE_REPORT=b.json ./grow 5 2> /dev/null
check "two traced runs: both reports and traces written" test -s a.json -a -s b.json -a -s a.trace -a -s b.trace

# run NAME ARGS...: mtrace-diff ARGS, stdout/stderr/status in NAME.{out,err,rc}
run() {
    local name=$1; shift
    timeout 20 "$DIFF" "$@" > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
}
rc() { [ "$(cat "$1.rc")" = "$2" ] || { echo "     exit status $(cat "$1.rc"), expected $2"; return 1; }; }
# the output with single spaces, "(N sites unchanged)" as "unchanged N"
norm() {
    awk 'NR == 1 { print; next } NR == 2 { next }
         /^\(no sites\)$/ { next }
         /^\([0-9]+ sites? unchanged\)$/ { u = substr($1, 2); next }
         { $1 = $1; print } END { print "unchanged " (u ? u : 0) }' "$1"
}
# rows sorted, header and count first: the order of the rows is checked apart
canon() { { head -n 1 "$1"; tail -n 1 "$1"; sed '1d;$d' "$1" | sort; } > "$2"; }

# --- the JSON route against the reports' own figures
run json a.json b.json
check "two reports: exit status 0" rc json 0
check "two reports: nothing on stderr" test ! -s json.err
python3 "$D/expect.py" a.json b.json > json.expect
norm json.out > json.norm
canon json.expect json.e
canon json.norm json.n
same "two reports: header and every site's changes as the reports' figures give them" json.e json.n
has "a site only in the larger run is new" json.out "grow.c:17  (new)"
has "a site only in the smaller run is gone" json.out "grow.c:19  (gone)"
has "the header: peak and leaks of both, in percent" json.out "peak: "
check "rows by the peak's absolute change, largest first" sh -c \
    "sed '1,2d' json.out | grep -v '^(' | awk '{ v = \$1; sub(/^[-+]/, \"\", v); if (NR > 1 && v + 0 > p) exit 1; p = v + 0 }'"
grep -q '^ *+1200 ' json.out && grep -q 'total bytes' json.out
check "the table has its column titles and a real change (+1200 peak bytes at grow.c:13)" test $? -eq 0

# --- the trace route gives the same table
run trace a.trace b.trace
check "two traces: exit status 0" rc trace 0
same "two traces: the same table as the two reports" json.out trace.out
MTRACE_DEPTH=8 MTRACE=s.trace ./grow 5 2> /dev/null
run stacks a.trace s.trace
check "a trace with call stacks (MTRACE_DEPTH=8) is read" grep -q '^#stack ' s.trace
same "a trace with call stacks: the same table" json.out stacks.out
run pipe <(cat a.trace) - < b.trace
same "traces through a pipe and standard input: the same table" json.out pipe.out
run swap b.json a.json
python3 "$D/expect.py" b.json a.json > swap.expect
norm swap.out > swap.norm
canon swap.expect swap.e
canon swap.norm swap.n
same "reports swapped: the changes reversed, new and gone swapped" swap.e swap.n

# --- leaks as the report counts them: suppressed sites leak nothing,
# reachable bytes are not leaked (a run with MTRACE_SUPPRESS, and reports
# made to measure)
echo 'src:*grow.c:17' > supp
MTRACE=c.trace MTRACE_REPORT=c.json MTRACE_SUPPRESS=supp ./grow 5 2> /dev/null
run supp a.json c.json
python3 "$D/expect.py" a.json c.json > supp.expect
norm supp.out > supp.norm
canon supp.expect supp.e
canon supp.norm supp.n
same "a suppressed leak: not counted in the site's leaked bytes" supp.e supp.n
has "a suppressed leak: the new site leaks nothing" supp.out "+777          +777         +1             0  main"
site() { # FUNCTION LIVE REACHABLE SUPPRESSED [FILE]
    echo "{\"function\": \"$1\", \"file\": \"${5:-r.c}\", \"line\": 1, \"allocations\": 1, \"peak_bytes\": 100, \"live_bytes\": $2, \"reachable_bytes\": $3, \"suppressed\": $4}"
}
echo "{\"mtrace_report\": 1, \"peak_bytes\": 200, \"leaked_bytes\": 0, \"sites\": [$(site f 0 0 false), $(site g 0 0 false)]}" > r1.json
echo "{\"mtrace_report\": 1, \"peak_bytes\": 200, \"leaked_bytes\": 60, \"sites\": [$(site f 100 40 false), $(site g 50 0 true), $(site f 0 0 false s.c)]}" > r2.json
run reach r1.json r2.json
python3 "$D/expect.py" r1.json r2.json > reach.expect
norm reach.out > reach.norm
canon reach.expect reach.e
canon reach.norm reach.n
same "reachable bytes are not leaked, a suppressed site leaks nothing" reach.e reach.n
has "the same function and line in another file is another site" reach.out "f s.c:1  (new)"

# --- version 1 reports: no calls, no total_bytes (allocations stand in)
for r in a b; do
    python3 -c "
import json, sys
r = json.load(open('$r.json'))
r['mtrace_report'] = 1
for k in ('calls', 'temporary', 'size_histogram', 'leaks'):
    r.pop(k, None)
for s in r['sites']:
    for k in ('calls', 'total_bytes', 'temporary', 'peak_blocks'):
        s.pop(k, None)
json.dump(r, open('${r}1.json', 'w'), indent=2)"
done
run v1 a1.json b1.json
check "two version 1 reports: exit status 0" rc v1 0
python3 "$D/expect.py" a1.json b1.json > v1.expect
norm v1.out > v1.norm
canon v1.expect v1.e
canon v1.norm v1.n
same "version 1: total bytes shown '-', calls from allocations" v1.e v1.n
has "version 1: a '-' in the total column" v1.out "        +1200             -         +3"
run v12 a1.json b.json
python3 "$D/expect.py" a1.json b.json > v12.expect
norm v12.out > v12.norm
canon v12.expect v12.e
canon v12.norm v12.n
same "version 1 against version 2: '-' where the base lacks the figure" v12.e v12.n

# --- the gate, at its boundary (reports made to measure)
# mk NAME PEAK LEAKED: a report with one site holding what the run did
mk() {
    cat > "$1" <<EOT
{"mtrace_report": 2, "peak_bytes": $2, "leaked_bytes": $3, "extra": {"nested": [1, 2.5e3, -4, null, true, "x"]},
 "sites": [{"function": "f\u00c3\u00a9", "file": "a b.c", "line": 7, "allocations": 1, "calls": 1,
            "total_bytes": $2, "peak_bytes": $2, "live_bytes": $3, "reachable_bytes": 0, "suppressed": false}]}
EOT
}
mk g0.json 1000 0
mk g10.json 1100 0
mk g10p.json 1101 0
mk gl.json 1000 1
mk gd.json 900 0
run gate_eq --fail-on-increase=10 g0.json g10.json
check "gate: exactly 10% with --fail-on-increase=10 passes (exit 0)" rc gate_eq 0
check "gate: passing is silent on stderr" test ! -s gate_eq.err
run gate_over --fail-on-increase=10 g0.json g10p.json
check "gate: 10.1% with --fail-on-increase=10 fails (exit 1)" rc gate_over 1
has "gate: one line saying which figure grew and by how much" gate_over.err \
    "mtrace-diff: the peak grew by 10.1% (1000 -> 1101 bytes), more than --fail-on-increase=10%"
check "gate: the message is one line" test "$(wc -l < gate_over.err)" = 1
run gate_eps --fail-on-increase=9.999999 g0.json g10.json
check "gate: 10% with --fail-on-increase=9.999999 fails (exit 1)" rc gate_eps 1
run gate_frac --fail-on-increase=10.000000 g0.json g10.json
check "gate: --fail-on-increase=10.000000 is 10 (exit 0)" rc gate_frac 0
run gate_leak --fail-on-increase=1000000 g0.json gl.json
check "gate: leaks from 0 to 1 byte fail whatever PCT (exit 1)" rc gate_leak 1
has "gate: says the leaked bytes grew from 0" gate_leak.err "the leaked bytes grew from 0 to 1 bytes"
run gate_down --fail-on-increase=0 g0.json gd.json
check "gate: a smaller peak passes --fail-on-increase=0" rc gate_down 0
run gate_same --fail-on-increase=0 g0.json g0.json
check "gate: the same figures pass --fail-on-increase=0" rc gate_same 0
has "the same report twice: one site unchanged" gate_same.out "(1 site unchanged)"
run gate_none g0.json g10p.json
check "no --fail-on-increase: exit 0 whatever grew" rc gate_none 0
has "a name escaped byte by byte (\\u00c3\\u00a9) is read as its bytes (UTF-8 e-acute)" gate_none.out "fé a b.c:7"
# a code point above 0xff is a character (RFC 8259): UTF-8, its 2, 3 and 4
# bytes (a surrogate pair), the same site as the name written plain
sed 's/"f\\u00c3\\u00a9"/"\\u0101\\u4e2d\\ud83d\\ude00"/' g0.json > gu.json
sed 's/"f\\u00c3\\u00a9"/"ā中😀"/' g10p.json > gu8.json
run gate_utf gu.json gu8.json
has "a name escaped by code point (\\u0101\\u4e2d, a surrogate pair) is read as UTF-8: one site" \
    gate_utf.out "ā中😀 a b.c:7"
hasnt "... not two (new, gone)" gate_utf.out "(new)"
run gate_real --fail-on-increase=242 a.json b.json
run gate_real2 --fail-on-increase=539 a.json b.json
check "gate on the real runs: peak +242.7% fails 242, passes 539 (leaks +538.5%)" \
    sh -c "test \$(cat gate_real.rc) = 1 && test \$(cat gate_real2.rc) = 0"
has "gate on the real runs: both figures named" gate_real.err "the peak grew by 242.7% (749 -> 2567 bytes) and the leaked bytes grew by 538.5% (200 -> 1277 bytes), more than --fail-on-increase=242%"
run gate_trace --fail-on-increase=242 a.trace b.trace
check "gate on two traces: the same verdict" rc gate_trace 1

# --- bad usage: exit 2, one line and a hint
for args in "" "a.json" "a.json b.json c.json" "--frob a.json b.json" "--fail-on-increase= a.json b.json" \
    "--fail-on-increase=-5 a.json b.json" "--fail-on-increase=1e3 a.json b.json" \
    "--fail-on-increase=1.2345678 a.json b.json" "- -"; do
    run usage $args < /dev/null
    check "bad usage '$args': exit 2 and a message" sh -c "test \$(cat usage.rc) = 2 && grep -q '^mtrace-diff: ' usage.err"
done
run help --help
check "--help: exit 0, the usage on stdout" sh -c "test \$(cat help.rc) = 0 && grep -q '^usage: mtrace-diff' help.out"
check "--help: its last line sends bugs to mtrace's tracker, not to Valgrind's authors; no address" sh -c \
    "tail -n 1 help.out | grep -qx \"Report bugs to the mtrace project's issue tracker, not to Valgrind's authors.\" && ! grep -q @ help.out"

# --- bad input: one line "mtrace-diff: FILE[:LINE]: ...", exit 2
# bad NAME FILE EXPECTED-LINE [BASE]: FILE as NEW (BASE: a.json)
bad() {
    run bad "${4:-a.json}" "$2"
    if [ "$(cat bad.rc)" = 2 ] && [ "$(cat bad.err)" = "$3" ] && [ ! -s bad.out ]; then pass "$1"
    else fail "$1"; echo "     exit $(cat bad.rc), stderr: $(head -c 300 bad.err)"; fi
}
: > empty
printf ' \n\t\n' > blank
mkdir -p adir
mkfifo fifo
printf '{"mtrace_report": 2,\n "peak_bytes": 5,\n "sites": [' > cut.json
printf '{"mtrace_report": 2, "peak_bytes": 5 "leaked_bytes": 0}' > comma.json
printf '{"name": "x", "version": "1.0"}\n' > other.json
printf '[1, 2]\n' > array.json
printf '{"mtrace_report": 2, "peak_bytes": 5, "leaked_bytes": 0, "sites": []}\n}\n' > extra.json
printf '{"mtrace_report": 2, "peak_bytes": 5, "leaked_bytes": 0}\n' > nosites.json
printf '{"mtrace_report": 2, "peak_bytes": 5, "leaked_bytes": 0,\n "sites": [\n {"function": "f", "file": "x.c", "line": 1}]}\n' > badsite.json
printf '{"mtrace_report": 2, "peak_bytes": -5, "leaked_bytes": 0, "sites": []}\n' > neg.json
printf '{"mtrace_report": 2, "peak_bytes": 5, "leaked_bytes": 0, "sites": [], "s": "a\001"}\n' > ctl.json
printf '{"mtrace_report": 2, "x": "\\q"}\n' > esc.json
python3 -c "print('{\"mtrace_report\": 2, \"x\": ' + '[' * 100000 + ']' * 100000 + '}')" > deep.json
printf '{"mtrace_report": 2, "x": @}\n' > novalue.json
printf '{"mtrace_report": 2, "x": -}\n' > minus.json
printf 'hello\n' > hello.txt
head -c 100000 /dev/urandom > random.bin
sed 's/^+ 1 0 16 16/+ 1 0 17 16/' a.trace > badrec.trace
bad "an empty file" empty "mtrace-diff: empty: empty file"
bad "only white space" blank "mtrace-diff: blank: only white space: neither a report nor a trace"
bad "a directory" adir "mtrace-diff: adir: is a directory"
bad "a nonexistent file (no :0)" nosuch.json "mtrace-diff: nosuch.json: No such file or directory"
bad "a FIFO with no writer: read as empty, no hang" fifo "mtrace-diff: fifo: empty file"
bad "a device" /dev/zero "mtrace-diff: /dev/zero: not a regular file or a pipe"
bad "JSON cut short: the line where it ends" cut.json \
    "mtrace-diff: cut.json:3: invalid JSON: expected '{', found the end of the file"
bad "JSON without a comma" comma.json "mtrace-diff: comma.json:1: invalid JSON: expected ',' or '}', found '\"'"
bad "JSON that is not an mtrace report" other.json \
    "mtrace-diff: other.json:1: not an mtrace report (no \"mtrace_report\" member)"
bad "a JSON array" array.json "mtrace-diff: array.json:1: not an mtrace report (not a JSON object)"
bad "text after the report" extra.json "mtrace-diff: extra.json:2: invalid JSON: '}' after the end of the report"
bad "a report without sites" nosites.json "mtrace-diff: nosites.json:1: the report has no \"sites\""
bad "a site without its figures: the site's line" badsite.json "mtrace-diff: badsite.json:3: a site without \"peak_bytes\""
bad "a negative byte count" neg.json "mtrace-diff: neg.json:1: peak_bytes: expected a non-negative integer"
bad "a control character in a string" ctl.json "mtrace-diff: ctl.json:1: invalid JSON: a control character in a string"
bad "an unknown escape" esc.json "mtrace-diff: esc.json:1: invalid JSON: unknown escape in a string"
bad "JSON nested 100000 deep: refused, no stack overflow" deep.json \
    "mtrace-diff: deep.json:1: JSON nested deeper than 16 levels"
bad "no value where one must be" novalue.json "mtrace-diff: novalue.json:1: invalid JSON: expected a value, found '@'"
bad "a minus sign and no digit" minus.json "mtrace-diff: minus.json:1: invalid JSON: expected a value, found '}'"
bad "text that is neither" hello.txt "mtrace-diff: hello.txt:1: neither a JSON report nor a trace (no trace record)" a.trace
bad "random bytes" random.bin \
    "mtrace-diff: random.bin:1: not a trace record (only the last two lines may be other text)" a.trace
bad "a trace whose record contradicts the replay: the parser's line" badrec.trace \
    "mtrace-diff: badrec.trace:$(grep -n '^+ 1 0 ' a.trace | cut -d: -f1): SITE is 16 but the replay gives 17 for site 1" a.trace
bad "BASE broken: named too" empty "mtrace-diff: empty: empty file" empty
run mixed a.json b.trace
check "a report and a trace: exit 2, one line" sh -c "test \$(cat mixed.rc) = 2 && test \$(wc -l < mixed.err) = 1"
has "a report and a trace: says so" mixed.err "a.json is a JSON report, b.trace a trace: compare two of a kind"

# --- a truncated trace: a warning, as mtrace2massif gives it, and the table
grep -v '^#time \|^#clock ' b.trace | head -n 12 | head -c -3 > cut.trace
run cuttrace a.trace cut.trace
check "a truncated trace: compared (exit 0)" rc cuttrace 0
has "a truncated trace: one warning with its line" cuttrace.err \
    "mtrace-diff: cut.trace:12: warning: trace is truncated (last line cut short); comparing the"
grep -v '^set \|^plot ' b.trace > notail.trace
run notail a.trace notail.trace
has "a trace without its tail: the warning" notail.err "warning: trace is truncated (no gnuplot tail)"
same "a trace without its tail: the same table" json.out notail.out

# --- doc/mtrace-diff.md's other promises, at their edges
# what a file is comes from its first byte that is not white space, not its name
{ printf ' \n\t'; cat a.json; } > ws.json
run ws ws.json b.json
same "a report after white space: read as JSON, the same table" json.out ws.out
cp a.trace trace.json && cp b.trace trace2.json
run named trace.json trace2.json
same "traces named *.json: read as traces, the same table" json.out named.out
# a trace's %XX stands for its byte: ma%69n is main, the same site
sed 's/^@ \([0-9]*\) main /@ \1 ma%69n /' b.trace > pct.trace
check "(a trace naming main ma%69n, for the next check)" grep -q '^@ [0-9]* ma%69n ' pct.trace
run pct a.trace pct.trace
same "a trace's %XX decoded: ma%69n is main, the same table" json.out pct.out
# the header: the change in percent to one decimal; (from 0)
has "the header: the change to one decimal" gate_eq.out "peak: 1000 -> 1100 bytes (+10.0%)"
has "the header: (from 0) where BASE's figure is 0 and NEW's is not" gate_leak.out "leaked: 0 -> 1 bytes (from 0)"
mk p0.json 0 0
mk p1.json 1 0
run gate_peak0 --fail-on-increase=1000000 p0.json p1.json
check "gate: a peak from 0 to 1 byte fails --fail-on-increase=1000000 (exit 1)" rc gate_peak0 1
# two sites of one name in a run are one row, their figures added
site() { printf '{"function": "f", "file": "a.c", "line": 1, "allocations": %s, "calls": %s, "total_bytes": %s, "peak_bytes": %s, "live_bytes": %s, "reachable_bytes": 0, "suppressed": false}' "$1" "$1" "$2" "$3" "$4"; }
printf '{"mtrace_report": 2, "peak_bytes": 150, "leaked_bytes": 10, "sites": [%s, %s]}\n' "$(site 1 100 100 0)" "$(site 2 50 50 10)" > twice.json
printf '{"mtrace_report": 2, "peak_bytes": 200, "leaked_bytes": 30, "sites": [%s]}\n' "$(site 4 300 200 30)" > once.json
run twice twice.json once.json
check "two sites of one name in BASE: one row, their figures added (+50 +150 +1 +20)" \
    test "$(sed -n 3p twice.out | tr -s ' ')" = " +50 +150 +1 +20 f a.c:1"
check "... the only row" test "$(wc -l < twice.out)" = 3
# names shown: control characters as %XX; cut to 255 bytes with "..."
# sname NAME FILE: a report whose one site is the function NAME
sname() { printf '{"mtrace_report": 2, "peak_bytes": 1, "leaked_bytes": 0, "sites": [{"function": "%s", "file": "a.c", "line": 1, "allocations": 1, "calls": 1, "total_bytes": 1, "peak_bytes": 1, "live_bytes": 0, "reachable_bytes": 0, "suppressed": false}]}\n' "$1" > "$2"; }
sname x base1.json
sname '\u0001x\u007f' ctlname.json
run ctlname base1.json ctlname.json
has "a name's control characters shown as %XX" ctlname.out " %01x%7F a.c:1  (new)"
f252=$(head -c 252 /dev/zero | tr '\0' f)
sname "$f252" n252.json
sname "${f252}g" n253.json
run n252 base1.json n252.json
run n253 base1.json n253.json
has "a name of 252 bytes: shown whole" n252.out " $f252 a.c:1  (new)"
has "a name of 253 bytes: cut to its first 252 and '...'" n253.out " $f252... a.c:1  (new)"
# memory grows with the sites, not the run's length: a report of 40 MB
# (a member of 20 million numbers) and a trace of a million records,
# each within 4 MB of the peak RSS on a small input
python3 -c 'import sys; sys.stdout.write("{\"mtrace_report\": 2, \"peak_bytes\": 5, \"leaked_bytes\": 0, \"sites\": [], \"x\": [" + "0," * 20000000 + "0]}\n")' > big.json
# records N: a trace of N records of one site, a block allocated and freed
records() { awk -v n="$1" 'BEGIN { print "@ 1 f f.c 1"; for (i = 0; i < n; i += 2) printf "+ 1 %d 16 16 1\n- 1 %d 0 0 1\n", i, i + 1 }'; }
records 1000000 > long.trace
records 2048 > short.trace
cc -O2 -o maxrss "$TOP/tests/ms_print/maxrss.c"
rss() { ./maxrss "$DIFF" "$@" 2> /dev/null | awk '{ print $2 }'; }
small=$(rss base1.json base1.json) big=$(rss big.json big.json) long=$(rss long.trace long.trace) short=$(rss short.trace short.trace)
check "a 40 MB report: peak RSS ${big} kB, within 4 MB of a small one's (${small} kB)" test $((big - small)) -lt 4096
check "a trace of a million records: peak RSS ${long} kB, within 4 MB of 2048 records' (${short} kB)" test $((long - short)) -lt 4096
rm -f big.json long.trace
# --html: the gate still decides the status; a FIFO is written in place
run hgate --html=gate.html --fail-on-increase=10 g0.json g10p.json
check "--html with --fail-on-increase: the gate's status (1), the page written" sh -c "test \$(cat hgate.rc) = 1 && test -s gate.html"
mkfifo hfifo
timeout 20 cat hfifo > hfifo.got &
run hfifo --html=hfifo a.json b.json
wait $!
check "--html=a FIFO: written in place (still a FIFO), the whole page through it" \
    sh -c "test \$(cat hfifo.rc) = 0 && test -p hfifo && tail -n 1 hfifo.got | grep -qx '</body></html>'"

# --- doc/mtrace-diff.md's bounds at their edges: "its strings at most 16
# MiB" (a site's name, or a member skipped: 16777216 bytes read, one more
# refused), "nested at most 16 deep" (16 read, 17 refused)
# jstr N: a report whose site's function name is N bytes
jstr() {
    python3 -c 'import sys; sys.stdout.write("{\"mtrace_report\": 2, \"peak_bytes\": 5, \"leaked_bytes\": 0, \"sites\": [{\"function\": \""
        + "f" * int(sys.argv[1]) + "\", \"file\": \"a.c\", \"line\": 1, \"allocations\": 1, \"peak_bytes\": 5, \"live_bytes\": 0,"
        + " \"reachable_bytes\": 0, \"suppressed\": false}]}\n")' "$1" > str$1.json
}
jstr 16777216
run str16 str16777216.json str16777216.json
check "a name of 16777216 bytes: read (exit 0, one site unchanged)" sh -c "test \$(cat str16.rc) = 0 && grep -q '(1 site unchanged)' str16.out"
jstr 16777217
bad "a name of 16777217 bytes: refused" str16777217.json "mtrace-diff: str16777217.json:1: a string longer than 16777216 bytes"
python3 -c 'import sys; sys.stdout.write("{\"mtrace_report\": 2, \"skipped\": \"" + "s" * 16777217 + "\"}\n")' > skip.json
bad "a member skipped, its string of 16777217 bytes: refused" skip.json "mtrace-diff: skip.json:1: a string longer than 16777216 bytes"
rm -f str16777216.json str16777217.json skip.json
# nest N: a report nested N deep (its object, then N - 1 arrays)
nest() { python3 -c 'import sys; n = int(sys.argv[1]); print("{\"mtrace_report\": 2, \"peak_bytes\": 5, \"leaked_bytes\": 0, \"sites\": [], \"x\": " + "[" * (n - 1) + "]" * (n - 1) + "}")' "$1" > nest$1.json; }
nest 16
run nest16 nest16.json nest16.json
check "JSON nested 16 deep: read (exit 0)" rc nest16 0
nest 17
bad "JSON nested 17 deep: refused" nest17.json "mtrace-diff: nest17.json:1: JSON nested deeper than 16 levels"

# --- --html=FILE, two traces: the page's memory over time (its data, read
#     without a browser): each run's highest stretch is its peak, the
#     tracer's own peak_bytes (the JSON report of the same run), and no
#     stretch's low is above its high
run hseries --html=series.html a.trace b.trace
python3 - series.html a.json b.json > series.check <<'EOT'
import json, sys
page, dec = open(sys.argv[1]).read(), json.JSONDecoder()
at = [i + len('"series":') for i in range(len(page)) if page.startswith('"series":', i)]
runs = [dec.raw_decode(page, i)[0] for i in at]
for series, report in zip(runs, sys.argv[2:]):
    peak = json.load(open(report))["peak_bytes"]
    print(max(series["hi"]), series["peak"]["bytes"], peak,
          all(lo <= hi for lo, hi in zip(series["lo"], series["hi"])), len(series["lo"]) == len(series["hi"]))
EOT
printf '749 749 749 True True\n2567 2567 2567 True True\n' > series.expected
same "--html, two traces: each run's series peaks at its peak_bytes, lows under highs" series.expected series.check
# at most 2048 stretches a run (doc/mtrace-diff.md): a trace of 2049 records
# (one a stretch until then) too
python3 -c 'print("@ 1 f f.c 1"); [print(("+ 1 %d 16 16 1" if i % 2 == 0 else "- 1 %d 0 0 1") % i) for i in range(2049)]' > r2049.trace
run hlong --html=long.html r2049.trace r2049.trace
check "--html, 2049 records: at most 2048 stretches" test "$(python3 -c '
import json, sys
page = open(sys.argv[1]).read()
print(len(json.JSONDecoder().raw_decode(page, page.index("\"series\":") + 9)[0]["hi"]))' long.html)" -le 2048

# --- --html=FILE: the page, in headless Chromium
# page NAME KIND TEXT GROWN SHRUNK NEW GONE SEARCH STACKS HOSTILE: what the
# page must show (tests/diff/page.js), from mtrace-diff's own output TEXT;
# '' for what is not checked; then the page opened and checked
page() {
    node -e '
        const [name, kind, txt, grown, shrunk, fresh, gone, search, stacks, hostile] = process.argv.slice(1);
        const n = s => s === "" ? null : s;
        console.log(JSON.stringify({ name, kind, text: require("fs").readFileSync(txt, "utf8").split("\n").filter(Boolean),
            grown: n(grown), shrunk: n(shrunk), fresh: n(fresh), gone: n(gone), search: n(search),
            stacks: n(stacks), hostile: n(hostile) }));
    ' "$@" > "$1.expect"
    node --experimental-websocket "$TOP/tests/html/cdp.js" "$1.html" "$D/page.js" "$1.expect" > "$1.cdp" 2>&1
    while IFS= read -r line; do
        case $line in
        "ok   "*) pass "${line#ok   }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        esac
    done < "$1.cdp"
    check "$1: no console error, no exception" grep -qx "errors 0" "$1.cdp"
    check "$1: no network request but the file itself" grep -qx "requests 0" "$1.cdp"
    check "$1: no dialog (alert, confirm...)" grep -qx "dialogs 0" "$1.cdp"
    grep -qx "errors 0" "$1.cdp" || sed -n '/^errors/,$p' "$1.cdp" | head -8 | sed 's/^/     /'
}
if ! command -v chromium > /dev/null 2>&1 ||
    ! node --experimental-websocket -e 'if (typeof WebSocket !== "function") process.exit(1)' 2> /dev/null; then
    fail "--html: chromium and node (>= 20) are needed to check the page (tests/setup.sh installs them)"
else
    run hpage --html=traces.html a.trace b.trace
    check "--html, two traces: exit 0, the same table on stdout" sh -c "test \$(cat hpage.rc) = 0 && cmp -s hpage.out json.out"
    page traces trace hpage.out grow.c:13 '' grow.c:17 grow.c:19 grow.c:1 '' ''
    run hjson --html=reports.html a.json b.json
    check "--html, two reports: exit 0" rc hjson 0
    page reports report hjson.out grow.c:13 '' grow.c:17 grow.c:19 grow.c:15 '' ''
    has "reports: the page says there is no time series" reports.html '"series":null'
    # call stacks: one allocating line from two callers, one growing, one shrinking
    $CC $CFLAGS_T -O0 -fno-omit-frame-pointer -DMTRACE=1 -include "$TOP/mtrace.h" "$D/calls.c" -o calls &&
        MTRACE_DEPTH=8 MTRACE=c2.trace ./calls 2 2> /dev/null && MTRACE_DEPTH=8 MTRACE=c5.trace ./calls 5 2> /dev/null
    run hstacks --html=stacks.html c2.trace c5.trace
    check "--html, two traces with call stacks: exit 0" rc hstacks 0
    page stacks trace hstacks.out 'one (' 'two (' '' '' 'main (' 'main (' ''
    # the frames of two builds whose code lies at other addresses (-DPAD)
    # match by their names: one() grown, two() shrunk (by address, they
    # would be new and gone)
    $CC $CFLAGS_T -O0 -fno-omit-frame-pointer -DPAD -DMTRACE=1 -include "$TOP/mtrace.h" "$D/calls.c" -o calls-pad &&
        MTRACE_DEPTH=8 MTRACE=c5p.trace ./calls-pad 5 2> /dev/null
    check "(calls.c -DPAD: its stacks' addresses differ, for the next checks)" \
        sh -c "test \"\$(grep '^#stack' c5.trace)\" != \"\$(grep '^#stack' c5p.trace)\""
    run hmoved --html=moved.html c2.trace c5p.trace
    check "--html, call stacks at other addresses: the same table as at the same ones" cmp -s hmoved.out hstacks.out
    page moved trace hmoved.out 'one (' 'two (' '' '' '' '' ''
    # hostile names: markup, script, quotes, &, U+2028, a byte that is not UTF-8
    evil='</script><img src=x onerror=alert(1)>'
    for v in 1 3; do
        {
            printf '%s\n' '#cmd ./evil %3C/script%3E%3Cscript%3Ewindow.__pwned=1%3C/script%3E%FF'
            printf '%s\n' '@ 1 </script><img%20src=x%20onerror=alert(1)> x.c 7'
            printf '%s\n' '@ 2 q"%27%E2%80%A8&amp;%FF y</script><script>window.__pwned=2</script>.c 9'
            printf '%s\n' "+ 1 0 $((100 * v)) $((100 * v)) 1000" "+ 2 1 $((100 * v + 60 / v)) $((60 / v)) 1000"
            printf '%s\n' 'set title "x"' 'plot "x" u 3:4 w steps'
        } > evil$v.trace
    done
    run hevil --html=evil.html evil1.trace evil3.trace
    check "--html, hostile names: exit 0" rc hevil 0
    check "hostile: '</script' only where the page's two scripts end" test "$(grep -o '</script' evil.html | wc -l)" = 2
    check "hostile: no '<img' in the file" sh -c "! grep -q '<img' evil.html"
    has "hostile: U+2028 and '&' escaped in the JSON" evil.html '\u2028\u0026amp;'
    has "hostile: a byte that is not UTF-8 read as Latin-1" evil.html '\u0026amp;\u00ff","y\u003c/script\u003e'
    page evil trace hevil.out onerror 'q"' '' '' img '' "$evil"
    # the page's script and style in the binary are those of convert/html/
    awk -v out=diff_html_page.c -f "$TOP/convert/html/embed.awk" "$TOP/convert/html/diff.css" \
        "$TOP/convert/html/diff.js" > page.c
    same "convert/html/diff_html_page.c is made from convert/html/diff.* (make)" "$TOP/convert/html/diff_html_page.c" page.c
fi
run hover --html=a.trace a.trace b.trace
check "--html over an input: refused (exit 2), the input intact" sh -c "test \$(cat hover.rc) = 2 && grep -q '^mtrace-diff: a.trace: --html would write over an input' hover.err && grep -q '^@ ' a.trace"
run hnodir --html=nodir/x.html a.json b.json
check "--html into a missing directory: exit 2, one line" sh -c "test \$(cat hnodir.rc) = 2 && test \$(wc -l < hnodir.err) = 1 && grep -q '^mtrace-diff: nodir/x.html: ' hnodir.err"
run hbad --html=bad.html a.json empty
check "--html, bad input: exit 2, no page, no temporary file" sh -c "test \$(cat hbad.rc) = 2 && ! ls bad.html* 2> /dev/null | grep -q ."

# --- installed with its man page (make -n: nothing built or written here)
make --no-print-directory -s -C "$TOP" -n install DESTDIR=/D PREFIX=/P > install.n 2>&1
make --no-print-directory -s -C "$TOP" -n uninstall DESTDIR=/D PREFIX=/P > uninstall.n 2>&1
check "make install: the tool and its man page" sh -c \
    "grep -q 'for t in .*mtrace-diff' install.n && grep -q 'install -m 644 .*doc/mtrace-diff.1 .*/D/P/share/man/man1/' install.n"
check "make uninstall: both removed" sh -c \
    "grep -q 'for t in .*mtrace-diff' uninstall.n && grep -q '/D/P/share/man/man1/mtrace-diff.1' uninstall.n"
MANWIDTH=80 man --warnings -l "$TOP/doc/mtrace-diff.1" > man.out 2> man.err
check "the man page renders without warnings" sh -c "test -s man.out && ! test -s man.err"

finish
