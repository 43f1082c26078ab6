/* SPDX-License-Identifier: MIT */ /* Defines _GNU_SOURCE itself, after mtrace.h has been included. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b, void *dir)
{
    return *(const int *)dir * (*(const int *)a - *(const int *)b);
}

int main(void)
{
    int v[] = { 3, 1, 2 }, dir = -1;
    char *s;
    qsort_r(v, 3, sizeof *v, cmp, &dir);
    if (asprintf(&s, "%d%d%d %s", v[0], v[1], v[2], strcasestr("HayNeedle", "needle")) < 0)
        return 1;
    puts(s);
    free(s);
    return 0;
}
