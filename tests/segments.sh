#!/bin/bash
# SPDX-License-Identifier: MIT
# A bounded trace (issue 40, MTRACE_TRACE_MAX=SIZE, runtime/segments.c):
# the trace in segments under a disk budget, each opened with a
# checkpoint of the live figures, the oldest removed.  One deterministic
# program, tests/segments/seg.c, run with a budget and without: the kept
# segments checked against the full trace by tests/segments/check.py
# (each checkpoint is the full trace's replay up to it; the records from
# the first kept checkpoint on are the full trace's; mtrace2massif's
# snapshots after it have the full trace's live bytes).
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/segments" || exit 2
B=$TMP/bin
mkdir -p "$B"
$CC $CFLAGS_T -Wall -Wextra -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" seg.c \
    -o "$B/seg" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace 2> "$B/cc.err"
check "seg.c builds without a warning" test -x "$B/seg" -a ! -s "$B/cc.err"
# run DIR NAME [args]: the program in DIR with MTRACE=DIR/NAME (and the
# caller's MTRACE_TRACE_MAX); err and rc in DIR
run() { local d=$1 n=$2; shift 2; mkdir -p "$d"; (cd "$d" && MTRACE=$d/$n timeout 60 "$B/seg" "$@" > /dev/null 2> "$n.err"; echo $? > "$n.rc"); }
# disk DIR NAME: the bytes of NAME and NAME.seg-* (each file once)
disk() { find "$1" -maxdepth 1 \( -name "$2" -o -name "$2.seg-*" \) -printf '%i %s\n' | sort -u | awk '{ s += $2 } END { print s + 0 }'; }
nsegs() { find "$1" -maxdepth 1 -name "$2.seg-*" | wc -l; }
# the trace without MAXRSS, the gnuplot tail and the clock (they differ by run)
norss() { awk '/^[-+<>] / { $6 = "" } /^(set|plot|#time|#clock) / { next } { print }' "$1"; }
M2M=$TOP/mtrace2massif

# --- Without the variable nothing changes; a budget never reached changes nothing
run "$TMP/full" trace run 20000
check "the full run: exit 0, a trace of over 1 MB, no segment" \
    sh -c "[ \$(cat '$TMP/full/trace.rc') = 0 ] && [ \$(stat -c %s '$TMP/full/trace') -gt 1000000 ] && [ $(nsegs "$TMP/full" trace) = 0 ]"
MTRACE_TRACE_MAX=1G run "$TMP/big" trace run 20000
norss "$TMP/full/trace" > "$TMP/full.norss"
norss "$TMP/big/trace" > "$TMP/big.norss"
same "MTRACE_TRACE_MAX=1G, never reached: the same trace, byte for byte (MAXRSS and clock aside), no segment" \
    "$TMP/full.norss" "$TMP/big.norss"
check "MTRACE_TRACE_MAX=1G: no NAME.seg-K, no warning" sh -c "[ $(nsegs "$TMP/big" trace) = 0 ] && ! grep -q warning '$TMP/big/trace.err'"

# --- A tiny budget: segments, the disk under it, exact from the first kept checkpoint
MTRACE_TRACE_MAX=64K run "$TMP/s" trace run 20000
check "64K: exit 0, NAME and 3 older segments kept (4 in SIZE)" \
    sh -c "[ \$(cat '$TMP/s/trace.rc') = 0 ] && [ $(nsegs "$TMP/s" trace) = 3 ] && [ -s '$TMP/s/trace' ]"
check "64K: the disk use at the end is at most 65536 bytes ($(disk "$TMP/s" trace))" test "$(disk "$TMP/s" trace)" -le 65536
check "64K: the segments kept are the newest (NAME.seg-K, K above 50: the oldest removed)" \
    sh -c "ls '$TMP/s' | grep -q 'trace.seg-[5-9][0-9]\$' && ! ls '$TMP/s' | grep -q 'trace.seg-1\$'"
"$M2M" --time-unit=i "$TMP/s/trace" -o "$TMP/s/m.out" --html="$TMP/s/m.html" 2> "$TMP/s/m2m.err"
check "64K: each checkpoint is the full trace's replay, the records from the first kept one are the full trace's, mtrace2massif's snapshots after it have its live bytes" \
    sh -c "python3 check.py '$TMP/full/trace' '$TMP/s/trace' '$TMP/s/m.out' > '$TMP/s/check'"
plain_kept=$(awk '{ print $7 }' "$TMP/s/check")
check "64K: mtrace2massif says on one line of stderr what was dropped, from which record the figures are exact" \
    sh -c "[ \$(wc -l < '$TMP/s/m2m.err') = 1 ] && grep -q '^mtrace2massif: .*/trace: segments 1-[0-9]* of the trace removed (MTRACE_TRACE_MAX): records 0 to [0-9]* dropped, exact from record [0-9]* ' '$TMP/s/m2m.err'"
has "64K: the Massif file's desc: says it too" "$TMP/s/m.out" "of the trace removed (MTRACE_TRACE_MAX)"
has "64K: the page says it too" "$TMP/s/m.html" '"dropped":"segments 1-'
# the join's memory given back: the tools under Memcheck, nothing lost
if command -v valgrind > /dev/null && [ -z "$ASAN" ]; then
    for tool in mtrace2massif mtrace-diff; do
        case $tool in
        mtrace2massif) args="$TMP/s/trace -o $TMP/s/vg.out" ;;
        *) args="$TMP/s/trace $TMP/s/trace" ;;
        esac
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
            "$TOP/$tool" $args > /dev/null 2> "$TMP/s/vg-$tool.err"
        check "64K: $tool joining the segments under Memcheck: no error, nothing lost" \
            sh -c "[ $? != 9 ] && ! grep -q '==[0-9]*==' '$TMP/s/vg-$tool.err'"
    done
fi
has "64K: the peak before the kept part is named (the calloc of 100000 B in the middle)" "$TMP/s/m2m.err" "the peak before, 110278 B"
check "64K: ms_print reads the Massif file" sh -c "'$TOP/ms_print' '$TMP/s/m.out' > /dev/null"
head -c 4 "$TMP/s/trace" > "$TMP/s/head"
has "64K: the current segment (NAME) opens with the definitions, #cmd first" "$TMP/s/head" "#cmd"
check "64K: mtrace-diff reads the kept segments as one trace" sh -c "'$TOP/mtrace-diff' '$TMP/s/trace' '$TMP/s/trace' > /dev/null"
# an old reader: one segment alone, its checkpoint applied by the parser
seg=$(ls "$TMP/s"/trace.seg-* | head -1)
check "64K: one segment alone (NAME.seg-K given as the trace) converts from its checkpoint" \
    sh -c "'$M2M' '$seg' -o '$TMP/s/one.out' 2> /dev/null && grep -q 'of the trace removed' '$TMP/s/one.out'"

# --- A second run under the same name: the first one's segments are not joined
MTRACE_TRACE_MAX=64K run "$TMP/s2" trace run 20000
run "$TMP/f2" trace run 3000
MTRACE_TRACE_MAX=64K run "$TMP/s2" trace run 3000
"$M2M" --time-unit=i "$TMP/s2/trace" -o "$TMP/s2/m.out" 2> "$TMP/s2/m2m.err"
check "a second, shorter run under the same name: the first run's NAME.seg-K (above its own numbers) stay, not joined: exact against its own full trace" \
    sh -c "ls '$TMP/s2' | grep -q 'trace.seg-6[0-9]\$' && python3 check.py '$TMP/f2/trace' '$TMP/s2/trace' '$TMP/s2/m.out' > /dev/null && grep -q 'segments 1-[0-9] of' '$TMP/s2/m2m.err'"

# --- The checkpoint outgrows a segment: the trace stops, the disk stays under SIZE
long=$(printf 'l%.0s' $(seq 1 3000))
printf '#include <stdlib.h>\nvoid *%s1(void) { return malloc(1); }\nvoid *%s2(void) { return malloc(2); }\nint main(void) { for (int i = 0; i < 20000; i++) free(i %% 2 ? %s1() : %s2()); return 0; }\n' \
    "$long" "$long" "$long" "$long" > "$TMP/long.c"
$CC $CFLAGS_T -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" "$TMP/long.c" -o "$B/long" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
mkdir -p "$TMP/lg"
(cd "$TMP/lg" && MTRACE=$TMP/lg/trace MTRACE_TRACE_MAX=16K "$B/long" > /dev/null 2> err; echo $? > rc)
check "two sites of 3000-byte names under 16K (the definitions outgrow a 4K segment): one warning, the trace stops, the program's status, under 16K ($(disk "$TMP/lg" trace))" \
    sh -c "[ \$(cat '$TMP/lg/rc') = 0 ] && grep -q '^\*\*\* MTRACE: MTRACE_TRACE_MAX: cannot begin a new segment of .*: the definitions and the checkpoint outgrow a segment (raise it): no trace, summary only' '$TMP/lg/err' && [ \$(grep -c 'outgrow' '$TMP/lg/err') = 1 ] && [ $(disk "$TMP/lg" trace) -le 16384 ]"

# --- Checkpoint records that do not hold: one line FILE:LINE, status 1
cp_head='@ 1 f a.c 1\n@ 2 g a.c 2\n#checkpoint 2 10 300 3 500 4 1000 2000\n'
# bad NAME TEXT WHAT: TEXT as a trace; mtrace2massif says WHAT at its line
bad_cp() {
    printf "$2" > "$TMP/bad.trace"
    "$M2M" "$TMP/bad.trace" -o "$TMP/bad.out" > /dev/null 2> "$TMP/bad.err"
    local rc=$?
    check "a checkpoint $1: one line, status 1 ($(head -c 100 "$TMP/bad.err"))" \
        sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/bad.err') = 1 ] && grep -q '^mtrace2massif: $TMP/bad.trace:[0-9]*: $3' '$TMP/bad.err'"
}
bad_cp "whose #live records hold less than TOTAL" "$cp_head#live 1 100 1 100\n+ 1 10 400 200 0\n" "#checkpoint: its #live records hold 100 bytes in 1 blocks, not TOTAL 300 in 3"
bad_cp "whose #live records hold more" "$cp_head#live 1 200 2 200\n#live 2 200 1 200\n" "#live record: more than the"
bad_cp "after a record" "@ 1 f a.c 1\n+ 1 0 10 10 0\n#checkpoint 2 10 300 3 500 4 1000 2000\n" "#checkpoint record after the"
bad_cp "of 2^28 + 1 blocks (a replay of hours)" '@ 1 f a.c 1\n#checkpoint 2 10 268435457 268435457 268435457 4 1000 2000\n' "#checkpoint record: more than 268435456 live blocks"
bad_cp "with a field missing" "#checkpoint 2 10 300 3 500 4 1000\n" "#checkpoint record: expected"
bad_cp "#live of a site not defined" "$cp_head#live 3 300 3 300\n" "#live record: site 3 is not defined"
bad_cp "#live outside one" "@ 1 f a.c 1\n#live 1 300 3 300\n" "#live record outside a checkpoint"
bad_cp "whose next record's RECNO is not its RECNO" "$cp_head#live 1 300 3 300\n+ 1 11 400 400 0\n" "record number 11, expected 10"
printf '@ 1 f a.c 1\n@ 2 g a.c 2\n#checkpoint 2 10 300 3 500 4 1000 2000\n#live 1 200 2 200\n#live 2 100 1 150\n- 1 10 200 100 0\n+ 2 11 250 150 0\n' > "$TMP/good.trace"
check "a checkpoint that holds: converted, its first free takes from its site's blocks (the replay goes on from its figures)" \
    sh -c "'$M2M' --time-unit=i '$TMP/good.trace' -o '$TMP/good.out' 2> /dev/null && grep -q 'mem_heap_B=250' '$TMP/good.out'"

# --- The budget's edges and its spellings
MTRACE_TRACE_MAX=1000 run "$TMP/tiny" trace run 20000
has "1000 bytes: one warning, raised to 16K (4 segments of 4 KiB)" "$TMP/tiny/trace.err" \
    "*** MTRACE: warning: MTRACE_TRACE_MAX=1000 is below 16K, the least that holds 4 segments: 16K"
check "1000 bytes: the disk use stays under 16K ($(disk "$TMP/tiny" trace)), still exact" \
    sh -c "[ $(disk "$TMP/tiny" trace) -le 16384 ] && python3 check.py '$TMP/full/trace' '$TMP/tiny/trace' > /dev/null"
MTRACE_TRACE_MAX=16384 run "$TMP/edge" trace run 20000
check "16384 bytes, the least: no warning, under it ($(disk "$TMP/edge" trace))" \
    sh -c "! grep -q warning '$TMP/edge/trace.err' && [ $(disk "$TMP/edge" trace) -le 16384 ] && [ $(nsegs "$TMP/edge" trace) -ge 1 ]"
MTRACE_TRACE_MAX=256k run "$TMP/k" trace run 20000
MTRACE_TRACE_MAX=1M run "$TMP/m" trace run 20000
check "256k and 1M: K and M (either case) are 1024 and 1024^2: the disk under each ($(disk "$TMP/k" trace), $(disk "$TMP/m" trace)), above what 64K keeps" \
    sh -c "[ $(disk "$TMP/k" trace) -le 262144 ] && [ $(disk "$TMP/k" trace) -gt 196608 ] && [ $(disk "$TMP/m" trace) -le 1048576 ] && [ $(disk "$TMP/m" trace) -gt 786432 ] && python3 check.py '$TMP/full/trace' '$TMP/m/trace' > /dev/null"
for bad in 64X -5 abc 0 1.5M 99999999999999999999999; do
    MTRACE_TRACE_MAX=$bad run "$TMP/bad" trace run 2000
    check "MTRACE_TRACE_MAX=$bad: one warning line, and the trace is not bounded (one file)" \
        sh -c "[ \$(grep -c 'MTRACE_TRACE_MAX' '$TMP/bad/trace.err') = 1 ] && grep -qF 'warning: MTRACE_TRACE_MAX=$bad is not a size (bytes, or with K, M or G): the trace is not bounded' '$TMP/bad/trace.err' && [ $(nsegs "$TMP/bad" trace) = 0 ]"
    rm -rf "$TMP/bad"
done

# --- The disk during the run: the program pauses half-way
(MTRACE_TRACE_MAX=64K run "$TMP/p" trace pause 40000 "$TMP/p/go") &
for i in $(seq 1 500); do [ "$(nsegs "$TMP/p" trace 2> /dev/null)" -ge 3 ] && break; sleep 0.02; done
sleep 0.3                   # the writer's 100 ms: what was made is on disk
during=$(disk "$TMP/p" trace)
check "pausing half-way: segments made, the disk use under 64K while the program runs ($during)" \
    sh -c "[ $(nsegs "$TMP/p" trace) -ge 3 ] && [ $during -le 65536 ]"
check "pausing half-way: mtrace2massif reads what is kept of the running program's trace" \
    sh -c "'$M2M' '$TMP/p/trace' -o '$TMP/p/m.out' 2> '$TMP/p/m.err'; grep -q 'of the trace removed' '$TMP/p/m.err'"
touch "$TMP/p/go"
wait
check "pausing half-way: the program then ends (exit 0), under 64K at its end ($(disk "$TMP/p" trace))" \
    sh -c "[ \$(cat '$TMP/p/trace.rc') = 0 ] && [ $(disk "$TMP/p" trace) -le 65536 ]"
# watched: the sum of the files, every 2 ms, never above SIZE
(MTRACE_TRACE_MAX=32K run "$TMP/wd" trace run 60000) & prog=$!
most=0
while kill -0 $prog 2> /dev/null; do
    d=$(disk "$TMP/wd" trace 2> /dev/null)
    [ "${d:-0}" -gt "$most" ] && most=$d
    sleep 0.002
done
check "32K, watched while it runs: the disk use never above 32768 bytes (most seen $most)" test "$most" -le 32768

# --- mtrace-top follows the segments as the name moves on: to the same end as the
#     full trace (records, nothing live, the peak and its record), whether it read
#     each segment (slow) or segments went by unread (paused, then at full speed:
#     it starts again at the checkpoint of the one it has)
run "$TMP/full4" trace run 40000
"$TOP/mtrace-top" -b "$TMP/full4/trace" | grep -E '^(records|live|peak) ' | sed 's/ at .*(record/ (record/' > "$TMP/full4/top"
top_follows() {     # DIR NAME: mtrace-top -b -d 0.05 on DIR/NAME while it runs, its last figures
    for i in $(seq 1 300); do [ -s "$1/$2" ] && break; sleep 0.01; done
    timeout 30 "$TOP/mtrace-top" -b -d 0.05 "$1/$2" > "$1/top.all" 2> "$1/top.err"; echo $? > "$1/top.rc"
    grep -E '^(records|live|peak) ' "$1/top.all" | tail -3 | sed 's/ at .*(record/ (record/' > "$1/top"
}
(MTRACE_TRACE_MAX=64K run "$TMP/tp" trace pause 40000 "$TMP/tp/go") &
for i in $(seq 1 500); do [ "$(nsegs "$TMP/tp" trace 2> /dev/null)" -ge 3 ] && break; sleep 0.02; done
(sleep 0.5; touch "$TMP/tp/go") &
top_follows "$TMP/tp" trace
wait
check "mtrace-top on a 64K run whose segments go by unread: ended, exit 0, the full trace's records, live bytes and peak ($(tr '\n' ' ' < "$TMP/tp/top"))" \
    sh -c "[ \$(cat '$TMP/tp/top.rc') = 0 ] && grep -q '(ended)' '$TMP/tp/top.all' && cmp -s '$TMP/full4/top' '$TMP/tp/top'"
mkdir -p "$TMP/ts"
(MTRACE_TRACE_MAX=1M run "$TMP/ts" trace slow 40000) &
top_follows "$TMP/ts" trace
wait
check "mtrace-top on a 1M run that naps: ended, exit 0, the full trace's records, live bytes and peak ($(tr '\n' ' ' < "$TMP/ts/top"))" \
    sh -c "[ \$(cat '$TMP/ts/top.rc') = 0 ] && [ $(nsegs "$TMP/ts" trace) -ge 2 ] && cmp -s '$TMP/full4/top' '$TMP/ts/top'"

# --- mtrace-top started again at a later segment's checkpoint (segments
#     went by unread): its lines are counted from that file's first, as an
#     error names them (a bad record on line 15 of the newest segment)
MTRACE_TRACE_MAX=64K run "$TMP/sw" trace run 40000
oldest=$(ls "$TMP/sw"/trace.seg-* | sort -t- -k2 -n | head -1)
awk 'NR == 15 { print "- 2 bad"; next } { print }' "$TMP/sw/trace" > "$TMP/sw/newer"
mkdir -p "$TMP/sw/run"
python3 swap.py "$TMP/sw/run" "$oldest" "$TMP/sw/newer" & swap=$!
for i in $(seq 1 100); do [ -s "$TMP/sw/run/t" ] && break; sleep 0.01; done
timeout 20 "$TOP/mtrace-top" -b -d 0.05 "$TMP/sw/run/t" > "$TMP/sw/top.out" 2> "$TMP/sw/top.err"; echo $? > "$TMP/sw/top.rc"
wait $swap
check "mtrace-top, segments gone by unread: started again at the newest's checkpoint, its bad line 15 named as line 15, exit 2" \
    sh -c "[ \$(cat '$TMP/sw/top.rc') = 2 ] && grep -qx 'mtrace-top: $TMP/sw/run/t:15: RECNO: expected a decimal number of at most 19 digits' '$TMP/sw/top.err'"

# --- Compressed segments: each a whole zstd frame
if command -v zstd > /dev/null && [ -e /usr/lib/x86_64-linux-gnu/libzstd.so.1 -o -n "$(ldconfig -p 2> /dev/null | grep libzstd.so.1)" ]; then
    MTRACE_TRACE_MAX=64K run "$TMP/z" trace.zst run 20000
    check "64K, NAME.zst: segments, under 64K ($(disk "$TMP/z" trace.zst))" \
        sh -c "[ $(nsegs "$TMP/z" trace.zst) -ge 1 ] && [ $(disk "$TMP/z" trace.zst) -le 65536 ] && ! grep -q warning '$TMP/z/trace.zst.err'"
    check "64K, NAME.zst: every segment is one whole zstd frame (zstd -t)" \
        sh -c "for f in '$TMP/z'/trace.zst*; do case \$f in *.err|*.rc) continue;; esac; zstd -tq \"\$f\" || exit 1; done"
    check "64K, NAME.zst: exact against the full trace, and more records kept than plain 64K (compressed)" \
        sh -c "python3 check.py '$TMP/full/trace' '$TMP/z/trace.zst' > '$TMP/z/check' && [ \$(awk '{ print \$7 }' '$TMP/z/check') -gt ${plain_kept:-0} ]"
    check "64K, NAME.zst: mtrace2massif joins them" sh -c "'$M2M' '$TMP/z/trace.zst' -o '$TMP/z/m.out' 2> /dev/null"
fi

# --- With call stacks: each stack's live figures in the checkpoint
MTRACE_DEPTH=4 run "$TMP/fd" trace run 20000
MTRACE_DEPTH=4 MTRACE_TRACE_MAX=64K run "$TMP/sd" trace run 20000
check "MTRACE_DEPTH=4, 64K: #live-stack records are the replay's stacks, exact against the full trace" \
    sh -c "grep -q '^#live-stack ' '$TMP/sd/trace' && python3 check.py '$TMP/fd/trace' '$TMP/sd/trace' > /dev/null"
check "MTRACE_DEPTH=4, 64K: mtrace2massif converts the joined stacks" \
    sh -c "'$M2M' --time-unit=i '$TMP/sd/trace' -o '$TMP/sd/m.out' 2> /dev/null && python3 check.py '$TMP/fd/trace' '$TMP/sd/trace' '$TMP/sd/m.out' > /dev/null"

# --- Without the writer thread: the program's thread rotates, the same figures
MTRACE_WRITER=0 MTRACE_TRACE_MAX=64K run "$TMP/w0" trace run 20000
check "MTRACE_WRITER=0, 64K: under it, exact against the full trace" \
    sh -c "[ $(disk "$TMP/w0" trace) -le 65536 ] && python3 check.py '$TMP/full/trace' '$TMP/w0/trace' > /dev/null"

# --- Threads (tests/writer/writer.c's busy: 4 threads, 300 sites): no full
#     trace to compare with, the run is not repeatable; each kept checkpoint is
#     the one before it and the records between
$CC $CFLAGS_T -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" ../writer/writer.c -o "$B/writer" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
mkdir -p "$TMP/th"
(cd "$TMP/th" && MTRACE=$TMP/th/trace MTRACE_TRACE_MAX=1M timeout 60 "$B/writer" busy 200000 4 > out 2> err; echo $? > rc)
check "4 threads, 1M: exit 0, under 1M ($(disk "$TMP/th" trace)), each kept checkpoint the one before it and the records between" \
    sh -c "[ \$(cat '$TMP/th/rc') = 0 ] && [ $(disk "$TMP/th" trace) -le 1048576 ] && python3 check.py - '$TMP/th/trace' > /dev/null"

# --- fork: the child's trace NAME.PID gets segments of its own
run "$TMP/ff" trace fork 20000
MTRACE_TRACE_MAX=64K run "$TMP/fs" trace fork 20000
fchild=$(ls "$TMP/ff"/trace.[0-9]* | grep -v '\.seg-' | grep -v '\.err$' | head -1)
schild=$(ls "$TMP/fs"/trace.[0-9]* | grep -v '\.seg-' | grep -v '\.err$' | head -1)
check "fork, 64K: the child's NAME.PID has its own NAME.PID.seg-K, both under 64K" \
    sh -c "[ -n '$schild' ] && [ $(nsegs "$TMP/fs" "$(basename "$schild")") -ge 1 ] && [ $(disk "$TMP/fs" "$(basename "$schild")") -le 65536 ] && [ $(disk "$TMP/fs" trace) -le 65536 ]"
check "fork, 64K: parent and child each exact against their full traces" \
    sh -c "python3 check.py '$TMP/ff/trace' '$TMP/fs/trace' > /dev/null && python3 check.py '$fchild' '$schild' > /dev/null"

# --- Planted links at the segments' names are not followed
mkdir -p "$TMP/l"
echo keep > "$TMP/victim"
echo keep > "$TMP/victim2"
ln -s "$TMP/victim" "$TMP/l/trace.seg-2"
ln -s "$TMP/victim2" "$TMP/l/trace.seg-new"
MTRACE_TRACE_MAX=64K run "$TMP/l" trace run 20000
check "symbolic links planted at NAME.seg-2 and NAME.seg-new: their targets untouched, the trace exact" \
    sh -c "[ \"\$(cat '$TMP/victim' '$TMP/victim2')\" = \"\$(printf 'keep\nkeep')\" ] && python3 check.py '$TMP/full/trace' '$TMP/l/trace' > /dev/null"
# a symbolic link given as the trace's name: written whole, through it (not renamed)
mkdir -p "$TMP/ln"
: > "$TMP/ln/real"
ln -s "$TMP/ln/real" "$TMP/ln/trace"
MTRACE_TRACE_MAX=64K run "$TMP/ln" trace run 2000
check "MTRACE=a symbolic link: one warning, the trace written whole through it, no segment" \
    sh -c "grep -q 'MTRACE_TRACE_MAX: the trace .* is not a regular file under that name' '$TMP/ln/trace.err' && [ -L '$TMP/ln/trace' ] && [ \$(stat -c %s '$TMP/ln/real') -gt 10000 ] && [ $(nsegs "$TMP/ln" trace) = 0 ]"

finish
