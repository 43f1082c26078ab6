#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/ms_print.sh - conformance of our ms_print with Valgrind 3.19's Perl
# /usr/bin/ms_print.
#
#  1. golden: committed Massif files (real valgrind runs + hand-written edge
#     cases) x 4 option sets, stdout byte-identical to the committed output
#     of /usr/bin/ms_print;
#  2. rejected files: non-zero exit, exactly one "ms_print: FILE:LINE: ..."
#     line on stderr, stdout identical to the original's (empty or preamble);
#  3. command line: usage/version/bad options, same text on the same stream;
#  4. non-seekable input, deep trees, fuzzer regressions;
#  5. live: fresh valgrind runs diffed against /usr/bin/ms_print now.
# tests/ms_print/regen.sh rebuilds the goldens.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/ms_print
MSP=${MS_PRINT:-$TOP/ms_print}   # MS_PRINT=path tests another build
PERL=/usr/bin/ms_print
. "$D/optsets.sh"

[ -x "$MSP" ] || { fail "ms_print not built (run make)"; finish; exit 1; }
cd "$D" || exit 2

# --- 1. golden cases -------------------------------------------------------
n_real=0 n_hand=0
for f in real/*.massif.out hand/*.massif.out; do
    name=$(basename "$f" .massif.out)
    for k in $(seq 0 $((NSETS - 1))); do
        mapfile -t args < <(optset "$k" "$f")
        "$MSP" "${args[@]}" > "$TMP/out" 2> "$TMP/err"
        rc=$?
        if [ $rc -ne 0 ]; then
            fail "golden $name.$k: exit $rc: $(head -c 200 "$TMP/err")"
            continue
        fi
        same "golden $name.$k" "expected/$name.$k.out" "$TMP/out"
        case $f in real/*) n_real=$((n_real + 1)) ;; *) n_hand=$((n_hand + 1)) ;; esac
    done
done
echo "     ($n_real real-valgrind and $n_hand hand-written golden cases)"

# --- 2. files the original rejects ------------------------------------------
# one_error NAME FILE: non-zero exit, one line "ms_print: FILE:LINE: ...",
# or "ms_print: FILE: ..." when no line is to blame (missing, empty, unreadable)
one_error() {
    local name=$1 file=$2 rc=$3
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        fail "$name: exit status $rc"
    elif [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
         ! grep -qE "^ms_print: $(printf '%s' "$file" | sed 's/[.[*^$]/\\&/g')(:[1-9][0-9]*)?: ." "$TMP/err"; then
        fail "$name: stderr is not one 'ms_print: $file[:LINE]: ...' line:"
        head -3 "$TMP/err" | sed 's/^/     /'
    else
        pass "$name"
    fi
}
for f in bad/*.massif.out; do
    name=$(basename "$f" .massif.out)
    "$MSP" "$f" > "$TMP/out" 2> "$TMP/err"
    one_error "reject $name" "$f" $?
    same "reject $name stdout" "expected/bad.$name.out" "$TMP/out"
done
"$MSP" no/such/file.out > "$TMP/out" 2> "$TMP/err"
one_error "reject missing file" no/such/file.out $?
check "reject missing file: 'ms_print: FILE: No such file or directory', no line 0" \
    test "$(cat "$TMP/err")" = "ms_print: no/such/file.out: No such file or directory"
check "reject missing file: empty stdout" test ! -s "$TMP/out"
"$MSP" . > "$TMP/out" 2> "$TMP/err"
one_error "reject a directory" . $?
check "reject a directory: empty stdout" test ! -s "$TMP/out"

# --- 3. command line -------------------------------------------------------
# Usage and version go to stderr with the original's text; compared live,
# but for who wrote it: the original's credits (Valgrind's author, GPL-2,
# his address) and version line are this project's in ours.
f=hand/doc-insig.massif.out
credits() { sed -i -e '/^  ms_print is Copyright (C) 2007-2017 Nicholas Nethercote/,$d' \
    -e '/^  This ms_print is part of mtrace /,$d' -e 's/^ms_print-3\.19\.0$/VERSION/' \
    -e "s/^ms_print (mtrace [0-9.]*, MIT licence): the output format of Valgrind's ms_print-3\.19\.0$/VERSION/" "$@"; }
"$MSP" --help 2> "$TMP/help"
has "--help: names this project and its licence" "$TMP/help" "This ms_print is part of mtrace 1.0 (MIT licence, see its LICENSE):"
hasnt "--help: sends no bug report to Valgrind's author" "$TMP/help" "njn@valgrind.org"
hasnt "--help: claims no GPL for this code" "$TMP/help" "General Public License"
"$MSP" --version 2> "$TMP/version"
has "--version: this project's, and the format's" "$TMP/version" "ms_print (mtrace 1.0, MIT licence): the output format of Valgrind's ms_print-3.19.0"
cl=0
while IFS= read -r line; do
    eval "set -- $line"
    "$PERL" "$@" > "$TMP/pout" 2> "$TMP/perr"; prc=$?
    "$MSP" "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?
    credits "$TMP/perr" "$TMP/err"
    cl=$((cl + 1))
    if [ $((prc == 0)) -ne $((rc == 0)) ]; then
        fail "args $line: exit $rc, original $prc"
    elif ! cmp -s "$TMP/pout" "$TMP/out"; then
        fail "args $line: stdout differs"; diff "$TMP/pout" "$TMP/out" | head -5
    elif [ $prc -ne 0 ] && ! cmp -s "$TMP/perr" "$TMP/err"; then
        fail "args $line: stderr differs"; diff "$TMP/perr" "$TMP/err" | head -5
    else
        pass "args $line"
    fi
done <<EOF

-h
--help
-h $f
$f --help
--version
$f --version
--version --x=3
--x=3 --version
--x=3 $f
--x=1001 $f
--x=4 --y=4 $f
--x=1000 --y=1000 $f
--x=0072 --y=007 $f
--x=00000000000000000000000000072 $f
--x=99999999999999999999999 $f
--x= $f
--x=abc $f
--x=-5 $f
--x=7.5 $f
--y=3 $f
--y=1001 $f
--threshold=101 $f
--threshold=-1 $f
--threshold=abc $f
--threshold= $f
--threshold=100 $f
--threshold=100.0001 $f
--threshold=0 $f
--threshold=.5 $f
--threshold=2.5% $f
--threshold=2.5%% $f
--threshold=1.2.3 $f
--threshold=. $f
--threshold=5. $f
--threshold=000000000000000000000000000000000000000000000000000000000000000099.9 $f
--threshold=3 --threshold=0 $f
- $f
-- $f
--X=30 $f
--x 30 $f
$f $f hand/single.massif.out
' hand/single.massif.out '
$'\thand/single.massif.out\n'
$'--x=30\n' $f
$'--version\n'
$'--threshold=5%\n' $f
EOF

# --- 4. robustness -----------------------------------------------------------
# Non-seekable input (the one case that is formatted into memory).
for name in manual-tB lambda-tB; do
    cat "real/$name.massif.out" | "$MSP" /dev/stdin > "$TMP/out" 2> "$TMP/err"
    "$PERL" "real/$name.massif.out" | sed "s|^ms_print arguments: .*|ms_print arguments: /dev/stdin|" > "$TMP/exp"
    same "pipe input $name" "$TMP/exp" "$TMP/out"
done
printf 'cmd: x\ntime_unit: B\nsnapshot=0\n' | "$MSP" /dev/stdin > "$TMP/out" 2> "$TMP/err"
one_error "pipe input: truncated" /dev/stdin $?
check "pipe input: truncated: empty stdout" test ! -s "$TMP/out"

# A 20000-deep tree and a 400 kB line: no recursion limit, no line limit.
{
    printf 'desc: (none)\ncmd: ./deep\ntime_unit: i\nsnapshot=0\ntime=0\n'
    printf 'mem_heap_B=4096\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n'
    awk 'BEGIN { for (i = 0; i < 20000; i++) printf "n1: 4096 0x%X: f%d (d.c:%d)\n", i, i, i;
                 printf "n0: 4096 "; for (i = 0; i < 40000; i++) printf "long_name_"; printf "\n" }'
} > "$TMP/deep.massif.out"
"$MSP" --threshold=0 "$TMP/deep.massif.out" > "$TMP/out" 2> "$TMP/err"
check "deep tree: exit 0" test $? -eq 0
"$PERL" --threshold=0 "$TMP/deep.massif.out" > "$TMP/pout" 2> /dev/null
same "deep tree: same as the original" "$TMP/pout" "$TMP/out"
# a heap of 1e300 bytes: Perl prints the axis label's 301 digits (found by
# the random Massif files of tests/convmodel: ours cut it at 63)
"$MSP" "$TOP/tests/ms_print/long-label.massif" > "$TMP/out" 2> /dev/null
"$PERL" "$TOP/tests/ms_print/long-label.massif" > "$TMP/pout" 2> /dev/null
same "a 301-digit axis label: printed whole, as the original prints it" "$TMP/pout" "$TMP/out"

# Streaming: memory does not grow with the file.  A 40 MB file (2000
# snapshots of a 300-node tree) must not cost 8 MB more than a tiny one.
awk 'BEGIN {
    print "desc: (none)"; print "cmd: ./big"; print "time_unit: B"
    for (s = 0; s < 2000; s++) {
        printf "snapshot=%d\ntime=%d\nmem_heap_B=300000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=detailed\n", s, s * 100
        print "n300: 300000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc."
        for (i = 0; i < 300; i++)
            printf " n0: 1000 0x%X: function_number_%d_with_a_long_name (some/source/file_%d.c:%d)\n", 4096 + i, i, i, i
    }
}' > "$TMP/big.massif.out"
cc -O2 -o "$TMP/maxrss" maxrss.c
rss() { "$TMP/maxrss" "$MSP" "$@" 2>/dev/null | awk '{ print $2 }'; }
small=$(rss hand/single.massif.out)
big=$(rss "$TMP/big.massif.out")
size=$(stat -c %s "$TMP/big.massif.out")
if [ -n "$small" ] && [ -n "$big" ] && [ $((big - small)) -lt 8192 ] && [ "$size" -gt 40000000 ]; then
    pass "streaming: peak RSS ${big} kB on $((size / 1000000)) MB (${small} kB on a tiny file)"
else
    fail "streaming: peak RSS ${big} kB on $((size / 1000000)) MB, ${small} kB on a tiny file"
fi
rm -f "$TMP/big.massif.out"

# Lines are bounded at 16 MiB (convert/common/tool.h: far above any real Massif file,
# whose long lines are names and command lines), so that a file without
# newlines cannot take all memory: `ms_print /dev/zero` grew to gigabytes.
# A 16 MiB desc: line prints as the original prints it; one byte more is
# "ms_print: FILE:1: line longer than 16777216 bytes", exit 1, no output.
longline() {   # N: a file whose first line (desc: ...) is N bytes
    { printf 'desc: '; head -c $(($1 - 6)) /dev/zero | tr '\0' a
      printf '\ncmd: x\ntime_unit: B\nsnapshot=0\ntime=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\n'
    } > "$TMP/long.massif.out"
}
longline 16777216
"$MSP" "$TMP/long.massif.out" > "$TMP/out" 2> "$TMP/err"
check "a 16 MiB line: accepted" test $? -eq 0 -a ! -s "$TMP/err"
"$PERL" "$TMP/long.massif.out" > "$TMP/pout" 2> /dev/null
same "a 16 MiB line: printed as the original prints it" "$TMP/pout" "$TMP/out"
longline 16777217
"$MSP" "$TMP/long.massif.out" > "$TMP/out" 2> "$TMP/err"; rc=$?
one_error "a line of 16 MiB + 1 byte: rejected" "$TMP/long.massif.out" $rc
check "... with exit status 1" test $rc = 1
has "... with its length" "$TMP/err" "ms_print: $TMP/long.massif.out:1: line longer than 16777216 bytes"
check "... and nothing on stdout" test ! -s "$TMP/out"
rm -f "$TMP/long.massif.out"
# /dev/zero under a 256 MB address-space limit (ASan builds reserve
# terabytes of address space: there the peak RSS is checked instead)
if (ulimit -v 262144; "$MSP" hand/single.massif.out > /dev/null 2>&1); then
    (ulimit -v 262144; timeout 60 "$MSP" /dev/zero > "$TMP/out" 2> "$TMP/err"); rc=$?
    lim="under ulimit -v 262144"
else
    kb=$("$TMP/maxrss" timeout 60 "$MSP" /dev/zero 2> "$TMP/err" | awk '{ print $2 }')
    rc=1; [ -n "$kb" ] && [ "$kb" -lt 262144 ] || rc=99
    lim="peak RSS ${kb} kB"
fi
one_error "ms_print /dev/zero: one error, $lim" /dev/zero $rc
has "... line longer than 16777216 bytes" "$TMP/err" "ms_print: /dev/zero:1: line longer than 16777216 bytes"

# Inputs found by fuzzing and by differential testing (fuzz/NAME.massif.out,
# options in NAME.args): never crash or hang; where the original finishes,
# NAME.expected is its stdout and NAME.rc says whether it failed (1) or not.
for f in fuzz/*.massif.out; do
    [ -e "$f" ] || continue
    name=${f%.massif.out}
    args=()
    [ -f "$name.args" ] && read -r -a args < "$name.args"
    timeout 20 "$MSP" "${args[@]}" "$f" > "$TMP/out" 2> "$TMP/err"; rc=$?
    if [ $rc -ge 124 ] || grep -q "Sanitizer\|runtime error" "$TMP/err"; then
        fail "fuzz case $name: exit $rc $(head -c 200 "$TMP/err")"
    elif [ ! -f "$name.expected" ]; then
        pass "fuzz case $name (no crash; the original never finishes)"
    elif [ "$(cat "$name.rc")" -ne $((rc != 0)) ]; then
        fail "fuzz case $name: exit $rc, original's failure flag $(cat "$name.rc")"
    else
        same "fuzz case $name" "$name.expected" "$TMP/out"
    fi
done

# --- differential random testing (fixed seeds, so deterministic) -----------
# difftest.py generates files, runs both programs, wants identical stdout
# and success/failure.  Longer runs: tests/ms_print/difftest.py --count N.
if command -v python3 > /dev/null; then
    for mode in "" --clean; do
        if python3 difftest.py --seed 11 --count 150 $mode --msp "$MSP" --dir "$TMP/diff" > "$TMP/dt" 2>&1; then
            pass "differential ${mode:---mixed}: $(tail -1 "$TMP/dt")"
        else
            fail "differential ${mode:---mixed}"; tail -5 "$TMP/dt" | sed 's/^/     /'
        fi
    done
else
    echo "     (python3 missing: differential random test not run)"
fi

# --- doc/ms_print.md's error contract, at its edges: "exit with status 1
# (the original's status is Perl's leftover errno)"; a missing file
# "exit status = errno, as the original"; "an error about no line in
# particular (an empty file ...) names the file alone"; "we never print
# Perl's 'Argument isn't numeric' warnings"; tool_shown: "control
# characters as %XX, cut with ..."
"$MSP" bad/bad-node.massif.out > /dev/null 2> "$TMP/err"; rc=$?
"$PERL" bad/bad-node.massif.out > /dev/null 2>&1; prc=$?
check "a rejected file: exit status 1, where the original's is Perl's errno ($prc)" test $rc = 1 -a $prc -ne 0 -a $prc -ne 1
"$MSP" no/such/file.out 2> /dev/null; rc=$?
"$PERL" no/such/file.out 2> /dev/null; prc=$?
check "a missing file: exit status 2 (ENOENT), the original's" test $rc = 2 -a $prc = 2
"$MSP" bad/empty.massif.out > /dev/null 2> "$TMP/err"
check "an empty file: the file named alone, no line number" grep -qE '^ms_print: bad/empty\.massif\.out: [^0-9]' "$TMP/err"
"$PERL" hand/non-numeric.massif.out > /dev/null 2> "$TMP/perr"
"$MSP" hand/non-numeric.massif.out > /dev/null 2> "$TMP/err"; rc=$?
check "non-numeric values: accepted, nothing on stderr, where the original warns 'isn't numeric'" \
    sh -c "test $rc = 0 && test ! -s '$TMP/err' && grep -q \"isn't numeric\" '$TMP/perr'"
has "sums above 2^64 print as Perl prints them (1.84467440737096e+19)" expected/huge-numbers.0.out "1.84467440737096e+19"
hdr='desc: x\ncmd: x\ntime_unit: B\nsnapshot=0\ntime=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=detailed\nn1: 0 top\n'
printf "$hdr"'\001\033[31m bad\n' > "$TMP/ctl.massif.out"
"$MSP" "$TMP/ctl.massif.out" > /dev/null 2> "$TMP/err"
has "an error quoting a line: its control characters as %XX" "$TMP/err" "got '%01%1B[31m bad'"
{ printf "$hdr"; head -c 1000 /dev/zero | tr '\0' y; echo; } > "$TMP/cut.massif.out"
"$MSP" "$TMP/cut.massif.out" > /dev/null 2> "$TMP/err"
check "an error quoting a 1000-byte line: one line, the text cut with '...'" \
    sh -c "test \$(wc -l < '$TMP/err') = 1 && test \$(wc -c < '$TMP/err') -lt 300 && grep -q \"y\\.\\.\\.'\$\" '$TMP/err'"

# --- 5. live: fresh valgrind runs vs the original ---------------------------
if ! command -v valgrind > /dev/null; then
    fail "live: valgrind not installed"
else
    B=$TMP/live
    mkdir -p "$B"
    gcc -g -O0 -o "$B/churn" progs/churn.c && gcc -g -O0 -o "$B/deep" progs/deep.c &&
        gcc -g -O0 -pthread -o "$B/threads" progs/threads.c
    check "live: test programs build" test -x "$B/threads"
    # the C++ program only where there is a C++ compiler
    command -v g++ > /dev/null && g++ -g -O0 -o "$B/lambda" progs/lambda.cpp
    live() { # NAME PROG MASSIF-OPTIONS...
        local name=$1 prog=$2; shift 2
        (cd "$B" && valgrind -q --tool=massif --massif-out-file="$name.out" "$@" "./$prog" > /dev/null 2>&1)
        if [ ! -s "$B/$name.out" ]; then fail "live $name: valgrind wrote nothing"; return; fi
        for o in "" "--threshold=0" "--x=37 --y=9 --threshold=2.5" "--threshold=0.2% --x=150 --y=40"; do
            # shellcheck disable=SC2086
            (cd "$B" && "$PERL" $o "$name.out" > "$name.p" 2> /dev/null)
            # shellcheck disable=SC2086
            (cd "$B" && "$MSP" $o "$name.out" > "$name.c" 2> "$name.err")
            same "live $name [$o]" "$B/$name.p" "$B/$name.c"
        done
    }
    live churn-df1 churn --time-unit=B --detailed-freq=1 --max-snapshots=150 --threshold=0
    live churn-i churn --detailed-freq=5 --max-snapshots=37 --peak-inaccuracy=0
    live deep-stacks deep --stacks=yes --depth=100 --time-unit=ms
    if [ -x "$B/lambda" ]; then
        live lambda-pages lambda --pages-as-heap=yes --threshold=0.5 --detailed-freq=2
    else
        echo "     (no g++: live C++ run replaced by a C one)"
        live churn-pages churn --pages-as-heap=yes --threshold=0.5 --detailed-freq=2
    fi
    live threads threads --time-unit=B --threshold=0 --detailed-freq=1
fi

finish
