/* SPDX-License-Identifier: MIT */ /* Built with -DMTRACE_NO_MACROS (see a.c). */
#include <stdlib.h>
void *b_alloc(size_t n);
void *b_alloc(size_t n)
{
    void *p = malloc(n);                        /* B */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
