/* SPDX-License-Identifier: MIT */ /* Starts another traced program with posix_spawn (vfork) and system()
   (fork + exec): each writes its own trace, none truncates ours. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
    char *p = malloc(10), *args[] = { argv[1], NULL };
    pid_t pid;
    int status = -1;
    if (argc < 2 || posix_spawn(&pid, argv[1], NULL, NULL, args, environ) != 0)
        return 2;
    waitpid(pid, &status, 0);
    printf("spawned exited %d\n", WEXITSTATUS(status));
    printf("system exited %d\n", WEXITSTATUS(system(argv[1])));
    free(p);
    return 0;
}
