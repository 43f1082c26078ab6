/* SPDX-License-Identifier: MIT */
/* m2m_html_data.c - the figures of the HTML page (--html), gathered while
 * the heap model replays the trace, never one element per record:
 * pass 1: at most HTML_BUCKETS time buckets (merged two by two when full),
 *   each with its lowest and highest useful heap, the event of its first
 *   highest moment and how many contexts were live then;
 * between the passes: the buckets whose highest moment gets a snapshot
 *   of the live contexts (the peak's always; the others sampled evenly to
 *   about HTML_SNAP_BUDGET entries), the HTML_TOP largest sites;
 * pass 2: per context (a site's blocks without a stack, or a stack) the
 *   calls, blocks and bytes allocated, temporaries, peak and live bytes;
 *   per site the sizes asked for (power-of-two buckets); at each bucket's
 *   highest moment the top sites' bytes and, if chosen, the snapshot.
 * Owns struct html.  The heap model calls it after each event, begin_pass
 * at the start of each pass.
 * Calls: tool.c (it reads the heap model's counts of live blocks). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

static void *zalloc(struct conv *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        tool_fail(&c->e, "out of memory");
    return p;
}

/* Context index: a site's blocks without a stack, then the stacks. */
static size_t ctx_index(const struct conv *c, uint64_t id, uint64_t sid)
{
    return sid ? c->nsites + sid - 1 : id - 1;
}

/* A page shared by many traces (an MPI run's) keeps it small: a quarter
 * of the buckets past 8 traces, the snapshots' budget shared (the peak's
 * is always kept, and each trace keeps at least HTML_SNAP_MIN entries). */
#define HTML_SNAP_MIN 5000
static size_t bucket_cap(const struct conv *c)
{
    return c->o.html_share > 8 ? HTML_BUCKETS / 4 : HTML_BUCKETS;
}

static uint64_t snap_budget(const struct conv *c)
{
    uint64_t b = HTML_SNAP_BUDGET / (c->o.html_share ? c->o.html_share : 1);
    return b < HTML_SNAP_MIN ? HTML_SNAP_MIN : b;
}

/* ------------------------------------------------------------------ */
/* Pass 1: the buckets                                                  */

/* Halve the buckets: each pair becomes one, twice as wide. */
static void merge_buckets(struct html *h)
{
    for (size_t i = 0; i < h->nb / 2; i++) {
        struct hbucket a = h->b[2 * i], b = h->b[2 * i + 1];
        if (b.lo < a.lo)
            a.lo = b.lo;
        if (b.hi > a.hi) {
            a.hi = b.hi;
            a.hi_ev = b.hi_ev, a.hi_rec = b.hi_rec, a.hi_tb = b.hi_tb;
            a.hi_extra = b.hi_extra, a.nz = b.nz, a.hi_t = b.hi_t;
        }
        a.rec_end = b.rec_end, a.tb_end = b.tb_end, a.rss = b.rss, a.t_end = b.t_end;
        h->b[i] = a;
    }
    h->nb /= 2;
    h->width *= 2;
}

/* After an event of pass 1: its bucket's figures. */
static void p1_step(struct conv *c, struct html *h)
{
    uint64_t ev = c->p.ev, heap = c->p.heap;
    struct hbucket *b;
    if (ev > h->end) {
        if (h->nb == bucket_cap(c))
            merge_buckets(h);
        h->end = h->nb * h->width;
    }
    if (ev > h->end) {
        b = &h->b[h->nb++];
        h->end += h->width;
        *b = (struct hbucket){ .lo = heap };   /* hi_ev 0: none yet */
    }
    b = &h->b[h->nb - 1];
    if (heap < b->lo)
        b->lo = heap;
    if (heap > b->hi || b->hi_ev == 0) {
        b->hi = heap;
        b->hi_ev = ev;
        b->hi_rec = c->p.time_i - 1;
        b->hi_tb = c->p.time_b;
        b->hi_extra = c->p.extra;
        b->hi_t = c->p.time_ns;
        b->nz = h->nz;
    }
    b->rec_end = c->p.time_i;
    b->tb_end = c->p.time_b;
    b->t_end = c->p.time_ns;
    b->rss = c->p.have_rss ? c->p.rss : 0;
}

/* Pass 1 counts the live contexts from the heap model's own counts
 * (read, not called: the heap model calls this file). */
static void p1_count(struct conv *c, uint64_t id, uint64_t sid, int added)
{
    uint64_t blocks = sid ? c->s.st[sid - 1].blocks : c->sites[id - 1].blocks0;
    if (added && blocks == 1)
        c->h->nz++;
    else if (!added && blocks == 0)
        c->h->nz--;
}

/* ------------------------------------------------------------------ */
/* Between the passes: what pass 2 samples                              */

/* The sites drawn in the time graph: the largest peaks, largest first. */
static void pick_top(struct conv *c, struct html *h)
{
    h->ntop = 0;
    for (size_t i = 0; i < c->nsites; i++) {
        uint64_t pk = c->sites[i].peak;
        if (pk == 0)
            continue;
        int k = h->ntop < HTML_TOP ? h->ntop++ : HTML_TOP;
        if (k == HTML_TOP && pk <= c->sites[h->top[HTML_TOP - 1] - 1].peak)
            continue;
        if (k == HTML_TOP)
            k--;
        while (k > 0 && c->sites[h->top[k - 1] - 1].peak < pk) {
            h->top[k] = h->top[k - 1];
            k--;
        }
        h->top[k] = (uint32_t)i + 1;
    }
}

/* The peak's bucket (the first highest), and which buckets get a
 * snapshot: every stride-th, so that their entries stay near the budget. */
static void pick_snapshots(struct html *h, uint64_t budget)
{
    uint64_t total = 0, best = 0, stride = 1;
    h->peak_bucket = UINT64_MAX;
    for (size_t k = 0; k < h->nb; k++) {
        total += h->b[k].nz;
        if (h->b[k].hi > best)
            best = h->b[k].hi, h->peak_bucket = k;
        h->b[k].snap = 0;
    }
    if (total > budget)
        stride = (total + budget - 1) / budget;
    for (size_t k = 0; k < h->nb; k++)
        if (k % stride == 0 || k == h->peak_bucket)
            h->b[k].snap = 1;
}

static void plan_pass2(struct conv *c, struct html *h)
{
    h->nctx = c->nsites + c->s.n;
    h->ctx = zalloc(c, h->nctx, sizeof *h->ctx);
    h->set = zalloc(c, h->nctx, sizeof *h->set);
    h->pos = zalloc(c, h->nctx, sizeof *h->pos);
    h->hist = zalloc(c, c->nsites * 64, sizeof *h->hist);
    pick_top(c, h);
    h->topv = zalloc(c, h->nb * (size_t)h->ntop, sizeof *h->topv);
    pick_snapshots(h, snap_budget(c));
    h->cur = 0;
    h->last_ctx = 0;
}

void html_begin(struct conv *c, int pass)
{
    if (!c->o.html)
        return;
    if (pass == 1) {
        free_html(c);
        c->h = zalloc(c, 1, sizeof *c->h);
        c->h->b = zalloc(c, HTML_BUCKETS, sizeof *c->h->b);
        c->h->width = 1;
        return;
    }
    plan_pass2(c, c->h);
}

/* ------------------------------------------------------------------ */
/* Pass 2: contexts, sizes, samples                                     */

/* Append one snapshot of the live contexts, for bucket k. */
static size_t take_snapshot(struct conv *c, struct html *h, uint32_t k)
{
    if (h->nents + 3 * h->nset > h->cap_ents) {
        size_t cap = h->cap_ents ? 2 * h->cap_ents : 3 * 1024;
        while (cap < h->nents + 3 * h->nset)
            cap *= 2;
        h->ents = tool_realloc(&c->e, h->ents, cap * sizeof *h->ents);
        h->cap_ents = cap;
    }
    h->snaps = tool_realloc(&c->e, h->snaps, (h->nsnaps + 1) * sizeof *h->snaps);
    h->snaps[h->nsnaps] = (struct hsnap){ k, h->nents, h->nset };
    for (size_t i = 0; i < h->nset; i++) {
        const struct hctx *x = &h->ctx[h->set[i]];
        h->ents[h->nents++] = h->set[i];
        h->ents[h->nents++] = x->live;
        h->ents[h->nents++] = x->nlive;
    }
    return h->nsnaps++;
}

/* After an event of pass 2: at a bucket's highest moment, its samples. */
static void p2_step(struct conv *c, struct html *h)
{
    if (h->cur >= h->nb || c->p.ev != h->b[h->cur].hi_ev)
        return;
    struct hbucket *b = &h->b[h->cur];
    for (int j = 0; j < h->ntop; j++)
        h->topv[h->cur * (size_t)h->ntop + (size_t)j] = c->sites[h->top[j] - 1].live;
    if (b->snap) {
        size_t s = take_snapshot(c, h, (uint32_t)h->cur);
        b->snap = (uint32_t)s + 1;
        if (h->cur == h->peak_bucket)
            h->peak_snap = s;
    }
    h->cur++;
}

static unsigned size_class(uint64_t size)
{
    return size ? 64u - (unsigned)__builtin_clzll(size) : 0u;
}

static void p2_add(struct conv *c, struct html *h, uint64_t id, uint64_t sid, uint64_t size)
{
    size_t i = ctx_index(c, id, sid);
    struct hctx *x = &h->ctx[i];
    x->calls++;
    x->bytes += size;
    x->live += size;
    if (x->live > x->peak)
        x->peak = x->live;
    if (x->nlive++ == 0) {
        h->set[h->nset++] = (uint32_t)i;
        h->pos[i] = (uint32_t)h->nset;
    }
    h->hist[(id - 1) * 64 + size_class(size)]++;
    h->last_ctx = i + 1;
    h->last_size = size;
}

static void p2_sub(struct conv *c, struct html *h, uint64_t id, uint64_t sid, uint64_t size)
{
    size_t i = ctx_index(c, id, sid);
    struct hctx *x = &h->ctx[i];
    x->live -= size;
    if (--x->nlive == 0) {      /* swap the last one into its place */
        uint32_t at = h->pos[i] - 1, last = h->set[--h->nset];
        h->set[at] = last;
        h->pos[last] = at + 1;
        h->pos[i] = 0;
    }
}

void html_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    struct html *h = c->h;
    if (c->p.n == 1) {
        p1_count(c, id, sid, 1);
        p1_step(c, h);
        return;
    }
    p2_add(c, h, id, sid, size);
    h->ctx[ctx_index(c, id, sid)].blocks++;
    p2_step(c, h);
}

/* A free: a temporary when the block is the last one allocated (its
 * context and size: the trace has no addresses) and nothing was
 * allocated since, as heaptrack counts them. */
void html_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    struct html *h = c->h;
    if (c->p.n == 1) {
        p1_count(c, id, sid, 0);
        p1_step(c, h);
        return;
    }
    size_t i = ctx_index(c, id, sid);
    if (h->last_ctx == i + 1 && h->last_size == size) {
        h->ctx[i].temp++;
        h->last_ctx = 0;
    }
    p2_sub(c, h, id, sid, size);
    p2_step(c, h);
}

/* A realloc: a call of the new context, no new block. */
void html_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                  uint64_t new_id, uint64_t new_sid, uint64_t new_size)
{
    struct html *h = c->h;
    if (c->p.n == 1) {
        if (ctx_index(c, old_id, old_sid) != ctx_index(c, new_id, new_sid)) {
            p1_count(c, old_id, old_sid, 0);
            p1_count(c, new_id, new_sid, 1);
        }
        p1_step(c, h);
        return;
    }
    p2_sub(c, h, old_id, old_sid, old_size);
    p2_add(c, h, new_id, new_sid, new_size);
    p2_step(c, h);
}

/* After pass 2: the snapshot of what is live at the end. */
void html_final(struct conv *c)
{
    c->h->end_snap = take_snapshot(c, c->h, (uint32_t)c->h->nb);
}

void free_html(struct conv *c)
{
    struct html *h = c->h;
    if (!h)
        return;
    free(h->b);
    free(h->ctx);
    free(h->set);
    free(h->pos);
    free(h->hist);
    free(h->topv);
    free(h->ents);
    free(h->snaps);
    free(h);
    c->h = NULL;
}
