/* SPDX-License-Identifier: MIT */ /* Thousands of allocations and frees, so that Massif culls its snapshot
 * array many times; the live set drifts up and down. */
#include <stdlib.h>

#define N 64

int main(void)
{
    void *live[N] = { 0 };
    unsigned seed = 12345;
    for (int i = 0; i < 6000; i++) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 16) % N);
        if (live[k]) {
            free(live[k]);
            live[k] = NULL;
        } else {
            size_t sz = 16 + ((seed >> 8) % 4000) * (size_t)(1 + i / 1500);
            live[k] = malloc(sz);
        }
    }
    for (int k = 0; k < N; k++)
        free(live[k]);
    return 0;
}
