#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/segments/check.py FULL NAME [MASSIF]: a trace written in segments
# (MTRACE_TRACE_MAX, NAME and NAME.seg-K) against the full trace FULL of
# the same deterministic run:
#  - each segment's checkpoint (#checkpoint, #live, #live-stack) is the
#    replay of FULL up to its RECNO: the total, the live blocks, the peak
#    and its record, every site's bytes, blocks and peak, every stack's;
#  - the kept segments' records, oldest first, are FULL's from the first
#    kept checkpoint on (MAXRSS aside), with no gap, to FULL's end;
#  - each segment's definitions are FULL's (@ records, #stack's SID and ID);
#  - MASSIF (mtrace2massif --time-unit=i of NAME): every snapshot after
#    the first kept checkpoint has FULL's live bytes at its time.
# FULL '-': no full trace (threads): each kept checkpoint is the one
# before it and the records between.
# Prints "segments: K kept, from record R, N records" or the first
# difference (exit 1).
import glob, os, re, subprocess, sys

def text(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] == b'\x28\xb5\x2f\xfd':
        data = subprocess.run(['zstd', '-dcq', path], check=True, capture_output=True).stdout
    return data.decode('latin-1').splitlines()

def fail(msg):
    print('segments: ' + msg)
    sys.exit(1)

def replay(lines):
    """the records, and the state before each record number"""
    recs, defs, stacks = [], [], []
    for l in lines:
        f = l.split(' ')
        if f[0] == '@':
            defs.append(l)
        elif f[0] == '#stack':
            stacks.append(f[:3])    # (its addresses move with ASLR from run to run)
        elif f[0] in '+-<>' and len(f) >= 6 and f[0]:
            recs.append((f[0], int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[6]) if len(f) > 6 else 0))
    return recs, defs, stacks

def state_at(recs, upto, start=None):
    total, blocks, peak, peak_rec, site, stack = start or (0, 0, 0, 0, {}, {})
    site = {k: list(v) for k, v in site.items()}
    stack = {k: list(v) for k, v in stack.items()}
    for op, sid_, recno, tot, live, sid in recs[:upto]:
        grows = op in '+>'
        size = tot - total if grows else total - tot
        s = site.setdefault(sid_, [0, 0, 0])
        s[0] = live
        s[1] += 1 if grows else -1
        s[2] = max(s[2], live)
        if sid:
            t = stack.setdefault(sid, [0, 0])
            t[0] += size if grows else -size
            t[1] += 1 if grows else -1
        blocks += 1 if grows else -1
        total = tot
        if tot > peak:
            peak, peak_rec = tot, recno
    return total, blocks, peak, peak_rec, site, stack

def checkpoint(lines):
    """a segment's checkpoint as state_at gives it, and its RECNO"""
    v = list(map(int, [l for l in lines if l.startswith('#checkpoint ')][0].split()[1:]))
    site = {int(l.split()[1]): list(map(int, l.split()[2:5])) for l in lines if l.startswith('#live ')}
    stack = {int(l.split()[1]): list(map(int, l.split()[2:4])) for l in lines if l.startswith('#live-stack ')}
    return (v[2], v[3], v[4], v[5], site, stack), v[1]

def same_state(a, b):
    """equal, but for sites that never held a byte and stacks that hold none"""
    def norm(st):
        return st[:4] + ({k: v for k, v in st[4].items() if v[2]}, {k: v for k, v in st[5].items() if v[1]})
    return norm(a) == norm(b)

def chained(name):
    """FULL given as '-' (a run that cannot be repeated, threads): each kept
    segment's checkpoint is the one before it and that segment's records"""
    segs = sorted((int(m.group(1)), p) for p in glob.glob(glob.escape(name) + '.seg-*')
                  for m in [re.search(r'\.seg-([0-9]+)$', p)] if m)
    files = [p for _, p in segs] + [name]
    state = None
    for path in files:
        lines = text(path)
        recs = replay(lines)[0]
        if any(l.startswith('#checkpoint ') for l in lines):
            cp, recno = checkpoint(lines)
            if state is not None and not same_state(state, cp):
                fail('%s: its checkpoint is not the one before and the records between' % path)
            if recs and recs[0][2] != recno:
                fail('%s: its first record is %d, its checkpoint says %d' % (path, recs[0][2], recno))
            state = cp
        if state is not None:
            state = state_at(recs, len(recs), state)
    print('segments: %d kept, each checkpoint the one before and the records between' % len(files))
    sys.exit(0 if state is not None and len(files) > 2 else 1)

def main():
    full, name = sys.argv[1], sys.argv[2]
    if full == '-':
        chained(name)
    frecs, fdefs, fstacks = replay(text(full))
    for i, r in enumerate(frecs):
        if r[2] != i:
            fail('the full trace is not whole at record %d' % i)
    segs = sorted((int(m.group(1)), p) for p in glob.glob(glob.escape(name) + '.seg-*')
                  for m in [re.search(r'\.seg-([0-9]+)$', p)] if m)
    cp = [l for l in text(name) if l.startswith('#checkpoint ')]
    own = int(cp[0].split()[1]) if cp else 1
    files = [p for k, p in segs if k < own] + [name]   # this run's: below NAME's number
    if [k for k, _ in segs if k < own] != list(range(own - len(files) + 1, own)):
        fail('the kept segments are not numbered without a gap up to NAME\'s (%d)' % own)
    kept, first = [], None
    for path in files:
        lines = text(path)
        cp = [l for l in lines if l.startswith('#checkpoint ')]
        recs, defs, stacks = replay(lines)
        if defs != fdefs[:len(defs)] or stacks != fstacks[:len(stacks)]:
            fail('%s: its definitions are not the full trace\'s' % path)
        if cp:
            v = list(map(int, cp[0].split()[1:]))
            seg_no, recno = v[0], v[1]
            m = re.search(r'\.seg-([0-9]+)$', path)
            if m and int(m.group(1)) != seg_no:
                fail('%s: its checkpoint says segment %d' % (path, seg_no))
            total, blocks, peak, peak_rec, site, stack = state_at(frecs, recno)
            if v[2:6] != [total, blocks, peak, peak_rec]:
                fail('%s: checkpoint %s, the replay gives total %d blocks %d peak %d at %d'
                     % (path, v[:6], total, blocks, peak, peak_rec))
            lsite = {int(l.split()[1]): list(map(int, l.split()[2:5])) for l in lines if l.startswith('#live ')}
            want = {k: s for k, s in site.items() if s[2]}
            if lsite != want:
                fail('%s: #live records %s, the replay gives %s' % (path, sorted(lsite.items())[:5], sorted(want.items())[:5]))
            lstack = {int(l.split()[1]): list(map(int, l.split()[2:4])) for l in lines if l.startswith('#live-stack ')}
            if lstack != {k: t for k, t in stack.items() if t[1]}:
                fail('%s: #live-stack records differ from the replay' % path)
            if first is None:
                first = recno
        elif first is None:
            first = 0
        kept += recs
    if [r[:5] + r[5:] for r in kept] != frecs[first:]:
        for i, (a, b) in enumerate(zip(kept, frecs[first:])):
            if a != b:
                fail('record %d: %s in the segments, %s in the full trace' % (first + i, a, b))
        fail('the segments hold %d records from %d, the full trace %d' % (len(kept), first, len(frecs) - first))
    if len(sys.argv) > 3:
        heap_at = [0]
        for r in frecs:
            heap_at.append(r[3])
        snaps = re.findall(r'time=(\d+)\nmem_heap_B=(\d+)', open(sys.argv[3]).read())
        later = [(int(t), int(h)) for t, h in snaps if int(t) > first]
        if not later:
            fail('no snapshot after the checkpoint in ' + sys.argv[3])
        for t, h in later:
            if heap_at[t] != h:
                fail('snapshot at time %d: mem_heap_B %d, the full trace %d' % (t, h, heap_at[t]))
    print('segments: %d kept, from record %d, %d records' % (len(files), first, len(kept)))

main()
