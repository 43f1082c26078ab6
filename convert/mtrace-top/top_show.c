/* SPDX-License-Identifier: MIT */
/* top_show.c - a snapshot of the traces followed, as plain lines: the
 * figures of one trace (or their sums), the table of ranks when there
 * are several, and the sites that hold the most live bytes (the same
 * site of several ranks, by its label, summed).  Every text that comes
 * from a trace or a name goes through show_safe: nothing of it can be a
 * control character or an escape sequence on a terminal.
 * Owns: the snapshot's layout.  Calls: top_follow.c (follow_clock). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

/* Sites shown when the caller does not say. */
#define SHOW_SITES 10

/* The length of the well-formed UTF-8 sequence at s (at most n bytes)
 * that is not a C1 control (U+0080..U+009F, which a terminal may obey),
 * or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!len || len > n || s[0] > 0xf4)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
        return 0;               /* C1 */
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0;               /* overlong, surrogate */
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0;               /* overlong, beyond U+10FFFF */
    return len;
}

void show_safe(FILE *out, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = u[i] >= 0x80 ? utf8_len(u + i, n - i) : u[i] >= 0x20 && u[i] < 0x7f;
        if (len) {
            fwrite(u + i, 1, len, out);
            i += len;
        } else
            fprintf(out, "%%%02X", u[i++]);
    }
}

static void put_safe(FILE *out, const char *s)
{
    show_safe(out, s, strlen(s));
}

static const char *state_name(enum top_state s)
{
    return s == TOP_RUNNING ? "running" : s == TOP_ENDED ? "ended" : "cut short";
}

/* A moment of the trace (ns since its start) by the wall clock, UTC. */
static void put_wall(FILE *out, uint64_t clock_ns, uint64_t ns)
{
    uint64_t at = clock_ns + ns;
    time_t sec = (time_t)(at / 1000000000u);
    struct tm tm;
    char buf[64];
    gmtime_r(&sec, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "%s.%03u UTC", buf, (unsigned)(at % 1000000000u / 1000000u));
}

static void put_growth(FILE *out, const struct followed *f)
{
    if (f->have_growth)
        fprintf(out, "%+.0f", f->growth);
    else
        fputs("-", out);
}

/* The lines of one trace alone. */
static void show_one(FILE *out, struct followed *f)
{
    const struct conv *c = &f->c;
    int tc;
    double t = follow_clock(f, &tc);
    fputs("trace    ", out);
    put_safe(out, f->name);
    fprintf(out, " (%s%s)\n", state_name(f->state),
            f->state == TOP_CUT ? ": no tail, and no process writes it" : "");
    if (c->cmd) {
        fputs("command  ", out);
        put_safe(out, c->cmd);
        fputc('\n', out);
    }
    fprintf(out, "records  %" PRIu64 "\n", c->p.nrec);
    uint64_t blocks = 0;
    for (size_t i = 0; i < c->nsites; i++)
        blocks += c->sites[i].blocks;
    fprintf(out, "live     %" PRIu64 " B in %" PRIu64 " blocks\n", c->p.prev_total, blocks);
    fprintf(out, "peak     %" PRIu64 " B", f->peak);
    if (f->peak && f->peak_timed) {
        fprintf(out, " at %.3f s", (double)f->peak_ns / 1e9);
        if (c->p.have_clock)
            fputs(", ", out), put_wall(out, c->p.clock_ns, f->peak_ns);
    }
    if (f->peak)
        fprintf(out, " (record %" PRIu64 ")", f->peak_rec);
    fputc('\n', out);
    if (tc)
        fprintf(out, "time     %.3f s since the start (the trace's #time)\n", t);
    fputs("growth   ", out);
    put_growth(out, f);
    fprintf(out, " B/s (%s)\n", tc ? "by the trace's clock" : "by the reading clock: no #time");
}

/* The table of ranks (several traces), and the sums. */
static void show_ranks(FILE *out, struct followed *f, size_t n)
{
    uint64_t rec = 0, live = 0;
    size_t running = 0;
    for (size_t i = 0; i < n; i++)
        rec += f[i].c.p.nrec, live += f[i].c.p.prev_total, running += f[i].state == TOP_RUNNING;
    fprintf(out, "traces   %zu (%zu running)\nrecords  %" PRIu64 "\nlive     %" PRIu64 " B\n\n",
            n, running, rec, live);
    fprintf(out, "%5s  %-9s  %10s  %12s  %12s  %12s  %s\n", "rank", "state", "records",
            "live B", "peak B", "growth B/s", "trace");
    for (size_t i = 0; i < n; i++) {
        if (f[i].rank >= 0)
            fprintf(out, "%5ld", f[i].rank);
        else
            fprintf(out, "%5s", "-");
        fprintf(out, "  %-9s  %10" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "  ", state_name(f[i].state),
                f[i].c.p.nrec, f[i].c.p.prev_total, f[i].peak);
        char g[32];
        if (f[i].have_growth)
            snprintf(g, sizeof g, "%+.0f", f[i].growth);
        else
            snprintf(g, sizeof g, "-");
        fprintf(out, "%12s  ", g);
        put_safe(out, f[i].name);
        fputc('\n', out);
    }
}

/* A site's live figures, of one trace or summed over several by label. */
struct row { const char *label; uint64_t live, blocks; };

static int by_label(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->label, ((const struct row *)b)->label);
}

static int by_live(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->live != y->live)
        return x->live < y->live ? 1 : -1;
    if (x->blocks != y->blocks)
        return x->blocks < y->blocks ? 1 : -1;
    return strcmp(x->label, y->label);
}

static void show_sites(FILE *out, struct followed *f, size_t n, size_t rows)
{
    size_t nrow = 0, cap = 0;
    struct row *row = NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < f[i].c.nsites; k++) {
            const struct site *s = &f[i].c.sites[k];
            if (!s->blocks)
                continue;
            if (nrow == cap) {
                cap = cap ? 2 * cap : 64;
                row = tool_realloc(&f[0].c.e, row, cap * sizeof *row);
            }
            row[nrow++] = (struct row){ s->label, s->live, s->blocks };
        }
    if (nrow)                   /* (qsort wants a pointer even for none) */
        qsort(row, nrow, sizeof *row, by_label);
    size_t m = 0;
    for (size_t i = 0; i < nrow; i++) {
        if (m && !strcmp(row[m - 1].label, row[i].label))
            row[m - 1].live += row[i].live, row[m - 1].blocks += row[i].blocks;
        else
            row[m++] = row[i];
    }
    if (m)
        qsort(row, m, sizeof *row, by_live);
    fprintf(out, "\n%12s  %8s  %s\n", "live B", "blocks", "site (function, file:line)");
    for (size_t i = 0; i < m && i < rows; i++) {
        fprintf(out, "%12" PRIu64 "  %8" PRIu64 "  ", row[i].live, row[i].blocks);
        put_safe(out, row[i].label);
        fputc('\n', out);
    }
    if (m > rows)
        fprintf(out, "%12s  %8s  (%zu sites more)\n", "", "", m - rows);
    free(row);
}

void show_snapshot(FILE *out, struct followed *f, size_t n, size_t rows)
{
    if (n == 1)
        show_one(out, f);
    else
        show_ranks(out, f, n);
    show_sites(out, f, n, rows ? rows : SHOW_SITES);
}
