/* SPDX-License-Identifier: MIT */
/* tests/zstd/zstd.c - the traced program of tests/zstd.sh: N rounds of
   churn (a block freed and another allocated, 1000 live at most, 16 to
   115 bytes), then per MODE: "fork" (a child that allocates 3000 blocks
   of its own and exits), "abort", "kill" (SIGKILL to itself after 300 ms
   without a call, then one malloc and its free: the writer wrote every
   record of before the quiet 300 ms, the two after it are lost), or
   nothing.  Frees everything it keeps, prints "done". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep[1000];

static void child_work(void)
{
    int i;
    for (i = 0; i < 3000; i++)
        free(malloc((size_t)i));
}

int main(int argc, char **argv)
{
    int i, n = argc > 1 ? atoi(argv[1]) : 1000;
    const char *mode = argc > 2 ? argv[2] : "";
    for (i = 0; i < n; i++) {
        free(keep[i % 1000]);
        keep[i % 1000] = malloc((size_t)(16 + i % 100));
    }
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            child_work();
            return 0;
        }
        waitpid(pid, 0, 0);
    }
    if (!strcmp(mode, "abort"))
        abort();
    if (!strcmp(mode, "kill")) {
        usleep(300000);
        free(malloc(1));
        kill(getpid(), SIGKILL);
    }
    for (i = 0; i < 1000; i++)
        free(keep[i]);
    puts("done");
    return 0;
}
