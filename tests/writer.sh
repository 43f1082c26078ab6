#!/bin/bash
# SPDX-License-Identifier: MIT
# The record made off the program's thread (issue 29, runtime/ring.c): at
# level 1 the program's threads append each record's numbers to a ring,
# and a thread of the tracer's, "mtrace writer", makes the text and
# writes it.  The trace is what it was, byte for byte: the same run with
# MTRACE_WRITER=0 (formatted in the program's thread) gives the same file,
# MAXRSS aside.  One program, tests/writer/writer.c, one mode a case.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/writer" || exit 2
B=$TMP/bin
mkdir -p "$B"
for level in 1 2; do
    $CC $CFLAGS_T -Wall -Wextra -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" writer.c \
        -o "$B/writer$level" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread 2>> "$B/cc.err"
done
check "writer.c builds without a warning at levels 1 and 2" test -x "$B/writer1" -a -x "$B/writer2" -a ! -s "$B/cc.err"
# w DIR PROGRAM MODE [args]: runs it in DIR with MTRACE=DIR/trace; out, err, rc in DIR
w() { local d=$1 p=$2; shift 2; mkdir -p "$d"; (cd "$d" && MTRACE=$d/trace timeout 60 "$B/$p" "$@" > out 2> err; echo $? > rc); }
# the trace without MAXRSS (column 6 of + - < >), the gnuplot tail (its start RSS) and the clock
norss() { awk '/^[-+<>] / { $6 = "" } /^(set|plot|#time|#clock) / { next } { print }' "$1"; }

# --- Whose threads: one writer at level 1, none at level 2 or with MTRACE_WRITER=0
w "$TMP/t1" writer1 threads
printf 'parent: a thread of the program\nparent: mtrace writer\n' > "$TMP/t1.expected"
same "level 1: the program's thread and the tracer's writer" "$TMP/t1.expected" "$TMP/t1/out"
# "started after the first record" (mtrace(7)), whatever made it: a pool's
# annotation as well as a malloc
w "$TMP/tp" writer1 pool
same "level 1, a pool's block first: the writer too" "$TMP/t1.expected" "$TMP/tp/out"
w "$TMP/t2" writer2 threads
echo 'parent: a thread of the program' > "$TMP/t2.expected"
same "level 2: no writer (no trace to write)" "$TMP/t2.expected" "$TMP/t2/out"
MTRACE_WRITER=0 w "$TMP/t0" writer1 threads
same "MTRACE_WRITER=0: no writer" "$TMP/t2.expected" "$TMP/t0/out"
MTRACE_WRITER=yes w "$TMP/tx" writer1 threads
has "MTRACE_WRITER=yes: one warning naming its only value" "$TMP/tx/err" "MTRACE_WRITER=yes is not 0 (its only value)"
same "MTRACE_WRITER=yes: the writer stays" "$TMP/t1.expected" "$TMP/tx/out"

# --- A forked child: no writer (a thread started after the fork of a process
#     with threads is beyond POSIX before exec); its own complete trace
w "$TMP/f" writer1 fork
printf 'child: a thread of the program\n' > "$TMP/f.expected"
same "fork: the child formats its own records, no thread started in it" "$TMP/f.expected" "$TMP/f/out"
child=$(ls "$TMP/f"/trace.* 2> /dev/null | head -1)
check "fork: the child's trace replays whole (its one block, freed; its parent's block is not its own)" sh -c "[ -n '$child' ] && awk -f '$TOP/tests/tracer/replay.awk' '$child' | grep -qx 'replay: 2 records, total 0'"
check "fork: the parent's trace replays whole" replays "$TMP/f/trace"

# --- Byte for byte the trace of the program's thread, in one thread and in four
for t in 1 4; do
    w "$TMP/b$t" writer1 busy 300000 $t
    MTRACE_WRITER=0 w "$TMP/i$t" writer1 busy 300000 $t
    check "busy, $t thread(s): exit 0 and the program's output, with the writer and without" \
        sh -c "[ \"\$(cat '$TMP/b$t/rc' '$TMP/i$t/rc')\" = \"\$(printf '0\n0')\" ] && cmp -s '$TMP/b$t/out' '$TMP/i$t/out'"
    check "busy, $t thread(s): the writer's trace replays (RECNO in order, every TOTAL and SITE)" replays "$TMP/b$t/trace"
    check "busy, $t thread(s): more than 600,000 records (the 1 MiB ring went round many times)" \
        test "$(grep -c '^[-+<>] ' "$TMP/b$t/trace")" -gt 600000
    if [ "$t" = 1 ]; then
        norss "$TMP/b1/trace" | sed 1d > "$TMP/b1.norss"
        norss "$TMP/i1/trace" | sed 1d > "$TMP/i1.norss"
        same "busy, 1 thread: the same trace as MTRACE_WRITER=0's, MAXRSS aside" "$TMP/i1.norss" "$TMP/b1.norss"
    fi
done
for f in b4 i4; do   # 4 threads: another order each run; the same records, each TOTAL replayed
    grep '^[-+<>] ' "$TMP/$f/trace" | awk '{ print $1, $2 }' | sort | uniq -c > "$TMP/$f.ops"
done
same "busy, 4 threads: the same operations per site with the writer and without" "$TMP/i4.ops" "$TMP/b4.ops"

# --- The writer writes on its own: 20,001 records, then 0.4 s without a call
w "$TMP/burst" writer1 burst
echo "burst: 20001 of 20001 records in the file after 0.4 s" > "$TMP/burst.expected"
same "every record in the file within 0.4 s, the program not calling the tracer" "$TMP/burst.expected" "$TMP/burst/out"
MTRACE_WRITER=0 w "$TMP/burst0" writer1 burst
echo "burst: 0 of 20001 records in the file after 0.4 s" > "$TMP/burst0.expected"
same "MTRACE_WRITER=0: none yet (the program's thread writes at its next call after 100 ms)" "$TMP/burst0.expected" "$TMP/burst0/out"
check "both: the whole trace at exit" sh -c "replays() { awk -f '$TOP/tests/tracer/replay.awk' \"\$1\" > /dev/null; }; replays '$TMP/burst/trace' && replays '$TMP/burst0/trace'"
# --- Decimal numbers, the trace's most part (runtime/out.c's mtrace_put_u):
#     the same text as snprintf's "%llu" for 12 million numbers of every
#     length, up to 2^64 - 1 (tests/writer/digits.c)
awk '/^static char \*mtrace_put_u\(/, /^}/' \
    "$TOP/runtime/out.c" > "$B/digits.h"
$CC $CFLAGS_T -O2 -Wall -Wextra -I"$B" digits.c -o "$B/digits" 2> "$B/digits.err"
"$B/digits" > "$TMP/digits.out" 2>&1
if grep -qx 'digits: 12000062 numbers as snprintf writes them' "$TMP/digits.out"; then
    pass "decimal numbers: 12,000,062 of them as snprintf writes them, none past its 20 bytes"
else
    fail "decimal numbers: $(head -c 300 "$TMP/digits.out" "$B/digits.err" | tr '\n' ' ')"
fi

# --- TOTAL and SITE past 32 and 48 bits: the ring's 16-byte entries hold
#     them below 2^48 (SITE's bits 32 to 47 beside TOTAL), its 24-byte ones
#     from there (runtime/write.c); the same records with the writer and
#     without.  Sizes: 10 (the program's first block), 2^40 + 3, 5, then
#     256 times 2^40 (TOTAL passes 2^48 at RECNO 257, SITE reaches it at
#     258), freed: the records around each step, by RECNO.
printf '%s\n' '0 + 1 10 10' '1 + 2 1099511627789 1099511627779' '2 + 3 1099511627794 5' \
    '3 + 4 2199023255570 1099511627776' '256 + 4 280375465082898 279275953455104' \
    '257 + 4 281474976710674 280375465082880' '258 + 4 282574488338450 281474976710656' \
    '259 - 3 282574488338445 0' '260 - 2 281474976710666 0' '515 - 4 1099511627786 1099511627776' \
    '516 - 4 10 0' '517 - 1 0 0' > "$TMP/huge.expected"
for h in huge huge0; do
    if [ $h = huge ]; then w "$TMP/$h" writer1 huge; else MTRACE_WRITER=0 w "$TMP/$h" writer1 huge; fi
    awk '/^[-+<>] / && ($3 <= 3 || ($3 >= 256 && $3 <= 260) || $3 >= 515) { print $3, $1, $2, $4, $5 }' \
        "$TMP/$h/trace" > "$TMP/$h.got"
    same "TOTAL and SITE past 2^32 and 2^48 ($( [ $h = huge ] && echo "the writer" || echo "MTRACE_WRITER=0" ))" "$TMP/huge.expected" "$TMP/$h.got"
    check "...and the trace replays, 518 records ($h)" sh -c "awk -f '$TOP/tests/tracer/replay.awk' '$TMP/$h/trace' | grep -qx 'replay: 518 records, total 0'"
done

# --- The trace's last close writes nothing out (runtime/platform.c,
#     mtrace_empty_file).  ext4 takes a file truncated to size 0 for one
#     about to be replaced and has its last close write out all that was
#     written since: a program's exit waited 0.1 s for a 288 MB trace.  A
#     block not yet written out is "delalloc" in filefrag's flags.  The two
#     controls show that this file system does both (else: skipped, said).
delayed() { filefrag -v "$1" 2> /dev/null | grep -q delalloc; }
mkdir -p "$TMP/close"
dd if=/dev/zero of="$TMP/close/new" bs=64k count=64 status=none
dd if=/dev/zero of="$TMP/close/old" bs=64k count=64 status=none
sync "$TMP/close/old" 2> /dev/null || sync
dd if=/dev/zero of="$TMP/close/old" bs=64k count=64 status=none    # O_TRUNC over data
if ! delayed "$TMP/close/new" || delayed "$TMP/close/old"; then
    echo "note: $TMP is not on a file system that delays allocation and writes a truncated file out at its close (ext4): the trace's close not tested"
else
    for old in new old; do      # the trace's file: none yet, or last run's
        rm -rf "$TMP/close/$old.d"
        mkdir -p "$TMP/close/$old.d"
        [ $old = old ] && { cp "$TMP/b1/trace" "$TMP/close/$old.d/trace"; sync "$TMP/close/$old.d/trace" 2> /dev/null || sync; }
        w "$TMP/close/$old.d" writer1 busy 300000 1
        check "a trace over $( [ $old = new ] && echo "no file" || echo "last run's trace" ): not written out at the program's exit (filefrag: delalloc)" \
            sh -c "filefrag -v '$TMP/close/$old.d/trace' | grep -q delalloc && cmp -s '$TMP/close/$old.d/out' '$TMP/b1/out'"
    done
    check "...and it is the whole trace, last run's gone" replays "$TMP/close/old.d/trace"
fi
# --- The trace's clock (doc/trace-format.md, #clock and #time): each
#     record was made within a few milliseconds of the #time before it.
#     tests/writer/clock.c makes 40 allocations at gaps of 0 to 33 ms and
#     prints its own clock at each; the trace places each at the #time
#     before it; both counted from the first record.  (The writer looks
#     at the ring every 4 ms while records come; loaded machines sleep
#     longer: the bound is loose, the mean is not; a writer whose looks
#     do not move its clock places them 12 ms off on average.)
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" clock.c -o "$B/clock" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
placed() { awk '/^#time / { t = $2 } /^\+ / { print int(t / 1000) }' "$1"; }
for wr in 1 0; do
    MTRACE_WRITER=$wr w "$TMP/clock$wr" clock 40
    placed "$TMP/clock$wr/trace" > "$TMP/clock$wr/placed"
    paste "$TMP/clock$wr/out" "$TMP/clock$wr/placed" | awk 'NR == 1 { b = $2 }
        { e = $2 - b - $1; e = e < 0 ? -e : e; m = e > m ? e : m; s += e }
        END { printf "%d %d %d\n", NR, m, s / NR }' > "$TMP/clock$wr/err"
    read n max mean < "$TMP/clock$wr/err"
    echo "     MTRACE_WRITER=$wr: 40 allocations 0-33 ms apart placed by #time: error at most $max us, $mean us on average"
    check "#time (MTRACE_WRITER=$wr): every record placed within 100 ms of its time, 7 ms on average" \
        test "$n" = 40 -a "$max" -le 100000 -a "$mean" -le 7000
    check "#time (MTRACE_WRITER=$wr): never decreasing, the first before the first record" \
        awk '/^#time / { if ($2 < t) exit 1; t = $2; seen = 1 } /^[-+<>] / && !seen { exit 1 } END { exit !seen }' "$TMP/clock$wr/trace"
    check "#clock (MTRACE_WRITER=$wr): once, right after #cmd, the wall clock's nanoseconds at the start (within a minute of now)" \
        awk -v now="$(date +%s)" 'prev ~ /^#cmd / && /^#clock / { n++; if ($2 / 1e9 < now - 60 || $2 / 1e9 > now + 1) exit 1 }
            /^#clock / { c++ } { prev = $0 } END { exit !(n == 1 && c == 1) }' "$TMP/clock$wr/trace"
done

# --- The writer blocks every signal (doc/design.md): a signal sent to the
#     process while the program's one thread blocks it stays pending (the
#     kernel would give it to the writer, were it not blocked there), and
#     runs on the program's thread once unblocked.  tests/writer/signals.c
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" signals.c -o "$B/signals" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
w "$TMP/sig" signals
check "signals: the writer thread is named 'mtrace writer'" test "$(sed -n 1p "$TMP/sig/out")" = named
check "signals: a signal the program's thread blocks stays pending: the writer blocks it too" \
    test "$(sed -n 2p "$TMP/sig/out")" = pending
check "signals: unblocked, its handler runs on the program's thread" test "$(sed -n 3p "$TMP/sig/out")/$(cat "$TMP/sig/rc")" = main/0

finish
