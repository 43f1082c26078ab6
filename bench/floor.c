/* SPDX-License-Identifier: MIT */
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
     spinyield a lock whose waiters spin with pause up to 256 turns (about
              the time the holder keeps it for a call or two), then yield
     combine  flat combining (delegation): a thread posts its change in a
              slot of its own and waits; whichever thread gets the lock
              applies every posted change, in slot order, so the figures'
              lines stay in its cache and only the slots' lines move
     stamp    no waiting: a thread stamps its change with the processor's
              clock (lfence; rdtsc: the kernel's clock source on these
              machines, the same on every core) and appends it to a ring of
              its own; a merger thread applies the rings' changes in stamp
              order, an exact order with no line shared per call
     ticket   the same, stamped by one shared counter's atomic increment
              (an order that trusts no clock: one line moves per call)

   in one of three shapes of program:

     own      each thread churns its own pool of 64 blocks (the default)
     pools    each thread churns a pool of 2,500 blocks; the pools change
              hands between 8 long rounds (issue 29's first shape)
     handoff  threads in pairs: one allocates blocks into a ring, the other
              frees them (issue 29's second: every free is of the other
              thread's block); one thread alone fills and empties the ring

   FLOOR_WORK=N in the environment adds N dependent reads of a 4 MiB table
   to each call's ordered work (the lock held, or by the combiner), as the
   tracer's table and figures add theirs: a longer critical section, and
   what its length does to the waiting.  With stamp and ticket those reads
   are the thread's own, in parallel (the block table is what a tracer
   would keep per thread or concurrently; the figures go to the merger).

   usage: floor THREADS MODE [CALLS [SHAPE]]    prints wall and CPU ns per call */
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

/* yield: 0 spin only, 1 yield every other turn, 2 yield after 256 turns */
static void take(int yield)
{
    int spins = 0;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock, __ATOMIC_RELAXED))
            if ((yield == 1 && ++spins % 2 == 0) || (yield == 2 && ++spins > 256))
                sched_yield();
            else
                __builtin_ia32_pause();
}

/* FLOOR_WORK: a random cycle through a table of 4 MiB, N steps a call. */
#define TABLE (1 << 19)
static unsigned *table;
static unsigned at;
static long work;

static void make_table(void)
{
    unsigned i, j, t;
    unsigned long seed = 12345;
    table = malloc(TABLE * sizeof *table);
    for (i = 0; i < TABLE; i++)
        table[i] = i;
    for (i = TABLE - 1; i > 0; i--) {   /* Sattolo: one cycle through all */
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        j = (unsigned)((seed >> 33) % i);
        t = table[i], table[i] = table[j], table[j] = t;
    }
}

static void table_work(void)
{
    long k;
    for (k = 0; k < work; k++)
        at = table[at];
}

/* One call's figures, size bytes allocated. */
static void apply_figures(long size)
{
    total.live += size;
    if (total.live > total.peak)
        total.peak = total.live;
    total.calls++;
    site.live += size;
    if (site.live > site.peak)
        site.peak = site.live;
    site.calls++;
}

/* One call's ordered work: the table's reads and its figures. */
static void apply(long size)
{
    table_work();
    apply_figures(size);
}

/* One call's figures, the locked way. */
static void count_locked(long size, int yield)
{
    take(yield);
    apply(size);
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* combine: one slot a thread, on a line of its own.  A waiter yields
   every other turn, as mtrace's lock does: waiters that spun 63 turns in
   64 made every call slower (2 threads, own pools: 95 ns a call against
   53 for the yielding lock), the slots' lines moving on every call. */
struct post { long change; int posted; } __attribute__((aligned(64)));
static struct post posts[64];
static __thread int my_slot;
static long nthreads;

static void count_combined(long size)
{
    struct post *mine = &posts[my_slot];
    int spins = 0;
    long i;
    mine->change = size;
    __atomic_store_n(&mine->posted, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&mine->posted, __ATOMIC_ACQUIRE)) {
        if (!__atomic_load_n(&lock, __ATOMIC_RELAXED) && !__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
            for (i = 0; i < nthreads; i++)
                if (__atomic_load_n(&posts[i].posted, __ATOMIC_ACQUIRE)) {
                    apply(posts[i].change);
                    __atomic_store_n(&posts[i].posted, 0, __ATOMIC_RELEASE);
                }
            __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
            return;
        }
        if (++spins % 2 == 0)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
}

/* stamp, ticket: one ring a thread.  The thread writes its entries,
   `head` and `busy` (set while it takes a stamp and appends); the merger
   only `tail`, and reads the rest when its copy of a ring runs dry. */
#define SRING 16384
struct stamped { unsigned long stamp; long change; };
struct sring {
    struct stamped e[SRING];
    unsigned long head __attribute__((aligned(64))), tail_seen;
    int busy;
    unsigned long tail __attribute__((aligned(64))), head_seen;    /* the merger's */
};
static struct sring *srings;
static unsigned long ticket __attribute__((aligned(64)));
static int merging = 1;
static __thread unsigned my_at;

static unsigned long stamp_now(void)
{
    unsigned lo, hi;
    if (mode[0] == 't')
        return __atomic_add_fetch(&ticket, 1, __ATOMIC_SEQ_CST);
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return (unsigned long)hi << 32 | lo;
}

static void count_stamped(long size)
{
    struct sring *r = &srings[my_slot];
    long k;
    for (k = 0; k < work; k++)      /* the table's reads: the thread's own */
        my_at = table[my_at];
    while (r->head - r->tail_seen >= SRING) {   /* full: wait for the merger */
        r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        if (r->head - r->tail_seen >= SRING)
            sched_yield();
    }
    __atomic_store_n(&r->busy, 1, __ATOMIC_SEQ_CST);   /* before the clock is read */
    r->e[r->head % SRING].stamp = stamp_now();
    r->e[r->head % SRING].change = size;
    __atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
}

/* Ring i's entries not yet applied, as far as the merger has looked. */
static int ring_dry(struct sring *r)
{
    if (r->tail == r->head_seen)
        r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    return r->tail == r->head_seen;
}

/* The ring whose next entry is the oldest of all, if no other ring can
   still receive an older one; -1 if the merge must wait.  A dry ring can
   receive an older one only while its thread is busy: once it is seen
   idle (and still dry), its next stamp is read after now. */
static long oldest_ready(void)
{
    long i, best = -1;
    unsigned long s = 0;
    for (i = 0; i < nthreads; i++) {
        struct sring *r = &srings[i];
        if (!ring_dry(r) && (best < 0 || r->e[r->tail % SRING].stamp < s))
            best = i, s = r->e[r->tail % SRING].stamp;
    }
    for (i = 0; best >= 0 && i < nthreads; i++)
        if (i != best && srings[i].tail == srings[i].head_seen
            && (__atomic_load_n(&srings[i].busy, __ATOMIC_SEQ_CST)
                || __atomic_load_n(&srings[i].head, __ATOMIC_ACQUIRE) != srings[i].tail))
            return -1;
    return best;
}

static long merged_backwards;   /* entries applied after a newer one: must stay 0 */

static void *merge(void *arg)
{
    unsigned long last = 0;
    long i;
    (void)arg;
    for (;;) {
        long n = 0;
        while (n < 4096 && (i = oldest_ready()) >= 0) {
            struct sring *r = &srings[i];
            merged_backwards += r->e[r->tail % SRING].stamp < last;
            last = r->e[r->tail % SRING].stamp;
            apply_figures(r->e[r->tail % SRING].change);
            __atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
            n++;
        }
        if (n == 0) {
            struct timespec pause = { 0, 50000 };
            if (!__atomic_load_n(&merging, __ATOMIC_ACQUIRE) && oldest_ready() < 0)
                break;
            nanosleep(&pause, 0);   /* polling a busy thread's line would slow its every call */
        }
    }
    return 0;
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

/* One call's figures, the way MODE keeps them; mine: the thread's own. */
static void count(struct figures *mine, long change)
{
    if (!strcmp(mode, "private")) {
        mine->live += change;
        if (mine->live > mine->peak)
            mine->peak = mine->live;
        mine->calls++;
    } else if (!strcmp(mode, "atomic"))
        count_atomic(change);
    else if (!strcmp(mode, "combine"))
        count_combined(change);
    else if (!strcmp(mode, "stamp") || !strcmp(mode, "ticket"))
        count_stamped(change);
    else
        count_locked(change, !strcmp(mode, "yield") ? 1 : !strcmp(mode, "spinyield") ? 2 : 0);
}

static void *churn(void *arg)
{
    struct figures mine = { 0, 0, 0 };
    unsigned long seed = (unsigned long)arg;
    long sizes[64] = { 0 }, i;
    void *live[64] = { 0 };
    my_slot = (int)((unsigned long)arg - 1);
    for (i = 0; i < calls; i++) {
        int k = (int)(seed >> 58);
        long size = (long)(seed >> 54) + 1, change = size - sizes[k];
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        free(live[k]);
        live[k] = malloc((size_t)size);
        sizes[k] = size;
        count(&mine, change);
    }
    for (i = 0; i < 64; i++)
        free(live[i]);
    return (void *)mine.calls;
}

/* ---- issue 29's shapes ---- */
#define POOL 2500
#define ROUNDS 8
#define BATCH 64
#define RING 64
static void *pool[64][POOL];
static long pool_size[64][POOL];
static pthread_barrier_t round_end;

/* pools: CALLS malloc/free pairs a thread, ROUNDS rounds; in round r
   thread t churns pool (t + r) % THREADS. */
static void *pools(void *arg)
{
    struct figures mine = { 0, 0, 0 };
    long me = (long)arg, r, i, k;
    unsigned long seed = (unsigned long)me + 1;
    my_slot = (int)me;
    for (r = 0; r < ROUNDS; r++) {
        void **live = pool[(me + r) % nthreads];
        long *sizes = pool_size[(me + r) % nthreads];
        for (i = 0; i < calls / ROUNDS; i++) {
            long size, change;
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            k = (long)((seed >> 33) % POOL);
            size = (long)(seed >> 56) + 1;
            change = size - sizes[k];
            free(live[k]);
            live[k] = malloc((size_t)size);
            sizes[k] = size;
            count(&mine, change);
        }
        pthread_barrier_wait(&round_end);
    }
    return 0;
}

struct slot { void *p[BATCH]; long n[BATCH]; int full; } __attribute__((aligned(64)));
static struct slot ring[32][RING];

static void wait_turn(int *spins)
{
    if (++*spins % 1024 == 0)
        sched_yield();
    else
        __builtin_ia32_pause();
}

/* handoff: batch i of pair g's ring, made (producer) or freed (consumer). */
static void produce(struct figures *mine, struct slot *s, unsigned long *seed)
{
    int k, spins = 0;
    while (__atomic_load_n(&s->full, __ATOMIC_ACQUIRE))
        wait_turn(&spins);
    for (k = 0; k < BATCH; k++) {
        *seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
        s->n[k] = (long)(*seed >> 56) + 1;
        s->p[k] = malloc((size_t)s->n[k]);
        count(mine, s->n[k]);
    }
    __atomic_store_n(&s->full, 1, __ATOMIC_RELEASE);
}

static void consume(struct figures *mine, struct slot *s)
{
    int k, spins = 0;
    while (!__atomic_load_n(&s->full, __ATOMIC_ACQUIRE))
        wait_turn(&spins);
    for (k = 0; k < BATCH; k++) {
        free(s->p[k]);
        count(mine, -s->n[k]);
    }
    __atomic_store_n(&s->full, 0, __ATOMIC_RELEASE);
}

/* Thread t of a pair: even ones produce, odd ones consume; CALLS / 2
   blocks go through each pair (a thread makes CALLS / 2 calls), and one
   thread alone makes and frees them all (CALLS calls). */
static void *handoff(void *arg)
{
    struct figures mine = { 0, 0, 0 };
    long me = (long)arg, i, batches = calls / 2 / BATCH;
    unsigned long seed = (unsigned long)me / 2 + 1;
    struct slot *g = ring[me / 2];
    my_slot = (int)me;
    for (i = 0; i < batches + (nthreads == 1 ? RING : 0); i++)
        if (nthreads == 1) {
            if (i >= RING)
                consume(&mine, &g[(i - RING) % RING]);
            if (i < batches)
                produce(&mine, &g[i % RING], &seed);
        } else if (me % 2 == 0)
            produce(&mine, &g[i % RING], &seed);
        else
            consume(&mine, &g[i % RING]);
    return 0;
}

static double ns(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv)
{
    struct timespec w0, w1, c0, c1;
    pthread_t t[64], merger;
    long n, i;
    const char *shape = argc > 4 ? argv[4] : "own";
    void *(*run)(void *) = !strcmp(shape, "pools") ? pools : !strcmp(shape, "handoff") ? handoff : churn;
    if (argc < 3 || (n = atol(argv[1])) < 1 || n > 64
        || (strcmp(argv[2], "private") && strcmp(argv[2], "atomic") && strcmp(argv[2], "spin")
            && strcmp(argv[2], "yield") && strcmp(argv[2], "spinyield") && strcmp(argv[2], "combine")
            && strcmp(argv[2], "stamp") && strcmp(argv[2], "ticket"))
        || (strcmp(shape, "own") && run == churn) || (run == handoff && n > 1 && n % 2)) {
        fprintf(stderr, "usage: floor THREADS(1-64; handoff: 1 or even) private|atomic|spin|yield|spinyield|combine|stamp|ticket"
                " [CALLS [own|pools|handoff]]\n");
        return 2;
    }
    mode = argv[2];
    nthreads = n;
    if (getenv("FLOOR_WORK") && (work = atol(getenv("FLOOR_WORK"))) > 0)
        make_table();
    if (argc > 3)
        calls = atol(argv[3]);
    pthread_barrier_init(&round_end, 0, (unsigned)n);
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (!strcmp(mode, "stamp") || !strcmp(mode, "ticket")) {
        srings = calloc((size_t)n, sizeof *srings);
        pthread_create(&merger, 0, merge, 0);
    }
    for (i = 0; i < n; i++)
        pthread_create(&t[i], 0, run, run == churn ? (void *)(i + 1) : (void *)i);
    for (i = 0; i < n; i++)
        pthread_join(t[i], 0);
    if (srings) {               /* the merge ends with the last entry applied */
        __atomic_store_n(&merging, 0, __ATOMIC_RELEASE);
        pthread_join(merger, 0);
        unsigned long posted = 0;
        for (i = 0; i < n; i++)
            posted += srings[i].head;
        if ((unsigned long)total.calls != posted || merged_backwards)
            fprintf(stderr, "floor: the merge applied %ld changes of %lu, %ld out of stamp order\n", total.calls,
                    posted, merged_backwards), exit(1);
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    /* per call of one thread: wall time, and CPU time summed over threads */
    printf("%ld %s %.1f %.1f %s\n", n, mode, ns(&w0, &w1) / (double)calls, ns(&c0, &c1) / (double)calls / (double)n, shape);
    return 0;
}
