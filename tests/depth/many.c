/* SPDX-License-Identifier: MIT */ /* 512 distinct stacks from one site: the tables grow while a stack is
   being looked up. */
#include <stdlib.h>
static void *leaf(void) { return malloc(16); }
static void *walk(int k, unsigned bits)
{
    if (k == 0)
        return leaf();
    if (bits & 1)
        return walk(k - 1, bits >> 1);      /* one return address... */
    else
        return walk(k - 1, bits >> 1);      /* ...or another */
}

int main(void)
{
    unsigned bits;
    for (bits = 0; bits < 512; bits++)
        free(walk(9, bits));
    return 0;
}
