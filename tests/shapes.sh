#!/bin/bash
# SPDX-License-Identifier: MIT
# The shapes real programs take (issue 10): several files, traced shared
# libraries (default and hidden visibility), a plugin opened and closed
# with dlopen/dlclose, a static library, --coverage, mixed levels, the
# program's own short names, strict C, files that declare or define the
# allocator, a vendored runtime.  Each in the project use (libmtrace) and,
# where it applies, the one-line use (the runtime compiled into each file).
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/shapes" || exit 2
H=$TOP/mtrace.h
# under `make test-sanitize` libmtrace is sanitized: so is everything linked with it
X=$(printf '%s\n' $CFLAGS_T | grep -- '^-fsanitize' | tr '\n' ' ')
LIB="$X -DMTRACE_LIB -include $H"  LINK="-L$TOP -Wl,-rpath,$TOP -lmtrace"
ONE="-include $H"
cd_tmp() { mkdir -p "$TMP/$1" && cp ./*.c "$TMP/$1/" && cd "$TMP/$1"; }
# run DIR PROG [args]: stdout, stderr, status in PROG.out .err .rc, trace PROG.trace
run() { local d=$1 p=$2; shift 2; (cd "$d" && MTRACE=$p.trace ./$p "$@" > $p.out 2> $p.err; echo $? > $p.rc); }
rc() { [ "$(cat "$1.rc")" = "$2" ] || { echo "     exit status $(cat "$1.rc"), expected $2"; return 1; }; }
errors() { grep -E 'error:|warning:' "$1.err"; }
replays() { awk -f "$TOP/tests/tracer/replay.awk" "$1.trace" > "$1.replay" || { cat "$1.replay"; return 1; }; }

# --- a program of two files and a traced shared library, both ways of
#     visibility, both uses: one runtime, one report, the one planted leak
for use in lib one; do
    for vis in default hidden; do
        name="$use/$vis"
        [ $use = lib ] && T="-DMTRACE=1 $LIB" L=$LINK || T="-DMTRACE=1 $ONE" L=
        (cd_tmp "app-$use-$vis" &&
            $CC $CFLAGS_T $T -fPIC -shared -fvisibility=$vis lib.c -o libshapes.so $L &&
            $CC $CFLAGS_T $T app.c helper.c -o app -L. -Wl,-rpath,"$PWD" -lshapes $L) 2> "$TMP/app-$use-$vis.cc"
        D=$TMP/app-$use-$vis
        run "$D" app
        check "shared library ($name): exit status 1 for the leak" rc "$D/app" 1
        echo "app.c:14: error: 7 bytes in 1 block leaked here (in main)" > "$D/expected"
        errors "$D/app" > "$D/errors"
        same "shared library ($name): the planted leak, nothing else (the cache freed in the library's destructor is no leak)" "$D/expected" "$D/errors"
        check "shared library ($name): stdout's buffered output written" test "$(cat "$D/app.out")" = "ok 1"
        check "shared library ($name): the trace replays" replays "$D/app"
        has "shared library ($name): the library's sites are in the trace" "$D/app.trace" " lib_make lib.c 13"
    done
done

# the same library as a static archive
(cd_tmp static-lib && $CC $CFLAGS_T -DMTRACE=1 $LIB -c lib.c -o lib.o && ar rcs libshapes.a lib.o &&
    $CC $CFLAGS_T -DMTRACE=1 $LIB app.c helper.c -o app libshapes.a $LINK) 2> "$TMP/static-lib.cc"
run "$TMP/static-lib" app
errors "$TMP/static-lib/app" > "$TMP/static-lib/errors"
echo "app.c:14: error: 7 bytes in 1 block leaked here (in main)" > "$TMP/static-lib/expected"
same "static library: the planted leak, nothing else" "$TMP/static-lib/expected" "$TMP/static-lib/errors"

# --- a traced plugin, opened and closed: the report and the trace stay
#     complete after dlclose, and what follows is still traced
(cd_tmp plugin-lib && $CC $CFLAGS_T -DMTRACE=1 $LIB -fPIC -shared plugin.c -o plugin.so $LINK &&
    $CC $CFLAGS_T -DMTRACE=1 $LIB host.c -o host $LINK -ldl) 2> "$TMP/plugin-lib.cc"
D=$TMP/plugin-lib
run "$D" host
check "plugin: exit status 1 (the plugin's leak), no crash after dlclose" rc "$D/host" 1
echo "plugin.c:11: error: 33 bytes in 1 block leaked here (in plugin_run)" > "$D/expected"
errors "$D/host" > "$D/errors"
same "plugin: its leak named after dlclose (plugin.c:11), nothing else" "$D/expected" "$D/errors"
check "plugin: the trace replays, with its tail" replays "$D/host"
has "plugin: the block allocated after dlclose is traced" "$D/host.trace" "main host.c 21"
check "plugin: the plugin's block freed by the host after dlclose" \
    sh -c "awk '\$1 == \"-\"' '$D/host.trace' | grep -q ."

# one-line use: the program exports its runtime (-rdynamic) and the plugin
# uses it; without that, the plugin's own copy stays off and says so
(cd_tmp plugin-one && $CC $CFLAGS_T -DMTRACE=1 $ONE -fPIC -shared plugin.c -o plugin.so &&
    $CC $CFLAGS_T -DMTRACE=1 $ONE -rdynamic host.c -o host -ldl &&
    $CC $CFLAGS_T -DMTRACE=1 $ONE host.c -o host-plain -ldl) 2> "$TMP/plugin-one.cc"
D=$TMP/plugin-one
run "$D" host
errors "$D/host" > "$D/errors"
same "plugin, one-line use with -rdynamic: one runtime, the plugin's leak" "$TMP/plugin-lib/expected" "$D/errors"
if [ -z "$ASAN" ]; then
    run "$D" host-plain
    has "plugin, one-line use without -rdynamic: a second runtime is detected, in one line" "$D/host-plain.err" \
        "*** MTRACE: warning: a second copy of the mtrace runtime is in this process; it stays off"
    check "plugin, one-line use without -rdynamic: still no crash" rc "$D/host-plain" 0
fi

# --- exit: the status (0 -> 1, another kept), stdout, --coverage
(cd_tmp exits && $CC $CFLAGS_T -DMTRACE=3 $LIB exits.c -o exits $LINK &&
    $CC -O0 --coverage -DMTRACE=3 $LIB exits.c -o exits-cov $LINK) 2> "$TMP/exits.cc"
D=$TMP/exits
run "$D" exits
check "exit: a leak turns status 0 into 1" rc "$D/exits" 1
check "exit: buffered stdout still written" test "$(cat "$D/exits.out")" = "buffered, no newline"
run "$D" exits 3
check "exit: a leak keeps status 3" rc "$D/exits" 3
run "$D" exits-cov
check "exit: --coverage build with a leak, status 1" rc "$D/exits-cov" 1
check "exit: --coverage build with a leak still writes its .gcda" test -s "$D/exits-cov-exits.gcda" -o -s "$D/exits.gcda"

# --- mixed levels: the lowest wins, said in one line at start-up
(cd_tmp mixed && $CC $CFLAGS_T -DMTRACE=1 $LIB -c mixed1.c && $CC $CFLAGS_T -DMTRACE=3 $LIB -c mixed3.c &&
    $CC $X mixed1.o mixed3.o -o mixed $LINK) 2> "$TMP/mixed.cc"
D=$TMP/mixed
run "$D" mixed
has "mixed levels: one warning line" "$D/mixed.err" \
    "*** MTRACE: warning: files compiled with -DMTRACE=1 and -DMTRACE=3: the process runs at level 1"
check "mixed levels: the process runs at level 1 (summary, trace, leak)" \
    sh -c "grep -q 'max traced memory size' '$D/mixed.err' && grep -q 'mixed1.c:7: error: 5 bytes in 1 block leaked here (in main)' '$D/mixed.err' && test -s '$D/mixed.trace'"

# --- the program's own short names: mt, mt_init, mt_lock, mt_state, buf, MT_HOT
$CC -Wall -Wextra names.c -o "$TMP/names.plain" 2> "$TMP/names.plaincc" && "$TMP/names.plain" > "$TMP/names.expected"
for cc in gcc clang; do
    command -v $cc > /dev/null || continue
    [ -n "$ASAN" ] && [ $cc = clang ] && continue     # gcc's sanitizer runtime in libmtrace
    for level in 1 2 3; do
        for use in lib one; do
            [ $use = lib ] && T=$LIB L=$LINK || T=$ONE L=
            out=$TMP/names-$cc-$level-$use
            $cc $CFLAGS_T -Wall -Wextra -DMTRACE=$level $T names.c -o "$out" $L 2> "$out.cc"
            (cd "$TMP" && MTRACE="$out.trace" "$out" > "$out.out" 2> /dev/null)
            check "names: $cc, level $level, $use use: compiles without a warning, runs unchanged" \
                sh -c "test ! -s '$out.cc' && cmp -s '$TMP/names.expected' '$out.out'"
        done
    done
done

# --- strict C99 with its own getline and index: -DMTRACE_NO_GNU_SOURCE
F="-std=c99 -pedantic -Wall -Wextra"
$CC $F $X strict.c -o "$TMP/strict.plain" 2> "$TMP/strict.plaincc"
check "strict: the plain build is clean" test ! -s "$TMP/strict.plaincc"
$CC $F -DMTRACE=1 -DMTRACE_NO_GNU_SOURCE $LIB strict.c -o "$TMP/strict" $LINK 2> "$TMP/strict.cc"
check "strict: with -DMTRACE_NO_GNU_SOURCE it builds without a warning" test -x "$TMP/strict" -a ! -s "$TMP/strict.cc"
(cd "$TMP" && MTRACE=strict.trace ./strict > strict.out 2> strict.err; echo $? > strict.rc)
check "strict: runs, traced, no leak" sh -c "test '$(cat "$TMP/strict.out" 2> /dev/null)' = 5 && grep -q 'No memory leaks' '$TMP/strict.err'"
$CC $F -DMTRACE=1 $LIB strict.c -o "$TMP/strict.gnu" $LINK 2> /dev/null
check "strict: without the switch, _GNU_SOURCE's getline clashes (why the switch exists)" test ! -e "$TMP/strict.gnu"
$CC $F -DMTRACE=1 -DMTRACE_NO_GNU_SOURCE $ONE -c strict.c -o "$TMP/strict1.o" 2> "$TMP/strict1.cc"
has "strict: the switch in the one-line use: a clear error" "$TMP/strict1.cc" \
    "MTRACE_NO_GNU_SOURCE needs the compiled runtime: add -DMTRACE_LIB and link -lmtrace"

# --- a file that declares malloc itself (Redis's server.h): -DMTRACE_NO_MACROS
$CC -Wall $X redis.c -o "$TMP/redis.plain" 2> "$TMP/redis.plaincc"
$CC -Wall -DMTRACE=1 $LIB redis.c -o "$TMP/redis.bad" $LINK 2> "$TMP/redis.badcc"
check "declares malloc: without the switch, an error" test ! -e "$TMP/redis.bad"
has "declares malloc: the error points to MTRACE_NO_MACROS" "$TMP/redis.badcc" "an error here? see MTRACE_NO_MACROS"
# every allocator's macro line says so, calloc's too (issue 24)
printf '#include <stdlib.h>\nvoid *calloc(size_t, size_t);\nint main(void) { return 0; }\n' > "$TMP/declcalloc.c"
$CC -DMTRACE=1 $LIB "$TMP/declcalloc.c" -o "$TMP/declcalloc" $LINK 2> "$TMP/declcalloc.cc"
has "declares calloc: the error points to MTRACE_NO_MACROS" "$TMP/declcalloc.cc" "an error here? see MTRACE_NO_MACROS"
$CC -Wall -DMTRACE=1 -DMTRACE_NO_MACROS $LIB redis.c -o "$TMP/redis" $LINK 2> "$TMP/redis.cc"
check "declares malloc: with -DMTRACE_NO_MACROS, the plain build's warnings only" \
    test "$(grep -c warning: "$TMP/redis.plaincc")" = "$(grep -c warning: "$TMP/redis.cc")"
(cd "$TMP" && MTRACE=redis.trace ./redis > redis.out 2> redis.err)
# (built without -g: the place is the function and the module's offset)
check "declares malloc: its calls are still traced, at their caller (zmalloc, module+offset)" \
    grep -Eq '^redis\+0x[0-9a-f]+:0: error: 24 bytes in 1 block leaked here \(in zmalloc\)$' "$TMP/redis.err"
check "declares malloc: ... and the summary names the function" grep -Eq ' zmalloc   redis\+0x[0-9a-f]+:0$' "$TMP/redis.err"

# --- a file that defines malloc itself: said at start-up, nothing traced
cat > "$TMP/own.c" <<'EOT'
#include <stdio.h>
#include <stdlib.h>
static char arena[4096];
void *(malloc)(size_t n) { static size_t used; void *p = arena + used; used += (n + 15) & ~(size_t)15; return p; }
int main(void) { char *p = malloc(10); printf("%d\n", p == (char *)arena); return 0; }
EOT
if [ -z "$ASAN" ]; then
    $CC -DMTRACE=1 $LIB "$TMP/own.c" -o "$TMP/own" $LINK && (cd "$TMP" && ./own > own.out 2> own.err; echo $? > own.rc)
    has "defines malloc: a clear error at start-up" "$TMP/own.err" \
        "*** MTRACE: error: the program defines malloc or free itself in a file compiled with mtrace.h"
    check "defines malloc: the program runs unchanged" sh -c "test '$(cat "$TMP/own.out")' = 1 && test '$(cat "$TMP/own.rc")' = 0"
fi

# --- a project that vendors mtrace.h and mtrace.c (the one-file runtime,
# `make build/mtrace.c`) and builds every *.c
V=$TMP/vendored
mkdir -p "$V" && cp "$TOP/mtrace.h" "$V/" && (cd "$TOP" && awk -f runtime/amalgamate.awk mtrace.c) > "$V/mtrace.c" \
    && cp app.c "$V/main.c" && cat > "$V/stub.c" <<'EOT'
#include <stdlib.h>
#include <string.h>
char *lib_make(const char *s) { return strdup(s); }
void lib_free(void *p) { free(p); }
void helper_free(void *p) { free(p); }
EOT
(cd "$V" && $CC -Wall -Wextra *.c -o plain 2> plain.cc && ./plain > plain.out)
check "vendored, plain build of every *.c: no warning, runs, mtrace.c is empty" \
    sh -c "test ! -s '$V/plain.cc' && test \"\$(cat '$V/plain.out')\" = 'ok 1' && ! nm '$V/plain' | grep -q mtrace"
(cd "$V" && $CC -Wall -Wextra -DMTRACE=1 -include ./mtrace.h *.c -o one 2> one.cc && MTRACE=one.trace ./one > /dev/null 2> one.err)
has "vendored, one-line use of every *.c: traced, one report" "$V/one.err" "main.c:14: error: 7 bytes in 1 block leaked here (in main)"
(cd "$V" && $CC -Wall -Wextra -DMTRACE=1 $LIB *.c -o lib $LINK 2> lib.cc && MTRACE=lib.trace ./lib > /dev/null 2> lib.err)
has "vendored, with libmtrace: traced, one report" "$V/lib.err" "main.c:14: error: 7 bytes in 1 block leaked here (in main)"
check "vendored: no warning in either traced build" test ! -s "$V/one.cc" -a ! -s "$V/lib.cc"

# --- libmtrace.so exports exactly its public names
nm -D --defined-only "$TOP/libmtrace.so" | awk '{print $3}' | LC_ALL=C sort > "$TMP/exports"
cp "$TOP/tests/packaging/exports.expected" "$TMP/exports.expected"     # (one list: libmtrace.map's)
[ -n "$ASAN" ] && grep -v -x -e calloc -e free -e malloc -e realloc -e memalign -e aligned_alloc -e posix_memalign \
    -e valloc -e pvalloc -e malloc_usable_size "$TMP/exports.expected" > "$TMP/e" && mv "$TMP/e" "$TMP/exports.expected"
[ -n "$ASAN" ] && grep -v -e '^_' -e '^__' "$TMP/exports" > "$TMP/e" && mv "$TMP/e" "$TMP/exports"
same "libmtrace.so: exports exactly mtrace_*, pmtrace and the allocator's names (and the exits it flushes for)" "$TMP/exports.expected" "$TMP/exports"

# --- the cost in a traced object: what the call sites need, no runtime
cat > "$TMP/sites3.c" <<'EOT'
#include <stdlib.h>
void *three(size_t n);
void *three(size_t n) { void *a = malloc(n), *b = calloc(n, 2); free(a); return b; }
EOT
$CC -O2 -c "$TMP/sites3.c" -o "$TMP/plain3.o"
$CC -O2 -DMTRACE=1 -DMTRACE_LIB -include "$H" -c "$TMP/sites3.c" -o "$TMP/lib3.o"
grow=$(( $(size "$TMP/lib3.o" | awk 'NR == 2 {print $4}') - $(size "$TMP/plain3.o" | awk 'NR == 2 {print $4}') ))
echo "     a file with 3 call sites grows by $grow bytes (text+data+bss) with libmtrace"
check "libmtrace use: 3 call sites cost at most 400 bytes of object (no runtime inside)" test "$grow" -le 400
finish
