#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/ci/libcnames.py TOP - the C library's functions that
runtime/platform.c binds to private names by asm labels (MTRACE_LIBC,
MTRACE_SYM_: write, read, close, the exits, the allocator, ...) are called
by those names everywhere else in the runtime, never by their public ones
(doc/design.md, "Other rules"): a program may define its own write or
free, or a macro of that name.  Prints each public call ("FILE:LINE:
NAME") and exits 1 on any."""
import re
import sys

top = sys.argv[1]
platform = open(top + "/runtime/platform.c", encoding="utf-8").read()
bound = set(re.findall(r"MTRACE_LIBC\([^;]*?,\s*(\w+)\);", platform, re.S))      # (args with parentheses)
bound |= set(re.findall(r"MTRACE_LIBC\(\s*[^,]+,\s*\w+,\s*\([^)]*\),\s*(\w+)\)", platform))   # (attributes after)
bound |= set(re.findall(r"MTRACE_SYM_\((\w+)\)", platform)) - {"sym"}
bound = {b for b in bound if not b.startswith("__")}
order = re.findall(r'^#include "(runtime/[a-z]+\.[ch])"', open(top + "/mtrace.c").read(), re.M)
bad = 0
for path in order:
    if path == "runtime/platform.c":
        continue
    text = open(top + "/" + path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    for n, line in enumerate(text.split("\n"), 1):
        # a call or a pointer taken by the public name; not a member (p->free)
        for name in re.findall(r"(?<![\w.>])([a-z_]\w*)\s*\(", line):
            if name in bound:
                print("%s:%d: %s" % (path, n, name))
                bad = 1
sys.exit(bad)
