/* SPDX-License-Identifier: MIT */ /* Built with frame pointers, calls into a library without them (nofp.c):
   its allocation, and one of ours made from its callback. */
#include <stdlib.h>
void *nofp_api(size_t n);
void *nofp_call(void *(*f)(size_t), size_t n);
void *keep[2];
static __attribute__((noinline)) void *callback(size_t n)
{
    void *p = malloc(n);                        /* BACK */
    __asm__ __volatile__("" ::: "memory");
    return p;
}
static __attribute__((noinline)) void *prog_mid(size_t n)
{
    void *p = nofp_api(n);
    __asm__ __volatile__("" ::: "memory");
    return p;
}
int main(void)
{
    keep[0] = prog_mid(64);
    keep[1] = nofp_call(callback, 32);
    return 0;
}
