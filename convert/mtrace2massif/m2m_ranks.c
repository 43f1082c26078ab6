/* SPDX-License-Identifier: MIT */
/* m2m_ranks.c - several traces (the files of an MPI run: NAME for rank
 * 0, NAME-r for rank r): their ranks, the names of their output files
 * (%r, %n patterns, massif.out.NAME by default), the check that no two
 * files are one, and the table of peaks and leaks per rank and across
 * ranks.  Owns nothing but struct job's fields it fills (rank, names).
 * Calls: tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

/* Ranks: r from a NAME-r suffix; 0 for NAME when some NAME-r is given
 * too (whatever the order); for any other name, its position.  "-" is
 * standard input, not a NAME (a trace named "--1" is not its rank 1). */
void assign_ranks(struct job *j, size_t n)
{
    for (size_t i = 0; i < n; i++)
        j[i].rank = tool_rank_suffix(j[i].trace);
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
            if (k != i && !strncmp(t, j[i].trace, len) && t[len] == '-' && tool_rank_suffix(t) > 0 &&
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
int pattern_varies(const char *pat)
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
char *expand(const char *pat, const struct job *j)
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
char *default_out(const char *trace)
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
void print_summary(FILE *f, struct job *j, size_t n)
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
int check_names(const struct job *j, size_t n)
{
    static const char trace_what[] = "the trace";
    struct fname *f = malloc(4 * n * sizeof *f);
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
        if (j[i].html)
            f[m++] = (struct fname){ j[i].html, "the HTML page", &j[i] };
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
