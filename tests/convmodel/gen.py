#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py - random valid mtrace traces, and a model of the heap they describe.

    gen.py SEED [-o TRACE] [--model]

writes the trace of SEED (standard output by default); --model prints the
model's figures instead (peak, leaks, per-site bytes at the peak...).

The trace follows doc/trace-format.md: site records "@ ID FUNC FILE LINE"
(declared at first use, IDs 1, 2, 3...), operation records
"OP ID RECNO TOTAL SITE [MAXRSS [SID]]" (+ - < >), optionally "#cmd",
"#pool ID", an unknown "#" record, the call-stack records "#depth N",
"#map LO HI BIAS PATH" and "#stack SID ID ADDR...", and the two gnuplot lines
the tracer writes at exit.  What varies with the seed: 1..50 sites, 1..20,000
records, sizes 0..1 MiB with some huge ones (beyond 4 MiB - 64, and a few of
2^32..2^40 bytes), frees of random live blocks, reallocs (moving, in place,
growing, shrinking, to 0 bytes, realloc(NULL, n), glibc's realloc(p, 0)),
the shape of the heap over time (peak early, late, repeated equal peaks, at
the very end), and what is left live at the end (leaks).

The model (class Heap, function replay) is written from doc/mtrace2massif.md
and doc/trace-format.md, not from the converter's code: it reads the records
back (not the generator's own bookkeeping, so that it also describes a
truncated prefix) and keeps Massif's accounting: useful heap (requested
bytes), extra heap (--heap-admin per block + slop), time in bytes
(sum of |delta(useful + extra)| per event) and in records, the live bytes of
each site and of each (site, stack) context, and where the exact peak is.
Standard library only.
"""
import math
import random
import sys

BIG_BLOCK = 4194240         # 4 MiB - 64: beyond it a block has a superblock of its own
SB_OVERHEAD = 64
PAGE = 4096
MASSIF_ALLOC_FNS = {        # Massif's default --alloc-fn list (doc: "Massif's list")
    "malloc", "__builtin_new", "operator new(unsigned)", "operator new(unsigned long)",
    "__builtin_vec_new", "operator new[](unsigned)", "operator new[](unsigned long)",
    "calloc", "realloc", "memalign", "posix_memalign", "valloc",
    "operator new(unsigned, std::nothrow_t const&)",
    "operator new[](unsigned, std::nothrow_t const&)",
    "operator new(unsigned long, std::nothrow_t const&)",
    "operator new[](unsigned long, std::nothrow_t const&)",
}


def usable(req):
    """Valgrind's usable size of a fresh block (doc: rounded up to 16 bytes,
    or beyond 4 MiB - 64 whole 4 KiB pages minus the 64-byte header)."""
    if req <= BIG_BLOCK:
        return (req + 15) & ~15
    return ((req + SB_OVERHEAD + PAGE - 1) & ~(PAGE - 1)) - SB_OVERHEAD


def escape(s):
    """The trace's escaping of FUNC, FILE, PATH and #cmd arguments."""
    out = []
    for ch in s:
        o = ord(ch)
        if o <= 0x20 or o == 0x7f or ch == '%':
            out.append('%%%02X' % o)
        else:
            out.append(ch)
    return ''.join(out)


def decode(s):
    """%XX -> the byte (a '%' without two hex digits stays)."""
    out, i = [], 0
    hexd = '0123456789abcdefABCDEF'
    while i < len(s):
        if s[i] == '%' and i + 2 < len(s) and s[i + 1] in hexd and s[i + 2] in hexd:
            out.append(chr(int(s[i + 1:i + 3], 16)))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


def label_escape(s):
    """A Massif label: control characters, '#' and '%' as %XX."""
    return ''.join('%%%02X' % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f or c in '#%' else c
                   for c in s)


# ---------------------------------------------------------------------------
# The generator

class Trace:
    """A generated trace: its lines (without '\\n') and what they declare."""

    def __init__(self):
        self.lines = []
        self.kinds = []         # per line: 'op', 'site', 'meta', 'tail'
        self.sites = {}         # id -> (func, file, line)  (as written, escaped)
        self.pool = set()       # pool site ids
        self.stacks = {}        # sid -> (site, [return addresses])
        self.maps = []          # (lo, hi, bias, path)
        self.has_rss = True
        self.has_sid = False
        self.depth = 0
        self.params = {}

    def text(self):
        return ''.join(l + '\n' for l in self.lines)


FUNC_NAMES = ["f", "g", "make_buf", "grow", "parse_line", "node_new", "xstrdup",
              "hash_insert", "vec_push", "read_all", "load_config", "emit"]


class Gen:
    def __init__(self, seed):
        self.rng = r = random.Random(seed)
        self.t = t = Trace()
        self.seed = seed
        self.nsites = 1 + int(49 * r.random() ** 2)          # 1..50, small ones more often
        self.nops = max(1, int(math.exp(r.uniform(0, math.log(20000)))))  # 1..20000, log-uniform
        self.shape = r.choice(["walk", "walk", "ramp", "spike", "plateau", "late", "nofree",
                               "churn", "clean"])
        self.sizes = r.choice(["small", "mixed", "mixed", "large", "aligned", "huge"])
        self.stacks_on = r.random() < 0.35
        self.rss_on = self.stacks_on or r.random() < 0.92
        t.has_rss = self.rss_on
        t.has_sid = self.stacks_on
        t.params = dict(seed=seed, nsites=self.nsites, nops=self.nops, shape=self.shape,
                        sizes=self.sizes, stacks=self.stacks_on, rss=self.rss_on)
        self.declared = 0
        self.blocks = []        # live blocks: [site, sid, size]
        self.site_live = {}
        self.total = 0
        self.recno = 0
        self.rss = r.randrange(1 << 20, 1 << 24)
        self.site_stacks = {}   # site -> [sid...]
        self.stack_keys = set()
        self.pool_site = None
        self.want_pool = r.random() < 0.15
        self.unknown_meta = r.random() < 0.1
        self.pending_lines = []
        self.remapped = False

    # --- output helpers
    def put(self, line, kind):
        self.t.lines.append(line)
        self.t.kinds.append(kind)

    def header(self):
        r, t = self.rng, self.t
        if r.random() < 0.6:
            args = ["./prog"] + [r.choice(["-v", "input file.txt", "x#y", "100%", "a\tb", "--n=3"])
                                 for _ in range(r.randrange(0, 4))]
            self.put("#cmd " + " ".join(escape(a) for a in args), 'meta')
        if self.stacks_on:
            t.depth = r.randrange(2, 9) if r.random() < 0.7 else r.randrange(9, 41)
            self.put("#depth %d" % t.depth, 'meta')
            t.maps = [(0x400000, 0x480000, 0, "/work/prog"),
                      (0x7f3a10001000, 0x7f3a10200000, 0x7f3a10000000,
                       r.choice(["/usr/lib/libc.so.6", "/opt/my lib/libx.so"]))]
            for lo, hi, bias, path in t.maps:
                self.put("#map 0x%x 0x%x 0x%x %s" % (lo, hi, bias, escape(path)), 'meta')
            # the return addresses stacks are made of (some in no map)
            self.addrs = ([r.randrange(0x401000, 0x47f000) for _ in range(r.randrange(3, 25))] +
                          [r.randrange(0x7f3a10001001, 0x7f3a101ff000) for _ in range(r.randrange(1, 8))] +
                          [r.randrange(0x10000, 0x20000) for _ in range(r.randrange(0, 3))])

    def declare_site(self, pool_ok=True):
        r = self.rng
        self.declared += 1
        sid = self.declared
        x = r.random()
        if x < 0.06:
            func = "main"
        elif x < 0.12:
            func = "xmalloc"                # an allocation wrapper (--alloc-fn=xmalloc)
        elif x < 0.14:
            func = "calloc"                 # in Massif's own list
        elif x < 0.20:
            func = r.choice(["with space#hash", "pct%sign", "tab\there", "operator new[](unsigned long)",
                             "very_" * 30 + "long"])
        else:
            func = r.choice(FUNC_NAMES) + ("" if r.random() < 0.5 else str(r.randrange(100)))
        file = r.choice(["src/a.c", "lib/util/b.c", "c.c", "/abs/path/to/d.c", "dir with space/e#1.c",
                         "f%g.c"])
        line = r.randrange(1, 5000)
        self.t.sites[sid] = (escape(func), escape(file), line)
        self.put("@ %d %s %s %d" % (sid, escape(func), escape(file), line), 'site')
        if pool_ok and self.want_pool and self.pool_site is None and r.random() < 0.3:
            self.pool_site = sid
            self.t.pool.add(sid)
            self.put("#pool %d" % sid, 'meta')
        return sid

    def pick_site(self, ops_left, realloc_ok=True):
        """A site: a new one now and then (so that all nsites appear), else an
        existing one, small IDs more often."""
        r = self.rng
        if self.declared < self.nsites and (self.declared == 0 or
                                            r.random() < 2.0 * (self.nsites - self.declared) / (ops_left + 1)):
            return None
        for _ in range(4):
            s = 1 + int(self.declared * r.random() ** 1.7)
            if realloc_ok or s != self.pool_site:
                return s
        return s

    def stack_for(self, site):
        """A stack of the site (SID), 0 now and then; a new #stack record when
        the chain is new (written before the record using it)."""
        r, t = self.rng, self.t
        if not self.stacks_on or r.random() < 0.1:
            return 0, []
        mine = self.site_stacks.setdefault(site, [])
        if mine and r.random() < 0.75:
            return r.choice(mine), []
        lines = []
        if not self.remapped and r.random() < 0.02:
            # a library unloaded and another loaded over part of its range: a
            # later #map replaces the earlier one from here on (its old
            # addresses are no longer used by new stacks)
            self.remapped = True
            lo, hi = 0x7f3a10001000, 0x7f3a10100000
            lines.append("#map 0x%x 0x%x 0x%x %s" % (lo, hi, 0x7f3a10000000, escape("/usr/lib/libnew#2.so")))
            t.maps.append((lo, hi, 0x7f3a10000000, "/usr/lib/libnew#2.so"))
            old = set(self.addrs)
            self.addrs = [a for a in self.addrs if not lo <= a < hi]
            while len(self.addrs) < 3 or r.random() < 0.7:
                a = r.randrange(lo + 1, hi)
                if a not in old:
                    self.addrs.append(a)
        for _ in range(10):
            if mine and r.random() < 0.6:           # share a prefix with an existing chain
                base = list(t.stacks[r.choice(mine)][1])
                k = r.randrange(0, len(base) + 1)
                chain = base[:k]
            else:
                chain = []
            while len(chain) < t.depth - 1 and (not chain or r.random() < 0.7):
                chain.append(r.choice(self.addrs))
            chain = chain[:r.randrange(0, t.depth)]
            key = (site, tuple(chain))
            if key not in self.stack_keys:
                break
        else:
            if mine:
                return r.choice(mine), []
            return 0, []
        self.stack_keys.add(key)
        new = len(t.stacks) + 1
        t.stacks[new] = (site, chain)
        mine.append(new)
        lines.append("#stack %d %d%s" % (new, site, "".join(" 0x%x" % a for a in chain)))
        return new, lines

    def size(self, big_ok=True):
        r = self.rng
        x = r.random()
        if x < 0.04:
            return 0
        p = self.sizes
        if p == "huge" and big_ok and x < 0.12:
            return r.choice([r.randrange(BIG_BLOCK - 40, BIG_BLOCK + 40),
                             r.randrange(4 << 20, 64 << 20),
                             r.randrange(1 << 32, 1 << 40) if r.random() < 0.2 else r.randrange(1 << 20, 16 << 20)])
        if p == "small":
            return r.randrange(1, 80)
        if p == "aligned":
            return r.choice([16, 32, 48, 64, 1024, 4096]) - r.randrange(0, 16)
        if p == "large" or (big_ok and x > 0.97):
            return r.randrange(1, 1 << 20)
        return int(math.exp(r.uniform(0, math.log(1 << 20))))    # 1..1 MiB, log-uniform

    # --- records
    def op(self, op, site, sid, delta):
        """Write one operation record; delta is +size or -size."""
        self.total += delta
        self.site_live[site] = self.site_live.get(site, 0) + delta
        if self.rng.random() < 0.002 or self.recno == 0:
            self.rss += self.rng.randrange(0, 1 << 16)
        f = "%s %d %d %d %d" % (op, site, self.recno, self.total, self.site_live[site])
        if self.rss_on:
            f += " %d" % self.rss
            if self.stacks_on:
                f += " %d" % sid
        self.recno += 1
        self.put(f, 'op')

    def alloc(self, ops_left, size=None, op='+', site=None):
        if site is None:
            site = self.pick_site(ops_left)
        if site is None:
            site = self.declare_site()
        sid, lines = self.stack_for(site)
        for l in lines:
            self.put(l, 'meta')
        if size is None:
            size = self.size()
        self.op(op, site, sid, size)
        self.blocks.append([site, sid, size])

    def free(self, i=None):
        if i is None:
            i = self.rng.randrange(len(self.blocks))
        b = self.blocks[i]
        self.blocks[i] = self.blocks[-1]
        self.blocks.pop()
        self.op('-', b[0], b[1], -b[2])

    def realloc(self, ops_left):
        r = self.rng
        cand = [i for i in (r.randrange(len(self.blocks)) for _ in range(3))
                if self.blocks[i][0] != self.pool_site]
        if not cand:
            return self.alloc(ops_left)
        i = cand[0]
        site, sid, old = self.blocks[i]
        x = r.random()
        if x < 0.05:                                # glibc realloc(p, 0): '<' alone
            self.blocks[i] = self.blocks[-1]
            self.blocks.pop()
            self.op('<', site, sid, -old)
            return
        if x < 0.08:
            new = 0                                 # Basilisk: '<' then '> 0'
        elif x < 0.3:
            new = old + r.randrange(0, 16)          # may fit in the slop: in place
        elif x < 0.45:
            new = max(0, old - r.randrange(0, max(1, old)))  # shrink: in place
        elif x < 0.5:
            new = old
        else:
            new = self.size()
        # the new block belongs to the realloc's site (often another one)
        nsite = site if r.random() < 0.4 else self.pick_site(ops_left, realloc_ok=False)
        declare_between = False
        if nsite is None:
            if r.random() < 0.5:
                nsite = self.declare_site(pool_ok=False)
            else:
                declare_between = True
        if nsite == self.pool_site:
            nsite = site
        nsid, lines = (0, []) if declare_between else self.stack_for(nsite)
        for l in lines:
            self.put(l, 'meta')
        self.blocks[i] = self.blocks[-1]
        self.blocks.pop()
        self.op('<', site, sid, -old)
        if declare_between:                         # '@' (and '#stack') between '<' and '>'
            nsite = self.declare_site(pool_ok=False)
            nsid, lines = self.stack_for(nsite)
            for l in lines:
                self.put(l, 'meta')
        self.op('>', nsite, nsid, new)
        self.blocks.append([nsite, nsid, new])

    def p_alloc(self, k, n):
        """Probability of an allocation at operation k of n, by shape."""
        f = k / max(1, n)
        nb = len(self.blocks)
        s = self.shape
        if s == "ramp":
            return 0.85 if f < 0.6 else 0.2
        if s == "late":
            return 0.5 if f < 0.9 else 0.97
        if s == "spike":
            return 0.95 if f < 0.05 else (0.1 if f < 0.15 else 0.5)
        if s == "nofree":
            return 1.0
        if s == "churn":
            return 0.9 if nb < 20 else 0.45
        return 0.75 if nb < 8 else 0.5

    def run(self):
        r, t = self.rng, self.t
        self.header()
        n = self.nops
        k = 0
        plateau = self.shape == "plateau"
        clean = self.shape == "clean" or r.random() < 0.15
        reserve = 0
        while self.recno < n:
            left = n - self.recno
            if clean and len(self.blocks) >= left:
                break                                # room to free everything at the end
            if self.unknown_meta and r.random() < 0.001:
                self.put("#note something%20new 42", 'meta')
            if plateau and r.random() < 0.02 and left > 3:
                # the same block allocated and freed again: equal peaks twice (or more)
                size = max(self.size(), self.size(), self.size())
                site = self.pick_site(left) or self.declare_site()
                for _ in range(r.randrange(2, 4)):
                    if self.recno + 2 > n:
                        break
                    self.alloc(left, size=size, site=site)
                    self.free(len(self.blocks) - 1)
                continue
            x = r.random()
            pa = self.p_alloc(self.recno, n)
            if not self.blocks or x < pa * 0.85:
                self.alloc(left, op='+' if r.random() < 0.97 else '>')   # '>' alone: realloc(NULL, n)
            elif x < pa * 0.85 + 0.2 and left >= 2:
                self.realloc(left)
            elif x < pa:
                self.alloc(left)
            else:
                self.free()
            k += 1
        if clean:
            while self.blocks:
                self.free()
        self.tail()
        return t

    def tail(self):
        """The two gnuplot lines the tracer writes at exit."""
        path = "/tmp/trace-%d" % self.seed
        self.put("set title '%s' noenhanced; set xlabel 'trace record'; set ylabel 'memory'; "
                 "set format y '%%.1b %%BB'; set key left top noenhanced; set grid" % path, 'tail')
        self.put("plot '%s' u 3:($6-0) w steps t 'max RSS - start RSS', '' u 3:4 w steps lw 2 t 'total'"
                 % path, 'tail')


def generate(seed):
    return Gen(seed).run()


# ---------------------------------------------------------------------------
# Reading records back (so the model also describes a truncated prefix)

def parse_records(lines):
    """The trace's records, from complete lines: a list of tuples
    ('site', id, func, file, line) | ('pool', id) | ('stack', sid, site, [addr])
    | ('op', OP, id, recno, total, sid) | ('depth', n) | ('map', lo, hi, bias, path).
    Other lines (#cmd, unknown #, the tail) are left out."""
    out = []
    for l in lines:
        if not l:
            continue
        c = l[0]
        f = l.split(' ')
        if c in '+-<>' and l[1:2] == ' ':
            out.append(('op', c, int(f[1]), int(f[2]), int(f[3]), int(f[6]) if len(f) > 6 else 0))
        elif c == '@' and l[1:2] == ' ':
            out.append(('site', int(f[1]), f[2], f[3], f[4]))
        elif l.startswith('#pool '):
            out.append(('pool', int(f[1])))
        elif l.startswith('#stack '):
            out.append(('stack', int(f[1]), int(f[2]), [int(a, 16) for a in f[3:]]))
        elif l.startswith('#depth '):
            out.append(('depth', int(f[1])))
        elif l.startswith('#map '):
            out.append(('map', int(f[1], 16), int(f[2], 16), int(f[3], 16), decode(f[4])))
    return out


def events(records):
    """The heap events of the operation records, as the converter sees them
    (doc/mtrace2massif.md, "realloc"): a '<' immediately followed (among the
    operation records) by a '>' is one realloc; a '>' alone is a malloc, a
    '<' alone a free.  The size of an operation is |TOTAL - previous TOTAL|.
    Yields (kind, first_rec, nrecs, args)."""
    ops = [r for r in records if r[0] == 'op']
    prev = 0
    sized = []
    for r in ops:
        sized.append((r[1], r[2], r[3], abs(r[4] - prev), r[5]))
        prev = r[4]
    i = 0
    while i < len(sized):
        op, site, rec, size, sid = sized[i]
        if op == '<' and i + 1 < len(sized) and sized[i + 1][0] == '>':
            n = sized[i + 1]
            yield ('realloc', rec, 2, (site, sid, size, n[1], n[4], n[3]))
            i += 2
            continue
        if op in '+>':
            yield ('alloc', rec, 1, (site, sid, size))
        else:
            yield ('free', rec, 1, (site, sid, size))
        i += 1


# ---------------------------------------------------------------------------
# The model

class Heap:
    """Massif's accounting, as doc/mtrace2massif.md describes it."""

    def __init__(self, pool, admin=8):
        self.pool = pool
        self.admin = admin
        self.heap = self.extra = 0
        self.time_b = self.time_i = 0
        self.nblocks = 0
        self.ctx = {}           # (site, sid) -> live bytes
        self.site = {}          # site -> live bytes
        self.seen = set()       # contexts that ever held a block
        self.nctx = {}          # (site, sid) -> live blocks
        self.stats = {}         # what happened, for the coverage report
        self.shrunk = {}        # (site, size) -> [excess usable bytes], last in first out

    def fresh_slop(self, site, size):
        return 0 if site in self.pool else usable(size) - size

    def release_slop(self, site, size):
        """Doc "Blocks shrunk in place": the most recently shrunk block of
        that site and size, if one is remembered."""
        st = self.shrunk.get((site, size))
        x = st.pop() if st else 0
        if x:
            self.stat("releases of blocks shrunk in place")
        return self.fresh_slop(site, size) + x

    def _add(self, site, sid, size):
        self.ctx[(site, sid)] = self.ctx.get((site, sid), 0) + size
        self.nctx[(site, sid)] = self.nctx.get((site, sid), 0) + 1
        self.site[site] = self.site.get(site, 0) + size
        self.seen.add((site, sid))

    def _sub(self, site, sid, size):
        self.ctx[(site, sid)] -= size
        self.nctx[(site, sid)] -= 1
        self.site[site] -= size

    def total(self):
        return self.heap + self.extra

    def stat(self, k):
        self.stats[k] = self.stats.get(k, 0) + 1

    def alloc(self, site, sid, size):
        if size > BIG_BLOCK:
            self.stat("blocks beyond 4 MiB - 64")
        if site in self.pool:
            self.stat("pool blocks")
        before = self.total()
        self.heap += size
        self.extra += self.admin + self.fresh_slop(site, size)
        self.nblocks += 1
        self._add(site, sid, size)
        self.time_b += abs(self.total() - before)

    def free(self, site, sid, size):
        before = self.total()
        slop = self.release_slop(site, size)
        self.heap -= size
        self.extra -= self.admin + slop
        self.nblocks -= 1
        self._sub(site, sid, size)
        self.time_b += abs(self.total() - before)

    def realloc(self, osite, osid, osize, nsite, nsid, nsize):
        before = self.total()
        oslop = self.release_slop(osite, osize)
        if nsize <= osize + oslop:              # fits the old usable size: stays
            self.stat("reallocs in place")
            nslop = oslop + osize - nsize
            fresh = self.fresh_slop(nsite, nsize)
            if nslop > fresh:
                self.shrunk.setdefault((nsite, nsize), []).append(nslop - fresh)
        else:                                   # moves: a fresh slop
            self.stat("reallocs that move")
            nslop = self.fresh_slop(nsite, nsize)
        self.heap += nsize - osize
        self.extra += nslop - oslop
        self._sub(osite, osid, osize)
        self._add(nsite, nsid, nsize)
        self.time_b += abs(self.total() - before)


def replay(records, admin=8, observer=None):
    """Replays the records through Heap.  observer (optional) gets
    observer.check(heap, first_rec) before each deallocation (free, shrinking
    realloc) and observer.event(heap) after each event (heap.time_i is then
    the number of records so far).  Returns the Heap and the summary dict:
    peak (max useful + extra), peak_heap (max useful), leaks, records, events,
    peak_state ('check', event index) / ('end',) / None, peak_sites (live
    bytes per site at the exact peak), peak_time_b, peak_time_i."""
    pool = {r[1] for r in records if r[0] == 'pool'}
    h = Heap(pool, admin)
    max_total = max_heap = 0
    best_check = 0
    best = None
    ties = 0
    nev = 0
    nrec = sum(1 for r in records if r[0] == 'op')
    for kind, rec, nrecs, a in events(records):
        if kind == 'free' or (kind == 'realloc' and a[5] < a[2]):
            t = h.total()
            if t > best_check:
                best_check = t
                best = (nev, dict(h.site), h.time_b, rec, h.heap, h.extra)
                ties = 0
            elif t == best_check and best is not None:
                ties += 1           # a later check at the same total (equal peaks)
            if observer:
                observer.check(h, rec)
        if kind == 'alloc':
            h.alloc(*a)
        elif kind == 'free':
            h.free(*a)
        else:
            h.realloc(*a)
        h.time_i = rec + nrecs
        nev += 1
        max_total = max(max_total, h.total())
        max_heap = max(max_heap, h.heap)
        if observer:
            observer.event(h)
    s = dict(peak=max_total, peak_heap=max_heap, leaks=h.heap, records=nrec, events=nev,
             final_extra=h.extra, final_time_b=h.time_b, final_time_i=h.time_i)
    if max_total == 0:
        s['peak_state'] = None          # the heap never held a byte: no peak
    elif best_check == max_total:       # the first check (before a free) at the maximum
        s['peak_state'] = ('check', best[0])
        s['peak_ties'] = ties
        s['peak_sites'], s['peak_time_b'], s['peak_time_i'] = best[1], best[2], best[3]
        s['peak_heap_at'], s['peak_extra_at'] = best[4], best[5]
    else:                               # never followed by a deallocation: after the last record
        s['peak_state'] = ('end',)
        s['peak_sites'], s['peak_time_b'], s['peak_time_i'] = dict(h.site), h.time_b, h.time_i
        s['peak_heap_at'], s['peak_extra_at'] = h.heap, h.extra
    return h, s


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="a random valid mtrace trace from a seed")
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output")
    ap.add_argument("--model", action="store_true", help="print the model's figures")
    ap.add_argument("--heap-admin", type=int, default=8)
    a = ap.parse_args(argv)
    t = generate(a.seed)
    if a.model:
        h, s = replay(parse_records(t.lines), a.heap_admin)
        print("params:", t.params)
        for k in ("peak", "peak_heap", "leaks", "records", "events", "peak_state",
                  "peak_time_b", "peak_time_i", "peak_heap_at", "peak_extra_at"):
            print("%s: %s" % (k, s.get(k)))
        print("peak_sites:", sorted((s.get('peak_sites') or {}).items()))
        print("final_sites:", sorted(h.site.items()))
        return 0
    text = t.text()
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
