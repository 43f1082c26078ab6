/* mtrace2massif - convert an mtrace (or Basilisk MTRACE) trace into a Massif
 * output file, as Valgrind's Massif would have written it for the same run,
 * and optionally into a standalone gnuplot script.
 *
 *   mtrace2massif [options] TRACE... [-o OUT]
 *
 * Several traces (the files of an MPI run: NAME for rank 0, NAME-r for rank
 * r) are converted one after the other, each exactly as if alone, and a
 * table of peaks and leaks per rank and across ranks goes to stdout.
 * The trace grammar is doc/trace-format.md (site records "@ ID FUNC FILE LINE",
 * operation records "OP ID RECNO TOTAL SITE [MAXRSS]", metadata records
 * "#NAME ...", two trailing gnuplot lines).  Massif's policy (snapshots, culling, accounting, trees) is
 * reproduced from the description of Valgrind 3.19's massif/ms_main.c and
 * coregrind/m_xtree.c; see doc/mtrace2massif.md for every decision.
 *
 * Structure: the trace is read twice (a pipe is spooled to a temporary file
 * first).  Both passes run the same replay; the first one only validates
 * and finds where the true peak is, the second one takes the snapshots.
 * Memory is bounded by sites x snapshots, never by trace length.  The
 * stages, in this order, each readable alone:
 *
 *   snapshot policy  Massif's snapshots, culling and peaks (struct policy)
 *   samples          the gnuplot curves' points (struct samples)
 *   heap model       Massif's accounting, event by event (struct pass);
 *                    calls the policy and the samples after each event
 *   parser           records -> events; input read twice
 *   output           the Massif file, the gnuplot script
 *   conversion       pass 1, pass 2, each from begin_pass(); then output
 *
 * then several traces (MPI ranks) and the command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

#define M2M_VERSION "1.0"

/* Valgrind's allocator (amd64): usable size is the request rounded up to 16
 * bytes, except for blocks that get a superblock of their own (beyond 4 MiB
 * minus the 64-byte superblock header), which are rounded up to whole pages. */
#define BIG_BLOCK    4194240u
#define SB_OVERHEAD  64u
#define PAGE         4096u

/* Sizes above this are rejected so that heap + extra + time sums of a sane
 * trace never come near 2^63 (Massif prints time as a signed 64-bit value). */
#define MAX_BYTES    (UINT64_C(1) << 56)

/* Cap on in-place-shrunk blocks remembered (see struct abn). */
#define ABN_MAX      (1u << 20)

/* Curves in the gnuplot script besides total, heap and RSS. */
#define GP_MAX_SITES 12
#define GP_POINTS    2048

enum { NORMAL = 1, PEAK = 2 };

struct opts {
    int time_bytes;             /* --time-unit=B (1) or i (0) */
    unsigned max_snapshots;     /* 10..1000 */
    unsigned detailed_freq;     /* 1..1000000 */
    double threshold;           /* 0..100, percent */
    unsigned heap_admin;        /* 0..1024 */
    double peak_inaccuracy;     /* 0..100, percent */
    const char *gnuplot;        /* --gnuplot=FILE or NULL */
    char desc[512];             /* the Massif-like options, for desc: */
    int quiet;                  /* no warnings (fuzzing) */
};

struct site {
    uint64_t live;              /* live requested bytes */
    uint64_t blocks;            /* live blocks */
    uint64_t peak;              /* highest live (pass 1) */
    int seen;                   /* allocated from at least once */
    char *label;                /* "func (file:line)", escaped */
    size_t flen;                /* length of its "func" */
    int pool;                   /* "#pool ID": its blocks have no slop */
};

/* A detailed snapshot's first level: the significant sites (decided when
 * the snapshot is taken, as Massif decides against that snapshot's total)
 * and the aggregate of the insignificant ones. */
struct tree {
    uint64_t n_insig, insig_sum;
    size_t n;
    struct { uint64_t id, bytes; } e[];
};

struct snap {
    int kind;                   /* 0 = unused slot */
    int64_t time;
    uint64_t heap, extra;
    struct tree *tree;          /* NULL unless detailed */
};

/* In-place shrunk blocks: Massif keeps the old usable size of a block that
 * realloc shrank in place, so its slop is larger than the size alone says.
 * The trace has no block identities, so such blocks are remembered by
 * (site, size) and matched last-in first-out when a block of that site and
 * size is released.  Chained hash, entries linked through 'next'. */
struct abn_entry { uint64_t site, size, excess; uint32_t next; };
struct abn {
    struct abn_entry *e;
    uint32_t *head;             /* bucket -> entry+1, 0 = empty */
    uint32_t nbuckets, n, cap, free_list; /* free_list: entry+1 */
    uint64_t dropped;
};

struct gp_point { uint64_t x, heap, total, rss; uint64_t site[GP_MAX_SITES]; };

/* What one pass over the trace builds: the parser's and the heap model's
 * state.  begin_pass() zeroes it, and nothing else resets it. */
struct pass {
    int n;                      /* 1 or 2 */
    /* parser */
    uint64_t nrec;              /* operation records so far */
    uint64_t prev_total;
    uint64_t rss, rss0;
    int have_rss;               /* MAXRSS seen (Basilisk may omit it) */
    uint64_t tail_first_line;   /* first non-record line not yet followed */
    int tail_n;                 /* by a record; 0 if none */
    int pend;                   /* a '<' waiting for a possible '>' */
    uint64_t pend_site, pend_size, pend_rec;
    size_t ndef;                /* '@' records seen */
    int truncated_line;         /* last line had no newline */
    /* heap model, as Massif counts */
    uint64_t heap, extra, nblocks;
    uint64_t time_b, time_i;
    uint64_t ev;                /* events (alloc, free, realloc) so far */
    uint64_t max_total, max_heap;
    struct abn abn;
    /* pass 1: the first peak check at the largest total */
    uint64_t best_check, best_check_ev;
};

/* The snapshot policy (pass 2): Massif's array and its clock.
 * policy_init() sets it up. */
struct policy {
    struct snap *snaps;         /* max_snapshots slots */
    unsigned next_i;
    int64_t min_interval, earliest;
    unsigned since_detailed;
    uint64_t peak_total;
    uint64_t *tmp_ids;          /* scratch for trees */
    int ended;                  /* after the last record: nothing to cull for */
};

/* The gnuplot curves' samples (pass 2). */
struct samples {
    int n;                      /* sites plotted */
    uint64_t ids[GP_MAX_SITES];
    struct gp_point *pt;        /* NULL: no --gnuplot */
    size_t len;
    uint64_t next, step;
    struct gp_point peak, lo, hi;
    int have_peak, open;
};

struct conv {
    struct opts o;
    struct tool_err e;          /* name, line, where errors unwind to */
    char *cmd;                  /* "#cmd": the program's command line, decoded */
    /* sites, index = ID - 1: labels from pass 1; live bytes per pass */
    struct site *sites;
    size_t nsites, cap_sites;
    struct pass p;
    /* what pass 1 found: its counts, which pass 2 must see again, and
     * where the exact peak goes */
    uint64_t events1, nrec1;
    uint64_t peak_ev;           /* event whose peak check is forced */
    int peak_at_end;            /* ... or a check after the last record */
    struct policy sn;
    struct samples gp;
    int truncated;              /* no tail or last line cut: the run's summary says so */
};

/* ------------------------------------------------------------------ */
/* Errors: tool_fail(&c->e, ...) prints "mtrace2massif: FILE:LINE: what is
 * wrong" and unwinds to convert(), which frees everything and returns 1. */

/* ------------------------------------------------------------------ */
/* Snapshot policy: Massif's maybe_take_snapshot / cull_snapshots.  It
 * sees the heap model's totals (c->p) and the sites' live bytes; the heap
 * model calls attempt() after every event and peak_check() before every
 * deallocation. */

static int64_t now(const struct conv *c)
{
    return (int64_t)(c->o.time_bytes ? c->p.time_b : c->p.time_i);
}

/* The first level of the tree as Massif would write it for the current
 * heap: a site is significant when its bytes reach sig, Massif's threshold
 * computed from this snapshot's total (heap + extra). */
static struct tree *make_tree(struct conv *c)
{
    uint64_t total = c->p.heap + c->p.extra, sig;
    if (c->p.heap == 0 && c->o.threshold != 0)
        sig = 1;
    else
        sig = (uint64_t)(((double)total * c->o.threshold) / 100);
    size_t n = 0;
    uint64_t n_insig = 0, insig_sum = 0;
    for (size_t i = 0; i < c->nsites; i++) {
        const struct site *s = &c->sites[i];
        if (!s->seen)
            continue;
        if (s->live < sig) {
            n_insig++;
            insig_sum += s->live;
        } else {
            c->sn.tmp_ids[n++] = i + 1;
        }
    }
    struct tree *t = malloc(sizeof *t + n * sizeof t->e[0]);
    if (!t)
        tool_fail(&c->e, "out of memory");
    t->n_insig = n_insig;
    t->insig_sum = insig_sum;
    t->n = n;
    for (size_t k = 0; k < n; k++) {
        t->e[k].id = c->sn.tmp_ids[k];
        t->e[k].bytes = c->sites[c->sn.tmp_ids[k] - 1].live;
    }
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

/* A Normal snapshot attempt, after every event (and at start-up). */
static void attempt(struct conv *c)
{
    int64_t t = now(c);
    if (t >= c->sn.earliest)
        take_snapshot(c, NORMAL, t, c->sn.since_detailed == c->o.detailed_freq - 1);
}

/* A Peak attempt: at every deallocation, before the memory goes.  Pass 1
 * notes the first check at each new largest total; in pass 2 Massif's rule
 * (beat the last peak by more than --peak-inaccuracy) decides the
 * intermediate peaks, and the check pass 1 chose is always taken.  Returns
 * 1 and its time in *t when it is that exact peak. */
static int peak_check(struct conv *c, uint64_t first_rec, int64_t *t)
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
        *t = c->o.time_bytes ? (int64_t)c->p.time_b : (int64_t)first_rec;
        take_snapshot(c, PEAK, *t, 1);
    }
    return forced;
}

/* ------------------------------------------------------------------ */
/* The gnuplot curves' samples (pass 2): the heap model's state after
 * every event, thinned to at most GP_POINTS points. */

static void gp_sample(struct conv *c, struct gp_point *p, uint64_t x)
{
    p->x = x;
    p->heap = c->p.heap;
    p->total = c->p.heap + c->p.extra;
    p->rss = c->p.have_rss && c->p.rss > c->p.rss0 ? c->p.rss - c->p.rss0 : 0;
    for (int k = 0; k < c->gp.n; k++)
        p->site[k] = c->sites[c->gp.ids[k] - 1].live;
}

/* A Normal snapshot attempt, after every event (and at start-up). */
static void gp_commit(struct conv *c, const struct gp_point *p)
{
    if (c->gp.len == GP_POINTS) {
        /* halve the resolution: keep every other point, double the step */
        size_t k = 0;
        for (size_t i = 0; i < c->gp.len; i += 2)
            c->gp.pt[k++] = c->gp.pt[i];
        c->gp.len = k;
        c->gp.step = c->gp.step ? c->gp.step * 2 : 1 + (p->x - c->gp.pt[0].x) / (GP_POINTS / 4);
    }
    c->gp.pt[c->gp.len++] = *p;
}

/* The gnuplot curves: per time step, the lowest and the highest state
 * (so that spikes and dips between two samples still show), in time order. */
static void gp_event(struct conv *c, uint64_t t)
{
    uint64_t total = c->p.heap + c->p.extra;
    if (!c->gp.open || total < c->gp.lo.total)
        gp_sample(c, &c->gp.lo, t);
    if (!c->gp.open || total > c->gp.hi.total)
        gp_sample(c, &c->gp.hi, t);
    c->gp.open = 1;
    if (t >= c->gp.next) {
        const struct gp_point *a = &c->gp.lo, *b = &c->gp.hi;
        if (a->x > b->x)
            a = &c->gp.hi, b = &c->gp.lo;
        gp_commit(c, a);
        if (b->x != a->x || b->total != a->total)
            gp_commit(c, b);
        c->gp.open = 0;
        c->gp.next = t + c->gp.step;
    }
}

/* The exact peak is always a point of the curves. */
static void gp_peak(struct conv *c, int64_t t)
{
    gp_sample(c, &c->gp.peak, (uint64_t)t);
    c->gp.have_peak = 1;
}

/* ------------------------------------------------------------------ */
/* Heap model: Massif's accounting of useful and extra heap and of time,
 * event by event (ev_alloc, ev_free, ev_realloc, called by the parser).
 * Valgrind's block sizes first. */

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

/* The state changed (an event, or the start): the policy's Normal
 * attempt and the curves' sample, in pass 2. */
static void observe(struct conv *c)
{
    if (c->p.n != 2)
        return;
    attempt(c);
    if (c->gp.pt)
        gp_event(c, (uint64_t)now(c));
}

/* Before a deallocation: the policy's peak check; the exact peak is also
 * a point of the curves. */
static void before_release(struct conv *c, uint64_t first_rec)
{
    int64_t t;
    if (peak_check(c, first_rec, &t) && c->gp.pt)
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

static void ev_alloc(struct conv *c, uint64_t id, uint64_t size, uint64_t rec)
{
    struct site *s = &c->sites[id - 1];
    uint64_t before = c->p.heap + c->p.extra;
    c->p.heap = add_chk(c, c->p.heap, size);
    c->p.extra = add_chk(c, c->p.extra, c->o.heap_admin + fresh_slop(c, id, size));
    c->p.nblocks++;
    s->live += size;
    s->blocks++;
    s->seen = 1;
    if (s->live > s->peak)
        s->peak = s->live;
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 1);
}

/* Slop of a released block: its fresh slop plus what an earlier in-place
 * shrink left behind. */
static uint64_t release_slop(struct conv *c, uint64_t id, uint64_t size)
{
    return fresh_slop(c, id, size) + abn_take(c, id, size);
}

static void ev_free(struct conv *c, uint64_t id, uint64_t size, uint64_t rec)
{
    struct site *s = &c->sites[id - 1];
    before_release(c, rec);
    uint64_t before = c->p.heap + c->p.extra;
    uint64_t slop = release_slop(c, id, size);
    if (c->p.extra < c->o.heap_admin + slop || c->p.heap < size)
        tool_fail(&c->e, "frees a block of %" PRIu64 " bytes that site %" PRIu64
             " never allocated", size, id);
    c->p.heap -= size;
    c->p.extra -= c->o.heap_admin + slop;
    c->p.nblocks--;
    s->live -= size;
    s->blocks--;
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 1);
}

/* realloc(p, n) that returned a block: Massif keeps the block in place when
 * the new size fits in the old usable size (the shrink moves bytes from
 * useful to extra heap), else it moves it.  One peak check first if it
 * shrinks, one snapshot attempt after. */
static void ev_realloc(struct conv *c, uint64_t old_id, uint64_t old_size,
                       uint64_t new_id, uint64_t new_size, uint64_t rec)
{
    struct site *os = &c->sites[old_id - 1], *ns = &c->sites[new_id - 1];
    if (new_size < old_size)
        before_release(c, rec);
    uint64_t before = c->p.heap + c->p.extra;
    uint64_t old_slop = release_slop(c, old_id, old_size), new_slop;
    if (c->p.extra < old_slop || c->p.heap < old_size)
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
    os->live -= old_size;
    os->blocks--;
    ns->live += new_size;
    ns->blocks++;
    ns->seen = 1;
    if (ns->live > ns->peak)
        ns->peak = ns->live;
    add_time(c, before, c->p.heap + c->p.extra);
    after_event(c, rec, 2);
}

static void flush_pending(struct conv *c)
{
    if (c->p.pend) {
        c->p.pend = 0;
        ev_free(c, c->p.pend_site, c->p.pend_size, c->p.pend_rec);
    }
}

/* ------------------------------------------------------------------ */
/* Parser: each record checked and turned into heap model events     */

/* Up to 8 decimal digits at p, eight bytes at a time ("SWAR"): returns the
 * number of leading digits (0..8) and their value.  Needs 8 readable bytes
 * at p: every buffer the parser reads has PAD spare bytes after its end. */
#define PAD 16
static inline __attribute__((always_inline)) unsigned digits8(const char *p, uint64_t *v)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t t = w - UINT64_C(0x3030303030303030);
    /* high bit of each byte that is not a digit (the first one is exact;
     * borrows and carries only disturb the bytes after it) */
    uint64_t nd = (t | (t + UINT64_C(0x7676767676767676))) & UINT64_C(0x8080808080808080);
    unsigned n = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
    if (n == 0)
        return 0;
    t <<= 8 * (8 - n);          /* keep the n digits, as leading zeros */
    t = (t * 10 + (t >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    t = (t * 100 + (t >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    t = (t * 10000 + (t >> 32)) & UINT64_C(0xFFFFFFFF);
    *v = t;
    return n;
}

/* The first byte after the digits at p (pass 2 skips the fields it does
 * not need; pass 1 has checked them). */
static inline __attribute__((always_inline)) const char *skip_digits(const char *p)
{
    for (;;) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w - UINT64_C(0x3030303030303030);
        uint64_t nd = (t | (t + UINT64_C(0x7676767676767676))) & UINT64_C(0x8080808080808080);
        if (nd)
            return p + __builtin_ctzll(nd) / 8;
        p += 8;
    }
}

/* Decimal number at *pp, at most 19 digits (so no overflow is possible;
 * no real count of bytes or records needs more).  The line ends with '\n',
 * so the scan stops inside the buffer.  This is the converter's hot loop. */
static inline __attribute__((always_inline)) int parse_u64(const char **pp, uint64_t *v)
{
    static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000,
                                       1000000, 10000000, 100000000 };
    const char *p = *pp;
    uint64_t x, y;
    unsigned n = digits8(p, &x), m;
    if (n == 0)
        return 0;
    p += n;
    if (n == 8) {
        while ((m = digits8(p, &y)) > 0) {
            if (p + m - *pp > 19)
                return 0;
            x = x * pow10[m] + y;
            p += m;
            if (m < 8)
                break;
        }
    }
    *pp = p;
    *v = x;
    return 1;
}

/* A field followed by one space (or, if 'last', by the end of the line or
 * the space before the optional MAXRSS). */
static inline __attribute__((always_inline)) void need_field(struct conv *c, const char **pp, uint64_t *v, const char *what, int last)
{
    if (!parse_u64(pp, v))
        tool_fail(&c->e, "%s: expected a decimal number of at most 19 digits", what);
    if (**pp != ' ' && !(last && **pp == '\n'))
        tool_fail(&c->e, "%s: expected %s after the number", what, last ? "end of line" : "one space");
}

/* Append a trace token to 'out', decoding %XX, then re-escaping as %XX what
 * must not appear in a Massif label: control characters (a line break would
 * break the file), '#' (ms_print cuts lines at '#') and '%' itself.  'out'
 * needs 3 * (end - p) + 1 bytes; the decoded text is made in place there. */
static size_t put_token(char *out, const char *p, const char *end)
{
    size_t n = tool_decode(out + 2 * (size_t)(end - p), p, end);
    return tool_escape(out, out + 2 * (size_t)(end - p), n, "#%");
}

/* "@ ID FUNC FILE LINE" */
static void site_record(struct conv *c, const char *p)
{
    uint64_t id;
    const char *tok[3], *tend[3];
    p += 2;
    if (!parse_u64(&p, &id) || *p != ' ')
        tool_fail(&c->e, "site record: expected '@ ID FUNC FILE LINE'");
    if (id != c->p.ndef + 1)
        tool_fail(&c->e, "site %" PRIu64 " defined out of order (expected %zu)", id, c->p.ndef + 1);
    for (int k = 0; k < 3; k++) {
        tok[k] = ++p;
        while (*p != ' ' && *p != '\n')
            p++;
        tend[k] = p;
        if (tend[k] == tok[k] || (k < 2 && *p != ' '))
            tool_fail(&c->e, "site record: expected '@ ID FUNC FILE LINE'");
    }
    if (*p != '\n')
        tool_fail(&c->e, "site record: expected end of line after LINE");
    for (const char *q = tok[2]; q < tend[2]; q++)
        if (*q < '0' || *q > '9')
            tool_fail(&c->e, "site record: LINE is not a decimal number");
    if (c->p.n == 2) {
        /* the labels were made in pass 1 */
        if (id > c->nsites)
            tool_fail(&c->e, "trace changed while being read");
        c->p.ndef++;
        return;
    }
    /* Massif shows the file name without its directory */
    const char *base = tend[1];
    while (base > tok[1] && base[-1] != '/')
        base--;
    if (base == tend[1])
        base = tok[1];
    size_t len = (size_t)(tend[0] - tok[0]) * 3 + (size_t)(tend[1] - base) * 3
               + (size_t)(tend[2] - tok[2]) + 8;
    char *lab = malloc(len);
    if (!lab)
        tool_fail(&c->e, "out of memory");
    size_t n = put_token(lab, tok[0], tend[0]), flen = n;
    lab[n++] = ' ';
    lab[n++] = '(';
    n += put_token(lab + n, base, tend[1]);
    lab[n++] = ':';
    memcpy(lab + n, tok[2], (size_t)(tend[2] - tok[2]));
    n += (size_t)(tend[2] - tok[2]);
    lab[n++] = ')';
    lab[n] = 0;
    if (c->nsites == c->cap_sites) {
        size_t ncap = c->cap_sites ? c->cap_sites * 2 : 64;
        c->sites = tool_realloc(&c->e, c->sites, ncap * sizeof *c->sites);
        c->cap_sites = ncap;
    }
    memset(&c->sites[c->nsites], 0, sizeof c->sites[0]);
    c->sites[c->nsites].label = lab;
    c->sites[c->nsites].flen = flen;
    c->nsites++;
    c->p.ndef++;
}

/* "OP ID RECNO TOTAL SITE [MAXRSS]" */
static const char *op_record(struct conv *c, const char *p)
{
    int op = *p;
    uint64_t id, recno = 0, total, site = 0, rss;
    p += 2;
    need_field(c, &p, &id, "ID", 0);
    p++;
    if (c->p.n == 1) {
        need_field(c, &p, &recno, "RECNO", 0);
    } else {                    /* validated by pass 1: only skip it */
        p = skip_digits(p);
        if (*p != ' ')
            tool_fail(&c->e, "trace changed while being read");
    }
    p++;
    need_field(c, &p, &total, "TOTAL", 0);
    p++;
    if (c->p.n == 1)
        need_field(c, &p, &site, "SITE", 1);
    else
        p = skip_digits(p);
    if (*p == ' ') {
        p++;
        if (c->gp.pt) {            /* only the gnuplot script uses MAXRSS */
            need_field(c, &p, &rss, "MAXRSS", 1);
            if (!c->p.have_rss)
                c->p.rss0 = rss;
            c->p.have_rss = 1;
            if (rss > c->p.rss)
                c->p.rss = rss;
        } else {
            const char *q = skip_digits(p);
            if (q == p || q - p > 19)
                need_field(c, &p, &rss, "MAXRSS", 1);   /* says what is wrong */
            p = q;
        }
        if (*p != '\n')
            tool_fail(&c->e, "MAXRSS: expected end of line after the number");
    } else {
        /* Basilisk built without getrusage writes no MAXRSS */
        if (*p != '\n')
            tool_fail(&c->e, "trace changed while being read");
    }
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "site %" PRIu64 " used before its '@' record", id);
    if (c->p.n == 1 && recno != c->p.nrec)
        tool_fail(&c->e, "record number %" PRIu64 ", expected %" PRIu64, recno, c->p.nrec);
    if (total > MAX_BYTES)
        tool_fail(&c->e, "TOTAL %" PRIu64 " is beyond any real heap", total);
    struct site *s = &c->sites[id - 1];
    uint64_t size, expect;
    if (op == '+' || op == '>') {
        if (total < c->p.prev_total)
            tool_fail(&c->e, "'%c' record: TOTAL went down (%" PRIu64 " -> %" PRIu64 ")",
                 op, c->p.prev_total, total);
        size = total - c->p.prev_total;
        /* the site's live bytes after this record; a pending '<' of the same
         * site has not been applied yet */
        uint64_t base = s->live - (c->p.pend && c->p.pend_site == id ? c->p.pend_size : 0);
        expect = base + size;
    } else {
        if (total > c->p.prev_total)
            tool_fail(&c->e, "'%c' record: TOTAL went up (%" PRIu64 " -> %" PRIu64 ")",
                 op, c->p.prev_total, total);
        size = c->p.prev_total - total;
        uint64_t live = s->live - (c->p.pend && c->p.pend_site == id ? c->p.pend_size : 0);
        if (s->blocks - (c->p.pend && c->p.pend_site == id) == 0)
            tool_fail(&c->e, "'%c' record: site %" PRIu64 " has no live block", op, id);
        if (live < size)
            tool_fail(&c->e, "'%c' record: frees %" PRIu64 " bytes but site %" PRIu64
                 " holds only %" PRIu64, op, size, id, live);
        expect = live - size;
    }
    if (c->p.n == 1 && site != expect)
        tool_fail(&c->e, "SITE is %" PRIu64 " but the replay gives %" PRIu64 " for site %" PRIu64,
             site, expect, id);
    uint64_t rec = c->p.nrec++;
    c->p.prev_total = total;
    const char *next = p + 1;
    switch (op) {
    case '+':
        flush_pending(c);
        ev_alloc(c, id, size, rec);
        break;
    case '-':
        flush_pending(c);
        ev_free(c, id, size, rec);
        break;
    case '<':
        flush_pending(c);
        c->p.pend = 1;
        c->p.pend_site = id;
        c->p.pend_size = size;
        c->p.pend_rec = rec;
        break;
    case '>':
        if (c->p.pend) {
            c->p.pend = 0;
            ev_realloc(c, c->p.pend_site, c->p.pend_size, id, size, c->p.pend_rec);
        } else {
            ev_alloc(c, id, size, rec);     /* realloc(NULL, n) */
        }
        break;
    }
    return next;
}

static void fail_tail(struct conv *c)
{
    c->e.line = c->p.tail_first_line;
    tool_fail(&c->e, "not a trace record (only the last two lines may be other text)");
}

/* "#pool ID": the blocks of site ID come from a pool (MTRACE_MALLOCLIKE),
 * so they get no slop.  It follows the site's '@' record, before any use. */
static void pool_record(struct conv *c, const char *p)
{
    uint64_t id;
    if (!parse_u64(&p, &id) || *p != '\n')
        tool_fail(&c->e, "#pool record: expected '#pool ID'");
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "#pool record: site %" PRIu64 " has no '@' record before it", id);
    if (c->p.n == 2)
        return;
    if (c->sites[id - 1].seen)
        tool_fail(&c->e, "#pool record: site %" PRIu64 " already has blocks", id);
    c->sites[id - 1].pool = 1;
}

/* "#cmd ARGS...": the program's command line, each argument escaped like
 * FUNC and FILE; kept decoded, the arguments joined by one space as in
 * Massif's cmd: line.  The first one counts. */
static void cmd_record(struct conv *c, const char *p, const char *bufend)
{
    const char *end = memchr(p, '\n', (size_t)(bufend - p));
    if (c->p.n == 2 || c->cmd || end == p)
        return;
    c->cmd = tool_realloc(&c->e, NULL, (size_t)(end - p) + 1);
    tool_decode(c->cmd, p, end);
}

/* A metadata record "#NAME ...": #cmd and #pool; others are skipped, so
 * that older converters read newer traces. */
static void meta_record(struct conv *c, const char *p, const char *end)
{
    if (!strncmp(p, "#cmd ", 5))
        cmd_record(c, p + 5, end);
    else if (!strncmp(p, "#pool ", 6))
        pool_record(c, p + 6);
}

/* Process the complete lines in [p, end); end[-1] is '\n'. */
static void parse_lines(struct conv *c, const char *p, const char *end)
{
    while (p < end) {
        c->e.line++;
        int ch = p[0];
        if (ch != '\n' && p[1] == ' ' &&
            (ch == '+' || ch == '-' || ch == '<' || ch == '>' || ch == '@')) {
            if (c->p.tail_n)
                fail_tail(c);
            if (ch != '@') {
                p = op_record(c, p);
                continue;
            }
            site_record(c, p);
        } else if (ch == '#') {   /* metadata: no tail line */
            if (c->p.tail_n)
                fail_tail(c);
            meta_record(c, p, end);
        } else {
            /* not a record: must be one of the two tail lines */
            if (c->p.tail_n == 0) {
                c->p.tail_first_line = c->e.line;
                flush_pending(c);
            }
            if (++c->p.tail_n > 2)
                fail_tail(c);
        }
        p = memchr(p, '\n', (size_t)(end - p));
        p++;
    }
}

/* ------------------------------------------------------------------ */
/* Input: a file read twice; a pipe is spooled to a temporary file      */

struct input {
    int fd;                     /* -1 for memory input (mem[memlen..+PAD) readable) */
    int rfd;                    /* what the passes read: fd, then the copy */
    const char *mem;
    size_t memlen;
    FILE *spool;                /* copy of a non-seekable input */
    int spooling;               /* pass 1 is writing the copy */
    char *buf;
    size_t cap;
};

/* Is the last line s[0..n), which has no newline, a record cut short
 * (else it is a tail line without its newline)? */
static int cut_record(const char *s, size_t n)
{
    return s[0] == '#' || (n >= 2 && s[1] == ' ' && strchr("+-<>@", s[0]));
}

static void run_pass(struct conv *c, struct input *in)
{
    c->e.line = 0;
    if (in->fd < 0) {
        const char *end = in->mem + in->memlen, *last = end;
        while (last > in->mem && last[-1] != '\n')
            last--;
        parse_lines(c, in->mem, last);
        c->p.truncated_line = last != end;
        if (last != end && !cut_record(last, (size_t)(end - last)))
            c->p.truncated_line = 0, c->p.tail_n++;    /* a tail line without newline */
        return;
    }
    size_t have = 0;
    for (;;) {
        if (have == in->cap) {
            size_t old = in->cap;
            if (old >= TOOL_MAX_LINE) {  /* keep memory bounded on a garbage file */
                c->e.line++;
                tool_fail(&c->e, "line longer than %d bytes", TOOL_MAX_LINE);
            }
            in->cap = in->cap ? in->cap * 2 : (size_t)1 << 20;
            in->buf = tool_realloc(&c->e, in->buf, in->cap + PAD);
            memset(in->buf + old, 0, in->cap - old + PAD);
        }
        ssize_t r = read(in->rfd, in->buf + have, in->cap - have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            tool_fail(&c->e, "read error: %s", strerror(errno));
        }
        if (r == 0)
            break;
        if (in->spooling && fwrite(in->buf + have, 1, (size_t)r, in->spool) != (size_t)r)
            tool_fail(&c->e, "cannot write the temporary copy of the input: %s", strerror(errno));
        have += (size_t)r;
        char *last = memrchr(in->buf, '\n', have);
        if (!last)
            continue;
        last++;
        parse_lines(c, in->buf, last);
        have -= (size_t)(last - in->buf);
        memmove(in->buf, last, have);
    }
    c->p.truncated_line = have > 0;
    if (have > 0 && !cut_record(in->buf, have))
        c->p.truncated_line = 0, c->p.tail_n++;
}

/* ------------------------------------------------------------------ */
/* Output                                                               */

static int grp_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;   /* {bytes, id} pairs */
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The first level of a detailed snapshot's tree: the significant sites and
 * the aggregate, by bytes descending then address (the aggregate's is 0);
 * g is scratch space of t->n + 1 pairs. */
static void write_tree(const struct conv *c, FILE *f, const struct snap *s, uint64_t (*g)[2])
{
    const struct tree *t = s->tree;
    size_t ng = t->n + (t->n_insig > 0);
    for (size_t k = 0; k < t->n; k++) {
        g[k][0] = t->e[k].bytes;
        g[k][1] = t->e[k].id;
    }
    if (t->n_insig) {
        g[t->n][0] = t->insig_sum;
        g[t->n][1] = 0;
    }
    qsort(g, ng, sizeof *g, grp_cmp);
    fprintf(f, "n%zu: %" PRIu64 " " MASSIF_ROOT "\n", ng, s->heap);
    for (size_t k = 0; k < ng; k++) {
        if (g[k][1] == 0)
            fprintf(f, " n0: %" PRIu64 " in %" PRIu64 " place%s below massif's threshold (%.2f%%)\n",
                    t->insig_sum, t->n_insig, t->n_insig == 1 ? "," : "s, all", c->o.threshold);
        else
            fprintf(f, " n0: %" PRIu64 " 0x%" PRIX64 ": %s\n", g[k][0], g[k][1],
                    c->sites[g[k][1] - 1].label);
    }
}

/* The Massif file: the three header lines, then the snapshots.  cmd is
 * the program's command line, or the trace's path when it has none. */
static void write_massif(struct conv *c, FILE *f, const char *cmd)
{
    fprintf(f, MASSIF_DESC " %s\n" MASSIF_CMD " ", c->o.desc[0] ? c->o.desc : "(none)");
    tool_put_escaped(f, cmd, "#");
    fprintf(f, "\n" MASSIF_TIME_UNIT " %s\n", c->o.time_bytes ? "B" : "i");
    uint64_t (*g)[2] = tool_realloc(&c->e, NULL, (c->nsites + 1) * sizeof *g);
    for (unsigned i = 0; i < c->sn.next_i; i++) {
        const struct snap *s = &c->sn.snaps[i];
        fprintf(f, MASSIF_SEP "\n" MASSIF_SNAPSHOT "=%u\n" MASSIF_SEP "\n"
                MASSIF_TIME "=%" PRId64 "\n" MASSIF_HEAP "=%" PRIu64 "\n"
                MASSIF_EXTRA "=%" PRIu64 "\n" MASSIF_STACKS "=0\n" MASSIF_TREE "=%s\n",
                i, s->time, s->heap, s->extra, !s->tree ? MASSIF_EMPTY
                : s->kind == PEAK ? MASSIF_PEAK : MASSIF_DETAILED);
        if (s->tree)
            write_tree(c, f, s, g);
    }
    free(g);
}

/* Bytes in the unit that keeps the largest value between 1 and 1024. */
static const char *unit_for(uint64_t max, double *div)
{
    static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int k = 0;
    *div = 1;
    while (k < 5 && (double)max >= *div * 1024) {
        *div *= 1024;
        k++;
    }
    return u[k];
}

static void gp_row(FILE *f, const struct conv *c, const struct gp_point *p, double xd, double yd)
{
    fprintf(f, "%.6g %.6g %.6g %.6g", (double)p->x / xd, (double)p->total / yd,
            (double)p->heap / yd, (double)p->rss / yd);
    for (int k = 0; k < c->gp.n; k++)
        fprintf(f, " %.6g", (double)p->site[k] / yd);
    fputc('\n', f);
}

/* Cut s to at most max bytes, "..." included, never inside a UTF-8
 * character: keep its end (a file name) or, if !keep_end, its start and
 * its end (a function: its namespace and its own name).  In place. */
static void shorten(char *s, size_t max, int keep_end)
{
    size_t n = strlen(s), head = keep_end ? 0 : (max - 3) / 2, from;
    if (n <= max)
        return;
    from = n - (max - 3 - head);
    while (head > 0 && (s[head] & 0xC0) == 0x80)
        head--;
    while (from < n && (s[from] & 0xC0) == 0x80)
        from++;
    memcpy(s + head, "...", 3);
    memmove(s + head + 3, s + from, n - from + 1);
}

/* The legend of site id: "0xID: func (file:line)" as the trace names them
 * (decoded: gp_quote makes any text inert), the function cut to 24 bytes
 * and the file to 20 so that the key stays narrow. */
static void gp_site_title(struct conv *c, FILE *f, uint64_t id)
{
    const struct site *s = &c->sites[id - 1];
    const char *lab = s->label, *fl = lab + s->flen + 2, *end = lab + strlen(lab) - 1;
    const char *colon = end;    /* the line number follows the last ':' */
    while (colon > fl && *colon != ':')
        colon--;
    size_t len = (size_t)(end - lab);
    char *func = tool_realloc(&c->e, NULL, len + 2), *file = func + s->flen + 1;
    tool_decode(func, lab, lab + s->flen);
    tool_decode(file, fl, colon);
    shorten(func, 24, 0);
    shorten(file, 20, 1);
    char *t = malloc(len + 64);
    if (t) {
        sprintf(t, "0x%" PRIX64 ": %s (%s%.*s)", id, func, file, (int)(end - colon), colon);
        gp_quote(f, t);
    }
    free(t);
    free(func);
    if (!t)
        tool_fail(&c->e, "out of memory");
}

/* Bounds of the curves and the units of the axes. */
struct gp_axes { double xd, yd; const char *yu; char xlabel[64]; };

static void gp_axes(const struct conv *c, struct gp_axes *a)
{
    uint64_t ymax = 1, xmax = 1;
    for (size_t i = 0; i < c->gp.len; i++) {
        if (c->gp.pt[i].total > ymax) ymax = c->gp.pt[i].total;
        if (c->gp.pt[i].rss > ymax) ymax = c->gp.pt[i].rss;
        if (c->gp.pt[i].x > xmax) xmax = c->gp.pt[i].x;
    }
    if (c->gp.have_peak && c->gp.peak.total > ymax)
        ymax = c->gp.peak.total;
    a->yu = unit_for(ymax, &a->yd);
    if (c->o.time_bytes) {
        snprintf(a->xlabel, sizeof a->xlabel, "time (%s allocated + freed)",
                 unit_for(xmax, &a->xd));
    } else {
        const char *xu = xmax >= 10000000 ? "millions of " : xmax >= 10000 ? "thousands of " : "";
        a->xd = xmax >= 10000000 ? 1e6 : xmax >= 10000 ? 1e3 : 1;
        snprintf(a->xlabel, sizeof a->xlabel, "time (%strace records)", xu);
    }
}

/* The samples in time order, with the exact peak merged in. */
static void gp_data(const struct conv *c, FILE *f, const struct gp_axes *a)
{
    int peak_done = !c->gp.have_peak;
    fputs("$mtrace << EOD\n", f);
    for (size_t i = 0; i < c->gp.len; i++) {
        if (!peak_done && c->gp.peak.x <= c->gp.pt[i].x) {
            gp_row(f, c, &c->gp.peak, a->xd, a->yd);
            peak_done = 1;
        }
        gp_row(f, c, &c->gp.pt[i], a->xd, a->yd);
    }
    if (!peak_done)
        gp_row(f, c, &c->gp.peak, a->xd, a->yd);
    fputs("EOD\n", f);
}

/* One colour per site curve, far from each other and from the total's. */
static const char *const gp_colour[GP_MAX_SITES] = {
    "#D62728", "#2CA02C", "#FF7F0E", "#9467BD", "#8C564B", "#E377C2",
    "#17BECF", "#BCBD22", "#1F3A93", "#7F7F7F", "#006400", "#B8860B"
};

/* The standalone gnuplot script.  Every text that comes from outside (the
 * trace's names, its path, the output's) is written by gp_quote, so
 * gnuplot never runs or expands any of it; the rest is fixed text. */
static void write_gnuplot(struct conv *c, FILE *f, const char *trace, const char *massif_out)
{
    struct gp_axes a;
    gp_axes(c, &a);
    fputs("# gnuplot script written by mtrace2massif " M2M_VERSION ".  Standalone: the data is inline.\n"
          "#   gnuplot -persist THIS_FILE\n"
          "#   gnuplot -e \"set terminal pngcairo size 1200,700; set output 'mem.png'\" THIS_FILE\n"
          "# trace: ", f);
    gp_quote(f, trace);
    fputs("\n# Massif file: ", f);
    gp_quote(f, massif_out);
    fputc('\n', f);
    gp_data(c, f, &a);
    /* the title: the trace's path (its end, if long) and the peak */
    size_t n = strlen(trace);
    char *t = tool_realloc(&c->e, NULL, n + 96);
    strcpy(t, trace);
    shorten(t, 64, 1);
    sprintf(t + strlen(t), ": peak %.4g %s (heap + extra)", (double)c->p.max_total / a.yd, a.yu);
    fputs("set title ", f);
    gp_quote(f, t);
    free(t);
    fprintf(f, " noenhanced\nset xlabel '%s' noenhanced\nset ylabel 'memory (%s)' noenhanced\n",
            a.xlabel, a.yu);
    /* the key below the plot, in up to 4 columns: beside it, it took up
     * to half of the width; inside, it hid curves.  gnuplot overestimates
     * the width of text ("width -3"), which cost a column at 640 pixels */
    fputs("set key below left Left reverse horizontal samplen 2 width -3 maxcols 4 noenhanced\n"
          "set grid\nset yrange [0:*]\nset xrange [0:*]\nset autoscale xfixmax\n"
          "set format y '%g'\nset format x '%g'\n"
          "plot $mtrace using 1:2 with lines linewidth 4 linecolor '#99AACC' title 'total (heap + extra)', \\\n"
          "     $mtrace using 1:3 with lines linewidth 1 linecolor 'black' title 'useful heap'", f);
    if (c->p.have_rss)
        fputs(", \\\n     $mtrace using 1:4 with lines dashtype 2 linecolor 'gray50' title 'max RSS - RSS at start'", f);
    for (int k = 0; k < c->gp.n; k++) {
        fprintf(f, ", \\\n     $mtrace using 1:%d with lines linecolor '%s' title ", 5 + k, gp_colour[k]);
        gp_site_title(c, f, c->gp.ids[k]);
    }
    fputc('\n', f);
}

/* The sites the gnuplot script draws: the largest peaks, those reaching the
 * --threshold share of the heap's peak, at most GP_MAX_SITES of them. */
static void gp_choose(struct conv *c)
{
    uint64_t (*v)[2] = malloc((c->nsites ? c->nsites : 1) * sizeof *v);
    if (!v)
        tool_fail(&c->e, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->nsites; i++)
        if (c->sites[i].peak > 0 &&
            (double)c->sites[i].peak * 100 >= (double)c->p.max_heap * c->o.threshold) {
            v[n][0] = c->sites[i].peak;
            v[n][1] = i + 1;
            n++;
        }
    qsort(v, n, sizeof *v, grp_cmp);
    c->gp.n = n < GP_MAX_SITES ? (int)n : GP_MAX_SITES;
    for (int k = 0; k < c->gp.n; k++)
        c->gp.ids[k] = v[k][1];
    free(v);
}

/* ------------------------------------------------------------------ */
/* The conversion                                                       */

/* Start pass n: what a pass builds (struct pass, the sites' live bytes)
 * starts from zero here, and only here. */
static void begin_pass(struct conv *c, int n)
{
    free(c->p.abn.e);
    free(c->p.abn.head);
    memset(&c->p, 0, sizeof c->p);
    c->p.n = n;
    for (size_t i = 0; i < c->nsites; i++) {
        c->sites[i].live = c->sites[i].blocks = 0;
        c->sites[i].seen = 0;
    }
}

static void free_conv(struct conv *c)
{
    for (size_t i = 0; i < c->nsites; i++)
        free(c->sites[i].label);
    free(c->sites);
    free(c->cmd);
    free(c->p.abn.e);
    free(c->p.abn.head);
    if (c->sn.snaps)
        for (unsigned i = 0; i < c->o.max_snapshots; i++)
            free(c->sn.snaps[i].tree);
    free(c->sn.snaps);
    free(c->sn.tmp_ids);
    free(c->gp.pt);
}

/* Where pass 1 says the exact peak is: at the first peak check (free or
 * shrinking realloc) where the total is the largest, else after the last
 * record; nowhere if the heap never holds a byte. */
static void plan_peak(struct conv *c)
{
    c->peak_ev = UINT64_MAX;
    c->peak_at_end = 0;
    if (c->p.max_total == 0)
        return;
    if (c->p.best_check == c->p.max_total) {
        c->peak_ev = c->p.best_check_ev;
    } else {                    /* the check after the last event */
        c->peak_ev = c->p.ev;
        c->peak_at_end = 1;
    }
}

/* The one warning for a trace without its tail or with its last line cut. */
static void warn_truncated(struct conv *c)
{
    int no_tail = c->p.tail_n == 0, cut = c->p.truncated_line;
    c->truncated = no_tail || cut;
    if (!c->o.quiet && c->truncated)
        fprintf(stderr, "mtrace2massif: %s:%" PRIu64 ": warning: trace is truncated (%s); "
                "converting the %" PRIu64 " complete records\n", c->e.file,
                c->e.line + (uint64_t)cut, cut ? "last line cut short" : "no gnuplot tail",
                c->p.nrec);
}

/* Pass 1: validate, find the largest totals, the sites' peaks and where
 * the exact peak goes. */
static void pass1(struct conv *c, struct input *in)
{
    begin_pass(c, 1);
    run_pass(c, in);
    flush_pending(c);
    c->events1 = c->p.ev;
    c->nrec1 = c->p.nrec;
    plan_peak(c);
    warn_truncated(c);
}

/* Read the input again from its start (a pipe: from the copy pass 1 made). */
static void rewind_input(struct conv *c, struct input *in)
{
    if (in->fd < 0)
        return;
    if (in->spool) {
        fflush(in->spool);
        if (ferror(in->spool))
            tool_fail(&c->e, "cannot write the temporary copy of the input");
        in->rfd = fileno(in->spool);
    }
    if (lseek(in->rfd, 0, SEEK_SET) != 0)
        tool_fail(&c->e, "cannot rewind: %s", strerror(errno));
    in->spooling = 0;   /* the copy is now the source */
}

/* The snapshot policy starts empty: Massif's start-up state. */
static void policy_init(struct conv *c)
{
    memset(&c->sn, 0, sizeof c->sn);
    c->sn.snaps = calloc(c->o.max_snapshots, sizeof *c->sn.snaps);
    c->sn.tmp_ids = malloc((c->nsites ? c->nsites : 1) * sizeof *c->sn.tmp_ids);
    if (!c->sn.snaps || !c->sn.tmp_ids)
        tool_fail(&c->e, "out of memory");
}

/* The gnuplot samples start empty, with the sites to draw chosen from
 * pass 1's peaks (before pass 2 starts). */
static void samples_init(struct conv *c)
{
    memset(&c->gp, 0, sizeof c->gp);
    gp_choose(c);
    c->gp.pt = malloc(GP_POINTS * sizeof *c->gp.pt);
    if (!c->gp.pt)
        tool_fail(&c->e, "out of memory");
}

/* Pass 2: the same replay, taking Massif's snapshots (and the samples). */
static void pass2(struct conv *c, struct input *in, int samples)
{
    rewind_input(c, in);
    if (samples)                /* the sites from pass 1's peaks */
        samples_init(c);
    begin_pass(c, 2);
    policy_init(c);
    observe(c);                 /* Massif's start-up snapshot, at time 0 */
    run_pass(c, in);
    flush_pending(c);
    if (c->p.ev != c->events1 || c->p.nrec != c->nrec1)
        tool_fail(&c->e, "trace changed while being read");
    c->sn.ended = 1;
    if (c->peak_at_end)
        before_release(c, c->p.nrec); /* as if the program freed its heap at exit */
    if (c->gp.pt) {             /* the final state ends the curves */
        c->gp.next = 0;
        gp_event(c, (uint64_t)now(c));
    }
}

/* Convert the input; write the Massif file to 'out' and, if 'gpf' is not
 * NULL, the gnuplot script to it.  Returns 0, or 1 after a message. */
static int convert(struct conv *c, struct input *in, FILE *out, FILE *gpf,
                   const char *trace, const char *out_name)
{
    c->e.prog = "mtrace2massif";
    c->e.err = c->o.quiet ? NULL : stderr;
    if (setjmp(c->e.jb)) {
        free_conv(c);
        return 1;
    }
    pass1(c, in);
    pass2(c, in, gpf != NULL);
    write_massif(c, out, c->cmd ? c->cmd : trace);
    if (gpf)
        write_gnuplot(c, gpf, trace, out_name);
    if (!c->o.quiet && c->p.abn.dropped)
        fprintf(stderr, "mtrace2massif: %s: warning: %" PRIu64 " blocks shrunk in place by "
                "realloc were not remembered; extra-heap may be high by their slack\n",
                c->e.file, c->p.abn.dropped);
    free_conv(c);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Several traces: MPI ranks                                            */

/* One trace of the command line and what its conversion gave (the
 * summary needs only these numbers, so memory stays bounded per file). */
struct job {
    const char *trace;          /* as given; "-" is standard input */
    size_t pos;                 /* position among the traces, from 0 */
    long rank;
    char *out, *gp;             /* output names; gp is NULL without --gnuplot */
    int rc;                     /* 0 converted, 1 not */
    int truncated;
    uint64_t v[4];              /* peak heap, peak heap+extra, leaked, records */
};

/* Basilisk's MPI names: rank r > 0 writes NAME-r.  Returns r, or -1 when
 * the name has no such suffix ("-0", leading zeros and more than 9 digits
 * are not rank numbers, nor is a name that is only "-r"). */
static long rank_suffix(const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k == n || n - k > 9 || name[k] == '0' || k < 2 || name[k - 1] != '-' ||
        name[k - 2] == '/')
        return -1;
    return strtol(name + k, NULL, 10);
}

/* Ranks: r from a NAME-r suffix; 0 for NAME when some NAME-r is given
 * too (whatever the order); for any other name, its position.  "-" is
 * standard input, not a NAME (a trace named "--1" is not its rank 1). */
static void assign_ranks(struct job *j, size_t n)
{
    for (size_t i = 0; i < n; i++)
        j[i].rank = rank_suffix(j[i].trace);
    for (size_t i = 0; i < n; i++) {
        if (j[i].rank >= 0)
            continue;
        size_t len = strlen(j[i].trace);
        j[i].rank = (long)j[i].pos;
        if (!strcmp(j[i].trace, "-"))
            continue;
        for (size_t k = 0; k < n; k++) {
            const char *t = j[k].trace;
            /* t is NAME-r: a rank suffix starting right after NAME */
            if (k != i && !strncmp(t, j[i].trace, len) && t[len] == '-' && rank_suffix(t) > 0 &&
                t[len + 1 + strspn(t + len + 1, "0123456789")] == 0) {
                j[i].rank = 0;
                break;
            }
        }
    }
}

/* The trace's file name without its directory ("stdin" for "-"). */
static const char *trace_base(const char *trace)
{
    const char *slash = strrchr(trace, '/');
    return !strcmp(trace, "-") ? "stdin" : slash ? slash + 1 : trace;
}

/* Does a name pattern give each trace its own name (%r or %n)? */
static int pattern_varies(const char *pat)
{
    for (; *pat; pat++)
        if (*pat == '%' && pat[1]) {
            if (pat[1] == 'r' || pat[1] == 'n')
                return 1;
            pat++;              /* "%%n" is a '%' then an 'n' */
        }
    return 0;
}

/* A name pattern for one trace: %r its rank, %n its file name, %% a '%';
 * any other '%' stays as it is. */
static char *expand(const char *pat, const struct job *j)
{
    const char *base = trace_base(j->trace);
    size_t len = strlen(pat), cap = len + 1 + (len / 2) * (strlen(base) + 24), n = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    for (; *pat; pat++) {
        if (*pat == '%' && pat[1] == 'r') {
            n += (size_t)sprintf(s + n, "%ld", j->rank);
            pat++;
        } else if (*pat == '%' && pat[1] == 'n') {
            n += (size_t)sprintf(s + n, "%s", base);
            pat++;
        } else if (*pat == '%' && pat[1] == '%') {
            s[n++] = '%';
            pat++;
        } else {
            s[n++] = *pat;
        }
    }
    s[n] = 0;
    return s;
}

/* Default output: massif.out.NAME beside the trace (in the current
 * directory for standard input). */
static char *default_out(const char *trace)
{
    const char *name = trace_base(trace);
    /* "stdin" is not inside the argument: no directory to keep */
    size_t dirlen = strcmp(trace, "-") ? (size_t)(name - trace) : 0;
    char *s = malloc(dirlen + strlen(name) + 16);
    if (s) {
        memcpy(s, trace, dirlen);
        sprintf(s + dirlen, "massif.out.%s", name);
    }
    return s;
}

static int ndigits(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static int by_rank(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void put_row(FILE *f, int lw, const char *label, const int *w, const uint64_t *v)
{
    fprintf(f, "%*s", lw, label);
    for (int k = 0; k < 4; k++)
        fprintf(f, "  %*" PRIu64, w[k], v[k]);
    fputc('\n', f);
}

/* The table: one row per trace in rank order (then command-line order),
 * then min and max with the rank where they occur (the lowest rank on
 * ties) and the sum, over the traces converted.  Plain integers in bytes,
 * so that scripts can read it. */
static void print_summary(FILE *f, struct job *j, size_t n)
{
    static const char *head[4] = { "peak heap", "peak heap+extra", "leaked", "records" };
    struct job **row = malloc(n * sizeof *row);
    uint64_t min[4] = { 0 }, max[4] = { 0 }, sum[4] = { 0 }, minr[4] = { 0 }, maxr[4] = { 0 };
    size_t nok = 0;
    long maxrank = 0;
    if (!row) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        row[i] = &j[i];
        if (j[i].rank > maxrank)
            maxrank = j[i].rank;
    }
    qsort(row, n, sizeof *row, by_rank);
    for (size_t i = 0; i < n; i++) {
        const struct job *r = row[i];
        if (r->rc)
            continue;
        for (int k = 0; k < 4; k++) {
            /* strict comparisons: rows are in rank order, so ties keep
             * the lowest rank */
            if (!nok || r->v[k] < min[k])
                min[k] = r->v[k], minr[k] = (uint64_t)r->rank;
            if (!nok || r->v[k] > max[k])
                max[k] = r->v[k], maxr[k] = (uint64_t)r->rank;
            /* saturate rather than wrap (each term is below 2^63) */
            sum[k] = sum[k] > UINT64_MAX - r->v[k] ? UINT64_MAX : sum[k] + r->v[k];
        }
        nok++;
    }
    int w[4], lw = nok ? 7 : 4;         /* "at rank" : "rank" */
    if (ndigits((uint64_t)maxrank) > lw)
        lw = ndigits((uint64_t)maxrank);
    for (int k = 0; k < 4; k++) {
        w[k] = (int)strlen(head[k]);
        if (nok && ndigits(sum[k]) > w[k])
            w[k] = ndigits(sum[k]);     /* the sum is the widest number */
    }
    fprintf(f, "%*s", lw, "rank");
    for (int k = 0; k < 4; k++)
        fprintf(f, "  %*s", w[k], head[k]);
    fputs("  trace\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct job *r = row[i];
        fprintf(f, "%*ld", lw, r->rank);
        for (int k = 0; k < 4; k++) {
            if (r->rc)
                fprintf(f, "  %*s", w[k], "-");
            else
                fprintf(f, "  %*" PRIu64, w[k], r->v[k]);
        }
        fputs("  ", f);
        tool_put_escaped(f, strcmp(r->trace, "-") ? r->trace : "stdin", "#");
        fputs(r->rc ? " (not converted)\n" : r->truncated ? " (truncated)\n" : "\n", f);
    }
    if (nok) {
        put_row(f, lw, "min", w, min);
        put_row(f, lw, "at rank", w, minr);
        put_row(f, lw, "max", w, max);
        put_row(f, lw, "at rank", w, maxr);
        put_row(f, lw, "sum", w, sum);
    }
    free(row);
}

#ifndef MTRACE2MASSIF_NO_MAIN

static void usage(FILE *f)
{
    fputs("usage: mtrace2massif [options] TRACE... [-o OUT]\n"
          "Convert mtrace (or Basilisk MTRACE) traces into Massif output files.\n"
          "TRACE '-' reads standard input.  OUT defaults to massif.out.NAME next to\n"
          "each trace (massif.out.stdin in the current directory for '-'); '-o -'\n"
          "writes to standard output.  In OUT and in --gnuplot's FILE, %r is the\n"
          "trace's rank, %n its file name without the directory, %% a '%'.\n"
          "\n"
          "Several traces (MPI: NAME for rank 0, NAME-r for rank r) are converted\n"
          "one after the other, each into its own file, exactly as alone; OUT and\n"
          "FILE must then contain %r or %n.  A table then goes to standard output:\n"
          "per rank the peak heap, the peak heap + extra, the bytes still live at\n"
          "the end (leaked) and the records; then min and max (with their ranks)\n"
          "and sum over the ranks.\n"
          "\n"
          "options (named and ranged as Massif's; [default]):\n"
          "  --time-unit=B|i             B: bytes allocated + freed [B];\n"
          "                              i: trace records (not instructions)\n"
          "  --max-snapshots=10..1000    snapshots kept [100]\n"
          "  --detailed-freq=1..1000000  every Nth snapshot is detailed [10]\n"
          "  --threshold=0..100          significance, in percent [1.0]\n"
          "  --heap-admin=0..1024        admin bytes per block [8]\n"
          "  --peak-inaccuracy=0..100    intermediate peaks as Massif's [1.0];\n"
          "                              the final peak is always exact\n"
          "  --gnuplot=FILE              also write a standalone gnuplot script\n"
          "  -o OUT, --output=OUT        the Massif file\n"
          "  --summary                   the table for a single trace too\n"
          "  --help, --version\n"
          "Exit status: 0 (also for truncated traces), 1 if a trace could not be\n"
          "converted (the others still are), 2 for a bad command line.\n"
          "See mtrace2massif(1) and doc/mtrace2massif.md.\n", f);
}

static int bad_opt(const char *arg, const char *why)
{
    fprintf(stderr, "mtrace2massif: %s: %s\n", arg, why);
    fputs("Try 'mtrace2massif --help'.\n", stderr);
    return 2;
}

static int num_opt(const char *val, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (!*val || *end || errno || !isfinite(v) || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int int_opt(const char *val, unsigned long lo, unsigned long hi, unsigned *out)
{
    char *end;
    errno = 0;
    if (*val < '0' || *val > '9')
        return 0;
    unsigned long v = strtoul(val, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return 0;
    *out = (unsigned)v;
    return 1;
}

static void desc_add(struct opts *o, const char *arg)
{
    size_t n = strlen(o->desc);
    snprintf(o->desc + n, sizeof o->desc - n, "%s%s", n ? " " : "", arg);
}


struct fname { const char *s; const char *what; const struct job *j; };

static int fname_cmp(const void *a, const void *b)
{
    const struct fname *x = a, *y = b;
    int d = strcmp(x->s, y->s);
    if (d)
        return d;
    return x->j->pos < y->j->pos ? -1 : x->j->pos > y->j->pos;
}

/* Refuse, before anything is written, a command line that would write
 * one file twice or overwrite a trace (such as "-o %n"): sorting all the
 * names makes this O(n log n) for thousands of ranks.  Returns 2 or 0. */
static int check_names(const struct job *j, size_t n)
{
    static const char trace_what[] = "the trace";
    struct fname *f = malloc(3 * n * sizeof *f);
    size_t m = 0;
    int rc = 0;
    if (!f) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(j[i].trace, "-"))
            f[m++] = (struct fname){ j[i].trace, trace_what, &j[i] };
        if (strcmp(j[i].out, "-"))
            f[m++] = (struct fname){ j[i].out, "the Massif file", &j[i] };
        if (j[i].gp)
            f[m++] = (struct fname){ j[i].gp, "the gnuplot script", &j[i] };
    }
    qsort(f, m, sizeof *f, fname_cmp);
    for (size_t i = 1; i < m && !rc; i++)
        if (!strcmp(f[i - 1].s, f[i].s)) {
            if (f[i - 1].what == trace_what && f[i].what == trace_what)
                fprintf(stderr, "mtrace2massif: %s: trace given twice\n", f[i].s);
            else
                fprintf(stderr, "mtrace2massif: %s would be both %s of %s and %s of %s\n",
                        f[i].s, f[i - 1].what, f[i - 1].j->trace, f[i].what, f[i].j->trace);
            fputs("Try 'mtrace2massif --help'.\n", stderr);
            rc = 2;
        }
    free(f);
    return rc;
}

/* Is 'name' something other than a regular file (/dev/null, a FIFO, a
 * terminal)?  Such an output is written in place and never removed:
 * renaming a temporary file over it, or removing it after a failure,
 * would replace or delete the device itself (as root, /dev/null). */
static int special_file(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Convert one trace into its files; fills the job's summary numbers.
 * Returns 0, or 1 after a message (nothing is left behind then). */
static int convert_one(const struct opts *o, struct job *j)
{
    struct conv *c = calloc(1, sizeof *c);
    struct input in = { .fd = -1 };
    char *tmp_name = NULL;
    FILE *out = stdout, *gpf = NULL;
    const char *trace = j->trace, *out_name = j->out;
    int rc = 1, is_stdin = !strcmp(trace, "-"), to_stdout = !strcmp(out_name, "-");
    int gp_special = j->gp && special_file(j->gp);
    if (!c) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 1;
    }
    c->o = *o;
    c->o.gnuplot = j->gp;
    c->e.file = is_stdin ? "stdin" : trace;
    if (is_stdin) {
        in.fd = 0;
    } else {
        in.fd = open(trace, O_RDONLY);
        if (in.fd < 0) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", trace, strerror(errno));
            goto done;
        }
    }
    if (lseek(in.fd, 0, SEEK_CUR) < 0) {
        in.spool = tmpfile();   /* a pipe: keep a copy for the second pass */
        in.spooling = 1;
        if (!in.spool) {
            fprintf(stderr, "mtrace2massif: cannot create a temporary file: %s\n", strerror(errno));
            goto done;
        }
    }
    in.rfd = in.fd;
    posix_fadvise(in.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

    /* write to a temporary name and rename, so a failed conversion never
     * leaves a half-written or stale-looking Massif file */
    if (!to_stdout && special_file(out_name)) {
        out = fopen(out_name, "w");
        if (!out) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            out = stdout;
            goto done;
        }
    } else if (!to_stdout) {
        tmp_name = malloc(strlen(out_name) + 32);
        if (!tmp_name)
            goto done;
        sprintf(tmp_name, "%s.tmp%ld", out_name, (long)getpid());
        out = fopen(tmp_name, "w");
        if (!out) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            out = stdout;
            free(tmp_name);
            tmp_name = NULL;
            goto done;
        }
    }
    if (j->gp) {
        gpf = fopen(j->gp, "w");
        if (!gpf) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", j->gp, strerror(errno));
            goto done;
        }
    }
    static char obuf[1 << 16];  /* one file at a time */
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    rc = convert(c, &in, out, gpf, trace, out_name);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "mtrace2massif: %s: write error\n", out_name);
        rc = 1;
    }
    if (gpf && fflush(gpf) != 0) {
        fprintf(stderr, "mtrace2massif: %s: write error\n", j->gp);
        rc = 1;
    }
    if (rc == 0) {
        /* the replay's own figures: the largest useful heap (the tracer's
         * "max traced memory size"), the largest useful + extra (the
         * Massif file's peak snapshot), what is live after the last record */
        j->v[0] = c->p.max_heap;
        j->v[1] = c->p.max_total;
        j->v[2] = c->p.heap;
        j->v[3] = c->p.nrec;
        j->truncated = c->truncated;
    }
done:
    if (out != stdout)
        fclose(out);
    if (gpf) {
        fclose(gpf);
        if (rc != 0 && !gp_special)
            remove(j->gp);
    }
    if (tmp_name) {
        if (rc == 0 && rename(tmp_name, out_name) != 0) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            rc = 1;
        }
        if (rc != 0)
            remove(tmp_name);
    }
    if (in.spool)
        fclose(in.spool);
    if (in.fd > 0)
        close(in.fd);
    free(in.buf);
    free(tmp_name);
    free(c);
    j->rc = rc;
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o = { 0 };
    o.time_bytes = 1;
    o.max_snapshots = 100;
    o.detailed_freq = 10;
    o.threshold = 1.0;
    o.heap_admin = 8;
    o.peak_inaccuracy = 1.0;
    const char *out_name = NULL;
    int only_files = 0, summary = 0, nstdin = 0;
    /* static: still reachable, so the early exits need no cleanup */
    static struct job *jobs;
    jobs = calloc((size_t)argc, sizeof *jobs);
    size_t n = 0;
    if (!jobs) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        v = v ? v + 1 : "";
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            if (!strcmp(a, "-") && nstdin++)
                return bad_opt(a, "standard input can be read only once");
            jobs[n].trace = a;
            jobs[n].pos = n;
            n++;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            puts("mtrace2massif " M2M_VERSION);
            return 0;
        } else if (!strcmp(a, "-o")) {
            if (++i == argc)
                return bad_opt(a, "needs a file name");
            out_name = argv[i];
        } else if (!strncmp(a, "-o", 2)) {
            out_name = a + 2;
        } else if (!strncmp(a, "--output=", 9)) {
            out_name = v;
        } else if (!strcmp(a, "--summary")) {
            summary = 1;
        } else if (!strncmp(a, "--time-unit=", 12)) {
            if (!strcmp(v, "B"))
                o.time_bytes = 1;
            else if (!strcmp(v, "i"))
                o.time_bytes = 0;
            else if (!strcmp(v, "ms"))
                return bad_opt(a, "traces carry no timestamps; use B or i");
            else
                return bad_opt(a, "expected B or i");
            desc_add(&o, a);
        } else if (!strncmp(a, "--max-snapshots=", 16)) {
            if (!int_opt(v, 10, 1000, &o.max_snapshots))
                return bad_opt(a, "expected an integer in 10..1000");
            desc_add(&o, a);
        } else if (!strncmp(a, "--detailed-freq=", 16)) {
            if (!int_opt(v, 1, 1000000, &o.detailed_freq))
                return bad_opt(a, "expected an integer in 1..1000000");
            desc_add(&o, a);
        } else if (!strncmp(a, "--heap-admin=", 13)) {
            if (!int_opt(v, 0, 1024, &o.heap_admin))
                return bad_opt(a, "expected an integer in 0..1024");
            desc_add(&o, a);
        } else if (!strncmp(a, "--threshold=", 12)) {
            if (!num_opt(v, 0, 100, &o.threshold))
                return bad_opt(a, "expected a number in 0..100");
            desc_add(&o, a);
        } else if (!strncmp(a, "--peak-inaccuracy=", 18)) {
            if (!num_opt(v, 0, 100, &o.peak_inaccuracy))
                return bad_opt(a, "expected a number in 0..100");
            desc_add(&o, a);
        } else if (!strncmp(a, "--gnuplot=", 10) && *v) {
            o.gnuplot = v;
        } else {
            return bad_opt(a, "unknown option");
        }
    }
    if (n == 0) {
        usage(stderr);
        return 2;
    }
    /* several traces: one file each, so a fixed name cannot do */
    if (out_name && !strcmp(out_name, "-") && (n > 1 || summary))
        return bad_opt("-o -", n > 1 ? "standard output can hold one Massif file only"
                                     : "--summary also writes to standard output");
    if (n > 1 && out_name && !pattern_varies(out_name))
        return bad_opt(out_name, "with several traces, OUT must contain %r (rank) or %n "
                       "(trace name) to name one file per trace");
    if (n > 1 && o.gnuplot && !pattern_varies(o.gnuplot))
        return bad_opt(o.gnuplot, "with several traces, --gnuplot's FILE must contain "
                       "%r (rank) or %n (trace name)");
    assign_ranks(jobs, n);
    for (size_t i = 0; i < n; i++) {
        jobs[i].out = out_name ? expand(out_name, &jobs[i]) : default_out(jobs[i].trace);
        jobs[i].gp = o.gnuplot ? expand(o.gnuplot, &jobs[i]) : NULL;
        if (!jobs[i].out || (o.gnuplot && !jobs[i].gp)) {
            fputs("mtrace2massif: out of memory\n", stderr);
            return 1;
        }
    }
    if (check_names(jobs, n))
        return 2;

    /* one trace after the other: memory is that of the largest one */
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        rc |= convert_one(&o, &jobs[i]);
    if (n > 1 || summary) {
        print_summary(stdout, jobs, n);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fputs("mtrace2massif: standard output: write error\n", stderr);
            rc = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(jobs[i].out);
        free(jobs[i].gp);
    }
    free(jobs);
    return rc;
}

#endif /* MTRACE2MASSIF_NO_MAIN */
