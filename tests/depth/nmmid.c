/* SPDX-License-Identifier: MIT */ /* The callers of nm_leaf (see nmleaf.c); nm_api is exported even from a
   library built with -fvisibility=hidden. */
#include <stddef.h>
void *nm_leaf(size_t n);
__attribute__((visibility("default"))) void *nm_api(size_t n);
static __attribute__((noinline)) void *nm_inner(size_t n)
{
    void *p = nm_leaf(n);                       /* INNER */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
static __attribute__((noinline)) void *nm_outer(size_t n)
{
    void *p = nm_inner(n);                      /* OUTER */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
__attribute__((visibility("default"))) void *nm_api(size_t n)
{
    void *p = nm_outer(n);                      /* API */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
