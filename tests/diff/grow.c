/* SPDX-License-Identifier: MIT */ /* tests/diff/grow.c - a program whose heap grows with its argument N, for
 * tests/diff.sh: a table of N pointers, N blocks of growing size (the last
 * one leaked), a buffer grown by realloc N times, a site used only when
 * N > 2 (leaked: new in the larger run) and one only when N <= 2 (gone). */
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    char **v = malloc((size_t)n * sizeof *v);
    char *buf = NULL;
    for (int i = 0; i < n; i++)
        v[i] = malloc(100 * (size_t)(i + 1));
    for (int i = 0; i < n; i++)
        buf = realloc(buf, 50 * (size_t)(i + 1));
    if (n > 2)
        v[0][0] = *(char *)malloc(777) = 1;
    else
        free(malloc(333));
    for (int i = 0; i + 1 < n; i++)
        free(v[i]);
    free(v);
    free(buf);
    return 0;
}
