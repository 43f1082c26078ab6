/* SPDX-License-Identifier: MIT */
/* runtime/account.c - the figures of one operation (lock held).

   Owns: a block coming and going in the table, and what that does to the
   totals, the peak, the per-site and per-stack figures, and the record.
   May call: runtime/state.c, out.c, sites.c, trace.c, blocks.c. */

/* One operation on the figures of s (a site or a stack).  What s held at
   the global peak (for MTRACE_MAX_HEAP's report) is kept lazily: its
   first change after a peak saves its live bytes, unchanged since then. */
static MTRACE_HOT void mtrace_tally(struct mtrace_sitestat *s, int op, size_t size)
{
    if (s->seen != mt.peak_no) {
        s->at_peak = s->live;
        s->seen = mt.peak_no;
    }
    if (op == '+' || op == '>') {
        s->allocs++;
        s->nlive++;
        s->live += size;
        s->total_bytes += size;
        if (s->live > s->peak) {
            s->peak = s->live;
            s->peak_blocks = s->nlive;
        }
    } else {
        s->live -= size;
        s->nlive--;
    }
}

/* The figures after one operation of entry `site` (a site, or a stack
   counted also through its site), and its record. */
static MTRACE_HOT void mtrace_count(int op, unsigned site, size_t size)
{
    struct mtrace_sitestat *st = &mt.sites[site];
    struct mtrace_sitestat *s = st->parent ? &mt.sites[st->parent] : st;
    mtrace_tally(s, op, size);
    if (st != s)
        mtrace_tally(st, op, size);
    if (op == '+' || op == '>') {
        mt.total += size;
        mt.sizes[size ? 64 - __builtin_clzll((unsigned long long)size) : 0]++;
        if (mt.total > mt.max) {
            pmtrace.max = mt.max = mt.total;
            pmtrace.maxoverhead = mt.maxoverhead = mt.overhead;
            mt.peak_recno = mt.nr;
            s->seen = st->seen = ++mt.peak_no;
            s->at_peak = s->live;
            st->at_peak = st->live;
        }
    } else
        mt.total -= size;
    pmtrace.total = mt.total;
    mtrace_put_op(op, s, st, size);
}

/* The '-' record of a live entry whose block went unseen (freed by code
   mtrace does not see, its address handed out again): a branch of the
   per-call path that a run takes seldom, out of line (MTRACE_ONE_COPY). */
static MTRACE_ONE_COPY void mtrace_count_unseen(const struct mtrace_block *b)
{
    mtrace_count('-', mtrace_b_site(b), mtrace_b_size(b));
}

/* A free of the newest block: a temporary allocation of `site` (a site,
   or a stack counted also through its site). */
static void mtrace_temporary(unsigned site)
{
    struct mtrace_sitestat *st = &mt.sites[site];
    st->temporary++;
    if (st->parent)
        mt.sites[st->parent].temporary++;
    mt.temporary++;
    mt.newest = 0;
}

/* A block the program now owns, of malloc's family (runtime/cxx.c marks
   new's): its entry, or 0 if the table cannot take it.  An entry already
   live at that address was freed behind our back (by code we do not
   see): close it first. */
static MTRACE_HOT struct mtrace_block *mtrace_add(struct mtrace_table *t, void *p, size_t size, unsigned site,
                                                  int op)
{
    struct mtrace_block *b;
    if (!site || (uint64_t)size >> MTRACE_SIZE_BITS || !(b = mtrace_claim(t, (uintptr_t)p))) {
        if (!mt.incomplete)
            mtrace_say((uint64_t)size >> MTRACE_SIZE_BITS
                       ? "*** MTRACE: a block of 2 TiB or more, which the tracer's table cannot take: "
                         "from now on its figures are incomplete\n"
                       : "*** MTRACE: the tracer's tables cannot grow: from now on its figures are incomplete\n");
        mt.incomplete = 1;
        return 0;
    }
    if (!b->addr)
        t->nlive++;
    else if (mtrace_freed(b))
        t->nfreed--, t->nlive++;    /* the tombstone's address came back */
    else
        mtrace_count_unseen(b);
    b->addr = MTRACE_HIDE(p);   /* hidden: see struct mtrace_block */
    mt.newest = ~(uintptr_t)p;  /* (kept inverted: not a pointer that keeps the block reachable) */
    b->word = (uint64_t)size << (MTRACE_SITE_BITS + 1) | site;
    if (size > t->largest)
        t->largest = size;
    mtrace_count(op, site, size);
    return b;
}

/* The block is going away: writes '-' or '<' and leaves a tombstone
   that names `by`, the entry (a site, or with stacks the stack) of the
   free, for a second free's report. */
static MTRACE_HOT void mtrace_drop(struct mtrace_table *t, struct mtrace_block *b, unsigned by, int op)
{
    if (mtrace_b_addr(b) == ~mt.newest && op == '-')    /* freed before any other allocation */
        mtrace_temporary(mtrace_b_site(b));
    mtrace_count(op, mtrace_b_site(b), mtrace_b_size(b));
    b->word = (uint64_t)t->epoch << MTRACE_EPOCH_SHIFT | (uint64_t)by << (MTRACE_SITE_BITS + 1)
        | MTRACE_FREED | mtrace_b_site(b);
    t->nlive--;
    mtrace_tombstone_made(t, mtrace_b_addr(b));
}

