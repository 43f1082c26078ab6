#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/ci/folders.py TOP [CC] - convert/'s folders use one another one way.

Each folder of TOP/convert/ has a README.md with a line "May use: A, B"
(or "May use: nothing"): the folders its files may use.  Checked:
  - those lines name folders that exist, and no folder may use, through
    others, one that may use it (the rule itself has no cycle);
  - every #include "..." of a folder's file is its own or "../G/..." of a
    folder G it may use;
  - every symbol a folder's object needs that another folder's object
    defines comes from a folder it may use (each .c compiled with CC -c,
    read with nm): a call through a name the user defines, a link-time
    callback, counts as a use too.
Prints one line per breach and exits 1, or prints nothing and exits 0.
"""
import os
import re
import subprocess
import sys
import tempfile

top = sys.argv[1]
cc = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CC", "cc")
conv = os.path.join(top, "convert")
bad = []

folders = sorted(d for d in os.listdir(conv) if os.path.isdir(os.path.join(conv, d)))
may = {}
for f in folders:
    readme = os.path.join(conv, f, "README.md")
    line = None
    if os.path.exists(readme):
        line = next((m.group(1) for m in map(re.compile(r"^May use: (.*)$").match, open(readme))
                     if m), None)
    if line is None:
        bad.append("convert/%s/: no README.md with a \"May use:\" line" % f)
        may[f] = set()
        continue
    names = {w.strip().rstrip("/") for w in line.split(",")} - {"nothing", ""}
    for g in sorted(names - set(folders)):
        bad.append("convert/%s/README.md: may use %s, which is no folder" % (f, g))
    may[f] = names & set(folders)


def reach(f, seen):
    for g in may[f]:
        if g not in seen:
            seen.add(g)
            reach(g, seen)
    return seen


for f in folders:
    if f in reach(f, set()):
        bad.append("convert/%s/: may use itself through %s" % (f, ", ".join(sorted(may[f]))))

# the includes
inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
sources = []
for f in folders:
    for name in sorted(os.listdir(os.path.join(conv, f))):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(conv, f, name)
        if name.endswith(".c"):
            sources.append((f, path))
        for n, text in enumerate(open(path, encoding="utf-8"), 1):
            m = inc.match(text)
            if not m:
                continue
            parts = m.group(1).split("/")
            if len(parts) == 1 and os.path.exists(os.path.join(conv, f, parts[0])):
                continue
            if len(parts) == 3 and parts[0] == ".." and parts[1] in may[f] \
                    and os.path.exists(os.path.join(conv, parts[1], parts[2])):
                continue
            bad.append("convert/%s/%s:%d: #include \"%s\": not of convert/%s/ or of a folder it may use"
                       % (f, name, n, m.group(1), f))

# the symbols
defined, needs = {}, []
with tempfile.TemporaryDirectory() as tmp:
    for i, (f, path) in enumerate(sources):
        obj = os.path.join(tmp, "%d.o" % i)
        r = subprocess.run([cc, "-c", "-w", "-O0", "-D_FILE_OFFSET_BITS=64", "-o", obj, path],
                           stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode:
            bad.append("%s: does not compile alone: %s" % (path, r.stderr.strip()))
            continue
        out = subprocess.run(["nm", obj], stdout=subprocess.PIPE, universal_newlines=True,
                             check=True).stdout
        for ln in out.splitlines():
            w = ln.split()
            if len(w) == 3 and w[1] in "TDRBCGSV":
                defined.setdefault(w[2], set()).add(f)
            elif len(w) == 2 and w[0] == "U":
                needs.append((f, path, w[1]))
for f, path, sym in needs:
    for g in sorted(defined.get(sym, set()) - {f} - may[f]):
        bad.append("%s: uses %s, defined in convert/%s/, which convert/%s/ may not use"
                   % (os.path.relpath(path, top), sym, g, f))

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
