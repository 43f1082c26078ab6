#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/ms_print/difftest.py - differential random testing of our ms_print
against Valgrind's /usr/bin/ms_print.

Generates Massif files (random headers, comments and blank lines, numbers of
every shape, trees with lying child counts or nodes larger than their
snapshot, byte mutations of the real golden files), runs both programs with
random options, and requires the same stdout and the same success/failure;
ours must also never crash, report a sanitizer error or print more than one
error line.  Cases where the original runs out of memory or time are skipped.

  difftest.py [--seed N] [--count N] [--clean] [--msp PATH] [--dir DIR]

--clean generates mostly well-formed files (most are then accepted, which
exercises the printing rather than the error paths).  Failing inputs are
kept as DIR/failK.massif.out with the arguments in failK.massif.out.args.
Exit status 1 if any case failed.
"""
import argparse
import glob
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = '(heap allocation functions) malloc/new/new[], --alloc-fns, etc.'


class Gen:
    def __init__(self, seed, clean):
        self.r = random.Random(seed)
        self.clean = clean
        self.reals = [open(f, 'rb').read() for f in sorted(glob.glob(HERE + '/real/*.massif.out'))]

    def maybe(self, p):
        """True with probability p, never in clean mode."""
        return not self.clean and self.r.random() < p

    def num(self):
        R = self.r
        c = R.random()
        if c < 0.55:
            return str(R.choice([0, 1, 7, 100, 999, 1000, 1023, 1024, 4096, 10000, 999999, 1048576,
                                 R.randint(0, 10 ** 6), R.randint(0, 10 ** 12)]))
        if c < 0.62:
            return str(R.choice([2 ** 53, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 10 ** 20,
                                 10 ** 15, 10 ** 16, 123456789012345678]))
        if c < 0.7:
            return R.choice(['1e3', '1.5', '1000.0', '5.', '.5', '007', ' 12', '12 ', '12\t', '-5', '-0', '+3',
                             '3abc', '', 'abc', '1e19', '1000000000000000.0', '0x10', '1_000', '9' * 25,
                             '0 but true', 'inf', 'nan', '-1e3', '2.5e-3', '1e400'])
        if c < 0.85:
            return str(R.randint(0, 5000))
        return str(R.randint(0, 2 ** 40))

    def tree(self, depth, hint):
        R = self.r
        k = R.choice([0, 0, 0, 1, 1, 2, 3, 5]) if depth < 6 else 0
        b = R.randint(0, max(0, hint))
        if self.maybe(0.03):
            b = hint + R.randint(1, 10)
        if self.maybe(0.03):
            b = R.choice([0, 2 ** 64 - 1, 10 ** 25])
        ind = ' ' * (depth if R.random() < 0.9 else R.randint(0, 4))
        txt = R.choice([' 0x1091EC: main (x.c:26)', ' ' + ROOT, '',
                        " in 3 places, all below massif's threshold (1.00%)",
                        ' main::{lambda(int)#1}::op', 'abc', ' %s %d 100%', '\tx\x01\x7f\xe9'])
        kk = k + R.choice([-1, 1, 2]) if self.maybe(0.03) else k
        sep = R.choice([': ', ':', ':  ', ':\t'])
        lines = [f'{ind}n{kk}{sep}{b}{txt}']
        for _ in range(k):
            lines += self.tree(depth + 1, b)
        return lines

    def massif(self):
        R = self.r
        L = []
        for _ in range(R.choice([0, 1, 1, 1, 2, 3])):
            L.append(R.choice(['desc: --time-unit=B', 'desc:', 'desc: (none)', 'desc:   a  b ',
                               'desc: x # comment', 'desc:--x']))
        if not self.maybe(0.02):
            L.append(R.choice(['cmd: ./prog a b', 'cmd:./p', 'cmd:   spaced  ', 'cmd: a#b', 'cmd:']))
        tu = R.choice(['i', 'ms', 'B'] * 8 + ([] if self.clean else ['b', 'B ', 'x', '', 'ms ']))
        if not self.maybe(0.02):
            L.append(R.choice(['time_unit: ', 'time_unit:', 'time_unit:   ']) + tu)
        mode = R.choice(['inc', 'inc', 'eq', 'zero', 'rand'])
        n = R.choice([1, 2, 3, 5, 8, 12, 20, 40] + ([] if self.clean else [0, 1]))
        peak = R.randint(-1, n)
        t = 0
        for i in range(n):
            if R.random() < 0.3:
                L.append(R.choice(['#-----------', '', '   ', '# x', '\t']))
            sn = str(i) if R.random() < 0.9 else R.choice([str(R.randint(0, n)), ' 3', '3.0', 'x', f'{i} ', ''])
            L.append('snapshot=' + sn)
            if mode == 'inc':
                t += R.choice([0, 1, 5, 100, 1000, R.randint(0, 10 ** 7)])
            elif mode == 'eq':
                t = 777
            elif mode == 'zero':
                t = 0
            else:
                t = R.randint(0, 10 ** 6)
            if self.clean and i == n - 1:
                # a last time far below earlier ones makes the original draw
                # millions of columns off the graph (slow), so not here
                t = max(t, 10 ** 6)
            L.append('time=' + (str(t) if self.clean or R.random() < 0.92 else self.num()))
            h = self.num()
            if self.clean and R.random() < 0.7:
                h = str(R.randint(0, 10 ** R.randint(1, 12)))
            e = self.num() if R.random() < 0.5 else str(R.randint(0, 100))
            s = '0' if R.random() < 0.7 else self.num()
            L += ['mem_heap_B=' + h, 'mem_heap_extra_B=' + e, 'mem_stacks_B=' + s]
            ht = R.choice(['empty'] * 5 + ['detailed'] * 3 + ['peak' if i == peak else 'detailed'] +
                          (['xpeakx'] if R.random() < 0.05 else []))
            if self.maybe(0.03):
                ht = R.choice(['bogus', 'detailed ', 'empty '])
            L.append('heap_tree=' + ht)
            if ht != 'empty' and ('detailed' in ht or 'peak' in ht):
                try:
                    tot = int(h) + (int(e) if e.strip().isdigit() else 0)
                except ValueError:
                    tot = 1000
                L += self.tree(0, max(tot, 0))
        nl = '\r\n' if self.maybe(0.03) else '\n'
        data = nl.join(L) + (nl if R.random() < 0.9 else '')
        b = data.encode('latin-1', 'replace')
        if self.maybe(0.05) and b:
            b = bytearray(b)
            for _ in range(R.randint(1, 5)):
                b[R.randrange(len(b))] = R.choice(b'0123456789 \n#=:n\x00-.')
            b = bytes(b)
        return b

    def mutated_real(self):
        R = self.r
        lines = R.choice(self.reals).split(b'\n')
        for _ in range(R.randint(1, 4)):
            if not lines:
                break
            op, i = R.random(), R.randrange(len(lines))
            if op < 0.3:
                del lines[i]
            elif op < 0.5:
                lines.insert(i, lines[R.randrange(len(lines))])
            elif op < 0.8:
                line = bytearray(lines[i])
                if line:
                    line[R.randrange(len(line))] = R.choice(b'0123456789 #=:n-.')
                lines[i] = bytes(line)
            else:
                lines = lines[:i]
        return b'\n'.join(lines)

    def case(self):
        R = self.r
        data = self.massif() if self.clean or not self.reals or R.random() < 0.8 else self.mutated_real()
        o = []
        for _ in range(R.choice([0, 1, 1, 2, 3])):
            o.append(R.choice(['--x=' + str(R.choice([4, 5, 10, 30, 72, 100, 200, 1000, R.randint(4, 300)])),
                               '--y=' + str(R.choice([4, 5, 10, 20, 50, 100, R.randint(4, 60)])),
                               '--threshold=' + R.choice(['0', '1', '0.5', '2.5%', '10', '100', '.5', '1.2.3',
                                                          '50.0', '0.01', '99.99', '3'])]))
        args = o + ['case.massif.out']
        if o and R.random() < 0.3:
            args = [o[0], 'case.massif.out'] + o[1:]
        return data, args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--clean', action='store_true')
    ap.add_argument('--msp', default=os.path.join(HERE, '..', '..', 'ms_print'))
    ap.add_argument('--dir', default='.')
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    g = Gen(a.seed, a.clean)
    fails = accepted = skipped = 0
    for it in range(a.count):
        data, args = g.case()
        with open(os.path.join(a.dir, 'case.massif.out'), 'wb') as f:
            f.write(data)
        try:
            p = subprocess.run(['/usr/bin/ms_print'] + args, cwd=a.dir, capture_output=True, timeout=10)
        except subprocess.TimeoutExpired:
            skipped += 1
            continue
        if b'Out of memory' in p.stderr:
            skipped += 1
            continue
        c = subprocess.run([os.path.abspath(a.msp)] + args, cwd=a.dir, capture_output=True, timeout=20)
        accepted += p.returncode == 0
        bad_err = c.returncode != 0 and (c.stderr.count(b'\n') != 1 or not c.stderr.startswith(b'ms_print: '))
        if (p.stdout != c.stdout or (p.returncode == 0) != (c.returncode == 0) or c.returncode < 0
                or c.returncode >= 128 or b'runtime error' in c.stderr or b'Sanitizer' in c.stderr or bad_err):
            fails += 1
            k = os.path.join(a.dir, f'fail{fails}.massif.out')
            with open(k, 'wb') as f:
                f.write(data)
            with open(k + '.args', 'w') as f:
                f.write(' '.join(x for x in args if x != 'case.massif.out') + '\n')
            print(f'FAIL {k} {args} original exit {p.returncode}, ours {c.returncode}: {c.stderr[:200]!r}')
            if fails >= 10:
                break
    print(f'difftest: {it + 1} cases, {accepted} accepted by the original, {skipped} skipped, {fails} failed')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
