/* SPDX-License-Identifier: MIT */ /* The tracer's own tables cannot grow (address space limited after start):
   the program goes on as the C library decides, the tracer warns once and
   its summary says that the figures are incomplete. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define N 300000

void *volatile sink;

int main(void)
{
    static void *p[N];
    struct rlimit lim;
    long ok = 0, i;
    mallopt(M_TRIM_THRESHOLD, 1 << 30);     /* keep freed heap for later */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    sink = malloc(64 << 20);                /* 64 MiB of heap, kept */
    free(sink);
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = 0;                       /* no new mapping from now on */
    {
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!f || fscanf(f, "%lu", &pages) != 1)
            return 2;
        fclose(f);
        lim.rlim_cur = pages * 4096 + (1 << 20);
    }
    setrlimit(RLIMIT_AS, &lim);
    for (i = 0; i < N; i++)
        ok += (p[i] = malloc(64)) != NULL;
    for (i = 0; i < N; i++)
        free(p[i]);
    printf("%ld of %d allocations succeeded\n", ok, N);
    return 0;
}
