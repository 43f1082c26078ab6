/* SPDX-License-Identifier: MIT */
/* N blocks of 64 KiB held by a global array: each starts a 64 KiB range of
   its own, so the block table's directory has N ranges, spread over its
   slots by their hash, its first and last slots among them more often
   than not.  In reachable mode every block is still reachable: a range
   the scan skipped would show as a leak.  usage: reach-ranges N */
#include <stdlib.h>

#define MOST 8192
static char *held[MOST];

int main(int argc, char **argv)
{
    int i, n = argc > 1 ? atoi(argv[1]) : 0;
    for (i = 0; i < n && i < MOST; i++)
        held[i] = malloc(65536);
    return 0;
}
