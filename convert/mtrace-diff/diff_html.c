/* SPDX-License-Identifier: MIT */
/* diff_html.c - the page of mtrace-diff --html=FILE: one self-contained
 * HTML file (no network, nothing external; doc/mtrace-diff.md, "The HTML
 * page"): the two runs' figures as JSON in a <script type=
 * "application/json"> element, then the page's style (mtrace2massif's,
 * m2m_page_css, and the diff's own) and script (diff_html_page.c, made
 * from convert/html/diff.css and diff.js by the Makefile), which draw it.
 * No name from the inputs reaches the browser's interpreters: every
 * string is a JSON string with '<', '>', '&', U+2028 and U+2029 escaped
 * (so "</script>" cannot end the element), bytes that are not UTF-8 read
 * as Latin-1, and the script shows them with textContent only.
 * The figures: per run its file, peak and leaked bytes, for a trace its
 * time buckets and the contexts' bytes at the peak (struct dpage, from
 * diff_trace.c), for a report its sites' peaks; and the table's rows as
 * diff_table.c orders them.  Written under a temporary name and renamed
 * (a device in place).  Owns nothing that lives beyond the call.
 * Calls: diff_table.c (diff_rows), diff_html_page.c, m2m_html_page.c
 * (the style), tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"

/* s as a JSON string that stays inert inside a <script> element. */
static void jstr(FILE *f, const char *s)
{
    tool_json_str(f, s, strlen(s));
}

static void jnum(FILE *f, const char *sep, uint64_t v)
{
    fprintf(f, "%s%" PRIu64, sep, v);
}

/* A trace's time buckets: their first highest moments, lows, the peak. */
static void put_series(FILE *f, const struct dpage *pg)
{
    static const struct { const char *key; size_t off; } col[] = {
        { "rec", offsetof(struct dbucket, hi_rec) }, { "tb", offsetof(struct dbucket, hi_tb) },
        { "hi", offsetof(struct dbucket, hi) }, { "lo", offsetof(struct dbucket, lo) },
    };
    fputs(",\"series\":{", f);
    for (size_t k = 0; k < sizeof col / sizeof *col; k++) {
        fprintf(f, "%s\"%s\":[", k ? "," : "", col[k].key);
        for (size_t i = 0; i < pg->nb; i++) {
            uint64_t v;
            memcpy(&v, (const char *)&pg->b[i] + col[k].off, sizeof v);
            jnum(f, i ? "," : "", v);
        }
        fputc(']', f);
    }
    fprintf(f, ",\"peak\":{\"bytes\":%" PRIu64 ",\"rec\":%" PRIu64 ",\"tb\":%" PRIu64 "}"
            ",\"end\":{\"bytes\":%" PRIu64 ",\"rec\":%" PRIu64 ",\"tb\":%" PRIu64 "}}",
            pg->peak, pg->peak_rec, pg->peak_tb, pg->end_heap, pg->end_rec, pg->end_tb);
}

/* The flame graph's contexts: a trace's at its peak, a report's sites
 * (each its own peak). */
static void put_flame(FILE *f, const struct run *r)
{
    const struct dpage *pg = r->pg;
    fprintf(f, ",\"flame\":{\"exact\":%s,\"labels\":[", pg ? "true" : "false");
    if (pg) {
        for (size_t i = 0; i < pg->nlab; i++) {
            if (i)
                fputc(',', f);
            jstr(f, pg->lab[i]);
        }
        fputs("],\"paths\":[", f);
        for (size_t i = 0; i < pg->npath; i++)
            jnum(f, i ? "," : "", pg->path[i]);
    } else {
        for (size_t i = 0; i < r->n; i++) {
            const struct dsite *s = &r->s[i];
            size_t n = strlen(s->func) + strlen(s->file) + 32;
            char *l = malloc(n);
            if (!l)
                continue;       /* the stream's error is checked at the end */
            snprintf(l, n, "%s (%s:%" PRIu64 ")", s->func, s->file, s->line);
            if (i)
                fputc(',', f);
            jstr(f, l);
            free(l);
        }
        fputs("],\"paths\":[", f);
        int first = 1;
        for (size_t i = 0; i < r->n; i++)
            if (r->s[i].v[F_PEAK]) {
                fprintf(f, "%s1,%" PRIu64 ",%zu", first ? "" : ",", r->s[i].v[F_PEAK], i);
                first = 0;
            }
    }
    fputs("]}", f);
}

static void put_run(FILE *f, const struct run *r, const char *file)
{
    fputs("{\"file\":", f);
    jstr(f, strcmp(file, "-") ? file : "stdin");
    fprintf(f, ",\"kind\":\"%s\",\"version\":%" PRIu64 ",\"peak\":%" PRIu64 ",\"leaked\":%" PRIu64
            ",\"cmd\":", r->kind == RUN_TRACE ? "trace" : "report", r->version, r->peak, r->leaked);
    if (r->pg && r->pg->cmd)
        jstr(f, r->pg->cmd);
    else
        fputs("null", f);
    fprintf(f, ",\"stacks\":%s", r->pg && r->pg->stacks ? "true" : "false");
    if (r->pg)
        put_series(f, r->pg);
    else
        fputs(",\"series\":null", f);
    put_flame(f, r);
    fputc('}', f);
}

/* "rows": [func, file, line (a string: it may pass 2^53), state (0: in
 * both, 1: new, 2: gone), have (bit per figure), base's 4 figures, new's
 * 4] each, in the table's order; "same": the unchanged sites. */
static int put_rows(FILE *f, const struct run *base, const struct run *new)
{
    size_t n, same;
    struct drow *r = diff_rows(base, new, &n, &same);
    if (!r)
        return -1;
    fputs(",\"rows\":[", f);
    for (size_t i = 0; i < n; i++) {
        const struct dsite *s = r[i].n ? r[i].n : r[i].b;
        fputs(i ? ",[" : "[", f);
        jstr(f, s->func);
        fputc(',', f);
        jstr(f, s->file);
        fprintf(f, ",\"%" PRIu64 "\",%d,%u", s->line, !r[i].b ? 1 : !r[i].n ? 2 : 0, r[i].have);
        for (int k = 0; k < 2; k++)
            for (int fig = 0; fig < NFIG; fig++) {
                const struct dsite *x = k ? r[i].n : r[i].b;
                jnum(f, ",", x ? x->v[fig] : 0);
            }
        fputc(']', f);
    }
    fprintf(f, "],\"same\":%zu", same);
    free(r);
    return 0;
}

static int put_page(FILE *f, const struct run *base, const struct run *new,
                    const char *const files[2])
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"mtrace-diff " DIFF_VERSION "\">\n"
          "<title>mtrace-diff</title>\n<style>\n", f);
    fputs(m2m_page_css, f);
    fputs(m2m_diff_css, f);
    fputs("</style></head>\n<body>\n<noscript>This page draws its views with JavaScript."
          "</noscript>\n<script type=\"application/json\" id=\"mtrace-diff-data\">", f);
    fputs("{\"format\":1,\"tool\":\"mtrace-diff " DIFF_VERSION "\",\"runs\":[", f);
    put_run(f, base, files[0]);
    fputc(',', f);
    put_run(f, new, files[1]);
    fputc(']', f);
    if (put_rows(f, base, new) != 0)
        return -1;
    fputs("}</script>\n<script>\n", f);
    fputs(m2m_common_js, f);            /* the helpers diff.js uses, then it */
    fputs(m2m_diff_js, f);
    fputs("</script>\n</body></html>\n", f);
    return 0;
}

/* put_page's arguments, for tool_write_file. */
struct page_args { const struct run *base, *new; const char *const *files; };

static int put_page_args(FILE *f, void *arg)
{
    const struct page_args *a = arg;
    return put_page(f, a->base, a->new, a->files);
}

int write_page(const char *name, const struct run *base, const struct run *new,
               const char *const files[2])
{
    struct page_args a = { base, new, files };
    return tool_write_file("mtrace-diff", name, put_page_args, &a) ? 2 : 0;
}
