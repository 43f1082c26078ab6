#!/bin/bash
# SPDX-License-Identifier: MIT
# Call stacks (MTRACE_DEPTH=N): the callers of each allocation, walked by
# frame pointers in traced code only, written once per distinct stack,
# named by addr2line in the leak and double-free reports.  Each test is a
# program in tests/depth/, the command, and what must come out.
. "$(dirname "$0")/lib.sh"
cp "$TOP"/tests/depth/*.c "$TMP"/ && cd "$TMP" || exit 2
LIB="-DMTRACE_LIB -include $TOP/mtrace.h"
LINK="-L$TOP -Wl,-rpath,$TOP -lmtrace"
REPLAY="awk -f $TOP/tests/tracer/replay.awk"
# build NAME [flags...]: NAME.c traced at level 1, linked with libmtrace
build() { local n=$1; shift; $CC $CFLAGS_T -O0 -DMTRACE=1 $LIB "$@" $n.c -o $n $LINK -lpthread; }
# names TRACE SID: the functions of stack SID's callers, by addr2line
names() {
    awk -v sid="$2" '$1 == "#map" { lo[++n] = $2; hi[n] = $3; bias[n] = $4; path[n] = $5 }
        $1 == "#stack" && $2 == sid { for (i = 4; i <= NF; i++) print $i }
        END { for (i = 1; i <= n; i++) print "map", lo[i], hi[i], bias[i], path[i] }' "$1" |
    python3 -c '
import sys, subprocess
lines = sys.stdin.read().split("\n")
maps = [l.split()[1:] for l in lines if l.startswith("map ")]
out = []
for a in [l for l in lines if l.startswith("0x")]:
    a = int(a, 16)
    for lo, hi, bias, path in maps:
        if int(lo, 16) <= a < int(hi, 16):
            f = subprocess.run(["addr2line", "-f", "-e", path, hex(a - 1 - int(bias, 16))],
                               capture_output=True, text=True).stdout.split("\n")[0]
            out.append(f)
print(" ".join(out))'
}

# --- without MTRACE_DEPTH the trace is what it was: no '#' but #cmd, 6 fields
build helpers && MTRACE=plain.trace ./helpers 2> plain.err
check "no MTRACE_DEPTH: no stack records" sh -c "! grep -q '^#[dms]' plain.trace"
check "no MTRACE_DEPTH: every record has 6 fields" sh -c "awk '/^[-+<>] / && NF != 6 {exit 1}' plain.trace"
check "no MTRACE_DEPTH: the trace replays" sh -c "$REPLAY plain.trace > /dev/null"

# --- helpers.c: three levels of helpers and recursion; a qsort callback
MTRACE_DEPTH=8 MTRACE=h.trace ./helpers 2> h.err; echo $? > h.rc
check "depth 8: the trace replays (SIDs, sites, sizes, stacks)" sh -c "$REPLAY h.trace > /dev/null"
has "depth 8: #depth after #cmd" h.trace "#depth 8"
check "depth 8: records have the same first 5 fields as without stacks" \
    bash -c "diff <(awk '/^[-+<>] / {print \$1, \$2, \$3, \$4, \$5}' plain.trace) <(awk '/^[-+<>] / {print \$1, \$2, \$3, \$4, \$5}' h.trace)"
check "depth 8: each distinct stack written once" test "$(grep -c '^#stack' h.trace)" = "$(grep '^#stack' h.trace | cut -d' ' -f3- | sort -u | wc -l)"
check "depth 8: the program and the C library mapped" \
    sh -c "grep -q '^#map .* $TMP/helpers\$' h.trace && grep -q '^#map .*/libc.so.6\$' h.trace"
if command -v addr2line > /dev/null; then
    check "stack 1: copy <- main <- the C library's start, where the walk stops" \
        test "$(names h.trace 1)" = "copy main __libc_start_call_main"
    check "stack 2: copy <- nest <- nest <- nest <- main (recursion)" \
        test "$(names h.trace 2)" = "copy nest nest nest main __libc_start_call_main"
    [ -z "$ASAN" ] && check "stack 3: a callback from qsort: the libc frame is kept, and the walk stops there" \
        test "$(names h.trace 3)" = "msort_with_tmp"       # (ASan has its own qsort)
    cat > h.expected <<'X'
helpers.c:4: error: 5 bytes in 1 block leaked here (in xmalloc)
helpers.c:5: note: called from copy
helpers.c:12: note: called from main
X
    grep -A3 'error:' h.err > h.got
    same "leak report: the chain under the place, up to main" h.expected h.got
fi
if command -v gnuplot > /dev/null; then
    { echo "set terminal dumb"; tail -n 2 h.trace; } | gnuplot > h.plot 2> h.gperr
    check "gnuplot draws the tail of a trace with stacks, silently" test -s h.plot -a ! -s h.gperr
fi

# --- a call in a loop: addr2line adds "(discriminator N)" to its line
cp "$TOP/examples/leak.c" . && build leak && MTRACE_DEPTH=8 MTRACE=lk.trace ./leak > /dev/null 2> lk.err
if command -v addr2line > /dev/null; then
    cat > lk.expected <<'X'
leak.c:25: error: 100 bytes in 1 block leaked here (in checksum)
leak.c:47: note: called from main
leak.c:18: error: 23 bytes in 4 blocks leaked here (in push)
leak.c:45: note: called from main
X
    grep -A1 'error:' lk.err > lk.got
    same "calls in loops: file:line without the discriminator" lk.expected lk.got
fi

# --- 512 distinct stacks of one site: the site table grows under the lookup
build many && MTRACE_DEPTH=12 MTRACE=many.trace ./many 2> many.err; echo $? > many.rc
check "512 stacks: the program runs to the end" test "$(cat many.rc)" = 0
check "512 stacks: each written once" test "$(grep -c '^#stack' many.trace)" = 512
check "512 stacks: the trace replays" sh -c "$REPLAY many.trace > /dev/null"

# --- a value that is not a number of frames: one warning, the program unchanged
MTRACE_DEPTH=eight MTRACE=bad.trace ./helpers > bad.out 2> bad.err; echo $? > bad.rc
has "MTRACE_DEPTH=eight: one warning" bad.err "*** MTRACE: warning: MTRACE_DEPTH=eight is not a number of frames: no call stacks"
check "MTRACE_DEPTH=eight: no stacks, the same exit status" sh -c "! grep -q '^#stack' bad.trace && test \$(cat bad.rc) = 1"
MTRACE_DEPTH=1000 MTRACE=big.trace ./helpers 2> big.err
has "MTRACE_DEPTH=1000: at most 64, said once" big.err "*** MTRACE: warning: MTRACE_DEPTH=1000: call stacks of 64 frames at most"
has "MTRACE_DEPTH=1000: stacks of 64 frames asked" big.trace "#depth 64"

# --- depth 1: the site only, the records still name their stack
MTRACE_DEPTH=1 MTRACE=d1.trace ./helpers 2> /dev/null
check "depth 1: one stack per site, no callers" test "$(grep -c '^#stack [0-9]* [0-9]*$' d1.trace)" = 2
check "depth 1: the trace replays" sh -c "$REPLAY d1.trace > /dev/null"

# --- frame pointers: optimised code without them is never walked
$CC $CFLAGS_T -O2 -fomit-frame-pointer -DMTRACE=1 $LIB helpers.c -o helpers-o2 $LINK
MTRACE_DEPTH=8 MTRACE=o2.trace ./helpers-o2 2> /dev/null
check "-O2 without frame pointers: one caller (the macro keeps that frame), none guessed beyond" \
    test "$(grep '^#stack' o2.trace | awk 'NF != 4' | wc -l)" = 0
$CC $CFLAGS_T -O2 -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -fno-inline -DMTRACE=1 $LIB helpers.c -o helpers-fp $LINK
MTRACE_DEPTH=8 MTRACE=fp.trace ./helpers-fp 2> /dev/null
if command -v addr2line > /dev/null; then
    check "-O2 with frame pointers (mtrace-cc's flags): walked up to main" \
        test "$(names fp.trace 1)" = "copy main __libc_start_call_main"
fi

# --- a traced shared library with hidden helpers, called by an untraced main
$CC $CFLAGS_T -O0 -fPIC -shared -DMTRACE=1 $LIB shlib.c -o libdepth.so $LINK
$CC $CFLAGS_T -O0 shmain.c -o shmain -L. -Wl,-rpath,"$TMP" -ldepth
MTRACE_DEPTH=8 MTRACE=sh.trace ./shmain 2> sh.err
check "shared library: the trace replays" sh -c "$REPLAY sh.trace > /dev/null"
has "shared library: its segment is mapped by its path" sh.trace "$TMP/libdepth.so"
if command -v addr2line > /dev/null; then
    check "shared library: lib_mid <- lib_api <- main, then the walk stops in untraced main" \
        test "$(names sh.trace 1)" = "lib_mid lib_api main"
    has "shared library: the leak's chain crosses into the program" sh.err "shmain.c:3: note: called from main"
fi

# --- MTRACE_ALLOC_FN at run time: a two-level wrapper through a pointer
build wrapper
MTRACE_DEPTH=8 MTRACE=w.trace MTRACE_REPORT=w.json MTRACE_ALLOC_FN="raw_alloc,wrap_alloc" ./wrapper 2> w.err
# json_leaks FILE: each leak record of a JSON report, one line, its callers after it
json_leaks() { python3 -c '
import json, sys
for k in json.load(open(sys.argv[1]))["leaks"]:
    print(k["function"], k["file"], k["line"], k["bytes"], "<-", *[" ".join(str(v) for v in c.values()) for c in k["callers"]])' "$1"; }
if command -v addr2line > /dev/null; then
    cat > w.expected <<'X'
   at peak                function   file (charged past MTRACE_ALLOC_FN)
       100              make_table   wrapper.c:15
        20               make_name   wrapper.c:16
X
    grep -A2 'at peak' w.err > w.got
    same "MTRACE_ALLOC_FN: the summary charges the wrappers' callers" w.expected w.got
    cat > w.expected <<'X'
wrapper.c:16: error: 20 bytes in 1 block leaked here (in make_name)
wrapper.c:21: note: called from main
X
    grep -A1 'error:' w.err > w.got
    same "MTRACE_ALLOC_FN: the leak is charged to the wrapper's caller" w.expected w.got
    echo "make_name wrapper.c 16 20 <- main wrapper.c 21" > wj.expected
    json_leaks w.json > wj.got
    same "MTRACE_ALLOC_FN: the JSON leak record charged as the text's (function, file, line, callers)" wj.expected wj.got
fi
# (without debug information, as Lua's own makefile builds: the functions
# have names, their files and lines none)
$CC $CFLAGS_T -O0 -DMTRACE=1 $LIB wrapper.c -o wrapper-g $LINK && strip --strip-debug -o wrapper-nog wrapper-g
MTRACE_DEPTH=8 MTRACE=wn.trace MTRACE_REPORT=wn.json MTRACE_ALLOC_FN="raw_alloc,wrap_alloc" ./wrapper-nog 2> wn.err
if command -v addr2line > /dev/null; then
    cat > wn.expected <<'X'
   at peak                function   file (charged past MTRACE_ALLOC_FN)
       100              make_table   <unknown>
        20               make_name   <unknown>
X
    grep -A2 'at peak' wn.err > wn.got
    same "MTRACE_ALLOC_FN without -g: charged by function name, the file unknown" wn.expected wn.got
    has "... and the leak too" wn.err "<unknown>:0: error: 20 bytes in 1 block leaked here (in make_name)"
    # main, without line information: {"function", "module", "offset"}, the module's absolute path
    main_off=$(nm wrapper-nog | awk '$3 == "main" { print $1 }')
    json_leaks wn.json | awk -v dir="$TMP" -v lo=$((16#$main_off)) \
        '$1 == "make_name" && $2 == "<unknown>" && $3 == 0 && $6 == "main" && $7 == dir "/wrapper-nog" && $8 > lo && $8 < lo + 256 && NF == 8' > wn.ok
    check "without -g, JSON: the caller as {function, module, offset}, the offset inside main" test -s wn.ok
fi
# the same wrappers under the names of gcc's copies (issue 24): matched
$CC $CFLAGS_T -O0 -DMTRACE=1 -DCLONE_NAMES $LIB wrapper.c -o clones-g $LINK && strip --strip-debug -o clones clones-g
MTRACE_DEPTH=8 MTRACE=cl.trace MTRACE_ALLOC_FN="raw_alloc,wrap_alloc" ./clones 2> cl.err
if command -v addr2line > /dev/null; then
    grep -A2 'at peak' cl.err > cl.got
    same "MTRACE_ALLOC_FN matches gcc's copies (f.constprop.0, f.isra.0)" wn.expected cl.got
    has "... and the leak is charged past them" cl.err "<unknown>:0: error: 20 bytes in 1 block leaked here (in make_name)"
fi
MTRACE_DEPTH=8 MTRACE=w2.trace ./wrapper 2> w2.err
has "without MTRACE_ALLOC_FN: charged to the wrapper's malloc" w2.err "wrapper.c:12: error: 20 bytes in 1 block leaked here (in raw_alloc)"

# --- the double-free report: the bad free's and the allocation's callers
build dfree
{ MTRACE_DEPTH=8 MTRACE=df.trace ./dfree 2> df.err; } 2> /dev/null   # it aborts
if command -v addr2line > /dev/null && [ -z "$ASAN" ]; then    # (ASan reports it first)
    cat > df.expected <<'X'
dfree.c:3: error: double free of a block (in release)
dfree.c:11: note: called from main
dfree.c:4: note: the block was allocated here (in make)
dfree.c:5: note: called from build
dfree.c:9: note: called from main
dfree.c:3: note: and first freed here (in release)
dfree.c:10: note: called from main
X
    same "double free: three places, each with its callers" df.expected df.err
fi

# --- two calls on one line: two return addresses, one reading, one
#     record (issue 36); and a double free whose two frees are in one
#     helper: only the callers of each tell them apart
cat > twice.c <<'EOT'
#include <stdlib.h>
static void *kept[4];
static int nk;
static void keep(void *p) { kept[nk++] = p; }
static void *mk(size_t n) { return malloc(n); }
static void put(void *p) { free(p); }
static void first(void *p) { put(p); }
static void second(void *p) { put(p); }
int main(void)
{
    char *p = mk(10);
    keep(mk(64)); keep(mk(64));
    first(p);
    second(p);
    nk = 0;
    return 0;
}
EOT
build twice
{ MTRACE_DEPTH=8 MTRACE=tw.trace ./twice 2> tw.err; } 2> /dev/null   # it aborts at the second free
if command -v addr2line > /dev/null && [ -z "$ASAN" ]; then
    cat > tw.expected <<'X'
twice.c:6: error: double free of a block (in put)
twice.c:8: note: called from second
twice.c:14: note: called from main
twice.c:5: note: the block was allocated here (in mk)
twice.c:11: note: called from main
twice.c:6: note: and first freed here (in put)
twice.c:7: note: called from first
twice.c:13: note: called from main
X
    same "double free in one helper: the first free's callers tell it apart" tw.expected tw.err
    MTRACE_DOUBLE_FREE=continue MTRACE_DEPTH=8 MTRACE=tw.trace ./twice 2> tw2.err
    grep -A1 'leaked here' tw2.err > tw2.got
    printf 'twice.c:5: error: 128 bytes in 2 blocks leaked here (in mk)\ntwice.c:12: note: called from main\n' > tw2.expected
    same "two calls on one line, MTRACE_DEPTH=8: one record of both blocks" tw2.expected tw2.got
fi

# --- without addr2line the frames are named by module and offset
MTRACE_ADDR2LINE= MTRACE_DEPTH=8 MTRACE=na.trace MTRACE_REPORT=na.json ./helpers 2> na.err
check "no addr2line: each caller as module+offset (the module's path as the report's others: relative)" \
    sh -c "grep -qE '^<unknown>:0: note: called from 0x[0-9a-f]+ \\(in helpers\\+0x[0-9a-f]+\\)\$' na.err"
# the JSON's callers: the same frames, the module's path as the loader gives it (absolute)
sed -n 's/^<unknown>:0: note: called from 0x[0-9a-f]* (in \(.*\)+0x\([0-9a-f]*\))$/\1 \2/p' na.err |
    awk -v dir="$TMP" '{ print ($1 ~ /^\// ? $1 : dir "/" $1), $2 }' > naj.expected
python3 -c '
import json, sys
for k in json.load(open(sys.argv[1]))["leaks"]:
    for c in k["callers"]:
        print(c["module"], "%x" % c["offset"])' na.json > naj.got
check "no addr2line, JSON: the callers as {function, module, offset}, the text's frames ($(wc -l < naj.got))" \
    test -s naj.got
same "... each the text's module (absolute) and offset" naj.expected naj.got

# --- a hostile directory name reaches addr2line as one argument, no shell
EVIL="$TMP/a \$(touch pwned) 'q\`touch pwned2\`"
mkdir -p "$EVIL" && cp libdepth.so "$EVIL/" && $CC $CFLAGS_T -O0 shmain.c -o "$EVIL/shmain" -L"$EVIL" -Wl,-rpath,"$EVIL" -ldepth
(cd "$EVIL" && MTRACE_DEPTH=8 MTRACE="$TMP/evil.trace" ./shmain 2> "$TMP/evil.err")
check "hostile library path: nothing runs" test ! -e pwned -a ! -e pwned2 -a ! -e "$EVIL/pwned" -a ! -e "$EVIL/pwned2"
if command -v addr2line > /dev/null; then
    has "hostile library path: still named" evil.err "note: called from lib_api"
fi

# --- one traced module, a file of it built without frame pointers
#     (limits.md): the caller of that file's function is skipped
$CC $CFLAGS_T -O0 -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -DMTRACE=1 $LIB -c mixa.c
$CC $CFLAGS_T -O2 -fomit-frame-pointer -DMTRACE=1 $LIB -c mixb.c -o mixb-nofp.o
$CC $CFLAGS_T -O0 -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -DMTRACE=1 $LIB -c mixb.c
$CC mixa.o mixb-nofp.o -o mixed $LINK && $CC mixa.o mixb.o -o unmixed $LINK
if command -v addr2line > /dev/null; then
    at() { echo "$1:$(grep -n "/\* $2 \*/" "$1" | cut -d: -f1)"; }
    MTRACE_DEPTH=8 MTRACE=unmixed.trace ./unmixed 2> unmixed.err
    { echo "$(at mixa.c LEAF): error: 25 bytes in 1 block leaked here (in leaf)"
      echo "$(at mixb.c MID): note: called from mid"
      echo "$(at mixa.c UPPER): note: called from upper"
      echo "$(at mixa.c MAIN): note: called from main"; } > unmixed.expected
    grep -E 'error:|note:' unmixed.err > unmixed.got
    same "one module built alike (frame pointers): leaf <- mid <- upper <- main" unmixed.expected unmixed.got
    MTRACE_DEPTH=8 MTRACE=mixed.trace ./mixed 2> mixed.err
    grep -v "called from upper" unmixed.expected > mixed.expected
    grep -E 'error:|note:' mixed.err > mixed.got
    same "mixb.c built without frame pointers: mid still shown, its caller upper skipped (its frame read as mid's)" \
        mixed.expected mixed.got
fi

# --- a library unloaded and another loaded at its address (limits.md):
#     segments are learnt once, so a frame in the second is named after
#     the first; both kept loaded (at two addresses), each by its own
$CC $CFLAGS_T -O0 -fno-omit-frame-pointer -shared -fPIC dlone.c -o libdlone.so
$CC $CFLAGS_T -O0 -fno-omit-frame-pointer -shared -fPIC dltwo.c -o libdltwo.so
build dlhost
MTRACE_DEPTH=8 MTRACE=dlk.trace ./dlhost keep > dlk.out 2> dlk.err
if command -v addr2line > /dev/null; then
    has "two libraries kept loaded: the second's frame named by its own file" dlk.err "dltwo.c:$(grep -n " = f(" dltwo.c | cut -d: -f1): note: called from p2_make"
    has "... and the first's by its" dlk.err "dlone.c:$(grep -n " = f(" dlone.c | cut -d: -f1): note: called from p1_call"
    MTRACE_DEPTH=8 MTRACE=dlc.trace ./dlhost > dlc.out 2> dlc.err
    if [ "$(sort -u dlc.out | wc -l)" = 1 ]; then
        check "dlclose, then another library at the same address: its frame named after the first (dlone.c)" \
            sh -c "grep -A1 'error: 20 bytes' dlc.err | grep -q '^dlone.c:[0-9]*: note: called from p1_'"
        check "... one #map for that range, the first library's" \
            test "$(grep -c '^#map .*libdl\(one\|two\).so$' dlc.trace) $(grep -c '^#map .*libdlone.so$' dlc.trace)" = "1 1"
    else
        echo "     (the second library was loaded elsewhere: the same-address case not tried)"
    fi
fi

# --- fork: the child's trace has its own map and stack records
build forked
MTRACE_DEPTH=8 MTRACE=fk.trace ./forked 2> fk.err
child=$(ls fk.trace.* 2> /dev/null | head -n 1)
check "fork: the parent's trace replays" sh -c "$REPLAY fk.trace > /dev/null"
check "fork: the child's trace replays (its #map and #stack written again)" sh -c "test -n '$child' && $REPLAY '$child' > /dev/null"
check "fork: the child's trace starts its stacks at 1" sh -c "grep -q '^#stack 1 1 ' '$child' && grep -q '^#map ' '$child'"

# --- threads: 4 threads, cross-thread frees and reallocs
build threads
MTRACE_DEPTH=8 MTRACE=th.trace ./threads 2> th.err
check "threads: the trace replays with stacks" sh -c "$REPLAY th.trace > /dev/null"
check "threads: all 240000 records" test "$(grep -c '^[-+<>] ' th.trace)" = 240000
if [ -z "$ASAN" ] && echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c - -o tsan 2> /dev/null && ./tsan; then
    $CC -g -O1 -fsanitize=thread -DMTRACE=1 -include "$TOP/mtrace.h" threads.c -o threads.tsan -lpthread
    MTRACE=th2.trace MTRACE_DEPTH=8 TSAN_OPTIONS=halt_on_error=1 ./threads.tsan > /dev/null 2> th.tsan.err
    hasnt "ThreadSanitizer: stacks in 4 threads, no race" th.tsan.err "ThreadSanitizer"
    check "ThreadSanitizer: the trace replays" sh -c "$REPLAY th2.trace > /dev/null"
fi

# --- calls no macro announced (through a pointer, from MTRACE_NO_MACROS):
#     their callers too, walked from the frame the entry point saved
cp "$TOP"/tests/tracer/fnptr.c "$TOP"/tests/tracer/nomacros.c .
$CC $CFLAGS_T -O0 -DMTRACE=1 $LIB -c fnptr.c -o fnptr.o && \
    $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_NO_MACROS $LIB -c nomacros.c -o nomacros.o && \
    $CC fnptr.o nomacros.o -o fnptr $LINK
MTRACE_DEPTH=4 MTRACE=fp.trace ./fnptr 2> fp.err
grep -A1 'fnptr.c:14: error' fp.err > fp.got
printf 'fnptr.c:14: error: 1000 bytes in 1 block leaked here (in node)\nfnptr.c:28: note: called from main\n' > fp.expected
nasan same "through a pointer, MTRACE_DEPTH=4: the caller under the place" fp.expected fp.got
nasan check "through a pointer, MTRACE_DEPTH=4: the stack names main, then the C library's start" \
    test "$(names fp.trace 1)" = "main __libc_start_call_main"

# --- leak records that read the same are one: a wrapper's two malloc
#     lines, both charged past MTRACE_ALLOC_FN to one call in make()
cat > twice.c <<'EOT'
#include <stdlib.h>
static void *keep[4];
static void *xmalloc(size_t n)
{
    if (n > 100)
        return malloc(n);
    return malloc(n + 1);
}
static void make(int i, size_t n)
{
    keep[i] = xmalloc(n);           /* CHARGED */
}
int main(void)
{
    int i;
    for (i = 0; i < 4; i++)
        make(i, i & 1 ? 200 : 10);  /* LOOP */
    return 0;
}
EOT
if command -v addr2line > /dev/null; then
    build twice
    MTRACE_DEPTH=4 MTRACE=tw.trace MTRACE_ALLOC_FN=xmalloc ./twice 2> tw.err
    printf 'twice.c:%d: error: 422 bytes in 4 blocks leaked here (in make)\ntwice.c:%d: note: called from main\n' \
        "$(grep -n CHARGED twice.c | cut -d: -f1)" "$(grep -n LOOP twice.c | cut -d: -f1)" > tw.expected
    grep -A1 'error:' tw.err > tw.got
    same "MTRACE_ALLOC_FN: two sites charged to one place and stack, one record" tw.expected tw.got
fi

# --- a program built wholly with MTRACE_NO_MACROS (Redis so built): its
#     build said that it keeps frame pointers (mtrace.h registers each
#     module so built, issue 36), so the callers come up to main with
#     nothing set at run time; MTRACE_FRAME_POINTERS=1 is the user's word
#     for a module built otherwise
cat > nomac.c <<'EOT'
#include <stdlib.h>
void *volatile keep;                    /* (kept at -O2) */
static __attribute__((noinline)) void *inner(size_t n)
{
    void *p = malloc(n);                /* CALL */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
static __attribute__((noinline)) void *middle(size_t n)
{
    void *p = inner(n);                 /* INNER */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
int main(void)
{
    keep = middle(100);                 /* MIDDLE */
    keep = 0;
    return 0;
}
EOT
if command -v addr2line > /dev/null; then
    build nomac -DMTRACE_NO_MACROS
    l() { grep -n "$1" nomac.c | cut -d: -f1; }
    printf 'nomac.c:%d: error: 100 bytes in 1 block leaked here (in inner)\n' "$(l CALL)" > nm0.expected
    printf 'nomac.c:%d: note: called from middle\nnomac.c:%d: note: called from main\n' \
        "$(l INNER)" "$(l MIDDLE)" | cat nm0.expected - > nm1.expected
    MTRACE_DEPTH=8 MTRACE=nm1.trace ./nomac 2> nm1.err
    grep -E 'error:|note:' nm1.err > nm1.got
    same "all MTRACE_NO_MACROS, -O0 (frame pointers implied), MTRACE_DEPTH=8: up to main" nm1.expected nm1.got
    # -O2 with frame pointers, not said (-DMTRACE_FRAME_POINTERS missing)
    $CC $CFLAGS_T -O2 -fno-omit-frame-pointer -DMTRACE=1 -DMTRACE_NO_MACROS $LIB nomac.c -o nomac-o2 $LINK
    MTRACE_DEPTH=8 MTRACE=nm2.trace ./nomac-o2 2> nm2.err
    grep -E 'error:|note:' nm2.err > nm2.got
    same "... built without saying it keeps frame pointers: no caller guessed" nm0.expected nm2.got
    MTRACE_DEPTH=8 MTRACE_FRAME_POINTERS=1 MTRACE=nm3.trace ./nomac-o2 2> nm3.err
    grep -E 'error:|note:' nm3.err > nm3.got
    same "... with MTRACE_FRAME_POINTERS=1: up to main" nm1.expected nm3.got
    MTRACE_DEPTH=8 MTRACE_FRAME_POINTERS=yes MTRACE=nm4.trace ./nomac 2> nm4.err
    has "MTRACE_FRAME_POINTERS=yes: one warning" nm4.err "MTRACE_FRAME_POINTERS=yes is not 1"
fi

# --- the same in three files with three callers between the allocation
#     and main (tests/depth/nm*.c), built as projects build: mtrace-cc,
#     the one-line use, a shared library (-fvisibility=hidden), a plugin,
#     a static link.  The whole chain by default (before issue 36: one
#     caller without MTRACE_FRAME_POINTERS=1)
MCC="env MTRACE_CC=$CC $TOP/mtrace-cc $CFLAGS_T -DMTRACE_NO_MACROS"
at() { echo "$1:$(grep -n "$2" "$1" | cut -d: -f1)"; }
# chain MAIN_PLACE: the leak record of nm_leaf's 100 bytes, main at MAIN_PLACE
chain() {
    printf '%s: error: 100 bytes in 1 block leaked here (in nm_leaf)\n' "$(at nmleaf.c LEAF)"
    printf '%s: note: called from %s\n' "$(at nmmid.c INNER)" nm_inner "$(at nmmid.c OUTER)" nm_outer \
        "$(at nmmid.c API)" nm_api "$1" main
}
# record NAME CMD...: runs CMD with MTRACE_DEPTH=8 (trace NAME.trace), the
# leak records of its stderr in NAME.got
record() { local n=$1; shift; MTRACE_DEPTH=8 MTRACE=$n.trace "$@" 2> $n.err; grep -E 'error:|note:' $n.err > $n.got; }
if command -v addr2line > /dev/null; then
    chain "$(at nmmain.c MAIN)" > chain.expected
    $MCC -c nmleaf.c && $MCC -c nmmid.c && $MCC -c nmmain.c && $MCC nmleaf.o nmmid.o nmmain.o -o nmcc
    record nmcc ./nmcc
    same "mtrace-cc, all MTRACE_NO_MACROS, 3 files: the whole chain up to main" chain.expected nmcc.got
    check "... in the trace's stack too (nm_leaf's caller first)" \
        test "$(names nmcc.trace 1)" = "nm_inner nm_outer nm_api main __libc_start_call_main"
    $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_NO_MACROS -include "$TOP/mtrace.h" nmleaf.c nmmid.c nmmain.c -o nmone
    record nmone ./nmone
    same "one-line use (-O0), all MTRACE_NO_MACROS: the whole chain" chain.expected nmone.got
    $MCC -fPIC -shared -fvisibility=hidden nmleaf.c nmmid.c -o libnm.so && \
        $MCC nmmain.c -o nmshared -L. -Wl,-rpath,"$TMP" -lnm
    record nmshared ./nmshared
    same "shared library (-fvisibility=hidden): the chain through it and into the program" chain.expected nmshared.got
    $MCC nmplug.c -o nmplug -ldl
    record nmplug ./nmplug "$TMP/libnm.so"
    chain "$(at nmplug.c PLUGIN)" > plug.expected
    same "dlopen'd plugin: the chain through it and into the program" plug.expected nmplug.got
    if [ -z "$ASAN" ] && $MCC -static nmleaf.c nmmid.c nmmain.c -o nmstatic 2> /dev/null; then
        record nmstatic ./nmstatic
        same "static link: the whole chain" chain.expected nmstatic.got
    fi
    # a library built without frame pointers: nothing walked through it
    $CC $CFLAGS_T -O2 -fomit-frame-pointer -fPIC -shared -DMTRACE=1 -DMTRACE_NO_MACROS $LIB nofp.c -o libnofp.so $LINK && \
        $MCC nofpmain.c -o nofpmain -L. -Wl,-rpath,"$TMP" -lnofp
    record nofp ./nofpmain
    { printf '%s: error: 64 bytes in 1 block leaked here (in nofp_inner)\n' "$(at nofp.c NOFP)"
      printf '%s: error: 32 bytes in 1 block leaked here (in callback)\n' "$(at nofpmain.c BACK)"
      printf '%s: note: called from nofp_call\n' "$(at nofp.c CALLBACK)"; } > nofp.expected
    same "no frame pointers (-O2 -fomit-frame-pointer): its allocation without a caller guessed; a walk from the program stops at its frame" \
        nofp.expected nofp.got
fi

# --- paths (issue 36): a program built inside src/ as Redis is (a.c with
#     the macros, b.c with MTRACE_NO_MACROS, c.c by its absolute path as
#     CMake compiles) writes every path of its report one way: relative to
#     the directory it runs in when they lie below it, else absolute (the
#     sites' __FILE__ too, "a.c" and "/.../src/c.c", not only addr2line's)
if command -v addr2line > /dev/null; then
    P=$TMP/paths && mkdir -p "$P/src" "$P/elsewhere" && cp "$TOP"/tests/depth/paths/*.c "$P/src/"
    MC="env MTRACE_CC=$CC $TOP/mtrace-cc $CFLAGS_T"
    (cd "$P/src" && $MC -c a.c && $MC -DMTRACE_NO_MACROS -c b.c && $MC -c "$P/src/c.c" && $MC a.o b.o c.o -o prog)
    (cd "$P/src" && $CC $CFLAGS_T -O0 -DMTRACE=1 -include "$TOP/mtrace.h" a.c "$P/src/c.c" -c && \
        $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_NO_MACROS -include "$TOP/mtrace.h" -c b.c && $CC a.o b.o c.o -o prog1)
    # expect PREFIX: the summary's rows, then the leak records with their callers
    line() { grep -nF "$2" "$P/src/$1" | cut -d: -f1; }
    expect() {
        printf '%s %s%s:%s\n' c_alloc "$1" c.c "$(line c.c '/* C */')" b_alloc "$1" b.c "$(line b.c '/* B */')" fill "$1" a.c "$(line a.c '/* A */')"
        printf '%s%s:%s: error: %s bytes in 1 block leaked here (in %s)\n' "$1" c.c "$(line c.c '/* C */')" 30 c_alloc \
            "$1" b.c "$(line b.c '/* B */')" 20 b_alloc "$1" a.c "$(line a.c '/* A */')" 10 fill
    }
    expect_stacks() {
        printf '%s %s%s:%s\n' c_alloc "$1" c.c "$(line c.c '/* C */')" b_alloc "$1" b.c "$(line b.c '/* B */')" fill "$1" a.c "$(line a.c '/* A */')"
        printf '%sc.c:%s: error: 30 bytes in 1 block leaked here (in c_alloc)\n' "$1" "$(line c.c '/* C */')"
        printf '%sa.c:%s: note: called from %s\n' "$1" "$(line a.c FILL_C)" fill "$1" "$(line a.c MAIN)" main
        printf '%sb.c:%s: error: 20 bytes in 1 block leaked here (in b_alloc)\n' "$1" "$(line b.c '/* B */')"
        printf '%sa.c:%s: note: called from %s\n' "$1" "$(line a.c FILL_B)" fill "$1" "$(line a.c MAIN)" main
        printf '%sa.c:%s: error: 10 bytes in 1 block leaked here (in fill)\n' "$1" "$(line a.c '/* A */')"
        printf '%sa.c:%s: note: called from main\n' "$1" "$(line a.c MAIN)"
    }
    # report ERR: the summary's function and file columns, then the records
    report() {
        awk '/^ max bytes/ { on = 1; next } /^\*\*\*/ { on = 0 } on { print $3, $4 }' "$1"
        grep -E 'error:|note:' "$1"
    }
    # run NAME DIR PROG [VAR=value...]: PROG run in DIR, its report in NAME.got
    run() {
        local n=$1 d=$2 prog=$3; shift 3
        (cd "$d" && env MTRACE="$TMP/$n.trace" MTRACE_REPORT="$TMP/$n.json" "$@" "$prog" 2> "$TMP/$n.err")
        report "$TMP/$n.err" > "$TMP/$n.got"
    }
    expect src/ > paths.expected
    run pa "$P" src/prog
    same "paths: built in src/, run above it: every path of the summary and the leaks as src/FILE" paths.expected pa.got
    printf '%s\n' "fill a.c" "c_alloc $P/src/c.c" > pat.expected
    awk '$1 == "@" && $3 != "?" { print $3, $4 }' pa.trace > pat.got
    same "... while the trace's @ records keep __FILE__ as compiled (a.c, the absolute c.c)" pat.expected pat.got
    expect_stacks src/ > pathst.expected
    run pas "$P" src/prog MTRACE_DEPTH=8
    same "... with MTRACE_DEPTH=8: the sites and their callers alike" pathst.expected pas.got
    printf '"file": "src/%s"\n' a.c b.c c.c > json.expected
    grep -o '"file": "[^"]*"' pas.json | sort -u > json.got
    same "... the JSON report's files (sites, leaks, callers) alike" json.expected json.got
    run pa1 "$P" src/prog1 MTRACE_DEPTH=8
    same "... the one-line use alike" pathst.expected pa1.got
    expect '' > inside.expected
    run pin "$P/src" ./prog
    same "paths: run inside src/: a.c, b.c, c.c" inside.expected pin.got
    expect_stacks "$P/src/" > away.expected
    run paw "$P/elsewhere" ../src/prog MTRACE_DEPTH=8
    same "paths: run from a directory that does not hold them: absolute paths" away.expected paw.got
    # a double free is reported while the program runs: its places alike
    printf 'src/a.c:%s: error: double free of a block (in main)\nsrc/a.c:%s: note: the block was allocated here (in fill)\nsrc/a.c:%s: note: and first freed here (in main)\n' \
        "$(line a.c FREE2)" "$(line a.c '/* A */')" "$(line a.c FREE1)" > pdf.expected
    (cd "$P" && MTRACE="$TMP/pdf.trace" src/prog d 2> "$TMP/pdf.err")
    grep -E 'error:|note:' pdf.err > pdf.got
    same "paths: a double free's three places written as the exit report writes them" pdf.expected pdf.got
    run pna "$P" src/prog MTRACE_ADDR2LINE=
    has "paths: without addr2line, a relative __FILE__ stays as compiled (a documented limit)" pna.got "fill a.c:$(line a.c '/* A */')"
    has "... and an absolute one is still made relative" pna.got "c_alloc src/c.c:$(line c.c '/* C */')"
fi

# --- nothing is symbolized while the program runs: at exit addr2line names
# only the frames the report prints (doc/design.md, "Call stacks").  An
# MTRACE_ADDR2LINE wrapper logs what it answers; lazy.c's freed stack
# (through other()) is never printed, its leaked one (through mid()) is
printf '#!/bin/sh\naddr2line "$@" | tee -a "%s"\n' "$TMP/lazy.log" > lazy-addr2line && chmod +x lazy-addr2line
build lazy
MTRACE_DEPTH=4 MTRACE=lazy.trace MTRACE_ADDR2LINE=$TMP/lazy-addr2line ./lazy "$TMP/lazy.log" > lazy.out 2> lazy.err
check "lazy: addr2line not run while the program runs" test "$(cat lazy.out)" = "no addr2line yet"
has "lazy: at exit, the leak's caller named" lazy.err "called from mid"
check "lazy: addr2line asked for the printed frames only: mid's, never other's" \
    sh -c "grep -qx mid '$TMP/lazy.log' && ! grep -qx other '$TMP/lazy.log'"

finish
