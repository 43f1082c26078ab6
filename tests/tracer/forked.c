/* SPDX-License-Identifier: MIT */ /* fork: parent and child both trace.  The child writes its own file
   (NAME.PID), starts from zero (the parent's blocks are not its own) and
   prints its own report, tagged with its pid; its leak makes its status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void *sink;

int main(void)
{
    void *p = malloc(100);
    pid_t pid;
    int status;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        sink = malloc(555);                 /* line 19: the child's leak */
        free(p);                            /* inherited: silent */
        exit(0);
    }
    waitpid(pid, &status, 0);
    free(p);
    printf("child %d exited %d\n", (int)pid, WEXITSTATUS(status));
    return 0;
}
