#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/mtrace2massif.sh [RECORDS] - throughput and peak memory of mtrace2massif
# on a generated trace (default 100 million records, about 4 GB in $TMPDIR).
# Prints records/s and the converter's peak RSS; one core is used.
set -e
N=${1:-100000000}
TOP=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/m2m-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
[ -x "$TOP/mtrace2massif" ] || make -C "$TOP" mtrace2massif >/dev/null

# The generator: 200 sites; a pool of 4096 live blocks replaced at random,
# one operation in eight a realloc (so '<' '>' pairs, in place and moving),
# sizes from 1 byte to 1 MiB; MAXRSS grows slowly.  Records are exactly what
# the tracer writes, tail included.
cat > "$DIR/gen.c" <<'GEN'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define POOL 4096
#define SITES 200
static unsigned long long total, rec, live[SITES + 1], rss = 5000000;
static unsigned sz[POOL], st[POOL];
static char out[1 << 20];
static size_t o;
static unsigned long long seed = 88172645463325252ULL;
static unsigned rnd(void) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return (unsigned)seed; }
static void num(unsigned long long v) {
    char b[24]; int n = 0;
    do b[n++] = (char)('0' + v % 10); while (v /= 10);
    while (n) out[o++] = b[--n];
}
static void put(char op, unsigned s) {
    if (o > sizeof out - 128) { fwrite(out, 1, o, stdout); o = 0; }
    if ((rec & 4095) == 0) rss += 4096;
    out[o++] = op; out[o++] = ' '; num(s); out[o++] = ' '; num(rec++);
    out[o++] = ' '; num(total); out[o++] = ' '; num(live[s]); out[o++] = ' ';
    num(rss); out[o++] = '\n';
}
static unsigned size(void) { unsigned r = rnd(); return (r & 7) ? (r >> 8) % 4000 : (r >> 8) % (1u << 20); }
int main(int argc, char **argv) {
    unsigned long long n = strtoull(argv[1], 0, 10);
    for (int s = 1; s <= SITES; s++) printf("@ %d fn_%d src/file%%20%d.c %d\n", s, s, s % 7, 10 * s);
    while (rec + 2 <= n) {
        unsigned k = rnd() % POOL, s = 1 + rnd() % SITES, n2 = size();
        if (st[k] && rnd() % 8 == 0) {          /* realloc */
            total -= sz[k]; live[st[k]] -= sz[k]; put('<', st[k]);
            sz[k] = n2; st[k] = s; total += n2; live[s] += n2; put('>', s);
        } else if (st[k]) {                      /* free */
            total -= sz[k]; live[st[k]] -= sz[k]; put('-', st[k]); st[k] = 0;
        } else {                                 /* malloc */
            sz[k] = n2; st[k] = s; total += n2; live[s] += n2; put('+', s);
        }
    }
    fwrite(out, 1, o, stdout);
    printf("set title 'bench'\nplot 'bench' u 3:4 w l\n");
    return 0;
}
GEN
${CC:-cc} -O2 -o "$DIR/gen" "$DIR/gen.c"
echo "generating $N records..."
"$DIR/gen" "$N" > "$DIR/trace"
recs=$(( $(wc -l < "$DIR/trace") - 202 ))
bytes=$(wc -c < "$DIR/trace")
cat "$DIR/trace" > /dev/null    # warm the page cache, as for any repeated run
echo "trace: $recs records, $bytes bytes"
/usr/bin/time -f "%e %U %S %M" -o "$DIR/time" "$TOP/mtrace2massif" --time-unit=B \
    --gnuplot="$DIR/gp" "$DIR/trace" -o "$DIR/out"
read secs usr sys kb < "$DIR/time"
awk -v r="$recs" -v s="$secs" -v u="$usr" -v y="$sys" -v kb="$kb" -v b="$bytes" 'BEGIN {
    cpu = u + y
    printf "mtrace2massif: %d records (%.2f GB) in %.2f s wall, %.2f s CPU (both passes)\n", r, b / 1e9, s, cpu
    printf "  = %.1f M records/s of CPU time, %.1f M records/s wall; peak RSS %.1f MiB\n",
           r / cpu / 1e6, r / s / 1e6, kb / 1024 }'
/usr/bin/ms_print "$DIR/out" | sed -n '/Number of snapshots/,/Detailed/p'
