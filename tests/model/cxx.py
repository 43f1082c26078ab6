#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/model/cxx.py - random C++ programs (scripts for
tests/model/driver.cpp, built with mtrace-c++ in the library use) and a
model of the documented contract of mismatched frees that predicts every
report they must give (issue 41).

The generator writes allocations of each family (malloc, calloc, realloc;
new and new[] of a trivial type P, a type D with a destructor and a type A
aligned to 64, plain and nothrow), frees with the right family in every
form (sized or unsized as the compiler emits them, aligned or not, the
operators called by name) and, in most seeds, faults: a block freed by
each wrong family, freed twice, realloc'ed after its free, or the pointer
of new D[]'s block (8 bytes in: the cookie) given to anything but
delete[] of D*; on another thread, in a forked child (its own blocks and
those it inherited), in stop and continue mode, under MTRACE_CHECK=heap
(one seed in four), with MTRACE_DEPTH (one in three).  One seed in four
is clean: every block freed by its own family, some in another form (an
unaligned delete of an aligned new, a sized delete of another size).
`memcheck` runs some of the scripts, built without mtrace, under
Memcheck: its bad-free errors must be the model's.

The model (class Process) reads only the documents, written out here:

  doc/guide.md "C++": a block freed by another family than the one that
    made it (delete of new[]'s or malloc's, delete[] of new's, free of
    new's or new[]'s) is reported as a double free is: "FILE:LINE: error:
    mismatched free: CALL of a block allocated by FAMILY (in FUNC)" at the
    free (CALL free, delete, delete[]; FAMILY malloc, new, new[]), then
    "FILE:LINE: note: the block was allocated here (in FUNC)"; the program
    stops (SIGABRT: 134); MTRACE_DOUBLE_FREE=continue reports it and frees
    the block all the same (not a leak, and a later free of it is a double
    free), the summary counts them ("*** MTRACE: N mismatched free(s)"),
    the exit status becomes 1.  The JSON report's mismatched_frees counts
    them (doc/report-json.md).  malloc's family is malloc, calloc and
    realloc's; realloc of new's or new[]'s block is a mismatch too
    ("mismatched free: realloc of a block allocated by new"), and
    continuing, the block is resized: its new block is malloc's.
  doc/limits.md "C++": an aligned new freed by an unaligned delete (and
    the other way), a sized delete of another size: not reported, the
    block freed.
  double frees, invalid frees (doc/guide.md, as tests/model/model.py has
    them): "double free of a block" with the allocation's note and "and
    first freed here"; "double free: realloc of a block already freed";
    "invalid CALL of an address K bytes into an N-byte block" with the
    allocation's note; each counted ("*** MTRACE: N double free(s)
    ignored", "... invalid free(s) ignored"), the call then does nothing.
    new D[n]'s pointer is 8 bytes into its block (the C++ ABI's array
    cookie, observed with g++ and clang++): delete, free, realloc or
    delete[] of another type given it are invalid frees 8 bytes into a
    (8 + 40n)-byte block, as Memcheck says ("8 bytes inside a block"), and
    the block stays live.  A free in a forked child of a block its parent
    freed is a double free (doc/processes.md).
  the exit report of each process (forked children too, their lines
    tagged, the tags dropped here): the leak errors "FILE:LINE: error: B
    bytes in K block(s) leaked here (in FUNC)", one per allocation line,
    largest first (ties in no documented order: compared as a set, the
    order checked), "*** MTRACE: B bytes in K blocks leaked, in R records"
    when R > 1; a child's inherited blocks are never its leaks; then (order
    observed) the invalid-free, mismatched-free and double-free counts, and
    "*** MTRACE: No memory leaks" at levels 1-2 when there was no leak, no
    double and no invalid free (observed: a mismatch is freed, so it
    prints); the status 1 after any report or leak, else 0; a clean
    program runs clean: no error, no note, status 0.
  names: FILE is driver.cpp as the exit report writes it (its absolute
    path: the runs are made elsewhere), FUNC the function demangled with
    its parameters' types (`do_delete_P(int, void*)`), as addr2line says.
  call stacks (MTRACE_DEPTH=N; doc/guide.md "Call stacks"): under each
    place of a report (the bad call, the allocation, the first free) and
    under each leak record, "FILE:LINE: note: called from FUNC", N - 1 of
    them, up to main (driver.cpp's CALL lines: make, perform, run, one
    run more per fork, main); a leak record per place and callers.  The
    callers of a thread end in the C library: no thread with stacks.
  the heap check (MTRACE_CHECK=heap) changes none of this: no byte is
    written out of bounds here, so no heap report.

Memcheck (3.19) agrees, realloc of new's block included, but prints an
error once for each call stack: `memcheck` takes that into account.

Usage: cxx.py check --seeds N --first F --bin-dir DIR --work DIR [--jobs J] [--keep DIR]
           (tests/modelcxx.sh builds driver-cxx-COMPILER-LEVEL into DIR)
       cxx.py memcheck --seeds N --first F --driver PLAIN --work DIR [--keep DIR]
       cxx.py show SEED (the script and its prediction)"""
import copy
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model  # noqa: E402  (its sites, scripts and runner)
from faults import Stopped, play, spans  # noqa: E402  (a report's stop; the brackets of fork/wait and
                                        # thread/join, played as faults.py plays them)

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'driver.cpp')
NSLOTS = 24
TYPES = {'P': 24, 'D': 40, 'A': 64}     # driver.cpp: sizeof each
COOKIE = 8                              # new D[n]: the count before the elements
MAKING = {'malloc': 'malloc', 'calloc': 'malloc', 'realloc': 'malloc', 'new': 'new', 'new_nothrow': 'new',
          'new_array': 'new[]', 'new_array_nothrow': 'new[]'}
FREEING = {'free': 'malloc', 'delete': 'new', 'operator_delete': 'new', 'delete_array': 'new[]',
           'operator_delete_array': 'new[]'}
CALL_NAME = {'malloc': 'free', 'new': 'delete', 'new[]': 'delete[]'}    # the family's freeing call
COMPILERS = ('g++', 'clang++')


def cxx_sites(path):
    """model.read_sites, each function named as the report names a C++
    function: with its parameters' types (`do_new_array_D(int, unsigned
    long)`), read from its definition line."""
    sites = model.read_sites(path, 'driver.cpp')
    shown = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'static NOINLINE [\w\s*]*?\b(\w+)\((.*)\)$', line.rstrip())
            if m:
                params = [re.sub(r'\s*\*\s*', '*', re.sub(r'\s*\w+$', '', p.strip())) for p in m.group(2).split(',')]
                params = [re.sub(r'^const (?:struct )?(\w+)\*$', r'\1 const*', p) for p in params]
                shown[m.group(1)] = '%s(%s)' % (m.group(1), ', '.join(params))
    return {k: (shown.get(func, func), file, line) for k, (func, file, line) in sites.items()}


SITES = cxx_sites(DRIVER)


def marker(op):
    """The SITE marker of an op's call: NAME_[TYPE_]SITE."""
    typed = op.name not in ('malloc', 'calloc', 'realloc', 'free', 'operator_delete', 'operator_delete_array')
    return '%s_%s%s' % (op.name, op.args[1] + '_' if typed else '', op.site)


def plural(k):
    return '' if k == 1 else 's'


class Block:
    def __init__(self, family, size, cookie, alloc):
        self.family, self.size, self.cookie, self.alloc = family, size, cookie, alloc
        self.freed_by = None
        self.alloc_frames = self.freed_frames = ()
        self.inherited = False


class Process:
    """One process of a run: its slots, counts, and the items it must
    write, in order, into `out` (shared by the run's processes: a parent
    waits for its child)."""

    def __init__(self, where, mode, level, out, stacks=0):
        self.where, self.mode, self.level, self.out = where, mode, level, out
        self.stacks, self.forks = stacks, 0     # MTRACE_DEPTH (0: none); how many forks deep
        self.frames = ()                        # the callers of the op under way
        self.slots, self.blocks = {}, []
        self.counts = {'mismatched': 0, 'double': 0, 'invalid': 0}

    def place(self, mark, kind, text, frames=()):
        """A place's line, then its callers' (guide, "Call stacks": N - 1
        of them, up to main)."""
        func, _, line = SITES[mark]
        return ['%s:%d: %s: %s (in %s)' % (self.where, line, kind, text, func)] + [
            '%s:%d: note: called from %s' % (self.where, SITES[c][2], SITES[c][0]) for c in frames]

    def callers(self, op):
        """The CALL markers of op's callers, innermost first, as the
        stack shows them (MTRACE_DEPTH - 1 of them), or () without stacks."""
        if not self.stacks:
            return ()
        chain = []
        if op.name.startswith('new'):
            chain.append('CALL make_%s_%s' % (op.name, op.args[1]))
            chain.append('CALL perform_new_array' if 'array' in op.name else 'CALL perform_new')
        elif op.name in ('delete', 'delete_array'):
            chain.append('CALL perform_%s_%s' % (op.name, op.args[1]))
        else:
            chain.append('CALL perform_' + op.name)
        chain += ['CALL run_perform'] + ['CALL run_child'] * self.forks + ['CALL main_run']
        return tuple(chain[:self.stacks - 1])

    def report(self, count, at, text, b, first_freed=False):
        lines = self.place(at, 'error', text, self.frames)
        lines += self.place(b.alloc, 'note', 'the block was allocated here', b.alloc_frames)
        if first_freed:
            lines += self.place(b.freed_by, 'note', 'and first freed here', b.freed_frames)
        self.counts[count] += 1
        self.out.extend(('line', x) for x in lines)
        if self.mode == 'stop':
            raise Stopped()

    def make(self, slot, family, size, cookie, at):
        b = Block(family, size, cookie, at)
        b.alloc_frames = self.frames
        self.slots[slot] = b
        self.blocks.append(b)

    def give(self, op):
        """A free-like op: which family frees, at which offset from the block's start."""
        b = self.slots[op.args[0]]
        call = CALL_NAME[FREEING[op.name]]
        off = b.cookie - (COOKIE if op.name == 'delete_array' and op.args[1] == 'D' else 0)
        at = marker(op)
        if off:         # (the generator gives only a live block's cookie'd pointer)
            self.report('invalid', at, 'invalid %s of an address %d bytes into a %d-byte block'
                        % (call, off, b.size), b)
        elif b.freed_by:
            self.report('double', at, 'double free of a block', b, first_freed=True)
        else:
            if b.family != FREEING[op.name]:
                self.report('mismatched', at, 'mismatched free: %s of a block allocated by %s' % (call, b.family), b)
            b.freed_by, b.freed_frames = at, self.frames

    def realloc(self, op):
        b, at = self.slots[op.args[0]], marker(op)
        if b.cookie:
            self.report('invalid', at, 'invalid realloc of an address %d bytes into a %d-byte block'
                        % (b.cookie, b.size), b)
        elif b.freed_by:
            self.report('double', at, 'double free: realloc of a block already freed', b, first_freed=True)
        else:
            if b.family != 'malloc':
                self.report('mismatched', at, 'mismatched free: realloc of a block allocated by %s' % b.family, b)
            b.freed_by, b.freed_frames = at, self.frames
            self.make(op.args[0], 'malloc', op.args[1], 0, at)

    def step(self, op):
        a = op.args
        self.frames = self.callers(op)
        if op.name == 'malloc':
            self.make(a[0], 'malloc', a[1], 0, marker(op))
        elif op.name == 'calloc':
            self.make(a[0], 'malloc', a[1] * a[2], 0, marker(op))
        elif op.name in ('new', 'new_nothrow'):
            self.make(a[0], 'new', TYPES[a[1]], 0, marker(op))
        elif op.name in ('new_array', 'new_array_nothrow'):
            cookie = COOKIE if a[1] == 'D' else 0
            self.make(a[0], 'new[]', TYPES[a[1]] * a[2] + cookie, cookie, marker(op))
        elif op.name == 'realloc':
            self.realloc(op)
        elif op.name in FREEING:
            self.give(op)

    def fork(self):
        c = copy.copy(self)
        memo = {id(b): copy.deepcopy(b) for b in self.blocks}
        c.blocks = list(memo.values())
        c.slots = {k: memo[id(b)] for k, b in self.slots.items()}
        for b in c.blocks:
            b.inherited = True
        c.counts = {k: 0 for k in self.counts}
        c.forks = self.forks + 1
        return c

    def leaks(self):
        """{(alloc marker, its callers): [bytes, blocks]} of the live blocks
        not inherited (with stacks, a record per place and callers)."""
        per = {}
        for b in self.blocks:
            if not b.freed_by and not b.inherited:
                r = per.setdefault((b.alloc, b.alloc_frames), [0, 0])
                r[0] += b.size
                r[1] += 1
        return per

    def end(self):
        """The exit report's lines and the status."""
        per = self.leaks()
        records = sorted((tuple(self.place(m, 'error', '%d bytes in %d block%s leaked here' % (n, k, plural(k)), f)),
                          n, k) for (m, f), (n, k) in per.items())
        if records:
            self.out.append(('leaks', records))
        if len(records) > 1:
            self.out.append(('line', '*** MTRACE: %d bytes in %d blocks leaked, in %d records'
                             % (sum(r[1] for r in records), sum(r[2] for r in records), len(records))))
        c = self.counts
        if c['invalid']:
            self.out.append(('line', '*** MTRACE: %d invalid free%s ignored' % (c['invalid'], plural(c['invalid']))))
        if c['mismatched']:
            self.out.append(('line', '*** MTRACE: %d mismatched free%s' % (c['mismatched'], plural(c['mismatched']))))
        if c['double']:
            self.out.append(('line', '*** MTRACE: %d double free%s ignored' % (c['double'], plural(c['double']))))
        elif not records and not c['invalid'] and self.level <= 2:
            self.out.append(('line', '*** MTRACE: No memory leaks'))
        return 1 if records or any(c.values()) else 0

    def json(self, status):
        per = self.leaks()
        return {'mismatched_frees': self.counts['mismatched'], 'double_frees': self.counts['double'],
                'invalid_frees': self.counts['invalid'], 'leaked_bytes': sum(r[0] for r in per.values()),
                'leaked_blocks': sum(r[1] for r in per.values()), 'exit_status': status}


def predict(ops, where, mode, level, stacks=0):
    """The items every process writes, in order; the children's ends
    ('exit S' / 'signal 6') and JSON figures (None when stopped), in the
    order they end; main's status and JSON figures."""
    out, children = [], []

    def ended(child):
        if child is None:
            children.append(('signal 6', None))
            return
        status = child.end()
        children.append(('exit %d' % status, child.json(status)))
    main = Process(where, mode, level, out, stacks)
    try:
        play(main, spans(ops, 0, len(ops)), ended)
        status = main.end()
        report = main.json(status)
    except Stopped:
        status, report = model.ABORT_STATUS, None
    return out, children, status, report


# --- the generator ------------------------------------------------------------

class Generator:
    """A random script, written while a continue-mode model follows it: a
    double free is written only for a block freed since the last
    allocation (and thread: its start may allocate), so that the C library
    cannot have handed its address out again (driver.cpp's guard checks)."""

    def __init__(self, seed):
        r = self.rng = random.Random(seed)
        self.mode = 'stop' if r.random() < 0.35 else 'continue'
        self.clean = r.random() < 0.25
        self.checked = r.random() < 0.25    # MTRACE_CHECK=heap: every block guarded, freed ones held
        # MTRACE_DEPTH in one seed in three, without threads (their callers end in the C library)
        self.stacks = r.choice([2, 3, 4, 6, 16]) if r.random() < 0.33 else 0
        self.ops = []
        self.proc = Process('driver.cpp', 'continue', 1, [])
        self.last_alloc = -1
        self.depth = 0

    def emit(self, name, site=None, args=()):
        op = model.Op(name, site, args)
        b = self.proc.slots.get(args[0]) if args else None
        was = b.freed_by if b else None
        self.ops.append(op)
        self.proc.step(op)
        if b and not was and b.freed_by:
            b.freed_at = len(self.ops)
        if name in MAKING or name == 'thread':
            self.last_alloc = len(self.ops)

    def site(self):
        return self.rng.choice('ab')

    def slots(self, test):
        return sorted(k for k, b in self.proc.slots.items() if test(b))

    def alloc(self):
        r = self.rng
        slot, t = r.randrange(NSLOTS), r.choice('PDA')
        if self.clean:      # (a clean program loses no block: a slot whose block is live is not reused)
            free = [k for k in range(NSLOTS) if k not in self.proc.slots or self.proc.slots[k].freed_by]
            slot = r.choice(free) if free else None
            if slot is None:
                return
        kind = r.choice(['malloc', 'calloc', 'new', 'new_nothrow', 'new_array', 'new_array_nothrow'] + ['new'] * 2)
        if kind == 'malloc':
            self.emit('malloc', self.site(), (slot, r.choice([r.randint(1, 200), 8, 24, 40, 64])))
        elif kind == 'calloc':
            self.emit('calloc', self.site(), (slot, r.randint(1, 4), r.randint(1, 50)))
        elif kind.startswith('new_array'):
            self.emit(kind, self.site(), (slot, t, r.randint(1, 5)))
        else:
            self.emit(kind, self.site(), (slot, t))

    def right_free(self, slot):
        """slot's live block freed by its own family, in any form that fits."""
        r, b = self.rng, self.proc.slots[slot]
        if b.family == 'malloc':
            self.emit('free', self.site(), (slot,))
        elif b.cookie:
            self.emit('delete_array', self.site(), (slot, 'D'))
        elif b.family == 'new':
            if r.random() < 0.2:
                self.emit('operator_delete', self.site(), (slot,))
            else:
                self.emit('delete', self.site(), (slot, r.choice('PDA')))
        elif r.random() < 0.2:
            self.emit('operator_delete_array', self.site(), (slot,))
        else:
            self.emit('delete_array', self.site(), (slot, r.choice('PA')))

    def any_free(self, slot, family=None):
        """A free-like op on slot of any family but `family` (never delete[]
        of D*: it reads a cookie only new D[] wrote)."""
        choices = [('free', ()), ('operator_delete', ()), ('operator_delete_array', ())]
        choices += [('delete', (t,)) for t in 'PDA'] + [('delete_array', (t,)) for t in 'PA']
        name, extra = self.rng.choice([c for c in choices if FREEING[c[0]] != family])
        self.emit(name, self.site(), (slot,) + extra)

    def fault(self):
        r = self.rng
        live = self.slots(lambda b: not b.freed_by)
        plain = [k for k in live if not self.proc.slots[k].cookie]
        cookied = [k for k in live if self.proc.slots[k].cookie]
        twice = self.slots(lambda b: b.freed_by and not b.cookie and b.freed_at > self.last_alloc)
        x = r.random()
        if x < 0.5 and plain:                   # another family (realloc of new's block too)
            k = r.choice(plain)
            if self.proc.slots[k].family != 'malloc' and r.random() < 0.2:
                self.emit('realloc', self.site(), (k, r.randint(1, 300)))
            else:
                self.any_free(k, self.proc.slots[k].family)
        elif x < 0.65 and cookied:              # new D[]'s pointer, 8 bytes in
            k = r.choice(cookied)
            if r.random() < 0.15:
                self.emit('realloc', self.site(), (k, r.randint(1, 100)))
            else:
                self.any_free(k)
        elif twice:                             # twice
            k = r.choice(twice)
            if r.random() < 0.15:
                self.emit('realloc', self.site(), (k, r.randint(1, 100)))
            else:
                self.any_free(k)
        elif plain:
            k = r.choice(plain)
            self.any_free(k, self.proc.slots[k].family)

    def action(self, inside):
        r = self.rng
        live = self.slots(lambda b: not b.freed_by)
        x = r.random()
        if x < 0.35 or not live:
            self.alloc()
        elif x < 0.62:
            self.right_free(r.choice(live))
        elif x < 0.7:
            plain = [k for k in live if not self.proc.slots[k].cookie
                     and (self.proc.slots[k].family == 'malloc' or not self.clean)]
            if plain:       # (of new's block, not in a clean program: a mismatch)
                self.emit('realloc', self.site(), (r.choice(plain), r.randint(1, 300)))
        elif x < 0.9 and not self.clean:
            self.fault()
        elif x < 0.95 and not inside:
            if not self.stacks:
                self.group('thread', 'join')
        elif not inside and self.depth < 2:
            self.group('fork', 'wait')

    def tidy(self, share):
        """Frees `share` of the process's own live blocks, each by its family."""
        for k in self.slots(lambda b: not b.freed_by and not b.inherited):
            if self.rng.random() < share:
                self.right_free(k)

    def group(self, start, close):
        saved = self.proc if start == 'fork' else None
        self.emit(start)
        if saved:
            self.proc = saved.fork()
            self.depth += 1
        for _ in range(self.rng.randint(1, 8)):
            self.action(inside=start == 'thread')
        if saved and self.clean:
            self.tidy(1)
        self.emit(close)
        if saved:
            self.proc = saved
            self.depth -= 1

    def script(self):
        for _ in range(self.rng.randint(5, 40)):
            self.action(inside=False)
        self.tidy(1 if self.clean else self.rng.choice([0, 0.6, 0.9, 1]))
        return self.ops


# --- comparing ----------------------------------------------------------------

RELEVANT = re.compile(r': (error|note): |^\*\*\* MTRACE: (\d+ bytes in \d+ blocks leaked'
                      r'|\d+ (invalid|mismatched|double) free|No memory leaks)')


def actual_lines(stderr):
    """The run's reports, leak errors and counts, in order, the tags of a
    process that forked dropped."""
    out = []
    for line in stderr.splitlines():
        line = re.sub(r' \(pid \d+\)$', '', re.sub(r'^\[pid \d+\] ', '', line))
        if RELEVANT.search(line):
            out.append(line)
    return out


def compare(want, got):
    """The first difference, or None."""
    k = 0
    for kind, item in want:
        if kind == 'line':
            if k >= len(got) or got[k] != item:
                return 'expected %r, got %r' % (item, got[k] if k < len(got) else 'nothing')
            k += 1
            continue
        take, j = [], k
        for _ in item:          # (a record: its line and its callers' notes)
            if j < len(got):
                rec, j = [got[j]], j + 1
                while j < len(got) and ': note: called from ' in got[j]:
                    rec, j = rec + [got[j]], j + 1
                take.append(tuple(rec))
        if sorted(take) != sorted(r[0] for r in item):
            return 'expected the leaks:\n%s\ngot:\n%s' % ('\n'.join('  ' + ' | '.join(r[0]) for r in item),
                                                        '\n'.join('  ' + ' | '.join(t) for t in take) or '  nothing')
        size = {r[0]: (r[1], r[2]) for r in item}
        if [size[t] for t in take] != sorted((size[t] for t in take), reverse=True):
            return 'the leaks not largest first:\n%s' % '\n'.join('  ' + t[0] for t in take)
        k = j
    if k < len(got):
        return 'unexpected: %s' % got[k]
    return None


def compare_json(want, text, who):
    try:
        got = json.loads(text)
    except (TypeError, ValueError):
        return '%s: no JSON report, or not JSON' % who
    diff = ['%s %s, got %s' % (k, v, got.get(k)) for k, v in want.items() if got.get(k) != v]
    return '%s: expected %s' % (who, '; '.join(diff)) if diff else None


def describe(seed, compiler, level, gen):
    return 'seed %d (%s, level %d, %s%s%s%s)' % (seed, compiler, level, gen.mode, ', clean' if gen.clean else '',
                                               ', MTRACE_CHECK=heap' if gen.checked else '',
                                               ', MTRACE_DEPTH=%d' % gen.stacks if gen.stacks else '')


def env_of(gen):
    env = {'MTRACE_LEAK_RECORDS': '0'}      # (every leak record printed)
    if gen.checked:
        env['MTRACE_CHECK'] = 'heap'
    if gen.stacks:
        env['MTRACE_DEPTH'] = str(gen.stacks)
    return env


def choice_of(seed):
    """The compiler and level of a seed: each of the six in turn."""
    return COMPILERS[seed % 2], 1 + (seed // 2) % 3


def check_seed(args):
    seed, bin_dir, work = args
    gen = Generator(seed)
    ops = gen.script()
    compiler, level = choice_of(seed)
    binary = os.path.join(bin_dir, 'driver-cxx-%s-%d' % (compiler, level))
    where = model.report_path(DRIVER, work)
    want, children, status, report = predict(ops, where, gen.mode, level, gen.stacks)
    run = model.run_driver(binary, ops, level, 'continue' if gen.mode == 'continue' else 'abort', work,
                           'x%d' % seed, opts={'env': env_of(gen)})
    fails = []
    if run.status == 77:
        fails.append(('guard', 'the driver says a double free was not one:\n' + run.stderr[-400:]))
    diff = compare(want, actual_lines(run.stderr))
    if diff:
        fails.append(('reports', diff))
    said = [line for line in run.stderr.splitlines() if ': error: ' in line or ': note: ' in line]
    if gen.clean and (status != 0 or run.status != 0 or said):
        fails.append(('clean', 'a clean program: status %s, stderr:\n%s' % (run.status, run.stderr[-600:])))
    ends = re.findall(r'^child (\d+) of \d+: (.*)$', run.stdout, re.M)
    if [e for _, e in ends] != [c[0] for c in children]:
        fails.append(('children', 'expected %s, got %s' % ([c[0] for c in children], [e for _, e in ends])))
    if run.status != status:
        fails.append(('status', 'expected %s, got %s' % (status, run.status)))
    jsons = [(report, run.report, 'main')] if report else []
    jsons += [(c[1], run.files.get('x%d.json.%s' % (seed, pid)), 'child %s' % pid)
              for (pid, _), c in zip(ends, children) if c[1]]
    for w, text, who in jsons:
        diff = compare_json(w, text, who)
        if diff:
            fails.append(('json', diff))
            break
    counts = {'reports': sum(1 for kind, x in want if kind == 'line' and ': error: ' in x)}
    for kind, x in want:
        for key in ('mismatched free', 'double free', 'invalid'):
            if kind == 'line' and ': error: ' in x and key in x:
                counts[key] = counts.get(key, 0) + 1
    counts.update({'clean runs': int(gen.clean), 'stop-mode runs': int(gen.mode == 'stop'),
                   'checked runs': int(gen.checked),
                   'runs with stacks': int(bool(gen.stacks)),
                   'children': len(children), 'threads': sum(o.name == 'thread' for o in ops)})
    return seed, describe(seed, compiler, level, gen), fails, counts, model.format_script(ops)


GROUPS = ('reports', 'clean', 'children', 'status', 'json', 'guard')     # (their titles: tests/modelcxx.sh)


# --- Memcheck's view of the same programs -----------------------------------

def memcheck_errors(stderr):
    """Memcheck's bad-free errors as (kind, the free's line, the
    allocation's line): "mismatched" for its "Mismatched free() / delete /
    delete []", "invalid" for "Invalid free() / delete / delete[] /
    realloc()" (a double free's first free skipped)."""
    out, cur, want = [], None, None
    for line in stderr.splitlines():
        body = re.sub(r'^==\d+== ?', '', line)
        if body.startswith('Mismatched free() / delete / delete []') or body.startswith('Invalid free() /'):
            cur, want = ['mismatched' if body.startswith('Mismatched') else 'invalid', None, None], 1
            out.append(cur)
        elif cur and "alloc'd" in body:
            want = 2
        elif cur and "free'd" in body:
            want = None
        elif cur and want and re.search(r'\(driver\.cpp:\d+\)', body):
            cur[want] = int(re.search(r'\(driver\.cpp:(\d+)\)', body).group(1))
            want = None         # (the first of the stack's lines: the call's own)
    return [tuple(x) for x in out]


def model_errors(want):
    """The model's bad-free reports as memcheck_errors has Memcheck's: a
    mismatch is Memcheck's mismatch, a double or invalid free its invalid
    free."""
    lines = [x for kind, x in want if kind == 'line']
    out = []
    for i, x in enumerate(lines):
        m = re.match(r'driver\.cpp:(\d+): error: (.*) \(in ', x)
        if m:
            alloc = int(re.match(r'driver\.cpp:(\d+):', lines[i + 1]).group(1))
            out.append(('mismatched' if m.group(2).startswith('mismatched') else 'invalid', int(m.group(1)), alloc))
    return out


def first_of_each(errors):
    """Memcheck prints an error once for each kind and call stack (its
    first 4 frames: the operator, the driver's do_ function, perform, run:
    one stack a line of the driver): the first of each (kind, free line)."""
    seen, out = set(), []
    for e in errors:
        if e[:2] not in seen:
            seen.add(e[:2])
            out.append(e)
    return out


def cmd_memcheck(opts):
    """The first --seeds seeds from --first that fork no child and are not
    clean, their scripts run by the plain driver (no mtrace) under
    Memcheck: the same bad frees in the same order as the model's (in
    continue mode), realloc of new's block included."""
    seed, done, compared = opts.first, 0, 0
    while done < opts.seeds:
        gen = Generator(seed)
        ops = gen.script()
        seed += 1
        if gen.clean or any(o.name == 'fork' for o in ops):
            continue
        done += 1
        want = first_of_each(model_errors(predict(ops, 'driver.cpp', 'continue', 1)[0]))
        path = os.path.join(opts.work, 'vg%d.script' % (seed - 1))
        with open(path, 'w') as f:
            f.write(model.format_script(ops))
        run = subprocess.run(['valgrind', '-q', '--error-limit=no', opts.driver, path], cwd=opts.work,
                             capture_output=True, text=True, errors='replace', timeout=300)
        got = first_of_each(memcheck_errors(run.stderr))
        compared += len(want)
        if got != want:
            print('FAIL memcheck first at seed %d' % (seed - 1))
            print('INFO   the model (kind, free line, allocation line): %s' % want)
            print('INFO   Memcheck: %s' % got)
            path = os.path.join(opts.keep or opts.work, 'cxx-%d.script' % (seed - 1))
            with open(path, 'w') as f:
                f.write(model.format_script(ops))
            print('INFO   script: %s' % path)
            return 1
    print('PASS memcheck (%d seeds, %d bad frees)' % (done, compared))
    return 0


def cmd_check(opts):
    args = [(s, opts.bin_dir, opts.work) for s in range(opts.first, opts.first + opts.seeds)]
    results = model.pool_map(opts.jobs, check_seed, args)
    return model.report_seeds(results, GROUPS, opts, 'cxx', 'cxx.py show SEED; tests/modelcxx.sh 1 SEED')


def cmd_show(opts):
    gen = Generator(opts.seed)
    ops = gen.script()
    compiler, level = choice_of(opts.seed)
    sys.stdout.write(model.format_script(ops))
    print('# %s' % describe(opts.seed, compiler, level, gen))
    want, children, status, report = predict(ops, 'driver.cpp', gen.mode, level, gen.stacks)
    for kind, item in want:
        print('# %s' % (item if kind == 'line' else 'leaks (any order of equal sizes): '
                        + ' || '.join(' | '.join(r[0]) for r in item)))
    print('# children %s, status %s, JSON %s' % ([c[0] for c in children], status, report))
    return 0


def main(argv):
    p, sub = model.model_cli('cxx.py')
    v = sub.add_parser('memcheck')
    v.add_argument('--seeds', type=int, default=8)
    v.add_argument('--first', type=int, default=1)
    v.add_argument('--driver', required=True)
    v.add_argument('--work', required=True)
    v.add_argument('--keep')
    opts = p.parse_args(argv)
    return {'check': cmd_check, 'memcheck': cmd_memcheck, 'show': cmd_show}[opts.cmd](opts)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
