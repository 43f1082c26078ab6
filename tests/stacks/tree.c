/* SPDX-License-Identifier: MIT */ /* tree.c - an allocation tree with depth: three levels of helpers
 * (top3 -> mid -> leaf -> malloc), recursion above them (rec), small
 * blocks that fall below Massif's threshold at every level, a two-level
 * wrapper called through a function pointer (my_alloc -> hook = xmalloc
 * -> malloc, for --alloc-fn), and a block grown by realloc. */
#include <stdlib.h>

static void *leaf(size_t n) { return malloc(n); }
static void *mid(size_t n) { return leaf(n); }
static void *top3(size_t n) { return mid(n); }
static void *rec(int k, size_t n) { return k == 0 ? top3(n) : rec(k - 1, n); }

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}
static void *(*hook)(size_t) = xmalloc;
static void *my_alloc(size_t n) { return hook(n); }

static void *grow(void *p, size_t n) { return realloc(p, n); }

int main(void)
{
    void *keep[64], *g = NULL;
    int k = 0;
    for (int i = 0; i < 8; i++)
        keep[k++] = rec(i % 4, 1000 * (size_t)(i + 1));
    for (int i = 0; i < 20; i++)
        keep[k++] = top3(16 + (size_t)i);
    keep[k++] = my_alloc(3000);
    keep[k++] = my_alloc(50);
    for (int i = 1; i < 10; i++)
        g = grow(g, 1000 * (size_t)i);
    for (int i = 0; i < k; i += 2)
        free(keep[i]);
    free(g);
    for (int i = 1; i < k; i += 2)
        free(keep[i]);
    return 0;
}
