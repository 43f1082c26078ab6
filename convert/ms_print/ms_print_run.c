/* SPDX-License-Identifier: MIT */
/* ms_print_run.c - the program without main: ms_print_run() reads the
 * command line, opens the input, runs the two passes (pass 1 reads and
 * validates; then the preamble and the graph are printed; pass 2 prints
 * the snapshot section) and frees everything, also when an error unwinds
 * to it.  The libFuzzer harness calls it on memory streams.
 *
 * Owns struct ctx's lifetime and the options.
 * Calls: ms_print_read.c, ms_print_body.c, ms_print_graph.c,
 * ms_print_out.c, ms_print_pnum.c, tool.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ms_print_lib.h"

#define MS_PRINT_VERSION "3.19.0"  /* the Valgrind release whose output we reproduce */

static const char usage_text[] =
    "usage: ms_print [options] massif-out-file\n"
    "\n"
    "  options for the user, with defaults in [ ], are:\n"
    "    -h --help             show this message\n"
    "    --version             show version\n"
    "    --threshold=<m.n>     significance threshold, in percent [1]\n"
    "    --x=<4..1000>         graph width, in columns [72]\n"
    "    --y=<4..1000>         graph height, in rows [20]\n"
    "\n"
    "  This ms_print is part of mtrace " MTRACE_TOOLS_VERSION " (" MTRACE_LICENCE ", see its LICENSE):\n"
    "  original code that prints what Valgrind's ms_print " MS_PRINT_VERSION " prints.\n"
    "  " MTRACE_TOOLS_BUGS;

/* The original's option regexes end in '$', which also matches before a
 * final newline: "--x=72\n" is accepted. */
static int at_end(const char *s)
{
    return s[0] == '\0' || (s[0] == '\n' && s[1] == '\0');
}

/* "--x=<digits>" / "--y=<digits>" in 4..1000; -1 if malformed/out of range */
static int dim_opt(const char *v)
{
    size_t n = 0;
    while (is_digit((unsigned char)v[n]))
        n++;
    if (n == 0 || !at_end(v + n))
        return -1;
    pnum p = pn_num(v, n);
    if (!pn_ge(p, pn_int(0, 4)) || !pn_ge(pn_int(0, 1000), p))
        return -1;
    return (int)pn_iv(p);
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(struct ctx *c, const char **file)
{
    *file = NULL;
    for (int i = 1; i < c->argc; i++) {
        const char *a = c->argv[i];
        if (a[0] != '-') {
            if (!*file)
                *file = a;
            continue;
        }
        if (strncmp(a, "--version", 9) == 0 && at_end(a + 9)) {
            fputs("ms_print (mtrace " MTRACE_TOOLS_VERSION ", " MTRACE_LICENCE "): the output format of "
                  "Valgrind's ms_print-" MS_PRINT_VERSION "\n", c->err);
            return 255;
        }
        if (strncmp(a, "--threshold=", 12) == 0) {
            const char *v = a + 12;
            size_t n = 0;
            while (is_digit((unsigned char)v[n]) || v[n] == '.')
                n++;
            const char *rest = v + n;
            if (*rest == '%')
                rest++;
            if (n > 0 && at_end(rest)) {
                c->thr = pn_num(v, n);
                if (pn_ge(c->thr, pn_int(0, 0)) &&
                    pn_ge(pn_int(0, 100), c->thr))
                    continue;
            }
        } else if (strncmp(a, "--x=", 4) == 0 && (c->gx = dim_opt(a + 4)) > 0) {
            continue;
        } else if (strncmp(a, "--y=", 4) == 0 && (c->gy = dim_opt(a + 4)) > 0) {
            continue;
        }
        fputs(usage_text, c->err);
        return 255;
    }
    if (!*file) {
        fputs(usage_text, c->err);
        return 255;
    }
    return -1;
}

/* Perl's two-argument open drops leading and trailing blanks of the name. */
static FILE *open_input(struct ctx *c, const char *name, char **owned)
{
    size_t a = 0, b = strlen(name);
    while (a < b && is_pspace((unsigned char)name[a]))
        a++;
    while (b > a && is_pspace((unsigned char)name[b - 1]))
        b--;
    *owned = malloc(b - a + 1);
    if (!*owned) {
        fprintf(c->err, "ms_print: out of memory\n");
        return NULL;
    }
    memcpy(*owned, name + a, b - a);
    (*owned)[b - a] = '\0';
    FILE *f = fopen(*owned, "r");
    if (!f)
        fprintf(c->err, "ms_print: %s: %s\n", name, strerror(errno));
    return f;
}

static void cleanup(struct ctx *c)
{
    free(c->blk);
    free(c->lbuf.p);
    free(c->desc.p);
    free(c->cmd.p);
    free(c->tu.p);
    free(c->times);
    free(c->totals);
    free(c->det);
    free(c->stk);
    free(c->prefix.p);
    for (int k = 0; k < 5; k++)
        free(c->fld[k].p);
    free(c->scratch.p);
    free(c->grid);
    if (c->mem)
        fclose(c->mem);
    free(c->mbuf);
}

/* The whole program.  in: the input if already open (the fuzzer passes a
 * memory stream), else NULL to open the file named on the command line. */
int ms_print_run(int argc, char **argv, FILE *in_arg, FILE *outf, FILE *err)
{
    FILE *volatile in = in_arg;
    struct ctx ctx;
    struct ctx *volatile c = &ctx;
    const char *file;
    char *volatile owned = NULL;
    FILE *volatile opened = NULL;
    int rc;

    memset(&ctx, 0, sizeof ctx);
    c->argc = argc;
    c->argv = argv;
    c->err = err;
    c->gx = 72;
    c->gy = 20;
    c->thr = pn_int(0, 1);
    c->peak_num = pn_int(1, 1);
    c->peak = pn_int(0, 0);
    rc = parse_args(c, &file);
    if (rc >= 0)
        return rc;
    c->e.prog = "ms_print";
    c->e.file = file;
    c->e.err = err;
    c->thr_zero = pn_cmp(c->thr, pn_int(0, 0)) == 0;
    if (!in) {
        char *o;
        in = opened = open_input(c, file, &o);
        owned = o;
        if (!in) {
            rc = errno ? errno : 1;
            free(owned);
            return rc;
        }
    }
    c->in = in;
    if (setjmp(c->e.jb)) {
        out_flush(c);   /* the preamble, when the original prints it too */
        rc = 1;
        goto done;
    }
    c->blk = tool_realloc(&c->e, NULL, BLOCK);
    int seekable = fseeko(in, 0, SEEK_CUR) == 0 && ftello(in) == 0;
    if (!seekable) {
        c->mem = open_memstream(&c->mbuf, &c->mlen);
        if (!c->mem)
            tool_fail(&c->e, "out of memory");
    }
    read_header(c);
    c->out = c->mem;
    if (c->out)
        header_row(c);
    read_body(c, 1);
    out_flush(c);
    c->last_line = c->e.line;
    c->out = outf;
    preamble(c);
    graph(c);
    counts(c);
    if (seekable) {
        if (fseeko(in, c->body_off, SEEK_SET) != 0)
            tool_fail(&c->e, "cannot re-read: %s", strerror(errno));
        c->bpos = c->blen = 0;
        c->beof = 0;
        c->e.line = c->body_line;
        c->off = c->body_off;
        header_row(c);
        read_body(c, 0);
    } else {
        if (fflush(c->mem) != 0)
            tool_fail(&c->e, "out of memory");
        out(c, c->mbuf, c->mlen);
    }
    out_flush(c);
    rc = 0;
done:
    cleanup(c);
    if (opened)
        fclose(opened);
    free(owned);
    return rc;
}
