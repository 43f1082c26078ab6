/* SPDX-License-Identifier: MIT */ /* A child forked after the parent's stacks were written writes its own
   trace, with its own "#map" and "#stack" records before their use. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void *leaf(size_t n) { return malloc(n); }
static void *branch(size_t n) { return leaf(n); }

int main(void)
{
    int status;
    free(branch(10));
    if (fork() == 0) {
        free(branch(20));
        exit(0);
    }
    wait(&status);
    free(branch(30));
    return WEXITSTATUS(status);
}
