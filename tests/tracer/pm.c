/* SPDX-License-Identifier: MIT */ /* The program reads its own figures through pmtrace. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    void *a = malloc(300), *b = malloc(700);
    size_t total = pmtrace.total;
    free(a);
    printf("total %zu max %zu now %zu records %zu\n", total, pmtrace.max, pmtrace.total, pmtrace.nr);
    free(b);
    return 0;
}
