/* SPDX-License-Identifier: MIT */
/* tests/segments/seg.c - a deterministic run for MTRACE_TRACE_MAX
   (tests/segments.sh): N rounds of allocations and frees from a few
   sites, with a peak in the middle; "pause" stops half-way until the
   file named by its third argument exists, so that the suite can look at
   the disk while the program runs; "slow" naps a millisecond every 200
   rounds (a reader follows it); "fork" has a child make a run of its
   own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep[64];

static void *grow(size_t n) { return malloc(n); }
static void *dup_of(const char *s) { return strdup(s); }

static void rounds(long n, const char *wait_for, int slow)
{
    long i;
    unsigned x = 12345;
    for (i = 0; i < n; i++) {
        unsigned k = (x = x * 1103515245u + 12345u) >> 16;
        void **slot = &keep[k % 64];
        if (*slot && k % 3 == 0) {
            void *p = realloc(*slot, 16 + k % 300);
            if (p)
                *slot = p;
        } else {
            free(*slot);
            *slot = k % 2 ? grow(1 + k % 500) : dup_of("a string kept for a while");
        }
        if (slow && i % 200 == 0)
            usleep(1000);
        if (i == n / 2) {       /* the peak: one large block, gone at once */
            void *big = calloc(1, 100000);
            free(big);
            if (wait_for)
                while (access(wait_for, F_OK) != 0)
                    usleep(10000);
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 20000;
    const char *mode = argc > 1 ? argv[1] : "run";
    int i;
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        rounds(n, 0, 0);
        if (pid == 0)
            _exit(0);
        waitpid(pid, 0, 0);
    } else
        rounds(n, !strcmp(mode, "pause") ? argv[3] : 0, !strcmp(mode, "slow"));
    for (i = 0; i < 64; i++)
        free(keep[i]);
    return 0;
}
