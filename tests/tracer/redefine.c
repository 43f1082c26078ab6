/* SPDX-License-Identifier: MIT */ /* Programs that redefine or undefine malloc themselves. */
#include <stdio.h>
#include <stdlib.h>

static int counted;
static void *counting_malloc(size_t n) { counted++; return calloc(1, n); }
#undef malloc
typedef void *alloc_fn(size_t);
static alloc_fn *my_malloc = malloc;        /* the real one, through a pointer */
#define malloc(n) counting_malloc(n)

int main(void)
{
    void *a = malloc(10), *b = my_malloc(20);
    free(a);
    free(b);
    printf("counted %d\n", counted);
    return 0;
}
