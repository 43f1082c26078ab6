#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/sanitizers.sh - mtrace beside AddressSanitizer, UndefinedBehaviorSanitizer,
# LeakSanitizer and Valgrind's Memcheck (doc/platforms.md).  Traced programs
# built with -fsanitize=address,undefined, in the one-line use and with
# libmtrace, by gcc and clang, start and report with no ASAN_OPTIONS at
# all; LeakSanitizer's leaks are mtrace's (examples/leak.c, example.c);
# Memcheck finds a traced program's leaks "definitely lost", the bytes of
# mtrace's leak lines.
. "$(dirname "$0")/lib.sh"
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS     # nothing set: the point of the suite
S=$TMP/san
mkdir -p "$S"
cp "$TOP"/examples/{leak,example}.c "$TOP"/tests/sanitizers/*.c "$S/"
cd "$S" || exit 2
# -O0: the examples drop malloc's result, which -O1 removes with the call
SAN="-g -O0 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"

# build NAME CC USE [flags]: NAME.c traced at level 1 -> NAME.CC.USE, USE one
# (the runtime compiled in, with the sanitizers) or lib (libmtrace, built
# plainly by the Makefile, in a sanitized program)
build() {
    local name=$1 cc=$2 use=$3; shift 3
    if [ "$use" = one ]; then
        $cc "$@" -DMTRACE=1 -include "$TOP/mtrace.h" "$name.c" -o "$name.$cc.$use"
    else
        $cc "$@" -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" "$name.c" -o "$name.$cc.$use" \
            -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
    fi 2> "$name.$cc.$use.cc"
}
# run EXE [VAR=VALUE...]: EXE with its trace, in that environment
run() {
    local exe=$1; shift
    env MTRACE=$exe.trace "$@" "./$exe" > "$exe.out" 2> "$exe.err"
    echo $? > "$exe.rc"
}
# mtrace's leak lines as "FILE:LINE BYTES", one per site, sorted
mtrace_leaks() {
    sed -nE 's/^([^ :]+:[0-9]+): error: ([0-9]+) bytes( in [0-9]+ blocks?)? leaked here.*/\1 \2/p' "$1" | sort
}
# LeakSanitizer's leaks the same way: each record's bytes charged to its
# first frame in the program's file, records of one line added up (mtrace
# merges a site's blocks, LSan keeps each distinct stack apart).  A record
# is its frame lines ("    #N ..."): one with no frame in the program's
# file is not the program's (ASan's own start of a thread, the writer's:
# 32 bytes that pthread_getattr_np reallocates), and what follows it (the
# SUMMARY, mtrace's own table, "main example.c:20") is no frame of it: it
# was charged so once in a loaded run, a failure of the suite's own
lsan_leaks() {
    awk -v file="$2" '
        /^(Direct|Indirect) leak of/ { bytes = $4; want = 1; next }
        !/^    #[0-9]/ { want = 0 }
        want && match($0, "[ /]" file ":[0-9]+") { sum[substr($0, RSTART + 1, RLENGTH - 1)] += bytes; want = 0 }
        END { for (k in sum) print k, sum[k] }' "$1" | sort
}

# (the record that was charged so, as LSan printed it, and the lines after it)
cat > lsan.sample <<'EOT'
Indirect leak of 32 byte(s) in 1 object(s) allocated from:
    #0 0x7fcd53cb78d5 in __interceptor_realloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:85
    #1 0x7fcd532a51e0 in __GI___pthread_attr_setaffinity_np nptl/pthread_attr_setaffinity.c:51
    #8 0x7fcd532a71f4 in start_thread nptl/pthread_create.c:442

SUMMARY: AddressSanitizer: 10184 byte(s) leaked in 5 allocation(s).
     10000        10                    main   example.c:20
EOT
check "LeakSanitizer's records read frame by frame: one without a frame in example.c charges nothing" \
    test -z "$(lsan_leaks lsan.sample example.c)"
CCS="gcc"
command -v clang > /dev/null && CCS="gcc clang" || fail "clang is not installed (apt-get install clang)"
for cc in $CCS; do
    for use in one $([ -z "$ASAN" ] || [ $cc = gcc ] && echo lib); do    # (nasan: clang and gcc's ASan lib)
        for name in leak example clean; do
            [ $name = clean ] && [ $use = one ] && continue     # (a one-line build is slow)
            build $name $cc $use $SAN
            # libmtrace is built without frame pointers: ASan's fast unwinder
            # would skip the caller of strdup in LSan's stacks (mtrace's sites
            # are right either way); the clean program runs with nothing set.
            # LSan scans no stack and no register here: a dropped malloc
            # result left in a dead stack slot (where the tracer's timed flush
            # did or did not write, by the machine's load) would otherwise
            # keep a lost block "reachable" one run in ten
            if [ $use = lib ] && [ $name != clean ]; then
                run $name.$cc.$use ASAN_OPTIONS=fast_unwind_on_malloc=0 LSAN_OPTIONS=use_stacks=0:use_registers=0
            elif [ $name != clean ]; then
                run $name.$cc.$use LSAN_OPTIONS=use_stacks=0:use_registers=0
            else
                run $name.$cc.$use
            fi
        done
        e=leak.$cc.$use
        hasnt "$cc, ASan+UBSan, $use use: starts, no options set" $e.err "requested allocation size"
        has "$cc, ASan+UBSan, $use use: mtrace's leak lines" $e.err "leak.c:25: error: 100 bytes"
        has "$cc, ASan+UBSan, $use use: LeakSanitizer's report" $e.err "ERROR: LeakSanitizer: detected memory leaks"
        hasnt "$cc, ASan+UBSan, $use use: no undefined behaviour" $e.err "runtime error:"
        check "$cc, ASan+UBSan, $use use: leaks make the status 1" test "$(cat $e.rc)" = 1
        for name in leak example; do
            mtrace_leaks $name.$cc.$use.err > $name.$cc.$use.mtrace
            lsan_leaks $name.$cc.$use.err $name.c > $name.$cc.$use.lsan
            check "$cc, $use use: mtrace and LeakSanitizer find the same leaks in $name.c" \
                test -s $name.$cc.$use.mtrace
            same "$cc, $use use: LeakSanitizer's leaks in $name.c are mtrace's" $name.$cc.$use.mtrace $name.$cc.$use.lsan
        done
        e=clean.$cc.lib
        [ $use = lib ] || continue
        hasnt "$cc, ASan+UBSan, lib use: starts with no option set" $e.err "requested allocation size"
        has "$cc, ASan+UBSan, $use use: a clean program has no leak" $e.err "*** MTRACE: No memory leaks"
        hasnt "$cc, ASan+UBSan, $use use: nor for LeakSanitizer" $e.err "LeakSanitizer"
        check "$cc, ASan+UBSan, $use use: a clean program's status stays 0" test "$(cat $e.rc)" = 0
    done
done

# --- UndefinedBehaviorSanitizer alone: mtrace's double-free and invalid-free
# reports (its checks stay on without ASan) run no undefined code (the
# library use only with libmtrace built plainly: not under test-sanitize)
for use in one $([ -z "$ASAN" ] && echo lib); do
    build badfree gcc $use -g -O1 -fsanitize=undefined -fno-sanitize-recover=all
    for how in double stack; do
        e=badfree.gcc.$use
        env MTRACE=$e.$how.trace "./$e" $how > $e.$how.out 2> $e.$how.err; echo $? > $e.$how.rc
        has "UBSan, $use use, $how: mtrace names the bad free" $e.$how.err \
            "$([ $how = double ] && echo 'error: double free of a block (in main)' || echo 'error: invalid free of an address on the stack (in main)')"
        hasnt "UBSan, $use use, $how: no undefined behaviour in the report" $e.$how.err "runtime error"
        check "UBSan, $use use, $how: then abort (SIGABRT: 134)" test "$(cat $e.$how.rc)" = 134
    done
done

# --- LeakSanitizer alone (-fsanitize=leak, doc/platforms.md): no option
# needed but, with gcc's one-line use, -DMTRACE_SANITIZED=1 (gcc tells the
# code nothing of LSan: the runtime's malloc beside LSan's crashes at start);
# LSan's report first, then mtrace's from its death callback, the same
# leaks; the status LSan's exitcode, 23
for cc in $CCS; do
    for use in one $([ -z "$ASAN" ] && echo lib); do
        flags=
        [ $cc/$use = gcc/one ] && flags=-DMTRACE_SANITIZED=1
        build leak $cc $use -g -O0 -fno-omit-frame-pointer -fsanitize=leak $flags
        e=leak.$cc.$use
        mv $e $e.lsan
        # (libmtrace has no frame pointers: the slow unwinder, as above)
        run $e.lsan LSAN_OPTIONS=use_stacks=0:use_registers=0:fast_unwind_on_malloc=0
        mtrace_leaks $e.lsan.err > $e.lsan.mtrace
        lsan_leaks $e.lsan.err leak.c > $e.lsan.lsan
        check "LSan alone, $cc, $use use: mtrace's leak lines (123 bytes)" \
            test "$(awk '{ n += $2 } END { print n + 0 }' $e.lsan.mtrace)" = 123
        same "LSan alone, $cc, $use use: LeakSanitizer's leaks are mtrace's" $e.lsan.mtrace $e.lsan.lsan
        check "LSan alone, $cc, $use use: LSan's report, then mtrace's" \
            test "$(grep -o -e 'ERROR: LeakSanitizer' -e '^\*\*\* MTRACE: max resident' $e.lsan.err | tr '\n' /)" = "ERROR: LeakSanitizer/*** MTRACE: max resident/"
        check "LSan alone, $cc, $use use: the status is LSan's exitcode (23)" test "$(cat $e.lsan.rc)" = 23
    done
done
build leak gcc one -g -O0 -fsanitize=leak
mv leak.gcc.one leak.gcc.one.plain
run leak.gcc.one.plain
check "LSan alone, gcc, one-line use without -DMTRACE_SANITIZED=1: the crash at start platforms.md names" \
    test "$(cat leak.gcc.one.plain.rc)" -gt 128 -a ! -s leak.gcc.one.plain.trace

# --- an error ASan finds while the program runs (doc/platforms.md): an
# overflow ends it as a fatal signal would, the trace written out with no
# report; a double free and a free inside a block are ASan's to report
for use in one lib; do
    build asanend gcc $use $SAN
    for how in overflow double inner; do
        e=asanend.gcc.$use
        env MTRACE=$e.$how.trace "./$e" $how > $e.$how.out 2> $e.$how.err; echo $? > $e.$how.rc
    done
    e=asanend.gcc.$use
    has "ASan, $use use, an overflow: ASan's report" $e.overflow.err "ERROR: AddressSanitizer: heap-buffer-overflow"
    check "ASan, $use use, an overflow: ASan's status (1)" test "$(cat $e.overflow.rc)" = 1
    check "ASan, $use use, an overflow: the trace is written out, its tail last" replays $e.overflow.trace
    hasnt "ASan, $use use, an overflow: no report of mtrace's" $e.overflow.err "*** MTRACE"
    has "ASan, $use use, a double free: ASan reports it" $e.double.err "ERROR: AddressSanitizer: attempting double-free"
    hasnt "ASan, $use use, a double free: mtrace does not" $e.double.err "double free of a block"
    has "ASan, $use use, a free inside a block: ASan reports it" $e.inner.err "attempting free on address which was not malloc()-ed"
    hasnt "ASan, $use use, a free inside a block: mtrace does not" $e.inner.err "invalid free"
done

# --- Valgrind's Memcheck: the tracer's tables hold no pointer into a live
# block (runtime/blocks.c), so a traced program's leaks are definitely lost
if command -v valgrind > /dev/null; then
    for use in one $([ -z "$ASAN" ] && echo lib); do      # (nasan: an ASan libmtrace under Memcheck)
        build leak gcc $use -g -O0
        MTRACE=leak.vg.trace valgrind --leak-check=full ./leak.gcc.$use > leak.vg.$use.out 2> leak.vg.$use.err
        bytes=$(mtrace_leaks leak.vg.$use.err | awk '{ n += $2 } END { print n + 0 }')
        check "valgrind, $use use: mtrace's leak lines (123 bytes)" test "$bytes" = 123
        has "valgrind, $use use: Memcheck says definitely lost, mtrace's bytes" leak.vg.$use.err \
            "definitely lost: $bytes bytes in 5 blocks"
        has "valgrind, $use use: nothing still reachable" leak.vg.$use.err "still reachable: 0 bytes in 0 blocks"
        hasnt "valgrind, $use use: no error of the tracer's own" leak.vg.$use.err "Invalid read"
    done
else
    fail "valgrind is not installed (apt-get install valgrind)"
fi

# --- the one-line use in a file compiled without the sanitizer, linked
# into a sanitized program (limits.md): the runtime's malloc and free
# beside ASan's, a crash at start; -DMTRACE_SANITIZED=1 leaves them to ASan
gcc -g -O0 -c -DMTRACE=1 -include "$TOP/mtrace.h" leak.c -o plainobj.o
gcc -fsanitize=address plainobj.o -o plainobj
(ASAN_OPTIONS=detect_leaks=0 ./plainobj > /dev/null 2> plainobj.err; echo $? > plainobj.rc)
check "one-line use compiled plainly, linked with -fsanitize=address: it crashes at start (a signal)" \
    test "$(cat plainobj.rc)" -gt 128
gcc -g -O0 -c -DMTRACE=1 -DMTRACE_SANITIZED=1 -include "$TOP/mtrace.h" leak.c -o sanobj.o
gcc -fsanitize=address sanobj.o -o sanobj
(ASAN_OPTIONS=detect_leaks=0 ./sanobj > /dev/null 2> sanobj.err)
check "... with -DMTRACE_SANITIZED=1: it runs, traced, its leaks mtrace's (123 bytes)" \
    test "$(mtrace_leaks sanobj.err | awk '{ n += $2 } END { print n + 0 }')" = 123

finish
