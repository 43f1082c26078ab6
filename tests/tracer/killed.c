/* SPDX-License-Identifier: MIT */ /* Killed by a signal after N allocations: the trace holds all N records
   and no tail, and the program dies of the same signal as without mtrace. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int i, n = 1000;
    volatile int *nowhere = 0;
    for (i = 0; i < n; i++)
        if (!malloc(16))
            return 2;
    if (argc > 1 && !strcmp(argv[1], "segv"))
        return *nowhere;
    if (argc > 1 && !strcmp(argv[1], "term"))
        raise(SIGTERM);
    if (argc > 1 && !strcmp(argv[1], "abort"))
        abort();
    return 0;
}
