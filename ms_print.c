/*
 * ms_print.c - print a Massif output file (massif.out.*) exactly as
 * Valgrind 3.19's Perl `ms_print` does: same bytes on stdout for every
 * file and option set that the original accepts, but streaming and fast.
 *
 * The original parses the whole file, buffering the snapshot section in a
 * temporary file, and only then prints the preamble, the graph and the
 * section.  We write no temporary file: a first pass validates the file and
 * keeps only one (time, total, detailed) triple per snapshot; a second pass
 * re-reads the snapshot section from the saved offset and prints it.  Memory
 * is therefore bounded by the deepest tree plus a few words per snapshot,
 * never by the file.  Input that cannot be re-read (a pipe) is the one
 * exception: its snapshot section is formatted into memory instead.
 *
 * Numbers: the original never checks that values are numbers; it relies on
 * Perl's numification and on Perl's arithmetic, which switches between
 * exact 64-bit integers and doubles depending on the operands.  Output such
 * as the "total" column, the graph and the percentages depends on which of
 * the two was used, so `pnum` below models exactly that.
 *
 * Errors: where the original dies we print one line
 * "ms_print: FILE:LINE: what is wrong" on stderr and exit non-zero; stdout
 * then holds what the original's stdout would hold (nothing, or just the
 * preamble for the errors that it detects after printing it).
 *
 * Build with -DMS_PRINT_NO_MAIN to get only ms_print_run() (used by the
 * libFuzzer harness in fuzz/fuzz_ms_print.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>          /* isnan, isinf, signbit, INFINITY, NAN: macros */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "tool.h"

#define MS_PRINT_VERSION "3.19.0"  /* the Valgrind release we reproduce */

int ms_print_run(int argc, char **argv, FILE *in, FILE *out, FILE *err);

/* ------------------------------------------------------------------------
 * Perl numbers.
 *
 * A Perl scalar used as a number is either an integer (IV or UV: anything
 * in [-2^63, 2^64-1]) or a double (NV).  Arithmetic uses exact integer
 * arithmetic when both operands are integers (or doubles that Perl accepts
 * as integers) and the result fits, doubles otherwise.  The result's kind
 * also decides how it is printed ("1000000000000000" vs "1e+15").
 * ---------------------------------------------------------------------- */
enum { PN_INT, PN_NV, PN_NVSTR };

typedef struct {
    uint64_t u;          /* PN_INT: magnitude */
    double nv;           /* PN_NV, PN_NVSTR: value */
    unsigned char kind;  /* PN_NVSTR: a string that Perl never treats as an
                            integer ("5.0", "42abc"), even if integral */
    unsigned char neg;   /* PN_INT: negative (then 1 <= u <= 2^63) */
} pnum;

#define TWO53 9007199254740992.0
#define TWO63 9223372036854775808.0
#define TWO64 18446744073709551616.0

/* No libm: the Makefile's generic rule links without -lm. */
static double dabs(double d)
{
    return d < 0 ? -d : d;
}

/* Whether a double holds an integer; every double of 2^52 or more does. */
static int integral(double d)
{
    if (dabs(d) >= 4503599627370496.0)
        return d == d && d - d == 0;    /* not NaN, not infinite */
    return (double)(int64_t)d == d;
}

static pnum pn_int(int neg, uint64_t u)
{
    pnum r;
    r.kind = PN_INT;
    r.neg = (unsigned char)(neg && u != 0);
    r.u = u;
    r.nv = 0;
    return r;
}

static pnum pn_nv(double d, int kind)
{
    pnum r;
    r.kind = (unsigned char)kind;
    r.neg = 0;
    r.u = 0;
    r.nv = d;
    return r;
}

/* Perl's SvNV: the value as a double. */
static double pn_d(pnum a)
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
static int pn_please(pnum a, int *neg, uint64_t *u)
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
static pnum pn_signed(int neg, uint64_t mag)
{
    if (!neg || mag <= (uint64_t)1 << 63)
        return pn_int(neg, mag);
    return pn_nv(-(double)mag, PN_NV);
}

static pnum pn_add(pnum a, pnum b)
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

static pnum pn_mul(pnum a, pnum b)
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
static pnum pn_div(pnum a, pnum b)
{
    int an, bn;
    uint64_t au, bu;
    if (pn_please(a, &an, &au) && pn_please(b, &bn, &bu) && bu != 0 &&
        au >= bu && au > (uint64_t)1 << 53 && au % bu == 0)
        return pn_signed(an != bn, au / bu);
    return pn_nv(pn_d(a) / pn_d(b), PN_NV);
}

/* Numeric comparison: -1, 0, 1, or 2 when unordered (NaN). */
static int pn_cmp(pnum a, pnum b)
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

static int pn_ge(pnum a, pnum b)
{
    int r = pn_cmp(a, b);
    return r == 0 || r == 1;
}

static int pn_true(pnum a)
{
    return a.kind == PN_INT ? a.u != 0 : a.nv != 0;
}

/* Perl's int(): truncate toward zero, staying a double when out of range. */
static pnum pn_trunc(pnum a)
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
static int64_t pn_iv(pnum a)
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
static int64_t pn_sat(pnum a)
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

static int is_pspace(unsigned char ch)
{
    /* Perl's \s and isSPACE without locale or Unicode rules */
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
           ch == '\f' || ch == '\v';
}

static int is_digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9';
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
static pnum pn_num(const char *s, size_t n)
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
static size_t pn_str(pnum a, char *buf, size_t cap)
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

/* ------------------------------------------------------------------------
 * Context: reader, parsed header, per-snapshot summary, output.
 * ---------------------------------------------------------------------- */
struct frame {
    uint64_t nkids, i;   /* children announced, children read */
    uint64_t n_insig;    /* insignificant children */
    pnum bytes, insig;   /* own bytes, sum of insignificant children */
    int sig;
};

struct buf {
    char *p;
    size_t n, cap;
};

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

/* Errors: tool_fail(&c->e, ...) prints "ms_print: FILE:LINE: what is wrong"
 * and unwinds to ms_print_run(), which flushes what stdout must hold. */

/* "expected X, got: <the line>" with the line shortened and made printable */
static NORETURN void fail_got(struct ctx *c, const char *what, int have)
{
    char shown[64];
    if (!have)
        tool_fail(&c->e, "expected %s, got end of file", what);
    tool_shown(shown, sizeof shown, c->ln, c->lnlen);
    tool_fail(&c->e, "expected %s, got '%s'", what, shown);
}

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

static void buf_add(struct ctx *c, struct buf *b, const char *s, size_t n)
{
    buf_reserve(c, b, n);
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void buf_set(struct ctx *c, struct buf *b, const char *s, size_t n)
{
    b->n = 0;
    buf_add(c, b, s, n);
}

/* ---- output: everything goes through c->out; NULL means "validate only" */
static void out_flush(struct ctx *c)
{
    if (c->out && c->olen)
        fwrite(c->obuf, 1, c->olen, c->out);
    c->olen = 0;
}

static void out(struct ctx *c, const char *s, size_t n)
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

static void outs(struct ctx *c, const char *s)
{
    out(c, s, strlen(s));
}

static void spaces(struct ctx *c, long n)
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
static void put_field(struct ctx *c, const char *s, size_t n, int width,
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

static void put_num(struct ctx *c, pnum v, int width)
{
    char b[64];
    size_t n = pn_str(v, b, sizeof b);
    put_field(c, b, n, width, 1);
}

/* Perl's sprintf for %<w>.<p>f and %<w>d: like C's, except that infinities
 * and NaN print as "Inf"/"-Inf"/"NaN" (padded with '0' under the 0 flag). */
static void put_float(struct ctx *c, const char *fmt, int width, int zero,
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
static void put_pct(struct ctx *c, pnum v)
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

/* ------------------------------------------------------------------------
 * Input.
 * ---------------------------------------------------------------------- */

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
static int get_line(struct ctx *c)
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

static void read_header(struct ctx *c)
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

/* One "key=value" line of a snapshot; returns the value's length and
 * leaves it at c->ln + klen + 1. */
static size_t key_line(struct ctx *c, int have, const char *key)
{
    size_t k = strlen(key);
    if (!have || c->lnlen < k + 1 || memcmp(c->ln, key, k) != 0 ||
        c->ln[k] != '=') {
        char what[40];
        snprintf(what, sizeof what, "\"%s\" line", key);
        fail_got(c, what, have);
    }
    return c->lnlen - k - 1;
}

static int contains(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, w, k) == 0)
            return 1;
    return 0;
}

/* Parse a tree node line "  n<kids>: <bytes><text>".  Returns 0 if the line
 * is not one. */
static int node_line(struct ctx *c, uint64_t *kids, pnum *bytes,
                     const char **digits, const char **text, size_t *tlen)
{
    const char *s = c->ln;
    size_t n = c->lnlen, i = c->lnskip;   /* indentation means nothing */
    if (i >= n || s[i] != 'n')
        return 0;
    i++;
    size_t d = i;
    uint64_t k = 0;
    while (i < n && is_digit((unsigned char)s[i])) {
        unsigned dig = (unsigned)(s[i] - '0');
        /* saturate: a count past 2^64 can never be satisfied anyway */
        k = k > (UINT64_MAX - dig) / 10 ? UINT64_MAX : k * 10 + dig;
        i++;
    }
    if (i == d || i >= n || s[i] != ':')
        return 0;
    i++;
    while (i < n && is_pspace((unsigned char)s[i]))
        i++;
    d = i;
    while (i < n && is_digit((unsigned char)s[i]))
        i++;
    if (i == d)
        return 0;
    *kids = k;
    *digits = s + d;
    *bytes = pn_num(s + d, i - d);
    *text = s + i;
    *tlen = n - i;
    return 1;
}

static void header_row(struct ctx *c)
{
    outs(c, DASHES);
    put_field(c, "n", 1, 3, 0);
    out(c, " ", 1);
    /* "time(<unit>)" padded to 14, as the original's sprintf does */
    c->scratch.n = 0;
    buf_add(c, &c->scratch, "time(", 5);
    buf_add(c, &c->scratch, c->tu.p, c->tu.n);
    buf_add(c, &c->scratch, ")", 1);
    put_field(c, c->scratch.p, c->scratch.n, 14, 0);
    outs(c, "         total(B)   useful-heap(B) extra-heap(B)    stacks(B)\n");
    outs(c, DASHES);
}

/* bytes * 100 / total, or 0 when the total is 0; both the percentage shown
 * and the significance test (which the original computes separately, as
 * bytes * 100 / total and 100 * bytes / total: the same value) */
static pnum pct(pnum bytes, pnum total)
{
    if (!pn_true(total))
        return pn_int(0, 0);
    return pn_div(pn_mul(pn_int(0, 100), bytes), total);
}

/* Read one tree node line and, when printing, print it.  Pushes the frame. */
static void tree_node(struct ctx *c, size_t depth, pnum total)
{
    uint64_t kids;
    pnum bytes;
    const char *digits, *text;
    size_t tlen;
    int have = get_line(c);
    if (!have || !node_line(c, &kids, &bytes, &digits, &text, &tlen))
        fail_got(c, "a tree node line", have);
    /* the original dies on a node larger than its snapshot (or a NaN) */
    int r = pn_cmp(bytes, total);
    if (r == 1 || r == 2) {
        char b[64], t[64];
        pn_str(bytes, b, sizeof b);
        pn_str(total, t, sizeof t);
        tool_fail(&c->e, "tree node of %s bytes is larger than its snapshot's "
                   "total of %s bytes", b, t);
    }
    if (depth >= c->stkcap) {
        size_t cap = c->stkcap ? c->stkcap * 2 : 64;
        if (cap > SIZE_MAX / sizeof *c->stk)
            tool_fail(&c->e, "out of memory");
        c->stk = tool_realloc(&c->e, c->stk, cap * sizeof *c->stk);
        c->stkcap = cap;
    }
    struct frame *f = &c->stk[depth];
    f->nkids = kids;
    f->i = 0;
    f->n_insig = 0;
    f->bytes = bytes;
    f->insig = pn_int(0, 0);
    f->sig = 1;
    if (!c->out)
        return;
    /* the top node is always shown; others when threshold 0 or share >= it */
    pnum share = pct(bytes, total);
    f->sig = depth == 0 || c->thr_zero ||
             (pn_true(total) && pn_ge(share, c->thr));
    if (!f->sig)
        return;
    if (depth > 0) {
        out(c, c->prefix.p, 2 * (depth - 1));
        out(c, "->", 2);
    }
    put_pct(c, share);
    out(c, "% (", 3);
    /* the byte count is printed as written (leading zeros and all) */
    put_field(c, digits, (size_t)(text - digits), 0, 1);
    out(c, "B)", 2);
    out(c, text, tlen);
    out(c, "\n", 1);
}

/* Walk one heap tree, iteratively so that deep trees cannot overflow the
 * C stack.  The prefix of a node at depth d is prefix[0 .. 2d): each level
 * adds "| " or "  " depending on whether more siblings follow. */
static void read_tree(struct ctx *c, pnum total)
{
    size_t depth = 0;
    tree_node(c, 0, total);
    for (;;) {
        struct frame *f = &c->stk[depth];
        if (f->i < f->nkids) {
            f->i++;
            /* the child's midfix goes at prefix[2*depth]; the rest of the
             * buffer (deeper levels of earlier siblings) is stale */
            c->prefix.n = 2 * depth;
            buf_add(c, &c->prefix, f->i == f->nkids ? "  " : "| ", 2);
            depth++;
            tree_node(c, depth, total);
            continue;
        }
        if (c->out && f->sig) {
            if (f->n_insig > 0) {
                out(c, c->prefix.p, 2 * depth);
                out(c, "->", 2);
                put_pct(c, pct(f->insig, total));
                out(c, "% (", 3);
                put_num(c, f->insig, 0);
                char b[80];
                int k = snprintf(b, sizeof b, "B) in %" PRIu64 "+ places, "
                                 "all below ms_print's threshold (", f->n_insig);
                out(c, b, (size_t)k);
                put_float(c, "%05.2f", 5, 1, pn_d(c->thr));
                out(c, "%)\n", 3);
                out(c, c->prefix.p, 2 * depth);
                out(c, "\n", 1);
            }
            if (f->nkids == 0) {
                out(c, c->prefix.p, 2 * depth);
                out(c, "\n", 1);
            }
        }
        if (depth == 0)
            return;
        struct frame *p = &c->stk[depth - 1];
        if (!f->sig) {
            p->n_insig++;
            p->insig = pn_add(p->insig, f->bytes);
        }
        depth--;
    }
}

static void push_snapshot(struct ctx *c, pnum t, pnum total, int det)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        if (cap > SIZE_MAX / sizeof(pnum))
            tool_fail(&c->e, "out of memory");
        c->times = tool_realloc(&c->e, c->times, cap * sizeof(pnum));
        c->totals = tool_realloc(&c->e, c->totals, cap * sizeof(pnum));
        c->det = tool_realloc(&c->e, c->det, cap);
        c->cap = cap;
    }
    c->times[c->n] = t;
    c->totals[c->n] = total;
    c->det[c->n] = (unsigned char)det;
    c->n++;
    if (pn_cmp(total, c->peak) == 1)
        c->peak = total;
}

/* The snapshot section.  Pass 1 (collect) records the summaries; when
 * c->out is set, the section is printed as well. */
static void read_body(struct ctx *c, int collect)
{
    static const char *const keys[5] = {
        MASSIF_SNAPSHOT, MASSIF_TIME, MASSIF_HEAP, MASSIF_EXTRA, MASSIF_STACKS
    };
    int have = get_line(c);
    while (have) {
        pnum v[5];
        for (int k = 0; k < 5; k++) {
            if (k > 0)
                have = get_line(c);
            size_t len = key_line(c, have, keys[k]);
            const char *val = c->ln + strlen(keys[k]) + 1;
            v[k] = pn_num(val, len);
            if (c->out)
                buf_set(c, &c->fld[k], val, len);
        }
        pnum total = pn_add(pn_add(v[2], v[3]), v[4]);
        size_t len = key_line(c, get_line(c), MASSIF_TREE);
        const char *val = c->ln + sizeof MASSIF_TREE;
        /* as the original: "empty", or any text containing "detailed" or
         * "peak"; the peak mark only for exactly "peak" */
        int empty = len == 5 && memcmp(val, MASSIF_EMPTY, 5) == 0;
        int tree = !empty && (contains(val, len, MASSIF_DETAILED) ||
                              contains(val, len, MASSIF_PEAK));
        if (!empty && !tree)
            tool_fail(&c->e, "expected 'empty' or '...' after '" MASSIF_TREE "='");
        if (tree && len == 4 && memcmp(val, MASSIF_PEAK, 4) == 0)
            c->peak_num = v[0];
        if (collect)
            push_snapshot(c, v[1], total, tree);
        if (c->out) {
            put_field(c, c->fld[0].p, c->fld[0].n, 3, 0);
            out(c, " ", 1);
            put_field(c, c->fld[1].p, c->fld[1].n, 14, 1);
            out(c, " ", 1);
            put_num(c, total, 16);
            out(c, " ", 1);
            put_field(c, c->fld[2].p, c->fld[2].n, 16, 1);
            out(c, " ", 1);
            put_field(c, c->fld[3].p, c->fld[3].n, 13, 1);
            out(c, " ", 1);
            put_field(c, c->fld[4].p, c->fld[4].n, 12, 1);
            out(c, "\n", 1);
        }
        if (tree) {
            read_tree(c, total);
            have = get_line(c);
            if (have)
                header_row(c);
        } else {
            have = get_line(c);
        }
    }
}

/* ------------------------------------------------------------------------
 * Graph.
 * ---------------------------------------------------------------------- */

/* Cell (column idx, row y) as Perl's $graph[idx][y]: negative indexes
 * count from the end of the (possibly auto-extended) column array, and an
 * index before its start is fatal; columns past gx exist but are never
 * printed.  Returns NULL for those. */
static char *cell(struct ctx *c, int64_t idx, int y, int64_t *size)
{
    if (idx < 0) {
        idx += *size;
        if (idx < 0)
            tool_fail(&c->e, "a snapshot's time puts it before the graph's start");
    } else if (idx >= *size) {
        *size = idx == INT64_MAX ? INT64_MAX : idx + 1;
    }
    if (idx > c->gx)
        return NULL;
    return &c->grid[(size_t)y * (size_t)(c->gx + 1) + (size_t)idx];
}

/* The horizontal line drawn between two snapshot columns. */
static void gap(struct ctx *c, pnum prevx, pnum x, int row, char ch,
                int64_t *size)
{
    pnum lo = pn_add(prevx, pn_int(0, 1));
    if (pn_cmp(lo, x) != -1)
        return;
    int64_t a = pn_sat(lo), b = pn_sat(x);   /* columns a .. b-1 */
    if (a < 0) {
        if (a + *size < 0)
            tool_fail(&c->e, "a snapshot's time puts it before the graph's start");
        /* only columns that map into 0..gx can be seen; the others need
         * no visit (there may be billions of them) */
        int64_t stop = b < 0 ? b : 0, vis = c->gx - *size + 1;
        if (stop > vis)
            stop = vis;
        for (int64_t i = a; i < stop; i++) {
            char *p = cell(c, i, row, size);
            if (!p)
                continue;
            *p = ch;
        }
        a = 0;
    }
    int64_t hi = b - 1 < c->gx ? b - 1 : c->gx;
    for (int64_t i = a; i <= hi; i++)
        *cell(c, i, row, size) = ch;
    if (b > a && b - 1 >= *size)
        *size = b;
}

/* Axis label: "%5d" of the value below 1000, else the scaled value with
 * 3, 2 or 1 decimals (so it can be 6 characters: "1000.0"). */
static void label(pnum v, int kind, char *lab, size_t cap,
                  const char **unit)
{
    static const char *const bu[] = { "B", "KB", "MB", "GB", "TB", "PB",
                                      "EB", "ZB", "YB" };
    static const char *const iu[] = { "i", "ki", "Mi", "Gi", "Ti", "Pi",
                                      "Ei", "Zi", "Yi" };
    pnum s = v, thousand = pn_int(0, 1000);
    if (kind == 2) {
        *unit = "ms";
        if (pn_ge(s, thousand)) {
            *unit = "s";
            s = pn_div(s, thousand);
        }
        if (pn_ge(s, pn_int(0, 3600))) {
            *unit = "h";
            s = pn_div(s, pn_int(0, 3600));
        }
    } else {
        const char *const *u = kind == 0 ? bu : iu;
        *unit = u[0];
        for (int k = 1; k <= 8; k++) {
            if (pn_ge(s, thousand)) {
                *unit = u[k];
                s = pn_div(s, pn_int(0, 1024));
            }
        }
    }
    double d = pn_d(s);
    if (pn_cmp(v, thousand) == -1) {
        double dv = pn_d(v);
        if (isnan(dv) || isinf(dv))
            snprintf(lab, cap, "%5s", isnan(dv) ? "NaN" : dv < 0 ? "-Inf" : "Inf");
        else
            snprintf(lab, cap, "%5" PRId64, pn_iv(v));
    } else if (isnan(d) || isinf(d)) {
        snprintf(lab, cap, "%5s", isnan(d) ? "NaN" : d < 0 ? "-Inf" : "Inf");
    } else if (pn_cmp(s, pn_int(0, 10)) == -1) {
        snprintf(lab, cap, "%5.3f", d);
    } else if (pn_cmp(s, pn_int(0, 100)) == -1) {
        snprintf(lab, cap, "%5.2f", d);
    } else {
        snprintf(lab, cap, "%5.1f", d);
    }
}

/* Preamble: printed before the graph is computed, so that the original's
 * late failures (no snapshots, bad time unit) leave exactly it on stdout. */
static void preamble(struct ctx *c)
{
    outs(c, DASHES);
    outs(c, "Command:            ");
    out(c, c->cmd.p, c->cmd.n);
    outs(c, "\nMassif arguments:  ");
    out(c, c->desc.p, c->desc.n);
    outs(c, "ms_print arguments:");
    for (int i = 1; i < c->argc; i++) {
        out(c, " ", 1);
        outs(c, c->argv[i]);
    }
    outs(c, "\n" DASHES "\n\n");
}

static void graph(struct ctx *c)
{
    size_t n = c->n;
    int gx = c->gx, gy = c->gy;
    pnum zero = pn_int(0, 0), one = pn_int(0, 1);
    c->e.line = c->last_line;   /* errors here concern the whole file */
    if (n == 0)
        tool_fail(&c->e, "no snapshots");
    pnum end = c->times[n - 1];
    if (!pn_ge(end, zero))
        tool_fail(&c->e, "the last snapshot's time is negative");

    size_t w = (size_t)gx + 1;
    c->grid = tool_realloc(&c->e, c->grid, w * ((size_t)gy + 1));
    memset(c->grid, ' ', w * ((size_t)gy + 1));
    c->grid[0] = '+';
    for (int x = 1; x <= gx; x++)
        c->grid[x] = '-';
    c->grid[gx] = '>';
    for (int y = 1; y <= gy; y++)
        c->grid[(size_t)y * w] = '|';
    c->grid[(size_t)gy * w] = '^';

    pnum peak = c->peak;
    if (pn_cmp(zero, peak) == 0)
        peak = one;
    if (pn_cmp(zero, end) == 0)
        end = one;
    pnum K = pn_div(peak, pn_int(0, (uint64_t)gy));
    pnum x = zero, gxp = pn_int(0, (uint64_t)gx);
    int64_t size = gx + 1;      /* Perl's @graph grows when indexed past it */
    int prev_ymax = 0;
    char prev_ch = ':';
    for (size_t i = 0; i < n; i++) {
        pnum prevx = x;
        x = pn_add(pn_trunc(pn_mul(pn_div(c->times[i], end), gxp)), one);
        if (pn_cmp(c->times[i], end) == 0) {
            if (pn_cmp(x, pn_add(gxp, one)) != 0)
                tool_fail(&c->e, "a snapshot's time cannot be placed on the graph");
            x = gxp;
        }
        if (prev_ymax > 0)
            gap(c, prevx, x, prev_ymax, prev_ch, &size);
        char ch = pn_cmp(pn_int(0, i), c->peak_num) == 0 ? '#'
                  : c->det[i] ? '@' : ':';
        int ymax = 0;
        int64_t col = pn_iv(x);
        for (int y = 1; y <= gy; y++) {
            if (!pn_ge(c->totals[i], pn_mul(pn_int(0, (uint64_t)y), K)))
                continue;
            char *p = cell(c, col, y, &size);
            /* priority: '#' over '@' over ':' */
            if (p && (ch == '#' || (ch == '@' && *p != '#') ||
                      (ch == ':' && *p != '#' && *p != '@')))
                *p = ch;
            ymax = y;
        }
        prev_ymax = ymax;
        prev_ch = ch;
    }

    char ylab[64], xlab[64];
    const char *yunit, *xunit;
    label(peak, 0, ylab, sizeof ylab, &yunit);
    if (c->tu.n == 1 && c->tu.p[0] == 'i')
        label(end, 1, xlab, sizeof xlab, &xunit);
    else if (c->tu.n == 2 && memcmp(c->tu.p, "ms", 2) == 0)
        label(end, 2, xlab, sizeof xlab, &xunit);
    else if (c->tu.n == 1 && c->tu.p[0] == 'B')
        label(end, 0, xlab, sizeof xlab, &xunit);
    else {
        char shown[64];
        c->e.line = c->tu_line;
        tool_shown(shown, sizeof shown, c->tu.p, c->tu.n);
        tool_fail(&c->e, "bad time_unit: %s", shown);
    }

    outs(c, "    ");
    put_field(c, yunit, strlen(yunit), 2, 0);
    outs(c, "\n");
    for (int y = gy; y >= 0; y--) {
        outs(c, y == gy ? ylab : y == 0 ? "   0 " : "     ");
        out(c, c->grid + (size_t)y * w, w);
        if (y == 0)
            outs(c, xunit);
        outs(c, "\n");
    }
    outs(c, "     0");
    spaces(c, gx - 5);
    put_field(c, xlab, strlen(xlab), 5, 0);
    outs(c, "\n");
}

static void counts(struct ctx *c)
{
    int first = 1;
    char b[80];
    out(c, b, (size_t)snprintf(b, sizeof b, "\nNumber of snapshots: %zu\n"
                               " Detailed snapshots: [", c->n));
    for (size_t i = 0; i < c->n; i++) {
        if (!c->det[i])
            continue;
        out(c, b, (size_t)snprintf(b, sizeof b, first ? "%zu" : ", %zu", i));
        first = 0;
        if (pn_cmp(pn_int(0, i), c->peak_num) == 0)
            outs(c, " (peak)");
    }
    outs(c, "]\n\n");
}

/* ------------------------------------------------------------------------
 * Command line.
 * ---------------------------------------------------------------------- */
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
    "  ms_print is Copyright (C) 2007-2017 Nicholas Nethercote.\n"
    "  and licensed under the GNU General Public License, version 2.\n"
    "  Bug reports, feedback, admiration, abuse, etc, to: njn@valgrind.org.\n"
    "                                                \n";

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
            fputs("ms_print-" MS_PRINT_VERSION "\n", c->err);
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
        fprintf(c->err, "ms_print: %s:0: cannot open for reading: %s\n",
                name, strerror(errno));
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
    c->e.line0 = 1;
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

#ifndef MS_PRINT_NO_MAIN
int main(int argc, char **argv)
{
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int rc = ms_print_run(argc, argv, NULL, stdout, stderr);
    if (fflush(stdout) != 0 && rc == 0) {
        fprintf(stderr, "ms_print: write error: %s\n", strerror(errno));
        rc = 1;
    }
    return rc;
}
#endif
