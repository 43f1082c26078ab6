/* SPDX-License-Identifier: MIT */
/* diff_table.c - two runs compared: the header line (global peak and
 * leaked bytes of both, their change in percent), the table of changes
 * per site matched by (function, file, line), largest absolute change of
 * the peak first (then of the total, the leaks, the calls), new and
 * vanished sites marked, unchanged sites counted (the rows are the
 * page's too: diff_html.c); and the gate of
 * --fail-on-increase, in exact integer arithmetic.
 * Calls: diff_run.c (site_cmp), tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static void row_make(struct drow *r, const struct dsite *b, const struct dsite *n)
{
    r->b = b;
    r->n = n;
    r->have = (b ? b->have : ~0u) & (n ? n->have : ~0u);
    for (int f = 0; f < NFIG; f++) {
        uint64_t x = b ? b->v[f] : 0, y = n ? n->v[f] : 0;
        r->neg[f] = y < x;
        r->mag[f] = !(r->have >> f & 1) ? 0 : y < x ? x - y : y - x;
    }
}

/* The order of the sort: the figures' changes, largest first. */
static const int order[NFIG] = { F_PEAK, F_TOTAL, F_LEAKED, F_CALLS };

static int by_change(const void *pa, const void *pb)
{
    const struct drow *a = pa, *b = pb;
    for (int k = 0; k < NFIG; k++) {
        uint64_t x = a->mag[order[k]], y = b->mag[order[k]];
        if (x != y)
            return x < y ? 1 : -1;
    }
    return site_cmp(a->n ? a->n : a->b, b->n ? b->n : b->b);
}

/* The rows of the sites that changed (a merge of the two sorted runs);
 * *same counts the others.  Also the page's table (diff_html.c). */
struct drow *diff_rows(const struct run *base, const struct run *new, size_t *nrows, size_t *same)
{
    struct drow *r = calloc(base->n + new->n + 1, sizeof *r);
    size_t i = 0, j = 0, k = 0;
    *same = 0;
    if (!r)
        return NULL;
    while (i < base->n || j < new->n) {
        int c = i == base->n ? 1 : j == new->n ? -1 : site_cmp(&base->s[i], &new->s[j]);
        row_make(&r[k], c <= 0 ? &base->s[i] : NULL, c >= 0 ? &new->s[j] : NULL);
        i += c <= 0;
        j += c >= 0;
        int changed = !r[k].b || !r[k].n;
        for (int f = 0; f < NFIG; f++)
            changed |= r[k].mag[f] != 0;
        if (changed)
            k++;
        else
            ++*same;
    }
    qsort(r, k, sizeof *r, by_change);
    *nrows = k;
    return r;
}

/* A change as the table shows it: "+N", "-N", "0", or "-" when one of
 * the runs lacks the figure. */
static const char *delta(char buf[32], const struct drow *r, int f)
{
    if (!(r->have >> f & 1))
        return "-";
    if (r->mag[f] == 0)
        return "0";
    snprintf(buf, 32, "%c%" PRIu64, r->neg[f] ? '-' : '+', r->mag[f]);
    return buf;
}

/* "(+12.5%)": the change from x to y in percent; "(from 0)" when x is 0. */
static const char *percent(char buf[48], uint64_t x, uint64_t y)
{
    if (x == 0)
        return y ? "(from 0)" : "(+0.0%)";
    double p = ((double)y - (double)x) * 100.0 / (double)x;
    snprintf(buf, 48, "(%+.1f%%)", p);
    return buf;
}

static void print_row(FILE *f, const struct drow *r)
{
    char b[NFIG][32], fn[256], file[256];
    const struct dsite *s = r->n ? r->n : r->b;
    tool_shown(fn, sizeof fn, s->func, strlen(s->func));
    tool_shown(file, sizeof file, s->file, strlen(s->file));
    fprintf(f, "%13s %13s %10s %13s  %s %s:%" PRIu64 "%s\n", delta(b[0], r, F_PEAK),
            delta(b[1], r, F_TOTAL), delta(b[2], r, F_CALLS), delta(b[3], r, F_LEAKED),
            fn, file, s->line, !r->b ? "  (new)" : !r->n ? "  (gone)" : "");
}

void print_diff(FILE *f, const struct run *base, const struct run *new)
{
    char p1[48], p2[48];
    size_t n = 0, same = 0;
    struct drow *r = diff_rows(base, new, &n, &same);
    fprintf(f, "peak: %" PRIu64 " -> %" PRIu64 " bytes %s, leaked: %" PRIu64 " -> %" PRIu64
            " bytes %s\n", base->peak, new->peak, percent(p1, base->peak, new->peak),
            base->leaked, new->leaked, percent(p2, base->leaked, new->leaked));
    if (!r) {
        fputs("mtrace-diff: out of memory\n", stderr);
        exit(2);
    }
    fprintf(f, "%13s %13s %10s %13s  %s\n", "peak bytes", "total bytes", "calls",
            "leaked bytes", "site (change from BASE to NEW)");
    for (size_t i = 0; i < n; i++)
        print_row(f, &r[i]);
    if (same)
        fprintf(f, "(%zu site%s unchanged)\n", same, same == 1 ? "" : "s");
    else if (!n)
        fputs("(no sites)\n", f);
    free(r);
}

/* Did x grow to y by more than pct_micro / 1e6 percent?  Exact:
 * (y - x) * 100 * 1e6 > pct_micro * x, so growth from 0 always counts. */
static int grew(uint64_t x, uint64_t y, uint64_t pct_micro)
{
    return y > x && (unsigned __int128)(y - x) * 100000000u > (unsigned __int128)pct_micro * x;
}

/* "the peak grew by 25.0% (800 -> 1000 bytes)", or "from 0 to N bytes". */
static int phrase(char *buf, size_t cap, const char *what, uint64_t x, uint64_t y)
{
    if (x == 0)
        return snprintf(buf, cap, "%s grew from 0 to %" PRIu64 " bytes", what, y);
    return snprintf(buf, cap, "%s grew by %.1f%% (%" PRIu64 " -> %" PRIu64 " bytes)", what,
                    ((double)y - (double)x) * 100.0 / (double)x, x, y);
}

int gate(const struct run *base, const struct run *new, uint64_t pct_micro, const char *pct)
{
    char a[160] = "", b[160] = "";
    int peak = grew(base->peak, new->peak, pct_micro);
    int leak = grew(base->leaked, new->leaked, pct_micro);
    if (!peak && !leak)
        return 0;
    if (peak)
        phrase(a, sizeof a, "the peak", base->peak, new->peak);
    if (leak)
        phrase(b, sizeof b, "the leaked bytes", base->leaked, new->leaked);
    fprintf(stderr, "mtrace-diff: %s%s%s, more than --fail-on-increase=%s%%\n", a,
            peak && leak ? " and " : "", b, pct);
    return 1;
}
