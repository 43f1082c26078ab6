/* SPDX-License-Identifier: MIT */ /* A program with a leak it means (a cache kept until exit, from a vendored
   library), a real one, and a peak of 8300 bytes at record 2. */
#include <stdio.h>
#include <stdlib.h>
#include "vendor.h"

char *cache, *lost;

int main(void)
{
    char *big = malloc(5000);
    char *more = malloc(3000);
    cache = vendor_cache(300);
    free(big);
    free(more);
    lost = malloc(10);
    puts("done");
    return 0;
}
