/* SPDX-License-Identifier: MIT */
/* runtime/zstd.c - the compressed trace: MTRACE=NAME.zst (level 1).

   Owns: libzstd, loaded at start when MTRACE's value ends in ".zst" (never
   needed to build: its few functions are declared here and looked up at
   run time; MTRACE_ZSTD_LIB names another file, a test hook), the
   compressor's memory (mapped, a static context: zstd never calls
   malloc), and the one write of the trace's text, mtrace_zst_write, which
   compresses it when the library is there and is write(2) otherwise.
   May call: runtime/platform.c, state.c, out.c.

   The file is one zstd frame per trace file, or per segment under
   MTRACE_TRACE_MAX (mtrace_zst_finish ends one; doc/trace-format.md): every
   write of the buffer is a flush, so what reached the file decompresses
   up to its last record whatever happens next, and the write that takes
   the tail ends the frame.  No checksum: a frame can then be ended
   without the compressor, which is what lets a fatal signal that
   interrupted the compressor itself still leave a whole file (the rest
   goes out as raw blocks, see mtrace_zst_write).  Without the library, one
   warning, and the trace is written plain under the same name: the tools
   tell the two apart by zstd's magic bytes, never by the name. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

#define MTRACE_ZST_LEVEL 1          /* ~1.3 MiB of context; 3 would take 3.5 MiB */
#define MTRACE_ZST_CHUNK (1 << 17)  /* input per compression call: a block's most */
#define MTRACE_ZST_WINDOW_LOG 19    /* what zstd writes for level 1 (2^19 >= a raw block),
                                       and what our own frame header says */
enum { MTRACE_ZST_IDLE, MTRACE_ZST_COMPRESSING, MTRACE_ZST_WRITING };

/* zstd.h's stable API, as much of it as is used (ZSTD_inBuffer,
   ZSTD_outBuffer; the enums are ints).  ZSTD_initStaticCCtx and
   ZSTD_estimateCStreamSize are its "static linking only" part, exported by
   every libzstd.so.1 since 1.3. */
struct mtrace_zin { const void *src; size_t size, pos; };
struct mtrace_zout { void *dst; size_t size, pos; };
#define MTRACE_ZSTD_C_LEVEL 100     /* ZSTD_c_compressionLevel */
#define MTRACE_ZSTD_C_CHECKSUM 201  /* ZSTD_c_checksumFlag */
#define MTRACE_ZSTD_E_FLUSH 1       /* ZSTD_e_flush */
#define MTRACE_ZSTD_E_END 2         /* ZSTD_e_end */
#define MTRACE_ZSTD_RESET_SESSION 1 /* ZSTD_reset_session_only */

struct mtrace_zst {
    void *cctx;
    size_t (*compress)(void *, struct mtrace_zout *, struct mtrace_zin *, int);
    unsigned (*is_error)(size_t);
    size_t (*reset)(void *, int);
    char *out;                  /* a chunk's whole output: compressBound(CHUNK) and more */
    size_t outsize, mapped;
    /* The write in progress, as a signal handler that interrupted it on
       this thread finds it (mtrace_write_out flushes from the handler). */
    volatile int busy;          /* MTRACE_ZST_IDLE, _COMPRESSING, _WRITING */
    const char *volatile next;  /* the first input byte not yet compressed */
    volatile size_t out_len, out_done;     /* out[0..out_len) to write, written so far */
    volatile size_t written;    /* bytes this write put in the file (since a record's end) */
    volatile int started;       /* this frame's header is in the file */
    volatile int clean;         /* the file ends where a flush ended: blocks whole */
    volatile int raw;           /* the compressor was interrupted: raw blocks from now */
    int ending;                 /* the next write ends the frame (it takes the tail) */
};

static int mtrace_zst_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* One warning line, and the trace stays plain. */
static void mtrace_zst_refuse(const char *name, const char *lib, const char *why, const char *more)
{
    mtrace_say("*** MTRACE: warning: MTRACE=");
    mtrace_say_shown(name);
    mtrace_say(": cannot compress with ");
    mtrace_say_shown(lib);
    mtrace_say(" (");
    mtrace_say_shown(why);
    mtrace_say_shown(more);
    mtrace_say("): the trace is written uncompressed, under that name\n");
}

/* At start (mtrace_init, before READY: dlopen's own calls to malloc pass
   through the interposers untraced), when MTRACE's value ends in ".zst":
   libzstd, and the compressor in mapped pages.  Forked children and MPI
   ranks, whose names get a suffix, keep the process's choice. */
static void mtrace_zst_load(void)
{
    const char *name = mtrace_getenv("MTRACE"), *lib = mtrace_getenv("MTRACE_ZSTD_LIB");
    void *(*dl_open)(const char *, int);
    char *(*dl_error)(void);
    void *h, *(*init_static)(void *, size_t);
    size_t (*estimate)(int), (*bound)(size_t), (*set)(void *, int, int);
    static const char *const fns[] = { "ZSTD_compressStream2", "ZSTD_isError", "ZSTD_CCtx_reset",
        "ZSTD_initStaticCCtx", "ZSTD_estimateCStreamSize", "ZSTD_compressBound", "ZSTD_CCtx_setParameter" };
    void *fn[sizeof fns / sizeof *fns];
    struct mtrace_zst *z;
    size_t work, outsize, head, i;
    if (!mt.tracing || !name || !mtrace_zst_ends_with(name, ".zst"))
        return;
    if (!lib || !*lib)
        lib = "libzstd.so.1";
    dl_open = mtrace_dlsym ? __extension__ (void *(*)(const char *, int))mtrace_dlsym((void *)0 /* RTLD_DEFAULT */, "dlopen") : 0;
    dl_error = mtrace_dlsym ? __extension__ (char *(*)(void))mtrace_dlsym((void *)0, "dlerror") : 0;
    if (!dl_open) {
        mtrace_zst_refuse(name, lib, "no dynamic loader in this process", "");
        return;
    }
    if (!(h = dl_open(lib, 0x00002 | 0x01000))) {  /* RTLD_NOW | RTLD_NODELETE */
        const char *why = dl_error ? dl_error() : 0;
        mtrace_zst_refuse(name, lib, why ? why : "not found", "");
        return;
    }
    for (i = 0; i < sizeof fns / sizeof *fns; i++)
        if (!(fn[i] = mtrace_dlsym(h, fns[i]))) {
            mtrace_zst_refuse(name, lib, fns[i], " not found: libzstd 1.4 or later is needed");
            return;
        }
    estimate = __extension__ (size_t (*)(int))fn[4];
    bound = __extension__ (size_t (*)(size_t))fn[5];
    init_static = __extension__ (void *(*)(void *, size_t))fn[3];
    set = __extension__ (size_t (*)(void *, int, int))fn[6];
    work = estimate(MTRACE_ZST_LEVEL);
    outsize = bound(MTRACE_ZST_CHUNK) + 64;         /* + a frame header, the end */
    head = (sizeof *z + 63) & ~(size_t)63;
    outsize = (outsize + 63) & ~(size_t)63;
    if (!(z = (struct mtrace_zst *)mtrace_pages(head + outsize + work))) {
        mtrace_zst_refuse(name, lib, strerror(ENOMEM), "");
        return;
    }
    z->mapped = head + outsize + work;
    z->out = (char *)z + head;
    z->outsize = outsize;
    z->compress = __extension__ (size_t (*)(void *, struct mtrace_zout *, struct mtrace_zin *, int))fn[0];
    z->is_error = __extension__ (unsigned (*)(size_t))fn[1];
    z->reset = __extension__ (size_t (*)(void *, int))fn[2];
    z->cctx = init_static(z->out + outsize, work);
    if (!z->cctx || z->is_error(set(z->cctx, MTRACE_ZSTD_C_LEVEL, MTRACE_ZST_LEVEL))
        || z->is_error(set(z->cctx, MTRACE_ZSTD_C_CHECKSUM, 0))) {
        mtrace_zst_refuse(name, lib, "it refused a static context of ", "its own estimate");
        mtrace_unpages(z, z->mapped);
        return;
    }
    mt.zst = z;
}

/* At the opening of each trace file (the first record; a forked child's
   own file): a new frame. */
static void mtrace_zst_start(void)
{
    struct mtrace_zst *z = (struct mtrace_zst *)mt.zst;
    if (!z)
        return;
    z->reset(z->cctx, MTRACE_ZSTD_RESET_SESSION);
    z->busy = MTRACE_ZST_IDLE;
    z->started = z->raw = z->ending = 0;
    z->clean = 1;
}

/* Before the tail: the write that takes it ends the frame. */
static void mtrace_zst_ending(void)
{
    if (mt.zst)
        ((struct mtrace_zst *)mt.zst)->ending = 1;
}

/* A write failed after `written` bytes of it went out: the file goes back
   to where the previous write ended (a flush, at a record's end) and the
   frame is ended there, so that what a full disk or a file-size limit let
   through still decompresses, a trace cut short at its last whole record
   (as mtrace_cut_at_record does for a plain one; a FIFO keeps what its
   reader read).  errno is kept. */
static void mtrace_zst_cut(int fd, struct mtrace_zst *z)
{
    static const char end[3] = { 1, 0, 0 };     /* an empty raw block, the last */
    int saved = errno;
    long long at = mt.fifo || !z->clean ? -1 : mtrace_lseek(fd, 0, SEEK_CUR) - (long long)z->written;
    if (at >= 0 && mtrace_ftruncate(fd, at) == 0 && mtrace_lseek(fd, at, SEEK_SET) == at && at > 0)
        mtrace_write_all(fd, end, sizeof end);  /* (at 0: no frame yet, an empty file) */
    errno = saved;
}

/* Writes out[out_done..out_len): 0, or -1 (errno) after mtrace_zst_cut. */
static int mtrace_zst_out(int fd, struct mtrace_zst *z)
{
    while (z->out_done < z->out_len) {
        long w = mtrace_write(fd, z->out + z->out_done, z->out_len - z->out_done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            mtrace_zst_cut(fd, z);
            return -1;
        }
        z->out_done += (size_t)w;
        z->written += (size_t)w;
    }
    if (z->out_len)
        z->started = 1;
    return 0;
}

/* p[0..n) as raw blocks (stored, not compressed), the last one marked so
   when `last`; first the frame's header if no block has gone out yet.  0
   or an errno. */
static int mtrace_zst_raw(int fd, struct mtrace_zst *z, const char *p, size_t n, int last)
{
    static const char header[6] = { 0x28, (char)0xb5, 0x2f, (char)0xfd, 0,  /* magic, no size, no checksum */
                                     (MTRACE_ZST_WINDOW_LOG - 10) << 3 };   /* the window */
    int err;
    if (!z->started && (err = mtrace_write_all(fd, header, sizeof header)))
        return err;
    z->started = 1;
    do {
        size_t k = n < MTRACE_ZST_CHUNK ? n : MTRACE_ZST_CHUNK;
        unsigned v = (unsigned)k << 3 | (unsigned)(last && k == n);     /* raw: type 0 */
        char h[3];
        h[0] = (char)(v & 0xff);
        h[1] = (char)(v >> 8 & 0xff);
        h[2] = (char)(v >> 16 & 0xff);
        if ((err = mtrace_write_all(fd, h, 3)) || (err = mtrace_write_all(fd, p, k)))
            return err;
        p += k;
        n -= k;
    } while (n > 0);
    return 0;
}

/* Ends the frame of the file at fd, all its text written (a segment of
   MTRACE_TRACE_MAX that closes: runtime/segments.c): each segment is a
   whole frame, read on its own.  0, or an errno. */
static int mtrace_zst_finish(int fd)
{
    static const char end[3] = { 1, 0, 0 };     /* an empty raw block, the last */
    struct mtrace_zst *z = (struct mtrace_zst *)mt.zst;
    struct mtrace_zin in;
    struct mtrace_zout out;
    size_t left;
    if (!z || !z->started)
        return 0;
    z->started = 0;
    if (z->raw)
        return mtrace_write_all(fd, end, sizeof end);
    in.src = end;
    in.size = in.pos = 0;
    out.dst = z->out;
    out.size = z->outsize;
    out.pos = 0;
    left = z->compress(z->cctx, &out, &in, MTRACE_ZSTD_E_END);
    if (z->is_error(left) || left != 0)
        return ENOMEM;
    return mtrace_write_all(fd, z->out, out.pos);
}

/* write(2) of the trace's text (mtrace_flush): without compression, just
   that; with it, all of p[0..n) compressed and written, or -1 (errno: the
   trace is given up), so n or -1.  Lock held; async-signal-safe: no
   malloc, no stdio, the output buffer is mapped.  A signal handler that
   interrupted this on its own thread (a fatal signal: the thread never
   resumes) calls it again with the same text: output already made is
   written out and the text it covers skipped; text the compressor was
   in the middle of goes out as raw blocks, as does everything after it
   (the compressor's state is lost), and the frame still ends whole. */
static long mtrace_zst_write(int fd, const char *p, size_t n)
{
    struct mtrace_zst *z = (struct mtrace_zst *)mt.zst;
    const char *end = p + n;
    int err;
    if (!z)
        return mtrace_write(fd, p, n);
    if (z->busy != MTRACE_ZST_IDLE) {           /* a handler, over the write below */
        if (z->busy == MTRACE_ZST_WRITING && mtrace_zst_out(fd, z) != 0)
            return -1;
        if (z->busy == MTRACE_ZST_COMPRESSING && !z->clean) {
            errno = EIO;                        /* cannot happen: see outsize */
            return -1;
        }
        if (z->busy == MTRACE_ZST_COMPRESSING)
            z->raw = 1;
        if (z->next >= p && z->next <= end)
            p = z->next;
        z->busy = MTRACE_ZST_IDLE;
    } else
        z->written = 0;
    while (p < end) {
        size_t k = (size_t)(end - p) < MTRACE_ZST_CHUNK ? (size_t)(end - p) : MTRACE_ZST_CHUNK;
        int last = z->ending && p + k == end;
        struct mtrace_zin in;
        size_t left;
        if (z->raw) {
            if ((err = mtrace_zst_raw(fd, z, p, k, last))) {
                errno = err;
                return -1;
            }
            p += k;
            continue;
        }
        in.src = p;
        in.size = k;
        in.pos = 0;
        do {    /* once: a chunk's output fits in `out` */
            struct mtrace_zout out;
            out.dst = z->out;
            out.size = z->outsize;
            out.pos = 0;
            z->next = p + in.pos;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            z->busy = MTRACE_ZST_COMPRESSING;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            left = z->compress(z->cctx, &out, &in, last ? MTRACE_ZSTD_E_END : MTRACE_ZSTD_E_FLUSH);
            if (z->is_error(left)) {
                z->busy = MTRACE_ZST_IDLE;
                errno = ENOMEM;                 /* a static context too small */
                return -1;
            }
            z->out_len = out.pos;
            z->out_done = 0;
            z->next = p + in.pos;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            z->busy = MTRACE_ZST_WRITING;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            if (mtrace_zst_out(fd, z) != 0) {
                z->busy = MTRACE_ZST_IDLE;
                return -1;
            }
            z->clean = left == 0;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            z->busy = MTRACE_ZST_IDLE;
        } while (left != 0);
        p += k;
    }
    if (z->ending) {            /* the frame is whole: another write would begin one */
        z->ending = 0;
        z->started = 0;
    }
    return (long)n;
}

MTRACE_COLD_FILE_END
