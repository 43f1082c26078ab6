/* SPDX-License-Identifier: MIT */ /* A pool inside a malloc'd arena, its first block at the arena's own
   address: pool blocks and heap blocks are kept apart, so freeing the
   arena is no double free.  A wrapper declared with MTRACE_ALLOC_FN
   charges its allocations to its callers. */
#include <stdio.h>
#include <stdlib.h>

static char *arena;
static size_t used;

static void *pool_get(size_t n)
{
    void *p = arena + used;
    used += (n + 15) & ~(size_t)15;
    MTRACE_MALLOCLIKE(p, n);                /* line 15 */
    return p;
}

void *xmalloc(size_t n);
#define xmalloc(n) MTRACE_ALLOC_FN(xmalloc(n))
void *(xmalloc)(size_t n)
{
    void *p = malloc(n);                    /* charged to the callers */
    if (!p)
        abort();
    return p;
}

void *sink;

int main(void)
{
    void *a, *b;
    arena = xmalloc(4096);                  /* line 34 */
    a = pool_get(100);                      /* at the arena's address */
    b = pool_get(200);                      /* never given back: a leak */
    MTRACE_FREELIKE(a);
    free(arena);
    sink = xmalloc(5);                      /* line 39: a leak */
    printf("%d\n", a == (void *)arena && b != NULL);
    return 0;
}
