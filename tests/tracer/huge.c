/* SPDX-License-Identifier: MIT */ /* 50 million blocks live at once, then freed. */
#include <stdio.h>
#include <stdlib.h>

#define N 50000000L

int main(void)
{
    char **p = calloc(N, sizeof *p);        /* 400,000,000 bytes */
    long i;
    if (!p)
        return 2;
    for (i = 0; i < N; i++)
        p[i] = malloc(8);                   /* 8 bytes each: 400,000,000 */
    for (i = 0; i < N; i++)
        free(p[i]);
    free(p);
    printf("ok\n");
    return 0;
}
