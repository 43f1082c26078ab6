/* SPDX-License-Identifier: MIT */ /* A daemon-like program closes every descriptor, opens a file of its own
   and dup2()s it over the number the tracer used: no trace record may land
   in the program's file, and none may be lost. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *sink[1000];

int main(int argc, char **argv)
{
    int fd, i, tracefd = pmtrace.fd;
    for (i = 0; i < 500; i++)
        sink[i] = malloc(32);
    for (fd = 3; fd < 1024; fd++)
        close(fd);
    fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (tracefd >= 0 && dup2(fd, tracefd) < 0))
        return 2;
    for (i = 500; i < 1000; i++)
        sink[i] = malloc(32);
    if (write(fd, "mine\n", 5) != 5)
        return 2;
    for (i = 0; i < 1000; i++)
        free(sink[i]);
    (void)argc;
    return 0;
}
