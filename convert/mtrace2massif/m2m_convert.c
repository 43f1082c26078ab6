/* SPDX-License-Identifier: MIT */
/* m2m_convert.c - one trace's conversion, the stages in their order:
 * pass 1 (validate, find the peak), the contexts (labels and the
 * allocation tree), pass 2 (the snapshots and the samples), then the
 * Massif file and the gnuplot script, to streams the caller opened.
 * Owns what a pass starts from (begin_pass) and struct conv's lifetime.
 * Calls: trace/parse.c, m2m_heap.c, m2m_snap.c, trace/stack.c, m2m_gnuplot.c,
 * m2m_out.c, m2m_html_data.c and m2m_html.c (--html), tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

/* Start pass n: what a pass builds (struct pass, the sites' live bytes)
 * starts from zero here, and only here. */
static void begin_pass(struct conv *c, int n)
{
    free(c->p.abn.e);
    free(c->p.abn.head);
    memset(&c->p, 0, sizeof c->p);
    c->p.n = n;
    for (size_t i = 0; i < c->nsites; i++) {
        c->sites[i].live = c->sites[i].blocks = 0;
        c->sites[i].live0 = c->sites[i].blocks0 = 0;
        c->sites[i].seen = 0;
    }
    for (size_t i = 0; i < c->s.n; i++)
        c->s.st[i].live = c->s.st[i].blocks = 0;
    html_begin(c, n);
}

static void free_conv(struct conv *c)
{
    free_parsed(c);
    free(c->p.abn.e);
    free(c->p.abn.head);
    free_policy(c);
    free(c->gp.pt);
    free_html(c);
}

/* Where pass 1 says the exact peak is: at the first peak check (free or
 * shrinking realloc) where the total is the largest, else after the last
 * record; nowhere if the heap never holds a byte. */
static void plan_peak(struct conv *c)
{
    c->peak_ev = UINT64_MAX;
    c->peak_at_end = 0;
    if (c->p.max_total == 0)
        return;
    if (c->p.best_check == c->p.max_total) {
        c->peak_ev = c->p.best_check_ev;
    } else {                    /* the check after the last event */
        c->peak_ev = c->p.ev;
        c->peak_at_end = 1;
    }
}

/* The one warning for a trace without its tail or with its last line cut. */
static void warn_truncated(struct conv *c)
{
    int no_tail = c->p.tail_n == 0, cut = c->p.truncated_line;
    c->truncated = no_tail || cut;
    if (!c->o.quiet && c->truncated) {
        tool_where(stderr, "mtrace2massif", c->e.file, c->e.line + (uint64_t)cut);
        fprintf(stderr, "warning: trace is truncated (%s); converting the %" PRIu64 " complete records\n",
                cut ? "last line cut short" : "no gnuplot tail", c->p.nrec);
    }
}

/* A trace that starts at a checkpoint (MTRACE_TRACE_MAX removed its
 * oldest segments): one line on stderr, and the Massif file's desc:. */
static void say_dropped(struct conv *c)
{
    char text[512];
    size_t n = strlen(c->o.desc);
    if (!c->cp.seg)
        return;
    trace_dropped_text(&c->cp, text, sizeof text);
    if (!c->o.quiet)
        fprintf(stderr, "mtrace2massif: %s: %s\n", c->e.file, text);
    snprintf(c->o.desc + n, sizeof c->o.desc - n, "%s(%s)", n ? " " : "", text);
}

/* Pass 1: validate, find the largest totals, the sites' peaks and where
 * the exact peak goes; then the contexts of the allocation tree. */
static void pass1(struct conv *c, struct input *in)
{
    begin_pass(c, 1);
    run_pass(c, in);
    flush_pending(c);
    c->events1 = c->p.ev;
    c->nrec1 = c->p.nrec;
    plan_peak(c);
    warn_truncated(c);
    make_contexts(c);
}

/* Pass 2: the same replay, taking Massif's snapshots (and the samples). */
static void pass2(struct conv *c, struct input *in, int samples)
{
    rewind_input(c, in);
    if (samples)                /* the sites from pass 1's peaks */
        samples_init(c);
    begin_pass(c, 2);
    policy_init(c);
    observe(c);                 /* Massif's start-up snapshot, at time 0 */
    run_pass(c, in);
    flush_pending(c);
    if (c->p.ev != c->events1 || c->p.nrec != c->nrec1)
        tool_fail(&c->e, "trace changed while being read");
    c->sn.ended = 1;
    if (c->peak_at_end)
        before_release(c, c->p.nrec); /* as if the program freed its heap at exit */
    if (c->gp.pt)               /* the final state ends the curves */
        gp_end(c, (uint64_t)now(c));
}

/* Convert the input; write the Massif file to 'out' and, if 'gpf' is not
 * NULL, the gnuplot script to it.  Returns 0, or 1 after a message. */
int convert(struct conv *c, struct input *in, FILE *out, FILE *gpf,
            const char *trace, const char *out_name)
{
    c->e.prog = "mtrace2massif";
    c->model = &massif_model;
    c->e.err = c->o.quiet ? NULL : stderr;
    if (setjmp(c->e.jb)) {
        free_conv(c);
        return 1;
    }
    pass1(c, in);
    say_dropped(c);
    pass2(c, in, gpf != NULL);
    write_massif(c, out, c->cmd ? c->cmd : trace);
    if (gpf)
        write_gnuplot(c, gpf, trace, out_name);
    if (c->h && write_html(c, c->e.file)) {   /* the trace's name, "stdin" for "-" */
        free_conv(c);
        return 1;
    }
    if (!c->o.quiet && c->p.abn.dropped)
        fprintf(stderr, "mtrace2massif: %s: warning: %" PRIu64 " blocks shrunk in place by "
                "realloc were not remembered; extra-heap may be high by their slack\n",
                c->e.file, c->p.abn.dropped);
    free_conv(c);
    return 0;
}
