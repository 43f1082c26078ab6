/* SPDX-License-Identifier: MIT */
/* tool.c - the shared part of mtrace2massif and ms_print (see tool.h):
 * the error line, checked allocation, %XX names, gnuplot's quoting.
 * Calls nothing of either tool: every file of both may call it. */
#include "tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Traces and Massif files pass 2 GiB: on a 32-bit system the tools must be
 * built with -D_FILE_OFFSET_BITS=64 (the Makefile does), or their seeks
 * and offsets stop there.  Every build of them, the fuzzers' included,
 * gets the flag or this error. */
_Static_assert(sizeof(off_t) >= 8, "build the tools with -D_FILE_OFFSET_BITS=64");

void tool_where(FILE *f, const char *prog, const char *file, uint64_t line)
{
    if (line)
        fprintf(f, "%s: %s:%" PRIu64 ": ", prog, file, line);
    else    /* not about a line: a read error, an empty file */
        fprintf(f, "%s: %s: ", prog, file);
}

void tool_fail(struct tool_err *e, const char *fmt, ...)
{
    if (e->err) {
        va_list ap;
        tool_where(e->err, e->prog, e->file, e->line);
        va_start(ap, fmt);
        vfprintf(e->err, fmt, ap);
        va_end(ap);
        fputc('\n', e->err);
    }
    longjmp(e->jb, 1);
}

void *tool_realloc(struct tool_err *e, void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        tool_fail(e, "out of memory");
    return q;
}

int tool_hex(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

size_t tool_decode(char *out, const char *p, const char *end)
{
    size_t n = 0;
    while (p < end) {
        int ch = (unsigned char)*p++;
        /* a '%' without two hex digits is kept: the tracer never writes
         * one, and Basilisk's names are not escaped at all */
        if (ch == '%' && end - p >= 2 && tool_hex(p[0]) >= 0 && tool_hex(p[1]) >= 0) {
            ch = tool_hex(p[0]) * 16 + tool_hex(p[1]);
            p += 2;
        }
        out[n++] = (char)ch;
    }
    out[n] = 0;
    return n;
}

size_t tool_escape(char *out, const char *s, size_t n, const char *also)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || (ch && strchr(also, ch))) {
            out[k++] = '%';
            out[k++] = hex[ch >> 4];
            out[k++] = hex[ch & 15];
        } else {
            out[k++] = (char)ch;
        }
    }
    out[k] = 0;
    return k;
}

void tool_put_escaped(FILE *f, const char *s, const char *also)
{
    char b[4];
    for (; *s; s++)
        fwrite(b, 1, tool_escape(b, s, 1, also), f);
}

void tool_shown(char *dst, size_t cap, const char *s, size_t n)
{
    size_t j = 0, i = 0;
    char b[4];
    for (; i < n; i++) {
        size_t k = tool_escape(b, s + i, 1, "");
        if (j + k + 4 > cap)    /* room for "..." and the NUL */
            break;
        memcpy(dst + j, b, k);
        j += k;
    }
    if (i < n)
        memcpy(dst + j, "...", 3), j += 3;
    dst[j] = 0;
}

void gp_quote(FILE *f, const char *s)
{
    char b[4];
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);     /* gnuplot's only escape in '...' */
        fwrite(b, 1, tool_escape(b, s, 1, ""), f);
    }
    fputc('\'', f);
}

/* The length of the well-formed UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, lo = s[0] == 0xE0 ? 0xA0 : 0x80, hi = s[0] == 0xED ? 0x9F : 0xBF;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, lo = s[0] == 0xF0 ? 0x90 : 0x80, hi = s[0] == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

void tool_json_str(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c >= 0x80 ? utf8_seq(s + i, n - i) : 1;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&' || k == 0)
            fprintf(f, "\\u%04x", c);           /* k == 0: not UTF-8, Latin-1 */
        else if (k == 3 && c == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9))
            fprintf(f, "\\u%04x", 0x2000u + s[i + 2] - 0x80u);
        else
            fwrite(s + i, 1, k, f);
        i += k ? k : 1;
    }
    fputc('"', f);
}

int tool_write_file(const char *prog, const char *name, int (*put)(FILE *f, void *arg), void *arg)
{
    struct stat st;
    int in_place = stat(name, &st) == 0 && !S_ISREG(st.st_mode), rc = 0;
    size_t n = strlen(name) + 32;
    char *tmp = malloc(n);
    FILE *f;
    if (!tmp) {
        fprintf(stderr, "%s: %s: out of memory\n", prog, name);
        return -1;
    }
    snprintf(tmp, n, "%s.tmp%ld", name, (long)getpid());
    if (!(f = fopen(in_place ? name : tmp, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
        free(tmp);
        return -1;
    }
    if (put(f, arg) != 0) {
        fprintf(stderr, "%s: %s: out of memory\n", prog, name);
        rc = -1;
    }
    if (!rc && (fflush(f) != 0 || ferror(f))) {
        fprintf(stderr, "%s: %s: write error: %s\n", prog, name, strerror(errno));
        rc = -1;
    }
    if (fclose(f) != 0 && !rc) {
        fprintf(stderr, "%s: %s: write error: %s\n", prog, name, strerror(errno));
        rc = -1;
    }
    if (!in_place && !rc && rename(tmp, name) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
        rc = -1;
    }
    if (!in_place && rc)
        remove(tmp);
    free(tmp);
    return rc;
}

void tool_version(const char *prog)
{
    printf("%s %s (mtrace, %s)\n", prog, MTRACE_TOOLS_VERSION, MTRACE_LICENCE);
}
