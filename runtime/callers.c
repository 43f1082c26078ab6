/* SPDX-License-Identifier: MIT */
/* runtime/callers.c - sites of the calls that no macro announced.

   Owns: a site for each return address that reached a traced entry
   point without a site (malloc through a pointer taken in traced code,
   xmlMalloc = malloc; a file built with MTRACE_NO_MACROS), so that each
   calling place is counted apart and, at exit, named as the reports
   name stack frames (mtrace_name_callers in names.c).  Until then such
   a site is "? 0xADDR 0".  Also, for an announced site, the return
   address of its first call (mtrace_first_call), which names the
   directory its file was compiled in.
   May call: runtime/state.c, out.c, sites.c, stacks.c.

   The table is read and filled without the lock (the entry points ask
   before they take it): an entry is claimed by its address with a
   compare-and-swap and published by `ready`; it is never removed.  A
   full table (MTRACE_MAXCALLERS places) leaves the others at
   "? <unknown> 0", as before. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */
#define MTRACE_MAXCALLERS 4096

struct mtrace_caller {
    uintptr_t ret;              /* the return address, 0 for a free slot */
    int ready;                  /* site and name filled in */
    struct mtrace_site site;
    char name[24];              /* "0xADDR", the site's file until named */
};

/* The table, mapped by the first caller that needs it. */
static struct mtrace_caller *mtrace_callers(void)
{
    struct mtrace_caller *t = __atomic_load_n(&mt.callers, __ATOMIC_ACQUIRE), *none = 0;
    if (t)
        return t;
    if (!(t = (struct mtrace_caller *)mtrace_pages(MTRACE_MAXCALLERS * sizeof *t)))
        return 0;
    if (!__atomic_compare_exchange_n(&mt.callers, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        mtrace_unpages(t, MTRACE_MAXCALLERS * sizeof *t);
        t = none;
    }
    return t;
}

/* Fills the entry just claimed for ret, learns its module (for its
   name at exit), and publishes it. */
static void mtrace_caller_fill(struct mtrace_caller *c, uintptr_t ret)
{
    snprintf(c->name, sizeof c->name, "0x%lx", (unsigned long)ret);
    c->site.func = "?";
    c->site.file = c->name;
    c->site.line = 0;
    mtrace_segs_on();
    if (mt.caller_frames)       /* the user says its module keeps frame pointers */
        mtrace_seg_learn(ret, 1);
    else
        mtrace_seg_of(ret);
    __atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
}

static MTRACE_HOT size_t mtrace_caller_home(uintptr_t ret)
{
    return (size_t)((ret * 0x9E3779B97F4A7C15ULL) >> 40) & (MTRACE_MAXCALLERS - 1);
}

/* The site of the traced call that returns to ret: found, or made. */
static struct mtrace_site *mtrace_caller_site(uintptr_t ret)
{
    struct mtrace_caller *t = mtrace_callers();
    size_t i, n;
    if (!t || !ret)
        return &mtrace_unknown_site;
    i = mtrace_caller_home(ret);
    for (n = 0; n < MTRACE_MAXCALLERS; n++, i = (i + 1) & (MTRACE_MAXCALLERS - 1)) {
        uintptr_t seen = __atomic_load_n(&t[i].ret, __ATOMIC_ACQUIRE);
        if (!seen && __atomic_compare_exchange_n(&t[i].ret, &seen, ret, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            mtrace_caller_fill(&t[i], ret);
            return &t[i].site;
        }
        if (seen == ret) {
            while (!__atomic_load_n(&t[i].ready, __ATOMIC_ACQUIRE))
                MTRACE_PAUSE();     /* another thread is filling it in */
            return &t[i].site;
        }
    }
    return &mtrace_unknown_site;
}

/* The first call at site d on this thread, returning to ret: kept until
   the site is made (mtrace_site_register), whose file __FILE__ names
   relative to a directory that only the debug information of ret knows
   (mtrace_place_sites).  Not a wrapper's site (MTRACE_ALLOC_FN): that
   call returns into the wrapper, maybe in another file. */
static void mtrace_first_call(struct mtrace_site *d, uintptr_t ret)
{
    if (d != mtrace_pending.caller) {
        mtrace_pending.first = d;
        mtrace_pending.first_ret = ret;
    }
}

/* The site announced for a traced call, or else its caller's: for the
   entry points, which pass __builtin_return_address(0).  An announced
   site costs one test more: has it been made (its index, set once)? */
static MTRACE_HOT struct mtrace_site *mtrace_named(struct mtrace_site *d, uintptr_t ret)
{
    struct mtrace_caller *t, *c;
    if (d != &mtrace_unknown_site) {
        if (!__atomic_load_n(&d->index, __ATOMIC_RELAXED))
            mtrace_first_call(d, ret);
        return d;
    }
    t = __atomic_load_n(&mt.callers, __ATOMIC_ACQUIRE);
    c = t ? &t[mtrace_caller_home(ret)] : 0;   /* the usual case: at its home */
    if (c && c->ret == ret && __atomic_load_n(&c->ready, __ATOMIC_ACQUIRE))
        return &c->site;
    return mtrace_caller_site(ret);
}

/* Where the callers of a call that no macro announced are walked from
   (MTRACE_DEPTH): the frame of the function that made it, which the
   entry point's prologue saved at the bottom of its own frame `entry`,
   above the call's return address.  Only when that function's module
   keeps frame pointers (its build said so, or MTRACE_FRAME_POINTERS=1):
   in code built without them, the word saved there is a frame further
   up, and its return address would name a caller that is not the
   caller (main for a function two calls below it).  And only when it
   looks like a frame (on this thread's stack, aligned, its return
   address in a loaded module). */
static MTRACE_ONE_COPY const uintptr_t *mtrace_caller_frame(const uintptr_t *entry)
{
    const uintptr_t *fp = (const uintptr_t *)entry[0];
    return fp > entry && !((uintptr_t)fp & 7) && mtrace_on_stack(fp) && mtrace_seg_traced(mtrace_seg_of(entry[1]))
        && mtrace_seg_of(fp[1]) >= 0 ? fp : 0;
}

MTRACE_COLD_FILE_END
