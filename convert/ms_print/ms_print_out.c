/* SPDX-License-Identifier: MIT */
/* ms_print_out.c - the output, and the growing buffers.
 *
 * Owns the buffer in front of c->out (many small pieces per line; a NULL
 * c->out means "validate only"), Perl's formats as the original uses them
 * ("%<width>s" with commify, numbers as Perl prints them, "%05.2f"), and
 * struct buf's growth.
 * Calls: ms_print_pnum.c, tool.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>          /* isnan, isinf, signbit: macros */
#include <stdlib.h>
#include <string.h>

#include "ms_print_lib.h"

static void buf_reserve(struct ctx *c, struct buf *b, size_t extra)
{
    if (extra > SIZE_MAX / 2 - b->n)
        tool_fail(&c->e, "out of memory");
    if (b->n + extra > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + extra)
            cap *= 2;
        b->p = tool_realloc(&c->e, b->p, cap);
        b->cap = cap;
    }
}

void buf_add(struct ctx *c, struct buf *b, const char *s, size_t n)
{
    buf_reserve(c, b, n);
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
}

void buf_set(struct ctx *c, struct buf *b, const char *s, size_t n)
{
    b->n = 0;
    buf_add(c, b, s, n);
}

/* ---- output: everything goes through c->out; NULL means "validate only" */
void out_flush(struct ctx *c)
{
    if (c->out && c->olen)
        fwrite(c->obuf, 1, c->olen, c->out);
    c->olen = 0;
}

void out(struct ctx *c, const char *s, size_t n)
{
    if (!c->out || n == 0)      /* n == 0 may come with s == NULL */
        return;
    if (n > sizeof c->obuf - c->olen) {
        out_flush(c);
        if (n >= sizeof c->obuf) {
            fwrite(s, 1, n, c->out);
            return;
        }
    }
    memcpy(c->obuf + c->olen, s, n);
    c->olen += n;
}

void outs(struct ctx *c, const char *s)
{
    out(c, s, strlen(s));
}

void spaces(struct ctx *c, long n)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        long k = n < 32 ? n : 32;
        out(c, sp, (size_t)k);
        n -= k;
    }
}

/* Perl's "%<width>s", optionally of commify(s): commify inserts commas into
 * the leading run of digits only ("1234567 " -> "1,234,567 "). */
void put_field(struct ctx *c, const char *s, size_t n, int width,
               int commify)
{
    size_t run = 0, commas = 0;
    if (commify) {
        while (run < n && is_digit((unsigned char)s[run]))
            run++;
        commas = run > 3 ? (run - 1) / 3 : 0;
    }
    size_t len = n + commas;
    if ((size_t)width > len)
        spaces(c, (long)(width - (int)len));
    if (!commas) {
        out(c, s, n);
        return;
    }
    size_t first = run - commas * 3;
    out(c, s, first);
    for (size_t i = first; i < run; i += 3) {
        out(c, ",", 1);
        out(c, s + i, 3);
    }
    out(c, s + run, n - run);
}

void put_num(struct ctx *c, pnum v, int width)
{
    char b[64];
    size_t n = pn_str(v, b, sizeof b);
    put_field(c, b, n, width, 1);
}

/* Perl's sprintf for %<w>.<p>f and %<w>d: like C's, except that infinities
 * and NaN print as "Inf"/"-Inf"/"NaN" (padded with '0' under the 0 flag). */
void put_float(struct ctx *c, const char *fmt, int width, int zero,
               double d)
{
    char b[400];
    int k;
    if (isnan(d) || isinf(d)) {
        const char *w = isnan(d) ? "NaN" : d < 0 ? "-Inf" : "Inf";
        long pad = width - (long)strlen(w);
        for (; pad > 0; pad--)
            out(c, zero ? "0" : " ", 1);
        outs(c, w);
        return;
    }
    k = snprintf(b, sizeof b, fmt, d);
    if (k > 0)
        out(c, b, (size_t)k < sizeof b ? (size_t)k : sizeof b - 1);
}

/* "%05.2f" without printf, which dominated the run time: d*100 is exact
 * in x87 extended precision (53 + 7 bits <= 64), so rounding it to an
 * integer, ties to even, is what printf does with the exact binary value. */
void put_pct(struct ctx *c, pnum v)
{
    double d = pn_d(v);
#if LDBL_MANT_DIG >= 64
    if (d >= 0 && !signbit(d) && d < 1e12) {
        long double t = (long double)d * 100;
        uint64_t k = (uint64_t)t;
        long double frac = t - (long double)k;
        if (frac > 0.5L || (frac == 0.5L && (k & 1)))
            k++;
        char b[32];
        int i = (int)sizeof b;
        uint64_t ip = k / 100;
        b[--i] = (char)('0' + k % 10);
        b[--i] = (char)('0' + k / 10 % 10);
        b[--i] = '.';
        do
            b[--i] = (char)('0' + ip % 10);
        while ((ip /= 10) != 0);
        if (sizeof b - (size_t)i < 5)
            b[--i] = '0';
        out(c, b + i, sizeof b - (size_t)i);
        return;
    }
#endif
    put_float(c, "%05.2f", 5, 1, d);
}
