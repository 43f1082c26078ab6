/* SPDX-License-Identifier: MIT */
/* tests/tracer/names.c - every use of an allocator's name in a traced file
   reaches the runtime, each argument evaluated once (doc/design.md, "The
   macro"): a call, a pointer taken to malloc, a call after #undef malloc.
   Prints n after the five calls: 10 when each argument was evaluated
   once. */
#include <stdio.h>
#include <stdlib.h>

void *(*volatile through)(size_t) = malloc;    /* a pointer taken to it */

int main(void)
{
    size_t n = 5;
    void *p[4];
    int i = 0;
    p[i++] = malloc(n++);               /* CALL: 5 bytes */
    p[i++] = calloc(n++, 2);            /* CALLOC: 12 */
    p[0] = realloc(p[i - 2], n++);      /* REALLOC: 5 -> 7 */
    p[i++] = through(n++);              /* POINTER: 8 */
#undef malloc
    p[i++] = malloc(n++);               /* UNDEF: 9 */
    while (i > 0)
        free(p[--i]);
    printf("%d\n", (int)n);
    return 0;
}
