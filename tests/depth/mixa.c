/* SPDX-License-Identifier: MIT */ /* One traced module, two builds: this file with frame pointers, mixb.c
   without (tests/depth.sh).  main -> upper -> mid (mixb.c) -> leaf: the
   walk from leaf's frame reads mid's return address, then, mid having no
   frame, upper's frame as mid's: upper is skipped. */
#include <stdlib.h>
void *mid(size_t n);
static void *volatile kept;
__attribute__((noinline)) void *leaf(size_t n);
__attribute__((noinline)) void *leaf(size_t n)
{
    return malloc(n);                   /* LEAF */
}
__attribute__((noinline)) static void upper(void)
{
    kept = mid(24);                     /* UPPER */
}
int main(void)
{
    upper();                            /* MAIN */
    return 0;
}
