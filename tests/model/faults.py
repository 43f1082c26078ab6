#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/model/faults.py - random programs with injected heap faults, and a
model of the heap check's documented contract (doc/guide.md, "The heap
check") that predicts every report they must give (issue 38).

The programs are scripts for tests/model/driver.c (its `poke` writes bytes
at an offset from a slot's pointer, its `check` calls mtrace_check_heap()),
run under MTRACE_CHECK=heap through model.py's run_driver.  The generator
writes allocations (malloc, calloc, aligned_alloc, posix_memalign,
memalign, realloc(NULL, n)), frees, reallocs that grow and shrink, and faults: writes past
the end (the first byte after the block .. the last byte of the guard),
before the start (1 .. 16 bytes), into a quarantined block's fill (past
4096 bytes at the edges of the words read, or between them; one seed in
five mostly such blocks, each written once and checked), of one
byte or many, of the guard's or fill's own byte value (not a change: no
report), a front write undone by a second; on another thread, in a forked
child, after a check; with a small quarantine (blocks leave it and their
addresses come back), MTRACE_CHECK_EVERY=N, mtrace_check_heap(), in
continue and stop mode.

The model (class Process) reads only the guide's rules, written out here:

  forms: "B byte(s) written before the start of an N-byte block", "A
    byte(s) written past the end of ...", "B byte(s) written before the
    start and A past the end of ...", "an N-byte block was written after it
    was freed, byte I" or "bytes I-J" (the first and last byte changed);
    B and A count to the farthest byte changed.  At exit " allocated here"
    follows "block" and the line stands at the allocation's place.
  the guards: 16 bytes before the block, after it up to the size rounded up
    to 8 and 16 more, all 0xFB; the freed fill 0xDF: a write that leaves a
    byte as it was changes nothing.  A held block's fill is read whole up
    to 4096 bytes, past that the first 8 bytes of every 512 and the last 8:
    a change elsewhere alone is not seen (nor forgotten: it is reported
    with the next one seen), a change seen is reported from the first byte
    changed to the last.
  when: at free/realloc, the block's guards ("found at this free" /
    "realloc"), then the quarantine's leavers, oldest first ("found as it
    left the quarantine, at this free"), then, with MTRACE_CHECK_EVERY=N,
    the whole check at every N-th traced call (allocation, free or realloc
    of a traced block; a forked child goes on counting from its parent's
    count) "found by the check every N calls, at this CALL"; the whole
    check: the live blocks (in no documented order: compared as a set),
    then the held blocks oldest first; mtrace_check_heap() the same at its
    line; at exit the same, every block, never stopping.
  the quarantine: a freed block is held, counting its size rounded up to 8
    plus 32 bytes (and its alignment less 16, when aligned to more than 16);
    when the blocks held count more than MTRACE_QUARANTINE, the oldest
    leave until they count no more.  A block whose front guard was damaged
    is never held (nor given back).
  once: a reported block's guard behind the end and a held block's fill
    are written anew (a later write is a new fault), a damaged front is
    not looked at again.
  stop / continue: the first report stops the process (SIGABRT, 134) but
    at exit; with MTRACE_DOUBLE_FREE=continue it goes on, the exit report
    says "*** MTRACE: N damaged block(s) reported (MTRACE_CHECK=heap)" and
    the status is 1.  A forked child has its own count and status.

Usage: faults.py check --seeds N --first F --bin-dir DIR --work DIR [--jobs J] [--keep DIR]
           (tests/modelfaults.sh builds the drivers into DIR; one seed: --seeds 1 --first SEED)
       faults.py show SEED (the script and its prediction)"""
import copy
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model  # noqa: E402  (its sites, scripts and runner)

GUARD_BYTE, FREED_FILL = 0xFB, 0xDF     # doc/guide.md, "The heap check"
FRONT = 16                              # guide: "16 before"
FILL_READ, FILL_STRIDE, WORD = 4096, 512, 8     # guide: "read whole up to 4096 bytes; past that,
                                                # only the first 8 bytes of every 512 and its last 8"
FLIP = 256                              # driver.c's poke: each byte flipped
NSLOTS = 24
ALIGNED = ('aligned_alloc', 'posix_memalign', 'memalign')
SITES = model.read_sites(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'driver.c'))


def back_len(n):
    """guide: "16 to 23 after: the size is rounded up to 8"."""
    return (n + 7) // 8 * 8 + 16 - n


def front_len(align):
    return align if align > 16 else 16


def plural(k):
    return 's' if k > 1 else ''


class Block:
    def __init__(self, n, align, alloc):
        self.n, self.align, self.alloc = n, align, alloc
        self.freed_by = None
        self.state = 'live'         # live, held, kept (front damaged, never given back), gone
        self.front = set()          # distances before the start changed (flipped)
        self.front_off = False      # a damaged front reported: not looked at again
        self.back = {}              # offset after the end -> byte
        self.fill = {}              # offset -> byte, while held
        self.inherited = False

    def held_bytes(self):
        return front_len(self.align) + self.n + back_len(self.n)

    def before(self):
        return 0 if self.front_off or not self.front else max(self.front)

    def after(self):
        changed = [i for i, v in self.back.items() if v != GUARD_BYTE]
        return max(changed) + 1 if changed else 0

    def fill_read(self, i):
        """Is byte i of the fill read (guide: whole up to 4096 bytes, then
        the first 8 of every 512 past it and the last 8)."""
        return (self.n <= FILL_READ or i < FILL_READ or (i - FILL_READ) % FILL_STRIDE < WORD
                or i >= self.n - WORD)

    def fill_range(self):
        """The bytes reported, or None: seen when a byte read changed; then
        from the first byte changed to the last, those between the words
        read too (guide)."""
        changed = sorted(i for i, v in self.fill.items() if v != FREED_FILL)
        if not any(self.fill_read(i) for i in changed):
            return None
        return changed[0], changed[-1]


SAMPLED = {}        # this seed's held blocks past 4096 bytes with changes, at their checks: seen or not


def held_damage(b):
    """b.fill_range(), counted in SAMPLED for a block whose fill is sampled."""
    r = b.fill_range()
    if b.n > FILL_READ and any(v != FREED_FILL for v in b.fill.values()):
        key = 'sampled fill seen' if r else 'sampled fill not seen'
        SAMPLED[key] = SAMPLED.get(key, 0) + 1
    return r


class Stopped(Exception):
    pass


class Process:
    """One process of a run: its blocks, quarantine, counters; the reports
    it must write, in order, into `out` (shared by the run's processes:
    a parent waits for its child)."""

    def __init__(self, sites, where, env, mode, out):
        self.sites, self.where, self.mode, self.out = sites, where, mode, out
        self.budget = env.get('quarantine', 256 << 10)     # the default (guide)
        self.every = env.get('every', 0)
        self.slots = {}
        self.blocks = []            # every block made, a slot's or not (a leak is still checked)
        self.held, self.held_total = [], 0
        self.calls = 0
        self.errors = 0
        self.child = False

    # --- places and texts
    def place(self, marker, kind, text):
        func, _, line = self.sites[marker]
        return '%s:%d: %s: %s (in %s)' % (self.where, line, kind, text, func)

    def live_text(self, b, here):
        bb, a, n = b.before(), b.after(), b.n
        if bb and a:
            return '%d byte%s written before the start and %d past the end of a %d-byte block%s' % (
                bb, plural(bb), a, n, here)
        if bb:
            return '%d byte%s written before the start of a %d-byte block%s' % (bb, plural(bb), n, here)
        return '%d byte%s written past the end of a %d-byte block%s' % (a, plural(a), n, here)

    def freed_text(self, b, here):
        i, j = b.fill_range()
        at = 'byte %d' % i if i == j else 'bytes %d-%d' % (i, j)
        return 'a %d-byte block%s was written after it was freed, %s' % (b.n, here, at)

    def report(self, b, by, found, freed):
        """The report's lines: at `by`'s place, or at exit (by None) at the
        allocation's."""
        here = '' if by else ' allocated here'
        text = (self.freed_text(b, here) if freed else self.live_text(b, here)) + ' (%s)' % found
        lines = [self.place(by or b.alloc, 'error', text)]
        if by:
            lines.append(self.place(b.alloc, 'note', 'the block was allocated here'))
        if freed:
            lines.append(self.place(b.freed_by, 'note', 'and freed here'))
        self.errors += 1
        return tuple(lines)

    def say(self, item, stop=True):
        self.out.append(item)
        if stop and self.mode == 'stop':
            raise Stopped()

    # --- the checks
    def live_blocks(self):
        return [b for b in self.blocks if b.state == 'live']

    def whole_check(self, by, found, stop=True):
        group = []
        for b in self.live_blocks():
            if b.before() or b.after():
                group.append(self.report(b, by, found, False))
                b.back = {}
                if b.before():
                    b.front_off = True
        if group:
            self.say(('set', group) if self.mode != 'stop' or not stop else ('oneof', group), stop)
        for b in self.held:
            if held_damage(b):
                r = self.report(b, by, found, True)
                b.fill = {}
                self.say(('one', r), stop)

    def tick(self, by, call):
        if not self.every:
            return
        self.calls += 1
        if self.calls >= self.every:
            self.calls = 0
            self.whole_check(by, 'found by the check every %d calls, at this %s' % (self.every, call))

    def release(self, b, by, call):
        """b freed (or moved away from) at `by`."""
        damaged_front = b.before() > 0 or b.front_off
        b.freed_by = by
        if b.before() or b.after():
            self.say(('one', self.report(b, by, 'found at this %s' % call, False)))
        b.back = {}
        if damaged_front:
            b.state = 'kept'
            return
        b.state, b.fill = 'held', {}
        self.held.append(b)
        self.held_total += b.held_bytes()
        while self.held and self.held_total > self.budget:
            old = self.held.pop(0)
            self.held_total -= old.held_bytes()
            old.state = 'gone'
            if held_damage(old):
                self.say(('one', self.report(old, by, 'found as it left the quarantine, at this %s' % call, True)))

    # --- the ops
    def allocate(self, op):
        a = op.args
        marker = op.marker()
        if op.name == 'calloc':
            n, align = a[1] * a[2], 16
        elif op.name in ALIGNED:
            n, align = a[2], max(a[1], 16)
        else:
            n, align = a[1], 16
        self.slots[a[0]] = Block(n, align, marker)
        self.blocks.append(self.slots[a[0]])
        self.tick(marker, op.name)

    def free(self, op):
        b = self.slots[op.args[0]]
        self.release(b, op.marker(), 'free')
        self.tick(op.marker(), 'free')

    def realloc(self, op):
        b = self.slots.get(op.args[0])        # (None: realloc(NULL, n), an allocation)
        self.slots[op.args[0]] = Block(op.args[1], 16, op.marker())
        self.blocks.append(self.slots[op.args[0]])
        if b:
            self.release(b, op.marker(), 'realloc')
        self.tick(op.marker(), 'realloc')

    def poke(self, op):
        slot, off, length, val = op.args
        b = self.slots[slot]
        for i in range(off, off + length):
            if b.state == 'live' and i < 0:
                b.front ^= {-i}
            elif b.state == 'live' and i >= b.n:
                old = b.back.get(i - b.n, GUARD_BYTE)
                b.back[i - b.n] = old ^ 0xFF if val == FLIP else val
            elif b.state == 'held' and 0 <= i < b.n:
                old = b.fill.get(i, FREED_FILL)
                b.fill[i] = old ^ 0xFF if val == FLIP else val

    def step(self, op):
        if op.name in ('malloc', 'calloc') + ALIGNED:
            self.allocate(op)
        elif op.name == 'free':
            self.free(op)
        elif op.name == 'realloc':
            self.realloc(op)
        elif op.name == 'poke':
            self.poke(op)
        elif op.name == 'check':
            self.whole_check(op.marker(), 'found by mtrace_check_heap')

    def fork(self):
        c = copy.copy(self)
        memo = {id(b): copy.deepcopy(b) for b in self.blocks if b.state in ('live', 'held')}
        c.blocks = list(memo.values())
        c.slots = {k: memo.get(id(b), b) for k, b in self.slots.items()}
        c.held = [memo[id(b)] for b in self.held]
        for b in c.blocks:
            b.inherited = True
        c.errors, c.child = 0, True
        return c

    def end(self):
        """The exit: every block checked, nothing stops; the summary line;
        the status (guide: 1 when a block was reported; a leak: 1 too)."""
        self.whole_check(None, 'found at exit', stop=False)
        if self.errors:
            self.say(('summary', '*** MTRACE: %d damaged block%s reported (MTRACE_CHECK=heap)'
                      % (self.errors, plural(self.errors))), stop=False)
        leaks = any(b.n for b in self.live_blocks() if not b.inherited)
        return 1 if self.errors or leaks else 0


def play(proc, tree, ended):
    """Plays spans' tree on model process proc: a thread's ops in line, a
    fork's on proc.fork(); each child that ends calls ended(child), one
    stopped by a report (Stopped) ended(None).  Shared with cxx.py."""
    for node in tree:
        if isinstance(node, tuple) and node[0] == 'fork':
            child = proc.fork()
            try:
                play(child, node[1], ended)
                ended(child)
            except Stopped:
                ended(None)
        elif isinstance(node, tuple):
            play(proc, node[1], ended)
        else:
            proc.step(node)


def spans(ops, lo, hi):
    """ops[lo:hi] as a list of (op) and ('fork', body) / ('thread', body)."""
    out, i = [], lo
    while i < hi:
        o = ops[i]
        if o.name in ('fork', 'thread'):
            close = 'wait' if o.name == 'fork' else 'join'
            depth, j = 1, i + 1
            while j < hi:
                if ops[j].name == o.name and o.name == 'fork':
                    depth += 1
                elif ops[j].name == close:
                    depth -= 1
                    if not depth:
                        break
                j += 1
            out.append((o.name, spans(ops, i + 1, j)))
            i = j + 1
        else:
            out.append(o)
            i += 1
    return out


def predict(ops, sites, where, env, mode):
    """[items], the children's ends ['exit S' / 'signal 6'], main's status
    and its count of reports (the JSON report's heap_errors)."""
    out, ends = [], []
    main = Process(sites, where, env, mode, out)
    try:
        play(main, spans(ops, 0, len(ops)), lambda c: ends.append('exit %d' % c.end() if c else 'signal 6'))
        status = main.end()
    except Stopped:
        status = model.ABORT_STATUS
    return out, ends, status, main.errors


# --- the generator ------------------------------------------------------------

class Generator:
    """A random script, written while a continue-mode model follows it (so
    that a write after free goes only into a block still held)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        r = self.rng
        self.env = {}
        q = r.random()
        if q < 0.45:
            self.env['quarantine'] = r.choice([0, 96, 100, 200, 256, 300, 512, 800, 1000, 2000, 4096])
        elif q < 0.6:
            self.env['quarantine'] = r.choice([64 << 10, 4 << 20])
        if r.random() < 0.45:
            self.env['every'] = r.choice([1, 2, 3, 4, 5, 7, 10])
        self.mode = 'continue' if r.random() < 0.6 else 'stop'
        self.sampled = r.random() < 0.2     # mostly blocks past 4096 bytes, held (their fill sampled)
        if self.sampled and self.env.get('quarantine', 256 << 10) < 64 << 10:
            del self.env['quarantine']
        self.ops = []
        self.proc = Process(SITES, 'driver.c', self.env, 'continue', [])
        self.depth = 0

    def emit(self, name, site=None, args=()):
        op = model.Op(name, site, args)
        self.ops.append(op)
        self.proc.step(op)

    def site(self):
        return self.rng.choice('abAB')

    def size(self):
        r = self.rng
        budget = self.env.get('quarantine', 0)
        if 64 <= budget <= 5000 and r.random() < 0.2:     # alone at the budget, or just over it
            return r.choice([budget - 32, budget - 31, budget - 39])
        if r.random() < (0.6 if self.sampled else 0.1):    # past 4096 bytes: a freed one's fill is sampled
            return r.choice([4097, 4103, 4104, 4105, 4607, 4608, 4616, 4617] + [r.randint(4097, 20000)] * 8)
        return r.choice([r.randint(1, 64), r.randint(1, 300), r.choice([8, 16, 24, 40, 1, 7, 9, 15, 17]),
                         r.randint(1000, 5000)])

    def live(self):
        return sorted(k for k, b in self.proc.slots.items() if b.state == 'live')

    def held(self):
        """The slots of blocks held, and of blocks kept (front damaged:
        never given back, so a write there is safe, and not looked at)."""
        return sorted(k for k, b in self.proc.slots.items() if b.state in ('held', 'kept') and b.n)

    def alloc(self):
        r = self.rng
        slot = r.randrange(NSLOTS)
        kind = r.choice(['malloc'] * 4 + ['calloc'] + list(ALIGNED))
        n = self.size()
        if slot not in self.proc.slots and r.random() < 0.3:
            self.emit('realloc', self.site(), (slot, n))     # realloc(NULL, n): the slot was never used
        elif kind == 'calloc':
            k = r.randint(1, 4)
            self.emit('calloc', self.site(), (slot, k, max(1, n // k)))
        elif kind in ALIGNED:
            self.emit(kind, self.site(), (slot, r.choice([8, 16, 32, 64, 128, 256, 4096]), n))
        else:
            self.emit('malloc', self.site(), (slot, n))

    def fault_live(self, slot):
        r = self.rng
        b = self.proc.slots[slot]
        back = back_len(b.n)
        what = r.random()
        if what < 0.5:                       # past the end
            k = r.choice([0, back - 1, r.randrange(back)])
            length = r.choice([1, back - k, r.randint(1, back - k)])
            val = r.choice([FLIP, FLIP, r.randrange(256), GUARD_BYTE])
            self.emit('poke', None, (slot, b.n + k, length, val))
        elif what < 0.8 and not b.front_off:  # before the start
            d = r.choice([1, FRONT, r.randint(1, FRONT)])
            length = r.choice([1, d, r.randint(1, d)])
            self.emit('poke', None, (slot, -d, length, FLIP))
            if r.random() < 0.15:            # undone: no fault left
                self.emit('poke', None, (slot, -d, length, FLIP))
        else:                                # inside: not a fault
            if b.n:
                off = r.randrange(b.n)
                self.emit('poke', None, (slot, off, r.randint(1, b.n - off), r.randrange(256)))

    def sampled_edge(self, n):
        """An offset at an edge of what is read of a held n-byte block
        (n > 4096): the whole part's end, a sampled word's first and last
        byte and the bytes either side, the last word's edges; or any
        offset past 4096 (most are between the words read)."""
        r = self.rng
        words = (n - FILL_READ + FILL_STRIDE - 1) // FILL_STRIDE      # sampled words starting in n
        k = 0 if words < 2 or r.random() < 0.3 else r.choice([1, r.randrange(1, words)])
        w = FILL_READ + FILL_STRIDE * k     # (past the first, a stride's error shows)
        edges = [FILL_READ - 1, FILL_READ, w, w - 1, w + WORD - 1, w + WORD, n - WORD, n - WORD - 1, n - 1]
        return r.choice([e for e in edges if 0 <= e < n] + [r.randrange(FILL_READ, n)] * 3)

    def fault_held(self, slot):
        r = self.rng
        b = self.proc.slots[slot]
        if b.n > FILL_READ and r.random() < 0.8:
            off = self.sampled_edge(b.n)
            lengths = [1, 1, 1, r.randint(1, min(16, b.n - off))]
            if not self.sampled:            # (to the end: always seen)
                lengths.append(b.n - off)
            length = r.choice(lengths)
            self.emit('poke', None, (slot, off, length, r.choice([FLIP, FLIP, r.randrange(256), FREED_FILL])))
            if self.sampled and r.random() < 0.7:      # looked at while it is the block's one write
                self.emit('check', self.site())
            return
        off = r.choice([0, b.n - 1, r.randrange(b.n)])
        length = r.choice([1, b.n - off, r.randint(1, b.n - off)])
        self.emit('poke', None, (slot, off, length, r.choice([FLIP, r.randrange(256), FREED_FILL])))

    def action(self, inside):
        r = self.rng
        live, held = self.live(), self.held()
        x = r.random()
        if x < 0.3 or not live:
            self.alloc()
        elif x < 0.5:
            self.emit('free', self.site(), (r.choice(live),))
        elif x < 0.58:
            s = r.choice(live)
            n = self.proc.slots[s].n
            self.emit('realloc', self.site(), (s, r.choice([max(1, n // 2), n + r.randint(1, 100), self.size()])))
        elif x < 0.78:
            self.fault_live(r.choice(live))
        elif x < 0.9 and held:
            big = [k for k in held if self.proc.slots[k].n > FILL_READ]     # (few: written more often)
            self.fault_held(r.choice(big if big and r.random() < 0.8 else held))
        elif x < 0.95:
            self.emit('check', self.site())
        elif not inside and x < 0.975:
            self.group('thread', 'join')
        elif not inside and self.depth < 2:
            self.group('fork', 'wait')

    def group(self, start, close):
        """A thread's or a child's ops; the model follows the parent's
        side only after a fork (the child's state is its own)."""
        saved = copy.deepcopy(self.proc) if start == 'fork' else None
        self.emit(start)
        self.depth += start == 'fork'
        for _ in range(self.rng.randint(1, 8)):
            self.action(inside=start == 'thread')
        self.depth -= start == 'fork'
        self.emit(close)
        if saved:
            self.proc = saved

    def script(self):
        long = self.rng.random() < 0.1      # two faults far apart: many calls between them
        for _ in range(self.rng.randint(80, 250) if long else self.rng.randint(5, 40)):
            self.action(inside=False)
        if self.rng.random() < 0.5:          # most blocks freed: their guards checked there
            for s in self.live():
                if self.rng.random() < 0.8:
                    self.emit('free', self.site(), (s,))
        return self.ops


def env_vars(env):
    out = {}
    q = env.get('quarantine')
    if q is not None:       # (64K and 4M as the guide writes them: K, M)
        out['MTRACE_QUARANTINE'] = '%dM' % (q >> 20) if q >= 1 << 20 else '%dK' % (q >> 10) if q >= 1 << 16 else str(q)
    if 'every' in env:
        out['MTRACE_CHECK_EVERY'] = str(env['every'])
    return out


def describe(seed, env, mode, level, build):
    return 'seed %d (%s use, level %d, %s%s)' % (seed, build, level, mode, ''.join(
        ', %s=%s' % kv for kv in sorted(env_vars(env).items())))


# --- comparing ----------------------------------------------------------------

HEAP_ERROR = re.compile(r': error: .*(written (past|before)|was written after it was freed)')


def actual_items(stderr):
    """The run's heap reports (an error line and its notes) and summary
    lines, in order ([pid N] tags dropped)."""
    lines, items, i = stderr.splitlines(), [], 0
    while i < len(lines):
        line = re.sub(r'^\[pid \d+\] ', '', lines[i])
        i += 1
        if HEAP_ERROR.search(line):
            report = [line]
            while i < len(lines) and ': note: ' in lines[i]:
                report.append(lines[i])
                i += 1
            items.append(('report', tuple(report)))
        elif 'damaged block' in line:
            items.append(('summary', line))
    return items


def compare(want, got):
    """The first difference, or None."""
    k = 0
    for item in want:
        kind = item[0]
        if kind == 'summary':
            if k >= len(got) or got[k] != ('summary', item[1]):
                return 'expected %r, got %r' % (item[1], got[k][1] if k < len(got) else 'nothing')
            k += 1
            continue
        group = [item[1]] if kind == 'one' else (item[1] if kind == 'set' else None)
        if kind == 'oneof':
            if k >= len(got) or got[k] not in [('report', r) for r in item[1]]:
                return 'expected one of:\n%s\ngot %s' % ('\n'.join('  ' + ' | '.join(r) for r in item[1]),
                                                       ' | '.join(got[k][1]) if k < len(got) else 'nothing')
            k += 1
            continue
        take = [g[1] for g in got[k:k + len(group)]]
        if sorted(map(str, take)) != sorted(map(str, group)):
            return 'expected:\n%s\ngot:\n%s' % ('\n'.join('  ' + ' | '.join(r) for r in group),
                                                '\n'.join('  ' + (' | '.join(r) if isinstance(r, tuple) else r)
                                                          for r in take) or '  nothing')
        k += len(group)
    if k < len(got):
        return 'unexpected: %s' % (' | '.join(got[k][1]) if got[k][0] == 'report' else got[k][1])
    return None


def check_seed(args):
    seed, bin_dir, work = args
    gen = Generator(seed)
    ops = gen.script()
    build = model.build_of(seed, os.environ.get('MODEL_BUILD'))
    level = 1 + seed % 3
    binary = model.binaries_for(bin_dir, build)[level]
    tag = 'f%d' % seed
    where = model.report_path(os.path.join(model.SOURCE_DIR, 'driver.c'), work)
    SAMPLED.clear()
    want, ends, status, main_errors = predict(ops, SITES, where, gen.env, gen.mode)
    sampled = dict(SAMPLED)
    run = model.run_driver(binary, ops, level, 'continue' if gen.mode == 'continue' else 'abort', work, tag,
                           opts={'env': env_vars(gen.env)})
    fails = []
    diff = compare(want, actual_items(run.stderr))
    if diff:
        fails.append(('reports', diff))
    got_ends = re.findall(r'^child \d+ of \d+: (.*)$', run.stdout, re.M)
    if got_ends != ends:
        fails.append(('children', 'expected %s, got %s' % (ends, got_ends)))
    if run.status != status:
        fails.append(('status', 'expected %s, got %s' % (status, run.status)))
    if run.report is not None and gen.mode == 'continue':
        got = re.search(r'"heap_errors": *(\d+)', run.report)
        if not got or int(got.group(1)) != main_errors:
            fails.append(('json', 'expected heap_errors %d, got %s' % (main_errors, got and got.group(1))))
    return seed, describe(seed, gen.env, gen.mode, level, build), fails, dict(tally(want, ops, gen), **sampled), \
        model.format_script(ops)


FOUND = (('left the quarantine', 'leaving the quarantine'), ('check every', 'every N calls'),
         ('mtrace_check_heap', 'by mtrace_check_heap'), ('found at exit', 'at exit'),
         ('at this free', 'at a free'), ('at this realloc', 'at a realloc'))
FORMS = (('before the start and', 'before and past'), ('before the start', 'before'), ('past the end', 'past'),
         ('freed, byte ', 'freed, 1 byte'), ('freed, bytes', 'freed, bytes'))


def tally(want, ops, gen):
    """What a seed's predicted reports cover, for the INFO line."""
    t = {'writes': sum(o.name == 'poke' for o in ops), 'stop-mode runs': int(gen.mode == 'stop'),
         'children': sum(o.name == 'fork' for o in ops), 'threads': sum(o.name == 'thread' for o in ops)}
    for item in want:
        reports = {'set': item[1], 'oneof': item[1][:1], 'one': [item[1]]}.get(item[0], [])
        for r in reports:       # (of one of them: the one that comes)
            t['reports'] = t.get('reports', 0) + 1
            for table in (FOUND, FORMS):
                name = next((name for key, name in table if key in r[0]), None)
                if name:
                    t[name] = t.get(name, 0) + 1
    return t


def cmd_check(opts):
    model.HEAP_CHECK = True         # run_driver: MTRACE_CHECK=heap
    args = [(s, opts.bin_dir, opts.work) for s in range(opts.first, opts.first + opts.seeds)]
    results = model.pool_map(opts.jobs, check_seed, args)
    groups = ('reports', 'children', 'status', 'json')   # (their titles: tests/modelfaults.sh)
    return model.report_seeds(results, groups, opts, 'faults', 'faults.py show SEED; tests/modelfaults.sh 1 SEED')


def cmd_show(opts):
    gen = Generator(opts.seed)
    ops = gen.script()
    sys.stdout.write(model.format_script(ops))
    print('# %s' % describe(opts.seed, gen.env, gen.mode, 1 + opts.seed % 3, model.build_of(opts.seed, None)))
    want, ends, status, _ = predict(ops, SITES, 'driver.c', gen.env, gen.mode)
    for item in want:
        print('# %s %s' % (item[0], item[1]))
    print('# children %s, status %s' % (ends, status))
    return 0


def main(argv):
    p, _ = model.model_cli('faults.py')
    opts = p.parse_args(argv)
    return cmd_check(opts) if opts.cmd == 'check' else cmd_show(opts)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
