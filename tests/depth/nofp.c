/* SPDX-License-Identifier: MIT */ /* A library built without frame pointers (-O2 -fomit-frame-pointer, no
   -DMTRACE_FRAME_POINTERS): an allocation two calls inside it, and a
   call back into the program (nofpmain.c). */
#include <stdlib.h>
void *nofp_api(size_t n);
void *nofp_call(void *(*f)(size_t), size_t n);
static __attribute__((noinline)) void *nofp_inner(size_t n)
{
    void *p = malloc(n);                        /* NOFP */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
void *nofp_api(size_t n)
{
    void *p = nofp_inner(n);
    __asm__ __volatile__("" ::: "memory");
    return p;
}
void *nofp_call(void *(*f)(size_t), size_t n)
{
    void *p = f(n);                             /* CALLBACK */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
