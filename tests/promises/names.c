/* SPDX-License-Identifier: MIT */
/* One allocation in the parent, one in a forked child: each writes a
   trace, under the names processes.md's table gives. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    free(malloc(1));
    pid_t pid = fork();
    if (pid == 0) {
        free(malloc(2));
        return 0;
    }
    waitpid(pid, 0, 0);
    return 0;
}
