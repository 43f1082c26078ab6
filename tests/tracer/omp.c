/* SPDX-License-Identifier: MIT */ /* OpenMP: allocations from every thread of a parallel loop. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    long i, sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (i = 0; i < 40000; i++) {
        char *p = malloc((size_t)(i % 100) + 1);
        p[0] = (char)i;
        sum += p[0] != 0;
        free(p);
    }
    printf("%ld\n", sum);
    return 0;
}
