#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py - random traces (gen.py) through ./mtrace2massif and ./ms_print,
checked against the model.

    check.py [--seeds A-B | --seed S ...] [--jobs N] [--perl-every K]
             [--top DIR] [--m2m PROG] [--msp PROG] [--verbose] [--keep DIR]
             [--no-self-test]

For each seed: the trace of gen.py, converted with the default options, with
--time-unit=B, with --time-unit=i and random --threshold / --depth /
--peak-inaccuracy / --max-snapshots / --detailed-freq / --heap-admin /
--alloc-fn; each Massif file parsed and compared with the model (gen.py's
Heap, and here Massif's snapshot policy as doc/mtrace2massif.md states it);
./ms_print run on it (and /usr/bin/ms_print, Valgrind's, on every K-th seed,
compared byte for byte); then invalid traces and damaged Massif files made
from them; last, a self-test damages a good Massif file in eight ways and
requires each to be caught.  The output is one line per property group,

    RESULT <tab> ok|FAIL <tab> group <tab> checks <tab> detail

then, for a failure, lines "DETAIL <tab> ..." (seed, what differs, the
command that reproduces it).  tests/convmodel/run.sh reads it.  Standard
library only.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True          # no __pycache__ in the checkout
import gen  # noqa: E402

TIMEOUT = 10
ROOT_LABEL = "(heap allocation functions) malloc/new/new[], --alloc-fns, etc."
BELOW_MAIN = {"__libc_start_main", "__libc_start_call_main", "generic_start_main", "_start"}

# The property groups, in the order they are reported.
GROUPS = [
    ("convert", "valid traces convert: exit 0, nothing on stderr, a file"),
    ("header", "header: desc: = the Massif options as typed, cmd: = #cmd decoded (or the path), time_unit:"),
    ("summary", "--summary row = model: peak heap, peak heap+extra, leaked, records"),
    ("states", "every snapshot (time, mem_heap_B, mem_heap_extra_B) is a model state, in trace order"),
    ("policy", "the snapshot list is Massif's policy on the model (times, kinds, detailed, culling)"),
    ("peak", "one peak iff the heap held a byte; its time, heap, extra and per-site bytes = the exact peak"),
    ("trees", "every detailed tree = the model's (sites/stacks, threshold, aggregates, order, labels)"),
    ("tree-sums", "tree arithmetic: nK = children, root = mem_heap_B = sum of children, node >= its children"),
    ("final", "the leaks: last snapshot at the final state holds them"),
    ("default-unit", "the default time unit gives the --time-unit=B file (desc: aside)"),
    ("ms_print", "./ms_print exits 0; snapshot count, detailed list, table rows, axis labels, peak mark agree"),
    ("ms_print-perl", "./ms_print output byte-identical to /usr/bin/ms_print on the random files"),
    ("bad-trace", "invalid traces: exit 1, one line 'mtrace2massif: FILE:LINE: ...' at the right line, no file"),
    ("truncated", "truncated traces: exit 0, one warning, converted as the model of the complete records"),
    ("truncated-1", "a trace cut one byte into a record line (last line '+', '-', ...): also that warning (doc)"),
    ("junk", "binary junk in a trace: exit 0 or 1 with one error line; never a signal or a hang"),
    ("bad-massif", "damaged Massif files: ms_print exit 0, or 1 with one 'ms_print: FILE:LINE: ...' line; "
                   "never a signal or a hang; same as /usr/bin/ms_print where it finishes"),
    ("self-test", "the checks catch tampered Massif files (a number changed, a snapshot removed, ...)"),
]


class Failure(Exception):
    pass


def run(cmd, cwd=None, stdin=None):
    """(returncode, stdout bytes, stderr bytes); returncode None on a timeout."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL if stdin is None else stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b""


def sig_or_hang(rc):
    if rc is None:
        return "did not finish in %d s (hang?)" % TIMEOUT
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc >= 128:
        return "exit status %d (a signal?)" % rc
    return None


# ---------------------------------------------------------------------------
# Options

MASSIF_OPTS = ("--time-unit", "--max-snapshots", "--detailed-freq", "--threshold", "--heap-admin",
               "--peak-inaccuracy", "--depth", "--alloc-fn")


class Opts:
    def __init__(self, args):
        self.args = list(args)
        self.time_bytes = True
        self.max_snapshots = 100
        self.detailed_freq = 10
        self.threshold = 1.0
        self.heap_admin = 8
        self.peak_inaccuracy = 1.0
        self.depth = 30
        self.alloc_fns = []
        for a in args:
            k, _, v = a.partition("=")
            if k == "--time-unit":
                self.time_bytes = v == "B"
            elif k == "--max-snapshots":
                self.max_snapshots = int(v)
            elif k == "--detailed-freq":
                self.detailed_freq = int(v)
            elif k == "--threshold":
                self.threshold = float(v)
            elif k == "--heap-admin":
                self.heap_admin = int(v)
            elif k == "--peak-inaccuracy":
                self.peak_inaccuracy = float(v)
            elif k == "--depth":
                self.depth = int(v)
            elif k == "--alloc-fn":
                self.alloc_fns.append(v)

    def desc(self):
        """The Massif options as typed, and the time unit when none was
        (doc/mtrace2massif.md: ours is B, Massif's i; the file says it)."""
        d = [a for a in self.args if a.partition("=")[0] in MASSIF_OPTS]
        if not any(a.startswith("--time-unit=") for a in d):
            d.append("--time-unit=B")
        return " ".join(d)


def random_opts(r):
    o = []
    if r.random() < 0.35:
        o.append("--threshold=" + r.choice(["0", "0.5", "2.5", "5", "20", "100"]))
    if r.random() < 0.25:
        o.append("--depth=" + r.choice(["1", "2", "3", "200"]))
    if r.random() < 0.3:
        o.append("--peak-inaccuracy=" + r.choice(["0", "0.5", "10", "100"]))
    if r.random() < 0.35:
        o.append("--max-snapshots=" + r.choice(["10", "11", "17", "50", "1000"]))
    if r.random() < 0.3:
        o.append("--detailed-freq=" + r.choice(["1", "2", "3", "1000000"]))
    if r.random() < 0.2:
        o.append("--heap-admin=" + r.choice(["0", "1", "16", "1024"]))
    if r.random() < 0.25:
        o.append("--alloc-fn=xmalloc")
    r.shuffle(o)
    return o


# ---------------------------------------------------------------------------
# The model's trees: contexts -> Massif's tree text (doc/mtrace2massif.md,
# "Trees", "Call stacks: trees as deep as Massif's")

class TraceInfo:
    """What the trees need from the trace's records."""

    def __init__(self, records):
        self.sites = {}
        self.stacks = {}        # sid -> (site, [(address - 1, map number or 0)])
        self.maps = []          # every #map: (lo, hi, bias, path); map number = index + 1
        active = []
        for r in records:
            if r[0] == 'site':
                self.sites[r[1]] = (gen.decode(r[2]), r[3], r[4])
            elif r[0] == 'map':
                # doc: a later #map over the same range replaces the earlier one
                self.maps.append(r[1:])
                lo, hi = r[1], r[2]
                active = [m for m in active if self.maps[m - 1][1] <= lo or self.maps[m - 1][0] >= hi]
                active.append(len(self.maps))
            elif r[0] == 'stack':
                fr = []
                for ra in r[3]:
                    m = next((m for m in active if self.maps[m - 1][0] <= ra < self.maps[m - 1][1]), 0)
                    fr.append((ra - 1, m))
                self.stacks[r[1]] = (r[2], fr)
        self.path_cache = {}

    def site_label(self, sid):
        func, file, line = self.sites[sid]
        base = file.rsplit('/', 1)[-1] if not file.endswith('/') else file
        return "%s (%s:%s)" % (gen.label_escape(func), gen.label_escape(gen.decode(base)), line)

    def path(self, ctx, opts):
        """The node path of a context (site, sid): Massif's cuts (alloc-fns off
        the top, below main off the bottom, --depth frames).  Frames have no
        function names (--addr2line=none), so only the site's can be cut."""
        key = (ctx, tuple(opts.alloc_fns), opts.depth)
        p = self.path_cache.get(key)
        if p is not None:
            return p
        site, sid = ctx
        chain = [('s', site)]
        if sid:
            for a, m in self.stacks[sid][1]:
                chain.append(('f', a, m))
        n = len(chain)
        func = self.sites[site][0]
        fn = [func] + [None] * (n - 1)
        top = 0
        while top < n and fn[top] is not None and (fn[top] in gen.MASSIF_ALLOC_FNS or fn[top] in opts.alloc_fns):
            top += 1
        if top == n:
            top = n - 1
        mbm, found = n - 1, False
        for i in range(n - 1, -1, -1):
            if fn[i] is None:
                continue
            if fn[i] == "main":
                mbm, found = i, None
                break
            if fn[i] in BELOW_MAIN:
                mbm, found = i, True
        nsel = 1 if mbm < top else mbm - top + 1
        if opts.depth > 0:
            nsel = min(nsel, opts.depth)
        p = tuple(chain[top:top + nsel])
        self.path_cache[key] = p
        return p

    def label(self, elem):
        if elem[0] == 's':
            return "0x%X: %s" % (elem[1], self.site_label(elem[1]))
        lab = "0x%X: ???" % elem[1]
        if elem[2]:
            lab += " (in %s)" % gen.label_escape(self.maps[elem[2] - 1][3])
        return lab


def expected_tree(info, opts, ctx, seen, heap, extra):
    """The tree lines Massif would print for this heap."""
    total = heap + extra
    thr = opts.threshold
    sig = 1 if heap == 0 and thr != 0 else int(float(total) * thr / 100)
    root = {}           # elem -> [bytes, seen, children]
    for c in seen:
        node = None
        kids = root
        b = ctx.get(c, 0)
        for e in info.path(c, opts):
            node = kids.get(e)
            if node is None:
                node = kids[e] = [0, True, {}]
            node[0] += b
            kids = node[2]
    lines = []

    def order(e):
        return e[1]

    def put(kids, indent):
        items = []
        agg = None
        for e, nd in kids.items():
            if nd[0] >= sig:
                items.append((nd[0], order(e), e, nd))
            elif agg is None:
                agg = [nd[0], 1]
            else:
                agg[0] += nd[0]
                agg[1] += 1
        if agg is not None:
            items.append((agg[0], 0, None, agg))
        items.sort(key=lambda x: (-x[0], x[1]))
        out = []
        for b, _, e, nd in items:
            if e is None:
                out.append(("%sn0: %d in %d place%s below massif's threshold (%.2f%%)"
                            % (" " * indent, b, nd[1], "," if nd[1] == 1 else "s, all", thr), None))
            else:
                out.append((e, nd))
        return out

    def walk(kids, indent):
        for e, nd in put(kids, indent):
            if nd is None:
                lines.append(e)
                continue
            sub = put(nd[2], indent + 1)
            lines.append("%sn%d: %d %s" % (" " * indent, len(sub), nd[0], info.label(e)))
            walk(nd[2], indent + 1)

    top = put(root, 1)
    lines.append("n%d: %d %s" % (len(top), heap, ROOT_LABEL))
    walk(root, 1)
    return lines


# ---------------------------------------------------------------------------
# Massif's snapshot policy on the model (doc/mtrace2massif.md, "What is
# reproduced from Massif": Snapshots; "The exact peak")

class Policy:
    def __init__(self, opts, peak_state, stop_at=None):
        self.o = opts
        self.snaps = []
        self.min_interval = 0
        self.earliest = 0
        self.since_detailed = 0
        self.peak_total = 0
        self.ev = 0
        self.ended = False
        self.peak_ev = None
        if peak_state and peak_state[0] == 'check':
            self.peak_ev = peak_state[1]
        self.peak_at_end = bool(peak_state and peak_state[0] == 'end')
        self.culls = 0

    def now(self, h):
        return h.time_b if self.o.time_bytes else h.time_i

    def take(self, kind, t, h, detailed):
        s = dict(kind=kind, time=t, heap=h.heap, extra=h.extra, detailed=detailed,
                 ctx=dict(h.ctx) if detailed else None, seen=frozenset(h.seen) if detailed else None,
                 ev=self.ev)
        self.since_detailed = 0 if detailed else self.since_detailed + 1
        if kind == 'peak':
            self.peak_total = h.heap + h.extra
            for o in self.snaps:
                if o['kind'] == 'peak':
                    o['kind'] = 'detailed-was-peak'
        self.snaps.append(s)
        if len(self.snaps) == self.o.max_snapshots and not self.ended:
            self.min_interval = self.cull()
        self.earliest = t + self.min_interval

    def uncullable(self, i):
        return i == 0 or i == len(self.snaps) - 1 or self.snaps[i]['kind'] == 'peak'

    def cull(self):
        """Delete max/2 times the snapshot whose neighbours are closest in time
        (never the first, the last or the peak; the earliest on ties); new
        minimum interval = the smallest gap not between two uncullable
        snapshots, truncated to 32 bits."""
        self.culls += 1
        s = self.snaps
        for _ in range(self.o.max_snapshots // 2):
            best, span = None, None
            for j in range(1, len(s) - 1):
                if s[j]['kind'] == 'peak':
                    continue
                d = s[j + 1]['time'] - s[j - 1]['time']
                if span is None or d < span:
                    best, span = j, d
            if best is None:
                break
            del s[best]
        m = None
        for i in range(1, len(s)):
            if self.uncullable(i) and self.uncullable(i - 1):
                continue
            d = s[i]['time'] - s[i - 1]['time']
            if m is None or d < m:
                m = d
        return (m or 0) & 0xffffffff

    def attempt(self, h):
        t = self.now(h)
        if t >= self.earliest:
            self.take('normal', t, h, self.since_detailed == self.o.detailed_freq - 1)

    def check(self, h, first_rec):
        forced = self.ev == self.peak_ev
        total = h.heap + h.extra
        excess = int(float(self.peak_total) * self.o.peak_inaccuracy / 100)
        if forced or (total > self.peak_total and total - self.peak_total > excess):
            self.take('peak', h.time_b if self.o.time_bytes else first_rec, h, True)

    def event(self, h):
        self.ev += 1
        self.attempt(h)

    def end(self, h):
        self.ended = True
        if self.peak_at_end:
            self.peak_ev = self.ev
            self.check(h, h.time_i)


class States:
    """Every state of the model: (time, heap, extra) after each event, and
    the contexts' bytes at the states that a file's detailed snapshots need."""

    def __init__(self, opts, want=None):
        self.o = opts
        self.keys = []
        self.want = want or set()
        self.ctx = {}
        self.zero_time_events = 0

    def add(self, h):
        k = (h.time_b if self.o.time_bytes else h.time_i, h.heap, h.extra)
        if self.keys and k[0] == self.keys[-1][0]:
            self.zero_time_events += 1
        self.keys.append(k)
        if k in self.want:
            self.ctx.setdefault(k, []).append((dict(h.ctx), frozenset(h.seen)))

    def check(self, h, rec):
        pass

    def event(self, h):
        self.add(h)


class Both:
    def __init__(self, *obs):
        self.obs = obs

    def check(self, h, rec):
        for o in self.obs:
            o.check(h, rec)

    def event(self, h):
        for o in self.obs:
            o.event(h)


def model_run(records, opts, want=None):
    """Replay with the states log and the policy; returns (heap, summary,
    states, policy)."""
    _, s0 = gen.replay(records, opts.heap_admin)          # pass 1: where the peak is
    st = States(opts, want)
    pol = Policy(opts, s0['peak_state'])
    pool = {r[1] for r in records if r[0] == 'pool'}
    h0 = gen.Heap(pool, opts.heap_admin)
    st.add(h0)
    pol.attempt(h0)                                       # the start-up snapshot
    h, s = gen.replay(records, opts.heap_admin, Both(st, pol))
    pol.end(h)
    return h, s, st, pol


# ---------------------------------------------------------------------------
# Parsing the files

def parse_massif(text):
    """A Massif file as mtrace2massif writes it: header and snapshots.
    Raises Failure on any deviation from the format."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        raise Failure("the file does not end with a newline")
    if len(lines) < 3 or not lines[0].startswith("desc: ") or not lines[1].startswith("cmd: ") \
            or not lines[2].startswith("time_unit: "):
        raise Failure("header is not desc:/cmd:/time_unit: (%r)" % lines[:3])
    m = dict(desc=lines[0][6:], cmd=lines[1][5:], time_unit=lines[2][11:], snaps=[])
    i = 3
    fields = ["time", "mem_heap_B", "mem_heap_extra_B", "mem_stacks_B"]
    while i < len(lines):
        n = len(m['snaps'])
        if lines[i:i + 3] != ["#-----------", "snapshot=%d" % n, "#-----------"]:
            raise Failure("line %d: expected snapshot %d's header, got %r" % (i + 1, n, lines[i:i + 3]))
        i += 3
        v = []
        for k, f in enumerate(fields):
            mm = re.fullmatch(r"%s=(-?\d+)" % f, lines[i + k] if i + k < len(lines) else "")
            if not mm:
                raise Failure("line %d: expected %s=N" % (i + k + 1, f))
            v.append(int(mm.group(1)))
        i += 4
        mm = re.fullmatch(r"heap_tree=(empty|detailed|peak)", lines[i] if i < len(lines) else "")
        if not mm:
            raise Failure("line %d: expected heap_tree=" % (i + 1))
        kind = mm.group(1)
        i += 1
        tree = []
        if kind != "empty":
            while i < len(lines) and lines[i] != "#-----------":
                tree.append(lines[i])
                i += 1
        m['snaps'].append(dict(time=v[0], heap=v[1], extra=v[2], stacks=v[3], kind=kind, tree=tree,
                               line=i))
    return m


NODE_RE = re.compile(r"( *)n(\d+): (\d+) (.*)")
AGG_RE = re.compile(r"in (\d+) place(, |s, all )below massif's threshold \((\d+\.\d\d)%\)")


def node_addr(label):
    """A node's order among equal siblings: its code address or site number
    (the 0xHEX of its label); the aggregate's is 0."""
    mm = re.match(r"0x([0-9A-F]+): ", label)
    return int(mm.group(1), 16) if mm else 0


def canonical(tree):
    """The tree with the children of every node sorted by (bytes desc,
    address, text): equal when two trees differ only in the order of
    siblings tied on bytes and address (two frames of one address under two
    #maps).  The real order is checked by tree_sums."""
    nodes = []
    for l in tree:
        mm = NODE_RE.fullmatch(l)
        if not mm:
            return None
        nodes.append((len(mm.group(1)), int(mm.group(3)), l))
    pos = [0]

    def sub(depth):
        out = []
        while pos[0] < len(nodes) and nodes[pos[0]][0] == depth:
            ind, b, l = nodes[pos[0]]
            pos[0] += 1
            kids = sub(depth + 1)
            out.append((-b, node_addr(l.lstrip().split(" ", 2)[2]), l, kids))
        out.sort(key=lambda x: (x[0], x[1], repr(x[3]), x[2]))
        return [(x[2], x[3]) for x in out]
    return sub(0)


def tree_sums(tree, heap, thr_text):
    """Structural checks of one tree; returns a list of problems."""
    probs = []
    nodes = []
    for k, l in enumerate(tree):
        mm = NODE_RE.fullmatch(l)
        if not mm:
            return ["line %r is not a tree node" % l]
        nodes.append((len(mm.group(1)), int(mm.group(2)), int(mm.group(3)), mm.group(4)))
    if not nodes or nodes[0][0] != 0 or nodes[0][3] != ROOT_LABEL:
        return ["no root line"]
    if nodes[0][2] != heap:
        probs.append("root %d != mem_heap_B %d" % (nodes[0][2], heap))
    # children of each node: the following nodes one space deeper, until one
    # at the node's own depth or less
    for a, (ind, nk, b, lab) in enumerate(nodes):
        kids = []
        for c in range(a + 1, len(nodes)):
            if nodes[c][0] <= ind:
                break
            if nodes[c][0] == ind + 1:
                kids.append(nodes[c])
            elif nodes[c][0] > ind + 1 and not kids:
                probs.append("node %r: a child two levels deeper" % lab)
        if len(kids) != nk:
            probs.append("node %r says n%d but has %d children" % (lab, nk, len(kids)))
        s = sum(k[2] for k in kids)
        if a == 0 and s != b:
            probs.append("root %d != sum of its children %d" % (b, s))
        if s > b:
            probs.append("node %r: %d < sum of its children %d" % (lab, b, s))
        for x, y in zip(kids, kids[1:]):
            if x[2] < y[2]:
                probs.append("node %r: children not in decreasing order (%d then %d)" % (lab, x[2], y[2]))
            elif x[2] == y[2] and node_addr(x[3]) > node_addr(y[3]):
                probs.append("node %r: equal children not by address (%r then %r)" % (lab, x[3], y[3]))
        ma = AGG_RE.fullmatch(lab)
        if lab.startswith("in "):
            if not ma:
                probs.append("bad aggregate line %r" % lab)
            else:
                cnt = int(ma.group(1))
                if cnt < 1 or (cnt == 1) != (ma.group(2) == ", ") or nk != 0:
                    probs.append("bad aggregate line %r" % lab)
                if ma.group(3) != thr_text:
                    probs.append("aggregate's threshold %s, not %s" % (ma.group(3), thr_text))
        if len([k for k in kids if k[3].startswith("in ")]) > 1:
            probs.append("node %r has two aggregate lines" % lab)
    return probs


def parse_summary(out):
    """The --summary table's row for rank 0."""
    for l in out.decode(errors="replace").split("\n"):
        f = l.split()
        if len(f) >= 6 and f[0] == "0":
            return dict(peak_heap=int(f[1]), peak=int(f[2]), leaks=int(f[3]), records=int(f[4]),
                        rest=" ".join(f[5:]))
    return None


def commify(n):
    return "{:,}".format(n)


def max_label_2(v, scaled):
    if v < 1000:
        return "%5d" % v
    if scaled < 10:
        return "%5.3f" % scaled
    if scaled < 100:
        return "%5.2f" % scaled
    return "%5.1f" % scaled


def max_label(v, units):
    s = v
    u = units[0]
    for nu in units[1:]:
        if s >= 1000:
            u = nu
            s /= 1024
    return max_label_2(v, s), u


def check_ms_print(out, m):
    """./ms_print's stdout against the Massif file it printed."""
    text = out.decode(errors="replace")
    probs = []
    snaps = m['snaps']
    if "Number of snapshots: %d\n" % len(snaps) not in text:
        probs.append("no 'Number of snapshots: %d'" % len(snaps))
    det = []
    for i, s in enumerate(snaps):
        if s['kind'] != 'empty':
            det.append("%d%s" % (i, " (peak)" if s['kind'] == 'peak' else ""))
    want = " Detailed snapshots: [%s]\n" % ", ".join(det)
    if want not in text:
        probs.append("no %r" % want.strip())
    rows = re.findall(r"(?m)^ *(\d+) +([\d,]+) +([\d,]+) +([\d,]+) +([\d,]+) +([\d,]+)$", text)
    exp = [(str(i), commify(s['time']), commify(s['heap'] + s['extra']), commify(s['heap']),
            commify(s['extra']), commify(s['stacks'])) for i, s in enumerate(snaps)]
    if rows != exp:
        bad = next((k for k in range(min(len(rows), len(exp))) if rows[k] != exp[k]), min(len(rows), len(exp)))
        probs.append("table rows differ from the file at row %d: %r vs %r"
                     % (bad, rows[bad] if bad < len(rows) else None, exp[bad] if bad < len(exp) else None))
    peak = max([s['heap'] + s['extra'] + s['stacks'] for s in snaps] + [0]) or 1
    ylab, yunit = max_label(peak, ["B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"])
    end = snaps[-1]['time'] or 1
    if m['time_unit'] == 'B':
        xlab, xunit = max_label(end, ["B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"])
    else:
        xlab, xunit = max_label(end, ["i", "ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"])
    g = text.split("\n")
    try:
        k = g.index("    %2s" % yunit)
        if not g[k + 1].startswith(ylab + "^"):
            probs.append("y axis top label %r, expected %r" % (g[k + 1][:6], ylab))
        if not g[k + 21].startswith("   0 +") or not g[k + 21].endswith(">" + xunit):
            probs.append("x axis line %r does not end with %r" % (g[k + 21], xunit))
        if not g[k + 22].endswith(xlab):
            probs.append("x axis end label: %r, expected %r" % (g[k + 22], xlab))
        graph = "\n".join(g[k + 1:k + 22])
        has_peak = any(s['kind'] == 'peak' for s in snaps)
        if ("#" in graph) != has_peak:
            probs.append("peak mark '#' %s in the graph" % ("missing" if has_peak else "present"))
    except (ValueError, IndexError):
        probs.append("no graph with y unit %r" % yunit)
    return probs


# ---------------------------------------------------------------------------
# One seed

class Seed:
    def __init__(self, seed, top, work, perl, verbose=False, m2m=None, msp=None):
        self.seed = seed
        self.top = top
        self.m2m = m2m or os.path.join(top, "mtrace2massif")
        self.msp = msp or os.path.join(top, "ms_print")
        self.work = work
        self.perl = perl
        self.verbose = verbose
        self.res = {g: [0, []] for g, _ in GROUPS}
        self.nbad = {}
        self.cov = {}
        self.trace = os.path.join(work, "s%d.trace" % seed)
        self.repro = "python3 tests/convmodel/check.py --seed %d --verbose" % seed

    def ok(self, group, n=1):
        self.res[group][0] += n

    def bad(self, group, msg, cmd=None):
        self.res[group][0] += 1
        self.nbad[group] = self.nbad.get(group, 0) + 1
        if len(self.res[group][1]) < 3:
            self.res[group][1].append((self.seed, msg, cmd))

    def count(self, k, n=1):
        self.cov[k] = self.cov.get(k, 0) + n

    def m2m_cmd(self, opts, trace, out, summary=False):
        return [self.m2m, "--addr2line=none"] + (["--summary"] if summary else []) + \
            list(opts) + [trace, "-o", out]

    def show(self, cmd):
        """The command, as one types it in the checkout (files in /tmp)."""
        cmd = ["./mtrace2massif" if c == self.m2m else c.replace(self.work, "/tmp") for c in cmd]
        s = " ".join(shlex.quote(c) for c in cmd)
        return "python3 tests/convmodel/gen.py %d -o /tmp/s%d.trace && %s" % (self.seed, self.seed, s)

    def go(self):
        t = gen.generate(self.seed)
        self.t = t
        text = t.text()
        with open(self.trace, "w") as f:
            f.write(text)
        self.records = gen.parse_records(t.lines)
        self.info = TraceInfo(self.records)
        p = t.params
        self.count("seeds")
        self.count("records", sum(1 for r in self.records if r[0] == 'op'))
        if p['stacks']:
            self.count("with stacks")
        if t.pool:
            self.count("with a pool site")
        r = random.Random(self.seed * 7919 + 1)
        base = random_opts(r)
        other = random_opts(r)
        files = {}
        # the default time unit (B) with the base options, --time-unit=B with
        # the same, --time-unit=i with others, and the plain default
        runs = [("default", base, True), ("B", ["--time-unit=B"] + base, False),
                ("i", ["--time-unit=i"] + other, False)]
        if base:
            runs.append(("plain", [], False))
        for name, args, summ in runs:
            files[name] = self.convert_and_check(name, args, summ)
        if files.get("default") is not None and files.get("B") is not None:
            a = files["default"].split("\n", 1)
            b = files["B"].split("\n", 1)
            if a[1] == b[1]:
                self.ok("default-unit")
            else:
                self.bad("default-unit", "the default-unit file differs from --time-unit=B's beyond desc:",
                         self.show(self.m2m_cmd(base, self.trace, "a.out")) + " ; " +
                         self.show(self.m2m_cmd(["--time-unit=B"] + base, self.trace, "b.out")))
        self.bad_traces(r, text)
        mf = os.path.join(self.work, "s%d.default.out" % self.seed)
        if files.get("default") is not None:
            self.bad_massif(r, mf)
        return self.res, self.cov

    # --- a valid trace, one option set
    def convert_and_check(self, name, args, summary):
        opts = Opts(args)
        out = os.path.join(self.work, "s%d.%s.out" % (self.seed, name))
        cmd = self.m2m_cmd(args, self.trace, out, summary)
        rc, so, se = run(cmd)
        how = self.show(cmd)
        if rc != 0 or se:
            self.bad("convert", "exit %s, stderr %r" % (rc, se[:300]), how)
            return None
        if not os.path.exists(out):
            self.bad("convert", "no output file", how)
            return None
        self.ok("convert")
        with open(out) as f:
            text = f.read()
        self.check_file(text, opts, how, summary_out=so if summary else None, path=self.trace,
                        records=self.records, ms_print=out)
        return text

    def check_file(self, text, opts, how, summary_out=None, path=None, records=None, ms_print=None,
                   groups=None):
        """Every model check of one Massif file; returns the number of failures."""
        nfail0 = sum(len(v[1]) for v in self.res.values())
        try:
            m = parse_massif(text)
        except Failure as e:
            self.bad("header", "not a Massif file: %s" % e, how)
            return 1
        # header
        cmdrec = next((l[5:] for l in self.t.lines if l.startswith("#cmd ") and len(l) > 5), None) \
            if records is self.records else self.cmdrec
        want_cmd = gen.decode(cmdrec) if cmdrec is not None else path
        want_cmd = "".join("%%%02X" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f or c == '#' else c
                           for c in want_cmd)
        hp = []
        if m['desc'] != opts.desc():
            hp.append("desc: %r, expected %r" % (m['desc'], opts.desc()))
        if m['cmd'] != want_cmd:
            hp.append("cmd: %r, expected %r" % (m['cmd'], want_cmd))
        if m['time_unit'] != ("B" if opts.time_bytes else "i"):
            hp.append("time_unit: %r" % m['time_unit'])
        if any(s['stacks'] != 0 for s in m['snaps']):
            hp.append("mem_stacks_B not 0")
        if hp:
            self.bad("header", "; ".join(hp), how)
        else:
            self.ok("header")
        snaps = m['snaps']
        # the detailed snapshots' states, for the trees
        want = {(s['time'], s['heap'], s['extra']) for s in snaps if s['kind'] != 'empty'}
        h, s, st, pol = model_run(records, opts, want)
        self.count("snapshots", len(snaps))
        for k, v in h.stats.items():
            self.count(k, v)
        ntree = max([len(x['tree']) for x in snaps] + [0])
        if ntree > 256:
            self.count("trees of more than 256 lines")
        if pol.culls:
            self.count("runs with culling")
        if s['peak_state'] and s['peak_state'][0] == 'end':
            self.count("peak after the last record")
        if s['peak_state'] is None:
            self.count("no peak (empty heap)")
        if s.get('peak_ties'):
            self.count("equal peaks (the first counts)")
        # summary
        if summary_out is not None:
            row = parse_summary(summary_out)
            exp = dict(peak_heap=s['peak_heap'], peak=s['peak'], leaks=s['leaks'], records=s['records'])
            if row is None:
                self.bad("summary", "no row for rank 0 in %r" % summary_out[:300], how)
            else:
                got = {k: row[k] for k in exp}
                if got != exp or "(truncated)" in row['rest']:
                    self.bad("summary", "table %s, model %s" % (row, exp), how)
                else:
                    self.ok("summary")
        # states
        idx = {}
        for k, key in enumerate(st.keys):
            idx.setdefault(key, []).append(k)
        prev = 0
        matched = []
        bad = None
        for j, sn in enumerate(snaps):
            key = (sn['time'], sn['heap'], sn['extra'])
            cand = [k for k in idx.get(key, []) if k >= prev]
            if not cand:
                near = [st.keys[k] for k in range(prev, len(st.keys)) if st.keys[k][0] == sn['time']][:3]
                bad = "snapshot %d (time %d, heap %d, extra %d) is no model state at or after state %d" \
                      " (model states at that time: %s)" % (j, sn['time'], sn['heap'], sn['extra'], prev,
                                                             near or "none")
                break
            prev = cand[0]
            matched.append(prev)
        if bad:
            self.bad("states", bad, how)
        else:
            self.ok("states", len(snaps))
        # policy
        ps = pol.snaps
        kinds = {'normal': 'empty', 'detailed-was-peak': 'detailed', 'peak': 'peak'}

        def pkind(x):
            k = kinds[x['kind']]
            return 'detailed' if k == 'empty' and x['detailed'] else k
        got = [(x['time'], x['heap'], x['extra'], x['kind']) for x in snaps]
        exp = [(x['time'], x['heap'], x['extra'], pkind(x)) for x in ps]
        policy_ok = got == exp
        if policy_ok:
            self.ok("policy")
        else:
            k = next((k for k in range(min(len(got), len(exp))) if got[k] != exp[k]), min(len(got), len(exp)))
            self.bad("policy", "%d snapshots, model %d; first difference at snapshot %d: file %s, model %s"
                     % (len(got), len(exp), k, got[k] if k < len(got) else None,
                        exp[k] if k < len(exp) else None), how)
        # peak
        peaks = [j for j, x in enumerate(snaps) if x['kind'] == 'peak']
        pp = []
        if s['peak_state'] is None:
            if peaks:
                pp.append("a peak snapshot, but the heap never held a byte")
        else:
            tpeak = s['peak_time_b'] if opts.time_bytes else s['peak_time_i']
            if len(peaks) != 1:
                pp.append("%d peak snapshots" % len(peaks))
            else:
                x = snaps[peaks[0]]
                if (x['time'], x['heap'], x['extra']) != (tpeak, s['peak_heap_at'], s['peak_extra_at']):
                    pp.append("peak snapshot (time %d, heap %d, extra %d), model's exact peak (time %d, heap %d,"
                              " extra %d; %s)" % (x['time'], x['heap'], x['extra'], tpeak, s['peak_heap_at'],
                                                  s['peak_extra_at'], s['peak_state']))
                if x['heap'] + x['extra'] != s['peak']:
                    pp.append("peak total %d != max %d" % (x['heap'] + x['extra'], s['peak']))
                # per-site bytes: the first-level node of every site whose function is not cut
                for l in x['tree'][1:]:
                    mm = re.fullmatch(r" n\d+: (\d+) 0x([0-9A-F]+): (.*)", l)
                    if not mm:
                        continue
                    sid = int(mm.group(2), 16)
                    if sid in self.info.sites and mm.group(3) == self.info.site_label(sid):
                        func = self.info.sites[sid][0]
                        if func in gen.MASSIF_ALLOC_FNS or func in opts.alloc_fns:
                            continue
                        want_b = s['peak_sites'].get(sid, 0)
                        if int(mm.group(1)) != want_b:
                            pp.append("site %d has %s bytes at the peak, model %d" % (sid, mm.group(1), want_b))
                            break
        if pp:
            self.bad("peak", "; ".join(pp), how)
        else:
            self.ok("peak")
        # trees
        thr_text = "%.2f" % opts.threshold
        tp = []
        for j, sn in enumerate(snaps):
            if sn['kind'] == 'empty':
                continue
            probs = tree_sums(sn['tree'], sn['heap'], thr_text)
            if probs:
                self.bad("tree-sums", "snapshot %d: %s" % (j, "; ".join(probs[:3])), how)
            else:
                self.ok("tree-sums")
            key = (sn['time'], sn['heap'], sn['extra'])
            if policy_ok and ps[j]['ctx'] is not None:
                cands = [(ps[j]['ctx'], ps[j]['seen'])]
            else:
                cands = st.ctx.get(key, [])
            exps = [expected_tree(self.info, opts, c, seen, sn['heap'], sn['extra']) for c, seen in cands]
            if sn['tree'] in exps:
                self.ok("trees")
            elif canonical(sn['tree']) in [canonical(e) for e in exps]:
                self.ok("trees")
                self.count("trees equal but for the order of same-address frames of two #maps")
            elif not tp:
                e = exps[0] if exps else []
                k = next((k for k in range(min(len(e), len(sn['tree']))) if e[k] != sn['tree'][k]),
                         min(len(e), len(sn['tree'])))
                tp.append("snapshot %d's tree differs at its line %d: file %r, model %r"
                          % (j, k + 1, sn['tree'][k] if k < len(sn['tree']) else None,
                             e[k] if k < len(e) else None))
                self.bad("trees", tp[0], how)
        # final
        fk = st.keys[-1]
        last = snaps[-1]
        same_time = sum(1 for k in st.keys if k[0] == fk[0])
        if last['time'] == fk[0] and same_time == 1:
            if (last['heap'], last['extra']) != (s['leaks'], s['final_extra']):
                self.bad("final", "last snapshot at the final time %d holds %d + %d, the model leaks %d + %d"
                         % (fk[0], last['heap'], last['extra'], s['leaks'], s['final_extra']), how)
            else:
                self.ok("final")
                self.count("final snapshot checked")
        if s['leaks']:
            self.count("traces with leaks")
        # ms_print
        if ms_print:
            self.run_ms_print(ms_print, m, how)
        return sum(len(v[1]) for v in self.res.values()) - nfail0

    def run_ms_print(self, f, m, how):
        rc, so, se = run([self.msp, f])
        cmd = how + " && ./ms_print " + shlex.quote(f)
        if rc != 0 or se:
            self.bad("ms_print", "exit %s, stderr %r" % (rc, se[:200]), cmd)
            return
        probs = check_ms_print(so, m)
        if probs:
            self.bad("ms_print", "; ".join(probs[:3]), cmd)
        else:
            self.ok("ms_print")
        if self.perl and f.endswith(".default.out"):
            r = random.Random(self.seed)
            args = [[], ["--threshold=0"], ["--x=30", "--y=7"], ["--threshold=5", "--x=200"]][r.randrange(4)]
            rc2, so2, se2 = run(["/usr/bin/ms_print"] + args + [f], cwd=self.work)
            rc1, so1, _ = run([self.msp] + args + [f])
            pcmd = "diff <(./ms_print %s %s) <(/usr/bin/ms_print %s %s)" % (" ".join(args), f, " ".join(args), f)
            if rc2 is None or b"Out of memory!" in se2:
                self.count("perl ms_print out of memory or too slow (not compared)")
            elif so1 == so2 and (rc1 == 0) == (rc2 == 0):
                self.ok("ms_print-perl")
                self.count("perl comparisons")
            else:
                a, b = so1.decode(errors="replace").split("\n"), so2.decode(errors="replace").split("\n")
                k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
                self.bad("ms_print-perl", "exit %s vs perl %s; first different line %d: ours %r, perl %r"
                         % (rc1, rc2, k + 1, a[k] if k < len(a) else None, b[k] if k < len(b) else None),
                         how + " && " + pcmd)

    # --- invalid traces
    def bad_traces(self, r, text):
        lines = text.split("\n")[:-1]
        kinds = self.t.kinds
        ops = [k for k, kd in enumerate(kinds) if kd == 'op']
        tries = ["truncate", "truncate", "truncate-1", "swap", "dup", "garbage", "negative", "overflow", "unknown-free",
                 "total", "undeclared", "zero-site", "junk-line", "junk-bytes", "bad-sid", "bad-stack"]
        for mi, kind in enumerate(r.sample(tries, 6)):
            mut = self.mutate(r, kind, lines, kinds, ops)
            if mut is None:
                continue
            newtext, expect_line, what = mut
            bt = os.path.join(self.work, "s%d.bad%d.%s.trace" % (self.seed, mi, kind))
            with open(bt, "wb") as f:
                f.write(newtext if isinstance(newtext, bytes) else newtext.encode())
            out = os.path.join(self.work, "s%d.bad.out" % self.seed)
            if os.path.exists(out):
                os.unlink(out)
            cmd = [self.m2m, "--addr2line=none", "--summary", bt, "-o", out]
            rc, so, se = run(cmd)
            if self.verbose:
                print("  mutation %s: %s -> exit %s, %r" % (kind, what, rc, se[:200]))
            how = ("python3 tests/convmodel/check.py --seed %d --keep /tmp/s%d && ./mtrace2massif "
                   "--addr2line=none --summary /tmp/s%d/%s -o /tmp/x.out"
                   % (self.seed, self.seed, self.seed, os.path.basename(bt)))
            s = sig_or_hang(rc)
            group = "truncated-1" if kind == "truncate-1" else "truncated" if kind == "truncate" else "junk" if kind == "junk-bytes" else "bad-trace"
            self.count("mutation " + kind)
            if s:
                self.bad(group, "%s: %s" % (what, s), how)
                continue
            errl = se.decode(errors="replace").split("\n")
            if errl and errl[-1] == "":
                errl.pop()
            if kind.startswith("truncate"):
                self.check_truncated(newtext, bt, out, rc, so, errl, how, what, group)
                continue
            form = re.compile(r"mtrace2massif: %s:(\d+): (.+)" % re.escape(bt))
            if kind == "junk-bytes" and rc == 0:
                # still a valid trace (junk inside a name, say) or a truncation warning
                if len(errl) > 1 or (errl and not (form.fullmatch(errl[0]) and "warning:" in errl[0])):
                    self.bad(group, "%s: exit 0 with stderr %r" % (what, errl[:3]), how)
                elif not os.path.exists(out):
                    self.bad(group, "%s: exit 0 and no file" % what, how)
                else:
                    with open(out, errors="replace") as f:
                        try:
                            parse_massif(f.read())
                            self.ok(group)
                        except Failure as e:
                            self.bad(group, "%s: exit 0, not a Massif file: %s" % (what, e), how)
                continue
            mm = form.fullmatch(errl[0]) if len(errl) == 1 else None
            probs = []
            if rc != 1:
                probs.append("exit %d, not 1" % rc)
            if not mm:
                probs.append("stderr is not one 'mtrace2massif: FILE:LINE: ...' line: %r" % errl[:3])
            elif expect_line is not None and int(mm.group(1)) != expect_line:
                probs.append("error at line %s, expected line %d (%r)" % (mm.group(1), expect_line, errl[0]))
            elif "warning" in mm.group(2):
                probs.append("a warning, not an error: %r" % errl[0])
            if os.path.exists(out):
                probs.append("an output file was written")
            if probs:
                self.bad(group, "%s: %s" % (what, "; ".join(probs)), how)
            else:
                self.ok(group)
                if self.verbose:
                    print("  %s -> %s" % (what, errl[0]))

    def mutate(self, r, kind, lines, kinds, ops):
        """(new text, the line the error must name or None, description)."""
        nl = len(lines)
        L = list(lines)
        mid_ops = [k for k in ops]
        if kind == "truncate":
            data = "\n".join(lines).encode() + b"\n"
            cut = r.randrange(0, len(data))
            return data[:cut], None, "truncated at byte %d of %d" % (cut, len(data))
        if kind == "truncate-1":
            # cut one byte into a record line: the last line is '+', '-', ...
            i = r.choice(ops) if ops else None
            if i is None:
                return None
            data = ("\n".join(lines) + "\n").encode()
            cut = len(("\n".join(lines[:i]) + "\n").encode()) + 1
            return data[:cut], None, "cut one byte into line %d (%r)" % (i + 1, lines[i][:1])
        if kind == "junk-bytes":
            data = ("\n".join(lines) + "\n").encode()
            at = r.randrange(0, len(data))
            junk = bytes(r.randrange(256) for _ in range(r.randrange(1, 40)))
            return data[:at] + junk + data[at:], None, "%d junk bytes inserted at byte %d" % (len(junk), at)
        if kind == "junk-line":
            # a whole line of junk among the records: "not a trace record" there
            at = r.randrange(0, nl - 2) if nl > 2 else 0
            junk = bytes(r.choice([c for c in range(256) if c not in b"\n#+-<>@"]) for _ in range(1)) + \
                bytes(r.choice([c for c in range(256) if c != 10]) for _ in range(r.randrange(0, 30)))
            data = ("\n".join(L[:at]) + ("\n" if at else "")).encode() + junk + b"\n" + \
                ("\n".join(L[at:]) + "\n").encode()
            return data, at + 1, "a line of junk before line %d" % (at + 1)
        if not mid_ops:
            return None
        if kind == "swap":
            if len(ops) < 2:
                return None
            a = r.randrange(len(ops) - 1)
            i, j = ops[a], ops[a + 1]
            if L[i] == L[j]:
                return None
            L[i], L[j] = L[j], L[i]
            return "\n".join(L) + "\n", i + 1, "records at lines %d and %d swapped" % (i + 1, j + 1)
        if kind == "dup":
            i = r.choice(ops)
            L.insert(i + 1, L[i])
            return "\n".join(L) + "\n", i + 2, "record at line %d repeated" % (i + 1)
        i = r.choice(ops)
        f = L[i].split(" ")
        if kind in ("garbage", "negative", "overflow"):
            fields = list(range(1, len(f)))
            k = r.choice(fields)
            rep = {"garbage": r.choice(["abc", "12x", "", "0x10", "1e3", "1.5", "+5"]),
                   "negative": "-" + (f[k] or "1"),
                   "overflow": r.choice(["99999999999999999999", "18446744073709551616",
                                         "1" + "0" * 19, "0" * 20])}[kind]
            f[k] = rep
            L[i] = " ".join(f)
            name = ["OP", "ID", "RECNO", "TOTAL", "SITE", "MAXRSS", "SID"][k]
            return "\n".join(L) + "\n", i + 1, "%s of line %d replaced by %r" % (name, i + 1, rep)
        if kind == "total":
            d = r.choice([1, -1, 16, -16, 1000, 1 << 40])
            old = int(f[3])
            if old + d < 0:
                d = -d
            f[3] = str(old + d)
            L[i] = " ".join(f)
            return "\n".join(L) + "\n", i + 1, "TOTAL of line %d changed by %+d" % (i + 1, d)
        if kind == "undeclared":
            nsites = max(self.t.sites)
            f[1] = str(r.choice([nsites + 1, nsites + 7, 10 ** 6]))
            L[i] = " ".join(f)
            return "\n".join(L) + "\n", i + 1, "ID of line %d set to an undeclared site %s" % (i + 1, f[1])
        if kind == "zero-site":
            f[1] = "0"
            L[i] = " ".join(f)
            return "\n".join(L) + "\n", i + 1, "ID of line %d set to 0" % (i + 1)
        if kind == "unknown-free":
            # a '-' inserted before op line i, RECNO right, for a context
            # (site, stack 0) with no live block, or for more bytes than it holds
            pre = gen.parse_records(lines[:i])
            h, _ = gen.replay(pre, 8)
            declared = [rr[1] for rr in pre if rr[0] == 'site']
            if not declared:
                return None
            site = r.choice(declared)
            live, nb = h.ctx.get((site, 0), 0), h.nctx.get((site, 0), 0)
            if nb == 0:
                size = r.randrange(0, min(h.heap, 1000) + 1)
            elif live + 1 <= h.heap:
                size = r.randrange(live + 1, min(h.heap, live + 1000) + 1)
            else:
                return None
            rec = sum(1 for rr in pre if rr[0] == 'op')
            nf = ["-", str(site), str(rec), str(h.heap - size), str(h.site.get(site, 0) - size)]
            if len(f) > 5:
                nf.append(f[5])
            if len(f) > 6:
                nf.append("0")
            L.insert(i, " ".join(nf))
            return "\n".join(L) + "\n", i + 1, "'%s' (%d bytes; the context holds %d in %d blocks) inserted " \
                "at line %d" % (" ".join(nf), size, live, nb, i + 1)
        if kind == "bad-sid":
            if len(f) < 7:
                return None
            f[6] = str(len(self.t.stacks) + r.choice([1, 5]))
            L[i] = " ".join(f)
            return "\n".join(L) + "\n", i + 1, "SID of line %d set to an undefined stack %s" % (i + 1, f[6])
        if kind == "bad-stack":
            st = [k for k, l in enumerate(lines) if l.startswith("#stack ")]
            if not st:
                return None
            k = r.choice(st)
            g = L[k].split(" ")
            what = r.choice(["sid", "addr", "site", "deep"])
            if what == "sid":
                g[1] = str(int(g[1]) + 1)
            elif what == "addr":
                g.append(r.choice(["0x", "0x0", "12", "0xg1", "0x12345678901234567"]))
            elif what == "site":
                g[2] = str(max(self.t.sites) + 1)
            else:
                g += ["0x401000"] * self.t.depth
            L[k] = " ".join(g)
            return "\n".join(L) + "\n", k + 1, "#stack at line %d damaged (%s)" % (k + 1, what)
        return None

    def check_truncated(self, data, bt, out, rc, so, errl, how, what, group):
        """doc/mtrace2massif.md, Reading traces: a trace cut short is converted
        up to its last complete record with one warning (exit 0)."""
        complete = data[:data.rfind(b"\n") + 1] if b"\n" in data else b""
        partial = data[len(complete):]
        clines = complete.decode(errors="replace").split("\n")[:-1]
        # doc: "no tail and/or a last line without its newline" is a truncated
        # trace.  Rule decided here (the doc does not say more): a cut inside a
        # record line (any non-empty part of it, even its first byte) is a
        # last line cut short; a cut inside a gnuplot tail line is not a
        # truncation (the tail line stays a tail line).
        rec_like = [l for l, k in zip(clines, self.t.kinds) if k != 'tail']
        ntail = len(clines) - len(rec_like)
        pkind = self.t.kinds[len(clines)] if partial else None
        cut = bool(partial) and pkind != 'tail'
        if partial and not cut:
            ntail += 1
        expect_warn = cut or ntail == 0
        probs = []
        if rc != 0:
            probs.append("exit %d (%r)" % (rc, errl[:2]))
        form = re.compile(r"mtrace2massif: %s:(\d+): warning: trace is truncated \((last line cut short|"
                          r"no gnuplot tail)\); converting the (\d+) complete records" % re.escape(bt))
        nrec = sum(1 for l in rec_like if l[0] in "+-<>")
        if expect_warn:
            mm = form.fullmatch(errl[0]) if len(errl) == 1 else None
            if not mm:
                probs.append("expected one truncation warning, stderr %r" % errl[:3])
            else:
                if int(mm.group(3)) != nrec:
                    probs.append("warning says %s records, %d complete" % (mm.group(3), nrec))
                why = "last line cut short" if cut else "no gnuplot tail"
                if mm.group(2) != why:
                    probs.append("warning says %r, expected %r" % (mm.group(2), why))
                wl = len(clines) + (1 if cut else 0)
                if int(mm.group(1)) != wl:
                    probs.append("warning at line %s, expected %d" % (mm.group(1), wl))
        elif errl:
            probs.append("unexpected stderr %r" % errl[:3])
        if probs:
            self.bad(group, "%s: %s" % (what, "; ".join(probs)), how)
            return
        records = gen.parse_records(rec_like)
        row = parse_summary(so)
        _, s = gen.replay(records, 8)
        exp = dict(peak_heap=s['peak_heap'], peak=s['peak'], leaks=s['leaks'], records=s['records'])
        if row is None or {k: row[k] for k in exp} != exp or (("(truncated)" in row['rest']) != expect_warn):
            self.bad(group, "%s: summary %s, model of the complete records %s" % (what, row, exp), how)
            return
        if not os.path.exists(out):
            self.bad(group, "%s: no file" % what, how)
            return
        with open(out) as f:
            text = f.read()
        self.cmdrec = next((l[5:] for l in clines if l.startswith("#cmd ") and len(l) > 5), None)
        n = self.check_file(text, Opts([]), how, path=bt, records=records)
        if n == 0:
            self.ok(group)
        else:
            self.bad(group, "%s: the file of the complete records fails the checks above" % what, how)

    # --- damaged Massif files for ms_print
    def bad_massif(self, r, mf):
        with open(mf, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")[:-1]
        for mi in range(3):
            kind = r.choice(["truncate", "swap", "delete", "number", "junk", "dup"])
            L = list(lines)
            if kind == "truncate":
                cut = r.randrange(0, len(data))
                new = data[:cut]
                what = "cut at byte %d of %d" % (cut, len(data))
            elif kind == "junk":
                at = r.randrange(0, len(data))
                junk = bytes(r.randrange(256) for _ in range(r.randrange(1, 30)))
                new = data[:at] + junk + data[at:]
                what = "%d junk bytes at byte %d" % (len(junk), at)
            else:
                if len(L) < 2:
                    continue
                if kind == "swap":
                    a = r.randrange(len(L) - 1)
                    L[a], L[a + 1] = L[a + 1], L[a]
                    what = "lines %d and %d swapped" % (a + 1, a + 2)
                elif kind == "delete":
                    a = r.randrange(len(L))
                    del L[a]
                    what = "line %d deleted" % (a + 1)
                elif kind == "dup":
                    a = r.randrange(len(L))
                    L.insert(a, L[a])
                    what = "line %d repeated" % (a + 1)
                else:
                    nums = [(k, mm) for k, l in enumerate(L) for mm in re.finditer(rb"\d+", l)]
                    if not nums:
                        continue
                    k, mm = r.choice(nums)
                    rep = r.choice([b"x", b"-1", b"99999999999999999999999", b"1e300", b"1.5", b"", b"-"])
                    L[k] = L[k][:mm.start()] + rep + L[k][mm.end():]
                    what = "a number on line %d replaced by %r" % (k + 1, rep.decode())
                new = b"\n".join(L) + b"\n"
            bf = os.path.join(self.work, "s%d.bad%d.%s.massif" % (self.seed, mi, kind))
            with open(bf, "wb") as f:
                f.write(new)
            self.count("damaged massif files")
            how = ("python3 tests/convmodel/check.py --seed %d --keep /tmp/s%d && ./ms_print /tmp/s%d/%s"
                   "   (the Massif file with %s)" % (self.seed, self.seed, self.seed, os.path.basename(bf), what))
            rc, so, se = run([self.msp, bf])
            s = sig_or_hang(rc)
            if s:
                self.bad("bad-massif", "%s: %s" % (what, s), how)
                continue
            errl = se.decode(errors="replace").split("\n")
            if errl and errl[-1] == "":
                errl.pop()
            probs = []
            if rc == 0:
                if errl:
                    probs.append("exit 0 with stderr %r" % errl[:2])
            else:
                if rc != 1:
                    probs.append("exit %d, not 1" % rc)
                if len(errl) != 1 or not re.fullmatch(r"ms_print: %s:\d+: .+" % re.escape(bf), errl[0]):
                    probs.append("stderr is not one 'ms_print: FILE:LINE: ...' line: %r" % errl[:3])
            if self.perl and not probs:
                rc2, so2, se2 = run(["/usr/bin/ms_print", bf], cwd=self.work)
                if rc2 is None or b"Out of memory!" in se2:
                    # doc/ms_print.md: where the original runs out of memory
                    # or never finishes, no output is "identical"
                    self.count("perl ms_print out of memory or too slow (not compared)")
                elif so2 != so or (rc2 == 0) != (rc == 0):
                    a, b = so.decode(errors="replace").split("\n"), so2.decode(errors="replace").split("\n")
                    k = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
                    probs.append("differs from /usr/bin/ms_print (exit %d vs %d; line %d: %r vs %r)"
                                 % (rc, rc2, k + 1, a[k] if k < len(a) else None, b[k] if k < len(b) else None))
                else:
                    self.count("damaged files compared with perl")
            if probs:
                self.bad("bad-massif", "%s: %s" % (what, "; ".join(probs)), how)
            else:
                self.ok("bad-massif")
                if rc:
                    self.count("damaged files refused")


def tamperings(text):
    """Damaged copies of a good Massif file, each wrong in one way."""
    out = []
    snaps = [mm.start() for mm in re.finditer(r"(?m)^snapshot=\d+$", text)]

    def sub_in(name, pattern, k, fn):
        ms = list(re.finditer(pattern, text))
        if not ms:
            return
        mm = ms[k if k >= 0 else len(ms) + k]
        new = fn(mm.group(1))
        line = text[:mm.start(1)].count("\n") + 1
        out.append(("%s (line %d: %s -> %s)" % (name, line, mm.group(1), new),
                    text[:mm.start(1)] + new + text[mm.end(1):]))
    mid = len(snaps) // 2
    sub_in("mem_heap_B of a middle snapshot plus one", r"(?m)^mem_heap_B=(\d+)$", mid, lambda v: str(int(v) + 1))
    sub_in("time of a middle snapshot plus one", r"(?m)^time=(\d+)$", mid, lambda v: str(int(v) + 1))
    sub_in("mem_heap_extra_B of the last snapshot plus 16", r"(?m)^mem_heap_extra_B=(\d+)$", -1,
           lambda v: str(int(v) + 16))
    sub_in("the peak's bytes in the peak tree's first entry minus one",
           r"heap_tree=peak\nn\d+: \d+ .*\n n\d+: (\d+) ", 0, lambda v: str(int(v) - 1))
    sub_in("heap_tree=peak made detailed", r"(?m)^heap_tree=(peak)$", 0, lambda v: "detailed")
    sub_in("cmd: changed", r"(?m)^cmd: (.*)$", 0, lambda v: v + "x")
    # a whole snapshot removed, the later ones renumbered
    if len(snaps) > 3:
        a, b = snaps[mid] - len("#-----------\n"), snaps[mid + 1] - len("#-----------\n")
        rest = re.sub(r"(?m)^snapshot=(\d+)$", lambda mm: "snapshot=%d" % (int(mm.group(1)) - 1), text[b:])
        out.append(("snapshot %d removed, the later ones renumbered" % mid, text[:a] + rest))
    return out


def self_test(top, work, m2m, msp, seed=3):
    """Damage a good Massif file in several ways, one at a time; each must
    fail some check (and the good file none).  Returns (ok, lines)."""
    t = gen.generate(seed)

    def fresh():
        s = Seed(seed, top, work, False, m2m=m2m, msp=msp)
        s.t, s.records = t, gen.parse_records(t.lines)
        s.info = TraceInfo(s.records)
        return s
    s0 = fresh()
    with open(s0.trace, "w") as f:
        f.write(t.text())
    out = os.path.join(work, "tamper.out")
    rc, _, _ = run(s0.m2m_cmd([], s0.trace, out))
    if rc != 0:
        return False, ["the conversion of seed %d failed (exit %s)" % (seed, rc)]
    with open(out) as f:
        text = f.read()
    n0 = s0.check_file(text, Opts([]), "untampered", path=s0.trace, records=s0.records, ms_print=out)
    lines = []
    okk = n0 == 0
    if n0:
        lines.append("the good file fails %d checks" % n0)
    for name, bad in tamperings(text):
        s = fresh()
        with open(out + ".bad", "w") as f:
            f.write(bad)
        n = s.check_file(bad, Opts([]), "tampered", path=s.trace, records=s.records, ms_print=out + ".bad")
        groups = [g for g, v in s.res.items() if v[1]]
        first = next((m[1] for g in groups for m in s.res[g][1]), "")
        if n == 0:
            okk = False
            lines.append("NOT caught: %s" % name)
        else:
            lines.append("caught: %s -> FAIL %s; first message: %s" % (name, ", ".join(groups), first[:240]))
    # and ms_print's output: a table row changed
    rc, so, _ = run([msp, out])
    m = parse_massif(text)
    bad = re.sub(rb"(?m)^( +1 +[\d,]+ +)([\d,]+)", lambda mm: mm.group(1) + b"9" + mm.group(2), so, count=1)
    probs = check_ms_print(bad, m)
    if probs and not check_ms_print(so, m):
        lines.append("caught: ms_print's row 1 total changed -> %s" % probs[0][:200])
    else:
        okk = False
        lines.append("NOT caught: ms_print's row 1 total changed")
    return okk, lines


def one_seed(args):
    seed, top, perl, keep, verbose, m2m, msp = args
    work = keep or tempfile.mkdtemp(prefix="convmodel.")
    if keep:
        os.makedirs(keep, exist_ok=True)
    try:
        s = Seed(seed, top, work, perl, verbose, m2m, msp)
        s.cmdrec = None
        t0 = time.time()
        res, cov = s.go()
        cov["seconds"] = time.time() - t0
        for g, n in s.nbad.items():
            cov["nbad " + g] = n
        return seed, res, cov
    except Exception as e:          # a bug of this script: report it as one
        import traceback
        res = {g: [0, []] for g, _ in GROUPS}
        res["convert"] = [1, [(seed, "check.py raised %s: %s" % (type(e).__name__, traceback.format_exc()[-800:]),
                               None)]]
        return seed, res, {}
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def parse_seeds(specs):
    out = []
    for s in specs:
        for part in s.split(","):
            if "-" in part[1:]:
                a, b = part.split("-", 1)
                out.extend(range(int(a), int(b) + 1))
            elif part:
                out.append(int(part))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", action="append", default=[], help="A-B or A,B,C (repeatable)")
    ap.add_argument("--seed", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--perl-every", type=int, default=4,
                    help="compare with /usr/bin/ms_print on every K-th seed (0: never)")
    ap.add_argument("--top", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--keep", help="keep the files of the (single) seed in this directory")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--no-self-test", action="store_true")
    ap.add_argument("--m2m", default=os.environ.get("M2M"),
                    help="the mtrace2massif to test (default: TOP/mtrace2massif, copied first)")
    ap.add_argument("--msp", default=os.environ.get("MS_PRINT"),
                    help="the ms_print to test (default: TOP/ms_print, copied first)")
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds + a.seed) or list(range(1, 41))
    top = os.path.abspath(a.top)
    have_perl = os.access("/usr/bin/ms_print", os.X_OK)
    t0 = time.time()
    # the programs under test, copied once: a rebuild during the run (others
    # at work in the same checkout) must not change them half-way
    bindir = tempfile.mkdtemp(prefix="convmodel-bin.")
    tools = []
    for given, name in ((a.m2m, "mtrace2massif"), (a.msp, "ms_print")):
        src = os.path.abspath(given) if given else os.path.join(top, name)
        dst = os.path.join(bindir, name)
        for attempt in range(6):
            try:
                shutil.copy2(src, dst)
                break
            except OSError as e:
                err = e
                time.sleep(10)
        else:
            print("RESULT\tFAIL\tthe programs under test\t1\tcannot copy %s: %s" % (src, err))
            return 2
        tools.append(dst)
    m2m, msp = tools
    jobs = [(s, top, have_perl and a.perl_every > 0 and (len(seeds) == 1 or s % a.perl_every == 0),
             a.keep if len(seeds) == 1 else None, a.verbose, m2m, msp) for s in seeds]
    total = {g: [0, []] for g, _ in GROUPS}
    cov = {}
    if a.jobs > 1 and len(seeds) > 1:
        with concurrent.futures.ProcessPoolExecutor(a.jobs) as ex:
            results = list(ex.map(one_seed, jobs, chunksize=1))
    else:
        results = [one_seed(j) for j in jobs]
    slow = []
    nbad = {}
    for seed, res, c in results:
        for g, (n, fails) in res.items():
            total[g][0] += n
            total[g][1].extend(fails)
        for k, v in c.items():
            if k == "seconds":
                slow.append((v, seed))
            elif k.startswith("nbad "):
                nbad.setdefault(k[5:], []).append((seed, v))
            else:
                cov[k] = cov.get(k, 0) + v
    if not a.no_self_test:
        work = tempfile.mkdtemp(prefix="convmodel-tamper.")
        try:
            okk, lines = self_test(top, work, m2m, msp)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        total["self-test"][0] += len(lines)
        if okk:
            total["self-test"].append("%d damaged files, each caught" % (len(lines)))
        else:
            total["self-test"][1].append((3, "; ".join(l for l in lines if not l.startswith("caught")), None))
        if a.verbose or not okk:
            for l in lines:
                print("INFO\tself-test: " + l)
    shutil.rmtree(bindir, ignore_errors=True)
    for g, title in GROUPS:
        n, fails = total[g][0], total[g][1]
        if g == "ms_print-perl" and not have_perl:
            print("RESULT\tok\t%s\t0\tskipped: /usr/bin/ms_print is not installed" % title)
            continue
        if fails:
            nb = nbad.get(g, [])
            seeds_bad = sorted(x[0] for x in nb) or sorted({f[0] for f in fails})
            print("RESULT\tFAIL\t%s\t%d\t%d failed in %d seed(s) (%s%s); the first shown below"
                  % (title, n, sum(x[1] for x in nb) or len(fails), len(seeds_bad),
                     ", ".join(map(str, seeds_bad[:12])), ", ..." if len(seeds_bad) > 12 else ""))
            for seed, msg, cmd in fails[:5]:
                print("DETAIL\tseed %d: %s" % (seed, msg))
                print("DETAIL\t  reproduce: python3 tests/convmodel/check.py --seed %d --verbose" % seed)
                if cmd:
                    print("DETAIL\t  or: %s" % cmd)
        else:
            extra = total[g][2] if len(total[g]) > 2 else ""
            print("RESULT\tok\t%s\t%d\t%s" % (title, n, extra))
    slow.sort(reverse=True)
    print("INFO\t%d seeds (%s) in %.1f s with %d jobs; slowest seed %s" % (
        len(seeds), "%d-%d" % (seeds[0], seeds[-1]) if seeds == list(range(seeds[0], seeds[-1] + 1))
        else ",".join(map(str, seeds[:10])), time.time() - t0, a.jobs,
        "%d (%.1f s)" % (slow[0][1], slow[0][0]) if slow else "-"))
    print("INFO\tcovered: " + ", ".join("%s %d" % (k, v) for k, v in sorted(cov.items())))
    return 1 if any(total[g][1] for g, _ in GROUPS) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
