/* SPDX-License-Identifier: MIT */ /* The tombstone budget: `forgotten N BACK` frees N blocks, then frees
   again the one freed BACK frees before the last (1: the last).  With
   MTRACE_FREED_MAX=M, the most recent 14/16 of M freed blocks are always
   remembered (doc/limits.md); the summary counts those forgotten. */
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100, back = argc > 2 ? atoi(argv[2]) : 1, i;
    char **blocks = malloc((size_t)n * sizeof *blocks);
    for (i = 0; i < n; i++)
        blocks[i] = malloc(24);
    for (i = 0; i < n; i++)
        free(blocks[i]);
    free(blocks[n - back]);
    free(blocks);
    return 0;
}
