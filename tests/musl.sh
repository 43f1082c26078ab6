#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/musl.sh - the runtime on musl (musl-gcc, doc/platforms.md).  The
# examples and a few of the tracer's programs (tests/musl/*.c and
# tests/tracer/: fork, threads, a double free, realloc), built with
# musl-gcc in the one-line use, with libmtrace built for musl (shared) and
# linked -static, must give the reports the same program gives on glibc:
# the summary's sites and the leak lines (the maximum RSS differs
# naturally).  What musl cannot do says so at run time.
. "$(dirname "$0")/lib.sh"
if ! command -v musl-gcc > /dev/null; then
    fail "musl-gcc is not installed (apt-get install musl-tools)"
    finish
    exit
fi
M=$TMP/musl
mkdir -p "$M"
cp "$TOP"/examples/{example,leak,dfree,pool,threads}.c "$TOP"/tests/tracer/{forked,threads,dfree,sites}.c \
    "$TOP"/tests/tracer/replay.awk "$TOP"/tests/musl/*.c "$M/" 2> /dev/null
cp "$TOP/tests/tracer/threads.c" "$M/tthreads.c"
cp "$TOP/tests/tracer/dfree.c" "$M/tdfree.c"
cd "$M" || exit 2
WARN="-Wall -Wextra"

# libmtrace for musl, as the Makefile builds it for glibc
musl-gcc -O2 -g $WARN -fPIC -fvisibility=hidden -DMTRACE_RUNTIME -c -o mtrace.pic.o "$TOP/mtrace.c" 2> lib.cc &&
    ar rcs libmtrace.a mtrace.pic.o &&
    musl-gcc -shared -Wl,-soname,libmtrace.so -Wl,-z,nodelete -o libmtrace.so mtrace.pic.o
check "libmtrace builds with musl-gcc, -Wall -Wextra clean" test -s libmtrace.so -a -s libmtrace.a -a ! -s lib.cc ||
    cat lib.cc

# build NAME USE [flags]: NAME.c traced at level 1 -> NAME.USE, USE one of
# one (musl, one-line), lib (musl, libmtrace.so), static (musl, libmtrace.a,
# -static), glibc (cc, one-line: the reference)
build() {
    local name=$1 use=$2; shift 2
    case $use in
    one) musl-gcc -g -O0 $WARN -DMTRACE=1 -include "$TOP/mtrace.h" "$@" -o "$name.$use" "$name.c" ;;
    lib) musl-gcc -g -O0 $WARN -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" "$@" -o "$name.$use" "$name.c" \
        -L. -Wl,-rpath,"$M" -lmtrace ;;
    static) musl-gcc -static -g -O0 $WARN -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" "$@" -o "$name.$use" \
        "$name.c" libmtrace.a ;;
    glibc) $CC -g -O0 $WARN -DMTRACE=1 -include "$TOP/mtrace.h" "$@" -o "$name.$use" "$name.c" ;;
    esac 2> "$name.$use.cc" | grep -v 'ignoring return value'
}
# run NAME USE [args]: stdout, stderr and status in NAME.USE.{out,err,rc};
# the trace in NAME.trace, the same name for every use (the advice line
# names it)
run() {
    local name=$1 use=$2; shift 2
    rm -f "$name.trace"*
    { MTRACE=$name.trace "./$name.$use" "$@" > "$name.$use.out" 2> "$name.$use.err"
      echo $? > "$name.$use.rc"; } 2> /dev/null    # the shell's "Segmentation fault"
}
# the report without what differs by nature: the maximum RSS, the
# overhead, and the pid of a forked child
report() {
    sed -E -e '/max resident  set size/d' -e 's/overhead [0-9.]+%/overhead PCT/' \
        -e 's/(pid|\[pid) [0-9]+/\1 PID/g' -e 's/trace\.[0-9]+/trace.PID/g' "$1.$2.err"
}
# like NAME USE...: NAME's report and status in each USE are glibc's
like() {
    local name=$1 use; shift
    report "$name" glibc > "$name.glibc.report"
    for use in "$@"; do
        report "$name" "$use" > "$name.$use.report"
        same "$name.c, musl $use: the report glibc gives" "$name.glibc.report" "$name.$use.report"
        check "$name.c, musl $use: exit status $(cat "$name.glibc.rc"), as on glibc" \
            test "$(cat "$name.$use.rc")" = "$(cat "$name.glibc.rc")"
    done
}

# --- the examples, each use against glibc's report
for name in example leak pool threads sites forked tthreads; do
    flags=
    case $name in threads|tthreads) flags=-pthread ;; esac
    for use in glibc one lib static; do
        build $name $use $flags
        run $name $use
    done
    [ $name = tthreads ] || like $name one lib static
done
# four threads at once: the peak depends on how they interleave
for use in one lib static; do
    run tthreads $use
    grep -e error: -e leak "tthreads.$use.err" > tthreads.$use.leaks
    check "tracer's threads.c, musl $use: no leak" test "$(cat tthreads.$use.leaks)" = "*** MTRACE: No memory leaks"
    check "tracer's threads.c, musl $use: every record, none repeated" sh -c "awk -f replay.awk tthreads.trace > /dev/null"
done
has "fork on musl: the child's leak makes its status 1" forked.one.out "exited 1"

# --- a double free.  musl's allocator is not interposed (its internal
# calls cannot be seen), so an address the C library handed out again is
# not known to mtrace and a tombstone proves nothing, unless musl unmapped
# the block's page since: then mtrace reports the double free as on glibc;
# else it leaves the free to musl, whose check kills the program, and
# names the call.  Which one depends on musl's heap, never a wrong answer.
named() {
    grep -qxF "$2.c:$3: error: double free of a block (in main)" "$1" ||
        grep -qxF "$2.c:$3: note: the program died in free() called here (in main)" "$1"
}
for name in dfree tdfree; do
    for use in one lib static; do
        build $name $use
        run $name $use
        line=$(grep -n 'free(p);' "$name.c" | tail -1 | cut -d: -f1)
        check "$name.c, musl $use: the double free is named, or the fatal free" named "$name.$use.err" $name $line ||
            cat "$name.$use.err"
        check "$name.c, musl $use: the program ends on a signal" test "$(cat "$name.$use.rc")" -gt 128
    done
done

# --- the exit status: leaks turn 0 into 1; exit(n) from traced code keeps
# n (noted by mtrace_exit, musl has no on_exit); a status main returns is
# not seen there: with leaks it becomes 1 (doc/platforms.md)
for use in one lib static; do
    build status $use
    run status $use 0
    check "status, musl $use: leaks, main returns 0: 1" test "$(cat status.$use.rc)" = 1
    run status $use 0 exit
    check "status, musl $use: leaks, exit(0): 1" test "$(cat status.$use.rc)" = 1
    run status $use 3 exit
    check "status, musl $use: leaks, exit(3): 3" test "$(cat status.$use.rc)" = 3
    run status $use 3 exit free
    check "status, musl $use: no leak, exit(3): 3" test "$(cat status.$use.rc)" = 3
    run status $use 0 return free
    check "status, musl $use: no leak, main returns 0: 0" test "$(cat status.$use.rc)" = 0
    run status $use 5 return free
    check "status, musl $use: no leak, main returns 5: 5" test "$(cat status.$use.rc)" = 5
    run status $use 3
    check "status, musl $use: leaks, main returns 3: 1 (main's status unseen)" test "$(cat status.$use.rc)" = 1
done

# --- what musl's table row says is not seen (doc/platforms.md): memalign
# (bound on glibc only), a traced buffer that getline grows with musl's
# own realloc; valloc and aligned_alloc are traced.  glibc sees it all.
for use in glibc one; do
    build unseen $use
    head -c 3000 /dev/zero | tr '\0' x > unseen.in
    run unseen $use < unseen.in
    awk '$1 == "@" { printf "%s ", $5 }' unseen.trace > unseen.$use.sites
done
at() { grep -n "/\* $1 \*/" unseen.c | cut -d: -f1; }
check "unseen.c, musl: valloc's and aligned_alloc's blocks are traced, memalign's is not" \
    test "$(cat unseen.one.sites)" = "$(at GROWN) $(at VALLOC) $(at ALIGNED) "
has "unseen.c, musl: the traced buffer getline grew and the program freed: reported leaked" unseen.one.err \
    "unseen.c:$(at GROWN): error: 1 bytes in 1 block leaked here (in main)"
check "unseen.c, musl: ...and so the status is 1" test "$(cat unseen.one.rc)" = 1
check "unseen.c, glibc: all four traced (the reference)" \
    test "$(cat unseen.glibc.sites)" = "$(at GROWN) $(at MEMALIGN) $(at VALLOC) $(at ALIGNED) "
has "unseen.c, glibc: ...and no leak" unseen.glibc.err "*** MTRACE: No memory leaks"

# --- when the report comes (doc/platforms.md): in mtrace's destructor,
# after the program's own, which frees a block there
for use in one lib static; do
    build dtor $use
    run dtor $use
    has "dtor.c, musl $use: a block freed by the program's destructor is no leak" dtor.$use.err "*** MTRACE: No memory leaks"
    check "dtor.c, musl $use: ...the destructor ran before the report, status 0" \
        test "$(grep -m1 -o -e 'destructor ran' -e MTRACE dtor.$use.err)/$(cat dtor.$use.rc)" = "destructor ran/0"
done
# --- the free of an address inside a traced block: musl's check, not named
# by mtrace (doc/platforms.md)
run unseen one inner < unseen.in
check "unseen.c, musl: a free inside a traced block: the program ends on musl's check (a signal)" \
    test "$(cat unseen.one.rc)" -gt 128
hasnt "unseen.c, musl: ...not named by mtrace" unseen.one.err "invalid free"

finish
