/* SPDX-License-Identifier: MIT */
/* m2m_html.c - the HTML page of --html=FILE: one self-contained file (no
 * network, nothing external), the figures of m2m_html_data.c as JSON in a
 * <script type="application/json"> element, then the page's own style and
 * script (m2m_html_page.c, made from convert/html/ by the Makefile), which
 * draw it.  No text of the trace reaches the browser's interpreters: every
 * string is a JSON string with '<', '>', '&', U+2028 and U+2029 escaped
 * (so "</script>" cannot end the element), bytes that are not UTF-8 read
 * as Latin-1, and the script shows them with textContent only.
 * Several traces and one FILE (an MPI run): each trace's figures go to
 * its temporary file as it is converted (o.html_part), and the page is
 * made of them all at the end (write_run_page), each in its own element,
 * with run.js, which draws the ranks.
 * Written under a temporary name and renamed (devices in place).
 * Owns nothing that lives beyond the call.
 * Calls: m2m_html_data.c (html_final), m2m_ranks.c (jobs_by_rank), tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m2m.h"

/* s[0..n) as a JSON string that is inert inside a <script> element. */
static void json_str(FILE *f, const char *s, size_t n)
{
    tool_json_str(f, s, n);
}

/* A Massif label's text (%XX escapes) decoded, as a JSON string. */
static void json_label(struct conv *c, FILE *f, const char *p, const char *end)
{
    char *d = tool_realloc(&c->e, NULL, (size_t)(end - p) + 1);
    size_t n = tool_decode(d, p, end);
    json_str(f, d, n);
    free(d);
}

static void json_u64s(FILE *f, const char *key, const uint64_t *v, size_t n)
{
    if (key)
        fprintf(f, "\"%s\":", key);
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, v[i]);
    fputs("]", f);
}

/* "sites": [function, file, line, peak] each; the file and line from the
 * label "func (file:line)", the file without its directory. */
static void put_sites(struct conv *c, FILE *f)
{
    fputs(",\"sites\":[", f);
    for (size_t i = 0; i < c->nsites; i++) {
        const struct site *s = &c->sites[i];
        const char *fl = s->label + s->flen + 2, *end = s->label + strlen(s->label) - 1;
        const char *colon = end;
        while (colon > fl && *colon != ':')
            colon--;
        fputs(i ? ",[" : "[", f);
        json_str(f, s->func, strlen(s->func));
        fputc(',', f);
        json_label(c, f, fl, colon);
        fprintf(f, ",%.*s,%" PRIu64 "]", (int)(end - colon - 1), colon + 1, s->peak);
    }
    fputs("]", f);
}

/* "frames": their labels (one line per inlined function); "nodes": the
 * allocation tree, [parent, site, frame] each, node 0 the root. */
static void put_tree(struct conv *c, FILE *f)
{
    const struct stacks *s = &c->s;
    fputs(",\"frames\":[", f);
    for (size_t i = 0; i < s->nframes; i++) {
        const char *lab = s->frames[i].label ? s->frames[i].label : "???";
        if (i)
            fputc(',', f);
        json_label(c, f, lab, lab + strlen(lab));
    }
    fputs("],\"nodes\":[", f);
    for (size_t i = 0; i < s->nnodes; i++)
        fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu32, i ? "," : "", s->nodes[i].parent,
                s->nodes[i].site, s->nodes[i].frame);
    fputs("]", f);
}

/* "ctx": [node, site, calls, blocks, bytes, temporaries, peak, live bytes,
 * live blocks] each; "hist": [site, size class, count] each, non-zero. */
static void put_contexts(struct conv *c, FILE *f)
{
    const struct html *h = c->h;
    fputs(",\"ctx\":[", f);
    for (size_t i = 0; i < h->nctx; i++) {
        const struct hctx *x = &h->ctx[i];
        size_t site = i < c->nsites ? i + 1 : c->s.st[i - c->nsites].site;
        uint32_t node = i < c->nsites ? c->sites[i].node : c->s.st[i - c->nsites].node;
        fprintf(f, "%s%" PRIu32 ",%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64, i ? "," : "", node, site, x->calls, x->blocks, x->bytes,
                x->temp, x->peak, x->live, x->nlive);
    }
    fputs("],\"hist\":[", f);
    int first = 1;
    for (size_t i = 0; i < c->nsites * 64; i++)
        if (h->hist[i]) {
            fprintf(f, "%s%zu,%zu,%" PRIu64, first ? "" : ",", i / 64 + 1, i % 64, h->hist[i]);
            first = 0;
        }
    fputs("]", f);
}

/* One column of the buckets: the field at offset 'off' of each. */
static void json_col(FILE *f, const char *key, const struct hbucket *b, size_t n, size_t off)
{
    fprintf(f, "\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)&b[i] + off, sizeof v);
        fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, v);
    }
    fputs("],", f);
}

/* "b": the buckets' columns; "top" and "topv": the top sites' bytes. */
static void put_buckets(struct conv *c, FILE *f)
{
    const struct html *h = c->h;
    const struct hbucket *b = h->b;
    size_t n = h->nb;
    fputs(",\"b\":{", f);
    json_col(f, "rec", b, n, offsetof(struct hbucket, rec_end));
    json_col(f, "tb", b, n, offsetof(struct hbucket, tb_end));
    json_col(f, "lo", b, n, offsetof(struct hbucket, lo));
    json_col(f, "hi", b, n, offsetof(struct hbucket, hi));
    json_col(f, "hrec", b, n, offsetof(struct hbucket, hi_rec));
    json_col(f, "htb", b, n, offsetof(struct hbucket, hi_tb));
    json_col(f, "hx", b, n, offsetof(struct hbucket, hi_extra));
    json_col(f, "rss", b, n, offsetof(struct hbucket, rss));
    if (c->p.have_time)         /* the trace's clock: the seconds axis */
        json_col(f, "hns", b, n, offsetof(struct hbucket, hi_t));
    fputs("\"snap\":[", f);
    for (size_t k = 0; k < n; k++)
        fprintf(f, k ? ",%" PRIu32 : "%" PRIu32, b[k].snap);
    fputs("]},\"top\":[", f);
    for (int j = 0; j < h->ntop; j++)
        fprintf(f, j ? ",%" PRIu32 : "%" PRIu32, h->top[j]);
    fputs("],", f);
    json_u64s(f, "topv", h->topv, n * (size_t)h->ntop);
}

/* "snaps": [bucket, [context, bytes, blocks, ...]] each. */
static void put_snapshots(struct conv *c, FILE *f)
{
    const struct html *h = c->h;
    fputs(",\"snaps\":[", f);
    for (size_t s = 0; s < h->nsnaps; s++) {
        const struct hsnap *sn = &h->snaps[s];
        fprintf(f, "%s[%" PRIu32 ",", s ? "," : "", sn->bucket);
        json_u64s(f, NULL, h->ents + sn->first, 3 * sn->n);
        fputs("]", f);
    }
    fprintf(f, "],\"peak_snap\":%zu,\"end_snap\":%zu", h->peak_snap, h->end_snap);
}

/* The run's figures: the header of the page. */
static void put_head(struct conv *c, FILE *f, const char *trace)
{
    const struct html *h = c->h;
    fputs("{\"format\":1,\"tool\":\"mtrace2massif " M2M_VERSION "\",\"trace\":", f);
    json_str(f, trace, strlen(trace));
    fputs(",\"cmd\":", f);
    if (c->cmd)
        json_str(f, c->cmd, strlen(c->cmd));
    else
        fputs("null", f);
    fprintf(f, ",\"truncated\":%s,\"time_unit\":\"%s\",\"depth\":%u,\"records\":%" PRIu64
            ",\"events\":%" PRIu64 ",\"heap_admin\":%u", c->truncated ? "true" : "false",
            c->o.time_ms ? "ms" : c->o.time_bytes ? "B" : "i", c->s.depth, c->p.nrec, c->p.ev,
            c->o.heap_admin);
    fprintf(f, ",\"has_time\":%s,\"clock\":", c->p.have_time ? "true" : "false");
    if (c->p.have_clock)
        fprintf(f, "%" PRIu64, c->p.clock_ns);
    else
        fputs("null", f);
    fprintf(f, ",\"peak_total\":%" PRIu64 ",\"end\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
            ",\"rec\":%" PRIu64 ",\"tb\":%" PRIu64 ",\"ns\":%" PRIu64 "}", c->p.max_total,
            c->p.heap, c->p.nblocks, c->p.time_i, c->p.time_b, c->p.time_ns);
    if (h->peak_bucket < h->nb) {
        const struct hbucket *b = &h->b[h->peak_bucket];
        fprintf(f, ",\"peak\":{\"bytes\":%" PRIu64 ",\"record\":%" PRIu64 ",\"bucket\":%" PRIu64
                ",\"tb\":%" PRIu64 ",\"ns\":%" PRIu64 "}", b->hi, b->hi_rec, h->peak_bucket,
                b->hi_tb, b->hi_t);
    } else {
        fputs(",\"peak\":null", f);
    }
    if (c->cp.seg) {            /* MTRACE_TRACE_MAX dropped the oldest records */
        char text[512];
        trace_dropped_text(&c->cp, text, sizeof text);
        fputs(",\"dropped\":", f);
        json_str(f, text, strlen(text));
    }
    if (h->nb && h->b[h->nb - 1].rss)   /* pass 1 read MAXRSS; pass 2 may not */
        fprintf(f, ",\"rss\":{\"max\":%" PRIu64 "}", h->b[h->nb - 1].rss);
    else
        fputs(",\"rss\":null", f);
}

/* The trace's figures: one JSON object. */
static void put_data(struct conv *c, FILE *f, const char *trace)
{
    put_head(c, f, trace);
    put_sites(c, f);
    put_tree(c, f);
    put_contexts(c, f);
    put_buckets(c, f);
    put_snapshots(c, f);
    fputs("}", f);
}

/* The page up to its data; 'title' is the page's own text. */
static void put_top(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"mtrace2massif " M2M_VERSION "\">\n", f);
    fprintf(f, "<title>%s</title>\n<style>\n", title);
    fputs(m2m_page_css, f);
    fputs("</style></head>\n<body>\n<noscript>This page draws its views with JavaScript."
          "</noscript>\n", f);
}

/* The scripts: the helpers page.js uses, then it (and run.js, which uses
 * both). */
static void put_scripts(FILE *f, int run)
{
    fputs("<script>\n", f);
    fputs(m2m_common_js, f);
    fputs(m2m_page_js, f);
    if (run)
        fputs(m2m_run_js, f);
    fputs("</script>\n</body></html>\n", f);
}

/* put_page's arguments, for tool_write_file. */
struct page_args { struct conv *c; const char *trace; };

static int put_page(FILE *f, void *arg)
{
    struct page_args *a = arg;
    html_final(a->c);
    put_top(f, "mtrace heap profile");
    fputs("<script type=\"application/json\" id=\"mtrace-data\">", f);
    put_data(a->c, f, a->trace);
    fputs("</script>\n", f);
    put_scripts(f, 0);
    return 0;
}

/* Write the page to c->o.html, or its data alone to c->o.html_part (an
 * MPI run's page has a part per trace).  Returns 0, or 1 after a message
 * (and nothing left behind). */
int write_html(struct conv *c, const char *trace)
{
    struct page_args a = { c, trace };
    if (c->o.html_part) {
        html_final(c);
        put_data(c, c->o.html_part, trace);
        if (fflush(c->o.html_part) == 0 && !ferror(c->o.html_part))
            return 0;
        tool_where(stderr, "mtrace2massif", c->o.html, 0);
        fputs("cannot keep this trace's part of the page (temporary file)\n", stderr);
        return 1;
    }
    return tool_write_file("mtrace2massif", c->o.html, put_page, &a) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Several traces, one page (an MPI run): "mtrace-run" lists the traces
 * in rank order, {rank, trace, part}: part K is the element
 * "mtrace-rank-K" holding that trace's data (as a page's), -1 when the
 * trace was not converted.  run.js draws the ranks and, for one picked,
 * page.js its views. */

struct run_args { struct job **row; size_t n; };

/* One trace's part, copied from its temporary file. */
static int copy_part(FILE *f, FILE *part)
{
    char buf[1 << 16];
    size_t k;
    rewind(part);
    while ((k = fread(buf, 1, sizeof buf, part)) > 0)
        fwrite(buf, 1, k, f);
    return ferror(part) ? -1 : 0;
}

static int put_run(FILE *f, void *arg)
{
    const struct run_args *a = arg;
    long part = 0;
    put_top(f, "mtrace heap profile of a run");
    fputs("<script type=\"application/json\" id=\"mtrace-run\">{\"format\":1,\"tool\":"
          "\"mtrace2massif " M2M_VERSION "\",\"ranks\":[", f);
    for (size_t i = 0; i < a->n; i++) {
        const struct job *j = a->row[i];
        const char *name = strcmp(j->trace, "-") ? j->trace : "stdin";
        fprintf(f, "%s{\"rank\":%ld,\"trace\":", i ? "," : "", j->rank);
        tool_json_str(f, name, strlen(name));
        fprintf(f, ",\"part\":%ld}", j->rc ? -1L : part);
        part += !j->rc;
    }
    fputs("]}</script>\n", f);
    part = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->row[i]->rc)
            continue;
        fprintf(f, "<script type=\"application/json\" id=\"mtrace-rank-%ld\">", part++);
        if (copy_part(f, a->row[i]->part))
            return -1;
        fputs("</script>\n", f);
    }
    put_scripts(f, 1);
    return 0;
}

/* The page of several traces, to 'name', from their parts (j[i].part). */
int write_run_page(const char *name, struct job *j, size_t n)
{
    struct run_args a = { jobs_by_rank(j, n), n };
    if (!a.row)
        return 1;
    int rc = tool_write_file("mtrace2massif", name, put_run, &a) ? 1 : 0;
    free(a.row);
    return rc;
}
