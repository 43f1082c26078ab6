#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/dist.sh NAME (make dist): NAME.tar.gz at the top of the
# tree, holding NAME/ and in it the files git tracks, with the new ones it
# does not ignore (named on stderr: commit them), and a MANIFEST of them.
# Outside a git checkout (an unpacked tarball), the MANIFEST is the list.
set -e
cd "$(dirname "$0")/../.."
name=${1:?usage: dist.sh NAME}
top=$(pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$(git rev-parse --show-toplevel 2> /dev/null)" = "$top" ]; then
    git ls-files --cached --others --exclude-standard > "$tmp/list"
    new=$(git ls-files --others --exclude-standard | tr '\n' ' ')
    [ -z "$new" ] || echo "dist: not in git yet, included: $new" >&2
elif [ -f MANIFEST ]; then
    cp MANIFEST "$tmp/list"
else
    echo "dist: neither a git checkout nor a MANIFEST: cannot tell the sources from the rest" >&2
    exit 1
fi
# files deleted but not yet removed from git are not shipped; nor an old MANIFEST
while IFS= read -r f; do
    [ -f "$f" ] && [ "$f" != MANIFEST ] && printf '%s\n' "$f"
done < "$tmp/list" | LC_ALL=C sort > "$tmp/files"
echo MANIFEST >> "$tmp/files"
mkdir "$tmp/$name"
grep -vx MANIFEST "$tmp/files" | tar -cf - -T - | tar -xf - -C "$tmp/$name"
cp "$tmp/files" "$tmp/$name/MANIFEST"
# owner and order fixed: the same tree gives the same list, on any machine
tar -C "$tmp" --owner=0 --group=0 --numeric-owner --sort=name -cf - "$name" | gzip -9n > "$name.tar.gz.tmp"
mv "$name.tar.gz.tmp" "$name.tar.gz"
echo "dist: $name.tar.gz, $(wc -l < "$tmp/files") files"
