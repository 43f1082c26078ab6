/* SPDX-License-Identifier: MIT */
/* ms_print_graph.c - the first half of the output: the preamble, the
 * graph of the snapshots' totals and the snapshot counts.
 *
 * Owns the grid (c->grid), Perl's quirks in drawing it (negative and
 * auto-extended column indexes) and the axis labels; it draws from the
 * summary ms_print_body.c collected.
 * Calls: ms_print_out.c, ms_print_pnum.c, tool.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>          /* isnan, isinf: macros */
#include <stdio.h>
#include <string.h>

#include "ms_print_lib.h"

/* Cell (column idx, row y) as Perl's $graph[idx][y]: negative indexes
 * count from the end of the (possibly auto-extended) column array, and an
 * index before its start is fatal; columns past gx exist but are never
 * printed.  Returns NULL for those. */
static char *cell(struct ctx *c, int64_t idx, int y, int64_t *size)
{
    if (idx < 0) {
        idx += *size;
        if (idx < 0)
            tool_fail(&c->e, "a snapshot's time puts it before the graph's start");
    } else if (idx >= *size) {
        *size = idx == INT64_MAX ? INT64_MAX : idx + 1;
    }
    if (idx > c->gx)
        return NULL;
    return &c->grid[(size_t)y * (size_t)(c->gx + 1) + (size_t)idx];
}

/* The horizontal line drawn between two snapshot columns. */
static void gap(struct ctx *c, pnum prevx, pnum x, int row, char ch,
                int64_t *size)
{
    pnum lo = pn_add(prevx, pn_int(0, 1));
    if (pn_cmp(lo, x) != -1)
        return;
    int64_t a = pn_sat(lo), b = pn_sat(x);   /* columns a .. b-1 */
    if (a < 0) {
        if (a + *size < 0)
            tool_fail(&c->e, "a snapshot's time puts it before the graph's start");
        /* only columns that map into 0..gx can be seen; the others need
         * no visit (there may be billions of them) */
        int64_t stop = b < 0 ? b : 0, vis = c->gx - *size + 1;
        if (stop > vis)
            stop = vis;
        for (int64_t i = a; i < stop; i++) {
            char *p = cell(c, i, row, size);
            if (!p)
                continue;
            *p = ch;
        }
        a = 0;
    }
    int64_t hi = b - 1 < c->gx ? b - 1 : c->gx;
    for (int64_t i = a; i <= hi; i++)
        *cell(c, i, row, size) = ch;
    if (b > a && b - 1 >= *size)
        *size = b;
}

/* Axis label: "%5d" of the value below 1000, else the scaled value with
 * 3, 2 or 1 decimals (so it can be 6 characters: "1000.0"). */
static void label(pnum v, int kind, char *lab, size_t cap,
                  const char **unit)
{
    static const char *const bu[] = { "B", "KB", "MB", "GB", "TB", "PB",
                                      "EB", "ZB", "YB" };
    static const char *const iu[] = { "i", "ki", "Mi", "Gi", "Ti", "Pi",
                                      "Ei", "Zi", "Yi" };
    pnum s = v, thousand = pn_int(0, 1000);
    if (kind == 2) {
        *unit = "ms";
        if (pn_ge(s, thousand)) {
            *unit = "s";
            s = pn_div(s, thousand);
        }
        if (pn_ge(s, pn_int(0, 3600))) {
            *unit = "h";
            s = pn_div(s, pn_int(0, 3600));
        }
    } else {
        const char *const *u = kind == 0 ? bu : iu;
        *unit = u[0];
        for (int k = 1; k <= 8; k++) {
            if (pn_ge(s, thousand)) {
                *unit = u[k];
                s = pn_div(s, pn_int(0, 1024));
            }
        }
    }
    double d = pn_d(s);
    if (pn_cmp(v, thousand) == -1) {
        double dv = pn_d(v);
        if (isnan(dv) || isinf(dv))
            snprintf(lab, cap, "%5s", isnan(dv) ? "NaN" : dv < 0 ? "-Inf" : "Inf");
        else
            snprintf(lab, cap, "%5" PRId64, pn_iv(v));
    } else if (isnan(d) || isinf(d)) {
        snprintf(lab, cap, "%5s", isnan(d) ? "NaN" : d < 0 ? "-Inf" : "Inf");
    } else if (pn_cmp(s, pn_int(0, 10)) == -1) {
        snprintf(lab, cap, "%5.3f", d);
    } else if (pn_cmp(s, pn_int(0, 100)) == -1) {
        snprintf(lab, cap, "%5.2f", d);
    } else {
        snprintf(lab, cap, "%5.1f", d);
    }
}

/* Preamble: printed before the graph is computed, so that the original's
 * late failures (no snapshots, bad time unit) leave exactly it on stdout. */
void preamble(struct ctx *c)
{
    outs(c, DASHES);
    outs(c, "Command:            ");
    out(c, c->cmd.p, c->cmd.n);
    outs(c, "\nMassif arguments:  ");
    out(c, c->desc.p, c->desc.n);
    outs(c, "ms_print arguments:");
    for (int i = 1; i < c->argc; i++) {
        out(c, " ", 1);
        outs(c, c->argv[i]);
    }
    outs(c, "\n" DASHES "\n\n");
}

void graph(struct ctx *c)
{
    size_t n = c->n;
    int gx = c->gx, gy = c->gy;
    pnum zero = pn_int(0, 0), one = pn_int(0, 1);
    c->e.line = c->last_line;   /* errors here concern the whole file */
    if (n == 0)
        tool_fail(&c->e, "no snapshots");
    pnum end = c->times[n - 1];
    if (!pn_ge(end, zero))
        tool_fail(&c->e, "the last snapshot's time is negative");

    size_t w = (size_t)gx + 1;
    c->grid = tool_realloc(&c->e, c->grid, w * ((size_t)gy + 1));
    memset(c->grid, ' ', w * ((size_t)gy + 1));
    c->grid[0] = '+';
    for (int x = 1; x <= gx; x++)
        c->grid[x] = '-';
    c->grid[gx] = '>';
    for (int y = 1; y <= gy; y++)
        c->grid[(size_t)y * w] = '|';
    c->grid[(size_t)gy * w] = '^';

    pnum peak = c->peak;
    if (pn_cmp(zero, peak) == 0)
        peak = one;
    if (pn_cmp(zero, end) == 0)
        end = one;
    pnum K = pn_div(peak, pn_int(0, (uint64_t)gy));
    pnum x = zero, gxp = pn_int(0, (uint64_t)gx);
    int64_t size = gx + 1;      /* Perl's @graph grows when indexed past it */
    int prev_ymax = 0;
    char prev_ch = ':';
    for (size_t i = 0; i < n; i++) {
        pnum prevx = x;
        x = pn_add(pn_trunc(pn_mul(pn_div(c->times[i], end), gxp)), one);
        if (pn_cmp(c->times[i], end) == 0) {
            if (pn_cmp(x, pn_add(gxp, one)) != 0)
                tool_fail(&c->e, "a snapshot's time cannot be placed on the graph");
            x = gxp;
        }
        if (prev_ymax > 0)
            gap(c, prevx, x, prev_ymax, prev_ch, &size);
        char ch = pn_cmp(pn_int(0, i), c->peak_num) == 0 ? '#'
                  : c->det[i] ? '@' : ':';
        int ymax = 0;
        int64_t col = pn_iv(x);
        for (int y = 1; y <= gy; y++) {
            if (!pn_ge(c->totals[i], pn_mul(pn_int(0, (uint64_t)y), K)))
                continue;
            char *p = cell(c, col, y, &size);
            /* priority: '#' over '@' over ':' */
            if (p && (ch == '#' || (ch == '@' && *p != '#') ||
                      (ch == ':' && *p != '#' && *p != '@')))
                *p = ch;
            ymax = y;
        }
        prev_ymax = ymax;
        prev_ch = ch;
    }

    char ylab[400], xlab[400];     /* Perl prints every digit: DBL_MAX has 309 */
    const char *yunit, *xunit;
    label(peak, 0, ylab, sizeof ylab, &yunit);
    if (c->tu.n == 1 && c->tu.p[0] == 'i')
        label(end, 1, xlab, sizeof xlab, &xunit);
    else if (c->tu.n == 2 && memcmp(c->tu.p, "ms", 2) == 0)
        label(end, 2, xlab, sizeof xlab, &xunit);
    else if (c->tu.n == 1 && c->tu.p[0] == 'B')
        label(end, 0, xlab, sizeof xlab, &xunit);
    else {
        char shown[64];
        c->e.line = c->tu_line;
        tool_shown(shown, sizeof shown, c->tu.p, c->tu.n);
        tool_fail(&c->e, "bad time_unit: %s", shown);
    }

    outs(c, "    ");
    put_field(c, yunit, strlen(yunit), 2, 0);
    outs(c, "\n");
    for (int y = gy; y >= 0; y--) {
        outs(c, y == gy ? ylab : y == 0 ? "   0 " : "     ");
        out(c, c->grid + (size_t)y * w, w);
        if (y == 0)
            outs(c, xunit);
        outs(c, "\n");
    }
    outs(c, "     0");
    spaces(c, gx - 5);
    put_field(c, xlab, strlen(xlab), 5, 0);
    outs(c, "\n");
}

void counts(struct ctx *c)
{
    int first = 1;
    char b[80];
    out(c, b, (size_t)snprintf(b, sizeof b, "\nNumber of snapshots: %zu\n"
                               " Detailed snapshots: [", c->n));
    for (size_t i = 0; i < c->n; i++) {
        if (!c->det[i])
            continue;
        out(c, b, (size_t)snprintf(b, sizeof b, first ? "%zu" : ", %zu", i));
        first = 0;
        if (pn_cmp(pn_int(0, i), c->peak_num) == 0)
            outs(c, " (peak)");
    }
    outs(c, "]\n\n");
}
