/* SPDX-License-Identifier: MIT */
/* tests/promises/forkexec.c - a forked child that execs at once writes
   none of the block table (doc/design.md, "What fork does": the parent's
   table becomes the child's inherited generation where fork put it,
   nothing copied).  The parent holds a million blocks, 16 MiB or more of
   table; a child execs /bin/true at once.  Prints the child's page
   faults (copy-on-write of the table would fault every one of its 4096
   pages or more). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 1000000

static void *blocks[BLOCKS];

int main(void)
{
    struct rusage ru;
    pid_t pid;
    int i;
    for (i = 0; i < BLOCKS; i++)
        blocks[i] = malloc(16);
    pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
    getrusage(RUSAGE_CHILDREN, &ru);
    printf("%ld\n", ru.ru_minflt + ru.ru_majflt);
    for (i = 0; i < BLOCKS; i++)
        free(blocks[i]);
    return 0;
}
