/* SPDX-License-Identifier: MIT */
/* mtrace-diff - compare two runs of a traced program: two JSON reports
 * (MTRACE_REPORT, doc/report-json.md) or two traces (MTRACE,
 * doc/trace-format.md), told apart by their content.
 *
 *   mtrace-diff [--fail-on-increase=PCT] [--html=FILE] BASE NEW
 *
 * Prints a header line (global peak and leaked bytes of both, their change
 * in percent) and a table of the change per site, largest first; with
 * --fail-on-increase, exits 1 when the peak or the leaked bytes grew by
 * more than PCT percent (a CI gate); with --html, also writes the
 * comparison as one self-contained HTML page (diff_html.c).  Exit 2:
 * bad usage or bad input, with one line "mtrace-diff: FILE:LINE: what is wrong".  doc/mtrace-diff.md.
 *
 * This file: the command line, and nothing else (a thin main); diff.h
 * lists the other parts.  Calls: diff_input.c, diff_run.c (run_free),
 * diff_table.c, diff_html.c, tool.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static void usage(FILE *f)
{
    fputs("usage: mtrace-diff [--fail-on-increase=PCT] [--html=FILE] BASE NEW\n"
          "Compare two runs of a traced program: two JSON reports (MTRACE_REPORT)\n"
          "or two traces (MTRACE), recognised by their content; '-' is standard\n"
          "input (for one of them).  A trace compressed with zstd (MTRACE=NAME.zst)\n"
          "is read as it is.\n"
          "\n"
          "Prints the global peak and leaked bytes of both with their change in\n"
          "percent, then per site (function, file, line) the change from BASE to\n"
          "NEW of its peak bytes, total bytes allocated, allocation calls and\n"
          "leaked bytes, the largest change of the peak first; sites only in NEW\n"
          "are marked (new), sites only in BASE (gone); '-' is a figure one of the\n"
          "inputs lacks (a version 1 report has no total bytes).\n"
          "\n"
          "options:\n"
          "  --fail-on-increase=PCT  exit 1 when the peak or the leaked bytes grew\n"
          "                          by more than PCT percent (from 0: always)\n"
          "  --html=FILE             also write the comparison as one self-contained\n"
          "                          HTML page: the time graphs overlaid, a\n"
          "                          differential flame graph of the peak, the table\n"
          "  --help, --version\n"
          "Exit status: 0, 1 (--fail-on-increase), 2 for bad usage or bad input.\n"
          "See mtrace-diff(1) and doc/mtrace-diff.md.\n" MTRACE_TOOLS_BUGS, f);
}

static int bad_usage(const char *arg, const char *why)
{
    return tool_bad_usage("mtrace-diff", arg, why);
}

/* PCT as millionths of a percent: digits, and at most six decimals.
 * Returns 0 if it is not such a number. */
static int parse_pct(const char *s, uint64_t *micro)
{
    uint64_t whole = 0, frac = 0;
    int nd = 0, nf = -1;
    for (; *s >= '0' && *s <= '9'; s++, nd++)
        if ((whole = whole * 10 + (uint64_t)(*s - '0')) > UINT64_C(1000000000000))
            return 0;
    if (*s == '.') {
        for (nf = 0, s++; *s >= '0' && *s <= '9'; s++, nf++) {
            if (nf < 6)
                frac = frac * 10 + (uint64_t)(*s - '0');
            else if (*s != '0')
                return 0;
        }
    }
    if (*s || nd == 0 || nf == 0)
        return 0;
    for (; nf < 6; nf++)
        frac *= 10;
    *micro = whole * 1000000 + frac;
    return 1;
}

struct cmdline {
    const char *files[2];
    const char *pct;            /* NULL: no gate */
    const char *html;           /* --html=FILE, or NULL */
    uint64_t pct_micro;
};

/* Returns -1 to go on, else the exit status. */
static int read_args(int argc, char **argv, struct cmdline *cl)
{
    int n = 0, only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            if (n == 2)
                return bad_usage(a, "one file too many (BASE and NEW only)");
            cl->files[n++] = a;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            tool_version("mtrace-diff");
            return 0;
        } else if (!strncmp(a, "--fail-on-increase=", 19)) {
            cl->pct = a + 19;
            if (!parse_pct(cl->pct, &cl->pct_micro))
                return bad_usage(a, "expected a percentage: a number >= 0 "
                                 "(at most 6 decimals)");
        } else if (!strncmp(a, "--html=", 7)) {
            cl->html = a + 7;
            if (!*cl->html)
                return bad_usage(a, "expected a file name");
        } else {
            return bad_usage(a, "unknown option");
        }
    }
    if (n < 2)
        return bad_usage(NULL, "two files are needed: BASE and NEW");
    if (!strcmp(cl->files[0], "-") && !strcmp(cl->files[1], "-"))
        return bad_usage("-", "standard input can be read only once");
    for (int i = 0; i < 2 && cl->html; i++)
        if (!strcmp(cl->html, cl->files[i]))
            return bad_usage(cl->html, "--html would write over an input");
    return -1;
}

int main(int argc, char **argv)
{
    static struct cmdline cl;
    static struct run runs[2];
    static struct tool_err e;
    static int fd[2], kind[2];
    int rc = read_args(argc, argv, &cl);
    if (rc >= 0)
        return rc;
    e.prog = "mtrace-diff";
    e.err = stderr;
    if (setjmp(e.jb))
        return 2;               /* the error line is out */
    for (int i = 0; i < 2; i++)
        fd[i] = open_input(&e, cl.files[i], &kind[i]);
    if (kind[0] != kind[1]) {
        fprintf(stderr, "mtrace-diff: %s is a %s, %s a %s: compare two of a kind\n",
                cl.files[0], kind[0] == RUN_JSON ? "JSON report" : "trace", cl.files[1],
                kind[1] == RUN_JSON ? "JSON report" : "trace");
        return 2;
    }
    for (int i = 0; i < 2; i++) {
        e.file = strcmp(cl.files[i], "-") ? cl.files[i] : "stdin";
        if (cl.html && kind[i] == RUN_TRACE) {
            runs[i].pg = tool_realloc(&e, NULL, sizeof *runs[i].pg);
            memset(runs[i].pg, 0, sizeof *runs[i].pg);
        }
        read_run(&e, fd[i], kind[i], &runs[i]);
        if (fd[i] > 0)
            close(fd[i]);
    }
    print_diff(stdout, &runs[0], &runs[1]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("mtrace-diff: standard output: write error\n", stderr);
        return 2;
    }
    if (cl.html && write_page(cl.html, &runs[0], &runs[1], cl.files) != 0)
        return 2;
    rc = cl.pct ? gate(&runs[0], &runs[1], cl.pct_micro, cl.pct) : 0;
    run_free(&runs[0]);
    run_free(&runs[1]);
    return rc;
}
