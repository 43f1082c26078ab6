/* SPDX-License-Identifier: MIT */
/* runtime/report.c - what the program is told: at exit and at a bad free.

   Owns: the double-free, invalid-free and mismatched-free errors, the
   exit summary (levels 1-2), the leak records' text (levels 1-3: leaks.c
   makes them) and the budget's error.
   May call: runtime/state.c, out.c, sites.c, stacks.c, callers.c, write.c, ring.c, trace.c,
   blocks.c, ci.c, reach.c, names.c, leaks.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

/* A place of a double-free report, copied under the lock: its site's
   first call's return address too, whose name says how the exit report
   will write the file (mtrace_place_path). */
struct mtrace_place { const char *file, *func; int line; uintptr_t ret, caller; char path[256]; };

/* The return address of entry `site` when it is a site of callers.c not
   yet named (named at exit: a bad free reports while the program runs);
   else 0. */
static uintptr_t mtrace_unnamed_caller(unsigned site)
{
    const struct mtrace_caller *t = mt.callers;
    unsigned i;
    if (site && mt.sites[site].parent)
        site = mt.sites[site].parent;
    if (!site || !t || mt.sites[site].renamed || mt.sites[site].line)
        return 0;
    for (i = 0; i < MTRACE_MAXCALLERS; i++)
        if (t[i].ready && t[i].site.index == site)
            return t[i].ret;
    return 0;
}

static void mtrace_get_place(struct mtrace_place *p, unsigned site)
{
    p->file = site ? mt.sites[site].file : "<unknown>";
    p->func = site ? mt.sites[site].func : "?";
    p->line = site ? mt.sites[site].line : 0;
    p->ret = site && p->file[0] != '/' ? mt.sites[site].ret : 0;
    p->caller = mtrace_unnamed_caller(site);
}

/* A place of an unnamed caller's site, named as the exit report will
   name it (mtrace_name_caller), once its address has a name. */
static void mtrace_place_caller(struct mtrace_place *p)
{
    const struct mtrace_sym *y = p->caller ? mtrace_sym_of(p->caller) : 0;
    const char *colon = y && y->func[0] ? strrchr(y->where, ':') : 0;
    if (!colon)
        return;
    snprintf(p->path, sizeof p->path, "%.*s", (int)(colon - y->where), y->where);
    p->file = p->path;
    p->func = y->func;
    p->line = atoi(colon + 1);
    p->ret = 0;
}

/* The place's file written as every path of a report is (names.c,
   mtrace_place_sites), once its return address has a name: the program
   may go on after a bad free (MTRACE_DOUBLE_FREE=continue), and its
   exit report would write the same place another way. */
static void mtrace_place_path(struct mtrace_place *p)
{
    const char *named = p->file[0] == '/' ? mtrace_relative(p->file)
                        : mtrace_path_of(p->file, p->ret, p->path, sizeof p->path);
    if (named && named != p->path) {     /* (it may lie in p->path: moved) */
        size_t n = strnlen(named, sizeof p->path - 1);
        memmove(p->path, named, n);
        p->path[n] = 0;
    }
    if (named)
        p->file = p->path;
}

static char *mtrace_put_place(char *o, char *end, const struct mtrace_place *p, const char *kind, const char *what)
{
    if (!p->line && !strcmp(kind, "note"))      /* no place known */
        o += snprintf(o, (size_t)(end - o), "%s:0: note: %s\n", p->file, what);
    else
        o += snprintf(o, (size_t)(end - o), "%.*s:%d: %s: %s (in %.*s)\n", MTRACE_NAMEMAX, p->file, p->line,
                  kind, what, MTRACE_NAMEMAX, p->func);
    return o < end ? o : end;
}

/* The frames of entry `site` (a stack's callers; none for a site) into c. */
static void mtrace_get_frames(struct mtrace_chain *c, unsigned site)
{
    const struct mtrace_sitestat *s = &mt.sites[site];
    c->n = site && s->parent ? s->nframes : 0;
    if (c->n)                   /* (a site without a stack has no frames: NULL) */
        memcpy(c->ret, s->frames, c->n * sizeof *c->ret);
}

/* A place of a bad-free report and the callers under it, as a leak record
   shows them (mtrace_put_chain): none under a place in main, whose
   callers are the C library's start-up. */
static char *mtrace_put_bad_place(char *o, char *end, const struct mtrace_place *p, const char *kind,
                                  const char *what, const struct mtrace_chain *c)
{
    o = mtrace_put_place(o, end, p, kind, what);
    return strcmp(p->func, "main") ? mtrace_put_chain(o, end, c->ret, 0, c->n) : o;
}

/* A bad call at `by` (lock held; released here): the error `what`, then
   for a block (`alloc`, its entry; 0 for none) where it was allocated and
   (`freed`, 0 for none) where it was freed (`freed_note`); with stacks,
   the callers of each: the bad call's (`bad`, or walked from its entry
   point's `frame`), the allocation's and the free's (their entries'
   stacks).  `by` 0: no call made it (the heap check at exit): the error
   stands at the allocation's place, as a leak record does.  Counted in
   *count.  Aborts when `stop` says so. */
static void mtrace_bad_report(struct mtrace_site *by, const char *what, unsigned alloc, unsigned freed,
                              const char *freed_note, const struct mtrace_chain *bad, const uintptr_t *frame,
                              size_t *count, int stop)
{
    char msg[3 * MTRACE_NAMEMAX + 3 * MTRACE_NOTE_FRAMES * 512], *o = msg, *end = msg + sizeof msg - 1;
    struct mtrace_place place[3];
    struct mtrace_chain chain[3];
    uintptr_t addrs[3 * MTRACE_MAXDEPTH + 6];
    unsigned i, n = 0;
    mtrace_get_place(&place[0], by ? mtrace_site_index(by) : alloc);
    mtrace_get_place(&place[1], alloc);
    mtrace_get_place(&place[2], freed);
    mtrace_get_frames(&chain[1], alloc);
    mtrace_get_frames(&chain[2], freed);
    (*count)++;
    mtrace_ring_drain();
    mtrace_unlock();
    if (!by)
        chain[0] = chain[1];
    else if (bad)
        chain[0] = *bad;
    else if (frame && mt.depth > 1)
        mtrace_walk(&chain[0], frame, by, msg);
    else
        chain[0].n = 0;
    for (i = 0; i < 3; i++) {
        memcpy(addrs + n, chain[i].ret, chain[i].n * sizeof *addrs);
        n += chain[i].n;
        if (place[i].ret && mtrace_segs_on() && mtrace_seg_of(place[i].ret) >= 0)
            addrs[n++] = place[i].ret;      /* (its module known: addr2line can be asked) */
        if (place[i].caller)
            addrs[n++] = place[i].caller;   /* (callers.c learnt its module) */
    }
    if (n)
        mtrace_symbolize(addrs, n);
    for (i = 0; i < 3; i++) {
        mtrace_place_path(&place[i]);
        mtrace_place_caller(&place[i]);
    }
    o = mtrace_put_bad_place(o, end, &place[0], "error", what, &chain[0]);
    if (alloc && by)
        o = mtrace_put_bad_place(o, end, &place[1], "note", "the block was allocated here", &chain[1]);
    if (freed)
        o = mtrace_put_bad_place(o, end, &place[2], "note", freed_note, &chain[2]);
    mtrace_write_all(2, msg, (size_t)(o - msg));
    mtrace_pending.call = 0;            /* the abort is ours: no "died in" note */
    if (stop)
        abort();
}

/* A bad free or realloc at `by` (lock held; released here): see
   mtrace_bad_report.  Aborts, unless told to continue
   (MTRACE_DOUBLE_FREE). */
static void mtrace_bad_call(struct mtrace_site *by, const char *what, unsigned alloc, unsigned freed,
                            const struct mtrace_chain *bad, const uintptr_t *frame, size_t *count)
{
    mtrace_bad_report(by, what, alloc, freed, "and first freed here", bad, frame, count, !mt.keep_going);
}

/* A second free (or realloc) of traced block b, a tombstone (lock held;
   released here). */
static void mtrace_double_free(struct mtrace_block *b, struct mtrace_site *by, const char *what,
                               const struct mtrace_chain *bad, const uintptr_t *frame)
{
    mtrace_bad_call(by, what, mtrace_b_site(b), mtrace_b_freed_by(b), bad, frame, &mt.double_frees);
}

/* The names of the families of calls that make and free blocks
   (MTRACE_BY_MALLOC ...): what frees a block of each, what made it; and
   realloc, of malloc's family, named as itself (MTRACE_REALLOC_CALL). */
#define MTRACE_REALLOC_CALL 3
static const char *const mtrace_freeing_call[] = { "free", "delete", "delete[]", "realloc" };
static const char *const mtrace_making_call[] = { "malloc", "new", "new[]" };

/* A live block of family `made`, entry `alloc`, freed at `by` by a call of
   another family, `freeing` (lock held; released here): the error and
   where the block was allocated, as a double free's (Memcheck's
   "Mismatched free() / delete / delete []").  Aborts, unless told to
   continue (MTRACE_DOUBLE_FREE): then the block is freed all the same. */
static void mtrace_mismatch(unsigned alloc, int made, int freeing, struct mtrace_site *by,
                            const struct mtrace_chain *bad)
{
    char what[96];
    snprintf(what, sizeof what, "mismatched free: %s of a block allocated by %s", mtrace_freeing_call[freeing & 3],
             mtrace_making_call[made & 3]);
    mtrace_bad_report(by, what, alloc, 0, 0, bad, 0, &mt.mismatched_frees, !mt.keep_going);
}

/* mtrace_modules' callback: is the address in a loaded module's image? */
static int mtrace_in_image(const struct mtrace_module *m, void *arg)
{
    uintptr_t a = *(const uintptr_t *)arg;
    unsigned i;
    for (i = 0; i < m->n; i++)
        if (a >= m->seg[i].lo && a < m->seg[i].hi)
            return 1;
    return 0;
}

/* Does a mapping start exactly at page-aligned address a (/proc/self/maps)?
   No block of the C library's does: its header lies before it. */
static int mtrace_mapping_starts(uintptr_t a)
{
    enum { MAX = 1 << 20 };
    char *maps = (char *)mtrace_pages(MAX), *line;
    int found = 0;
    if (maps && mtrace_read_file("/proc/self/maps", maps, MAX) > 0)
        for (line = maps; line && *line && !found; line = strchr(line, '\n'), line = line ? line + 1 : 0)
            found = (uintptr_t)strtoull(line, 0, 16) == a;
    mtrace_unpages(maps, MAX);
    return found;
}

/* A free or realloc (`call`) at `by` of address p, which the block table
   does not know: reported, and 1 (the call does nothing), when p cannot be
   a block of any allocator: on the stack, inside a traced block (when
   mtrace sees every free: the interposers), in a module's static data or
   code, not mapped, or at the start of a mapping (mmap's).  Else 0: it
   may come from code mtrace does not see, and goes to the C library. */
static int mtrace_invalid_free(struct mtrace_site *by, const char *call, const void *p,
                               const struct mtrace_chain *bad, const uintptr_t *frame)
{
    char what[256];
    uintptr_t a = (uintptr_t)p;
    struct mtrace_block *b;
    unsigned alloc = 0;
    int saved = errno, image, stack = mtrace_on_stack(p);   /* asked before the lock: */
    what[0] = 0;                        /* glibc reads /proc for the main thread's bounds */
    if (!mtrace_lock_traced())
        return 0;
    if (stack)
        snprintf(what, sizeof what, "invalid %s of an address on the stack", call);
    else if (mt.interposed && (b = mtrace_holder_any(&mt.heap, a))) {
        alloc = mtrace_b_site(b);
        snprintf(what, sizeof what, "invalid %s of an address %lu bytes into a %lu-byte block", call,
                 (unsigned long)(a - mtrace_b_addr(b)), (unsigned long)mtrace_b_size(b));
    } else {
        mtrace_unlock();        /* the loader's lock is taken outside ours */
        image = mtrace_modules(mtrace_in_image, &a);
        if (!mtrace_lock_traced())
            return 0;
        if (image)
            snprintf(what, sizeof what, "invalid %s of an address in static data", call);
        else if (mtrace_msync((void *)(a & ~(uintptr_t)4095), 1, MS_ASYNC) != 0 && errno == ENOMEM)
            snprintf(what, sizeof what, "invalid %s of an address that is not mapped", call);
        else if ((a & 4095) == 0 && mtrace_mapping_starts(a))
            snprintf(what, sizeof what, "invalid %s of an address from mmap, not from an allocator", call);
        errno = saved;
        if (!what[0]) {
            mtrace_unlock();
            return 0;
        }
    }
    mtrace_bad_call(by, what, alloc, 0, bad, frame, &mt.invalid_frees);
    return 1;
}

/* The number of threads of the process (/proc), 0 if unknown. */
static long mtrace_threads(void)
{
    char status[4096], *t;
    if (mtrace_read_file("/proc/self/status", status, sizeof status) <= 0)
        return 0;
    t = strstr(status, "\nThreads:");
    return t ? strtol(t + 9, 0, 10) : 0;
}

static int mtrace_by_at_peak(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    size_t u = x->seen == mt.peak_no ? x->at_peak : x->live, v = y->seen == mt.peak_no ? y->at_peak : y->live;
    if (u != v)
        return u < v ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The budget's error: the peak, its record, and the three sites that
   held most at that moment. */
static char *mtrace_put_budget(char *o, char *end, const char *who)
{
    unsigned i, *order = mtrace_sorted_sites(mtrace_by_at_peak);
    mt.over_budget = 1;
    o += snprintf(o, (size_t)(end - o), "%s*** MTRACE: error: peak traced memory %lu bytes exceeds the budget of %.40s"
                  " (at record %lu)\n", who, (unsigned long)mt.max, mt.budget_text, (unsigned long)mt.peak_recno);
    for (i = 0; order && i < mt.nsorted && i < 3 && o < end; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        size_t held = s->seen == mt.peak_no ? s->at_peak : s->live;
        if (held)
            o += snprintf(o, (size_t)(end - o), "%.*s:%d: note: %lu bytes held here at the peak (in %.*s)\n",
                          MTRACE_NAMEMAX, s->file, s->line, (unsigned long)held, MTRACE_NAMEMAX, s->func);
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    return o < end ? o : end;
}

/* A row of the summary with MTRACE_ALLOC_FN: a place charged past the
   wrappers (a site, or a caller's return address), and what its stacks
   held at the global peak. */
struct mtrace_charge { const char *func, *file; int line; size_t at_peak; };

/* Rows that read the same are one place (two calls on one line, two
   return addresses): ordered by what the row prints, to be merged. */
static int mtrace_by_charge_place(const void *a, const void *b)
{
    const struct mtrace_charge *x = (const struct mtrace_charge *)a, *y = (const struct mtrace_charge *)b;
    int d = strcmp(x->file, y->file);
    if (!d)
        d = x->line < y->line ? -1 : x->line > y->line;
    return d ? d : strcmp(x->func, y->func);
}

static int mtrace_by_charge_bytes(const void *a, const void *b)
{
    size_t x = ((const struct mtrace_charge *)a)->at_peak, y = ((const struct mtrace_charge *)b)->at_peak;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The summary's table with MTRACE_ALLOC_FN and stacks: bytes held at the
   peak, by the place each stack is charged to (mtrace_charged). */
static char *mtrace_put_charged(char *o, char *end, const char *who)
{
    unsigned i, j, *order = mtrace_sorted(mtrace_by_peak, 1);
    struct mtrace_charge *c = order ? (struct mtrace_charge *)mtrace_pages(mt.nsorted * sizeof *c + 1) : 0;
    if (c) {
        mtrace_name_stacks(order, mt.nsorted);
        for (i = 0; i < mt.nsorted; i++) {
            const struct mtrace_sitestat *s = &mt.sites[order[i]];
            const char *func, *where;
            unsigned top = mtrace_charged(s, &func, &where);
            c[i].func = top ? func : s->func;
            c[i].file = top ? (where[0] ? where : "<unknown>") : s->file;
            c[i].line = top ? -1 : s->line;
            c[i].at_peak = s->seen == mt.peak_no ? s->at_peak : s->live;
        }
        qsort(c, mt.nsorted, sizeof *c, mtrace_by_charge_place);
        for (i = j = 0; i < mt.nsorted; i++)        /* one row per place */
            if (j && !mtrace_by_charge_place(&c[j - 1], &c[i]))
                c[j - 1].at_peak += c[i].at_peak;
            else
                c[j++] = c[i];
        qsort(c, j, sizeof *c, mtrace_by_charge_bytes);
        o += snprintf(o, (size_t)(end - o), "%s   at peak                function   file (charged past %s)\n", who,
                      !mt.cxx ? "MTRACE_ALLOC_FN" : mt.alloc_fns ? "MTRACE_ALLOC_FN and the C++ library" : "the C++ library");
        for (i = 0; i < j && i < MTRACE_ROWS && o < end; i++)
            o += c[i].line >= 0
                ? snprintf(o, (size_t)(end - o), "%s%10lu    %20.*s   %.*s:%d\n", who, (unsigned long)c[i].at_peak,
                           MTRACE_NAMEMAX, c[i].func, MTRACE_NAMEMAX, c[i].file, c[i].line)
                : snprintf(o, (size_t)(end - o), "%s%10lu    %20.*s   %.*s\n", who, (unsigned long)c[i].at_peak,
                           MTRACE_NAMEMAX, c[i].func, MTRACE_NAMEMAX, c[i].file);
        if (j > MTRACE_ROWS && o < end)
            o += snprintf(o, (size_t)(end - o), "%s       ...   (%u more places)\n", who, j - MTRACE_ROWS);
    }
    mtrace_unpages(c, mt.nsorted * sizeof *c + 1);
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    return o < end ? o : end;
}

/* When more than MTRACE_TEMPORARY_PCT of the allocations, and at least
   MTRACE_TEMPORARY_MIN, were temporary (freed before any other
   allocation: a buffer that could live on the stack, or be kept), one
   line that says so and names the site with most of them. */
#define MTRACE_TEMPORARY_PCT 10
#define MTRACE_TEMPORARY_MIN 10
static char *mtrace_put_temporary(char *o, char *end, const char *who)
{
    size_t calls = mtrace_calls();
    unsigned i, top = 0;
    const struct mtrace_sitestat *s;
    if (mt.temporary < MTRACE_TEMPORARY_MIN || mt.temporary * 100 <= calls * MTRACE_TEMPORARY_PCT)
        return o;
    for (i = 1; i < mt.nsites; i++)     /* the site with most (the first of equals) */
        if (!mt.sites[i].parent && (!top || mt.sites[i].temporary > mt.sites[top].temporary))
            top = i;
    s = &mt.sites[top];
    o += snprintf(o, (size_t)(end - o), "%s*** MTRACE: %lu of %lu allocations (%.1f%%) were temporary (freed before any "
                  "other allocation), %lu of them at %.*s:%d (in %.*s)\n", who, (unsigned long)mt.temporary,
                  (unsigned long)calls, 100.0 * (double)mt.temporary / (double)calls, (unsigned long)s->temporary,
                  MTRACE_NAMEMAX, s->file, s->line, MTRACE_NAMEMAX, s->func);
    return o < end ? o : end;
}

/* How many of the sites order[0..n) print the same function, file and
   line as another of them: sites of calls named by return address, where
   the compiler copied one line (an inline function's, a template's) into
   several places.  Each keeps its own row, as Massif's tree keeps an
   entry per code address: a row's peak is exact for its copy, and the
   peaks of two copies do not add up to the line's (they need not come at
   the same time).  The leak records do merge them (leaks.c). */
static unsigned mtrace_same_named(const unsigned *order, unsigned n)
{
    unsigned i, j, same = 0;
    for (i = 0; i < n; i++) {
        const struct mtrace_sitestat *x = &mt.sites[order[i]];
        for (j = 0; j < n; j++) {
            const struct mtrace_sitestat *y = &mt.sites[order[j]];
            if (j != i && x->line == y->line && !strcmp(x->file, y->file) && !strcmp(x->func, y->func)) {
                same++;
                break;
            }
        }
    }
    return same;
}

/* Is there a program `name` in a directory of $PATH? */
static int mtrace_on_path(const char *name)
{
    const char *p = mtrace_getenv("PATH"), *e;
    char path[MTRACE_PATHMAX];
    for (; p && *p; p = *e ? e + 1 : e) {
        int n;
        e = p + strcspn(p, ":");
        n = (int)(e - p);
        if (snprintf(path, sizeof path, "%.*s/%s", n ? n : 1, n ? p : ".", name) < (int)sizeof path
            && access(path, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* The line that says how to see the trace: with gnuplot on PATH, its
   graph (mtrace2massif writes the Massif file beside the trace too, and
   the line says where); else the Massif file through ms_print.  Every
   name quoted for the shell; q: 4 buffers of `room` bytes. */
static char *mtrace_put_graph_hint(char *o, char *end, const char *who, char *q, size_t room)
{
    const char *base = strrchr(mt.path, '/') ? strrchr(mt.path, '/') + 1 : mt.path;
    char *dir = q + 3 * room;
    snprintf(dir, room, "%.*s", (int)(base - mt.path), mt.path);
    mtrace_shell_word(q, "", mt.path, "");
    mtrace_shell_word(q + room, dir, "massif.out.", base);
    if (mtrace_on_path("gnuplot")) {
        mtrace_shell_word(q + 2 * room, "--gnuplot=", mt.path, ".gp");
        mtrace_shell_word(dir, "", mt.path, ".gp");
        o += snprintf(o, (size_t)(end - o), "%s*** MTRACE: To get a graph (and %s for ms_print) use: "
                      "mtrace2massif %s %s && gnuplot -persist %s\n", who, q + room, q + 2 * room, q, dir);
    } else
        o += snprintf(o, (size_t)(end - o), "%s*** MTRACE: To see it over time (no gnuplot on PATH) use: "
                      "mtrace2massif %s && ms_print %s\n", who, q, q + room);
    mtrace_unpages(q, 4 * room);
    return o < end ? o : end;
}

/* One leak record: "file:line: error: N bytes in M blocks leaked here
   (in f)", or a "note: ... still reachable here (in f)", and its callers;
   `tag` says whose when there are several processes.  The function is
   named as the bad-free reports name it, at every depth. */
static char *mtrace_put_leak(char *o, char *end, const struct mtrace_leak *r, const char *tag)
{
    const char *what = r->reachable ? "note" : "error", *how = r->reachable ? "still reachable" : "leaked";
    const char *s = r->blocks == 1 ? "" : "s";
    if (r->line >= 0)
        o += snprintf(o, (size_t)(end - o), "%.*s:%d: %s: %lu bytes in %lu block%s %s here (in %.*s)%s\n",
                      MTRACE_NAMEMAX, r->file, r->line, what, (unsigned long)r->bytes, (unsigned long)r->blocks,
                      s, how, MTRACE_NAMEMAX, r->func, tag);
    else                        /* charged past the MTRACE_ALLOC_FN functions */
        o += snprintf(o, (size_t)(end - o), "%.*s: %s: %lu bytes in %lu block%s %s here (in %.*s)%s\n",
                      MTRACE_NAMEMAX, r->file, what, (unsigned long)r->bytes, (unsigned long)r->blocks, s, how,
                      MTRACE_NAMEMAX, r->func, tag);
    o = o < end ? o : end;
    return mtrace_put_chain(o, end, r->frames, r->from, r->to);
}

/* Summary (levels 1-2) and leak errors (levels 1-3) on stderr, written
   in one go so that several processes do not interleave mid-line.  When
   there are several processes (MPI ranks, fork) each line says whose it
   is: a prefix on summary lines, a suffix on the leak errors, which keep
   the "file:line: error:" form that editors and CI read. */

static int mtrace_report(void)
{
    enum { QUOTED = 4 * MTRACE_PATHMAX + 64 };
    char *q;
    long threads;
    size_t forgotten;
    size_t cap = 8192 + (size_t)MTRACE_ROWS * (2 * MTRACE_NAMEMAX + 64), leaks = 0;
    char *out = (char *)mtrace_pages(cap), *o, *end;
    char who[64] = "", tag[64] = "";
    unsigned i, kind, *order;
    if (!out)
        return 0;
    o = out;
    end = out + cap - 1;
    if (mt.rank >= 0) {
        snprintf(who, sizeof who, "[rank %ld] ", mt.rank);
        snprintf(tag, sizeof tag, " (rank %ld)", mt.rank);
    } else if (mt.child || mt.forked) {
        snprintf(who, sizeof who, "[pid %d] ", mt.pid);
        snprintf(tag, sizeof tag, " (pid %d)", mt.pid);
    }
/* Room for `need` more bytes: what is there is written out first if they
   might not fit (thousands of leaks or of stale suppressions), so that a
   line is never cut; a short report still goes out in one write. */
#define MTRACE_ROOM(need) (o = o + (need) < end ? o : ((void)mtrace_write_all(2, out, (size_t)(o - out)), out))
#define MTRACE_LINE (2 * MTRACE_NAMEMAX + 4096)    /* the longest line, with a chain of callers */
#define MTRACE_OUT(...) (MTRACE_ROOM(MTRACE_LINE), o += snprintf(o, (size_t)(end - o), __VA_ARGS__), o = o < end ? o : end)
    if (mt.level <= 2) {
        MTRACE_OUT("%s*** MTRACE: max resident  set size: %10lu bytes\n", who, (unsigned long)mt.maxrss);
        MTRACE_OUT("%s*** MTRACE: max traced memory size: %10lu bytes (tracing overhead %.1f%%)\n",
               who, (unsigned long)mt.max,
               mt.max ? 100.0 * (double)mt.maxoverhead / (double)mt.max : 0.0);
        order = mt.depth > 1 && (mt.alloc_fns || mt.cxx) ? 0 : mtrace_sorted_sites(mtrace_by_peak);
        if (!order && mt.depth > 1)
            o = mtrace_put_charged(o, end, who);
        if (order && mt.nsorted) {
            MTRACE_OUT("%s max bytes    blocks                function   file\n", who);
            for (i = 0; i < mt.nsorted && i < MTRACE_ROWS; i++) {
                struct mtrace_sitestat *s = &mt.sites[order[i]];
                MTRACE_OUT("%s%10lu%10lu    %20.*s   %.*s:%d\n", who, (unsigned long)s->peak, (unsigned long)s->peak_blocks,
                       MTRACE_NAMEMAX, s->func, MTRACE_NAMEMAX, s->file, s->line);
            }
            if (mt.nsorted > MTRACE_ROWS)
                MTRACE_OUT("%s       ...   (%u more sites)\n", who, mt.nsorted - MTRACE_ROWS);
            if ((i = mtrace_same_named(order, mt.nsorted < MTRACE_ROWS ? mt.nsorted : MTRACE_ROWS)))
                MTRACE_OUT("%s*** MTRACE: note: %u rows above name the same line as another row: copies of it "
                           "the compiler made (inlined, unrolled), each row exact for its copy\n", who, i);
        }
        mtrace_unpages(order, mt.maxsites * sizeof *order);
        o = mtrace_put_temporary(MTRACE_ROOM(MTRACE_LINE), end, who);
        if (mt.incomplete)
            MTRACE_OUT("%s*** MTRACE: the tracer could not record every block (said when it happened): "
                       "figures are incomplete\n", who);
        if (mt.trace_written && (q = (char *)mtrace_pages(QUOTED * 4)))
            o = mtrace_put_graph_hint(MTRACE_ROOM(MTRACE_LINE + 4 * QUOTED), end, who, q, QUOTED);
    }
    mtrace_find_leaks();
    leaks = mtrace_leaks.rec ? mtrace_leaks.nerr : 1;  /* (no room: cannot say there are none) */
    for (kind = 0; kind < 2; kind++) {     /* the errors, then the notes */
        const struct mtrace_leak *r = mtrace_leaks.rec + (kind ? mtrace_leaks.nerr : 0);
        unsigned n = kind ? mtrace_leaks.n - mtrace_leaks.nerr : mtrace_leaks.nerr;
        size_t rows = mt.leak_rows != MTRACE_LEAK_ROWS ? mt.leak_rows : mt.depth > 1 ? 10 : 30;
        unsigned shown = rows && n > rows ? (unsigned)rows : n;
        size_t bytes = 0, blocks = 0, rest = 0, rest_blocks = 0;
        for (i = 0; i < n; i++) {
            bytes += r[i].bytes;
            blocks += r[i].blocks;
            if (i >= shown) {
                rest += r[i].bytes;
                rest_blocks += r[i].blocks;
                continue;
            }
            MTRACE_ROOM(MTRACE_LINE);
            o = mtrace_put_leak(o, end, &r[i], tag);
        }
        if (shown < n)
            MTRACE_OUT("%s*** MTRACE: and %u more %s records (%lu bytes in %lu blocks): %s\n", who, n - shown,
                       kind ? "reachable" : "leak", (unsigned long)rest, (unsigned long)rest_blocks,
                       mtrace_getenv("MTRACE_REPORT") ? "the JSON report (MTRACE_REPORT) has them all"
                       : "MTRACE_REPORT=FILE lists them all, MTRACE_LEAK_RECORDS=0 prints them all");
        if (n > 1)
            MTRACE_OUT("%s*** MTRACE: %lu bytes in %lu blocks %s, in %u records\n", who, (unsigned long)bytes,
                       (unsigned long)blocks, kind ? "still reachable" : "leaked", n);
    }
    if (mt.suppressed)
        MTRACE_OUT("%s*** MTRACE: %lu bytes in %lu blocks suppressed\n", who,
                   (unsigned long)mt.suppressed, (unsigned long)mt.suppressed_blocks);
    for (i = 0; i < mt.nsupp; i++)
        if (!mt.supp[i].blocks)
            MTRACE_OUT("%.300s:%u: warning: suppression matched no leak%s\n", mt.supp_file, mt.supp[i].at, tag);
    if (mt.budget && mt.max > mt.budget)
        o = mtrace_put_budget(MTRACE_ROOM(4 * MTRACE_LINE), end, who);
    if (leaks && !mt.reachable_mode && (threads = mtrace_threads()) > 1)
        MTRACE_OUT("%s*** MTRACE: note: %ld other thread%s still running at exit: "
                   "the blocks they held count as leaks\n", who, threads - 1, threads > 2 ? "s were" : " was");
    else if (mt.reachable && (threads = mtrace_threads()) > 1)     /* reachable mode */
        MTRACE_OUT("%s*** MTRACE: note: %ld other thread%s still running at exit: what only %s held counts as "
                   "still reachable, and the scan of %s stack%s may over-count\n", who, threads - 1,
                   threads > 2 ? "s were" : " was", threads > 2 ? "they" : "it", threads > 2 ? "their" : "its",
                   threads > 2 ? "s" : "");
    if (mt.passed && mt.level <= 2)
        MTRACE_OUT("%s*** MTRACE: %lu calls made by signal handlers inside the tracer were not traced\n",
                   who, (unsigned long)mt.passed);
    if ((forgotten = mt.heap.forgotten + mt.pool.forgotten) && mt.level <= 2)
        MTRACE_OUT("%s*** MTRACE: %lu freed blocks forgotten (MTRACE_FREED_MAX=%lu): "
                   "a double free of one of them would have gone unseen\n", who, (unsigned long)forgotten, (unsigned long)mt.freed_max);
    if (mt.invalid_frees)
        MTRACE_OUT("%s*** MTRACE: %lu invalid free%s ignored\n", who,
               (unsigned long)mt.invalid_frees, mt.invalid_frees > 1 ? "s" : "");
    if (mt.heap_errors)
        MTRACE_OUT("%s*** MTRACE: %lu damaged block%s reported (MTRACE_CHECK=heap)\n", who,
                   (unsigned long)mt.heap_errors, mt.heap_errors > 1 ? "s" : "");
    if (mt.mismatched_frees)
        MTRACE_OUT("%s*** MTRACE: %lu mismatched free%s\n", who,
                   (unsigned long)mt.mismatched_frees, mt.mismatched_frees > 1 ? "s" : "");
    if (mt.double_frees)
        MTRACE_OUT("%s*** MTRACE: %lu double free%s ignored\n", who,
               (unsigned long)mt.double_frees, mt.double_frees > 1 ? "s" : "");
    else if (!leaks && !mt.invalid_frees && mt.level <= 2)
        MTRACE_OUT("%s*** MTRACE: No memory leaks\n", who);
#undef MTRACE_OUT
#undef MTRACE_LINE
#undef MTRACE_ROOM
    mtrace_write_all(2, out, (size_t)(o - out));
    mtrace_unpages(out, cap);
    if (mt.heap_errors)         /* damaged blocks (MTRACE_CHECK=heap) */
        return 1;
    if (mt.mismatched_frees)    /* blocks freed by another family's call (runtime/cxx.c) */
        return 1;
    return leaks || mt.double_frees || mt.invalid_frees || mt.over_budget;
}

MTRACE_COLD_FILE_END
