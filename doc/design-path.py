#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc/design-path.py - draws doc/design-path.svg, the picture of
doc/design.md: one malloc's way from the macro to the trace file, and
the exit report's.

    python3 doc/design-path.py           # writes doc/design-path.svg
    python3 doc/design-path.py -         # the SVG on stdout
    python3 doc/design-path.py --check   # 1 if doc/design-path.svg is stale

Python 3 alone, no other package: the boxes are placed by hand below,
and the SVG is written as text.  Edit the boxes here, never the SVG."""

import os
import sys

W = 940
CHAR = 6.6          # width of a character of the 11px monospace font
LINE = 14           # a text line's height

# Colours: the program's thread, the writer thread, the file, the exit.
PROG, WRITER, FILE, EXIT = "#e8f0fb", "#eaf6e6", "#fdf3dc", "#f6e8f3"


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Picture:
    def __init__(self):
        self.out = []
        self.height = 600

    def box(self, x, y, w, title, where, lines, fill):
        """A box: its title (bold) with the file it is about on the right,
        then its lines; returns (x, y, w, h)."""
        h = 10 + LINE * (1 + len(lines)) + 4
        longest = max([len(title) + len(where) + 2] + [len(t) for t in lines])
        assert longest * CHAR <= w - 16, (title, longest, w)
        self.out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" '
                        f'fill="{fill}" stroke="#556" stroke-width="1"/>')
        ty = y + 6 + LINE - 3
        self.out.append(f'<text x="{x + 8}" y="{ty}" font-weight="bold">{esc(title)}</text>')
        if where:
            self.out.append(f'<text x="{x + w - 8}" y="{ty}" text-anchor="end" '
                            f'fill="#224a8a">{esc(where)}</text>')
        for t in lines:
            ty += LINE
            self.out.append(f'<text x="{x + 8}" y="{ty}">{esc(t)}</text>')
        return (x, y, w, h)

    def arrow(self, x1, y1, x2, y2, label=None, dashed=False):
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        self.out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#334" '
                        f'stroke-width="1.4"{dash} marker-end="url(#head)"/>')
        if label:
            self.out.append(f'<text x="{(x1 + x2) / 2 + 6}" y="{(y1 + y2) / 2 + 4}" '
                            f'font-style="italic" fill="#333">{esc(label)}</text>')

    def text(self, x, y, s, size=None, bold=False, anchor=None):
        attrs = ""
        if size:
            attrs += f' font-size="{size}"'
        if bold:
            attrs += ' font-weight="bold"'
        if anchor:
            attrs += f' text-anchor="{anchor}"'
        self.out.append(f'<text x="{x}" y="{y}"{attrs}>{esc(s)}</text>')

    def svg(self):
        H = self.height
        head = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<!-- SPDX-License-Identifier: MIT -->',
            '<!-- made by doc/design-path.py: edit that, then run python3 doc/design-path.py -->',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'viewBox="0 0 {W} {H}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
            'font-size="11">',
            '<defs><marker id="head" markerWidth="9" markerHeight="7" refX="8" refY="3.5" '
            'orient="auto"><path d="M0,0 L9,3.5 L0,7 z" fill="#334"/></marker></defs>',
            f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
        ]
        return "\n".join(head + self.out + ["</svg>"]) + "\n"


def draw():
    p = Picture()
    p.text(20, 24, "One malloc, from the macro to the trace file; and the exit report",
           size=14, bold=True)
    p.text(40, 48, "the program's thread", bold=True)

    LX, LW = 40, 490
    boxes = [
        ("1 malloc(n) in traced code", "mtrace.h",
         ["the macro: malloc(MTRACE_AT_(size_t, n)) stores n (the",
          "key), its static site and the caller's frame in",
          "mtrace_pending, a ring of 4 per thread; an asm label",
          "binds the name malloc to mtrace_malloc"]),
        ("2 mtrace_malloc", "runtime/entry.c",
         ["takes the site by its key (none announced: a site by",
          "return address, callers.c); with MTRACE_DEPTH walks",
          "the callers (stacks.c); calls the C library's malloc",
          "(platform.c), outside the lock"]),
        ("3 the lock", "runtime/state.c",
         ["mtrace_lock_traced: busy 1, take the lock, busy 2;",
          "first life.c starts the tracer if not yet (mtrace_init)"]),
        ("4 the site", "runtime/sites.c, stacks.c",
         ["its index, given at its first call (a hash of",
          "function, file, line), then read from the site"]),
        ("5 the block", "runtime/blocks.c",
         ["a 16-byte entry in the bucket of its 64 KiB range;",
          "a tombstone left at that address is erased"]),
        ("6 the figures", "runtime/account.c",
         ["the site's (and stack's) live bytes and peak, the",
          "total, the global peak; levels 2 and 3 stop here"]),
        ("7 the record", "runtime/trace.c, ring.c",
         ["level 1: the operation's numbers (16 or 24 bytes)",
          "appended to the ring; a site's first \"@\" record and",
          "a stack's \"#stack\" go before it, as text"]),
        ("8 unlock", "runtime/state.c",
         ["busy 0; the call that made the first record then",
          "starts the writer thread (ring.c), outside the lock"]),
    ]
    y = 58
    placed = []
    for title, where, lines in boxes:
        b = p.box(LX, y, LW, title, where, lines, PROG)
        placed.append(b)
        y += b[3] + 16
    for a, b in zip(placed, placed[1:]):
        p.arrow(LX + 40, a[1] + a[3], LX + 40, b[1] - 1)
    prog_bottom = y
    # the lock held: from the lock to the unlock
    top, bottom = placed[2][1] + 20, placed[7][1] + 10
    p.out.append(f'<line x1="24" y1="{top}" x2="24" y2="{bottom}" stroke="#a33" stroke-width="3"/>')
    p.out.append(f'<text transform="translate(18,{(top + bottom) / 2}) rotate(-90)" '
                 f'text-anchor="middle" fill="#a33" font-weight="bold">the lock held</text>')

    # What the per-thread state says, top right.
    RX, RW = 570, 350
    legend = p.box(RX, 58, RW, "mtrace_pending.busy", "mtrace.h",
                   ["0  outside the tracer",
                    "1  waiting for the lock (step 3)",
                    "2  holding it (steps 3 to 8)",
                    "3  in the C library for the tracer",
                    "   (state.c mtrace_own_calls_begin)",
                    "A traced call made while busy is not",
                    "0 (a signal handler's, the tracer's",
                    "own) passes through untraced."], "#f4f4f4")

    # The writer's column, from the ring.
    p.text(RX, legend[1] + legend[3] + 34, "the writer thread, \"mtrace writer\"", bold=True)
    p.text(RX, legend[1] + legend[3] + 48, "(level 1; it takes no lock)")
    rec = placed[6]
    r1 = p.box(RX, legend[1] + legend[3] + 60, RW, "the ring", "runtime/ring.c",
               ["1 MiB of entries, in the lock's order;",
                "the writer woken when a quarter waits"], WRITER)
    r2 = p.box(RX, r1[1] + r1[3] + 16, RW, "mtrace_writer_main", "runtime/ring.c",
               ["takes 64 KiB of entries at a time, or",
                "all there is after a nap (20 ms; 250",
                "when idle) or when asked to drain"], WRITER)
    r3 = p.box(RX, r2[1] + r2[3] + 16, RW, "the text", "runtime/write.c",
               ["\"+ ID RECNO TOTAL SITE MAXRSS [SID]\"",
                "into a 1 MiB buffer (mtrace_format_entry)"], WRITER)
    r4 = p.box(RX, r3[1] + r3[3] + 16, RW, "the write", "runtime/write.c, zstd.c",
               ["when half full or 100 ms after its",
                "oldest text: mtrace_flush, then",
                "mtrace_zst_write (plain write(2) or zstd)"], WRITER)
    r5 = p.box(RX, r4[1] + r4[3] + 16, RW, "the trace file", "MTRACE=NAME",
               ["opened by trace.c at the first record;",
                "NAME.zst compressed; NAME.PID for a fork"], FILE)
    p.arrow(LX + LW, rec[1] + 24, RX - 1, r1[1] + 24)
    for a, b in zip([r1, r2, r3, r4], [r2, r3, r4, r5]):
        p.arrow(RX + 40, a[1] + a[3], RX + 40, b[1] - 1)
    ny = r5[1] + r5[3] + 20
    p.text(RX, ny, "No writer (MTRACE_WRITER=0, a forked child,")
    p.text(RX, ny + 14, "or before it runs): the lock's holder formats")
    p.text(RX, ny + 28, "and writes the same bytes itself.")

    # The exit report, along the bottom.
    ey = max(prog_bottom, ny + 28) + 30
    p.text(20, ey, "At exit, after every destructor (life.c: on_exit, or a handler queued by the "
           "destructor):", bold=True)
    ey += 12
    steps = [
        ("finish", "life.c", ["mtrace_finish: the", "lock, DONE, MAXRSS;", "callers named"]),
        ("tail", "trace.c", ["drain the ring, the", "gnuplot tail; the", "writer stops"]),
        ("paths", "names.c", ["each site's file,", "relative below the", "run's directory"]),
        ("leaks", "leaks.c", ["live blocks as", "records (reach.c:", "the reachable scan)"]),
        ("report", "report.c", ["summary and leaks", "on stderr; then", "json.c's file"]),
    ]
    x, bw, gap = 20, 164, 16
    prev = None
    for title, where, lines in steps:
        b = p.box(x, ey, bw, title, where, lines, EXIT)
        if prev:
            p.arrow(prev[0] + prev[2], prev[1] + 30, b[0] - 1, b[1] + 30)
        prev = b
        x += bw + gap
    p.text(20, ey + prev[3] + 22,
           "Then the status: leaks turn 0 into 1 (stdio flushed, then _exit(1)).")
    p.text(20, ey + prev[3] + 38,
           "A fatal signal, _exit, _Exit, quick_exit: the trace written out whole, "
           "no report, the program's own end.")
    p.height = ey + prev[3] + 56
    return p.svg()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.path.join(here, "design-path.svg")
    svg = draw()
    if len(sys.argv) > 1 and sys.argv[1] == "-":
        sys.stdout.write(svg)
    elif len(sys.argv) > 1 and sys.argv[1] == "--check":
        with open(target, encoding="utf-8") as f:
            if f.read() != svg:
                sys.stderr.write("doc/design-path.svg is stale: run python3 doc/design-path.py\n")
                return 1
    else:
        with open(target, "w", encoding="utf-8") as f:
            f.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
