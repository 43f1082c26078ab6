/* SPDX-License-Identifier: MIT */
/* runtime/leaks.c - what is still live at exit, as records a person reads.

   Owns: the leak records, built once at exit: what each site (with
   stacks, each stack) still holds, charged past MTRACE_ALLOC_FN's
   wrappers, merged when two would read the same (two calls on one line,
   hidden stacks charged to one caller), largest first; the suppressions'
   and the reachable scan's share of them; the totals (mt.leaked...).
   The text report (report.c) prints the first of them, the JSON report
   (json.c) all of them.
   May call: runtime/state.c, out.c, sites.c, stacks.c, ci.c, reach.c,
   names.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

/* One record: `bytes` in `blocks` live at exit, charged to func at
   file:line (line -1: `file` is addr2line's "file:line" of a caller),
   with the callers frames[from..to) shown under it. */
struct mtrace_leak {
    const char *func, *file;
    int line;
    const uintptr_t *frames;
    unsigned from, to;
    size_t bytes, blocks;
    int reachable;              /* a "still reachable" note, not an error */
};

/* The records, errors first then notes, each part largest first. */
static struct mtrace_leaks {
    struct mtrace_leak *rec;
    unsigned n, nerr;           /* all of them; of them, errors */
    size_t room;                /* the pages' size */
} mtrace_leaks;

/* The length of the name of the function that `func` is a copy of: gcc
   names the copies it makes "f.constprop.0", "f.isra.0", "f.part.0",
   "f.cold", "f.lto_priv.0" (Redis's _sdsnewlen.constprop.0), and
   MTRACE_ALLOC_FN names f. */
static size_t mtrace_clone_of(const char *func)
{
    static const char *const kinds[] = { ".constprop.", ".isra.", ".part.", ".cold", ".lto_priv." };
    const char *dot = strchr(func, '.');
    unsigned k;
    for (k = 0; dot && k < sizeof kinds / sizeof *kinds; k++)
        if (!strncmp(dot, kinds[k], strlen(kinds[k])))
            return (size_t)(dot - func);
    return strlen(func);
}

/* MTRACE_ALLOC_FN="f g": is `func` one of the functions named there (or
   the C++ library's)?  They are wrappers: a report charges the first
   frame outside them. */
static int mtrace_is_alloc_fn(const char *func)
{
    const char *list = mt.alloc_fns, *p;
    size_t n = mtrace_clone_of(func);
    if (mtrace_is_cxx_library_fn(func))
        return 1;
    if (!list || !n)
        return 0;
    for (p = list; *p; p += strcspn(p, ", ")) {
        p += strspn(p, ", ");
        if (strncmp(p, func, n) == 0 && (p[n] == 0 || p[n] == ',' || p[n] == ' '))
            return 1;
    }
    return 0;
}

/* Where a report charges stack s: 0 for its site, k for its frame k - 1
   (the site and the first k - 1 callers are MTRACE_ALLOC_FN's, or the C++
   library's), as long as that frame has a function's name (a file and
   line need -g); that frame's function and "file:line" in *func and
   *where (0 for the site).  A frame whose code is the C++ library's,
   inlined, is charged to the function it was inlined into
   (outer_func), when that one is not a wrapper; so is the site's own,
   when its file and line are the library's (a site named by its return
   address: names.c). */
static unsigned mtrace_charged(const struct mtrace_sitestat *s, const char **func, const char **where)
{
    unsigned k = 0;
    const struct mtrace_sym *y;
    *func = *where = 0;
    if (!s->parent || !mtrace_is_alloc_fn(s->func))
        return 0;
    while (k < s->nframes && (y = mtrace_sym_of(s->frames[k])) && y->func[0]) {
        k++;
        if (!mtrace_is_alloc_fn(y->func) || (y->outer_func[0] && !mtrace_is_alloc_fn(y->outer_func))) {
            *func = mtrace_is_alloc_fn(y->func) ? y->outer_func : y->func;
            *where = mtrace_is_alloc_fn(y->func) ? y->outer_where : y->where;     /* ("": unknown) */
            return k;
        }
    }
    return 0;
}

/* Names for the frames of the stacks order[0..nstacks). */
static void mtrace_name_stacks(const unsigned *order, unsigned nstacks)
{
    uintptr_t *a = (uintptr_t *)mtrace_pages(MTRACE_MAXSYMS * sizeof *a);
    unsigned i, j, n = 0;
    if (!a)
        return;
    for (i = 0; i < nstacks; i++)
        for (j = 0; j < mt.sites[order[i]].nframes && n < MTRACE_MAXSYMS; j++)
            a[n++] = mt.sites[order[i]].frames[j];
    mtrace_symbolize(a, n);
    mtrace_unpages(a, MTRACE_MAXSYMS * sizeof *a);
}

/* The callers a record shows under stack s charged at frame top: up to
   main (mtrace_put_chain's rule), none when the place charged is in main
   (its callers are the C library's start-up, as Massif's trees say):
   `charged` names it (mtrace_charged's *func, for top > 0). */
static unsigned mtrace_shown_to(const struct mtrace_sitestat *s, unsigned top, const char *charged)
{
    unsigned i;
    if (!strcmp(top ? charged : s->func, "main"))
        return top;
    for (i = top; i < s->nframes && i < top + MTRACE_NOTE_FRAMES; i++)
        if (mtrace_in_main(s->frames[i]))
            return i + 1;
    return i;
}

/* Record the bytes and blocks of s (a site or a stack) that are lost or,
   with `reachable`, still reachable. */
static void mtrace_add_leak(const struct mtrace_sitestat *s, size_t bytes, size_t blocks, int reachable)
{
    struct mtrace_leak *r = &mtrace_leaks.rec[mtrace_leaks.n++];
    const char *func, *where;
    unsigned top = mtrace_charged(s, &func, &where);
    r->func = top ? func : s->func;
    r->file = top ? (where[0] ? where : "<unknown>:0") : s->file;
    r->line = top ? -1 : s->line;
    r->frames = s->frames;
    r->from = top;
    r->to = s->nframes ? mtrace_shown_to(s, top, func) : top;
    r->bytes = bytes;
    r->blocks = blocks;
    r->reachable = reachable;
}

/* Two callers compared as their notes read (mtrace_put_caller): two
   calls on one line have two return addresses and one note. */
static int mtrace_by_caller_note(uintptr_t a, uintptr_t b)
{
    char x[MTRACE_NAMEMAX + 512], y[MTRACE_NAMEMAX + 512];
    if (a == b)
        return 0;
    mtrace_put_caller(x, x + sizeof x, a);      /* (snprintf: terminated, maybe cut) */
    mtrace_put_caller(y, y + sizeof y, b);
    return strcmp(x, y);
}

/* Do two records read the same (kind, place, callers shown)? */
static int mtrace_by_reading(const void *a, const void *b)
{
    const struct mtrace_leak *x = (const struct mtrace_leak *)a, *y = (const struct mtrace_leak *)b;
    unsigned i, nx = x->to - x->from, ny = y->to - y->from;
    int c;
    if (x->reachable != y->reachable)
        return x->reachable - y->reachable;
    if ((c = strcmp(x->file, y->file)) || (c = (x->line > y->line) - (x->line < y->line)) || (c = strcmp(x->func, y->func)))
        return c;
    if (nx != ny)
        return nx < ny ? -1 : 1;
    for (i = 0; i < nx; i++)
        if ((c = mtrace_by_caller_note(x->frames[x->from + i], y->frames[y->from + i])))
            return c;
    return 0;
}

/* Errors first, then notes; each largest first (bytes, then blocks),
   ties by place. */
static int mtrace_by_size(const void *a, const void *b)
{
    const struct mtrace_leak *x = (const struct mtrace_leak *)a, *y = (const struct mtrace_leak *)b;
    if (x->reachable != y->reachable)
        return x->reachable - y->reachable;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->blocks != y->blocks)
        return x->blocks < y->blocks ? 1 : -1;
    return mtrace_by_reading(a, b);
}

/* One record for each reading: sorted by reading, equal ones summed. */
static void mtrace_merge_leaks(void)
{
    struct mtrace_leak *r = mtrace_leaks.rec;
    unsigned i, j;
    qsort(r, mtrace_leaks.n, sizeof *r, mtrace_by_reading);
    for (i = j = 0; i < mtrace_leaks.n; i++)
        if (j && !mtrace_by_reading(&r[j - 1], &r[i])) {
            r[j - 1].bytes += r[i].bytes;
            r[j - 1].blocks += r[i].blocks;
        } else
            r[j++] = r[i];
    mtrace_leaks.n = j;
    qsort(r, j, sizeof *r, mtrace_by_size);
    for (mtrace_leaks.nerr = 0; mtrace_leaks.nerr < j && !r[mtrace_leaks.nerr].reachable; mtrace_leaks.nerr++)
        ;
}

static int mtrace_by_live(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->live != y->live)
        return x->live < y->live ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The leak records of the sites or stacks still live at exit, and the
   totals: mt.leaked, suppressed, reachable and their blocks, and each
   suppression's share.  Once; the report's order is set here. */
static void mtrace_find_leaks(void)
{
    unsigned i, nlive, *order;
    if (mtrace_leaks.rec)
        return;
    if (mt.reachable_mode)
        mtrace_find_reachable();
    order = mtrace_sorted(mtrace_by_live, mt.depth > 0);    /* by stack, with stacks */
    for (nlive = 0; order && nlive < mt.nsorted && mt.sites[order[nlive]].live; nlive++)
        ;
    mtrace_leaks.room = 2 * (size_t)nlive * sizeof *mtrace_leaks.rec + 1;
    mtrace_leaks.rec = (struct mtrace_leak *)mtrace_pages(mtrace_leaks.room);
    if (mt.depth > 1 && nlive)  /* name the stacks that leak */
        mtrace_name_stacks(order, nlive);
    for (i = 0; mtrace_leaks.rec && i < nlive; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        struct mtrace_supp *sup = mtrace_suppression(s);
        if (sup) {              /* expected: counted, not an error */
            sup->bytes += s->live;
            sup->blocks += s->nlive;
            mt.suppressed += s->live;
            mt.suppressed_blocks += s->nlive;
            continue;
        }
        if (s->reach)
            mtrace_add_leak(s, s->reach, s->reach_blocks, 1);
        mt.reachable += s->reach;
        if (s->live == s->reach)
            continue;           /* (a site of 0-byte blocks only leaks nothing) */
        mtrace_add_leak(s, s->live - s->reach, s->nlive - s->reach_blocks, 0);
        mt.leaked += s->live - s->reach;
        mt.leaked_blocks += s->nlive - s->reach_blocks;
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    if (mtrace_leaks.rec)
        mtrace_merge_leaks();
    else if (nlive)
        mt.incomplete = 1;
}

MTRACE_COLD_FILE_END
