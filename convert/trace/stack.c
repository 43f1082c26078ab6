/* SPDX-License-Identifier: MIT */
/* stack.c - call stacks: the records "#depth N", "#map LO HI BIAS PATH"
 * and "#stack SID ID ADDR..." (doc/trace-format.md), read in pass 1; then,
 * before pass 2, the frames' labels (sym.c) and Massif's allocation
 * tree: each context (a site and its callers) becomes a path from the
 * root, cut as Massif cuts its stacks (massif/ms_main.c, filter_IPs):
 * the --alloc-fn functions off the top, what is below main off the
 * bottom, at most --depth frames.
 * Owns struct stacks (maps, frames, stacks, the tree's nodes).
 * Calls: sym.c (labels, below main), tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* "0x" and 1 to 16 hex digits at *pp. */
static int parse_hex(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    int n = 0;
    if (p[0] != '0' || p[1] != 'x')
        return 0;
    for (p += 2; tool_hex(*p) >= 0; p++, n++)
        x = x << 4 | (uint64_t)tool_hex(*p);
    if (n == 0 || n > 16)
        return 0;
    *pp = p;
    *v = x;
    return 1;
}

/* A decimal number at *pp (at most 19 digits). */
static int parse_dec(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    for (; *p >= '0' && *p <= '9' && p - *pp < 19; p++)
        x = x * 10 + (uint64_t)(*p - '0');
    if (p == *pp || (*p >= '0' && *p <= '9'))
        return 0;
    *pp = p;
    *v = x;
    return 1;
}

/* "#depth N": the longest chain, the site included. */
void depth_record(struct conv *c, const char *p)
{
    uint64_t n;
    if (!parse_dec(&p, &n) || *p != '\n' || n < 1 || n > TRACE_DEPTH_MAX)
        tool_fail(&c->e, "#depth record: expected '#depth N', N from 1 to %d", TRACE_DEPTH_MAX);
    if (c->p.n == 2)
        return;
    if (c->s.depth)
        tool_fail(&c->e, "#depth record: a second one");
    c->s.depth = (unsigned)n;
}

/* Make map m (index + 1) the one in force over its range: the maps it
 * overlaps are unloaded.  'active' stays sorted by address. */
static void activate(struct conv *c, uint32_t m)
{
    struct stacks *s = &c->s;
    const struct map *nm = &s->maps[m - 1];
    size_t k = 0, at = 0;
    for (size_t i = 0; i < s->nactive; i++) {
        const struct map *o = &s->maps[s->active[i] - 1];
        if (o->hi <= nm->lo || o->lo >= nm->hi)
            s->active[k++] = s->active[i];
    }
    s->nactive = k;
    while (at < k && s->maps[s->active[at] - 1].lo < nm->lo)
        at++;
    memmove(s->active + at + 1, s->active + at, (k - at) * sizeof *s->active);
    s->active[at] = m;
    s->nactive++;
}

/* "#map LO HI BIAS PATH" */
void map_record(struct conv *c, const char *p)
{
    struct stacks *s = &c->s;
    uint64_t lo, hi, bias;
    if (!parse_hex(&p, &lo) || *p++ != ' ' || !parse_hex(&p, &hi) || *p++ != ' ' ||
        !parse_hex(&p, &bias) || *p++ != ' ' || *p == '\n' || *p == ' ')
        tool_fail(&c->e, "#map record: expected '#map LO HI BIAS PATH' (hex numbers with 0x)");
    const char *path = p;
    while (*p != ' ' && *p != '\n')
        p++;
    if (*p != '\n')
        tool_fail(&c->e, "#map record: expected end of line after PATH");
    if (lo >= hi)
        tool_fail(&c->e, "#map record: LO is not below HI");
    if (c->p.n == 2)
        return;
    if (s->nmaps == s->cap_maps) {
        s->cap_maps = s->cap_maps ? 2 * s->cap_maps : 16;
        s->maps = tool_realloc(&c->e, s->maps, s->cap_maps * sizeof *s->maps);
        s->active = tool_realloc(&c->e, s->active, s->cap_maps * sizeof *s->active);
    }
    struct map *m = &s->maps[s->nmaps++];
    m->lo = lo;
    m->hi = hi;
    m->bias = bias;
    m->path = tool_realloc(&c->e, NULL, (size_t)(p - path) + 1);
    tool_decode(m->path, path, p);
    activate(c, (uint32_t)s->nmaps);
}

/* The map in force that holds address a (index + 1), or 0. */
static uint32_t map_of(const struct stacks *s, uint64_t a)
{
    size_t lo = 0, hi = s->nactive;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct map *m = &s->maps[s->active[mid] - 1];
        if (a < m->lo)
            hi = mid;
        else if (a >= m->hi)
            lo = mid + 1;
        else
            return s->active[mid];
    }
    return 0;
}

static size_t frame_hash(uint64_t addr, uint32_t map, size_t mask)
{
    uint64_t h = (addr ^ (uint64_t)map << 48) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 20) & mask;
}

/* Double the frame table's hash (kept at most half full). */
static void frame_rehash(struct conv *c)
{
    struct stacks *s = &c->s;
    size_t n = s->nhash ? 2 * s->nhash : 1024;
    free(s->hash);
    s->hash = calloc(n, sizeof *s->hash);
    if (!s->hash)
        tool_fail(&c->e, "out of memory");
    s->nhash = n;
    for (size_t i = 0; i < s->nframes; i++) {
        size_t h = frame_hash(s->frames[i].addr, s->frames[i].map, n - 1);
        while (s->hash[h])
            h = (h + 1) & (n - 1);
        s->hash[h] = (uint32_t)i + 1;
    }
}

/* The frame of (addr, map), made if new; its index. */
static uint32_t frame_of(struct conv *c, uint64_t addr, uint32_t map)
{
    struct stacks *s = &c->s;
    if (2 * (s->nframes + 1) > s->nhash)
        frame_rehash(c);
    size_t h = frame_hash(addr, map, s->nhash - 1);
    for (; s->hash[h]; h = (h + 1) & (s->nhash - 1)) {
        const struct frame *f = &s->frames[s->hash[h] - 1];
        if (f->addr == addr && f->map == map)
            return s->hash[h] - 1;
    }
    if (s->nframes == s->cap_frames) {
        s->cap_frames = s->cap_frames ? 2 * s->cap_frames : 256;
        s->frames = tool_realloc(&c->e, s->frames, s->cap_frames * sizeof *s->frames);
    }
    s->frames[s->nframes] = (struct frame){ addr, map, NULL, NULL };
    s->hash[h] = (uint32_t)++s->nframes;
    return (uint32_t)s->nframes - 1;
}

/* Room for n more frame indexes in the pool. */
static void pool_room(struct conv *c, size_t n)
{
    struct stacks *s = &c->s;
    while (s->npool + n > s->cap_pool) {
        s->cap_pool = s->cap_pool ? 2 * s->cap_pool : 1024;
        s->pool = tool_realloc(&c->e, s->pool, s->cap_pool * sizeof *s->pool);
    }
}

/* "#stack SID ID ADDR...": the return addresses, innermost first, each
 * kept as Massif shows it (minus one: the call) with its map. */
void stack_record(struct conv *c, const char *p)
{
    struct stacks *s = &c->s;
    uint64_t sid, id, ra;
    if (!parse_dec(&p, &sid) || *p++ != ' ' || !parse_dec(&p, &id))
        tool_fail(&c->e, "#stack record: expected '#stack SID ID ADDR...'");
    if (sid != c->p.nstacks + 1)
        tool_fail(&c->e, "stack %" PRIu64 " defined out of order (expected %zu)", sid, c->p.nstacks + 1);
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "#stack record: site %" PRIu64 " has no '@' record before it", id);
    if (!c->s.depth)
        tool_fail(&c->e, "#stack record before the #depth record");
    c->p.nstacks++;
    if (c->p.n == 2)
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->st = tool_realloc(&c->e, s->st, s->cap * sizeof *s->st);
    }
    struct stack *st = &s->st[s->n++];
    *st = (struct stack){ .site = id, .first = (uint32_t)s->npool };
    while (*p == ' ') {
        p++;
        if (!parse_hex(&p, &ra) || ra == 0)
            tool_fail(&c->e, "#stack record: a return address is not a non-zero hex number with 0x");
        if (st->n + 1 >= s->depth)
            tool_fail(&c->e, "#stack record: more than the %u frames of #depth", s->depth);
        pool_room(c, 1);
        s->pool[s->npool++] = frame_of(c, ra - 1, map_of(s, ra));
        st->n++;
    }
    if (*p != '\n')
        tool_fail(&c->e, "#stack record: expected ' 0x...' or end of line");
}

/* ------------------------------------------------------------------ */
/* The tree of contexts                                                 */

/* Massif's default allocation functions (ms_main.c, init_alloc_fns). */
static const char *const massif_alloc_fns[] = {
    "malloc", "__builtin_new", "operator new(unsigned)", "operator new(unsigned long)",
    "__builtin_vec_new", "operator new[](unsigned)", "operator new[](unsigned long)",
    "calloc", "realloc", "memalign", "posix_memalign", "valloc",
    "operator new(unsigned, std::nothrow_t const&)",
    "operator new[](unsigned, std::nothrow_t const&)",
    "operator new(unsigned long, std::nothrow_t const&)",
    "operator new[](unsigned long, std::nothrow_t const&)",
};

static int alloc_fn(const struct conv *c, const char *fn)
{
    if (!fn)
        return 0;
    for (size_t i = 0; i < sizeof massif_alloc_fns / sizeof *massif_alloc_fns; i++)
        if (!strcmp(fn, massif_alloc_fns[i]))
            return 1;
    for (size_t i = 0; i < c->o.n_alloc_fns; i++)
        if (!strcmp(fn, c->o.alloc_fns[i]))
            return 1;
    return 0;
}

/* An element of a chain: a site (its ID) or a frame (site 0). */
struct elem { uint32_t site, frame; };

static const char *elem_fn(const struct conv *c, struct elem e)
{
    return e.site ? c->sites[e.site - 1].func : c->s.frames[e.frame].fn;
}

/* Massif's VG_(XT_offset_main_or_below_main): from the outermost frame
 * inwards, the frames below main up to the first main; the innermost of
 * them, or the last frame if there is none. */
static size_t main_or_below(const struct conv *c, const struct elem *e, size_t n)
{
    size_t mbm = n - 1;
    int found = 0;
    for (size_t i = n; i-- > 0;) {
        const char *fn = elem_fn(c, e[i]);
        if (!fn)
            continue;
        if (!strcmp(fn, "main"))
            return i;
        if (below_main(fn))
            mbm = i, found = 1;
    }
    return found ? mbm : n - 1;
}

static size_t node_hash(uint32_t parent, struct elem e, size_t mask)
{
    uint64_t h = ((uint64_t)parent << 32 | e.frame) * UINT64_C(0x9E3779B97F4A7C15) ^
                 (uint64_t)e.site * UINT64_C(0xC2B2AE3D27D4EB4F);
    return (size_t)(h >> 20) & mask;
}

/* The child of 'parent' for e, made if new; hash maps (parent, e) to it. */
static uint32_t child_of(struct conv *c, uint32_t **hash, size_t *nhash, uint32_t parent,
                         struct elem e)
{
    struct stacks *s = &c->s;
    size_t h = node_hash(parent, e, *nhash - 1);
    for (; (*hash)[h]; h = (h + 1) & (*nhash - 1)) {
        const struct node *n = &s->nodes[(*hash)[h]];
        if (n->parent == parent && n->site == e.site && (e.site || n->frame == e.frame))
            return (*hash)[h];
    }
    if (s->nnodes == s->cap_nodes) {
        s->cap_nodes *= 2;
        s->nodes = tool_realloc(&c->e, s->nodes, s->cap_nodes * sizeof *s->nodes);
    }
    uint32_t k = (uint32_t)s->nnodes++;
    s->nodes[k] = (struct node){ .parent = parent, .next = s->nodes[parent].child,
        .site = e.site, .frame = e.frame,
        .order = e.site ? e.site : s->frames[e.frame].addr };
    s->nodes[parent].child = k;
    (*hash)[h] = k;
    return k;
}

/* The node of a context: its chain e[0..n) cut as Massif cuts a stack,
 * then a path from the root.  When every frame is an allocation function
 * Massif ignores the block; the outermost frame is kept instead, so that
 * the heap stays the tracer's. */
static uint32_t context(struct conv *c, uint32_t **hash, size_t *nhash, const struct elem *e,
                        size_t n)
{
    size_t top = 0, mbm = main_or_below(c, e, n), nsel;
    while (top < n && alloc_fn(c, elem_fn(c, e[top])))
        top++;
    if (top == n)
        top = n - 1;
    nsel = mbm < top ? 1 : mbm - top + 1;
    if (nsel > c->o.depth && c->o.depth > 0)
        nsel = c->o.depth;
    uint32_t at = 0;
    for (size_t i = top; i < top + nsel; i++)
        at = child_of(c, hash, nhash, at, e[i]);
    return at;
}

/* The tree: the root, and a path for each site alone (blocks without a
 * known stack) and for each stack.  The hash (parent, element) -> node
 * is needed only here; the tree has at most 1 + sites + pool nodes. */
static void make_tree_nodes(struct conv *c)
{
    struct stacks *s = &c->s;
    size_t most = 1 + c->nsites + s->npool + s->n, nhash = 1024;
    while (nhash < 2 * most)
        nhash *= 2;
    uint32_t *hash = calloc(nhash, sizeof *hash);
    struct elem *e = malloc((s->depth + 1) * sizeof *e);
    s->cap_nodes = 64;
    s->nodes = malloc(s->cap_nodes * sizeof *s->nodes);
    if (!hash || !e || !s->nodes) {
        free(hash), free(e);
        tool_fail(&c->e, "out of memory");
    }
    s->nodes[0] = (struct node){ 0 };
    s->nnodes = 1;
    for (size_t i = 0; i < c->nsites; i++) {
        e[0] = (struct elem){ (uint32_t)i + 1, 0 };
        c->sites[i].node = context(c, &hash, &nhash, e, 1);
    }
    for (size_t k = 0; k < s->n; k++) {
        struct stack *st = &s->st[k];
        e[0] = (struct elem){ (uint32_t)st->site, 0 };
        for (uint32_t j = 0; j < st->n; j++)
            e[1 + j] = (struct elem){ 0, s->pool[st->first + j] };
        st->node = context(c, &hash, &nhash, e, 1 + st->n);
    }
    free(hash);
    free(e);
}

void make_contexts(struct conv *c)
{
    label_frames(c);
    make_tree_nodes(c);
}

void free_stacks(struct stacks *s)
{
    for (size_t i = 0; i < s->nmaps; i++)
        free(s->maps[i].path);
    for (size_t i = 0; i < s->nframes; i++) {
        free(s->frames[i].fn);
        free(s->frames[i].label);
    }
    free(s->maps);
    free(s->active);
    free(s->frames);
    free(s->hash);
    free(s->pool);
    free(s->st);
    free(s->nodes);
    memset(s, 0, sizeof *s);
}
