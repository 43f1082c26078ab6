/* SPDX-License-Identifier: MIT */
/* diff_input.c - an input of mtrace-diff: the file opened and checked
 * (never waited on: a FIFO is opened without blocking), a pipe or a
 * compressed trace copied as text to a temporary file (tool_input), what
 * it holds recognised by its first byte that is not
 * white space ('{' or '[': JSON, anything else: a trace), then read into a
 * run; and the run's sites as a set keyed by (function, file, line).
 * Owns struct run's storage (and its page's figures, struct dpage).  Calls: diff_report.c, diff_trace.c, tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"
#include "../trace/trace.h"

/* The first byte that is not white space, or -1; fd is left at 0. */
static int first_byte(struct tool_err *e, int fd, int *empty)
{
    char buf[4096];
    ssize_t r;
    int ch = -1;
    *empty = 1;
    while (ch < 0 && (r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            tool_fail(e, "read error: %s", strerror(errno));
        *empty = 0;
        for (ssize_t i = 0; i < r && ch < 0; i++)
            if (!strchr(" \t\r\n", buf[i]) || !buf[i])
                ch = (unsigned char)buf[i];
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        tool_fail(e, "cannot rewind: %s", strerror(errno));
    return ch;
}

int open_input(struct tool_err *e, const char *name, int *kind)
{
    struct stat st;
    int stdin_ = !strcmp(name, "-"), empty;
    int fd = stdin_ ? 0 : open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    e->file = stdin_ ? "stdin" : name;
    e->line = 0;
    if (fd < 0 || fstat(fd, &st) != 0)
        tool_fail(e, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        tool_fail(e, "is a directory");
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        tool_fail(e, "not a regular file or a pipe");
    if (!stdin_)                /* the FIFO is open: reads may wait now */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    /* a trace in segments (MTRACE_TRACE_MAX): joined */
    int text = stdin_ ? -1 : trace_segments_join(e, name);
    if (text < 0)
        text = tool_input(e, fd);   /* a pipe, NAME.zst: a temporary file */
    if (text != fd && !stdin_)
        close(fd);
    fd = text;
    int ch = first_byte(e, fd, &empty);
    if (ch < 0)
        tool_fail(e, empty ? "empty file" : "only white space: neither a report nor a trace");
    *kind = ch == '{' || ch == '[' ? RUN_JSON : RUN_TRACE;
    return fd;
}

void read_run(struct tool_err *e, int fd, int kind, struct run *r)
{
    if (kind == RUN_JSON)
        read_report(e, fd, r);
    else
        read_trace(e, fd, r);
    e->line = 0;
    run_finish(r);
}
