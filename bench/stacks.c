/* SPDX-License-Identifier: MIT */
/* bench/stacks.c - churn through many distinct call stacks (issue 13).

   usage: stacks OPS BITS [POOL]

   Like churn.c, but each malloc is made at the bottom of a recursion of
   BITS levels whose path is a random number below 2^BITS: at each level
   descend() goes on through left() or right() (two functions, so two
   return addresses; descend() calls them in tail position at -O2, so one
   frame per level).  Chains are BITS + 2 frames long (main, then the C
   library's start, where the walk stops): with MTRACE_DEPTH=N there are
   2^min(BITS, N - 1) distinct stacks (BITS 10: 1024 at depth 30, 128 at
   depth 8), plus main's own calloc.  What it measures: the cost of a
   longer walk than the other workloads' (their chains are 1 to 5 frames),
   and the tracer's memory per distinct stack.  The checksum is that of
   the sizes and contents, the same in every build.
*/
#include "common.h"

#define NOINLINE __attribute__((noinline))

struct slot {
    unsigned char *p;
    size_t n;
};

NOINLINE static uint64_t descend(struct slot *s, unsigned path, int level, uint64_t step);

/* the two ways down: not tail calls (their result is changed), so each
   keeps its frame and its return address into descend() */
NOINLINE static uint64_t left(struct slot *s, unsigned path, int level, uint64_t step)
{
    return descend(s, path >> 1, level - 1, step) * 3 + 1;
}

NOINLINE static uint64_t right(struct slot *s, unsigned path, int level, uint64_t step)
{
    return descend(s, path >> 1, level - 1, step) * 5 + 2;
}

NOINLINE static uint64_t descend(struct slot *s, unsigned path, int level, uint64_t step)
{
    if (level == 0) {
        s->n = 16 + (size_t)(step * 2654435761u % 241);
        s->p = xcheck(malloc(s->n));
        s->p[0] = (unsigned char)step;
        s->p[s->n - 1] = (unsigned char)(step >> 8);
        return s->n;
    }
    return path & 1 ? right(s, path, level, step) : left(s, path, level, step);
}

int main(int argc, char **argv)
{
    long ops = arg_long(argc, argv, 1, 4000000);
    long bits = arg_long(argc, argv, 2, 10);
    long pool = arg_long(argc, argv, 3, 8192);
    struct slot *slots = xcheck(calloc((size_t)pool, sizeof *slots));
    uint64_t h = 0, step, nops = 1;
    rng_t r;
    long i;

    if (bits > 20) {
        fputs("BITS is at most 20\n", stderr);
        return 2;
    }
    rng_seed(&r, 7);
    for (step = 0; step < (uint64_t)ops / 2; step++) {
        struct slot *s = &slots[rng_below(&r, (uint32_t)pool)];
        if (s->p) {
            h = mix(h, s->p[0] + 256u * s->p[s->n - 1] + s->n);
            free(s->p);
            nops++;
        }
        h = mix(h, descend(s, rng_below(&r, 1u << bits), (int)bits, step));
        nops++;
    }
    for (i = 0; i < pool; i++)
        if (slots[i].p) {
            h = mix(h, slots[i].p[0] + 256u * slots[i].p[slots[i].n - 1] + slots[i].n);
            free(slots[i].p);
            nops++;
        }
    free(slots);
    report(h, nops + 1);
    printf("live %ld\n", pool + 1);
    return 0;
}
