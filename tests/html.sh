#!/bin/bash
# SPDX-License-Identifier: MIT
# html: mtrace2massif --html=FILE, the self-contained page (doc/mtrace2massif.md,
# "The HTML page").  The examples are traced, converted, and each page is
# opened in headless Chromium, driven over the DevTools protocol by
# tests/html/cdp.js (Node's own WebSocket, nothing installed from npm):
# tests/html/checks.js clicks, hovers, types and reads the page, and its
# figures must be the program's own (summary, MTRACE_REPORT) and the
# converter's Massif file's peak snapshot.  No console error, no exception,
# no network request, no dialog.  Without chromium the suite fails.
. "$(dirname "$0")/lib.sh"
M2M=$TOP/mtrace2massif
H=$TOP/tests/html
# -O0 as tests/mtrace2massif.sh: the example's unused mallocs are kept, and
# frame pointers too (MTRACE_DEPTH follows them)
CFLAGS_T="${TEST_CFLAGS:--g} -O0"
MTRACE_H=${MTRACE_H:-$TOP/mtrace.h}     # the tracer's header (a copy of it, for a tree being edited)
[ -x "$M2M" ] || make -s -C "$TOP" mtrace2massif || exit 2
cd "$TMP" || exit 2

if ! command -v chromium >/dev/null 2>&1; then
    fail "chromium is not installed: apt-get install chromium (tests/setup.sh, run by make test, does)"
    finish; exit 1
fi
if ! node --experimental-websocket -e 'if (typeof WebSocket !== "function") process.exit(1)' 2>/dev/null; then
    fail "node (>= 20, with --experimental-websocket) is needed to drive chromium: apt-get install nodejs"
    finish; exit 1
fi

# chromium drives a page at all (90 s at most): else one failure and the
# suite ends, rather than each page waiting out the driver's own limit
printf '<!DOCTYPE html><body data-ready="1">' > probe.html
if ! CDP_TIMEOUT_S=90 node --experimental-websocket "$H/cdp.js" probe.html > probe.cdp 2>&1 ||
    ! grep -qx "errors 0" probe.cdp; then
    fail "chromium drives no page (an empty one, 90 s): $(head -c 300 probe.cdp | tr '\n' ' ')"
    finish; exit 1
fi

# browse NAME PAGE [EXPECT]: open the page; with EXPECT (JSON), run the
# checks of tests/html/checks.js; then the page's own hygiene
browse() {
    local name=$1 page=$2 expect=$3
    node --experimental-websocket "$H/cdp.js" "$page" ${expect:+"$H/checks.js" "$expect"} > "$name.cdp" 2>&1
    while IFS= read -r line; do
        case $line in
        "ok   "*) pass "${line#ok   }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        esac
    done < "$name.cdp"
    check "$name: no console error, no exception" grep -qx "errors 0" "$name.cdp"
    check "$name: no network request but the file itself" grep -qx "requests 0" "$name.cdp"
    check "$name: no dialog (alert, confirm...)" grep -qx "dialogs 0" "$name.cdp"
    grep -qx "errors 0" "$name.cdp" || sed -n '/^errors/,$p' "$name.cdp" | head -8 | sed 's/^/     /'
}

# expect NAME REPORT CMD SEARCH FILTER: what the page of a traced run must
# show, from its JSON report and its Massif file (NAME.massif)
expect() {
    node -e '
        const [name, report, cmd, search, filter] = process.argv.slice(1);
        const r = JSON.parse(require("fs").readFileSync(report, "utf8"));
        console.log(JSON.stringify({ name, cmd, search, filter, massif: name + ".massif",
            peak_bytes: r.peak_bytes, peak_record: r.peak_record, records: r.records,
            leak_bytes: r.leaked_bytes, leak_blocks: r.leaked_blocks, sites: r.sites,
            stacks: require("fs").readFileSync(name + ".trace", "utf8").includes("\n#depth ") }));
    ' "$@" > "$1.expect"
}

# traced NAME SRC [DEPTH] [CFLAGS...]: build SRC traced, run it (MTRACE_DEPTH
# if DEPTH is not 0), convert with --html; NAME.trace, NAME.json, NAME.massif
traced() {
    local name=$1 src=$2 depth=$3
    shift 3
    $CC $CFLAGS_T -DMTRACE=1 -include "$MTRACE_H" -o "$name" "$src" "$@" 2>/dev/null ||
        { fail "$name: does not build"; return 1; }
    if [ "$depth" = 0 ]; then
        MTRACE="$TMP/$name.trace" MTRACE_REPORT="$TMP/$name.json" "./$name" > /dev/null 2> "$name.err"
    else
        MTRACE_DEPTH=$depth MTRACE="$TMP/$name.trace" MTRACE_REPORT="$TMP/$name.json" "./$name" > /dev/null 2> "$name.err"
    fi
    "$M2M" --time-unit=B --html="$name.html" "$name.trace" -o "$name.massif" 2> "$name.m2m"
    check "$name: converted, no warning" test -s "$name.html" -a ! -s "$name.m2m"
}

# --- 1. The Massif manual's example, without and with call stacks ---------
traced example "$TOP/examples/example.c" 0 &&
    expect example example.json ./example "g (" example && browse example example.html example.expect
has "example: the page says which trace" example.html '"trace":"example.trace"'
traced stacks "$TOP/examples/example.c" 8 &&
    expect stacks stacks.json ./stacks "main (" example && browse stacks stacks.html stacks.expect
check "stacks: the peak's tree is 3 levels deep in the Massif file" grep -q '^   n0: 4000 0x.*: main (example.c:23)' stacks.massif
# leaks: a list freed without its strings, an early return
traced leak "$TOP/examples/leak.c" 8 &&
    expect leak leak.json ./leak "push" checksum && browse leak leak.html leak.expect
# threads, with stacks: four threads at once
traced threads "$TOP/examples/threads.c" 8 -pthread &&
    expect threads threads.json ./threads "work" threads && browse threads threads.html threads.expect

# the trace's clock (#time): seconds on the time axis, first with --time-unit=ms.
# timed.c reaches its 7 MiB peak 400 ms after its start (two sleeps of 200)
$CC $CFLAGS_T -DMTRACE=1 -include "$MTRACE_H" -o timed "$TOP/tests/mtrace2massif/timed.c" 2>/dev/null &&
    MTRACE="$TMP/timed.trace" ./timed > /dev/null 2>&1
"$M2M" --time-unit=ms --html=timed.html timed.trace -o timed.massif
node --experimental-websocket "$H/cdp.js" timed.html "$H/seconds.js" timed time 390 600 > timed.cdp 2>&1
"$M2M" --html=notime.html "$TOP/tests/mtrace2massif/small.trace" -o notime.massif
node --experimental-websocket "$H/cdp.js" notime.html "$H/seconds.js" notime none > notime.cdp 2>&1
for f in timed notime; do
    while IFS= read -r line; do
        case $line in "ok   "*) pass "${line#ok   }" ;; "FAIL "*) fail "${line#FAIL }" ;; esac
    done < $f.cdp
    check "$f: the time axis: seconds when the trace has #time, else bytes and records (tests/html/seconds.js: all ok)" \
        sh -c "grep -q '^ok' $f.cdp && ! grep -q '^FAIL' $f.cdp"
    check "$f: no console error, no exception" grep -qx "errors 0" $f.cdp
done

# --- 2. A hostile trace: names that would be markup, script or JSON -------
# The function, the file and the command line hold </script>, an <img> with
# an onerror, quotes, &, a U+2028 LINE SEPARATOR and a byte that is not UTF-8.
evil='</script><img src=x onerror=alert(1)>'
{
    printf '%s\n' '#cmd ./evil %3C/script%3E%3Cscript%3Ealert(3)%3C/script%3E%FF'
    printf '%s\n' '@ 1 </script><img%20src=x%20onerror=alert(1)> x.c 7'
    printf '%s\n' '@ 2 q"%27%E2%80%A8&amp; y</script><script>alert(2)</script>.c 9'
    printf '%s\n' '+ 1 0 100 100 1000' '+ 2 1 150 50 1000' '- 1 2 50 0 1000' '+ 1 3 80 30 1000'
    printf '%s\n' 'set title "x"' 'plot "x" u 3:4 w steps'
} > evil.trace
"$M2M" --html=evil.html evil.trace -o evil.massif 2> evil.err
check "hostile: converted" test -s evil.html -a ! -s evil.err
check "hostile: '</script' only where the page's two scripts end" test "$(grep -o '</script' evil.html | wc -l)" = 2
check "hostile: no '<img' in the file" sh -c "! grep -q '<img' evil.html"
has "hostile: U+2028 and '&' escaped in the JSON" evil.html '\u2028\u0026amp;'
has "hostile: a byte that is not UTF-8 read as Latin-1" evil.html '\u003c/script\u003e\u00ff"'
node -e '
    console.log(JSON.stringify({ name: "hostile", cmd: "./evil </script><script>alert(3)</script>\u00ff",
        search: "img", filter: "onerror", massif: "evil.massif", hostile: process.argv[1],
        peak_bytes: 150, peak_record: 1, records: 4, leak_bytes: 80, leak_blocks: 2,
        sites: [ { function: process.argv[1], peak_bytes: 100, allocations: 2 },
                 { function: "q", peak_bytes: 50, allocations: 1 } ] }));
' "$evil" > evil.expect
browse hostile evil.html evil.expect

# --- 3. The converter's side ------------------------------------------------
# a truncated trace says so; an empty one still gives a page
head -n 4 evil.trace > cut.trace
"$M2M" --html=cut.html cut.trace -o cut.massif 2> cut.err
has "truncated: the page says so" cut.html '"truncated":true'
browse truncated cut.html
printf '#cmd ./nothing\nset title "x"\nplot "x" u 3:4 w steps\n' > empty.trace
"$M2M" --html=empty.html empty.trace -o empty.massif
has "no allocation: a page without a peak" empty.html '"peak":null'
browse empty empty.html
# bad input: the usual one-line error, exit 1, no page left behind
printf '@ 1 f a.c 1\n+ 1 5 10 10 1000\n' > bad.trace
"$M2M" --html=bad.html bad.trace -o bad.massif 2> bad.err; rc=$?
check "bad input: exit status 1" test "$rc" = 1
has "bad input: FILE:LINE: what is wrong" bad.err "mtrace2massif: bad.trace:2: record number 5, expected 0"
check "bad input: no page, no temporary file" sh -c "! ls bad.html* 2>/dev/null | grep -q ."
# several traces: one page each, named by %n or %r
cp example.trace r.trace && cp stacks.trace r.trace-1
"$M2M" --html=r.trace-1 r.trace r.trace-1 -o 'm.%r' > /dev/null 2> several.err; rc=$?
check "several traces, the run's page over one of them: refused (exit 2)" test "$rc" = 2
has "... saying why" several.err "mtrace2massif: r.trace-1: the run's page would overwrite a trace or another output"
"$M2M" --html='page-%r.html' r.trace r.trace-1 -o 'm.%r' > /dev/null 2>&1
check "several traces: page-0.html and page-1.html" test -s page-0.html -a -s page-1.html
check "... each the page of its trace" sh -c "grep -q '\"depth\":0' page-0.html && grep -q '\"depth\":8' page-1.html"
"$M2M" --html=r.trace r.trace -o x.massif 2> over.err; rc=$?
check "--html over the trace itself: refused" test "$rc" = 2
# the page's script and style in the binary are those of convert/html/
awk -f "$TOP/convert/html/embed.awk" "$TOP/convert/html/page.css" "$TOP/convert/html/common.js" \
    "$TOP/convert/html/page.js" "$TOP/convert/html/run.js" > page.c
same "convert/html/m2m_html_page.c is made from convert/html/ (make)" "$TOP/convert/html/m2m_html_page.c" page.c
printf 'x </script> y\n' > bad.js
check "embed.awk refuses a script holding </script" sh -c "! awk -f '$TOP/convert/html/embed.awk' bad.js > /dev/null 2>&1"

# --- 4. An MPI run's page: several traces, one --html name --------------
# runpage NAME PAGE TABLE TIMED SUM PICK OTHER: the page's checks
# (tests/html/runpage.js) against the converter's own table (TABLE: its
# stdout), TIMED 1 for a seconds axis, SUM the sum's peak ('' unchecked)
runpage() {
    node -e '
        const [name, table, timed, sum, pick, other] = process.argv.slice(1);
        const ranks = [];
        for (const l of require("fs").readFileSync(table, "utf8").split("\n")) {
            const m = /^ *(\d+) +(\S+) +\S+ +(\S+) +(\S+) +(.*)$/.exec(l);
            if (!m) continue;
            const trace = m[5].replace(/ \((not converted|truncated)\)$/, "");
            ranks.push(m[2] === "-" ? { rank: +m[1], trace, failed: true }
                : { rank: +m[1], trace, peak: +m[2], leaked: +m[3], records: +m[4] });
        }
        console.log(JSON.stringify({ name, timed: timed === "1", sum_peak: sum === "" ? null : +sum,
            pick: +pick, other: +other, ranks }));
    ' "$1" "$3" "$4" "$5" "$6" "$7" > "$1.expect"
    node --experimental-websocket "$H/cdp.js" "$2" "$H/runpage.js" "$1.expect" > "$1.cdp" 2>&1
    while IFS= read -r line; do
        case $line in "ok   "*) pass "${line#ok   }" ;; "FAIL "*) fail "${line#FAIL }" ;; esac
    done < "$1.cdp"
    check "$1: the run's page: every rank on one axis, the sum, the table and its extremes, a rank's views a click away (tests/html/runpage.js: all ok)" \
        sh -c "grep -q '^ok' '$1.cdp' && ! grep -q '^FAIL' '$1.cdp'"
    check "$1: no console error, no exception, no request, no dialog" \
        sh -c "grep -qx 'errors 0' '$1.cdp' && grep -qx 'requests 0' '$1.cdp' && grep -qx 'dialogs 0' '$1.cdp'"
    grep -qx "errors 0" "$1.cdp" || sed -n '/^errors/,$p' "$1.cdp" | head -8 | sed 's/^/     /'
}
# the real Open MPI run of tests/tracer.sh (tests/tracer/mpi.c: rank r
# peaks at (r + 1) * 1000 bytes and leaks r * 100), 4 ranks
if command -v mpicc > /dev/null && command -v mpirun > /dev/null; then
    mkdir -p mpi
    mpicc $CFLAGS_T -DMTRACE=1 -include "$MTRACE_H" "$TOP/tests/tracer/mpi.c" -o mpi/mpi 2>/dev/null &&
        (cd mpi && MTRACE="$TMP/mpi/tr" timeout 120 mpirun --allow-run-as-root --oversubscribe \
            --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi > out 2> err)
    (cd mpi && "$M2M" --html=run.html tr tr-1 tr-2 tr-3 > table 2> m2m.err)
    check "MPI, 4 ranks: one page for the run, no per-rank page, no warning" \
        sh -c "test -s mpi/run.html && ! test -s mpi/m2m.err && test \$(ls mpi/*.html | wc -l) = 1"
    check "... rank 3 peaks at 4,000 bytes, leaks 300 (the converter's table)" grep -qE '^ +3 +4000 +[0-9]+ +300 ' mpi/table
    (cd mpi && runpage mpi run.html table 1 '' 2 1)
else
    fail "MPI: mpicc/mpirun missing (apt-get install openmpi-bin libopenmpi-dev)"
fi
# 64 generated ranks in a directory whose name is markup (nested: "run<"
# then "script><img ...>"): rank r starts 10r ms after rank 0 by #clock,
# holds P = (r + 1) * 100 bytes and leaks L = (37r mod 64) * 10 from 1 s to
# 1.2 s on the wall clock, with 2 more records (rank 0: none, rank 40: 4):
# the sum over the ranks peaks at sum(P + L) = 208,000 + 20,160 (placed by
# their own clocks alone, ranks 0 and 63 would hold theirs 0.63 s apart)
evdir='run</script><img src=x onerror=alert(1)>'
mkdir -p "$evdir"
for r in $(seq 0 63); do
    f="$evdir/tr"; [ "$r" -gt 0 ] && f="$evdir/tr-$r"
    awk -v r="$r" 'BEGIN {
        p = (r + 1) * 100; l = (37 * r % 64) * 10
        print "#cmd ./synth %3C/script%3E%3Cimg%20src=x%20onerror=alert(2)%3E"
        printf "#clock 1700000000%09d\n#time 0\n@ 1 hold s.c 1\n@ 2 leak s.c 2\n", r * 10000000
        printf "#time %d\n+ 1 0 %d %d 1\n+ 2 1 %d %d 1\n", 1e9 - r * 1e7, p, p, p + l, l
        printf "#time %d\n- 1 2 %d 0 1\n", 1.2e9 - r * 1e7, l
        for (i = 0; i < (r == 40 ? 2 : r > 0); i++) printf "+ 1 %d %d 1 1\n- 1 %d %d 0 1\n", 3 + 2 * i, l + 1, 4 + 2 * i, l
        print "set title \"x\""; print "plot \"x\" u 3:4 w steps" }' > "$f"
done
"$M2M" --html=synth.html "$evdir/tr" "$evdir"/tr-* > synth.table 2> synth.err
check "64 generated ranks: one page, exit 0, no warning" test $? = 0 -a -s synth.html -a ! -s synth.err
check "... '</script' only where the page's 66 elements end (run, 64 ranks, script)" \
    test "$(grep -o '</script' synth.html | wc -l)" = 66
check "... no '<img' in the file" sh -c "! grep -q '<img' synth.html"
runpage synth synth.html synth.table 1 228160 63 0
# traces without #time (Basilisk's, older): records, each rank from 0, no
# sum; a rank that does not convert is listed, the page still written
cp "$TOP/tests/mtrace2massif/small.trace" q && cp q q-1 && printf '@ 1 f a.c 1\n+ 1 5 10 10 1000\n' > q-2
"$M2M" --html=q.html q q-1 q-2 > q.table 2> q.err
check "no #time, rank 2 bad: exit 1, the page written" test $? = 1 -a -s q.html
has "... rank 2's error" q.err "mtrace2massif: q-2:2: record number 5, expected 0"
runpage notime q.html q.table 0 '' 1 0

# "Past 8 traces each keeps 1024 time buckets instead of 4096": 8 and 9
# traces of 10000 records each (more than 4096 events)
mkdir -p share && for r in $(seq 0 8); do
    f=share/t; [ "$r" -gt 0 ] && f=share/t-$r
    awk 'BEGIN { print "@ 1 f f.c 1"; for (i = 0; i < 10000; i += 2) printf "+ 1 %d 16 16 1\n- 1 %d 0 0 1\n", i, i + 1
                 print "set x"; print "plot x" }' > "$f"
done
# buckets PAGE: the time buckets of each trace in the run's page, one a line
buckets() { grep -o '"hrec":\[[0-9,]*\]' "$1" | awk -F, '{ print NF }'; }
"$M2M" --html=share8.html share/t share/t-[1-7] > /dev/null 2>&1 && buckets share8.html > share8.n
"$M2M" --html=share9.html share/t share/t-[1-8] > /dev/null 2>&1 && buckets share9.html > share9.n
check "8 traces: 4096 time buckets each at most, more than 1024 ($(sort -u share8.n | tr '\n' ' '))" \
    awk '$1 <= 1024 || $1 > 4096 { bad = 1 } END { exit bad || NR != 8 }' share8.n
check "9 traces: 1024 time buckets each at most ($(sort -u share9.n | tr '\n' ' '))" \
    awk '$1 > 1024 { bad = 1 } END { exit bad || NR != 9 }' share9.n

# --- 5. Scale: a generated trace of 2 million records (the generator of
# bench/mtrace2massif.sh): bounded page, sampled snapshots, opens quickly
awk '/^cat > "\$DIR\/gen.c" <<.GEN.$/ { on = 1; next } /^GEN$/ { on = 0 } on' \
    "$TOP/bench/mtrace2massif.sh" > gen.c
if $CC -O2 -o gen gen.c 2>/dev/null && ./gen 2000000 > big.trace; then
    "$M2M" --html=big.html big.trace -o big.massif
    size=$(wc -c < big.html)
    check "2M records: a page of $size bytes (< 10 MB)" test "$size" -lt 10000000
    check "2M records: at most 4096 time buckets" \
        sh -c "grep -o '\"hrec\":\[[0-9,]*\]' big.html | tr ',' '\n' | wc -l | awk '{ exit !(\$1 <= 4096) }'"
    browse big big.html
    ms=$(awk '/^ready_ms/ { print $2 }' big.cdp)
    # (how fast is bench's business, not a unit test's: the time is shown)
    echo "     2M records: drawn in ${ms:-?} ms"
    check "2M records: the page is drawn" test -n "$ms"
else
    fail "the trace generator of bench/mtrace2massif.sh did not build"
fi
finish
