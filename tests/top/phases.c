/* SPDX-License-Identifier: MIT */
/* phases.c - a heap in phases for tests/top.sh: 1 MiB (one), then 3 MiB
 * (three), then both freed, each phase held until the test creates the
 * file go1, go2, go3 in the working directory (at most 20 s each), so that
 * mtrace-top's snapshots can be checked phase by phase.  "leak": the
 * MiB of one is never freed.  Checking for a file allocates nothing. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void wait_for(const char *file)
{
    for (int i = 0; i < 2000 && access(file, F_OK) != 0; i++)
        usleep(10000);
}

static char *one(void)
{
    char *p = malloc(1 << 20);
    memset(p, 1, 1 << 20);
    return p;
}

static char *three(void)
{
    char *p = malloc(3 << 20);
    memset(p, 3, 3 << 20);
    return p;
}

int main(int argc, char **argv)
{
    int leak = argc > 1 && !strcmp(argv[1], "leak");
    char *a = one();
    wait_for("go1");
    char *b = three();
    wait_for("go2");
    if (!leak)
        free(a);
    free(b);
    wait_for("go3");
    return 0;
}
