/* SPDX-License-Identifier: MIT */ /* Allocator functions kept in a table and called through pointers, mixed
   with calls by name: no false leak, no crash.  The one real leak, made
   through a pointer, is reported at its place, named at exit from the
   call's return address (issue 24). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hooks { void *(*alloc)(size_t); void (*release)(void *); void *(*grow)(void *, size_t); };
static const struct hooks defaults = { malloc, free, realloc };
char *sink;

int main(void)
{
    struct hooks h = defaults;
    char *a = malloc(10), *b = h.alloc(20), *c = strdup("xyz"), *leak;
    a = h.grow(a, 100);                     /* by name, resized by pointer */
    h.release(a);                           /* ... freed by pointer */
    free(b);                                /* by pointer, freed by name */
    h.release(c);
    if (h.alloc == malloc)
        puts("same malloc");
    leak = h.alloc(33);
    sink = leak;                            /* escapes: the compiler keeps it */
    return 0;
}
