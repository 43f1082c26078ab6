/* SPDX-License-Identifier: MIT */ /* Compiled by its absolute path (see a.c). */
#include <stdlib.h>
void *c_alloc(size_t n);
void *c_alloc(size_t n)
{
    void *p = malloc(n);                        /* C */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
