/* SPDX-License-Identifier: MIT */
/* The gnuplot tail's curves: a site's curve when its peak reached 1% of
   the peak of TOTAL, at most 12 of them.  No argument: a peak of 10000
   bytes, sites of 9801 (BIG), exactly 100 (AT: 1%) and 99 (BELOW).
   Argument "many": 14 sites live at once, 101 to 114 bytes, all over
   1%: the 12 largest drawn. */
#include <stdlib.h>
#include <string.h>
static void one_percent(void)
{
    void *big = malloc(9801);           /* BIG */
    void *at = malloc(100);             /* AT */
    void *below = malloc(99);           /* BELOW */
    free(big), free(at), free(below);
}
static void many(void)
{
    void *p[14];
    p[0] = malloc(101);                 /* S101 */
    p[1] = malloc(102);                 /* S102 */
    p[2] = malloc(103);                 /* S103 */
    p[3] = malloc(104);
    p[4] = malloc(105);
    p[5] = malloc(106);
    p[6] = malloc(107);
    p[7] = malloc(108);
    p[8] = malloc(109);
    p[9] = malloc(110);
    p[10] = malloc(111);
    p[11] = malloc(112);
    p[12] = malloc(113);
    p[13] = malloc(114);                /* S114 */
    for (int i = 0; i < 14; i++)
        free(p[i]);
}
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "many"))
        many();
    else
        one_percent();
    return 0;
}
