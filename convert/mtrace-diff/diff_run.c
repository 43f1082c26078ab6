/* SPDX-License-Identifier: MIT */
/* diff_run.c - a run of mtrace-diff: its sites as a set keyed by
 * (function, file, line), added to by the readers (diff_report.c,
 * diff_trace.c), then sorted and merged; freed with its page's figures.
 * Owns struct run's storage (and struct dpage's).
 * Calls: tool.c. */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

struct dsite *run_add(struct tool_err *e, struct run *r)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->s = tool_realloc(e, r->s, r->cap * sizeof *r->s);
    }
    memset(&r->s[r->n], 0, sizeof r->s[0]);
    return &r->s[r->n++];
}

int site_cmp(const struct dsite *a, const struct dsite *b)
{
    int k = strcmp(a->func, b->func);
    if (!k)
        k = strcmp(a->file, b->file);
    if (!k)
        k = (a->line > b->line) - (a->line < b->line);
    return k;
}

static int by_key(const void *a, const void *b)
{
    return site_cmp(a, b);
}

/* b's figures added to a's (two sites of a run with one name: a call that
 * no macro named, at two addresses addr2line gave one line).  A peak so
 * added is an upper bound of the two sites' joint peak. */
static void merge(struct dsite *a, struct dsite *b)
{
    for (int f = 0; f < NFIG; f++)
        a->v[f] += b->v[f];
    a->have &= b->have;
    free(b->func);
    free(b->file);
}

void run_finish(struct run *r)
{
    size_t k = 0;
    if (r->n)
        qsort(r->s, r->n, sizeof *r->s, by_key);
    for (size_t i = 0; i < r->n; i++) {
        if (k && !site_cmp(&r->s[k - 1], &r->s[i]))
            merge(&r->s[k - 1], &r->s[i]);
        else
            r->s[k++] = r->s[i];
    }
    r->n = k;
}

void run_free(struct run *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->s[i].func);
        free(r->s[i].file);
    }
    free(r->s);
    r->s = NULL;
    r->n = r->cap = 0;
    if (r->pg) {
        for (size_t i = 0; i < r->pg->nlab; i++)
            free(r->pg->lab[i]);
        free(r->pg->lab);
        free(r->pg->path);
        free(r->pg->b);
        free(r->pg->cmd);
        free(r->pg);
        r->pg = NULL;
    }
}
