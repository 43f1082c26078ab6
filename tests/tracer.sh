#!/bin/bash
# SPDX-License-Identifier: MIT
# The tracer (mtrace.h + mtrace.c and runtime/): each test is a program in tests/tracer/,
# the command that builds and runs it, and what must come out.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/tracer" || exit 2
WARN="-Wall -Wextra"
# Under AddressSanitizer mtrace does not define malloc and free itself (ASan's
# must stay the program's), so what needs them is checked in normal builds only.
# The suite runs in the mode projects use, the runtime linked from
# libmtrace (MTRACE_TEST_MODE=lib, the default), and again in the one-line
# mode, the runtime compiled into each file (tests/oneline.sh sets
# MTRACE_TEST_MODE=header).
if [ "${MTRACE_TEST_MODE:-lib}" = lib ]; then
    TRACED="-DMTRACE_LIB -include $TOP/mtrace.h" LINKED="-L$TOP -Wl,-rpath,$TOP -lmtrace"
else
    TRACED="-include $TOP/mtrace.h" LINKED=
fi

# build NAME LEVEL [flags...]: tests/tracer/NAME.c traced at LEVEL -> $TMP/NAME
build() {
    local name=$1 level=$2; shift 2
    $CC $CFLAGS_T $WARN -DMTRACE=$level $TRACED "$@" -o "$TMP/$name" "$name.c" $LINKED -lpthread 2> "$TMP/$name.cc" \
        || { cat "$TMP/$name.cc"; return 1; }
}
# run NAME [args]: runs $TMP/NAME with its trace in $TMP/NAME.trace;
# stdout, stderr and exit status in $TMP/NAME.{out,err,rc}
run() {
    local name=$1; shift
    MTRACE="$TMP/$name.trace" "$TMP/$name" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
    echo $? > "$TMP/$name.rc"
}
rc() { [ "$(cat "$TMP/$1.rc")" = "$2" ] || { echo "     exit status $(cat "$TMP/$1.rc"), expected $2"; return 1; }; }
replay() { awk -v notail="${2:-0}" -f replay.awk "$TMP/$1.trace" > "$TMP/$1.replay" || { cat "$TMP/$1.replay"; return 1; }; }
# masks what changes from run to run in a summary
masked() { sed -E -e 's/size: +[0-9]+ bytes$/size: RSS bytes/' -e 's/overhead [0-9.]+%/overhead PCT/' \
    -e "s#$TMP/massif\\.out\\.[a-z0-9]+\\.trace#MASSIF#g" -e "s#$TMP/[a-z0-9]+\\.trace#TRACE#g" "$TMP/$1.err"; }

# --- the header is a no-op without MTRACE or with MTRACE=0
$CC -E -P sites.c > "$TMP/plain.i"
$CC -E -P -include "$TOP/mtrace.h" sites.c > "$TMP/noop.i"
$CC -E -P -DMTRACE=0 -include "$TOP/mtrace.h" sites.c > "$TMP/zero.i"
same "no MTRACE: preprocessed source unchanged" "$TMP/plain.i" "$TMP/noop.i"
same "MTRACE=0: preprocessed source unchanged" "$TMP/plain.i" "$TMP/zero.i"

# --- exact per-site peaks, leaks largest first, exit status 1
build sites 1 && run sites
masked sites > "$TMP/sites.masked"
same "sites: summary and leak report" sites.expected "$TMP/sites.masked"
check "sites: leaks make the exit status 1" rc sites 1
check "sites: trace replays" replay sites
has "sites: site record escapes nothing needed" "$TMP/sites.trace" "@ 1 make sites.c 10"

# --- the gnuplot tail, drawn by the real gnuplot from another directory
if command -v gnuplot > /dev/null; then
    for term in png svg; do
        (cd / && { echo "set terminal $term"; tail -n 2 "$TMP/sites.trace"; } | gnuplot > "$TMP/sites.$term" 2> "$TMP/gnuplot.err")
        check "gnuplot draws the tail as $term, silently" test -s "$TMP/sites.$term" -a ! -s "$TMP/gnuplot.err"
    done
    check "gnuplot output is a PNG" sh -c "head -c 4 '$TMP/sites.png' | grep -q PNG"
else
    fail "gnuplot is not installed (apt-get install gnuplot-nox)"
fi

# --- levels: 2 writes no file and no graph hint, 3 prints leak errors only
rm -f "$TMP/sites.trace"
build sites 2 && run sites
check "level 2: no trace file" test ! -e "$TMP/sites.trace" -a ! -e mtrace
grep -v 'To get a graph' sites.expected > "$TMP/sites2.expected"
masked sites > "$TMP/sites2.masked"
same "level 2: summary without graph hint" "$TMP/sites2.expected" "$TMP/sites2.masked"
build sites 3 && run sites
grep -e 'error:' -e ' leaked, in ' sites.expected > "$TMP/sites3.expected"
same "level 3: leak records only, and their total" "$TMP/sites3.expected" "$TMP/sites.err"
check "level 3: exit status 1" rc sites 1

# --- the Massif manual's example
cp ../../examples/example.c "$TMP/example.c"
(cd "$TMP" && $CC $CFLAGS_T -O0 -DMTRACE=1 $TRACED example.c -o example $LINKED && MTRACE=example.trace ./example 2> example.err; echo $? > example.rc)
has "example: g's peak is 8000 bytes" "$TMP/example.err" "      8000         2                       g   example.c:5"
has "example: main's peak is 10000 bytes" "$TMP/example.err" "     10000        10                    main   example.c:20"
has "example: f leaks 2000 bytes" "$TMP/example.err" "example.c:10: error: 2000 bytes in 1 block leaked here (in f)"
check "example: trace replays" replay example

# --- double free: three places, then abort with the trace flushed
build dfree 1 && run dfree
if [ -z "$ASAN" ]; then
    same "double free: the three places" dfree.expected "$TMP/dfree.err"
    check "double free: aborts (SIGABRT)" rc dfree 134
    check "double free: trace flushed before abort" replay dfree 1
    MTRACE_DOUBLE_FREE=continue MTRACE="$TMP/dfree.trace" "$TMP/dfree" 2> "$TMP/dfree.err"; echo $? > "$TMP/dfree.rc"
    check "double free, continue: exit status 1" rc dfree 1
    has "double free, continue: counted at exit" "$TMP/dfree.err" "*** MTRACE: 1 double free ignored"
fi

# --- a double free far from the first free, and frees of addresses no
# allocator handed out (issue 22).  Under AddressSanitizer mtrace does not
# see every free (no interposers): ASan's own reports take these.
if [ -z "$ASAN" ]; then
# --- 1 to 100,000
# allocations between, a realloc between, the second free on another
# thread; at every level the three places, then abort
for level in 1 2 3; do
    build latefree $level || { fail "latefree: builds at level $level"; continue; }
    for args in 1 10 1000 100000 "1 realloc" "1 thread"; do
        run latefree $args
        grep -E ': (error|note): ' "$TMP/latefree.err" > "$TMP/latefree.got"
        { case $args in
              *thread) echo "latefree.c:15: error: double free of a block (in free_again)" ;;
              *) echo "latefree.c:35: error: double free of a block (in main)" ;;
          esac
          echo "latefree.c:25: note: the block was allocated here (in main)"
          echo "latefree.c:26: note: and first freed here (in main)"; } > "$TMP/latefree.want"
        same "double free after '$args' between, level $level: the three places" "$TMP/latefree.want" "$TMP/latefree.got"
        check "double free after '$args' between, level $level: aborts" rc latefree 134
    done
done

# --- frees of addresses no allocator handed out: named before the C
# library sees them, at every level; a buffer getline allocated is no error
for level in 1 2 3; do
    build badfree $level || { fail "badfree: builds at level $level"; continue; }
    : > "$TMP/badfree.got"
    for kind in inside big static literal mmap unmapped stack realloc; do
        run badfree $kind
        rc badfree 134 || echo "$kind: exit status $(cat "$TMP/badfree.rc")" >> "$TMP/badfree.got"
        grep -E ': (error|note): ' "$TMP/badfree.err" | sed "s/^/$kind /" >> "$TMP/badfree.got"
    done
    same "bad frees, level $level: each named, then abort" badfree.expected "$TMP/badfree.got"
    run badfree legit
    check "bad frees, level $level: a buffer from getline freed: no error, exit 0" \
        sh -c "[ \$(cat '$TMP/badfree.rc') = 0 ] && ! grep -q 'error:' '$TMP/badfree.err'"
    MTRACE_DOUBLE_FREE=continue MTRACE="$TMP/badfree.trace" "$TMP/badfree" inside > "$TMP/badfree.out" 2> "$TMP/badfree.err"
    echo $? > "$TMP/badfree.rc"
    check "bad frees, continue, level $level: goes on, exit status 1" \
        sh -c "grep -qx 'went on' '$TMP/badfree.out' && [ \$(cat '$TMP/badfree.rc') = 1 ]"
    has "bad frees, continue, level $level: counted at exit" "$TMP/badfree.err" "*** MTRACE: 1 invalid free ignored"
done

# --- the tombstone budget: with MTRACE_FREED_MAX=16, the most recent 14
# frees are always remembered (doc/limits.md), the older forgotten and
# counted: of 101 frees, 85 to 87
build forgotten 2
for back in 1 14; do
    MTRACE_FREED_MAX=16 MTRACE_DOUBLE_FREE=continue "$TMP/forgotten" 100 $back 2> "$TMP/forgotten.err"
    has "MTRACE_FREED_MAX=16: the block freed $back frees ago is caught" "$TMP/forgotten.err" \
        "forgotten.c:15: error: double free of a block (in main)"
done
n=$(sed -n 's/^\*\*\* MTRACE: \([0-9]*\) freed blocks forgotten (MTRACE_FREED_MAX=16).*/\1/p' "$TMP/forgotten.err")
check "MTRACE_FREED_MAX=16: the summary counts the forgotten: 85 to 87 (got '$n')" test "${n:-0}" -ge 85 -a "${n:-0}" -le 87
MTRACE_FREED_MAX=16x "$TMP/forgotten" 10 1 2> "$TMP/forgotten.err"
has "MTRACE_FREED_MAX that is not a number: one warning" "$TMP/forgotten.err" \
    "*** MTRACE: warning: MTRACE_FREED_MAX=16x is not a number of blocks (or with K, M or G): the default, 1M"
"$TMP/forgotten" 10 1 2> "$TMP/forgotten.err"
hasnt "no budget reached: no line about forgotten blocks" "$TMP/forgotten.err" "freed blocks forgotten"
fi

# --- memory the tracer never saw
build foreign 1 && run foreign
if [ -z "$ASAN" ]; then
    check "foreign frees: exit status 0" rc foreign 0
    has "foreign frees: no leaks" "$TMP/foreign.err" "*** MTRACE: No memory leaks"
    hasnt "foreign frees: no error" "$TMP/foreign.err" "error"
    has "foreign frees: a freed address came back from libc" "$TMP/foreign.out" "reused yes"
fi
check "foreign frees: trace replays" replay foreign

# --- realloc and friends: results as libc gives them, records as they happened
build edges 1 && run edges
hasnt "edges: every result as the C library gives it" "$TMP/edges.out" "WRONG"
awk 'NF == 6 && $1 != "@" { d = $4 - t; t = $4; print $1, (d < 0 ? -d : d) }' "$TMP/edges.trace" > "$TMP/edges.ops"
same "edges: exactly the expected records" edges.expected "$TMP/edges.ops"
check "edges: no leaks" rc edges 0

# --- threads: no lost or repeated record
build threads 1 && run threads
check "threads: trace replays" replay threads
has "threads: all 160000 records" "$TMP/threads.replay" "replay: 160000 records, total 0"

# --- 64 threads on 2 cores passing blocks around: frees and reallocs of
# other threads' blocks replay exactly (issue 12: the sharded block table)
build crossthreads 1 && run crossthreads
check "64 threads, cross-thread frees and reallocs: trace replays" replay crossthreads
has "64 threads: nothing left at the end" "$TMP/crossthreads.replay" ", total 0"
check "64 threads: every call has its record" sh -c "[ \$(awk '\$1 ~ /^[-+<>]\$/' '$TMP/crossthreads.trace' | wc -l) -ge 192000 ]"
check "64 threads: no leak" rc crossthreads 0
build crossthreads 2 && run crossthreads
has "64 threads, level 2: exact peak, nothing left" "$TMP/crossthreads.err" "No memory leaks"

# --- a thread forks 300 times while 4 others allocate: never hangs
build forkloop 2
timeout 120 "$TMP/forkloop" > "$TMP/forkloop.out" 2> "$TMP/forkloop.err"; echo $? > "$TMP/forkloop.rc"
check "fork 300 times amid 4 allocating threads: no hang, exit 0" rc forkloop 0
has "fork 300 times: every child came back" "$TMP/forkloop.out" "300 forks, 0 failed"

# --- SIGSEGV while 4 threads allocate: the trace replays, with its tail
# (under ASan, whose handler takes SIGSEGV, abort() instead)
if [ -n "$ASAN" ]; then how=abort sig=6 name=SIGABRT; else how= sig=11 name=SIGSEGV; fi
build crash4 1 && timeout 60 env MTRACE="$TMP/crash4.trace" "$TMP/crash4" $how > /dev/null 2> "$TMP/crash4.err"
echo $? > "$TMP/crash4.rc"
check "crash amid 4 threads: dies of $name" rc crash4 $((128 + sig))
check "crash amid 4 threads: trace replays, tail last" replay crash4

build omp 1 -fopenmp && OMP_NUM_THREADS=4 run omp
check "openmp: trace replays" replay omp
has "openmp: all 80000 records" "$TMP/omp.replay" "replay: 80000 records, total 0"

# --- MPI ranks: rank r > 0 appends -r to the name, rank 0 keeps it
build pm 1
OMPI_COMM_WORLD_RANK=2 run pm
check "rank 2 writes NAME-2" test -s "$TMP/pm.trace-2" -a ! -e "$TMP/pm.trace"
PMI_RANK=0 run pm
check "rank 0 writes NAME" test -s "$TMP/pm.trace"

# --- killed by a signal: complete up to the last operation, same death
build killed 1
for sig in segv:139 term:143 abort:134; do
    run killed "${sig%:*}"
    [ -n "$ASAN" ] && [ "${sig%:*}" = segv ] && continue
    check "killed by ${sig%:*}: same exit status" rc killed "${sig#*:}"
    check "killed by ${sig%:*}: all 1000 records, and the tail" sh -c "awk -f replay.awk '$TMP/killed.trace' | grep -qx 'replay: 1000 records, total 16000'"
done

# --- real code: feature macros, strict modes, members, hooks, redefinitions
for prog in gnu:"-std=gnu99" xopen:"-std=c99"; do
    name=${prog%%:*} flags=${prog#*:}
    $CC $flags $WARN -c $name.c -o "$TMP/$name.o" 2> "$TMP/$name.plain"
    build $name 1 $flags && run $name
    same "$name: no new warning" "$TMP/$name.plain" "$TMP/$name.cc"
    check "$name: runs, no leak" rc $name 0
done
has "gnu: asprintf, strcasestr, qsort_r work" "$TMP/gnu.out" "321 Needle"
has "xopen: sigaction and popen work" "$TMP/xopen.out" "popen works"
for std in c89 c99 c11 c17 c2x gnu89 gnu11; do
    for cc in gcc clang; do
        command -v $cc > /dev/null || continue
        flags="-std=$std -pedantic -Wall -Wextra -Wshadow -Wredundant-decls -Wmissing-prototypes -Wstrict-prototypes -Wc++-compat"
        $cc $flags -c strict.c -o "$TMP/strict.o" 2> "$TMP/strict.plain"
        $cc $flags -DMTRACE=1 $TRACED -c strict.c -o "$TMP/strict.o" 2> "$TMP/strict.traced"
        same "strict: $cc -std=$std adds no warning" "$TMP/strict.plain" "$TMP/strict.traced"
    done
done
build members 1 && run members
check "members: mem->free(p) and friends compile and run" rc members 0
has "members: the members were called" "$TMP/members.out" "pool calls: 2"
build hooks 1 && run hooks
grep error: "$TMP/hooks.err" > "$TMP/hooks.leaks"
same "hooks: the one real leak, no false one" hooks.expected "$TMP/hooks.leaks"
has "hooks: malloc compares equal to the hook" "$TMP/hooks.out" "same malloc"
# every use of the names in a traced file reaches the runtime, each
# argument evaluated once (doc/design.md, "The macro"): a call, a pointer
# taken to malloc, a call after #undef malloc; the last two are placed by
# their return address and named at exit (#site)
build names 1 && run names
check "names: each argument evaluated once (n++ five times: 10)" test "$(cat "$TMP/names.out")" = 10
names_at() { grep -n "/\* $1:" names.c | cut -d: -f1; }
check "names: a call, calloc, realloc, a pointer to malloc, malloc after #undef: each traced at its line" \
    test "$(awk 'NR == FNR { if ($1 == "@" || $1 == "#site") line[$2] = $5; next }
        /^[-+<>] / { printf "%s%s:%s ", $1, line[$2], $5 }' "$TMP/names.trace" "$TMP/names.trace")" = \
    "+$(names_at CALL):5 +$(names_at CALLOC):12 <$(names_at CALL):0 >$(names_at REALLOC):7 +$(names_at POINTER):8 +$(names_at UNDEF):9 -$(names_at UNDEF):0 -$(names_at POINTER):0 -$(names_at CALLOC):0 -$(names_at REALLOC):0 "
build redefine 1 && run redefine
check "redefine: runs without leaks" rc redefine 0
has "redefine: the program's own malloc macro wins" "$TMP/redefine.out" "counted 1"
$CC $CFLAGS_T -DMTRACE=1 $TRACED shared1.c shared2.c -o "$TMP/shared" $LINKED
MTRACE="$TMP/shared.trace" "$TMP/shared" 2> "$TMP/shared.err"
check "static inline in a header: one site for both files" test "$(grep -c '^@' "$TMP/shared.trace")" = 1
check "static inline in a header: its peak is both blocks" grep -qE "^ +30 +2 +shared_alloc +(\./)?shared.h:4$" "$TMP/shared.err"

# --- wrappers and pools (MTRACE_ALLOC_FN, MTRACE_MALLOCLIKE, MTRACE_FREELIKE)
build arena 1 && run arena
grep error: "$TMP/arena.err" > "$TMP/arena.leaks"
same "arena: pool and wrapper leaks at the right places, no double free" arena.expected "$TMP/arena.leaks"
has "arena: the pool's first block is at the arena's address" "$TMP/arena.out" "1"
has "arena: the wrapper's allocations are charged to its caller" "$TMP/arena.err" "      4096         1                    main   arena.c:34"
check "arena: trace replays" replay arena
$CC -Wall -Wextra -Werror -include "$TOP/mtrace.h" arena.c -o "$TMP/arena.plain" && "$TMP/arena.plain" > "$TMP/arena.plain.out"
same "arena: without MTRACE the annotations do nothing (and build silently)" "$TMP/arena.out" "$TMP/arena.plain.out"

# --- exit: after atexit handlers, stdout kept when the status changes
build atexit 1 && run atexit
check "atexit and destructor: cleanup counted, exit 0" rc atexit 0
run atexit leak
check "atexit: a leak makes it 1" rc atexit 1
has "atexit: the leak is named" "$TMP/atexit.err" "atexit.c:18: error: 7 bytes in 1 block leaked here (in main)"
check "atexit: buffered stdout kept" test "$(cat "$TMP/atexit.out")" = "no newline at the end"

# --- exit while other threads allocate
build exitrace 1
for i in 1 2 3; do
    MTRACE="$TMP/exitrace.trace" timeout 20 "$TMP/exitrace" 2> "$TMP/exitrace.err"; echo $? > "$TMP/exitrace.rc"
    check "exit during allocations ($i): exits by itself" sh -c "[ $(cat "$TMP/exitrace.rc") -le 1 ]"
    check "exit during allocations ($i): one report" test "$(grep -c 'max traced memory' "$TMP/exitrace.err")" = 1
    check "exit during allocations ($i): trace replays, tail last" replay exitrace
done

# --- fork: both trace; the child writes NAME.PID and reports with its pid
build forked 1 && run forked
child=$(sed -n 's/^child \([0-9]*\) exited .*/\1/p' "$TMP/forked.out")
has "fork: the child's leak makes its status 1" "$TMP/forked.out" "exited 1"
check "fork: two reports" test "$(grep -c 'max traced memory' "$TMP/forked.err")" = 2
has "fork: the child's report carries its pid" "$TMP/forked.err" "[pid $child] *** MTRACE: max traced memory size:        555 bytes"
has "fork: the child's leak, tagged" "$TMP/forked.err" "forked.c:19: error: 555 bytes in 1 block leaked here (in main) (pid $child)"
has "fork: the parent has no leak" "$TMP/forked.err" "] *** MTRACE: No memory leaks"
check "fork: parent's trace replays" replay forked
has "fork: parent's trace holds its 2 records only" "$TMP/forked.replay" "replay: 2 records, total 0"
cp "$TMP/forked.trace.$child" "$TMP/forkchild.trace"
check "fork: child's trace NAME.PID replays" replay forkchild
has "fork: child's trace holds its 1 record" "$TMP/forkchild.replay" "replay: 1 records, total 555"

# --- fork in a threaded program, threads in the child
build forkthreads 2
timeout 60 "$TMP/forkthreads" > "$TMP/forkthreads.out" 2> "$TMP/forkthreads.err"; echo $? > "$TMP/forkthreads.rc"
check "fork with threads: no deadlock, exit 0" rc forkthreads 0
has "fork with threads: the child exits 0" "$TMP/forkthreads.out" "child 0"

# --- posix_spawn and system() of a traced program under the same MTRACE
build spawner 1 && build pm 1
MTRACE="$TMP/spawn.trace" "$TMP/spawner" "$TMP/pm" > "$TMP/spawn.out" 2> "$TMP/spawn.err"
has "spawn: the spawned program runs" "$TMP/spawn.out" "spawned exited 0"
has "spawn: system() runs" "$TMP/spawn.out" "system exited 0"
check "spawn: the parent's trace is intact" sh -c "awk -f replay.awk '$TMP/spawn.trace' | grep -qx 'replay: 2 records, total 0'"
check "spawn: each spawned program wrote NAME.PID" test "$(ls "$TMP"/spawn.trace.* | wc -l)" = 2
for t in "$TMP"/spawn.trace.*; do
    check "spawn: $(basename "$t") replays" sh -c "awk -f replay.awk '$t' | grep -qx 'replay: 4 records, total 0'"
done

# --- %p and %q{VAR} in MTRACE
build pm 1
MTRACE="$TMP/pq-%q{PQ_TAG}-%p.trace" PQ_TAG=tagged "$TMP/pm" > /dev/null 2> "$TMP/pq.err"
check "MTRACE=NAME-%q{VAR}-%p: expanded" sh -c "ls '$TMP' | grep -qE '^pq-tagged-[0-9]+\.trace$'"

# --- pmtrace
build pm 1 && run pm
has "pmtrace: figures seen by the program" "$TMP/pm.out" "total 1000 max 1000 now 700 records 3"

# --- a static binary: no interposition, the macros alone still give the verdict
if [ -z "$ASAN" ] && $CC -static -g -DMTRACE=1 $TRACED sites.c -o "$TMP/static" $LINKED 2> /dev/null; then
    MTRACE="$TMP/static.trace" "$TMP/static" 2> "$TMP/static.err"; echo $? > "$TMP/static.rc"
    grep error: sites.expected > "$TMP/static.expected"
    grep error: "$TMP/static.err" > "$TMP/static.leaks"
    same "static binary: same leak verdict" "$TMP/static.expected" "$TMP/static.leaks"
    check "static binary: trace replays" replay static
fi

# --- descriptors that stop being ours: closed, dup2()ed over, reused
build fds 1 && MTRACE="$TMP/fds.trace" "$TMP/fds" "$TMP/fds.mine" 2> "$TMP/fds.err"; echo $? > "$TMP/fds.rc"
check "fds: the program runs as without mtrace" rc fds 0
check "fds: the program's own file holds its own bytes only" test "$(cat "$TMP/fds.mine")" = mine
check "fds: no record lost (2000 records, reopened in append mode)" sh -c "awk -f replay.awk '$TMP/fds.trace' | grep -qx 'replay: 2000 records, total 0'"

# --- unwritable trace: same output and status, one warning, summary only
build pm 1
MTRACE="$TMP/pm.trace" "$TMP/pm" > "$TMP/pm.expected" 2> /dev/null
for target in /nonexistent/dir/t /dev/full; do
    MTRACE=$target "$TMP/pm" > "$TMP/pm.out" 2> "$TMP/pm.err"; echo $? > "$TMP/pm.rc"
    same "MTRACE=$target: same output" "$TMP/pm.expected" "$TMP/pm.out"
    check "MTRACE=$target: same exit status" rc pm 0
    check "MTRACE=$target: one warning" test "$(grep -c "no trace, summary only" "$TMP/pm.err")" = 1
    has "MTRACE=$target: summary still there" "$TMP/pm.err" "*** MTRACE: No memory leaks"
    hasnt "MTRACE=$target: no graph hint" "$TMP/pm.err" "To get a graph"
done
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro" && chmod 755 "$TMP"
    (cd "$TMP/ro" && setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/pm" > "$TMP/pm.out" 2> "$TMP/pm.err")
    same "read-only directory: same output" "$TMP/pm.expected" "$TMP/pm.out"
    has "read-only directory: one warning" "$TMP/pm.err" "cannot open the trace file $TMP/ro/mtrace: Permission denied"
fi

# --- EINTR and short writes: the trace goes through a pipe, read slowly
build eintr 1
rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
(sleep 1; timeout 120 cat "$TMP/fifo") > "$TMP/eintr.trace" &   # a program that never opens it: no hang
MTRACE="$TMP/fifo" "$TMP/eintr" > "$TMP/eintr.out" 2> "$TMP/eintr.err"; wait
has "EINTR: the program runs to the end" "$TMP/eintr.out" "done"
check "EINTR: every record arrives once" sh -c "awk -f replay.awk '$TMP/eintr.trace' | grep -qx 'replay: 200000 records, total 0'"

# --- set-user-ID: MTRACE is ignored, the default name is not followed
if [ "$(id -u)" = 0 ] && [ -z "$ASAN" ]; then
    mkdir -p "$TMP/suid" && chmod 1777 "$TMP/suid"
    cp "$TMP/pm" "$TMP/suid/pm" && chown 65534 "$TMP/suid/pm" && chmod 4755 "$TMP/suid/pm"
    (cd "$TMP/suid" && MTRACE="$TMP/suid/chosen" ./pm > /dev/null 2> "$TMP/suid.err")
    check "setuid: MTRACE ignored" test ! -e "$TMP/suid/chosen" -a -s "$TMP/suid/mtrace"
    rm -f "$TMP/suid/mtrace" && echo precious > "$TMP/suid/victim" && ln -s victim "$TMP/suid/mtrace"
    (cd "$TMP/suid" && ./pm > /dev/null 2> "$TMP/suid.err")
    check "setuid: a symbolic link named mtrace is not followed" test "$(cat "$TMP/suid/victim")" = precious
    has "setuid: and it says so" "$TMP/suid.err" "a symbolic link (not followed)"
    rm -f "$TMP/suid/mtrace" && ln -s victim "$TMP/suid/mtrace"
    (cd "$TMP/suid" && MTRACE="$TMP/suid/mtrace" "$TMP/pm" > /dev/null 2>&1)
    check "a link the user names in MTRACE is followed" grep -q '^@ 1 main' "$TMP/suid/victim"
fi

# --- the tracer's own memory runs out (an address-space limit: not under ASan,
# whose shadow memory needs terabytes of it)
if [ -z "$ASAN" ]; then
    build oom 2 && "$TMP/oom" > "$TMP/oom.out" 2> "$TMP/oom.err"; echo $? > "$TMP/oom.rc"
    $CC -O1 oom.c -o "$TMP/oom.plain" && "$TMP/oom.plain" > "$TMP/oom.expected"
    same "tracer out of memory: same output" "$TMP/oom.expected" "$TMP/oom.out"
    check "tracer out of memory: same exit status" rc oom 0
    check "tracer out of memory: one warning" test "$(grep -c "cannot grow" "$TMP/oom.err")" = 1
    has "tracer out of memory: the summary says so" "$TMP/oom.err" "figures are incomplete"
fi

# --- ThreadSanitizer on the threaded programs
if [ -z "$ASAN" ] && echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c - -o "$TMP/tsan" 2> /dev/null && "$TMP/tsan"; then
    for prog in threads exitrace crossthreads forkloop; do
        $CC -g -O1 -fsanitize=thread -DMTRACE=1 -include "$TOP/mtrace.h" $prog.c -o "$TMP/$prog.tsan" -lpthread
        # (timeout: a race that ThreadSanitizer reports in the tracer, with
        # halt_on_error, can hang it in its own report: a failure, not a stall)
        MTRACE="$TMP/$prog.trace" TSAN_OPTIONS=halt_on_error=1 timeout -k 5 120 "$TMP/$prog.tsan" > /dev/null 2> "$TMP/$prog.tsan.err"
        hasnt "ThreadSanitizer: $prog has no race" "$TMP/$prog.tsan.err" "ThreadSanitizer"
        check "ThreadSanitizer: $prog trace replays" replay $prog
    done
fi

# --- 50 million live blocks (level 2)
if [ -z "$ASAN" ]; then
    build huge 2 -O2 && "$TMP/huge" > "$TMP/huge.out" 2> "$TMP/huge.err"
    has "50 million live blocks: the peak is exact" "$TMP/huge.err" "max traced memory size:  800000000 bytes"
    has "50 million live blocks: no leak" "$TMP/huge.err" "*** MTRACE: No memory leaks"
fi

# --- MPI with the real Open MPI: one trace and one tagged report per rank
if [ -n "$ASAN" ]; then
    :   # Open MPI's own memory hooks and ASan's do not mix; checked in normal builds
elif command -v mpicc > /dev/null && command -v mpirun > /dev/null; then
    mkdir -p "$TMP/mpi"
    mpicc -g -DMTRACE=1 $TRACED mpi.c -o "$TMP/mpi/mpi" $LINKED &&
    (cd "$TMP/mpi" && MTRACE="$TMP/mpi/tr" timeout 120 mpirun --allow-run-as-root --oversubscribe --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi > out 2> err)
    for r in 0 1 2 3; do
        f="$TMP/mpi/tr"; [ $r -gt 0 ] && f="$TMP/mpi/tr-$r"
        check "MPI rank $r: its trace replays with $((r * 100)) bytes leaked" sh -c "awk -f replay.awk '$f' | grep -q 'total $((r * 100))\$'"
        has "MPI rank $r: its peak" "$TMP/mpi/err" "[rank $r] *** MTRACE: max traced memory size: $(printf %10d $(((r + 1) * 1000))) bytes"
        [ $r -gt 0 ] && has "MPI rank $r: its leak, tagged" "$TMP/mpi/err" "mpi.c:21: error: $((r * 100)) bytes in 1 block leaked here (in main) (rank $r)"
    done
    check "MPI: every report line says whose it is" sh -c "! grep MTRACE '$TMP/mpi/err' | grep -v '^\[rank [0-3]\] \*\*\* MTRACE'"
else
    fail "MPI: mpicc/mpirun missing (apt-get install openmpi-bin libopenmpi-dev)"
fi

# --- 100,000 call sites: each gets its own index (one "@" record each)
awk 'BEGIN { n = 100000; print "#include <stdlib.h>"; print "static void *p[" n "];"
    for (k = 0; k < n / 1000; k++) { print "static void f" k "(void) {"
        for (i = k * 1000; i < (k + 1) * 1000; i++) print "    p[" i "] = malloc(" 1 + i % 64 ");"
        print "}" }
    print "int main(void) {"; print "    int i;"; for (k = 0; k < n / 1000; k++) print "    f" k "();"
    print "    for (i = 0; i < " n "; i++) free(p[i]);"; print "    return 0;"; print "}" }' > "$TMP/many.c"
# (compiled plainly, it takes a minute; instrumented by ASan, a quarter of an
# hour: under ASan only the link gets ASan's runtime, which libmtrace needs;
# the one-line runtime compiled into many.o is told, doc/limits.md)
$CC -O0 -DMTRACE=1 $TRACED ${ASAN:+-DMTRACE_SANITIZED=1} -c "$TMP/many.c" -o "$TMP/many.o" &&
    $CC "$TMP/many.o" -o "$TMP/many" $LINKED ${ASAN:+-fsanitize=address,undefined} && run many
check "100,000 sites: 100,000 site records" test "$(grep -c '^@' "$TMP/many.trace")" = 100000
check "100,000 sites: trace replays" replay many
has "100,000 sites: summary lists 20 and counts the rest" "$TMP/many.err" "       ...   (99980 more sites)"

# --- calls that no macro names (issue 24): through a pointer taken in traced
# code and from a file built with MTRACE_NO_MACROS: a site per calling
# address, named at exit in the summary, the leak errors, the JSON report and
# (by "#site" records) the Massif file
$CC $CFLAGS_T $WARN -DMTRACE=1 $TRACED -c fnptr.c -o "$TMP/fnptr.o" && \
    $CC $CFLAGS_T $WARN -DMTRACE=1 -DMTRACE_NO_MACROS $TRACED -c nomacros.c -o "$TMP/nomacros.o" && \
    $CC $CFLAGS_T "$TMP/fnptr.o" "$TMP/nomacros.o" -o "$TMP/fnptr" $LINKED
MTRACE_REPORT="$TMP/fnptr.json" run fnptr
grep -E '^ +[0-9]+ |error:' "$TMP/fnptr.err" > "$TMP/fnptr.got"
same "calls through a pointer and from MTRACE_NO_MACROS: named places, summary and leaks" fnptr.expected "$TMP/fnptr.got"
hasnt "calls through a pointer: no <unknown> site left" "$TMP/fnptr.err" "<unknown>"
has "calls through a pointer: the JSON report names them" "$TMP/fnptr.json" '"function": "node", "file": "fnptr.c", "line": 14'
check "calls through a pointer: the trace replays" replay fnptr
has "calls through a pointer: the trace names the site at exit" "$TMP/fnptr.trace" "#site 1 node fnptr.c 14"
"$TOP/mtrace2massif" --time-unit=B "$TMP/fnptr.trace" -o "$TMP/fnptr.massif" 2> /dev/null
has "calls through a pointer: the Massif file's tree names them" "$TMP/fnptr.massif" "node (fnptr.c:14)"
# ... and under MTRACE_DEPTH their callers, walked from the frame the
# entry point saved (no macro gave one)
FP="-fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS"
$CC $CFLAGS_T $FP -DMTRACE=1 $TRACED -c fnptr.c -o "$TMP/fnptr.o" && \
    $CC $CFLAGS_T $FP -DMTRACE=1 -DMTRACE_NO_MACROS $TRACED -c nomacros.c -o "$TMP/nomacros.o" && \
    $CC $CFLAGS_T "$TMP/fnptr.o" "$TMP/nomacros.o" -o "$TMP/fnptrfp" $LINKED
MTRACE_DEPTH=4 run fnptrfp
cat > "$TMP/fnptrfp.expected" <<'X'
fnptr.c:14: error: 1000 bytes in 1 block leaked here (in node)
fnptr.c:28: note: called from main
fnptr.c:21: error: 24 bytes in 1 block leaked here (in text)
fnptr.c:28: note: called from main
nomacros.c:7: error: 7 bytes in 1 block leaked here (in from_nomacros)
fnptr.c:32: note: called from main
X
grep -E 'error:|note:' "$TMP/fnptrfp.err" > "$TMP/fnptrfp.got"
same "calls through a pointer, MTRACE_DEPTH=4: their callers under them" "$TMP/fnptrfp.expected" "$TMP/fnptrfp.got"
check "calls through a pointer, MTRACE_DEPTH=4: a #stack with frames for each" \
    test "$(grep -cE '^#stack [0-9]+ [0-9]+ 0x' "$TMP/fnptrfp.trace")" -ge 3

finish
