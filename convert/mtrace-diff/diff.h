/* SPDX-License-Identifier: MIT */
/* diff.h - what the parts of mtrace-diff share: one run's figures (from a
 * JSON report or a trace), the inputs, the comparison.
 *
 *   mtrace-diff.c   the command line (a thin main)
 *   diff_input.c    a file opened, checked, recognised (JSON or trace)
 *   diff_run.c      a run's sites: added, sorted and merged, freed
 *   diff_json.c     a small bounded JSON reader (no recursion past JSON_DEPTH)
 *   diff_report.c   an MTRACE_REPORT file (doc/report-json.md) into a run
 *   diff_trace.c    a trace into a run: mtrace2massif's parser (trace/parse.c)
 *                   driving a heap model of our own (per-site counts)
 *   diff_table.c    two runs matched, the table, the --fail-on-increase gate
 *   diff_html.c     --html=FILE: the page (its figures as JSON, then the
 *                   script and style of diff_html_page.c, made by the
 *                   Makefile from convert/html/diff.css and diff.js)
 *
 * Every error goes through tool_fail (tool.c): "mtrace-diff: FILE:LINE:
 * what is wrong", or "mtrace-diff: FILE: ..." for the file as a whole.
 */
#ifndef DIFF_H
#define DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "../common/tool.h"
#include "../html/pages.h"

#define DIFF_VERSION MTRACE_TOOLS_VERSION

/* The figures of a site, in the table's order. */
enum { F_PEAK, F_TOTAL, F_CALLS, F_LEAKED, NFIG };

/* A site: the call (function, file, line), decoded to its bytes; the
 * figures it has ('have': bit 1 << F_x). */
struct dsite {
    char *func, *file;
    uint64_t line;
    uint64_t v[NFIG];
    unsigned have;
};

enum { RUN_JSON = 1, RUN_TRACE = 2 };

/* --html: a time bucket of a trace (at most PAGE_BUCKETS of them, by
 * record number, merged two by two when full): its highest heap and its
 * first moment, its lowest heap, the time after its last event. */
#define PAGE_BUCKETS 2048
struct dbucket {
    uint64_t key;               /* record / width */
    uint64_t hi, hi_rec, hi_tb, lo, rec_end, tb_end;
};

/* --html: what a trace gives the page beyond its sites' figures.  lab:
 * the labels (index < nsites: "func (file:line)", the site's full name;
 * then the stacks' frames, Massif's labels); path: the contexts (a site's
 * blocks without a stack, or a stack), each "N BYTES LABEL..." (N labels,
 * the allocating site first, then its callers) with BYTES its live bytes
 * at the run's peak (the first moment of the highest heap). */
struct dpage {
    char *cmd;                  /* "#cmd", decoded, or NULL */
    char **lab;
    size_t nlab, cap_lab;
    uint64_t *path;
    size_t npath, cap_path;
    struct dbucket *b;
    size_t nb;
    uint64_t width;             /* records per bucket */
    uint64_t peak, peak_rec, peak_tb, end_rec, end_tb, end_heap, tb;
    int stacks;                 /* the trace had "#stack" records */
};

/* One run: its global figures and its sites, sorted and merged by
 * (function, file, line) once read (run_finish). */
struct run {
    int kind;                   /* RUN_JSON or RUN_TRACE */
    uint64_t version;           /* the report's mtrace_report; 0 for a trace */
    uint64_t peak, leaked;
    struct dsite *s;
    size_t n, cap;
    struct dpage *pg;           /* --html, a trace: set before read_run */
};

/* diff_input.c: open NAME ("-": standard input), refuse what is not a
 * regular file or a pipe (a pipe is copied to a temporary file), and say
 * what it holds: RUN_JSON or RUN_TRACE.  Fails (e->file = its name) on a
 * missing, unreadable, empty or blank file and on a directory. */
int open_input(struct tool_err *e, const char *name, int *kind);
/* Read the run of the open input: the report or the trace. */
void read_run(struct tool_err *e, int fd, int kind, struct run *r);

/* diff_run.c: a new site at the end of r's (zeroed, names NULL). */
struct dsite *run_add(struct tool_err *e, struct run *r);
/* Sort r's sites by (function, file, line), merging the equal ones. */
void run_finish(struct run *r);
void run_free(struct run *r);
/* Compare two sites' keys: <0, 0, >0. */
int site_cmp(const struct dsite *a, const struct dsite *b);

/* diff_report.c: the JSON report on fd into r. */
void read_report(struct tool_err *e, int fd, struct run *r);

/* diff_trace.c: the trace on fd into r (a warning when truncated). */
void read_trace(struct tool_err *e, int fd, struct run *r);

/* diff_table.c: a line of the table: the site in base, in new (one may
 * be NULL), and the change of each figure it has in both (sign,
 * magnitude). */
struct drow {
    const struct dsite *b, *n;
    unsigned have;
    int neg[NFIG];
    uint64_t mag[NFIG];
};
/* The rows of the sites that changed, in the table's order; *same counts
 * the others.  NULL when out of memory; free() it. */
struct drow *diff_rows(const struct run *base, const struct run *new, size_t *nrows, size_t *same);
/* The header line and the table of base against new, to f. */
void print_diff(FILE *f, const struct run *base, const struct run *new);
/* The gate: 1 (after one line on stderr) when the peak or the leaked bytes
 * grew by more than pct_micro / 1e6 percent ('pct' as the user wrote it). */
int gate(const struct run *base, const struct run *new, uint64_t pct_micro, const char *pct);

/* diff_html.c: the page of base against new into 'name' (a temporary
 * name, then renamed; a device is written in place).  files: the two
 * inputs as named.  Returns 0, or 2 after a message. */
int write_page(const char *name, const struct run *base, const struct run *new,
               const char *const files[2]);
/* The page's style and script (html/diff_html_page.c, made from
 * convert/html/diff.css and diff.js), and html/m2m_html_page.c's style,
 * which the page shares with mtrace2massif's: ../html/pages.h. */

/* The JSON reader (diff_json.c): a stream over fd, the line counted in
 * e->line (from 1). */
#define JSON_DEPTH 16           /* nesting accepted in skipped values */
struct jr {
    struct tool_err *e;
    int fd;
    size_t pos, len;
    int eof;
    char buf[1 << 16];
};
void jr_init(struct jr *j, struct tool_err *e, int fd);
/* The next byte after white space, not consumed; -1 at the end. */
int jr_peek(struct jr *j);
/* Consume ch (after white space) or fail, naming 'what' was expected. */
void jr_expect(struct jr *j, int ch, const char *what);
/* A string, decoded (\u00XX is the byte XX, above 0xff UTF-8), NUL-ended;
 * malloc'd.  A NUL byte in it fails. */
char *jr_string(struct jr *j, const char *what);
/* A non-negative integer (no sign, fraction or exponent). */
uint64_t jr_uint(struct jr *j, const char *what);
/* true or false. */
int jr_bool(struct jr *j, const char *what);
/* Any value, nested at most JSON_DEPTH deep. */
void jr_skip(struct jr *j);
/* After the top-level value: only white space may follow. */
void jr_end(struct jr *j);

#endif
