/* SPDX-License-Identifier: MIT */ /* churn.c - a long run for the HTML page's scale measurement
   (doc/mtrace2massif.md, "The HTML page"): N operations (argv[1], default
   1000000) on a pool of 4096 blocks, each allocated through one of several
   call paths (a recursion 0-3 deep under three callers), sizes from 1 byte
   to 64 KiB, one in eight a realloc; a few blocks leak.  Traced with
   MTRACE_DEPTH=8 it gives a trace of about 60 bytes per operation. */
#include <stdlib.h>

#define POOL 4096
static void *pool[POOL];
static unsigned long seed = 88172645463325252UL;
static unsigned rnd(void) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return (unsigned)seed; }

static void *leaf_small(size_t n) { return malloc(n % 256 + 1); }
static void *leaf_big(size_t n) { return malloc(n % 65536 + 1); }
static void *leaf_zero(size_t n) { return calloc(n % 64 + 1, 8); }

static void *down(int depth, size_t n)
{
    if (depth > 0)
        return down(depth - 1, n);
    switch (n % 3) {
    case 0: return leaf_small(n);
    case 1: return leaf_big(n);
    default: return leaf_zero(n);
    }
}

static void *parse(size_t n) { return down((int)(n >> 4) % 4, n); }
static void *render(size_t n) { return down((int)(n >> 6) % 3, n); }
static void *cache(size_t n) { return down(0, n); }

static void step(void)
{
    unsigned k = rnd() % POOL, r = rnd();
    if (pool[k] && r % 8 == 0) {
        void *p = realloc(pool[k], r % 4096 + 1);
        if (p)
            pool[k] = p;
    } else if (pool[k]) {
        free(pool[k]);
        pool[k] = NULL;
    } else {
        size_t n = rnd();
        pool[k] = r % 3 == 0 ? parse(n) : r % 3 == 1 ? render(n) : cache(n);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    for (long i = 0; i < n; i++)
        step();
    for (int k = 16; k < POOL; k++)     /* the first 16 leak */
        free(pool[k]);
    return 0;
}
