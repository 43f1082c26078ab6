/* SPDX-License-Identifier: MIT */
/* bench/realloc.c - arrays grown by realloc.

   usage: realloc double|one ARRAYS LENGTH

   "double": each array grows by doubling its capacity, the way a vector
   does: few reallocs, some of them large copies.  "one": each array grows
   by exactly one element per append, the naive way: a realloc per element,
   mostly resized in place by the C library, so the cost is the call
   itself.  Several arrays grow side by side, interleaved, so that
   the blocks get in each other's way and some reallocs have to move. */
#include <string.h>
#include "common.h"

#define SIDE 4 /* arrays growing at the same time */

struct vec {
    uint32_t *a;
    size_t len, cap;
};

static void push_double(struct vec *v, uint32_t x, uint64_t *ops)
{
    if (v->len == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 4;
        v->a = xcheck(realloc(v->a, v->cap * sizeof *v->a));
        ++*ops;
    }
    v->a[v->len++] = x;
}

static void push_one(struct vec *v, uint32_t x, uint64_t *ops)
{
    v->a = xcheck(realloc(v->a, (v->len + 1) * sizeof *v->a));
    ++*ops;
    v->a[v->len++] = x;
}

/* Sum every element: the content must have survived every move. */
static uint64_t consume(struct vec *v, uint64_t h, uint64_t *ops)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < v->len; i++)
        s += v->a[i] * (uint64_t)(i + 1);
    h = mix(h, s ^ v->len);
    free(v->a);
    ++*ops;
    memset(v, 0, sizeof *v);
    return h;
}

int main(int argc, char **argv)
{
    int one;
    long arrays, length, i, k;
    struct vec v[SIDE];
    uint64_t h = 0, ops = 0;
    rng_t r;

    if (argc < 2 || (strcmp(argv[1], "double") && strcmp(argv[1], "one"))) {
        fputs("usage: realloc double|one ARRAYS LENGTH\n", stderr);
        return 2;
    }
    one = argv[1][0] == 'o';
    arrays = arg_long(argc, argv, 2, 400);
    length = arg_long(argc, argv, 3, 20000);
    memset(v, 0, sizeof v);
    rng_seed(&r, 2);
    for (k = 0; k < arrays; k += SIDE) {
        /* lengths vary around LENGTH so that the last sizes differ */
        long len = length / 2 + rng_below(&r, (uint32_t)length);
        for (i = 0; i < len; i++) {
            int j;
            for (j = 0; j < SIDE; j++) {
                uint32_t x = (uint32_t)rng_next(&r);
                if (one)
                    push_one(&v[j], x, &ops);
                else
                    push_double(&v[j], x, &ops);
            }
        }
        for (i = 0; i < SIDE; i++)
            h = consume(&v[i], h, &ops);
    }
    report(h, ops);
    return 0;
}
