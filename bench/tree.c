/* SPDX-License-Identifier: MIT */
/* bench/tree.c - a large tree built and freed.

   usage: tree KEYS [ROUNDS]

   Each round inserts KEYS random keys into an unbalanced binary search
   tree (one malloc per new node, duplicates counted instead), walks it,
   deletes a third of the keys again (one free each) and finally frees
   the whole tree in post-order.  The live set grows to KEYS nodes, so
   the tracer's block table must grow with it: this is the workload where
   its size and the cost of its growth show up. */
#include "common.h"

struct node {
    struct node *left, *right;
    uint64_t key;
    uint32_t count;
};

/* Insert iteratively: a recursive insert would only measure the stack. */
static int insert(struct node **root, uint64_t key)
{
    struct node **at = root;
    while (*at) {
        if (key == (*at)->key) {
            (*at)->count++;
            return 0;
        }
        at = key < (*at)->key ? &(*at)->left : &(*at)->right;
    }
    *at = xcheck(malloc(sizeof **at));
    (*at)->left = (*at)->right = NULL;
    (*at)->key = key;
    (*at)->count = 1;
    return 1;
}

/* Unlink the node with this key, if any; a node with two children takes
   its successor's key and the successor's node is freed instead. */
static int erase(struct node **root, uint64_t key)
{
    struct node **at = root, *n;
    while (*at && (*at)->key != key)
        at = key < (*at)->key ? &(*at)->left : &(*at)->right;
    if (!(n = *at))
        return 0;
    if (n->left && n->right) {
        struct node **s = &n->right;
        while ((*s)->left)
            s = &(*s)->left;
        n->key = (*s)->key;
        n->count = (*s)->count;
        at = s;
        n = *s;
    }
    *at = n->left ? n->left : n->right;
    free(n);
    return 1;
}

/* In-order checksum, iterative with an explicit stack for the same reason
   as insert(); the depth of a random BST stays small, 256 is plenty for
   the sizes used, and a deeper tree just falls back to counting. */
static uint64_t walk(struct node *root)
{
    struct node *stack[256];
    int top = 0;
    uint64_t h = 0;
    struct node *n = root;
    while (n || top) {
        while (n && top < 256) {
            stack[top++] = n;
            n = n->left;
        }
        if (n) {
            fputs("tree too deep\n", stderr);
            exit(4);
        }
        n = stack[--top];
        h = mix(h, n->key * n->count);
        n = n->right;
    }
    return h;
}

/* Free in post-order without recursion: rotate left subtrees into the
   right spine, then free the spine. */
static uint64_t destroy(struct node *n)
{
    uint64_t freed = 0;
    while (n) {
        if (n->left) {
            struct node *l = n->left;
            n->left = l->right;
            l->right = n;
            n = l;
        } else {
            struct node *next = n->right;
            free(n);
            freed++;
            n = next;
        }
    }
    return freed;
}

int main(int argc, char **argv)
{
    long keys = arg_long(argc, argv, 1, 1000000);
    long rounds = arg_long(argc, argv, 2, 2);
    uint64_t h = 0, ops = 0, live, maxlive = 0;
    long round, i;
    rng_t r;

    for (round = 0; round < rounds; round++) {
        struct node *root = NULL;
        rng_seed(&r, 3 + (uint64_t)round);
        live = 0;
        for (i = 0; i < keys; i++)
            live += (uint64_t)insert(&root, rng_below(&r, (uint32_t)keys * 4));
        ops += live;
        if (live > maxlive)
            maxlive = live;
        h = mix(h, walk(root));
        /* the same generator state replays a third of the keys */
        rng_seed(&r, 3 + (uint64_t)round);
        for (i = 0; i < keys / 3; i++)
            ops += (uint64_t)erase(&root, rng_below(&r, (uint32_t)keys * 4));
        h = mix(h, walk(root));
        ops += destroy(root);
    }
    report(h, ops);
    /* for the runner's tracer-memory figure: blocks live at the peak */
    printf("live %llu\n", (unsigned long long)maxlive);
    return 0;
}
