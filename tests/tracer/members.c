/* SPDX-License-Identifier: MIT */ /* Struct members named like the allocator, called as members: they must
   compile and call the member, and blocks they return are not ours. */
#include <stdio.h>
#include <stdlib.h>

struct allocator {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
};

static int pool_calls;
static void *pool_calloc(size_t n, size_t s) { pool_calls++; return calloc(n, s); }
static void pool_free(void *p) { pool_calls++; free(p); }

int main(void)
{
    struct allocator std = { malloc, calloc, realloc, free };
    struct allocator pool = { malloc, pool_calloc, realloc, pool_free };
    struct allocator *mem = &pool;
    void *a = mem->calloc(1, 100);
    void *b = std.malloc(50);
    b = std.realloc(b, 70);
    mem->free(a);
    std.free(b);
    printf("pool calls: %d\n", pool_calls);
    return 0;
}
