/* SPDX-License-Identifier: MIT */
/* bench/threads.c - churn in several threads at once.

   usage: threads NTHREADS OPS_PER_THREAD [POOL [WORK]]

   Every thread runs the churn of churn.c on its own pool with its own
   seed, so the total work grows with the thread count and the cost per
   operation can be compared between 1 and 4 threads.  With more threads
   than cores this is where a tracer's lock hurts: a thread preempted
   while holding it stalls the others.  The checksum adds up the threads'
   own checksums, which does not depend on the schedule.  WORK (default 0)
   rounds of arithmetic, about a nanosecond each, between two operations:
   a program whose threads compute between their calls, where a tracer's
   waiting thread could be working instead (doc/notes/one-lock.md, "The lock's
   waiting"). */
#include <pthread.h>
#include "common.h"

struct job {
    long ops, pool, work;
    unsigned seed;
    uint64_t sum, calls;
};

static size_t random_size(rng_t *r)
{
    uint32_t k = rng_below(r, 4096);
    if (k < 64)
        return 512 + rng_below(r, 4096);
    return 1 + rng_below(r, 256);
}

static void *churn(void *arg)
{
    struct job *j = arg;
    unsigned char **p = xcheck(calloc((size_t)j->pool, sizeof *p));
    size_t *n = xcheck(calloc((size_t)j->pool, sizeof *n));
    uint64_t h = 0, calls = 2, x = 1;
    long i, w;
    rng_t r;

    rng_seed(&r, 100 + j->seed);
    for (i = 0; i < j->ops / 2; i++) {
        uint32_t k = rng_below(&r, (uint32_t)j->pool);
        if (p[k]) {
            h = mix(h, p[k][0] + 256u * p[k][n[k] - 1] + n[k]);
            free(p[k]);
            calls++;
        }
        n[k] = random_size(&r);
        p[k] = xcheck(malloc(n[k]));
        calls++;
        p[k][0] = (unsigned char)i;
        p[k][n[k] - 1] = (unsigned char)(i >> 8);
        for (w = 0; w < j->work; w++)   /* dependent: a nanosecond or so each */
            x = x * 6364136223846793005u + 1442695040888963407u;
    }
    if (j->work)
        h = mix(h, x);
    for (i = 0; i < j->pool; i++)
        if (p[i]) {
            h = mix(h, p[i][0] + n[i]);
            free(p[i]);
            calls++;
        }
    free(p);
    free(n);
    j->sum = h;
    j->calls = calls + 2;
    return NULL;
}

int main(int argc, char **argv)
{
    long nt = arg_long(argc, argv, 1, 4), i;
    long ops = arg_long(argc, argv, 2, 2000000);
    long pool = arg_long(argc, argv, 3, 4096);
    long work = arg_long(argc, argv, 4, 0);
    pthread_t *tid = xcheck(calloc((size_t)nt, sizeof *tid));
    struct job *job = xcheck(calloc((size_t)nt, sizeof *job));
    uint64_t h = 0, calls = 4;

    for (i = 0; i < nt; i++) {
        job[i].ops = ops;
        job[i].pool = pool;
        job[i].work = work;
        job[i].seed = (unsigned)i;
        if (pthread_create(&tid[i], NULL, churn, &job[i])) {
            fputs("pthread_create failed\n", stderr);
            return 3;
        }
    }
    for (i = 0; i < nt; i++) {
        pthread_join(tid[i], NULL);
        h += job[i].sum;
        calls += job[i].calls;
    }
    free(tid);
    free(job);
    report(h, calls);
    return 0;
}
