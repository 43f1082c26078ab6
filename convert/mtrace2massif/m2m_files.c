/* SPDX-License-Identifier: MIT */
/* m2m_files.c - one trace of the command line into its files: the trace
 * opened (a pipe or a compressed trace copied as text to a temporary file
 * for the second pass, tool_input; a trace in segments joined,
 * trace/segments.c), the
 * Massif file written under a temporary name and renamed only when the
 * conversion succeeded, the gnuplot script removed when it did not;
 * devices and FIFOs written in place and never removed.
 * Calls: m2m_convert.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m2m.h"

/* Is 'name' something other than a regular file (/dev/null, a FIFO, a
 * terminal)?  Such an output is written in place and never removed:
 * renaming a temporary file over it, or removing it after a failure,
 * would replace or delete the device itself (as root, /dev/null). */
static int special_file(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0 && !S_ISREG(st.st_mode);
}

/* The trace as a file that can be read twice (tool_input): its
 * descriptor, or -1 after one line on stderr.  A trace in segments
 * (MTRACE_TRACE_MAX, NAME.seg-K beside it): the kept ones joined. */
static int text_input(const char *file, int fd)
{
    struct tool_err e = { .prog = "mtrace2massif", .file = file, .err = stderr };
    int joined;
    if (setjmp(e.jb))
        return -1;
    if (fd != 0 && (joined = trace_segments_join(&e, file)) >= 0)
        return joined;
    return tool_input(&e, fd);
}

/* Convert one trace into its files; fills the job's summary numbers.
 * Returns 0, or 1 after a message (nothing is left behind then). */
int convert_one(const struct opts *o, struct job *j)
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
    c->o.html = j->part ? o->html : j->html;   /* its part of the run's page, or its own */
    c->o.html_part = j->part;
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
    int text = text_input(c->e.file, in.fd);    /* a pipe, NAME.zst: a temporary file */
    if (text != in.fd && in.fd > 0)
        close(in.fd);
    if ((in.fd = text) < 0)
        goto done;
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
    if (in.fd > 0)
        close(in.fd);
    free(in.buf);
    free(tmp_name);
    free(c);
    j->rc = rc;
    return rc;
}
