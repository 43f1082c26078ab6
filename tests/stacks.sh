#!/bin/bash
# SPDX-License-Identifier: MIT
# mtrace2massif with call stacks (MTRACE_DEPTH): the records #depth, #map,
# #stack and the SID field become Massif's allocation tree at every level,
# with the frames named by addr2line.  First hand-written traces and the
# exact files they give (names from tests/stacks/fake-addr2line, so the
# labels are known), then programs traced for real and compared with live
# `valgrind --tool=massif` at every tree level.  doc/mtrace2massif.md says why.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/stacks
M2M=$TOP/mtrace2massif
FAKE=$D/fake-addr2line
export SYMBOLS=$D/symbols
[ -x "$M2M" ] || make -s -C "$TOP" mtrace2massif || exit 2
cd "$TMP" || exit 2
# the modules the hand-written traces name (relative paths: the labels
# that show a module stay the same wherever the test runs)
mkdir -p bin lib && : > bin/prog && : > lib/libc.so.6

# --- 1. A hand-written trace, and the Massif file it gives ----------------
# tests/stacks/stacks.trace: site 1 (leaf, prog.c:3) is called from mid at
# prog.c:7, itself called from two places: from top inlined into main
# (prog.c:11 inside prog.c:20: addr2line -i gives both, Massif shows both,
# one above the other) and from main directly (prog.c:21, 40 bytes: below
# the 1% threshold, so "in 1 place" at the third level); site 2 is xmalloc,
# called from my_alloc, called from main.  Every stack ends in the C
# library's __libc_start_call_main, which Massif (--show-below-main=no)
# cuts off: so do we.  --detailed-freq=1 shows every snapshot's tree.
"$M2M" --detailed-freq=1 --addr2line="$FAKE" "$D/stacks.trace" -o stacks.out 2> stacks.err
same "stacks.trace: the trees at every level" "$D/massif.out.stacks" stacks.out
check "... no warning" test ! -s stacks.err
/usr/bin/ms_print stacks.out > stacks.ms 2>&1
check "... /usr/bin/ms_print reads it" test $? -eq 0
if [ -x "$TOP/ms_print" ]; then
    "$TOP/ms_print" stacks.out > stacks.ours 2>&1
    same "... and our ms_print prints the same" stacks.ms stacks.ours
fi

# --alloc-fn=NAME: frames of NAME come off the top of the stack.  xmalloc
# is site 2's own function: its frame goes, then my_alloc's, so the 3000
# bytes are main's (prog.c:22), one level below the root.
"$M2M" --detailed-freq=1 --alloc-fn=xmalloc --alloc-fn=my_alloc --addr2line="$FAKE" \
    "$D/stacks.trace" -o af.out
sed -n '/^snapshot=3$/,/^snapshot=4$/p' af.out | grep '^ *n' > af.tree
cat > af.expected <<'EOF'
n2: 9040 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
 n1: 6040 0x1: leaf (prog.c:3)
  n2: 6040 0x401104: mid (prog.c:7)
   n1: 6000 0x401304: top (prog.c:11)
    n0: 6000 0x401304: main (prog.c:20)
   n0: 40 in 1 place, below massif's threshold (1.00%)
 n0: 3000 0x401604: main (prog.c:22)
EOF
same "--alloc-fn=xmalloc --alloc-fn=my_alloc: charged to main, through the pointer call" af.expected af.tree
has "... desc: names them" af.out "desc: --detailed-freq=1 --alloc-fn=xmalloc --alloc-fn=my_alloc"
# --depth=N: at most N levels below the root
"$M2M" --detailed-freq=1 --depth=2 --addr2line="$FAKE" "$D/stacks.trace" -o d2.out
sed -n '/^snapshot=3$/,/^snapshot=4$/p' d2.out | grep '^ *n' > d2.tree
cat > d2.expected <<'EOF'
n2: 9040 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
 n1: 6040 0x1: leaf (prog.c:3)
  n0: 6040 0x401104: mid (prog.c:7)
 n1: 3000 0x2: xmalloc (util.c:8)
  n0: 3000 0x401504: my_alloc (util.c:14)
EOF
same "--depth=2: two levels" d2.expected d2.tree

# Without names (--addr2line=none, or no addr2line on PATH): Massif's own
# label for an unknown function, "0xADDR: ??? (in MODULE)"; nothing is cut
# below main, since no frame is known to be main.
"$M2M" --detailed-freq=1 --addr2line=none "$D/stacks.trace" -o none.out 2> none.err
has "--addr2line=none: ??? (in MODULE)" none.out "  n2: 6040 0x401104: ??? (in bin/prog)"
has "... the C library's frame stays" none.out "    n0: 6000 0x7F0000001234: ??? (in lib/libc.so.6)"
check "... and no warning" test ! -s none.err
"$M2M" --detailed-freq=1 --addr2line=./no-such-addr2line "$D/stacks.trace" -o noprog.out 2> noprog.err
cmp -s none.out noprog.out
check "a missing addr2line: the same labels" test $? -eq 0
has "... and one warning" noprog.err "warning: cannot run ./no-such-addr2line (No such file or directory)"
check "... only one" test "$(wc -l < noprog.err)" = 1
# a module addr2line cannot read (gone since the run): its frames only
rm lib/libc.so.6
"$M2M" --detailed-freq=1 --addr2line="$FAKE" "$D/stacks.trace" -o gone.out 2> gone.err
has "a module gone: its frames unnamed" gone.out "n0: 3000 0x401604: main (prog.c:22)"
has "... and said once" gone.err "could not read lib/libc.so.6; its addresses are labelled ??? (in MODULE)"
: > lib/libc.so.6

# A stack that is not known (SID 0: the tracer had no room left for the
# stack) is its site alone; blocks of a site with several stacks count
# apart and together.
printf '#depth 4\n#map 0x401000 0x402000 0x400000 bin/prog\n@ 1 leaf /src/app/prog.c 3\n#stack 1 1 0x401105\n+ 1 0 100 100 1 0\n+ 1 1 300 300 1 1\n- 1 2 200 200 1 0\n- 1 3 0 0 1 1\nset x\nplot x\n' > sid0.trace
"$M2M" --detailed-freq=1 --addr2line="$FAKE" sid0.trace -o sid0.out
has "SID 0 is the site alone; stack 1 below it" <(sed -n '/^snapshot=2$/,/^snapshot=3$/p' sid0.out) \
    "  n0: 200 0x401104: mid (prog.c:7)"

# A later #map over the same range (a library unloaded, another loaded
# there) replaces the earlier one from that point on: one address, two
# stacks, each named by the module mapped when its #stack came.
printf '#depth 4\n#map 0x7f0000001000 0x7f0000002000 0x7f0000000000 lib/one.so\n@ 1 leaf /src/app/prog.c 3\n#stack 1 1 0x7f0000001105\n+ 1 0 100 100 1 1\n#map 0x7f0000001000 0x7f0000002000 0x7f0000000000 lib/two.so\n#stack 2 1 0x7f0000001105\n+ 1 1 300 300 1 2\nset x\nplot x\n' > remap.trace
"$M2M" --detailed-freq=1 --addr2line=none remap.trace -o remap.out
sed -n '/^snapshot=2$/,$p' remap.out | grep '^ *n0: [12]00 0x7F0000001104' | sort -u > remap.got
printf '%s\n' "  n0: 100 0x7F0000001104: ??? (in lib/one.so)" "  n0: 200 0x7F0000001104: ??? (in lib/two.so)" > remap.expected
same "a #map over the same range replaces the earlier one: the stack before it in lib/one.so, after it in lib/two.so" \
    remap.expected remap.got

# --- 2. Module names are data, never shell ----------------------------------
# addr2line is started with an argument vector (posix_spawnp), one
# --exe=PATH argument for the module whatever its name: spaces, quotes,
# $(...), backquotes, a leading '-'.  fake-addr2line logs what it got.
mkdir -p -- "-x \$(touch PWNED)" && : > "./-x \$(touch PWNED)/a \`b\` 'c\" d.so"
printf '#depth 4\n#map 0x401000 0x402000 0x400000 -x%%20$(touch%%20PWNED)/a%%20`b`%%20'"'"'c"%%20d.so\n@ 1 leaf /src/app/prog.c 3\n#stack 1 1 0x401105\n+ 1 0 100 100 1 1\n- 1 1 0 0 1 1\nset x\nplot x\n' > evil.trace
ARGV_LOG=argv.log "$M2M" --addr2line="$FAKE" evil.trace -o evil.out 2> evil.err
check "hostile module path: converted" test $? -eq 0 -a ! -s evil.err
has "... one argument, exactly the path" argv.log "--exe=-x \$(touch PWNED)/a \`b\` 'c\" d.so"
check "... the module's own address (ADDR - 1 - BIAS)" grep -qx 0x1104 argv.log
check "... nothing ran" test ! -e PWNED
has "... and named" evil.out "0x401104: mid (prog.c:7)"

# --- doc/mtrace2massif.md's labels, cuts and addr2line runs at their edges
# an address in no #map is "0xADDR: ???"; a stack with no main ends in
# "(below main)" (the innermost start-up function, named so)
printf '#depth 4\n#map 0x401000 0x402000 0x400000 bin/prog\n#map 0x7f0000001000 0x7f0000002000 0x7f0000000000 lib/libc.so.6\n@ 1 leaf /src/app/prog.c 3\n#stack 1 1 0x401105 0x7f0000001235\n#stack 2 1 0x501105\n+ 1 0 100 100 1 1\n+ 1 1 300 300 1 2\nset x\nplot x\n' > nomap.trace
"$M2M" --detailed-freq=1 --addr2line="$FAKE" nomap.trace -o nomap.out
has "an address in no #map: 0xADDR: ???" nomap.out "  n0: 200 0x501104: ???"
has "a stack without main: its start-up frame is (below main)" nomap.out "   n0: 100 0x7F0000001234: (below main) (libc_start_call_main.h:58)"
# a stack made only of allocation functions keeps its outermost frame
printf '#depth 4\n#map 0x401000 0x402000 0x400000 bin/prog\n@ 1 leaf /src/app/prog.c 3\n#stack 1 1 0x401105\n+ 1 0 100 100 1 1\nset x\nplot x\n' > onlyalloc.trace
"$M2M" --detailed-freq=1 --alloc-fn=leaf --alloc-fn=mid --addr2line="$FAKE" onlyalloc.trace -o onlyalloc.out
check "a stack of allocation functions only (--alloc-fn=leaf --alloc-fn=mid): its outermost frame kept, the bytes counted" \
    test "$(grep '^ *n' onlyalloc.out | tail -2 | tr -s ' ' | tr '\n' '|')" = "n1: 100 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.| n0: 100 0x401104: mid (prog.c:7)|"
# addr2line: 2048 addresses a run; standard input /dev/null; a line cut at
# 4096 bytes, the tracer's bound on names.  fa: a stand-in that logs how
# many addresses it got and what its standard input is, and names each
# address $NAME
cat > fa <<'EOT'
#!/bin/sh
n=0; for a in "$@"; do case $a in 0x*) n=$((n + 1)) ;; esac; done
echo "$n $(readlink /proc/self/fd/0)" >> "$LOG"
for a in "$@"; do
    case $a in 0x*) echo "$a"; echo "${NAME:-f}"; echo "f.c:1" ;; esac
done
EOT
chmod +x fa
# addrs N: a trace of N blocks, each with its own one-frame stack
addrs() { awk -v n="$1" 'BEGIN { print "#depth 2"; print "#map 0x400000 0x500000 0x0 bin/prog"; print "@ 1 leaf f.c 1"
    for (i = 1; i <= n; i++) { printf "#stack %d 1 0x%x\n", i, 4198400 + 16 * i; printf "+ 1 %d %d %d 1 %d\n", i - 1, i, i, i }
    print "set x"; print "plot x" }' > addrs$1.trace; }
addrs 2048
addrs 2049
LOG=a2048.log "$M2M" --addr2line=./fa addrs2048.trace -o addrs.out
LOG=a2049.log "$M2M" --addr2line=./fa addrs2049.trace -o addrs.out
check "2048 addresses a run: 2048 in one run" test "$(cut -d ' ' -f 1 a2048.log | tr '\n' ' ')" = "2048 "
check "... 2049: two runs, 2048 and 1" test "$(cut -d ' ' -f 1 a2049.log | tr '\n' ' ')" = "2048 1 "
check "addr2line's standard input is /dev/null" sh -c "! cut -d ' ' -f 2 a2049.log | grep -vqx /dev/null"
# name N: the length of the function name of a label, addr2line naming it with N bytes
name() { LOG=/dev/null NAME=$(head -c "$1" /dev/zero | tr '\0' g) "$M2M" --addr2line=./fa onlyalloc.trace -o name.out
         grep -o ' 0x401104: g* ' name.out | awk '{ print length($2); exit }'; }
check "a name of 4096 bytes from addr2line: kept whole" test "$(name 4096)" = 4096
check "a name of 5000 bytes from addr2line: cut at 4096" test "$(name 5000)" = 4096
# #depth N: 1..4096
printf '#depth 4096\n@ 1 f f.c 1\n+ 1 0 10 10 1\nset x\nplot x\n' > depth.trace
"$M2M" --addr2line=none depth.trace -o depth.out 2> depth.err
check "#depth 4096: read (exit 0)" test $? -eq 0 -a ! -s depth.err

# --- 3. Bad stack records: "mtrace2massif: FILE:LINE: what is wrong" ----------
bad() {
    local name=$1 msg=$2
    printf "$3" > bad.trace
    rm -f bad.out
    "$M2M" --addr2line=none bad.trace -o bad.out 2> bad.err
    local rc=$?
    if [ $rc -eq 1 ] && grep -qxF "mtrace2massif: bad.trace:$msg" bad.err && [ ! -e bad.out ]; then
        pass "bad input: $name"
    else
        fail "bad input: $name (exit $rc)"; sed 's/^/     /' bad.err
    fi
}
S='@ 1 f f.c 1\n'
bad "#stack before #depth" "2: #stack record before the #depth record" "$S#stack 1 1 0x10\n"
bad "#stack out of order" "3: stack 2 defined out of order (expected 1)" "#depth 4\n$S#stack 2 1 0x10\n"
bad "#stack of no site" "2: #stack record: site 1 has no '@' record before it" '#depth 4\n#stack 1 1 0x10\n'
bad "#stack deeper than #depth" "3: #stack record: more than the 2 frames of #depth" "#depth 2\n$S#stack 1 1 0x10 0x20\n"
bad "#stack address not hex" "3: #stack record: a return address is not a non-zero hex number with 0x" "#depth 4\n$S#stack 1 1 10\n"
bad "#stack address 0" "3: #stack record: a return address is not a non-zero hex number with 0x" "#depth 4\n$S#stack 1 1 0x0\n"
bad "#stack address of 17 digits" "3: #stack record: a return address is not a non-zero hex number with 0x" "#depth 4\n$S#stack 1 1 0x10000000000000000\n"
bad "#depth 0" "1: #depth record: expected '#depth N', N from 1 to 4096" '#depth 0\n'
bad "#depth 4097" "1: #depth record: expected '#depth N', N from 1 to 4096" '#depth 4097\n'
bad "#depth twice" "2: #depth record: a second one" '#depth 4\n#depth 4\n'
bad "#map LO >= HI" "1: #map record: LO is not below HI" '#map 0x20 0x10 0x0 m\n'
bad "#map without PATH" "1: #map record: expected '#map LO HI BIAS PATH' (hex numbers with 0x)" '#map 0x10 0x20 0x0\n'
bad "SID before its #stack" "2: stack 1 used before its #stack record" "$S+ 1 0 10 10 1 1\n"
bad "SID of another site" "5: stack 1 is a stack of site 1, not of site 2" "#depth 4\n$S@ 2 g f.c 2\n#stack 1 1 0x10\n+ 2 0 10 10 1 1\n"
bad "free from a stack that holds no block" "5: '-' record: site 1 with this stack has no live block" \
    "#depth 4\n$S#stack 1 1 0x10\n+ 1 0 10 10 1 0\n- 1 1 0 0 1 1\n"
bad "SID not a number" "2: SID: expected a decimal number of at most 19 digits" "$S+ 1 0 10 10 1 x\n"
bad "an eighth field" "2: SID: expected end of line after the number" "$S+ 1 0 10 10 1 0 5\n"

# --- 4. Live Massif: programs traced with MTRACE_DEPTH --------------------------
# live NAME SRC [options]: SRC built plainly for valgrind and traced with
# libmtrace and frame pointers for us; run with MTRACE_DEPTH=40 (Massif's
# default --depth=30, with room for the --alloc-fn frames); converted with
# the same options; compared through /usr/bin/ms_print after the command
# lines and code addresses (0x109156 vs 0x55d4c2b1a156 or a site's 0x3):
# every snapshot, every tree level, every percentage and label.
norm() { /usr/bin/ms_print "$1" | tail -n +6 | sed -E 's/0x[0-9A-F]+: /0xADDR: /'; }
live() {
    local name=$1 src=$2; shift 2
    $CC -g -O0 -o "$name.plain" "$src" 2> /dev/null &&
        valgrind -q --tool=massif --time-unit=B "$@" --massif-out-file="$name.v" "./$name.plain"
    $CC ${TEST_CFLAGS:-} -g -O0 -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -DMTRACE=1 -DMTRACE_LIB \
        -include "$TOP/mtrace.h" \
        -o "$name.traced" "$src" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace 2> /dev/null &&
        MTRACE_DEPTH=40 MTRACE="$name.trace" "./$name.traced" > /dev/null 2>&1
    if ! grep -q '^#depth ' "$name.trace" 2> /dev/null; then
        echo "SKIP $name: the tracer wrote no #depth record (MTRACE_DEPTH capture not there): not run"
        return 1
    fi
    "$M2M" --time-unit=B "$@" "$name.trace" -o "$name.o"
    norm "$name.v" > "$name.v.txt"; norm "$name.o" > "$name.o.txt"
}
if live ex "$TOP/examples/example.c"; then
    same "ACCEPTANCE: examples/example.c with stacks = valgrind --tool=massif --time-unit=B, every level" \
        ex.v.txt ex.o.txt
    has "... the peak's second level: g called from f at example.c:11" ex.o.txt \
        "| ->19.82% (4,000B) 0xADDR: f (example.c:11)"
fi
if live tree "$D/tree.c"; then
    same "tree.c (3 helper levels, recursion, small blocks) = live Massif, every level" tree.v.txt tree.o.txt
    has "... recursion: rec under rec under rec" tree.o.txt \
        "      | | ->60.91% (22,000B) 0xADDR: rec (tree.c:11)"
fi
if live treea "$D/tree.c" --alloc-fn=xmalloc --alloc-fn=my_alloc; then
    same "tree.c --alloc-fn=xmalloc --alloc-fn=my_alloc = live Massif" treea.v.txt treea.o.txt
fi
if live tree3 "$D/tree.c" --depth=3 --threshold=5; then
    same "tree.c --depth=3 --threshold=5 = live Massif" tree3.v.txt tree3.o.txt
fi
if live tree0 "$D/tree.c" --threshold=0; then
    same "tree.c --threshold=0 (every node, 0-byte ones too) = live Massif" tree0.v.txt tree0.o.txt
fi

finish
