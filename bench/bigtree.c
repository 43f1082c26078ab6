/* SPDX-License-Identifier: MIT */
/* bench/bigtree.c - a large live set: a balanced tree of millions of nodes.

   usage: bigtree NODES [ROUNDS]

   Each round builds a balanced binary search tree of NODES nodes (one
   malloc each, in pre-order: the order of a program that builds a tree
   from sorted data), walks it and frees it in post-order.
   Unlike tree.c, whose random inserts make the uninstrumented program
   spend its time in cache misses (13 s for 5 M nodes here), the work here
   is almost all allocator calls with NODES blocks live: what the tracer's
   block table costs when it holds millions of entries (issue 12's "large
   tree, 5 M live nodes"). */
#include "common.h"

struct node {
    struct node *left, *right;
    uint64_t key, val;
};

static struct node *build(uint64_t lo, uint64_t hi, rng_t *r)
{
    struct node *n;
    uint64_t mid;
    if (lo >= hi)
        return NULL;
    mid = lo + (hi - lo) / 2;
    n = xcheck(malloc(sizeof *n));
    n->key = mid;
    n->val = rng_next(r);
    n->left = build(lo, mid, r);
    n->right = build(mid + 1, hi, r);
    return n;
}

static uint64_t walk(const struct node *n, uint64_t h)
{
    while (n) {
        h = walk(n->left, h);
        h = mix(h, n->key ^ n->val);
        n = n->right;
    }
    return h;
}

static uint64_t destroy(struct node *n)
{
    uint64_t k = 0;
    while (n) {
        struct node *right = n->right;
        k += destroy(n->left) + 1;
        free(n);
        n = right;
    }
    return k;
}

int main(int argc, char **argv)
{
    long nodes = arg_long(argc, argv, 1, 5000000);
    long rounds = arg_long(argc, argv, 2, 1);
    uint64_t h = 0, ops = 0;
    long round;
    rng_t r;

    for (round = 0; round < rounds; round++) {
        struct node *root;
        rng_seed(&r, 7 + (uint64_t)round);
        root = build(0, (uint64_t)nodes, &r);
        h = walk(root, h);
        ops += (uint64_t)nodes + destroy(root);
    }
    report(h, ops);
    /* for the runner's tracer-memory figure: blocks live at the peak */
    printf("live %ld\n", nodes);
    return 0;
}
