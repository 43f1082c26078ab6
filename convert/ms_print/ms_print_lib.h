/* SPDX-License-Identifier: MIT */
/* ms_print_lib.h - what the files of ms_print share: Perl's numbers (pnum,
 * ms_print_pnum.h), the context of one run (struct ctx: the reader, the
 * parsed header, the per-snapshot summary, the output) and each file's
 * functions.
 *
 *   ms_print.c        main
 *   ms_print_run.c    ms_print_run(): the command line and the two passes
 *   ms_print_graph.c  the preamble, the graph, the snapshot counts
 *   ms_print_body.c   the snapshot section: its lines, the table, the trees
 *   ms_print_read.c   the input: lines, the header
 *   ms_print_out.c    the output, Perl's formats, the growing buffers
 *   ms_print_pnum.c   Perl's numbers: conversions (ms_print_pnum.h: the
 *                     type and its arithmetic, inline)
 *
 * Each file calls only the ones below it in this list (and tool.c).
 */
#ifndef MS_PRINT_H
#define MS_PRINT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ms_print_pnum.h"
#include "../common/tool.h"

/* Perl's \s and digits, for the hot loops of every file. */
static inline int is_pspace(unsigned char ch)
{
    /* Perl's \s and isSPACE without locale or Unicode rules */
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
           ch == '\f' || ch == '\v';
}

static inline int is_digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9';
}

/* A growing buffer (ms_print_out.c grows it). */
struct buf {
    char *p;
    size_t n, cap;
};

struct frame;           /* ms_print_body.c's tree walk */

/* One run of ms_print. */
struct ctx {
    struct tool_err e;  /* the file's name, the line, where errors unwind to */
    FILE *in, *out, *err;
    /* reader: a block buffer and a line buffer for lines crossing blocks */
    char *blk;
    size_t bpos, blen;
    int beof;
    struct buf lbuf;
    off_t off;          /* bytes consumed so far */
    /* the current logical line: comment removed, newline not included */
    const char *ln;
    size_t lnlen, lnskip;   /* lnskip: leading blanks */
    int lnnl;           /* the physical line ended with a newline */
    /* header */
    struct buf desc, cmd, tu;
    off_t body_off;
    uint64_t body_line, tu_line, last_line;
    /* options */
    int gx, gy;
    pnum thr;
    int thr_zero;       /* thr == 0: every node is significant */
    int argc;
    char **argv;
    /* snapshots */
    size_t n, cap;
    pnum *times, *totals;
    unsigned char *det;
    pnum peak_num, peak;
    /* tree walk */
    struct frame *stk;
    size_t stkcap;
    struct buf prefix;
    /* the current snapshot's fields, copied for the table row */
    struct buf fld[5];
    struct buf scratch;
    char *grid;
    /* output buffer in front of c->out: many small pieces per line */
    char obuf[1 << 16];
    size_t olen;
    /* non-seekable input: snapshot section formatted into memory */
    char *mbuf;
    size_t mlen;
    FILE *mem;
};

#define BLOCK (1u << 18)
#define DASHES "--------------------------------------------------------------------------------\n"

#if defined(__GNUC__)
#define NORETURN __attribute__((noreturn))
#else
#define NORETURN
#endif

/* ms_print_run.c: the whole program without main.  in: the input if
 * already open (the fuzzer passes a memory stream), else NULL to open the
 * file named on the command line.  Returns the exit status. */
int ms_print_run(int argc, char **argv, FILE *in, FILE *out, FILE *err);

/* ms_print_graph.c: the first half of the output */
void preamble(struct ctx *c);
void graph(struct ctx *c);
void counts(struct ctx *c);

/* ms_print_body.c: the snapshot section; pass 1 (collect) records the
 * summaries; when c->out is set, the section is printed as well. */
void header_row(struct ctx *c);
void read_body(struct ctx *c, int collect);

/* ms_print_read.c: the next logical line (c->ln), the header; the error
 * for a line that is not what was expected */
NORETURN void fail_got(struct ctx *c, const char *what, int have);
int get_line(struct ctx *c);
void read_header(struct ctx *c);

/* ms_print_out.c: c->out's buffer and Perl's formats; the buffers */
void buf_add(struct ctx *c, struct buf *b, const char *s, size_t n);
void buf_set(struct ctx *c, struct buf *b, const char *s, size_t n);
void out_flush(struct ctx *c);
void out(struct ctx *c, const char *s, size_t n);
void outs(struct ctx *c, const char *s);
void spaces(struct ctx *c, long n);
void put_field(struct ctx *c, const char *s, size_t n, int width,
               int commify);
void put_num(struct ctx *c, pnum v, int width);
void put_float(struct ctx *c, const char *fmt, int width, int zero,
               double d);
void put_pct(struct ctx *c, pnum v);

#endif
