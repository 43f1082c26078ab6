/* SPDX-License-Identifier: MIT */
/* Memory over wall-clock time, for --time-unit=ms: 1 MiB, then 2 MiB more
 * 200 ms later, then 4 MiB more 400 ms after the start; everything freed
 * 700 ms after the start (the peak, 7 MiB, is the heap just before the
 * first free), then a last 1 MiB block alone until 900 ms.  The sleeps
 * make the times the program's and not the tracer's nor Valgrind's: the
 * code between them is a few calls.  It prints how long it took from its
 * first malloc to its first free, by its own clock, in whole ms (the sleeps
 * overshoot on a loaded machine: each run is compared with itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0)
        ;
}

static void *block(size_t n)
{
    void *p = malloc(n);
    if (!p)
        exit(1);
    memset(p, 1, n);
    return p;
}

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(void)
{
    long long t0 = now_us();    /* just before the first malloc: its 1 MiB
                                   memset takes a while under Valgrind */
    void *a = block(1 << 20);
    sleep_ms(200);
    void *b = block(2 << 20);
    sleep_ms(200);
    void *c = block(4 << 20);
    sleep_ms(300);
    long long held = now_us() - t0;
    free(c);
    free(b);
    free(a);
    void *d = block(1 << 20);
    sleep_ms(200);
    free(d);
    printf("%lld\n", held / 1000);
    return 0;
}
