/* SPDX-License-Identifier: MIT */
/* m2m_gnuplot.c - the standalone gnuplot script: the samples of the
 * curves (pass 2: the heap model's state after every event, thinned to at
 * most GP_POINTS points) and the script itself.  Every text in it that
 * comes from outside goes through gp_quote (tool.c), so gnuplot never runs
 * or expands any of it.
 * Owns struct samples.
 * Calls: tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

static void gp_sample(struct conv *c, struct gp_point *p, uint64_t x)
{
    p->x = x;
    p->heap = c->p.heap;
    p->total = c->p.heap + c->p.extra;
    p->rss = c->p.have_rss && c->p.rss > c->p.rss0 ? c->p.rss - c->p.rss0 : 0;
    for (int k = 0; k < c->gp.n; k++)
        p->site[k] = c->sites[c->gp.ids[k] - 1].live;
}

/* Keep point p, halving the resolution when the buffer is full. */
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
void gp_event(struct conv *c, uint64_t t)
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

/* The final state ends the curves: the open step's lowest and highest,
 * then the state itself when it is neither (it equals an earlier high or
 * low of its step, which gp_event keeps at its first moment). */
void gp_end(struct conv *c, uint64_t t)
{
    struct gp_point end;
    c->gp.next = 0;
    gp_event(c, t);
    gp_sample(c, &end, t);
    const struct gp_point *last = &c->gp.pt[c->gp.len - 1];
    if (last->x != end.x || last->total != end.total || last->heap != end.heap)
        gp_commit(c, &end);
}

/* The exact peak is always a point of the curves. */
void gp_peak(struct conv *c, int64_t t)
{
    gp_sample(c, &c->gp.peak, (uint64_t)t);
    c->gp.have_peak = 1;
}

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

/* The legend of site id: "func (file:line)" as the trace names them
 * (decoded: gp_quote makes any text inert), the function cut to 24 bytes
 * and the file to 20 so that the key stays narrow.  No "0xID:": the
 * Massif file needs an address there, a reader of the graph does not. */
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
        sprintf(t, "%s (%s%.*s)", func, file, (int)(end - colon), colon);
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
    if (c->o.time_ms) {         /* seconds from 10 s on */
        a->xd = xmax >= 10000 ? 1e3 : 1;
        snprintf(a->xlabel, sizeof a->xlabel, "time (%s)", xmax >= 10000 ? "s" : "ms");
    } else if (c->o.time_bytes) {
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
void write_gnuplot(struct conv *c, FILE *f, const char *trace, const char *massif_out)
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

/* {peak, id} pairs: the largest peak first, then the first site. */
static int peak_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
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
    qsort(v, n, sizeof *v, peak_cmp);
    c->gp.n = n < GP_MAX_SITES ? (int)n : GP_MAX_SITES;
    for (int k = 0; k < c->gp.n; k++)
        c->gp.ids[k] = v[k][1];
    free(v);
}


/* The gnuplot samples start empty, with the sites to draw chosen from
 * pass 1's peaks (before pass 2 starts). */
void samples_init(struct conv *c)
{
    memset(&c->gp, 0, sizeof c->gp);
    gp_choose(c);
    c->gp.pt = malloc(GP_POINTS * sizeof *c->gp.pt);
    if (!c->gp.pt)
        tool_fail(&c->e, "out of memory");
}
