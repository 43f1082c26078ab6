/* SPDX-License-Identifier: MIT */
/* runtime/reach.c - MTRACE_LEAK_CHECK=reachable: the scan at exit.

   Owns: finding which live blocks the program can still reach from its
   data, its threads' stacks and, transitively, other blocks; the list of
   the threads that ended, whose stacks are not scanned.
   May call: runtime/state.c, out.c, stacks.c, blocks.c. */

/* MTRACE_LEAK_CHECK=reachable: at exit, the live blocks that the program
   can still reach, conservatively (as LSan and Memcheck do): every word of
   the writable data of the loaded objects, of this thread's stack from
   here up, of the other threads' stacks (not those of threads known to
   have ended: mtrace_thread_ended), and, transitively, of the blocks
   found, that points into a live traced block marks it.  Those count as
   "still reachable" (a note per site); the others are the leaks. */
struct mtrace_found { uintptr_t addr; size_t size; unsigned site; };

struct mtrace_scan { struct mtrace_found *b, *b_end; size_t n; unsigned char *reached; size_t *todo, ntodo; };

static int mtrace_by_addr(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_found *)a)->addr, y = ((const struct mtrace_found *)b)->addr;
    return x < y ? -1 : x > y;
}

/* Marks the block that w points into, if any, and queues it. */
static void mtrace_reach(struct mtrace_scan *sc, uintptr_t w)
{
    size_t lo = 0, hi = sc->n;
    while (lo < hi) {           /* the last block starting at or below w */
        size_t mid = lo + (hi - lo) / 2;
        if (sc->b[mid].addr <= w)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo && w < sc->b[lo - 1].addr + (sc->b[lo - 1].size ? sc->b[lo - 1].size : 1) && !sc->reached[lo - 1]) {
        sc->reached[lo - 1] = 1;
        sc->todo[sc->ntodo++] = lo - 1;
    }
}

/* Reads every word of [from, to), redzones that AddressSanitizer puts
   between a stack's or a data segment's variables included: exempt. */
#if defined(__SANITIZE_ADDRESS__) || defined(MTRACE_SANITIZED)
__attribute__((no_sanitize_address))
#endif
static void mtrace_scan_range(struct mtrace_scan *sc, uintptr_t from, uintptr_t to)
{
    uintptr_t a;
    for (a = (from + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1); a + sizeof(void *) <= to; a += sizeof(void *))
        mtrace_reach(sc, *(const uintptr_t *)a);
}

/* mtrace_modules' callback: a module's writable data. */
static int mtrace_scan_object(const struct mtrace_module *m, void *arg)
{
    unsigned i;
    for (i = 0; i < m->n; i++)
        if (m->seg[i].writable)
            mtrace_scan_range((struct mtrace_scan *)arg, m->seg[i].lo, m->seg[i].hi);
    return 0;
}

/* Threads that ended.  glibc keeps a finished thread's stack mapped, for
   the next thread (its cache), with the thread's TLS and descriptor at
   its top, where words of its last calls stay: the tracer's own
   mtrace_pending.key[] holds the pointers its last calls were given, the C
   library's tcache pointer points into the thread's arena.  Scanned, they
   kept lost blocks "still reachable", where Memcheck, which knows the
   thread is gone, says "definitely lost" (tests/ci/reach-threads.c).  So each
   thread that makes a traced call learns its stack's bounds and sets a
   key whose destructor, at its end, lists the stack here and marks the
   thread's mtrace_pending (which lies in that stack); the scan skips a
   listed stack whose mark is still there.  A thread that takes the cached
   stack over gets its TLS initialised afresh by the C library: the mark
   is gone, and its stack is scanned again.  A thread that never made a
   traced call is never listed: its stack stays scanned, conservatively. */
struct mtrace_gone { uintptr_t lo, hi; const struct mtrace_pending *tls; };
#define MTRACE_GONE_MAX 256     /* stacks listed; past that the oldest are scanned again */
/* The mark: the thread's own address, scrambled, so that neither a fresh
   TLS (zeros) nor a thread's copy of another's can carry it. */
#define MTRACE_GONE_MARK(q) ((uintptr_t)(q) ^ (uintptr_t)0x6d747261 ^ ((uintptr_t)0x63656e64 << 16 << 16))

/* The key's destructor, at the end of a thread listed by
   mtrace_thread_seen (after the program's thread_local destructors, with
   the other keys' ones). */
static void mtrace_thread_ended(void *me)
{
    struct mtrace_pending *q = &mtrace_pending;
    unsigned i;
    if (me != q || !mtrace_lock_traced())
        return;
    if (!mt.gone)
        mt.gone = (struct mtrace_gone *)mtrace_pages(MTRACE_GONE_MAX * sizeof *mt.gone);
    if (mt.gone) {
        for (i = 0; i < mt.ngone && mt.gone[i].lo != q->stack_lo; i++)
            ;                   /* a stack taken over from a thread that ended: its slot */
        if (i == mt.ngone && mt.ngone < MTRACE_GONE_MAX)
            mt.ngone++;
        else if (i == mt.ngone)
            i = mt.gone_next++ % MTRACE_GONE_MAX;
        mt.gone[i].lo = q->stack_lo;
        mt.gone[i].hi = q->stack_hi;
        mt.gone[i].tls = q;
        q->gone = MTRACE_GONE_MARK(q);
    }
    mtrace_unlock();
}

/* The key, made by the first thread that asks: 0 if it could not be. */
static int mtrace_thread_key(void)
{
    int state = 0, was, made;
    if (__atomic_compare_exchange_n(&mt.thread_key_state, &state, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        was = mtrace_own_calls_begin();
        made = mtrace_key_create(&mt.thread_key, mtrace_thread_ended) == 0;
        mtrace_own_calls_end(was);
        __atomic_store_n(&mt.thread_key_state, made ? 2 : 3, __ATOMIC_RELEASE);
        return made;
    }
    while (state == 1) {        /* being made by another thread: a moment (else the */
        mtrace_sched_yield();   /* threads that start together would go unlisted) */
        state = __atomic_load_n(&mt.thread_key_state, __ATOMIC_ACQUIRE);
    }
    return state == 2;
}

/* After a thread's first traced call (mtrace_leave), in reachable mode:
   its stack's bounds, and the key that lists the stack when the thread
   ends, if its mtrace_pending lies in that stack (the C library put its
   TLS there: the main thread's does not). */
static MTRACE_ONE_COPY void mtrace_thread_seen(void)
{
    struct mtrace_pending *q = &mtrace_pending;
    int was;
    q->seen = 1;
    if (!mt.reachable_mode || q->busy || __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) != MTRACE_READY)
        return;
    mtrace_on_stack(0);         /* learns the bounds */
    if ((uintptr_t)q < q->stack_lo || (uintptr_t)(q + 1) > q->stack_hi || !mtrace_thread_key())
        return;
    was = mtrace_own_calls_begin();     /* (may allocate the key's second-level table) */
    mtrace_setspecific(mt.thread_key, q);
    mtrace_own_calls_end(was);
}

/* The stack that an ended thread left in [lo, hi), if its mark is still
   there (no thread took the stack over since); 0 if none. */
static const struct mtrace_gone *mtrace_gone_in(uintptr_t lo, uintptr_t hi)
{
    unsigned i;
    for (i = 0; i < mt.ngone; i++) {
        const struct mtrace_gone *g = &mt.gone[i];
        if (g->lo >= lo && g->hi <= hi && (uintptr_t)g->tls >= g->lo && (uintptr_t)(g->tls + 1) <= g->hi
            && g->tls->gone == MTRACE_GONE_MARK(g->tls))
            return g;
    }
    return 0;
}

/* [lo, hi) of a stack-like mapping, less the scan's own list of the
   blocks: the kernel merges the list's pages with a thread's cached stack
   mapped just below them, and the addresses listed there would make
   every block reachable (tests/ci/reach-threads.c, 300 threads: 1 run in
   15). */
static void mtrace_scan_not_ours(struct mtrace_scan *sc, uintptr_t lo, uintptr_t hi)
{
    uintptr_t a = (uintptr_t)sc->b, z = (uintptr_t)sc->b_end;
    if (z <= lo || a >= hi) {
        mtrace_scan_range(sc, lo, hi);
        return;
    }
    if (lo < a)
        mtrace_scan_range(sc, lo, a);
    if (z < hi)
        mtrace_scan_range(sc, z, hi);
}

/* A stack-like mapping [lo, hi), less the stack of a thread that ended. */
static void mtrace_scan_stack(struct mtrace_scan *sc, uintptr_t lo, uintptr_t hi)
{
    const struct mtrace_gone *g = mtrace_gone_in(lo, hi);
    if (!g) {
        mtrace_scan_not_ours(sc, lo, hi);
        return;
    }
    mtrace_scan_not_ours(sc, lo, g->lo);
    mtrace_scan_not_ours(sc, g->hi, hi);
}

/* The other threads' stacks: glibc maps each with its guard page below
   it, so in /proc/self/maps a private writable mapping that starts where
   an inaccessible one ends.  (Malloc's arenas keep their reserve above
   their writable part, so they do not look like that.) */
/* Larger "stacks" are something else: AddressSanitizer's shadow memory
   (terabytes after a guard) has the same shape. */
#define MTRACE_MAX_STACK ((uintptr_t)1 << 30)

static void mtrace_scan_thread_stacks(struct mtrace_scan *sc, uintptr_t mine_lo, uintptr_t mine_hi)
{
    enum { MAX = 1 << 20 };
    char *maps = (char *)mtrace_pages(MAX), *line, *next;
    uintptr_t guard_end = 0;
    if (!maps || mtrace_read_file("/proc/self/maps", maps, MAX) <= 0) {
        mtrace_unpages(maps, MAX);
        return;
    }
    for (line = maps; *line; line = next) {
        char *p = line;
        uintptr_t lo = (uintptr_t)strtoull(p, &p, 16), hi = (uintptr_t)strtoull(p + 1, &p, 16);
        if (!(next = strchr(line, '\n')))
            next = line + strlen(line);
        else
            next++;
        if (p[1] == '-' && p[2] == '-' && p[3] == '-')
            guard_end = hi;
        else {
            if (p[1] == 'r' && p[2] == 'w' && p[4] == 'p' && lo == guard_end && (hi <= mine_lo || lo >= mine_hi)
                && hi - lo <= MTRACE_MAX_STACK)
                mtrace_scan_stack(sc, lo, hi);
            guard_end = 0;
        }
    }
    mtrace_unpages(maps, MAX);
}

/* Fills each site's reach and reach_blocks.  Called at exit, the tables
   frozen (state DONE). */
static void mtrace_find_reachable(void)
{
    struct mtrace_scan sc;
    size_t i, cap = mt.heap.nlive + 1, range = 0, slot = 0;
    struct mtrace_block *b;
    volatile uintptr_t here = 0;
    __builtin_unwind_init();    /* this thread's registers onto its stack */
    sc.b = (struct mtrace_found *)mtrace_pages(cap * sizeof *sc.b);
    sc.b_end = sc.b ? sc.b + cap : 0;
    sc.reached = (unsigned char *)mtrace_pages(cap);
    sc.todo = (size_t *)mtrace_pages(cap * sizeof *sc.todo);
    sc.n = sc.ntodo = 0;
    if (!sc.b || !sc.reached || !sc.todo)
        goto done;
    while ((b = mtrace_next_block(&mt.heap, &range, &slot)))
        if (mtrace_live(b)) {
            sc.b[sc.n].addr = mtrace_b_addr(b);
            sc.b[sc.n].size = mtrace_b_size(b);
            sc.b[sc.n++].site = mtrace_b_site(b);
        }
    qsort(sc.b, sc.n, sizeof *sc.b, mtrace_by_addr);
    mtrace_modules(mtrace_scan_object, &sc);
    mtrace_on_stack(0);         /* asks this thread's bounds */
    mtrace_scan_range(&sc, (uintptr_t)&here, mtrace_pending.stack_hi);
    mtrace_scan_thread_stacks(&sc, mtrace_pending.stack_lo, mtrace_pending.stack_hi);
    while (sc.ntodo) {
        struct mtrace_found *f = &sc.b[sc.todo[--sc.ntodo]];
        mtrace_scan_range(&sc, f->addr, f->addr + f->size);
    }
    for (i = 0; i < sc.n; i++)
        if (sc.reached[i]) {
            struct mtrace_sitestat *s = &mt.sites[sc.b[i].site];
            s->reach += sc.b[i].size;
            s->reach_blocks++;
            if (s->parent) {    /* a stack: its site too */
                mt.sites[s->parent].reach += sc.b[i].size;
                mt.sites[s->parent].reach_blocks++;
            }
        }
done:
    mtrace_unpages(sc.b, cap * sizeof *sc.b);
    mtrace_unpages(sc.reached, cap);
    mtrace_unpages(sc.todo, cap * sizeof *sc.todo);
}

