/* SPDX-License-Identifier: MIT */
/* diff_trace.c - a trace (doc/trace-format.md) into a run.  The records
 * are read and checked by mtrace2massif's own parser (trace/parse.c, with
 * trace/stack.c for the call stacks' records), one pass; this file is the
 * heap model the parser drives in mtrace-diff, in place of m2m_heap.c's
 * Massif accounting: per site the live bytes (and the peak of them), the
 * allocation calls ('+' and '>' records) and the bytes they asked for;
 * globally the live bytes and their peak.  What is live after the last
 * record is what leaked (a trace knows no suppression).  The sites' full
 * names (the parser keeps "func (file:line)" labels without the file's
 * directory) are then read from the '@' and '#site' records, in a second
 * read of the file that only looks at those lines.
 * With --html (r->pg set) it also keeps the page's figures: the heap over
 * time in at most PAGE_BUCKETS buckets, and each context's live bytes at
 * the peak (its first moment), in O(1) an event: a context's live bytes
 * are saved the first time it changes after the peak last rose, so what
 * it held then is its saved value if it changed since, else its live
 * bytes at the end; then, for a trace with call stacks, the frames
 * labelled and made into Massif's tree (make_contexts), whose paths the
 * page draws.
 * Gives the parser its heap model (trace.h's struct model: ev_alloc,
 * ev_free, ev_realloc, flush_pending, ctx_live), in place of m2m_heap.c's.
 * Calls: trace/parse.c (run_pass, free_parsed), trace/stack.c
 * (make_contexts), diff_run.c (run_add), tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../trace/trace.h"
#include "diff.h"

/* The parser's conversion, and what this model counts beyond struct site:
 * calls and bytes asked for, per site (index = ID - 1). */
struct dconv {
    struct conv c;              /* first: the parser's c is a struct dconv */
    uint64_t *calls, *asked;
    size_t cap;
    /* --html: the page's figures (NULL: none), and per context its live
     * bytes when it first changed in the current epoch + 1 (0: never);
     * the epoch counts the rises of the peak */
    struct dpage *pg;
    struct saved { uint64_t v, epoch; } *sv_site, *sv_st;
    size_t cap_sv_site, cap_sv_st;
    uint64_t epoch;
};

/* --html: a context (id, sid) is about to change: what it held since the
 * peak last rose, saved the first time. */
static void remember(struct dconv *d, uint64_t id, uint64_t sid)
{
    struct conv *c = &d->c;
    struct saved *sv;
    if (!d->pg)
        return;
    if (sid) {
        if (d->cap_sv_st < c->s.cap) {
            d->sv_st = tool_realloc(&c->e, d->sv_st, c->s.cap * sizeof *d->sv_st);
            memset(d->sv_st + d->cap_sv_st, 0, (c->s.cap - d->cap_sv_st) * sizeof *d->sv_st);
            d->cap_sv_st = c->s.cap;
        }
        sv = &d->sv_st[sid - 1];
    } else {
        if (d->cap_sv_site < c->cap_sites) {
            d->sv_site = tool_realloc(&c->e, d->sv_site, c->cap_sites * sizeof *d->sv_site);
            memset(d->sv_site + d->cap_sv_site, 0,
                   (c->cap_sites - d->cap_sv_site) * sizeof *d->sv_site);
            d->cap_sv_site = c->cap_sites;
        }
        sv = &d->sv_site[id - 1];
    }
    if (sv->epoch != d->epoch + 1) {
        sv->v = sid ? c->s.st[sid - 1].live : c->sites[id - 1].live0;
        sv->epoch = d->epoch + 1;
    }
}

/* Merge the buckets two by two: twice as many records each. */
static void halve(struct dpage *pg)
{
    size_t k = 0;
    pg->width *= 2;
    for (size_t i = 0; i < pg->nb; i++) {
        struct dbucket b = pg->b[i];
        b.key /= 2;
        if (k && pg->b[k - 1].key == b.key) {
            struct dbucket *a = &pg->b[k - 1];
            if (b.hi > a->hi)
                a->hi = b.hi, a->hi_rec = b.hi_rec, a->hi_tb = b.hi_tb;
            if (b.lo < a->lo)
                a->lo = b.lo;
            a->rec_end = b.rec_end, a->tb_end = b.tb_end;
        } else {
            pg->b[k++] = b;
        }
    }
    pg->nb = k;
}

/* --html: after an event of record 'rec' that moved the heap from 'before':
 * the time (records, and bytes allocated and freed: the heap's change, as
 * Massif's B counts it without its extra bytes), its bucket, the peak. */
static void step(struct dconv *d, uint64_t rec, uint64_t before)
{
    struct dpage *pg = d->pg;
    uint64_t heap = d->c.p.heap;
    if (!pg)
        return;
    pg->tb += heap > before ? heap - before : before - heap;
    while (pg->nb == PAGE_BUCKETS && rec / pg->width != pg->b[pg->nb - 1].key)
        halve(pg);
    if (!pg->nb || rec / pg->width != pg->b[pg->nb - 1].key)
        pg->b[pg->nb++] = (struct dbucket){ .key = rec / pg->width, .hi = heap, .hi_rec = rec,
                                            .hi_tb = pg->tb, .lo = heap };
    struct dbucket *b = &pg->b[pg->nb - 1];
    if (heap > b->hi)
        b->hi = heap, b->hi_rec = rec, b->hi_tb = pg->tb;
    if (heap < b->lo)
        b->lo = heap;
    b->rec_end = rec + 1;
    b->tb_end = pg->tb;
    if (heap > pg->peak)
        pg->peak = heap, pg->peak_rec = rec, pg->peak_tb = pg->tb;
    pg->end_rec = rec + 1;
    pg->end_tb = pg->tb;
    pg->end_heap = heap;
}

static uint64_t add_chk(struct conv *c, uint64_t a, uint64_t b)
{
    if (b > UINT64_MAX - a)
        tool_fail(&c->e, "byte counts overflow (sizes far beyond any real heap)");
    return a + b;
}

static void ctx_live(const struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks)
{
    if (sid) {
        *live = c->s.st[sid - 1].live;
        *blocks = c->s.st[sid - 1].blocks;
    } else {
        *live = c->sites[id - 1].live0;
        *blocks = c->sites[id - 1].blocks0;
    }
}

/* A block of 'size' bytes now lives in (id, sid), asked for by a call. */
static void add(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    struct dconv *d = (struct dconv *)c;
    if (d->cap < c->nsites) {
        size_t n = c->cap_sites;
        d->calls = tool_realloc(&c->e, d->calls, n * sizeof *d->calls);
        d->asked = tool_realloc(&c->e, d->asked, n * sizeof *d->asked);
        memset(d->calls + d->cap, 0, (n - d->cap) * sizeof *d->calls);
        memset(d->asked + d->cap, 0, (n - d->cap) * sizeof *d->asked);
        d->cap = n;
    }
    remember(d, id, sid);
    d->calls[id - 1]++;
    d->asked[id - 1] = add_chk(c, d->asked[id - 1], size);
    ctx_count(c, id, sid, size, 1);
    c->p.heap += size;
    if (c->p.heap > c->p.max_heap) {
        c->p.max_heap = c->p.heap;
        d->epoch++;
    }
}

/* A block of 'size' bytes of (id, sid) is gone (the parser checked that
 * it was there). */
static void sub(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    remember((struct dconv *)c, id, sid);
    ctx_count(c, id, sid, size, -1);
    c->p.heap -= size;
}

static void ev_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    uint64_t before = c->p.heap;
    add(c, id, sid, size);
    step((struct dconv *)c, rec, before);
}

static void ev_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    uint64_t before = c->p.heap;
    sub(c, id, sid, size);
    step((struct dconv *)c, rec, before);
}

static void ev_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                uint64_t new_id, uint64_t new_sid, uint64_t new_size, uint64_t rec)
{
    uint64_t before = c->p.heap;
    sub(c, old_id, old_sid, old_size);
    add(c, new_id, new_sid, new_size);
    step((struct dconv *)c, rec, before);
}

/* A '<' not followed by its '>' was a free (glibc's realloc(p, 0)). */
static void flush_pending(struct conv *c)
{
    if (c->p.pend) {
        c->p.pend = 0;
        ev_free(c, c->p.pend_site, c->p.pend_sid, c->p.pend_size, c->p.pend_rec);
    }
}

/* The parser's model (trace.h): these counts, in place of Massif's. */
static const struct model diff_model = { ev_alloc, ev_free, ev_realloc, flush_pending, ctx_live };

/* The one warning for a trace without its tail or with its last line
 * cut, as mtrace2massif gives it. */
static void warn_truncated(struct conv *c)
{
    int no_tail = c->p.tail_n == 0, cut = c->p.truncated_line;
    if (no_tail || cut)
        fprintf(stderr, "mtrace-diff: %s:%" PRIu64 ": warning: trace is truncated (%s); "
                "comparing the %" PRIu64 " complete records\n", c->e.file,
                c->e.line + (uint64_t)cut, cut ? "last line cut short" : "no gnuplot tail",
                c->p.nrec);
}

/* "ID FUNC FILE LINE" of a checked '@' or '#site' record at p (its line
 * ends at end) into site ID of r: the names decoded. */
static void name_site(struct tool_err *e, struct run *r, size_t base, char *p, char *end)
{
    char *tok[4], *q = p;
    for (int k = 0; k < 4; k++) {
        tok[k] = q;
        q = k < 3 ? memchr(q, ' ', (size_t)(end - q)) : end;
        if (!q)
            tool_fail(e, "trace changed while being read");
        *q++ = 0;
    }
    uint64_t id = strtoull(tok[0], NULL, 10);
    if (id == 0 || id > r->n - base)
        tool_fail(e, "trace changed while being read");
    struct dsite *s = &r->s[base + id - 1];
    free(s->func);
    free(s->file);
    s->func = tool_realloc(e, NULL, strlen(tok[1]) + 1);
    s->file = tool_realloc(e, NULL, strlen(tok[2]) + 1);
    tool_decode(s->func, tok[1], tok[1] + strlen(tok[1]));
    tool_decode(s->file, tok[2], tok[2] + strlen(tok[2]));
    errno = 0;
    s->line = strtoull(tok[3], NULL, 10);
    if (errno)
        s->line = UINT64_MAX;   /* a LINE past 2^64: the parser took it */
}

/* The second read: the names of the sites r->s[base..] from the trace's
 * '@' and '#site' records (the parser has checked them). */
static void read_names(struct tool_err *e, int fd, struct run *r, size_t base)
{
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int copy = dup(fd);
    if (copy < 0 || lseek(copy, 0, SEEK_SET) != 0 || !(f = fdopen(copy, "r")))
        tool_fail(e, "cannot read the file again: %s", strerror(errno));
    e->line = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        e->line++;
        char *end = line + n - (line[n - 1] == '\n');
        if (!strncmp(line, "@ ", 2))
            name_site(e, r, base, line + 2, end);
        else if (!strncmp(line, "#site ", 6))
            name_site(e, r, base, line + 6, end);
    }
    free(line);
    fclose(f);
}

/* The model's figures into r: one site per '@' record that allocated. */
static void figures(struct dconv *d, struct run *r)
{
    struct conv *c = &d->c;
    r->peak = c->p.max_heap;
    r->leaked = c->p.heap;
    for (size_t i = 0; i < c->nsites; i++) {
        struct dsite *s = run_add(&c->e, r);
        s->v[F_PEAK] = c->sites[i].peak;
        s->v[F_CALLS] = i < d->cap ? d->calls[i] : 0;
        s->v[F_TOTAL] = i < d->cap ? d->asked[i] : 0;
        s->v[F_LEAKED] = c->sites[i].live;
        s->have = c->sites[i].seen ? (1u << NFIG) - 1 : 0;
    }
}

/* Drop the sites r->s[base..] that never allocated ('have' 0: an '@'
 * record of a trace cut before its first use). */
static void drop_unused(struct run *r, size_t base)
{
    size_t k = base;
    for (size_t i = base; i < r->n; i++) {
        if (r->s[i].have) {
            r->s[k++] = r->s[i];
            continue;
        }
        free(r->s[i].func);
        free(r->s[i].file);
    }
    r->n = k;
}

/* A copy of s into the page's labels; its index. */
static uint64_t add_label(struct tool_err *e, struct dpage *pg, char *s)
{
    if (pg->nlab == pg->cap_lab) {
        pg->cap_lab = pg->cap_lab ? 2 * pg->cap_lab : 64;
        pg->lab = tool_realloc(e, pg->lab, pg->cap_lab * sizeof *pg->lab);
    }
    pg->lab[pg->nlab] = s;
    return pg->nlab++;
}

static void add_u64(struct tool_err *e, struct dpage *pg, uint64_t v)
{
    if (pg->npath == pg->cap_path) {
        pg->cap_path = pg->cap_path ? 2 * pg->cap_path : 256;
        pg->path = tool_realloc(e, pg->path, pg->cap_path * sizeof *pg->path);
    }
    pg->path[pg->npath++] = v;
}

/* The bytes a context held at the peak. */
static uint64_t at_peak(const struct dconv *d, const struct saved *sv, size_t cap, size_t i,
                        uint64_t live)
{
    return i < cap && sv[i].epoch == d->epoch + 1 ? sv[i].v : live;
}

/* One context's path: "N BYTES LABEL..." from its node in the tree (the
 * site first, then its callers), or the site alone without stacks. */
static void put_path(struct dconv *d, uint64_t bytes, uint64_t site, uint32_t node)
{
    struct conv *c = &d->c;
    struct dpage *pg = d->pg;
    size_t at = pg->npath, n = 0;
    if (!bytes)
        return;
    add_u64(&c->e, pg, 0);
    add_u64(&c->e, pg, bytes);
    if (!c->s.nodes) {
        add_u64(&c->e, pg, site - 1);
        n = 1;
    }
    for (uint32_t k = node; c->s.nodes && k != 0; k = c->s.nodes[k].parent, n++) {
        const struct node *nd = &c->s.nodes[k];
        add_u64(&c->e, pg, nd->site ? nd->site - 1 : c->nsites + nd->frame);
    }
    pg->path[at] = n;
    for (size_t i = 0; i < n / 2; i++) {       /* the site first */
        uint64_t t = pg->path[at + 2 + i];
        pg->path[at + 2 + i] = pg->path[at + 2 + n - 1 - i];
        pg->path[at + 2 + n - 1 - i] = t;
    }
}

/* The page's labels and contexts, once the sites are named (r->s[base..]
 * in site ID order): with call stacks, the frames labelled and the tree
 * made first. */
static void page_figures(struct dconv *d, struct run *r, size_t base)
{
    struct conv *c = &d->c;
    struct dpage *pg = d->pg;
    for (size_t i = 0; i < c->nsites; i++) {
        const struct dsite *s = &r->s[base + i];
        size_t n = strlen(s->func) + strlen(s->file) + 32;
        char *l = tool_realloc(&c->e, NULL, n);
        snprintf(l, n, "%s (%s:%" PRIu64 ")", s->func, s->file, s->line);
        add_label(&c->e, pg, l);
    }
    if (c->s.n) {
        c->o.quiet = 1;         /* addr2line's warnings would name mtrace2massif */
        c->o.addr2line = "addr2line";
        make_contexts(c);
        pg->stacks = 1;
        for (size_t f = 0; f < c->s.nframes; f++) {
            const char *lab = c->s.frames[f].label ? c->s.frames[f].label : "???";
            char *l = tool_realloc(&c->e, NULL, strlen(lab) + 1);
            tool_decode(l, lab, lab + strlen(lab));
            add_label(&c->e, pg, l);
        }
    }
    for (size_t i = 0; i < c->nsites; i++)
        put_path(d, at_peak(d, d->sv_site, d->cap_sv_site, i, c->sites[i].live0), i + 1,
                 c->s.nodes ? c->sites[i].node : 0);
    for (size_t k = 0; k < c->s.n; k++)
        put_path(d, at_peak(d, d->sv_st, d->cap_sv_st, k, c->s.st[k].live), c->s.st[k].site,
                 c->s.st[k].node);
    if (c->cmd) {
        pg->cmd = c->cmd;
        c->cmd = NULL;
    }
}

static void free_dconv(struct dconv *d)
{
    free_parsed(&d->c);
    free(d->calls);
    free(d->asked);
    free(d->sv_site);
    free(d->sv_st);
    free(d);
}

void read_trace(struct tool_err *e, int fd, struct run *r)
{
    struct input in = { .fd = fd };
    struct dconv *d = tool_realloc(e, NULL, sizeof *d);
    memset(d, 0, sizeof *d);
    d->c.e.prog = e->prog;
    d->c.e.file = e->file;
    d->c.e.err = e->err;
    d->c.model = &diff_model;
    d->c.p.n = 1;               /* pass 1: every check */
    d->pg = r->pg;
    if (d->pg) {
        d->pg->width = 1;
        d->pg->b = tool_realloc(e, d->pg->b, PAGE_BUCKETS * sizeof *d->pg->b);
    }
    if (setjmp(d->c.e.jb)) {    /* the parser's error line is out */
        free(in.buf);
        free_dconv(d);
        longjmp(e->jb, 1);
    }
    run_pass(&d->c, &in);
    flush_pending(&d->c);
    free(in.buf);
    in.buf = NULL;
    if (d->c.p.nrec == 0 && d->c.p.ndef == 0 && !d->c.cmd) {
        d->c.e.line = 1;
        tool_fail(&d->c.e, "neither a JSON report nor a trace (no trace record)");
    }
    warn_truncated(&d->c);
    size_t base = r->n;
    figures(d, r);
    read_names(&d->c.e, fd, r, base);
    for (size_t i = base; i < r->n; i++)
        if (!r->s[i].func)      /* file changed under us: never a NULL name */
            tool_fail(&d->c.e, "trace changed while being read");
    if (d->pg)
        page_figures(d, r, base);
    drop_unused(r, base);
    free_dconv(d);
    r->kind = RUN_TRACE;
}
