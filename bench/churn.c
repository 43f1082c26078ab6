/* SPDX-License-Identifier: MIT */
/* bench/churn.c - random-size churn over a pool of live blocks.

   usage: churn OPS [POOL]

   The headline workload: the shape of a program that keeps a working set
   of objects and replaces them at random.  Each step picks a slot, frees
   its block and allocates a new one of a random size (mostly small, now
   and then a few KiB or a large block), so the allocator and the tracer
   see an even mix of malloc and free with a steady live set.  Each new
   block is written at both ends and read back when freed, so the program
   does the little work a real one does with its memory, and the checksum
   covers the data as well as the sizes. */
#include <string.h>
#include "common.h"

struct slot {
    unsigned char *p;
    size_t n;
};

/* Mostly small blocks as in real programs; one in 64 of a few KiB, one in
   4096 a large one (past glibc's mmap threshold at times). */
static size_t random_size(rng_t *r)
{
    uint32_t k = rng_below(r, 4096);
    if (k == 0)
        return 16384 + rng_below(r, 200000);
    if (k < 64)
        return 512 + rng_below(r, 4096);
    return 1 + rng_below(r, 256);
}

/* Read back what fill() wrote, so a block that moved or was clobbered
   changes the checksum. */
static uint64_t drain(struct slot *s, uint64_t h)
{
    if (!s->p)
        return h;
    h = mix(h, s->p[0] + 256u * s->p[s->n - 1] + s->n);
    free(s->p);
    s->p = NULL;
    return h;
}

static void fill(struct slot *s, rng_t *r, uint64_t step)
{
    s->n = random_size(r);
    s->p = xcheck(malloc(s->n));
    s->p[0] = (unsigned char)step;
    s->p[s->n - 1] = (unsigned char)(step >> 8);
}

int main(int argc, char **argv)
{
    long ops = arg_long(argc, argv, 1, 4000000);
    long pool = arg_long(argc, argv, 2, 8192);
    struct slot *slots = xcheck(calloc((size_t)pool, sizeof *slots));
    uint64_t h = 0, step, nops = 1;
    rng_t r;
    long i;

    rng_seed(&r, 1);
    /* each step is one free (after the pool is full) and one malloc */
    for (step = 0; step < (uint64_t)ops / 2; step++) {
        struct slot *s = &slots[rng_below(&r, (uint32_t)pool)];
        if (s->p)
            nops++;
        h = drain(s, h);
        fill(s, &r, step);
        nops++;
    }
    for (i = 0; i < pool; i++) {
        if (slots[i].p)
            nops++;
        h = drain(&slots[i], h);
    }
    free(slots);
    report(h, nops + 1);
    /* the pool is full at the peak (plus the slot array itself) */
    printf("live %ld\n", pool + 1);
    return 0;
}
