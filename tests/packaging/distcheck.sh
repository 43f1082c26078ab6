#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/distcheck.sh TARBALL (make distcheck): the release as a
# user gets it.  Unpacked in a temporary directory, built, installed into a
# DESTDIR; the examples built against the installed copy only, in the three
# ways the README gives (the one-line use, pkg-config, mtrace-cc), run, and
# their leaks and trace checked; the installed tools run on the trace; the
# tarball's own `make dist` gives the same files; uninstalled, nothing left.
set -e
case ${1:-} in
*.tar.gz) ;;
*) echo "usage: distcheck.sh NAME.tar.gz" >&2; exit 2 ;;
esac
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
name=$(basename "$tarball" .tar.gz)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-distcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the outer make's command-line variables (PREFIX=..., CFLAGS=...) must not
# reach the makes below: each says what it builds
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES MTRACE MTRACE_CC MTRACE_LEVEL PKG_CONFIG_PATH
die() { echo "distcheck: FAILED: $*" >&2; [ -f "$tmp/log" ] && tail -n 20 "$tmp/log" >&2; exit 1; }

tar -xzf "$tarball" -C "$tmp" || die "cannot unpack $tarball"
src=$tmp/$name
[ -f "$src/Makefile" ] || die "$name.tar.gz has no $name/Makefile"
make -C "$src" > "$tmp/log" 2>&1 || die "make in the unpacked tree"
dest=$tmp/dest prefix=/opt/$name
root=$dest$prefix
make -C "$src" install DESTDIR="$dest" PREFIX="$prefix" > "$tmp/log" 2>&1 || die "make install DESTDIR=..."

# the examples, outside the tree, against the installed copy
ex=$tmp/ex
mkdir "$ex" && cp "$src/examples/example.c" "$ex/"
grep ': error: ' "$src/examples/example.expected" > "$ex/leaks.expected"
pc="pkg-config --define-variable=prefix=$root"
export PKG_CONFIG_PATH="$root/lib/pkgconfig"
cd "$ex"
# run NAME: ./NAME traced, its leak errors compared with example.expected's
run() {
    MTRACE=$1.trace ./"$1" > "$1.out" 2> "$1.err" && die "$1: exit status 0 despite its leaks"
    grep ': error: ' "$1.err" > "$1.leaks" || true
    cmp -s leaks.expected "$1.leaks" || die "$1: leak report differs: $(cat "$1.err")"
    [ -s "$1.trace" ] || die "$1: no trace"
}
cc -g -O0 -DMTRACE=1 -include "$root/include/mtrace.h" -MD example.c -o oneline 2> cc.err ||
    die "one-line use: $(cat cc.err)"
grep -q "$root/include/mtrace/mtrace.c" oneline.d || die "one-line use: the installed runtime was not compiled in"
run oneline
command -v pkg-config > /dev/null || die "pkg-config is not installed (apt-get install pkgconf)"
# shellcheck disable=SC2046   # the flags are words
cc -g -O0 $($pc --cflags mtrace) example.c -o pkgconfig $($pc --libs mtrace) 2> cc.err ||
    die "pkg-config use: $(cat cc.err)"
run pkgconfig
ldd ./pkgconfig | grep -q "$root/lib/libmtrace.so.1" || die "pkg-config use: not linked with the installed libmtrace.so.1"
"$root/bin/mtrace-cc" -g -O0 example.c -o mtracecc 2> cc.err || die "mtrace-cc: $(cat cc.err)"
run mtracecc
"$root/bin/mtrace2massif" --time-unit=B mtracecc.trace 2> m2m.err || die "installed mtrace2massif: $(cat m2m.err)"
"$root/bin/ms_print" massif.out.mtracecc.trace > ms.out 2>&1 || die "installed ms_print: $(head -3 ms.out)"
grep -q '0x1: main (example.c:20)' ms.out || die "installed ms_print: main's block is not in its output"
MANPATH=$root/share/man man -w 7 mtrace > /dev/null 2>&1 || ! command -v man > /dev/null ||
    die "man 7 mtrace does not find the installed page"

# the unpacked tree makes the same tarball (from its MANIFEST, no git)
mkdir "$tmp/again" && tar -xzf "$tarball" -C "$tmp/again"
make -C "$tmp/again/$name" dist > "$tmp/log" 2>&1 || die "make dist in the unpacked tree"
tar -tzf "$tarball" | sort > "$tmp/t1" && tar -tzf "$tmp/again/$name/$name.tar.gz" | sort > "$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" || die "make dist in the unpacked tree gives other files"

make -C "$src" uninstall DESTDIR="$dest" PREFIX="$prefix" > "$tmp/log" 2>&1 || die "make uninstall"
left=$(find "$dest" ! -type d)
[ -z "$left" ] || die "left after make uninstall: $left"
echo "distcheck: $name.tar.gz builds, installs, works installed (one-line, pkg-config, mtrace-cc), uninstalls clean"
