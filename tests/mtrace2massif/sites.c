/* SPDX-License-Identifier: MIT */ /* Many sites with sizes around Massif's 1% threshold and with ties, to check
 * the aggregation line ("in N places, all below massif's threshold") and the
 * order of siblings (bytes descending, then code address ascending: here
 * the order of first use, as the sites run in source order). */
#include <stdlib.h>

int main(void)
{
    void *p[64];
    int i = 0;
    p[i++] = malloc(30000);
    p[i++] = malloc(20000);
    p[i++] = malloc(20000);
    p[i++] = malloc(9000);
    p[i++] = malloc(1200);
    p[i++] = malloc(1100);
    p[i++] = malloc(1000);
    p[i++] = malloc(999);
    p[i++] = malloc(700);
    p[i++] = malloc(700);
    p[i++] = malloc(500);
    p[i++] = malloc(300);
    p[i++] = malloc(100);
    p[i++] = malloc(100);
    p[i++] = malloc(50);
    p[i++] = malloc(1);
    p[i++] = malloc(0);
    p[i++] = malloc(4000);
    p[i++] = malloc(4000);
    for (int k = 0; k < 18; k++)    /* one site, many blocks */
        p[i++] = malloc(64);
    while (i > 0) {
        free(p[--i]);
        if (i % 5 == 0) {
            p[i++] = malloc(2000);
            free(p[--i]);
        }
    }
    return 0;
}
