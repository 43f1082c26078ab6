/* SPDX-License-Identifier: MIT */
/* bench/timeit.c - run a command and write what it cost.

   usage: timeit RESULT-FILE COMMAND [ARG...]

   Runs COMMAND (its stdin, stdout and stderr are ours) and writes one
   line to RESULT-FILE:

       WALL USER SYS MAXRSS STATUS

   seconds with microsecond resolution (wall from CLOCK_MONOTONIC around
   fork and wait, user and system time from wait4, so they cover the
   command's waited-for children too), the peak resident set size in kB,
   and the exit status (128 + N for a death by signal N).  /usr/bin/time
   gives wall time in hundredths only, too coarse for the short runs of a
   benchmark that repeats them; `time` in the shell gives no peak RSS. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    struct rusage ru;
    double t0, t1;
    int status, code;
    pid_t pid;
    FILE *out;

    if (argc < 3) {
        fputs("usage: timeit RESULT-FILE COMMAND [ARG...]\n", stderr);
        return 2;
    }
    /* open the result file first: a bad path is an error before the run */
    if (!(out = fopen(argv[1], "w"))) {
        fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    t0 = now();
    pid = fork();
    if (pid < 0) {
        perror("timeit: fork");
        return 2;
    }
    if (pid == 0) {
        fclose(out);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "timeit: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("timeit: wait4");
            return 2;
        }
    t1 = now();
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(out, "%.6f %.6f %.6f %ld %d\n", t1 - t0, seconds(ru.ru_utime),
            seconds(ru.ru_stime), ru.ru_maxrss, code);
    return fclose(out) ? 2 : 0;
}
