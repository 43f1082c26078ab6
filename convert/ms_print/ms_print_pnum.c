/* SPDX-License-Identifier: MIT */
/* ms_print_pnum.c - Perl's numbers: the conversions.  Numification of a
 * string as Perl does it (which text is an integer, which a double, and
 * which never an integer), stringification, and Perl's int() and SvIV.
 * The type and its arithmetic are inline in ms_print_pnum.h.
 * Calls nothing of ms_print: only the C library.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>          /* isnan, isinf, INFINITY, NAN: macros */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ms_print_lib.h"

#define TWO63 9223372036854775808.0
#define TWO64 18446744073709551616.0

/* Perl's int(): truncate toward zero, staying a double when out of range. */
pnum pn_trunc(pnum a)
{
    int n;
    uint64_t u;
    if (pn_please(a, &n, &u))
        return pn_int(n, u);
    double v = a.nv;
    if (isnan(v) || isinf(v))
        return pn_nv(v, PN_NV);
    if (v >= 0)
        return v < TWO64 ? pn_int(0, (uint64_t)v) : pn_nv(v, PN_NV);
    /* below -2^63 every double is already integral */
    return v >= -TWO63 ? pn_int(1, (uint64_t)-v) : pn_nv(v, PN_NV);
}

/* Perl's SvIV: a double is converted the way Perl_cast_iv does it
 * (saturating, with values in [2^63, 2^64) wrapping, NaN giving 0). */
int64_t pn_iv(pnum a)
{
    if (a.kind == PN_INT)
        return a.neg ? (int64_t)(0 - a.u) : (int64_t)a.u;
    double f = a.nv;
    if (f < TWO63)
        return f < -TWO63 ? INT64_MIN : (int64_t)f;
    if (f < TWO64)
        return (int64_t)(uint64_t)f;
    return f > 0 ? -1 : 0;
}

/* A saturated integer view, for loop bounds only. */
int64_t pn_sat(pnum a)
{
    if (a.kind == PN_INT) {
        if (a.neg)
            return (int64_t)(0 - a.u);
        return a.u > INT64_MAX ? INT64_MAX : (int64_t)a.u;
    }
    if (a.nv >= TWO63)
        return INT64_MAX;
    if (a.nv <= -TWO63)
        return INT64_MIN;
    return (int64_t)a.nv;
}


static int lower_eq(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char ch = s[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if (ch != word[i])
            return 0;
    }
    return 1;
}

/* Convert the decimal number text s[0..n) (digits, '.', exponent, already
 * known to be well formed) with strtod, which rounds correctly like Perl. */
static double dec_to_double(const char *s, size_t n)
{
    char small[128];
    char *tmp = n < sizeof small ? small : malloc(n + 1);
    if (!tmp)
        return 0; /* cannot happen for realistic numbers; value irrelevant */
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    double d = strtod(tmp, NULL);
    if (tmp != small)
        free(tmp);
    return d;
}

/* Perl's numification of a string (grok_number + Atof): leading spaces,
 * a sign, digits, fraction, exponent, trailing spaces; "Inf"/"NaN" words;
 * "0 but true".  Anything else uses the longest numeric prefix (0 if none)
 * and is never an integer. */
pnum pn_num(const char *s, size_t n)
{
    size_t i = 0;
    int neg = 0;
    if (n == 10 && memcmp(s, "0 but true", 10) == 0)
        return pn_int(0, 0);
    while (i < n && is_pspace((unsigned char)s[i]))
        i++;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i < n && (s[i] == 'i' || s[i] == 'I' || s[i] == 'n' || s[i] == 'N')) {
        double v;
        if (lower_eq(s + i, n - i, "inf"))
            v = INFINITY;
        else if (lower_eq(s + i, n - i, "nan"))
            v = NAN;
        else
            return pn_nv(0, PN_NVSTR);
        return pn_nv(neg ? -v : v, PN_NVSTR);
    }
    size_t start = i, d0 = i;
    uint64_t u = 0;
    int overflow = 0;
    /* up to 19 digits cannot overflow 64 bits: no checks (the common case) */
    while (i < n && i - d0 < 19 && is_digit((unsigned char)s[i]))
        u = u * 10 + (unsigned)(s[i++] - '0');
    while (i < n && is_digit((unsigned char)s[i])) {
        unsigned dig = (unsigned)(s[i] - '0');
        if (u > (UINT64_MAX - dig) / 10)
            overflow = 1;
        else
            u = u * 10 + dig;
        i++;
    }
    size_t nint = i - d0;
    int frac = 0, expo = 0;
    if (i < n && s[i] == '.') {
        size_t j = i + 1;
        while (j < n && is_digit((unsigned char)s[j]))
            j++;
        if (nint > 0 || j > i + 1) {
            frac = 1;
            i = j;
        }
    }
    if (nint == 0 && !frac)
        return pn_nv(0, PN_NVSTR); /* no number at all: Atof gives 0 */
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '-' || s[j] == '+'))
            j++;
        if (j < n && is_digit((unsigned char)s[j])) {
            while (j < n && is_digit((unsigned char)s[j]))
                j++;
            expo = 1;
            i = j;
        }
    }
    size_t numend = i;
    while (i < n && is_pspace((unsigned char)s[i]))
        i++;
    int valid = i == n;
    if (valid && !frac && !expo && !overflow) {
        if (!neg || u <= (uint64_t)1 << 63)
            return pn_int(neg, u);
        return pn_nv(-(double)u, PN_NVSTR);
    }
    double v = dec_to_double(s + start, numend - start);
    if (neg)
        v = -v;
    /* Fraction with an integer part that fits, or trailing garbage: Perl
     * keeps it a double for good.  Exponent forms and too-long integers
     * become integers when the double is integral and in range. */
    if (!valid || (frac && !overflow && !expo))
        return pn_nv(v, PN_NVSTR);
    if (v >= -TWO63 && v < TWO64 && integral(v)) {
        if (v < 0)
            return pn_int(1, (uint64_t)-v);
        return pn_int(0, (uint64_t)v);
    }
    return pn_nv(v, PN_NVSTR);
}

/* Perl's stringification of a number. */
size_t pn_str(pnum a, char *buf, size_t cap)
{
    int k;
    if (a.kind == PN_INT)
        k = snprintf(buf, cap, "%s%" PRIu64, a.neg ? "-" : "", a.u);
    else if (a.nv == 0)
        k = snprintf(buf, cap, "0");
    else if (isnan(a.nv))
        k = snprintf(buf, cap, "NaN");
    else if (isinf(a.nv))
        k = snprintf(buf, cap, "%s", a.nv < 0 ? "-Inf" : "Inf");
    else
        k = snprintf(buf, cap, "%.15g", a.nv);
    return k < 0 ? 0 : (size_t)k;
}
