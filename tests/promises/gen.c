/* SPDX-License-Identifier: MIT */
/* A block freed, then K generations of fork, and the last child frees it
   again: processes.md says a child remembers what its ancestors had "up
   to 8 generations back" (limits.md: "more than 8 generations of fork
   back ... not reported by mtrace").  Without the argument "again" the
   last child allocates and frees a block of its own instead.  Each
   process waits for its child and ends with the child's status (128 + N
   for a signal N). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 0;
    char *p = malloc(40);
    free(p);
    for (int g = 1; g <= k; g++) {
        pid_t pid = fork();
        if (pid > 0) {
            int st;
            waitpid(pid, &st, 0);
            _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        }
    }
    if (argc > 2 && !strcmp(argv[2], "again"))
        free(p);                        /* AGAIN */
    else
        free(malloc(8));
    return 0;
}
