/* SPDX-License-Identifier: MIT */
/* ms_print_pnum.h - Perl's numbers, as ms_print needs them: the type,
 * and its arithmetic inline.
 *
 * A Perl scalar used as a number is either an integer (IV or UV: anything
 * in [-2^63, 2^64-1]) or a double (NV).  Arithmetic uses exact integer
 * arithmetic when both operands are integers (or doubles that Perl accepts
 * as integers) and the result fits, doubles otherwise.  The result's kind
 * also decides how it is printed ("1000000000000000" vs "1e+15").
 *
 * The arithmetic and comparisons are here, inline, because they run
 * several times per line of the file and a pnum handed to a function of
 * another file goes through the stack, where reading it back stalls:
 * out of line they made ms_print 6% slower than in one file.  The
 * conversions (from strings, to strings, to integers) are
 * ms_print_pnum.c.  Calls nothing: only the C library.
 */
#ifndef MS_PRINT_PNUM_H
#define MS_PRINT_PNUM_H

#include <stddef.h>
#include <stdint.h>

enum { PN_INT, PN_NV, PN_NVSTR };

typedef struct {
    uint64_t u;          /* PN_INT: magnitude */
    double nv;           /* PN_NV, PN_NVSTR: value */
    unsigned char kind;  /* PN_NVSTR: a string that Perl never treats as an
                            integer ("5.0", "42abc"), even if integral */
    unsigned char neg;   /* PN_INT: negative (then 1 <= u <= 2^63) */
} pnum;

#define TWO53 9007199254740992.0

/* No libm: the Makefile's generic rule links without -lm. */
static inline double dabs(double d)
{
    return d < 0 ? -d : d;
}

/* Whether a double holds an integer; every double of 2^52 or more does. */
static inline int integral(double d)
{
    if (dabs(d) >= 4503599627370496.0)
        return d == d && d - d == 0;    /* not NaN, not infinite */
    return (double)(int64_t)d == d;
}

static inline pnum pn_int(int neg, uint64_t u)
{
    pnum r;
    r.kind = PN_INT;
    r.neg = (unsigned char)(neg && u != 0);
    r.u = u;
    r.nv = 0;
    return r;
}

static inline pnum pn_nv(double d, int kind)
{
    pnum r;
    r.kind = (unsigned char)kind;
    r.neg = 0;
    r.u = 0;
    r.nv = d;
    return r;
}

/* Perl's SvNV: the value as a double. */
static inline double pn_d(pnum a)
{
    if (a.kind != PN_INT)
        return a.nv;
    return a.neg ? -(double)a.u : (double)a.u;
}

/* Perl's SvIV_please: may this operand take part in integer arithmetic?
 * An integer does; a double computed by arithmetic does when it is integral
 * and below 2^53 (Perl will not call an imprecise double an integer); a
 * string that looked like a decimal fraction or had trailing garbage never
 * does. */
static inline int pn_please(pnum a, int *neg, uint64_t *u)
{
    if (a.kind == PN_INT) {
        *neg = a.neg;
        *u = a.u;
        return 1;
    }
    if (a.kind == PN_NV && dabs(a.nv) < TWO53 && integral(a.nv)) {
        *neg = a.nv < 0;
        *u = (uint64_t)dabs(a.nv);
        return 1;
    }
    return 0;
}

/* An exact integer magnitude with a sign, as Perl stores it: UV when
 * positive, IV when it fits, else a double. */
static inline pnum pn_signed(int neg, uint64_t mag)
{
    if (!neg || mag <= (uint64_t)1 << 63)
        return pn_int(neg, mag);
    return pn_nv(-(double)mag, PN_NV);
}

static inline pnum pn_add(pnum a, pnum b)
{
    int an, bn;
    uint64_t au, bu;
    if (pn_please(a, &an, &au) && pn_please(b, &bn, &bu)) {
        if (an == bn) {
            uint64_t s = au + bu;
            if (s >= au)
                return pn_signed(an, s);
        } else {
            /* signs differ: never overflows */
            uint64_t pos = an ? bu : au, ng = an ? au : bu;
            return pos >= ng ? pn_int(0, pos - ng) : pn_int(1, ng - pos);
        }
    }
    return pn_nv(pn_d(a) + pn_d(b), PN_NV);
}

static inline pnum pn_mul(pnum a, pnum b)
{
    int an, bn;
    uint64_t au, bu;
    if (pn_please(a, &an, &au) && pn_please(b, &bn, &bu)) {
        if (au == 0 || bu <= UINT64_MAX / au)
            return pn_signed(an != bn && au * bu != 0, au * bu);
    }
    return pn_nv(pn_d(a) * pn_d(b), PN_NV);
}

/* Perl divides integers exactly only when the dividend is too big for a
 * double (> 2^53) and the division leaves no remainder; otherwise it
 * divides doubles.  Callers never divide by zero (the original guards each
 * division). */
static inline pnum pn_div(pnum a, pnum b)
{
    int an, bn;
    uint64_t au, bu;
    if (pn_please(a, &an, &au) && pn_please(b, &bn, &bu) && bu != 0 &&
        au >= bu && au > (uint64_t)1 << 53 && au % bu == 0)
        return pn_signed(an != bn, au / bu);
    return pn_nv(pn_d(a) / pn_d(b), PN_NV);
}

/* Numeric comparison: -1, 0, 1, or 2 when unordered (NaN). */
static inline int pn_cmp(pnum a, pnum b)
{
    int an, bn;
    uint64_t au, bu;
    if (pn_please(a, &an, &au) && pn_please(b, &bn, &bu)) {
        if (an != bn)
            return an ? -1 : 1;
        if (au == bu)
            return 0;
        return ((au < bu) != (an != 0)) ? -1 : 1;
    }
    double x = pn_d(a), y = pn_d(b);
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    return x == y ? 0 : 2;
}

static inline int pn_ge(pnum a, pnum b)
{
    int r = pn_cmp(a, b);
    return r == 0 || r == 1;
}

static inline int pn_true(pnum a)
{
    return a.kind == PN_INT ? a.u != 0 : a.nv != 0;
}

/* ms_print_pnum.c */
pnum pn_trunc(pnum a);
int64_t pn_iv(pnum a);
int64_t pn_sat(pnum a);
pnum pn_num(const char *s, size_t n);
size_t pn_str(pnum a, char *buf, size_t cap);

#endif
