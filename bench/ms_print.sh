#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/ms_print.sh [RUNS] - speed and peak memory of our ms_print against
# Valgrind's Perl /usr/bin/ms_print on one large real Massif file.
#
# The file comes from a real valgrind run (no concatenation or scaling):
# a generated program with 3^4 = 81 allocation sites, each at the end of
# its own 5-function call chain below a 16-frame recursion, allocating and
# freeing in a loop; Massif runs with --detailed-freq=1 --max-snapshots=1000
# --threshold=0 --depth=100, so nearly every snapshot carries the full tree
# (zero-byte sites stay in it).  The file is about 60 MB; it is kept in
# $BENCH_DIR if set (and reused by the next run), else in a temporary
# directory removed at exit.
#
# Both programs print to /dev/null; the outputs are also compared once.
# Reported: median wall and CPU (user + system) time of RUNS runs (default
# 3) each, the ratios, and peak RSS (getrusage, by tests/ms_print/maxrss.c).
# On a busy machine the wall-clock ratio varies; the CPU ratio much less.
set -eu
RUNS=${1:-3}
TOP=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${BENCH_DIR:-}" ]; then
    W=$BENCH_DIR; mkdir -p "$W"
else
    W=$(mktemp -d "${TMPDIR:-/tmp}/msp-bench.XXXXXX"); trap 'rm -rf "$W"' EXIT
fi
# our own optimised build: the tree's ms_print may be a sanitizer build
cc -O2 -o "$W/ms_print" "$TOP"/convert/ms_print/ms_print*.c "$TOP/convert/common/tool.c"
MSP=$W/ms_print
F=$W/big.massif.out

if [ ! -s "$F" ]; then
    # The program: level-k functions L<k>_<i> each call three level-(k+1)
    # functions and the 81 level-4 functions allocate, below a recursion 16
    # frames deep.  Massif's trees start at the allocation, so each site is
    # a chain of about 23 callers of its own: about 1,900 lines per tree.
    {
        echo '#include <stdlib.h>'
        echo 'static void *slot[4096]; static unsigned seed = 7;'
        echo 'static unsigned rnd(void) { seed = seed * 1103515245u + 12345u; return seed >> 16; }'
        echo '#define LEAF(n) __attribute__((noinline)) static void n(unsigned r) { unsigned k = (rnd() ^ r) % 4096; free(slot[k]); slot[k] = malloc(16 + rnd() % 2000); }'
        echo '#define MID(n, a, b, c) __attribute__((noinline)) static void n(unsigned r) { switch (r % 3) { case 0: a(r / 3); break; case 1: b(r / 3); break; default: c(r / 3); } }'
        awk 'BEGIN {
            for (i = 0; i < 81; i++) printf "LEAF(L4_%d)\n", i;
            for (k = 3; k >= 0; k--) {
                n = 1; for (j = 0; j < k; j++) n *= 3;
                for (i = 0; i < n; i++)
                    printf "MID(L%d_%d, L%d_%d, L%d_%d, L%d_%d)\n", k, i, k+1, 3*i, k+1, 3*i+1, k+1, 3*i+2;
            }
        }'
        echo '__attribute__((noinline)) static void rec(int d, unsigned r) { if (d) rec(d - 1, r); else L0_0(r); }'
        echo 'int main(void) { for (unsigned i = 0; i < 20000; i++) rec(16, rnd() * 7919u + i); for (int k = 0; k < 4096; k++) free(slot[k]); return 0; }'
    } > "$W/many.c"
    gcc -O0 -g -o "$W/many" "$W/many.c"
    echo "generating $F with valgrind (takes a few minutes) ..."
    (cd "$W" && valgrind -q --tool=massif --detailed-freq=1 --max-snapshots=1000 \
        --threshold=0 --depth=100 --massif-out-file=big.massif.out ./many)
fi
size=$(stat -c %s "$F")
echo "input: $F: $((size / 1000000)) MB, $(grep -c '^snapshot=' "$F") snapshots, $(wc -l < "$F") lines (real valgrind output)"

# run PROG: one timed run; prints "seconds peak-kB"
cc -O2 -o "$W/maxrss" "$TOP/tests/ms_print/maxrss.c"
run() { "$W/maxrss" "$@" "$F" 2>/dev/null; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

"$MSP" "$F" > "$W/ours.txt"
/usr/bin/ms_print "$F" > "$W/perl.txt"
if cmp -s "$W/ours.txt" "$W/perl.txt"; then echo "outputs: identical ($(stat -c %s "$W/ours.txt") bytes)"; else echo "outputs: DIFFERENT"; exit 1; fi
rm -f "$W/ours.txt" "$W/perl.txt"

ours=() perl=()
for i in $(seq "$RUNS"); do
    ours+=("$(run "$MSP")")
    perl+=("$(run /usr/bin/ms_print)")
done
to=$(printf '%s\n' "${ours[@]}" | awk '{print $1}' | median)
tp=$(printf '%s\n' "${perl[@]}" | awk '{print $1}' | median)
co=$(printf '%s\n' "${ours[@]}" | awk '{print $3}' | median)
cp=$(printf '%s\n' "${perl[@]}" | awk '{print $3}' | median)
mo=$(printf '%s\n' "${ours[@]}" | awk '{print $2}' | sort -n | tail -1)
mp=$(printf '%s\n' "${perl[@]}" | awk '{print $2}' | sort -n | tail -1)
echo "ours:  median ${to}s wall, ${co}s CPU of $RUNS runs, peak RSS ${mo} kB"
echo "perl:  median ${tp}s wall, ${cp}s CPU of $RUNS runs, peak RSS ${mp} kB"
awk -v a="$tp" -v b="$to" -v c="$cp" -v d="$co" 'BEGIN { if (b < 0.01) b = 0.01; if (d < 0.01) d = 0.01
    printf "speed-up: %.1fx wall, %.1fx CPU (perl/ours)\n", a / b, c / d }'
