#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/promises/check.py - the map from the documentation's promises to
their tests (tests/promises.map, whose header says the format) checked
against the tree.

Prints one line per finding, "ok   ..." or "FAIL ...", as tests/lib.sh
does, and exits 1 on any FAIL.  It fails when
  - a quote of the map no longer occurs in its document (the statement
    changed: its test may no longer test it);
  - a test the map names no longer exists in its suite's source;
  - a statement of a covered document is in no entry of the map: a new
    promise shows until it is given a test, or said not to be one; in a
    document covered section by section, a new section shows.

  check.py [--uncovered]   (--uncovered: list the statements not mapped,
                            one a line, to write the map's new entries)

A statement is a table row (not a header or a separator), or a sentence
of a paragraph or list item outside code blocks that holds a normative
marker (MARKER below: a digit, a `code` form, or a word such as
"never", "always", "at most", "each", "every", "only", "no", "same").  A sentence
without one is prose around the promises and is not counted.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAP = os.path.join(TOP, "tests", "promises.map")

MARKER = re.compile(r"[0-9`]|\b(never|always|at most|at least|each|every|only|none|no|not|nothing|same|cannot|must)\b", re.I)


def blocks(path):
    """The document's blocks as (heading, kind, text): kind "row" for a
    table row, "para" for a paragraph or list item (lines joined by one
    space).  Fenced and indented code, headings and HTML comments are
    left out."""
    heading, out, para = "", [], []
    fenced, prev_blank, lines = False, True, open(path, encoding="utf-8").read().split("\n")

    def flush():
        if para:
            out.append((heading, "para", " ".join(s.strip() for s in para)))
            para.clear()
    for i, line in enumerate(lines):
        if line.startswith("```"):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line.strip():
            flush()
            prev_blank = True
            continue
        if (prev_blank or not para) and line.startswith("    ") and not para:
            continue            # an indented code block (after a blank line)
        prev_blank = False
        if line.startswith("#"):
            flush()
            heading = line.lstrip("#").strip()
            continue
        if line.startswith("|"):
            flush()
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if re.match(r"^\|[-| :]+\|$", line) or re.match(r"^\|[-| :]+\|$", nxt):
                continue        # a separator, or the header above one
            out.append((heading, "row", line))
            continue
        if re.match(r"^\s*([-*]|[0-9]+\.) ", line) or line.startswith("!["):
            flush()
        para.append(line)
    flush()
    return out


ROFF_ESCAPES = [("\\-", "-"), ("\\(em", "\u2014"), ("\\(en", "\u2013"), ("\\(bu", "*"),
                ("\\(aq", "'"), ("\\(dq", '"'), ("\\(lq", '"'), ("\\(rq", '"'), ("\\&", ""),
                ("\\|", ""), ("\\ ", " "), ("\\(ha", "^"), ("\\c", ""), ("\\e", "\\")]
ROFF_FONT = re.compile(r"\\f(\[[A-Z]*\]|\(..|.)")
ROFF_BREAK = (".PP", ".LP", ".P", ".TP", ".IP", ".sp", ".RS", ".RE", ".br", ".in", ".HP")


def roff_text(line):
    """A line of a man page as the reader sees it: font requests joined
    (.B a b: "a b"; .BR a b: "ab", the alternating forms), escapes made
    characters, fonts dropped."""
    if line.startswith("."):
        request, _, rest = line.partition(" ")
        args = [a[1:-1] if len(a) > 1 and a.startswith('"') else a
                for a in re.findall(r'"[^"]*"|(?:\\ |\S)+', rest)]
        line = (" " if request in (".B", ".I", ".SM", ".SB") else "").join(args)
    line = ROFF_FONT.sub("", line)
    for escape, char in ROFF_ESCAPES:
        line = line.replace(escape, char)
    return line


def roff_blocks(path):
    """A man page's blocks, as blocks() gives a Markdown document's: a
    paragraph from a break request (.PP, .TP, .IP, ...) to the next; the
    sections .SH and .SS are headings; .nf/.fi and .EX/.EE (examples) and
    comments are left out.  A .TP's tag begins its paragraph."""
    heading, out, para, fill = "", [], [], True

    def flush():
        if para:
            out.append((heading, "para", " ".join(s for s in para if s)))
            para.clear()
    for line in open(path, encoding="utf-8").read().split("\n"):
        request = line.split(" ", 1)[0]
        if line.startswith(('.\\"', "'\\\"")) or request in (".TH", ".ad", ".na", ".hy", ".nh"):
            continue
        if request in (".nf", ".EX"):
            flush()
            fill = False
        elif request in (".fi", ".EE"):
            fill = True
        elif not fill:
            continue
        elif request in (".SH", ".SS"):
            flush()
            heading = roff_text(line.partition(" ")[2]).strip('"')
        elif request in ROFF_BREAK or not line.strip():
            flush()
        else:
            para.append(roff_text(line).strip())
    flush()
    return out


def sentences(text):
    """A paragraph cut into sentences: after '.', '?', '!' or '.)' (outside
    a `code` span) followed by a blank and a capital, a backquote or '('."""
    out, start, code = [], 0, False
    for i, c in enumerate(text):
        if c == "`":
            code = not code
        elif ((c in ".?!" or (c == ")" and text[i - 1:i] == ".")) and not code and text[i + 1:i + 2] == " "
              and re.match(r"[A-Z`(*\[]", text[i + 2:i + 3])
              and not re.search(r"\b(e\.g|i\.e|etc|vs)\.$", text[start:i + 1])
              and not re.fullmatch(r"\s*[0-9]+\.", text[start:i + 1])):    # a list's number
            out.append(text[start:i + 1].strip())
            start = i + 2
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def statements(path):
    """(heading, text) of each statement of the document; PATH#HEADING:
    of that section only (the heading's text, without its #s)."""
    out = []
    path, _, section = path.partition("#")
    for heading, kind, text in (roff_blocks if re.search(r"\.[1-9]$", path) else blocks)(path):
        if section and heading != section:
            continue
        for s in ([text] if kind == "row" else sentences(text)):
            if kind == "row" or MARKER.search(s):   # a row is a statement whatever it says
                out.append((heading, s))
    return out


def read_map():
    """covered files, entries (lineno, file, quote, verdict), errors."""
    covered, entries, errors, current = [], [], [], None
    for n, line in enumerate(open(MAP, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("== "):
            current = line[3:].strip()
            covered.append(current)
            continue
        if " => " not in line or current is None:
            errors.append("tests/promises.map:%d: not an entry (QUOTE => TESTS, -- WHY or ?? WHY)" % n)
            continue
        quote, verdict = line.split(" => ", 1)
        entries.append((n, current, quote.strip(), verdict.strip()))
    return covered, entries, errors


def suite_source(suite):
    """The text a suite's check titles are looked for in: tests/SUITE.sh
    and the files of tests/SUITE/ (a suite may run checks from there)."""
    text = ""
    path = os.path.join(TOP, "tests", suite + ".sh")
    if os.path.exists(path):
        text += open(path, encoding="utf-8", errors="replace").read()
    folder = os.path.join(TOP, "tests", suite)
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith((".sh", ".awk", ".py", ".js")):
                text += open(os.path.join(folder, name), encoding="utf-8", errors="replace").read()
    return text if os.path.exists(path) else None


def main():
    uncovered_only = "--uncovered" in sys.argv
    covered, entries, errors = read_map()
    fails = list(errors)
    counts = {"tested": 0, "not": 0, "gap": 0}
    sources = {}
    for n, doc, quote, verdict in entries:
        where = "tests/promises.map:%d" % n
        stated = statements(os.path.join(TOP, doc)) if os.path.exists(os.path.join(TOP, doc.partition("#")[0])) else []
        if not any(quote in s for _, s in stated):
            fails.append("%s: the quote is in no statement of %s: %s" % (where, doc, quote))
        if verdict.startswith("--"):
            counts["not"] += 1
            continue
        if verdict.startswith("??"):
            counts["gap"] += 1
            continue
        counts["tested"] += 1
        for test in verdict.split(" ;; "):
            suite, _, title = test.partition(": ")
            if suite not in sources:
                sources[suite] = suite_source(suite)
            if sources[suite] is None:
                fails.append("%s: no suite tests/%s.sh" % (where, suite))
            elif not title or title not in sources[suite]:
                fails.append("%s: no check '%s' in tests/%s.sh" % (where, title, suite))
    nstat = 0
    for doc in covered:
        quotes = [q for _, d, q, _ in entries if d == doc]
        for heading, s in statements(os.path.join(TOP, doc)):
            nstat += 1
            if not any(q in s for q in quotes):
                if uncovered_only:
                    print("%s\t%s\t%s" % (doc, heading, s))
                else:
                    fails.append("%s (%s): a statement the map does not name: %s" % (doc, heading, s[:160]))
    # a document covered section by section: a new section shows too
    for path in sorted({d.partition("#")[0] for d in covered if "#" in d} - set(covered)):
        sections = {d.partition("#")[2] for d in covered if d.partition("#")[0] == path}
        for heading in sorted({h for h, _ in statements(os.path.join(TOP, path))} - sections):
            fails.append("%s: a section the map does not cover (== %s#%s): its statements are unmapped" % (path, path, heading))
    if uncovered_only:
        return 0
    for f in fails:
        print("FAIL " + f)
    print("%s %d statements in %d documents: %d entries tested, %d not promises, %d known gaps"
          % ("FAIL" if fails else "ok  ", nstat, len({d.partition("#")[0] for d in covered}),
             counts["tested"], counts["not"], counts["gap"]))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
