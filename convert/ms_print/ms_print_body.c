/* SPDX-License-Identifier: MIT */
/* ms_print_body.c - the snapshot section: its lines ("key=value", tree
 * nodes), the table of snapshots and each detailed snapshot's tree.
 *
 * Owns the per-snapshot summary (times, totals, detailed, the peak) that
 * the graph is drawn from, and the tree walk (struct frame, the prefix).
 * The section is read twice: pass 1 collects the summary (and formats the
 * section into memory when the input cannot be re-read), pass 2 prints it.
 * Calls: ms_print_read.c, ms_print_out.c, ms_print_pnum.c, tool.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ms_print_lib.h"

/* A node of the tree being walked, at its depth. */
struct frame {
    uint64_t nkids, i;   /* children announced, children read */
    uint64_t n_insig;    /* insignificant children */
    pnum bytes, insig;   /* own bytes, sum of insignificant children */
    int sig;
};

/* One "key=value" line of a snapshot; returns the value's length and
 * leaves it at c->ln + klen + 1. */
static size_t key_line(struct ctx *c, int have, const char *key)
{
    size_t k = strlen(key);
    if (!have || c->lnlen < k + 1 || memcmp(c->ln, key, k) != 0 ||
        c->ln[k] != '=') {
        char what[40];
        snprintf(what, sizeof what, "\"%s\" line", key);
        fail_got(c, what, have);
    }
    return c->lnlen - k - 1;
}

/* Does s[0..n) contain the text w? */
static int contains(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, w, k) == 0)
            return 1;
    return 0;
}

/* Parse a tree node line "  n<kids>: <bytes><text>".  Returns 0 if the line
 * is not one. */
static int node_line(struct ctx *c, uint64_t *kids, pnum *bytes,
                     const char **digits, const char **text, size_t *tlen)
{
    const char *s = c->ln;
    size_t n = c->lnlen, i = c->lnskip;   /* indentation means nothing */
    if (i >= n || s[i] != 'n')
        return 0;
    i++;
    size_t d = i;
    uint64_t k = 0;
    while (i < n && is_digit((unsigned char)s[i])) {
        unsigned dig = (unsigned)(s[i] - '0');
        /* saturate: a count past 2^64 can never be satisfied anyway */
        k = k > (UINT64_MAX - dig) / 10 ? UINT64_MAX : k * 10 + dig;
        i++;
    }
    if (i == d || i >= n || s[i] != ':')
        return 0;
    i++;
    while (i < n && is_pspace((unsigned char)s[i]))
        i++;
    d = i;
    while (i < n && is_digit((unsigned char)s[i]))
        i++;
    if (i == d)
        return 0;
    *kids = k;
    *digits = s + d;
    *bytes = pn_num(s + d, i - d);
    *text = s + i;
    *tlen = n - i;
    return 1;
}

/* The table's heading: before the first snapshot, and again after each tree. */
void header_row(struct ctx *c)
{
    outs(c, DASHES);
    put_field(c, "n", 1, 3, 0);
    out(c, " ", 1);
    /* "time(<unit>)" padded to 14, as the original's sprintf does */
    c->scratch.n = 0;
    buf_add(c, &c->scratch, "time(", 5);
    buf_add(c, &c->scratch, c->tu.p, c->tu.n);
    buf_add(c, &c->scratch, ")", 1);
    put_field(c, c->scratch.p, c->scratch.n, 14, 0);
    outs(c, "         total(B)   useful-heap(B) extra-heap(B)    stacks(B)\n");
    outs(c, DASHES);
}

/* bytes * 100 / total, or 0 when the total is 0; both the percentage shown
 * and the significance test (which the original computes separately, as
 * bytes * 100 / total and 100 * bytes / total: the same value) */
static pnum pct(pnum bytes, pnum total)
{
    if (!pn_true(total))
        return pn_int(0, 0);
    return pn_div(pn_mul(pn_int(0, 100), bytes), total);
}

/* Read one tree node line and, when printing, print it.  Pushes the frame. */
static void tree_node(struct ctx *c, size_t depth, pnum total)
{
    uint64_t kids;
    pnum bytes;
    const char *digits, *text;
    size_t tlen;
    int have = get_line(c);
    if (!have || !node_line(c, &kids, &bytes, &digits, &text, &tlen))
        fail_got(c, "a tree node line", have);
    /* the original dies on a node larger than its snapshot (or a NaN) */
    int r = pn_cmp(bytes, total);
    if (r == 1 || r == 2) {
        char b[64], t[64];
        pn_str(bytes, b, sizeof b);
        pn_str(total, t, sizeof t);
        tool_fail(&c->e, "tree node of %s bytes is larger than its snapshot's "
                   "total of %s bytes", b, t);
    }
    if (depth >= c->stkcap) {
        size_t cap = c->stkcap ? c->stkcap * 2 : 64;
        if (cap > SIZE_MAX / sizeof *c->stk)
            tool_fail(&c->e, "out of memory");
        c->stk = tool_realloc(&c->e, c->stk, cap * sizeof *c->stk);
        c->stkcap = cap;
    }
    struct frame *f = &c->stk[depth];
    f->nkids = kids;
    f->i = 0;
    f->n_insig = 0;
    f->bytes = bytes;
    f->insig = pn_int(0, 0);
    f->sig = 1;
    if (!c->out)
        return;
    /* the top node is always shown; others when threshold 0 or share >= it */
    pnum share = pct(bytes, total);
    f->sig = depth == 0 || c->thr_zero ||
             (pn_true(total) && pn_ge(share, c->thr));
    if (!f->sig)
        return;
    if (depth > 0) {
        out(c, c->prefix.p, 2 * (depth - 1));
        out(c, "->", 2);
    }
    put_pct(c, share);
    out(c, "% (", 3);
    /* the byte count is printed as written (leading zeros and all) */
    put_field(c, digits, (size_t)(text - digits), 0, 1);
    out(c, "B)", 2);
    out(c, text, tlen);
    out(c, "\n", 1);
}

/* Walk one heap tree, iteratively so that deep trees cannot overflow the
 * C stack.  The prefix of a node at depth d is prefix[0 .. 2d): each level
 * adds "| " or "  " depending on whether more siblings follow. */
static void read_tree(struct ctx *c, pnum total)
{
    size_t depth = 0;
    tree_node(c, 0, total);
    for (;;) {
        struct frame *f = &c->stk[depth];
        if (f->i < f->nkids) {
            f->i++;
            /* the child's midfix goes at prefix[2*depth]; the rest of the
             * buffer (deeper levels of earlier siblings) is stale */
            c->prefix.n = 2 * depth;
            buf_add(c, &c->prefix, f->i == f->nkids ? "  " : "| ", 2);
            depth++;
            tree_node(c, depth, total);
            continue;
        }
        if (c->out && f->sig) {
            if (f->n_insig > 0) {
                out(c, c->prefix.p, 2 * depth);
                out(c, "->", 2);
                put_pct(c, pct(f->insig, total));
                out(c, "% (", 3);
                put_num(c, f->insig, 0);
                char b[80];
                int k = snprintf(b, sizeof b, "B) in %" PRIu64 "+ places, "
                                 "all below ms_print's threshold (", f->n_insig);
                out(c, b, (size_t)k);
                put_float(c, "%05.2f", 5, 1, pn_d(c->thr));
                out(c, "%)\n", 3);
                out(c, c->prefix.p, 2 * depth);
                out(c, "\n", 1);
            }
            if (f->nkids == 0) {
                out(c, c->prefix.p, 2 * depth);
                out(c, "\n", 1);
            }
        }
        if (depth == 0)
            return;
        struct frame *p = &c->stk[depth - 1];
        if (!f->sig) {
            p->n_insig++;
            p->insig = pn_add(p->insig, f->bytes);
        }
        depth--;
    }
}

static void push_snapshot(struct ctx *c, pnum t, pnum total, int det)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        if (cap > SIZE_MAX / sizeof(pnum))
            tool_fail(&c->e, "out of memory");
        c->times = tool_realloc(&c->e, c->times, cap * sizeof(pnum));
        c->totals = tool_realloc(&c->e, c->totals, cap * sizeof(pnum));
        c->det = tool_realloc(&c->e, c->det, cap);
        c->cap = cap;
    }
    c->times[c->n] = t;
    c->totals[c->n] = total;
    c->det[c->n] = (unsigned char)det;
    c->n++;
    if (pn_cmp(total, c->peak) == 1)
        c->peak = total;
}

/* The snapshot section.  Pass 1 (collect) records the summaries; when
 * c->out is set, the section is printed as well. */
void read_body(struct ctx *c, int collect)
{
    static const char *const keys[5] = {
        MASSIF_SNAPSHOT, MASSIF_TIME, MASSIF_HEAP, MASSIF_EXTRA, MASSIF_STACKS
    };
    int have = get_line(c);
    while (have) {
        pnum v[5];
        for (int k = 0; k < 5; k++) {
            if (k > 0)
                have = get_line(c);
            size_t len = key_line(c, have, keys[k]);
            const char *val = c->ln + strlen(keys[k]) + 1;
            v[k] = pn_num(val, len);
            if (c->out)
                buf_set(c, &c->fld[k], val, len);
        }
        pnum total = pn_add(pn_add(v[2], v[3]), v[4]);
        size_t len = key_line(c, get_line(c), MASSIF_TREE);
        const char *val = c->ln + sizeof MASSIF_TREE;
        /* as the original: "empty", or any text containing "detailed" or
         * "peak"; the peak mark only for exactly "peak" */
        int empty = len == 5 && memcmp(val, MASSIF_EMPTY, 5) == 0;
        int tree = !empty && (contains(val, len, MASSIF_DETAILED) ||
                              contains(val, len, MASSIF_PEAK));
        if (!empty && !tree)
            tool_fail(&c->e, "expected 'empty' or '...' after '" MASSIF_TREE "='");
        if (tree && len == 4 && memcmp(val, MASSIF_PEAK, 4) == 0)
            c->peak_num = v[0];
        if (collect)
            push_snapshot(c, v[1], total, tree);
        if (c->out) {
            put_field(c, c->fld[0].p, c->fld[0].n, 3, 0);
            out(c, " ", 1);
            put_field(c, c->fld[1].p, c->fld[1].n, 14, 1);
            out(c, " ", 1);
            put_num(c, total, 16);
            out(c, " ", 1);
            put_field(c, c->fld[2].p, c->fld[2].n, 16, 1);
            out(c, " ", 1);
            put_field(c, c->fld[3].p, c->fld[3].n, 13, 1);
            out(c, " ", 1);
            put_field(c, c->fld[4].p, c->fld[4].n, 12, 1);
            out(c, "\n", 1);
        }
        if (tree) {
            read_tree(c, total);
            have = get_line(c);
            if (have)
                header_row(c);
        } else {
            have = get_line(c);
        }
    }
}
