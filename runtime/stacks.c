/* SPDX-License-Identifier: MIT */
/* runtime/stacks.c - call stacks (MTRACE_DEPTH).

   Owns: the executable segments of the loaded modules (which hold traced
   code with frame pointers), the modules whose build said they keep
   frame pointers (mtrace_frames_here), this thread's stack bounds, the
   walk of a traced call's callers, and the stack entries of the site
   table (a site called through a distinct chain is an entry of its own).
   May call: runtime/state.c, out.c, sites.c.

   The callers of a traced call are found by following frame pointers,
   which costs a load per frame.  A frame pointer is only a register
   convention: code built without it leaves anything there.  So a frame is
   followed only inside segments known to hold traced code compiled with
   frame pointers (its build says so: each module so built registers
   itself, mtrace_frames_here; MTRACE_FRAME_POINTERS=1 says it for the
   modules of calls no macro announced); the first return address outside
   them is kept, truthfully, and the walk stops. */

/* Is p on the calling thread's stack?  The bounds are asked once per
   thread; only pointers mtrace does not know get here (two compares). */
static int mtrace_on_stack(const void *p)
{
    struct mtrace_pending *q = &mtrace_pending;
    if (!q->stack_hi) {
        uintptr_t lo, hi;
        int was, known;
        q->stack_hi = 1;        /* unknown: nothing is on it */
        was = mtrace_own_calls_begin();     /* the C library allocates on the way */
        known = mtrace_stack_bounds(&lo, &hi);
        mtrace_own_calls_end(was);
        if (known) {
            q->stack_lo = lo;
            q->stack_hi = hi;
        }
    }
    return (uintptr_t)p >= q->stack_lo && (uintptr_t)p < q->stack_hi;
}

/* The segment holding code address a among the first n, newest first (a
   module loaded where an unloaded one was replaces it): -1 if none. */
static int mtrace_seg_in(uintptr_t a, unsigned n)
{
    while (n--)
        if (a >= mt.segs[n].lo && a < mt.segs[n].hi)
            return (int)n;
    return -1;
}

/* What the loader says of the module holding an address: its bias, its
   name, and its executable segments. */
struct mtrace_seg_query {
    uintptr_t addr, bias;
    const char *path;
    unsigned n;
    uintptr_t lo[4], hi[4];
};

/* mtrace_modules' callback: is q->addr in this module (any segment)? */
static int mtrace_seg_match(const struct mtrace_module *m, void *arg)
{
    struct mtrace_seg_query *q = (struct mtrace_seg_query *)arg;
    unsigned i;
    int in = 0;
    for (i = 0; i < m->n; i++)
        if (q->addr >= m->seg[i].lo && q->addr < m->seg[i].hi)
            in = 1;
    for (i = 0; in && i < m->n && q->n < 4; i++)
        if (m->seg[i].executable) {
            q->lo[q->n] = m->seg[i].lo;
            q->hi[q->n++] = m->seg[i].hi;
        }
    q->bias = m->bias;
    q->path = m->path;
    return in;
}

/* The program's own path (the loader names it ""), asked once. */
static const char *mtrace_exe_path(void)
{
    char link[MTRACE_PATHMAX];
    long n;
    if (!mt.exe) {
        n = readlink("/proc/self/exe", link, sizeof link - 1);
        link[n > 0 ? n : 0] = 0;
        mt.exe = (char *)mtrace_keep_name(n > 0 ? link : "?");
    }
    return mt.exe;
}

/* Marks the segments [from, to) that hold the address of a module whose
   build said it keeps frame pointers (mtrace_frames_here). */
static void mtrace_frames_mark(unsigned from, unsigned to)
{
    unsigned i, k;
    uintptr_t a;
    for (i = 0; i < MTRACE_MAXFRAMED && (a = __atomic_load_n(&mt.framed[i], __ATOMIC_SEQ_CST)); i++)
        for (k = from; k < to; k++)
            if (a >= mt.segs[k].lo && a < mt.segs[k].hi)
                __atomic_store_n(&mt.segs[k].traced, 1, __ATOMIC_RELAXED);
}

/* Adds the executable segments of q's module that are new (lock held). */
static void mtrace_seg_add(const struct mtrace_seg_query *q, int traced)
{
    const char *path = 0;
    unsigned k, n = mt.nsegs, first = n;
    int i;
    for (k = 0; k < q->n; k++) {
        if ((i = mtrace_seg_in(q->lo[k], n)) >= 0 && mt.segs[i].lo == q->lo[k] && mt.segs[i].bias == q->bias) {
            if (traced)
                __atomic_store_n(&mt.segs[i].traced, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (!path)              /* copied once, for a segment that is new */
            path = q->path && *q->path ? mtrace_keep_name(q->path) : mtrace_exe_path();
        if (n >= MTRACE_MAXSEGS || !path)
            break;
        memset(&mt.segs[n], 0, sizeof mt.segs[n]);
        mt.segs[n].lo = q->lo[k];
        mt.segs[n].hi = q->hi[k];
        mt.segs[n].bias = q->bias;
        mt.segs[n].path = path;
        mt.segs[n].traced = traced;
        n++;
    }
    __atomic_store_n(&mt.nsegs, n, __ATOMIC_SEQ_CST);
    mtrace_frames_mark(first, n);
}

/* A module's build says that it keeps frame pointers: mtrace.h gives each
   file so built a constructor that passes the address of a function, one
   per module (weak and hidden), so that MTRACE_DEPTH walks through all of
   its code, the callers of calls no macro announced too (a program built
   wholly with MTRACE_NO_MACROS), with nothing to set at run time.  Kept
   in a table of the state, with no allocation: it may come before the
   tracer starts, or from a plugin's constructor while threads run.  A
   segment already known is marked here, one learned later when it is
   added (mtrace_seg_add): each side stores first, then reads the other's
   (sequentially consistent), so one of them sees the other. */
MTRACE_API void mtrace_frames_here(void (*code)(void))
{
    uintptr_t a = (uintptr_t)code, seen;
    unsigned i;
    int k;
    for (i = 0; i < MTRACE_MAXFRAMED; i++) {
        seen = 0;
        if (__atomic_compare_exchange_n(&mt.framed[i], &seen, a, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
            || seen == a)
            break;              /* (a full table: the known segments only) */
    }
    if ((k = mtrace_seg_in(a, __atomic_load_n(&mt.nsegs, __ATOMIC_SEQ_CST))) >= 0)
        __atomic_store_n(&mt.segs[k].traced, 1, __ATOMIC_RELAXED);
}

/* Asks the loader for the module holding address a and adds its
   segments; `traced`: they hold traced code.  The loader's lock is
   taken outside ours (a thread in dlopen holds it while it allocates).
   Stacks are on only once the tracer started: a walk before it is READY
   (another thread, during mtrace_init) learns nothing and stops there. */
/* The segment table, mapped by the first that needs it: the stacks
   (MTRACE_DEPTH) or a site named by its caller's address (callers.c). */
static int mtrace_segs_on(void)
{
    struct mtrace_seg *s = __atomic_load_n(&mt.segs, __ATOMIC_ACQUIRE), *none = 0;
    if (s)
        return 1;
    if (!(s = (struct mtrace_seg *)mtrace_pages(MTRACE_MAXSEGS * sizeof *s)))
        return 0;
    if (!__atomic_compare_exchange_n(&mt.segs, &none, s, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        mtrace_unpages(s, MTRACE_MAXSEGS * sizeof *s);
    return 1;
}

static void mtrace_seg_learn(uintptr_t a, int traced)
{
    struct mtrace_seg_query q;
    memset(&q, 0, sizeof q);
    q.addr = a;
    if (!mtrace_modules(mtrace_seg_match, &q) || __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) != MTRACE_READY
        || !mtrace_lock_traced())
        return;
    if (mt.segs)
        mtrace_seg_add(&q, traced);
    mtrace_unlock();
}

/* The segment of code address a, asking the loader when it is new: -1 if
   a is in no module, or the table is full. */
static int mtrace_seg_of(uintptr_t a)
{
    int i = mtrace_seg_in(a, __atomic_load_n(&mt.nsegs, __ATOMIC_ACQUIRE));
    if (i >= 0)
        return i;
    mtrace_seg_learn(a, 0);
    return mtrace_seg_in(a, __atomic_load_n(&mt.nsegs, __ATOMIC_ACQUIRE));
}

/* The segment of code address a, at exit: -1 if a is in no module, or
   the table is full.  A module not seen yet is learned without the lock:
   the tables are the reporting thread's once the state is DONE (another
   thread adds segments only under the lock, the state READY). */
static int mtrace_seg_at_exit(uintptr_t a)
{
    struct mtrace_seg_query q;
    int i = mtrace_seg_in(a, mt.nsegs);
    if (i >= 0 || !mtrace_segs_on())
        return i;
    memset(&q, 0, sizeof q);
    q.addr = a;
    if (mtrace_modules(mtrace_seg_match, &q))
        mtrace_seg_add(&q, 0);
    return mtrace_seg_in(a, mt.nsegs);
}

/* Site d's file keeps frame pointers: so does its module's code (mtrace-cc
   builds all of it alike).  Its descriptor lies in the module's data. */
static void mtrace_mark_traced(struct mtrace_site *d)
{
    if (__atomic_load_n(&d->frames, __ATOMIC_RELAXED) == 1) {
        mtrace_seg_learn((uintptr_t)d, 1);
        __atomic_store_n(&d->frames, 2, __ATOMIC_RELAXED);
    }
}

static int mtrace_seg_traced(int i)
{
    return i >= 0 && __atomic_load_n(&mt.segs[i].traced, __ATOMIC_RELAXED);
}

/* The callers of the traced call made at site d by the function whose
   frame is `frame` (saved by the call's macro, so that a call in tail
   position, made after that function's frame was popped, still finds
   its caller there): at most MTRACE_DEPTH - 1 return addresses into c.
   The first is always true (the builtin gave that function a frame);
   the next ones only while they lie in traced code.  `below`: the frame
   of the entry point, whose prologue pushed the frame pointer first,
   which in a tail call rewrote the saved word at `frame` with the same
   value.  Each frame lies on this thread's stack, above the last one; a
   return address in the last traced segment needs no lookup. */
static void mtrace_walk(struct mtrace_chain *c, const uintptr_t *frame, struct mtrace_site *d, const void *below)
{
    const uintptr_t *fp = frame;
    unsigned max = (unsigned)mt.depth - 1;
    uintptr_t lo, hi, seglo = 0, seghi = 0, r;
    c->n = 0;
    if (!fp)
        return;
    mtrace_mark_traced(d);
    if (!mtrace_on_stack(fp))           /* also learns the bounds */
        return;
    lo = mtrace_pending.stack_lo;
    hi = mtrace_pending.stack_hi;
    while (c->n < max) {
        uintptr_t a = (uintptr_t)fp;
        if (a < (uintptr_t)below || (a & 7) || a < lo || a + 8 >= hi || !(r = fp[1]))
            break;
        c->ret[c->n++] = r;
        if (r - seglo >= seghi - seglo) {   /* not in the last traced segment */
            int i = mtrace_seg_of(r);
            if (!mtrace_seg_traced(i))
                break;
            seglo = mt.segs[i].lo;
            seghi = mt.segs[i].hi;
        }
        below = fp + 1;
        fp = (const uintptr_t *)fp[0];
    }
}

static unsigned long mtrace_stack_hash(unsigned site, const struct mtrace_chain *c)
{
    unsigned long h = 0xcbf29ce484222325UL ^ site;
    unsigned i;
    for (i = 0; i < c->n; i++)
        h = (h ^ c->ret[i]) * 0x100000001b3UL;
    return h ^ h >> 29;
}

static int mtrace_same_stack(const struct mtrace_sitestat *s, unsigned site, const struct mtrace_chain *c)
{
    return s->parent == site && s->nframes == c->n && !memcmp(s->frames, c->ret, c->n * sizeof *c->ret);
}

/* Room for n return addresses in the tracer's pages: 0 if none. */
static uintptr_t *mtrace_keep_frames(unsigned n)
{
    enum { CHUNK = 1 << 16 };
    uintptr_t *copy;
    if (!mt.framespace || (size_t)(mt.framespace_end - mt.framespace) < n) {
        if (!(mt.framespace = (uintptr_t *)mtrace_pages(CHUNK)))
            return 0;
        mt.framespace_end = mt.framespace + CHUNK / sizeof *mt.framespace;
    }
    copy = mt.framespace;
    mt.framespace += n;
    return copy;
}

static int mtrace_grow_stacks(void)
{
    unsigned i, n = mt.nstackhash ? mt.nstackhash * 2 : 1024, mask = n - 1;
    unsigned *hash = (unsigned *)mtrace_pages(n * sizeof *hash);
    if (!hash)
        return 0;
    for (i = 0; i < mt.nstackhash; i++) {
        unsigned j = mt.stackhash[i];
        if (j) {
            struct mtrace_chain c;
            unsigned long h;
            c.n = mt.sites[j].nframes;
            memcpy(c.ret, mt.sites[j].frames, c.n * sizeof *c.ret);
            for (h = mtrace_stack_hash(mt.sites[j].parent, &c); hash[h & mask]; h++)
                ;
            hash[h & mask] = j;
        }
    }
    mtrace_unpages(mt.stackhash, mt.nstackhash * sizeof *mt.stackhash);
    mt.stackhash = hash;
    mt.nstackhash = n;
    return 1;
}

/* The stack entry of site `site` called through chain c, found by its hash
   (lock held): made on its first use; the site itself if the tables cannot
   grow. */
static unsigned mtrace_stack_find(unsigned site, const struct mtrace_chain *c)
{
    unsigned long h;
    unsigned i, mask;
    uintptr_t *frames;
    if (!site || mt.nsites >= MTRACE_MAXSITES || (mt.nsites + 1 >= mt.maxsites && !mtrace_grow_sites())
        || ((mt.nstacks + 1) * 4 >= mt.nstackhash * 3 && !mtrace_grow_stacks()))
        return site;
    mask = mt.nstackhash - 1;
    for (h = mtrace_stack_hash(site, c); (i = mt.stackhash[h & mask]); h++)
        if (mtrace_same_stack(&mt.sites[i], site, c))
            return i;
    if (!(frames = mtrace_keep_frames(c->n ? c->n : 1)))
        return site;
    memcpy(frames, c->ret, c->n * sizeof *c->ret);
    i = mt.nsites++;
    mt.sites[i] = mt.sites[site];
    mt.sites[i].id = 0;
    mt.sites[i].live = mt.sites[i].peak = mt.sites[i].allocs = mt.sites[i].nlive = 0;
    mt.sites[i].reach = mt.sites[i].reach_blocks = mt.sites[i].at_peak = mt.sites[i].seen = 0;
    mt.sites[i].parent = site;
    mt.sites[i].nframes = c->n;
    mt.sites[i].frames = frames;
    mt.sites[i].last = 0;
    mt.stackhash[h & mask] = i;
    mt.nstacks++;
    return i;
}

/* The stack entry of site `site` called through chain c (lock held), the
   one it used last first: no hash to compute when it comes again. */
static MTRACE_HOT unsigned mtrace_stack_index(unsigned site, const struct mtrace_chain *c)
{
    unsigned last = mt.sites[site].last;
    if (last && mtrace_same_stack(&mt.sites[last], site, c))
        return last;
    last = mtrace_stack_find(site, c);  /* may move mt.sites: stored after */
    mt.sites[site].last = last;
    return last;
}

/* The entry a traced call is counted under (lock held): its site, or with
   stacks, its site's entry for the chain c. */
static MTRACE_HOT unsigned mtrace_where(struct mtrace_site *d, const struct mtrace_chain *c)
{
    unsigned site = mtrace_site_index(d);
    return mt.depth && site ? mtrace_stack_index(site, c) : site;
}

/* MTRACE_DEPTH=N at start: frames per stack, 0 for none; a value that is
   not a number of frames gets one warning and no stacks. */
static void mtrace_read_depth(void)
{
    const char *v = mtrace_getenv("MTRACE_DEPTH");
    char *end, msg[256];
    long n;
    if (!v || !*v)
        return;
    errno = 0;
    n = strtol(v, &end, 10);
    if (*end || errno || n < 0) {
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_DEPTH=%.100s is not a number of frames: no call stacks\n", v);
        mtrace_say(msg);
        return;
    }
    if (n > MTRACE_MAXDEPTH) {
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_DEPTH=%ld: call stacks of %d frames at most\n", n, MTRACE_MAXDEPTH);
        mtrace_say(msg);
        n = MTRACE_MAXDEPTH;
    }
    if (n == 0 || !mtrace_segs_on())
        return;
    mt.depth = (int)n;
    if ((v = mtrace_getenv("MTRACE_ALLOC_FN")) && *v)
        mt.alloc_fns = mtrace_keep_name(v);     /* the environment may change */
    if ((v = mtrace_getenv("MTRACE_FRAME_POINTERS")) && *v && !(mt.caller_frames = !strcmp(v, "1"))) {
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_FRAME_POINTERS=%.100s is not 1: the callers of "
                 "calls no macro announced are followed only where a macro site showed frame pointers\n", v);
        mtrace_say(msg);
    }
}

