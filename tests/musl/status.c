/* SPDX-License-Identifier: MIT */ /* status N [exit|return] [free]: a block leaked (or freed), then the
   status N by exit(N) or by returning it from main. */
#include <stdlib.h>
#include <string.h>

static void *keep;

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 0;
    keep = malloc(10);
    if (argc > 3 && !strcmp(argv[3], "free"))
        free(keep);
    keep = 0;
    if (argc > 2 && !strcmp(argv[2], "exit"))
        exit(status);
    return status;
}
