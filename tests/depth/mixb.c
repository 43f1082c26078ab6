/* SPDX-License-Identifier: MIT */ /* Built without frame pointers, in mixa.c's module (tests/depth.sh). */
#include <stddef.h>
void *leaf(size_t n);
void *mid(size_t n);
__attribute__((noinline)) void *mid(size_t n)
{
    void *p = leaf(n + 1);              /* MID */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
