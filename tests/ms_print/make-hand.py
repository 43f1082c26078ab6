#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/ms_print/make-hand.py - writes the hand-written edge cases:
hand/*.massif.out (files /usr/bin/ms_print accepts) and bad/*.massif.out
(files it rejects).  Re-run, then regen.sh --expected-only, to change them."""
import os
os.chdir(os.path.dirname(os.path.abspath(__file__)))
os.makedirs('hand', exist_ok=True)
os.makedirs('bad', exist_ok=True)
ROOT = '(heap allocation functions) malloc/new/new[], --alloc-fns, etc.'


def snap(n, t, h, e=0, s=0, tree=None, kind=None):
    L = ['#-----------', f'snapshot={n}', '#-----------', f'time={t}',
         f'mem_heap_B={h}', f'mem_heap_extra_B={e}', f'mem_stacks_B={s}']
    if tree is None:
        L.append('heap_tree=empty')
    else:
        L.append('heap_tree=' + (kind or 'detailed'))
        L += tree
    return L


def hdr(unit='B', desc=('desc: (none)',), cmd='cmd: ./prog'):
    return list(desc) + [cmd, f'time_unit: {unit}']


def w(name, lines, end='\n', d='hand', final=True):
    with open(f'{d}/{name}.massif.out', 'w', newline='') as f:
        f.write(end.join(lines) + (end if final else ''))


# massif-format.md B.9 example 1: tree formatting
w('doc-insig', ['desc: (none)', 'cmd: ./insig', 'time_unit: B'] + snap(0, 0, 0) + snap(1, 100, 10000, tree=[
    f'n3: 10000 {ROOT}', ' n2: 9000 0x1: a (i.c:1)', '  n1: 8950 0x2: b (i.c:2)',
    '   n0: 8950 0x3: main (i.c:9)', '  n0: 50 0x4: c (i.c:3)',
    " n0: 700 in 12 places, all below massif's threshold (1.00%)",
    " n0: 30 in 1 place, below massif's threshold (1.00%)"]))
# example 2: the graph algorithm
L = hdr()
for i, (t, m, k) in enumerate([(0, 0, None), (100, 500, None), (101, 900, 'detailed'), (102, 700, 'peak'),
                               (103, 1000, None), (700, 300, None), (701, 800, 'detailed'), (1000, 100, None)]):
    L += snap(i, t, m, tree=None if k is None else [f'n0: {m} {ROOT}'], kind=k)
w('doc-graph', L)
# floating-point edges of B.4
w('float-edges-a', hdr() + snap(0, 0, 0) + snap(1, 10, 249) +
  snap(2, 20, 332, tree=[f'n0: 332 {ROOT}'], kind='peak') + snap(3, 30, 100))
w('float-edges-b', hdr() + snap(0, 0, 7, tree=[f'n0: 7 {ROOT}'], kind='peak') + snap(1, 5, 6) +
  snap(2, 23, 3) + snap(3, 40, 7))
# all totals zero, including a detailed snapshot
w('all-zero', hdr('i') + snap(0, 0, 0) + snap(1, 0, 0, tree=[f'n1: 0 {ROOT}', ' n0: 0 0x1: main (z.c:1)']) + snap(2, 0, 0))
w('single', hdr('ms') + snap(0, 0, 0))
w('single-detailed', hdr('i') + snap(0, 5000, 1234, 56, 0, tree=[
    f'n2: 1234 {ROOT}', ' n0: 1000 0x1: a (a.c:1)', ' n0: 234 0x2: b (a.c:2)'], kind='peak'))
L = hdr('B')
for i in range(12):
    L += snap(i, 777, 100 * i, 8 * i, tree=[f'n0: {100 * i} {ROOT}'] if i % 4 == 3 else None,
              kind='peak' if i == 7 else None)
w('equal-times', L)
# huge numbers: 2^53, 2^63, 2^64-1, sums that overflow 64 bits
U = 2 ** 64 - 1
w('huge-numbers', hdr('B') + snap(0, 0, 0) + snap(1, 2 ** 53, 2 ** 53, 1) +
  snap(2, 2 ** 63, 2 ** 63, 2 ** 63 - 1, 1, tree=[f'n2: {2 ** 63} {ROOT}', f' n0: {2 ** 62} 0x1: big (h.c:1)',
                                                 f' n0: {2 ** 62} 0x2: big2 (h.c:2)']) +
  snap(3, U, U, 1, 1, tree=[f'n1: {U} {ROOT}', f' n0: {U} 0x3: huge (h.c:3)'], kind='peak') +
  snap(4, U, 12345678901234567890, 10 ** 19, 0) + snap(5, U, 10 ** 15, 10 ** 15))
w('huge-floats', hdr('i') + snap(0, 0, 1) + snap(1, 10 ** 30, 10 ** 25, 10 ** 25, tree=[
    f'n1: {10 ** 25} {ROOT}', ' n0: 999999999999999999999 0x1: x (x.c:1)']) + snap(2, 10 ** 31, 5))
# desc: lines
w('desc-several', ['desc: --time-unit=B --threshold=0.5', 'desc:', 'desc:   --depth=3   ',
                   'cmd:    ./spaced  arg  ', 'time_unit:B'] + snap(0, 0, 0) + snap(1, 10, 20))
w('desc-none', ['cmd: ./nodesc', 'time_unit: i'] + snap(0, 0, 0) + snap(1, 1000, 2048))
w('desc-empty', ['desc:', 'cmd:', 'time_unit: ms'] + snap(0, 0, 10))
# odd spacing, comments, blank lines, trailing blanks, indentation ignored
w('odd-spacing', ['', '# a comment first', 'desc: x  # trailing comment', '   ', 'cmd: ./a#b --arg', '',
                  'time_unit: B# unit', '\t',
                  'snapshot=0  ', 'time=0', 'mem_heap_B=300   ', 'mem_heap_extra_B= 8', 'mem_stacks_B=0\t',
                  'heap_tree=detailed', f'n2:   300 {ROOT}', '      n1: 200 0x1: f (a.c:1)   ',
                  'n0:200 0x2: main (a.c:9)', '  n0:\t100', '', '# gap',
                  'snapshot=1', 'time=1000', 'mem_heap_B=1e3', 'mem_heap_extra_B=1.5', 'mem_stacks_B=0',
                  'heap_tree=empty',
                  'snapshot=2', 'time=2000', 'mem_heap_B=0001234', 'mem_heap_extra_B=0', 'mem_stacks_B=0',
                  'heap_tree=peak', f'n1: 001234 {ROOT}', ' n0: 1234 0x3: g (a.c:3) # main::{lambda(int)#1}'])
# CRLF is accepted only where "\r" does no harm: every heap_tree must be
# detailed/peak ("empty\r" is not "empty") and time_unit comes via "# ..."
w('crlf-detailed-only', ['desc: (none)', 'cmd: ./crlf', 'time_unit: i#'] +
  snap(0, 0, 0, tree=[f'n0: 0 {ROOT}']) +
  snap(1, 500, 2000, 24, tree=[f'n1: 2000 {ROOT}', ' n0: 2000 0x1: main (c.c:1)'], kind='peak'), end='\r\n', final=False)
w('no-final-newline', hdr('B') + snap(0, 0, 0) + snap(1, 5, 1000, tree=[f'n0: 1000 {ROOT}']), final=False)
# axis labels that are 6 characters wide after rounding
w('label-1000.0', hdr('B') + snap(0, 0, 0) + snap(1, 1023990, 1023990) + snap(2, 1023999, 1023999))
w('label-10.000', hdr('i') + snap(0, 0, 0) + snap(1, 10239, 10239))
w('label-100.00', hdr('B') + snap(0, 0, 0) + snap(1, 102399, 102399))
w('ms-hours', hdr('ms') + snap(0, 0, 0) + snap(1, 3599999, 5) + snap(2, 3599999 * 3, 5))
w('ms-seconds', hdr('ms') + snap(0, 0, 0) + snap(1, 59999, 500))
w('i-giga', hdr('i') + snap(0, 0, 0) + snap(1, 5 * 2 ** 30, 5 * 2 ** 20))
# the peak-index quirk, two peaks
w('peak-number-mismatch', hdr('B') + snap(0, 0, 0) + snap(5, 10, 100, tree=[f'n0: 100 {ROOT}'], kind='peak') +
  snap(2, 20, 50))
w('two-peaks', hdr('B') + snap(0, 0, 0) + snap(1, 10, 100, tree=[f'n0: 100 {ROOT}'], kind='peak') +
  snap(2, 20, 150, tree=[f'n0: 150 {ROOT}'], kind='peak') + snap(3, 30, 10))
# times out of order, negative, last not the largest
w('times-unordered', hdr('B') + snap(0, 0, 10) + snap(1, 500, 300) + snap(2, 100, 200) + snap(3, -20, 250) +
  snap(4, 200, 100))
# values that are not plain numbers (Perl numification)
w('non-numeric', hdr('B') + snap(0, '0', '12abc', 'x', '') + snap(1, '1e2', '5.5', '1000000000000000.0', '0') +
  snap(2, ' 300 ', '0 but true', '7', '-3'))
w('stacks-only', hdr('B') + snap(0, 0, 0, 0, 4000) + snap(1, 100, 0, 0, 8000, tree=[f'n0: 0 {ROOT}']) +
  snap(2, 200, 500, 20, 6000, tree=[f'n1: 500 {ROOT}', ' n0: 500 0x1: main (s.c:1)'], kind='peak'))
w('threshold-boundary', hdr('B') + snap(0, 0, 0) + snap(1, 10, 10000, tree=[
    f'n3: 10000 {ROOT}', ' n0: 9800 0x1: a (a.c:1)', ' n0: 100 0x2: b (a.c:2)', ' n0: 100 0x3: c (a.c:3)']))
t = [f'n1: 5000 {ROOT}'] + [' ' * (i + 1) + f'n1: 5000 0x{i + 1:X}: f{i} (d.c:{i})' for i in range(199)] + \
    [' ' * 200 + 'n0: 5000 0x0: main (d.c:999)']
w('deep-200', hdr('i') + snap(0, 0, 0) + snap(1, 100, 5000, tree=t, kind='peak'))

# negative times: Perl's negative array indexes put the column counted from
# the right, and the gap line after it can overwrite the y axis
w('negative-columns', hdr('B') + snap(0, 0, 100) + snap(1, -500, 500, tree=[f'n0: 500 {ROOT}']) +
  snap(2, 250, 300) + snap(3, 1000, 200))
# infinities and NaN from Perl's numification ("inf", 400-digit numbers)
D400 = '9' * 400
w('inf-nan', hdr('i') + snap(0, 0, 'inf') + snap(1, 10, 'nan', 5) + snap(2, 20, 'inf', 0, 0, tree=[
    f'n2: {D400} {ROOT}', f' n0: {D400} 0x1: a (a.c:1)', ' n0: 7 0x2: b (b.c:2)']) + snap(3, 30, 100))

# ---- files the original rejects
bad = {
    'empty': '',
    'only-comments': '# nothing\n\n   \n',
    'missing-cmd': 'desc: x\ntime_unit: i\n',
    'missing-time_unit': 'desc: x\ncmd: ./a\nsnapshot=0\n',
    'eof-after-cmd': 'cmd: ./a\n',
    'no-snapshots': 'desc: x\ncmd: ./a\ntime_unit: i\n',
    'bad-time_unit': '\n'.join(hdr('s') + snap(0, 0, 0)) + '\n',
    'time_unit-trailing-blank': '\n'.join(hdr('B  ') + snap(0, 0, 0)) + '\n',
    'bad-key': '\n'.join(hdr() + ['snapshot=0', 'tim=0']) + '\n',
    'key-indented': '\n'.join(hdr() + [' snapshot=0']) + '\n',
    'eof-in-snapshot': '\n'.join(hdr() + ['snapshot=0', 'time=0', 'mem_heap_B=0']) + '\n',
    'bad-heap_tree': '\n'.join(hdr() + snap(0, 0, 0)[:-1] + ['heap_tree=full']) + '\n',
    'heap_tree-trailing-blank': '\n'.join(hdr() + snap(0, 0, 0)[:-1] + ['heap_tree=empty ']) + '\n',
    'crlf': '\r\n'.join(hdr() + snap(0, 0, 0)) + '\r\n',
    'bad-node': '\n'.join(hdr() + snap(0, 0, 100, tree=['x3: 100 foo'])) + '\n',
    'truncated-tree': '\n'.join(hdr() + snap(0, 0, 100, tree=[f'n2: 100 {ROOT}', ' n0: 50 a'])) + '\n',
    'lying-child-count': '\n'.join(hdr() + snap(0, 0, 100, tree=[f'n3: 100 {ROOT}', ' n0: 50 a']) +
                                   snap(1, 5, 5)) + '\n',
    'node-larger-than-total': '\n'.join(hdr() + snap(0, 0, 100, tree=[f'n1: 100 {ROOT}', ' n0: 150 a'])) + '\n',
    'root-larger-than-total': '\n'.join(hdr() + snap(0, 0, 100, tree=[f'n0: 101 {ROOT}'])) + '\n',
    'column-before-graph': '\n'.join(hdr() + snap(0, 0, 1) + snap(1, -2000, 1) + snap(2, 1000, 1)) + '\n',
    'negative-end-time': '\n'.join(hdr() + snap(0, 0, 1) + snap(1, -5, 1)) + '\n',
    'nul-bytes': '\n'.join(hdr() + ['snapshot=0', 'time=0\0', 'mem_heap_B=1', 'mem_heap_extra_B=0',
                                    'mem_stacks_B=0', 'heap_tree=\0empty']) + '\n',
}
for k, v in bad.items():
    with open(f'bad/{k}.massif.out', 'w', newline='') as f:
        f.write(v)
