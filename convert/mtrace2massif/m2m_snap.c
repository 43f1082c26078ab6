/* SPDX-License-Identifier: MIT */
/* m2m_snap.c - the snapshot policy: Massif's maybe_take_snapshot and
 * cull_snapshots (Valgrind 3.19, massif/ms_main.c), and the detailed
 * snapshots' trees as m_xtree.c's XT_massif_print groups them.  It sees
 * the heap model's totals (c->p) and the allocation tree's live bytes
 * (c->s.nodes); the heap model calls attempt() after every event and
 * peak_check() before every deallocation.
 * Owns struct policy (the snapshots, the clock's next time, the trees).
 * Calls: tool.c only (the heap model gives it the time). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

/* Massif's significance: the bytes a node needs to be shown, from this
 * snapshot's total (heap + extra).  With an empty heap nothing is, unless
 * the threshold is 0 (then everything is: the user asked for it). */
static uint64_t sig_size(const struct conv *c)
{
    uint64_t total = c->p.heap + c->p.extra;
    if (c->p.heap == 0 && c->o.threshold != 0)
        return 1;
    return (uint64_t)(((double)total * c->o.threshold) / 100);
}

/* A child being ordered: a node, or the aggregate (node 0). */
struct kid { uint64_t bytes, order, n_insig; uint32_t node; };

static int kid_cmp(const void *a, const void *b)
{
    const struct kid *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Append an entry to the tree being made; returns its index. */
static size_t put_entry(struct conv *c, size_t *n, uint64_t bytes, uint32_t node, uint64_t n_insig)
{
    if (*n == c->sn.build_cap) {
        c->sn.build_cap = c->sn.build_cap ? 2 * c->sn.build_cap : 256;
        c->sn.build = tool_realloc(&c->e, c->sn.build, c->sn.build_cap * sizeof *c->sn.build);
    }
    c->sn.build[*n] = (struct tnode){ bytes, node, 0, n_insig };
    return (*n)++;
}

/* The children of node 'at' as ms_make_groups makes them: those allocated
 * under so far, the insignificant ones (below sig) merged into one
 * aggregate, ordered by bytes then code address (the aggregate's is 0);
 * each then followed by its own subtree.  'sc' is free scratch; the
 * subtrees use what follows the children. */
static uint32_t put_children(struct conv *c, uint32_t at, uint64_t sig, struct kid *sc, size_t *n)
{
    const struct node *nd = c->s.nodes;
    uint32_t k = 0, agg = UINT32_MAX;
    for (uint32_t i = nd[at].child; i; i = nd[i].next) {
        if (!nd[i].seen)
            continue;
        if (nd[i].bytes >= sig) {
            sc[k++] = (struct kid){ nd[i].bytes, nd[i].order, 0, i };
        } else if (agg == UINT32_MAX) {
            agg = k;
            sc[k++] = (struct kid){ nd[i].bytes, 0, 1, 0 };
        } else {
            sc[agg].bytes += nd[i].bytes;
            sc[agg].n_insig++;
        }
    }
    qsort(sc, k, sizeof *sc, kid_cmp);
    for (uint32_t j = 0; j < k; j++) {
        size_t e = put_entry(c, n, sc[j].bytes, sc[j].node, sc[j].n_insig);
        if (sc[j].node) {
            uint32_t kids = put_children(c, sc[j].node, sig, sc + k, n);
            c->sn.build[e].nkids = kids;
        }
    }
    return k;
}

/* The tree of a detailed snapshot of the current heap, as Massif would
 * print it: at every level, significance against this snapshot's total. */
static struct tree *make_tree(struct conv *c)
{
    size_t n = 0;
    put_entry(c, &n, c->p.heap, 0, 0);
    /* put_children may move c->sn.build: its result is stored after */
    uint32_t kids = put_children(c, 0, sig_size(c), c->sn.scratch, &n);
    c->sn.build[0].nkids = kids;
    struct tree *t = malloc(sizeof *t + n * sizeof t->e[0]);
    if (!t)
        tool_fail(&c->e, "out of memory");
    t->n = n;
    memcpy(t->e, c->sn.build, n * sizeof t->e[0]);
    return t;
}

static int uncullable(const struct conv *c, unsigned i)
{
    return i == 0 || i == c->sn.next_i - 1 || c->sn.snaps[i].kind == PEAK;
}

/* Massif's culling: delete, one at a time, the snapshot whose neighbours
 * are closest in time (never the first, the last or the peak; the earliest
 * on ties), max/2 times; compact; return the smallest remaining gap not
 * between two uncullable snapshots as the new minimum interval. */
static int64_t cull(struct conv *c)
{
    unsigned max = c->o.max_snapshots;
    struct snap *s = c->sn.snaps;
    for (unsigned round = 0; round < max / 2; round++) {
        unsigned jp = 0, j = 1, jn, best = 0;
        int64_t best_span = INT64_MAX;
        while (j < max && !s[j].kind)
            j++;
        jn = j + 1;
        while (jn < max && !s[jn].kind)
            jn++;
        while (jn < max) {
            int64_t span = s[jn].time - s[jp].time;
            if (s[j].kind != PEAK && span < best_span) {
                best_span = span;
                best = j;
            }
            jp = j;
            j = jn;
            for (jn++; jn < max && !s[jn].kind; jn++)
                ;
        }
        if (best == 0)  /* cannot happen with max >= 10 and one peak */
            break;
        free(s[best].tree);
        memset(&s[best], 0, sizeof s[best]);
    }
    unsigned k = 0;
    for (unsigned i = 0; i < max; i++)
        if (s[i].kind) {
            if (k != i) {
                s[k] = s[i];
                memset(&s[i], 0, sizeof s[i]);
            }
            k++;
        }
    c->sn.next_i = k;
    int64_t min_span = INT64_MAX;
    for (unsigned i = 1; i < k; i++) {
        if (uncullable(c, i) && uncullable(c, i - 1))
            continue;
        if (s[i].time - s[i - 1].time < min_span)
            min_span = s[i].time - s[i - 1].time;
    }
    if (min_span == INT64_MAX)
        min_span = 0;
    /* Massif's cull_snapshots() returns the span as a 32-bit unsigned int;
     * reproduce the truncation so that even huge runs match. */
    return (int64_t)(uint32_t)min_span;
}

static void take_snapshot(struct conv *c, int kind, int64_t t, int detailed)
{
    struct snap *s = &c->sn.snaps[c->sn.next_i];
    s->kind = kind;
    s->time = t;
    s->heap = c->p.heap;
    s->extra = c->p.extra;
    s->tree = detailed ? make_tree(c) : NULL;
    c->sn.since_detailed = detailed ? 0 : c->sn.since_detailed + 1;
    if (kind == PEAK) {
        c->sn.peak_total = c->p.heap + c->p.extra;
        /* the previous peak becomes a normal (still detailed) snapshot */
        for (unsigned i = 0; i < c->sn.next_i; i++)
            if (c->sn.snaps[i].kind == PEAK)
                c->sn.snaps[i].kind = NORMAL;
    }
    c->sn.next_i++;
    /* Massif culls a full array to make room for the next snapshot; after
     * the final peak there is none (the array may end full) */
    if (c->sn.next_i == c->o.max_snapshots && !c->sn.ended)
        c->sn.min_interval = cull(c);
    c->sn.earliest = t + c->sn.min_interval;
}

/* A Normal snapshot attempt, after every event (and at start-up), at
 * time t: the heap model's clock, given as the samples are given it, so
 * that the policy never calls back into the heap model. */
void attempt(struct conv *c, int64_t t)
{
    if (t >= c->sn.earliest)
        take_snapshot(c, NORMAL, t, c->sn.since_detailed == c->o.detailed_freq - 1);
}

/* A Peak attempt: at every deallocation, before the memory goes.  Pass 1
 * notes the first check at each new largest total; in pass 2 Massif's rule
 * (beat the last peak by more than --peak-inaccuracy) decides the
 * intermediate peaks, and the check pass 1 chose is always taken, at
 * time t.  Returns 1 when it is that exact peak. */
int peak_check(struct conv *c, int64_t t)
{
    uint64_t total = c->p.heap + c->p.extra;
    if (c->p.n == 1) {
        if (total > c->p.best_check) {
            c->p.best_check = total;
            c->p.best_check_ev = c->p.ev;
        }
        return 0;
    }
    int forced = c->p.ev == c->peak_ev;
    uint64_t excess = (uint64_t)(((double)c->sn.peak_total * c->o.peak_inaccuracy) / 100);
    if (forced || (total > c->sn.peak_total && total - c->sn.peak_total > excess)) {
        take_snapshot(c, PEAK, t, 1);
    }
    return forced;
}

/* The snapshot policy starts empty: Massif's start-up state.  The scratch
 * for trees holds every node once, and one aggregate per level. */
void policy_init(struct conv *c)
{
    memset(&c->sn, 0, sizeof c->sn);
    c->sn.snaps = calloc(c->o.max_snapshots, sizeof *c->sn.snaps);
    c->sn.scratch = malloc((c->s.nnodes + TRACE_DEPTH_MAX + 2) * sizeof *c->sn.scratch);
    if (!c->sn.snaps || !c->sn.scratch)
        tool_fail(&c->e, "out of memory");
}

void free_policy(struct conv *c)
{
    if (c->sn.snaps)
        for (unsigned i = 0; i < c->o.max_snapshots; i++)
            free(c->sn.snaps[i].tree);
    free(c->sn.snaps);
    free(c->sn.scratch);
    free(c->sn.build);
}
