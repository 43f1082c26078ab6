/* SPDX-License-Identifier: MIT */ /* maxrss PROG ARGS... - run PROG with stdout to /dev/null and print
 * "<wall seconds> <peak RSS in kB> <CPU seconds, user + system>" of it, like
 * `/usr/bin/time -f '%e %M'` (which not every machine has).  Used by tests/ms_print.sh and
 * bench/ms_print.sh. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status;
    if (argc < 2)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    /* the children's peak RSS is that of the one child */
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) < 0)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.3f %ld %.3f\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
           ru.ru_maxrss,
           (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
