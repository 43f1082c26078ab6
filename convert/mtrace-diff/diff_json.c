/* SPDX-License-Identifier: MIT */
/* diff_json.c - a small JSON reader for mtrace-diff: a stream over a file
 * descriptor (64 KiB buffered, whatever the file's size), pulled token by
 * token by its caller (diff_report.c); values the caller does not want are
 * skipped, nested at most JSON_DEPTH deep (the only recursion, so bounded);
 * a string at most TOOL_MAX_LINE bytes.  The line is counted in e->line
 * for the error lines.  Grammar: RFC 8259.
 * Owns struct jr.  Calls: tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

void jr_init(struct jr *j, struct tool_err *e, int fd)
{
    j->e = e;
    j->fd = fd;
    j->pos = j->len = 0;
    j->eof = 0;
    e->line = 1;
}

/* The next byte, not consumed; -1 at the end of the file. */
static int peek_raw(struct jr *j)
{
    while (j->pos == j->len && !j->eof) {
        ssize_t r = read(j->fd, j->buf, sizeof j->buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            tool_fail(j->e, "read error: %s", strerror(errno));
        j->pos = 0;
        j->len = (size_t)r;
        j->eof = r == 0;
    }
    return j->pos < j->len ? (unsigned char)j->buf[j->pos] : -1;
}

/* The next byte, consumed; fails at the end of the file. */
static int get(struct jr *j)
{
    int ch = peek_raw(j);
    if (ch < 0)
        tool_fail(j->e, "unexpected end of file (the report is cut short)");
    j->pos++;
    if (ch == '\n')
        j->e->line++;
    return ch;
}

int jr_peek(struct jr *j)
{
    int ch;
    while ((ch = peek_raw(j)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
        get(j);
    return ch;
}

/* The byte for a message: printable, or its code. */
static const char *shown(int ch, char buf[8])
{
    if (ch < 0)
        return "the end of the file";
    if (ch > 0x20 && ch < 0x7f)
        snprintf(buf, 8, "'%c'", ch);
    else
        snprintf(buf, 8, "0x%02x", (unsigned)ch & 0xff);
    return buf;
}

void jr_expect(struct jr *j, int ch, const char *what)
{
    char b[8];
    int got = jr_peek(j);
    if (got != ch)
        tool_fail(j->e, "invalid JSON: expected %s, found %s", what, shown(got, b));
    get(j);
}

/* Four hex digits of a \u escape. */
static unsigned hex4(struct jr *j)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int d = tool_hex(get(j));
        if (d < 0)
            tool_fail(j->e, "invalid JSON: \\u must be followed by four hex digits");
        v = v * 16 + (unsigned)d;
    }
    return v;
}

/* Code point u as bytes at out (at most 4): the bytes 0..0xff as
 * themselves (the tracer writes a non-ASCII byte as \u00XX), above as
 * UTF-8.  Returns the count. */
static size_t put_code(char *out, unsigned u)
{
    if (u < 0x100) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xc0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xe0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3f));
        out[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3f));
    out[2] = (char)(0x80 | (u >> 6 & 0x3f));
    out[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

/* The escape after a backslash, as bytes at out; returns the count. */
static size_t escape(struct jr *j, char *out)
{
    int ch = get(j);
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *k = ch ? strchr(from, ch) : NULL;
    if (k) {
        *out = to[k - from];
        return 1;
    }
    if (ch != 'u')
        tool_fail(j->e, "invalid JSON: unknown escape in a string");
    unsigned u = hex4(j);
    if (u >= 0xd800 && u < 0xdc00) {    /* a surrogate pair */
        if (get(j) != '\\' || get(j) != 'u')
            tool_fail(j->e, "invalid JSON: a lone surrogate in a string");
        unsigned lo = hex4(j);
        if (lo < 0xdc00 || lo >= 0xe000)
            tool_fail(j->e, "invalid JSON: a lone surrogate in a string");
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
    } else if (u >= 0xdc00 && u < 0xe000) {
        tool_fail(j->e, "invalid JSON: a lone surrogate in a string");
    }
    if (u == 0)
        tool_fail(j->e, "a NUL character in a name");
    return put_code(out, u);
}

/* A string's buffer at most: the bound, an escape's bytes, the NUL. */
#define STRING_CAP (TOOL_MAX_LINE + 9)

char *jr_string(struct jr *j, const char *what)
{
    size_t n = 0, cap = 64;
    char *s = tool_realloc(j->e, NULL, cap);
    jr_expect(j, '"', what);
    for (;;) {
        int ch = get(j);
        if (ch == '"')
            break;
        if (ch < 0x20)
            tool_fail(j->e, "invalid JSON: a control character in a string");
        if (n + 8 > cap) {      /* room for an escape's bytes and the NUL */
            cap = cap * 2 > STRING_CAP ? STRING_CAP : cap * 2;
            s = tool_realloc(j->e, s, cap);
        }
        if (ch == '\\')
            n += escape(j, s + n);
        else
            s[n++] = (char)ch;
        if (n > TOOL_MAX_LINE)
            tool_fail(j->e, "a string longer than %d bytes", TOOL_MAX_LINE);
    }
    s[n] = 0;
    return s;
}

/* The rest of a number after its integer digits: fraction, exponent.
 * Returns whether there was any. */
static int number_tail(struct jr *j)
{
    int any = 0;
    if (peek_raw(j) == '.') {
        get(j);
        if (peek_raw(j) < '0' || peek_raw(j) > '9')
            tool_fail(j->e, "invalid JSON: a digit must follow the decimal point");
        while (peek_raw(j) >= '0' && peek_raw(j) <= '9')
            get(j);
        any = 1;
    }
    if (peek_raw(j) == 'e' || peek_raw(j) == 'E') {
        get(j);
        if (peek_raw(j) == '+' || peek_raw(j) == '-')
            get(j);
        if (peek_raw(j) < '0' || peek_raw(j) > '9')
            tool_fail(j->e, "invalid JSON: a digit must follow the exponent");
        while (peek_raw(j) >= '0' && peek_raw(j) <= '9')
            get(j);
        any = 1;
    }
    return any;
}

/* A number's integer part (after an optional '-'); its value saturates
 * at UINT64_MAX ('*big' then set). */
static uint64_t number(struct jr *j, int *neg, int *big)
{
    char b[8];
    uint64_t v = 0;
    int ch;
    *neg = *big = 0;
    if (jr_peek(j) == '-')
        *neg = 1, get(j);
    ch = peek_raw(j);
    if (ch < '0' || ch > '9')
        tool_fail(j->e, "invalid JSON: expected a value, found %s", shown(ch, b));
    if (ch == '0') {
        get(j);
        ch = peek_raw(j);
        if (ch >= '0' && ch <= '9')
            tool_fail(j->e, "invalid JSON: a number with a leading zero");
        return 0;
    }
    while ((ch = peek_raw(j)) >= '0' && ch <= '9') {
        get(j);
        if (v > (UINT64_MAX - 9) / 10)
            *big = 1;
        else
            v = v * 10 + (uint64_t)(ch - '0');
    }
    return v;
}

uint64_t jr_uint(struct jr *j, const char *what)
{
    int neg, big, ch = jr_peek(j);
    if (ch != '-' && (ch < '0' || ch > '9'))
        tool_fail(j->e, "%s: expected a number", what);
    uint64_t v = number(j, &neg, &big);
    if (number_tail(j) || neg)
        tool_fail(j->e, "%s: expected a non-negative integer", what);
    if (big)
        tool_fail(j->e, "%s: the number is too large", what);
    return v;
}

/* The literal word (true, false, null) whose first byte is next. */
static void literal(struct jr *j, const char *word)
{
    for (const char *w = word; *w; w++)
        if (peek_raw(j) != *w)
            tool_fail(j->e, "invalid JSON: expected '%s'", word);
        else
            get(j);
}

int jr_bool(struct jr *j, const char *what)
{
    int ch = jr_peek(j);
    if (ch != 't' && ch != 'f')
        tool_fail(j->e, "%s: expected true or false", what);
    literal(j, ch == 't' ? "true" : "false");
    return ch == 't';
}

static void skip_at(struct jr *j, int depth);

/* The members (or elements) of an object (or array) being skipped, after
 * its opening bracket. */
static void skip_items(struct jr *j, int obj, int depth)
{
    int close = obj ? '}' : ']';
    if (jr_peek(j) == close) {
        get(j);
        return;
    }
    for (;;) {
        if (obj) {
            free(jr_string(j, "a member's name"));
            jr_expect(j, ':', "':'");
        }
        skip_at(j, depth);
        if (jr_peek(j) == close) {
            get(j);
            return;
        }
        jr_expect(j, ',', obj ? "',' or '}'" : "',' or ']'");
    }
}

static void skip_at(struct jr *j, int depth)
{
    int neg, big, ch = jr_peek(j);
    if (ch == '{' || ch == '[') {
        if (depth >= JSON_DEPTH)
            tool_fail(j->e, "JSON nested deeper than %d levels", JSON_DEPTH);
        get(j);
        skip_items(j, ch == '{', depth + 1);
    } else if (ch == '"') {
        free(jr_string(j, "a string"));
    } else if (ch == 't' || ch == 'f' || ch == 'n') {
        literal(j, ch == 't' ? "true" : ch == 'f' ? "false" : "null");
    } else {
        number(j, &neg, &big);
        number_tail(j);
    }
}

void jr_skip(struct jr *j)
{
    skip_at(j, 1);
}

void jr_end(struct jr *j)
{
    char b[8];
    int ch = jr_peek(j);
    if (ch >= 0)
        tool_fail(j->e, "invalid JSON: %s after the end of the report", shown(ch, b));
}
