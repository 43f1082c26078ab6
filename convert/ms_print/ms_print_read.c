/* SPDX-License-Identifier: MIT */
/* ms_print_read.c - the input: block reads, lines, the header.
 *
 * Owns the reader's state in struct ctx (the block, the line crossing
 * blocks, the current logical line without its comment) and the header
 * (desc, cmd, time_unit); the snapshot section's lines are parsed by
 * ms_print_body.c.
 * Calls: ms_print_out.c (buffers), tool.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ms_print_lib.h"

/* Errors: tool_fail(&c->e, ...) prints "ms_print: FILE:LINE: what is wrong"
 * and unwinds to ms_print_run(), which flushes what stdout must hold. */

/* "expected X, got: <the line>" with the line shortened and made printable */
NORETURN void fail_got(struct ctx *c, const char *what, int have)
{
    char shown[64];
    if (!have)
        tool_fail(&c->e, "expected %s, got end of file", what);
    tool_shown(shown, sizeof shown, c->ln, c->lnlen);
    tool_fail(&c->e, "expected %s, got '%s'", what, shown);
}

/* One physical line including its newline, if any; 0 at end of file.
 * Lines longer than TOOL_MAX_LINE bytes are an error. */
static int raw_line(struct ctx *c, const char **p, size_t *n)
{
    int copying = 0;
    c->lbuf.n = 0;
    for (;;) {
        if (c->bpos == c->blen) {
            if (c->beof)
                break;
            c->blen = fread(c->blk, 1, BLOCK, c->in);
            c->bpos = 0;
            if (c->blen == 0) {
                if (ferror(c->in))
                    tool_fail(&c->e, "read error: %s", strerror(errno));
                c->beof = 1;
                break;
            }
        }
        const char *s = c->blk + c->bpos;
        size_t avail = c->blen - c->bpos;
        const char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) + 1 : avail;
        c->bpos += take;
        c->off += (off_t)take;
        if (nl && !copying) {
            *p = s;
            *n = take;
            c->e.line++;
            return 1;
        }
        /* a line crossing blocks is copied: bound it, or a file without
         * newlines (/dev/zero) takes all memory */
        if (c->lbuf.n + take - (nl != NULL) > TOOL_MAX_LINE) {
            c->e.line++;
            tool_fail(&c->e, "line longer than %d bytes", TOOL_MAX_LINE);
        }
        buf_add(c, &c->lbuf, s, take);
        copying = 1;
        if (nl)
            break;
    }
    if (!copying)
        return 0;
    *p = c->lbuf.p;
    *n = c->lbuf.n;
    c->e.line++;
    return 1;
}

/* The original's get_line: cut each line at its first '#', skip lines that
 * are then blank.  Sets c->ln/c->lnlen (without newline); 0 at EOF. */
int get_line(struct ctx *c)
{
    const char *p;
    size_t n;
    while (raw_line(c, &p, &n)) {
        int nl = p[n - 1] == '\n';
        const char *hash = memchr(p, '#', n);
        size_t len = hash ? (size_t)(hash - p) : n - (size_t)nl, i = 0;
        /* tree lines are indented by their depth: skip 8 spaces at once */
        while (i + 8 <= len && memcmp(p + i, "        ", 8) == 0)
            i += 8;
        for (; i < len; i++) {
            if (!is_pspace((unsigned char)p[i])) {
                c->ln = p;
                c->lnlen = len;
                c->lnskip = i;
                c->lnnl = nl;
                return 1;
            }
        }
    }
    return 0;
}

static int starts(struct ctx *c, const char *word)
{
    size_t k = strlen(word);
    return c->lnlen >= k && memcmp(c->ln, word, k) == 0;
}

/* "key: value" of the header: value after the colon and any blanks */
static void header_value(struct ctx *c, size_t k, struct buf *dst)
{
    size_t i = k;
    while (i < c->lnlen && is_pspace((unsigned char)c->ln[i]))
        i++;
    buf_set(c, dst, c->ln + i, c->lnlen - i);
}

void read_header(struct ctx *c)
{
    int have;
    while ((have = get_line(c)) && starts(c, MASSIF_DESC)) {
        buf_add(c, &c->desc, c->ln + sizeof MASSIF_DESC - 1,
                c->lnlen - (sizeof MASSIF_DESC - 1));
        if (c->lnnl)
            buf_add(c, &c->desc, "\n", 1);
    }
    if (!have || !starts(c, MASSIF_CMD))
        tool_fail(&c->e, "missing 'cmd' line");
    header_value(c, sizeof MASSIF_CMD - 1, &c->cmd);
    if (!get_line(c) || !starts(c, MASSIF_TIME_UNIT))
        tool_fail(&c->e, "missing 'time_unit' line");
    header_value(c, sizeof MASSIF_TIME_UNIT - 1, &c->tu);
    c->tu_line = c->e.line;
    c->body_off = c->off;
    c->body_line = c->e.line;
}

