#!/bin/bash
# SPDX-License-Identifier: MIT
# The tracer's inputs and outputs at their edges (issue 23): the files that
# MTRACE_SUPPRESS and MTRACE_REPORT name are never waited on, read whole or
# refused, written with every write checked, never the program's own
# stdout; the names' % sequences; the modes' values; the reachability scan
# with threads still running.  Every refusal is one warning naming the
# variable.  One traced program, tests/inputs/inputs.c, leaks 10 bytes in
# leak_here() and prints "done".
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/inputs" || exit 2
B=$TMP/bin
mkdir -p "$B"
for level in 1 3; do
    $CC $CFLAGS_T -Wall -Wextra -DMTRACE=$level -DMTRACE_LIB -include "$TOP/mtrace.h" inputs.c -o "$B/inputs$level" \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread 2> "$B/cc$level.err"
done
check "inputs.c builds without a warning" test -x "$B/inputs1" -a -x "$B/inputs3" -a ! -s "$B/cc1.err" -a ! -s "$B/cc3.err"
# run NAME [VAR=value...] [-- ARGS]: runs inputs3 in $TMP (5 s at most: a
# hang is status 124), stdout, stderr, status in $TMP/NAME.{out,err,rc}
run() {
    local name=$1 vars=() ; shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    (cd "$TMP" && env "${vars[@]}" timeout 5 "${PROG:-$B/inputs3}" "$@" > $name.out 2> $name.err; echo $? > $name.rc) 2> /dev/null
}
rc() { [ "$(cat "$TMP/$1.rc")" = "$2" ] || { echo "     exit status $(cat "$TMP/$1.rc"), expected $2"; return 1; }; }
# once NAME PATTERN: the run's stderr has exactly one line with PATTERN
once() { [ "$(grep -cF -- "$2" "$TMP/$1.err")" = 1 ] || { echo "     in $1.err:"; sed 's/^/     | /' "$TMP/$1.err" | head -5; return 1; }; }
# quiet NAME: no warning at all, and the program's own result (done, status 1 for its leak)
quiet() { ! grep -q warning "$TMP/$1.err" && [ "$(cat "$TMP/$1.out")" = done ] && rc "$1" 1; }
leak="inputs.c:$(grep -n 'return malloc(10)' inputs.c | cut -d: -f1): error: 10 bytes in 1 block leaked here"

# --- 1. FIFOs are never waited on (they used to hang the program)
mkfifo "$TMP/fifo"
run sfifo MTRACE_SUPPRESS=fifo
check "MTRACE_SUPPRESS=a FIFO with no writer: no wait, the program's status (1)" rc sfifo 1
check "MTRACE_SUPPRESS=a FIFO: one warning naming the variable" once sfifo \
    "*** MTRACE: warning: cannot read the suppression file fifo: a FIFO or a pipe, not a regular file (it would wait for its writer): MTRACE_SUPPRESS ignored"
run rfifo MTRACE_REPORT=fifo
check "MTRACE_REPORT=a FIFO with no reader: no wait at exit, the program's status (1)" rc rfifo 1
check "MTRACE_REPORT=a FIFO with no reader: one warning naming the variable" once rfifo \
    "*** MTRACE: warning: MTRACE_REPORT: cannot write the JSON report $TMP/fifo: a FIFO that nobody reads: no JSON report"
exec 3<> "$TMP/fifo"             # a reader there (opened read-write: no wait)
run rfifo2 MTRACE_REPORT=fifo
timeout 1 cat <&3 > "$TMP/fifo.json"    # what the pipe holds (then cat waits for EOF: cut)
exec 3<&-
check "MTRACE_REPORT=a FIFO with a reader: the report goes through it, whole" \
    sh -c "python3 -m json.tool '$TMP/fifo.json' > /dev/null && grep -q '\"leaked_bytes\": 10' '$TMP/fifo.json'"
check "MTRACE_REPORT=a FIFO with a reader: no warning" quiet rfifo2

# --- 2. MTRACE_SUPPRESS: read whole, or refused with one warning
{ for i in $(seq 20000); do echo "# a comment line of sixty bytes, to pass the old 1 MiB cut"; done
  echo "fun:leak_here"; } > "$TMP/big.supp"
run bigsupp MTRACE_SUPPRESS=big.supp
check "a suppression past the first MiB of the file applies (the file is read whole)" \
    sh -c "grep -qF '*** MTRACE: 10 bytes in 1 blocks suppressed' '$TMP/bigsupp.err' && test \"\$(cat '$TMP/bigsupp.rc')\" = 0"
mkdir -p "$TMP/suppdir"
run dirsupp MTRACE_SUPPRESS=suppdir
check "MTRACE_SUPPRESS=a directory: one warning naming the variable" once dirsupp \
    "*** MTRACE: warning: cannot read the suppression file suppdir: a directory: MTRACE_SUPPRESS ignored"
has "MTRACE_SUPPRESS=a directory: the leak still reported" "$TMP/dirsupp.err" "$leak"
truncate -s 65M "$TMP/huge.supp"
run hugesupp MTRACE_SUPPRESS=huge.supp
check "MTRACE_SUPPRESS=a file over 64 MiB: refused with one warning, never cut" once hugesupp \
    "*** MTRACE: warning: cannot read the suppression file huge.supp: larger than 64 MiB (the most read): MTRACE_SUPPRESS ignored"
printf 'fun:nothing\nfun:le\0ak_here\nfun:leak_here\n' > "$TMP/nul.supp"
run nulsupp MTRACE_SUPPRESS=nul.supp
check "a NUL byte in a suppression line: that line is named" once nulsupp \
    "*** MTRACE: nul.supp:2: not a suppression (a NUL byte in the line)"
has "a NUL byte in a suppression line: the lines after it still apply" "$TMP/nulsupp.err" "*** MTRACE: 10 bytes in 1 blocks suppressed"
seq 1 6000 | sed 's/^/fun:stale_/' > "$TMP/stale.supp"
run stale MTRACE_SUPPRESS=stale.supp
check "6000 stale suppressions: 6000 whole warnings (the report's buffer used to cut them)" \
    test "$(grep -cE '^stale\.supp:[0-9]+: warning: suppression matched no leak$' "$TMP/stale.err")" = 6000
check "6000 stale suppressions: no NUL byte on stderr" test "$(tr -d '\0' < "$TMP/stale.err" | wc -c)" = "$(wc -c < "$TMP/stale.err")"
has "6000 stale suppressions: the last one named" "$TMP/stale.err" "stale.supp:6000: warning: suppression matched no leak"
run nullsupp MTRACE_SUPPRESS=/dev/null
check "MTRACE_SUPPRESS=/dev/null: empty, no warning" quiet nullsupp

# --- 3. MTRACE_REPORT: every write checked, never the program's stdio
run full MTRACE_REPORT=/dev/full
check "MTRACE_REPORT=/dev/full: one warning naming the variable" once full \
    "*** MTRACE: warning: MTRACE_REPORT: cannot write the JSON report /dev/full: not a regular file, a FIFO or /dev/null: no JSON report"
run stdout MTRACE_REPORT=/dev/stdout
check "MTRACE_REPORT=/dev/stdout: refused with one warning, as MTRACE is" once stdout \
    "MTRACE_REPORT: cannot write the JSON report /dev/stdout: the program's own standard input, output or error: no JSON report"
check "MTRACE_REPORT=/dev/stdout: the program's output alone" test "$(cat "$TMP/stdout.out")" = done
(cd "$TMP" && MTRACE_REPORT=same.json timeout 5 "$B/inputs3" > same.json 2> same.err)
check "MTRACE_REPORT=the file the program's stdout goes to: its output kept, not truncated" test "$(cat "$TMP/same.json")" = done
check "MTRACE_REPORT=the file of the program's stdout: one warning" once same "the program's own standard input, output or error"
run devnull MTRACE_REPORT=/dev/null
check "MTRACE_REPORT=/dev/null: the report discarded, no warning" quiet devnull
(cd "$TMP" && ulimit -f 1 && MTRACE_REPORT=limit.json timeout 5 "$B/inputs3" sites > limit.out 2> limit.err; echo $? > limit.rc)
check "a report over the file-size limit: the program's status (1), not SIGXFSZ's" rc limit 1
check "a report over the file-size limit: one warning, the report is incomplete" once limit \
    "*** MTRACE: warning: MTRACE_REPORT: cannot write the JSON report $TMP/limit.json: File too large: the report is incomplete"

# --- 4. % in the names of MTRACE and MTRACE_REPORT: %p, %q{VAR}, %% and nothing else
run pct MTRACE_REPORT='r%%-%q{TAG}.json' TAG=x
check "MTRACE_REPORT=r%%-%q{TAG}.json: %% is a '%' (as in Valgrind's names)" test -s "$TMP/r%-x.json"
for bad in 'r%x.json:%x is not %p, %q{VAR} or %% (%% is a '"'%'"')' 'r%q.json:%q without {VAR}' \
           'r%q{TAG.json:%q{ without its '"'}'"'' 'r%q{}.json:%q{} names no variable' \
           'r%q{NO_SUCH_VAR_23}.json:%q{NO_SUCH_VAR_23}: that variable is not set' "r%:a '%' at its end (%% is a '%')"; do
    name=${bad%%:*} why=${bad#*:}
    rm -f "$TMP"/r*
    run badname MTRACE_REPORT="$name"
    check "MTRACE_REPORT=$name: refused with one warning ($why)" once badname "*** MTRACE: warning: MTRACE_REPORT=$name: $why: no JSON report"
    check "MTRACE_REPORT=$name: no file" test -z "$(ls "$TMP" | grep '^r')"
done
PROG=$B/inputs1 run tpct MTRACE='t%%.trace'
check "MTRACE=t%%.trace: the trace is t%.trace" test -s "$TMP/t%.trace"
PROG=$B/inputs1 run tbad MTRACE='t%x.trace'
check "MTRACE=t%x.trace: no trace file, nothing kept literally" test ! -e "$TMP/t%x.trace"
check "MTRACE=t%x.trace: one warning, the summary only" once tbad "no trace, summary only"
has "MTRACE=t%x.trace: the warning says why" "$TMP/tbad.err" "%x is not %p, %q{VAR} or %%"

# --- 5. the modes' values: an unknown one is one warning naming the variable
run dfbad MTRACE_DOUBLE_FREE=contniue -- twice
check "MTRACE_DOUBLE_FREE=contniue: one warning with the value it takes" once dfbad \
    "*** MTRACE: warning: MTRACE_DOUBLE_FREE=contniue is not continue (its only value): a double or invalid free aborts"
nasan check "MTRACE_DOUBLE_FREE=contniue: a double free aborts (the default)" rc dfbad 134
run lcbad MTRACE_LEAK_CHECK=full
check "MTRACE_LEAK_CHECK=full: one warning with the value it takes" once lcbad \
    "*** MTRACE: warning: MTRACE_LEAK_CHECK=full is not reachable (its only value): every block live at exit is a leak"
has "MTRACE_LEAK_CHECK=full: every live block is a leak (the default)" "$TMP/lcbad.err" "$leak"
run modesok MTRACE_DOUBLE_FREE=continue MTRACE_LEAK_CHECK=reachable
run modesempty MTRACE_DOUBLE_FREE= MTRACE_LEAK_CHECK=
check "the modes' own values, or empty: no warning" sh -c "! grep -q warning '$TMP/modesok.err' && ! grep -q warning '$TMP/modesempty.err'"

# --- a relative name from the root directory: the JSON report's "trace" is
#     the file's absolute path (doc/report-json.md), "/" once, not "//"
(cd / && MTRACE="${TMP#/}/root.trace" MTRACE_REPORT="${TMP#/}/root.json" timeout 5 "$B/inputs1" > /dev/null 2>&1)
check "run from /, MTRACE relative: JSON trace is the absolute path, one leading /" \
    test "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trace"])' "$TMP/root.json" 2>&1)" = "$TMP/root.trace"

# --- 6. the reachability scan with threads still running at exit
run threads MTRACE_LEAK_CHECK=reachable -- threads 4
check "reachable mode, 4 threads running at exit: a note says the scan may over-count" once threads \
    "*** MTRACE: note: 4 other threads were still running at exit: what only they held counts as still reachable, and the scan of their stacks may over-count"
# ten threads in all: the count is read as the decimal it is (/proc's "Threads:")
run threads9 MTRACE_LEAK_CHECK=reachable -- threads 9
check "reachable mode, 9 threads running at exit: counted (9, a two-digit total)" once threads9 \
    "*** MTRACE: note: 9 other threads were still running at exit: what only they held counts as still reachable, and the scan of their stacks may over-count"
run thread1 MTRACE_LEAK_CHECK=reachable -- threads 1
check "reachable mode, 1 thread running at exit: the note in the singular" once thread1 \
    "*** MTRACE: note: 1 other thread was still running at exit: what only it held counts as still reachable, and the scan of its stack may over-count"
run nothreads MTRACE_LEAK_CHECK=reachable
check "reachable mode, no thread left: no note" sh -c "! grep -q 'still running' '$TMP/nothreads.err'"
finish
