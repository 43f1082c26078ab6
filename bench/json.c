/* SPDX-License-Identifier: MIT */
/* bench/json.c - the realistic program: a JSON parser, transformer and
   printer over generated documents.

   usage: json WORKLOAD SCALE
     records  arrays of API-style records (objects, strings, tags)
     config   many small documents, each parsed, queried and freed
     strings  long strings with escapes and \u sequences
     numbers  matrices of numbers: many tiny values
     deep     deeply nested arrays and objects
   or: json mt NTHREADS SCALE
     the five above in NTHREADS threads at once, each thread over its own
     documents (SCALE rounds of a records, a config, a strings, a numbers
     and a deep document, at a fifth of their sizes, seeded by the thread):
     the multi-threaded pipeline of issue 12.  The work per thread does not
     depend on NTHREADS, and the checksum adds up the threads' checksums,
     so it does not depend on the schedule either.

   Each workload generates documents with a seeded generator, parses them
   into a tree (one malloc per value, decoded strings and keys in their own
   blocks, arrays and objects grown by realloc doubling, as cJSON-like
   libraries do), walks the tree, builds a transformed copy, prints the copy
   into a growing buffer, parses that output again to check it, and frees
   everything.  Most of the time is spent on characters rather than in the
   allocator, which is the point: this is the overhead a real program sees. */
#include <pthread.h>
#include <string.h>
#include "common.h"

/* ---- growing text buffer ------------------------------------------- */

struct buf {
    char *s;
    size_t n, cap;
};

static void buf_reserve(struct buf *b, size_t more)
{
    if (b->n + more + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->n + more + 1 > cap)
            cap *= 2;
        b->s = xcheck(realloc(b->s, cap));
        b->cap = cap;
    }
}

static void buf_put(struct buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void buf_putc(struct buf *b, char c)
{
    buf_reserve(b, 1);
    b->s[b->n++] = c;
    b->s[b->n] = 0;
}

static void buf_puts(struct buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

/* Digits of an unsigned value, without printf: numbers are a large part
   of the output and snprintf would dominate the profile. */
static void buf_putu(struct buf *b, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while (v /= 10);
    buf_reserve(b, (size_t)n);
    while (n)
        b->s[b->n++] = d[--n];
    b->s[b->n] = 0;
}

/* Numbers are printed as integers when integral, else with three
   decimals: the generator only makes such numbers, so printing and
   parsing again gives the same tree. */
static void buf_putnum(struct buf *b, double x)
{
    uint64_t m;
    if (x < 0) {
        buf_putc(b, '-');
        x = -x;
    }
    m = (uint64_t)(x * 1000.0 + 0.5);
    buf_putu(b, m / 1000);
    if (m % 1000) {
        char frac[5] = { '.', (char)('0' + m / 100 % 10), (char)('0' + m / 10 % 10),
                         (char)('0' + m % 10), 0 };
        buf_puts(b, frac);
    }
}

static void buf_free(struct buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* ---- values ---------------------------------------------------------- */

enum type { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct member;

struct value {
    enum type type;
    size_t n, cap;            /* string length; array or object size */
    union {
        double num;
        char *str;
        struct value **items;
        struct member *members;
    } u;
};

struct member {
    char *key;
    struct value *val;
};

static struct value *new_value(enum type t)
{
    struct value *v = xcheck(malloc(sizeof *v));
    v->type = t;
    v->n = v->cap = 0;
    v->u.str = NULL;
    return v;
}

static void free_value(struct value *v)
{
    size_t i;
    if (!v)
        return;
    switch (v->type) {
    case J_STR:
        free(v->u.str);
        break;
    case J_ARR:
        for (i = 0; i < v->n; i++)
            free_value(v->u.items[i]);
        free(v->u.items);
        break;
    case J_OBJ:
        for (i = 0; i < v->n; i++) {
            free(v->u.members[i].key);
            free_value(v->u.members[i].val);
        }
        free(v->u.members);
        break;
    default:
        break;
    }
    free(v);
}

static void arr_push(struct value *a, struct value *x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 4;
        a->u.items = xcheck(realloc(a->u.items, a->cap * sizeof *a->u.items));
    }
    a->u.items[a->n++] = x;
}

/* Takes ownership of key and val. */
static void obj_put(struct value *o, char *key, struct value *val)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 4;
        o->u.members = xcheck(realloc(o->u.members, o->cap * sizeof *o->u.members));
    }
    o->u.members[o->n].key = key;
    o->u.members[o->n].val = val;
    o->n++;
}

static struct value *obj_get(const struct value *o, const char *key)
{
    size_t i;
    if (!o || o->type != J_OBJ)
        return NULL;
    for (i = 0; i < o->n; i++)
        if (!strcmp(o->u.members[i].key, key))
            return o->u.members[i].val;
    return NULL;
}

static struct value *new_string(const char *s)
{
    struct value *v = new_value(J_STR);
    v->n = strlen(s);
    v->u.str = xcheck(strdup(s));
    return v;
}

static struct value *new_number(double x)
{
    struct value *v = new_value(J_NUM);
    v->u.num = x;
    return v;
}

/* ---- parser ---------------------------------------------------------- */

struct parser {
    const char *p, *end;
    int depth;
    const char *error;
};

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r'))
        ps->p++;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | c >> 6);
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3F));
    o[2] = (char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* A string literal at ps->p (on the opening quote), decoded into a new
   block of the exact size.  The first pass finds the end and the decoded
   length is at most the raw length, so one malloc is enough. */
static char *parse_string(struct parser *ps, size_t *len)
{
    const char *s = ps->p + 1, *e = s;
    char *out, *o;
    while (e < ps->end && *e != '"') {
        if (*e == '\\')
            e++;
        e++;
    }
    if (e >= ps->end) {
        ps->error = "unterminated string";
        return NULL;
    }
    o = out = xcheck(malloc((size_t)(e - s) + 1));
    while (s < e) {
        unsigned c, lo;
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        switch (*++s) {
        case 'n': *o++ = '\n'; s++; continue;
        case 't': *o++ = '\t'; s++; continue;
        case 'r': *o++ = '\r'; s++; continue;
        case 'b': *o++ = '\b'; s++; continue;
        case 'f': *o++ = '\f'; s++; continue;
        case '"': case '\\': case '/': *o++ = *s++; continue;
        case 'u': break;
        default:
            ps->error = "bad escape";
            free(out);
            return NULL;
        }
        if (e - s < 5 || !hex4(s + 1, &c)) {
            ps->error = "bad \\u escape";
            free(out);
            return NULL;
        }
        s += 5;
        /* a high surrogate followed by a low one is one character; a lone
           surrogate becomes U+FFFD */
        if (c >= 0xD800 && c < 0xDC00 && e - s >= 6 && s[0] == '\\' && s[1] == 'u' &&
            hex4(s + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
            c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
            s += 6;
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        o += put_utf8(o, c);
    }
    *o = 0;
    *len = (size_t)(o - out);
    ps->p = e + 1;
    return out;
}

static struct value *parse_value(struct parser *ps);

static struct value *parse_array(struct parser *ps)
{
    struct value *a = new_value(J_ARR);
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return a;
    }
    for (;;) {
        struct value *x = parse_value(ps);
        if (!x)
            break;
        arr_push(a, x);
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return a;
        }
        ps->error = "expected , or ]";
        break;
    }
    free_value(a);
    return NULL;
}

static struct value *parse_object(struct parser *ps)
{
    struct value *o = new_value(J_OBJ);
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return o;
    }
    for (;;) {
        size_t len;
        char *key;
        struct value *x;
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            ps->error = "expected a key";
            break;
        }
        if (!(key = parse_string(ps, &len)))
            break;
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            ps->error = "expected :";
            free(key);
            break;
        }
        ps->p++;
        if (!(x = parse_value(ps))) {
            free(key);
            break;
        }
        obj_put(o, key, x);
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return o;
        }
        ps->error = "expected , or }";
        break;
    }
    free_value(o);
    return NULL;
}

static struct value *parse_literal(struct parser *ps, const char *word, enum type t)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
        ps->error = "bad literal";
        return NULL;
    }
    ps->p += n;
    return new_value(t);
}

static struct value *parse_number(struct parser *ps)
{
    char *end;
    double x = strtod(ps->p, &end);
    if (end == ps->p) {
        ps->error = "bad number";
        return NULL;
    }
    ps->p = end;
    return new_number(x);
}

static struct value *parse_value(struct parser *ps)
{
    struct value *v = NULL;
    skip_space(ps);
    if (ps->p >= ps->end) {
        ps->error = "unexpected end";
        return NULL;
    }
    if (++ps->depth > 1000) {
        ps->error = "too deep";
        return NULL;
    }
    switch (*ps->p) {
    case '{': v = parse_object(ps); break;
    case '[': v = parse_array(ps); break;
    case '"': {
        size_t len;
        char *s = parse_string(ps, &len);
        if (s) {
            v = new_value(J_STR);
            v->u.str = s;
            v->n = len;
        }
        break;
    }
    case 't': v = parse_literal(ps, "true", J_TRUE); break;
    case 'f': v = parse_literal(ps, "false", J_FALSE); break;
    case 'n': v = parse_literal(ps, "null", J_NULL); break;
    default: v = parse_number(ps); break;
    }
    ps->depth--;
    return v;
}

/* The whole text must be one value. */
static struct value *parse(const char *text, size_t n)
{
    struct parser ps;
    struct value *v;
    ps.p = text;
    ps.end = text + n;
    ps.depth = 0;
    ps.error = NULL;
    v = parse_value(&ps);
    if (v) {
        skip_space(&ps);
        if (ps.p != ps.end) {
            ps.error = "trailing characters";
            free_value(v);
            v = NULL;
        }
    }
    if (!v) {
        fprintf(stderr, "json: parse error: %s at offset %ld\n", ps.error,
                (long)(ps.p - text));
        exit(5);
    }
    return v;
}

/* ---- printer --------------------------------------------------------- */

static void print_string(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, run = 0;
    buf_putc(b, '"');
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        /* flush the plain run before the character to escape */
        buf_put(b, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default: {
            char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
            buf_puts(b, u);
        }
        }
    }
    buf_put(b, s + run, n - run);
    buf_putc(b, '"');
}

static void print_value(struct buf *b, const struct value *v)
{
    size_t i;
    switch (v->type) {
    case J_NULL: buf_puts(b, "null"); break;
    case J_FALSE: buf_puts(b, "false"); break;
    case J_TRUE: buf_puts(b, "true"); break;
    case J_NUM: buf_putnum(b, v->u.num); break;
    case J_STR: print_string(b, v->u.str, v->n); break;
    case J_ARR:
        buf_putc(b, '[');
        for (i = 0; i < v->n; i++) {
            if (i)
                buf_putc(b, ',');
            print_value(b, v->u.items[i]);
        }
        buf_putc(b, ']');
        break;
    case J_OBJ:
        buf_putc(b, '{');
        for (i = 0; i < v->n; i++) {
            if (i)
                buf_putc(b, ',');
            print_string(b, v->u.members[i].key, strlen(v->u.members[i].key));
            buf_putc(b, ':');
            print_value(b, v->u.members[i].val);
        }
        buf_putc(b, '}');
        break;
    }
}

/* ---- tree walks ------------------------------------------------------ */

/* A structural checksum: the same for a tree and for the tree parsed back
   from its printed text. */
static uint64_t digest(const struct value *v)
{
    uint64_t h = (uint64_t)v->type;
    size_t i;
    switch (v->type) {
    case J_NUM: h = mix(h, (uint64_t)(int64_t)(v->u.num * 1000.0)); break;
    case J_STR: h = mix(h, hash_bytes(v->u.str, v->n)); break;
    case J_ARR:
        for (i = 0; i < v->n; i++)
            h = mix(h, digest(v->u.items[i]));
        break;
    case J_OBJ:
        for (i = 0; i < v->n; i++)
            h = mix(mix(h, hash_bytes(v->u.members[i].key, strlen(v->u.members[i].key))),
                    digest(v->u.members[i].val));
        break;
    default: break;
    }
    return h;
}

/* The transformation: a deep copy that drops null members, upper-cases
   short strings, scales numbers and renames the keys that start with a
   vowel, the kind of rewrite a config or API gateway does. */
static struct value *transform(const struct value *v)
{
    struct value *c;
    size_t i;
    switch (v->type) {
    case J_NUM:
        return new_number(v->u.num * 2);
    case J_STR:
        c = new_string(v->u.str);
        if (c->n < 16)
            for (i = 0; i < c->n; i++)
                if (c->u.str[i] >= 'a' && c->u.str[i] <= 'z')
                    c->u.str[i] = (char)(c->u.str[i] - 'a' + 'A');
        return c;
    case J_ARR:
        c = new_value(J_ARR);
        for (i = 0; i < v->n; i++)
            arr_push(c, transform(v->u.items[i]));
        return c;
    case J_OBJ:
        c = new_value(J_OBJ);
        for (i = 0; i < v->n; i++) {
            const struct member *m = &v->u.members[i];
            char *key;
            if (m->val->type == J_NULL)
                continue;
            if (strchr("aeiou", m->key[0])) {
                size_t n = strlen(m->key);
                key = xcheck(malloc(n + 3));
                memcpy(key, "x_", 2);
                memcpy(key + 2, m->key, n + 1);
            } else {
                key = xcheck(strdup(m->key));
            }
            obj_put(c, key, transform(m->val));
        }
        return c;
    default:
        return new_value(v->type);
    }
}

/* ---- document generators --------------------------------------------- */

static const char *const words[] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa",
    "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
};
#define NWORDS (sizeof words / sizeof *words)

static void gen_words(struct buf *b, rng_t *r, int n)
{
    int i;
    buf_putc(b, '"');
    for (i = 0; i < n; i++) {
        if (i)
            buf_putc(b, ' ');
        buf_puts(b, words[rng_below(r, NWORDS)]);
    }
    buf_putc(b, '"');
}

static void gen_number(struct buf *b, rng_t *r)
{
    uint32_t k = rng_below(r, 4);
    if (k == 0)
        buf_putc(b, '-');
    buf_putu(b, rng_below(r, k == 3 ? 1000000 : 1000));
    if (k >= 2) {
        buf_putc(b, '.');
        buf_putu(b, 100 + rng_below(r, 900));
    }
}

static void gen_record(struct buf *b, rng_t *r, uint64_t id)
{
    int i, ntags = (int)rng_below(r, 5);
    buf_puts(b, "{\"id\":");
    buf_putu(b, id);
    buf_puts(b, ",\"name\":");
    gen_words(b, r, 2);
    buf_puts(b, ",\"email\":\"user");
    buf_putu(b, id);
    buf_puts(b, "@example.org\",\"active\":");
    buf_puts(b, rng_below(r, 3) ? "true" : "false");
    buf_puts(b, ",\"score\":");
    gen_number(b, r);
    buf_puts(b, ",\"tags\":[");
    for (i = 0; i < ntags; i++) {
        if (i)
            buf_putc(b, ',');
        gen_words(b, r, 1);
    }
    buf_puts(b, "],\"address\":{\"city\":");
    gen_words(b, r, 1);
    buf_puts(b, ",\"zip\":\"");
    buf_putu(b, 10000 + rng_below(r, 89999));
    buf_puts(b, "\",\"extra\":null},\"owner\":");
    if (rng_below(r, 2))
        buf_puts(b, "null");
    else
        gen_words(b, r, 1);
    buf_putc(b, '}');
}

static void gen_records(struct buf *b, rng_t *r, int n)
{
    int i;
    buf_puts(b, "{\"version\":3,\"items\":[\n");
    for (i = 0; i < n; i++) {
        if (i)
            buf_puts(b, ",\n");
        gen_record(b, r, (uint64_t)i);
    }
    buf_puts(b, "\n]}\n");
}

static void gen_config(struct buf *b, rng_t *r)
{
    int i, n = 3 + (int)rng_below(r, 8);
    buf_puts(b, "{\"service\":");
    gen_words(b, r, 1);
    buf_puts(b, ",\"port\":");
    buf_putu(b, 1024 + rng_below(r, 60000));
    buf_puts(b, ",\"debug\":false,\"limits\":{\"cpu\":");
    gen_number(b, r);
    buf_puts(b, ",\"memory\":");
    buf_putu(b, rng_below(r, 1u << 30));
    buf_puts(b, "},\"env\":{");
    for (i = 0; i < n; i++) {
        if (i)
            buf_putc(b, ',');
        buf_puts(b, "\"VAR_");
        buf_putu(b, (uint64_t)i);
        buf_puts(b, "\":");
        gen_words(b, r, 1 + (int)rng_below(r, 3));
    }
    buf_puts(b, "},\"hosts\":[");
    for (i = 0; i < n / 2; i++) {
        if (i)
            buf_putc(b, ',');
        buf_puts(b, "\"10.0.");
        buf_putu(b, rng_below(r, 256));
        buf_putc(b, '.');
        buf_putu(b, rng_below(r, 256));
        buf_putc(b, '"');
    }
    buf_puts(b, "],\"owner\":null}");
}

/* Prose with every kind of escape, and characters beyond ASCII written as
   \u escapes, some of them surrogate pairs. */
static void gen_text(struct buf *b, rng_t *r, int words_n)
{
    static const char *const esc[] = { "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u00e9",
                                       "\\u20ac", "\\ud83d\\ude00", "\\u00fc" };
    int i;
    buf_putc(b, '"');
    for (i = 0; i < words_n; i++) {
        uint32_t k = rng_below(r, 16);
        if (i)
            buf_putc(b, ' ');
        if (k < 9)
            buf_puts(b, esc[k]);
        buf_puts(b, words[rng_below(r, NWORDS)]);
    }
    buf_putc(b, '"');
}

static void gen_strings(struct buf *b, rng_t *r, int n)
{
    int i;
    buf_puts(b, "[");
    for (i = 0; i < n; i++) {
        if (i)
            buf_puts(b, ",\n");
        buf_puts(b, "{\"title\":");
        gen_text(b, r, 3 + (int)rng_below(r, 5));
        buf_puts(b, ",\"body\":");
        gen_text(b, r, 20 + (int)rng_below(r, 200));
        buf_puts(b, "}");
    }
    buf_puts(b, "]");
}

static void gen_matrix(struct buf *b, rng_t *r, int rows, int cols)
{
    int i, j;
    buf_putc(b, '[');
    for (i = 0; i < rows; i++) {
        buf_puts(b, i ? ",\n[" : "[");
        for (j = 0; j < cols; j++) {
            if (j)
                buf_putc(b, ',');
            gen_number(b, r);
        }
        buf_putc(b, ']');
    }
    buf_putc(b, ']');
}

/* Nested objects and arrays, depth levels below this one. */
static void gen_deep(struct buf *b, rng_t *r, int depth)
{
    int i, n = 1 + (int)rng_below(r, 3);
    if (depth == 0) {
        if (rng_below(r, 2))
            gen_number(b, r);
        else
            gen_words(b, r, 1);
        return;
    }
    if (depth % 2) {
        buf_putc(b, '[');
        for (i = 0; i < n; i++) {
            if (i)
                buf_putc(b, ',');
            gen_deep(b, r, depth - 1);
        }
        buf_putc(b, ']');
    } else {
        buf_putc(b, '{');
        for (i = 0; i < n; i++) {
            if (i)
                buf_putc(b, ',');
            buf_puts(b, "\"k");
            buf_putu(b, (uint64_t)i);
            buf_puts(b, "\":");
            gen_deep(b, r, depth - 1);
        }
        buf_putc(b, '}');
    }
}

/* ---- the pipeline ------------------------------------------------------ */

/* A query on the record documents: the total score of active records and
   the number of tags, through the parsed tree as an application would. */
static uint64_t query_records(const struct value *doc)
{
    const struct value *items = obj_get(doc, "items");
    double score = 0;
    uint64_t tags = 0;
    size_t i;
    if (!items || items->type != J_ARR)
        return 0;
    for (i = 0; i < items->n; i++) {
        const struct value *it = items->u.items[i], *a = obj_get(it, "active"),
                           *s = obj_get(it, "score"), *t = obj_get(it, "tags");
        if (a && a->type == J_TRUE && s && s->type == J_NUM)
            score += s->u.num;
        if (t && t->type == J_ARR)
            tags += t->n;
    }
    return mix(tags, (uint64_t)(int64_t)(score * 1000.0));
}

/* Parse, query, transform, print, parse the print again and compare:
   one document's whole life.  Returns its contribution to the checksum. */
static uint64_t process(const struct buf *text, int records)
{
    struct value *doc = parse(text->s, text->n), *copy, *back;
    struct buf out = { NULL, 0, 0 };
    uint64_t h = digest(doc);
    if (records)
        h = mix(h, query_records(doc));
    copy = transform(doc);
    free_value(doc);
    print_value(&out, copy);
    back = parse(out.s, out.n);
    if (digest(back) != digest(copy)) {
        fputs("json: printed copy does not parse back to the same tree\n", stderr);
        exit(6);
    }
    h = mix(h, hash_bytes(out.s, out.n));
    free_value(back);
    free_value(copy);
    buf_free(&out);
    return h;
}

/* One document of kind w (the workload names above) at the single-thread
   sizes, or at a fifth of them (small, for the threaded mix), mixed into
   the checksum h. */
static uint64_t one_round(uint64_t h, const char *w, rng_t *r, struct buf *text, int small)
{
    text->n = 0;
    if (!strcmp(w, "records"))
        gen_records(text, r, small ? 400 : 2000);
    else if (!strcmp(w, "config")) {
        /* many small documents, each with its own text buffer */
        int k;
        for (k = 0; k < (small ? 40 : 200); k++) {
            struct buf one = { NULL, 0, 0 };
            gen_config(&one, r);
            h = mix(h, process(&one, 0));
            buf_free(&one);
        }
        return h;
    } else if (!strcmp(w, "strings"))
        gen_strings(text, r, small ? 100 : 500);
    else if (!strcmp(w, "numbers"))
        gen_matrix(text, r, small ? 40 : 200, 100);
    else if (!strcmp(w, "deep"))
        gen_deep(text, r, small ? 12 : 14);
    else {
        fputs("usage: json records|config|strings|numbers|deep SCALE\n"
              "       json mt NTHREADS SCALE\n", stderr);
        exit(2);
    }
    return mix(h, process(text, !strcmp(w, "records")));
}

struct job {
    long scale;
    unsigned seed;
    uint64_t sum;
};

static void *mt_thread(void *arg)
{
    static const char *const kinds[] = { "records", "config", "strings", "numbers", "deep" };
    struct job *j = arg;
    struct buf text = { NULL, 0, 0 };
    uint64_t h = 0;
    long i;
    int k;
    rng_t r;

    rng_seed(&r, 1000 + j->seed);
    for (i = 0; i < j->scale; i++)
        for (k = 0; k < 5; k++)
            h = one_round(h, kinds[k], &r, &text, 1);
    buf_free(&text);
    j->sum = h;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    long scale, i;
    struct buf text = { NULL, 0, 0 };
    uint64_t h = 0;
    rng_t r;

    if (!strcmp(w, "mt")) {
        long nt = arg_long(argc, argv, 2, 4);
        pthread_t *tid;
        struct job *job;
        scale = arg_long(argc, argv, 3, 10);
        tid = xcheck(calloc((size_t)nt, sizeof *tid));
        job = xcheck(calloc((size_t)nt, sizeof *job));
        for (i = 0; i < nt; i++) {
            job[i].scale = scale;
            job[i].seed = (unsigned)i;
            if (pthread_create(&tid[i], NULL, mt_thread, &job[i])) {
                fputs("pthread_create failed\n", stderr);
                return 3;
            }
        }
        for (i = 0; i < nt; i++) {
            pthread_join(tid[i], NULL);
            h += job[i].sum;
        }
        free(tid);
        free(job);
        /* ops: documents processed (5 per round and thread) */
        report(h, (uint64_t)(nt * scale * 5));
        return 0;
    }
    scale = arg_long(argc, argv, 2, 10);
    rng_seed(&r, 6);
    for (i = 0; i < scale; i++)
        h = one_round(h, w, &r, &text, 0);
    buf_free(&text);
    /* the allocator calls are not counted here: ops is the document count */
    report(h, (uint64_t)scale);
    return 0;
}
