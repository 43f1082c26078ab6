/* SPDX-License-Identifier: MIT */
/* tool.c - the shared part of mtrace2massif, mtrace-diff, mtrace-top and
 * ms_print (see tool.h): the error line, checked allocation, %XX names,
 * gnuplot's quoting, and the tools' inputs as files they can read twice (a
 * pipe copied, a trace compressed with zstd decompressed, through libzstd
 * loaded at run time), or a zstd stream as it grows.
 * Calls nothing of the tools: every file of them may call it. */
#include "tool.h"

#include <dlfcn.h>
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

/* ------------------------------------------------------------------ */
/* Inputs: a pipe copied, a trace compressed with zstd decompressed     */

/* zstd's magic number, the first four bytes of a frame (RFC 8878). */
static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

/* libzstd, loaded when a compressed input comes: the tools build and run
 * without it (the tracer loads it the same way, runtime/zstd.c).  The
 * few declarations of zstd.h's stable API used here. */
struct zin { const void *src; size_t size, pos; };
struct zout { void *dst; size_t size, pos; };
#define ZSTD_D_WINDOWLOGMAX 100     /* ZSTD_d_windowLogMax */
#define ZSTD_WINDOWLOG_LIMIT 27     /* zstd's own default: a 128 MiB window at most */
/* What ZSTD_decompressStream asks for when its input stopped right after a
 * whole block: the next block's header (ZSTD_blockHeaderSize; inside a
 * block or a header it asks for more, and for a 4-byte checksum 4). */
#define ZSTD_BLOCK_HEADER 3
struct zlib {
    void *(*create)(void);
    size_t (*destroy)(void *);
    size_t (*set)(void *, int, int);
    size_t (*decompress)(void *, struct zout *, struct zin *);
    unsigned (*is_error)(size_t);
    const char *(*error_name)(size_t);
};

/* The library, or NULL with why (dlerror's text) in *why. */
static const struct zlib *zlib_load(const char **lib, const char **why)
{
    static struct zlib z;
    static int loaded;
    static const char *err;
    static char dl_err[512];
    const char *name = getenv("MTRACE_ZSTD_LIB");   /* the tracer's test hook, here too */
    *lib = name && *name ? name : "libzstd.so.1";
    if (!loaded) {
        void *h = dlopen(*lib, RTLD_NOW | RTLD_LOCAL);
        static const char *const fns[] = { "ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_DCtx_setParameter",
                                           "ZSTD_decompressStream", "ZSTD_isError", "ZSTD_getErrorName" };
        void *f[6] = { 0 };
        loaded = 1;
        for (size_t i = 0; h && i < 6; i++)
            if (!(f[i] = dlsym(h, fns[i])))
                err = "a symbol of libzstd 1.4 is missing";
        if (!h) {
            const char *d = dlerror();
            snprintf(dl_err, sizeof dl_err, "%s", d ? d : "not found");
            err = dl_err;
        }
        if (!err) {
            z.create = (void *(*)(void))f[0];
            z.destroy = (size_t (*)(void *))f[1];
            z.set = (size_t (*)(void *, int, int))f[2];
            z.decompress = (size_t (*)(void *, struct zout *, struct zin *))f[3];
            z.is_error = (unsigned (*)(size_t))f[4];
            z.error_name = (const char *(*)(size_t))f[5];
        }
    }
    *why = err ? err : "";
    return err ? NULL : &z;
}

/* What a copy owns, freed before an error line unwinds (mtrace2massif
 * goes on with its next trace). */
struct copy {
    struct tool_err *e;
    FILE *t;
    const struct zlib *z;
    void *dctx;
    char *in, *out;
};

static void copy_free(struct copy *c)
{
    if (c->t)
        fclose(c->t);
    if (c->dctx)
        c->z->destroy(c->dctx);
    free(c->in);
    free(c->out);
    memset(c, 0, sizeof *c);
}

static void copy_fail(struct copy *c, const char *fmt, const char *arg)
{
    char msg[1100];
    struct tool_err *e = c->e;
    snprintf(msg, sizeof msg, fmt, arg);
    copy_free(c);
    tool_fail(e, "%s", msg);
}

/* Up to n bytes of fd (fewer only at its end). */
static size_t read_some(struct copy *c, int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            copy_fail(c, "read error: %s", strerror(errno));
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return got;
}

static void put(struct copy *c, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, c->t) != n)
        copy_fail(c, "cannot write a temporary file: %s", strerror(errno));
}

/* The zstd stream on fd, whose first nhead bytes were read into head
 * already, decompressed into the temporary file: a frame after another
 * (zstd -dc's rule), each whole, except that the last one may stop
 * between two blocks without its end: the tracer ends a block at each
 * write of its buffer, at a record's end, so that is the trace of a
 * process killed (SIGKILL), read as a plain one is (its records, then the
 * parser's warning: no tail).  Any other cut, inside a block or a header,
 * is an error. */
static void unzstd(struct copy *c, int fd, const unsigned char *head, size_t nhead)
{
    enum { IN = 1 << 17, OUT = 1 << 17 };   /* a block of each */
    const char *lib, *why;
    size_t left = 1, have = nhead;
    if (!(c->z = zlib_load(&lib, &why))) {
        char msg[1024];
        snprintf(msg, sizeof msg, "compressed with zstd, and %s cannot be loaded (%s)", lib, why);
        copy_fail(c, "%s", msg);
    }
    c->in = malloc(IN);
    c->out = malloc(OUT);
    if (!c->in || !c->out || !(c->dctx = c->z->create()))
        copy_fail(c, "%s", "out of memory");
    c->z->set(c->dctx, ZSTD_D_WINDOWLOGMAX, ZSTD_WINDOWLOG_LIMIT);
    memcpy(c->in, head, nhead);
    for (;;) {
        have += read_some(c, fd, c->in + have, IN - have);
        if (have == 0)
            break;
        struct zin in = { c->in, have, 0 };
        while (in.pos < in.size) {
            struct zout out = { c->out, OUT, 0 };
            left = c->z->decompress(c->dctx, &out, &in);
            if (c->z->is_error(left))
                copy_fail(c, "not valid zstd data (%s)", c->z->error_name(left));
            put(c, c->out, out.pos);
        }
        have = 0;
    }
    while (left != 0) {         /* the input is all in: what the decoder holds */
        struct zin in = { c->in, 0, 0 };
        struct zout out = { c->out, OUT, 0 };
        left = c->z->decompress(c->dctx, &out, &in);
        if (c->z->is_error(left))
            copy_fail(c, "not valid zstd data (%s)", c->z->error_name(left));
        if (out.pos == 0 && left == ZSTD_BLOCK_HEADER)   /* between two blocks */
            break;
        if (out.pos == 0 && left != 0)
            copy_fail(c, "%s", "truncated zstd data: the file ends inside a block or a header");
        put(c, c->out, out.pos);
    }
}

struct tool_unzstd {
    struct tool_err *e;
    const struct zlib *z;
    void *dctx;
    char *out;
    size_t want;                /* what the decoder last asked for */
};

enum { UNZSTD_OUT = 1 << 17 };

struct tool_unzstd *tool_unzstd_new(struct tool_err *e)
{
    const char *lib, *why;
    const struct zlib *z = zlib_load(&lib, &why);
    if (!z)
        tool_fail(e, "compressed with zstd, and %s cannot be loaded (%s)", lib, why);
    struct tool_unzstd *u = calloc(1, sizeof *u);
    if (u && !(u->out = malloc(UNZSTD_OUT)))
        free(u), u = NULL;
    if (u && !(u->dctx = z->create()))
        free(u->out), free(u), u = NULL;
    if (!u)
        tool_fail(e, "out of memory");
    u->e = e;
    u->z = z;
    z->set(u->dctx, ZSTD_D_WINDOWLOGMAX, ZSTD_WINDOWLOG_LIMIT);
    return u;
}

void tool_unzstd_feed(struct tool_unzstd *u, const void *src, size_t n,
                      void (*put)(void *arg, const char *text, size_t len), void *arg)
{
    struct zin in = { src, n, 0 };
    for (;;) {
        struct zout out = { u->out, UNZSTD_OUT, 0 };
        size_t r = u->z->decompress(u->dctx, &out, &in);
        if (u->z->is_error(r))
            tool_fail(u->e, "not valid zstd data (%s)", u->z->error_name(r));
        put(arg, u->out, out.pos);
        u->want = r;
        /* all the input taken and the output not full: nothing more now */
        if (in.pos == in.size && out.pos < out.size)
            return;
    }
}

int tool_unzstd_whole(const struct tool_unzstd *u)
{
    return u->want == 0 || u->want == ZSTD_BLOCK_HEADER;
}

void tool_unzstd_free(struct tool_unzstd *u)
{
    if (!u)
        return;
    u->z->destroy(u->dctx);
    free(u->out);
    free(u);
}

int tool_is_zstd(const void *head, size_t n)
{
    return n >= sizeof zstd_magic && !memcmp(head, zstd_magic, sizeof zstd_magic);
}

long tool_rank_suffix(const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k == n || n - k > 9 || name[k] == '0' || k < 2 || name[k - 1] != '-' ||
        name[k - 2] == '/')
        return -1;
    return strtol(name + k, NULL, 10);
}

int tool_input(struct tool_err *e, int fd)
{
    struct copy c = { .e = e };
    unsigned char head[4];
    size_t n;
    int seekable = lseek(fd, 0, SEEK_CUR) >= 0;
    if (seekable) {             /* read in place, unless compressed */
        if (lseek(fd, 0, SEEK_SET) != 0)
            copy_fail(&c, "cannot rewind: %s", strerror(errno));
        n = read_some(&c, fd, head, sizeof head);
        if (lseek(fd, 0, SEEK_SET) != 0)
            copy_fail(&c, "cannot rewind: %s", strerror(errno));
        if (n < sizeof head || memcmp(head, zstd_magic, sizeof head))
            return fd;
    } else
        n = read_some(&c, fd, head, sizeof head);
    if (!(c.t = tmpfile()))
        copy_fail(&c, "cannot create a temporary file: %s", strerror(errno));
    if (n == sizeof head && !memcmp(head, zstd_magic, sizeof head))
        unzstd(&c, fd, head, seekable ? 0 : n);    /* a file: read again from 0 */
    else {                      /* a pipe: its copy */
        char buf[1 << 16];
        put(&c, head, n);
        while ((n = read_some(&c, fd, buf, sizeof buf)) > 0)
            put(&c, buf, n);
    }
    if (fflush(c.t) != 0)
        copy_fail(&c, "cannot write a temporary file: %s", strerror(errno));
    int copy = dup(fileno(c.t));
    if (copy < 0 || lseek(copy, 0, SEEK_SET) != 0) {
        if (copy >= 0)
            close(copy);
        copy_fail(&c, "cannot read a temporary file back: %s", strerror(errno));
    }
    copy_free(&c);
    return copy;
}
