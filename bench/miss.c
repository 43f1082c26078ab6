/* SPDX-License-Identifier: MIT */
/* miss.c - what reading one random entry of a side table costs, by its size.

   A tracer with no header in front of a block keeps the block's entry in
   a table of its own; freeing a block chosen at random reads a random
   entry.  This program reads random 16-byte entries of a table of N
   entries (N given), as a chain (each address depends on the last entry
   read: the latency of one miss) and as independent reads (what the
   processor can overlap at best), and prints ns per read.

   usage: miss ENTRIES [READS] */
#include <sys/mman.h>
#include <time.h>
#include "common.h"

struct entry { uint64_t addr, word; };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)arg_long(argc, argv, 1, 10000);
    long reads = arg_long(argc, argv, 2, 20000000), i;
    struct entry *t = mmap(0, n * sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t sum = 0, at = 0;
    double t0, t1, t2;
    rng_t r;
    if (n < 2 || n > UINT32_MAX || t == MAP_FAILED)
        return 2;
    rng_seed(&r, 11);
    for (i = 0; i < (long)n; i++)
        t[i].addr = (uint64_t)i, t[i].word = (uint64_t)i;
    for (i = (long)n - 1; i > 0; i--) { /* one cycle through all (Sattolo) */
        uint64_t j = rng_below(&r, (uint32_t)i), a = t[i].addr;
        t[i].addr = t[j].addr, t[j].addr = a;
    }
    t0 = now();
    for (i = 0; i < reads; i++)         /* a chain: one miss at a time */
        at = t[at].addr;
    t1 = now();
    for (i = 0; i < reads; i++)         /* independent: overlapped */
        sum += t[rng_below(&r, (uint32_t)n)].word;
    t2 = now();
    printf("%zu entries (%.1f MB): chained %.1f ns, independent %.1f ns a read (%llu)\n", n,
           (double)(n * sizeof *t) / 1e6, (t1 - t0) * 1e9 / (double)reads,
           (t2 - t1) * 1e9 / (double)reads, (unsigned long long)(sum + at));
    return 0;
}
