/* SPDX-License-Identifier: MIT */
/* N allocations, each freed before the next (all temporary): the guide's
   line about temporaries needs more than 10% of them and at least 10. */
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < n; i++)
        free(malloc(16));                                       /* TEMP */
    return 0;
}
