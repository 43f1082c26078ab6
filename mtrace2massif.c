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
 * Structure: the trace is read twice (a pipe is spooled to a temporary file
 * first).  Both passes run the same replay; the first one only validates
 * and finds where the true peak is, the second one takes the snapshots.
 * Memory is bounded by contexts x snapshots, never by trace length.  The
 * stages, each readable alone (m2m.h is what they share):
 *
 *   m2m_parse.c    records -> events; the input read twice
 *   m2m_heap.c     Massif's accounting, event by event (struct pass);
 *                  calls the policy and the samples after each event
 *   m2m_snap.c     Massif's snapshots, culling, peaks and trees (struct policy)
 *   m2m_stack.c    call stacks (#depth, #map, #stack) -> the allocation tree
 *   m2m_sym.c      the frames' labels, through addr2line
 *   m2m_out.c      the Massif file
 *   m2m_gnuplot.c  the gnuplot samples and script (struct samples)
 *
 * This file: the conversion (pass 1, the contexts, pass 2, each pass from
 * begin_pass(); then the output), several traces (MPI ranks) and the
 * command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m2m.h"

/* ------------------------------------------------------------------ */
/* The conversion                                                       */

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
}

static void free_conv(struct conv *c)
{
    for (size_t i = 0; i < c->nsites; i++) {
        free(c->sites[i].label);
        free(c->sites[i].func);
    }
    free(c->sites);
    free(c->cmd);
    free(c->p.abn.e);
    free(c->p.abn.head);
    free_stacks(&c->s);
    free_policy(c);
    free(c->gp.pt);
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
    if (!c->o.quiet && c->truncated)
        fprintf(stderr, "mtrace2massif: %s:%" PRIu64 ": warning: trace is truncated (%s); "
                "converting the %" PRIu64 " complete records\n", c->e.file,
                c->e.line + (uint64_t)cut, cut ? "last line cut short" : "no gnuplot tail",
                c->p.nrec);
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
    if (c->gp.pt) {             /* the final state ends the curves */
        c->gp.next = 0;
        gp_event(c, (uint64_t)now(c));
    }
}

/* Convert the input; write the Massif file to 'out' and, if 'gpf' is not
 * NULL, the gnuplot script to it.  Returns 0, or 1 after a message. */
static int convert(struct conv *c, struct input *in, FILE *out, FILE *gpf,
                   const char *trace, const char *out_name)
{
    c->e.prog = "mtrace2massif";
    c->e.err = c->o.quiet ? NULL : stderr;
    if (setjmp(c->e.jb)) {
        free_conv(c);
        return 1;
    }
    pass1(c, in);
    pass2(c, in, gpf != NULL);
    write_massif(c, out, c->cmd ? c->cmd : trace);
    if (gpf)
        write_gnuplot(c, gpf, trace, out_name);
    if (!c->o.quiet && c->p.abn.dropped)
        fprintf(stderr, "mtrace2massif: %s: warning: %" PRIu64 " blocks shrunk in place by "
                "realloc were not remembered; extra-heap may be high by their slack\n",
                c->e.file, c->p.abn.dropped);
    free_conv(c);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Several traces: MPI ranks                                            */

/* One trace of the command line and what its conversion gave (the
 * summary needs only these numbers, so memory stays bounded per file). */
struct job {
    const char *trace;          /* as given; "-" is standard input */
    size_t pos;                 /* position among the traces, from 0 */
    long rank;
    char *out, *gp;             /* output names; gp is NULL without --gnuplot */
    int rc;                     /* 0 converted, 1 not */
    int truncated;
    uint64_t v[4];              /* peak heap, peak heap+extra, leaked, records */
};

/* Basilisk's MPI names: rank r > 0 writes NAME-r.  Returns r, or -1 when
 * the name has no such suffix ("-0", leading zeros and more than 9 digits
 * are not rank numbers, nor is a name that is only "-r"). */
static long rank_suffix(const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k == n || n - k > 9 || name[k] == '0' || k < 2 || name[k - 1] != '-' ||
        name[k - 2] == '/')
        return -1;
    return strtol(name + k, NULL, 10);
}

/* Ranks: r from a NAME-r suffix; 0 for NAME when some NAME-r is given
 * too (whatever the order); for any other name, its position.  "-" is
 * standard input, not a NAME (a trace named "--1" is not its rank 1). */
static void assign_ranks(struct job *j, size_t n)
{
    for (size_t i = 0; i < n; i++)
        j[i].rank = rank_suffix(j[i].trace);
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
            if (k != i && !strncmp(t, j[i].trace, len) && t[len] == '-' && rank_suffix(t) > 0 &&
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
static int pattern_varies(const char *pat)
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
static char *expand(const char *pat, const struct job *j)
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
static char *default_out(const char *trace)
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
static void print_summary(FILE *f, struct job *j, size_t n)
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

#ifndef MTRACE2MASSIF_NO_MAIN

static void usage(FILE *f)
{
    fputs("usage: mtrace2massif [options] TRACE... [-o OUT]\n"
          "Convert mtrace (or Basilisk MTRACE) traces into Massif output files.\n"
          "TRACE '-' reads standard input.  OUT defaults to massif.out.NAME next to\n"
          "each trace (massif.out.stdin in the current directory for '-'); '-o -'\n"
          "writes to standard output.  In OUT and in --gnuplot's FILE, %r is the\n"
          "trace's rank, %n its file name without the directory, %% a '%'.\n"
          "\n"
          "Several traces (MPI: NAME for rank 0, NAME-r for rank r) are converted\n"
          "one after the other, each into its own file, exactly as alone; OUT and\n"
          "FILE must then contain %r or %n.  A table then goes to standard output:\n"
          "per rank the peak heap, the peak heap + extra, the bytes still live at\n"
          "the end (leaked) and the records; then min and max (with their ranks)\n"
          "and sum over the ranks.\n"
          "\n"
          "options (named and ranged as Massif's; [default]):\n"
          "  --time-unit=B|i             B: bytes allocated + freed [B];\n"
          "                              i: trace records (not instructions)\n"
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
          "  -o OUT, --output=OUT        the Massif file\n"
          "  --summary                   the table for a single trace too\n"
          "  --help, --version\n"
          "Exit status: 0 (also for truncated traces), 1 if a trace could not be\n"
          "converted (the others still are), 2 for a bad command line.\n"
          "See mtrace2massif(1) and doc/mtrace2massif.md.\n", f);
}

static int bad_opt(const char *arg, const char *why)
{
    fprintf(stderr, "mtrace2massif: %s: %s\n", arg, why);
    fputs("Try 'mtrace2massif --help'.\n", stderr);
    return 2;
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
static int check_names(const struct job *j, size_t n)
{
    static const char trace_what[] = "the trace";
    struct fname *f = malloc(3 * n * sizeof *f);
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

/* Is 'name' something other than a regular file (/dev/null, a FIFO, a
 * terminal)?  Such an output is written in place and never removed:
 * renaming a temporary file over it, or removing it after a failure,
 * would replace or delete the device itself (as root, /dev/null). */
static int special_file(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Convert one trace into its files; fills the job's summary numbers.
 * Returns 0, or 1 after a message (nothing is left behind then). */
static int convert_one(const struct opts *o, struct job *j)
{
    struct conv *c = calloc(1, sizeof *c);
    struct input in = { .fd = -1 };
    char *tmp_name = NULL;
    FILE *out = stdout, *gpf = NULL;
    const char *trace = j->trace, *out_name = j->out;
    int rc = 1, is_stdin = !strcmp(trace, "-"), to_stdout = !strcmp(out_name, "-");
    int gp_special = j->gp && special_file(j->gp);
    if (!c) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 1;
    }
    c->o = *o;
    c->o.gnuplot = j->gp;
    c->e.file = is_stdin ? "stdin" : trace;
    if (is_stdin) {
        in.fd = 0;
    } else {
        in.fd = open(trace, O_RDONLY);
        if (in.fd < 0) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", trace, strerror(errno));
            goto done;
        }
    }
    if (lseek(in.fd, 0, SEEK_CUR) < 0) {
        in.spool = tmpfile();   /* a pipe: keep a copy for the second pass */
        in.spooling = 1;
        if (!in.spool) {
            fprintf(stderr, "mtrace2massif: cannot create a temporary file: %s\n", strerror(errno));
            goto done;
        }
    }
    in.rfd = in.fd;
    posix_fadvise(in.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

    /* write to a temporary name and rename, so a failed conversion never
     * leaves a half-written or stale-looking Massif file */
    if (!to_stdout && special_file(out_name)) {
        out = fopen(out_name, "w");
        if (!out) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            out = stdout;
            goto done;
        }
    } else if (!to_stdout) {
        tmp_name = malloc(strlen(out_name) + 32);
        if (!tmp_name)
            goto done;
        sprintf(tmp_name, "%s.tmp%ld", out_name, (long)getpid());
        out = fopen(tmp_name, "w");
        if (!out) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            out = stdout;
            free(tmp_name);
            tmp_name = NULL;
            goto done;
        }
    }
    if (j->gp) {
        gpf = fopen(j->gp, "w");
        if (!gpf) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", j->gp, strerror(errno));
            goto done;
        }
    }
    static char obuf[1 << 16];  /* one file at a time */
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    rc = convert(c, &in, out, gpf, trace, out_name);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "mtrace2massif: %s: write error\n", out_name);
        rc = 1;
    }
    if (gpf && fflush(gpf) != 0) {
        fprintf(stderr, "mtrace2massif: %s: write error\n", j->gp);
        rc = 1;
    }
    if (rc == 0) {
        /* the replay's own figures: the largest useful heap (the tracer's
         * "max traced memory size"), the largest useful + extra (the
         * Massif file's peak snapshot), what is live after the last record */
        j->v[0] = c->p.max_heap;
        j->v[1] = c->p.max_total;
        j->v[2] = c->p.heap;
        j->v[3] = c->p.nrec;
        j->truncated = c->truncated;
    }
done:
    if (out != stdout)
        fclose(out);
    if (gpf) {
        fclose(gpf);
        if (rc != 0 && !gp_special)
            remove(j->gp);
    }
    if (tmp_name) {
        if (rc == 0 && rename(tmp_name, out_name) != 0) {
            fprintf(stderr, "mtrace2massif: %s: %s\n", out_name, strerror(errno));
            rc = 1;
        }
        if (rc != 0)
            remove(tmp_name);
    }
    if (in.spool)
        fclose(in.spool);
    if (in.fd > 0)
        close(in.fd);
    free(in.buf);
    free(tmp_name);
    free(c);
    j->rc = rc;
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o = { 0 };
    o.time_bytes = 1;
    o.max_snapshots = 100;
    o.detailed_freq = 10;
    o.threshold = 1.0;
    o.heap_admin = 8;
    o.peak_inaccuracy = 1.0;
    o.depth = 30;
    o.addr2line = "addr2line";
    const char *out_name = NULL;
    int only_files = 0, summary = 0, nstdin = 0;
    /* static: still reachable, so the early exits need no cleanup */
    static struct job *jobs;
    static const char **alloc_fns;
    jobs = calloc((size_t)argc, sizeof *jobs);
    alloc_fns = calloc((size_t)argc, sizeof *alloc_fns);
    o.alloc_fns = alloc_fns;
    size_t n = 0;
    if (!jobs || !alloc_fns) {
        fputs("mtrace2massif: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        v = v ? v + 1 : "";
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            if (!strcmp(a, "-") && nstdin++)
                return bad_opt(a, "standard input can be read only once");
            jobs[n].trace = a;
            jobs[n].pos = n;
            n++;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            puts("mtrace2massif " M2M_VERSION);
            return 0;
        } else if (!strcmp(a, "-o")) {
            if (++i == argc)
                return bad_opt(a, "needs a file name");
            out_name = argv[i];
        } else if (!strncmp(a, "-o", 2)) {
            out_name = a + 2;
        } else if (!strncmp(a, "--output=", 9)) {
            out_name = v;
        } else if (!strcmp(a, "--summary")) {
            summary = 1;
        } else if (!strncmp(a, "--time-unit=", 12)) {
            if (!strcmp(v, "B"))
                o.time_bytes = 1;
            else if (!strcmp(v, "i"))
                o.time_bytes = 0;
            else if (!strcmp(v, "ms"))
                return bad_opt(a, "traces carry no timestamps; use B or i");
            else
                return bad_opt(a, "expected B or i");
            desc_add(&o, a);
        } else if (!strncmp(a, "--max-snapshots=", 16)) {
            if (!int_opt(v, 10, 1000, &o.max_snapshots))
                return bad_opt(a, "expected an integer in 10..1000");
            desc_add(&o, a);
        } else if (!strncmp(a, "--detailed-freq=", 16)) {
            if (!int_opt(v, 1, 1000000, &o.detailed_freq))
                return bad_opt(a, "expected an integer in 1..1000000");
            desc_add(&o, a);
        } else if (!strncmp(a, "--heap-admin=", 13)) {
            if (!int_opt(v, 0, 1024, &o.heap_admin))
                return bad_opt(a, "expected an integer in 0..1024");
            desc_add(&o, a);
        } else if (!strncmp(a, "--threshold=", 12)) {
            if (!num_opt(v, 0, 100, &o.threshold))
                return bad_opt(a, "expected a number in 0..100");
            desc_add(&o, a);
        } else if (!strncmp(a, "--peak-inaccuracy=", 18)) {
            if (!num_opt(v, 0, 100, &o.peak_inaccuracy))
                return bad_opt(a, "expected a number in 0..100");
            desc_add(&o, a);
        } else if (!strncmp(a, "--depth=", 8)) {
            if (!int_opt(v, 1, DEPTH_MAX, &o.depth))
                return bad_opt(a, "expected an integer in 1..200");
            desc_add(&o, a);
        } else if (!strncmp(a, "--alloc-fn=", 11) && *v) {
            alloc_fns[o.n_alloc_fns++] = v;
            desc_add(&o, a);
        } else if (!strncmp(a, "--addr2line=", 12)) {
            o.addr2line = *v && strcmp(v, "none") ? v : NULL;
        } else if (!strncmp(a, "--gnuplot=", 10) && *v) {
            o.gnuplot = v;
        } else {
            return bad_opt(a, "unknown option");
        }
    }
    if (n == 0) {
        usage(stderr);
        return 2;
    }
    /* several traces: one file each, so a fixed name cannot do */
    if (out_name && !strcmp(out_name, "-") && (n > 1 || summary))
        return bad_opt("-o -", n > 1 ? "standard output can hold one Massif file only"
                                     : "--summary also writes to standard output");
    if (n > 1 && out_name && !pattern_varies(out_name))
        return bad_opt(out_name, "with several traces, OUT must contain %r (rank) or %n "
                       "(trace name) to name one file per trace");
    if (n > 1 && o.gnuplot && !pattern_varies(o.gnuplot))
        return bad_opt(o.gnuplot, "with several traces, --gnuplot's FILE must contain "
                       "%r (rank) or %n (trace name)");
    assign_ranks(jobs, n);
    for (size_t i = 0; i < n; i++) {
        jobs[i].out = out_name ? expand(out_name, &jobs[i]) : default_out(jobs[i].trace);
        jobs[i].gp = o.gnuplot ? expand(o.gnuplot, &jobs[i]) : NULL;
        if (!jobs[i].out || (o.gnuplot && !jobs[i].gp)) {
            fputs("mtrace2massif: out of memory\n", stderr);
            return 1;
        }
    }
    if (check_names(jobs, n))
        return 2;

    /* one trace after the other: memory is that of the largest one */
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        rc |= convert_one(&o, &jobs[i]);
    if (n > 1 || summary) {
        print_summary(stdout, jobs, n);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fputs("mtrace2massif: standard output: write error\n", stderr);
            rc = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(jobs[i].out);
        free(jobs[i].gp);
    }
    free(jobs);
    free(alloc_fns);
    return rc;
}

#endif /* MTRACE2MASSIF_NO_MAIN */
