/* SPDX-License-Identifier: MIT */
/* runtime/state.c - the state, the lock, the tracer's own pages.

   Owns: the definitions of mtrace_state_ (mt), pmtrace and mtrace_pending,
   the sites of calls nobody announced, the lock and the entry to it for a
   traced call, and the pages the tracer's tables live in.
   May call: runtime/platform.c only. */

MTRACE_API __thread struct mtrace_pending mtrace_pending __attribute__((tls_model("initial-exec")));
MTRACE_API volatile struct mtrace_pmtrace pmtrace = { 0, 0, 0, 0, 0, 0, 0, 0, "", -1 };
MTRACE_SHARED struct mtrace_state mtrace_state_;    /* zero: no data in the file */
#define mt mtrace_state_

/* pmtrace is volatile for the program's sake (see mtrace.h): the tracer
   keeps its own copy of the figures and stores them there. */
static void mtrace_publish(void)
{
    pmtrace.total = mt.total;
    pmtrace.max = mt.max;
    pmtrace.nr = mt.nr;
    pmtrace.maxrss = mt.maxrss;
    pmtrace.overhead = mt.overhead;
    pmtrace.maxoverhead = mt.maxoverhead;
    pmtrace.startrss = mt.startrss;
    pmtrace.fd = mt.fd;
}

/* Sites of calls whose caller announced nothing: through a pointer taken
   to malloc in traced code, or from code compiled without mtrace. */
static struct mtrace_site mtrace_unknown_site = { "?", "<unknown>", 0, 0, 0 };
static struct mtrace_site mtrace_untraced_site = { "?", "<code-without-mtrace>", 0, 0, 0 };

/* Is this thread the one in fork() (it holds the lock: see fork)?  Read
   by the others while they wait, written by the forking thread. */
static MTRACE_HOT int mtrace_forking_here(void)
{
    return __atomic_load_n(&mt.forking, __ATOMIC_RELAXED) == &mtrace_pending;
}

/* The lock: no atomic operation at all while the process has one thread
   (glibc clears __libc_single_threaded for good in the first
   pthread_create, outside any critical section).  A waiter spins and
   yields (the holder lets go within a call), then sleeps on the lock
   word.  One in a contended stretch sleeps at once: a thread whose last 32
   takings came fast (under 150 ns apart: it does little but allocate)
   and 3 of them waited.  There a waiter that grabs the lock between two of
   the holder's calls moves the 9 to 12 cache lines a call writes from
   core to core on every call, and 2 threads ran up to twice as slow as 1;
   sleeping (about 70 microseconds, with the timer's slack) lets the holder
   run a long batch with its lines in its cache, and the holder never has
   to wake it.  A thread that computes between its calls keeps waiting
   awake: sleeping would idle the work it could do meanwhile
   (doc/notes/one-lock.md, "The lock's waiting"). */
#define MTRACE_STARVING 64      /* turns of waiting after which a thread says it starves */
#define MTRACE_CONTENDED 3      /* waits in the last 32 takings that make a stretch contended, */
#define MTRACE_FAST_NS 150      /* ...if they came this close together, or closer */
#define MTRACE_NAP_US 20        /* a contended waiter's sleep (plus the timer's slack) */
#define MTRACE_SPIN_TURNS 16    /* turns a waiter spins and yields before it sleeps */
/* A waiter's turns until the word looks free (`spins` so far, and after):
   out of line, as the taker who finds the word free never comes here
   (MTRACE_ONE_COPY). */
static MTRACE_ONE_COPY int mtrace_lock_wait(const struct mtrace_pending *me, int spins)
{
    int contended = me->lock_fast && __builtin_popcount(me->waited) >= MTRACE_CONTENDED;
    do {
        spins++;
        if (contended || spins > MTRACE_SPIN_TURNS)
            mtrace_sleep_us(&mt.lock, 1, MTRACE_NAP_US);
        else if (spins % 2 == 0)
            mtrace_sched_yield();
        else
            MTRACE_PAUSE();
        if (spins == MTRACE_STARVING)
            __atomic_add_fetch(&mt.lock_starving, 1, __ATOMIC_RELAXED);
    } while (__atomic_load_n(&mt.lock, __ATOMIC_RELAXED));
    return spins;
}

/* Did the thread's last 32 takings come fast?  (Out of line:
   MTRACE_ONE_COPY.) */
static MTRACE_ONE_COPY void mtrace_lock_clock(struct mtrace_pending *me)
{
    unsigned long now = (unsigned long)mtrace_now_ns();     /* (modulo 2^32 ns on 32 bits) */
    me->lock_fast = now && now - me->lock_window < 32 * MTRACE_FAST_NS;
    me->lock_window = now;
}

static MTRACE_HOT void mtrace_lock(void)
{
    struct mtrace_pending *me = &mtrace_pending;
    int spins = 0;
    if (mtrace_single_threaded)
        return;
    while (__atomic_exchange_n(&mt.lock, 1, __ATOMIC_ACQUIRE)) {
        if (mtrace_forking_here())
            return;             /* another atfork handler allocating: see fork */
        spins = mtrace_lock_wait(me, spins);
    }
    if (spins >= MTRACE_STARVING)
        __atomic_sub_fetch(&mt.lock_starving, 1, __ATOMIC_RELAXED);
    me->waited = me->waited << 1 | (spins != 0);
    if ((++me->lock_takings & 31) == 0)        /* the clock once in 32 takings */
        mtrace_lock_clock(me);
}

/* A thread that lets go of the lock while another starves wakes a
   sleeping waiter and gives up its processor once: a thread that
   allocates in a loop takes the word back before a waiter that yielded
   or slept is running again, and with more threads than cores (and a busy
   machine) the one that waits for it to fork waited for ever
   (tests/tracer/forkloop.c, 4 threads in realloc loops). */
static MTRACE_ONE_COPY void mtrace_unlock_starving(void)
{
    mtrace_wake_on(&mt.lock);
    mtrace_sched_yield();
}

static MTRACE_HOT void mtrace_unlock(void)
{
    if (!mtrace_single_threaded && !mtrace_forking_here()) {
        __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
        if (__builtin_expect(__atomic_load_n(&mt.lock_starving, __ATOMIC_RELAXED) != 0, 0))
            mtrace_unlock_starving();
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_pending.busy = 0;
}

/* The tracer's own calls of the C library (addr2line's posix_spawn, the
   thread's stack bounds: pthread_getattr_np reallocs, and reads /proc with
   stdio on the main thread) allocate and free: those blocks are the
   tracer's, and the interposers must not take them for the program's.  A
   freed block's address handed out there and back lost its tombstone, and
   the program's next free of it reached the C library's abort instead of
   mtrace's report.  So the thread counts as inside the tracer meanwhile
   (busy 3: mtrace_lock_traced lets those calls pass, uncounted). */
static int mtrace_own_calls_begin(void)
{
    int was = mtrace_pending.busy;
    mtrace_pending.busy = 3;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return was;
}

static void mtrace_own_calls_end(int was)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_pending.busy = was;
}

/* Takes the lock for a traced call once the tracer is READY: 0 (and no
   lock) if a signal handler interrupted the tracer on this thread (its
   call passes through untraced and is counted), or tracing ended while
   this thread waited. */
static MTRACE_HOT int mtrace_lock_traced(void)
{
    if (mtrace_pending.busy) {  /* a signal handler interrupted us here, */
        if (mtrace_pending.busy != 3)   /* or the tracer's own calls (mtrace_own_calls_begin) */
            __atomic_add_fetch(&mt.passed, 1, __ATOMIC_RELAXED);
        return 0;
    }
    mtrace_pending.busy = 1;    /* coming in */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_lock();
    mtrace_pending.busy = 2;    /* holding the lock */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (mt.state == MTRACE_READY)
        return 1;
    mtrace_unlock();
    return 0;
}

/* The tracer's own memory comes from mmap: never from the allocator it
   watches, so it cannot recurse or disturb the program's heap. */
static void *mtrace_pages(size_t bytes)
{
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    pmtrace.overhead = mt.overhead += bytes;
    return p;
}

static void mtrace_unpages(void *p, size_t bytes)
{
    if (p) {
        munmap(p, bytes);
        pmtrace.overhead = mt.overhead -= bytes;
    }
}

