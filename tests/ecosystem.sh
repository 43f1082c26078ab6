#!/bin/bash
# SPDX-License-Identifier: MIT
# The C ecosystem (issue 7): `make install`/`uninstall` into a temporary
# DESTDIR, an outside program built against the installed copy only, the
# one-line recipes (make, mtrace-cc, CMake, Autotools, pkg-config), the
# examples and their expected reports, the man pages, and every command of
# doc/guide.md.  Programs are built as the docs build them (plain -g -O0,
# not $TEST_CFLAGS): this suite checks what a user types.  The installed
# tools are the ones `make` built (sanitized under `make test-sanitize`).
. "$(dirname "$0")/lib.sh"
unset MTRACE MTRACE_CC MTRACE_LEVEL MTRACE_DOUBLE_FREE PKG_CONFIG_PATH CFLAGS
# `make test-sanitize` runs `make test CFLAGS=...`: the variables given to that
# make reach every make below through MAKEFLAGS; the projects built here
# must see only their own Makefiles and the recipe under test.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
ORIG_PATH=$PATH
export LC_ALL=C
HERE=$TOP/tests/ecosystem

# A copy of the tree (no .git, no fuzz corpora), timestamps kept, so that
# `make` there rebuilds only libmtrace (built as users build it: under
# `make test-sanitize` the tree's own is sanitized, and a program built
# plainly cannot link it) and the real tree is never written to.
copy_tree() {
    mkdir -p "$1" && tar -C "$TOP" --exclude=./.git --exclude=./fuzz --exclude=./build \
        --exclude='./libmtrace.so*' --exclude=./libmtrace.a --exclude=./mtrace.pic.o --exclude='./mtrace-*.tar.gz' \
        -cf - . | tar -C "$1" -xf -
}
# What changes from run to run in a report: the RSS, the overhead, the
# trace's directory.
mask() {
    sed -E -e 's/size: +[0-9]+ bytes$/size: RSS bytes/' -e 's/overhead [0-9.]+%/overhead PCT/' \
        -e 's#/[^ =]*/([^/ ]*\.trace)#DIR/\1#g' -e 's/ +$//' -e 's/0x[0-9A-F]{6,}:/0xADDR:/g' "$@"
}
status() { [ "$(cat "$1")" = "$2" ] || { echo "     exit status $(cat "$1"), expected $2"; return 1; }; }
need() { command -v "$1" > /dev/null || { fail "$1 is not installed (apt-get install $2)"; return 1; }; }

# ===================================================================
# 1. make install / uninstall with DESTDIR and PREFIX; an outside program
# ===================================================================
SRC=$TMP/src
DEST=$TMP/dest
PREFIX=/opt/mtrace-test
ROOT=$DEST$PREFIX
copy_tree "$SRC"
make -s -C "$SRC" install DESTDIR="$DEST" PREFIX="$PREFIX" > "$TMP/install.log" 2>&1
check "install: make install DESTDIR=... PREFIX=... succeeds" test $? -eq 0
(cd "$DEST" && find . ! -type d | LC_ALL=C sort) > "$TMP/installed"
# the tools and man pages the Makefile lists, and the rest by name
{
    for t in $(sed -n 's/^TOOLS *= *//p' "$TOP/Makefile") mtrace-cc mtrace-c++; do echo ".$PREFIX/bin/$t"; done
    for m in $(sed -n 's/^MAN[17] *= *//p' "$TOP/Makefile"); do m=${m#doc/}; echo ".$PREFIX/share/man/man${m##*.}/$m"; done
    cat <<EOF
.$PREFIX/include/mtrace.h
.$PREFIX/include/mtrace/mtrace.c
.$PREFIX/lib/libmtrace.a
.$PREFIX/lib/libmtrace.so
.$PREFIX/lib/libmtrace.so.1
.$PREFIX/lib/libmtrace.so.1.0
.$PREFIX/lib/pkgconfig/mtrace.pc
EOF
} | LC_ALL=C sort > "$TMP/installed.expected"
same "install: exactly these files and links, under DESTDIR/PREFIX" "$TMP/installed.expected" "$TMP/installed"
check "install: tools and mtrace-cc executable" test -x "$ROOT/bin/ms_print" -a -x "$ROOT/bin/mtrace2massif" -a -x "$ROOT/bin/mtrace-cc"
(cd "$TOP" && awk -f runtime/amalgamate.awk mtrace.c) > "$TMP/amalgamation.c"
check "install: the runtime is the tree's as one file (mtrace.c with runtime/ inlined)" \
    sh -c "cmp -s '$ROOT/include/mtrace/mtrace.c' '$TMP/amalgamation.c' && ! grep -q '^#include \"runtime/' '$ROOT/include/mtrace/mtrace.c'"
hasnt "install: mtrace.pc has no placeholder left" "$ROOT/lib/pkgconfig/mtrace.pc" "@"
# make demo (guide.md: "the Massif manual's example: traced, converted,
# printed by ms_print"), in the copy
make -s -C "$SRC" demo > "$TMP/demo.out" 2> /dev/null
check "make demo: the example traced (its leaks: exit status 1), the trace's tail shown" \
    sh -c "grep -q '^exit status: 1\$' '$TMP/demo.out' && grep -q '^plot ' '$TMP/demo.out'"
check "... converted with --time-unit=B and printed by ms_print (its header, the graph's peak)" \
    sh -c "grep -q '^Massif arguments:   --time-unit=B\$' '$TMP/demo.out' && grep -q '^ms_print arguments: examples/massif.out.example.trace\$' '$TMP/demo.out' && grep -qE '^[0-9.]+\^' '$TMP/demo.out'"
mv "$SRC" "$SRC.away"        # from here on, no source tree to lean on

if need pkg-config "pkgconf"; then
    export PKG_CONFIG_PATH=$ROOT/lib/pkgconfig
    check "pkg-config: --cflags is -DMTRACE=1 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -includePREFIX/include/mtrace.h" \
        test "$(pkg-config --cflags mtrace | sed 's/ *$//')" = "-DMTRACE=1 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include$PREFIX/include/mtrace.h"
    check "pkg-config: cflags_summary is level 2" \
        test "$(pkg-config --variable=cflags_summary mtrace)" = "-DMTRACE=2 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include$PREFIX/include/mtrace.h"
    check "pkg-config: cflags_leaks is level 3" \
        test "$(pkg-config --variable=cflags_leaks mtrace)" = "-DMTRACE=3 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include$PREFIX/include/mtrace.h"
    check "pkg-config: header variable" test "$(pkg-config --variable=header mtrace)" = "$PREFIX/include/mtrace.h"
    check "pkg-config: --libs links libmtrace from PREFIX/lib" \
        test "$(pkg-config --libs mtrace | sed 's/ *$//')" = "-L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -lmtrace"
    check "pkg-config: version" test "$(pkg-config --modversion mtrace)" = "1.0"
    # the staged copy: prefix moved to DESTDIR/PREFIX, as packagers test
    PC="pkg-config --define-variable=prefix=$ROOT"
    mkdir -p "$TMP/outside"
    cat > "$TMP/outside/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    char *kept = malloc(300);
    char *tmp = calloc(10, 70);
    free(tmp);
    printf("%d\n", kept != NULL);
    return 0;
}
EOF
    (cd "$TMP/outside" && cc -g -O0 $($PC --cflags mtrace) -MD prog.c -o prog $($PC --libs mtrace) 2> cc.err)
    check "outside (pkg-config): builds against the installed copy" test -x "$TMP/outside/prog" -a ! -s "$TMP/outside/cc.err"
    check "outside (pkg-config): header read from DESTDIR/PREFIX/include, no runtime source compiled" \
        sh -c "grep -q '$ROOT/include/mtrace.h' '$TMP/outside/prog.d' && ! grep -q 'mtrace.c' '$TMP/outside/prog.d'"
    check "outside (pkg-config): runs with DESTDIR/PREFIX/lib/libmtrace.so" \
        sh -c "ldd '$TMP/outside/prog' | grep -q '$ROOT/lib/libmtrace.so'"
    hasnt "outside (pkg-config): no file of the source tree used" "$TMP/outside/prog.d" "$TOP"
    (cd "$TMP/outside" && MTRACE=prog.trace ./prog > out 2> err; echo $? > rc)
    check "outside (pkg-config): leak makes the exit status 1" status "$TMP/outside/rc" 1
    has "outside (pkg-config): summary" "$TMP/outside/err" "*** MTRACE: max traced memory size:       1000 bytes"
    has "outside (pkg-config): the leak" "$TMP/outside/err" "prog.c:5: error: 300 bytes "
    has "outside (pkg-config): the trace" "$TMP/outside/prog.trace" "@ 2 main prog.c 6"
    # the installed tools on its trace
    (cd "$TMP/outside" && "$ROOT/bin/mtrace2massif" --time-unit=B prog.trace 2> m2m.err)
    check "installed mtrace2massif: converts the trace" test -s "$TMP/outside/massif.out.prog.trace" -a ! -s "$TMP/outside/m2m.err"
    "$ROOT/bin/ms_print" "$TMP/outside/massif.out.prog.trace" > "$TMP/outside/ms" 2>&1
    has "installed ms_print: the graph" "$TMP/outside/ms" "Number of snapshots:"
    has "installed ms_print: the calloc site" "$TMP/outside/ms" "0x2: main (prog.c:6)"
    if [ -x /usr/bin/ms_print ]; then
        /usr/bin/ms_print "$TMP/outside/massif.out.prog.trace" > "$TMP/outside/ms.valgrind" 2>&1
        same "installed ms_print: same output as Valgrind's" "$TMP/outside/ms.valgrind" "$TMP/outside/ms"
    fi
    # mtrace-cc, installed: finds DESTDIR/PREFIX/include from its own place
    check "installed mtrace-cc: finds the installed header" \
        test "$("$ROOT/bin/mtrace-cc" --mtrace-header)" = "$ROOT/include/mtrace.h"
    ln -s "$ROOT/bin/mtrace-cc" "$TMP/outside/mcc"
    check "installed mtrace-cc: also through a symbolic link" \
        test "$("$TMP/outside/mcc" --mtrace-header)" = "$ROOT/include/mtrace.h"
    rm -f "$TMP/outside/prog" "$TMP/outside/prog.trace"
    (cd "$TMP/outside" && PATH=$ROOT/bin:$PATH mtrace-cc -g -O0 -MD prog.c -o prog && MTRACE=prog.trace ./prog > out 2> err; echo $? > rc)
    check "outside (mtrace-cc): leak makes the exit status 1" status "$TMP/outside/rc" 1
    has "outside (mtrace-cc): the leak" "$TMP/outside/err" "prog.c:5: error: 300 bytes "
    check "outside (mtrace-cc): trace written" test -s "$TMP/outside/prog.trace"
    hasnt "outside (mtrace-cc): no file of the source tree used" "$TMP/outside/prog.d" "$TOP"
    rm -f "$TMP/outside/prog.trace"
    (cd "$TMP/outside" && PATH=$ROOT/bin:$PATH MTRACE_LEVEL=3 mtrace-cc -g prog.c -o prog3 && ./prog3 > out 2> err3)
    check "outside (mtrace-cc, MTRACE_LEVEL=3): leak errors only, no trace" \
        sh -c "test \$(wc -l < '$TMP/outside/err3') = 1 && grep -q '^prog.c:5: error: 300 bytes ' '$TMP/outside/err3' && test ! -e '$TMP/outside/mtrace'"
    # the installed man pages are found by man
    if command -v man > /dev/null; then
        check "installed man pages: man -w finds mtrace(7) and mtrace-cc(1) under PREFIX" \
            test "$(MANPATH=$ROOT/share/man man -w 7 mtrace)" = "$ROOT/share/man/man7/mtrace.7" \
              -a "$(MANPATH=$ROOT/share/man man -w mtrace-cc)" = "$ROOT/share/man/man1/mtrace-cc.1"
    fi
    unset PKG_CONFIG_PATH
fi

mv "$SRC.away" "$SRC"
echo "keep me" > "$ROOT/bin/not-ours"
make -s -C "$SRC" uninstall DESTDIR="$DEST" PREFIX="$PREFIX" > "$TMP/uninstall.log" 2>&1
check "uninstall: succeeds" test $? -eq 0
check "uninstall: only the file it did not install is left" test "$(find "$DEST" ! -type d)" = "$ROOT/bin/not-ours"
rm -f "$ROOT/bin/not-ours"
check "uninstall: no file or link left under DESTDIR" test -z "$(find "$DEST" ! -type d)"

# INCLUDEDIR elsewhere (as packagers do): mtrace.pc and mtrace-cc follow it
P3=$TMP/prefix3
make -s -C "$SRC" install PREFIX="$P3" INCLUDEDIR="$P3/include/mtrace" > "$TMP/install3.log" 2>&1
check "install INCLUDEDIR=PREFIX/include/mtrace: mtrace-cc finds the header there" \
    test "$("$P3/bin/mtrace-cc" --mtrace-header)" = "$P3/include/mtrace/mtrace.h"
check "install INCLUDEDIR=PREFIX/include/mtrace: pkg-config's header follows" \
    test "$(PKG_CONFIG_PATH=$P3/lib/pkgconfig pkg-config --variable=header mtrace)" = "$P3/include/mtrace/mtrace.h"
(cd "$TMP/outside" && "$P3/bin/mtrace-cc" -g prog.c -o prog-p3 && ./prog-p3 > /dev/null 2> err-p3)
has "install INCLUDEDIR=PREFIX/include/mtrace: a program built with that mtrace-cc is traced" "$TMP/outside/err-p3" "prog.c:5: error: 300 bytes "
make -s -C "$SRC" uninstall PREFIX="$P3" INCLUDEDIR="$P3/include/mtrace" > /dev/null 2>&1
check "uninstall INCLUDEDIR=...: nothing left" test -z "$(find "$P3" ! -type d)"

# ===================================================================
# 2. The one-line recipes, on examples/project (a leak at hello.c:11),
#    against a real install into a temporary PREFIX
# ===================================================================
P2=$TMP/prefix
EX0=$TMP/examples0
mkdir -p "$EX0" && cp "$TOP/examples/mpi.c" "$EX0/"
make -s -C "$SRC" install PREFIX="$P2" > "$TMP/install2.log" 2>&1
check "install into a PREFIX (no DESTDIR)" test -s "$P2/lib/pkgconfig/mtrace.pc"
export PATH="$P2/bin:$PATH" PKG_CONFIG_PATH="$P2/lib/pkgconfig"
# recipe NAME DIR: runs DIR/hello (trace DIR/hello.trace), checks the leak and the trace
recipe() {
    local name=$1 dir=$2
    (cd "$dir" && MTRACE=hello.trace ./hello > out 2> err; echo $? > rc)
    check "$name: builds and runs, exit status 1 (leak)" status "$dir/rc" 1
    has "$name: the planted leak is reported" "$dir/err" "hello.c:11: error: 6 bytes "
    check "$name: the trace has the sites and the gnuplot tail" \
        sh -c "grep -Eq '^@ [0-9]+ greet [^ ]*greet.c 9$' '$dir/hello.trace' && tail -n 1 '$dir/hello.trace' | grep -q '^plot '"
}
project() { rm -rf "$TMP/$1"; cp -R "$TOP/examples/project" "$TMP/$1"; }

project make1
(cd "$TMP/make1" && make CFLAGS+="-g -O0 $(pkg-config --cflags mtrace)" LDLIBS+="$(pkg-config --libs mtrace)" > build.log 2>&1)
recipe "make CFLAGS+=\$(pkg-config --cflags mtrace) LDLIBS+=\$(pkg-config --libs mtrace)" "$TMP/make1"

project make2
(cd "$TMP/make2" && CC=mtrace-cc make > build.log 2>&1)
recipe "CC=mtrace-cc make" "$TMP/make2"
has "CC=mtrace-cc make: the project's own CFLAGS are kept" "$TMP/make2/build.log" "mtrace-cc -O2 -g -Wall"

project make3
(cd "$TMP/make3" && make CFLAGS="-g $(pkg-config --variable=cflags_leaks mtrace)" LDLIBS="$(pkg-config --libs mtrace)" > build.log 2>&1 &&
    MTRACE=hello.trace ./hello > out 2> err)
check "make CFLAGS=\$(pkg-config --variable=cflags_leaks mtrace): the leak and nothing else" \
    sh -c "test \$(wc -l < '$TMP/make3/err') = 1 && grep -q '^hello.c:11: error: 6 bytes ' '$TMP/make3/err' && test ! -e '$TMP/make3/hello.trace'"

if need cmake cmake; then
    # configured plainly first (the probes see the plain compiler), then
    # the flags: CMake keeps the probes' answers in its cache
    project cmake1
    (cd "$TMP/cmake1" && cmake -S . -B build > build.log 2>&1 &&
        cmake -DCMAKE_C_FLAGS="$(pkg-config --cflags mtrace)" -DCMAKE_C_STANDARD_LIBRARIES="$(pkg-config --libs mtrace)" \
            -S . -B build >> build.log 2>&1 && cmake --build build >> build.log 2>&1)
    recipe "cmake, then cmake -DCMAKE_C_FLAGS=\$(pkg-config --cflags mtrace) -DCMAKE_C_STANDARD_LIBRARIES=\$(pkg-config --libs mtrace)" "$TMP/cmake1/build"
    project cmake2
    (cd "$TMP/cmake2" && CC=mtrace-cc cmake -S . -B build > build.log 2>&1 && cmake --build build >> build.log 2>&1)
    recipe "CC=mtrace-cc cmake" "$TMP/cmake2/build"
fi

# Autoconf's configure reads and writes its cache file, /dev/null by default:
# if /dev/null is no longer the device (something renamed a file over it),
# configure breaks in ways that have nothing to do with mtrace.
[ -c /dev/null ] || fail "/dev/null is not a character device any more (a program renamed a file over it): configure will fail; restore it with: rm /dev/null; mknod -m 666 /dev/null c 1 3"
# configure_project NAME: a copy of the project with its configure script
configure_project() {
    project "$1"
    if command -v autoconf > /dev/null; then
        (cd "$TMP/$1" && autoconf 2> autoconf.err)
    else
        cp "$HERE/configure" "$TMP/$1/configure"
    fi
    mkdir -p "$TMP/$1/build"
}
if command -v autoconf > /dev/null; then AUTO="Autoconf's configure"
else AUTO="configure (a stand-in: autoconf is not installed)"; fi
configure_project auto1
(cd "$TMP/auto1/build" && ../configure > build.log 2>&1 &&
    make CFLAGS="-g $(pkg-config --cflags mtrace)" LDLIBS="$(pkg-config --libs mtrace)" >> build.log 2>&1)
recipe "$AUTO, then make CFLAGS=\$(pkg-config --cflags mtrace) LDLIBS=\$(pkg-config --libs mtrace)" "$TMP/auto1/build"
configure_project auto3       # (guide.md's variant: the libraries as LIBS, Autoconf's own variable)
(cd "$TMP/auto3/build" && ../configure > /dev/null 2>&1 &&
    make CFLAGS="-g $(pkg-config --cflags mtrace)" LIBS="$(pkg-config --libs mtrace)" > build.log 2>&1)
recipe "$AUTO, then make CFLAGS=\$(pkg-config --cflags mtrace) LIBS=\$(pkg-config --libs mtrace)" "$TMP/auto3/build"
configure_project auto2
(cd "$TMP/auto2/build" && ../configure CC=mtrace-cc > build.log 2>&1 && make >> build.log 2>&1)
recipe "$AUTO CC=mtrace-cc" "$TMP/auto2/build"

# Build-system probes: CC=mtrace-cc configures exactly as the plain
# compiler, and no probe leaves a trace file
if command -v autoconf > /dev/null; then
    for cc in cc mtrace-cc; do
        d=$TMP/probe-auto-$cc
        mkdir -p "$d" && cp "$HERE/probe/configure.ac" "$d/"
        (cd "$d" && autoconf && ./configure CC=$cc > configure.log 2>&1)
        grep -E '^ac_cv_(func_|prog_cc_(c11|c99|c89|stdc)=)' "$d/config.log" > "$d/answers"
    done
    check "autoconf probes: the plain build finds memmem, strndup, getline, C11" \
        sh -c "grep -q 'ac_cv_func_memmem=yes' '$TMP/probe-auto-cc/answers' && grep -q 'ac_cv_func_getline=yes' '$TMP/probe-auto-cc/answers' && grep -q 'ac_cv_prog_cc_c11=' '$TMP/probe-auto-cc/answers'"
    same "autoconf probes: CC=mtrace-cc gives the plain answers (functions, C standard)" \
        "$TMP/probe-auto-cc/answers" "$TMP/probe-auto-mtrace-cc/answers"
    check "autoconf probes: no trace file left by a probe" test -z "$(find "$TMP/probe-auto-mtrace-cc" -name 'mtrace*')"
else
    fail "autoconf is not installed (apt-get install autoconf)"
fi
if command -v cmake > /dev/null; then
    for cc in cc mtrace-cc; do
        d=$TMP/probe-cmake-$cc
        mkdir -p "$d" && cp "$HERE/probe/CMakeLists.txt" "$d/"
        (cd "$d" && CC=$cc cmake -S . -B build > cmake.log 2>&1)
        grep -E '^HAVE_[A-Z_]*:INTERNAL=' "$d/build/CMakeCache.txt" > "$d/answers"
    done
    check "cmake probes: the plain build finds memmem, strndup, getline and their declarations" \
        test "$(grep -c '=1$' "$TMP/probe-cmake-cc/answers")" = 5
    same "cmake probes: CC=mtrace-cc gives the plain answers" "$TMP/probe-cmake-cc/answers" "$TMP/probe-cmake-mtrace-cc/answers"
    check "cmake probes: no trace file left by a probe" test -z "$(find "$TMP/probe-cmake-mtrace-cc" -name 'mtrace*')"
fi

# mtrace-cc's own options and failure
check "mtrace-cc --help: usage, exit status 0" sh -c "mtrace-cc --help | grep -q '^usage: mtrace-cc'"
mkdir -p "$TMP/lonely" && cp "$TOP/mtrace-cc" "$TMP/lonely/"
"$TMP/lonely/mtrace-cc" -c "$TMP/outside/prog.c" -o "$TMP/lonely/prog.o" > "$TMP/lonely/out" 2> "$TMP/lonely/err"; echo $? > "$TMP/lonely/rc"
check "mtrace-cc without a header next to it or in ../include: exit status 2" status "$TMP/lonely/rc" 2
has "mtrace-cc without a header: says where it looked" "$TMP/lonely/err" "mtrace-cc: cannot find mtrace.h and libmtrace.so in $TMP/lonely or $TMP/lonely/../include and $TMP/lonely/../lib"
check "mtrace-cc in the source tree: uses the tree's header" test "$("$TOP/mtrace-cc" --mtrace-header)" = "$TOP/mtrace.h"
if command -v mpicc > /dev/null; then
    (cd "$EX0" && MTRACE_CC=mpicc mtrace-cc -g -c mpi.c -o mpi.o 2> mpicc.err)
    check "MTRACE_CC=mpicc mtrace-cc: compiles an MPI program" test -s "$EX0/mpi.o" -a ! -s "$EX0/mpicc.err"
fi

# the other forms shown in mtrace(7) and mtrace-cc(1)
project make4
(cd "$TMP/make4" && make CFLAGS+="-g -DMTRACE=1 -include $(mtrace-cc --mtrace-header)" > build.log 2>&1)
recipe "make CFLAGS+=-include \$(mtrace-cc --mtrace-header)" "$TMP/make4"
project make5
(cd "$TMP/make5" && MTRACE_CC="env cc" make CC=mtrace-cc > build.log 2>&1)
recipe "MTRACE_CC='env cc' (split into words) make CC=mtrace-cc" "$TMP/make5"
if command -v clang > /dev/null; then
    (cd "$TMP/make5" && MTRACE_LEVEL=3 MTRACE_CC=clang mtrace-cc -g hello.c greet.c -o hello3 2> cc3.err &&
        MTRACE=hello3.trace ./hello3 > out3 2> err3)
    check "MTRACE_LEVEL=3 MTRACE_CC=clang mtrace-cc: leak errors only, no trace" \
        sh -c "test \$(wc -l < '$TMP/make5/err3') = 1 && grep -q '^hello.c:11: error: 6 bytes ' '$TMP/make5/err3' && test ! -e '$TMP/make5/hello3.trace'"
fi

# ===================================================================
# 3. The examples and their expected reports (examples/NAME.expected)
# ===================================================================
EX=$TMP/examples
mkdir -p "$EX"
cp "$TOP"/examples/*.c "$EX/"
# example NAME [build flags]: builds examples/NAME.c traced in $EX, runs it,
# compares the masked report with examples/NAME.expected
example() {
    local name=$1; shift
    (cd "$EX" && cc -g -O0 -Wall -Wextra "$name.c" -o "$name.plain" "$@" 2> "$name.plaincc"
        cc -g -O0 -Wall -Wextra -DMTRACE=1 -include "$TOP/mtrace.h" "$name.c" -o "$name" "$@" 2> "$name.cc" &&
        MTRACE=$name.trace ./"$name" > "$name.out" 2> "$name.err"; echo $? > "$name.rc")
    # the same warnings as the plain build (the manual's example ignores
    # malloc's result: gcc says so, with the header too), none added; but
    # gcc's -Wuse-after-free sees through the call-site macro only from -O1
    # on (doc/limits.md), and these are built at -O0
    check "examples/$name.c: the plain build's warnings, no more, no fewer" \
        test "$(grep warning: "$EX/$name.plaincc" | grep -vc use-after-free)" = "$(grep -c warning: "$EX/$name.cc")"
    mask "$EX/$name.err" > "$EX/$name.masked"
    same "examples/$name.c: the report is examples/$name.expected" "$TOP/examples/$name.expected" "$EX/$name.masked"
}
example example
check "examples/example.c: exit status 1 (leaks)" status "$EX/example.rc" 1
example leak
check "examples/leak.c: exit status 1" status "$EX/leak.rc" 1
example threads -pthread
check "examples/threads.c: exit status 1" status "$EX/threads.rc" 1
has "examples/threads.c: every thread ran" "$EX/threads.out" "4 threads done"
(example dfree) 2> /dev/null            # the shell's own "Aborted" line
check "examples/dfree.c: aborts (SIGABRT)" status "$EX/dfree.rc" 134
example pool
check "examples/pool.c: exit status 1" status "$EX/pool.rc" 1
has "examples/pool.c: the program's own output" "$EX/pool.out" "sum 15"
check "pool: nothing charged inside the wrappers" sh -c "! grep -E '^@ [0-9]+ (xmalloc|xstrdup|pool_get) ' '$EX/pool.trace'"
has "pool: the pool's blocks are traced at their caller" "$EX/pool.trace" "@ 2 item_new pool.c 89"
has "pool: MTRACE_FREELIKE gives a free record" "$EX/pool.trace" "- 2 "
"$TOP/mtrace2massif" --time-unit=B "$EX/pool.trace" 2> "$EX/pool.m2m" && "$TOP/ms_print" "$EX/massif.out.pool.trace" > "$EX/pool.ms" 2>&1
has "pool: the pool's site in the Massif output" "$EX/pool.ms" "0x2: item_new (pool.c:89)"
has "pool: the wrapper's caller in the Massif output" "$EX/pool.ms" "0x1: main (pool.c:101)"
(cd "$EX" && cc -g -Wall -Wextra -Werror pool.c -o pool-plain && ./pool-plain > pool-plain.out 2> pool-plain.err; echo $? > pool-plain.rc)
check "pool: builds and runs without mtrace (the annotations do nothing)" \
    sh -c "test \"\$(cat '$EX/pool-plain.rc')\" = 0 && grep -q 'sum 15' '$EX/pool-plain.out' && test ! -s '$EX/pool-plain.err'"
(cd "$EX" && cc -g -Wall -Wextra -Werror -DMTRACE=0 -include "$TOP/mtrace.h" pool.c -o pool-zero && ./pool-zero > /dev/null 2> pool-zero.err; echo $? > pool-zero.rc)
check "pool: builds and runs with MTRACE=0" sh -c "test \"\$(cat '$EX/pool-zero.rc')\" = 0 && test ! -s '$EX/pool-zero.err'"

if command -v mpicc > /dev/null && command -v mpirun > /dev/null; then
    (cd "$EX" && mpicc -g -O0 -DMTRACE=1 -include "$TOP/mtrace.h" mpi.c -o mpi 2> mpi.cc &&
        MTRACE=mpi.trace timeout 120 mpirun --allow-run-as-root --oversubscribe \
            --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi > mpi.out 2> mpi.err)
    check "examples/mpi.c: builds with mpicc" test -x "$EX/mpi"
    # each rank's report is written in one go, but the ranks finish in any order
    for r in 0 1 2 3; do grep -F -e "[rank $r] " -e "(rank $r)" "$EX/mpi.err"; done | mask > "$EX/mpi.masked"
    same "examples/mpi.c: the report of each rank is examples/mpi.expected" "$TOP/examples/mpi.expected" "$EX/mpi.masked"
    has "examples/mpi.c: rank 0 prints the sum" "$EX/mpi.out" "4 ranks, sum 2500"
    check "examples/mpi.c: one trace per rank" test -s "$EX/mpi.trace" -a -s "$EX/mpi.trace-1" -a -s "$EX/mpi.trace-2" -a -s "$EX/mpi.trace-3"
else
    fail "examples/mpi.c: mpicc/mpirun missing (apt-get install openmpi-bin libopenmpi-dev)"
fi

# the report examples quoted in mtrace(7) are the real ones
sed 's/\\-/-/g' "$TOP/doc/mtrace.7" > "$TMP/mtrace.7.txt"
for name in example dfree; do
    grep -v -e RSS -e PCT -e DIR "$TOP/examples/$name.expected" | while IFS= read -r line; do
        grep -qxF -- "$line" "$TMP/mtrace.7.txt" || echo "     not in mtrace.7: $line"
    done > "$TMP/man-$name.missing"
    check "mtrace(7) quotes the report of examples/$name.c as it is" test ! -s "$TMP/man-$name.missing" ||
        cat "$TMP/man-$name.missing"
done

# ===================================================================
# 4. Man pages: every page in doc/ renders without a warning
# ===================================================================
if need man "man-db groff" && need groff groff; then
    for page in "$TOP"/doc/*.[137]; do
        MANWIDTH=80 man --warnings -l "$page" 2>&1 > "$TMP/man.out" | cat > "$TMP/man.err"
        check "man -l doc/${page##*/}: renders without warnings" test -s "$TMP/man.out" -a ! -s "$TMP/man.err"
        groff -man -ww -z "$page" > "$TMP/groff.err" 2>&1
        check "groff -man -ww doc/${page##*/}: no warnings" test ! -s "$TMP/groff.err"
    done
fi

# ===================================================================
# 5. doc/guide.md: every ```sh block is run, in order, in one shell, in a
#    copy of the tree at $HOME/mtrace (HOME is a temporary directory);
#    every line of every ```text block must appear in what they printed.
# ===================================================================
G=$TMP/home
copy_tree "$G/mtrace"
mkdir -p "$G/mtrace/examples/project"
if command -v autoconf > /dev/null; then
    (cd "$G/mtrace/examples/project" && autoconf)
else
    cp "$HERE/configure" "$G/mtrace/examples/project/configure"
fi
# each command line is followed by a check of its exit status (commands that
# are expected to fail are written `cmd; echo "exit status: $?"` in the guide)
awk '/^```sh$/ { n++; inblock = 1; printf "echo \"@@@ block %d (doc/guide.md:%d)\"\n", n, NR; next }
     /^```/ { inblock = 0; next }
     inblock { print; printf "st=$?; [ $st = 0 ] || { echo \"@@@ FAILED: doc/guide.md:%d exit status $st\"; exit 1; }\n", NR }' \
    "$TOP/doc/guide.md" > "$TMP/guide.sh"
awk '/^```text$/ { inblock = 1; next } /^```/ { inblock = 0; next } inblock && $0 != "..." && $0 != ""' \
    "$TOP/doc/guide.md" > "$TMP/guide.expected"
check "guide: has commands and outputs" test "$(grep -c "@@@ block" "$TMP/guide.sh")" -ge 8 -a -s "$TMP/guide.expected"
(cd "$G/mtrace" && env -i HOME="$G" PATH="$ORIG_PATH" LC_ALL=C TERM=dumb GNUTERM=dumb MANPAGER=cat PAGER=cat MANWIDTH=80 \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    bash "$TMP/guide.sh" > "$TMP/guide.log" 2>&1)
check "guide: every command runs, with exit status 0" test $? -eq 0 || tail -n 15 "$TMP/guide.log" | sed 's/^/     /'
grep '^@@@' "$TMP/guide.log" | tail -n 1 | sed 's/^/     last: /'
sed "s#$G#/home/you#g" "$TMP/guide.log" | mask > "$TMP/guide.masked"
mask "$TMP/guide.expected" > "$TMP/guide.expected.masked"
missing=0
while IFS= read -r line; do
    grep -qxF -- "$line" "$TMP/guide.masked" || { [ $missing -lt 5 ] && echo "     not printed: $line"; missing=$((missing + 1)); }
done < "$TMP/guide.expected.masked"
check "guide: all $(wc -l < "$TMP/guide.expected.masked") lines of output shown in the guide were printed ($missing missing)" test $missing -eq 0
check "guide: make uninstall left nothing in \$HOME/.local" test -d "$G/.local" -a -z "$(find "$G/.local" ! -type d)"
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", $3 * 256 + $4, $7 * 256 + $8 }'; }
check "guide: the graph command makes a 900x500 PNG" test "$(png_size "$G/mtrace/examples/example.png" 2> /dev/null)" = 900x500
check "doc/example-graph.png: committed, a 900x500 PNG" \
    sh -c "head -c 4 '$TOP/doc/example-graph.png' | grep -q PNG && test \"\$(od -An -tu1 -j16 -N8 '$TOP/doc/example-graph.png' | awk '{ printf \"%dx%d\", \$3 * 256 + \$4, \$7 * 256 + \$8 }')\" = 900x500"

[ -n "${KEEP:-}" ] && cp -a "$TMP" "$KEEP"
finish
