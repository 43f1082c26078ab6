/* SPDX-License-Identifier: MIT */ /* The process's edges (issue 23), one per mode:
     vfork     a vfork child _exits, then the parent allocates 11 bytes
               and keeps them: a leak the report must name
     records   200,000 malloc/free pairs (a trace of about 3 MB), then
               a line of the program's own and exit status 3
     deep      a 5-byte leak one call deep, for the reports' call stacks */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *kept;                     /* global: the compiler keeps the allocations */

static char *five(void)
{
    return malloc(5);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int i;
    if (!strcmp(mode, "vfork")) {
        pid_t pid = vfork();
        if (pid == 0)
            _exit(0);
        waitpid(pid, 0, 0);
        kept = malloc(11);
    } else if (!strcmp(mode, "records")) {
        for (i = 0; i < 200000; i++)
            free(malloc(100));
        puts("the program's own output");
        return 3;
    } else if (!strcmp(mode, "deep"))
        kept = five();
    return 0;
}
