/* SPDX-License-Identifier: MIT */
/* bench/shapes.c - the two threaded shapes of issue 29.

   usage: shapes pools THREADS PAIRS      each thread churns pools of its own
          shapes handoff THREADS PAIRS    a producer allocates, a consumer frees

   pools: 2,500-block pools (two, or one a thread with more threads) are
   churned at random for 8 long rounds; between rounds the pools change
   hands (round r gives pool p to thread (p + r) % THREADS), so a thread's
   first free of each block in a round is of a block another thread
   allocated, and the rest are of its own.  handoff: a producer fills
   batches of 64 blocks into a ring of 64 and a consumer frees them, so
   every free is of the other thread's block; with more threads, pairs of
   them, each pair with its own ring.

   PAIRS malloc/free pairs in all, whatever THREADS is: with one thread the
   same work runs in one thread (the pools one after the other; the ring
   filled and emptied by turns), so 2 threads / 1 thread is the cost of
   threading the same work.  Owns its own workload only; calls the C
   library and bench/common.h.  The checksum depends on the pools' and the
   producers' random sequences only, never on the schedule. */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "common.h"

#define POOL 2500
#define ROUNDS 8
#define BATCH 64
#define RING 64

static long nthreads, npools, pairs;

static size_t random_size(rng_t *r)
{
    uint32_t k = rng_below(r, 4096);
    if (k < 64)
        return 512 + rng_below(r, 4096);
    return 1 + rng_below(r, 256);
}

/* A plain spin-then-yield wait: the workload's own, the same in every
   build, so the ratios measure the tracer and not this. */
static void wait_turn(int spins)
{
    if (spins % 1024 == 1023)
        sched_yield();
    else
        __builtin_ia32_pause();
}

/* ---- pools ---- */
struct pool {
    unsigned char *p[POOL];
    size_t n[POOL];
    rng_t r;
    uint64_t sum, calls;
} __attribute__((aligned(64)));

static struct pool *pools;
static pthread_barrier_t round_end;

/* One long round of pool q: PAIRS / (pools * ROUNDS) random replacements. */
static void churn_pool(struct pool *q, long ops)
{
    long i;
    for (i = 0; i < ops; i++) {
        uint32_t k = rng_below(&q->r, POOL);
        if (q->p[k]) {
            q->sum = mix(q->sum, q->p[k][0] + 256u * q->p[k][q->n[k] - 1] + q->n[k]);
            free(q->p[k]);
            q->calls++;
        }
        q->n[k] = random_size(&q->r);
        q->p[k] = xcheck(malloc(q->n[k]));
        q->calls++;
        q->p[k][0] = (unsigned char)i;
        q->p[k][q->n[k] - 1] = (unsigned char)(i >> 8);
    }
}

static void *pools_thread(void *arg)
{
    long me = (long)arg, r, p, k;
    for (r = 0; r < ROUNDS; r++) {
        for (p = 0; p < npools; p++)
            if ((p + r) % nthreads == me)
                churn_pool(&pools[p], pairs / (npools * ROUNDS));
        pthread_barrier_wait(&round_end);
    }
    /* the last owner frees its pools */
    for (p = 0; p < npools; p++)
        if ((p + ROUNDS - 1) % nthreads == me)
            for (k = 0; k < POOL; k++)
                if (pools[p].p[k]) {
                    pools[p].sum = mix(pools[p].sum, pools[p].p[k][0] + pools[p].n[k]);
                    free(pools[p].p[k]);
                    pools[p].calls++;
                }
    return NULL;
}

/* ---- handoff ---- */
struct batch {
    unsigned char *p[BATCH];
    size_t n[BATCH];
    int full;                   /* 1: the consumer's; 0: the producer's */
} __attribute__((aligned(64)));

struct ring {
    struct batch b[RING];
    rng_t r;
    long batches;
    uint64_t sum, calls;
} __attribute__((aligned(64)));

static struct ring *rings;

static void produce(struct ring *g, long i)
{
    struct batch *b = &g->b[i % RING];
    int k, spins = 0;
    while (__atomic_load_n(&b->full, __ATOMIC_ACQUIRE))
        wait_turn(spins++);
    for (k = 0; k < BATCH; k++) {
        b->n[k] = random_size(&g->r);
        b->p[k] = xcheck(malloc(b->n[k]));
        b->p[k][0] = (unsigned char)(i + k);
        b->p[k][b->n[k] - 1] = (unsigned char)k;
    }
    __atomic_store_n(&b->full, 1, __ATOMIC_RELEASE);
}

static void consume(struct ring *g, long i)
{
    struct batch *b = &g->b[i % RING];
    int k, spins = 0;
    while (!__atomic_load_n(&b->full, __ATOMIC_ACQUIRE))
        wait_turn(spins++);
    for (k = 0; k < BATCH; k++) {
        g->sum = mix(g->sum, b->p[k][0] + 256u * b->p[k][b->n[k] - 1] + b->n[k]);
        free(b->p[k]);
    }
    g->calls += 2 * BATCH;
    __atomic_store_n(&b->full, 0, __ATOMIC_RELEASE);
}

static void *producer(void *arg)
{
    struct ring *g = arg;
    long i;
    for (i = 0; i < g->batches; i++)
        produce(g, i);
    return NULL;
}

static void *consumer(void *arg)
{
    struct ring *g = arg;
    long i;
    for (i = 0; i < g->batches; i++)
        consume(g, i);
    return NULL;
}

/* One thread: the ring filled, then a batch freed and one made by turns. */
static void handoff_alone(struct ring *g)
{
    long i;
    for (i = 0; i < g->batches + RING; i++) {
        if (i >= RING)
            consume(g, i - RING);
        if (i < g->batches)
            produce(g, i);
    }
}

int main(int argc, char **argv)
{
    int handoff = argc > 1 && !strcmp(argv[1], "handoff");
    pthread_t *tid;
    uint64_t h = 0, calls = 0;
    long i, nrings;

    if (argc < 2 || (!handoff && strcmp(argv[1], "pools"))) {
        fputs("usage: shapes pools|handoff THREADS PAIRS\n", stderr);
        return 2;
    }
    nthreads = arg_long(argc, argv, 2, 2);
    pairs = arg_long(argc, argv, 3, 24000000);
    if (handoff && nthreads > 1 && nthreads % 2) {
        fputs("shapes handoff: 1 thread or pairs of threads\n", stderr);
        return 2;
    }
    tid = xcheck(calloc((size_t)nthreads, sizeof *tid));
    if (!handoff) {
        npools = nthreads < 2 ? 2 : nthreads;
        pools = xcheck(aligned_alloc(64, sizeof *pools * (size_t)npools));
        memset(pools, 0, sizeof *pools * (size_t)npools);
        for (i = 0; i < npools; i++)
            rng_seed(&pools[i].r, 100 + (uint64_t)i);
        pthread_barrier_init(&round_end, NULL, (unsigned)nthreads);
        for (i = 0; i < nthreads; i++)
            if (pthread_create(&tid[i], NULL, pools_thread, (void *)i))
                return fputs("pthread_create failed\n", stderr), 3;
        for (i = 0; i < nthreads; i++)
            pthread_join(tid[i], NULL);
        for (i = 0; i < npools; i++)
            h = mix(h, pools[i].sum), calls += pools[i].calls;
        free(pools);
    } else {
        nrings = nthreads < 2 ? 1 : nthreads / 2;
        rings = xcheck(aligned_alloc(64, sizeof *rings * (size_t)nrings));
        memset(rings, 0, sizeof *rings * (size_t)nrings);
        for (i = 0; i < nrings; i++) {
            rng_seed(&rings[i].r, 200 + (uint64_t)i);
            rings[i].batches = pairs / (nrings * BATCH);
        }
        if (nthreads == 1)
            for (i = 0; i < nrings; i++)
                handoff_alone(&rings[i]);
        else
            for (i = 0; i < nrings; i++)
                if (pthread_create(&tid[2 * i], NULL, producer, &rings[i])
                    || pthread_create(&tid[2 * i + 1], NULL, consumer, &rings[i]))
                    return fputs("pthread_create failed\n", stderr), 3;
        for (i = 0; nthreads > 1 && i < nthreads; i++)
            pthread_join(tid[i], NULL);
        for (i = 0; i < nrings; i++)
            h = mix(h, rings[i].sum), calls += rings[i].calls;
        free(rings);
    }
    free(tid);
    report(h, calls + 6);
    return 0;
}
