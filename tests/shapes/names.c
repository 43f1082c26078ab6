/* SPDX-License-Identifier: MIT */ /* A program whose own names are the runtime's short ones: with the header
   at every level, in both uses, it must compile and run unchanged. */
#include <stdio.h>
#include <stdlib.h>
#define MT_HOT 1
static unsigned long mt[624];
static int mt_state, buf = 3, lock;
static void mt_init(unsigned long s) { int i; mt[0] = s; for (i = 1; i < 624; i++) mt[i] = 1812433253UL * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (unsigned long)i; }
static int mt_lock(void) { return lock++; }
int main(void)
{
    char *p = malloc(16);
    mt_init(5489UL);
    mt_state = mt_lock() + MT_HOT + buf;
    printf("%lu %d\n", mt[623] & 0xffff, mt_state);
    free(p);
    return 0;
}
