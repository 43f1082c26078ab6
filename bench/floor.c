/* floor.c - what exact ordering costs when threads allocate at once.

   Every traced call changes the program's total and its site's figures,
   and the contract (exact peaks, records in one order) needs those
   changes in one order.  This program measures the floor of that, apart
   from the tracer: each thread runs a malloc/free churn and, per call,
   changes the same figures the tracer changes (a total, its peak, a
   record count; a site's live bytes, blocks and calls) in one of four
   ways:

     private  per-thread figures: no order at all (what no exact tracer gets)
     atomic   atomic adds and a compare-and-swap peak on shared lines: an
              order without a lock
     spin     a lock whose waiters only spin
     yield    a lock whose waiters spin and yield the core every other turn
              (mtrace's lock)

   usage: floor THREADS MODE [CALLS]    prints wall and CPU ns per call */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct figures { long live, peak, calls; } __attribute__((aligned(64)));

static struct figures total, site;   /* shared: one cache line each */
static int lock __attribute__((aligned(64)));
static const char *mode;
static long calls = 4000000;

static void take(int yield)
{
    int spins = 0;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock, __ATOMIC_RELAXED))
            if (yield && ++spins % 2 == 0)
                sched_yield();
            else
                __builtin_ia32_pause();
}

/* One call's figures, size bytes allocated, the ordered way. */
static void count_locked(long size, int yield)
{
    take(yield);
    total.live += size;
    if (total.live > total.peak)
        total.peak = total.live;
    total.calls++;
    site.live += size;
    if (site.live > site.peak)
        site.peak = site.live;
    site.calls++;
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static void max_of(long *peak, long v)
{
    long p = __atomic_load_n(peak, __ATOMIC_RELAXED);
    while (v > p && !__atomic_compare_exchange_n(peak, &p, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void count_atomic(long size)
{
    max_of(&total.peak, __atomic_add_fetch(&total.live, size, __ATOMIC_RELAXED));
    __atomic_add_fetch(&total.calls, 1, __ATOMIC_RELAXED);
    max_of(&site.peak, __atomic_add_fetch(&site.live, size, __ATOMIC_RELAXED));
    __atomic_add_fetch(&site.calls, 1, __ATOMIC_RELAXED);
}

static void *churn(void *arg)
{
    struct figures mine = { 0, 0, 0 };
    unsigned long seed = (unsigned long)arg;
    long sizes[64] = { 0 }, i;
    void *live[64] = { 0 };
    for (i = 0; i < calls; i++) {
        int k = (int)(seed >> 58);
        long size = (long)(seed >> 54) + 1, change = size - sizes[k];
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        free(live[k]);
        live[k] = malloc((size_t)size);
        sizes[k] = size;
        if (!strcmp(mode, "private")) {
            mine.live += change;
            if (mine.live > mine.peak)
                mine.peak = mine.live;
            mine.calls++;
        } else if (!strcmp(mode, "atomic"))
            count_atomic(change);
        else
            count_locked(change, !strcmp(mode, "yield"));
    }
    for (i = 0; i < 64; i++)
        free(live[i]);
    return (void *)mine.calls;
}

static double ns(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv)
{
    struct timespec w0, w1, c0, c1;
    pthread_t t[64];
    long n, i;
    if (argc < 3 || (n = atol(argv[1])) < 1 || n > 64
        || (strcmp(argv[2], "private") && strcmp(argv[2], "atomic") && strcmp(argv[2], "spin")
            && strcmp(argv[2], "yield"))) {
        fprintf(stderr, "usage: floor THREADS(1-64) private|atomic|spin|yield [CALLS]\n");
        return 2;
    }
    mode = argv[2];
    if (argc > 3)
        calls = atol(argv[3]);
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (i = 0; i < n; i++)
        pthread_create(&t[i], 0, churn, (void *)(i + 1));
    for (i = 0; i < n; i++)
        pthread_join(t[i], 0);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    /* per call of one thread: wall time, and CPU time summed over threads */
    printf("%ld %s %.1f %.1f\n", n, mode, ns(&w0, &w1) / (double)calls, ns(&c0, &c1) / (double)calls / (double)n);
    return 0;
}
