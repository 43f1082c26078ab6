/* SPDX-License-Identifier: MIT */
/* mtrace-top - follow traces as they grow, as top follows processes.
 *
 *   mtrace-top [--batch] [--interval=SECONDS] TRACE...
 *
 * Every SECONDS (default 1) a snapshot of the traces (one trace, or the
 * files of an MPI run, NAME, NAME-1, ...): records so far, live bytes, the
 * peak and when, growth per second, the sites holding the most, and per
 * rank a table.  On a terminal it is drawn in place until 'q', Ctrl-C,
 * or every trace is over (its tail read, or no process writing it);
 * with --batch, or when standard output is no terminal, each snapshot is
 * printed after the one before, for scripts.  Exit 2: bad usage or bad
 * input, one line "mtrace-top: FILE:LINE: what is wrong".  doc/mtrace-top.1.
 *
 * This file: the command line and the loop.  top.h lists the other parts.
 * Calls: top_follow.c, top_show.c, top_screen.c, tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "top.h"
#include "top_screen.h"

static void usage(FILE *f)
{
    fputs("usage: mtrace-top [--batch] [--interval=SECONDS] TRACE...\n"
          "Follow traces (MTRACE=NAME, plain or NAME.zst) as the traced program\n"
          "writes them: records so far, live bytes, the peak and when, growth per\n"
          "second, the sites holding the most live bytes, and a table of ranks for\n"
          "the files of an MPI run (NAME NAME-1 NAME-2 ...).  The files are only read.\n"
          "\n"
          "On a terminal the snapshot is redrawn in place; 'q' or Ctrl-C quits.\n"
          "mtrace-top ends by itself when every trace is over: its tail written, or\n"
          "no process writing it for 1 s (a run killed by SIGKILL).\n"
          "\n"
          "options:\n"
          "  --batch, -b           print one plain snapshot after another (also\n"
          "                        when standard output is not a terminal)\n"
          "  --interval=SECONDS, --interval SECONDS, -d SECONDS\n"
          "                        between snapshots; fractions too (default 1)\n"
          "  --help, --version\n"
          "Exit status: 0, or 2 for bad usage or bad input.\n"
          "See mtrace-top(1).\n" MTRACE_TOOLS_BUGS, f);
}

static int bad_usage(const char *arg, const char *why)
{
    if (arg)
        fprintf(stderr, "mtrace-top: %s: %s\n", arg, why);
    else
        fprintf(stderr, "mtrace-top: %s\n", why);
    fputs("Try 'mtrace-top --help'.\n", stderr);
    return 2;
}

/* SECONDS: a decimal number, > 0 and at most a day. */
static int parse_interval(const char *s, double *v)
{
    char *end;
    if (!*s || strspn(s, "0123456789.") != strlen(s))
        return 0;
    errno = 0;
    *v = strtod(s, &end);
    return !*end && !errno && isfinite(*v) && *v >= 0.001 && *v <= 86400;
}

/* Ranks: r from NAME-r, 0 for NAME when NAME-r is given too, else none. */
static void set_ranks(struct followed *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(f[i].name);
        f[i].rank = tool_rank_suffix(f[i].name);
        for (size_t k = 0; k < n && f[i].rank < 0; k++)
            if (k != i && !strncmp(f[k].name, f[i].name, len) && f[k].name[len] == '-' &&
                tool_rank_suffix(f[k].name) > 0 &&
                f[k].name[len + 1 + strspn(f[k].name + len + 1, "0123456789")] == 0)
                f[i].rank = 0;
    }
}

struct run {
    struct followed *f;
    size_t n;
    int batch;
    double interval;
    FILE *err;                  /* where the error line goes (terminal: kept) */
    char *errtext;
    size_t errlen;
};

/* One step of every trace; 1 when all are over, -1 on an error. */
static int step_all(struct run *r)
{
    char *locks = follow_locks();
    int over = 1;
    for (size_t i = 0; i < r->n; i++) {
        if (follow_step(&r->f[i], locks) != 0) {
            free(locks);
            return -1;
        }
        follow_growth(&r->f[i]);
        over &= r->f[i].state != TOP_RUNNING;
    }
    free(locks);
    return over;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int run_batch(struct run *r)
{
    for (int first = 1;; first = 0) {
        int over = step_all(r);
        if (over < 0)
            return 2;
        if (!first)
            putchar('\n');
        show_snapshot(stdout, r->f, r->n, 0);
        fflush(stdout);
        if (over)
            return 0;
        sleep_s(r->interval);
    }
}

static int run_screen(struct run *r)
{
    int rc = 0;
    screen_start();
    for (;;) {
        int over = step_all(r);
        if (over < 0) {
            rc = 2;
            break;
        }
        size_t rows, cols, len = 0;
        char *text = NULL;
        screen_size(&rows, &cols);
        FILE *m = open_memstream(&text, &len);
        if (!m)
            break;
        /* the lines above the sites (top_show.c): 9 for one trace, the
         * sums and the table for several; then a line for "more" */
        size_t head = r->n == 1 ? 9 : r->n + 7;
        show_snapshot(m, r->f, r->n, rows > head + 3 ? rows - head - 2 : 1);
        fclose(m);
        screen_draw(text, len, rows, cols);
        free(text);
        if (over || screen_wait(r->interval) == SCREEN_QUIT)
            break;
    }
    screen_end();
    fflush(r->err);
    if (rc)
        fwrite(r->errtext, 1, r->errlen, stderr);
    return rc;
}

int main(int argc, char **argv)
{
    struct run r = { .batch = 0, .interval = 1, .err = stderr };
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            tool_version("mtrace-top");
            return 0;
        } else if (!strcmp(a, "--batch") || !strcmp(a, "-b")) {
            r.batch = 1;
        } else if (!strncmp(a, "--interval=", 11) || !strcmp(a, "--interval") || !strcmp(a, "-d")) {
            v = a[10] == '=' ? a + 11 : i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return bad_usage(a, "needs SECONDS");
            if (!parse_interval(v, &r.interval))
                return bad_usage(v, "SECONDS must be a number from 0.001 to 86400");
        } else
            return bad_usage(a, "unknown option");
    }
    if (i == argc)
        return bad_usage(NULL, "no trace given");
    r.n = (size_t)(argc - i);
    if (!isatty(STDOUT_FILENO))
        r.batch = 1;
    if (!r.batch && !(r.err = open_memstream(&r.errtext, &r.errlen)))
        r.err = stderr;
    if (!(r.f = calloc(r.n, sizeof *r.f)))
        return bad_usage(NULL, "out of memory");
    for (size_t k = 0; k < r.n; k++)
        if (follow_open(&r.f[k], argv[i + (int)k], stderr) != 0)
            return 2;
        else
            r.f[k].c.e.err = r.err;
    set_ranks(r.f, r.n);
    return r.batch ? run_batch(&r) : run_screen(&r);
}
