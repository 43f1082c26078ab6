/* SPDX-License-Identifier: MIT */
/* bench/live.c - churn with a large live set.

   usage: live LIVE OPS

   Allocates LIVE small blocks (16 to 63 bytes), then OPS times frees a
   block chosen at random and allocates a new one in its place, then frees
   everything.  Run with 10 k and with 10 M live blocks, the cost per
   allocator call of a tracer shows whether its block table keeps its
   speed when it holds millions of entries (issue 12). */
#include "common.h"

int main(int argc, char **argv)
{
    long live = arg_long(argc, argv, 1, 10000);
    long ops = arg_long(argc, argv, 2, 10000000);
    unsigned char **p = xcheck(calloc((size_t)live, sizeof *p));
    uint64_t h = 0;
    long i;
    rng_t r;

    rng_seed(&r, 11);
    for (i = 0; i < live; i++) {
        size_t n = 16 + rng_below(&r, 48);
        p[i] = xcheck(malloc(n));
        p[i][0] = (unsigned char)n;
    }
    for (i = 0; i < ops; i++) {
        uint32_t k = rng_below(&r, (uint32_t)live);
        size_t n = 16 + rng_below(&r, 48);
        h = mix(h, p[k][0]);
        free(p[k]);
        p[k] = xcheck(malloc(n));
        p[k][0] = (unsigned char)(n + i);
    }
    for (i = 0; i < live; i++) {
        h = mix(h, p[i][0]);
        free(p[i]);
    }
    free(p);
    report(h, (uint64_t)(2 * live + 2 * ops));
    printf("live %ld\n", live);
    return 0;
}
