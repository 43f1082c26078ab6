#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/mutate/gen.py - mutants made by rule (issue 37), and the lists'
parser, for tests/mutate/run.sh (`make mutate`, `make mutate-all`).

  gen.py generate TREE [--sample N] [--seed S] [--ids "ID..."] [FILE...]
        the mutants of TREE's runtime/, mtrace.h and convert/ (or of the
        FILEs, paths from TREE's top) as entries of a list (the form of
        tests/mutate/mutants.txt), on stdout: all of them, or a sample of
        N stratified by file, or the ones named; then every reviewed
        equivalent (tests/mutate/equivalent.txt) as an `equivalent:` entry
  gen.py counts TREE [FILE...]    how many mutants each file has, by operator
  gen.py parse LIST TREE          id TAB file TAB suites-or-"=" TAB why
  gen.py check LIST TREE          the STALE entries: id TAB reason
  gen.py apply LIST TREE ID ORIG  mutant ID made in TREE from ORIG's file
  gen.py diff LIST TREE ID        the mutant as a unified diff of its line
  gen.py report LIST RESULTS      the score by file and the survivors
  gen.py failures LOG TOP         tests/run.sh's output LOG: each suite's FAIL
                                  lines (TOP, temporary names and numbers
                                  made X and #), and the suites that ended
                                  without their "N passed" line

The rules (one mutant changes one line; the runner needs its text):

  rel    a relational operator one step off: < and <=, > and >=, == and !=
         (in code and in #if and #define lines; not in __has_include(<x.h>))
  logic  && and || swapped
  const  an integer constant plus one, and minus one when it is not 0
         (decimal, hex kept in hex with its width and case, octal in
         octal, the suffix kept), in #define's bounds too.  Not: the size
         in an array's declaration (char buf[64]: a buffer one larger
         or char obuf[1 << 16] changes nothing a test can see, one
         smaller only what a
         sanitizer sees), the constant condition of a while (while (0)
         made while (1) hangs), the C library's feature macros
         (#define _POSIX_C_SOURCE 200809L), versions in #if (199901L: a
         constant of 10000 or more there), the arguments of
         __attribute__ but a constructor's or destructor's priority
         (aligned(64), format(printf, 2, 3): no code, or no build), and
         #include, #line, #pragma and #error lines
  cond   a condition forced: if (X) made if (1) and if (0), while (X) made
         while (0) (never while (1): it would hang), when X is on one line
         and is not already 0 or 1
  stmt   a statement removed (replaced by `;`, a comment after it kept):
         an expression statement inside a function, on one line: a call,
         an assignment, ++ or --; not a declaration, a return, break,
         continue or goto, not `(void)x;` (no effect to remove); in a
         #define's body too (mtrace.h's macros are statements)
  flag   a flag dropped from a set: an operand of a binary | that is a
         macro's name in capitals (O_CLOEXEC, MTRACE_FREED) or a hex
         constant, with its |; O_RDONLY, RTLD_LOCAL and PROT_NONE (0: no
         flag) are never dropped

Comments and the contents of strings and characters are never changed.
The generated files convert/html/m2m_html_page.c and
convert/html/diff_html_page.c (made from convert/html/ by embed.awk: the page's text as C strings) are
left out; mtrace.c only includes the runtime's files.

A mutant's line is its `from:`.  When the line is not unique in its file
(as a substring: the runner's test for the hand-written list), the entry
says which of the equal lines it is, `nth: K` (the K-th line of the file
equal to from:, whole lines, from the top).  A mutant's id is
FILE:OP:HASH, HASH the first 8 hex digits of the SHA-1 of the file's path,
the operator, the line, its mutated text and K: not its line number, so
the same mutant keeps its id when lines come or go above it (a line made
equal to one above it takes the next K, and a new id).  `line:` is where
the line was when the entry was made, for the reader and the diff only.

The sample: N mutants out of the ones not reviewed as equivalent: each
file first MIN_PER_FILE of its mutants (2; fewer when N is less than 2 a
file: N / the number of files), then the rest in proportion to each
file's count (largest remainders); within a file, the mutants ordered by
id and drawn by Python's random.Random seeded with "SEED:FILE": the same
tree and seed give the same sample, and a change in one file changes no
other file's draw.

The suites that cover each file: SUITES_BY_FILE below, fastest first
(their times on the 2-core machine in tests/mutate/mutants.txt's header).
For a mutant none of them kills, the runner runs the whole suite before
calling it a survivor.
"""
import hashlib
import os
import random
import re
import sys

MIN_PER_FILE = 2
# The generated files: their text is the page's style and script.
SKIP_FILES = {"convert/html/m2m_html_page.c", "convert/html/diff_html_page.c"}

# File (a regular expression on the path, first match) -> the suites that
# cover it, fastest first.  The runtime's files: the fast suites that run
# traced programs (inputs 2 s, ci 5-9, gaps 6-9, writer 9, zstd 8, depth
# 6-14, promises 10, model 15-26, hardening 28-50), a file's own suite
# before them.  (promises: the documented bounds, at, below and above.)
RUNTIME = "inputs ci gaps writer zstd depth promises model hardening"
SUITES_BY_FILE = [
    (r"runtime/guard\.c$", "heapcheck modelheap " + RUNTIME),
    (r"runtime/zstd\.c$", "zstd " + RUNTIME),
    (r"runtime/segments\.c$", "segments " + RUNTIME),
    (r"runtime/(cxx|entry)\.c$", "cxx modelcxx " + RUNTIME),      # new and delete, mismatches
    (r"runtime/(write|ring)\.c$", "writer " + RUNTIME),
    (r"runtime/(stacks|callers|names|annotate)\.c$", "depth " + RUNTIME),
    (r"runtime/(ci|json|leaks|reach|report)\.c$", "ci cxx " + RUNTIME),
    (r"runtime/|^mtrace\.h$", RUNTIME),
    (r"convert/ms_print/", "ms_print convmodel"),
    (r"convert/mtrace2massif/m2m_html", "mtrace2massif html"),
    (r"convert/trace/segments\.c$", "segments top mtrace2massif diff"),
    (r"convert/trace/", "stacks convmodel mtrace2massif diff top"),    # the parser they all use
    (r"convert/mtrace-top/", "top segments"),
    (r"convert/mtrace2massif/", "stacks convmodel mtrace2massif"),
    (r"convert/mtrace-diff/diff_html", "diff html"),
    (r"convert/mtrace-diff/", "diff"),
    (r"convert/html/", "mtrace2massif html diff"),
    (r"convert/", "convmodel zstd ms_print mtrace2massif diff top"),    # common/: tool.c, tool.h
]

OPS = ("rel", "logic", "const", "cond", "stmt", "flag")
REL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}

TOKEN = re.compile(r"""
   (?P<ws>[ \t\f\v\r]+|\\\n)
 | (?P<nl>\n)
 | (?P<comment>/\*.*?\*/|//(?:\\\n|[^\n])*)
 | (?P<str>"(?:\\.|[^"\\\n])*")
 | (?P<chr>'(?:\\.|[^'\\\n])*')
 | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)
 | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
 | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[][(){}.,;:?~!<>=+*/%&|^#-])
 | (?P<other>.)
""", re.X | re.S)

KEYWORDS = set("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed
sizeof static struct switch typedef union unsigned void volatile while _Bool
__attribute__ __extension__ asm __asm__ __inline__ __restrict _Static_assert
__typeof__ typeof _Alignof""".split())
NOT_TYPES = {"return", "sizeof", "case", "else", "do", "goto", "_Alignof"}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
EXPR_FOLLOW = ASSIGN_OPS | {"(", "->", ".", "[", "++", "--", ","}
LEFT_BOUND = ASSIGN_OPS | {"(", ",", "?", ":", "&&", "||", "{", "return"}
RIGHT_BOUND = {")", ",", ";", "|", "?", ":", "}", "&&", "||"}
INTEGER = re.compile(r"(0[xX])([0-9a-fA-F]+)([uUlL]*)|([1-9][0-9]*|0)([uUlL]*)|0([0-7]+)([uUlL]*)")
# flags whose value is 0: dropping one changes nothing
ZERO_FLAGS = {"O_RDONLY", "RTLD_LOCAL", "PROT_NONE"}
FLAG = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z]{2,}[A-Z0-9]*|0[xX][0-9a-fA-F]+")


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "pp")

    def __init__(self, kind, text, start, line, pp):
        self.kind, self.text, self.start, self.end = kind, text, start, start + len(text)
        self.line, self.pp = line, pp


def tokenize(text):
    """The tokens but white space and comments, each with its line (from 0)
    and its directive's name when it is in a preprocessor line (the # and
    the name included)."""
    toks, line, bol, pp, i = [], 0, True, None, 0
    while i < len(text):
        m = TOKEN.match(text, i)
        kind, s = m.lastgroup, m.group()
        if kind == "nl":
            bol, pp = True, None
        elif kind not in ("ws", "comment"):
            if bol and s == "#":
                pp = "#"
            elif pp == "#" and kind == "id":
                pp = s
                toks[-1].pp = s
            bol = False
            toks.append(Tok(kind, s, i, line, pp))
        line += s.count("\n")
        i = m.end()
    return toks


def integer_variants(s):
    """s plus one and minus one (not below 0), written as s is."""
    m = INTEGER.fullmatch(s)
    if not m:
        return []
    if m.group(1):
        digits, suffix = m.group(2), m.group(3)
        v = int(digits, 16)
        fmt = "%0*X" if any(c in "ABCDEF" for c in digits) else "%0*x"
        w = lambda n: m.group(1) + fmt % (len(digits), n) + suffix
    elif m.group(4) is not None:
        v, suffix = int(m.group(4)), m.group(5)
        w = lambda n: "%d%s" % (n, suffix)
    else:
        v, suffix = int(m.group(6), 8), m.group(7)
        w = lambda n: "0%o%s" % (n, suffix) if n else "0" + suffix
    return [w(v + 1)] + ([w(v - 1)] if v > 0 else [])


def array_size(code, k):
    """Is code[k] in the size of an array's declaration: name[N] or
    name[1 << 16], with a type (or *, or another [N]) before the name?"""
    depth, j = 0, k - 1
    while j >= 0:           # back to the [ around code[k]
        x = code[j].text
        if x in (";", "{", "}"):
            return False
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth == 0:
                break
            depth -= 1
        j -= 1
    if j < 1 or code[j].text != "[":
        return False
    j -= 1
    while j >= 2 and code[j].text == "]":
        d = 1                   # int a[2][3]: back to the name
        j -= 1
        while j >= 0 and d:
            d += {"]": 1, "[": -1}.get(code[j].text, 0)
            j -= 1
    if j < 1 or code[j].kind != "id":
        return False
    before = code[j - 1]
    return (before.kind == "id" and before.text not in NOT_TYPES) or before.text == "*"


def enclosing(seq, k):
    """The names before the parentheses around seq[k], innermost first
    (within its statement)."""
    names, depth = [], 0
    for j in range(k - 1, -1, -1):
        x = seq[j].text
        if x in (";", "{", "}"):
            break
        if x == ")":
            depth += 1
        elif x == "(":
            if depth:
                depth -= 1
            else:
                names.append(seq[j - 1].text if j else "")
    return names


def no_const(seq, k):
    """The constants no rule changes (see the header)."""
    if array_size(seq, k):
        return True
    if k >= 2 and seq[k - 1].text == "(" and seq[k - 2].text == "while" \
            and k + 1 < len(seq) and seq[k + 1].text == ")":
        return True
    pp = seq[0].pp
    if pp == "define" and len(seq) > 2 and re.match(r"_[A-Z]", seq[2].text):
        return True         # the C library's feature macros: _POSIX_C_SOURCE 200809L
    if pp in ("if", "elif") and int(re.match(r"0[xX][0-9a-fA-F]+|[0-9]*", seq[k].text).group() or "0", 0) >= 10000:
        return True         # a version: __STDC_VERSION__ >= 199901L
    names = enclosing(seq, k)
    if "__attribute__" in names and names[0] not in ("constructor", "destructor"):
        return True         # aligned(64), format(printf, 2, 3)
    return False


def matching(code, k):
    """The index of the ) that closes the ( at code[k], or None."""
    depth = 0
    for j in range(k, len(code)):
        if code[j].text == "(":
            depth += 1
        elif code[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def statement_starts(code):
    """Indices in code (tokens outside directives) where a statement may
    begin inside a function: after ; { } else do, after the ) of an if,
    while, for or switch head, after a case's or a label's colon.  Paren
    depth 0 (inside the innermost braces), brace depth 1 or more."""
    starts, paren, brace, opener, outer = [], 0, 0, [], []
    head = label = False
    since = []          # the tokens at depth 0 since the last ; { } or :
    for k, t in enumerate(code):
        x = t.text
        if paren == 0 and brace > 0 and k > 0:
            p = code[k - 1].text
            if p in (";", "{", "}", "else", "do") or (p == ")" and head) or (p == ":" and label):
                starts.append(k)
        head = label = False
        if x == "(":
            opener.append(k)
            paren += 1
        elif x == ")":
            paren -= 1
            o = opener.pop() if opener else 0
            head = paren == 0 and o > 0 and code[o - 1].text in ("if", "while", "for", "switch")
        elif x == "{":      # ({ ... }): a statement expression's depth 0
            outer.append(paren)
            paren, brace = 0, brace + 1
        elif x == "}":
            paren, brace = outer.pop() if outer else 0, brace - 1
        if paren != 0 or head:
            continue
        if x in (";", "{", "}"):
            since = []
        elif x == ":":
            label = bool(since) and (since[0].text in ("case", "default")
                                     or (len(since) == 1 and since[0].kind == "id"))
            since = []
        else:
            since.append(t)
    return starts


def expression_statement(code, k):
    """The index of the ; that ends an expression statement beginning at
    code[k] on one line, or None."""
    t = code[k]
    if k + 1 >= len(code):
        return None
    n = code[k + 1]
    if t.kind == "id":
        if t.text in KEYWORDS or n.text not in EXPR_FOLLOW:
            return None
    elif t.text == "(":
        if n.text == "void" and k + 4 < len(code) and code[k + 2].text == ")" \
                and code[k + 3].kind in ("id", "num") and code[k + 4].text == ";":
            return None     # (void)x; silences a warning, nothing to remove
    elif t.text not in ("*", "++", "--"):
        return None
    depth = 0
    for j in range(k, len(code)):
        x = code[j].text
        if code[j].line != t.line:
            return None
        if x in ("(", "["):
            depth += 1
        elif x in (")", "]"):
            depth -= 1
        elif x in ("{", "}"):
            return None
        elif x == ";" and depth == 0:
            return j
    return None


class Mutant:
    __slots__ = ("file", "op", "line", "col", "end", "repl", "what", "src", "dst", "nth", "id", "suites")


def mutants_of(path, text):
    """Every mutant of one file, in the order of the text."""
    lines = text.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    toks = tokenize(text)
    out = []

    def add(op, a, b, repl, what, col=None, end=None):
        """Tokens a..b (one line) replaced by repl; or columns col..end of
        a's line."""
        if a.line != b.line:
            return
        m = Mutant()
        m.file, m.op, m.line, m.what = path, op, a.line, what
        m.col = a.start - starts[a.line] if col is None else col
        m.end = b.end - starts[a.line] if end is None else end
        m.repl = repl
        out.append(m)

    skip_pp = ("include", "include_next", "line", "pragma", "error", "warning", "#", "undef", "ident")
    code = [t for t in toks if t.pp is None]
    seqs = [code]           # the code, and each directive's tokens apart
    for t in toks:
        if t.pp is not None and t.text == "#":
            seqs.append([])
        if t.pp is not None:
            seqs[-1].append(t)
    bodies = [code]         # where statements are: the code, macros' bodies
    for seq in seqs[1:]:
        if seq[0].pp == "define" and len(seq) > 3:
            b = 3
            if seq[3].text == "(" and seq[3].start == seq[2].end:
                b = (matching(seq, 3) or len(seq)) + 1
            bodies.append(seq[b:])
    for seq in seqs:
        if seq and (seq[0].pp in skip_pp or any(t.text.startswith("__has_include") for t in seq)):
            continue        # (and __has_include(<name.h>): no < > to change)
        for k, t in enumerate(seq):
            x = t.text
            if t.kind == "punct" and x in REL:
                add("rel", t, t, REL[x], "%s -> %s" % (x, REL[x]))
            elif x in ("&&", "||"):
                y = "||" if x == "&&" else "&&"
                add("logic", t, t, y, "%s -> %s" % (x, y))
            elif t.kind == "num":
                if no_const(seq, k):
                    continue
                for v in integer_variants(x):
                    add("const", t, t, v, "%s -> %s" % (x, v))
            elif x == "|" and 1 <= k < len(seq) - 1:
                # first: the macro's name in a #define, the left end
                first = 2 if seq[0].pp == "define" else -1
                left, right = seq[k - 1], seq[k + 1]
                lb = k - 1 == 0 or k - 2 == first or seq[k - 2].text in LEFT_BOUND
                if lb and FLAG.fullmatch(left.text) and left.text not in ZERO_FLAGS:
                    add("flag", left, right, right.text, "%s dropped" % left.text)
                rb = k + 2 >= len(seq) or seq[k + 2].text in RIGHT_BOUND
                if rb and FLAG.fullmatch(right.text) and right.text not in ZERO_FLAGS:
                    if left.line == t.line:     # " | R" after its left operand
                        add("flag", left, right, left.text, "%s dropped" % right.text)
                    elif k + 2 < len(seq) and seq[k + 2].line == t.line:
                        # a line that begins with "| R": "| R " goes
                        add("flag", t, right, "", "%s dropped" % right.text,
                            end=seq[k + 2].start - starts[t.line])
    # cond and stmt: in the code and in macros' bodies
    for seq in bodies:
        for k, t in enumerate(seq):
            if t.text in ("if", "while") and k + 1 < len(seq) and seq[k + 1].text == "(":
                j = matching(seq, k + 1)
                if j is None or j == k + 2:
                    continue
                inner = seq[k + 2:j]
                if len(inner) == 1 and inner[0].text in ("0", "1"):
                    continue
                for v in (("1", "0") if t.text == "if" else ("0",)):
                    add("cond", seq[k + 2], seq[j - 1], v,
                        "%s forced %s" % (t.text, "true" if v == "1" else "false"))
        for k in statement_starts(seq):
            j = expression_statement(seq, k)
            if j is not None:
                add("stmt", seq[k], seq[j], ";", "statement removed")

    # the texts, each mutant's K among equal lines, the ids
    count = {}
    for ln in lines:
        count[ln] = count.get(ln, 0) + 1
    nth_of, seen = {}, {}
    for i, ln in enumerate(lines):
        seen[ln] = seen.get(ln, 0) + 1
        nth_of[i] = seen[ln]
    base = os.path.basename(path)
    result, ids = [], set()
    for m in out:
        src = lines[m.line]
        m.src = src
        m.dst = src[:m.col] + m.repl + src[m.end:]
        m.nth = 0 if text.count(src) == 1 else nth_of[m.line]
        h = hashlib.sha1("\0".join([path, m.op, m.src, m.dst, str(m.nth)]).encode()).hexdigest()[:8]
        m.id = "%s:%s:%s" % (base, m.op, h)
        if m.dst == m.src or m.id in ids or not src.strip():
            continue            # (the same change reached twice)
        ids.add(m.id)
        m.suites = suites_of(path)
        result.append(m)
    return result


def suites_of(path):
    for pattern, suites in SUITES_BY_FILE:
        if re.search(pattern, path):
            return " ".join(dict.fromkeys(suites.split()))    # each once
    return RUNTIME


def default_files(tree):
    files = []
    for d in ("runtime", "convert"):
        for top, dirs, names in os.walk(os.path.join(tree, d)):
            dirs.sort()
            rel = os.path.relpath(top, tree)
            for f in sorted(names):
                if f.endswith((".c", ".h")) and "%s/%s" % (rel, f) not in SKIP_FILES:
                    files.append("%s/%s" % (rel, f))
    files.insert(0, "mtrace.h")
    return files


def generate(tree, files):
    every = []
    for f in files or default_files(tree):
        every.extend(mutants_of(f, open(os.path.join(tree, f), encoding="utf-8").read()))
    return every


def read_equivalent(tree):
    """tests/mutate/equivalent.txt: id -> reason."""
    path = os.path.join(tree, "tests/mutate/equivalent.txt")
    eq = {}
    if os.path.exists(path):
        for n, raw in enumerate(open(path, encoding="utf-8"), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            mid, _, why = line.partition(" ")
            if mid in eq or not why.strip():
                sys.exit("%s:%d: %s" % (path, n, "id twice" if mid in eq else "no reason"))
            eq[mid] = why.strip()
    return eq


def sample(mutants, n, seed):
    """n mutants stratified by file (see the header)."""
    byfile = {}
    for m in mutants:
        byfile.setdefault(m.file, []).append(m)
    total = len(mutants)
    if n >= total:
        return list(mutants)
    least = min(MIN_PER_FILE, n // len(byfile))
    take = {f: min(least, len(ms)) for f, ms in byfile.items()}
    # the rest in proportion to each file's count, by largest remainders
    # (a file that has no more gives its turn to the next)
    while sum(take.values()) < n:
        rest = n - sum(take.values())
        room = {f: len(byfile[f]) - take[f] for f in byfile if take[f] < len(byfile[f])}
        weight = sum(len(byfile[f]) for f in room)
        share = {f: rest * len(byfile[f]) / weight for f in room}
        grew = 0
        for f in room:
            g = min(int(share[f]), room[f])
            take[f] += g
            grew += g
        if grew == 0:
            for f in sorted(room, key=lambda f: (-(share[f] - int(share[f])), f))[:rest]:
                take[f] += 1
    chosen = set()
    for f, ms in byfile.items():
        rng = random.Random("%s:%s" % (seed, f))
        chosen.update(m.id for m in rng.sample(sorted(ms, key=lambda m: m.id), take[f]))
    return [m for m in mutants if m.id in chosen]


def entry(m, equivalent=None):
    lines = ["id: " + m.id, "file: " + m.file, "op: " + m.op, "line: %d" % (m.line + 1)]
    if m.nth:
        lines.append("nth: %d" % m.nth)
    lines += ["from: " + m.src, "to: " + m.dst]
    lines.append("equivalent: " + equivalent if equivalent else "suites: " + m.suites)
    lines.append("why: %s: %s" % (m.op, m.what))
    return "\n".join(lines) + "\n"


# --- the lists (mutants.txt's form; the generated ones add op:, line:, nth:)

KEYS = ("id", "file", "from", "to", "suites", "equivalent", "why", "op", "line", "nth")


def parse(path):
    entries, cur, lineno = [], None, 0

    def close():
        if cur is not None:
            entries.append(cur)
    for raw in open(path, encoding="utf-8"):
        lineno += 1
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            close()
            cur = None
            continue
        key, sep, value = line.partition(":")
        if not sep or key not in KEYS:
            sys.exit("%s:%d: not KEY: VALUE: %s" % (path, lineno, line))
        value = value[1:] if value.startswith(" ") else value
        if key == "id":
            close()
            cur = {"id": value.strip(), "at": lineno}
            continue
        if cur is None:
            sys.exit("%s:%d: %s: before any id:" % (path, lineno, key))
        if key in cur:
            sys.exit("%s:%d: %s: twice in %s" % (path, lineno, key, cur["id"]))
        cur[key] = value if key in ("from", "to") else value.strip()
    close()
    seen = set()
    for e in entries:
        for k in ("file", "from", "to", "why"):
            if k not in e:
                sys.exit("%s:%d: %s has no %s:" % (path, e["at"], e["id"], k))
        if ("suites" in e) == ("equivalent" in e):
            sys.exit("%s:%d: %s needs suites: or equivalent:, not both" % (path, e["at"], e["id"]))
        if e["id"] in seen:
            sys.exit("%s:%d: id %s twice" % (path, e["at"], e["id"]))
        if e["from"] == e["to"]:
            sys.exit("%s:%d: %s changes nothing" % (path, e["at"], e["id"]))
        if "nth" in e and not e["nth"].isdigit():
            sys.exit("%s:%d: %s: nth: not a number" % (path, e["at"], e["id"]))
        seen.add(e["id"])
    return entries


def where(e, text):
    """The offset of e's text in text, or an error message."""
    if "nth" in e:
        k, off = int(e["nth"]), 0
        for ln in text.split("\n"):
            if ln == e["from"]:
                k -= 1
                if k == 0:
                    return off
            off += len(ln) + 1
        return "its line is not there %s times in %s" % (e["nth"], e["file"])
    n = text.count(e["from"])
    return text.find(e["from"]) if n == 1 else "its text occurs %d times in %s" % (n, e["file"])


def diff(e):
    n = e.get("line", "1")
    return "--- a/%s\n+++ b/%s\n@@ -%s +%s @@\n-%s\n+%s\n" % (e["file"], e["file"], n, n, e["from"], e["to"])


def report(entries, results):
    """The generated mutants' score by file, the survivors with their diffs,
    the ones that did not build, the reviewed equivalents."""
    byid = {e["id"]: e for e in entries}
    res = {}
    for raw in open(results, encoding="utf-8"):
        mid, verdict, detail = (raw.rstrip("\n").split("\t") + ["", ""])[:3]
        res[mid] = (verdict, detail)
    files, out = {}, []
    for e in entries:
        if "op" not in e or e["id"] not in res:
            continue
        f = files.setdefault(e["file"], [0, 0, 0])
        v = res[e["id"]][0]
        if v == "killed":
            f[0] += 1
            f[1] += 1
        elif v == "survived":
            f[1] += 1
        elif v == "stillborn":
            f[2] += 1
    if not files and not any("op" in e and "equivalent" in e for e in entries):
        return ""
    out.append("Generated mutants, by file (killed of counted; not built, not counted):")
    k = n = s = 0
    for name in sorted(files):
        a, b, c = files[name]
        k, n, s = k + a, n + b, s + c
        pct = "%5.1f%%" % (100.0 * a / b) if b else "    -"
        out.append("  %-28s %4d of %-4d %s%s" % (name, a, b, pct, "   (%d not built)" % c if c else ""))
    out.append("  %-28s %4d of %-4d %s%s" % ("all", k, n, "%5.1f%%" % (100.0 * k / n) if n else "    -",
                                            "   (%d not built)" % s if s else ""))
    surv = [e for e in entries if "op" in e and res.get(e["id"], ("",))[0] == "survived"]
    out.append("")
    dead = sum("same code" in res[e["id"]][1] for e in surv)
    out.append("Survivors (%d), each with what it lived through%s:" % (
        len(surv), "; %d the same code as the unchanged tree in this build (dead here: "
        "another platform's or configuration's code)" % dead if dead else ""))
    for e in surv:
        out.append("SURVIVED %s  (%s; %s)" % (e["id"], e["why"], res[e["id"]][1]))
        out.append(diff(e).rstrip("\n"))
    born = [e for e in entries if "op" in e and res.get(e["id"], ("",))[0] == "stillborn"]
    if born:
        out.append("")
        out.append("Not built (%d, not counted):" % len(born))
        for e in born:
            out.append("NOTBUILT %s  (%s)" % (e["id"], e["why"]))
            out.append(diff(e).rstrip("\n"))
    eq = [e for e in entries if "op" in e and "equivalent" in e]
    if eq:
        out.append("")
        out.append("Reviewed equivalents (%d, tests/mutate/equivalent.txt; never run, not counted):" % len(eq))
        for e in eq:
            out.append("EQUIVALENT %s  %s" % (e["id"], e["equivalent"]))
            out.append(diff(e).rstrip("\n"))
    return "\n".join(out) + "\n"


def failures(log, top):
    """suite TAB line, for each FAIL line of tests/run.sh's output, and
    each suite that died (see the header)."""
    out, suite, summary = [], None, False

    def close():
        if suite and not summary:
            out.append("%s\t(no 'N passed' line: the suite died)" % suite)
    for raw in open(log, encoding="utf-8", errors="replace"):
        line = raw.rstrip("\n")
        m = re.match(r"=== tests/(\S+)\.sh$", line)
        if m or line == "=== failed":
            close()
            suite, summary = (m.group(1) if m else None), False
            if not m:
                break
            continue
        if suite is None:
            continue
        if re.match(r"\S+: \d+ passed, \d+ failed$", line):
            summary = True
        elif line.startswith("FAIL"):
            line = line.replace(top, "TOP")
            line = re.sub(r"(mtrace-[a-z]+|tmp)\.[A-Za-z0-9]{6,}", r"\1.X", line)
            out.append("%s\t%s" % (suite, re.sub(r"[0-9]+", "#", line)))
    close()
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, a = argv[1], argv[2]
    if cmd in ("generate", "counts"):
        tree, rest, n, seed, want = a, argv[3:], None, "1", None
        files = []
        i = 0
        while i < len(rest):
            if rest[i] in ("--sample", "--seed", "--ids"):
                if i + 1 >= len(rest):
                    sys.exit("gen.py: %s needs a value" % rest[i])
                if rest[i] == "--sample":
                    n = int(rest[i + 1])
                elif rest[i] == "--seed":
                    seed = rest[i + 1]
                else:
                    want = rest[i + 1].split()
                i += 2
            else:
                files.append(rest[i])
                i += 1
        every = generate(tree, files)
        if cmd == "counts":
            table = {}
            for m in every:
                table.setdefault(m.file, dict.fromkeys(OPS, 0))[m.op] += 1
            print("%-28s %s  total" % ("file", " ".join("%5s" % o for o in OPS)))
            tot = dict.fromkeys(OPS, 0)
            for f in (files or default_files(tree)):
                row = table.get(f, dict.fromkeys(OPS, 0))
                for o in OPS:
                    tot[o] += row[o]
                print("%-28s %s  %5d" % (f, " ".join("%5d" % row[o] for o in OPS), sum(row.values())))
            print("%-28s %s  %5d" % ("all", " ".join("%5d" % tot[o] for o in OPS), sum(tot.values())))
            return 0
        eq = read_equivalent(tree)
        ids = {m.id for m in every}
        for mid in sorted(set(eq) - ids):
            print("# reviewed equivalent %s: no such mutant now (the line changed?)" % mid)
        live = [m for m in every if m.id not in eq]
        if want is not None:
            missing = [w for w in want if w not in ids]
            if missing:
                sys.exit("gen.py: no generated mutant %s" % " ".join(missing))
            chosen = [m for m in every if m.id in want]
        elif n is not None:
            chosen = sample(live, n, seed)
        else:
            chosen = live
        for m in chosen:
            if m.id not in eq:
                print(entry(m))
        for m in every:
            if m.id in eq and (want is None or m.id in want):
                print(entry(m, eq[m.id]))
        return 0
    if cmd == "failures":
        for line in dict.fromkeys(failures(a, argv[3])):
            print(line)
        return 0
    entries = parse(a)
    if cmd == "parse":          # id TAB file TAB suites-or-"=" TAB why
        for e in entries:
            print("\t".join([e["id"], e["file"], e.get("suites") or "=", e.get("equivalent") or e["why"]]))
    elif cmd == "check":        # the STALE ones: id TAB reason
        tree = argv[3]
        for e in entries:
            try:
                text = open("%s/%s" % (tree, e["file"]), encoding="utf-8").read()
            except OSError as err:
                print("%s\t%s: %s" % (e["id"], e["file"], err.strerror))
                continue
            at = where(e, text)
            if not isinstance(at, int):
                print("%s\t%s" % (e["id"], at))
    elif cmd == "apply":        # apply LIST TREE ID ORIGDIR: the original from ORIGDIR, mutated into TREE
        tree, mid, orig = argv[3], argv[4], argv[5]
        e = [x for x in entries if x["id"] == mid][0]
        text = open("%s/%s" % (orig, e["file"]), encoding="utf-8").read()
        at = where(e, text)
        if not isinstance(at, int):
            sys.exit("gen.py: %s: %s" % (mid, at))
        text = text[:at] + e["to"] + text[at + len(e["from"]):]
        open("%s/%s" % (tree, e["file"]), "w", encoding="utf-8").write(text)
    elif cmd == "diff":
        e = [x for x in entries if x["id"] == argv[4]][0]
        sys.stdout.write(diff(e))
    elif cmd == "report":       # report LIST RESULTS
        sys.stdout.write(report(entries, argv[3]))
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
