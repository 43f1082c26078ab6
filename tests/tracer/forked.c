/* fork: the child's allocations and exit neither write into the parent's
   trace nor print a second report. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    void *p = malloc(100);
    pid_t pid;
    int status;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        void *q = malloc(555);              /* child: leaked, unreported */
        (void)q;
        free(p);
        exit(0);
    }
    waitpid(pid, &status, 0);
    free(p);
    printf("child exited %d\n", WEXITSTATUS(status));
    return 0;
}
