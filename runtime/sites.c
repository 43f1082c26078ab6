/* SPDX-License-Identifier: MIT */
/* runtime/sites.c - the site table.

   Owns: the index of each call site (function, file, line; pools apart),
   the copies of their names, and the orderings of the sites that the
   reports and the trace's gnuplot tail print.
   May call: runtime/state.c. */

static unsigned long mtrace_hash_str(unsigned long h, const char *s)
{
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3UL;
    return h;
}

static unsigned long mtrace_site_hash(const char *func, const char *file, int line, int pool)
{
    unsigned long h = 0xcbf29ce484222325UL ^ (unsigned long)line ^ (unsigned long)pool * 0x9E3779B9UL;
    return mtrace_hash_str(mtrace_hash_str(h, func), file);
}

static int mtrace_grow_sites(void)
{
    unsigned i, n = mt.maxsites ? mt.maxsites * 2 : 128;
    unsigned nhash = n * 2, mask = nhash - 1;
    struct mtrace_sitestat *sites = (struct mtrace_sitestat *)mtrace_pages(n * sizeof *sites);
    unsigned *hash = (unsigned *)mtrace_pages(nhash * sizeof *hash);
    if (!sites || !hash) {
        mtrace_unpages(sites, n * sizeof *sites);
        mtrace_unpages(hash, nhash * sizeof *hash);
        return 0;
    }
    if (mt.nsites)
        memcpy(sites, mt.sites, mt.nsites * sizeof *sites);
    for (i = 1; i < mt.nsites; i++) {
        unsigned long h = mtrace_site_hash(sites[i].func, sites[i].file, sites[i].line, sites[i].pool);
        if (sites[i].parent)
            continue;           /* a stack, found through mt.stackhash */
        while (hash[h & mask])
            h++;
        hash[h & mask] = i;
    }
    mtrace_unpages(mt.sites, mt.maxsites * sizeof *mt.sites);
    mtrace_unpages(mt.sitehash, mt.nsitehash * sizeof *mt.sitehash);
    mt.sites = sites;
    mt.sitehash = hash;
    mt.maxsites = n;
    mt.nsitehash = nhash;
    if (!mt.nsites)
        mt.nsites = 1;
    return 1;
}

/* A copy of a site's name in the tracer's own pages: the descriptor's
   strings belong to the object that holds the call, and a plugin closed
   with dlclose takes them away before the report.  NULL if out of memory. */
static const char *mtrace_keep_name(const char *s)
{
    enum { CHUNK = 1 << 16 };
    size_t n = strnlen(s, MTRACE_NAMEMAX) + 1;
    char *copy;
    if (!mt.names || (size_t)(mt.names_end - mt.names) < n) {
        if (!(mt.names = (char *)mtrace_pages(CHUNK)))
            return 0;
        mt.names_end = mt.names + CHUNK;
    }
    copy = mt.names;
    memcpy(copy, s, n - 1);
    copy[n - 1] = 0;
    mt.names += n;
    return copy;
}

/* The return address of the call under way on this thread, if it is
   site d's first (callers.c, mtrace_first_call); else 0. */
static uintptr_t mtrace_first_ret(const struct mtrace_site *d)
{
    return mtrace_pending.first == d ? mtrace_pending.first_ret : 0;
}

/* d's index is i (atomic: mtrace_named reads it without the lock). */
static unsigned mtrace_site_is(struct mtrace_site *d, unsigned i, int pool)
{
    if (!pool)
        __atomic_store_n(&d->index, i, __ATOMIC_RELAXED);
    return i;
}

/* The index of a call site, given on its first call.  Descriptors of the
   same function, file and line (a static inline function in a header, seen
   from several files) share one index.  0 if the table cannot grow. */
static unsigned mtrace_site_register(struct mtrace_site *d, int pool)
{
    unsigned long h;
    unsigned i, mask;
    if (mt.nsites >= MTRACE_MAXSITES || (mt.nsites + 1 >= mt.maxsites && !mtrace_grow_sites()))
        return 0;
    mask = mt.nsitehash - 1;
    for (h = mtrace_site_hash(d->func, d->file, d->line, pool); (i = mt.sitehash[h & mask]); h++) {
        struct mtrace_sitestat *s = &mt.sites[i];
        if (s->line == d->line && s->pool == pool && !strcmp(s->func, d->func) && !strcmp(s->file, d->file)) {
            if (!s->ret)        /* made by a call that did not say where it was */
                s->ret = mtrace_first_ret(d);
            return mtrace_site_is(d, i, pool);
        }
    }
    i = mt.nsites;
    memset(&mt.sites[i], 0, sizeof mt.sites[i]);
    mt.sites[i].func = mtrace_keep_name(d->func);
    mt.sites[i].file = mtrace_keep_name(d->file);
    if (!mt.sites[i].func || !mt.sites[i].file)
        return 0;
    mt.sites[i].line = d->line;
    mt.sites[i].pool = pool;
    mt.sites[i].ret = mtrace_first_ret(d);
    mt.sitehash[h & mask] = i;
    mt.nsites++;
    return mtrace_site_is(d, i, pool);
}

static MTRACE_HOT unsigned mtrace_site_index(struct mtrace_site *d)
{
    return d->index ? d->index : mtrace_site_register(d, 0);
}

/* The site of a pool block (MTRACE_MALLOCLIKE) at d: a site of its own,
   apart from d's heap blocks (the trace marks it "#pool"), found by a
   table lookup each time (d->index caches the heap site). */
static unsigned mtrace_pool_index(struct mtrace_site *d)
{
    return mtrace_site_register(d, 1);
}

static int mtrace_by_peak(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->peak != y->peak)
        return x->peak < y->peak ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The indices of the sites that allocated, sorted by `cmp`, in pages of their own (freed by caller). */
static unsigned *mtrace_sorted(int (*cmp)(const void *, const void *), int stacks)
{
    unsigned i, *order = (unsigned *)mtrace_pages(mt.maxsites * sizeof *order);
    if (!order)
        return 0;
    mt.nsorted = 0;
    for (i = 1; i < mt.nsites; i++)
        if (mt.sites[i].allocs && !mt.sites[i].parent == !stacks)
            order[mt.nsorted++] = i;
    qsort(order, mt.nsorted, sizeof *order, cmp);
    return order;
}

static unsigned *mtrace_sorted_sites(int (*cmp)(const void *, const void *))
{
    return mtrace_sorted(cmp, 0);
}

/* Allocation calls in all (blocks allocated, as the sites count them). */
static size_t mtrace_calls(void)
{
    size_t n = 0;
    unsigned i;
    for (i = 1; i < mt.nsites; i++)
        if (!mt.sites[i].parent)
            n += mt.sites[i].allocs;
    return n;
}
