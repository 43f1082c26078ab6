#!/bin/bash
# SPDX-License-Identifier: MIT
# Hardening (issue 11): the trace file against hostile or unlucky names,
# gnuplot never running text from a trace, cancellation, fork with other
# atfork handlers, signal handlers that allocate, readers that go away,
# addresses the C library hands back, deaths and exits that skip the
# usual path, and the diagnostics.  One traced program, tests/hardening/
# harden.c, does one hazard per mode; libplain.so is a library without mtrace.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/hardening" || exit 2
B=$TMP/bin
mkdir -p "$B"
$CC $CFLAGS_T -fPIC -shared plain.c -o "$B/libplain.so" -lpthread
# the default link order, and one where libplain starts before libmtrace
# (its atfork handler then registered first: it runs after mtrace's)
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" harden.c -o "$B/harden" \
    -L"$B" -Wl,-rpath,"$B" -lplain -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread 2> "$B/cc.err"
$CC $CFLAGS_T -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" harden.c -o "$B/harden2" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -L"$B" -Wl,-rpath,"$B" -lplain -lpthread
check "harden.c builds without a warning" test -x "$B/harden" -a ! -s "$B/cc.err"
# h DIR MODE [args]: runs harden in DIR (10 s at most); out, err, rc in DIR
h() { local d=$1; shift; (cd "$d" && timeout 10 "${HARDEN:-$B/harden}" "$@" > out 2> err; echo $? > rc); }
rc() { [ "$(cat "$1/rc")" = "$2" ] || { echo "     exit status $(cat "$1/rc"), expected $2"; return 1; }; }
warned() { test "$(grep -c "no trace, summary only" "$1")" = 1; }

# --- 1. The default name ./mtrace: never through a link, never a FIFO's
#        wait, never another user's file
D=$TMP/planted && mkdir -p "$D" && chmod 1777 "$D"
echo precious > "$D/victim" && ln -s victim "$D/mtrace"
h "$D"
check "planted symlink: the victim is untouched" test "$(cat "$D/victim")" = precious
check "planted symlink: the link is not replaced" test -L "$D/mtrace"
check "planted symlink: one warning, the summary" sh -c "grep -q 'a symbolic link (not followed)' '$D/err' && grep -q 'No memory leaks' '$D/err'"
rm -f "$D/mtrace" && mkfifo "$D/mtrace"
h "$D"
check "planted FIFO: no wait (exit 0 well within 10 s)" rc "$D" 0
check "planted FIFO: one warning" warned "$D/err"
rm -f "$D/mtrace" && echo theirs > "$D/mtrace" && chown 65534 "$D/mtrace"
h "$D"
check "another user's file at the default name: not written" test "$(cat "$D/mtrace")" = theirs
check "another user's file: one warning" sh -c "grep -q 'not a regular file of this user' '$D/err'"

# --- 2. gnuplot runs nothing from a trace: hostile directory, MTRACE and
#        source file names, drawn by the real gnuplot
EVIL="we ird\`touch PWNED\`\$(touch PWNED2)'\"\\%x"
mkdir -p "$TMP/$EVIL" && cp harden.c "$TMP/$EVIL/a\`touch PWNED3\`'\"\$x%.c"
(cd "$TMP/$EVIL" && $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" ./a*.c -o h -L"$B" -Wl,-rpath,"$B" -lplain \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread 2> /dev/null && MTRACE="t\`touch PWNED4\`'\$x" ./h > out 2> err)
T=$(ls -d "$TMP/$EVIL"/t*)
check "hostile names: the trace is written under the name given" test -s "$T"
if command -v gnuplot > /dev/null; then
    (cd "$TMP" && { echo 'set terminal png'; tail -n 2 "$T"; } | gnuplot > "$TMP/evil.png" 2> "$TMP/evil.gp.err")
    check "hostile names: gnuplot draws the tail, silently" test -s "$TMP/evil.png" -a ! -s "$TMP/evil.gp.err"
    check "hostile names: no command ran" test -z "$(find "$TMP" -name 'PWNED*')"
    # the printed advice, copied and pasted (gnuplot on a dumb terminal) in
    # another directory (its paths are absolute), one of this run's own: a
    # command it ran would leave its file there, not in a directory others
    # share (a mutant of the quoting once left PWNED in /, failing the
    # suites running beside it)
    grep 'To get a graph (and' "$TMP/$EVIL/err" | sed 's/.*use: //' > "$TMP/advice.sh"
    mkdir -p "$TMP/elsewhere"
    (cd "$TMP/elsewhere" && PATH=$TOP:$PATH GNUTERM=dumb sh "$TMP/advice.sh" > "$TMP/advice.out" 2>&1)
    advice_ran() { test -s "$T.gp" && grep -q 'total' "$TMP/advice.out" && test -z "$(find "$TMP" -name 'PWNED*')"; }
    check "hostile names: the printed advice runs as printed, draws, runs nothing else" advice_ran
fi
D=$TMP/names && mkdir -p "$D"
(cd "$D" && MTRACE="$(printf 'two\nlines')" "$B/harden" > out 2> err)
check "a newline in MTRACE: refused with one warning, no file" sh -c "grep -q 'has a control character' '$D/err' && test -z \"\$(ls '$D' | grep two)\""

# --- 3. Names built within bounds: too long is refused, never cut
(cd "$D" && MTRACE="$(printf '%%p%.0s' $(seq 1500))" "$B/harden" > long.out 2> long.err; echo $? > long.rc)
check "1500 %p in MTRACE: one warning, the program unchanged" \
    sh -c "grep -q 'longer than 4095 bytes' '$D/long.err' && test \"\$(cat '$D/long.out')\" = plain && test \"\$(cat '$D/long.rc')\" = 0"
(cd "$D" && MTRACE="$(printf '%%p%.0s' $(seq 60000))" "$B/harden" > long2.out 2> long2.err; echo $? > long2.rc)
check "60000 %p in MTRACE: no crash" test "$(cat "$D/long2.rc")" = 0
for n in 4064 4080 4095; do
    name=$(head -c $n /dev/zero | tr '\0' x)
    mkdir -p "$D/len$n" && (cd "$D/len$n" && MTRACE=$name "$B/harden" > out 2> err)
    created=$(ls "$D/len$n" | grep '^x' || true)
    check "a name of $n bytes (with the directory): refused, or exactly that file, never cut" \
        sh -c "test -z '$created' && grep -q 'longer than 4095' '$D/len$n/err' || test '$created' = '$name'"
done
(cd "$D" && MTRACE=/dev/stdout "$B/harden" > stdout.out 2> stdout.err)
check "MTRACE=/dev/stdout: the program's output alone" test "$(cat "$D/stdout.out")" = plain
check "MTRACE=/dev/stdout: one warning" sh -c "grep -q \"the program's own standard input, output or error\" '$D/stdout.err'"
(cd "$D" && MTRACE=/dev/stdout "$B/harden" forks > forks.out 2> forks.err)
check "MTRACE=/dev/stdout and forked children: no /dev/stdout.PID" test -z "$(ls /dev/stdout.* 2> /dev/null)"

# --- 4, 5. Cancellation and fork with another atfork handler: no hang
D=$TMP/threads && mkdir -p "$D"
h "$D" cancel
check "pthread_cancel at level 1: no deadlock (20 threads cancelled)" sh -c "grep -q 'cancel done' '$D/out'"
check "pthread_cancel: the trace replays" replays "$D/mtrace"
h "$D" atfork
check "fork with an atfork handler that allocates (registered after mtrace's)" sh -c "grep -q 'fork done' '$D/out'"
HARDEN=$B/harden2 h "$D" atfork
check "fork with an atfork handler that allocates (registered before mtrace's)" sh -c "grep -q 'fork done' '$D/out'"

# --- 6. A signal handler that allocates, every 200 us (not under ASan,
#        whose own allocator is not reentrant)
[ -z "$ASAN" ] && for threads in 0 1; do
    h "$D" sigalloc $threads
    check "allocating signal handler, $((threads + 1)) thread(s): no deadlock" sh -c "grep -q 'sigalloc done' '$D/out'"
    check "allocating signal handler, $((threads + 1)) thread(s): the trace replays (no record cut by another)" replays "$D/mtrace"
done

# --- 7. The trace's reader goes away: no SIGPIPE, one warning
rm -f "$D/fifo" && mkfifo "$D/fifo"
(head -c 100 "$D/fifo" > /dev/null &) ; sleep 0.2
(cd "$D" && MTRACE=fifo timeout 10 "$B/harden" many > out 2> err; echo $? > rc)
check "FIFO reader gone: the program ends normally (no SIGPIPE)" rc "$D" 0
check "FIFO reader gone: its output intact" sh -c "grep -q 'many done' '$D/out'"
check "FIFO reader gone: one warning" sh -c "grep -q 'its reader went away' '$D/err'"

# --- 8. posix_memalign in a library without mtrace reuses a freed address
if [ -z "$ASAN" ]; then
    h "$D" memalign
    check "address handed back by the C library's posix_memalign: no false double free" rc "$D" 0
    has "address handed back: it was the freed one" "$D/out" "reused yes"
fi

# --- 9. A fatal signal while 4 threads write: each record once
bad=0
for i in $(seq 10); do
    h "$D" term
    awk -f "$TOP/tests/tracer/replay.awk" "$D/mtrace" > /dev/null || bad=$((bad + 1))
done
check "SIGTERM during a 4-thread run, 10 times: every trace replays (no repeated record)" test $bad = 0
check "SIGTERM: the program dies of it" rc "$D" 143

# --- 10. Exits that skip the handlers, signals, forked children, SIGKILL
for how in _exit:3 _Exit:3 quick_exit:3 usr1:138; do
    h "$D" ${how%:*}
    check "${how%:*}: the status is the program's" rc "$D" ${how#*:}
    check "${how%:*}: all 1000 records written, with the tail" \
        sh -c "awk -f '$TOP/tests/tracer/replay.awk' '$D/mtrace' | grep -qx 'replay: 1000 records, total 16000'"
done
# _exit from code without mtrace, a real-time signal's default action: no
# tail, and at most the last 120 ms of records lost (100 records 10 ms apart)
for how in plain-exit:3 rtsig:$((128 + $(kill -l RTMIN))); do
    h "$D" ${how%:*}
    n=$(grep -c '^+' "$D/mtrace")
    check "${how%:*}: the status is the program's, or the signal's" rc "$D" ${how#*:}
    check "${how%:*}: no tail, the records replay ($n of 100: at most the last 120 ms lost)" \
        sh -c "! grep -q '^plot ' '$D/mtrace' && test $n -ge 88 && awk -v notail=1 -f '$TOP/tests/tracer/replay.awk' '$D/mtrace' > /dev/null"
done
hasnt "rtsig: not caught (no note of a death inside a call)" "$D/err" "note:"
D=$TMP/forks && mkdir -p "$D"
h "$D" forks
complete=0 empty=0
for f in "$D"/mtrace.*; do
    [ -s "$f" ] || empty=$((empty + 1))
    awk -f "$TOP/tests/tracer/replay.awk" "$f" > /dev/null && complete=$((complete + 1))
done
check "50 forked children that _exit: the 25 that allocate leave complete traces" test $complete = 25
check "50 forked children that _exit: the 25 that do not, no file" test $empty = 0 -a "$(ls "$D"/mtrace.* | wc -l)" = 25
D=$TMP/quiet && mkdir -p "$D"
(cd "$D" && exec "$B/harden" quiet > out 2> err) & pid=$!
for i in $(seq 50); do grep -q 'quiet now' "$D/out" 2> /dev/null && break; sleep 0.1; done
sleep 0.5; kill -9 $pid; wait $pid 2> /dev/null
n=$(grep -c '^+' "$D/mtrace")
echo "     SIGKILL after 100 records 10 ms apart and a quiet 0.5 s: $n records in the trace"
check "SIGKILL: the writer wrote every record older than 100 ms (100 of 100 after a quiet 0.5 s)" test "$n" = 100
# a record made after a quiet spell reaches the file as soon (the writer
# idling was woken only by its own clock: 340 ms after the record)
D=$TMP/spell && mkdir -p "$D"
(cd "$D" && exec "$B/harden" spell > out 2> err); rc=$?
check "SIGKILL 250 ms after a record that follows a quiet 360 ms: killed (137)" test $rc = 137
check "SIGKILL 250 ms after a record that follows a quiet 360 ms: the record is in the trace" \
    awk -v want=24 '$1 == "+" && $4 == want { n++ } END { exit n != 1 }' "$D/mtrace"
D=$TMP/quiet0 && mkdir -p "$D"
(cd "$D" && MTRACE_WRITER=0 exec "$B/harden" quiet > out 2> err) & pid=$!
for i in $(seq 50); do grep -q 'quiet now' "$D/out" 2> /dev/null && break; sleep 0.1; done
sleep 0.5; kill -9 $pid; wait $pid 2> /dev/null
n=$(grep -c '^+' "$D/mtrace")
echo "     the same with MTRACE_WRITER=0: $n records in the trace"
check "SIGKILL, MTRACE_WRITER=0: at most the last 100 ms of records lost (>= 90 of 100 written)" test "$n" -ge 90

# --- 11. Threads still running at exit: said in the report
D=$TMP/running && mkdir -p "$D"
h "$D" running
has "a thread still running at exit: a note says so" "$D/err" "*** MTRACE: note: 1 other thread was still running at exit"

# --- 14. A crash inside a traced call names it
# --- 13. free of an address on the caller's stack: said, then abort
h "$D" crash-free
has "free of a stack address: said like a double free" "$D/err" ": error: invalid free of an address on the stack (in main)"
check "free of a stack address: then abort (SIGABRT)" rc "$D" 134
if [ -z "$ASAN" ]; then
    h "$D" crash-interior
    has "free inside a heap block: named by mtrace before glibc sees it (issue 22)" "$D/err" \
        ": error: invalid free of an address 16 bytes into a 64-byte block (in main)"
    hasnt "free inside a heap block: glibc never sees it" "$D/err" "free(): invalid pointer"
    check "free inside a heap block: then abort (SIGABRT)" rc "$D" 134
fi
if [ -z "$ASAN" ]; then     # (ASan checks these frees itself)
    h "$D" crash-other-stack
    hasnt "free of an address on another thread's stack: not checked by mtrace" "$D/err" "invalid free"
    has "... glibc's check aborts, mtrace names the call" "$D/err" ": note: the program died in free() called here (in main)"
    check "... then abort (SIGABRT), another thread's stack" rc "$D" 134
    h "$D" crash-untraced-interior
    hasnt "free inside a block code without mtrace allocated: not named by mtrace" "$D/err" "invalid free"
    has "... glibc's check aborts, mtrace names the call" "$D/err" ": note: the program died in free() called here (in main)"
    check "... then abort (SIGABRT), inside an untraced block" rc "$D" 134
fi
if [ -z "$ASAN" ]; then     # ASan keeps SIGSEGV for itself
    h "$D" crash-strdup
    has "strdup(NULL): the call is named" "$D/err" ": note: the program died in strdup() called here (in main)"
fi

# --- 16. sigaction shows the program the same at every level
for level in 1 2 3; do
    $CC -O0 -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" harden.c -o "$B/sig$level" -L"$B" -Wl,-rpath,"$B" -lplain \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread && (cd "$D" && "$B/sig$level" sigdfl > sig$level.out 2> /dev/null)
done
check "sigaction: the same dispositions at levels 1, 2 and 3" \
    sh -c "cmp -s '$D/sig1.out' '$D/sig2.out' && cmp -s '$D/sig1.out' '$D/sig3.out'"

# --- 17. (issue 23) The process's edges: tests/hardening/edges.c
E=$TMP/edges && mkdir -p "$E"
# e NAME MODE: runs $B/NAME MODE in $E (20 s at most); out, err, rc in $E/NAME.*
e() { (cd "$E" && timeout 20 "$B/$1" "$2" > "$1.out" 2> "$1.err"; echo $? > "$1.rc"); }
erc() { [ "$(cat "$E/$1.rc")" = "$2" ] || { echo "     exit status $(cat "$E/$1.rc"), expected $2"; return 1; }; }
for level in 1 2 3 lib; do
    if [ $level = lib ]; then
        $CC $CFLAGS_T -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" edges.c -o "$B/edges-$level" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
    else
        $CC $CFLAGS_T -DMTRACE=$level -include "$TOP/mtrace.h" edges.c -o "$B/edges-$level"
    fi
done
# a vfork child that _exits leaves the parent's tracing as it was
for level in 1 2 3 lib; do
    MTRACE=vfork-$level.trace e edges-$level vfork
    has "vfork, level $level: the parent's leak is still reported" "$E/edges-$level.err" "edges.c:29: error: 11 bytes in 1 block leaked here (in main)"
    check "vfork, level $level: exit status 1 (the leak)" erc edges-$level 1
done
has "vfork: the parent's trace goes on after it (its malloc)" "$E/vfork-1.trace" "+ 1 0 11 11 "
check "vfork: ... and ends with its tail: it replays" replays "$E/vfork-1.trace"
# MTRACE naming a FIFO that nobody reads: no wait, one warning
mkfifo "$E/fifo"
MTRACE=fifo e edges-1 deep
check "a FIFO that nobody reads: the program waits 5 s at most (exit 1 within 20 s)" erc edges-1 1
has "a FIFO that nobody reads: one warning" "$E/edges-1.err" \
    "*** MTRACE: cannot open the trace file $E/fifo: a FIFO that nobody read within 5 s: no trace, summary only"
# a file-size limit below the trace: one warning, the trace cut at a record,
# the program's own output and exit status
(cd "$E" && ulimit -f 100 && MTRACE=big.trace timeout 20 "$B/edges-1" records > big.out 2> big.err; echo $? > big.rc)
check "ulimit -f below the trace: the program runs to its end, exit status 3 (not SIGXFSZ's 153)" \
    sh -c "[ \$(cat '$E/big.rc') = 3 ] && grep -qx \"the program's own output\" '$E/big.out'"
check "ulimit -f below the trace: one warning" test "$(grep -c 'File too large: no trace, summary only' "$E/big.err")" = 1
ends_at_record() { [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ] && replays "$1" 1; }
check "ulimit -f below the trace: the trace ends at a record and replays" ends_at_record "$E/big.trace"
# MTRACE_ADDR2LINE naming a program that never answers: 5 s, then
# module+offset and one warning
printf '#!/bin/sh\nexec sleep 1000\n' > "$E/mute" && chmod +x "$E/mute"
$CC -O0 -g -DMTRACE=2 -include "$TOP/mtrace.h" edges.c -o "$B/edges-O0"
MTRACE_DEPTH=4 MTRACE_ADDR2LINE="$E/mute" e edges-O0 deep
check "an addr2line that never answers: the program ends (exit 1 within 20 s)" erc edges-O0 1
check "an addr2line that never answers: one warning" \
    test "$(grep -c '(MTRACE_ADDR2LINE) did not answer within 5 s: frames shown as module+offset' "$E/edges-O0.err")" = 1
has "an addr2line that never answers: the caller as module+offset" "$E/edges-O0.err" "<unknown>:0: note: called from 0x"
# --- 18. (issue 36) A forked child frees what its parent had: the double
#         free it would have been in the parent, at every level, in both
#         uses, reported in the child with the parent's places; a block
#         inherited live is freed once silently.  tests/hardening/forkfree.c
# (built where it runs: the reports write paths relative to it, doc/limits.md)
F=$TMP/fork && mkdir -p "$F" && cp forkfree.c "$F/"
(cd "$F" && $CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -include "$TOP/mtrace.h" forkfree.c -o "$B/forkfree-one" -lpthread)
for level in 1 2 3; do
    (cd "$F" && $CC $CFLAGS_T -Wall -Wextra -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" forkfree.c \
        -o "$B/forkfree-$level" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread)
done
# ff BUILD KIND [N]: forkfree's report lines (error, note) and how its child ended, in $F/got
ff() {
    local bin=$1; shift
    (cd "$F" && MTRACE=ff.trace timeout 20 "$B/forkfree-$bin" "$@" > out 2> err)
    { grep -E ': (error|note): ' "$F/err"; cat "$F/out"; } > "$F/got"
}
three() {   # the double free's three lines: the bad free, then the places
    printf '%s\nforkfree.c:%s: note: the block was allocated here (in main)\nforkfree.c:%s: note: and first freed here (in %s)\n' "$@"
}
for bin in 1 2 3 one; do
    three "forkfree.c:51: error: double free of a block (in child)" 92 96 main > "$F/want"
    echo "child: signal 6" >> "$F/want"
    for n in 0 1000; do
        ff $bin before $n
        same "fork ($bin): freed in the parent, again in the child after $n allocations: the three places, abort" "$F/want" "$F/got"
    done
    three "forkfree.c:54: error: double free of a block (in child)" 93 53 child > "$F/want"
    echo "child: signal 6" >> "$F/want"
    ff $bin twice
    same "fork ($bin): a block inherited live, freed twice by the child: the second" "$F/want" "$F/got"
    three "forkfree.c:56: error: double free: realloc of a block already freed (in child)" 92 96 main > "$F/want"
    echo "child: signal 6" >> "$F/want"
    ff $bin realloc
    same "fork ($bin): realloc in the child of a block freed before the fork" "$F/want" "$F/got"
    three "forkfree.c:28: error: double free of a block (in free_again)" 92 96 main > "$F/want"
    echo "child: signal 6" >> "$F/want"
    ff $bin thread
    same "fork ($bin): the second free on the child's own thread" "$F/want" "$F/got"
    three "forkfree.c:63: error: double free of a block (in child)" 92 96 main > "$F/want"
    printf 'grandchild: signal 6\nchild: exit 0\n' >> "$F/want"
    ff $bin grandchild
    same "fork ($bin): freed by the grandparent, again by the grandchild" "$F/want" "$F/got"
    printf 'child: exit 0\n' > "$F/want"
    ff $bin legit
    same "fork ($bin): inherited blocks freed and realloc'd once, the child's own: no report, exit 0" "$F/want" "$F/got"
    printf 'forkfree.c:68: error: invalid free of an address 8 bytes into a 56-byte block (in child)\nforkfree.c:93: note: the block was allocated here (in main)\nchild: signal 6\n' > "$F/want"
    ff $bin interior
    same "fork ($bin): a free inside a block the child inherited live: named as one" "$F/want" "$F/got"
    printf "getline reused victim's address\\nchild: exit 0\\n" > "$F/want"
    ff $bin untraced
    same "fork ($bin): an inherited freed address handed out by the C library: no false report" "$F/want" "$F/got"
done
# the C library's realloc of a block the child inherited live moves it:
# the old block is forgotten, and the library's blocks later carved from
# inside its old place are freed by traced code without a word
# (tests/hardening/forkregrow.c; a stale block made them "inside" it)
cp forkregrow.c "$F/"
(cd "$F" && $CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -include "$TOP/mtrace.h" forkregrow.c -o "$B/forkregrow-one" &&
    $CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" forkregrow.c -o "$B/forkregrow-lib" \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace)
printf "moved yes, mine at its start yes, the library's inside it: some\nchild: exit 0\n" > "$F/want"
for use in one lib; do
    (cd "$F" && MTRACE=fr.trace timeout 20 "$B/forkregrow-$use" > out 2> err)
    { grep -E ': (error|note): ' "$F/err"; cat "$F/out"; } > "$F/got"
    same "fork ($use use): the C library moved an inherited block; its blocks inside the old place, freed by traced code: no report" "$F/want" "$F/got"
done
# continuing: reported, the bad call does nothing, the child's status is 1
three "forkfree.c:51: error: double free of a block (in child)" 92 96 main > "$F/want"
echo "child: exit 1" >> "$F/want"
(cd "$F" && MTRACE_DOUBLE_FREE=continue MTRACE=ff.trace "$B/forkfree-1" before 0 > out 2> err)
{ grep -E ': (error|note): ' "$F/err"; cat "$F/out"; } > "$F/got"
same "fork, MTRACE_DOUBLE_FREE=continue: reported, the child exits 1" "$F/want" "$F/got"
has "fork, continuing: the child counts it" "$F/err" "] *** MTRACE: 1 double free ignored"
# with call stacks: the first free's callers too (they were the parent's)
(cd "$F" && $CC -g -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" forkfree.c \
    -o "$B/forkfree-g" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread)
if command -v addr2line > /dev/null && [ -z "$ASAN" ]; then
    (cd "$F" && MTRACE_DEPTH=8 MTRACE=ff.trace "$B/forkfree-g" twice > out 2> err)
    grep -E ': (error|note): ' "$F/err" > "$F/got"
    cat > "$F/want" <<'X'
forkfree.c:54: error: double free of a block (in child)
forkfree.c:99: note: called from main
forkfree.c:93: note: the block was allocated here (in main)
forkfree.c:53: note: and first freed here (in child)
forkfree.c:99: note: called from main
X
    same "fork, MTRACE_DEPTH=8: each place with its callers" "$F/want" "$F/got"
fi


# --- 19. (issue 37) The tracer's own calls of the C library (the stack
#         bounds it asks at an invalid free or a silent untraced one) take
#         no freed block's address from it: the double free that follows
#         is still reported, on the main thread and on a new one, in both
#         uses, stopping and continuing.  tests/hardening/ownalloc.c
F=$TMP/own && mkdir -p "$F" && cp ownalloc.c "$F/"
(cd "$F" && $CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -include "$TOP/mtrace.h" ownalloc.c -o "$B/ownalloc-one" -lpthread)
(cd "$F" && $CC $CFLAGS_T -Wall -Wextra -DMTRACE=2 -DMTRACE_LIB -include "$TOP/mtrace.h" ownalloc.c \
    -o "$B/ownalloc-2" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread)
# own BUILD MODE KIND [thread]: the report's lines, stdout and the exit status, in $F/got
own() {
    local bin=$1 mode=$2; shift 2
    (cd "$F" && MTRACE_DOUBLE_FREE=$mode MTRACE=own.trace timeout 20 "$B/ownalloc-$bin" "$@" > out 2> err; echo "exit $?" > rc)
    { grep -E ': (error|note): ' "$F/err"; cat "$F/out" "$F/rc"; } > "$F/got"
}
for bin in one 2; do
    for where in main thread; do
        arg=; [ $where = thread ] && arg=thread
        for mode in abort continue; do
            own $bin $mode invalid $arg
            printf 'ownalloc.c:28: error: invalid free of an address that is not mapped (in run)\n' > "$F/want"
            if [ $mode = continue ]; then
                printf 'ownalloc.c:31: error: double free of a block (in run)\nownalloc.c:24: note: the block was allocated here (in run)\nownalloc.c:26: note: and first freed here (in run)\nended\nexit 1\n' >> "$F/want"
            else
                echo "exit 134" >> "$F/want"
            fi
            same "own calls ($bin, $where, $mode): an invalid free, then a double free: both reported" "$F/want" "$F/got"
        done
        own $bin abort untraced $arg
        printf 'ownalloc.c:31: error: double free of a block (in run)\nownalloc.c:24: note: the block was allocated here (in run)\nownalloc.c:26: note: and first freed here (in run)\nexit 134\n' > "$F/want"
        same "own calls ($bin, $where): an untraced block freed, then a double free: reported, stopped" "$F/want" "$F/got"
    done
done

# --- a fatal signal while another thread holds the lock for good
# (doc/design.md, "What a signal handler may run": the runtime's handler
# waits a second at most, then gives the trace up rather than write a
# record twice): tests/hardening/held.c
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" held.c -o "$B/held" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
D=$TMP/held && mkdir -p "$D"
start=$(date +%s%N)
(cd "$D" && { MTRACE=$D/trace timeout 20 "$B/held" > out 2> err; echo $? > rc; } 2> /dev/null)
took=$(( ($(date +%s%N) - start) / 1000000 ))
echo "     a fatal signal, the lock held by another thread: ended after $took ms"
check "lock held for good: the other thread is caught holding it" test "$(cat "$D/out")" = held
check "...SIGTERM: the program dies of it (143), not hung" rc "$D" 143
check "...after the second's wait (1 to 10 s): $took ms" test "$took" -ge 1000 -a "$took" -lt 10000
check "...the trace given up: no tail written" sh -c "! grep -q '^plot ' '$D/trace'"

finish
