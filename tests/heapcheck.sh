#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/heapcheck.sh - the heap check (issue 38, MTRACE_CHECK=heap): writes
# past the end, before the start and after free, found at free, at
# realloc, as a block leaves the quarantine, at exit, by
# mtrace_check_heap() and every MTRACE_CHECK_EVERY calls; reported in the
# double free's form, stopping or going on; and no report where there is
# no damage: the usable size, aligned blocks, realloc, the C library's
# blocks and calls, threads, fork, a signal handler, real workloads.
# tests/heapcheck/heap.c does one case per mode, in both uses (one line,
# libmtrace) at levels 1-3; its lines carry "L:name" markers.
. "$(dirname "$0")/lib.sh"
S=$TMP/heap
mkdir -p "$S"
cp "$TOP"/tests/heapcheck/*.c "$S/"
cd "$S" || exit 2
$CC $CFLAGS_T -fPIC -shared plain.c -o libplain.so

# build EXE LEVEL USE [flags]: heap.c traced at LEVEL, USE one or lib
build() {
    local exe=$1 level=$2 use=$3; shift 3
    if [ "$use" = one ]; then
        $CC $CFLAGS_T -Wall -Wextra "$@" -DMTRACE="$level" -include "$TOP/mtrace.h" heap.c -o "$exe" \
            -L"$S" -Wl,-rpath,"$S" -lplain -lpthread
    else
        $CC $CFLAGS_T -Wall -Wextra "$@" -DMTRACE="$level" -DMTRACE_LIB -include "$TOP/mtrace.h" heap.c -o "$exe" \
            -L"$S" -Wl,-rpath,"$S" -lplain -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
    fi 2> "$exe.cc"
}
# hc EXE MODE [VAR=VALUE...]: EXE MODE under the check (20 s at most);
# EXE.MODE.out, .err, .rc
hc() {
    local exe=$1 mode=$2; shift 2
    (env MTRACE="$S/$exe.$mode.trace" MTRACE_CHECK=heap "$@" timeout 20 "./$exe" "$mode" \
        > "$exe.$mode.out" 2> "$exe.$mode.err"; echo $? > "$exe.$mode.rc") 2> /dev/null
}
L() { grep -n "L:$1 \*/" heap.c | cut -d: -f1; }
rc() { [ "$(cat "$1.rc")" = "$2" ] || { echo "     $1: exit status $(cat "$1.rc"), expected $2"; return 1; }; }
# quiet RUN: no heap-check line at all (nor any other error of ours)
quiet() { ! grep -qE 'written|error:' "$1.err" || { grep -E 'written|error:' "$1.err" | head -5 | sed 's/^/     /'; return 1; }; }
export -f rc quiet          # (for the checks' bash -c)

if [ -n "$ASAN" ]; then         # the sanitizer's allocator is the process's: the check stays off
    build san 2 one
    hc san clean
    has "under AddressSanitizer: MTRACE_CHECK=heap says it is off" san.clean.err "MTRACE_CHECK=heap is off"
    finish
    exit
fi

for use in one lib; do
    for level in 1 2 3; do
        e=heap.$use.$level
        build $e $level $use
        check "$use use, level $level: heap.c builds without a warning" test -x $e -a ! -s $e.cc
        hc $e clean
        check "$use use, level $level: clean run (usable size, new and freed fills, calloc, realloc shrink/grow, always moved, aligned, pvalloc's whole pages, getline, asprintf, a library's blocks): no report, status 0" \
            bash -c "rc $e.clean 0 2> /dev/null; test \"\$(cat $e.clean.rc)\" = 0 && grep -q 'clean done' $e.clean.out && ! grep -qE 'written|error' $e.clean.err"
        hc $e past
        has "$use use, level $level: 1 byte past the usable size, found at the free" $e.past.err \
            "heap.c:$(L past): error: 1 byte written past the end of a 40-byte block (found at this free) (in main)"
        has "$use use, level $level: ...then where the block was allocated" $e.past.err \
            "heap.c:$(L past-alloc): note: the block was allocated here (in main)"
        check "$use use, level $level: ...and the program stops (SIGABRT)" rc $e.past 134
        hc $e before
        has "$use use, level $level: 3 bytes before the start, found at the free" $e.before.err \
            "heap.c:$(L before): error: 3 bytes written before the start of a 40-byte block (found at this free) (in main)"
        hc $e freed MTRACE_QUARANTINE=200
        has "$use use, level $level: written after free, found as it left the quarantine" $e.freed.err \
            "heap.c:$(L freed-push): error: a 40-byte block was written after it was freed, bytes 8-11 (found as it left the quarantine, at this free) (in main)"
        check "$use use, level $level: ...allocated and freed here" grep -qxF "heap.c:$(L freed-alloc): note: the block was allocated here (in main)
heap.c:$(L freed-free): note: and freed here (in main)" $e.freed.err
        hc $e realloc
        has "$use use, level $level: 2 bytes past the end, found at realloc" $e.realloc.err \
            "heap.c:$(L realloc): error: 2 bytes written past the end of a 40-byte block (found at this realloc) (in main)"
        hc $e exit-live
        has "$use use, level $level: a live block's guard, found at exit (the allocation's line, as a leak's)" $e.exit-live.err \
            "heap.c:$(L exit-alloc): error: 1 byte written past the end of a 40-byte block allocated here (found at exit) (in main)"
        check "$use use, level $level: ...the run goes on to its end, status 1" bash -c "rc $e.exit-live 1 && grep -q 'exit-live done' $e.exit-live.out"
        hc $e exit-freed
        has "$use use, level $level: a held block's fill, found at exit" $e.exit-freed.err \
            "heap.c:$(L ef-alloc): error: a 40-byte block allocated here was written after it was freed, byte 0 (found at exit) (in main)"
        has "$use use, level $level: ...and where it was freed" $e.exit-freed.err "heap.c:$(L ef-free): note: and freed here (in main)"
        hc $e check
        has "$use use, level $level: found by mtrace_check_heap(), at its line" $e.check.err \
            "heap.c:$(L check): error: 1 byte written past the end of a 40-byte block (found by mtrace_check_heap) (in main)"
        hc $e every MTRACE_CHECK_EVERY=3
        has "$use use, level $level: found by the check every 3 calls" $e.every.err \
            "heap.c:$(L every): error: 6 bytes written past the end of a 40-byte block (found by the check every 3 calls, at this free) (in main)"
        hc $e every-named MTRACE_CHECK_EVERY=3 MTRACE_DOUBLE_FREE=continue
        check "$use use, level $level: the check every 3 calls right after a report at a free names the free (not 'this call')" \
            grep -qxF "heap.c:$(L every-free): error: 1 byte written past the end of a 40-byte block (found by the check every 3 calls, at this free) (in main)" $e.every-named.err
        has "$use use, level $level: ...and at a memalign, names the memalign" $e.every-named.err \
            "heap.c:$(L every-memalign): error: 1 byte written past the end of a 64-byte block (found by the check every 3 calls, at this memalign) (in main)"
        hc $e two MTRACE_DOUBLE_FREE=continue MTRACE_REPORT="$S/$e.two.json"
        check "$use use, level $level: continuing: both blocks reported, once each" \
            test "$(grep -c 'written' $e.two.err)" = 2
        check "$use use, level $level: continuing: the run ends, status 1" bash -c "rc $e.two 1 && grep -q 'two done' $e.two.out"
        check "$use use, level $level: continuing: JSON heap_errors 2, exit_status 1" \
            test "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["heap_errors"], r["exit_status"])' "$S/$e.two.json")" = "2 1"
    done
done
e=heap.one.2
has "continuing: the summary counts them" $e.two.err "*** MTRACE: 2 damaged blocks reported (MTRACE_CHECK=heap)"
hc $e check MTRACE_DOUBLE_FREE=continue
check "found by mtrace_check_heap, continuing: the block's free does not report it again" \
    test "$(grep -c 'written' $e.check.err)" = 1
hc $e every
check "MTRACE_CHECK_EVERY unset: a damaged live block waits for its free" \
    bash -c "grep -q 'found at this free' $e.every.err && ! grep -q 'check every' $e.every.err"
hc $e freed
check "the default quarantine (256K) holds the block to the end: found at exit" \
    grep -q "written after it was freed, bytes 8-11 (found at exit)" $e.freed.err
# held bytes: 16 + n + the back guard's 16 to 23 a block; 40 -> 72, then
# 262040 -> 262072: 262144 in all, the default budget exactly; one more
# byte is 262152 (the guard 23), and the oldest leaves
hc $e push-262040
check "the default quarantine, 256K: blocks of 256K in all stay held (found at exit)" \
    grep -q "a 40-byte block allocated here was written after it was freed, bytes 8-11 (found at exit)" $e.push-262040.err
hc $e push-262041
has "the default quarantine, 256K: a byte more asked (8 more held), and the oldest leaves (found at the free that pushed it)" $e.push-262041.err \
    "heap.c:$(L push): error: a 40-byte block was written after it was freed, bytes 8-11 (found as it left the quarantine, at this free) (in main)"
# a held block's fill is read whole up to 4096 bytes, then the first word
# of every 512 and the last word (a 6000-byte block: 4096-4103, 4608-4615,
# 5120-5127, 5632-5639, 5992-5999)
for at in 4095 4103 4608 5999; do
    hc $e big-6000-$at
    has "a held 6000-byte block, byte $at written: read (whole to 4096, sampled words past it)" $e.big-6000-$at.err \
        "heap.c:$(L big): error: a 6000-byte block was written after it was freed, byte $at (found by mtrace_check_heap) (in main)"
done
for at in 4104 4607 5991; do
    hc $e big-6000-$at
    check "a held 6000-byte block, byte $at written: between the sampled words, not seen (limits.md)" \
        bash -c "quiet $e.big-6000-$at && rc $e.big-6000-$at 0"
done
hc $e big-4096-4095
has "a held 4096-byte block is read whole: its last byte written, found" $e.big-4096-4095.err \
    "heap.c:$(L big): error: a 4096-byte block was written after it was freed, byte 4095 (found by mtrace_check_heap) (in main)"
hc $e freed MTRACE_QUARANTINE=0
check "MTRACE_QUARANTINE=0: nothing held, a write after free not seen (limits.md)" bash -c "quiet $e.freed && rc $e.freed 0"
# 0: a freed block goes back at once, unfilled (0xDF is 223); held, filled
hc $e gone MTRACE_QUARANTINE=0
has "MTRACE_QUARANTINE=0: a freed block goes back to the C library at once, its fill not written" $e.gone.out \
    "byte 100 after free: 65, the same block next: 1"
hc $e gone
has "the default quarantine: the freed block held (not handed out next), filled with 0xDF" $e.gone.out \
    "byte 100 after free: 223, the same block next: 0"
hc $e past MTRACE_QUARANTINE=0
has "MTRACE_QUARANTINE=0: the guards still checked at free" $e.past.err \
    "heap.c:$(L past): error: 1 byte written past the end of a 40-byte block (found at this free)"
hc $e past MTRACE_CHECK=
check "without MTRACE_CHECK: nothing checked, nothing reported" bash -c "quiet $e.past && rc $e.past 0"
hc $e clean MTRACE_CHECK=heaps
has "MTRACE_CHECK=heaps: one warning naming the one value" $e.clean.err "MTRACE_CHECK=heaps is not heap (its only value)"

# --- aligned blocks: the pointer stays aligned (clean run), guards on both sides
for use in one lib; do
    e=heap.$use.2
    hc $e aligned-past
    has "$use use: aligned_alloc(64, 100), 1 byte past the end" $e.aligned-past.err \
        "heap.c:$(L aligned-past): error: 1 byte written past the end of a 100-byte block (found at this free) (in main)"
    hc $e aligned-before
    has "$use use: posix_memalign(4096), 2 bytes before the start" $e.aligned-before.err \
        "heap.c:$(L aligned-before): error: 2 bytes written before the start of a 100-byte block (found at this free) (in main)"
done

# --- threads, fork, a signal handler
for use in one lib; do
    e=heap.$use.2
    hc $e threads
    check "$use use: 4 threads allocating, growing and freeing: no report, status 0" \
        bash -c "quiet $e.threads && rc $e.threads 0"
    hc $e fork-clean
    check "$use use, fork: the child frees (and the parent then writes and frees) the parent's block: no report" \
        bash -c "quiet $e.fork-clean && rc $e.fork-clean 0 && grep -q 'child exit 0' $e.fork-clean.out"
    hc $e fork-bad
    has "$use use, fork: the child's write past the end is reported in the child, at its free" $e.fork-bad.err \
        "heap.c:$(L fork-free): error: 1 byte written past the end of a 100-byte block (found at this free) (in main)"
    check "$use use, fork: the child stops, the parent goes on (its copy is whole)" \
        bash -c "grep -q 'child signal 6' $e.fork-bad.out && rc $e.fork-bad 0 && test \"\$(grep -c written $e.fork-bad.err)\" = 1"
    hc $e signal MTRACE_REPORT="$S/$e.signal.json"
    check "$use use: a signal handler frees checked blocks, in and out of the tracer: no heap report, no crash" \
        bash -c "! grep -q written $e.signal.err && grep -q 'signal done' $e.signal.out"
    has "$use use: ...some of them inside the tracer (passed through, the blocks kept)" $e.signal.err \
        "calls made by signal handlers inside the tracer were not traced"
    # a damaged front guard: reported, its raw block never given back (glibc's
    # mapped bytes stay); a damaged back guard, the quarantine off: given back
    hc $e kept MTRACE_QUARANTINE=0 MTRACE_DOUBLE_FREE=continue
    check "$use use: a block whose front guard is damaged is never given back to the C library, one damaged at its end is" \
        test "$(head -1 $e.kept.out)" = "front kept back given back"
    has "$use use: ...both reported, at their frees" $e.kept.err \
        "heap.c:$(L kept-front): error: 3 bytes written before the start of a 1048576-byte block (found at this free) (in main)"
    # a write that skips over a's guards into b's front guard: not seen at
    # a's free, reported as b's (limits.md)
    hc $e skip
    has "$use use: a write past a block's guards into the next one's: reported as the next block's, at its free" $e.skip.err \
        "heap.c:$(L skip-b): error: 2 bytes written before the start of a 64-byte block (found at this free) (in main)"
    check "$use use: ...not at the first block's free: one report, then abort" \
        bash -c "test \"\$(grep -c 'error:' $e.skip.err)\" = 1 && rc $e.skip 134"
    # each free passed through leaves its 200-byte block live: as many leaked as passed
    passed=$(sed -n 's/^\*\*\* MTRACE: \([0-9]*\) calls made by signal handlers inside the tracer.*/\1/p' $e.signal.err)
    check "$use use: JSON untraced_signal_calls is the summary's count ($passed), each a free whose block stays, leaked" \
        test -n "$passed" -a "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["untraced_signal_calls"], r["leaked_blocks"], r["leaked_bytes"] // 200, r["exit_status"])' $e.signal.json)" = "$passed $passed $passed 1"
done

# --- MTRACE_DEPTH: the callers of each place
build deep 2 one -O0 -fno-omit-frame-pointer
hc deep deep MTRACE_DEPTH=4
has "MTRACE_DEPTH: the error at the free, in release()" deep.deep.err \
    "heap.c:$(L release): error: 1 byte written past the end of a 24-byte block (found at this free) (in release)"
check "MTRACE_DEPTH: ...its caller, and the allocation's, under each place" \
    test "$(grep -c "heap.c:$(L deep)" deep.deep.err)" = 2

# --- a static link: no interposition, so the check says it is off and stays off
if $CC $CFLAGS_T -static -DMTRACE=2 -include "$TOP/mtrace.h" heap.c -o static -L"$S" -lpthread \
       -Wl,--unresolved-symbols=ignore-all 2> static.cc; then
    hc static threads
    has "static link: one line, MTRACE_CHECK=heap is off" static.threads.err "*** MTRACE: MTRACE_CHECK=heap is off: "
    check "static link: ...and the program runs as without it" bash -c "rc static.threads 0 && grep -q 'threads done' static.threads.out"
else
    fail "static link: heap.c does not link -static"
    sed 's/^/     /' static.cc | head -5
fi

# --- AddressSanitizer finds the same overflow, allocated on the same line
if $CC -g -O0 -fsanitize=address heap.c plain.c -o asan -lpthread 2> asan.cc; then
    ASAN_OPTIONS=detect_leaks=0 ./asan past > asan.out 2> asan.err
    has "ASan: a heap-buffer-overflow in the same program" asan.err "ERROR: AddressSanitizer: heap-buffer-overflow"
    check "ASan and mtrace: the same block (allocated at heap.c:$(L past-alloc))" \
        bash -c "sed -n '/allocated by thread/,/^\$/p' asan.err | grep -q 'heap.c:$(L past-alloc)' && grep -q 'heap.c:$(L past-alloc): note: the block was allocated here' heap.one.1.past.err"
fi

# --- the guide's example (doc/guide.md, "The heap check"): examples/offbyone.c
# built as pkg-config builds it, its expected lines written from the guide
cp "$TOP/examples/offbyone.c" .
sed 's/strlen(t) + 1/strlen(t) + 2/' offbyone.c > fixed.c
for x in offbyone fixed; do
    $CC -g -O0 -DMTRACE=1 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include "$TOP/mtrace.h" \
        $x.c -o $x -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace 2> /dev/null
done
(MTRACE=$S/offbyone.plain.trace ./offbyone > offbyone.plain.out 2> offbyone.plain.err; echo $? > offbyone.plain.rc)
check "guide: offbyone.c without the check: it runs, mtrace sees nothing wrong, status 0" \
    bash -c "rc offbyone.plain 0 && grep -qx 'hello world!' offbyone.plain.out && ! grep -qE 'written|error:' offbyone.plain.err"
(MTRACE=$S/offbyone.trace MTRACE_CHECK=heap ./offbyone > offbyone.out 2> offbyone.err; echo $? > offbyone.rc) 2> /dev/null
check "guide: offbyone.c under the check: the write past the end at the free, the block's allocation in join, status 134" \
    bash -c "grep -qxF 'offbyone.c:20: error: 1 byte written past the end of a 12-byte block (found at this free) (in main)' offbyone.err && grep -qxF 'offbyone.c:11: note: the block was allocated here (in join)' offbyone.err && rc offbyone 134"
(MTRACE=$S/fixed.trace MTRACE_CHECK=heap ./fixed > fixed.out 2> fixed.err; echo $? > fixed.rc)
check "guide: the fix under the check: hello world!, no memory leaks, status 0" \
    bash -c "grep -qx 'hello world!' fixed.out && grep -qxF '*** MTRACE: No memory leaks' fixed.err && quiet fixed && rc fixed 0"

# --- no false report on real workloads: the benchmarks' checksums, checked and not
ok=1
for w in "churn 20000" "bigtree 20000" "realloc one 40" "strtab 20000 1" "tree 20000 1" "threads 4 20000" "json mt 4 1"; do
    set -- $w
    name=$1; shift
    $CC -O1 -g -I"$TOP/bench" "$TOP/bench/$name.c" -o "$name.plain" -lpthread -lm 2> /dev/null || { ok=0; echo "     $name: no plain build"; continue; }
    $CC -O1 -g -DMTRACE=2 -DMTRACE_LIB -include "$TOP/mtrace.h" -I"$TOP/bench" "$TOP/bench/$name.c" -o "$name.traced" \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread -lm 2> /dev/null
    "./$name.plain" "$@" > "$name.want" 2> /dev/null
    MTRACE_CHECK=heap MTRACE_QUARANTINE=64K "./$name.traced" "$@" > "$name.got" 2> "$name.err"
    if ! cmp -s "$name.want" "$name.got" || grep -qE 'written|MTRACE_CHECK' "$name.err"; then
        ok=0
        echo "     $name $*: output or report differs"
        grep -E 'written|MTRACE_CHECK' "$name.err" | head -3 | sed 's/^/     /'
    fi
done
check "benchmarks (churn, bigtree, realloc, strtab, tree, threads, json mt) under the check: the same output, no heap report" test $ok = 1
ok=1
for x in example leak pool threads dfree; do
    $CC -g -O0 -DMTRACE=2 -DMTRACE_LIB -include "$TOP/mtrace.h" "$TOP/examples/$x.c" -o "ex.$x" \
        -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread 2> /dev/null
    (MTRACE_CHECK=heap MTRACE_DOUBLE_FREE=continue "./ex.$x" > "ex.$x.out" 2> "ex.$x.err")
    grep -q written "ex.$x.err" && { ok=0; echo "     examples/$x.c: a heap report"; }
done
check "the examples (example, leak, pool, threads, dfree) under the check: no heap report" test $ok = 1
finish
