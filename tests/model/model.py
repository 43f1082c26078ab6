#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/model/model.py - a reference model of mtrace's documented contract,
and random programs checked against it (issue 22, item 3).

The program under test is tests/model/driver.c, which performs an operation
script (its header comment gives the syntax).  This file

  * generates random scripts from a seed (`generate`);
  * predicts, from README.md and doc/ alone (not from the runtime's source),
    what a traced run of a script must give at a level (`Model`): the exit
    status, stdout, every line of stderr (the bad-free reports at the bad
    call; at exit the summary, the per-site "max bytes" rows, the leak
    errors, the counts of ignored bad frees), the JSON report's figures and,
    at level 1, the trace's records;
  * runs the driver and compares (`check_run`), replaying the trace on its
    own as well (every TOTAL, SITE and RECNO consistent);
  * shrinks a failing script to a minimal one (`shrink`).

Where the documents are silent the rule below says "observed": it was found
by running small programs against the tracer of commit d430840, and is
written down so that a change of it is seen.  The rules, in one place:

  sizes (doc/trace-format.md, "TOTAL: live traced bytes (as requested)"):
    calloc(n, s) counts n*s; strdup(s) strlen+1; strndup(s, n) min(strlen,
    n)+1 (tests/tracer/edges.c); aligned_alloc, posix_memalign, memalign,
    valloc count the size asked for; pvalloc(n) counts n, not n rounded up
    to a page (observed); malloc(0), calloc(0, s), realloc(NULL, 0) and
    reallocarray(NULL, 0, s) make a 0-byte block (observed).
  records (doc/trace-format.md's table): realloc(p, 0) and reallocarray(p,
    0, s) free: `<` only (the second observed); realloc(NULL, n) is `>`,
    reallocarray(NULL, n, s) is `+`; a failing call writes nothing.
  order (doc/guide.md: "largest first"): summary rows, JSON sites and leak
    errors are sorted by bytes, largest first; the documents do not order
    equal figures, and the tracer's order of them is its own (observed:
    mostly the sites' IDs in the trace, but a site whose first call was a
    bad realloc comes earlier), so the model takes the program's order among
    equal figures (Accounts.ranked), and checks the rest.
  the summary (observed): no table at all when no site allocated; a site
    whose peak is 0 has its row; after 20 rows "       ...   (N more
    sites)", plural even for 1.
  peaks (doc/report-json.md): the peak record is the first record that
    reaches the peak (observed), bytes_at_peak are the sites' bytes after it;
    with no record, peak_record is 0 (observed).
  leaks (observed): a site whose live blocks are all 0-byte blocks has no
    leak error, does not change the exit status, and its blocks are not in
    leaked_blocks (they are in the site's live_blocks); at a site that leaks
    bytes, its 0-byte blocks count in leaked_blocks too.
  bad frees, continue mode (doc/guide.md, doc/limits.md, doc/report-json.md):
    the report at the call (the lines of issue 22's brief, as doc/guide.md
    and tests/tracer/badfree.expected have them since ee9ad4a); the call
    does nothing (a realloc returns NULL, observed); at exit, after the leak
    errors, "*** MTRACE: N invalid free(s) ignored" then "*** MTRACE: N
    double free(s) ignored" (order observed), at every level (observed),
    and then no "No memory leaks" line (observed); the JSON's double_frees
    and invalid_frees count them.  A free inside an mmap'ed page, not of
    the page, is not defined (doc/limits.md: "in the middle of a mapping").
    Nothing is forgotten (freed_forgotten 0): the model's scripts free fewer
    blocks than MTRACE_FREED_MAX.
  bad frees, abort mode (guide, mtrace(7)): the report, then SIGABRT
    (status 134); no exit report and no JSON file (doc/report-json.md: "a
    program ended by ... a signal writes none"); the trace is complete up to
    the call, with its tail (doc/trace-format.md).
  a trace with no record is not created (doc/trace-format.md) and the
    JSON's `trace` is then null even at level 1 (observed).
  fork (doc/processes.md "fork", doc/guide.md, doc/limits.md, doc/design.md):
    the child writes its own trace NAME.PID and report (doc/report-json.md:
    MTRACE_REPORT's `.PID`), a grandchild NAME.PID too (its own pid: it is
    a forked child of a process whose MTRACE is NAME); its totals, peaks,
    counts and temporaries start at 0; the blocks it inherited are never its
    leaks, freeing or realloc'ing one once writes no record (realloc gives
    it a block of its own, recorded as realloc(NULL, n) is: observed);
    freeing in a child a block its parent (or an older generation) freed,
    an inherited block twice, or realloc'ing a block freed before the fork
    is a double free with the three places, in abort or continue mode, its
    status 1 when it continues; a free inside an inherited block is named
    as one with its parent's place.  Once a process forked (a child from
    the start) its summary lines begin `[pid N] ` and its leak errors end
    ` (pid N)`; the bad-free reports at the call are not tagged, nor the
    callers under a leak error (observed).  The model writes the pids
    <P0> (the program), <P1>, ... in the order the processes start; a run's
    pids are named after the driver's `child PID of PPID` lines (bind_pids).
    More than 8 generations of fork are not defined (doc/limits.md).
  call stacks (MTRACE_DEPTH=N; doc/guide.md "Call stacks",
    doc/report-json.md): under each place of a bad-free report (the bad
    call, the allocation, the first free) and under each leak error, its
    callers `file:line: note: called from f`, up to main, N - 1 of them;
    none under a place in main; the file as addr2line names it, driver.c's
    absolute path (the runs are made elsewhere); leak records per place and
    callers, 10 printed; the JSON's leak `callers` alike.  The trace gets
    `#depth N` after #cmd and a seventh field, a stack of the record's site.
    A thread's callers end in the C library (start_thread), not predicted:
    the runs with stacks are made of the script without its threads.

  options (issue 37; a run's options are chosen by run_options from the
    script's checksum and the run, so that a script is seen with and
    without each; `--script` takes them as flags):
    suppressions (MTRACE_SUPPRESS; doc/mtrace.7, doc/guide.md "mtrace
      in CI", doc/limits.md): fun:GLOB, src:GLOB, src:GLOB:LINE, # comments,
      blank lines; a record's place (its function, its file as the report
      writes it or the file's last component, its line) is suppressed whole
      by the first pattern that matches it, reachable or not; one line "N
      bytes in M blocks suppressed" ("blocks" even for one), then each
      pattern that took no leak "FILE:LINE: warning: suppression matched no
      leak", in each process (tagged in a child); a line that is not a
      pattern named at start-up ("FILE:LINE: not a suppression (...): TEXT",
      observed); the JSON's suppressed_* and each site's `suppressed`.
    the reachability scan (MTRACE_LEAK_CHECK=reachable; doc/guide.md, doc/mtrace.7,
      doc/design.md, doc/limits.md): driver.c's only pointers to blocks are
      the script's (root: a global, link: a word of a block, hold: main's
      frame, live when the process ends by exit); a pointer reaches a block
      from its first byte to its last, not past its end; transitively; the
      parent's memory is not the child's; the unreachable part of a record
      is its error, the reachable part a note "still reachable here" after
      the errors, largest first, with a total when several (observed, as the
      errors'); reachable bytes are not suppressed ones (report-json.md),
      a site's reachable_bytes counts its suppressed ones too (observed).
      The scan is conservative: a lost block found reachable is taken from
      the run (TOLERATE_STALE, counted), a reachable one called leaked is a
      failure.  No 0-byte block, nor one whose last word is glibc's next
      header, is live in a script that stores pointers (scannable_size).
    wrappers (MTRACE_ALLOC_FN with MTRACE_DEPTH; doc/guide.md,
      doc/design.md "Wrappers"): names separated by spaces or commas; a
      site in a wrapper is charged to its first caller outside them (the
      leak records, their callers below it); the summary's table is then
      "at peak" by place, every place a row (0 included), "(N more
      places)" past 20, its header even with no row (observed); the JSON's
      sites stay sites.
    the budget (MTRACE_MAX_HEAP; doc/guide.md, doc/mtrace.7): a peak
      above it is an error naming the peak, the budget as written and the
      peak's record, then the (at most) three sites that held most at the
      peak, those that held any; exit status 1; budget_bytes, over_budget.

One rule is not about mtrace but about the C library: a free of a freed
block is only a double free if the address was not handed out again in
between.  `Model.certain` decides, conservatively, from glibc's tcache
(see there); the generator only writes double frees it calls certain, the
shrinker only keeps scripts whose double frees stay certain, and the driver
checks every address it gets (status 77 if the rule was wrong).
"""
import argparse
import difflib
import fnmatch
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import zlib
import time
from collections import Counter

NSLOTS = 64
MAXSTR = 8192          # driver.c: strings of at most MAXSTR 'x's
MAXBURST = 100000      # driver.c: a burst of at most 100000 blocks
HUGE = 1 << 48         # a size no allocator gives (observed: ENOMEM, NULL)
ABORT_STATUS = 134     # SIGABRT, as a shell reports it (guide: "exit status 134")
GUARD_STATUS = 77      # driver.c: a freed address was handed out again
FREED_MAX = 1 << 20    # MTRACE_FREED_MAX's default (doc/guide.md): the model stays below it
LEAK_RECORDS = 30      # leak records printed (doc/guide.md: MTRACE_LEAK_RECORDS, no stacks)
LEAK_RECORDS_STACKS = 10   # ... and with call stacks (doc/guide.md)
GENERATIONS = 8        # a child remembers 8 generations of fork back (doc/limits.md)

EMPTY, LIVE, FREED = 'empty', 'live', 'freed'

# The ops of driver.c: name -> the numbers after the site letter.
OPS = {
    'malloc': 2, 'calloc': 3, 'realloc': 2, 'reallocarray': 3, 'strdup': 2,
    'strndup': 3, 'aligned_alloc': 3, 'posix_memalign': 3, 'memalign': 3,
    'valloc': 2, 'pvalloc': 2, 'free': 1, 'free_at': 2, 'realloc_at': 3,
    'free_static': 2, 'free_mmap': 1, 'free_stack': 1, 'free_unmapped': 1, 'wrap': 2, 'wrap2': 2,
}
PLAIN_OPS = {'burst': 2, 'libc': 1, 'say': 1, 'thread': 0, 'join': 0, 'fork': 0, 'wait': 0, 'exit': 1, 'return': 1,
             'root': 3, 'unroot': 1, 'link': 4, 'hold': 1}
WRAPS = ('wrap', 'wrap2')  # through the program's own allocators: the site is x_alloc's malloc
NROOTS, NHELD = 8, 8       # driver.c: root's globals, hold's words in main
# sites a and b: driver.c's do_NAME functions, called by perform from main
# (A and B: the same lines, perform called through indirect); m: a call in
# main itself (malloc, realloc and free only)
IN_MAIN = ('malloc', 'realloc', 'free')
MARKERS = (['%s_%s' % (name, s) for name in OPS if name not in WRAPS for s in 'ab']
           + ['%s_m' % name for name in IN_MAIN] + ['burst_malloc', 'burst_free', 'libc_free', 'x_alloc'])
ALLOCATORS = ('malloc', 'calloc', 'strdup', 'strndup', 'aligned_alloc', 'posix_memalign',
              'memalign', 'valloc', 'pvalloc') + WRAPS
SLOT_OPS = ALLOCATORS + ('realloc', 'reallocarray', 'free', 'free_at', 'realloc_at')

# The kinds of bad free the generator can write (MODEL_KINDS).  `old`: the
# ones mtrace reported before issue 22 (d430840: a double free with nothing
# allocated in between, a stack address); `new`: those issue 22 asks for,
# and issue 36's `fork`: a child frees what its parent had freed (or an
# inherited block twice, or reallocs one its parent freed).
OLD_KINDS = ['double', 'realloc-double', 'stack']
NEW_KINDS = ['double-far', 'interior', 'realloc-interior', 'static', 'mmap', 'unmapped', 'fork']
KINDS = OLD_KINDS + NEW_KINDS
# MODEL_HEAP_CHECK=1: every run under MTRACE_CHECK=heap (guide, "The heap
# check"): a program without a bad write gets no report of it, and the
# same figures, reports and trace, but for pvalloc's whole pages
# (doc/limits.md; the generator writes valloc instead); heap_errors stays
# 0.  Without MTRACE_LEAK_CHECK=reachable for now: under the check a lost
# posix_memalign block pointing to its own end was found reachable
# (seed 134: posix_memalign b 47 64 281, link 47 0 47 281, burst 61 93214).
HEAP_CHECK = os.environ.get('MODEL_HEAP_CHECK') == '1'
PAGE = 4096

KIND_SETS = {'all': KINDS, 'old': OLD_KINDS, 'today': OLD_KINDS, 'new': NEW_KINDS, 'none': []}


def kinds_name(kinds):
    for name in ('all', 'old', 'new', 'none'):
        if list(kinds) == KIND_SETS[name]:
            return name
    return ','.join(kinds)


def parse_kinds(text):
    kinds = []
    for word in (text or 'all').replace(',', ' ').split():
        for k in KIND_SETS.get(word, [word]):
            if k not in KINDS:
                raise SystemExit('model.py: unknown kind %r (kinds: %s; sets: %s)'
                                 % (k, ' '.join(KINDS), ' '.join(KIND_SETS)))
            if k not in kinds:
                kinds.append(k)
    return kinds


# --- the call sites, read from driver.c -------------------------------------

SOURCE_DIR = None      # where driver.c is compiled (run.sh: in its own directory)


def report_path(path, cwd):
    """A source path as the exit report writes it (doc/guide.md, doc/limits.md):
    relative to the directory the program runs in when it lies below it,
    else absolute, in the exit report and in the bad-free reports.  The
    trace keeps __FILE__ as the compiler got it."""
    path, cwd = os.path.abspath(path), os.path.abspath(cwd)
    return path[len(cwd) + 1:] if path.startswith(cwd.rstrip('/') + '/') else path


def read_sites(driver_c, file_name='driver.c'):
    """{marker: (function, file, line)} from the `/* SITE marker */`
    comments: the function is the last `static ... name(` line above.  The
    `/* CALL name */` lines, where driver.c calls the functions on the way
    from main to a site, come as {'CALL name': (function, path, line)},
    path being driver.c's absolute name: the name addr2line gives a caller
    (the program runs in another directory, so it is not made relative; the
    model writes it as the exit report does: Model.exit_path)."""
    global SOURCE_DIR
    SOURCE_DIR = os.path.dirname(os.path.abspath(driver_c))
    sites, func = {}, None
    path = os.path.abspath(driver_c)
    with open(driver_c) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'(?:static\s+)?[\w\s]*?[\s*](\w+)\(', line)
            if m and not line[0].isspace():
                func = m.group(1)
            m = re.search(r'/\* SITE (\w+) \*/', line)
            if m:
                sites[m.group(1)] = (func, file_name, n)
            m = re.search(r'/\* CALL (\w+) \*/', line)
            if m:
                sites['CALL ' + m.group(1)] = (func, path, n)
    return sites


# --- suppressions (MTRACE_SUPPRESS) ----------------------------------------------

SUPP_NAME = 'mtrace.supp'   # the file, as MTRACE_SUPPRESS names it (the run's directory)


def parse_suppressions(lines):
    """The file's lines (doc/guide.md, doc/mtrace.7): `fun:GLOB` (the place's
    function), `src:GLOB` (its file), `src:GLOB:LINE`; blank lines and
    lines starting with # skipped; any other line is not a pattern.
    Returns ([(line number, kind, glob, line or None)], [(line number,
    text)] of the lines that are not patterns)."""
    patterns, malformed = [], []
    for n, text in enumerate(lines or (), 1):
        if not text or text.startswith('#'):
            continue
        m = (re.fullmatch(r'(fun):(.+)', text) or re.fullmatch(r'(src):(.+):(\d+)', text)
             or re.fullmatch(r'(src):(.+)', text))      # (src:a.c:12x: a file pattern)
        if m:
            patterns.append((n, m.group(1), m.group(2), int(m.group(3)) if m.lastindex == 3 else None))
        else:
            malformed.append((n, text))
    return patterns, malformed


def suppresses(pattern, file, line, func):
    """Does a pattern match a place?  src: the file as the report writes
    it, or (a pattern without /) its last component (doc/limits.md,
    doc/mtrace.7); globs as fnmatch's (the generator writes none whose *
    would have to match a /)."""
    _, kind, glob, want = pattern
    if kind == 'fun':
        return fnmatch.fnmatchcase(func, glob)
    name = fnmatch.fnmatchcase(file, glob) or ('/' not in glob and fnmatch.fnmatchcase(file.rsplit('/', 1)[-1], glob))
    return name and want in (None, line)


# --- scripts ------------------------------------------------------------------

class Op:
    """One line of a script: name, site letter (or None), arguments."""
    __slots__ = ('name', 'site', 'args')

    def __init__(self, name, site=None, args=()):
        self.name, self.site, self.args = name, site, tuple(args)

    def __str__(self):
        return ' '.join([self.name] + ([self.site] if self.site else []) + [str(a) for a in self.args])

    def marker(self):
        if self.name in WRAPS:
            return 'x_alloc'        # the wrappers' one malloc
        return '%s_%s' % (self.name, self.site.lower())


def parse_script(text):
    ops = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith('#'):
            continue
        name = words[0]
        if name in OPS:
            site, args = (words[1] if len(words) > 1 else None), words[2:]
        else:
            site, args = None, words[1:]
        args = [a if not re.fullmatch(r'\d+', a) else int(a) for a in args]
        ops.append(Op(name, site, args))
    return ops


def format_script(ops):
    return ''.join(str(o) + '\n' for o in ops)


def spans(ops):
    """driver.c's rules: `thread` runs the ops up to the first `join` after
    it (or to the end) on a new thread, while the main thread waits; `fork`
    runs the ops up to its `wait` (forks and waits nest like brackets; or
    to the end) in a child, while the parent waits.  Returns {index of a
    thread or fork: index of its join or wait, or len(ops)}.  A thread's ops
    are plain ones (no thread, fork, wait, nor a call of main's): anything
    else is not defined."""
    ends, n = {}, len(ops)
    for i, op in enumerate(ops):
        if op.name == 'thread':
            end = i + 1
            while end < n and ops[end].name != 'join':
                if ops[end].name in ('thread', 'fork', 'wait') or ops[end].site == 'm':
                    raise Undefined('a thread that forks, waits, starts a thread or calls in main')
                end += 1
            ends[i] = end
        elif op.name == 'fork':
            end, depth = i + 1, 1
            while end < n:
                depth += (ops[end].name == 'fork') - (ops[end].name == 'wait')
                if depth == 0:
                    break
                end += 1
            ends[i] = end
    return ends


# --- glibc's tcache: when is a freed address surely not handed out again ----

def chunk(n):
    """glibc's chunk size for a request of n bytes (64-bit)."""
    return max(32, (n + 8 + 15) & ~15)


def classes(n):
    """The chunk sizes a block asked as n bytes may really have: the chunk
    of n, or up to 32 bytes more (a remainder too small to split is left
    in the block by _int_malloc, _int_realloc and _int_memalign)."""
    c = chunk(n)
    return frozenset((c, c + 16, c + 32))


TCACHE_MAX_CHUNK = 1040   # glibc: 64 tcache bins, chunks of 32 .. 1040 bytes
TCACHE_COUNT = 7          # glibc: at most 7 chunks a bin


def block_classes(op, size):
    """The chunk sizes of the block an op hands out: pvalloc rounds the
    size up to a page (glibc's pvalloc(3); found by driver.c's guard)."""
    if op is not None and op.name == 'pvalloc':
        return classes(max(4096, (size + 4095) // 4096 * 4096))
    return classes(size)


def alloc_classes(op, size):
    """The chunk sizes an allocating op may take from a bin (the aligned
    ones also ask _int_malloc for size + alignment + 32)."""
    c = set(classes(size)) | block_classes(op, size)
    if op.name in ('aligned_alloc', 'posix_memalign', 'memalign'):
        c |= classes(size + op.args[1] + 32)
    elif op.name in ('valloc', 'pvalloc'):
        c |= classes(size + 4096 + 32) | classes((size + 4095) // 4096 * 4096 + 4096 + 32)
    return frozenset(c)


# --- the model ----------------------------------------------------------------

class Undefined(Exception):
    """The script does something the contract does not define (a free of a
    pointer into a freed block, a double free whose address may have been
    handed out again, an exit on another thread): the generator never
    writes one, the shrinker never keeps one."""


class Ended(Exception):
    """The program ends here: exit, return, or abort at a bad free."""


class Block:
    """A block a slot names.  `chain` and `free_chain`: the callers of its
    allocation and of its first free (with MTRACE_DEPTH); `inherited`: the
    process got it from its parent at fork (the parent's, not its own).
    `links`: {byte offset: (block, offset)}, the pointers the script stored
    in it (link); `pinned`: some pointer of the script's names it or lies
    in it, so it is never freed (a stale pointer would reach whatever block
    takes its address)."""
    __slots__ = ('size', 'site', 'classes', 'free_site', 'parked', 'reused', 'chain', 'free_chain',
                 'inherited', 'links', 'pinned', 'past_end')

    def __init__(self, size, site, cls, chain=()):
        self.size, self.site, self.classes = size, site, cls
        self.free_site, self.parked, self.reused = None, False, False
        self.chain, self.free_chain, self.inherited = chain, (), False
        self.links, self.pinned, self.past_end = {}, False, False

    def inherit(self):
        """The child's copy: the same block, its parent's."""
        b = Block(self.size, self.site, self.classes, self.chain)
        b.free_site, b.parked, b.reused, b.free_chain = self.free_site, self.parked, self.reused, self.free_chain
        b.inherited, b.pinned, b.links = True, self.pinned, dict(self.links)
        return b


class Accounts:
    """What the trace says, record by record: TOTAL, each site's bytes, the
    peaks; and what the reports derive from it."""

    def __init__(self, keep_records):
        self.total = self.peak = self.peak_record = self.nrec = self.frees = 0
        self.live, self.blocks, self.peaks, self.allocs = {}, {}, {}, {}
        self.peak_blocks, self.total_bytes, self.temporary = {}, {}, {}
        self.sizes = Counter()          # requests by power-of-two bucket
        self.order = []                 # sites by their first + or >
        self.at_peak, self.dirty = {}, False
        self.chains_at_peak = {}        # {(site, callers): bytes} after the peak's record
        self.records = [] if keep_records else None
        self.chains = {}                # site -> {callers: [live bytes, live blocks]}

    def record(self, op, site, size, chain=()):
        grows = op in '+>'
        by_chain = self.chains.setdefault(site, {}).setdefault(chain, [0, 0])
        by_chain[0] += size if grows else -size
        by_chain[1] += 1 if grows else -1
        if not grows and self.dirty and size:   # leaving the peak: keep it
            self.keep_peak()
        if grows:
            if site not in self.allocs:
                self.order.append(site)
                self.allocs[site] = self.live[site] = self.blocks[site] = self.peaks[site] = 0
                self.peak_blocks[site] = self.total_bytes[site] = self.temporary[site] = 0
            self.allocs[site] += 1
            self.blocks[site] += 1
            self.total += size
            self.live[site] += size
            self.total_bytes[site] += size
            self.sizes[size.bit_length()] += 1
        else:
            self.blocks[site] -= 1
            self.total -= size
            self.live[site] -= size
            self.frees += 1
            if self.frees >= FREED_MAX:
                # past MTRACE_FREED_MAX the oldest freed blocks may be
                # forgotten (doc/limits.md): which, the model does not follow
                raise Undefined('more frees than MTRACE_FREED_MAX remembers')
        if self.live[site] > self.peaks[site]:
            self.peaks[site] = self.live[site]
            self.peak_blocks[site] = self.blocks[site]
        if self.total > self.peak:
            self.peak, self.peak_record, self.dirty = self.total, self.nrec, True
        if self.records is not None:
            self.records.append((op, site, self.total, self.live[site]))
        self.nrec += 1

    def burst(self, site, size, count):
        """count `+` records of size at site, then count `-` of them: what
        as many calls of record() give, at once."""
        if not count:
            return
        if site not in self.allocs:
            self.order.append(site)
            self.allocs[site] = self.live[site] = self.blocks[site] = self.peaks[site] = 0
            self.peak_blocks[site] = self.total_bytes[site] = self.temporary[site] = 0
        t0, l0, n0 = self.total, self.live[site], self.nrec
        if self.records is not None:
            self.records.extend(('+', site, t0 + size * i, l0 + size * i) for i in range(1, count + 1))
            self.records.extend(('-', site, t0 + size * (count - i), l0 + size * (count - i))
                                for i in range(1, count + 1))
        self.allocs[site] += count
        self.total_bytes[site] += size * count
        self.sizes[size.bit_length()] += count
        top, top_live = t0 + size * count, l0 + size * count
        if top_live > self.peaks[site]:         # (size > 0: at the last +)
            self.peaks[site], self.peak_blocks[site] = top_live, self.blocks[site] + count
        if top > self.peak:
            self.peak, self.peak_record, self.dirty = top, n0 + count - 1, True
        if self.dirty and size:                 # the first - leaves the peak
            self.keep_peak()
            self.at_peak[site] = top_live       # (a burst's blocks have no callers here)
            self.chains_at_peak[site, ()] = self.chains_at_peak.get((site, ()), 0) + size * count
        self.frees += count
        if self.frees >= FREED_MAX:
            raise Undefined('more frees than MTRACE_FREED_MAX remembers')
        self.nrec += 2 * count

    def keep_peak(self):
        """The figures at the peak, as the program leaves it."""
        self.at_peak, self.dirty = dict(self.live), False
        self.chains_at_peak = {(s, ch): v[0] for s, d in self.chains.items() for ch, v in d.items()}

    def bytes_at_peak(self):
        return dict(self.live) if self.dirty else self.at_peak

    def chain_bytes_at_peak(self):
        if self.dirty:
            return {(s, ch): v[0] for s, d in self.chains.items() for ch, v in d.items()}
        return self.chains_at_peak

    def ranked(self, figure, ties=None):
        """Sites by a figure, largest first (doc/guide.md).  The documents do not
        order equal figures, and the tracer's order is its own (observed:
        mostly the trace's ID order, but not when a site's first call was a
        bad realloc): among equal figures, `ties` (site -> position in the
        program's output) comes first, then the ID order."""
        ties = ties or {}
        rank = {s: i for i, s in enumerate(self.order)}
        return sorted(self.order, key=lambda s: (-figure[s], ties.get(s, len(rank)), rank[s]))


class Proc:
    """One process: the program (index 0) or a child forked by a process
    (1, 2, ... in the order they start).  Its slots, its accounts and its
    bad frees are its own; stdout and stderr are the program's."""

    def __init__(self, index, parent=None, keep_records=True):
        self.index, self.parent = index, parent
        self.name = 'P%d' % index       # pids are written <P0>, <P1>, ... (see bind_pids)
        self.generation = parent.generation + 1 if parent else 0
        self.slots = [(EMPTY, None)] * NSLOTS
        self.acct = Accounts(keep_records)
        self.newest = None              # the block allocated last, until freed
        self.double = self.invalid = 0
        self.tcache = Counter()         # see into_tcache
        self.status, self.aborted = 0, False
        self.forked = parent is not None    # its report is tagged: a child, or once it forked
        self.roots = dict(parent.roots) if parent else {}   # root's globals: {G: (block, offset)}
        self.held = list(parent.held) if parent else [None] * NHELD     # hold's words in main
        self.nheld = parent.nheld if parent else 0
        self.own = set()                # its live blocks (not inherited)
        self.by_exit = False            # it ended by exit(): main's frame (hold's words) still there
        self.seen_reach, self.seen_sites = {}, {}   # what the run's scan found (see Model.stale_words)
        self.stale = set()              # the records where it found more
        self.ties = {'rows': {}, 'temporary': {}, 'sites': {}, 'leaks': {}, 'notes': {}, 'places': {},
                     'budget': {}}      # see Accounts.ranked


def _proc_field(name):
    return property(lambda self: getattr(self.p, name), lambda self, v: setattr(self.p, name, v))


class Model:
    """Runs a script on paper.  level 1..3; mode 'continue'
    (MTRACE_DOUBLE_FREE=continue) or 'abort'; stacks: MTRACE_DEPTH (None:
    unset).  The current process is self.p; its state is reached through
    the properties below (self.slots is self.p.slots)."""

    slots, acct, newest, tcache = _proc_field('slots'), _proc_field('acct'), _proc_field('newest'), _proc_field('tcache')
    double, invalid, status = _proc_field('double'), _proc_field('invalid'), _proc_field('status')

    def __init__(self, sites, level=1, mode='continue', trace_path=None, keep_records=True, stacks=None,
                 opts=None):
        self.sites, self.level, self.mode, self.trace_path = sites, level, mode, trace_path
        self.stacks = stacks
        self.opts = opts or {}
        self.reach = bool(self.opts.get('reach'))
        self.budget = parse_size(self.opts.get('budget'))
        self.patterns, self.malformed = parse_suppressions(self.opts.get('supp'))
        # MTRACE_ALLOC_FN (doc/guide.md: "with MTRACE_DEPTH"): the wrappers' names
        self.wrappers = set(re.split(r'[ ,]+', self.opts.get('alloc_fn') or '')) - {''} if stacks else set()
        self.keep_records = keep_records and level == 1
        self.p = Proc(0, keep_records=self.keep_records)
        self.procs, self.stack = [self.p], [self.p]
        self.stdout = []
        self.err = []                   # ('lines', [...]) at a bad call, ('report', proc) at an exit
        self.thread = 0                 # 1 on a thread (driver.c's threads do not nest)
        self.ends = {}

    @property
    def main(self):
        return self.procs[0]

    @property
    def aborted(self):
        return any(p.aborted for p in self.procs)

    # -- places
    def where(self, marker):
        func, file, line = self.sites[marker]
        return '%s:%d' % (file, line), func

    def line(self, marker, what):
        """A bad-free report's line: its place written as the exit report
        writes paths (doc/guide.md, doc/limits.md), though made while the
        program runs."""
        place, func = self.exit_where(marker)
        return '%s: %s (in %s)' % (place, what, func)

    def exit_site(self, marker):
        """(function, file, line) as the exit report writes them: the
        program runs in its trace's directory, driver.c was compiled in
        its own."""
        func, file, line = self.sites[marker]
        if SOURCE_DIR and self.trace_path:
            file = report_path(os.path.join(SOURCE_DIR, file), os.path.dirname(self.trace_path))
        return func, file, line

    def exit_path(self, path):
        """An absolute source path as the reports write it: relative to
        the directory the program runs in (its trace's) when below it."""
        return report_path(path, os.path.dirname(self.trace_path)) if self.trace_path else path

    def exit_where(self, marker):
        func, file, line = self.exit_site(marker)
        return '%s:%d' % (file, line), func
    def place(self, marker, what, chain):
        """A place of a report, with its callers under it (doc/guide.md: "each
        place has its callers under it", as `file:line: note: called from
        f`)."""
        return [self.line(marker, what)] + ['%s:%d: note: called from %s' % (file, line, func)
                                            for func, file, line in chain]

    def callers(self, op):
        """The callers of op's call that the reports show with MTRACE_DEPTH
        (doc/guide.md "Call stacks"): the function that called the
        site's function, its caller, ... up to main, N - 1 of them for
        MTRACE_DEPTH=N (the site counts as one); none for a place in main.
        driver.c: do_NAME <- perform <- main, or do_NAME <- perform <-
        indirect <- main for the sites A and B.  On a thread the chain goes
        on below main's (start_thread, in the C library): not predicted."""
        if not self.stacks or op is None:
            return ()
        if self.thread:
            raise Undefined('a call stack on a thread (its last frame is the C library\'s)')
        if op.site == 'm':
            return ()
        chain = [self.sites['CALL ' + op.name]]
        if op.name in WRAPS:        # x_alloc <- (x_alloc2 <-) do_wrap(2) <- perform
            inner = ['CALL x_alloc2'] if op.name == 'wrap2' else []
            chain = [self.sites[c] for c in inner + ['CALL %s_%s' % (op.name, op.site.lower())]] + chain
        if op.site in 'AB':
            chain += [self.sites['CALL perform_indirect'], self.sites['CALL indirect']]
        else:
            chain.append(self.sites['CALL perform'])
        return tuple((func, self.exit_path(path), line) for func, path, line in chain[:self.stacks - 1])

    # -- processes
    def fork(self):
        """fork: a child that has its parent's blocks (inherited: freeing
        one once is silent, they are never its leaks) and whose totals,
        peaks, counts and temporaries start at 0 (doc/processes.md); the C
        library's state (tcache) is its parent's too."""
        if self.thread:
            raise Undefined('fork on a thread')
        parent = self.p
        if parent.generation + 1 > GENERATIONS:
            raise Undefined('more than %d generations of fork (doc/limits.md)' % GENERATIONS)
        child = Proc(len(self.procs), parent, self.keep_records)
        copies = {}
        child.slots = [(state, copies.setdefault(id(b), b.inherit()) if b is not None else None)
                       for state, b in parent.slots]
        child.tcache = Counter(parent.tcache)
        parent.forked = True
        self.procs.append(child)
        self.stack.append(child)
        self.p = child

    def end_child(self):
        """The child ended (returned from main, exit, abort): its report
        comes now, and its parent says on stdout how it ended."""
        child = self.stack.pop()
        self.p = parent = self.stack[-1]
        self.err.append(('report', child))
        how = 'signal 6' if child.aborted else 'exit %d' % self.exit_status(child)
        self.stdout.append('child <%s> of <%s>: %s\n' % (child.name, parent.name, how))

    def trace_of(self, proc):
        """NAME, and NAME.PID for a child (doc/processes.md's table)."""
        return self.trace_path if proc.index == 0 else '%s.<%s>' % (self.trace_path, proc.name)

    # -- the heap
    def allocate(self, op, slot, size, record='+', marker=None):
        site = marker or op.marker()
        block = Block(size, site, block_classes(op, size), self.callers(op))
        self.handed_out(alloc_classes(op, size) if op else classes(size))
        self.acct.record(record, site, size, block.chain)
        self.newest = block
        self.p.own.add(block)
        if slot is not None:
            self.slots[slot] = (LIVE, block)
        return block

    def unpin(self, block):
        """A block leaves (freed, moved): none of the script's pointers may
        name it (whatever takes its address would be reachable)."""
        if block.pinned:
            raise Undefined('a block the script points to (root, link, hold) is freed or moved')
        self.p.own.discard(block)

    def release(self, block, record, op, slot=None):
        """A free of a live block (by free, or realloc to 0 bytes).  One the
        process inherited goes without a record (doc/processes.md)."""
        self.unpin(block)
        if not block.inherited:
            self.acct.record(record, block.site, block.size, block.chain)
            if record == '-' and block is self.newest:
                # freed before any other allocation: a temporary (doc/guide.md)
                self.acct.temporary[block.site] += 1
                self.newest = None
        block.free_site, block.free_chain = op.marker(), self.callers(op)
        # Parked: the chunk went to this thread's tcache, where only an
        # allocation of its size takes it (glibc >= 2.26): the main thread's,
        # which never exits, and a bin that cannot have been full.
        block.parked = (self.thread == 0 and max(block.classes) <= TCACHE_MAX_CHUNK
                        and all(self.tcache[c] < TCACHE_COUNT for c in block.classes))
        self.into_tcache(block.classes)
        if slot is not None:
            self.slots[slot] = (FREED, block)

    def into_tcache(self, cls, n=1):
        """n chunks of sizes cls freed: on the main thread they may go to its
        tcache (counted, never uncounted: a bin may be fuller than counted,
        not less full)."""
        if self.thread == 0:
            for c in cls:
                self.tcache[c] += n

    def handed_out(self, cls):
        """An allocation of chunk sizes cls: which freed addresses may it
        have taken?  A parked one only if the sizes meet; any other one,
        yes (it may have been merged into the chunk handed out)."""
        for state, block in self.slots:
            if state == FREED and (not block.parked or block.classes & cls):
                block.reused = True

    def thread_started(self):
        # pthread_create allocates (the thread's DTV) in the C library
        for state, block in self.slots:
            if state == FREED and not block.parked:
                block.reused = True

    def certain(self, block):
        """A free of this freed block is surely a double free: its address
        was not handed out again since (see handed_out)."""
        return not block.reused

    # -- bad frees
    def bad(self, lines, double):
        self.err.append(('lines', lines))
        if self.mode == 'abort':
            self.p.aborted = True
            raise Ended
        if double:
            self.double += 1
        else:
            self.invalid += 1

    def double_free(self, op, block, realloc):
        """The three places (README), the allocation and the first free
        maybe the parent's in a child (doc/processes.md)."""
        if not self.certain(block):
            raise Undefined('the freed address may have been handed out again')
        what = 'double free: realloc of a block already freed' if realloc else 'double free of a block'
        self.bad(self.place(op.marker(), 'error: ' + what, self.callers(op))
                 + self.place(block.site, 'note: the block was allocated here', block.chain)
                 + self.place(block.free_site, 'note: and first freed here', block.free_chain), True)

    def interior(self, op, k, realloc):
        state, block = self.slots[op.args[0]]
        if state != LIVE or not 1 <= k < block.size:
            raise Undefined('a pointer into a block that is not live')
        what = 'invalid %s of an address %d bytes into a %d-byte block' % ('realloc' if realloc else 'free', k, block.size)
        self.bad(self.place(op.marker(), 'error: ' + what, self.callers(op))
                 + self.place(block.site, 'note: the block was allocated here', block.chain), False)

    def invalid_free(self, op, what):
        self.bad(self.place(op.marker(), 'error: invalid free of ' + what, self.callers(op)), False)

    # -- one op: driver.c's semantics, and the records each call writes
    #    (doc/trace-format.md's table "Which records a call writes")
    def step(self, op):
        self.check_syntax(op)
        if op.name in ALLOCATORS:
            return self.op_allocate(op)
        getattr(self, 'op_' + op.name)(op)

    def check_syntax(self, op):
        a = op.args
        if op.name in OPS:
            if (op.site not in ('a', 'b', 'A', 'B', 'm') or len(a) != OPS[op.name]
                    or op.marker() not in self.sites):
                raise Undefined('malformed op: %s' % op)
            if op.name in SLOT_OPS and not (isinstance(a[0], int) and a[0] < NSLOTS):
                raise Undefined('no such slot: %s' % op)
            if op.site == 'm' and self.thread:
                raise Undefined('a call of main\'s on a thread: %s' % op)
        elif op.name not in PLAIN_OPS or len(a) != PLAIN_OPS[op.name]:
            raise Undefined('malformed op: %s' % op)

    def op_allocate(self, op):
        """`+` for a block, nothing for a failure (and the slot holds NULL)."""
        size = self.requested(op)
        if size is None:
            self.slots[op.args[0]] = (EMPTY, None)
        else:
            self.allocate(op, op.args[0], size)

    def requested(self, op):
        """The bytes an allocating op asks for, counted as requested
        (doc/trace-format.md: TOTAL is "live traced bytes (as requested)"),
        or None when the call fails."""
        a, name = op.args, op.name
        if name == 'calloc':
            size = a[1] * a[2]                      # n*s (edges.c: calloc(3, 7) is 21)
        elif name in ('strdup', 'strndup'):
            if a[1] > MAXSTR:
                raise Undefined('string too long')
            size = (a[1] if name == 'strdup' else min(a[1], a[2])) + 1   # with its NUL
        elif name in ('aligned_alloc', 'posix_memalign', 'memalign'):
            align, size = a[1], a[2]                # the size, not the alignment
            power = align >= 1 and align & (align - 1) == 0
            if name == 'posix_memalign' and (not power or align % 8):
                return None                         # EINVAL: no record (edges.c)
            if not power:
                raise Undefined('alignment not a power of two')
        elif name == 'pvalloc' and HEAP_CHECK and a[1] < HUGE:
            size = -(-max(a[1], 1) // PAGE) * PAGE  # doc/limits.md, the heap check: whole pages
        else:
            size = a[1]                             # pvalloc too: n, not a page (observed)
        return None if size >= HUGE else size

    def op_realloc(self, op):
        self.resize(op, op.args[1], '>')

    def op_reallocarray(self, op):
        # reallocarray(NULL, n, s) is `+` (doc/trace-format.md), and
        # reallocarray(p, 0, s) frees like realloc(p, 0) (observed)
        if self.slots[op.args[0]][0] == FREED:
            raise Undefined('reallocarray of a freed block')
        self.resize(op, op.args[1] * op.args[2], '+')

    def resize(self, op, size, fresh):
        slot = op.args[0]
        state, block = self.slots[slot]
        if state == FREED:
            self.double_free(op, block, True)
        elif size >= HUGE:
            pass                                    # fails: the block stays as it was
        elif state == EMPTY:
            self.allocate(op, slot, size, fresh)    # realloc(NULL, n): `>`
        elif size == 0:
            self.release(block, '<', op, slot)      # frees (glibc): `<` only
        elif block.pinned:
            self.unpin(block)
        elif block.inherited:
            # "realloc of an inherited block gives the child a block of its
            # own" (doc/processes.md): recorded as a new one (the record of
            # realloc(NULL, n)), the parent's going without a record
            block.free_site, block.free_chain = op.marker(), self.callers(op)
            self.into_tcache(block.classes)
            self.allocate(op, slot, size, fresh)
        else:
            self.unpin(block)
            self.acct.record('<', block.site, block.size, block.chain)  # `<` then `>`, moved or not
            self.into_tcache(block.classes)                # (if moved, the old chunk)
            self.allocate(op, slot, size, '>')

    def op_free(self, op):
        state, block = self.slots[op.args[0]]
        if state == LIVE:
            self.release(block, '-', op, op.args[0])
        elif state == FREED:
            self.double_free(op, block, False)
        # EMPTY: free(NULL) writes nothing

    def op_free_at(self, op):
        self.interior(op, op.args[1], False)

    def op_realloc_at(self, op):
        self.interior(op, op.args[1], True)

    def op_free_static(self, op):
        if op.args[0] not in ('data', 'bss') or not 0 <= op.args[1] < 256:
            raise Undefined('free_static data|bss OFF, OFF < 256')
        self.invalid_free(op, 'an address in static data')

    def op_free_mmap(self, op):
        # The page itself: an address inside an mmap'ed page may be the C
        # library's own (its mmap'ed chunks start 16 bytes into a page), so
        # that is handed to the C library, which stops the program
        # (observed at ee9ad4a, issue 22's "a free of an mmap'ed page")
        if op.args[0] != 0:
            raise Undefined('a free inside an mmap\'ed page, not of the page')
        self.invalid_free(op, 'an address from mmap, not from an allocator')

    def op_free_stack(self, op):
        self.invalid_free(op, 'an address on the stack')

    def op_free_unmapped(self, op):
        self.invalid_free(op, 'an address that is not mapped')

    def op_burst(self, op):
        """COUNT mallocs of SIZE, then COUNT frees (in that order)."""
        size, count = op.args
        if count > MAXBURST or size >= HUGE:
            raise Undefined('burst too large')
        if count:
            self.handed_out(classes(size))
        self.acct.burst('burst_malloc', size, count)
        if count:       # freed in allocation order: only the last is the newest
            self.acct.temporary['burst_malloc'] += 1
            self.newest = None
        self.into_tcache(classes(size), count)

    def op_libc(self, op):
        """The C library allocates a string (asprintf), which driver.c
        frees: not traced, and freeing it is silent (doc/guide.md "What is
        traced"), no record.  It may have taken any freed block's address:
        the tombstone goes then (doc/design.md), in every generation."""
        if op.args[0] >= MAXSTR:
            raise Undefined('string too long')
        for state, block in self.slots:
            if state == FREED:
                block.reused = True

    def op_say(self, op):
        self.stdout.append('%s\n' % op.args[0])

    def op_exit(self, op):
        if self.thread:
            raise Undefined('exit or return on a thread')
        self.status = op.args[0] % 256
        self.p.by_exit = op.name == 'exit'
        raise Ended

    op_return = op_exit

    # -- the script's pointers (driver.c: root, unroot, link, hold)
    def pointer(self, slot, off=0):
        """(block, offset) that a slot's pointer plus off names, None for
        NULL; the block is pinned from now on."""
        state, block = self.slots[slot]
        if state == EMPTY:
            return None
        if state == FREED or block.size == 0:
            raise Undefined('a pointer to a freed or 0-byte block')
        if not 0 <= off <= block.size:
            raise Undefined('a pointer outside a block and past its end')
        block.pinned = True
        block.past_end |= off == block.size
        return (block, off)

    def op_root(self, op):
        g, slot, off = op.args
        if g >= NROOTS or slot >= NSLOTS:
            raise Undefined('root G SLOT OFF: G < %d' % NROOTS)
        self.p.roots[g] = self.pointer(slot, off)

    def op_unroot(self, op):
        if op.args[0] >= NROOTS:
            raise Undefined('unroot G: G < %d' % NROOTS)
        self.p.roots.pop(op.args[0], None)

    def op_link(self, op):
        slot, k, slot2, off = op.args
        state, holder = self.slots[slot] if slot < NSLOTS else (None, None)
        if state != LIVE or k % 8 or k + 8 > holder.size or slot2 >= NSLOTS:
            raise Undefined('link: an aligned word inside a live block')
        if holder.inherited:
            raise Undefined('link: a pointer stored in an inherited block')
        holder.links[k] = self.pointer(slot2, off)
        self.pointer(slot)

    def op_hold(self, op):
        if self.thread or op.args[0] >= NSLOTS:
            raise Undefined('hold on a thread')
        self.p.held[self.p.nheld % NHELD] = self.pointer(op.args[0])
        self.p.nheld += 1

    def op_join(self, op):
        pass                                        # a join without its thread does nothing

    op_wait = op_join                               # and a wait without its fork

    # -- a whole script
    def run(self, ops):
        """Performs the script as driver.c does; returns self.  Raises
        Undefined."""
        self.ends = spans(ops)
        try:
            self.run_main(ops, 0, len(ops))
        except Ended:
            pass
        self.thread = 0
        self.err.append(('report', self.main))
        return self

    def run_main(self, ops, lo, hi):
        """driver.c's main loop over ops [lo, hi): returns as main returns,
        or raises Ended (exit, abort)."""
        i = lo
        while i < hi:
            op = ops[i]
            if op.name == 'fork':
                end = self.ends[i]
                self.fork()
                try:
                    self.run_main(ops, i + 1, end)
                except Ended:
                    pass
                self.end_child()
                i = end + 1
            elif op.name == 'thread':
                end = self.ends[i]
                self.thread_started()
                self.thread = 1
                for j in range(i + 1, end):
                    self.step(ops[j])
                self.thread = 0
                i = end + 1
            elif op.name == 'return':
                self.check_syntax(op)
                self.status = op.args[0] % 256
                return
            else:
                self.step(op)
                i += 1

    # -- what a process must print and write
    def exit_status(self, proc=None):
        """doc/guide.md: leaks (and, with MTRACE_DOUBLE_FREE=continue, a bad free
        gone past) turn a status of 0 into 1; any other status is kept.  A
        child's own leaks likewise (doc/processes.md)."""
        proc = proc or self.main
        if proc.aborted:
            return ABORT_STATUS
        if proc.status == 0 and (self.leaks(proc) or proc.double or proc.invalid or self.over_budget(proc)):
            return 1
        return proc.status

    def reached(self, proc):
        """The process's own live blocks that the scan finds
        (MTRACE_LEAK_CHECK=reachable; doc/guide.md, doc/mtrace.7, doc/design.md):
        from the globals (root) and main's words (hold, while main's frame
        is there: the process ended by exit), then through the pointers
        stored in the blocks found (link); a pointer reaches a block from
        its first byte to its last, not past its end ("interior pointers
        count").  A block only the parent's memory names is not the
        process's (doc/processes.md: inherited blocks are never its
        leaks)."""
        if not self.reach:
            return set()
        if not all(scannable_size(b.size) for b in proc.own):
            raise Undefined('a block the scan cannot judge exactly (0 bytes, or its last word in the next header)')
        todo = [p for p in proc.roots.values() if p] + ([p for p in proc.held if p] if proc.by_exit else [])
        seen = set()
        while todo:
            block, off = todo.pop()
            if off < block.size and id(block) not in seen:
                seen.add(id(block))
                todo.extend(p for p in block.links.values() if p)
        return {b for b in proc.own if id(b) in seen}

    def charged(self, site, chain):
        """(file, line, function, callers): where a site's bytes with these
        callers are charged.  With MTRACE_ALLOC_FN and stacks (doc/guide.md,
        doc/guide.md, doc/design.md "Wrappers"), a site in a wrapper is
        charged to its first caller outside the wrappers, the callers below
        that one under it; else the site itself."""
        func, file, line = self.exit_site(site)
        if func not in self.wrappers:
            return file, line, func, chain
        for i, (f, path, n) in enumerate(chain):
            if f not in self.wrappers:
                return path, n, f, chain[i + 1:]
        raise Undefined('no caller outside the wrappers within MTRACE_DEPTH')

    def records(self, proc):
        """The places with live bytes at exit, as the leak report groups
        them (doc/guide.md "The leak report": one record per place, per place and callers
        with MTRACE_DEPTH, records that read the same merged):
        {(file, line, func, callers): [bytes, blocks, reachable bytes,
        reachable blocks, [sites]]}."""
        acct, found, reached = proc.acct, Counter(), self.reached(proc)
        for b in reached:
            found[b.site, b.chain, 'bytes'] += b.size
            found[b.site, b.chain, 'blocks'] += 1
        for b in proc.own - reached:        # (see stale_words)
            found[b.site, b.chain, 'past the end'] += b.past_end
        merged = {}
        for s in acct.order:
            for chain, (live, n) in acct.chains.get(s, {}).items():
                if live <= 0:
                    continue
                r = merged.setdefault(self.charged(s, chain), [0, 0, 0, 0, [], 0])
                r[0] += live
                r[1] += n
                r[2] += found[s, chain, 'bytes']
                r[3] += found[s, chain, 'blocks']
                r[4].append(s)
                r[5] += found[s, chain, 'past the end']
        return merged

    def outcome(self, proc=None):
        """What the exit report makes of the records: (errors, notes,
        (suppressed bytes, blocks), stale pattern lines, suppressed sites).
        A record whose place a pattern matches is suppressed whole,
        reachable or not (doc/report-json.md: suppressed_bytes are "live at
        exit and matched", reachable_bytes "not suppressed"), by the first
        pattern that matches it (observed: a later one that matches it too
        is named stale); the rest split into its unreachable part (an error,
        "leaked here") and its reachable one (a note, "still reachable
        here").  Errors and notes are [(bytes, blocks, file, line, func,
        callers, [sites])], largest first; ties in bytes and blocks by file,
        line and function, then the program's order (proc.ties)."""
        proc = proc or self.main
        errors, notes, supp, matched, supp_sites = [], [], [0, 0], set(), set()
        for key, (b, n, rb, rn, sites, past) in self.records(proc).items():
            file, line, func, callers = key
            hit = next((p for p in self.patterns if suppresses(p, file, line, func)), None)
            if hit:
                matched.add(hit[0])
                supp[0] += b
                supp[1] += n
                supp_sites.update(sites)
                continue
            if not past:    # a pointer just past a block's end must not keep it
                rb, rn = self.stale_words(proc, key, b, n, rb, rn)
            if b > rb:
                errors.append((b - rb, n - rn, file, line, func, callers, sites))
            if rb:
                notes.append((rb, rn, file, line, func, callers, sites))

        def ranked(recs, ties):
            return sorted(recs, key=lambda r: (-r[0], -r[1], r[2].encode(), r[3], r[4].encode(),
                                               ties.get((r[2], r[3], r[4], r[5]), len(ties))))
        stale = [p[0] for p in self.patterns if p[0] not in matched]
        return (ranked(errors, proc.ties['leaks']), ranked(notes, proc.ties['notes']), tuple(supp), stale,
                supp_sites)

    def stale_words(self, proc, key, b, n, rb, rn):
        """A record's reachable bytes and blocks, as the run found them if
        it found more, not more than the record holds (TOLERATE_STALE):
        the scan is conservative (doc/limits.md: "a stale value keeps a lost
        block reachable", registers and stacks of the C library's and the
        tracer's own included), so a lost block may be called reachable;
        a block the script's pointers reach must never be called leaked."""
        seen = proc.seen_reach.get(key)
        if (TOLERATE_STALE and self.reach and seen and seen[0] > rb and seen[1] >= rn
                and seen[0] <= b and seen[1] <= n):
            proc.stale.add(key)
            return seen
        return rb, rn

    def leaks(self, proc=None):
        """The leak errors (doc/guide.md "The leak report"): see outcome."""
        return self.outcome(proc)[0]

    def summary(self, proc):
        """Levels 1 and 2 (doc/guide.md's "The summary")."""
        acct = proc.acct
        lines = ['*** MTRACE: max resident  set size: RSS bytes',
                 '*** MTRACE: max traced memory size: %10d bytes (tracing overhead PCT)' % acct.peak]
        ranked = acct.ranked(acct.peaks, proc.ties['rows'])
        if self.wrappers:       # (its header even with no row: observed)
            lines += self.at_peak_table(proc)
        elif ranked:
            lines.append(' max bytes    blocks                function   file')
            for s in ranked[:20]:
                place, func = self.exit_where(s)
                lines.append('%10d%10d%24s   %s' % (acct.peaks[s], acct.peak_blocks[s], func, place))
            if len(ranked) > 20:
                lines.append('%10s   (%d more sites)' % ('...', len(ranked) - 20))
        calls, temporary = sum(acct.allocs.values()), sum(acct.temporary.values())
        if temporary >= 10 and temporary * 100 > calls * 10:     # doc/guide.md: over 10%, at least 10
            top = acct.ranked(acct.temporary, proc.ties['temporary'])[0]
            place, func = self.exit_where(top)
            lines.append('*** MTRACE: %d of %d allocations (%.1f%%) were temporary (freed before any other '
                         'allocation), %d of them at %s (in %s)' % (temporary, calls, 100.0 * temporary / calls,
                                                                   acct.temporary[top], place, func))
        if self.level == 1 and acct.nrec:
            t = self.trace_of(proc)
            d, b = os.path.split(t)
            if shutil.which('gnuplot'):
                lines.append('*** MTRACE: To get a graph (and %s/massif.out.%s for ms_print) use: mtrace2massif '
                             '--gnuplot=%s.gp %s && gnuplot -persist %s.gp' % (d, b, t, t, t))
            else:
                lines.append('*** MTRACE: To see it over time (no gnuplot on PATH) use: mtrace2massif %s && '
                             'ms_print %s/massif.out.%s' % (t, d, b))
        return lines

    def at_peak_table(self, proc):
        """The summary's table with MTRACE_ALLOC_FN and stacks (doc/guide.md
        "Use", doc/design.md "Wrappers"): what each place held at the
        global peak, the places charged as the leak report charges them,
        largest first; every place that allocated has its row, 0 included
        (observed), the same layout as the other table without its blocks
        column."""
        acct = proc.acct
        by_chain, by_site = acct.chain_bytes_at_peak(), acct.bytes_at_peak()
        held = {}
        for s in acct.order:
            if self.exit_site(s)[0] not in self.wrappers:
                place, func = self.exit_where(s)
                held[place, func] = held.get((place, func), 0) + by_site.get(s, 0)
                continue
            for chain in acct.chains.get(s, {}):
                file, line, func, _ = self.charged(s, chain)
                key = ('%s:%d' % (file, line), func)
                held[key] = held.get(key, 0) + by_chain.get((s, chain), 0)
        first = {k: i for i, k in enumerate(held)}
        ties = proc.ties['places']
        ranked = sorted(held, key=lambda k: (-held[k], ties.get(k[0], len(ties)), first[k]))
        lines = ['   at peak                function   file (charged past MTRACE_ALLOC_FN)']
        lines += ['%10d%24s   %s' % (held[k], k[1], k[0]) for k in ranked[:20]]
        if len(ranked) > 20:      # (observed: "places")
            lines.append('%10s   (%d more places)' % ('...', len(ranked) - 20))
        return lines

    def over_budget(self, proc):
        """MTRACE_MAX_HEAP (doc/guide.md, doc/report-json.md): peak_bytes >
        budget_bytes, each process by its own peak."""
        return self.budget is not None and proc.acct.peak > self.budget

    def budget_lines(self, proc):
        """The budget error (doc/mtrace.7, doc/guide.md "mtrace in
        CI"): the peak, the budget, the peak's record; then the three sites
        that held most at the peak, those that held any (observed), largest
        first, their notes not tagged in a child (observed, as callers);
        after the leaks' and suppressions' lines, before "No memory leaks"
        (observed)."""
        if not self.over_budget(proc):
            return []
        acct = proc.acct
        held = acct.bytes_at_peak()
        top = [s for s in acct.ranked({s: held.get(s, 0) for s in acct.order}, proc.ties['budget'])
               if held.get(s, 0) > 0][:3]
        lines = [('summary', '*** MTRACE: error: peak traced memory %d bytes exceeds the budget of %s (at record %d)'
                  % (acct.peak, self.opts['budget'], acct.peak_record))]     # (as written: observed)
        for s in top:
            place, func = self.exit_where(s)
            lines.append(('note', '%s: note: %d bytes held here at the peak (in %s)' % (place, held[s], func)))
        return lines

    def exit_report(self, proc):
        """The report at exit: (kind, line), kind 'summary' (tagged `[pid
        N] ` in front once the process forked, or in a child), 'leak' (` (pid
        N)` after it) or 'note' (a caller under a leak, as it is)."""
        if proc.aborted:
            return []
        lines = [('summary', l) for l in (self.summary(proc) if self.level <= 2 else [])]
        leaks, notes, (sb, sn), stale, _ = self.outcome(proc)
        shown = self.opts.get('records', LEAK_RECORDS_STACKS if self.stacks else LEAK_RECORDS) or len(leaks) + len(notes)
        for nbytes, blocks, file, line, func, chain, _ in leaks[:shown]:
            lines.append(('leak', '%s:%d: error: %d bytes in %d block%s leaked here (in %s)'
                          % (file, line, nbytes, blocks, '' if blocks == 1 else 's', func)))
            lines += [('note', '%s:%d: note: called from %s' % (f, l, fn)) for fn, f, l in chain]
        rest = leaks[shown:]
        if rest:
            lines.append(('summary', '*** MTRACE: and %d more leak records (%d bytes in %d blocks): the JSON report '
                          '(MTRACE_REPORT) has them all' % (len(rest), sum(r[0] for r in rest), sum(r[1] for r in rest))))
        if len(leaks) > 1:
            lines.append(('summary', '*** MTRACE: %d bytes in %d blocks leaked, in %d records'
                          % (sum(r[0] for r in leaks), sum(r[1] for r in leaks), len(leaks))))
        # MTRACE_LEAK_CHECK=reachable (doc/mtrace.7): the notes after the
        # errors, their total when several (observed, as the errors')
        if len(notes) > shown:
            raise Undefined('more still-reachable records than are printed')
        for nbytes, blocks, file, line, func, chain, _ in notes:
            lines.append(('leak', '%s:%d: note: %d bytes in %d block%s still reachable here (in %s)'
                          % (file, line, nbytes, blocks, '' if blocks == 1 else 's', func)))
            lines += [('note', '%s:%d: note: called from %s' % (f, l, fn)) for fn, f, l in chain]
        if len(notes) > 1:
            lines.append(('summary', '*** MTRACE: %d bytes in %d blocks still reachable, in %d records'
                          % (sum(r[0] for r in notes), sum(r[1] for r in notes), len(notes))))
        # MTRACE_SUPPRESS (doc/mtrace.7, doc/guide.md "mtrace in CI"): one
        # line, "blocks" even for one (the guide's), then the stale patterns
        if self.patterns and (sb or sn):
            lines.append(('summary', '*** MTRACE: %d bytes in %d blocks suppressed' % (sb, sn)))
        lines += [('leak', '%s:%d: warning: suppression matched no leak' % (SUPP_NAME, n)) for n in stale]
        # "No memory leaks" (levels 1-2) only when nothing went wrong, and
        # the counts of bad frees gone past last, invalid ones first (observed)
        lines += self.budget_lines(proc)
        if self.level <= 2 and not leaks and not proc.double and not proc.invalid:
            lines.append(('summary', '*** MTRACE: No memory leaks'))
        for n, what in ((proc.invalid, 'invalid free'), (proc.double, 'double free')):
            if n:
                lines.append(('summary', '*** MTRACE: %d %s%s ignored' % (n, what, '' if n == 1 else 's')))
        if proc.forked:     # doc/processes.md: "once a process has forked, its lines are tagged"
            tag = proc.name
            lines = [(k, '[pid <%s>] %s' % (tag, l) if k == 'summary' else
                      '%s (pid <%s>)' % (l, tag) if k == 'leak' else l) for k, l in lines]
        return lines

    def stderr(self):
        """The program's stderr: each process's bad-free reports at the call
        (not tagged, observed), each one's exit report when it ends."""
        # MTRACE_SUPPRESS's lines that are not patterns, at start-up (doc/guide.md:
        # "malformed lines ... named by FILE:LINE"; the text observed)
        out = ['*** MTRACE: %s:%d: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): %s' % (SUPP_NAME, n, t)
               for n, t in self.malformed]
        for kind, what in self.err:
            out += what if kind == 'lines' else [l for _, l in self.exit_report(what)]
        return out

    def report(self, proc=None):
        """The JSON report (doc/report-json.md), without what a run cannot
        predict (max_rss_bytes, tracer_bytes_at_peak; the program's pid);
        None if none."""
        proc = proc or self.main
        if proc.aborted:
            return None
        acct = proc.acct
        leaks, notes, (sb, sn), _, suppressed = self.outcome(proc)
        found = Counter()
        for b in self.reached(proc):
            found[b.site] += b.size
        for s, seen in proc.seen_sites.items():     # (see stale_words)
            if TOLERATE_STALE and self.reach and found[s] < seen <= acct.live.get(s, 0):
                found[s] = seen
        at_peak = acct.bytes_at_peak()
        sites = []
        for s in acct.ranked(acct.peaks, proc.ties['sites']):
            func, file, line = self.exit_site(s)
            sites.append({'function': func, 'file': file, 'line': line, 'allocations': acct.allocs[s],
                          'calls': acct.allocs[s], 'total_bytes': acct.total_bytes[s],
                          'temporary': acct.temporary[s], 'peak_blocks': acct.peak_blocks[s],
                          'peak_bytes': acct.peaks[s], 'bytes_at_peak': at_peak.get(s, 0),
                          'live_bytes': acct.live[s], 'live_blocks': acct.blocks[s],
                          'reachable_bytes': found[s], 'suppressed': s in suppressed})
        return {
            'mtrace_report': 2, 'pid': '<%s>' % proc.name if proc.forked else None,
            'rank': -1, 'level': self.level,
            'trace': self.trace_of(proc) if self.level == 1 and acct.nrec else None,
            'program_status': proc.status, 'exit_status': self.exit_status(proc),
            'peak_bytes': acct.peak, 'peak_record': acct.peak_record, 'records': acct.nrec,
            'double_frees': proc.double, 'invalid_frees': proc.invalid, 'mismatched_frees': 0, 'heap_errors': 0, 'freed_forgotten': 0,
            'leaked_bytes': sum(r[0] for r in leaks),
            'leaked_blocks': sum(r[1] for r in leaks),
            'suppressed_bytes': sb, 'suppressed_blocks': sn, 'reachable_bytes': sum(r[0] for r in notes),
            'untraced_signal_calls': 0, 'budget_bytes': self.budget, 'over_budget': self.over_budget(proc),
            'calls': sum(acct.allocs.values()), 'temporary': sum(acct.temporary.values()),
            'leaks': [{'function': fn, 'file': f, 'line': l, 'kind': kind, 'bytes': b, 'blocks': n,
                       'callers': [{'function': cf, 'file': cfile, 'line': cl} for cf, cfile, cl in ch]}
                      for kind, recs in (('leak', leaks), ('reachable', notes)) for b, n, f, l, fn, ch, _ in recs],
            'size_histogram': [{'min': 1 << (k - 1) if k else 0, 'max': (1 << k) - 1, 'count': c}
                               for k, c in sorted(acct.sizes.items()) if c],
            'sites': sites,
        }

    def files(self):
        """{file name: process} of the traces (level 1, once a record was
        written; doc/trace-format.md) and of the JSON reports (not after an
        abort), the children's named NAME.PID (doc/processes.md,
        doc/report-json.md); names relative to the trace's directory."""
        out = {}
        for proc in self.procs:
            suffix = '' if proc.index == 0 else '.<%s>' % proc.name
            if self.level == 1 and proc.acct.nrec:
                out[os.path.basename(self.trace_path) + suffix] = ('trace', proc)
            if not proc.aborted:
                out[os.path.splitext(os.path.basename(self.trace_path))[0] + '.json' + suffix] = ('json', proc)
        return out


def predict(ops, sites, level, mode, trace_path=None, stacks=None, opts=None):
    return Model(sites, level, mode, trace_path, stacks=stacks, opts=opts).run(ops)


def bad_ops(ops, sites):
    """How many bad frees a continue-mode run makes, in all its processes
    (0: no abort run)."""
    m = Model(sites, 3, 'continue', keep_records=False).run(ops)
    return sum(p.double + p.invalid for p in m.procs)

# --- the generator ------------------------------------------------------------

NORMAL_MAX = 800           # small blocks: at most 800 bytes ...
LARGE_MIN = 1200           # ... or at least 1200: never a victim's chunk size
VICTIM = (850, 1000)       # the sizes of the blocks freed twice far apart


def scannable_size(n):
    """A size whose block the reachability scan can judge exactly: not 0
    (the documents do not say whether a pointer to a 0-byte block's
    address reaches it), and not one whose last word lies in the header of
    glibc's next chunk (the chunk is max(32, n + 8 rounded up to 16): n mod
    16 in 1..8, above 16).  Observed: in random runs such blocks, lost,
    were often found reachable (about 1 scan in 3, against 1 in 15 without
    them), which the model cannot predict; the scan is conservative
    (doc/limits.md), so the generator keeps them out of its pointer
    scripts (scannable)."""
    return n > 0 and not (n > 16 and 1 <= n % 16 <= 8)


def scannable(op):
    """op with its size made scannable where it is one argument (8 more);
    the others are freed at once if their block is not (Generator.emit)."""
    at = {'malloc': 1, 'realloc': 1, 'valloc': 1, 'pvalloc': 1, 'wrap': 1, 'wrap2': 1,
          'memalign': 2, 'posix_memalign': 2}.get(op.name)
    if at is None or op.args[at] >= HUGE or op.args[at] == 0 or scannable_size(op.args[at]):
        return op
    args = list(op.args)
    args[at] += 8
    return Op(op.name, op.site, args)


class Generator:
    """A random script.  The generator runs the model as it writes, so it
    knows each slot's state and writes only what the model defines."""

    def __init__(self, seed, kinds, scale='default'):
        self.rng = random.Random(seed)
        self.kinds = kinds
        self.long = scale == 'long'
        self.ops = []
        self.model = Model({m: ('f', 'driver.c', 0) for m in MARKERS}, 3, 'continue', keep_records=False)
        self.pending = []          # (due op count, slot, 'free' or 'realloc')
        self.graph = self.rng.random() < 0.5    # pointers stored (root, link, hold): no 0-byte block
        self.wraps = self.rng.random() < 0.4    # allocations through the wrappers

    def emit(self, op):
        """Writes op (sites a and b now and then called through indirect,
        A and B, or for main's calls from main itself, m) and runs it."""
        m, rng = self.model, self.rng
        if op.site in ('a', 'b'):
            r = rng.random()
            if r < 0.08 and op.name in IN_MAIN and not m.thread:
                op.site = 'm'
            elif r < 0.3:
                op.site = op.site.upper()
        if op.name in ALLOCATORS + ('realloc', 'reallocarray') and self.graph:
            op = scannable(op)
            self.ops.append(op)
            self.emit_op(op)
            state, block = self.model.slots[op.args[0]]
            if state == LIVE and not scannable_size(block.size):
                self.emit(Op('free', self.site(), (op.args[0],)))       # (see Model.reached)
            return
        self.ops.append(op)
        self.emit_op(op)

    def emit_op(self, op):
        m = self.model
        if op.name == 'thread':
            m.thread_started()
            m.thread = 1
        elif op.name == 'join':
            m.thread = 0
        elif op.name == 'fork':
            m.fork()
        elif op.name == 'wait':
            m.end_child()
        else:
            try:
                m.step(op)
            except Ended:        # exit or return: the last op (of the script, or of a child)
                pass

    def site(self):
        return self.rng.choice('ab')

    def size(self):
        r = self.rng.random()
        if r < 0.05:
            return 0
        if r < 0.45:
            return self.rng.randint(1, 64)
        if r < 0.85:
            return self.rng.randint(65, NORMAL_MAX)
        if r < 0.97:
            return self.rng.randint(LARGE_MIN, 70000)
        return self.rng.randint(130000, 300000)       # from mmap (glibc)

    def slot(self, state=None):
        slots = [i for i, (s, _) in enumerate(self.model.slots) if state is None or s == state]
        return self.rng.choice(slots) if slots else None

    def movable(self):
        """A live block that the script may free or realloc: none that a
        pointer of the script's names or holds (Block.pinned)."""
        slots = [i for i, (s, b) in enumerate(self.model.slots) if s == LIVE and not b.pinned]
        return self.rng.choice(slots) if slots else None

    # -- allocations of every function, at both sites
    def allocation(self, slot, size):
        rng, s = self.rng, self.site()
        f = rng.choice(['malloc', 'calloc', 'strdup', 'strndup', 'aligned_alloc', 'posix_memalign',
                        'memalign', 'valloc', 'pvalloc', 'realloc', 'reallocarray'])
        if f == 'pvalloc' and HEAP_CHECK:
            f = 'valloc'        # (pvalloc's whole pages under the check: the driver's slot keeps n)
        if f == 'calloc':
            n = rng.randint(1, 8)
            return Op(f, s, (slot, n, size // n))
        if f == 'strdup':
            return Op(f, s, (slot, min(max(size - 1, 0), MAXSTR)))
        if f == 'strndup':
            n = min(max(size - 1, 0), MAXSTR - 20)
            return Op(f, s, (slot, n + rng.randint(0, 20), n))
        if f in ('aligned_alloc', 'posix_memalign', 'memalign'):
            align = rng.choice([8, 16, 32, 64, 256, 4096]) if f != 'aligned_alloc' else rng.choice([16, 64, 256])
            if f == 'aligned_alloc':
                size = max(align, size // align * align)
            return Op(f, s, (slot, align, size))
        if self.wraps and rng.random() < 0.25:
            return Op(rng.choice(WRAPS), s, (slot, size))
        if f == 'realloc':       # of NULL: the slot is emptied first by the caller
            return Op(f, s, (slot, size)) if self.model.slots[slot][0] == EMPTY else Op('malloc', s, (slot, size))
        if f == 'reallocarray':
            if self.model.slots[slot][0] != EMPTY:
                return Op('calloc', s, (slot, 1, size))
            n = rng.randint(1, 4)
            return Op(f, s, (slot, n, size // n))
        return Op(f, s, (slot, size))

    def safe(self, op):
        """An allocation that cannot take the chunk of a block freed far
        from its double free: none of its chunk sizes is a VICTIM's."""
        m = self.model
        size = m.requested(op) if op.name not in ('realloc', 'reallocarray') else (
            op.args[1] if op.name == 'realloc' else op.args[1] * op.args[2])
        if size is None:
            return True
        lo, hi = chunk(VICTIM[0]), chunk(VICTIM[1]) + 32
        return not any(lo <= c <= hi for c in alloc_classes(op, size))

    def some_allocation(self):
        for _ in range(20):
            slot = self.slot()
            op = self.allocation(slot, self.size())
            if self.safe(op):
                return op
        return Op('malloc', self.site(), (self.slot(), 16))

    def some_realloc(self):
        slot = self.movable()
        if slot is None:
            return self.some_allocation()
        rng = self.rng
        if rng.random() < 0.15:
            return Op('realloc', self.site(), (slot, 0))         # frees
        if rng.random() < 0.05:
            return Op('realloc', self.site(), (slot, HUGE))      # fails, keeps the block
        if rng.random() < 0.2:
            n = rng.randint(1, 4)
            op = Op('reallocarray', self.site(), (slot, n, self.size() // n))
        else:
            op = Op('realloc', self.site(), (slot, self.size()))
        return op if self.safe(op) else Op('realloc', self.site(), (slot, 32))

    def some_failure(self):
        rng, s, slot = self.rng, self.site(), self.slot()
        return rng.choice([Op('malloc', s, (slot, HUGE)), Op('calloc', s, (slot, HUGE, 4)),
                           Op('posix_memalign', s, (slot, 4, 64)), Op('valloc', s, (slot, HUGE))])

    def some_free(self):
        """A free of a live block, or now and then of NULL (an empty slot)."""
        live, empty = self.movable(), self.slot(EMPTY)
        slot = empty if empty is not None and (live is None or self.rng.random() < 0.05) else live
        if slot is None:
            return self.some_allocation()
        return Op('free', self.site(), (slot,))

    def some_burst(self):
        rng = self.rng
        r = rng.random()
        count = (rng.randint(1, 50) if r < 0.6 else rng.randint(50, 3000) if r < 0.97 or not self.long
                 else rng.randint(20000, MAXBURST))
        size = rng.choice([rng.randint(0, 64), rng.randint(65, NORMAL_MAX), rng.randint(LARGE_MIN, 5000)])
        return Op('burst', None, (size, self.room(count)))

    def room(self, count):
        """count, or fewer: a script frees fewer blocks than FREED_MAX."""
        return max(0, min(count, FREED_MAX - 100000 - self.model.acct.frees))

    # -- bad frees
    def victim(self, far):
        """Allocates a block and frees it; schedules the bad call on it."""
        rng, m = self.rng, self.model
        slot = self.slot(EMPTY) if self.slot(EMPTY) is not None else self.slot()
        if far:
            size = rng.randint(*VICTIM)
            f = rng.choice(['malloc', 'calloc', 'strdup', 'strndup', 'realloc', 'reallocarray'])
            s = self.site()
            if f in ('realloc', 'reallocarray') and m.slots[slot][0] != EMPTY:
                f = 'malloc'
            op = {'malloc': Op('malloc', s, (slot, size)), 'calloc': Op('calloc', s, (slot, 1, size)),
                  'strdup': Op('strdup', s, (slot, size - 1)), 'strndup': Op('strndup', s, (slot, size + 5, size - 1)),
                  'realloc': Op('realloc', s, (slot, size)), 'reallocarray': Op('reallocarray', s, (slot, 1, size))}[f]
        else:
            op = self.some_allocation()
            op.args = (slot,) + op.args[1:]
        self.emit(op)
        if m.slots[slot][0] != LIVE:
            return
        r = rng.random()
        if r < 0.6:
            self.emit(Op('free', self.site(), (slot,)))
        elif r < 0.85:
            self.emit(Op('realloc', self.site(), (slot, 0)))
        else:
            self.emit(Op('reallocarray', self.site(), (slot, 0, rng.randint(1, 8))))
        if far and not m.slots[slot][1].parked:
            return
        if far and rng.random() < 0.04:     # some 20,000 to 100,000 blocks in between
            self.emit(Op('burst', None, (rng.randint(1, 64), self.room(rng.randint(20000, MAXBURST)))))
        kinds = []
        if (far and 'double-far' in self.kinds) or (not far and 'double' in self.kinds):
            kinds.append('free')
        if (far and 'double-far' in self.kinds) or (not far and 'realloc-double' in self.kinds):
            kinds.append('realloc')
        if not kinds:
            return
        due = len(self.ops) + (rng.randint(1, 40) if far else 0)
        self.pending.append((due, slot, rng.choice(kinds)))

    def bad_call(self, slot, how):
        state, block = self.model.slots[slot]
        if state != FREED or not self.model.certain(block):
            return None
        if block.inherited and 'fork' not in self.kinds:
            return None         # (a child's double free of what its parent freed)
        if how == 'free':
            return Op('free', self.site(), (slot,))
        return Op('realloc', self.site(), (slot, self.rng.randint(1, 100)))

    def other_bad(self):
        rng = self.rng
        choices = [k for k in ('stack', 'interior', 'realloc-interior', 'static', 'mmap', 'unmapped') if k in self.kinds]
        if not choices:
            return None
        k = rng.choice(choices)
        s = self.site()
        if k == 'stack':
            return Op('free_stack', s, (rng.randint(0, 255),))
        if k == 'static':
            return Op('free_static', s, (rng.choice(['data', 'bss']), rng.randint(0, 255)))
        if k == 'mmap':
            return Op('free_mmap', s, (0,))
        if k == 'unmapped':
            return Op('free_unmapped', s, (rng.randint(0, 4095),))
        live = [i for i, (st, b) in enumerate(self.model.slots) if st == LIVE and b.size >= 2]
        if not live:
            return None
        slot = rng.choice(live)
        size = self.model.slots[slot][1].size
        k_off = rng.choice([1, 8, 16, rng.randint(1, size - 1)])
        k_off = min(k_off, size - 1)
        if k == 'interior':
            return Op('free_at', s, (slot, k_off))
        return Op('realloc_at', s, (slot, k_off, rng.randint(1, 100)))

    # -- the script
    def one_op(self):
        """An op of the mix, or None for a victim or a thread."""
        rng = self.rng
        r = rng.random()
        if r < 0.34:
            return self.some_allocation()
        if r < 0.50:
            return self.some_free()
        if r < 0.60:
            return self.some_realloc()
        if r < 0.63:
            return self.some_failure()
        if r < 0.66:
            return Op('say', None, (rng.choice(['hello', 'x', 'done', 'step%d' % len(self.ops)]),))
        if r < 0.675 and self.kinds:
            return self.libc()
        if r < 0.70 + (0.04 if self.long else 0):
            return self.some_burst()
        if r < 0.78:
            return self.other_bad() or self.some_allocation()
        if self.graph and r < 0.86:
            return self.some_pointer()
        return None

    def some_pointer(self):
        """A pointer stored where the reachability scan looks: in a global
        (root; unroot clears one), in a block (link: its last word, its
        first, any), in main's frame (hold); to a block's start, its last
        byte, anywhere in it, or just past its end (which reaches nothing)."""
        rng, m = self.rng, self.model
        live = [i for i, (st, b) in enumerate(m.slots) if st == LIVE and b.size > 0]
        if not live:
            return self.some_allocation()
        slot = rng.choice(live)
        size = m.slots[slot][1].size
        off = rng.choice([0, 0, size - 1, rng.randint(0, size - 1), size])
        holders = [i for i in live if m.slots[i][1].size >= 8 and not m.slots[i][1].inherited]
        r = rng.random()
        if r < 0.1:
            return Op('unroot', None, (rng.randrange(NROOTS),))
        if r < 0.25 and not m.thread:
            return Op('hold', None, (slot,))
        if r < 0.5 or not holders:
            return Op('root', None, (rng.randrange(NROOTS), slot, off))
        holder = rng.choice(holders)
        last = (m.slots[holder][1].size - 8) // 8 * 8
        return Op('link', None, (holder, rng.choice([last, last, 0, rng.randint(0, last // 8) * 8]), slot, off))

    def maybe_due(self):
        """Writes the bad calls that are due, while they stay certain."""
        for item in list(self.pending):
            due, slot, how = item
            if len(self.ops) >= due:
                self.pending.remove(item)
                op = self.bad_call(slot, how)
                if op:
                    self.emit(op)

    def body(self, n, inside_thread=False):
        rng = self.rng
        for _ in range(n):
            self.maybe_due()
            op = self.one_op()
            if op is not None:
                self.emit(op)
                continue
            r = rng.random()
            if r < 0.5:
                # a block freed, then freed again: at once (near), or later
                # (far: freed on the main thread, which keeps it in its tcache)
                far = not inside_thread and 'double-far' in self.kinds and rng.random() < 0.6
                if far or 'double' in self.kinds or 'realloc-double' in self.kinds:
                    self.victim(far)
                    self.maybe_due()
                    continue
            elif not inside_thread and (r < 0.9 or self.model.p.generation):
                self.emit(Op('thread'))
                self.body(rng.randint(1, 8), True)
                self.emit(Op('join'))
                continue
            elif not inside_thread:
                self.fork_block()
                continue
            self.emit(self.some_allocation())

    # -- fork
    def fork_block(self):
        """A child: it frees and reallocs what it inherited, its own blocks,
        now and then what its parent had freed (a double free); maybe a
        grandchild; it returns from main at the wait, or exits before."""
        rng, m = self.rng, self.model
        self.emit(Op('fork'))
        pending = list(self.pending)
        grandchild = m.p.generation < 3 and rng.random() < 0.3
        for i in range(rng.randint(1, 8)):
            r = rng.random()
            if grandchild and i == 1:
                self.fork_block()
            elif r < 0.3 and 'fork' in self.kinds:
                self.inherited_bad()
            elif r < 0.45:
                self.inherited_live()
            elif r < 0.55 and self.kinds:
                self.emit(self.libc())
            else:
                self.body(1)
        if rng.random() < 0.25:
            status = 0 if rng.random() < 0.7 else rng.randint(1, 5)
            self.emit(Op(rng.choice(['exit', 'return']), None, (status,)))
        self.emit(Op('wait'))
        self.pending = pending      # the child's due bad calls went with it

    def libc(self):
        """A string the C library allocates, often of a freed block's size
        (in a child, a block its parent freed), which it may then take."""
        rng = self.rng
        freed = [b.size for st, b in self.model.slots if st == FREED and 1 <= b.size <= 1000]
        n = rng.choice(freed) - 1 if freed and rng.random() < 0.7 else rng.randint(0, 200)
        return Op('libc', None, (n,))

    def inherited(self, state):
        return [i for i, (st, b) in enumerate(self.model.slots) if st == state and b.inherited and not b.pinned
                and (state != FREED or self.model.certain(b))]

    def inherited_bad(self):
        """In a child: a free or realloc of a block its parent (or an older
        generation) freed, or an inherited block freed twice."""
        rng, freed, live = self.rng, self.inherited(FREED), self.inherited(LIVE)
        if freed and (not live or rng.random() < 0.6):
            op = self.bad_call(rng.choice(freed), rng.choice(['free', 'free', 'realloc']))
            if op:
                self.emit(op)
        elif live:
            slot = rng.choice(live)
            self.emit(Op('free', self.site(), (slot,)))
            if rng.random() < 0.5:
                self.maybe_due()
                op = self.bad_call(slot, rng.choice(['free', 'realloc']))
                if op:
                    self.emit(op)
            else:
                self.pending.append((len(self.ops) + rng.randint(0, 6), slot, rng.choice(['free', 'realloc'])))

    def inherited_live(self):
        """In a child: an inherited block freed once (silent), realloc'ed
        (a block of its own), or freed inside (an invalid free)."""
        rng, live = self.rng, self.inherited(LIVE)
        if not live:
            return self.emit(self.some_allocation())
        slot = rng.choice(live)
        r = rng.random()
        if r < 0.5:
            self.emit(Op('free', self.site(), (slot,)))
        elif r < 0.8 or self.model.slots[slot][1].size < 2:
            op = Op('realloc', self.site(), (slot, rng.choice([0, self.size()])))
            self.emit(op if self.safe(op) else Op('realloc', self.site(), (slot, 32)))
        elif 'interior' in self.kinds:
            self.emit(Op('free_at', self.site(), (slot, rng.randint(1, self.model.slots[slot][1].size - 1))))

    def script(self):
        rng = self.rng
        n = rng.randint(5, 1200) if self.long else rng.randint(3, 90)
        for _ in range(rng.randint(0, 6)):          # some live blocks first
            self.emit(self.some_allocation())
        self.body(n)
        for due, slot, how in sorted(self.pending):  # the ones still waiting
            op = self.bad_call(slot, how)
            if op:
                self.emit(op)
        r = rng.random()
        status = 0 if rng.random() < 0.8 else rng.randint(1, 5)
        if r < 0.4:
            self.emit(Op('exit', None, (status,)))
        elif r < 0.8:
            self.emit(Op('return', None, (status,)))
        return self.ops


def generate(seed, kinds, scale='default'):
    return Generator(seed, kinds, scale).script()


# --- running the driver ----------------------------------------------------------

def option_variables(opts):
    """The environment of a run's options: MTRACE_SUPPRESS (the file
    SUPP_NAME in the run's directory), MTRACE_LEAK_CHECK=reachable,
    MTRACE_ALLOC_FN, MTRACE_LEAK_RECORDS; opts['env'], any others (faults.py's
    MTRACE_QUARANTINE, MTRACE_CHECK_EVERY)."""
    env = {}
    if opts.get('supp') is not None:
        env['MTRACE_SUPPRESS'] = SUPP_NAME
    if opts.get('reach'):
        env['MTRACE_LEAK_CHECK'] = 'reachable'
    if opts.get('alloc_fn'):
        env['MTRACE_ALLOC_FN'] = opts['alloc_fn']
    if opts.get('records') is not None:
        env['MTRACE_LEAK_RECORDS'] = str(opts['records'])
    if opts.get('budget') is not None:
        env['MTRACE_MAX_HEAP'] = opts['budget']
    env.update(opts.get('env', {}))
    return env


class Run:
    """What a run gave: its status as a shell reports it (128 + N when
    killed by signal N), stdout, stderr, and the files its processes wrote
    ({name: text}: the traces NAME, NAME.PID, the JSON reports likewise);
    report and trace are the program's own (None when not written)."""
    __slots__ = ('status', 'stdout', 'stderr', 'files', 'report', 'trace')


def run_driver(binary, ops, level, mode, workdir, tag, stacks=None, opts=None):
    """Runs the driver on a script; the traces and the reports go to
    workdir, the suppressions (opts['supp']) are read from it.  Nothing here
    goes through a shell."""
    opts = opts or {}
    script = os.path.join(workdir, tag + '.script')
    trace = os.path.join(workdir, tag + '.trace')
    report = os.path.join(workdir, tag + '.json')

    def outputs():
        return [n for n in os.listdir(workdir)
                if re.fullmatch(re.escape(tag) + r'\.(trace|json)(\.\d+)*', n)]
    with open(script, 'w') as f:
        f.write(format_script(ops))
    for name in outputs():
        os.unlink(os.path.join(workdir, name))
    env = {k: v for k, v in os.environ.items() if not k.startswith('MTRACE')}
    env.update(MTRACE=trace, MTRACE_REPORT=report)
    # Both ways of making the trace (README: the file is the same): the
    # program's thread for half the runs, the writer thread for the rest.
    if zlib.crc32(tag.encode()) % 2:
        env['MTRACE_WRITER'] = '0'
    if mode == 'continue':
        env['MTRACE_DOUBLE_FREE'] = 'continue'
    if stacks:
        env['MTRACE_DEPTH'] = str(stacks)
    env.update(option_variables(opts))
    if HEAP_CHECK:
        env['MTRACE_CHECK'] = 'heap'
    if opts.get('supp') is not None:
        with open(os.path.join(workdir, SUPP_NAME), 'w') as f:
            f.write(''.join(l + '\n' for l in opts['supp']))
    # (in a process group of its own: a run that hangs is killed with the
    # children it forked, none left spinning)
    p = subprocess.Popen([binary, script], env=env, cwd=workdir, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    RUNNING.add(p.pid)
    try:
        out, err = p.communicate(timeout=120)
        status = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        status = 'timeout'
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    RUNNING.discard(p.pid)
    r = Run()
    r.status = 128 - status if isinstance(status, int) and status < 0 else status
    r.stdout = out.decode('latin-1')
    r.stderr = err.decode('latin-1')
    r.files = {}
    for name in outputs():
        with open(os.path.join(workdir, name), encoding='latin-1') as f:
            r.files[name] = f.read()
        os.unlink(os.path.join(workdir, name))
    r.report, r.trace = r.files.get(tag + '.json'), r.files.get(tag + '.trace')
    return r


# --- comparing ----------------------------------------------------------------

# The property groups, one ok/FAIL line each (run.sh).
G_STATUS = 'exit status'
G_STDOUT = 'stdout is the script\'s own (and each child\'s end)'
G_BAD = 'bad-free reports at the call'
G_SUMMARY = 'summary: peak and per-site max bytes (levels 1-2)'
G_LEAKS = 'exit report: leak errors, ignored counts'
G_STDERR = 'stderr line for line'
G_JSON = 'JSON report'
G_REPLAY = 'trace replays (RECNO, TOTAL, SITE, stacks, tail)'
G_TRACE = 'trace records as the model predicts'
G_FORK = 'fork: each process\'s files (NAME.PID), tags and pids'
G_ABORT = 'abort mode: report, SIGABRT, trace kept, no JSON'
G_SUPP = 'MTRACE_SUPPRESS: suppressed line, stale and malformed patterns'
G_REACH = 'MTRACE_LEAK_CHECK=reachable: still-reachable notes'
G_ALLOCFN = 'MTRACE_ALLOC_FN: the at-peak table by charged place'
G_BUDGET = 'MTRACE_MAX_HEAP: the budget error and its sites'
GROUPS = [G_STATUS, G_STDOUT, G_BAD, G_SUMMARY, G_LEAKS, G_SUPP, G_REACH, G_ALLOCFN, G_BUDGET, G_STDERR, G_JSON,
          G_REPLAY, G_TRACE, G_FORK, G_ABORT]
STDERR_GROUPS = (G_BAD, G_SUMMARY, G_LEAKS, G_SUPP, G_REACH, G_ALLOCFN, G_BUDGET)


def mask(line):
    line = re.sub(r'(max resident  set size:) +\d+ bytes$', r'\1 RSS bytes', line)
    return re.sub(r'\(tracing overhead [0-9.]+%\)', '(tracing overhead PCT)', line)


def untagged(line):
    """A line without its process's tag (`[pid N] ` before, ` (pid N)` after)."""
    return re.sub(r' \(pid [^)]*\)$', '', re.sub(r'^\[pid [^\]]*\] ', '', line))


def stderr_group(line):
    line = untagged(line)
    if re.search(r'error: (double free|invalid free of|invalid realloc of)|note: (the block was allocated|and first freed|the program died)', line):
        return G_BAD
    if re.search(r': not a suppression \(|: warning: suppression matched no leak$|^\*\*\* MTRACE: \d+ bytes in \d+ blocks suppressed$', line):
        return G_SUPP
    if re.search(r'still reachable here \(in [^)]*\)$|^\*\*\* MTRACE: \d+ bytes in \d+ blocks still reachable, in', line):
        return G_REACH
    if re.match(r'   at peak  |( *\d+ +\S+   \S+:\d+$)', line):
        return G_ALLOCFN
    if re.search(r'^\*\*\* MTRACE: error: peak traced memory |: note: \d+ bytes held here at the peak \(in ', line):
        return G_BUDGET
    if re.match(r'\*\*\* MTRACE: max (resident|traced)| max bytes  |( *\d+ +\d+ +\S+   \S+:\d+$)| +\.\.\.   \(|'
                r'\*\*\* MTRACE: .* were temporary ', line):
        return G_SUMMARY
    if re.search(r'leaked here \(in [^)]*\)$|\*\*\* MTRACE: (No memory leaks|\d+ .* ignored$|To get a graph|To see it|'
                 r'and \d+ more leak records|\d+ bytes in \d+ blocks leaked)', line):
        return G_LEAKS
    return None


def stderr_groups(lines):
    """Each line's group; a caller (`note: called from`) is its place's."""
    groups, last = [], None
    for line in lines:
        g = last if re.search(r': note: called from ', line) else stderr_group(line)
        groups.append(g)
        last = g
    return groups


DIFF_LINES = 14     # a diff's length in a FAIL line's details (--script: more)


def diff(expected, actual):
    limit = DIFF_LINES
    lines = list(difflib.unified_diff(expected, actual, 'expected', 'actual', lineterm='', n=1))
    if len(lines) > limit:
        lines = lines[:limit] + ['... (%d more diff lines)' % (len(lines) - limit)]
    return '\n'.join(lines)


def replay(text, stacks=None):
    """The trace on its own (as tests/tracer/replay.awk): returns (records
    as (op, (func, file, line), total, site), problem or None, max total).
    With MTRACE_DEPTH (doc/trace-format.md, "Call stacks"): `#depth N`
    right after #cmd, and each record's seventh field a stack written
    before it, of the record's site."""
    sites, records, blocks, live = {}, [], Counter(), Counter()
    stack_site = {}
    total = rss = peak = 0
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if not lines or not lines[0].startswith('#cmd '):
        return records, 'the first line is not #cmd', peak
    if stacks and (len(lines) < 2 or lines[1] != '#depth %d' % stacks):
        return records, 'the second line is not #depth %d' % stacks, peak
    fields = 7 if stacks else 6
    tail = 0
    for n, line in enumerate(lines, 1):
        f = line.split(' ')
        if f[0] == '@':
            if len(f) != 5 or f[1] != str(len(sites) + 1):
                return records, 'line %d: bad site record: %s' % (n, line), peak
            sites[f[1]] = (f[2], f[3], int(f[4]))
        elif f[0] == '#stack':
            if not stacks or len(f) < 3 or f[1] != str(len(stack_site) + 1) or f[2] not in sites:
                return records, 'line %d: bad stack record: %s' % (n, line[:80]), peak
            stack_site[f[1]] = f[2]
        elif line.startswith('#'):
            continue
        elif f[0] in ('+', '-', '<', '>'):
            if tail:
                return records, 'line %d: a record after the tail' % n, peak
            if len(f) != fields:
                return records, 'line %d: not %d fields: %s' % (n, fields, line), peak
            op, sid, recno, tot, site, maxrss = f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5])
            if recno != len(records):
                return records, 'line %d: RECNO %d, expected %d' % (n, recno, len(records)), peak
            if sid not in sites:
                return records, 'line %d: site %s used before its @ record' % (n, sid), peak
            if stacks and stack_site.get(f[6]) != sid:
                return records, 'line %d: stack %s is not one of site %s written before' % (n, f[6], sid), peak
            size = tot - total
            if op in '+>':
                if size < 0:
                    return records, 'line %d: an allocation makes TOTAL shrink' % n, peak
                blocks[sid, size] += 1
                live[sid] += size
            else:
                size = -size
                if size < 0:
                    return records, 'line %d: a free makes TOTAL grow' % n, peak
                if blocks[sid, size] <= 0:
                    return records, 'line %d: no live %d-byte block of site %s' % (n, size, sid), peak
                blocks[sid, size] -= 1
                live[sid] -= size
            if live[sid] != site:
                return records, 'line %d: SITE is %d, the replay says %d' % (n, site, live[sid]), peak
            if maxrss < rss:
                return records, 'line %d: MAXRSS decreased' % n, peak
            total, rss, peak = tot, maxrss, max(peak, tot)
            records.append((op, sites[sid], tot, site))
        else:
            tail += 1
            if tail > 2:
                return records, 'line %d: not a record: %s' % (n, line[:80]), peak
    if tail != 2:
        return records, 'the trace does not end with the two gnuplot lines', peak
    return records, None, peak


def show_record(r, recno):
    if r is None:
        return '(none)'
    op, (func, file, line), total, site = r
    return '%s %s %s:%d RECNO %d TOTAL %d SITE %d' % (op, func, file, line, recno, total, site)


# --- the processes' pids: the model writes <P0> (the program), <P1>, ... for
#     them; a run's pids are named so from its stdout, where each parent says
#     `child PID of PPID: ...`, and its output is compared under those names

def bind_pids(model, run):
    """{pid as the run wrote it: 'P<k>'}, from the children's lines on
    stdout, taken in the model's order."""
    want = [m.groups() for m in (re.match(r'child <(P\d+)> of <(P\d+)>: ', l) for l in model.stdout) if m]
    got = re.findall(r'^child (\d+) of (\d+): ', run.stdout, re.M)
    names = {}
    for (wc, wp), (gc, gp) in zip(want, got):
        for number, name in ((gc, wc), (gp, wp)):
            if number not in names and name not in names.values():
                names[number] = name
    return names


def by_name(text, names, places=r'\[pid |\(pid |\.trace\.|\.json\.'):
    """text with the pids written where pids go replaced by their names."""
    return re.sub(r'(%s)(\d+)' % places, lambda m: m.group(1) + ('<%s>' % names[m.group(2)] if m.group(2) in names
                                                               else m.group(2)), text)


def stdout_by_name(text, names):
    return re.sub(r'^child (\d+) of (\d+):', lambda m: 'child %s of %s:' % tuple(
        '<%s>' % names[g] if g in names else g for g in m.groups()), text, flags=re.M)


def compare_json(expected, text, names):
    """Differences between the model's report and the program's."""
    if expected is None:
        return [] if text is None else ['a JSON report was written; none expected']
    if text is None:
        return ['no JSON report written']
    try:
        actual = json.loads(text)
    except ValueError as e:
        return ['the report is not JSON: %s' % e]
    problems = []
    # machine figures (the resident set, the tracer's own memory) and the
    # pid of a process that never forked (nothing in the run names it):
    # counts, not predicted
    for key in ('pid', 'max_rss_bytes', 'tracer_bytes_at_peak'):
        if not isinstance(actual.get(key), int) or actual[key] < 0:
            problems.append('%s: %r is not a count' % (key, actual.get(key)))
    # doc/report-json.md's fields, no other (a reader of version 2)
    extra = set(actual) - set(expected) - {'max_rss_bytes', 'tracer_bytes_at_peak'}
    if extra:
        problems.append('fields not documented: %s' % ', '.join(sorted(extra)))
    for r in actual.get('leaks') or []:
        if isinstance(r, dict) and set(r) != {'function', 'file', 'line', 'kind', 'bytes', 'blocks', 'callers'}:
            problems.append('a leak record with the fields %s' % sorted(r))
            break
    for key, want in expected.items():
        if key == 'sites':
            continue
        got = actual.get(key, 'missing')
        if key == 'pid':
            if want is None:
                continue
            got = '<%s>' % names[str(got)] if str(got) in names else got
        elif key == 'trace' and isinstance(got, str):
            got = by_name(got, names)
        if got != want:
            problems.append('%s: expected %r, got %r' % (key, want, got))
    return problems + compare_sites(expected['sites'], actual.get('sites'))


def compare_sites(want, got):
    """Each site's figures (matched by function, file and line), then
    their order."""
    if not isinstance(got, list) or not all(isinstance(g, dict) for g in got):
        return ['sites: %r is not a list of objects' % (got,)]

    def key(s):
        return '%s %s:%s' % (s.get('function'), s.get('file'), s.get('line'))
    problems = []
    by_key = {key(g): g for g in got}
    for w in want:
        g = by_key.get(key(w))
        if g is None:
            problems.append('site %s: missing' % key(w))
            continue
        bad = ['%s %r (expected %r)' % (k, g.get(k), v) for k, v in w.items() if g.get(k) != v]
        bad += ['%s not documented' % k for k in set(g) - set(w)]
        if bad:
            problems.append('site %s: %s' % (key(w), ', '.join(bad)))
    extra = set(by_key) - {key(w) for w in want}
    if extra:
        problems.append('sites not expected: %s' % ', '.join(sorted(extra)))
    order = [key(w) for w in want]
    if not problems and [key(g) for g in got] != order:
        problems.append('sites in the order %s, expected %s' % ([key(g) for g in got], order))
    return problems


def own_lines(proc, lines):
    """A process's lines of the exit report, untagged: those tagged with
    its name (once it forked) or with none."""
    if proc.forked:
        tag = '[pid <%s>] ' % proc.name
        return [l[len(tag):] for l in lines if l.startswith(tag)]
    return [l for l in lines if not l.startswith('[pid ')]


# The reachability scan is conservative (doc/limits.md): a stale word (in a
# register, a frame of the C library's or the tracer's, the tracer's own
# state) may keep a lost block reachable, and no script can rule that out.
# With this switch, a record's reachable part is taken from the run when
# the run found more than the script's pointers reach (never less: a
# reachable block called leaked is a failure); the runs so judged are
# counted in an INFO line.
TOLERATE_STALE = True
STALE_RUNS = []         # check_run's count of such runs, for check_seed


def follow_reach(model, proc, report, sites):
    """What the run's scan found, from the process's JSON report: each
    record's reachable bytes and blocks, each site's reachable bytes."""
    try:
        data = json.loads(report or '{}')
        proc.seen_reach = {(r['file'], r['line'], r['function'],
                            tuple((c.get('function'), c.get('file'), c.get('line')) for c in r['callers'])):
                           (r['bytes'], r['blocks']) for r in data.get('leaks', []) if r.get('kind') == 'reachable'}
        marker = {model.exit_site(m): m for m in sites if not m.startswith('CALL ')}
        proc.seen_sites = {marker[f, fl, l]: s['reachable_bytes'] for s in data.get('sites', [])
                           for f, fl, l in [(s.get('function'), s.get('file'), s.get('line'))]
                           if (f, fl, l) in marker and isinstance(s.get('reachable_bytes'), int)}
    except (ValueError, AttributeError, TypeError, KeyError):
        proc.seen_reach, proc.seen_sites = {}, {}


def follow_ties(model, proc, lines, report, sites):
    """Tells the model a process's order of the sites in the summary's
    rows, the temporary line, the JSON's sites and of the leak records that
    differ only by their callers (see Accounts.ranked, Model.leaks)."""
    marker = {'%s:%d' % model.exit_site(m)[1:]: m for m in sites if not m.startswith('CALL ')}     # (as the exit report writes them)
    own = own_lines(proc, lines)
    rows = [m.group(1) for m in (re.match(r'^ *\d+ +\d+ +\S+   (\S+:\d+)$', l) for l in own) if m]
    temporary = [m.group(1) for m in (re.match(r'^\*\*\* MTRACE: .* were temporary .* at (\S+:\d+) \(in \S+\)$', l)
                                      for l in own) if m]
    try:
        listed = ['%s:%s' % (s.get('file'), s.get('line')) for s in json.loads(report or '{}').get('sites', [])]
    except (ValueError, AttributeError, TypeError):
        listed = []
    for name, places in (('rows', rows), ('temporary', temporary), ('sites', listed)):
        proc.ties[name] = {marker[p]: i for i, p in reversed(list(enumerate(places))) if p in marker}
    at_peak = [m.group(1) for m in (re.match(r'^ *\d+ +\S+   (\S+:\d+)$', l) for l in own) if m]
    budget = [m.group(1) for m in (re.match(r'^(\S+:\d+): note: \d+ bytes held here at the peak', l) for l in lines) if m]
    proc.ties['budget'] = {marker[p]: i for i, p in reversed(list(enumerate(budget))) if p in marker}
    proc.ties['places'] = {p: i for i, p in reversed(list(enumerate(at_peak)))}
    suffix = ' (pid <%s>)' % proc.name if proc.forked else ''
    records, chain = {'leaks': [], 'notes': []}, None
    for l in lines:
        m = re.match(r'^(\S+):(\d+): (error|note): \d+ bytes in \d+ blocks? (leaked|still reachable) here \(in (\S+)\)'
                     r'( \(pid <P\d+>\))?$', l)
        if m and (m.group(6) or '') == suffix:
            chain = []
            records['leaks' if m.group(3) == 'error' else 'notes'].append((m.group(1), int(m.group(2)), m.group(5), chain))
            continue
        m = re.match(r'^(\S+):(\d+): note: called from (\S+)$', l)
        if m and chain is not None:
            chain.append((m.group(3), m.group(1), int(m.group(2))))
        else:
            chain = None
    for kind, recs in records.items():
        proc.ties[kind] = {}
        for i, (f, l, fn, ch) in enumerate(recs):
            proc.ties[kind].setdefault((f, l, fn, tuple(ch)), i)


def check_run(model, run, sites):
    """{group: [message]} for everything that differs.  In abort mode,
    once a process aborted, every difference is the abort group's."""
    fails = {}

    def fail(group, msg):
        fails.setdefault(G_ABORT if model.aborted else group, []).append(msg)

    if run.status == GUARD_STATUS or 'was handed out again: this free would not be' in run.stderr:
        fail(G_STATUS, 'the driver stopped (status 77): a double free of the script is not one '
                       '(the C library handed the address out again): %s' % run.stderr.strip()[-300:])
        return fails
    names = bind_pids(model, run)
    lines = [mask(by_name(l, names)) for l in run.stderr.split('\n')
             # (AddressSanitizer, under make test-sanitize, warns of the
             # failing huge allocations itself: its lines are not the tracer's)
             if not re.match(r'==\d+==WARNING: AddressSanitizer failed to allocate', l)]
    if lines and lines[-1] == '':
        lines.pop()
    files = {by_name(k, names): v for k, v in run.files.items()}
    want_files = model.files()
    json_of = {proc.index: name for name, (kind, proc) in want_files.items() if kind == 'json'}
    for proc in model.procs:
        follow_ties(model, proc, lines, files.get(json_of.get(proc.index)), sites)
        follow_reach(model, proc, files.get(json_of.get(proc.index)), sites)
    if run.status != model.exit_status():
        fail(G_STATUS, 'exit status %s, expected %s' % (run.status, model.exit_status()))
    stdout = stdout_by_name(run.stdout, names)
    if stdout != ''.join(model.stdout):
        fail(G_STDOUT, 'stdout %r, expected %r' % (stdout[-300:], ''.join(model.stdout)[-300:]))
    check_stderr(model, lines, fail)
    if set(files) != set(want_files):
        fail(G_FORK, 'files written %s, expected %s' % (sorted(files), sorted(want_files)))
    for name in sorted(set(files) | set(want_files)):
        kind, proc = want_files.get(name, (None, None))
        who = '' if proc is not None and proc.index == 0 else '%s: ' % name
        if name.startswith(os.path.basename(model.trace_path)):
            if proc is None:
                fail(G_REPLAY, '%sa trace file was written; none expected (level %d)' % (who, model.level))
                continue
            problems = check_trace(model, proc, files.get(name), files.get(json_of.get(proc.index)))
            for group, msg in problems:
                fail(group, who + msg)
        else:
            problems = compare_json(model.report(proc) if proc is not None else None, files.get(name), names)
            if problems:
                fail(G_JSON, who + '\n'.join(problems[:8]))
    STALE_RUNS.append(int(any(p.stale for p in model.procs)))
    return fails


def check_stderr(model, got, fail):
    """Line for line, and by groups of lines for a clearer message."""
    want = model.stderr()
    wg, gg = stderr_groups(want), stderr_groups(got)
    for group in STDERR_GROUPS:
        w = [l for l, g in zip(want, wg) if g == group]
        g = [l for l, g2 in zip(got, gg) if g2 == group]
        if w != g:
            fail(group, diff(w, g))
    if want != got:
        fail(G_STDERR, diff(want, got))
    tags = {m.group(1) or m.group(2) for m in (re.match(r'^\[pid ([^\]]*)\] |.* \(pid ([^)]*)\)$', l) for l in got) if m}
    if any(not re.fullmatch(r'<P\d+>', t) for t in tags):
        fail(G_FORK, 'tagged with a pid that is no process\'s: %s' % sorted(t for t in tags if t))


def check_trace(model, proc, text, report):
    """Level 1, once a record was written: the trace replays on its own,
    agrees with the process's own report, and holds the model's records.
    [(group, message)]."""
    acct = proc.acct
    if text is None:
        return [(G_REPLAY, 'no trace file')]
    records, problem, peak = replay(text, model.stacks)
    try:
        own = json.loads(report) if report else None
    except ValueError:
        own = None
    out = []
    if problem:
        out.append((G_REPLAY, problem))
    elif own is not None:
        final = records[-1][2] if records else 0
        live = [own.get(k) for k in ('leaked_bytes', 'suppressed_bytes', 'reachable_bytes')]
        if not all(isinstance(n, int) for n in live) or final != sum(live):
            out.append((G_REPLAY, 'the last TOTAL is %d, the report says %r bytes leaked, suppressed and reachable'
                        % (final, live)))
        if peak != own.get('peak_bytes'):
            out.append((G_REPLAY, 'the largest TOTAL is %d, the report says a peak of %r' % (peak, own.get('peak_bytes'))))
        if len(records) != own.get('records'):
            out.append((G_REPLAY, 'the trace has %d records, the report says %r' % (len(records), own.get('records'))))
    want = [(op, model.sites[s], t, b) for op, s, t, b in acct.records]
    if records != want:
        i = next((i for i, (w, g) in enumerate(zip(want, records)) if w != g), min(len(want), len(records)))
        out.append((G_TRACE, 'record %d: expected %s, got %s (%d records expected, %d in the trace)'
                    % (i, show_record(want[i] if i < len(want) else None, i),
                       show_record(records[i] if i < len(records) else None, i), len(want), len(records))))
    return out


def check_script(ops, sites, binaries, level, mode, workdir, tag, stacks=None, opts=None):
    """Runs one script at one level and mode, with the run's options;
    {group: [messages]}.  Raises Undefined for a script outside the
    contract."""
    trace = os.path.join(workdir, tag + '.trace')
    model = predict(ops, sites, level, mode, trace, stacks, opts)
    run = run_driver(binaries[level], ops, level, mode, workdir, tag, stacks, opts)
    return check_run(model, run, sites)


def without_threads(ops):
    return [op for op in ops if op.name not in ('thread', 'join')]


def stacks_run(ops, sites, every=1):
    """The MTRACE_DEPTH run of a script that frees badly: (level, depth,
    mode, ops), or None.  Its ops are the script's without threads (whose
    callers end in the C library, below no main), the level and the depth
    (8, or 2 or 3: chains cut short) chosen by the script's checksum, which
    also picks one script in `every` (a run with stacks costs several of
    the others: addr2line at each report); in continue mode, or in abort
    mode where continuing is not defined."""
    variant = without_threads(ops)
    h = zlib.crc32(format_script(variant).encode())
    level, depth = 1 + h % 3, (8, 8, 8, 2, 3)[h // 3 % 5]
    if h // 15 % every:
        return None
    wraps = any(op.name in WRAPS for op in variant)
    if wraps:
        depth = 8       # MTRACE_ALLOC_FN's charged place needs the callers up to main
    for mode in ('continue', 'abort'):
        try:
            m = Model(sites, level, mode, '/trace', keep_records=False, stacks=depth).run(variant)
        except Undefined:
            continue
        if any(p.double or p.invalid or p.aborted for p in m.procs) or (wraps and mode == 'continue'):
            return level, depth, mode, variant
        return None
    return None


def runs_of(ops, sites, every=1):
    """The runs a script gets, (level, mode, MTRACE_DEPTH or None, ops,
    options): every level in continue mode, and in abort mode too when it
    makes a bad free; then maybe one run with call stacks (stacks_run), for
    a script that frees badly or calls the wrappers.  The continue-mode
    runs get options (run_options)."""
    modes = ['continue'] + (['abort'] if bad_ops(ops, sites) else [])
    runs = [(level, mode, None, ops, run_options(ops, sites, level, mode)) for level in (1, 2, 3) for mode in modes]
    deep = (stacks_run(ops, sites, every) if modes[-1] == 'abort' or any(op.name in WRAPS for op in ops)
            else None)
    if deep:
        level, depth, mode, variant = deep
        runs.append((level, mode, depth, variant, run_options(variant, sites, level, mode, depth)))
    return runs


def run_options(ops, sites, level, mode, stacks=None):
    """A continue-mode run's options, chosen by the script's checksum and
    the run, so that one script is seen with and without each:
    MTRACE_LEAK_CHECK=reachable for a script that stores pointers (with
    MTRACE_LEAK_RECORDS=0: every record printed), a suppression file, and
    with stacks MTRACE_ALLOC_FN for a script that calls the wrappers
    (without suppressions then: a site's blocks charged to several places
    may be suppressed in part, which `suppressed` does not say)."""
    if mode != 'continue':
        return {}
    rng = random.Random(zlib.crc32(('%s/%d/%s' % (format_script(ops), level, stacks)).encode()))
    opts = {}
    if any(op.name in ('root', 'link', 'hold') for op in ops) and rng.random() < 0.85 and not HEAP_CHECK:
        opts.update(reach=True, records=0)      # (not under the check: see HEAP_CHECK)
    if stacks == 8 and any(op.name in WRAPS for op in ops) and rng.random() < 0.8:
        opts['alloc_fn'] = wrapper_list(rng)
        return opts     # (the budget's sites are sites, the at-peak table's places)
    if rng.random() < 0.35:
        opts['supp'] = suppression_file(rng, sites)
    if rng.random() < 0.25:
        opts['budget'] = budget_text(rng, ops, sites)
    return opts


def parse_size(text):
    """MTRACE_MAX_HEAP's SIZE (doc/guide.md): bytes, or with K, M or G (1024^n);
    None for none."""
    if text is None:
        return None
    m = re.fullmatch(r'(\d+)([KMG]?)', text)
    return int(m.group(1)) << (10 * ' KMG'.index(m.group(2) or ' '))


def budget_text(rng, ops, sites):
    """A budget near the program's peak: below it, at it, above it, or in
    K or M (0 is not a size: a warning, no budget)."""
    try:
        peak = Model(sites, 3, 'continue', keep_records=False).run(ops).main.acct.peak
    except Undefined:
        peak = 0
    return rng.choice([str(max(1, peak - 1)), str(max(1, peak)), str(peak + 1), str(max(1, peak // 2)),
                       '%dK' % max(1, peak // 1024), '1M'])


def wrapper_list(rng):
    """MTRACE_ALLOC_FN: some of the wrappers' names (and others), separated
    by spaces or commas (doc/guide.md, tests/depth.sh)."""
    names = [n for n in ('x_alloc', 'x_alloc2', 'do_wrap', 'nosuch_alloc') if rng.random() < 0.6] or ['x_alloc']
    rng.shuffle(names)
    text = names[0]
    for n in names[1:]:
        text += rng.choice([' ', ',', ', ', ' , ', '  ']) + n
    return rng.choice(['', ' ']) + text + rng.choice(['', ' ', ','])


def suppression_file(rng, sites):
    """A suppression file's lines: patterns of the driver's places (the
    function, the file as the report writes it or its last component, with
    or without the line; globs), others that match nothing, comments,
    blank lines, now and then a line that is not a pattern."""
    allocating = sorted(m for m in sites if not m.startswith('CALL ') and not m.startswith(('free', 'burst_free', 'libc')))
    funcs = sorted({sites[m][0] for m in allocating})
    lines = sorted({sites[m][2] for m in allocating})
    path = os.path.join(SOURCE_DIR or '.', 'driver.c')
    files = ['driver.c', 'dr*.c', '*.c', 'driver.?', '[cd]river.c', path, path[:-len('driver.c')] + 'd*.c', 'other.c']
    out = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.35:
            out.append('fun:' + rng.choice(funcs + ['do_*', 'do_?alloc', '*alloc*', 'do_[mc]alloc', 'nosuch_fn']))
        elif r < 0.55:
            out.append('src:' + rng.choice(files))
        elif r < 0.8:
            out.append('src:%s:%d%s' % (rng.choice(files), rng.choice(lines + [1]), rng.choice(['', '', '', 'x'])))
        elif r < 0.9:
            out.append(rng.choice(['# expected', '#', '']))
        else:
            out.append(rng.choice(['bogus', 'fun:', 'src:', 'leak:main']))
    return out


STACKS_EVERY = 3    # run.sh's seeds: a run with stacks for one script in 3 that free badly (--long: all)


def describe(level, mode, stacks, opts=None):
    return 'level %s, %s mode%s%s' % (level, mode, ', MTRACE_DEPTH=%d' % stacks if stacks else '',
                                      ''.join(', %s=%s' % kv for kv in sorted(option_variables(opts or {}).items())))


# --- shrinking ------------------------------------------------------------------

def shrink(ops, still_fails, budget_seconds=90):
    """Deletes ops (halves, quarters, ... single ones) while the failure
    persists, then halves burst counts and makes sites plain (A, B, m to
    a, b); returns the smallest script."""
    deadline = time.time() + budget_seconds
    chunk_len = max(1, len(ops) // 2)
    while chunk_len >= 1 and time.time() < deadline:
        i, removed = 0, False
        while i < len(ops) and time.time() < deadline:
            candidate = ops[:i] + ops[i + chunk_len:]
            if candidate and still_fails(candidate):
                ops, removed = candidate, True
            else:
                i += chunk_len
        if not removed:
            chunk_len //= 2
    for i, op in enumerate(ops):
        while op.name == 'burst' and op.args[1] > 1 and time.time() < deadline:
            smaller = Op('burst', None, (op.args[0], op.args[1] // 2))
            candidate = ops[:i] + [smaller] + ops[i + 1:]
            if not still_fails(candidate):
                break
            ops, op = candidate, smaller
        if op.site in ('A', 'B', 'm') and time.time() < deadline:
            plain = Op(op.name, 'a' if op.site == 'm' else op.site.lower(), op.args)
            candidate = ops[:i] + [plain] + ops[i + 1:]
            if still_fails(candidate):
                ops = candidate
    return ops


# --- the commands -------------------------------------------------------------

def binaries_for(bin_dir, build):
    return {level: os.path.join(bin_dir, 'driver-%s-%d' % (build, level)) for level in (1, 2, 3)}


def build_of(seed, forced):
    """Both builds are exercised: the library for even seeds, the one-line
    use for odd ones (MODEL_BUILD=lib or header forces one)."""
    return forced or ('lib' if seed % 2 == 0 else 'header')


def check_seed(args):
    """Generates a seed's script and checks every run of it; returns the
    counts and the first message of each failing group of each run."""
    seed, cfg = args
    ops = generate(seed, cfg['kinds'], cfg['scale'])
    sites, build = cfg['sites'], build_of(seed, cfg['build'])
    binaries = binaries_for(cfg['bin_dir'], build)
    workdir = tempfile.mkdtemp(prefix='seed%d-' % seed, dir=cfg['work'])
    out = {'seed': seed, 'build': build, 'runs': 0, 'fails': [], 'seconds': 0.0, 'ops': len(ops), 'bad': 0,
           'aborts': 0, 'stacks': 0, 'forks': sum(op.name == 'fork' for op in ops)}
    try:
        runs = runs_of(ops, sites, 1 if cfg['scale'] == 'long' else STACKS_EVERY)
        out['bad'] = int(any(m == 'abort' for _, m, _, _, _ in runs))
        for level, mode, stacks, variant, ropts in runs:
            t = time.time()
            fails = check_script(variant, sites, binaries, level, mode, workdir, 'run', stacks, ropts)
            out['seconds'] += time.time() - t
            out['runs'] += 1
            out['aborts'] += mode == 'abort'
            out['stacks'] += bool(stacks)
            for key in ('reach', 'supp', 'alloc_fn', 'budget'):
                out[key] = out.get(key, 0) + (ropts.get(key) is not None)
            out['stale'] = out.get('stale', 0) + sum(STALE_RUNS)
            del STALE_RUNS[:]
            for group, msgs in fails.items():
                out['fails'].append((group, level, mode, stacks, msgs[0], ropts))
    except Undefined as e:
        out['fails'].append((G_STATUS, 0, '-', None, 'the generator wrote a script the model does not define: %s' % e,
                             {}))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def say(verdict, text):
    print('%s %s' % (verdict, text), flush=True)


def note(text):
    for line in text.split('\n'):
        print('     ' + line, flush=True)


def cmd_check(opts):
    """Seeds in parallel, one PASS or FAIL line per group, then the first
    failure shrunk."""
    sites = read_sites(opts.driver)
    kinds = parse_kinds(opts.kinds)
    scale = 'long' if opts.long else 'default'
    work = tempfile.mkdtemp(prefix='model-', dir=opts.work)
    cfg = {'kinds': kinds, 'scale': scale, 'sites': sites, 'bin_dir': opts.bin_dir,
           'build': opts.build, 'work': work}
    seeds = list(range(opts.first, opts.first + opts.seeds))
    start = time.time()
    if opts.jobs > 1:
        results = pool_map(opts.jobs, check_seed, [(s, cfg) for s in seeds])
    else:
        results = [check_seed((s, cfg)) for s in seeds]
    elapsed = time.time() - start
    runs = sum(r['runs'] for r in results)
    title = 'model: %d seeds x 3 levels' % len(seeds)
    print('INFO kinds of bad free: %s (%s); %d runs, %d of them in abort mode, %d with MTRACE_DEPTH; '
          '%d scripts fork (%d forks); %d runs with MTRACE_LEAK_CHECK=reachable, %d with MTRACE_SUPPRESS, '
          '%d with MTRACE_ALLOC_FN, %d with MTRACE_MAX_HEAP (%d scans kept a lost block reachable: TOLERATE_STALE)'
          % (kinds_name(kinds), ','.join(kinds) or 'none', runs, sum(r['aborts'] for r in results),
             sum(r['stacks'] for r in results), sum(bool(r['forks']) for r in results),
             sum(r['forks'] for r in results), sum(r.get('reach', 0) for r in results),
             sum(r.get('supp', 0) for r in results), sum(r.get('alloc_fn', 0) for r in results),
             sum(r.get('budget', 0) for r in results),
             sum(r.get('stale', 0) for r in results)), flush=True)
    first_fail = None
    for group in GROUPS:
        hits = [(r['seed'], r['build'], lvl, mode, stacks, msg, ropts) for r in results
                for g, lvl, mode, stacks, msg, ropts in r['fails'] if g == group]
        if not hits:
            say('PASS', '%s: %s' % (title, group))
            continue
        seed, build, level, mode, stacks, msg, ropts = hits[0]
        say('FAIL', '%s: %s: %d runs differ; first: seed %d, %s, %s build'
            % (title, group, len(hits), seed, describe(level, mode, stacks, ropts), build))
        note(msg)
        if first_fail is None or (seed, level) < (first_fail[0], first_fail[2]):
            first_fail = (seed, build, level, mode, stacks, group, ropts)
    slowest = max(results, key=lambda r: r['seconds'])
    print('INFO %d runs in %.1f s (%d jobs); slowest seed %d (%d ops, %.1f s)'
          % (runs, elapsed, opts.jobs, slowest['seed'], slowest['ops'], slowest['seconds']), flush=True)
    if first_fail and opts.shrink and first_fail[2]:     # (level 0: the generator's own fault)
        report_shrunk(first_fail, cfg, opts)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if first_fail else 0


def report_shrunk(first_fail, cfg, opts):
    """The smallest script that still fails the same way, and the commands
    that reproduce the seed and the shrunk script."""
    seed, build, level, mode, stacks, group, ropts = first_fail
    sites = cfg['sites']
    ops = generate(seed, cfg['kinds'], cfg['scale'])
    if stacks:
        ops = without_threads(ops)      # (the ops of the run with stacks: stacks_run)
    binaries = binaries_for(cfg['bin_dir'], build)
    workdir = tempfile.mkdtemp(prefix='shrink-', dir=cfg['work'])

    def still_fails(candidate):
        try:
            if mode == 'abort' and not bad_ops(candidate, sites):
                return False
            fails = check_script(candidate, sites, binaries, level, mode, workdir, 'shrink', stacks, ropts)
        except Undefined:
            return False
        return group in fails

    start = time.time()
    small = shrink(ops, still_fails, opts.shrink_seconds)
    fails = check_script(small, sites, binaries, level, mode, workdir, 'shrink', stacks, ropts)
    top = 'MODEL_TOP=%s ' % os.environ['MODEL_TOP'] if os.environ.get('MODEL_TOP') else ''
    env = '%sMODEL_KINDS=%s MODEL_BUILD=%s ' % (top, kinds_name(cfg['kinds']), build)
    print('INFO seed %d, %s: %d ops shrunk to %d in %.0f s; %s'
          % (seed, describe(level, mode, stacks, ropts), len(ops), len(small), time.time() - start,
             'it differs in: ' + '; '.join(fails) if fails else 'it no longer differs (not reproducible?)'), flush=True)
    # the group shrunk for, and the whole stderr's diff (the bad-free,
    # summary and leak groups are parts of it)
    for g in [group] + ([G_STDERR] if group not in STDERR_GROUPS + (G_STDERR,) else []):
        if g in fails:
            note('[%s] %s' % (g, fails[g][0]))
    keep = opts.keep or os.path.join(tempfile.gettempdir(), 'mtrace-model')
    os.makedirs(keep, exist_ok=True)
    path = os.path.join(keep, 'seed%d-level%d-%s%s.script' % (seed, level, mode, '-depth%d' % stacks if stacks else ''))
    with open(path, 'w') as f:
        f.write(format_script(small))
    extra = script_options(ropts, path)
    print('INFO the shrunk script (%s):' % path, flush=True)
    note(format_script(small).rstrip('\n'))
    print('INFO reproduce the seed:   %stests/model/run.sh %s1 %d' % (env, '--long ' if cfg['scale'] == 'long' else '', seed))
    print('INFO reproduce the script: %sMODEL_BUILD=%s tests/model/run.sh --script %s --level %d --mode %s%s%s'
          % (top, build, path, level, mode, ' --stacks %d' % stacks if stacks else '', extra), flush=True)
    shutil.rmtree(workdir, ignore_errors=True)


def script_options(ropts, path):
    """run.sh's options for a run's options (the suppressions written
    next to the script)."""
    out = ''
    if ropts.get('reach'):
        out += ' --reach'
    if ropts.get('alloc_fn'):
        out += " --alloc-fn '%s'" % ropts['alloc_fn']
    if ropts.get('budget'):
        out += ' --max-heap %s' % ropts['budget']
    if ropts.get('supp') is not None:
        with open(path + '.supp', 'w') as f:
            f.write(''.join(l + '\n' for l in ropts['supp']))
        out += ' --suppress %s.supp' % path
    return out


def given_options(opts):
    """The options --script was given, None for none (then each run's
    own, as the seeds get them)."""
    if not (opts.reach or opts.alloc_fn or opts.suppress or opts.max_heap):
        return None
    ropts = {}
    if opts.max_heap:
        ropts['budget'] = opts.max_heap
    if opts.reach:
        ropts.update(reach=True, records=0)
    if opts.alloc_fn:
        ropts['alloc_fn'] = opts.alloc_fn
    if opts.suppress:
        with open(opts.suppress) as f:
            ropts['supp'] = f.read().split('\n')[:-1]
    return ropts


def cmd_script(opts):
    """One script: every difference of every run asked for, or (--one-line)
    one PASS or FAIL line for all its runs, as run.sh does for found/."""
    global DIFF_LINES
    DIFF_LINES = 80
    sites = read_sites(opts.driver)
    with open(opts.script) as f:
        ops = parse_script(f.read())
    build = opts.build or 'lib'
    binaries = binaries_for(opts.bin_dir, build)
    work = tempfile.mkdtemp(prefix='model-', dir=opts.work)
    name = 'model: %s' % (os.path.relpath(opts.script, os.path.dirname(opts.driver))
                          if opts.one_line else os.path.basename(opts.script))
    given = given_options(opts)
    try:
        levels = (opts.level,) if opts.level else (1, 2, 3)
        if opts.stacks:     # the script as it is, with stacks
            mode = opts.mode or 'continue'
            runs = [(l, mode, opts.stacks, ops, run_options(ops, sites, l, mode, opts.stacks)) for l in levels]
        else:
            runs = runs_of(ops, sites)
            runs = [r for r in runs if (not opts.level or r[0] == opts.level) and (not opts.mode or r[1] == opts.mode)]
            if opts.mode == 'abort' and not runs:
                runs = [(l, 'abort', None, ops, {}) for l in levels]
        if given is not None:
            runs = [(l, m, st, v, given if m == 'continue' else {}) for l, m, st, v, _ in runs]
        results = [(level, mode, stacks, check_script(variant, sites, binaries, level, mode, work, 'script', stacks,
                                                      ropts), ropts)
                   for level, mode, stacks, variant, ropts in runs]
    except Undefined as e:
        say('FAIL', '%s: the model does not define this script: %s' % (name, e))
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if opts.one_line:
        return one_line(name, results, build)
    status = 0
    for level, mode, stacks, fails, ropts in results:
        run = '%s, %s, %s build' % (name, describe(level, mode, stacks, ropts), build)
        if not fails:
            say('PASS', run)
        for group, msgs in fails.items():
            say('FAIL', '%s: %s' % (run, group))
            status = 1
            if group in STDERR_GROUPS and G_STDERR in fails:
                note('(see the stderr diff)')
                continue
            for m in msgs:
                note(m)
    return status


def one_line(name, results, build):
    """All the runs of a script as one line, the first failing run's
    differences below it."""
    name += ' (levels 1-3, %s mode%s, %s build)' % (' and '.join(sorted({r[1] for r in results})),
                                                    ', MTRACE_DEPTH too' if any(r[2] for r in results) else '',
                                                    build)
    failing = [r for r in results if r[3]]
    if not failing:
        say('PASS', name)
        return 0
    level, mode, stacks, fails, ropts = failing[0]
    say('FAIL', '%s: %d runs differ; first: %s: %s'
        % (name, len(failing), describe(level, mode, stacks, ropts), '; '.join(fails)))
    note(fails.get(G_STDERR, fails.get(G_JSON, next(iter(fails.values()))))[0])
    return 1


def cmd_generate(opts):
    sys.stdout.write(format_script(generate(opts.seed, parse_kinds(opts.kinds), 'long' if opts.long else 'default')))
    return 0


def cmd_predict(opts):
    sites = read_sites(opts.driver)
    with open(opts.script) as f:
        ops = parse_script(f.read())
    m = predict(ops, sites, opts.level, opts.mode, os.path.abspath('mtrace'), opts.stacks)
    print('exit status %d' % m.exit_status())
    sys.stdout.write(''.join('stdout: ' + l for l in m.stdout))
    for line in m.stderr():
        print('stderr: ' + line)
    for name, (kind, proc) in sorted(m.files().items()):
        if kind == 'json':
            print('%s: %s' % (name, json.dumps(m.report(proc), indent=1)))
    return 0


# The process groups of this process's runs in flight.  A run has a
# session of its own (above), so a signal that ends the suite (`timeout`,
# Ctrl-C) does not reach it: without this, a hung run left by a suite
# that was ended (make mutate's timeouts) went on spinning for good.
RUNNING = set()


def model_cli(prog):
    """The command line faults.py and cxx.py share: `check --seeds N
    --first F --jobs J --bin-dir DIR --work DIR [--keep DIR]` and `show
    SEED`, the runs in flight ended on SIGTERM, SIGINT and SIGHUP.  Gives
    the parser and its subparsers (for a command of the script's own)."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, end_runs)    # no run left spinning
    p = argparse.ArgumentParser(prog=prog)
    sub = p.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('check')
    c.add_argument('--seeds', type=int, default=100)
    c.add_argument('--first', type=int, default=1)
    c.add_argument('--jobs', type=int, default=2)
    c.add_argument('--bin-dir', required=True)
    c.add_argument('--work', required=True)
    c.add_argument('--keep')
    s = sub.add_parser('show')
    s.add_argument('seed', type=int)
    return p, sub


def report_seeds(results, groups, opts, name, rerun):
    """The verdicts of a model's seeds, as its suite reads them: per group
    (in `groups`' order) "PASS GROUP (N seeds)", or "FAIL GROUP first at
    ..." with up to 20 INFO lines and the first failing seed's script kept
    as NAME-SEED.script (`rerun` % (seed, seed...) says how to run it
    again), then one INFO line of what the seeds exercised.  results:
    (seed, what, fails [(group, text)], counts {kind: n}, script) each.
    1 if a group failed."""
    first, total = {}, {}
    for seed, what, fails, counts, script in results:
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        for g, text in fails:
            first.setdefault(g, (what, text, script, seed))
    bad = 0
    for g in groups:
        if g not in first:
            print('PASS %s (%d seeds)' % (g, opts.seeds))
            continue
        bad = 1
        what, text, script, seed = first[g]
        print('FAIL %s first at %s' % (g, what))
        for line in text.splitlines()[:20]:
            print('INFO   ' + line)
        path = os.path.join(opts.keep or opts.work, '%s-%d.script' % (name, seed))
        with open(path, 'w') as f:
            f.write(script)
        print('INFO   script: %s (%s)' % (path, rerun.replace('SEED', str(seed))))
    print('INFO %s: %d seeds: %s' % (name, opts.seeds, ', '.join('%d %s' % (v, k) for k, v in sorted(total.items()))))
    return bad


MAIN_PID = os.getpid()


def end_runs(signum, frame):
    """SIGTERM, SIGINT, SIGHUP: the runs in flight killed, and, in the
    main process, its pool workers (which do the same), then exit.  A
    worker touches no multiprocessing state here: the pool's own locks
    may be held at that moment (a worker that did hung the pool, and the
    suite with it)."""
    for group in list(RUNNING):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    if os.getpid() == MAIN_PID and 'multiprocessing' in sys.modules:
        for child in sys.modules['multiprocessing'].active_children():
            child.terminate()
    os._exit(128 + signum)


def pool_map(jobs, fn, args):
    """fn over args on `jobs` worker processes, results in order.  The
    pool is closed and joined, never terminated: a normal end sends the
    workers no signal (terminate() does, while it holds the pool's task
    lock)."""
    import multiprocessing
    pool = multiprocessing.Pool(jobs)
    try:
        return list(pool.imap(fn, args, chunksize=1))
    finally:
        pool.close()
        pool.join()


def main(argv):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, end_runs)
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--driver', default=os.path.join(here, 'driver.c'))
    sub = p.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('check', help='seeds against the drivers built by run.sh')
    c.add_argument('--bin-dir', required=True)
    c.add_argument('--seeds', type=int, default=200)
    c.add_argument('--first', type=int, default=1)
    c.add_argument('--long', action='store_true')
    c.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    c.add_argument('--kinds', default=os.environ.get('MODEL_KINDS', 'all'))
    c.add_argument('--build', default=os.environ.get('MODEL_BUILD'))
    c.add_argument('--work', default=None)
    c.add_argument('--keep', default=os.environ.get('MODEL_KEEP'))
    c.add_argument('--shrink', type=int, default=int(os.environ.get('MODEL_SHRINK', '1')))
    c.add_argument('--shrink-seconds', type=float, default=float(os.environ.get('MODEL_SHRINK_SECONDS', '120')))
    s = sub.add_parser('script', help='one script, every difference')
    s.add_argument('script')
    s.add_argument('--bin-dir', required=True)
    s.add_argument('--level', type=int)
    s.add_argument('--mode', choices=['continue', 'abort'])
    s.add_argument('--stacks', type=int, help='MTRACE_DEPTH=N runs of the script as it is')
    s.add_argument('--reach', action='store_true', help='MTRACE_LEAK_CHECK=reachable (and MTRACE_LEAK_RECORDS=0)')
    s.add_argument('--suppress', help='MTRACE_SUPPRESS: a file of patterns')
    s.add_argument('--alloc-fn', help='MTRACE_ALLOC_FN (with --stacks)')
    s.add_argument('--max-heap', help='MTRACE_MAX_HEAP')
    s.add_argument('--build', default=os.environ.get('MODEL_BUILD'))
    s.add_argument('--work', default=None)
    s.add_argument('--one-line', action='store_true')
    g = sub.add_parser('generate', help='print the script of a seed')
    g.add_argument('seed', type=int)
    g.add_argument('--long', action='store_true')
    g.add_argument('--kinds', default=os.environ.get('MODEL_KINDS', 'all'))
    r = sub.add_parser('predict', help='print what the model expects of a script')
    r.add_argument('script')
    r.add_argument('--level', type=int, default=1)
    r.add_argument('--mode', choices=['continue', 'abort'], default='continue')
    r.add_argument('--stacks', type=int)
    opts = p.parse_args(argv)
    return {'check': cmd_check, 'script': cmd_script, 'generate': cmd_generate, 'predict': cmd_predict}[opts.cmd](opts)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
