#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/ci/oneway.py TOP - the runtime's files call one way (doc/design.md,
"Other rules"): each file of mtrace.c's order uses only functions defined
in it or in a file above it; a function of a lower file is never declared
ahead to be used from a higher one.  Prints each use that breaks the rule
("FILE:LINE: NAME, defined in LOWER") and exits 1 on any."""
import re
import sys

top = sys.argv[1]
order = re.findall(r'^#include "(runtime/[a-z]+\.[ch])"', open(top + "/mtrace.c").read(), re.M)


def code(path):
    """The file's lines without comments and string literals."""
    text = open(top + "/" + path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return text.split("\n")


DEF = re.compile(r"^[A-Za-z_].*?\b(mtrace_\w+)\s*\([^;]*$")
defined, lines = {}, {}
for path in order:
    lines[path] = code(path)
    for i, line in enumerate(lines[path]):
        m = DEF.match(line)
        # a definition: at column 0, no ';' on the line, its body next
        nxt = lines[path][i + 1] if i + 1 < len(lines[path]) else ""
        if m and not line.startswith(("#", "typedef")) and (line.rstrip().endswith("{") or nxt.startswith("{")
                                                          or line.rstrip().endswith(",")):
            defined.setdefault(m.group(1), path)
bad = 0
for rank, path in enumerate(order):
    for n, line in enumerate(lines[path], 1):
        # (a name, or a pointer to it; not a struct tag or a member)
        for name in re.findall(r"(?<!struct )(?<!union )(?<![.>])\b(mtrace_\w+)\b", line):
            where = defined.get(name)
            if where and order.index(where) > rank:
                print("%s:%d: %s, defined in %s below" % (path, n, name, where))
                bad = 1
sys.exit(bad)
