/* SPDX-License-Identifier: MIT */ /* The trace's clock: `clock N` makes N allocations at gaps of 0 to 33 ms
   (a fixed sequence), and prints for each its own reading of the
   monotonic clock, in microseconds since the first, one a line, so that a
   test can compare it with where the trace's #time records place it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
    int i, n = argc > 1 ? atoi(argv[1]) : 40;
    unsigned seed = 7;
    long long first = 0, t;
    for (i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        usleep(seed >> 16 & 15 ? (seed >> 8 & 0x7fff) : 0);    /* 0 to 33 ms */
        t = now_us();
        free(malloc(16 + i));
        if (i == 0)
            first = t;
        printf("%lld\n", t - first);
    }
    return 0;
}
