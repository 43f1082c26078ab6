/* SPDX-License-Identifier: MIT */
/* m2m_heap.c - the heap model: Massif's accounting of useful and extra
 * heap, of time, and of the live bytes of each allocation context, event
 * by event (ev_alloc, ev_free, ev_realloc, called by the parser).  After
 * each event it lets the snapshot policy and the gnuplot samples look
 * (pass 2), giving both the time.  Valgrind's block sizes first.
 * Owns the heap model's fields of struct pass (totals, time, in-place
 * shrunk blocks) and the live bytes of sites, stacks and tree nodes.
 * Calls: m2m_snap.c, m2m_gnuplot.c, m2m_html_data.c (--html), tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

/* a + b, failing rather than come near 2^63 (time and totals are signed
 * 64-bit in a Massif file). */
static uint64_t add_chk(struct conv *c, uint64_t a, uint64_t b)
{
    if (b > (UINT64_C(1) << 62) - a || a > (UINT64_C(1) << 62))
        tool_fail(&c->e, "byte counts overflow (sizes far beyond any real heap)");
    return a + b;
}

/* Usable size Valgrind's allocator gives a fresh block of 'req' bytes. */
static uint64_t usable(uint64_t req)
{
    if (req <= BIG_BLOCK)
        return (req + 15) & ~(uint64_t)15;
    return ((req + SB_OVERHEAD + PAGE - 1) & ~(uint64_t)(PAGE - 1)) - SB_OVERHEAD;
}

/* Slop of a fresh block of 'req' bytes from site id: none for a pool's
 * blocks (Massif records VALGRIND_MALLOCLIKE_BLOCK with slop 0). */
static uint64_t fresh_slop(const struct conv *c, uint64_t id, uint64_t req)
{
    return c->sites[id - 1].pool ? 0 : usable(req) - req;
}

static uint32_t abn_hash(const struct abn *a, uint64_t site, uint64_t size)
{
    uint64_t h = (site * UINT64_C(0x9E3779B97F4A7C15)) ^ (size * UINT64_C(0xC2B2AE3D27D4EB4F));
    return (uint32_t)(h >> 32) & (a->nbuckets - 1);
}

static void abn_rehash(struct conv *c, uint32_t nb)
{
    struct abn *a = &c->p.abn;
    uint32_t *head = calloc(nb, sizeof *head);
    if (!head)
        tool_fail(&c->e, "out of memory");
    free(a->head);
    a->head = head;
    a->nbuckets = nb;
    /* relink the live entries; the free list stays as it is */
    for (uint32_t i = 0; i < a->cap; i++) {
        if (a->e[i].site == 0)
            continue;
        uint32_t b = abn_hash(a, a->e[i].site, a->e[i].size);
        a->e[i].next = head[b];
        head[b] = i + 1;
    }
}

/* Remember that a live block of 'site' and 'size' has 'excess' usable bytes
 * beyond usable(size). */
static void abn_put(struct conv *c, uint64_t site, uint64_t size, uint64_t excess)
{
    struct abn *a = &c->p.abn;
    uint32_t i;
    if (a->n >= ABN_MAX) {
        a->dropped++;
        return;
    }
    if (a->free_list) {
        i = a->free_list - 1;
        a->free_list = a->e[i].next;
    } else {
        if (a->cap == 0 || a->n == a->cap) {
            uint32_t ncap = a->cap ? a->cap * 2 : 1024;
            a->e = tool_realloc(&c->e, a->e, (size_t)ncap * sizeof *a->e);
            memset(a->e + a->cap, 0, (size_t)(ncap - a->cap) * sizeof *a->e);
            a->cap = ncap;
        }
        i = a->n; /* no free entries: the first n are all in use */
    }
    if (a->nbuckets == 0 || a->n + 1 > a->nbuckets)
        abn_rehash(c, a->nbuckets ? a->nbuckets * 2 : 1024);
    uint32_t b = abn_hash(a, site, size);
    a->e[i].site = site;
    a->e[i].size = size;
    a->e[i].excess = excess;
    a->e[i].next = a->head[b];
    a->head[b] = i + 1;
    a->n++;
}

/* Excess usable bytes of the block of 'site'/'size' being released: the
 * most recently shrunk such block, or 0 if none is remembered. */
static uint64_t abn_take(struct conv *c, uint64_t site, uint64_t size)
{
    struct abn *a = &c->p.abn;
    if (a->n == 0)
        return 0;
    uint32_t *link = &a->head[abn_hash(a, site, size)];
    while (*link) {
        struct abn_entry *e = &a->e[*link - 1];
        if (e->site == site && e->size == size) {
            uint32_t i = *link - 1;
            uint64_t x = e->excess;
            *link = e->next;
            e->site = 0;
            e->next = a->free_list;
            a->free_list = i + 1;
            a->n--;
            return x;
        }
        link = &e->next;
    }
    return 0;
}

/* Time in the unit of --time-unit: bytes allocated + freed, records, or
 * whole milliseconds of the trace's clock (the last #time; Massif's ms are
 * whole too, counted from its first snapshot as ours from the tracer's
 * start). */
int64_t now(const struct conv *c)
{
    if (c->o.time_ms)
        return (int64_t)(c->p.time_ns / 1000000);
    return (int64_t)(c->o.time_bytes ? c->p.time_b : c->p.time_i);
}

/* The state changed (an event, or the start): the policy's Normal
 * attempt and the curves' sample, in pass 2. */
void observe(struct conv *c)
{
    if (c->p.n != 2)
        return;
    attempt(c, now(c));
    if (c->gp.pt)
        gp_event(c, (uint64_t)now(c));
}

/* Before a deallocation: the policy's peak check; the exact peak is also
 * a point of the curves. */
void before_release(struct conv *c, uint64_t first_rec)
{
    /* in records, the release's own record: the time before it */
    int64_t t = c->o.time_bytes || c->o.time_ms ? now(c) : (int64_t)first_rec;
    if (peak_check(c, t) && c->gp.pt)
        gp_peak(c, t);
}

static void add_time(struct conv *c, uint64_t before, uint64_t after)
{
    c->p.time_b = add_chk(c, c->p.time_b, before > after ? before - after : after - before);
    if (c->p.time_b > (UINT64_C(1) << 62))
        tool_fail(&c->e, "time overflows");
}

static void after_event(struct conv *c, uint64_t first_rec, uint64_t nrecs)
{
    c->p.time_i = first_rec + nrecs;
    c->p.ev++;
    uint64_t total = c->p.heap + c->p.extra;
    if (total > c->p.max_total)
        c->p.max_total = total;
    if (c->p.heap > c->p.max_heap)
        c->p.max_heap = c->p.heap;
    observe(c);
}

void ctx_live(const struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks)
{
    if (sid) {
        *live = c->s.st[sid - 1].live;
        *blocks = c->s.st[sid - 1].blocks;
    } else {
        *live = c->sites[id - 1].live0;
        *blocks = c->sites[id - 1].blocks0;
    }
}

/* The context's node in the tree (pass 2, once make_contexts made it). */
static struct node *ctx_node(struct conv *c, uint64_t id, uint64_t sid)
{
    return &c->s.nodes[sid ? c->s.st[sid - 1].node : c->sites[id - 1].node];
}

/* A block of 'size' bytes now lives in context (id, sid): the site, the
 * stack and, in pass 2, every node from the context up to the root. */
static void ctx_add(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    ctx_count(c, id, sid, size, 1);
    if (c->p.n != 2)
        return;
    for (struct node *n = ctx_node(c, id, sid); n != c->s.nodes; n = &c->s.nodes[n->parent]) {
        n->bytes += size;
        n->seen = 1;
    }
}

/* A block of 'size' bytes of context (id, sid) is gone (the parser has
 * checked that the context holds it). */
static void ctx_sub(struct conv *c, uint64_t id, uint64_t sid, uint64_t size)
{
    ctx_count(c, id, sid, size, -1);
    if (c->p.n != 2)
        return;
    for (struct node *n = ctx_node(c, id, sid); n != c->s.nodes; n = &c->s.nodes[n->parent])
        n->bytes -= size;
}

void ev_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    uint64_t before = c->p.heap + c->p.extra;
    c->p.heap = add_chk(c, c->p.heap, size);
    c->p.extra = add_chk(c, c->p.extra, c->o.heap_admin + fresh_slop(c, id, size));
    c->p.nblocks++;
    ctx_add(c, id, sid, size);
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 1);
    if (c->h)
        html_alloc(c, id, sid, size);
}

/* Slop of a released block: its fresh slop plus what an earlier in-place
 * shrink left behind. */
static uint64_t release_slop(struct conv *c, uint64_t id, uint64_t size)
{
    return fresh_slop(c, id, size) + abn_take(c, id, size);
}

/* Does the extra heap hold the n bytes a released block takes from it?
 * After a checkpoint (MTRACE_TRACE_MAX) the blocks live there came with
 * even sizes, their own unknown: their slop may fall short, and the
 * extra heap is then raised to what is taken, not an error. */
static int slop_known(struct conv *c, uint64_t n)
{
    if (c->p.extra < n && c->cp.seg)
        c->p.extra = n;
    return c->p.extra >= n;
}

void ev_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    before_release(c, rec);
    uint64_t before = c->p.heap + c->p.extra;
    uint64_t slop = release_slop(c, id, size);
    if (!slop_known(c, c->o.heap_admin + slop) || c->p.heap < size)
        tool_fail(&c->e, "frees a block of %" PRIu64 " bytes that site %" PRIu64
             " never allocated", size, id);
    c->p.heap -= size;
    c->p.extra -= c->o.heap_admin + slop;
    c->p.nblocks--;
    ctx_sub(c, id, sid, size);
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 1);
    if (c->h)
        html_free(c, id, sid, size);
}

/* realloc(p, n) that returned a block: Massif keeps the block in place when
 * the new size fits in the old usable size (the shrink moves bytes from
 * useful to extra heap), else it moves it; either way the block now
 * belongs to the realloc's context.  One peak check first if it shrinks,
 * one snapshot attempt after. */
void ev_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                uint64_t new_id, uint64_t new_sid, uint64_t new_size, uint64_t rec)
{
    if (new_size < old_size)
        before_release(c, rec);
    uint64_t before = c->p.heap + c->p.extra;
    uint64_t old_slop = release_slop(c, old_id, old_size), new_slop;
    if (!slop_known(c, old_slop) || c->p.heap < old_size)
        tool_fail(&c->e, "reallocates a block of %" PRIu64 " bytes that site %" PRIu64
             " never allocated", old_size, old_id);
    if (new_size <= old_size + old_slop) {
        new_slop = old_slop + old_size - new_size;
        uint64_t fresh = fresh_slop(c, new_id, new_size);
        if (new_slop > fresh)
            abn_put(c, new_id, new_size, new_slop - fresh);
    } else {
        new_slop = fresh_slop(c, new_id, new_size);
    }
    c->p.heap = add_chk(c, c->p.heap - old_size, new_size);
    c->p.extra = add_chk(c, c->p.extra - old_slop, new_slop);
    ctx_sub(c, old_id, old_sid, old_size);
    ctx_add(c, new_id, new_sid, new_size);
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 2);
    if (c->h)
        html_realloc(c, old_id, old_sid, old_size, new_id, new_sid, new_size);
}

/* A '<' not followed by its '>' was a free (glibc's realloc(p, 0)). */
void flush_pending(struct conv *c)
{
    if (c->p.pend) {
        c->p.pend = 0;
        ev_free(c, c->p.pend_site, c->p.pend_sid, c->p.pend_size, c->p.pend_rec);
    }
}

const struct model massif_model = { ev_alloc, ev_free, ev_realloc, flush_pending, ctx_live };
