#!/bin/bash
# SPDX-License-Identifier: MIT
# mtrace2massif: a trace in, a Massif file out, as Valgrind's Massif would
# have written it for the same program.  Each test shows the input (a trace
# or a program in tests/mtrace2massif/), the command, and what must come
# out; the programs are compared with live `valgrind --tool=massif` through
# /usr/bin/ms_print.  doc/mtrace2massif.md explains every difference.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/mtrace2massif
M2M=$TOP/mtrace2massif
CC=${CC:-cc}
# traced builds: the test flags (sanitizers under make test-sanitize), but at
# -O0 like the plain build valgrind runs: at -O1 gcc deletes a malloc whose
# result is unused (the manual's example has two)
CFLAGS_T="${TEST_CFLAGS:--g} -O0"
[ -x "$M2M" ] || make -s -C "$TOP" mtrace2massif || exit 2
cd "$TMP" || exit 2

# ms_print output without what must differ: the 5-line header (command
# lines), the tree levels below the first (mtrace knows the allocating line,
# not the whole stack) and code addresses (0x109156 vs our site 0x3).
norm() {
    /usr/bin/ms_print "$1" | tail -n +6 | grep -vE '^[ |]+(->.*)?$' |
        sed -E 's/0x[0-9A-F]+: /0xADDR: /'
}

# --- 1. Hand-written traces and the exact files they give ---------------
# tests/mtrace2massif/small.trace: a malloc, a realloc that grows in place
# (1000 -> 1004 fits Valgrind's 1008-byte block), one that shrinks in place
# (the 504 bytes become extra heap), a site whose name has a space and a
# '#' (escaped %23: ms_print would cut the line there), and the two frees.
"$M2M" --time-unit=i "$D/small.trace" -o small.out
sed -i 's|^cmd: .*|cmd: small.trace|' small.out
same "small trace, --time-unit=i (time = records)" "$D/massif.out.small-i" small.out
# a detailed snapshot whose tree has more than 256 lines (18 sites, 30-frame
# stacks): its table grows while the root's children are counted (found by
# the random traces of tests/convmodel, seed 2: a use after free)
"$M2M" --time-unit=B "$D/wide-tree.trace" -o wide.out 2> wide.err
check "a tree of more than 256 lines converts (no crash)" sh -c "test -s wide.out && ! test -s wide.err"
# the Massif manual's example as our tracer writes it (example.trace)
"$M2M" --time-unit=B "$D/example.trace" -o example.out 2> example.err
sed -i 's|^cmd: .*|cmd: example.trace|' example.out
same "manual example trace, --time-unit=B" "$D/massif.out.example" example.out
check "no warning on a complete trace" test ! -s example.err
has "peak snapshot is the first free, before it frees" example.out "heap_tree=peak"
/usr/bin/ms_print example.out > example.ms 2>&1
check "/usr/bin/ms_print accepts it" test $? -eq 0
has "its snapshot list" example.ms " Detailed snapshots: [9, 14 (peak), 24]"
if [ -x "$TOP/ms_print" ]; then
    "$TOP/ms_print" example.out > example.ours 2>&1
    same "our ms_print prints the same" example.ms example.ours
fi

# default output name: massif.out.NAME next to the trace; '-' reads stdin
mkdir -p sub && cp "$D/small.trace" sub/prog.trace
"$M2M" sub/prog.trace
check "default output sub/massif.out.prog.trace" test -s sub/massif.out.prog.trace
"$M2M" - < sub/prog.trace
check "stdin gives massif.out.stdin here" test -s massif.out.stdin
cat sub/prog.trace | "$M2M" - -o - | sed 's/^cmd: .*/cmd: X/' > piped.out
sed 's/^cmd: .*/cmd: X/' sub/massif.out.prog.trace > file.out
same "a pipe (spooled for the second pass) = the file" file.out piped.out
has "header first, as massif-visualizer wants" <(head -3 file.out | tr '\n' ' ') "desc: --time-unit=B cmd: X time_unit: B "
"$M2M" --threshold=5 --gnuplot=x.gp --max-snapshots=50 sub/prog.trace -o opts.out
has "desc: the Massif options given, in order" opts.out "desc: --threshold=5 --max-snapshots=50"

# --- 2. Live Massif: the acceptance test and our own programs ------------
# live NAME PROG [options]: build PROG.c plainly for valgrind and traced
# for us, run both, convert with the same options, compare through ms_print.
live() {
    local name=$1 prog=$2; shift 2
    [ -f "$name.v" ] || { $CC -g -o "$name.plain" "$D/$prog.c" 2>/dev/null &&
        valgrind -q --tool=massif "$@" --massif-out-file="$name.v" "./$name.plain" > "$name.stdout"; }
    [ -f "$prog.trace" ] || { $CC $CFLAGS_T -DMTRACE=1 -include "$TOP/mtrace.h" \
        -o "$prog.traced" "$D/$prog.c" 2>/dev/null &&
        MTRACE="$TMP/$prog.trace" "./$prog.traced" > "$prog.stdout" 2>/dev/null; }
    "$M2M" "$@" "$prog.trace" -o "$name.o"
}
if [ ! -f "$TOP/mtrace.h" ]; then
    fail "live Massif comparisons need mtrace.h"
else
    # THE acceptance test: the manual's program, examples/example.c
    $CC -g -o ex.plain "$TOP/examples/example.c" 2>/dev/null &&
        valgrind -q --tool=massif --time-unit=B --massif-out-file=ex.v ./ex.plain
    $CC $CFLAGS_T -DMTRACE=1 -include "$TOP/mtrace.h" -o ex.traced "$TOP/examples/example.c" 2>/dev/null
    MTRACE="$TMP/ex.trace" ./ex.traced 2>/dev/null
    "$M2M" --time-unit=B ex.trace -o ex.o
    norm ex.v > ex.v.txt; norm ex.o > ex.o.txt
    same "ACCEPTANCE: examples/example.c = valgrind --tool=massif --time-unit=B" ex.v.txt ex.o.txt
    has "acceptance: 25 snapshots" ex.o.txt "Number of snapshots: 25"
    has "acceptance: detailed [9, 14 (peak), 24]" ex.o.txt " Detailed snapshots: [9, 14 (peak), 24]"
    has "acceptance: peak row" ex.o.txt " 14         20,184           20,184           20,000           184            0"
    has "acceptance: first level at the peak" ex.o.txt "->39.64% (8,000B) 0xADDR: g (example.c:5)"

    # realloc-heavy: moves, in-place growth and shrinks, realloc(NULL, n)
    live realloc realloc --time-unit=B
    norm realloc.v > a.txt; norm realloc.o > b.txt
    same "realloc.c = live Massif" a.txt b.txt
    # 6000 replacements: Massif culls its 100-slot array dozens of times
    live churn churn --time-unit=B
    norm churn.v > a.txt; norm churn.o > b.txt
    same "churn.c (culling) = live Massif" a.txt b.txt
    live churn10 churn --time-unit=B --max-snapshots=10 --detailed-freq=1
    norm churn10.v > a.txt; norm churn10.o > b.txt
    same "churn.c --max-snapshots=10 --detailed-freq=1 = live Massif" a.txt b.txt
    live churnt churn --time-unit=B --threshold=0 --heap-admin=0
    norm churnt.v > a.txt; norm churnt.o > b.txt
    same "churn.c --threshold=0 --heap-admin=0 = live Massif" a.txt b.txt
    live churnp churn --time-unit=B --peak-inaccuracy=0
    norm churnp.v > a.txt; norm churnp.o > b.txt
    same "churn.c --peak-inaccuracy=0 (every new peak) = live Massif" a.txt b.txt
    # siblings around the 1% threshold, ties, the aggregate line
    live sites sites --time-unit=B
    norm sites.v > a.txt; norm sites.o > b.txt
    same "sites.c (threshold aggregation, sort order) = live Massif" a.txt b.txt
    has "aggregate line" sites.o "places, all below massif's threshold (1.00%)"
    live sites10 sites --time-unit=B --threshold=10
    norm sites10.v > a.txt; norm sites10.o > b.txt
    same "sites.c --threshold=10 = live Massif" a.txt b.txt

    # never frees: Massif has no peak; ours = Massif's + one peak at the end
    live nofree nofree --time-unit=B
    check "nofree: Massif has no peak" test "$(grep -c heap_tree=peak nofree.v)" = 0
    check "nofree: ours has one" test "$(grep -c heap_tree=peak nofree.o)" = 1
    # without_last FILE: the Massif file without its last snapshot
    without_last() {
        awk -v last="snapshot=$(($(grep -c '^snapshot=' "$1") - 1))" '$0 == last { exit } { print }' "$1" | sed '$d'
    }
    n=$(grep -c '^snapshot=' nofree.o)
    without_last nofree.o > nofree.cut
    norm nofree.v > a.txt; norm nofree.cut > b.txt
    same "nofree.c: ours without its final peak = live Massif" a.txt b.txt
    tail -n +$(grep -n "^snapshot=$((n - 1))\$" nofree.o | cut -d: -f1) nofree.o | head -5 > nofree.last
    has "nofree: the peak is at the end" nofree.last "time=$(awk -F= '/^time=/ { t = $2 } END { print t }' nofree.o)"
    # the final peak fills the array (9 + 1 of 10): no culling after it
    live eight eight --time-unit=B --max-snapshots=10
    check "eight.c --max-snapshots=10: Massif keeps 9 snapshots, we 9 + the final peak" \
        test "$(grep -c '^snapshot=' eight.v) $(grep -c '^snapshot=' eight.o)" = "9 10"
    without_last eight.o > eight.cut
    norm eight.v > a.txt; norm eight.cut > b.txt
    same "eight.c: ours without its final peak = live Massif" a.txt b.txt
    # libc-internal allocations: stdout's buffer, allocated inside printf
    # and freed by Valgrind at exit, is in Massif's file only
    live stdio stdio --time-unit=B
    rows() { norm "$1" | grep -E '^ +[0-9]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+$'; }
    rows stdio.v > a.txt; rows stdio.o > b.txt
    check "stdio.c: Massif = ours + 2 rows at exit" test "$(wc -l < a.txt)" = $(( $(wc -l < b.txt) + 2 ))
    head -n "$(wc -l < b.txt)" a.txt > a2.txt
    same "stdio.c: the rows before exit are the same" a2.txt b.txt
    has "stdio.c: the extra rows: libc's 4096-byte stdout buffer, then its free" <(tail -n 2 a.txt | tr -s ' ') \
        " 25 34,448 14,128 14,096 32 0"
    # blocks beyond 4 MiB (page-rounded slop, in-place realloc of big blocks)
    live bigp big --time-unit=B --peak-inaccuracy=0
    norm bigp.v > a.txt; norm bigp.o > b.txt
    same "big.c (> 4 MiB blocks) --peak-inaccuracy=0 = live Massif" a.txt b.txt
    # ... where, by default, Massif's peak is 4 KiB short of the maximum
    live big big --time-unit=B
    peak() { awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { e = $2 } /^heap_tree=peak/ { print h + e }' "$1"; }
    check "big.c: our peak is the maximum, 20,688,728; Massif's 20,684,632" \
        test "$(peak big.o) $(peak big.v)" = "20688728 20684632"
    # the true peak when Massif's 10% inaccuracy misses it
    live churni churn --time-unit=B --peak-inaccuracy=10
    vmax=$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { if (h + $2 > m) m = h + $2 } END { print m }' churni.o)
    vpeak=$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { e = $2 } /^heap_tree=peak/ { print h + e }' churni.o)
    mpeak=$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { e = $2 } /^heap_tree=peak/ { print h + e }' churni.v)
    check "exact peak ($vpeak) = largest snapshot, Massif's is lower ($mpeak)" \
        test "$vpeak" = "$vmax" -a "$mpeak" -lt "$vpeak"
fi

# Pools: tests/mtrace2massif/pool.c announces blocks of a static array with
# VALGRIND_MALLOCLIKE_BLOCK beside a malloc(100); pool.trace is that run as
# the tracer writes it with MTRACE_MALLOCLIKE: each pool site is marked by
# "#pool ID" after its '@' record, and "#cmd ./pool" gives the command line.
# Massif gives pool blocks its 8 admin bytes but no slop (the 100-byte
# block costs 108, the malloc(100) 120): the whole file must be Massif's,
# cmd: line included, but for desc: and code addresses.
if $CC -g -o pool "$D/pool.c" 2> /dev/null; then
    valgrind -q --tool=massif --time-unit=B --massif-out-file=pool.v ./pool
    "$M2M" --time-unit=B "$D/pool.trace" -o pool.o
    addr() { tail -n +2 "$1" | sed -E 's/0x[0-9A-F]+: /0xADDR: /'; }
    addr pool.v > a.txt; addr pool.o > b.txt
    same "pool.trace (#pool, #cmd) = live Massif on pool.c, VALGRIND_MALLOCLIKE_BLOCK" a.txt b.txt
    has "... the pool block: 100 bytes + 8 admin, no slop" pool.o "mem_heap_extra_B=8"
    grep -v '^#' "$D/pool.trace" > nopool.trace
    "$M2M" --time-unit=B nopool.trace -o nopool.out
    check "... without its #pool records, the same block costs 120 (slop 12)" \
        test "$(grep -m 1 '^time=[1-9]' nopool.out)" = "time=120"
    # end to end: pool.c itself, traced (its Valgrind requests become
    # MTRACE_MALLOCLIKE/FREELIKE), run, converted: Massif's file again
    cp "$D/pool.c" pool.c
    if $CC ${TEST_CFLAGS:-} -g -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" -o pool-traced pool.c \
            -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace 2> /dev/null; then
        MTRACE=pool-live.trace ./pool-traced 2> /dev/null
        "$M2M" --time-unit=B pool-live.trace -o pool-live.o
        addr pool-live.o | sed 's/^cmd: .*/cmd: .\/pool/' > c.txt
        same "pool.c traced by mtrace (#pool written by the tracer), converted = live Massif" a.txt c.txt
    else
        fail "pool.c does not build traced"
    fi
else
    fail "pool.c needs valgrind.h (apt-get install valgrind)"
fi

# --time-unit=ms: Massif's milliseconds from the trace's #time records.
# timed.c sleeps between its phases (1, 3, 7 MiB at 0, 200, 400 ms; all
# freed at 700, the peak; 1 MiB again until 900 ms) and prints how long it
# took from its first malloc to its first free, by its own clock.  Massif
# counts its ms from its first snapshot, before Valgrind's start-up (some
# 100-300 ms), so durations are compared, from the first allocation to the
# peak, each with the run's own: ours within 20 ms (a record is within a
# few ms of its #time: the writer looks every 4 ms, or is woken by the
# first record after a quiet spell; each end is cut to whole ms; on a
# loaded machine a thread may wait some ms more to run), Massif's within
# 40 (Valgrind translates each phase's new code in a few ms, and runs the
# program's threads one at a time).  The two runs' sleeps overshoot differently on a
# loaded machine (by 5 to 80 ms seen), so the runs are not compared with
# each other but each with itself.
# (msfirst FILE: the time of the first snapshot with a heap; mspeak: the
# peak snapshot's time and heap)
msfirst() { awk -F= '/^time=/ { t = $2 } /^mem_heap_B=/ && $2 > 0 { print t; exit }' "$1"; }
mspeak() { awk -F= '/^time=/ { t = $2 } /^mem_heap_B=/ { b = $2 } /^heap_tree=peak/ { print t, b; exit }' "$1"; }
if [ -f "$TOP/mtrace.h" ] && $CC -g -O0 -o timed.plain "$D/timed.c" 2>/dev/null &&
   $CC $CFLAGS_T -DMTRACE=1 -include "$TOP/mtrace.h" -o timed.traced "$D/timed.c" 2>/dev/null; then
    valgrind -q --tool=massif --time-unit=ms --massif-out-file=timed.v ./timed.plain > timed.vown
    MTRACE="$TMP/timed.trace" ./timed.traced > timed.own 2> /dev/null
    "$M2M" --time-unit=ms timed.trace -o timed-ms.o 2> timed.err
    check "--time-unit=ms on a trace with #time: converted, no warning" test $? -eq 0 -a ! -s timed.err
    has "... time_unit: ms, as Massif writes it" timed-ms.o "time_unit: ms"
    has "... desc: says so" timed-ms.o "desc: --time-unit=ms"
    read -r vt vb < <(mspeak timed.v); read -r ot ob < <(mspeak timed-ms.o)
    vd=$(( vt - $(msfirst timed.v) )); od=$(( ot - $(msfirst timed-ms.o) ))
    check "... the same peak as live Massif --time-unit=ms (7 MiB: $vb, $ob)" test "$vb" = 7340032 -a "$ob" = "$vb"
    own=$(cat timed.own) vown=$(cat timed.vown)
    check "... the peak when the program held its block for $own ms by its own clock, within 20 ms (ours: $od)" \
        test $(( od > own ? od - own : own - od )) -le 20 -a "$own" -ge 700
    check "... live Massif's too, within 40 ms (Massif: $vd, the program under Valgrind: $vown)" \
        test $(( vd > vown ? vd - vown : vown - vd )) -le 40 -a "$vown" -ge 700
    check "... times are whole ms since the tracer started (the first block at 0-9, the last change from 900)" \
        sh -c "test $(msfirst timed-ms.o) -le 9 && awk -F= '/^time=/ { t = \$2 } END { exit !(t >= 900 && t < 5000) }' timed-ms.o"
    /usr/bin/ms_print timed.v > v.ms; /usr/bin/ms_print timed-ms.o > o.ms
    check "... ms_print draws both on a time axis (ms, or s past 1000 ms)" \
        sh -c "grep -qE -- '-->m?s\$' v.ms && grep -qE -- '-->m?s\$' o.ms"
    "$M2M" --time-unit=ms --gnuplot=timed.gp timed.trace -o timed-ms2.o
    has "... the gnuplot script's axis in ms" timed.gp "set xlabel 'time (ms)'"
else
    fail "timed.c does not build"
fi
printf '#clock 1\n#time 5000000\n@ 1 f f.c 1\n+ 1 0 10 10 1\n#time 4000000\n- 1 1 0 0 1\n' > back.trace
"$M2M" --time-unit=ms back.trace -o back.o 2> back.err
check "a #time that goes back: exit 1" test $? -eq 1
has "... its message" back.err "mtrace2massif: back.trace:5: #time went back (5000000 -> 4000000)"
"$M2M" --time-unit=B back.trace -o back.o 2> back.err
check "... refused whatever the unit (the trace is wrong)" test $? -eq 1
printf '#time 5x\n' > badtime.trace
"$M2M" badtime.trace -o back.o 2> back.err
has "a #time without its number: its message" back.err "badtime.trace:1: #time record: expected '#time NS'"
printf '#clock 1\n#time 1500000\n@ 1 f f.c 1\n+ 1 0 10 10 1\n#time 2999999\n+ 1 1 30 30 1\n#time 3000000\n- 1 2 20 20 1\n' > ms.trace
"$M2M" --time-unit=ms ms.trace -o ms.o 2>/dev/null
check "a record's time is the last #time before it, whole ms (1, 2, 3; the peak at 3)" \
    test "$(grep '^time=' ms.o | tr '\n' ' ')" = "time=0 time=1 time=2 time=3 time=3 "
"$M2M" --time-unit=ms "$D/small.trace" -o nots.o 2> nots.err
check "--time-unit=ms on a trace without #time (Basilisk's, older): exit 1, no file" test $? -eq 1 -a ! -e nots.o
has "... one line that says why and what to use" nots.err \
    "small.trace:2: --time-unit=ms: no #time record before this one (the trace has no timestamps: Basilisk's, or an older tracer's); use --time-unit=B or i"
check "... that line alone" test "$(wc -l < nots.err)" = 1

# every file we wrote above reads the same in Valgrind's ms_print and ours
if [ -x "$TOP/ms_print" ]; then
    n=0; bad=
    for f in *.o small.out example.out; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        /usr/bin/ms_print "$f" > a.ms 2>&1; "$TOP/ms_print" "$f" > b.ms 2>&1
        cmp -s a.ms b.ms || bad="$bad $f"
    done
    check "$n files: /usr/bin/ms_print and our ms_print print the same${bad:+ (not:$bad)}" test -z "$bad"
fi

# --- 3. Basilisk traces, truncated traces, bad input ----------------------
# Basilisk writes no MAXRSS without _GNU_SOURCE, and a different tail.
cat > basilisk.trace <<'EOF'
@ 1 mempool_alloc /home/u/basilisk/src/grid/mempool.h 52
+ 1 0 4096 4096
@ 2 cache_append /home/u/basilisk/src/grid/tree.h 300
> 2 1 4196 100
< 2 2 4096 0
> 2 3 4296 200
- 1 4 200 0
- 2 5 0 0
load("`echo $BASILISK`/mtrace.plot")
plot 'mtrace' u 3:($6-1.71e+07) w l t 'ru_maxrss - 1.71e+07',total("mtrace") w l t 'total'
EOF
"$M2M" basilisk.trace -o basilisk.out 2> basilisk.err
check "Basilisk trace converts" test $? -eq 0 -a -s basilisk.out
check "Basilisk trace: no warning" test ! -s basilisk.err
has "Basilisk sites keep the file name only" basilisk.out "0x1: mempool_alloc (mempool.h:52)"

# Metadata records: any line starting with '#' (gnuplot's comment, so never
# a data point).  "#cmd ARGS..." is the program's command line, each
# argument escaped like FUNC and FILE: cmd: is the arguments decoded and
# joined by one space, as Massif writes it (a control character as %XX, a
# '#' as %23: ms_print would cut the line there).  Other '#' records are
# skipped, and none of them counts as one of the two tail lines.
printf '#cmd ./prog a%%20b c%%25d%%0Ae x%%23y\n#note 1 0x401000 0x401100\n@ 1 f f.c 1\n#future\n+ 1 0 10 10 1\n- 1 1 0 0 1\n#cmd ./other\nset x\nplot x\n' > meta.trace
"$M2M" meta.trace -o meta.out 2> meta.err
check "#cmd, unknown # records: converted, no warning" test $? -eq 0 -a ! -s meta.err
has "cmd: the decoded arguments joined by one space (the first #cmd)" meta.out "cmd: ./prog a b c%d%0Ae x%23y"
grep -v '^#' meta.trace > plain.trace
"$M2M" plain.trace -o plain.out
check "... the rest of the file is the one without # records" \
    cmp -s <(sed 1,2d meta.out) <(sed 1,2d plain.out)
printf '@ 1 f f.c 1\n+ 1 0 10 10 1\n#cmd ./pr' > metacut.trace
"$M2M" metacut.trace -o metacut.out 2> metacut.err
has "a # record cut short is a cut record, not a tail line" metacut.err \
    "metacut.trace:3: warning: trace is truncated (last line cut short); converting the 1 complete records"
printf '@ 1 f f.c 1\n+ 1 0 10 10 1\n+' > opcut.trace     # cut one byte into a record
"$M2M" opcut.trace -o opcut.out 2> opcut.err
has "a record cut after its first byte is a cut record, not a tail line" opcut.err \
    "opcut.trace:3: warning: trace is truncated (last line cut short); converting the 1 complete records"

# a crashed program: no tail, last line cut -> convert the rest, warn once
head -c -9 "$D/example.trace" | head -n 20 > cut.trace
printf '+ 3 20 1' >> cut.trace
"$M2M" cut.trace -o cut.out 2> cut.err
check "truncated trace converts (exit 0)" test $? -eq 0 -a -s cut.out
check "one warning" test "$(wc -l < cut.err)" = 1
has "the warning" cut.err "mtrace2massif: cut.trace:21: warning: trace is truncated (last line cut short); converting the 17 complete records"
head -n 5 "$D/example.trace" > notail.trace
"$M2M" notail.trace -o notail.out 2> notail.err
has "no tail: warned" notail.err "warning: trace is truncated (no gnuplot tail)"
: > empty.trace
"$M2M" empty.trace -o empty.out 2> /dev/null
check "empty trace: just the start-up snapshot" test "$(grep -c '^snapshot=' empty.out)" = 1

# bad input: "mtrace2massif: FILE:LINE: what is wrong", exit 1, no output
bad() {
    local name=$1 msg=$2
    printf "$3" > bad.trace
    rm -f bad.out
    "$M2M" bad.trace -o bad.out 2> bad.err
    local rc=$?
    if [ $rc -eq 1 ] && grep -qxF "mtrace2massif: bad.trace:$msg" bad.err && [ ! -e bad.out ]; then
        pass "bad input: $name"
    else
        fail "bad input: $name (exit $rc)"; sed 's/^/     /' bad.err
    fi
}
bad "undefined site" "1: site 1 used before its '@' record" '+ 1 0 10 10 1\n'
bad "site out of order" "1: site 2 defined out of order (expected 1)" '@ 2 f f.c 1\n'
bad "record number gap" "3: record number 2, expected 1" '@ 1 f f.c 1\n+ 1 0 10 10 1\n+ 1 2 20 20 1\n'
bad "free without block" "2: '-' record: site 1 has no live block" '@ 1 f f.c 1\n- 1 0 0 0 1\n'
bad "free more than live" "5: '-' record: frees 20 bytes but site 1 holds only 10" '@ 1 f f.c 1\n@ 2 g f.c 2\n+ 1 0 10 10 1\n+ 2 1 30 20 1\n- 1 2 10 0 1\n'
bad "TOTAL goes up on free" "3: '-' record: TOTAL went up (10 -> 30)" '@ 1 f f.c 1\n+ 1 0 10 10 1\n- 1 1 30 0 1\n'
bad "#site of a site not yet defined (2 defined, site 3 named)" "3: #site record: site 3 is not defined" '@ 1 f f.c 1\n@ 2 g f.c 2\n#site 3 h h.c 3\n'
printf '@ 1 f f.c 1\n@ 2 ? 0x1234 0\n#site 2 h h.c 3\n+ 2 0 10 10 1\n' > lastsite.trace
"$M2M" lastsite.trace -o lastsite.out 2> /dev/null
check "#site of the last site defined (2 of 2): accepted, its name in the tree" grep -q ' h (h.c:3)$' lastsite.out
bad "#site of site 0" "2: #site record: site 0 is not defined" '@ 1 f f.c 1\n#site 0 h h.c 3\n'
bad "SITE disagrees" "2: SITE is 5 but the replay gives 10 for site 1" '@ 1 f f.c 1\n+ 1 0 10 5 1\n'
bad "not a number" "2: TOTAL: expected one space after the number" '@ 1 f f.c 1\n+ 1 0 1x0 10 1\n'
bad "no number" "2: SITE: expected a decimal number of at most 19 digits" '@ 1 f f.c 1\n+ 1 0 10 x 1\n'
bad "two spaces" "2: ID: expected a decimal number of at most 19 digits" '@ 1 f f.c 1\n+  1 0 10 10 1\n'
bad "huge number" "2: TOTAL: expected a decimal number of at most 19 digits" '@ 1 f f.c 1\n+ 1 0 99999999999999999999 1 1\n'
bad "text in the middle" "2: not a trace record (only the last two lines may be other text)" '@ 1 f f.c 1\nhello\n+ 1 0 10 10 1\n'
bad "three tail lines" "2: not a trace record (only the last two lines may be other text)" '@ 1 f f.c 1\na\nb\nc\n'
bad "site record fields" "1: site record: expected '@ ID FUNC FILE LINE'" '@ 1 f f.c\n'
bad "LINE not a number" "1: site record: LINE is not a decimal number" '@ 1 f f.c x1\n'
bad "#pool of no site" "2: #pool record: site 2 has no '@' record before it" '@ 1 f f.c 1\n#pool 2\n'
bad "#pool after the site's blocks" "3: #pool record: site 1 already has blocks" '@ 1 f f.c 1\n+ 1 0 10 10 1\n#pool 1\n'
bad "#pool syntax" "2: #pool record: expected '#pool ID'" '@ 1 f f.c 1\n#pool 1x\n'
bad "a # record after the tail" "3: not a trace record (only the last two lines may be other text)" '@ 1 f f.c 1\n+ 1 0 10 10 1\nset x\n#cmd ./p\n'
# TOTAL at most 2^56 (doc/mtrace2massif.md, Grammar): one byte more is refused
bad "TOTAL past 2^56" "2: TOTAL 72057594037927937 is beyond any real heap" \
    '@ 1 f f.c 1\n+ 1 0 72057594037927937 72057594037927937 1\n'
printf '@ 1 f f.c 1\n+ 1 0 72057594037927936 72057594037927936 1\n' > top.trace
"$M2M" top.trace -o top.out 2> top.err; echo $? > top.rc
check "TOTAL of exactly 2^56: converted (exit 0; no tail: only that warning)" \
    sh -c "test \$(cat top.rc) = 0 -a -s top.out && ! grep -v 'trace is truncated' top.err"
head -c 20000000 /dev/zero | tr '\0' a > long.trace
"$M2M" long.trace -o long.out 2> long.err
check "a 20 MB line: error, memory stays bounded" test $? -eq 1
has "its message" long.err "mtrace2massif: long.trace:1: line longer than 16777216 bytes"
# the bound at its edge (doc/mtrace2massif.md: "Lines up to 16 MiB", the
# bound ms_print shares): a # record of exactly 16777216 bytes (its
# newline aside) is read, one byte more refused, from a file and a pipe
# longrec N: a trace whose first line, an unknown # record, is N bytes
longrec() { { printf '#'; head -c $(($1 - 1)) /dev/zero | tr '\0' a; printf '\n@ 1 f f.c 1\n+ 1 0 10 10 1\n'; } > rec$1.trace; }
longrec 16777216
"$M2M" rec16777216.trace -o rec.out 2> rec.err
check "a line of exactly 16777216 bytes: converted (exit 0)" test $? -eq 0 -a -s rec.out
cat rec16777216.trace | "$M2M" - -o rec.out 2> rec.err
check "a line of exactly 16777216 bytes from a pipe: converted (exit 0)" test $? -eq 0 -a -s rec.out
rm -f rec16777216.trace
longrec 16777217
"$M2M" rec16777217.trace -o rec.out 2> rec.err
check "a line of 16777217 bytes: refused (exit 1)" test $? -eq 1
has "... line longer than 16777216 bytes" rec.err "mtrace2massif: rec16777217.trace:1: line longer than 16777216 bytes"
cat rec16777217.trace | "$M2M" - -o rec.out 2> rec.err
check "a line of 16777217 bytes from a pipe: refused (exit 1)" test $? -eq 1
rm -f rec16777217.trace
# --- doc/mtrace2massif.md's promises at their edges (hand-made traces)
# "a failed conversion never leaves a partial file": an -o file already there stays as it was
printf 'old\n' > keep.out
printf '@ 1 f f.c 1\n+ 1 0 10 11 1\n' > badkeep.trace
"$M2M" badkeep.trace -o keep.out 2> /dev/null; rc=$?
check "bad input over an existing -o file: exit 1, the file as it was, no temporary file left" \
    sh -c "test $rc = 1 && test \"\$(cat keep.out)\" = old && ! ls keep.out?* 2> /dev/null | grep -q ."
# "%n its file name without the directory (stdin for -)"
printf '@ 1 f f.c 1\n+ 1 0 10 10 1\n- 1 1 0 0 1\nset x\nplot x\n' > one.trace
cat one.trace | "$M2M" -o x.%n - 2> /dev/null
check "-o x.%n of standard input: x.stdin, its snapshots" grep -q '^mem_heap_B=10$' x.stdin
check "mem_stacks_B=0 in every snapshot (small.trace, the example)" \
    sh -c "grep -q '^mem_stacks_B=0\$' small.out && ! grep -h '^mem_stacks_B=' small.out example.out | grep -qv '^mem_stacks_B=0\$'"
# several traces: --gnuplot too must name one file per trace; one trace twice is refused
cp one.trace one2.trace
"$M2M" one.trace one2.trace -o two.%r --gnuplot=two.gp 2> two.err; rc=$?
check "--gnuplot without %r or %n, several traces: exit 2, nothing written" \
    sh -c "test $rc = 2 && ! ls two.* 2> /dev/null | grep -v two.err | grep -q ."
has "... and says why" two.err "mtrace2massif: two.gp: with several traces, --gnuplot's FILE must contain %r (rank) or %n (trace name)"
"$M2M" one.trace one.trace -o twice.%r 2> twice.err; rc=$?
check "the same trace given twice: exit 2, nothing written" sh -c "test $rc = 2 && ! ls twice.[0-9] 2> /dev/null | grep -q ."
has "... and says why" twice.err "mtrace2massif: one.trace: trace given twice"
"$M2M" one.trace one2.trace -o two.%r --gnuplot=two.%r.gp 2> /dev/null
check "... while two traces with --gnuplot=two.%r.gp convert (exit 0)" test $? -eq 0 -a -s two.1 -a -s two.1.gp
# "A #time smaller than the one before it is an error": equal is not
printf '#time 1000000\n@ 1 f f.c 1\n+ 1 0 10 10 1\n#time 1000000\n- 1 1 0 0 1\n' > tequal.trace
"$M2M" --time-unit=ms tequal.trace -o tequal.out 2> /dev/null
check "a #time equal to the one before: converted (exit 0)" test $? -eq 0 -a -s tequal.out
# "> alone is realloc(NULL, n) = malloc; < alone is realloc(p, 0) = free": the file of + and - (cmd: aside)
printf '@ 1 f f.c 1\n> 1 0 100 100 1\n< 1 1 0 0 1\nset x\nplot x\n' > alone.trace
printf '@ 1 f f.c 1\n+ 1 0 100 100 1\n- 1 1 0 0 1\nset x\nplot x\n' > plain.trace
"$M2M" --detailed-freq=1 alone.trace -o alone.out && "$M2M" --detailed-freq=1 plain.trace -o plain.out
sed -i '/^cmd: /d' alone.out plain.out
same "'>' alone is a malloc, '<' alone a free: the file of '+' and '-'" plain.out alone.out
# "Basilisk's realloc(p, 0) writes < then > 0: a realloc to 0 bytes that
# keeps a block": 100 bytes (usable 112) become 0 useful + 112 slop + 8 admin
printf '@ 1 f f.c 1\n+ 1 0 100 100 1\n< 1 1 0 0 1\n> 1 2 0 0 1\nset x\nplot x\n' > bz.trace
"$M2M" --detailed-freq=1 bz.trace -o bz.out
check "Basilisk's realloc(p, 0) (< then > 0): the block kept, 0 bytes useful, 120 extra" \
    test "$(awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { e = $2 } END { print h, e }' bz.out)" = "0 120"
# "Numbers: decimal, at most 19 digits" (MAXRSS: 19 read, 20 refused); a
# site's LINE is kept as written
printf '@ 1 f f.c 12345678901234567890\n+ 1 0 10 10 9999999999999999999\nset x\nplot x\n' > d19.trace
"$M2M" d19.trace -o d19.out 2> d19.err
check "a number of 19 digits (MAXRSS): read (exit 0)" test $? -eq 0 -a ! -s d19.err
has "... and a LINE of 20 digits kept as written" d19.out "0x1: f (f.c:12345678901234567890)"
printf '@ 1 f f.c 1\n+ 1 0 10 10 12345678901234567890\n' > d20.trace
"$M2M" d20.trace -o d20.out 2> d20.err
check "a number of 20 digits (MAXRSS): refused (exit 1), its line" \
    sh -c "test $? = 1 && grep -qx 'mtrace2massif: d20.trace:2: MAXRSS: expected a decimal number of at most 19 digits' d20.err"
# "At most 2^20 such blocks are remembered; beyond that a warning": N
# blocks of 100 bytes each shrunk in place to 1 (and kept)
shrunk() { awk -v n="$1" 'BEGIN { print "@ 1 f f.c 1"; t = 0; r = 0
    for (i = 0; i < n; i++) { t += 100; printf "+ 1 %d %d %d 1\n", r++, t, t; t -= 100; printf "< 1 %d %d %d 1\n", r++, t, t
                              t += 1; printf "> 1 %d %d %d 1\n", r++, t, t }
    print "set x"; print "plot x" }'; }
shrunk 1048576 > shrunk.trace
"$M2M" shrunk.trace -o shrunk.out 2> shrunk.err
check "1048576 blocks shrunk in place: no warning" test $? -eq 0 -a ! -s shrunk.err
shrunk 1048577 > shrunk.trace
"$M2M" shrunk.trace -o shrunk.out 2> shrunk.err
check "1048577 blocks shrunk in place: one warning, 1 block not remembered" sh -c "test \$(wc -l < shrunk.err) = 1 &&
    grep -qx 'mtrace2massif: shrunk.trace: warning: 1 blocks shrunk in place by realloc were not remembered; extra-heap may be high by their slack' shrunk.err"
rm -f shrunk.trace
# memory does not grow with the trace: a million records within 4 MB of 2048 records' peak RSS
records() { awk -v n="$1" 'BEGIN { print "@ 1 f f.c 1"; for (i = 0; i < n; i += 2) printf "+ 1 %d 16 16 1\n- 1 %d 0 0 1\n", i, i + 1 }'; }
records 1000000 > million.trace
records 2048 > few.trace
cc -O2 -o maxrss "$TOP/tests/ms_print/maxrss.c"
rss() { ./maxrss "$M2M" "$@" 2> /dev/null | awk '{ print $2 }'; }
many=$(rss million.trace -o million.out) few=$(rss few.trace -o few.out)
check "a trace of a million records: peak RSS ${many} kB, within 4 MB of 2048 records' (${few} kB)" test $((many - few)) -lt 4096
# several traces: "memory is that of the largest one, not of the run": four ranks of a million records
for r in 1 2 3; do cp million.trace million.trace-$r; done
four=$(rss million.trace million.trace-1 million.trace-2 million.trace-3 -o million.%r)
check "four traces of a million records: peak RSS ${four} kB, within 4 MB of one's (${many} kB)" test $((four - many)) -lt 4096
rm -f million.trace million.trace-[123] million.[0-3]
"$M2M" /nonexistent.trace 2> nofile.err
check "missing trace: exit 1" test $? -eq 1
has "missing trace: message" nofile.err "mtrace2massif: /nonexistent.trace: No such file or directory"
"$M2M" --max-snapshots=5 x 2> opt.err
check "option out of range: exit 2" test $? -eq 2
has "option message" opt.err "mtrace2massif: --max-snapshots=5: expected an integer in 10..1000"
"$M2M" --time-unit=s x 2> opt.err
has "--time-unit: the three units" opt.err "mtrace2massif: --time-unit=s: expected B, i or ms"
"$M2M" --help > help.out
check "--help: exit 0" test $? -eq 0
has "--help names the options" help.out "--peak-inaccuracy"
check "--help: its last line sends bugs to mtrace's tracker, not to Valgrind's authors; no address" sh -c \
    "tail -n 1 help.out | grep -qx \"Report bugs to the mtrace project's issue tracker, not to Valgrind's authors.\" && ! grep -q @ help.out"
check "--version" sh -c "'$M2M' --version | grep -q '^mtrace2massif [0-9]'"
# Massif's options at their bounds (mtrace2massif(1)): LO and HI convert,
# one step below LO and above HI is a bad command line
printf '@ 1 f f.c 1\n+ 1 0 10 10 1\n- 1 1 0 0 1\n' > bounds.trace
while read -r opt lo hi below above; do
    "$M2M" --$opt=$lo bounds.trace -o bounds.out 2> /dev/null; a=$?
    "$M2M" --$opt=$hi bounds.trace -o bounds.out 2> /dev/null; b=$?
    "$M2M" --$opt=$below bounds.trace -o bounds.out 2> /dev/null; c=$?
    "$M2M" --$opt=$above bounds.trace -o bounds.out 2> /dev/null; d=$?
    check "--$opt: $lo and $hi convert, $below and $above are refused (exit 2)" test "$a $b $c $d" = "0 0 2 2"
done <<EOF
max-snapshots 10 1000 9 1001
detailed-freq 1 1000000 0 1000001
threshold 0 100 -0.1 100.1
heap-admin 0 1024 -1 1025
peak-inaccuracy 0 100 -0.1 100.1
depth 1 200 0 201
EOF
for f in "$D"/fuzz-*.trace; do   # inputs that once crashed the fuzzer
    [ -e "$f" ] || continue
    "$M2M" "$f" -o fz.out 2>/dev/null
    check "fuzz regression $(basename "$f") (no crash)" test $? -le 1
done

# --- 4. gnuplot: the script and the tracer's own tail, rendered -----------
if [ -f "$TOP/mtrace.h" ] && [ -f churn.trace ]; then
    "$M2M" --gnuplot=churn.gp churn.trace -o churn.g.out
    has "script: inline data" churn.gp '$mtrace << EOD'
    has "script: sites titled by function and place" churn.gp "title 'large (churn.c:"
    # KiB for the heap; MiB when ASan's quarantine inflates the RSS curve
    check "script: axes in KiB or MiB" grep -qE "^set ylabel 'memory \((KiB|MiB)\)'" churn.gp
    has "script: time axis in MiB allocated + freed" churn.gp "set xlabel 'time (MiB allocated + freed)'"
    gnuplot -e "set terminal pngcairo size 1000,600; set output 'churn.png'" churn.gp 2> gp.err
    check "script renders to PNG" sh -c "test -s churn.png && ! test -s gp.err && head -c 4 churn.png | grep -q PNG"
    gnuplot -e "set terminal svg size 1000,600; set output 'churn.svg'" churn.gp 2> gp.err
    check "script renders to SVG" sh -c "test -s churn.svg && ! test -s gp.err && grep -q '<svg' churn.svg"
    { echo "set terminal pngcairo size 1000,600; set output 'tail.png'"; tail -n 2 churn.trace; } | gnuplot 2> gp.err
    check "the trace's two-line tail renders to PNG" sh -c "test -s tail.png && ! test -s gp.err"
    { echo "set terminal svg; set output 'tail.svg'"; tail -n 2 churn.trace; } | gnuplot 2> gp.err
    check "the trace's two-line tail renders to SVG" sh -c "test -s tail.svg && ! test -s gp.err"
    [ -n "${KEEP_PNG:-}" ] && cp churn.png tail.png "$KEEP_PNG"/
fi
"$M2M" --time-unit=i --gnuplot=small.gp "$D/small.trace" -o small-i.out
gnuplot -e "set terminal svg; set output 'small.svg'" small.gp 2> gp.err
check "script with a '#' and spaces in a title renders" sh -c "test -s small.svg && ! test -s gp.err"
has "x axis in records" small.gp "set xlabel 'time (trace records)'"

# gnuplot runs the command in `...` inside "double-quoted" strings, so
# every name from the trace, its path and the output's are written in
# 'single quotes' (' doubled), which gnuplot never expands.  Site 1 is
# a`touch PWNED1`f in evil`touch PWNED2`.c; site 2 has a double and a
# single quote, $H, a backslash, a '%', a newline (%0A), a '#' and @x (a
# gnuplot macro); the trace's own path and the output's have the same.
mkdir -p gpsec && cd gpsec || exit 2
cat > evil.trace <<'EOF'
@ 1 a`touch%20PWNED1`f evil`touch%20PWNED2`.c 1
@ 2 q"'$H\b%25%0A%23@x dir/f'i"le$x.c 2
+ 1 0 100 100 1000
+ 2 1 300 200 2000
- 1 2 200 0 2000
- 2 3 0 0 2000
set title 'x'
plot x
EOF
T='ev'\''q"b`touch PWNED3`$HOME\%#@x'$'\n''.trace'
cp evil.trace "$T"
"$M2M" --gnuplot=ev.gp "$T" -o 'o`touch PWNED4`'\''".out'
check "names with quotes and backquotes: script written" test -s ev.gp
gnuplot -e "set terminal svg; set output 'ev.svg'" ev.gp > gp.out 2>&1
check "... gnuplot reads it without a word" test -s ev.svg -a ! -s gp.out
gnuplot -e "set terminal pngcairo; set output 'ev.png'" ev.gp > gp.out 2>&1
check "... and renders it to PNG" test -s ev.png -a ! -s gp.out
check "... and ran no command from it (no PWNED file)" test -z "$(find . -name 'PWNED*')"
has "... legend: site 1 literally" ev.svg '<title>a`touch PWNED1`f (evil`touch PWNED2`.c:1)</title>'
has "... legend: site 2 literally, its newline as %0A" ev.svg \
    '<title>q"'\''$H\b%%0A#@x (f'\''i"le$x.c:2)</title>'
has "... title: the trace's path literally" ev.svg \
    '<text>ev'\''q"b`touch PWNED3`$HOME\%#@x%0A.trace: peak 336 B (heap + extra)</text>'
cd .. || exit 2

# The key goes below the plot (beside it, it took half of the width;
# inside, it hid the RSS curve), and long names are cut: the function to
# 24 bytes (its start and its end), the file to its last 20.
printf '@ 1 %s src/a_very_long_file_name_for_a_source.c 42\n+ 1 0 10 10 1\n- 1 1 0 0 1\nset x\nplot x\n' \
    function_with_a_name_much_longer_than_thirty_two_bytes > long.trace
"$M2M" --gnuplot=long.gp long.trace -o long.out
has "key below the plot" long.gp "set key below"
has "long names cut in the legend" long.gp \
    "title 'function_w...y_two_bytes (...me_for_a_source.c:42)'"
# --- doc/mtrace2massif.md's gnuplot script at its edges
# the sites drawn: peak >= --threshold % of the heap's peak, the 12 largest.
# sites15: site k holds 100 k bytes (k < 15), site 15 9500: 20000 in all
awk 'BEGIN { t = 0; r = 0; for (k = 1; k <= 15; k++) { s = (k < 15) ? 100 * k : 9500; t += s
    printf "@ %d f%d f.c %d\n+ %d %d %d %d 1\n", k, k, k, k, r++, t, s } print "set x"; print "plot x" }' > sites15.trace
# drawn P: the sites the script draws with --threshold=P, largest first
drawn() { "$M2M" --threshold="$1" sites15.trace -o sites15.out --gnuplot=sites15.gp
          grep -o "title 'f[0-9]* " sites15.gp | grep -o 'f[0-9]*' | tr '\n' ' '; }
check "gnuplot: the sites drawn at --threshold=1: the 12 largest of the 14 above 1%" test "$(drawn 1)" = "f15 f14 f13 f12 f11 f10 f9 f8 f7 f6 f5 f4 "
check "gnuplot: the sites drawn at --threshold=5: site 10 (1000 of 20000, exactly 5%) too" test "$(drawn 5)" = "f15 f14 f13 f12 f11 f10 "
check "gnuplot: the sites drawn at --threshold=5.0001: not site 10" test "$(drawn 5.0001)" = "f15 f14 f13 f12 f11 "
check "gnuplot: no terminal set" sh -c "! grep -v '^#' sites15.gp | grep -q 'set term'"
# the title: the path's last 64 bytes
mkdir -p "$(printf 'd%.0s' $(seq 1 60))" && cp sites15.trace "$(printf 'd%.0s' $(seq 1 60))/t.trace"
"$M2M" "$(printf 'd%.0s' $(seq 1 60))/t.trace" -o title.out --gnuplot=title.gp
check "gnuplot: the title, a path of 65 bytes: its last 64 (after '...')" \
    grep -qx "set title '...$(printf 'd%.0s' $(seq 1 53))/t.trace: peak 19.74 KiB (heap + extra)' noenhanced" title.gp
# --time-unit=ms: the axis in ms, in s from 10 s on
for ms in 9999 10000; do
    printf '#time 0\n@ 1 f f.c 1\n+ 1 0 10 10 1\n#time %d000000\n- 1 1 0 0 1\nset x\nplot x\n' $ms > ms$ms.trace
    "$M2M" --time-unit=ms ms$ms.trace -o ms$ms.out --gnuplot=ms$ms.gp
done
has "gnuplot, --time-unit=ms: the axis in ms up to 9999 ms" ms9999.gp "set xlabel 'time (ms)'"
has "... in s at 10000 ms" ms10000.gp "set xlabel 'time (s)'"
# at most 2048 points over a million records, the peak (a 100000-byte
# spike half-way) and the final state (one block of 16 + 8 bytes) in them
awk 'BEGIN { print "@ 1 f f.c 1"; print "@ 2 g f.c 2"; r = 0
    for (i = 0; i < 500000; i++) { printf "+ 1 %d 16 16 1\n- 1 %d 0 0 1\n", r, r + 1; r += 2
        if (i == 250000) { printf "+ 2 %d 100000 100000 1\n- 2 %d 0 0 1\n", r, r + 1; r += 2 } }
    printf "+ 1 %d 16 16 1\n", r; print "set x"; print "plot x" }' > spike.trace
"$M2M" --time-unit=i spike.trace -o spike.out --gnuplot=spike.gp
sed -n '/<< *EOD/,/^EOD/p' spike.gp | sed '1d;$d' > spike.pts
check "gnuplot: a million records: at most 2048 points ($(wc -l < spike.pts))" test "$(wc -l < spike.pts)" -le 2048
check "... the peak among them (100008 bytes)" test "$(awk '$2 * 1024 > m { m = $2 * 1024 } END { print m }' spike.pts)" = 100008
check "... the final state last (at record 1000002, shown as 1000 thousand: 24 bytes)" \
    test "$(tail -n 1 spike.pts | awk '{ print $1, $2 * 1024 }')" = "1000 24"

# --- 5. outputs that are not regular files --------------------------------
# written in place: renaming the temporary file over a device or a FIFO
# would replace it (as root, `-o /dev/null` used to replace /dev/null with a
# regular file), and a failed conversion must not remove it
mkfifo out.fifo
timeout 20 cat out.fifo > fifo.got &
"$M2M" "$D/small.trace" -o out.fifo
wait
check "-o FIFO: still a FIFO" test -p out.fifo
"$M2M" "$D/small.trace" -o fifo.want
same "-o FIFO: the Massif file went through it" fifo.want fifo.got
if mknod -m 666 null c 1 3 2> /dev/null; then    # a private /dev/null (root)
    "$M2M" "$D/small.trace" -o null
    check "-o a character device: still one" test -c null
    printf '@ 1 f f.c 1\n- 1 0 0 0 1\n' > bad.trace
    "$M2M" bad.trace --gnuplot=null -o bad.out 2> /dev/null
    check "--gnuplot=a device and bad input: the device is not removed" test -c null
fi

# --- 6. the manual page -----------------------------------------------------
MANWIDTH=80 man --warnings -l "$TOP/doc/mtrace2massif.1" > man.out 2> man.err
check "man page renders without warnings" sh -c "test -s man.out && ! test -s man.err"

# --- 7. Several traces at once: the files of an MPI run ---------------------
# tests/mtrace2massif/ranks/: rank 0 (tr) leaks 100 bytes, rank 1 (tr-1)
# grows a block by realloc and frees it, rank 2 (tr-2) was killed (last
# line cut short), rank 3 (tr-3) is Basilisk's (no MAXRSS).  Given in any
# order, one Massif file each, the table in rank order on stdout.
mkdir -p ranks alone && cp "$D"/ranks/tr* ranks/ && cp "$D"/ranks/tr* alone/
(cd ranks && "$M2M" --time-unit=B --gnuplot=%n.gp tr-3 tr-1 tr tr-2 > ../ranks.sum 2> ../ranks.err; echo $? > ../ranks.rc)
check "4 rank traces: exit 0 (a truncated one is converted)" test "$(cat ranks.rc)" = 0
same "4 rank traces: per rank, min/max with their ranks (lowest on ties), sum" "$D/ranks/summary.expected" ranks.sum
check "the truncated rank: one warning, for its file only" test "$(grep -c . ranks.err)" = 1
has "the truncated rank: the usual warning" ranks.err "mtrace2massif: tr-2:6: warning: trace is truncated (last line cut short); converting the 3 complete records"
(cd alone && for t in tr tr-1 tr-2 tr-3; do "$M2M" --time-unit=B --gnuplot=$t.gp $t 2> /dev/null; done)
for t in tr tr-1 tr-2 tr-3; do
    same "$t: its Massif file = converting it alone (byte for byte)" alone/massif.out.$t ranks/massif.out.$t
    same "$t: its gnuplot script = converting it alone" alone/$t.gp ranks/$t.gp
    /usr/bin/ms_print ranks/massif.out.$t > ranks.ms 2>&1
    check "$t: /usr/bin/ms_print accepts its file" test $? -eq 0 -a -s ranks.ms
done
# ranks: r from NAME-r, 0 for NAME when a NAME-r is given, else the position
rank_rows() { awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 ":" $NF }' "$1" | tr '\n' ' '; }
(cd ranks && "$M2M" tr-1 tr > ../r2.sum)
check "NAME after NAME-1: rank 0, rows in rank order" test "$(rank_rows r2.sum)" = "0:tr 1:tr-1 "
cp ranks/tr ranks/a.trace; cp ranks/tr-1 ranks/b.trace
(cd ranks && "$M2M" b.trace a.trace tr-3 > ../r3.sum)
check "other names: their position; NAME-3: 3" test "$(rank_rows r3.sum)" = "0:b.trace 1:a.trace 3:tr-3 "
cp ranks/tr ranks/tr-01
"$M2M" ranks/tr-1 ranks/tr-01 ranks/tr > r4.sum
check "paths: NAME in a directory is rank 0; -01 is no rank (position 1)" \
    test "$(rank_rows r4.sum)" = "0:ranks/tr 1:ranks/tr-1 1:ranks/tr-01 "
check "paths: each Massif file beside its trace" test -s ranks/massif.out.tr-01
(cd ranks && "$M2M" tr-1 - < tr > ../r5.sum)
check "standard input among them: its position, shown as stdin" test "$(rank_rows r5.sum)" = "1:tr-1 1:stdin "
check "... its file: massif.out.stdin" test -s ranks/massif.out.stdin
cp ranks/tr-1 ranks/--1     # found by the fuzzer: '-' is no NAME of NAME-r
(cd ranks && "$M2M" -- --1 - < tr > ../r6.sum)
check "'-' beside a trace named '--1': its position, not rank 0" test "$(rank_rows r6.sum)" = "1:--1 1:stdin "
# -o with several traces: a pattern (%r rank, %n name), else refused
(cd ranks && "$M2M" tr tr-1 -o "out-%r.%n" > /dev/null)
check "-o out-%r.%n: out-0.tr, out-1.tr-1" test -s ranks/out-0.tr -a -s ranks/out-1.tr-1
"$M2M" ranks/tr-3 -o "p%%c%x.%r"
check "one trace: -o p%%c%x.%r is p%c%x.3" test -s "p%c%x.3"
(cd ranks && "$M2M" tr tr-1 -o same.out > /dev/null 2> ../o.err; echo $? > ../o.rc)
check "-o without %r or %n: exit 2, nothing written" test "$(cat o.rc)" = 2 -a ! -e ranks/same.out
has "... and says why" o.err "mtrace2massif: same.out: with several traces, OUT must contain %r (rank) or %n (trace name)"
(cd ranks && "$M2M" tr tr-1 -o - > ../o.out 2> ../o.err; echo $? > ../o.rc)
check "-o - with several traces: exit 2, nothing on stdout" test "$(cat o.rc)" = 2 -a ! -s o.out
cp ranks/tr keep.tr
(cd ranks && "$M2M" tr tr-1 -o %n > /dev/null 2> ../o.err; echo $? > ../o.rc)
check "-o %n (a trace would be overwritten): exit 2" test "$(cat o.rc)" = 2
same "... and the trace is untouched" keep.tr ranks/tr
has "... and says why" o.err "mtrace2massif: tr would be both the trace of tr and the Massif file of tr"
# a bad trace among them: the others are converted, exit 1, a '-' row
printf '@ 1 f f.c 1\n- 1 0 0 0 1\n' > ranks/bad-5
rm -f ranks/massif.out.*
(cd ranks && "$M2M" tr bad-5 tr-1 > ../bad.sum 2> ../bad.err; echo $? > ../bad.rc)
check "a bad trace among them: exit 1" test "$(cat bad.rc)" = 1
check "... the others are converted, it is not" test -s ranks/massif.out.tr -a -s ranks/massif.out.tr-1 -a ! -e ranks/massif.out.bad-5
has "... its error" bad.err "mtrace2massif: bad-5:2: '-' record: site 1 has no live block"
has "... its row" bad.sum "      5          -                -       -        -  bad-5 (not converted)"
has "... min/max/sum over the others" bad.sum "    sum       4100             4152     100        7"
# one trace: no table unless --summary
"$M2M" "$D/ranks/tr" -o one.out > one.sum
check "one trace: nothing on stdout" test ! -s one.sum
"$M2M" --summary "$D/ranks/tr" -o one.out > one.sum
has "one trace, --summary: the table" one.sum "    sum       1100             1136     100        3"

# The same with the real Open MPI: tests/mtrace2massif/mpi_ranks.c, 4 ranks.
# Rank r peaks at (r + 1) * 1000 bytes ((r + 1) * 1016 with Massif's extra
# heap), leaks (3 - r) * 100 and writes 2 (r + 1) records, + 1 if it leaks.
if command -v mpicc > /dev/null && command -v mpirun > /dev/null; then
    mkdir -p mpi
    # Open MPI stops every rank when one exits non-zero, which a leak does
    mpicc -g -DMTRACE=1 -include "$TOP/mtrace.h" -o mpi/mpi_ranks "$D/mpi_ranks.c" &&
        (cd mpi && MTRACE="$TMP/mpi/tr" timeout 120 mpirun --allow-run-as-root --oversubscribe \
            --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi_ranks > out 2> err)
    check "MPI: 4 rank traces written" test -s mpi/tr -a -s mpi/tr-1 -a -s mpi/tr-2 -a -s mpi/tr-3
    (cd mpi && "$M2M" --time-unit=B tr tr-1 tr-2 tr-3 > ../mpi.sum 2> ../mpi.err; echo $? > ../mpi.rc)
    check "MPI: all 4 converted at once, exit 0, no warning" test "$(cat mpi.rc)" = 0 -a ! -s mpi.err
    {
        printf '%7s  %9s  %15s  %6s  %7s  %s\n' rank "peak heap" "peak heap+extra" leaked records trace
        for r in 0 1 2 3; do
            t=tr; [ $r -gt 0 ] && t=tr-$r
            printf '%7d  %9d  %15d  %6d  %7d  %s\n' $r $(((r + 1) * 1000)) $(((r + 1) * 1016)) \
                $(((3 - r) * 100)) $((2 * (r + 1) + (r < 3))) $t
        done
        # min and max: peaks grow with the rank, leaks shrink, rank 0
        # writes the fewest records and rank 3 the most
        printf '%7s  %9d  %15d  %6d  %7d\n' min 1000 1016 0 3 "at rank" 0 0 3 0 \
            max 4000 4064 300 8 "at rank" 3 3 0 3 sum 10000 10160 600 23
    } > mpi.expected
    same "MPI: the table, from the program's design" mpi.expected mpi.sum
    mkdir -p mpi/alone
    for r in 0 1 2 3; do
        t=tr; [ $r -gt 0 ] && t=tr-$r
        has "MPI rank $r: the tracer's own peak says the same" mpi/err \
            "[rank $r] *** MTRACE: max traced memory size: $(printf %10d $(((r + 1) * 1000))) bytes"
        /usr/bin/ms_print mpi/massif.out.$t > mpi.ms 2>&1
        check "MPI rank $r: /usr/bin/ms_print accepts massif.out.$t" test $? -eq 0 -a -s mpi.ms
        has "MPI rank $r: its peak in ms_print's table" mpi.ms " $((r + 1)),000  "
        cp mpi/$t mpi/alone/
        (cd mpi/alone && "$M2M" --time-unit=B $t)
        same "MPI rank $r: massif.out.$t = converting it alone" mpi/alone/massif.out.$t mpi/massif.out.$t
    done
else
    fail "MPI: mpicc/mpirun missing (apt-get install openmpi-bin libopenmpi-dev)"
fi

finish
