#!/bin/bash
# SPDX-License-Identifier: MIT
# Packaging and build-system edges (issue 26, items 3, 5 and 6; issue 36,
# item 8): what a distribution and the build systems expect of mtrace.  The
# shared library's soname, links and exact exports, versioned MTRACE_1.0
# but for the allocator's; no rpath where a distribution forbids one;
# mtrace.pc in LIBDIR/pkgconfig with a one-word -include (and the source
# tree's mtrace-uninstalled.pc); the one-line use from an install; CPPFLAGS,
# AR, LDFLAGS honoured; man 7 mtrace; assembler sources; -Werror with gcc and
# clang; C++; compilers the header cannot serve (tcc); a static one-line
# link; the tools' file-level errors; Meson's probes; CMake's flag
# de-duplication; tests/setup.sh; make distcheck; the licence tags and the
# tools' --version and --help; a 32-bit program's files past 2 GiB.
. "$(dirname "$0")/lib.sh"
unset MTRACE MTRACE_CC MTRACE_LEVEL MTRACE_NO_INSTALL PKG_CONFIG_PATH CFLAGS CPPFLAGS LDFLAGS
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
export LC_ALL=C
HERE=$TOP/tests/packaging
MULTIARCH=$(cc -print-multiarch 2> /dev/null)
# empty FILE: passes when FILE is empty, else shows it
empty() { if [ ! -s "$2" ]; then pass "$1"; else fail "$1"; head -5 "$2" | sed 's/^/     /'; fi; }
# no_rpath FILE: no RPATH or RUNPATH in its dynamic section
no_rpath() { ! readelf -d "$1" | grep -qE 'RPATH|RUNPATH'; }
copy_tree() {
    mkdir -p "$1" && tar -C "$TOP" --exclude=./.git --exclude=./fuzz --exclude=./build \
        --exclude='./libmtrace.so*' --exclude=./libmtrace.a --exclude=./mtrace.pic.o --exclude='./mtrace-*.tar.gz' \
        -cf - . | tar -C "$1" -xf -
}
cat > "$TMP/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    char *kept = malloc(300);
    printf("%d\n", kept != NULL);
    return 0;
}
EOF

# ===================================================================
# 1. The build tree: soname, links, exports, pkg-config before install
# ===================================================================
check "build: libmtrace.so -> libmtrace.so.1 -> libmtrace.so.1.0" \
    test "$(readlink "$TOP/libmtrace.so")" = libmtrace.so.1 -a "$(readlink "$TOP/libmtrace.so.1")" = libmtrace.so.1.0 -a -f "$TOP/libmtrace.so.1.0"
check "build: the soname is libmtrace.so.1" \
    sh -c "readelf -d '$TOP/libmtrace.so.1.0' | grep -q 'Library soname: \[libmtrace.so.1\]'"
# nm -D's view: each name with its version (@@MTRACE_1.0), the version node
# itself, the allocator's names bare
nm -D --defined-only "$TOP/libmtrace.so.1.0" | awk '{print $3}' | sort > "$TMP/exports"
nasan same "build: libmtrace.so exports exactly the public API and the allocator (libmtrace.map)" "$TOP/tests/packaging/exports.expected" "$TMP/exports"
# the version script's node: its names, between "global:" and "};"
sed -n '/global:/,/};/p' "$TOP/libmtrace.map" | sed 's#/\*.*\*/##' | tr ';' '\n' | tr -d ' \t' |
    grep -E '^[A-Za-z_][A-Za-z_0-9]*$' | sed 's/$/@@MTRACE_1.0/' | sort > "$TMP/map"
grep '@@' "$TOP/tests/packaging/exports.expected" > "$TMP/versioned"
same "build: libmtrace.map's node MTRACE_1.0 holds those mtrace names and no other" "$TMP/versioned" "$TMP/map"
check "build: readelf -V: the version MTRACE_1.0 is defined, beside the soname's base" \
    sh -c "readelf -V '$TOP/libmtrace.so.1.0' | grep -q 'Flags: none.*Name: MTRACE_1.0\$'"
objdump -T "$TOP/libmtrace.so.1.0" | awk '$NF == "malloc" || $NF == "mtrace_malloc" { print $(NF-1), $NF }' | sort > "$TMP/objdump"
nasan check "build: objdump -T: mtrace_malloc is MTRACE_1.0's, malloc the base's (unversioned)" \
    test "$(cat "$TMP/objdump")" = "Base malloc
MTRACE_1.0 mtrace_malloc"
check "build: the allocator's names are unversioned (they interpose on glibc's malloc@GLIBC_*)" \
    sh -c "! grep -E '^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|valloc|memalign|pvalloc)@' '$TMP/exports'"
# every function the header declares for traced code to call (MTRACE_PUBLIC_)
sed -n 's/^MTRACE_PUBLIC_ [^(]*[ *]\(mtrace_[A-Za-z_0-9]*\)(.*/\1/p' "$TOP/mtrace.h" | sort > "$TMP/public"
sed 's/@@MTRACE_1.0$//' "$TMP/map" | comm -23 "$TMP/public" - > "$TMP/unlisted"
check "build: libmtrace.map exports every function mtrace.h declares public (MTRACE_PUBLIC_)" test ! -s "$TMP/unlisted"
sed 's/^/     not in libmtrace.map: /' "$TMP/unlisted"
check "build: libmtrace.so and the tools have no RPATH or RUNPATH" \
    sh -c "for f in '$TOP/libmtrace.so.1.0' '$TOP/ms_print' '$TOP/mtrace2massif'; do ! readelf -d \"\$f\" | grep -qE 'RPATH|RUNPATH' || exit 1; done"
check "build: make wrote mtrace-uninstalled.pc" test -s "$TOP/mtrace-uninstalled.pc"
export PKG_CONFIG_PATH=$TOP
check "uninstalled pkg-config: PKG_CONFIG_PATH=TREE finds mtrace-uninstalled.pc, -include one word" \
    test "$(pkg-config --cflags mtrace | sed 's/ *$//')" = "-DMTRACE=1 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include$TOP/mtrace.h"
check "uninstalled pkg-config: --libs links the tree's libmtrace" \
    test "$(pkg-config --libs mtrace | sed 's/ *$//')" = "-L$TOP -Wl,-rpath,$TOP -lmtrace"
(cd "$TMP" && cc -g -O0 $(pkg-config --cflags mtrace) prog.c -o unin $(pkg-config --libs mtrace) 2> unin.cc &&
    ./unin > /dev/null 2> unin.err)
nasan has "uninstalled pkg-config: a program built with it is traced" "$TMP/unin.err" "prog.c:5: error: 300 bytes "
check "uninstalled pkg-config: it runs the tree's libmtrace.so.1" sh -c "ldd '$TMP/unin' | grep -q '$TOP/libmtrace.so.1 '"
# A program linked with it needs mtrace's names at version MTRACE_1.0, and
# the allocator's names, unversioned, still interpose on the C library's:
# an untraced library's malloc and free are libmtrace's (a traced block it
# frees is no leak, a block it allocated is freed by traced code quietly).
cat > "$TMP/untraced.c" <<'EOF'
#include <stdlib.h>
char *untraced_alloc(void) { return malloc(77); }
void untraced_free(void *p) { free(p); }
EOF
cat > "$TMP/mixed.c" <<'EOF'
#include <stdlib.h>
char *untraced_alloc(void);
void untraced_free(void *p);
int main(void)
{
    char *a = untraced_alloc();
    char *b = malloc(10);
    untraced_free(b);
    free(a);
    return 0;
}
EOF
(cd "$TMP" && cc -shared -fPIC untraced.c -o libuntraced.so &&
    cc -g -O0 $(pkg-config --cflags mtrace) mixed.c -o mixed -L. -Wl,-rpath,"$TMP" -luntraced $(pkg-config --libs mtrace) &&
    MTRACE=mixed.trace ./mixed 2>&1 | tail -n 1 > mixed.out)
check "uninstalled pkg-config: the program needs mtrace_malloc@MTRACE_1.0" \
    sh -c "objdump -T '$TMP/mixed' | grep -qE '\(MTRACE_1\.0\) +mtrace_malloc\$'"
nasan check "uninstalled pkg-config: an untraced library's malloc and free go through libmtrace: no leak" \
    test "$(cat "$TMP/mixed.out")" = "*** MTRACE: No memory leaks"
unset PKG_CONFIG_PATH

# ===================================================================
# 2. make install as a distribution does it: PREFIX=/usr, LIBDIR with the
#    multiarch triplet, into a DESTDIR
# ===================================================================
SRC=$TMP/src
copy_tree "$SRC"
D=$TMP/distro
LIBDIR=/usr/lib${MULTIARCH:+/$MULTIARCH}
make -s -C "$SRC" install DESTDIR="$D" PREFIX=/usr LIBDIR="$LIBDIR" > "$TMP/distro.log" 2>&1
check "distro install: make install DESTDIR=... PREFIX=/usr LIBDIR=$LIBDIR succeeds" test $? -eq 0
L=$D$LIBDIR
check "distro install: the library and its two links in LIBDIR" \
    test -f "$L/libmtrace.so.1.0" -a "$(readlink "$L/libmtrace.so.1")" = libmtrace.so.1.0 -a "$(readlink "$L/libmtrace.so")" = libmtrace.so.1
check "distro install: mtrace.pc in LIBDIR/pkgconfig (and nowhere else)" \
    test -f "$L/pkgconfig/mtrace.pc" -a "$(find "$D" -name '*.pc' | wc -l)" = 1
check "distro install: no RPATH or RUNPATH in the library and the tools" \
    sh -c "for f in '$L/libmtrace.so.1.0' '$D/usr/bin/ms_print' '$D/usr/bin/mtrace2massif'; do ! readelf -d \"\$f\" | grep -qE 'RPATH|RUNPATH' || exit 1; done"
PC="pkg-config --define-variable=prefix=$D/usr"
export PKG_CONFIG_PATH=$L/pkgconfig
check "distro install: pkg-config --libs has no rpath (LIBDIR is the dynamic linker's own)" \
    test "$($PC --libs mtrace | sed 's/ *$//')" = "-L$L -lmtrace"
check "distro install: Cflags' -include is one word (CMake's de-duplication keeps it)" \
    sh -c "pkg-config --cflags mtrace | grep -qE '(^| )-include/usr/include/mtrace.h( |\$)'"
(cd "$TMP" && cc -g -O0 $($PC --cflags mtrace) prog.c -o distro-pc $($PC --libs mtrace) 2> distro-pc.cc)
check "distro install: a program built with pkg-config has no RPATH or RUNPATH" no_rpath "$TMP/distro-pc"
(cd "$TMP" && LD_LIBRARY_PATH=$L ./distro-pc > /dev/null 2> distro-pc.err)
has "distro install: ... and, given the library, is traced" "$TMP/distro-pc.err" "prog.c:5: error: 300 bytes "
(cd "$TMP" && "$D/usr/bin/mtrace-cc" -g prog.c -o distro-cc 2> distro-cc.cc)
check "distro install: mtrace-cc finds the staged header and library (LIBDIR relative to BINDIR)" test -x "$TMP/distro-cc"
check "distro install: what mtrace-cc links has no RPATH or RUNPATH" no_rpath "$TMP/distro-cc"
check "distro install: ... and needs libmtrace.so.1" sh -c "readelf -d '$TMP/distro-cc' | grep -q 'NEEDED.*\[libmtrace.so.1\]'"
unset PKG_CONFIG_PATH

# ===================================================================
# 3. make install into a user's PREFIX: rpath there, the one-line use
#    from the install, man 7 mtrace
# ===================================================================
P=$TMP/prefix
make -s -C "$SRC" install PREFIX="$P" > "$TMP/user.log" 2>&1
check "user install: make install PREFIX=... succeeds" test $? -eq 0
check "user install: the one-line runtime is PREFIX/include/mtrace/mtrace.c, no bare include/mtrace.c" \
    test -f "$P/include/mtrace/mtrace.c" -a ! -e "$P/include/mtrace.c"
(cd "$TMP" && cc -g -O0 -DMTRACE=1 -include "$P/include/mtrace.h" -MD prog.c -o oneline 2> oneline.cc && ./oneline > /dev/null 2> oneline.err)
has "user install: the one-line use works from the install" "$TMP/oneline.err" "prog.c:5: error: 300 bytes "
check "user install: ... compiling the installed PREFIX/include/mtrace/mtrace.c" grep -q "$P/include/mtrace/mtrace.c" "$TMP/oneline.d"
(cd "$TMP" && cp prog.c prog2.c && cc -g -O0 -DMTRACE=1 -I"$P/include" -include mtrace.h prog2.c -o oneline2 2> oneline2.cc && ./oneline2 > /dev/null 2> oneline2.err)
has "user install: ... also as -I PREFIX/include -include mtrace.h" "$TMP/oneline2.err" "prog2.c:5: error: 300 bytes "
check "user install: pkg-config --libs keeps the rpath (PREFIX/lib is nobody's default)" \
    test "$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --libs mtrace | sed 's/ *$//')" = "-L$P/lib -Wl,-rpath,$P/lib -lmtrace"
(cd "$TMP" && "$P/bin/mtrace-cc" -g prog.c -o user-cc && ./user-cc > /dev/null 2> user-cc.err)
has "user install: a program built with mtrace-cc runs without LD_LIBRARY_PATH" "$TMP/user-cc.err" "prog.c:5: error: 300 bytes "
if command -v man > /dev/null; then
    check "user install: MANPATH=PREFIX/share/man man -w 7 mtrace finds mtrace(7)" \
        test "$(MANPATH=$P/share/man man -w 7 mtrace)" = "$P/share/man/man7/mtrace.7"
    MANPATH=$P/share/man MANWIDTH=80 man 7 mtrace 2> /dev/null | head -n 5 > "$TMP/man7"
    has "user install: MANPATH=PREFIX/share/man man 7 mtrace shows the page" "$TMP/man7" "MTRACE(7)"
    MANWIDTH=80 man -l "$TOP/doc/mtrace.7" 2> /dev/null | head -n 5 > "$TMP/man7l"
    has "man -l doc/mtrace.7 shows the page" "$TMP/man7l" "MTRACE(7)"
else
    fail "man is not installed (apt-get install man-db)"
fi
make -s -C "$SRC" uninstall PREFIX="$P" > /dev/null 2>&1
check "user install: make uninstall leaves no file, link or include/mtrace" test -z "$(find "$P" ! -type d)" -a ! -d "$P/include/mtrace"

# ===================================================================
# 4. make honours CPPFLAGS, AR, LDFLAGS; the tools get large-file offsets
# ===================================================================
B=$TMP/flags
copy_tree "$B"
rm -f "$B"/ms_print "$B"/mtrace2massif
cat > "$TMP/ar" <<EOF
#!/bin/sh
echo "\$*" >> "$TMP/ar.log"
exec ar "\$@"
EOF
chmod +x "$TMP/ar"
make -C "$B" ms_print mtrace2massif libmtrace.so libmtrace.a AR="$TMP/ar" CPPFLAGS=-DMTRACE_PACKAGING_MARK \
    LDFLAGS=-Wl,-z,now > "$TMP/flags.log" 2>&1
check "make AR=wrapper: the archive is made with it" grep -q 'libmtrace.a mtrace.pic.o' "$TMP/ar.log"
check "make CPPFLAGS=...: on the runtime's and both tools' compile lines" \
    test "$(grep -c -- '-DMTRACE_PACKAGING_MARK' "$TMP/flags.log")" -ge 3
check "make: the tools are compiled with -D_FILE_OFFSET_BITS=64" \
    test "$(grep -E -- '-o (ms_print|mtrace2massif) ' "$TMP/flags.log" | grep -c -- '-D_FILE_OFFSET_BITS=64')" = 2
check "make LDFLAGS=-Wl,-z,now: on the library's and the tools' links" \
    sh -c "for f in '$B/libmtrace.so.1.0' '$B/ms_print' '$B/mtrace2massif'; do readelf -d \"\$f\" | grep -q 'BIND_NOW\|Flags:.*NOW' || exit 1; done"

# ===================================================================
# 5. Compiler edges through mtrace-cc and the one-line use
# ===================================================================
MCC=$TOP/mtrace-cc
cd "$TMP" || exit 2
printf '\t.text\n\t.globl asm_f\nasm_f:\n\tret\n' > asm.S
cp asm.S plain.s
for cc in gcc clang; do
    command -v $cc > /dev/null || { fail "$cc is not installed (apt-get install $cc)"; continue; }
    $cc -c asm.S -o asm-plain.o
    $cc -DMTRACE=1 -include "$TOP/mtrace.h" -c asm.S -o asm-oneline.o 2> asm-oneline.err
    check "$cc: a .S file with -DMTRACE=1 -include mtrace.h assembles to the plain object" cmp -s asm-plain.o asm-oneline.o
    MTRACE_CC=$cc "$MCC" -Werror -c asm.S -o asm-mcc.o 2> asm-mcc.err
    check "$cc: a .S file through mtrace-cc -Werror assembles to the plain object" cmp -s asm-plain.o asm-mcc.o
    MTRACE_CC=$cc "$MCC" -Werror -c plain.s -o plain-mcc.o 2> plain-mcc.err
    check "$cc: a .s file through mtrace-cc -Werror: assembled, no warning" test -s plain-mcc.o -a ! -s plain-mcc.err
    MTRACE_CC=$cc "$MCC" -c -Werror -Wall -Wextra prog.c -o prog-$cc.o 2> werror-$cc.err
    check "$cc: mtrace-cc -c -Werror -Wall -Wextra compiles" test -s prog-$cc.o
    empty "$cc: mtrace-cc -c -Werror: no warning (no linker input given to a compile)" werror-$cc.err
    MTRACE_CC=$cc "$MCC" -Werror -Wall -Wextra prog.c -o prog-$cc 2> werror-link-$cc.err
    nasan empty "$cc: mtrace-cc -Werror compiling and linking: no warning" werror-link-$cc.err
    MTRACE_CC=$cc "$MCC" -Werror prog-$cc.o -o prog-$cc-linked 2> werror-ld-$cc.err && ./prog-$cc-linked > /dev/null 2> prog-$cc.err
    nasan has "$cc: mtrace-cc -Werror linking objects: traced" prog-$cc.err "prog.c:5: error: 300 bytes "
    $cc -static -g -DMTRACE=1 -include "$TOP/mtrace.h" prog.c -o static-$cc > static-$cc.err 2>&1
    empty "$cc: a static one-line link (-static -DMTRACE=1 -include mtrace.h): no linker warning" static-$cc.err
    ./static-$cc > /dev/null 2> static-$cc.run
    has "$cc: ... and the static program is traced" static-$cc.run "prog.c:5: error: 300 bytes "
    # questions to the compiler run it plainly: the answer is the plain one
    # (gcc's linker line names a temporary file of its own: masked)
    for q in --version -dumpmachine "-E -dM -x c /dev/null" -Wl,--version; do
        MTRACE_CC=$cc "$MCC" $q 2>&1 | sed 's/-fresolution=[^ ]*//' > ask-$cc.mcc
        $cc $q 2>&1 | sed 's/-fresolution=[^ ]*//' > ask-$cc.plain
        same "$cc: mtrace-cc $q: the plain compiler's answer" ask-$cc.plain ask-$cc.mcc
    done
done

# C++: one warning, untraced
printf '#include <cstdlib>\nint main() { void *p = std::malloc(3); return p == 0; }\n' > cxx.cpp
"$MCC" -c cxx.cpp -o cxx.o 2> cxx.err
check "C++: mtrace-cc -c x.cpp compiles it" test -s cxx.o
check "C++: one warning, saying it is not traced" \
    test "$(cat cxx.err)" = "mtrace-cc: warning: C++ is not traced (mtrace traces C only): cxx.cpp"
check "C++: compiled plainly (no mtrace symbol in the object)" sh -c "! nm cxx.o | grep -q mtrace"
MTRACE_CC=g++ "$MCC" -c prog.c -o cxx-driver.o 2> cxx-driver.err
has "C++: MTRACE_CC=g++ compiles .c as C++: the same warning" cxx-driver.err "mtrace-cc: warning: C++ is not traced (mtrace traces C only): prog.c"
"$MCC" -c prog.c -o c-only.o 2> c-only.err
empty "C: no warning for a C file" c-only.err

# compilers the header cannot serve
if command -v tcc > /dev/null; then
    tcc -DMTRACE=1 -include "$TOP/mtrace.h" -c prog.c -o tcc.o > tcc.err 2>&1
    check "tcc -DMTRACE=1: refused" test ! -e tcc.o
    has "tcc -DMTRACE=1: one clear #error naming what is missing" tcc.err \
        "mtrace: this compiler does not speak GNU C (statement expressions, __thread, asm labels): trace with gcc or clang, or build without -DMTRACE"
    check "tcc -DMTRACE=1: that is the only error" test "$(grep -c 'error' tcc.err)" = 1
    tcc -include "$TOP/mtrace.h" -c prog.c -o tcc0.o 2> tcc0.err
    check "tcc without MTRACE: the header changes nothing, compiles" test -s tcc0.o -a ! -s tcc0.err
else
    fail "tcc is not installed (apt-get install tcc)"
fi

# ===================================================================
# 6. The tools' file-level errors name the file, no line 0
# ===================================================================
mkdir -p "$TMP/adir" && : > "$TMP/empty"
for tool in ms_print mtrace2massif mtrace-diff mtrace-top; do
    [ -x "$TOP/$tool" ] || continue
    "$TOP/$tool" nonexist > /dev/null 2> "$tool.nofile"
    case $tool in mtrace-diff) ;; *)
        check "$tool nonexist: '$tool: nonexist: No such file or directory'" \
            test "$(cat "$tool.nofile")" = "$tool: nonexist: No such file or directory" ;;
    esac
    for f in nonexist "$TMP/adir" "$TMP/empty"; do
        case $tool in mtrace-diff) "$TOP/$tool" "$f" "$f" ;; *) "$TOP/$tool" "$f" ;; esac
    done > /dev/null 2> "$tool.all"
    hasnt "$tool: a missing file, a directory, an empty file: no ':0:'" "$tool.all" ":0:"
done

# ===================================================================
# 7. Build systems: Meson's probes plain and quiet; CMake keeps -include
# ===================================================================
if command -v meson > /dev/null && command -v ninja > /dev/null; then
    for cc in cc mtrace-cc; do
        d=$TMP/meson-$cc
        mkdir -p "$d" && cp "$HERE/meson/meson.build" "$HERE/meson/leak.c" "$d/"
        [ $cc = cc ] && c=cc || c=$MCC
        (cd "$d" && CC=$c meson setup build > setup.log 2>&1)
        # every probe's answer, as meson-log.txt records it
        grep -E '^(Checking|Header|Message)' "$d/build/meson-logs/meson-log.txt" |
            sed 's/ *$//' > "$d/answers"
    done
    check "meson: the plain configure answers its probes (has_function, compiles, links, run)" \
        sh -c "test \$(grep -c . '$TMP/meson-cc/answers') -ge 12 && grep -q 'returncode 0' '$TMP/meson-cc/answers'"
    same "meson: CC=mtrace-cc configures identically (the same meson-log answers)" "$TMP/meson-cc/answers" "$TMP/meson-mtrace-cc/answers"
    check "meson: no probe left a trace file" test -z "$(find "$TMP/meson-mtrace-cc" -name 'mtrace*' -type f)"
    (cd "$TMP/meson-mtrace-cc" && ninja -C build > ninja.log 2>&1 && cd build && ./leak > /dev/null 2> leak.err)
    nasan has "meson: the project itself is built traced" "$TMP/meson-mtrace-cc/build/leak.err" "leak.c:6: error: 5 bytes "
else
    fail "meson is not installed (apt-get install meson)"
fi
if command -v cmake > /dev/null; then
    # mtrace's flags from pkg-config next to a target's own -include: CMake
    # de-duplicates options word by word, and a two-word "-include FILE"
    # would lose its second "-include", leaving "FILE" alone
    make -s -C "$SRC" install PREFIX="$P" > /dev/null 2>&1
    C=$TMP/cmake
    mkdir -p "$C" && cp "$HERE/cmake/CMakeLists.txt" "$HERE/cmake/own.h" "$TMP/prog.c" "$C/"
    (cd "$C" && PKG_CONFIG_PATH=$P/lib/pkgconfig cmake -S . -B build > cmake.log 2>&1 &&
        cmake --build build > build.log 2>&1 && ./build/prog > /dev/null 2> prog.err)
    has "cmake: pkg_check_modules(IMPORTED_TARGET mtrace) with another -include: builds, traced" "$C/prog.err" \
        "prog.c:5: error: 300 bytes "
    make -s -C "$SRC" uninstall PREFIX="$P" > /dev/null 2>&1
fi

# ===================================================================
# 8. tests/setup.sh: names the missing packages at once, or installs them
# ===================================================================
BIN=$TMP/basic
mkdir -p "$BIN"
for t in sh dirname cat id; do ln -s "$(command -v $t)" "$BIN/$t"; done
start=$(date +%s%N)
env -i PATH="$BIN" MTRACE_NO_INSTALL=1 "$BIN/sh" "$TOP/tests/setup.sh" > setup.out 2> setup.err
echo $? > setup.rc
ms=$((($(date +%s%N) - start) / 1000000))
check "setup.sh, every tool missing: exit status 1" test "$(cat setup.rc)" = 1
# the list's entries that PATH=$BIN lacks: every command, and each file (a
# first word starting with /, a shell pattern) that this machine lacks
lacking() {
    grep -v '^#' "$TOP/tests/packages.txt" | while read -r what names; do
        [ -n "$what" ] || continue
        case $what in /*) for f in $what; do [ -e "$f" ] && continue 2; done ;; esac
        echo "$what $names"
    done
}
pkgs=$(lacking | awk 'NF { for (i = 2; i <= NF; i++) if (!seen[$i]++) printf "%s%s", n++ ? " " : "", $i }')
cmds=$(lacking | awk 'NF { printf "%s%s", n++ ? " " : "", $1 }')
check "setup.sh: one line naming every package (tests/packages.txt)" \
    test "$(cat setup.err)" = "tests/setup.sh: the tests need $cmds: apt-get install $pkgs" -a ! -s setup.out
all_pkgs=$(grep -v '^#' "$TOP/tests/packages.txt" | awk 'NF { for (i = 2; i <= NF; i++) printf " %s", $i }')
check "setup.sh: the list has what the suites use (gnuplot-nox, libopenmpi-dev, openmpi-bin, valgrind, clang, man-db, groff-base, cmake, autoconf, pkgconf, python3, meson, strace, gcc-multilib)" \
    sh -c "for p in gnuplot-nox libopenmpi-dev openmpi-bin valgrind clang man-db groff-base cmake autoconf pkgconf python3 meson strace gcc-multilib; do case ' $all_pkgs ' in *\" \$p \"*) ;; *) exit 1 ;; esac; done"
# (it stops at once by design: it only looks the commands up, with nothing
# else on PATH it could run; the time is shown, not judged)
echo "     setup.sh took $ms ms"
# a few tools present: only the others named
for t in gnuplot valgrind cmake; do ln -s "$(command -v $t)" "$BIN/$t"; done
env -i PATH="$BIN" MTRACE_NO_INSTALL=1 "$BIN/sh" "$TOP/tests/setup.sh" 2> setup2.err
check "setup.sh: tools on PATH are not named" sh -c "! grep -qE ' (gnuplot-nox|valgrind|cmake)( |\$)' setup2.err && grep -q ' clang' setup2.err"
# as root with apt-get (a stand-in that logs): installs exactly those
if [ "$(id -u)" = 0 ]; then
    printf '#!/bin/sh\necho "$*" >> %s/apt.log\n' "$TMP" > "$BIN/apt-get" && chmod +x "$BIN/apt-get"
    env -i PATH="$BIN" "$BIN/sh" "$TOP/tests/setup.sh" > setup3.out 2> setup3.err
    check "setup.sh as root: apt-get update -qq, then install -y -qq the missing packages" \
        test "$(cat apt.log)" = "update -qq
install -y -qq $(lacking | awk 'NF && $1 !~ /^(gnuplot|valgrind|cmake)$/ { for (i = 2; i <= NF; i++) if (!seen[$i]++) printf "%s%s", n++ ? " " : "", $i }')"
    check "setup.sh as root: still missing after apt-get: exit status 1, one line" \
        sh -c "grep -q 'the tests need' setup3.err && test \$(wc -l < setup3.err) = 1"
    rm -f apt.log
    env -i PATH="$BIN" MTRACE_NO_INSTALL=1 "$BIN/sh" "$TOP/tests/setup.sh" 2> /dev/null
    check "setup.sh: MTRACE_NO_INSTALL=1 forbids installing, even as root" test ! -e apt.log
fi
# a file of the list (a package that brings no command): named when no file
# matches its pattern, with its package
mkdir -p "$TMP/setupf" && cp "$TOP/tests/setup.sh" "$TMP/setupf/"
printf 'sh sh-pkg\n/nonexistent/*/lib.a  lib-pkg\n%s/*/setup.sh  here-pkg\n' "$TMP" > "$TMP/setupf/packages.txt"
env -i PATH="$BIN" MTRACE_NO_INSTALL=1 "$BIN/sh" "$TMP/setupf/setup.sh" 2> setupf.err
check "setup.sh: a file (/PATTERN) that is not there is named with its package, one that is is not" \
    test "$(cat setupf.err)" = "tests/setup.sh: the tests need /nonexistent/*/lib.a: apt-get install lib-pkg"
for cmd in $cmds; do command -v "$cmd" > /dev/null && ln -sf "$(command -v "$cmd")" "$BIN/$cmd"; done
env -i PATH="$BIN" MTRACE_NO_INSTALL=1 "$BIN/sh" "$TOP/tests/setup.sh" > setup4.out 2>&1
check "setup.sh: everything there: exit status 0, silent" test $? = 0 -a ! -s setup4.out

# ===================================================================
# 9. make distcheck: the release tarball, built and used installed
# ===================================================================
if command -v git > /dev/null; then
    # in a copy of the tree (its sources: what git would not ignore), so
    # that the tree under test gets no tarball
    R=$TMP/release
    mkdir -p "$R" && tar -C "$TOP" --exclude=./.git -cf - . | tar -C "$R" -xf -
    (cd "$R" && make -s clean > /dev/null 2>&1; git init -q && git add -A &&
        make distcheck > distcheck.log 2>&1)
    rc=$?
    check "make distcheck: build, install, examples against the install, uninstall clean" test $rc = 0
    [ $rc = 0 ] || tail -n 5 "$R/distcheck.log" | sed 's/^/     /'
fi
# ===================================================================
# 10. the licence: LICENSE, a tag in every source file's first lines,
#     the tools' --version, one version number
# ===================================================================
check "LICENSE: the MIT licence" grep -q '^MIT License$' "$TOP/LICENSE"
# Every source file names its licence in its first lines (the SPDX tag, in
# the file's comment style; in the C files of tests/ and examples/ it shares
# their first line, whose line numbers the tests and the docs quote): every
# file git tracks but these, which are not source:
#   *.md, LICENSE             prose, and the licence itself (LICENSE covers them)
#   *.png                     images (doc/)
#   *.expected, tests/ms_print/expected/, *.rc
#                             expected outputs
#   *.trace, tests/mtrace2massif/ranks/tr*, *.massif, *.massif.out,
#   massif.out.*, *.script, tests/stacks/symbols, fuzz/seeds-*/
#                             inputs of the programs under test, read as
#                             they are (a line more would change the test)
not_source='\.md$|^LICENSE$|\.png$|\.expected$|^tests/ms_print/expected/|\.rc$|\.trace$|^tests/mtrace2massif/ranks/tr|\.massif$|\.massif\.out$|(^|/)massif\.out\.|\.script$|^tests/stacks/symbols$|^fuzz/seeds-'
if (cd "$TOP" && git ls-files > "$TMP/tracked" 2> /dev/null) && [ -s "$TMP/tracked" ]; then
    untagged=$(cd "$TOP" && grep -vE "$not_source" "$TMP/tracked" | while read -r f; do
        head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"; done)
    check "every source file names its licence in its first lines${untagged:+: not $(echo $untagged)}" test -z "$untagged"
    check "... $(grep -cvE "$not_source" "$TMP/tracked") files of $(wc -l < "$TMP/tracked") (the others are not source)" \
        test "$(grep -cvE "$not_source" "$TMP/tracked")" -gt 200
else
    echo "     skipped, the licence tags: not a git checkout (git ls-files)"
fi
for t in mtrace2massif mtrace-diff mtrace-top; do
    has "$t --version: the release and the licence" <("$TOP/$t" --version) "$t $(sed -n 's/^VERSION *= *//p' "$TOP/Makefile") (mtrace, MIT licence)"
done
# where bugs go: the last line of each tool's --help (Valgrind's ms_print
# ends its own with its author's address); ms_print's usage is on stderr
bugs="Report bugs to the mtrace project's issue tracker, not to Valgrind's authors."
for t in mtrace2massif mtrace-diff mtrace-top; do
    check "$t --help: its last line says where bugs go" test "$("$TOP/$t" --help | tail -n 1)" = "$bugs"
done
check "ms_print --help: its last line says where bugs go, not to Valgrind's author" \
    test "$("$TOP/ms_print" --help 2>&1 | tail -n 1)" = "  $bugs"
has "ms_print --version: this project's, and the format's" <("$TOP/ms_print" --version 2>&1) \
    "ms_print (mtrace $(sed -n 's/^VERSION *= *//p' "$TOP/Makefile"), MIT licence): the output format of Valgrind's ms_print-3.19.0"
# ===================================================================
# 11. A 32-bit program (-m32): its files may be larger than 2 GiB.  The
#     runtime is compiled with the program's flags, here without
#     -D_FILE_OFFSET_BITS=64: it opens its files with O_LARGEFILE, and
#     stats, seeks and truncates them with 64-bit offsets
#     (runtime/platform.c).  The large files are sparse: made at once.
# ===================================================================
W=$TMP/m32
mkdir -p "$W" && cd "$W" || exit 2
cat > past.c <<'EOF'
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    char *first = malloc(10);                   /* the trace opens */
    int i;
    lseek64(pmtrace.fd, 3LL << 30, SEEK_SET);   /* as if 3 GiB of trace had been written */
    for (i = 0; i < 1000; i++)
        free(malloc(100));
    free(first);
    return 0;
}
EOF
if ! cc -m32 -g -DMTRACE=1 -include "$TOP/mtrace.h" "$TMP/prog.c" -o prog 2> m32.err ||
    ! cc -m32 -g -DMTRACE=1 -include "$TOP/mtrace.h" past.c -o past 2>> m32.err; then
    echo "     skipped, 32-bit programs: cc -m32 cannot link here (apt-get install gcc-multilib): $(grep -m 1 error m32.err)"
else
    # the trace, the JSON report and the suppression file, each opened with
    # O_LARGEFILE (strace needs ptrace, which a container may refuse)
    : > supp
    if strace -o /dev/null true 2> /dev/null; then
        MTRACE=t.trace MTRACE_REPORT=r.json MTRACE_SUPPRESS=supp strace -f -e trace=open,openat -o strace.out ./prog > /dev/null 2>&1
        for f in t.trace r.json supp; do
            check "-m32: strace: $f is opened with O_LARGEFILE" sh -c "grep -E '\"([^\"]*/)?$f\"' strace.out | grep -q O_LARGEFILE"
        done
    else
        echo "     skipped, -m32 under strace: strace cannot trace here (ptrace refused?)"
    fi
    # a trace and a report of last run that are over 2 GiB are written over
    truncate -s 3G big.trace big.json
    MTRACE=big.trace MTRACE_REPORT=big.json ./prog > /dev/null 2> big.err
    hasnt "-m32: MTRACE=FILE of 3 GiB: no warning" big.err "the trace file"
    check "-m32: ... the trace is written over it" test "$(head -c 100 big.trace | head -n 1)" = "#cmd ./prog" -a "$(stat -c %s big.trace)" -lt 4096
    hasnt "-m32: MTRACE_REPORT=FILE of 3 GiB: no warning" big.err "MTRACE_REPORT"
    check "-m32: ... the report is written over it" test "$(head -c 1 big.json)" = "{" -a "$(stat -c %s big.json)" -lt 4096
    # a suppression file of 4 GiB + 1 KiB (1 KiB in a 32-bit size_t)
    truncate -s $(((4 << 30) + 1024)) huge.supp
    MTRACE=t.trace MTRACE_SUPPRESS=huge.supp ./prog > /dev/null 2> huge.err
    has "-m32: MTRACE_SUPPRESS=FILE of 4 GiB + 1 KiB: refused as too large" huge.err \
        "*** MTRACE: warning: cannot read the suppression file huge.supp: larger than 64 MiB (the most read): MTRACE_SUPPRESS ignored"
    # the trace goes on past 3 GiB, to its end
    MTRACE=past.trace ./past > /dev/null 2> past.err
    hasnt "-m32: a trace past 3 GiB: no warning" past.err "the trace file"
    check "-m32: ... the trace ends past 3 GiB with its gnuplot lines" \
        sh -c "test \$(stat -c %s past.trace) -gt \$((3 << 30)) && tail -n 1 past.trace | grep -q \"^plot \""
    # a file-size limit just past 3 GiB (ulimit -f counts KiB): the write
    # that fails there is taken back to its record's start (lseek, ftruncate)
    (ulimit -f $(((3 << 20) + 4)); MTRACE=cut.trace ./past > /dev/null 2> cut.err)
    has "-m32: a trace stopped by a file-size limit past 3 GiB: one warning" cut.err \
        "*** MTRACE: cannot write the trace file $W/cut.trace: File too large: no trace, summary only"
    check "-m32: ... the trace ends with a whole record, past 3 GiB" \
        sh -c "test \$(stat -c %s cut.trace) -gt \$((3 << 30)) && test \"\$(tail -c 1 cut.trace | od -An -c | tr -d ' ')\" = '\\n'"
    rm -f big.trace big.json huge.supp past.trace cut.trace
fi
cd "$TMP" || exit 2
finish
