#!/bin/bash
# SPDX-License-Identifier: MIT
# Compressed traces (issue 29, item 4): MTRACE=NAME.zst writes the trace as
# one zstd frame, through libzstd.so.1 loaded at run time (never needed to
# build; without it, one warning and a plain trace under that name).
# mtrace2massif, in every mode, and mtrace-diff read it directly, from a
# file or from standard input: they know it by zstd's magic bytes, not by
# its name.  One traced program, tests/zstd/zstd.c (N rounds of churn, then
# fork, abort or SIGKILL); tests/zstd/shim.c stands in for libzstd
# (MTRACE_ZSTD_LIB, the test hook) to stop the tracer inside the
# compressor with a fatal signal.  The zstd command checks the files.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/zstd" || exit 2
B=$TMP/bin
mkdir -p "$B"
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" zstd.c -o "$B/prog" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace 2> "$B/cc.err"
check "zstd.c builds without a warning" test -x "$B/prog" -a ! -s "$B/cc.err"
$CC -O1 -fPIC -shared shim.c -o "$B/libshim.so" -ldl
$CC -O1 -fPIC -shared -DOLD shim.c -o "$B/libold.so" -ldl
M2M=$TOP/mtrace2massif DIFF=$TOP/mtrace-diff

# run DIR [VAR=value...] -- ARGS: the program in DIR (10 s at most), its
# stdout, stderr and status in DIR/out, err, rc
run() {
    local d=$1 vars=(); shift
    mkdir -p "$d"
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    (cd "$d" && env "${vars[@]}" timeout 10 "${PROG:-$B/prog}" "$@" > out 2> err; echo $? > rc) 2> /dev/null
}
rc() { [ "$(cat "$1/rc")" = "$2" ] || { echo "     exit status $(cat "$1/rc"), expected $2"; return 1; }; }
# tool DIR CMD...: a tool's run (10 s at most: a hang fails), its status in DIR/rc
tool() { local d=$1; shift; mkdir -p "$d"; (cd "$d" && timeout 10 "$@" > out 2> err; echo $? > rc); }
magic() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 28b52ffd ]; }
# a trace's text without what two runs never share: MAXRSS (the 6th field
# of + - < >: the compressor's pages are resident too), the clock (#clock,
# #time), and in the tail the trace's own name and the resident size at start
norm() { awk '$1 ~ /^[-+<>]$/ { $6 = "RSS" } $1 == "#time" || $1 == "#clock" { next } { print }' "$1" |
         sed -e "s|'[^']*/t\(\.zst\)\{0,1\}'|'TRACE'|g" -e 's/(\$6-[0-9]*)/($6-START)/'; }
# err1 DIR LINE: DIR/err is that one line and nothing else
err1() { [ "$(wc -l < "$1/err")" = 1 ] && [ "$(cat "$1/err")" = "$2" ] || { echo "     $1/err:"; sed 's/^/     | /' "$1/err"; return 1; }; }
size() { stat -c %s "$1"; }

# --- 1. MTRACE=t.zst: one zstd frame, whose text is the plain trace
run "$TMP/plain" MTRACE=t -- 100000
run "$TMP/z" MTRACE=t.zst -- 100000
Z=$TMP/z/t.zst
check "MTRACE=t.zst: the program's output and status, no warning" \
    eval "rc '$TMP/z' 0 && test \"\$(cat '$TMP/z/out')\" = done && ! grep -q warning '$TMP/z/err'"
check "MTRACE=t.zst: the file begins with zstd's magic bytes (28 b5 2f fd)" magic "$Z"
check "zstd -t: one whole frame, ended" zstd -tq "$Z"
zstd -dcq "$Z" > "$TMP/z/t.text"
check "zstd -dc: a trace that replays (RECNO 0, 1, 2, ... and the tail)" replays "$TMP/z/t.text"
norm "$TMP/plain/t" > "$TMP/plain/t.norm"
norm "$TMP/z/t.text" > "$TMP/z/t.norm"
same "its text is the plain run's trace but for MAXRSS, and the tail's name and start RSS" "$TMP/plain/t.norm" "$TMP/z/t.norm"
check "t.zst is at least 10 times smaller than the plain trace ($(size "$Z") against $(size "$TMP/plain/t") bytes)" \
    test $(($(size "$Z") * 10)) -lt "$(size "$TMP/plain/t")"
has "the exit report's hint converts t.zst itself" "$TMP/z/err" "mtrace2massif --gnuplot=$TMP/z/t.zst.gp $TMP/z/t.zst"

# --- 2. mtrace2massif reads it directly, in every mode: the same files as
#        from its text under the same name (a/trace: the text, b/trace: the
#        .zst itself, renamed: the name says nothing)
mkdir -p "$TMP/a" "$TMP/b"
cp "$TMP/z/t.text" "$TMP/a/trace"
cp "$Z" "$TMP/b/trace"
tool "$TMP/plainm" "$M2M" "$TMP/plain/t" -o massif
tool "$TMP/zm" "$M2M" "$Z" -o massif
check "mtrace2massif t.zst: status 0, nothing on stderr" eval "rc '$TMP/zm' 0 && test ! -s '$TMP/zm/err'"
same "mtrace2massif t.zst: the Massif file of the plain run's trace" "$TMP/plainm/massif" "$TMP/zm/massif"
"$M2M" "$Z" 2> /dev/null
same "mtrace2massif t.zst: by default massif.out.t.zst beside it" "$TMP/zm/massif" "$TMP/z/massif.out.t.zst"
for d in a b; do
    (cd "$TMP/$d" && "$M2M" --gnuplot=gp --html=page.html trace -o massif 2> err &&
        "$M2M" trace -o - > stdout 2>> err && "$M2M" --summary trace -o sum.massif > summary 2>> err &&
        "$M2M" - -o stdin.massif < trace 2>> err && cat trace | "$M2M" --html=pipe.html - -o pipe.massif 2>> err
     echo $? > rc)
done
check "mtrace2massif on the .zst: every run status 0, nothing on stderr" eval "rc '$TMP/b' 0 && test ! -s '$TMP/b/err'"
same "the Massif file" "$TMP/a/massif" "$TMP/b/massif"
same "--gnuplot's script" "$TMP/a/gp" "$TMP/b/gp"
same "--html's page" "$TMP/a/page.html" "$TMP/b/page.html"
same "-o -: standard output" "$TMP/a/stdout" "$TMP/b/stdout"
same "--summary's table" "$TMP/a/summary" "$TMP/b/summary"
same "standard input from the file (- < t.zst)" "$TMP/a/stdin.massif" "$TMP/b/stdin.massif"
same "standard input from a pipe (cat t.zst | mtrace2massif -)" "$TMP/a/pipe.massif" "$TMP/b/pipe.massif"
same "standard input from a pipe, --html" "$TMP/a/pipe.html" "$TMP/b/pipe.html"

# several traces (an MPI run's ranks: t.zst, t.zst-1, its name from the
# launcher's environment), each into its own file
run "$TMP/rank" MTRACE=t.zst -- 100000
run "$TMP/rank" MTRACE=t.zst OMPI_COMM_WORLD_RANK=1 -- 100000
check "MPI rank 1: MTRACE=t.zst writes t.zst-1, compressed too" magic "$TMP/rank/t.zst-1"
(cd "$TMP/rank" && "$M2M" t.zst t.zst-1 -o 'massif.%r' > table 2> err; echo $? > rc)
check "mtrace2massif t.zst t.zst-1 -o massif.%r: status 0, nothing on stderr" eval "rc '$TMP/rank' 0 && test ! -s '$TMP/rank/err'"
same "mtrace2massif t.zst t.zst-1: rank 1's Massif file" "$TMP/plainm/massif" "$TMP/rank/massif.1"
has "mtrace2massif t.zst t.zst-1: the table names both" "$TMP/rank/table" "      1      65500"

# --- 3. mtrace-diff: two .zst, or one from a pipe, as their texts
run "$TMP/z2" MTRACE=t.zst -- 50000
cp "$TMP/z/t.text" "$TMP/a/base" && zstd -dcq "$TMP/z2/t.zst" > "$TMP/a/new"
cp "$Z" "$TMP/b/base" && cp "$TMP/z2/t.zst" "$TMP/b/new"
for d in a b; do
    (cd "$TMP/$d" && "$DIFF" --html=diff.html base new > diff 2> diff.err && cat base | "$DIFF" - new > pipe.diff 2>> diff.err
     echo $? > diff.rc)
done
check "mtrace-diff base.zst new.zst: status 0, nothing on stderr" eval "test \"\$(cat '$TMP/b/diff.rc')\" = 0 && test ! -s '$TMP/b/diff.err'"
same "mtrace-diff base.zst new.zst: the table of their texts" "$TMP/a/diff" "$TMP/b/diff"
same "mtrace-diff --html: the page of their texts" "$TMP/a/diff.html" "$TMP/b/diff.html"
same "mtrace-diff - new.zst, base.zst from a pipe" "$TMP/a/pipe.diff" "$TMP/b/pipe.diff"

# --- 4. A .zst cut inside a block or a header, or corrupt: one line
#        "PROG: FILE: what is wrong", a non-zero status, no file left, never
#        a hang (10 s at most).  (Cut between two blocks, it is the trace
#        of a killed process: see SIGKILL below.)
E=$TMP/bad && mkdir -p "$E"
head -c -1 "$Z" > "$E/cut.zst"
printf '\050\265\057\375' > "$E/magic.zst"
{ printf '\050\265\057\375'; echo "not zstd data, after zstd's magic bytes"; } > "$E/garbage.zst"
cut="truncated zstd data: the file ends inside a block or a header"
tool "$E/m1" "$M2M" "$E/cut.zst"
check "mtrace2massif cut.zst (its last byte cut off): status 1" rc "$E/m1" 1
check "mtrace2massif cut.zst: one line, truncated" err1 "$E/m1" "mtrace2massif: $E/cut.zst: $cut"
check "mtrace2massif cut.zst: no Massif file left" test ! -e "$E/massif.out.cut.zst"
tool "$E/m2" "$M2M" "$E/magic.zst"
check "mtrace2massif on the magic bytes alone: one line, truncated, status 1" \
    eval "rc '$E/m2' 1 && err1 '$E/m2' 'mtrace2massif: $E/magic.zst: $cut'"
tool "$E/m3" "$M2M" "$E/garbage.zst"
check "mtrace2massif on garbage after the magic bytes: status 1" rc "$E/m3" 1
check "mtrace2massif on garbage after the magic bytes: one line, not valid zstd data (libzstd's reason)" \
    eval "test \"\$(wc -l < '$E/m3/err')\" = 1 && grep -q '^mtrace2massif: $E/garbage.zst: not valid zstd data (.*)$' '$E/m3/err'"
(cd "$E" && cat cut.zst | timeout 10 "$M2M" - -o stdin.massif > /dev/null 2> m4.err; echo $? > m4.rc)
check "cut.zst on standard input: one line naming stdin, status 1" \
    eval "test \"\$(cat '$E/m4.rc')\" = 1 && test \"\$(cat '$E/m4.err')\" = 'mtrace2massif: stdin: $cut'"
tool "$E/d1" "$DIFF" "$E/cut.zst" "$Z"
check "mtrace-diff cut.zst t.zst: one line, truncated, status 2" \
    eval "rc '$E/d1' 2 && err1 '$E/d1' 'mtrace-diff: $E/cut.zst: $cut'"
tool "$E/d2" "$DIFF" "$Z" "$E/garbage.zst"
check "mtrace-diff t.zst garbage.zst: one line, not valid zstd data, status 2" \
    eval "rc '$E/d2' 2 && test \"\$(wc -l < '$E/d2/err')\" = 1 && grep -q '^mtrace-diff: $E/garbage.zst: not valid zstd data' '$E/d2/err'"
(cd "$E" && MTRACE_ZSTD_LIB=/nonexistent timeout 10 "$M2M" "$Z" -o nolib.massif > /dev/null 2> m5.err; echo $? > m5.rc)
check "mtrace2massif t.zst without libzstd (MTRACE_ZSTD_LIB=/nonexistent): one line, status 1" \
    eval "test \"\$(cat '$E/m5.rc')\" = 1 && test \"\$(cat '$E/m5.err')\" = 'mtrace2massif: $Z: compressed with zstd, and /nonexistent cannot be loaded (/nonexistent: cannot open shared object file: No such file or directory)'"

# --- 5. Without libzstd: one warning, the trace plain under the name asked
run "$TMP/nolib" MTRACE=t.zst MTRACE_ZSTD_LIB=/nonexistent -- 100000
check "no libzstd: one warning line, the only one" \
    eval "test \"\$(grep -c warning '$TMP/nolib/err')\" = 1 && grep -qxF '*** MTRACE: warning: MTRACE=t.zst: cannot compress with /nonexistent (/nonexistent: cannot open shared object file: No such file or directory): the trace is written uncompressed, under that name' '$TMP/nolib/err'"
check "no libzstd: the program's output and status" eval "rc '$TMP/nolib' 0 && test \"\$(cat '$TMP/nolib/out')\" = done"
check "no libzstd: t.zst is a plain trace (its first line #cmd)" eval "head -n 1 '$TMP/nolib/t.zst' | grep -q '^#cmd '"
norm "$TMP/nolib/t.zst" > "$TMP/nolib/t.norm"
same "no libzstd: the plain run's trace but for MAXRSS and the tail" "$TMP/plain/t.norm" "$TMP/nolib/t.norm"
tool "$TMP/nolibm" "$M2M" "$TMP/nolib/t.zst" -o massif
same "no libzstd: mtrace2massif reads t.zst as plain text, the plain run's Massif file" "$TMP/plainm/massif" "$TMP/nolibm/massif"
run "$TMP/old" MTRACE=t.zst MTRACE_ZSTD_LIB="$B/libold.so" -- 1000
check "a libzstd older than 1.4 (no ZSTD_compressStream2): one warning, a plain trace" \
    eval "grep -qF 'cannot compress with $B/libold.so (ZSTD_compressStream2 not found: libzstd 1.4 or later is needed)' '$TMP/old/err' && head -n 1 '$TMP/old/t.zst' | grep -q '^#cmd '"

# --- 6. Processes and deaths: every file whole, or cut at a record's end
run "$TMP/fork" MTRACE=t.zst -- 20000 fork
child=$(ls "$TMP/fork" | grep '^t\.zst\.[0-9]*$')
check "fork: the child writes its own t.zst.PID, compressed, one whole frame" \
    eval "test -n '$child' && zstd -tq '$TMP/fork/$child' && zstd -tq '$TMP/fork/t.zst'"
zstd -dcq "$TMP/fork/$child" > "$TMP/fork/child.text" 2> /dev/null
zstd -dcq "$TMP/fork/t.zst" > "$TMP/fork/parent.text" 2> /dev/null
check "fork: the child's trace replays, its 6000 records and the tail" \
    eval "replays '$TMP/fork/child.text' && grep -q '^replay: 6000 records' '$TMP/fork/child.text.replay'"
check "fork: the parent's trace replays, with its tail" replays "$TMP/fork/parent.text"
run "$TMP/abort" MTRACE=t.zst -- 20000 abort
check "abort: the status of SIGABRT (134)" rc "$TMP/abort" 134
check "abort: t.zst is one whole frame" zstd -tq "$TMP/abort/t.zst"
zstd -dcq "$TMP/abort/t.zst" > "$TMP/abort/t.text" 2> /dev/null
check "abort: its text replays, every record and the tail" \
    eval "replays '$TMP/abort/t.text' && grep -q '^replay: 39000 records' '$TMP/abort/t.text.replay'"
# SIGTERM from inside the compressor (the shim raises it), in its first
# call (no frame header out yet), a later one, and once a call returned:
# the handler writes the rest as stored blocks, and ends the frame.  The
# compressor runs in the program's thread only with MTRACE_WRITER=0 (the
# writer thread blocks every signal: a signal to the process never
# interrupts it there, and a drain waits for it to finish)
for at in 1 3 3:after; do
    d=$TMP/term${at/:/-}
    run "$d" MTRACE=t.zst MTRACE_WRITER=0 MTRACE_ZSTD_LIB="$B/libshim.so" ZSHIM_AT=${at%:*} ZSHIM_WHEN=${at#*:} -- 100000
    zstd -dcq "$d/t.zst" > "$d/t.text" 2> /dev/null
    check "SIGTERM in compression call $at: the status of SIGTERM (143), t.zst one whole frame" \
        eval "rc '$d' 143 && zstd -tq '$d/t.zst'"
    check "SIGTERM in compression call $at: its text replays, with the tail" replays "$d/t.text"
done
check "SIGTERM in the first call: nothing compressed, every byte stored (the file is larger than its text)" \
    test "$(size "$TMP/term1/t.zst")" -gt "$(size "$TMP/term1/t.text")"
run "$TMP/kill" MTRACE=t.zst -- 100000 kill
check "SIGKILL: the status of SIGKILL (137)" rc "$TMP/kill" 137
check "SIGKILL: the frame has no end (zstd -t fails)" eval "! zstd -tq '$TMP/kill/t.zst' 2> /dev/null"
tool "$TMP/killm" "$M2M" "$TMP/kill/t.zst" -o massif
check "SIGKILL: mtrace2massif t.zst reads every record written out (all those before the quiet 300 ms), as from a plain trace killed" \
    sh -c "[ \$(wc -l < '$TMP/killm/err') = 1 ] && grep -Eq '^mtrace2massif: $TMP/kill/t.zst:[0-9]+: warning: trace is truncated \\(no gnuplot tail\\); converting the 199000 complete records\$' '$TMP/killm/err'"
check "SIGKILL: status 0, as for a plain trace killed" rc "$TMP/killm" 0
tool "$TMP/killd" "$DIFF" "$TMP/kill/t.zst" "$Z"
check "SIGKILL: mtrace-diff reads it too" rc "$TMP/killd" 0
(cd "$TMP" && mkdir -p limit && cd limit && ulimit -f 64 && MTRACE=t.zst timeout 10 "$B/prog" 300000 > out 2> err; echo $? > rc)
check "a file-size limit (ulimit -f 64): the program's status, one warning" \
    eval "rc '$TMP/limit' 0 && grep -qxF '*** MTRACE: cannot write the trace file $TMP/limit/t.zst: File too large: no trace, summary only' '$TMP/limit/err'"
check "a file-size limit: t.zst is one whole frame all the same" zstd -tq "$TMP/limit/t.zst"
zstd -dcq "$TMP/limit/t.zst" > "$TMP/limit/t.text" 2> /dev/null
check "a file-size limit: its text ends at a whole record, and replays" replays "$TMP/limit/t.text" notail
mkdir -p "$TMP/fifo" && mkfifo "$TMP/fifo/t.zst"
(timeout 10 cat "$TMP/fifo/t.zst" > "$TMP/fifo/got.zst") &
run "$TMP/fifo" MTRACE=t.zst -- 100000
wait
check "MTRACE=a FIFO named t.zst: its reader gets one whole frame" zstd -tq "$TMP/fifo/got.zst"
zstd -dcq "$TMP/fifo/got.zst" > "$TMP/fifo/t.text" 2> /dev/null
check "MTRACE=a FIFO named t.zst: its text replays, with the tail" replays "$TMP/fifo/t.text"

# --- 7. The one-line use (the runtime compiled into the program) writes
#        the same .zst
$CC $CFLAGS_T -DMTRACE=1 -include "$TOP/mtrace.h" zstd.c -o "$B/oneline" 2> "$B/oneline.err"
PROG=$B/oneline run "$TMP/oneline" MTRACE=t.zst -- 100000
zstd -dcq "$TMP/oneline/t.zst" > "$TMP/oneline/t.text" 2> /dev/null
norm "$TMP/oneline/t.text" | tail -n +2 > "$TMP/oneline/t.norm"
tail -n +2 "$TMP/z/t.norm" > "$TMP/oneline/lib.norm"
check "the one-line use: builds" test -x "$B/oneline"
same "the one-line use: the same trace, compressed (but for #cmd, the program's name)" "$TMP/oneline/lib.norm" "$TMP/oneline/t.norm"
finish
