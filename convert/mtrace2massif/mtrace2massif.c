/* SPDX-License-Identifier: MIT */
/* mtrace2massif - convert an mtrace (or Basilisk MTRACE) trace into a Massif
 * output file, as Valgrind's Massif would have written it for the same run,
 * and optionally into a standalone gnuplot script.
 *
 *   mtrace2massif [options] TRACE... [-o OUT]
 *
 * Several traces (the files of an MPI run: NAME for rank 0, NAME-r for rank
 * r) are converted one after the other, each exactly as if alone, and a
 * table of peaks and leaks per rank and across ranks goes to stdout.
 * The trace grammar is doc/trace-format.md (site records "@ ID FUNC FILE LINE",
 * operation records "OP ID RECNO TOTAL SITE [MAXRSS [SID]]", metadata records
 * "#NAME ...", among them the call stacks, two trailing gnuplot lines).  Massif's policy (snapshots, culling, accounting, trees) is
 * reproduced from the description of Valgrind 3.19's massif/ms_main.c and
 * coregrind/m_xtree.c; see doc/mtrace2massif.md for every decision.
 *
 * Structure: the trace is read twice (a pipe, or a trace compressed with
 * zstd, is first copied as text to a temporary file: tool.c).  Both passes run the same replay; the first one only validates
 * and finds where the true peak is, the second one takes the snapshots.
 * Memory is bounded by contexts x snapshots, never by trace length.  The
 * stages, each readable alone (m2m.h and trace/trace.h are what they
 * share; each file's
 * opening comment says which files it calls):
 *
 *   m2m_files.c    one trace of the command line into its files
 *   m2m_convert.c  one conversion: pass 1, the contexts, pass 2, the output
 *   trace/parse.c  records -> events; the input read twice
 *   m2m_heap.c     Massif's accounting, event by event (struct pass);
 *                  calls the policy and the samples after each event
 *   m2m_snap.c     Massif's snapshots, culling, peaks and trees (struct policy)
 *   trace/stack.c  call stacks (#depth, #map, #stack) -> the allocation tree
 *   trace/sym.c    the frames' labels, through addr2line
 *   m2m_out.c      the Massif file
 *   m2m_gnuplot.c  the gnuplot samples and script (struct samples)
 *   m2m_html_data.c, m2m_html.c  --html: the page's figures (struct html),
 *                  the page (its script and style: html/m2m_html_page.c)
 *   m2m_ranks.c    several traces: ranks, output names, the table (and
 *                  one --html page for them all: m2m_html.c)
 *
 * This file: the command line, and nothing else (a thin main).
 * Calls: m2m_ranks.c, m2m_files.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "m2m.h"

/* What the command line asks for. */
struct cmdline {
    struct opts o;              /* each conversion's options */
    struct job *jobs;           /* the traces, n of them */
    size_t n;
    const char *out_name;       /* -o OUT, or NULL: massif.out.NAME */
    int summary;                /* --summary */
    int run_page;               /* several traces, one --html page (o.html) */
};

static void usage(FILE *f)
{
    fputs("usage: mtrace2massif [options] TRACE... [-o OUT]\n"
          "Convert mtrace (or Basilisk MTRACE) traces into Massif output files.\n"
          "TRACE '-' reads standard input.  OUT defaults to massif.out.NAME next to\n"
          "each trace (massif.out.stdin in the current directory for '-'); '-o -'\n"
          "writes to standard output.  In OUT and in --gnuplot's and --html's FILE,\n"
          "%r is the trace's rank, %n its file name without the directory, %% a '%'.\n"
          "A trace compressed with zstd (MTRACE=NAME.zst) is read as it is.\n"
          "\n"
          "Several traces (MPI: NAME for rank 0, NAME-r for rank r) are converted\n"
          "one after the other, each into its own file, exactly as alone; OUT and\n"
          "--gnuplot's FILE must then contain %r or %n (--html's FILE without them\n"
          "is one page for the run).  A table then goes to standard output:\n"
          "per rank the peak heap, the peak heap + extra, the bytes still live at\n"
          "the end (leaked) and the records; then min and max (with their ranks)\n"
          "and sum over the ranks.\n"
          "\n"
          "options (named and ranged as Massif's; [default]):\n"
          "  --time-unit=B|i|ms          B: bytes allocated + freed [B];\n"
          "                              i: trace records (not instructions);\n"
          "                              ms: milliseconds (the trace's #time)\n"
          "  --max-snapshots=10..1000    snapshots kept [100]\n"
          "  --detailed-freq=1..1000000  every Nth snapshot is detailed [10]\n"
          "  --threshold=0..100          significance, in percent [1.0]\n"
          "  --heap-admin=0..1024        admin bytes per block [8]\n"
          "  --peak-inaccuracy=0..100    intermediate peaks as Massif's [1.0];\n"
          "                              the final peak is always exact\n"
          "  --depth=1..200              tree levels below the root [30]\n"
          "  --alloc-fn=NAME             charge NAME's allocations to its callers\n"
          "                              (repeatable)\n"
          "options of mtrace2massif:\n"
          "  --addr2line=PROG|none       names for the stacks' code addresses\n"
          "                              [addr2line, from PATH]\n"
          "  --gnuplot=FILE              also write a standalone gnuplot script\n"
          "  --html=FILE                 also write a self-contained HTML page\n"
          "                              (memory over time, flame graphs, sites);\n"
          "                              several traces and no %r or %n in FILE:\n"
          "                              one page for the run (every rank)\n"
          "  -o OUT, --output=OUT        the Massif file\n"
          "  --summary                   the table for a single trace too\n"
          "  --help, --version\n"
          "Exit status: 0 (also for truncated traces), 1 if a trace could not be\n"
          "converted (the others still are), 2 for a bad command line.\n"
          "See mtrace2massif(1) and doc/mtrace2massif.md.\n" MTRACE_TOOLS_BUGS, f);
}

static int bad_opt(const char *arg, const char *why)
{
    return tool_bad_usage("mtrace2massif", arg, why);
}

static int num_opt(const char *val, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (!*val || *end || errno || !isfinite(v) || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int int_opt(const char *val, unsigned long lo, unsigned long hi, unsigned *out)
{
    char *end;
    errno = 0;
    if (*val < '0' || *val > '9')
        return 0;
    unsigned long v = strtoul(val, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return 0;
    *out = (unsigned)v;
    return 1;
}

static void desc_add(struct opts *o, const char *arg)
{
    size_t n = strlen(o->desc);
    snprintf(o->desc + n, sizeof o->desc - n, "%s%s", n ? " " : "", arg);
}


/* An option of each conversion: Massif's, --addr2line or --gnuplot.
 * Returns -1 when taken, else the exit status after a message. */
static int conv_opt(struct opts *o, const char *a, const char *v)
{
    if (!strncmp(a, "--time-unit=", 12)) {
        o->time_bytes = !strcmp(v, "B");
        o->time_ms = !strcmp(v, "ms");
        if (!o->time_bytes && !o->time_ms && strcmp(v, "i"))
            return bad_opt(a, "expected B, i or ms");
        desc_add(o, a);
    } else if (!strncmp(a, "--max-snapshots=", 16)) {
        if (!int_opt(v, 10, 1000, &o->max_snapshots))
            return bad_opt(a, "expected an integer in 10..1000");
        desc_add(o, a);
    } else if (!strncmp(a, "--detailed-freq=", 16)) {
        if (!int_opt(v, 1, 1000000, &o->detailed_freq))
            return bad_opt(a, "expected an integer in 1..1000000");
        desc_add(o, a);
    } else if (!strncmp(a, "--heap-admin=", 13)) {
        if (!int_opt(v, 0, 1024, &o->heap_admin))
            return bad_opt(a, "expected an integer in 0..1024");
        desc_add(o, a);
    } else if (!strncmp(a, "--threshold=", 12)) {
        if (!num_opt(v, 0, 100, &o->threshold))
            return bad_opt(a, "expected a number in 0..100");
        desc_add(o, a);
    } else if (!strncmp(a, "--peak-inaccuracy=", 18)) {
        if (!num_opt(v, 0, 100, &o->peak_inaccuracy))
            return bad_opt(a, "expected a number in 0..100");
        desc_add(o, a);
    } else if (!strncmp(a, "--depth=", 8)) {
        if (!int_opt(v, 1, DEPTH_MAX, &o->depth))
            return bad_opt(a, "expected an integer in 1..200");
        desc_add(o, a);
    } else if (!strncmp(a, "--alloc-fn=", 11) && *v) {
        o->alloc_fns[o->n_alloc_fns++] = v;
        desc_add(o, a);
    } else if (!strncmp(a, "--addr2line=", 12)) {
        o->addr2line = *v && strcmp(v, "none") ? v : NULL;
    } else if (!strncmp(a, "--gnuplot=", 10) && *v) {
        o->gnuplot = v;
    } else if (!strncmp(a, "--html=", 7) && *v) {
        o->html = v;
    } else {
        return bad_opt(a, "unknown option");
    }
    return -1;
}

/* Read argv into cl: the traces, then the options (Massif's defaults
 * first).  Returns -1 to go on, else the exit status (after a message,
 * or after --help's or --version's text). */
static int read_args(int argc, char **argv, struct cmdline *cl)
{
    struct opts *o = &cl->o;
    int only_files = 0, nstdin = 0;
    o->time_bytes = 1;
    o->max_snapshots = 100;
    o->detailed_freq = 10;
    o->threshold = 1.0;
    o->heap_admin = 8;
    o->peak_inaccuracy = 1.0;
    o->depth = 30;
    o->addr2line = "addr2line";
    cl->jobs = calloc((size_t)argc, sizeof *cl->jobs);
    o->alloc_fns = calloc((size_t)argc, sizeof *o->alloc_fns);
    if (!cl->jobs || !o->alloc_fns) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        v = v ? v + 1 : "";
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            if (!strcmp(a, "-") && nstdin++)
                return bad_opt(a, "standard input can be read only once");
            cl->jobs[cl->n].trace = a;
            cl->jobs[cl->n].pos = cl->n;
            cl->n++;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            tool_version("mtrace2massif");
            return 0;
        } else if (!strcmp(a, "-o")) {
            if (++i == argc)
                return bad_opt(a, "needs a file name");
            cl->out_name = argv[i];
        } else if (!strncmp(a, "-o", 2)) {
            cl->out_name = a + 2;
        } else if (!strncmp(a, "--output=", 9)) {
            cl->out_name = v;
        } else if (!strcmp(a, "--summary")) {
            cl->summary = 1;
        } else {
            int rc = conv_opt(o, a, v);
            if (rc >= 0)
                return rc;
        }
    }
    if (!strstr(o->desc, "--time-unit="))   /* ours is B, Massif's i: say which */
        desc_add(o, "--time-unit=B");
    return -1;
}

/* Name each trace's files, refusing before anything is written a name
 * that cannot do (one name for several traces, a file twice, a trace
 * overwritten).  Returns -1 to go on, else the exit status. */
static int name_files(struct cmdline *cl)
{
    const char *out_name = cl->out_name, *gp = cl->o.gnuplot, *html = cl->o.html;
    size_t n = cl->n;
    if (n == 0) {
        usage(stderr);
        return 2;
    }
    /* several traces: one file each, so a fixed name cannot do */
    if (out_name && !strcmp(out_name, "-") && (n > 1 || cl->summary))
        return bad_opt("-o -", n > 1 ? "standard output can hold one Massif file only"
                                     : "--summary also writes to standard output");
    if (n > 1 && out_name && !pattern_varies(out_name))
        return bad_opt(out_name, "with several traces, OUT must contain %r (rank) or %n "
                       "(trace name) to name one file per trace");
    if (n > 1 && gp && !pattern_varies(gp))
        return bad_opt(gp, "with several traces, --gnuplot's FILE must contain "
                       "%r (rank) or %n (trace name)");
    /* several traces, one --html name: one page for the run */
    cl->run_page = n > 1 && html && !pattern_varies(html);
    if (cl->run_page)
        cl->o.html_share = (unsigned)n;
    assign_ranks(cl->jobs, n);
    for (size_t i = 0; i < n; i++) {
        struct job *j = &cl->jobs[i];
        j->out = out_name ? expand(out_name, j) : default_out(j->trace);
        j->gp = gp ? expand(gp, j) : NULL;
        j->html = html && !cl->run_page ? expand(html, j) : NULL;
        if (!j->out || (gp && !j->gp) || (html && !cl->run_page && !j->html)) {
            fputs("mtrace2massif: out of memory\n", stderr);
            return 1;
        }
        if (cl->run_page && (!strcmp(html, j->trace) || !strcmp(html, j->out) ||
                             (j->gp && !strcmp(html, j->gp))))
            return bad_opt(html, "the run's page would overwrite a trace or another output");
    }
    return check_names(cl->jobs, n) ? 2 : -1;
}

/* One page for several traces: a temporary file for each one's part.
 * Returns -1 to go on, else the exit status. */
static int open_parts(struct cmdline *cl)
{
    for (size_t i = 0; cl->run_page && i < cl->n; i++)
        if (!(cl->jobs[i].part = tmpfile())) {
            fprintf(stderr, "mtrace2massif: %s: temporary file: %s\n", cl->o.html, strerror(errno));
            return 1;
        }
    return -1;
}

int main(int argc, char **argv)
{
    /* static: still reachable, so the early exits need no cleanup */
    static struct cmdline cl;
    int rc = read_args(argc, argv, &cl);
    if (rc < 0)
        rc = name_files(&cl);
    if (rc < 0)
        rc = open_parts(&cl);
    if (rc >= 0)
        return rc;

    /* one trace after the other: memory is that of the largest one */
    rc = 0;
    for (size_t i = 0; i < cl.n; i++)
        rc |= convert_one(&cl.o, &cl.jobs[i]);
    if (cl.run_page)
        rc |= write_run_page(cl.o.html, cl.jobs, cl.n);
    if (cl.n > 1 || cl.summary) {
        print_summary(stdout, cl.jobs, cl.n);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fputs("mtrace2massif: standard output: write error\n", stderr);
            rc = 1;
        }
    }
    for (size_t i = 0; i < cl.n; i++) {
        free(cl.jobs[i].out);
        free(cl.jobs[i].gp);
        free(cl.jobs[i].html);
        if (cl.jobs[i].part)
            fclose(cl.jobs[i].part);
    }
    free(cl.jobs);
    free(cl.o.alloc_fns);
    return rc;
}
