/* SPDX-License-Identifier: MIT */
/* runtime/entry.c - the traced entry points: what the program's malloc calls.

   Owns: taking the site the call's macro announced, each traced function
   (mtrace_malloc ... mtrace_quick_exit, mtrace_exit, mtrace_check_heap_at), realloc
   of a traced block, and the release of a block with its double-free check;
   under the heap check (runtime/guard.c), which blocks are checked: every
   block a traced call hands out while the tracer is ready.
   May call: every file above it. */

/* The site its caller announced for the call whose first argument is
   `key`.  A ring, not one slot: another traced call may run while the
   arguments of this one are evaluated (calloc(n, strlen(strdup(s))));
   a key, so that a site announced for a call that never reached us
   (mem->free(p) with the program's own free) is not taken by the next
   call through a pointer. */
static MTRACE_HOT struct mtrace_site *mtrace_pop(struct mtrace_pending *q, unsigned j)
{
    struct mtrace_site *s = q->site[j];
    q->site[j] = 0;
    q->top = (j - 1) & 3;
    q->taken_frame = q->caller ? q->caller_frame : q->frame[j];
    return q->caller ? q->caller : s;
}

/* The other cases, out of line (MTRACE_ONE_COPY): the site is not the
   last one announced, or none was. */
static MTRACE_ONE_COPY struct mtrace_site *mtrace_take_other(uintptr_t key)
{
    struct mtrace_pending *q = &mtrace_pending;
    unsigned i, t = q->top & 3;
    if (!q->site[0] && !q->site[1] && !q->site[2] && !q->site[3])
        goto none;              /* nothing announced: a call through a pointer */
    for (i = 1; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == key)
            return mtrace_pop(q, (t - i) & 3);
    /* The compiler turns realloc(NULL, n) into malloc(n): the key was the
       null pointer, the callee sees n. */
    for (i = 0; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == 0)
            return mtrace_pop(q, (t - i) & 3);
none:
    q->taken_frame = q->caller ? q->caller_frame : 0;
    return q->caller ? q->caller : &mtrace_unknown_site;
}

static MTRACE_HOT struct mtrace_site *mtrace_take(uintptr_t key)
{
    struct mtrace_pending *q = &mtrace_pending;
    unsigned t = q->top & 3;
    if (q->key[t] == key && q->site[t])     /* the usual case: the last one */
        return mtrace_pop(q, t);
    return mtrace_take_other(key);
}

/* The site of the call under way in an entry point: its macro's, or its
   return address's (runtime/callers.c). */
#define MTRACE_TAKE(key) mtrace_named(mtrace_take((uintptr_t)(key)), (uintptr_t)__builtin_return_address(0))

/* c: the callers of the call under way in a traced entry point, walked
   with stacks on from the frame of the function that made the call (the
   macro's __builtin_frame_address makes it keep one; a call no macro
   announced, from the frame the entry point saved: mtrace_caller_frame).
   The builtin here gives the entry point a frame pointer too: see
   mtrace_walk. */
#define MTRACE_CALLERS(c, d) struct mtrace_chain c;                                           \
    if (mt.depth > 1)                                                                       \
        mtrace_walk(&c, mtrace_pending.taken_frame ? (const uintptr_t *)mtrace_pending.taken_frame \
                    : mtrace_caller_frame((const uintptr_t *)__builtin_frame_address(0)), d,  \
                    __builtin_frame_address(0));                                            \
    else                                                                                    \
        c.n = 0

/* Block p of `family` (MTRACE_BY_MALLOC ...), made at d, into the table. */
static MTRACE_HOT void *mtrace_traced_as(void *p, size_t size, struct mtrace_site *d,
                                         const struct mtrace_chain *c, int op, int family)
{
    struct mtrace_block *b;
    if (p && mtrace_lock_ready()) {
        b = mtrace_add(&mt.heap, p, size, mtrace_where(d, c), op);
        if (b && family != MTRACE_BY_MALLOC) {
            b->word |= (uint64_t)family << MTRACE_FAMILY_SHIFT;
            mt.cxx = 1;
        }
        if (__builtin_expect(mt.check, 0))
            mtrace_heap_tick(d, c);     /* (releases the lock) */
        else
            mtrace_unlock();
        mtrace_writer_check();
    }
    return p;
}

static MTRACE_HOT void *mtrace_traced(void *p, size_t size, struct mtrace_site *d,
                                       const struct mtrace_chain *c, int op)
{
    return mtrace_traced_as(p, size, d, c, op, MTRACE_BY_MALLOC);
}

/* Is the heap check on for the block about to be made?  Asked before the
   C library is: the tracer starts here if it has not yet, so that a block
   is checked when the check is on and the table can take it: not for a
   signal handler's call inside the tracer, which passes through.  (One
   the table could not take all the same, the tracer done meanwhile, is
   found again by its marks: mtrace_guard_give_back.) */
static MTRACE_HOT int mtrace_checking(void)
{
    return mtrace_ready() && __builtin_expect(mt.check, 0) && !mtrace_pending.busy;
}

/* The entry a free at d, called through chain c, leaves in its block's
   tombstone (lock held): with stacks, the free's own stack, so that a
   second free's report shows the callers of the first; else its site. */
static MTRACE_HOT unsigned mtrace_freer(struct mtrace_site *d, const struct mtrace_chain *c)
{
    return c && mt.depth > 1 ? mtrace_where(d, c) : mtrace_site_index(d);
}

/* The records of a realloc that freed block b (`by`) and gave q (0 when
   realloc(p, 0) freed): b closed ('<'), or, inherited by a forked child
   (`heir` not the heap's own table), buried without a record; q opened
   at `site` ('>', or `first` for a child's new block).  Lock held. */
static void mtrace_moved(struct mtrace_table *heir, struct mtrace_block *b, void *q, size_t n, unsigned site,
                         unsigned by, int first)
{
    if (heir == &mt.heap)
        mtrace_drop(&mt.heap, b, by, '<');
    else
        mtrace_bury(b, by);
    if (q)
        mtrace_add(&mt.heap, q, n, site, heir == &mt.heap ? '>' : first);
}

/* realloc of a live traced block, lock held (released here).  The C
   library's realloc runs under our lock: it does not call the malloc
   symbols back, and the address it frees cannot reach another thread's
   record before our tombstone does.  `d` is 0 for code without mtrace:
   the block keeps its site.  A block a forked child inherited (`heir` is
   not the heap's own table) was not the child's: it goes without a
   record, and what realloc gives back is a new block of the child's,
   recorded as `first` (mtrace_resize). */
static MTRACE_ONE_COPY void *mtrace_move_checked(struct mtrace_table *heir, struct mtrace_block *b, void *p,
                                                 size_t n, struct mtrace_site *d, const struct mtrace_chain *c,
                                                 int first, unsigned site);
static void *mtrace_move(struct mtrace_table *heir, struct mtrace_block *b, void *p, size_t n,
                         struct mtrace_site *d, const struct mtrace_chain *c, int first)
{
    unsigned site = d ? mtrace_where(d, c) : mtrace_b_site(b);
    void *q;
    if (mt.check)
        return mtrace_move_checked(heir, b, p, n, d, c, first, site);
    q = mtrace_libc_realloc(p, n);
    if (q || n == 0)
        mtrace_moved(heir, b, q, n, site, mtrace_freer(d ? d : &mtrace_untraced_site, c), first);
    mtrace_unlock();
    return q;
}

/* mtrace_move under the heap check: the block always moves (a new checked
   block, the bytes copied, the old one checked and into the quarantine),
   so that shrinking and growing never leave a guard where the program may
   now write; the new block's entry is `site`.  Lock held; released here. */
static MTRACE_ONE_COPY void *mtrace_move_checked(struct mtrace_table *heir, struct mtrace_block *b, void *p,
                                                 size_t n, struct mtrace_site *d, const struct mtrace_chain *c,
                                                 int first, unsigned site)
{
    unsigned alloc = mtrace_b_site(b), by;
    size_t old = mtrace_b_size(b);
    struct mtrace_site *at = d ? d : &mtrace_untraced_site;
    void *q = n ? mtrace_guard_copy(p, old, n) : 0;
    if (!q && n) {
        mtrace_unlock();
        return 0;               /* no memory: p stays as it was */
    }
    by = mtrace_freer(at, c);
    mtrace_moved(heir, b, q, n, site, by, first);
    if (mtrace_guard_free((char *)p, old, alloc, by, at, c, "realloc"))
        mtrace_heap_tick(at, c);
    return q;
}

/* Does tombstone b prove that freeing p again is a double free, when the
   interposers do not see every allocation (musl, a static binary, a
   sanitizer: the C library may have handed p out again unseen)?  Only if
   p's page is mapped no more: then nothing can have had it since (musl
   unmaps a freed group).  Lock held. */
static int mtrace_tombstone_proves(const struct mtrace_block *b, const void *p)
{
    int saved = errno, gone;
    gone = mtrace_freed(b) && mtrace_unmapped(p);
    errno = saved;
    return gone;
}

static MTRACE_ONE_COPY struct mtrace_block *mtrace_mismatched(struct mtrace_table *t, struct mtrace_block *b,
                                                              void *p, int family, struct mtrace_site *by,
                                                              const struct mtrace_chain *c,
                                                              struct mtrace_table **heir);

/* realloc and reallocarray from traced code.  `first` is the record of a
   block that did not exist before: '>' for realloc(NULL, n).  realloc of
   new's block is a mismatched free, reported first (mtrace_mismatched);
   continuing, the block is resized as malloc's. */
static void *mtrace_resize(void *p, size_t n, struct mtrace_site *d, const struct mtrace_chain *c, int first)
{
    struct mtrace_block *b;
    struct mtrace_table *heir;
    if (p && mtrace_lock_ready()) {
        b = mtrace_lookup(&mt.heap, (uintptr_t)p, &heir);
        if (mtrace_live(b) && mtrace_b_family(b) != MTRACE_BY_MALLOC)  /* new's block: a mismatch, as */
            b = mtrace_mismatched(&mt.heap, b, p, MTRACE_REALLOC_CALL, d, c, &heir);   /* Memcheck says */
        if (!b)
            ;                   /* (the tracer is done meanwhile: the lock is not held) */
        else if (mtrace_live(b))
            return mtrace_move(heir, b, p, n, d, c, first);
        else if (b->addr && (mt.interposed || mtrace_tombstone_proves(b, p))
                 && !mtrace_holder_any(&mt.heap, (uintptr_t)p)) {
            mtrace_double_free(b, d, "double free: realloc of a block already freed", c, 0);  /* continuing: nothing */
            return 0;
        } else {
            mtrace_unlock();
            if (mtrace_invalid_free(d, "realloc", p, c, 0))
                return 0;       /* continuing: nothing */
        }
    }
    if (mtrace_checking())
        return mtrace_traced(mtrace_guard_adopt(p, n), n, d, c, first);
    if (mt.check)               /* (a signal handler's call inside the tracer, or after exit's check) */
        return mtrace_traced(mtrace_guard_libc_realloc(p, n), n, d, c, first);
    return mtrace_traced(mtrace_libc_realloc(p, n), n, d, c, first);
}

/* The traced call under way on this thread, for the note that names it
   if the program dies inside (mtrace_on_signal): two stores per call. */
static MTRACE_HOT struct mtrace_site *mtrace_enter(const char *call, struct mtrace_site *d)
{
    mtrace_pending.call_site = d;
    mtrace_pending.call = call;
    return d;
}

static MTRACE_HOT void *mtrace_leave(void *result)
{
    mtrace_pending.call = 0;
    if (__builtin_expect(!mtrace_pending.seen, 0))
        mtrace_thread_seen();   /* once per thread: reachable mode lists its stack */
    return result;
}

MTRACE_API void *mtrace_malloc(size_t n)
{
    struct mtrace_site *d = mtrace_enter("malloc", MTRACE_TAKE(n));
    MTRACE_CALLERS(c, d);
    return mtrace_leave(mtrace_traced(mtrace_checking() ? mtrace_guard_new(n, 16, 0) : mtrace_libc_malloc(n),
                                      n, d, &c, '+'));
}

/* calloc's block under the heap check: zero, its size checked. */
static MTRACE_ONE_COPY void *mtrace_calloc_checked(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) {
        errno = ENOMEM;
        return 0;
    }
    return mtrace_guard_new(n * size, 16, 1);
}

MTRACE_API void *mtrace_calloc(size_t n, size_t size)
{
    struct mtrace_site *d = mtrace_enter("calloc", MTRACE_TAKE(n));
    MTRACE_CALLERS(c, d);
    if (mtrace_checking())
        return mtrace_leave(mtrace_traced(mtrace_calloc_checked(n, size), n * size, d, &c, '+'));
    return mtrace_leave(mtrace_traced(mtrace_libc_calloc(n, size), n * size, d, &c, '+'));
}

MTRACE_API void *mtrace_realloc(void *p, size_t n)
{
    struct mtrace_site *d = mtrace_enter("realloc", MTRACE_TAKE(p));
    MTRACE_CALLERS(c, d);
    return mtrace_leave(mtrace_resize(p, n, d, &c, '>'));
}

MTRACE_API void *mtrace_reallocarray(void *p, size_t n, size_t size)
{
    struct mtrace_site *d = mtrace_enter("reallocarray", MTRACE_TAKE(p));
    MTRACE_CALLERS(c, d);
    if (size && n > (size_t)-1 / size)
        return mtrace_leave(mtrace_libc_reallocarray(p, n, size));  /* NULL, ENOMEM */
    return mtrace_leave(mtrace_resize(p, n * size, d, &c, '+'));
}

/* A block given back at `by` (called through chain c; 0 for code without
   mtrace): closes it and says 1 (hand it to its allocator), or reports a
   double free of a tombstone when tombstones can be trusted (`trust` 1;
   2: when the tombstone proves it, mtrace_tombstone_proves; 0: never),
   and says 0 (the call does nothing); 2 for an address it does not know,
   or a heap tombstone that a live block now holds (the C library handed
   the address out again inside it: a free there is a free inside that
   block, mtrace_invalid_free).  In a forked child, the blocks it
   inherited count too (mtrace_inherit).  Not ready: 1.  A live block
   of another `family` than the call's (MTRACE_BY_MALLOC ...; any with
   MTRACE_BY_ANY) is a mismatched free, reported first (mtrace_mismatched). */
static MTRACE_ONE_COPY int mtrace_free_checked(struct mtrace_table *heir, struct mtrace_block *b, void *p,
                                               struct mtrace_site *by, const struct mtrace_chain *c);
static MTRACE_HOT int mtrace_release_as(struct mtrace_table *t, void *p, struct mtrace_site *by, int trust,
                                        const struct mtrace_chain *c, int family)
{
    struct mtrace_block *b;
    struct mtrace_table *heir;
    int known = 1;
    if (!p || !mtrace_lock_ready())
        return 1;
    b = mtrace_lookup(t, (uintptr_t)p, &heir);
    if (family != MTRACE_BY_ANY && mtrace_live(b) && mtrace_b_family(b) != family
        && !(b = mtrace_mismatched(t, b, p, family, by, c, &heir)))
        return 1;               /* (the tracer is done meanwhile) */
    if (__builtin_expect(mt.check, 0) && t == &mt.heap && mtrace_live(b))
        return mtrace_free_checked(heir, b, p, by, c);
    if (mtrace_live(b) && heir == t)
        mtrace_drop(t, b, mtrace_freer(by, c), '-');
    else if (mtrace_live(b))
        mtrace_bury(b, mtrace_freer(by, c));
    else if (b->addr && (trust == 1 || (trust == 2 && mtrace_tombstone_proves(b, p)))
             && !(t == &mt.heap && mtrace_holder_any(t, (uintptr_t)p))) {
        mtrace_double_free(b, by, "double free of a block", c, 0);
        return 0;
    } else
        known = 0;
    mtrace_unlock();
    return known ? 1 : 2;
}

/* The same for a call that does not say its family (a pool's, code
   without mtrace): any block it frees is its to free. */
static MTRACE_HOT int mtrace_release(struct mtrace_table *t, void *p, struct mtrace_site *by, int trust,
                                     const struct mtrace_chain *c)
{
    return mtrace_release_as(t, p, by, trust, c, MTRACE_BY_ANY);
}

/* Block b, live, freed at `by` by a call of another family (lock held):
   the error (runtime/report.c), which aborts unless the program goes on
   (MTRACE_DOUBLE_FREE=continue); then the lock again and p's entry, to
   be freed as the call asked.  0 if the tracer is done meanwhile. */
static MTRACE_ONE_COPY struct mtrace_block *mtrace_mismatched(struct mtrace_table *t, struct mtrace_block *b,
                                                              void *p, int family, struct mtrace_site *by,
                                                              const struct mtrace_chain *c,
                                                              struct mtrace_table **heir)
{
    mtrace_mismatch(mtrace_b_site(b), mtrace_b_family(b), family, by, c);
    if (!mtrace_lock_traced())
        return 0;
    return mtrace_lookup(t, (uintptr_t)p, heir);
}

/* A checked block freed (lock held; released here): closed in the table,
   then its guards checked and into the quarantine (runtime/guard.c).  0:
   nothing is left for the caller to do. */
static MTRACE_ONE_COPY int mtrace_free_checked(struct mtrace_table *heir, struct mtrace_block *b, void *p,
                                               struct mtrace_site *by, const struct mtrace_chain *c)
{
    unsigned alloc = mtrace_b_site(b), freed = mtrace_freer(by, c);
    size_t n = mtrace_b_size(b);
    if (heir == &mt.heap)
        mtrace_drop(&mt.heap, b, freed, '-');
    else
        mtrace_bury(b, freed);
    if (mtrace_guard_free((char *)p, n, alloc, freed, by, c, "free"))
        mtrace_heap_tick(by, c);
    return 0;
}

/* p given back at d by `call` of `family` (free, or delete: runtime/cxx.c). */
static MTRACE_HOT void mtrace_free_as(void *p, int family, const char *call, struct mtrace_site *d,
                                      const struct mtrace_chain *c)
{
    int known = mtrace_release_as(&mt.heap, p, d, mt.interposed ? 1 : 2, c, family);
    if (known == 1 || (known == 2 && !mtrace_invalid_free(d, call, p, c, 0)))
        mtrace_give_back(p);
}

MTRACE_API void mtrace_free(void *p)
{
    struct mtrace_site *d = mtrace_enter("free", MTRACE_TAKE(p));
    MTRACE_CALLERS(c, d);
    mtrace_free_as(p, MTRACE_BY_MALLOC, "free", d, &c);
    mtrace_leave(0);
}

/* strdup and strndup: the n bytes at s and a terminator, in a block of
   the C library's malloc itself, traced at d.  glibc's own strdup calls
   malloc through the program's symbol, which is our interposer: each copy
   cost a second pass through the tables (10% of the time of bench's
   json-config at level 2). */
static char *mtrace_copy(const char *s, size_t n, struct mtrace_site *d, const struct mtrace_chain *c)
{
    char *p = (char *)(mtrace_checking() ? mtrace_guard_new(n + 1, 16, 0) : mtrace_libc_malloc(n + 1));
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return (char *)mtrace_leave(mtrace_traced(p, n + 1, d, c, '+'));
}

MTRACE_API char *mtrace_strdup(const char *s)
{
    struct mtrace_site *d = mtrace_enter("strdup", MTRACE_TAKE(s));
    MTRACE_CALLERS(c, d);
    return mtrace_copy(s, strlen(s), d, &c);
}

MTRACE_API char *mtrace_strndup(const char *s, size_t n)
{
    struct mtrace_site *d = mtrace_enter("strndup", MTRACE_TAKE(s));
    MTRACE_CALLERS(c, d);
    return mtrace_copy(s, strnlen(s, n), d, &c);
}

/* The path of mtrace_traced for the entry points programs seldom call
   (aligned_alloc, posix_memalign, valloc, memalign, pvalloc): one copy
   out of line for the five, not one inlined in each (see MTRACE_ONE_COPY).
   `call` names the call under way, as mtrace_enter does for the others
   (the heap check every N calls says "at this aligned_alloc"). */
static MTRACE_ONE_COPY void *mtrace_traced_seldom(void *p, size_t size, struct mtrace_site *d,
                                                  const struct mtrace_chain *c, const char *call)
{
    mtrace_enter(call, d);
    return mtrace_leave(mtrace_traced(p, size, d, c, '+'));
}

/* The aligned ones under the heap check: `kind` says which, with the C
   library's rules for the alignment (glibc's: aligned_alloc and
   posix_memalign refuse one that is not a power of two, memalign rounds
   it up; valloc and pvalloc take the page's, pvalloc whole pages).  *n
   may grow (pvalloc).  EINVAL or ENOMEM in *err. */
static MTRACE_ONE_COPY void *mtrace_aligned_checked(int kind, size_t align, size_t *n, int *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), a = align;
    void *p;
    if (kind == 'v' || kind == 'p')
        a = page;
    if (kind == 'p')
        *n = *n ? (*n + page - 1) & ~(page - 1) : page;
    if (kind == 'm' && a < 16)
        a = 16;                 /* (glibc: malloc's alignment, memalign(0, n) too) */
    if (kind == 'm')
        while (a & (a - 1))
            a += a & -a;        /* up to the next power of two */
    if (!a || (a & (a - 1)) || (kind == 'P' && a % sizeof(void *)) || a > ((size_t)1 << 30)) {
        *err = EINVAL;
        return 0;
    }
    p = mtrace_guard_new(*n, a, 0);
    *err = p ? 0 : ENOMEM;
    return p;
}

/* An aligned allocation, checked or not: `kind` 'a' aligned_alloc, 'P'
   posix_memalign (its error in *err), 'm' memalign, 'v' valloc, 'p'
   pvalloc; *n the size recorded. */
static MTRACE_ONE_COPY void *mtrace_aligned(int kind, size_t align, size_t *n, int *err)
{
    void *p = 0;
    int saved = errno;
    if (mtrace_checking()) {
        p = mtrace_aligned_checked(kind, align, n, err);
        if (*err && kind != 'P')
            errno = *err;
        else
            errno = saved;
        return p;
    }
    *err = 0;
    if (kind == 'a')
        p = mtrace_libc_aligned_alloc(align, *n);
    else if (kind == 'P')
        *err = mtrace_libc_posix_memalign(&p, align, *n);
    else if (kind == 'v')
        p = mtrace_libc_valloc(*n);
#ifdef __GLIBC__
    else if (kind == 'm')
        p = mtrace_libc_memalign(align, *n);
    else
        p = mtrace_libc_pvalloc(*n);
#endif
    return p;
}

MTRACE_API void *mtrace_aligned_alloc(size_t align, size_t n)
{
    struct mtrace_site *d = MTRACE_TAKE(align);
    void *p;
    int err;
    MTRACE_CALLERS(c, d);
    p = mtrace_aligned('a', align, &n, &err);    /* (n read after: pvalloc's may grow) */
    return mtrace_traced_seldom(p, n, d, &c, "aligned_alloc");
}

MTRACE_API int mtrace_posix_memalign(void **pp, size_t align, size_t n)
{
    struct mtrace_site *d = MTRACE_TAKE(pp);
    int err;
    void *p;
    MTRACE_CALLERS(c, d);
    p = mtrace_aligned('P', align, &n, &err);
    if (err == 0)
        *pp = mtrace_traced_seldom(p, n, d, &c, "posix_memalign");
    return err;
}

MTRACE_API void *mtrace_valloc(size_t n)
{
    struct mtrace_site *d = MTRACE_TAKE(n);
    void *p;
    int err;
    MTRACE_CALLERS(c, d);
    p = mtrace_aligned('v', 0, &n, &err);    /* (n read after: pvalloc's may grow) */
    return mtrace_traced_seldom(p, n, d, &c, "valloc");
}

#ifdef __GLIBC__
MTRACE_API void *mtrace_memalign(size_t align, size_t n)
{
    struct mtrace_site *d = MTRACE_TAKE(align);
    void *p;
    int err;
    MTRACE_CALLERS(c, d);
    p = mtrace_aligned('m', align, &n, &err);    /* (n read after: pvalloc's may grow) */
    return mtrace_traced_seldom(p, n, d, &c, "memalign");
}

MTRACE_API void *mtrace_pvalloc(size_t n)
{
    struct mtrace_site *d = MTRACE_TAKE(n);
    void *p;
    int err;
    MTRACE_CALLERS(c, d);
    p = mtrace_aligned('p', 0, &n, &err);    /* (n read after: pvalloc's may grow) */
    return mtrace_traced_seldom(p, n, d, &c, "pvalloc");
}
#endif

/* mtrace_check_heap() (mtrace.h): the whole heap check, now, at the
   caller's site; nothing when the check is off. */
MTRACE_API void mtrace_check_heap_at(struct mtrace_site *site)
{
    site = mtrace_named(site, (uintptr_t)__builtin_return_address(0));    /* (its file's directory) */
    mtrace_pending.taken_frame = mtrace_pending.caller ? mtrace_pending.caller_frame
                                 : *(void **)__builtin_frame_address(0);
    {
        MTRACE_CALLERS(c, site);
        if (mtrace_ready() && mt.check && mtrace_lock_traced())
            mtrace_check_all(site, &c, "found by mtrace_check_heap", 1);
    }
}

/* exit from traced code: the status is noted for a C library whose exit
   handlers are not told it (no on_exit: see mtrace_at_exit). */
MTRACE_API void mtrace_exit(int status) __attribute__((__noreturn__));
MTRACE_API void mtrace_exit(int status)
{
    mtrace_note_exit(status);
    mtrace_libc_exit(status);
}

/* _exit, _Exit and quick_exit from traced code: the program's exit
   handlers are skipped, and so is the report, but the trace is written
   out whole, with its tail (a forked child that ends with _exit leaves a
   complete trace).  The status is the program's. */
MTRACE_API void mtrace__exit(int status)
{
    mtrace_write_out();
    mtrace_exit_now(status);
}

MTRACE_API void mtrace__Exit(int status)
{
    mtrace_write_out();
    mtrace_libc__Exit(status);
}

MTRACE_API void mtrace_quick_exit(int status)
{
    if (mtrace_write_out()) {           /* quick_exit's own handlers may allocate */
        if (!mtrace_single_threaded)
            __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
        mtrace_pending.busy = 0;
    }
    mtrace_libc_quick_exit(status);
}

