/* SPDX-License-Identifier: MIT */
/* Twelve leak records, of 101 to 112 bytes, one a line: MTRACE_LEAK_RECORDS
   at, below and above 12, and the default with call stacks (10). */
#include <stdlib.h>
void *keep[12];
int main(void)
{
    keep[0] = malloc(101);
    keep[1] = malloc(102);
    keep[2] = malloc(103);
    keep[3] = malloc(104);
    keep[4] = malloc(105);
    keep[5] = malloc(106);
    keep[6] = malloc(107);
    keep[7] = malloc(108);
    keep[8] = malloc(109);
    keep[9] = malloc(110);
    keep[10] = malloc(111);
    keep[11] = malloc(112);
    return 0;
}
