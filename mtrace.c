/* mtrace.c - the runtime of mtrace.h.

   Built once as libmtrace.so and libmtrace.a (cc -DMTRACE_RUNTIME, see the
   Makefile), or, in the one-line use "cc -DMTRACE=1 -include mtrace.h",
   included by the header into every translation unit.  Compiled on its
   own without MTRACE_RUNTIME (a project that builds every *.c it finds)
   it is an empty unit.

   Every external definition is weak with default visibility: the copies
   of the one-line use are merged into one by the linkers (static and
   dynamic), and libmtrace's own malloc and free give way to a static C
   library's.  Everything else is static and named mtrace_ or MTRACE_, as
   it lands in the program's own files in the one-line use.  The code is
   written in C89 syntax because it is then compiled with the program's
   own flags, -std=c89 -pedantic included, and it names no libc function
   the program could have redefined: private names bound to the libc
   symbols with asm labels.

   One lock guards everything: the block table, the site table, the totals
   and the trace buffer.  Records are formatted under it, which is what
   makes RECNO gapless and every TOTAL consistent with the record order. */
#if !defined(MTRACE_H) && defined(MTRACE_RUNTIME)
#define _GNU_SOURCE
#include "mtrace.h"
#endif
#if defined(MTRACE_RUNTIME) || defined(MTRACE_INLINE_RUNTIME_)
#ifndef MTRACE_RUNTIME_INCLUDED_
#define MTRACE_RUNTIME_INCLUDED_
#ifdef MTRACE_INLINE_RUNTIME_
#pragma GCC system_header   /* compiled with the program's flags: no warnings of ours */
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#define MTRACE_API __attribute__((weak, visibility("default")))
#ifdef MTRACE_RUNTIME           /* libmtrace: one state, its own */
#define MTRACE_SHARED static
#else                           /* one-line use: one state for all copies */
#define MTRACE_SHARED __attribute__((weak, visibility("default")))
#endif
#define MTRACE_HOT __inline__ __attribute__((always_inline))   /* the per-call path */
#if defined(__x86_64__) || defined(__i386__)
#define MTRACE_PAUSE() __builtin_ia32_pause()   /* a spinning thread's hint */
#else
#define MTRACE_PAUSE() ((void)0)
#endif
#define MTRACE_LIBC(ret, name, args, sym) extern ret name args MTRACE_SYM_(sym)

MTRACE_LIBC(long, mtrace_write, (int, const void *, size_t), write);
MTRACE_LIBC(long, mtrace_read, (int, void *, size_t), read);
MTRACE_LIBC(int, mtrace_close, (int), close);
MTRACE_LIBC(int, mtrace_ftruncate, (int, long), ftruncate);
MTRACE_LIBC(int, mtrace_getpid, (void), getpid);
MTRACE_LIBC(unsigned, mtrace_geteuid, (void), geteuid);
MTRACE_LIBC(int, mtrace_sigmask, (int, const sigset_t *, sigset_t *), pthread_sigmask);
MTRACE_LIBC(int, mtrace_setcancelstate, (int, int *), pthread_setcancelstate);
MTRACE_LIBC(char *, mtrace_getcwd, (char *, size_t), getcwd);
MTRACE_LIBC(void, mtrace_exit_now, (int), _exit) __attribute__((__noreturn__));
MTRACE_LIBC(void, mtrace_libc__Exit, (int), _Exit) __attribute__((__noreturn__));
MTRACE_LIBC(void, mtrace_libc_quick_exit, (int), quick_exit) __attribute__((__noreturn__));
MTRACE_LIBC(int, mtrace_clock_gettime, (int, struct timespec *), clock_gettime);
MTRACE_LIBC(int, mtrace_getattr_np, (pthread_t, pthread_attr_t *), pthread_getattr_np);
MTRACE_LIBC(int, mtrace_sched_yield, (void), sched_yield);
MTRACE_LIBC(char *, mtrace_getenv, (const char *), secure_getenv);
MTRACE_LIBC(int, mtrace_atfork, (void (*)(void), void (*)(void), void (*)(void)), pthread_atfork);
MTRACE_LIBC(void *, mtrace_libc_reallocarray, (void *, size_t, size_t), reallocarray);

/* The C library's allocator.  On glibc the program also defines malloc,
   calloc, realloc and free itself (see the interposers at the end), so
   the real ones are reached by their __libc_ names.  Not under
   AddressSanitizer, whose own malloc must stay the program's. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define MTRACE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MTRACE_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(MTRACE_SANITIZED)
#define MTRACE_INTERPOSE 1
#endif
#ifdef __GLIBC__
MTRACE_LIBC(char, mtrace_single_threaded, , __libc_single_threaded);
#else
#define mtrace_single_threaded 0
#endif
#ifdef MTRACE_INTERPOSE
MTRACE_LIBC(void *, mtrace_libc_malloc, (size_t), __libc_malloc);
MTRACE_LIBC(void *, mtrace_libc_calloc, (size_t, size_t), __libc_calloc);
MTRACE_LIBC(void *, mtrace_libc_realloc, (void *, size_t), __libc_realloc);
MTRACE_LIBC(void, mtrace_libc_free, (void *), __libc_free);
MTRACE_LIBC(void *, mtrace_libc_memalign, (size_t, size_t), __libc_memalign);
MTRACE_LIBC(void *, mtrace_libc_valloc, (size_t), __libc_valloc);
MTRACE_LIBC(void *, mtrace_libc_pvalloc, (size_t), __libc_pvalloc);
#else
MTRACE_LIBC(void *, mtrace_libc_malloc, (size_t), malloc);
MTRACE_LIBC(void *, mtrace_libc_calloc, (size_t, size_t), calloc);
MTRACE_LIBC(void *, mtrace_libc_realloc, (void *, size_t), realloc);
MTRACE_LIBC(void, mtrace_libc_free, (void *), free);
MTRACE_LIBC(void *, mtrace_libc_valloc, (size_t), valloc);
MTRACE_LIBC(void *, mtrace_libc_memalign, (size_t, size_t), memalign);
MTRACE_LIBC(void *, mtrace_libc_pvalloc, (size_t), pvalloc);
#endif
#ifdef MTRACE_INTERPOSE
/* The program's aligned_alloc and posix_memalign are ours (see the
   interposers): the C library's, reached through __libc_memalign with
   the checks glibc makes. */
static void *mtrace_libc_aligned_alloc(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return 0;
    }
    return mtrace_libc_memalign(align, n);
}

static int mtrace_libc_posix_memalign(void **pp, size_t align, size_t n)
{
    void *p;
    int saved = errno;
    if (align % sizeof(void *) || (align & (align - 1)) || align == 0)
        return EINVAL;
    if (!(p = mtrace_libc_memalign(align, n)))
        return ENOMEM;
    errno = saved;
    *pp = p;
    return 0;
}
#else
MTRACE_LIBC(void *, mtrace_libc_aligned_alloc, (size_t, size_t), aligned_alloc);
MTRACE_LIBC(int, mtrace_libc_posix_memalign, (void **, size_t, size_t), posix_memalign);
#endif

enum { MTRACE_OFF, MTRACE_STARTING, MTRACE_READY, MTRACE_DONE };
#define MTRACE_BUFSIZE 65536        /* trace buffer at first; one write(2) when half full */
#define MTRACE_BUFMAX (1 << 20)     /* ...doubled up to this when it fills: see mtrace_commit */
#define MTRACE_NAMEMAX 4096         /* longest FUNC or FILE written to the trace */
#define MTRACE_PATHMAX 4096         /* longest trace file name, with its NUL */
#define MTRACE_RSS_EVERY 1024       /* MAXRSS is refreshed every 1024 records... */
#define MTRACE_RSS_BIG (1 << 20)    /* ...and after every operation of >= 1 MiB */
#define MTRACE_FLUSH_MS 100         /* records wait in memory at most this long while
                                       the program writes (SIGKILL loses only them) */
#define MTRACE_ROWS 20              /* summary rows before "N more sites" */

/* A block the program got from a traced call, in 16 bytes: its address,
   and one word holding its site (the low 20 bits), a freed flag, and its
   size, or once freed the site of the free.  The entry stays as a
   tombstone until the C library hands the address out again, so a second
   free can name both places. */
struct mtrace_block {
    uintptr_t addr;
    uint64_t word;
};
#define MTRACE_SITE_BITS 20
#define MTRACE_MAXSITES ((1u << MTRACE_SITE_BITS) - 1)
#define MTRACE_FREED ((uint64_t)1 << MTRACE_SITE_BITS)

/* Blocks by address, in two levels (see "---- blocks ----"): a directory
   of the 64 KiB ranges of addresses that hold blocks, and per range a
   small table of its blocks' entries, its bucket. */
#define MTRACE_RANGE_BITS 16
#define MTRACE_CLASSES 32           /* bucket sizes: 2, 3, 4, 6, 8, ... 98304 */
struct mtrace_range {
    uint64_t key;               /* range number << 23 | entries in use << 6 | hashed | class */
    struct mtrace_block *slots; /* its bucket; 0 in an empty directory slot */
};

struct mtrace_table {
    struct mtrace_range *dir;    /* open addressing, linear probing, at most half full */
    size_t n, nranges;          /* directory slots, ranges in it */
    size_t nlive, nfreed;       /* entries: live blocks, tombstones */
    struct mtrace_block *spare[MTRACE_CLASSES];    /* buckets given back, by class */
    char *cut, *cut_end;        /* the mapped space new buckets are cut from */
    size_t mapped;              /* bytes mapped for buckets so far */
};

/* Per-site figures, indexed by mtrace_site.index.  `id` is the number the
   trace uses, given when the site first appears in a record. */
struct mtrace_sitestat {
    const char *func, *file;
    int line;
    unsigned id;
    int pool;                   /* its blocks come from MTRACE_MALLOCLIKE */
    size_t live, peak, allocs;
    size_t nlive;               /* live blocks */
    size_t reach, reach_blocks; /* of those, still reachable at exit (MTRACE_LEAK_CHECK) */
    size_t at_peak;             /* live bytes at the last global peak, once */
    unsigned long seen;         /* ...its peak number (see mtrace_count) */
    /* With MTRACE_DEPTH, each distinct chain of callers of a site is an
       entry of its own (a "stack"), counted like a site and also through
       its site: `parent` is the site, `frames` the callers' return
       addresses, innermost first, and `id` the trace's SID. */
    unsigned parent, nframes;
    const uintptr_t *frames;
    unsigned last;              /* a site's stack used last (loops repeat it) */
};

/* An executable segment of a loaded module, for the call stacks: frames
   are trusted (followed further) only in the segments of traced code. */
struct mtrace_seg {
    uintptr_t lo, hi, bias;
    const char *path;
    int traced;                 /* holds traced code with frame pointers */
    int written;                /* its "#map" is in the trace */
};
#define MTRACE_MAXDEPTH 64      /* MTRACE_DEPTH's ceiling (Massif's default is 30) */
#define MTRACE_MAXSEGS 1024

/* The callers of one traced call, walked before the lock is taken. */
struct mtrace_sym;
struct mtrace_chain {
    unsigned n;
    uintptr_t ret[MTRACE_MAXDEPTH - 1];
};

/* A suppression: fun:GLOB, src:GLOB or src:GLOB:LINE, from line `at` of
   the file; what it matched at exit. */
struct mtrace_supp {
    const char *fun, *src;
    int line;                   /* 0: any */
    unsigned at;
    size_t bytes, blocks;
};

struct mtrace_state {
    int fd;                     /* the trace, or -1 (set by mtrace_init) */
    int level;                  /* the process's: 1, 2, 3; 0 before start */
    int exiting, destructed;    /* exit() has begun; our destructor ran */
    int finish_queued;          /* the report is queued or done */
    void (*owner)(void);        /* mtrace_init of the copy that started */
    size_t total, max, overhead, maxoverhead, nr, startrss, maxrss;   /* pmtrace's */
    char recno_text[24], rss_text[24];  /* nr and maxrss as they are written */
    unsigned recno_len, rss_len;
    /* The lock and the state word each on a cache line of its own: every
       call reads the state without the lock, and with several threads
       the lock's line goes back and forth between the cores. */
    int lock __attribute__((aligned(64)));
    int state __attribute__((aligned(64)));
    int interposed __attribute__((aligned(64)));
    int child, trace_broken, incomplete, exit_status;
    int tracing;                /* level 1 and the trace not given up: records go to buf */
    struct mtrace_pending *forking;     /* the thread in fork(): it holds the lock */
    size_t passed;              /* calls from signal handlers let through untraced */
    unsigned long peak_no;      /* global peaks so far */
    size_t peak_recno;          /* RECNO of the record that made the peak */
    struct mtrace_supp *supp;   /* MTRACE_SUPPRESS's patterns */
    unsigned nsupp;
    const char *supp_file;
    size_t budget;              /* MTRACE_MAX_HEAP, 0 for none */
    const char *budget_text;
    size_t leaked, leaked_blocks, suppressed, suppressed_blocks;   /* at exit */
    size_t reachable;           /* live at exit, not suppressed, still reachable */
    int over_budget;
    int reachable_mode;         /* MTRACE_LEAK_CHECK=reachable */
    long flush_ms;              /* when the buffer was last written (monotonic, ms) */
    int trace_written;          /* the trace got its tail: the report shows how to draw it */
    int fifo;                   /* the trace is a FIFO: its reader may go away */
    int keep_going;             /* MTRACE_DOUBLE_FREE=continue */
    int forked;                 /* this process has forked: name it */
    int nofollow;               /* the trace name is the default one */
    long rank;                  /* MPI rank, -1 outside MPI */
    unsigned long dev, ino;     /* the trace file, to check our descriptor */
    int pid;
    struct mtrace_table heap;       /* blocks from the C library */
    struct mtrace_table pool;       /* blocks of the program's own allocators
                                   (MTRACE_MALLOCLIKE): they may lie inside a
                                   heap block, even at its address */
    struct mtrace_sitestat *sites;      /* [0] unused */
    unsigned nsites, maxsites, nids;
    unsigned *sitehash, nsitehash;
    int depth;                  /* MTRACE_DEPTH: frames per stack, the site one of
                                   them; 0: no stacks */
    unsigned *stackhash, nstackhash, nstacks, nsids;
    uintptr_t *framespace, *framespace_end;
    struct mtrace_seg *segs;    /* MTRACE_MAXSEGS, published by nsegs */
    unsigned nsegs;
    char *exe;                  /* the program's path, for its "#map" */
    const char *alloc_fns;      /* MTRACE_ALLOC_FN, with stacks */
    struct mtrace_sym *syms;    /* names of code addresses, for a report */
    unsigned nsyms;
    char *names, *names_end;    /* free space for the sites' names */
    unsigned nsorted;           /* length of mtrace_sorted_sites' result */
    size_t double_frees, invalid_frees;
    char *path;                 /* MTRACE_PATHMAX bytes, and buf (level 1): mapped at
                                   start (not in the state: the one-line use would
                                   keep a copy of the state's space per file) */
    volatile size_t len, flushed;   /* committed bytes in buf, written bytes */
    size_t bufsize;             /* bytes mapped at buf */
    char *buf;
};

MTRACE_API __thread struct mtrace_pending mtrace_pending __attribute__((tls_model("initial-exec")));
MTRACE_API volatile struct mtrace_pmtrace pmtrace = { 0, 0, 0, 0, 0, 0, 0, 0, "", -1 };
MTRACE_SHARED struct mtrace_state mtrace_state_;    /* zero: no data in the file */
#define mt mtrace_state_

/* pmtrace is volatile for the program's sake (see mtrace.h): the tracer
   keeps its own copy of the figures and stores them there. */
static void mtrace_publish(void)
{
    pmtrace.total = mt.total;
    pmtrace.max = mt.max;
    pmtrace.nr = mt.nr;
    pmtrace.maxrss = mt.maxrss;
    pmtrace.overhead = mt.overhead;
    pmtrace.maxoverhead = mt.maxoverhead;
    pmtrace.startrss = mt.startrss;
    pmtrace.fd = mt.fd;
}

/* Sites of calls whose caller announced nothing: through a pointer taken
   to malloc in traced code, or from code compiled without mtrace. */
static struct mtrace_site mtrace_unknown_site = { "?", "<unknown>", 0, 0, 0 };
static struct mtrace_site mtrace_untraced_site = { "?", "<code-without-mtrace>", 0, 0, 0 };

/* Is this thread the one in fork() (it holds the lock: see fork)?  Read
   by the others while they wait, written by the forking thread. */
static MTRACE_HOT int mtrace_forking_here(void)
{
    return __atomic_load_n(&mt.forking, __ATOMIC_RELAXED) == &mtrace_pending;
}

/* The lock: a spinlock that yields early (with more threads than cores,
   spinning on a lock whose holder is not running wastes the core it
   needs), and no atomic operation at all while the process has one
   thread (glibc clears __libc_single_threaded for good in the first
   pthread_create, outside any critical section). */
static MTRACE_HOT void mtrace_lock(void)
{
    int spins = 0;
    if (mtrace_single_threaded)
        return;
    while (__atomic_exchange_n(&mt.lock, 1, __ATOMIC_ACQUIRE)) {
        if (mtrace_forking_here())
            return;             /* another atfork handler allocating: see fork */
        do {
            if (++spins % 2 == 0)
                mtrace_sched_yield();
            else
                MTRACE_PAUSE();
        } while (__atomic_load_n(&mt.lock, __ATOMIC_RELAXED));
    }
}

static MTRACE_HOT void mtrace_unlock(void)
{
    if (!mtrace_single_threaded && !mtrace_forking_here())
        __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_pending.busy = 0;
}

/* The tracer's own memory comes from mmap: never from the allocator it
   watches, so it cannot recurse or disturb the program's heap. */
static void *mtrace_pages(size_t bytes)
{
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    pmtrace.overhead = mt.overhead += bytes;
    return p;
}

static void mtrace_unpages(void *p, size_t bytes)
{
    if (p) {
        munmap(p, bytes);
        pmtrace.overhead = mt.overhead -= bytes;
    }
}

/* ---- output helpers (async-signal-safe) ---- */

static void mtrace_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        long w = mtrace_write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void mtrace_say(const char *s)
{
    mtrace_write_all(2, s, strlen(s));
}

/* Decimal digits, two at a time from the right: the trace is mostly
   numbers, and this is where level 1 spends its time.  The length comes
   from comparisons; the digits from 32-bit divisions when they fit. */
static char *mtrace_put_u(char *o, size_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    static const uint64_t tens[] = { 1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
        1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
        100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
        1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
        1000000000000000000ULL, 10000000000000000000ULL };
    unsigned n = 1, r;
    uint32_t w;
    char *end;
    if (v) {        /* log10 from log2: 1233/4096 ~ log10(2), then one compare */
        unsigned t = (unsigned)(64 - __builtin_clzll((unsigned long long)v)) * 1233 >> 12;
        n = t + ((uint64_t)v >= tens[t]);
    }
    end = o + n;
    o = end;
    while ((uint64_t)v > 0xffffffffULL) {
        r = (unsigned)(v % 100);
        v /= 100;
        o -= 2;
        o[0] = pairs[2 * r];
        o[1] = pairs[2 * r + 1];
    }
    for (w = (uint32_t)v; w >= 100; w /= 100) {
        r = w % 100;
        o -= 2;
        o[0] = pairs[2 * r];
        o[1] = pairs[2 * r + 1];
    }
    if (w >= 10) {
        o[-2] = pairs[2 * w];
        o[-1] = pairs[2 * w + 1];
    } else
        o[-1] = (char)('0' + w);
    return end;
}

/* RECNO goes up by one per record and MAXRSS seldom changes: both are kept
   as text, the first counted up in place, the second redone on change. */
static void mtrace_next_recno(void)
{
    char *d = mt.recno_text + mt.recno_len;
    for (;;) {
        if (d == mt.recno_text) {           /* all nines: one digit more */
            memmove(mt.recno_text + 1, mt.recno_text, mt.recno_len);
            mt.recno_text[0] = '1';
            mt.recno_len++;
            return;
        }
        if (*--d != '9') {
            (*d)++;
            return;
        }
        *d = '0';
    }
}

static void mtrace_set_rss(size_t rss)
{
    pmtrace.maxrss = mt.maxrss = rss;
    mt.rss_len = (unsigned)(mtrace_put_u(mt.rss_text, rss) - mt.rss_text);
}

/* ---- the trace file ---- */

static int mtrace_fd_ok(void);
static void mtrace_warn(const char *what, const char *path, const char *why);
static void mtrace_open_trace(void);

/* Around the tracer's I/O, which may run with its lock held: no
   cancellation (write and open are cancellation points, and a thread
   cancelled there would die holding the lock), and no SIGPIPE (a FIFO
   whose reader went away must not kill the program: the write fails with
   EPIPE, and a SIGPIPE that this write raised is taken back). */
struct mtrace_io { int cancel; sigset_t mask; int pipe_was_pending; };

static void mtrace_io_begin(struct mtrace_io *io)
{
    sigset_t pipe, pending;
    mtrace_setcancelstate(1 /* PTHREAD_CANCEL_DISABLE */, &io->cancel);
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    mtrace_sigmask(SIG_BLOCK, &pipe, &io->mask);
    io->pipe_was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

static void mtrace_io_end(struct mtrace_io *io, int broke_pipe)
{
    static const struct timespec now = { 0, 0 };
    sigset_t pipe;
    int ignored;
    if (broke_pipe && !io->pipe_was_pending) {
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        sigtimedwait(&pipe, 0, &now);
    }
    mtrace_sigmask(SIG_SETMASK, &io->mask, 0);
    mtrace_setcancelstate(io->cancel, &ignored);
}

/* Milliseconds of a coarse monotonic clock (read from the vDSO, a few
   nanoseconds; async-signal-safe). */
static long mtrace_now_ms(void)
{
    struct timespec t;
    if (mtrace_clock_gettime(6 /* CLOCK_MONOTONIC_COARSE */, &t) != 0)
        return 0;
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Writes the committed part of the buffer.  A signal handler may run this
   between two records of the interrupted thread: `len` only ever covers
   complete records, and `flushed` says what is already out. */
static void mtrace_flush(void)
{
    struct mtrace_io io;
    int fd = mt.fd, broke_pipe = 0;
    if (fd < 0 || mt.flushed >= mt.len) {
        mt.len = mt.flushed = 0;
        return;
    }
    mtrace_io_begin(&io);
    fd = mtrace_fd_ok() ? mt.fd : -1;
    while (fd >= 0 && mt.flushed < mt.len) {
        size_t from = mt.flushed;
        long w = mtrace_write(fd, mt.buf + from, mt.len - from);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            broke_pipe = w < 0 && errno == EPIPE;
            mtrace_warn("cannot write the trace file ", mt.path,
                        broke_pipe ? "its reader went away" : strerror(w < 0 ? errno : ENOSPC));
            pmtrace.fd = mt.fd = -1;
            mtrace_close(fd);
            break;
        }
        mt.flushed = from + (size_t)w;
    }
    mtrace_io_end(&io, broke_pipe);
    mt.len = 0;
    mt.flushed = 0;
    mt.flush_ms = mtrace_now_ms();
}

/* A buffer that filled before the clock flushed it belongs to a program
   that writes fast: each write(2) costs about 10 us on ext4 beyond the
   copying (churn at level 1: 0.19 s of system time with 32 KiB writes,
   0.08 s with 512 KiB), so it doubles, empty, up to MTRACE_BUFMAX.  A
   program that writes little keeps the small one.  A signal handler that
   flushes sees either buffer, both mapped, and len 0. */
static void mtrace_grow_buf(void)
{
    char *old = mt.buf, *buf;
    if (mt.bufsize >= MTRACE_BUFMAX || mt.len || !(buf = (char *)mtrace_pages(2 * mt.bufsize)))
        return;
    mt.buf = buf;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_unpages(old, mt.bufsize);
    mt.bufsize *= 2;
}

static MTRACE_HOT void mtrace_commit(char *end)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mt.len = (size_t)(end - mt.buf);
    if (mt.len > mt.bufsize / 2) {
        mtrace_flush();
        mtrace_grow_buf();
    }
}

/* FUNC and FILE must stay one token: blanks, control characters and '%'
   become %XX. */
static char *mtrace_put_name(char *o, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c == '%' || c == 0x7f) {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else
            *o++ = (char)c;
    }
    return o;
}

/* "@ ID FUNC FILE LINE": written just before the first record using ID. */
static void mtrace_put_site(struct mtrace_sitestat *s)
{
    char *o;
    if (mt.fd < 0) {            /* the first record: a process that writes */
        mtrace_open_trace();    /* none creates no file */
        if (!mt.tracing)
            return;
    }
    o = mt.buf + mt.len;
    s->id = ++mt.nids;
    *o++ = '@';
    *o++ = ' ';
    o = mtrace_put_u(o, s->id);
    *o++ = ' ';
    o = mtrace_put_name(o, s->func);
    *o++ = ' ';
    o = mtrace_put_name(o, s->file);
    *o++ = ' ';
    o = mtrace_put_u(o, (size_t)(s->line < 0 ? 0 : s->line));
    *o++ = '\n';
    if (s->pool) {              /* no malloc slop for mtrace2massif */
        memcpy(o, "#pool ", 6);
        o = mtrace_put_u(o + 6, s->id);
        *o++ = '\n';
    }
    mtrace_commit(o);
}

static size_t mtrace_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024;
}

static void mtrace_put_stack(struct mtrace_sitestat *s);

/* "OP ID RECNO TOTAL SITE MAXRSS", and " SID" with stacks (st: the stack,
   or s when it has none), for the operation just accounted. */
static MTRACE_HOT void mtrace_put_op(int op, struct mtrace_sitestat *s, struct mtrace_sitestat *st, size_t size)
{
    char *o, *t;
    if ((mt.nr & (MTRACE_RSS_EVERY - 1)) == 0 || size >= MTRACE_RSS_BIG) {
        size_t rss = mtrace_rss();
        if (rss > mt.maxrss)
            mtrace_set_rss(rss);
    }
    if (mt.tracing && (s->id || (mtrace_put_site(s), mt.tracing))
        && (st->id || st == s || (mtrace_put_stack(st), 1))) {
        o = mt.buf + mt.len;
        *o++ = (char)op;
        *o++ = ' ';
        o = mtrace_put_u(o, s->id);
        *o++ = ' ';
        memcpy(o, mt.recno_text, sizeof mt.recno_text);     /* fixed size: */
        o += mt.recno_len;                                  /* no call */
        *o++ = ' ';
        t = o;
        o = mtrace_put_u(o, mt.total);
        *o++ = ' ';
        if (s->live == mt.total) {  /* one site holds it all (a wrapper: Lua's l_alloc) */
            memmove(o, t, (size_t)(o - 1 - t));
            o += o - 1 - t;
        } else
            o = mtrace_put_u(o, s->live);
        *o++ = ' ';
        memcpy(o, mt.rss_text, sizeof mt.rss_text);
        o += mt.rss_len;
        if (mt.depth) {
            *o++ = ' ';
            o = mtrace_put_u(o, st == s ? 0 : st->id);
        }
        *o++ = '\n';
        mtrace_commit(o);
        mtrace_next_recno();
        if (mt.len && mtrace_now_ms() - mt.flush_ms >= MTRACE_FLUSH_MS)
            mtrace_flush();
    }
    pmtrace.nr = ++mt.nr;
}

/* ---- sites ---- */

static unsigned long mtrace_hash_str(unsigned long h, const char *s)
{
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3UL;
    return h;
}

static unsigned long mtrace_site_hash(const char *func, const char *file, int line, int pool)
{
    unsigned long h = 0xcbf29ce484222325UL ^ (unsigned long)line ^ (unsigned long)pool * 0x9E3779B9UL;
    return mtrace_hash_str(mtrace_hash_str(h, func), file);
}

static int mtrace_grow_sites(void)
{
    unsigned i, n = mt.maxsites ? mt.maxsites * 2 : 128;
    unsigned nhash = n * 2, mask = nhash - 1;
    struct mtrace_sitestat *sites = (struct mtrace_sitestat *)mtrace_pages(n * sizeof *sites);
    unsigned *hash = (unsigned *)mtrace_pages(nhash * sizeof *hash);
    if (!sites || !hash) {
        mtrace_unpages(sites, n * sizeof *sites);
        mtrace_unpages(hash, nhash * sizeof *hash);
        return 0;
    }
    if (mt.nsites)
        memcpy(sites, mt.sites, mt.nsites * sizeof *sites);
    for (i = 1; i < mt.nsites; i++) {
        unsigned long h = mtrace_site_hash(sites[i].func, sites[i].file, sites[i].line, sites[i].pool);
        if (sites[i].parent)
            continue;           /* a stack, found through mt.stackhash */
        while (hash[h & mask])
            h++;
        hash[h & mask] = i;
    }
    mtrace_unpages(mt.sites, mt.maxsites * sizeof *mt.sites);
    mtrace_unpages(mt.sitehash, mt.nsitehash * sizeof *mt.sitehash);
    mt.sites = sites;
    mt.sitehash = hash;
    mt.maxsites = n;
    mt.nsitehash = nhash;
    if (!mt.nsites)
        mt.nsites = 1;
    return 1;
}

/* A copy of a site's name in the tracer's own pages: the descriptor's
   strings belong to the object that holds the call, and a plugin closed
   with dlclose takes them away before the report.  NULL if out of memory. */
static const char *mtrace_keep_name(const char *s)
{
    enum { CHUNK = 1 << 16 };
    size_t n = strnlen(s, MTRACE_NAMEMAX) + 1;
    char *copy;
    if (!mt.names || (size_t)(mt.names_end - mt.names) < n) {
        if (!(mt.names = (char *)mtrace_pages(CHUNK)))
            return 0;
        mt.names_end = mt.names + CHUNK;
    }
    copy = mt.names;
    memcpy(copy, s, n - 1);
    copy[n - 1] = 0;
    mt.names += n;
    return copy;
}

/* The index of a call site, given on its first call.  Descriptors of the
   same function, file and line (a static inline function in a header, seen
   from several files) share one index.  0 if the table cannot grow. */
static unsigned mtrace_site_register(struct mtrace_site *d, int pool)
{
    unsigned long h;
    unsigned i, mask;
    if (mt.nsites >= MTRACE_MAXSITES || (mt.nsites + 1 >= mt.maxsites && !mtrace_grow_sites()))
        return 0;
    mask = mt.nsitehash - 1;
    for (h = mtrace_site_hash(d->func, d->file, d->line, pool); (i = mt.sitehash[h & mask]); h++) {
        struct mtrace_sitestat *s = &mt.sites[i];
        if (s->line == d->line && s->pool == pool && !strcmp(s->func, d->func) && !strcmp(s->file, d->file))
            return pool ? i : (d->index = i);
    }
    i = mt.nsites;
    memset(&mt.sites[i], 0, sizeof mt.sites[i]);
    mt.sites[i].func = mtrace_keep_name(d->func);
    mt.sites[i].file = mtrace_keep_name(d->file);
    if (!mt.sites[i].func || !mt.sites[i].file)
        return 0;
    mt.sites[i].line = d->line;
    mt.sites[i].pool = pool;
    mt.sitehash[h & mask] = i;
    mt.nsites++;
    return pool ? i : (d->index = i);
}

static MTRACE_HOT unsigned mtrace_site_index(struct mtrace_site *d)
{
    return d->index ? d->index : mtrace_site_register(d, 0);
}

/* The site of a pool block (MTRACE_MALLOCLIKE) at d: a site of its own,
   apart from d's heap blocks (the trace marks it "#pool"), found by a
   table lookup each time (d->index caches the heap site). */
static unsigned mtrace_pool_index(struct mtrace_site *d)
{
    return mtrace_site_register(d, 1);
}

/* ---- call stacks (MTRACE_DEPTH) ----

   The callers of a traced call are found by following frame pointers,
   which costs a load per frame.  A frame pointer is only a register
   convention: code built without it leaves anything there.  So a frame is
   followed only inside segments known to hold traced code compiled with
   frame pointers (a site whose file says so marks its segment); the first
   return address outside them is kept, truthfully, and the walk stops. */

static int mtrace_lock_ready(void);
static int mtrace_on_stack(const void *p);

/* The segment holding code address a among the first n, newest first (a
   module loaded where an unloaded one was replaces it): -1 if none. */
static int mtrace_seg_in(uintptr_t a, unsigned n)
{
    while (n--)
        if (a >= mt.segs[n].lo && a < mt.segs[n].hi)
            return (int)n;
    return -1;
}

/* What the loader says of the module holding an address: its bias, its
   name, and its executable segments. */
struct mtrace_seg_query {
    uintptr_t addr, bias;
    const char *path;
    unsigned n;
    uintptr_t lo[4], hi[4];
};

/* dl_iterate_phdr's callback: is q->addr in this module (any PT_LOAD)? */
static int mtrace_seg_match(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct mtrace_seg_query *q = (struct mtrace_seg_query *)arg;
    int i, in = 0;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz)
            in = 1;
    }
    for (i = 0; in && i < info->dlpi_phnum && q->n < 4; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            q->lo[q->n] = info->dlpi_addr + ph->p_vaddr;
            q->hi[q->n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    q->bias = info->dlpi_addr;
    q->path = info->dlpi_name;
    return in;
}

/* The program's own path (the loader names it ""), asked once. */
static const char *mtrace_exe_path(void)
{
    char link[MTRACE_PATHMAX];
    long n;
    if (!mt.exe) {
        n = readlink("/proc/self/exe", link, sizeof link - 1);
        link[n > 0 ? n : 0] = 0;
        mt.exe = (char *)mtrace_keep_name(n > 0 ? link : "?");
    }
    return mt.exe;
}

/* Adds the executable segments of q's module that are new (lock held). */
static void mtrace_seg_add(const struct mtrace_seg_query *q, int traced)
{
    const char *path = 0;
    unsigned k, n = mt.nsegs;
    int i;
    for (k = 0; k < q->n; k++) {
        if ((i = mtrace_seg_in(q->lo[k], n)) >= 0 && mt.segs[i].lo == q->lo[k] && mt.segs[i].bias == q->bias) {
            if (traced)
                __atomic_store_n(&mt.segs[i].traced, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (!path)              /* copied once, for a segment that is new */
            path = q->path && *q->path ? mtrace_keep_name(q->path) : mtrace_exe_path();
        if (n >= MTRACE_MAXSEGS || !path)
            break;
        memset(&mt.segs[n], 0, sizeof mt.segs[n]);
        mt.segs[n].lo = q->lo[k];
        mt.segs[n].hi = q->hi[k];
        mt.segs[n].bias = q->bias;
        mt.segs[n].path = path;
        mt.segs[n].traced = traced;
        n++;
    }
    __atomic_store_n(&mt.nsegs, n, __ATOMIC_RELEASE);
}

/* Asks the loader for the module holding address a and adds its
   segments; `traced`: they hold traced code.  The loader's lock is
   taken outside ours (a thread in dlopen holds it while it allocates). */
static void mtrace_seg_learn(uintptr_t a, int traced)
{
    struct mtrace_seg_query q;
    memset(&q, 0, sizeof q);
    q.addr = a;
    if (!dl_iterate_phdr(mtrace_seg_match, &q) || !mtrace_lock_ready())
        return;
    if (mt.segs)
        mtrace_seg_add(&q, traced);
    mtrace_unlock();
}

/* The segment of code address a, asking the loader when it is new: -1 if
   a is in no module, or the table is full. */
static int mtrace_seg_of(uintptr_t a)
{
    int i = mtrace_seg_in(a, __atomic_load_n(&mt.nsegs, __ATOMIC_ACQUIRE));
    if (i >= 0)
        return i;
    mtrace_seg_learn(a, 0);
    return mtrace_seg_in(a, __atomic_load_n(&mt.nsegs, __ATOMIC_ACQUIRE));
}

/* Site d's file keeps frame pointers: so does its module's code (mtrace-cc
   builds all of it alike).  Its descriptor lies in the module's data. */
static void mtrace_mark_traced(struct mtrace_site *d)
{
    if (__atomic_load_n(&d->frames, __ATOMIC_RELAXED) == 1) {
        mtrace_seg_learn((uintptr_t)d, 1);
        __atomic_store_n(&d->frames, 2, __ATOMIC_RELAXED);
    }
}

static int mtrace_seg_traced(int i)
{
    return i >= 0 && __atomic_load_n(&mt.segs[i].traced, __ATOMIC_RELAXED);
}

/* The callers of the traced call made at site d by the function whose
   frame is `frame` (saved by the call's macro, so that a call in tail
   position, made after that function's frame was popped, still finds
   its caller there): at most MTRACE_DEPTH - 1 return addresses into c.
   The first is always true (the builtin gave that function a frame);
   the next ones only while they lie in traced code.  `below`: the frame
   of the entry point, whose prologue pushed the frame pointer first,
   which in a tail call rewrote the saved word at `frame` with the same
   value.  Each frame lies on this thread's stack, above the last one; a
   return address in the last traced segment needs no lookup. */
static void mtrace_walk(struct mtrace_chain *c, const uintptr_t *frame, struct mtrace_site *d, const void *below)
{
    const uintptr_t *fp = frame;
    unsigned max = (unsigned)mt.depth - 1;
    uintptr_t lo, hi, seglo = 0, seghi = 0, r;
    c->n = 0;
    if (!fp)
        return;
    mtrace_mark_traced(d);
    if (!mtrace_on_stack(fp))           /* also learns the bounds */
        return;
    lo = mtrace_pending.stack_lo;
    hi = mtrace_pending.stack_hi;
    while (c->n < max) {
        uintptr_t a = (uintptr_t)fp;
        if (a < (uintptr_t)below || (a & 7) || a < lo || a + 8 >= hi || !(r = fp[1]))
            break;
        c->ret[c->n++] = r;
        if (r - seglo >= seghi - seglo) {   /* not in the last traced segment */
            int i = mtrace_seg_of(r);
            if (!mtrace_seg_traced(i))
                break;
            seglo = mt.segs[i].lo;
            seghi = mt.segs[i].hi;
        }
        below = fp + 1;
        fp = (const uintptr_t *)fp[0];
    }
}

static unsigned long mtrace_stack_hash(unsigned site, const struct mtrace_chain *c)
{
    unsigned long h = 0xcbf29ce484222325UL ^ site;
    unsigned i;
    for (i = 0; i < c->n; i++)
        h = (h ^ c->ret[i]) * 0x100000001b3UL;
    return h ^ h >> 29;
}

static int mtrace_same_stack(const struct mtrace_sitestat *s, unsigned site, const struct mtrace_chain *c)
{
    return s->parent == site && s->nframes == c->n && !memcmp(s->frames, c->ret, c->n * sizeof *c->ret);
}

/* Room for n return addresses in the tracer's pages: 0 if none. */
static uintptr_t *mtrace_keep_frames(unsigned n)
{
    enum { CHUNK = 1 << 16 };
    uintptr_t *copy;
    if (!mt.framespace || (size_t)(mt.framespace_end - mt.framespace) < n) {
        if (!(mt.framespace = (uintptr_t *)mtrace_pages(CHUNK)))
            return 0;
        mt.framespace_end = mt.framespace + CHUNK / sizeof *mt.framespace;
    }
    copy = mt.framespace;
    mt.framespace += n;
    return copy;
}

static int mtrace_grow_stacks(void)
{
    unsigned i, n = mt.nstackhash ? mt.nstackhash * 2 : 1024, mask = n - 1;
    unsigned *hash = (unsigned *)mtrace_pages(n * sizeof *hash);
    if (!hash)
        return 0;
    for (i = 0; i < mt.nstackhash; i++) {
        unsigned j = mt.stackhash[i];
        if (j) {
            struct mtrace_chain c;
            unsigned long h;
            c.n = mt.sites[j].nframes;
            memcpy(c.ret, mt.sites[j].frames, c.n * sizeof *c.ret);
            for (h = mtrace_stack_hash(mt.sites[j].parent, &c); hash[h & mask]; h++)
                ;
            hash[h & mask] = j;
        }
    }
    mtrace_unpages(mt.stackhash, mt.nstackhash * sizeof *mt.stackhash);
    mt.stackhash = hash;
    mt.nstackhash = n;
    return 1;
}

/* The stack entry of site `site` called through chain c, found by its hash
   (lock held): made on its first use; the site itself if the tables cannot
   grow. */
static unsigned mtrace_stack_find(unsigned site, const struct mtrace_chain *c)
{
    unsigned long h;
    unsigned i, mask;
    uintptr_t *frames;
    if (!site || mt.nsites >= MTRACE_MAXSITES || (mt.nsites + 1 >= mt.maxsites && !mtrace_grow_sites())
        || ((mt.nstacks + 1) * 4 >= mt.nstackhash * 3 && !mtrace_grow_stacks()))
        return site;
    mask = mt.nstackhash - 1;
    for (h = mtrace_stack_hash(site, c); (i = mt.stackhash[h & mask]); h++)
        if (mtrace_same_stack(&mt.sites[i], site, c))
            return i;
    if (!(frames = mtrace_keep_frames(c->n ? c->n : 1)))
        return site;
    memcpy(frames, c->ret, c->n * sizeof *c->ret);
    i = mt.nsites++;
    mt.sites[i] = mt.sites[site];
    mt.sites[i].id = 0;
    mt.sites[i].live = mt.sites[i].peak = mt.sites[i].allocs = mt.sites[i].nlive = 0;
    mt.sites[i].reach = mt.sites[i].reach_blocks = mt.sites[i].at_peak = mt.sites[i].seen = 0;
    mt.sites[i].parent = site;
    mt.sites[i].nframes = c->n;
    mt.sites[i].frames = frames;
    mt.sites[i].last = 0;
    mt.stackhash[h & mask] = i;
    mt.nstacks++;
    return i;
}

/* The stack entry of site `site` called through chain c (lock held), the
   one it used last first: no hash to compute when it comes again. */
static MTRACE_HOT unsigned mtrace_stack_index(unsigned site, const struct mtrace_chain *c)
{
    unsigned last = mt.sites[site].last;
    if (last && mtrace_same_stack(&mt.sites[last], site, c))
        return last;
    last = mtrace_stack_find(site, c);  /* may move mt.sites: stored after */
    mt.sites[site].last = last;
    return last;
}

/* The entry a traced call is counted under (lock held): its site, or with
   stacks, its site's entry for the chain c. */
static MTRACE_HOT unsigned mtrace_where(struct mtrace_site *d, const struct mtrace_chain *c)
{
    unsigned site = mtrace_site_index(d);
    return mt.depth && site ? mtrace_stack_index(site, c) : site;
}

/* "#map LO HI BIAS PATH" for each segment of s's frames not yet written. */
static void mtrace_put_maps(const struct mtrace_sitestat *s)
{
    unsigned i;
    char *o;
    int seg;
    for (i = 0; i < s->nframes; i++) {
        if ((seg = mtrace_seg_in(s->frames[i], mt.nsegs)) < 0 || mt.segs[seg].written)
            continue;
        mt.segs[seg].written = 1;
        o = mt.buf + mt.len;
        o += snprintf(o, 80, "#map 0x%lx 0x%lx 0x%lx ", (unsigned long)mt.segs[seg].lo,
                      (unsigned long)mt.segs[seg].hi, (unsigned long)mt.segs[seg].bias);
        o = mtrace_put_name(o, mt.segs[seg].path);
        *o++ = '\n';
        mtrace_commit(o);
    }
}

/* "#stack SID ID ADDR...": written just before the first record using it. */
static void mtrace_put_stack(struct mtrace_sitestat *s)
{
    char *o;
    unsigned i;
    mtrace_put_maps(s);
    o = mt.buf + mt.len;
    s->id = ++mt.nsids;
    o += snprintf(o, 64, "#stack %u %u", s->id, mt.sites[s->parent].id);
    for (i = 0; i < s->nframes; i++)
        o += snprintf(o, 24, " 0x%lx", (unsigned long)s->frames[i]);
    *o++ = '\n';
    mtrace_commit(o);
}

/* MTRACE_DEPTH=N at start: frames per stack, 0 for none; a value that is
   not a number of frames gets one warning and no stacks. */
static void mtrace_read_depth(void)
{
    const char *v = mtrace_getenv("MTRACE_DEPTH");
    char *end, msg[256];
    long n;
    if (!v || !*v)
        return;
    errno = 0;
    n = strtol(v, &end, 10);
    if (*end || errno || n < 0) {
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_DEPTH=%.100s is not a number of frames: no call stacks\n", v);
        mtrace_say(msg);
        return;
    }
    if (n > MTRACE_MAXDEPTH) {
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_DEPTH=%ld: call stacks of %d frames at most\n", n, MTRACE_MAXDEPTH);
        mtrace_say(msg);
        n = MTRACE_MAXDEPTH;
    }
    if (n == 0 || !(mt.segs = (struct mtrace_seg *)mtrace_pages(MTRACE_MAXSEGS * sizeof *mt.segs)))
        return;
    mt.depth = (int)n;
    if ((v = mtrace_getenv("MTRACE_ALLOC_FN")) && *v)
        mt.alloc_fns = mtrace_keep_name(v);     /* the environment may change */
}

/* ---- blocks ----

   Blocks that the C library hands out together lie together in memory,
   and their entries lie together too: a directory keyed by the 64 KiB
   range of the address (open addressing, at most half full) gives the
   range's bucket, an open-addressing table of that range's entries
   (linear probing, at most 3/4 full, grown by 1.5 or 4/3 as allocators'
   size classes do).  An operation reads one directory entry and one or
   two lines of the bucket, which the program's recent operations in
   that range already brought in; a single table keyed by the address
   scattered neighbours over all of its memory, and with millions of
   live blocks every operation missed the cache.  Ranges, not 4 KiB
   pages: the directory is 16 times smaller (a few KiB for a heap of a
   few MB), so it stays in the L1 cache where operations jump between
   pages at random, and the bucket is the only line that misses.
   Buckets are cut from mapped chunks; a bucket that grows goes back to
   a list of its size, for the next range that needs one. */

static MTRACE_HOT unsigned mtrace_b_site(const struct mtrace_block *b)
{
    return (unsigned)(b->word & MTRACE_MAXSITES);
}

static MTRACE_HOT size_t mtrace_b_size(const struct mtrace_block *b)      /* live ones */
{
    return (size_t)(b->word >> (MTRACE_SITE_BITS + 1));
}

static MTRACE_HOT unsigned mtrace_b_freed_by(const struct mtrace_block *b) /* tombstones */
{
    return (unsigned)(b->word >> (MTRACE_SITE_BITS + 1));
}

static MTRACE_HOT int mtrace_freed(const struct mtrace_block *b)
{
    return (b->word & MTRACE_FREED) != 0;
}

static MTRACE_HOT int mtrace_live(const struct mtrace_block *b)
{
    return b->addr && !mtrace_freed(b);
}

/* What mtrace_find gives for an address whose range has no bucket: an
   empty entry, only ever read. */
static struct mtrace_block mtrace_no_block;

/* The directory key: range number, entries in the bucket (live and
   tombstones: at most 65536 distinct addresses in a range, a pool of
   1-byte blocks), whether homes are hashed (mtrace_home), size class.
   User-space addresses are below 2^57, so the range number fits in 41
   bits. */
#define MTRACE_KEY_RANGE 23
#define MTRACE_KEY_USED 6
#define MTRACE_KEY_HASHED 32u
#define MTRACE_KEY_CLASS 31u

/* Bucket sizes: 2, 3, 4, 6, 8, 12, 16, ... 98304 entries (65536 at 3/4),
   each a half or a third larger than the last, computed (no table on the
   hot path). */
static MTRACE_HOT size_t mtrace_cap(unsigned class)
{
    return (size_t)(2 + (class & 1)) << (class >> 1);
}

static MTRACE_HOT uint64_t mtrace_range_no(uintptr_t addr)
{
    return (uint64_t)addr >> MTRACE_RANGE_BITS;
}

static MTRACE_HOT size_t mtrace_p_used(const struct mtrace_range *p)
{
    return (size_t)(p->key >> MTRACE_KEY_USED) & ((1u << (MTRACE_KEY_RANGE - MTRACE_KEY_USED)) - 1);
}

static MTRACE_HOT unsigned mtrace_p_class(const struct mtrace_range *p)
{
    return (unsigned)(p->key & MTRACE_KEY_CLASS);
}

/* The directory entry of addr's range, or the empty slot where it would go. */
static MTRACE_HOT struct mtrace_range *mtrace_range_find(struct mtrace_table *t, uintptr_t addr)
{
    uint64_t range = mtrace_range_no(addr);
    size_t mask = t->n - 1, i = (size_t)((range * 0x9E3779B97F4A7C15ULL) >> 24) & mask;
    while (t->dir[i].slots && t->dir[i].key >> MTRACE_KEY_RANGE != range)
        i = (i + 1) & mask;
    return &t->dir[i];
}

/* Where addr's entry starts looking in a bucket of `cap` slots with
   directory key `key`: in the order of the addresses, so that neighbours
   share a line, and blocks of one size, at least 4/3 slots apart, do not
   collide.  A range whose blocks crowd into part of it gets a larger
   bucket (mtrace_claim), or, once that bucket would be mostly empty (a
   pool of tiny blocks in a corner of the range), homes by a hash of the
   offset: probes stay short without a bucket 16 times too large. */
static MTRACE_HOT size_t mtrace_home(uint64_t key, uintptr_t addr, size_t cap)
{
    uint32_t off = (uint32_t)addr & ((1u << MTRACE_RANGE_BITS) - 1);
    uint32_t at = key & MTRACE_KEY_HASHED ? off * 0x9E3779B1u : off << (32 - MTRACE_RANGE_BITS);
    return (size_t)(((uint64_t)at * cap) >> 32);       /* a select, not a branch */
}

/* The entry for addr in its range's bucket, or the empty slot where it would go. */
static MTRACE_HOT struct mtrace_block *mtrace_in_bucket(const struct mtrace_range *p, uintptr_t addr)
{
    size_t cap = mtrace_cap(mtrace_p_class(p)), i = mtrace_home(p->key, addr, cap);
    struct mtrace_block *s = p->slots;
    while (s[i].addr && s[i].addr != addr)
        if (++i == cap)
            i = 0;
    return &s[i];
}

/* The entry for addr: live, a tombstone, or empty (addr 0; never write it). */
static MTRACE_HOT struct mtrace_block *mtrace_find(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p = mtrace_range_find(t, addr);
    return p->slots ? mtrace_in_bucket(p, addr) : &mtrace_no_block;
}

static void mtrace_bucket_free(struct mtrace_table *t, struct mtrace_block *b, unsigned class)
{
    b->addr = (uintptr_t)t->spare[class];
    t->spare[class] = b;
}

/* An empty bucket of a class: one given back, or cut from mapped space.
   Chunks are 1/16 of what is mapped so far (a page at first: a small
   program maps little, a large one makes few mappings); what is left
   of one when the next is needed becomes spare buckets. */
static struct mtrace_block *mtrace_bucket_new(struct mtrace_table *t, unsigned class)
{
    size_t bytes = mtrace_cap(class) * sizeof(struct mtrace_block);
    struct mtrace_block *b = t->spare[class];
    if (b) {
        t->spare[class] = (struct mtrace_block *)b->addr;
        memset(b, 0, bytes);
        return b;
    }
    if ((size_t)(t->cut_end - t->cut) < bytes) {
        size_t chunk = t->mapped / 16 > bytes ? t->mapped / 16 : bytes;
        char *c = (char *)mtrace_pages(chunk = (chunk + 4095) & ~(size_t)4095);
        unsigned k = MTRACE_CLASSES;
        if (!c)
            return 0;
        while (k--)
            while ((size_t)(t->cut_end - t->cut) >= mtrace_cap(k) * sizeof *b) {
                mtrace_bucket_free(t, (struct mtrace_block *)t->cut, k);
                t->cut += mtrace_cap(k) * sizeof *b;
            }
        t->cut = c;
        t->cut_end = c + chunk;
        t->mapped += chunk;
    }
    b = (struct mtrace_block *)t->cut;      /* fresh from mmap: zero */
    t->cut += bytes;
    return b;
}

/* Doubles the directory (256 slots at first). */
static int mtrace_grow_dir(struct mtrace_table *t)
{
    struct mtrace_range *old = t->dir;
    size_t i, n = t->n, cap = n ? n * 2 : 256;
    if (!(t->dir = (struct mtrace_range *)mtrace_pages(cap * sizeof *t->dir))) {
        t->dir = old;
        return 0;
    }
    t->n = cap;
    for (i = 0; i < n; i++)
        if (old[i].slots)
            *mtrace_range_find(t, (uintptr_t)(old[i].key >> MTRACE_KEY_RANGE << MTRACE_RANGE_BITS)) = old[i];
    mtrace_unpages(old, n * sizeof *old);
    return 1;
}

/* Makes room in a full or `crowded` bucket for one more entry: the next
   size up; or, when its tombstones outnumber its live blocks, the same
   size without the tombstones (the oldest double frees in that range then
   go unnoticed); or, crowded with MTRACE_SPARSE_AT slots or more and
   MTRACE_SPARSE of them an entry, a size for its entries with hashed
   homes (mtrace_home).  A bucket rid of its tombstones keeps its size:
   the range's next blocks spread over it as the last ones did (a parser
   frees a document and parses the next in the same memory).  Shrunk to
   its live blocks, it grew back a step at a time on every round: the
   JSON pipeline in one thread rebuilt buckets 13,270 times, moving 6.6 M
   entries (4 per call); now 1,582 times, 1.8 M entries. */
#define MTRACE_SPARSE 16
#define MTRACE_SPARSE_AT 4096   /* a range filling up from one end is not a corner */
static int mtrace_grow_bucket(struct mtrace_table *t, struct mtrace_range *p, int crowded)
{
    unsigned class = mtrace_p_class(p), to = 0, hashed = (unsigned)p->key & MTRACE_KEY_HASHED;
    size_t i, cap = mtrace_cap(class), live = 0, was = mtrace_p_used(p), used = 0;
    struct mtrace_block *old = p->slots, *b;
    int keep_freed;
    for (i = 0; i < cap; i++)
        live += old[i].addr && !mtrace_freed(&old[i]);
    keep_freed = was - live <= live;
    while (to < MTRACE_CLASSES - 1 && ((keep_freed ? was : live) + 1) * 4 > mtrace_cap(to) * 3)
        to++;
    if (crowded && !hashed && cap >= MTRACE_SPARSE_AT && (was + 1) * MTRACE_SPARSE <= cap) {
        hashed = MTRACE_KEY_HASHED;
        to = to + 2 < class ? to + 2 : class;   /* under half full: probes short */
    }
    else if (!keep_freed && to < class)
        to = class;
    else if (keep_freed && to <= class) {
        if (class == MTRACE_CLASSES - 1)
            return 1;           /* crowded, but as large as a bucket gets */
        to = class + 1;
    }
    if (!(b = mtrace_bucket_new(t, to)))
        return 0;
    p->slots = b;
    p->key = p->key >> MTRACE_KEY_RANGE << MTRACE_KEY_RANGE | hashed | to;
    for (i = 0; i < cap; i++)
        if (old[i].addr && (keep_freed || !mtrace_freed(&old[i]))) {
            *mtrace_in_bucket(p, old[i].addr) = old[i];
            used++;
        }
    p->key |= (uint64_t)used << MTRACE_KEY_USED;
    t->nfreed -= was - used;
    mtrace_bucket_free(t, old, class);
    return 1;
}

/* Slots from `from` forward to `to` in a bucket of `cap`, wrapping. */
static MTRACE_HOT size_t mtrace_dist(size_t from, size_t to, size_t cap)
{
    return to >= from ? to - from : to + cap - from;
}

/* A range's first block: its directory entry and a bucket of 2. */
static struct mtrace_range *mtrace_new_range(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p;
    struct mtrace_block *b;
    if ((t->nranges + 1) * 2 > t->n && !mtrace_grow_dir(t))
        return 0;
    if (!(b = mtrace_bucket_new(t, 0)))
        return 0;
    p = mtrace_range_find(t, addr);
    p->key = mtrace_range_no(addr) << MTRACE_KEY_RANGE;
    p->slots = b;
    t->nranges++;
    return p;
}

/* The entry for addr, or the empty slot where it goes, which the caller
   fills (room made, counted in its range); 0 if the tables cannot grow.
   A new entry more than MTRACE_CROWDED slots past its home (a range
   whose blocks crowd into part of it, a pool of tiny ones) grows its
   bucket: homes spread with the size, and probes stay short. */
#define MTRACE_CROWDED 8
static MTRACE_HOT struct mtrace_block *mtrace_claim(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p;
    struct mtrace_block *b;
    size_t cap;
    if (mtrace_range_no(addr) >> (64 - MTRACE_KEY_RANGE) || (!t->dir && !mtrace_grow_dir(t)))
        return 0;
    p = mtrace_range_find(t, addr);
    if (!p->slots && !(p = mtrace_new_range(t, addr)))
        return 0;
    b = mtrace_in_bucket(p, addr);
    if (b->addr)
        return b;
    cap = mtrace_cap(mtrace_p_class(p));
    if ((mtrace_p_used(p) + 1) * 4 > cap * 3
        || mtrace_dist(mtrace_home(p->key, addr, cap), (size_t)(b - p->slots), cap) > MTRACE_CROWDED) {
        if (!mtrace_grow_bucket(t, p, (mtrace_p_used(p) + 1) * 4 <= cap * 3))
            return 0;
        b = mtrace_in_bucket(p, addr);
    }
    p->key += (uint64_t)1 << MTRACE_KEY_USED;
    return b;
}

#ifdef MTRACE_INTERPOSE         /* only the interposers forget a block */
/* Removes an entry, shifting back the ones that probed past it.  Its
   range keeps its bucket, for the blocks the C library puts there next. */
static void mtrace_erase(struct mtrace_table *t, struct mtrace_block *b)
{
    struct mtrace_range *p = mtrace_range_find(t, b->addr);
    struct mtrace_block *s = p->slots;
    size_t cap = mtrace_cap(mtrace_p_class(p)), i = (size_t)(b - s), j = i;
    if (mtrace_freed(b))
        t->nfreed--;
    else
        t->nlive--;
    p->key -= (uint64_t)1 << MTRACE_KEY_USED;
    for (;;) {
        size_t home;
        if (++j == cap)
            j = 0;
        if (!s[j].addr)
            break;
        home = mtrace_home(p->key, s[j].addr, cap);
        if (mtrace_dist(home, j, cap) >= mtrace_dist(i, j, cap)) {
            s[i] = s[j];
            i = j;
        }
    }
    s[i].addr = 0;
    s[i].word = 0;
}
#endif

/* The entries one after the other, in no order: live blocks and
   tombstones; 0 at the end.  *range and *slot start at 0. */
static struct mtrace_block *mtrace_next_block(struct mtrace_table *t, size_t *range, size_t *slot)
{
    for (; *range < t->n; (*range)++, *slot = 0) {
        struct mtrace_range *p = &t->dir[*range];
        if (p->slots)
            while (*slot < mtrace_cap(mtrace_p_class(p)))
                if (p->slots[(*slot)++].addr)
                    return &p->slots[*slot - 1];
    }
    return 0;
}

/* Forgets every block (a forked child starts empty); the memory stays. */
static void mtrace_clear(struct mtrace_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        if (t->dir[i].slots)
            mtrace_bucket_free(t, t->dir[i].slots, mtrace_p_class(&t->dir[i]));
    if (t->dir)
        memset(t->dir, 0, t->n * sizeof *t->dir);
    t->nranges = t->nlive = t->nfreed = 0;
}

/* ---- accounting (lock held) ---- */

/* One operation on the figures of s (a site or a stack).  What s held at
   the global peak (for MTRACE_MAX_HEAP's report) is kept lazily: its
   first change after a peak saves its live bytes, unchanged since then. */
static MTRACE_HOT void mtrace_tally(struct mtrace_sitestat *s, int op, size_t size)
{
    if (s->seen != mt.peak_no) {
        s->at_peak = s->live;
        s->seen = mt.peak_no;
    }
    if (op == '+' || op == '>') {
        s->allocs++;
        s->nlive++;
        s->live += size;
        if (s->live > s->peak)
            s->peak = s->live;
    } else {
        s->live -= size;
        s->nlive--;
    }
}

/* The figures after one operation of entry `site` (a site, or a stack
   counted also through its site), and its record. */
static MTRACE_HOT void mtrace_count(int op, unsigned site, size_t size)
{
    struct mtrace_sitestat *st = &mt.sites[site];
    struct mtrace_sitestat *s = st->parent ? &mt.sites[st->parent] : st;
    mtrace_tally(s, op, size);
    if (st != s)
        mtrace_tally(st, op, size);
    if (op == '+' || op == '>') {
        mt.total += size;
        if (mt.total > mt.max) {
            pmtrace.max = mt.max = mt.total;
            pmtrace.maxoverhead = mt.maxoverhead = mt.overhead;
            mt.peak_recno = mt.nr;
            s->seen = st->seen = ++mt.peak_no;
            s->at_peak = s->live;
            st->at_peak = st->live;
        }
    } else
        mt.total -= size;
    pmtrace.total = mt.total;
    mtrace_put_op(op, s, st, size);
}

/* A block the program now owns.  An entry already live at that address
   was freed behind our back (by code we do not see): close it first. */
static MTRACE_HOT void mtrace_add(struct mtrace_table *t, void *p, size_t size, unsigned site, int op)
{
    struct mtrace_block *b;
    if (!site || (uint64_t)size >> (63 - MTRACE_SITE_BITS) || !(b = mtrace_claim(t, (uintptr_t)p))) {
        if (!mt.incomplete)
            mtrace_say("*** MTRACE: the tracer's tables cannot grow: from now on its figures are incomplete\n");
        mt.incomplete = 1;
        return;
    }
    if (!b->addr)
        t->nlive++;
    else if (mtrace_freed(b))
        t->nfreed--, t->nlive++;    /* the tombstone's address came back */
    else
        mtrace_count('-', mtrace_b_site(b), mtrace_b_size(b));
    b->addr = (uintptr_t)p;
    b->word = (uint64_t)size << (MTRACE_SITE_BITS + 1) | site;
    mtrace_count(op, site, size);
}

/* The block is going away: writes '-' or '<' and leaves a tombstone. */
static MTRACE_HOT void mtrace_drop(struct mtrace_table *t, struct mtrace_block *b, struct mtrace_site *by, int op)
{
    mtrace_count(op, mtrace_b_site(b), mtrace_b_size(b));
    b->word = (uint64_t)mtrace_site_index(by) << (MTRACE_SITE_BITS + 1) | MTRACE_FREED | mtrace_b_site(b);
    t->nlive--;
    t->nfreed++;
}

/* ---- start and end ---- */

static void mtrace_finish(void);
static void mtrace_put_gnuplot(void);
#ifdef MTRACE_INTERPOSE
MTRACE_LIBC(void *, mtrace_sym_malloc, (size_t), malloc);
MTRACE_LIBC(void, mtrace_sym_free, (void *), free);
#else
#define mtrace_sym_malloc mtrace_libc_malloc
#define mtrace_sym_free mtrace_libc_free
#endif

/* The first of the exit handlers' turns (on_exit runs them in reverse):
   keeps the status, and tells the destructors that this is exit(). */
static void mtrace_on_exit(int status, void *arg)
{
    (void)arg;
    mt.exit_status = status;
    mt.exiting = 1;
    if (mt.destructed && !mt.finish_queued) {
        mt.finish_queued = 1;
        mtrace_finish();
    }
}

/* The records still in the buffer, then the tail: 1 if the trace got it
   (a trace opened and still writable).  Lock held. */
static int mtrace_end_trace(void)
{
    if (mt.fd < 0)
        return 0;
    mtrace_flush();
    mtrace_put_gnuplot();
    mtrace_flush();
    return mt.fd >= 0;
}

/* Takes the lock for an exit that skips the usual path (a signal, _exit):
   1 if this thread has it, now or already (the signal interrupted the
   tracer here: only whole records are committed).  Another thread inside
   the tracer gets a second to leave (a thread preempted with the lock may
   wait its turn on a loaded machine); after that the trace is given up
   rather than written twice.  Async-signal-safe. */
static int mtrace_lock_to_leave(void)
{
    long deadline = mtrace_now_ms() + 1000;
    if (mtrace_pending.busy == 2 || mtrace_single_threaded)
        return 1;
    do {
        if (!__atomic_exchange_n(&mt.lock, 1, __ATOMIC_ACQUIRE))
            return 1;
        mtrace_sched_yield();
    } while (mtrace_now_ms() < deadline);
    return 0;
}

/* The trace out, whole, for a process about to end without mtrace_finish:
   the lock stays taken (other threads wait until the process is gone), so
   that no record is written twice or cut. */
static void mtrace_write_out(void)
{
    int ready = MTRACE_READY;
    /* DONE first: the other threads stop coming in, the one inside leaves */
    if (!__atomic_compare_exchange_n(&mt.state, &ready, MTRACE_DONE, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
        || !mtrace_lock_to_leave())
        return;
    mtrace_pending.busy = 2;
    mtrace_end_trace();
    mt.tracing = 0;
}

/* A signal whose default action ends the process: name the traced call
   it interrupted, if any (a crash in free() is the program's bug, seen
   there), get the records out, then die of the signal with its default
   action, so that the exit status and core dump are the program's. */
static void mtrace_on_signal(int sig)
{
    struct mtrace_site *at = mtrace_pending.call_site;
    struct sigaction dfl;
    if (mtrace_pending.call && (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGFPE || sig == SIGILL)) {
        char line[2 * MTRACE_NAMEMAX + 128];
        int n = snprintf(line, sizeof line, "%s:%d: note: the program died in %s() called here (in %s)\n",
                         at ? at->file : "<unknown>", at ? at->line : 0, mtrace_pending.call, at ? at->func : "?");
        mtrace_write_all(2, line, n < (int)sizeof line ? (size_t)n : sizeof line - 1);
    }
    mtrace_write_out();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, 0);
    raise(sig);
}

/* Every catchable signal whose default action ends the process, where the
   program left that default: the handler above saves the trace and
   re-raises.  Installed at every level (a crash is named at every level),
   so that sigaction shows the program the same thing whatever the level;
   a handler the program installs replaces ours. */
static void mtrace_catch_signals(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT,
                                SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2,
                                SIGALRM, SIGPROF, SIGVTALRM, SIGIO, SIGSYS, SIGTRAP,
#ifdef SIGSTKFLT
                                SIGSTKFLT,
#endif
#ifdef SIGPWR
                                SIGPWR,
#endif
                              };
    unsigned i;
    for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], 0, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = mtrace_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, 0);
    }
}

/* The MPI rank from the launcher's environment, -1 outside MPI. */
static long mtrace_mpi_rank(void)
{
    static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                  "MV2_COMM_WORLD_RANK", "SLURM_PROCID" };
    unsigned i;
    for (i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = mtrace_getenv(vars[i]);
        if (v && *v)
            return strtol(v, 0, 10);
    }
    return -1;
}

/* A bounded writer: every name the runtime builds goes through it, and
   what does not fit is noticed (`cut`), never written past the end. */
struct mtrace_out { char *o, *end; int cut; };

static void mtrace_out(struct mtrace_out *w, const char *s, size_t n)
{
    if ((size_t)(w->end - w->o) < n) {
        n = (size_t)(w->end - w->o);
        w->cut = 1;
    }
    memcpy(w->o, s, n);
    w->o += n;
}

static void mtrace_out_u(struct mtrace_out *w, size_t v)
{
    char digits[24];
    mtrace_out(w, digits, (size_t)(mtrace_put_u(digits, v) - digits));
}

/* A file name from a user's pattern, into dst (cap bytes): %p the pid and
   %q{VAR} the value of $VAR (as Massif's --massif-out-file), made absolute
   (the gnuplot lines must work from any directory), plus "-r" for MPI
   rank r > 0, plus ".PID" for a forked child whose name has no %p.  0 if
   it does not fit: never a cut name. */
static int mtrace_build_name(char *dst, size_t cap, const char *name)
{
    const char *v, *close;
    struct mtrace_out w;
    char var[256];
    int has_pid = 0;
    w.o = dst;
    w.end = dst + cap - 1;
    w.cut = 0;
    if (name[0] != '/') {
        if (!mtrace_getcwd(dst, cap - 1))
            w.cut = 1;
        else if ((w.o += strlen(dst)) > dst + 1)
            mtrace_out(&w, "/", 1);
    }
    for (; *name && !w.cut; name++) {
        if (name[0] == '%' && name[1] == 'p') {
            mtrace_out_u(&w, (size_t)mt.pid);
            has_pid = 1;
            name++;
        } else if (name[0] == '%' && name[1] == 'q' && name[2] == '{'
                   && (close = strchr(name, '}')) && close - name - 3 < (long)sizeof var) {
            memcpy(var, name + 3, (size_t)(close - name - 3));
            var[close - name - 3] = 0;
            if ((v = mtrace_getenv(var)))
                mtrace_out(&w, v, strlen(v));
            name = close;
        } else
            mtrace_out(&w, name, 1);
    }
    if (mt.rank > 0) {
        mtrace_out(&w, "-", 1);
        mtrace_out_u(&w, (size_t)mt.rank);
    }
    if (mt.child && !has_pid) {
        mtrace_out(&w, ".", 1);
        mtrace_out_u(&w, (size_t)mt.pid);
    }
    *w.o = 0;
    if (w.cut)
        *dst = 0;
    return !w.cut;
}

/* mt.path, from $MTRACE or "mtrace".  0, with a warning, for a name that
   does not fit or has a control character (the gnuplot tail could not
   name it on one line). */
static int mtrace_set_path(void)
{
    const char *name = mtrace_getenv("MTRACE"), *c;
    mt.nofollow = !name || !*name;
    if (!mtrace_build_name(mt.path, MTRACE_PATHMAX, mt.nofollow ? "mtrace" : name)) {
        mtrace_warn("the trace file's name", "", "longer than 4095 bytes");
        return 0;
    }
    for (c = mt.path; *c; c++)
        if ((unsigned char)*c < ' ' || *c == 0x7f) {
            mtrace_warn("the trace file's name has a control character: ", mt.path, "refused");
            return 0;
        }
    return 1;
}

/* One line on stderr, and the trace is given up: the summary goes on. */
static void mtrace_warn(const char *what, const char *path, const char *why)
{
    char shown[256];
    size_t n = strnlen(path, sizeof shown - 4);
    memcpy(shown, path, n);
    if (path[n])
        memcpy(shown + n, "...", 4);
    else
        shown[n] = 0;
    for (n = 0; shown[n]; n++)
        if ((unsigned char)shown[n] < ' ' || shown[n] == 0x7f)
            shown[n] = '?';
    mtrace_say("*** MTRACE: ");
    mtrace_say(what);
    mtrace_say(shown);
    mtrace_say(": ");
    mtrace_say(why);
    mtrace_say(": no trace, summary only\n");
    mt.trace_broken = 1;
    mt.tracing = 0;
    mt.len = mt.flushed = 0;
}

/* Moves the descriptor out of the program's way (a high number, close on
   exec) and remembers which file it is, so that a program that closes
   all its descriptors or dup2()s over ours is noticed before a write. */
static int mtrace_keep_fd(int fd)
{
    struct stat st;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        mtrace_close(fd);
        fd = high;
    }
    if (fstat(fd, &st) == 0) {
        mt.dev = st.st_dev;
        mt.ino = st.st_ino;
    }
    return fd;
}

/* May the trace go to this open file?  The default name only to a
   regular file of this user (another user's file or FIFO planted there
   gets nothing); a name the user gave to a regular file or a FIFO; and
   never to the program's own standard input, output or error
   (MTRACE=/dev/stdout would mix the trace into the program's output). */
static const char *mtrace_unfit(int fd)
{
    struct stat st, io;
    int i;
    if ((fd >= 0 ? fstat(fd, &st) : (mt.nofollow ? lstat : stat)(mt.path, &st)) != 0)
        return fd >= 0 || errno != ENOENT ? strerror(errno) : 0;    /* to be created */
    if (fd < 0 && mt.nofollow && S_ISLNK(st.st_mode))
        return "a symbolic link (not followed)";
    if (mt.nofollow && (!S_ISREG(st.st_mode) || st.st_uid != mtrace_geteuid()))
        return "not a regular file of this user (set MTRACE to choose a name)";
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return "not a regular file or a FIFO";
    for (i = 0; i <= 2; i++)
        if (fstat(i, &io) == 0 && io.st_dev == st.st_dev && io.st_ino == st.st_ino)
            return "the program's own standard input, output or error";
    mt.fifo = S_ISFIFO(st.st_mode);
    return 0;
}

/* The same, before the file is opened: a name that cannot take the trace
   is refused at once (and a forked child derives no NAME.PID from it). */
static int mtrace_path_fits(void)
{
    const char *unfit = mtrace_unfit(-1);
    if (unfit)
        mtrace_warn("the trace file ", mt.path, unfit);
    return !unfit;
}

/* The start of a file, at most cap - 1 bytes, NUL-terminated: its length,
   or -1 (errno says why).  Async-signal-safe. */
static long mtrace_read_file(const char *path, char *buf, size_t cap)
{
    long n = 0, got;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while ((size_t)n < cap - 1 && (got = mtrace_read(fd, buf + n, cap - 1 - (size_t)n)) > 0)
        n += got;
    mtrace_close(fd);
    buf[n] = 0;
    return n;
}

/* "#cmd ARGS": the program's command line, escaped like FUNC and FILE, as
   the trace's first line (mtrace2massif's cmd:, gnuplot skips it). */
static void mtrace_put_cmd(void)
{
    char args[2048], *o = mt.buf + mt.len, *a;
    long n = mtrace_read_file("/proc/self/cmdline", args, sizeof args);
    if (n > 0) {
        memcpy(o, "#cmd", 4);
        o += 4;
        for (a = args; a < args + n; a += strlen(a) + 1) {
            *o++ = ' ';
            o = mtrace_put_name(o, a);
        }
        *o++ = '\n';
    }
    if (mt.depth)
        o += snprintf(o, 32, "#depth %d\n", mt.depth);
    mtrace_commit(o);
}

/* Opens the trace, at the first record.  The file is locked while this
   process writes it: a program started by this one (system(), exec after
   fork) that traces under the same name finds the lock and writes
   NAME.PID instead of truncating our trace.  The default name is never
   followed through a symbolic link and never waited on (a FIFO planted
   there); a name the user gave is followed. */
static void mtrace_open_trace(void)
{
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mt.nofollow ? O_NOFOLLOW | O_NONBLOCK : 0);
    int fd = -1, tries;
    const char *unfit;
    struct mtrace_io io;
    if (!mt.tracing)
        return;
    mtrace_io_begin(&io);
    for (tries = 0; tries < 2; tries++) {
        while ((fd = open(mt.path, flags, 0666)) < 0 && errno == EINTR)
            ;                   /* a FIFO waits for its reader; signals may come */
        if (fd < 0) {
            mtrace_warn("cannot open the trace file ", mt.path,
                        errno == ELOOP && mt.nofollow ? "a symbolic link (not followed)" : strerror(errno));
            break;
        }
        if ((unfit = mtrace_unfit(fd))) {
            mtrace_warn("the trace file ", mt.path, unfit);
            mtrace_close(fd);
            fd = -1;
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        mtrace_close(fd);
        fd = -1;
        if (!tries) {
            struct mtrace_out w;
            w.o = mt.path + strlen(mt.path);
            w.end = mt.path + MTRACE_PATHMAX - 1;
            w.cut = 0;
            mtrace_out(&w, ".", 1);
            mtrace_out_u(&w, (size_t)mt.pid);
            *w.o = 0;
            if (w.cut) {
                mtrace_warn("trace file in use: ", mt.path, "and NAME.PID does not fit");
                break;
            }
        } else
            mtrace_warn("trace file in use: ", mt.path, strerror(EBUSY));
    }
    if (fd >= 0 && (fcntl(fd, F_SETFL, O_WRONLY) != 0
                    || (!mt.fifo && mtrace_ftruncate(fd, 0) != 0))) {
        mtrace_warn("cannot truncate the trace file ", mt.path, strerror(errno));
        mtrace_close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        mtrace_put_cmd();
    }
    mtrace_io_end(&io, 0);
}

/* Before each write: is our descriptor still our file?  If the program
   closed it or put another file under its number, reopen ours in append
   mode; if the file itself is gone, stop tracing with one warning. */
static int mtrace_fd_ok(void)
{
    struct stat st;
    int fd;
    if (fstat(mt.fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino)
        return 1;
    fd = open(mt.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        return 1;
    }
    if (fd >= 0)
        mtrace_close(fd);
    pmtrace.fd = mt.fd = -1;
    mtrace_warn("lost the trace file ", mt.path, strerror(fd >= 0 ? ESTALE : errno));
    return 0;
}

/* fork: the child must not write the parent's buffered records.  It
   traces what it does itself, from zero: its own file (see mtrace_set_path),
   its own totals and leaks; the blocks it inherited are not its own
   (freeing them is silent, they are never its leaks). */
/* Prepare handlers run in reverse order of registration: one registered
   before ours may run after it and allocate.  The forking thread holds
   the lock from here to the parent or child handler, and passes through
   it meanwhile (mtrace_lock, mtrace_unlock). */
static void mtrace_fork_prepare(void)
{
    mtrace_lock();
    __atomic_store_n(&mt.forking, &mtrace_pending, __ATOMIC_RELAXED);
}
static void mtrace_fork_parent(void)
{
    mt.forked = 1;
    __atomic_store_n(&mt.forking, 0, __ATOMIC_RELAXED);
    mtrace_unlock();
}
static void mtrace_fork_child(void)
{
    unsigned i;
    __atomic_store_n(&mt.forking, 0, __ATOMIC_RELAXED);
    mt.len = mt.flushed = 0;
    mt.pid = mtrace_getpid();
    mt.child = 1;
    mt.forked = 0;
    mtrace_clear(&mt.heap);
    mtrace_clear(&mt.pool);
    for (i = 1; i < mt.nsites; i++) {
        mt.sites[i].id = 0;
        mt.sites[i].live = mt.sites[i].peak = mt.sites[i].allocs = mt.sites[i].nlive = 0;
        mt.sites[i].at_peak = mt.sites[i].seen = 0;
    }
    mt.nids = mt.nsids = 0;
    for (i = 0; i < mt.nsegs; i++)
        mt.segs[i].written = 0;
    mt.double_frees = mt.invalid_frees = 0;
    mt.total = mt.max = mt.nr = mt.peak_no = mt.peak_recno = 0;
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    mt.maxoverhead = mt.overhead;
    if (mt.fd >= 0) {
        mtrace_close(mt.fd);
        pmtrace.fd = mt.fd = -1;
    }
    if (mt.tracing)             /* its own file, opened at its first record */
        mt.tracing = mtrace_set_path() && mtrace_path_fits();
    mtrace_publish();
    /* Released by hand: the child has one thread, and if glibc already says
       so, mtrace_unlock would leave the word taken for its first thread. */
    __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
}

/* The level of the process: the lowest N among the files compiled with
   -DMTRACE=N, each of which defines the weak symbol mtrace_level_N (see
   mtrace.h).  Weak references see every object present at start (the
   program and its libraries; for libmtrace loaded by dlopen, the plugin
   that brought it); 0 if none is traced. */
extern const char mtrace_level_1 __attribute__((weak));
extern const char mtrace_level_2 __attribute__((weak));
extern const char mtrace_level_3 __attribute__((weak));
static int mtrace_program_level(void)
{
    int one = &mtrace_level_1 != 0, two = &mtrace_level_2 != 0, three = &mtrace_level_3 != 0;
    if (one + two + three > 1)
        mtrace_say(one && three ? "*** MTRACE: warning: files compiled with -DMTRACE=1 and -DMTRACE=3: the process runs at level 1\n"
                   : one ? "*** MTRACE: warning: files compiled with -DMTRACE=1 and -DMTRACE=2: the process runs at level 1\n"
                   : "*** MTRACE: warning: files compiled with -DMTRACE=2 and -DMTRACE=3: the process runs at level 2\n");
    return one ? 1 : two ? 2 : three ? 3 : 0;
}

#ifdef MTRACE_INTERPOSE
/* Whose malloc does the program call?  A size no C library can allocate,
   which our interposer answers with its state's address: ours (the
   normal case), NULL (a static binary, where the C library's own malloc
   wins: a freed address may then come back from an allocation we do not
   see, and a tombstone proves nothing), or another copy of the runtime
   (a build we could not merge into one: say so, its figures are apart). */
#define MTRACE_WHO_ASKS ((size_t)-1 - 4095)
static int mtrace_probe_interposer(void)
{
    void *(*volatile probe)(size_t) = mtrace_sym_malloc;   /* not folded away */
    int saved = errno;
    void *who = probe(MTRACE_WHO_ASKS);
    errno = saved;
    if (who && who != (void *)&mt) {
        mtrace_say("*** MTRACE: warning: a second copy of the mtrace runtime is in this process; it stays off, "
                   "and calls that reach it are not traced (link every traced object with libmtrace: see doc/design.md)\n");
        return 0;
    }
    mt.interposed = who != 0;
    return 1;
}
#else
#define mtrace_probe_interposer() 1
#endif

#if defined(__GLIBC__) && !defined(MTRACE_RUNTIME)
/* One-line use: the copy of the runtime that started registered handlers
   (exit, fork, signals) that point into its own object.  If that object
   is a plugin, dlclose must not unmap it: pin it (libmtrace.so is linked
   with -z nodelete for the same reason).  Weak: no libdl needed, and a
   static binary links no dlopen. */
struct mtrace_dl_info { const char *fname; void *fbase; const char *sname; void *saddr; };
extern int mtrace_dladdr(const void *, struct mtrace_dl_info *) MTRACE_SYM_(dladdr) __attribute__((weak));
extern void *mtrace_dlopen(const char *, int) MTRACE_SYM_(dlopen) __attribute__((weak));
static void mtrace_pin_self(void)
{
    struct mtrace_dl_info info;
    if (mtrace_dladdr && mtrace_dlopen && mtrace_dladdr((const void *)&mtrace_state_, &info) && info.fname)
        mtrace_dlopen(info.fname, 0x0001 | 0x0004 | 0x1000);   /* RTLD_LAZY|NOLOAD|NODELETE */
}
#else
#define mtrace_pin_self() ((void)0)
#endif

#ifdef MTRACE_RUNTIME
/* Are mtrace_malloc and mtrace_free ours?  A traced file that defines the
   allocator itself, void *(malloc)(size_t n) { ... }, defines them through
   the header's asm labels, and the program's definition takes the place
   of ours in every call: then nothing is traced, and the program is told
   why.  (In the one-line use the compiler or assembler already refuses.) */
static void *mtrace_own_malloc_(size_t);
static void mtrace_own_free_(void *);
static int mtrace_entry_points_ours(void)
{
    void *(*volatile m)(size_t) = mtrace_malloc;    /* through the GOT */
    void (*volatile f)(void *) = mtrace_free;
    if (m == mtrace_own_malloc_ && f == mtrace_own_free_)
        return 1;
    mtrace_say("*** MTRACE: error: the program defines malloc or free itself in a file compiled with mtrace.h: "
               "compile that file without -DMTRACE (see doc/limits.md); nothing is traced\n");
    return 0;
}
#else
#define mtrace_entry_points_ours() 1
#endif

static void mtrace_read_suppressions(void);
static void mtrace_read_budget(void);

/* Runs once, from the first traced call or from the constructor, whichever
   comes first.  on_exit and pthread_atfork allocate: they reach only the
   interposers, which do nothing until the state is READY. */
static void mtrace_init(void)
{
    int expect = MTRACE_OFF;
    if (!__atomic_compare_exchange_n(&mt.state, &expect, MTRACE_STARTING, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_STARTING)
            mtrace_sched_yield();
        return;
    }
    pmtrace.fd = mt.fd = -1;
    mt.owner = mtrace_init;
    mt.level = mtrace_program_level();
    if (!mt.level || !mtrace_entry_points_ours() || !mtrace_probe_interposer()) {
        __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
        return;
    }
    mt.pid = mtrace_getpid();
    mt.keep_going = mtrace_getenv("MTRACE_DOUBLE_FREE") && !strcmp(mtrace_getenv("MTRACE_DOUBLE_FREE"), "continue");
    mt.rank = mtrace_mpi_rank();
    if (!(mt.path = (char *)mtrace_pages(MTRACE_PATHMAX))
        || (mt.level == 1 && !(mt.buf = (char *)mtrace_pages(mt.bufsize = MTRACE_BUFSIZE)))) {
        __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
        return;
    }
    pmtrace.fname = mt.path;
    if (mt.level == 1)          /* the file is opened at the first record */
        mt.tracing = mtrace_set_path() && mtrace_path_fits();
    mtrace_set_rss(mt.startrss = mtrace_rss());
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    mtrace_pin_self();
    on_exit(mtrace_on_exit, 0);
    mtrace_atfork(mtrace_fork_prepare, mtrace_fork_parent, mtrace_fork_child);
    mtrace_catch_signals();
    mtrace_read_suppressions();
    mtrace_read_budget();
    mtrace_read_depth();
    mt.reachable_mode = mtrace_getenv("MTRACE_LEAK_CHECK") && !strcmp(mtrace_getenv("MTRACE_LEAK_CHECK"), "reachable");
    mtrace_grow_sites();
    mtrace_grow_dir(&mt.heap);
    mtrace_publish();
    __atomic_store_n(&mt.state, MTRACE_READY, __ATOMIC_RELEASE);
}

static int mtrace_ready_slow(void)
{
    int s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    if (s == MTRACE_OFF || s == MTRACE_STARTING) {
        mtrace_init();
        s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    }
    return s == MTRACE_READY;
}

static MTRACE_HOT int mtrace_ready(void)
{
    return __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY || mtrace_ready_slow();
}

__attribute__((constructor(101))) static void mtrace_constructor(void)
{
    mtrace_ready();
}

/* The report waits for every destructor of the program and of the
   libraries it loaded (a library may free its cache in its own).  Exit
   handlers and destructors interleave by registration: glibc registers
   the destructors' runner (_dl_fini) when the program starts, after the
   constructors of its libraries.  If our on_exit came first (libmtrace
   loaded with the program), it runs after every destructor: it reports.
   If it came later (the runtime started in the program or in a plugin),
   the destructor below sees the exit under way and queues the report as
   a new exit handler, which glibc runs after the destructors, just before
   it flushes stdio and ends the process.  Only the copy that started
   acts: another one-line copy may go away with its plugin. */
__attribute__((destructor(101))) static void mtrace_destructor(void)
{
    if (mt.owner != mtrace_init || mt.finish_queued)
        return;
    if (!mt.exiting) {
        mt.destructed = 1;      /* on_exit comes later and reports */
        return;
    }
    mt.finish_queued = 1;
    if (atexit(mtrace_finish) != 0)
        mtrace_finish();
}

/* ---- for CI: suppressions, a memory budget, a JSON report ---- */

/* One line of the suppression file, s (its terminator already cut), into
   *p: 0 if it is not one. */
static int mtrace_parse_supp(char *s, struct mtrace_supp *p)
{
    char *colon, *end;
    memset(p, 0, sizeof *p);
    if (!strncmp(s, "fun:", 4) && s[4]) {
        p->fun = s + 4;
        return 1;
    }
    if (strncmp(s, "src:", 4) || !s[4])
        return 0;
    p->src = s + 4;
    colon = strrchr(p->src, ':');
    if (colon && colon[1]) {
        long line = strtol(colon + 1, &end, 10);
        if (!*end && line > 0) {
            *colon = 0;
            p->line = (int)line;
        }
    }
    return *p->src != 0;
}

/* MTRACE_SUPPRESS: one pattern a line (blank lines and # comments
   skipped); a line that is not one is a warning naming file:line. */
static void mtrace_read_suppressions(void)
{
    enum { MAX = 1 << 20 };
    const char *file = mtrace_getenv("MTRACE_SUPPRESS");
    char *text, *line, *next;
    unsigned at = 0, lines = 1;
    if (!file || !*file)
        return;
    mt.supp_file = file;
    if (!(text = (char *)mtrace_pages(MAX)) || mtrace_read_file(file, text, MAX) < 0) {
        mtrace_say("*** MTRACE: warning: cannot read the suppression file ");
        mtrace_say(file);
        mtrace_say(": ");
        mtrace_say(strerror(errno));
        mtrace_say("\n");
        return;
    }
    for (line = text; *line; line++)
        lines += *line == '\n';
    if (!(mt.supp = (struct mtrace_supp *)mtrace_pages(lines * sizeof *mt.supp)))
        return;
    for (line = text; line; line = next) {
        struct mtrace_supp *p = &mt.supp[mt.nsupp];
        if ((next = strchr(line, '\n')))
            *next++ = 0;
        at++;
        line += strspn(line, " \t");
        line[strcspn(line, "\r")] = 0;
        while (*line && (line[strlen(line) - 1] == ' ' || line[strlen(line) - 1] == '\t'))
            line[strlen(line) - 1] = 0;
        if (!*line || *line == '#')
            continue;
        if (mtrace_parse_supp(line, p)) {
            p->at = at;
            mt.nsupp++;
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "*** MTRACE: %.300s:%u: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): %.100s\n",
                     file, at, line);
            mtrace_say(msg);
        }
    }
}

/* The first suppression that matches site s, or NULL.  A file pattern
   without '/' is also tried on the file's last component. */
static struct mtrace_supp *mtrace_suppression(const struct mtrace_sitestat *s)
{
    unsigned i;
    for (i = 0; i < mt.nsupp; i++) {
        struct mtrace_supp *p = &mt.supp[i];
        const char *base = strrchr(s->file, '/');
        if (p->fun && fnmatch(p->fun, s->func, 0) == 0)
            return p;
        if (p->src && (!p->line || p->line == s->line)
            && (fnmatch(p->src, s->file, 0) == 0
                || (base && !strchr(p->src, '/') && fnmatch(p->src, base + 1, 0) == 0)))
            return p;
    }
    return 0;
}

/* MTRACE_MAX_HEAP=SIZE: bytes, or with K, M or G (1024, 1024^2, 1024^3). */
static void mtrace_read_budget(void)
{
    const char *text = mtrace_getenv("MTRACE_MAX_HEAP");
    char *end;
    unsigned long long v;
    if (!text || !*text)
        return;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    if (*end || end == text || errno || !v || *text == '-') {
        char msg[256];
        snprintf(msg, sizeof msg, "*** MTRACE: warning: MTRACE_MAX_HEAP=%.100s is not a size (bytes, or with K, M or G): no budget\n", text);
        mtrace_say(msg);
        return;
    }
    mt.budget = (size_t)v;
    mt.budget_text = text;
}

/* A buffered writer to a file descriptor, for the JSON report. */
struct mtrace_fout { int fd; size_t n; char buf[8192]; };

static void mtrace_fput(struct mtrace_fout *f, const char *s, size_t n)
{
    while (n > 0) {
        size_t room = sizeof f->buf - f->n, k = n < room ? n : room;
        memcpy(f->buf + f->n, s, k);
        f->n += k;
        s += k;
        n -= k;
        if (f->n == sizeof f->buf) {
            mtrace_write_all(f->fd, f->buf, f->n);
            f->n = 0;
        }
    }
}

static void mtrace_fputs(struct mtrace_fout *f, const char *s)
{
    mtrace_fput(f, s, strlen(s));
}

/* A JSON string: quotes, backslashes, control characters and bytes above
   0x7f escaped (\u00XX), so the file is valid JSON whatever the names. */
static void mtrace_fput_json(struct mtrace_fout *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    mtrace_fput(f, "\"", 1);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2];
            e[0] = '\\';
            e[1] = (char)c;
            mtrace_fput(f, e, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            char e[6];
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            mtrace_fput(f, e, 6);
        } else
            mtrace_fput(f, s, 1);
    }
    mtrace_fput(f, "\"", 1);
}

/* "  \"key\": number" with the separator before it. */
static void mtrace_fput_num(struct mtrace_fout *f, const char *key, size_t v, int last)
{
    char line[128];
    snprintf(line, sizeof line, "  \"%s\": %lu%s\n", key, (unsigned long)v, last ? "" : ",");
    mtrace_fputs(f, line);
}

static unsigned *mtrace_sorted_sites(int (*cmp)(const void *, const void *));
static int mtrace_by_peak(const void *a, const void *b);

/* MTRACE_REPORT: what the summary and the leak report hold, as JSON
   (doc/report-json.md), written at exit at every level. */
static void mtrace_write_json(int status)
{
    const char *name = mtrace_getenv("MTRACE_REPORT");
    char path[4096], line[256];
    struct mtrace_fout *f;
    unsigned i, *order;
    const struct { const char *key; size_t value; } figures[] = {   /* in doc/report-json.md's order */
        { "max_rss_bytes", mt.maxrss }, { "peak_bytes", mt.max }, { "peak_record", mt.peak_recno },
        { "records", mt.nr }, { "tracer_bytes_at_peak", mt.maxoverhead },
        { "double_frees", mt.double_frees }, { "leaked_bytes", mt.leaked },
        { "leaked_blocks", mt.leaked_blocks }, { "suppressed_bytes", mt.suppressed },
        { "suppressed_blocks", mt.suppressed_blocks }, { "reachable_bytes", mt.reachable },
        { "untraced_signal_calls", mt.passed } };
    if (!name || !*name)
        return;
    if (!mtrace_build_name(path, sizeof path, name) || !(f = (struct mtrace_fout *)mtrace_pages(sizeof *f))) {
        mtrace_say("*** MTRACE: warning: MTRACE_REPORT: the name is too long: no JSON report\n");
        return;
    }
    if ((f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
        mtrace_say("*** MTRACE: warning: cannot write the JSON report ");
        mtrace_say(path);
        mtrace_say(": ");
        mtrace_say(strerror(errno));
        mtrace_say("\n");
        mtrace_unpages(f, sizeof *f);
        return;
    }
    f->n = 0;
    mtrace_fputs(f, "{\n  \"mtrace_report\": 1,\n");
    mtrace_fput_num(f, "pid", (size_t)mt.pid, 0);
    snprintf(line, sizeof line, "  \"rank\": %ld,\n  \"level\": %d,\n", mt.rank, mt.level);
    mtrace_fputs(f, line);
    mtrace_fputs(f, "  \"trace\": ");
    if (mt.trace_written)
        mtrace_fput_json(f, mt.path);
    else
        mtrace_fputs(f, "null");
    snprintf(line, sizeof line, ",\n  \"program_status\": %d,\n  \"exit_status\": %d,\n", mt.exit_status, status);
    mtrace_fputs(f, line);
    for (i = 0; i < sizeof figures / sizeof *figures; i++)
        mtrace_fput_num(f, figures[i].key, figures[i].value, 0);
    if (mt.budget)
        mtrace_fput_num(f, "budget_bytes", mt.budget, 0);
    else
        mtrace_fputs(f, "  \"budget_bytes\": null,\n");
    snprintf(line, sizeof line, "  \"over_budget\": %s,\n  \"sites\": [", mt.over_budget ? "true" : "false");
    mtrace_fputs(f, line);
    order = mtrace_sorted_sites(mtrace_by_peak);
    for (i = 0; order && i < mt.nsorted; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        mtrace_fputs(f, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
        mtrace_fput_json(f, s->func);
        mtrace_fputs(f, ", \"file\": ");
        mtrace_fput_json(f, s->file);
        snprintf(line, sizeof line, ", \"line\": %d, \"allocations\": %lu, \"peak_bytes\": %lu, "
                 "\"bytes_at_peak\": %lu, \"live_bytes\": %lu, \"live_blocks\": %lu, \"reachable_bytes\": %lu, \"suppressed\": %s}",
                 s->line, (unsigned long)s->allocs, (unsigned long)s->peak,
                 (unsigned long)(s->seen == mt.peak_no ? s->at_peak : s->live), (unsigned long)s->live,
                 (unsigned long)s->nlive, (unsigned long)s->reach, s->live && mtrace_suppression(s) ? "true" : "false");
        mtrace_fputs(f, line);
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    mtrace_fputs(f, "\n  ]\n}\n");
    mtrace_write_all(f->fd, f->buf, f->n);
    mtrace_close(f->fd);
    mtrace_unpages(f, sizeof *f);
}

/* MTRACE_LEAK_CHECK=reachable: at exit, the live blocks that the program
   can still reach, conservatively (as LSan and Memcheck do): every word of
   the writable data of the loaded objects, of this thread's stack from
   here up, of the other threads' stacks, and, transitively, of the blocks
   found, that points into a live traced block marks it.  Those count as
   "still reachable" (a note per site); the others are the leaks. */
struct mtrace_found { uintptr_t addr; size_t size; unsigned site; };
static int mtrace_on_stack(const void *p);
struct mtrace_scan { struct mtrace_found *b; size_t n; unsigned char *reached; size_t *todo, ntodo; };

static int mtrace_by_addr(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_found *)a)->addr, y = ((const struct mtrace_found *)b)->addr;
    return x < y ? -1 : x > y;
}

/* Marks the block that w points into, if any, and queues it. */
static void mtrace_reach(struct mtrace_scan *sc, uintptr_t w)
{
    size_t lo = 0, hi = sc->n;
    while (lo < hi) {           /* the last block starting at or below w */
        size_t mid = lo + (hi - lo) / 2;
        if (sc->b[mid].addr <= w)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo && w < sc->b[lo - 1].addr + (sc->b[lo - 1].size ? sc->b[lo - 1].size : 1) && !sc->reached[lo - 1]) {
        sc->reached[lo - 1] = 1;
        sc->todo[sc->ntodo++] = lo - 1;
    }
}

/* Reads every word of [from, to), redzones that AddressSanitizer puts
   between a stack's or a data segment's variables included: exempt. */
#if defined(__SANITIZE_ADDRESS__) || defined(MTRACE_SANITIZED)
__attribute__((no_sanitize_address))
#endif
static void mtrace_scan_range(struct mtrace_scan *sc, uintptr_t from, uintptr_t to)
{
    uintptr_t a;
    for (a = (from + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1); a + sizeof(void *) <= to; a += sizeof(void *))
        mtrace_reach(sc, *(const uintptr_t *)a);
}

static int mtrace_scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    int i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
            mtrace_scan_range((struct mtrace_scan *)arg, info->dlpi_addr + ph->p_vaddr,
                              info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
    }
    return 0;
}

/* The other threads' stacks: glibc maps each with its guard page below
   it, so in /proc/self/maps a private writable mapping that starts where
   an inaccessible one ends.  (Malloc's arenas keep their reserve above
   their writable part, so they do not look like that.) */
/* Larger "stacks" are something else: AddressSanitizer's shadow memory
   (terabytes after a guard) has the same shape. */
#define MTRACE_MAX_STACK ((uintptr_t)1 << 30)

static void mtrace_scan_thread_stacks(struct mtrace_scan *sc, uintptr_t mine_lo, uintptr_t mine_hi)
{
    enum { MAX = 1 << 20 };
    char *maps = (char *)mtrace_pages(MAX), *line, *next;
    uintptr_t guard_end = 0;
    if (!maps || mtrace_read_file("/proc/self/maps", maps, MAX) <= 0) {
        mtrace_unpages(maps, MAX);
        return;
    }
    for (line = maps; *line; line = next) {
        char *p = line;
        uintptr_t lo = (uintptr_t)strtoull(p, &p, 16), hi = (uintptr_t)strtoull(p + 1, &p, 16);
        if (!(next = strchr(line, '\n')))
            next = line + strlen(line);
        else
            next++;
        if (p[1] == '-' && p[2] == '-' && p[3] == '-')
            guard_end = hi;
        else {
            if (p[1] == 'r' && p[2] == 'w' && p[4] == 'p' && lo == guard_end && (hi <= mine_lo || lo >= mine_hi)
                && hi - lo <= MTRACE_MAX_STACK)
                mtrace_scan_range(sc, lo, hi);
            guard_end = 0;
        }
    }
    mtrace_unpages(maps, MAX);
}

/* Fills each site's reach and reach_blocks.  Called at exit, the tables
   frozen (state DONE). */
static void mtrace_find_reachable(void)
{
    struct mtrace_scan sc;
    size_t i, cap = mt.heap.nlive + 1, range = 0, slot = 0;
    struct mtrace_block *b;
    volatile uintptr_t here = 0;
    __builtin_unwind_init();    /* this thread's registers onto its stack */
    sc.b = (struct mtrace_found *)mtrace_pages(cap * sizeof *sc.b);
    sc.reached = (unsigned char *)mtrace_pages(cap);
    sc.todo = (size_t *)mtrace_pages(cap * sizeof *sc.todo);
    sc.n = sc.ntodo = 0;
    if (!sc.b || !sc.reached || !sc.todo)
        goto done;
    while ((b = mtrace_next_block(&mt.heap, &range, &slot)))
        if (mtrace_live(b)) {
            sc.b[sc.n].addr = b->addr;
            sc.b[sc.n].size = mtrace_b_size(b);
            sc.b[sc.n++].site = mtrace_b_site(b);
        }
    qsort(sc.b, sc.n, sizeof *sc.b, mtrace_by_addr);
    dl_iterate_phdr(mtrace_scan_object, &sc);
    mtrace_on_stack(0);         /* asks this thread's bounds */
    mtrace_scan_range(&sc, (uintptr_t)&here, mtrace_pending.stack_hi);
    mtrace_scan_thread_stacks(&sc, mtrace_pending.stack_lo, mtrace_pending.stack_hi);
    while (sc.ntodo) {
        struct mtrace_found *f = &sc.b[sc.todo[--sc.ntodo]];
        mtrace_scan_range(&sc, f->addr, f->addr + f->size);
    }
    for (i = 0; i < sc.n; i++)
        if (sc.reached[i]) {
            struct mtrace_sitestat *s = &mt.sites[sc.b[i].site];
            s->reach += sc.b[i].size;
            s->reach_blocks++;
            if (s->parent) {    /* a stack: its site too */
                mt.sites[s->parent].reach += sc.b[i].size;
                mt.sites[s->parent].reach_blocks++;
            }
        }
done:
    mtrace_unpages(sc.b, cap * sizeof *sc.b);
    mtrace_unpages(sc.reached, cap);
    mtrace_unpages(sc.todo, cap * sizeof *sc.todo);
}

/* ---- names of code addresses, for the reports' call stacks ----

   addr2line (binutils, found wherever gcc is) turns a module's address
   into "function" and "file:line".  It runs without a shell, its
   arguments an argv, once per module and 64 addresses; never in a
   set-user-ID program (PATH is not ours to trust there).  Without it,
   frames are shown as module+offset. */

#define MTRACE_NOTE_FRAMES 6    /* callers shown under a report's place */
#define MTRACE_MAXSYMS 16384    /* addresses named per report */

struct mtrace_sym { uintptr_t addr; char func[128], where[256]; };

static int mtrace_by_sym_addr(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_sym *)a)->addr, y = ((const struct mtrace_sym *)b)->addr;
    return x < y ? -1 : x > y;
}

/* A path under the current directory made relative to it, as the
   compiler's __FILE__ usually is. */
static const char *mtrace_relative(const char *path)
{
    char cwd[MTRACE_PATHMAX];
    size_t n;
    if (!mtrace_getcwd(cwd, sizeof cwd))
        return path;
    n = strlen(cwd);
    return strncmp(path, cwd, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* Line k of text (lines cut at '\n' into dst, at most cap - 1 bytes). */
static const char *mtrace_take_line(const char *t, const char *end, char *dst, size_t cap)
{
    size_t n = 0;
    while (t < end && *t != '\n') {
        if (n + 1 < cap)
            dst[n++] = *t;
        t++;
    }
    dst[n] = 0;
    return t < end ? t + 1 : t;
}

/* addr2line's two lines per address for v[0..n), n <= 64, all in segment
   seg; names it cannot give stay "". */
static void mtrace_addr2line(struct mtrace_sym *v, unsigned n, const struct mtrace_seg *seg, const char *tool)
{
    enum { OUT = 1 << 16 };
    char *argv[4 + 64 + 1], hex[64][24], *out = (char *)mtrace_pages(OUT), line[256];
    const char *t, *end;
    posix_spawn_file_actions_t fa;
    int fds[2], status;
    unsigned i;
    pid_t pid;
    long got = 0, r;
    argv[0] = (char *)tool;
    argv[1] = (char *)"-f";
    argv[2] = (char *)"-e";
    argv[3] = (char *)seg->path;
    for (i = 0; i < n; i++) {
        snprintf(hex[i], sizeof hex[i], "0x%lx", (unsigned long)(v[i].addr - 1 - seg->bias));
        argv[4 + i] = hex[i];
    }
    argv[4 + n] = 0;
    if (!out || pipe2(fds, O_CLOEXEC) != 0) {
        mtrace_unpages(out, OUT);
        return;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, tool, &fa, 0, argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    mtrace_close(fds[1]);
    while (pid > 0 && got < OUT && ((r = mtrace_read(fds[0], out + got, (size_t)(OUT - got))) > 0 || (r < 0 && errno == EINTR)))
        got += r > 0 ? r : 0;
    mtrace_close(fds[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    for (t = out, end = out + got, i = 0; i < n && t < end; i++) {
        t = mtrace_take_line(t, end, line, sizeof line);
        if (strcmp(line, "??") != 0)
            snprintf(v[i].func, sizeof v[i].func, "%.*s", (int)sizeof v[i].func - 1, line);
        t = mtrace_take_line(t, end, line, sizeof line);
        if (strncmp(line, "??", 2) != 0 && line[0] != ':') {  /* "file:line (discriminator N)" */
            const char *where = mtrace_relative(line);
            snprintf(v[i].where, sizeof v[i].where, "%.*s", (int)strcspn(where, " "), where);
        }
    }
    mtrace_unpages(out, OUT);
}

/* Names for the addresses a[0..n): mt.syms, sorted and unique. */
static void mtrace_symbolize(const uintptr_t *a, unsigned n)
{
    const char *tool = mtrace_getenv("MTRACE_ADDR2LINE");
    unsigned i, j, k;
    if (!mt.syms && !(mt.syms = (struct mtrace_sym *)mtrace_pages(MTRACE_MAXSYMS * sizeof *mt.syms)))
        return;
    for (mt.nsyms = 0, i = 0; i < n && mt.nsyms < MTRACE_MAXSYMS; i++) {
        memset(&mt.syms[mt.nsyms], 0, sizeof *mt.syms);
        mt.syms[mt.nsyms++].addr = a[i];
    }
    qsort(mt.syms, mt.nsyms, sizeof *mt.syms, mtrace_by_sym_addr);
    for (i = j = 0; i < mt.nsyms; i++)
        if (!j || mt.syms[j - 1].addr != mt.syms[i].addr)
            mt.syms[j++] = mt.syms[i];
    mt.nsyms = j;
    if (!tool)
        tool = "addr2line";
    if (!*tool || getauxval(AT_SECURE))
        return;
    for (i = 0; i < mt.nsyms; i = j) {      /* runs of one segment, 64 at most */
        int seg = mtrace_seg_in(mt.syms[i].addr, mt.nsegs);
        for (j = i + 1, k = 1; j < mt.nsyms && k < 64 && mtrace_seg_in(mt.syms[j].addr, mt.nsegs) == seg; j++, k++)
            ;
        if (seg >= 0)
            mtrace_addr2line(&mt.syms[i], j - i, &mt.segs[seg], tool);
    }
}

static const struct mtrace_sym *mtrace_sym_of(uintptr_t a)
{
    struct mtrace_sym key;
    key.addr = a;
    return mt.nsyms ? (const struct mtrace_sym *)bsearch(&key, mt.syms, mt.nsyms, sizeof key, mtrace_by_sym_addr) : 0;
}

/* One note for the caller at return address a: "file:line: note: called
   from f", or the module and offset when it has no name. */
static char *mtrace_put_caller(char *o, char *end, uintptr_t a)
{
    const struct mtrace_sym *y = mtrace_sym_of(a);
    int seg = mtrace_seg_in(a, mt.nsegs);
    if (y && y->func[0])
        return o + snprintf(o, (size_t)(end - o), "%s: note: called from %s\n",
                            y->where[0] ? y->where : "<unknown>:0", y->func);
    return o + snprintf(o, (size_t)(end - o), "<unknown>:0: note: called from 0x%lx (in %.*s+0x%lx)\n",
                        (unsigned long)a, MTRACE_NAMEMAX, seg >= 0 ? mt.segs[seg].path : "?",
                        (unsigned long)(seg >= 0 ? a - mt.segs[seg].bias : a));
}

/* Is return address a in main (where Massif's trees stop too)? */
static int mtrace_in_main(uintptr_t a)
{
    const struct mtrace_sym *y = mtrace_sym_of(a);
    return y && !strcmp(y->func, "main");
}

/* The callers frames[from..n), a note each, up to main and at most
   MTRACE_NOTE_FRAMES. */
static char *mtrace_put_chain(char *o, char *end, const uintptr_t *frames, unsigned from, unsigned n)
{
    unsigned i;
    for (i = from; i < n && i < from + MTRACE_NOTE_FRAMES && o < end; i++) {
        o = mtrace_put_caller(o, end, frames[i]);
        if (mtrace_in_main(frames[i]))
            break;
    }
    return o < end ? o : end;
}

/* ---- reports ---- */

/* Takes the lock if tracing is on; 0 (and no lock) otherwise. */
static MTRACE_HOT int mtrace_lock_ready(void)
{
    if (!mtrace_ready())
        return 0;
    if (mtrace_pending.busy) {  /* a signal handler interrupted us here */
        __atomic_add_fetch(&mt.passed, 1, __ATOMIC_RELAXED);
        return 0;
    }
    mtrace_pending.busy = 1;    /* coming in */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_lock();
    mtrace_pending.busy = 2;    /* holding the lock */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (mt.state == MTRACE_READY)
        return 1;
    mtrace_unlock();
    return 0;
}

/* A place of a double-free report, copied under the lock. */
struct mtrace_place { const char *file, *func; int line; };

static void mtrace_get_place(struct mtrace_place *p, unsigned site)
{
    p->file = site ? mt.sites[site].file : "<unknown>";
    p->func = site ? mt.sites[site].func : "?";
    p->line = site ? mt.sites[site].line : 0;
}

static char *mtrace_put_place(char *o, char *end, const struct mtrace_place *p, const char *kind, const char *what)
{
    if (!p->line && !strcmp(kind, "note"))      /* no place known */
        o += snprintf(o, (size_t)(end - o), "%s:0: note: %s\n", p->file, what);
    else
        o += snprintf(o, (size_t)(end - o), "%.*s:%d: %s: %s (in %.*s)\n", MTRACE_NAMEMAX, p->file, p->line,
                  kind, what, MTRACE_NAMEMAX, p->func);
    return o < end ? o : end;
}

/* A second free (or realloc) of a traced block.  Called with the lock held;
   releases it.  With stacks, the bad call's callers (`bad`, or walked from
   its entry point's `frame`) and the allocation's are shown; the first
   free is shown by its site.  Aborts, unless told to continue
   (MTRACE_DOUBLE_FREE). */
static void mtrace_double_free(struct mtrace_block *b, struct mtrace_site *by, const char *what,
                               const struct mtrace_chain *bad, const uintptr_t *frame)
{
    char msg[3 * MTRACE_NAMEMAX + 2 * MTRACE_NOTE_FRAMES * 512], *o = msg, *end = msg + sizeof msg - 1;
    struct mtrace_place place[3];
    struct mtrace_chain chain[2];
    const struct mtrace_sitestat *alloc = &mt.sites[mtrace_b_site(b)];
    mtrace_get_place(&place[0], mtrace_site_index(by));
    mtrace_get_place(&place[1], mtrace_b_site(b));
    mtrace_get_place(&place[2], mtrace_b_freed_by(b));
    chain[1].n = alloc->parent ? alloc->nframes : 0;
    memcpy(chain[1].ret, alloc->frames, chain[1].n * sizeof *chain[1].ret);
    mt.double_frees++;
    mtrace_flush();
    mtrace_unlock();
    if (bad)
        chain[0] = *bad;
    else if (frame && mt.depth > 1)
        mtrace_walk(&chain[0], frame, by, msg);
    else
        chain[0].n = 0;
    if (chain[0].n + chain[1].n) {
        uintptr_t a[2 * MTRACE_MAXDEPTH];
        memcpy(a, chain[0].ret, chain[0].n * sizeof *a);
        memcpy(a + chain[0].n, chain[1].ret, chain[1].n * sizeof *a);
        mtrace_symbolize(a, chain[0].n + chain[1].n);
    }
    o = mtrace_put_place(o, end, &place[0], "error", what);
    o = mtrace_put_chain(o, end, chain[0].ret, 0, chain[0].n);
    o = mtrace_put_place(o, end, &place[1], "note", "the block was allocated here");
    o = mtrace_put_chain(o, end, chain[1].ret, 0, chain[1].n);
    o = mtrace_put_place(o, end, &place[2], "note", "and first freed here");
    mtrace_write_all(2, msg, (size_t)(o - msg));
    mtrace_pending.call = 0;            /* the abort is ours: no "died in" note */
    if (!mt.keep_going)
        abort();
}

static int mtrace_by_peak(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->peak != y->peak)
        return x->peak < y->peak ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static int mtrace_by_live(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->live != y->live)
        return x->live < y->live ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The indices of the sites that allocated, sorted by `cmp`, in pages of their own (freed by caller). */
static unsigned *mtrace_sorted(int (*cmp)(const void *, const void *), int stacks)
{
    unsigned i, *order = (unsigned *)mtrace_pages(mt.maxsites * sizeof *order);
    if (!order)
        return 0;
    mt.nsorted = 0;
    for (i = 1; i < mt.nsites; i++)
        if (mt.sites[i].allocs && !mt.sites[i].parent == !stacks)
            order[mt.nsorted++] = i;
    qsort(order, mt.nsorted, sizeof *order, cmp);
    return order;
}

static unsigned *mtrace_sorted_sites(int (*cmp)(const void *, const void *))
{
    return mtrace_sorted(cmp, 0);
}

/* A gnuplot string that gnuplot cannot interpret: single quotes, in which
   only a doubled quote means anything (in double quotes gnuplot runs
   `backquoted` text as a shell command).  A control character, which
   would end the line, shows as '?'. */
static char *mtrace_put_quoted(char *o, const char *s)
{
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    *o++ = '\'';
    for (; s < end; s++) {
        if (*s == '\'')
            *o++ = '\'';
        *o++ = (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s;
    }
    *o++ = '\'';
    return o;
}

/* The two last lines: settings, then the plot of MAXRSS - startrss, TOTAL
   and one curve per site that reached 1% of the peak.  A site's curve is
   drawn from a variable updated on that site's records, so it stays flat
   between them. */
static void mtrace_put_gnuplot(void)
{
    enum { CURVES = 12 };
    char *o = mt.buf + mt.len;
    unsigned i, n = 0, *order = mtrace_sorted_sites(mtrace_by_peak);
    o += sprintf(o, "set title ");
    o = mtrace_put_quoted(o, mt.path);
    o += sprintf(o, " noenhanced; set xlabel 'trace record'; set ylabel 'memory'; "
                    "set format y '%%.1b %%BB'; set key left top noenhanced; set grid");
    for (i = 0; order && i < mt.nsorted && i < CURVES; i++)
        o += sprintf(o, "; mt%u=0", mt.sites[order[i]].id);
    o += sprintf(o, "\nplot ");
    o = mtrace_put_quoted(o, mt.path);
    o += sprintf(o, " u 3:($6-%lu) w steps t 'max RSS - start RSS', '' u 3:4 w steps lw 2 t 'total'",
                 (unsigned long)mt.startrss);
    for (i = 0; order && i < mt.nsorted && n < CURVES; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        char title[2 * MTRACE_NAMEMAX + 64];
        if (!s->id || s->peak == 0 || s->peak * 100 < mt.max)
            break;
        snprintf(title, sizeof title, "%.1000s (%.1000s:%d)", s->func, s->file, s->line);
        o += sprintf(o, ", '' u 3:(strcol(1) ne '@' && $2==%u ? (mt%u=$5) : mt%u) w steps t ",
                     s->id, s->id, s->id);
        o = mtrace_put_quoted(o, title);
        n++;
    }
    *o++ = '\n';
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    mtrace_commit(o);
}

/* The number of threads of the process (/proc), 0 if unknown. */
static long mtrace_threads(void)
{
    char status[4096], *t;
    if (mtrace_read_file("/proc/self/status", status, sizeof status) <= 0)
        return 0;
    t = strstr(status, "\nThreads:");
    return t ? strtol(t + 9, 0, 10) : 0;
}

/* prefix s suffix as one shell word, into dst (4 * their length + 3
   bytes): as it is when it holds only characters no shell interprets,
   else in single quotes, each ' written '\'' (copy and paste safe). */
static void mtrace_shell_word(char *dst, const char *prefix, const char *s, const char *suffix)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+,:=@%-";
    const char *parts[3];
    const char *c;
    int i, plain = 1;
    parts[0] = prefix;
    parts[1] = s;
    parts[2] = suffix;
    for (i = 0; i < 3; i++)
        for (c = parts[i]; *c; c++)
            plain = plain && strchr(safe, *c);
    if (!plain)
        *dst++ = '\'';
    for (i = 0; i < 3; i++)
        for (c = parts[i]; *c; c++) {
            if (*c == '\'' && !plain) {
                memcpy(dst, "'\\''", 4);
                dst += 4;
            } else
                *dst++ = *c;
        }
    if (!plain)
        *dst++ = '\'';
    *dst = 0;
}

static int mtrace_by_at_peak(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    size_t u = x->seen == mt.peak_no ? x->at_peak : x->live, v = y->seen == mt.peak_no ? y->at_peak : y->live;
    if (u != v)
        return u < v ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The budget's error: the peak, its record, and the three sites that
   held most at that moment. */
static char *mtrace_put_budget(char *o, char *end, const char *who)
{
    unsigned i, *order = mtrace_sorted_sites(mtrace_by_at_peak);
    mt.over_budget = 1;
    o += snprintf(o, (size_t)(end - o), "%s*** MTRACE: error: peak traced memory %lu bytes exceeds the budget of %.40s"
                  " (at record %lu)\n", who, (unsigned long)mt.max, mt.budget_text, (unsigned long)mt.peak_recno);
    for (i = 0; order && i < mt.nsorted && i < 3 && o < end; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        size_t held = s->seen == mt.peak_no ? s->at_peak : s->live;
        if (held)
            o += snprintf(o, (size_t)(end - o), "%.*s:%d: note: %lu bytes held here at the peak (in %.*s)\n",
                          MTRACE_NAMEMAX, s->file, s->line, (unsigned long)held, MTRACE_NAMEMAX, s->func);
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    return o < end ? o : end;
}

/* Summary (levels 1-2) and leak errors (levels 1-3) on stderr, written
   in one go so that several processes do not interleave mid-line.  When
   there are several processes (MPI ranks, fork) each line says whose it
   is: a prefix on summary lines, a suffix on the leak errors, which keep
   the "file:line: error:" form that editors and CI read. */
/* MTRACE_ALLOC_FN="f g": is `func` one of the functions named there?
   They are wrappers: a report charges the first frame outside them. */
static int mtrace_is_alloc_fn(const char *func)
{
    const char *list = mt.alloc_fns, *p;
    size_t n = strlen(func);
    if (!list || !n)
        return 0;
    for (p = list; *p; p += strcspn(p, ", ")) {
        p += strspn(p, ", ");
        if (strncmp(p, func, n) == 0 && (p[n] == 0 || p[n] == ',' || p[n] == ' '))
            return 1;
    }
    return 0;
}

/* Where a report charges stack s: 0 for its site, k for its frame k - 1
   (the site and the first k - 1 callers are MTRACE_ALLOC_FN's), as long
   as that frame has a function's name (a file and line need -g). */
static unsigned mtrace_charged(const struct mtrace_sitestat *s)
{
    unsigned k = 0;
    const struct mtrace_sym *y;
    if (!s->parent || !mtrace_is_alloc_fn(s->func))
        return 0;
    while (k < s->nframes && (y = mtrace_sym_of(s->frames[k])) && y->func[0]) {
        k++;
        if (!mtrace_is_alloc_fn(y->func))
            return k;
    }
    return 0;
}

/* Names for the frames of the stacks order[0..nstacks). */
static void mtrace_name_stacks(const unsigned *order, unsigned nstacks)
{
    uintptr_t *a = (uintptr_t *)mtrace_pages(MTRACE_MAXSYMS * sizeof *a);
    unsigned i, j, n = 0;
    if (!a)
        return;
    for (i = 0; i < nstacks; i++)
        for (j = 0; j < mt.sites[order[i]].nframes && n < MTRACE_MAXSYMS; j++)
            a[n++] = mt.sites[order[i]].frames[j];
    mtrace_symbolize(a, n);
    mtrace_unpages(a, MTRACE_MAXSYMS * sizeof *a);
}

/* A row of the summary with MTRACE_ALLOC_FN: a place charged past the
   wrappers (a site, or a caller's return address), and what its stacks
   held at the global peak. */
struct mtrace_charge { uintptr_t key; const char *func, *file; int line; size_t at_peak; };

static int mtrace_by_charge_key(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_charge *)a)->key, y = ((const struct mtrace_charge *)b)->key;
    return x < y ? -1 : x > y;
}

static int mtrace_by_charge_bytes(const void *a, const void *b)
{
    size_t x = ((const struct mtrace_charge *)a)->at_peak, y = ((const struct mtrace_charge *)b)->at_peak;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The summary's table with MTRACE_ALLOC_FN and stacks: bytes held at the
   peak, by the place each stack is charged to (mtrace_charged). */
static char *mtrace_put_charged(char *o, char *end, const char *who)
{
    unsigned i, j, *order = mtrace_sorted(mtrace_by_peak, 1);
    struct mtrace_charge *c = order ? (struct mtrace_charge *)mtrace_pages(mt.nsorted * sizeof *c + 1) : 0;
    if (c) {
        mtrace_name_stacks(order, mt.nsorted);
        for (i = 0; i < mt.nsorted; i++) {
            const struct mtrace_sitestat *s = &mt.sites[order[i]];
            unsigned top = mtrace_charged(s);
            const struct mtrace_sym *y = top ? mtrace_sym_of(s->frames[top - 1]) : 0;
            c[i].key = y ? s->frames[top - 1] : s->parent;
            c[i].func = y ? y->func : s->func;
            c[i].file = y ? (y->where[0] ? y->where : "<unknown>") : s->file;
            c[i].line = y ? -1 : s->line;
            c[i].at_peak = s->seen == mt.peak_no ? s->at_peak : s->live;
        }
        qsort(c, mt.nsorted, sizeof *c, mtrace_by_charge_key);
        for (i = j = 0; i < mt.nsorted; i++)        /* one row per place */
            if (j && c[j - 1].key == c[i].key)
                c[j - 1].at_peak += c[i].at_peak;
            else
                c[j++] = c[i];
        qsort(c, j, sizeof *c, mtrace_by_charge_bytes);
        o += snprintf(o, (size_t)(end - o), "%s   at peak                function   file (charged past MTRACE_ALLOC_FN)\n", who);
        for (i = 0; i < j && i < MTRACE_ROWS && o < end; i++)
            o += c[i].line >= 0
                ? snprintf(o, (size_t)(end - o), "%s%10lu    %20.*s   %.*s:%d\n", who, (unsigned long)c[i].at_peak,
                           MTRACE_NAMEMAX, c[i].func, MTRACE_NAMEMAX, c[i].file, c[i].line)
                : snprintf(o, (size_t)(end - o), "%s%10lu    %20.*s   %.*s\n", who, (unsigned long)c[i].at_peak,
                           MTRACE_NAMEMAX, c[i].func, MTRACE_NAMEMAX, c[i].file);
        if (j > MTRACE_ROWS && o < end)
            o += snprintf(o, (size_t)(end - o), "%s       ...   (%u more places)\n", who, j - MTRACE_ROWS);
    }
    mtrace_unpages(c, mt.nsorted * sizeof *c + 1);
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    return o < end ? o : end;
}


static int mtrace_report(void)
{
    enum { QUOTED = 4 * MTRACE_PATHMAX + 64 };
    char *q;
    long threads;
    size_t cap = 8192 + (size_t)MTRACE_ROWS * (2 * MTRACE_NAMEMAX + 64), leaks = 0;
    char *out = (char *)mtrace_pages(cap), *o, *end;
    char who[64] = "", tag[64] = "";
    unsigned i, *order;
    if (!out)
        return 0;
    o = out;
    end = out + cap - 1;
    if (mt.rank >= 0) {
        snprintf(who, sizeof who, "[rank %ld] ", mt.rank);
        snprintf(tag, sizeof tag, " (rank %ld)", mt.rank);
    } else if (mt.child || mt.forked) {
        snprintf(who, sizeof who, "[pid %d] ", mt.pid);
        snprintf(tag, sizeof tag, " (pid %d)", mt.pid);
    }
#define MTRACE_OUT(...) (o += snprintf(o, (size_t)(end - o), __VA_ARGS__), o = o < end ? o : end)
    if (mt.level <= 2) {
        MTRACE_OUT("%s*** MTRACE: max resident  set size: %10lu bytes\n", who, (unsigned long)mt.maxrss);
        MTRACE_OUT("%s*** MTRACE: max traced memory size: %10lu bytes (tracing overhead %.1f%%)\n",
               who, (unsigned long)mt.max,
               mt.max ? 100.0 * (double)mt.maxoverhead / (double)mt.max : 0.0);
        order = mt.depth > 1 && mt.alloc_fns ? 0 : mtrace_sorted_sites(mtrace_by_peak);
        if (!order && mt.depth > 1)
            o = mtrace_put_charged(o, end, who);
        if (order && mt.nsorted) {
            MTRACE_OUT("%s max bytes                function   file\n", who);
            for (i = 0; i < mt.nsorted && i < MTRACE_ROWS; i++) {
                struct mtrace_sitestat *s = &mt.sites[order[i]];
                MTRACE_OUT("%s%10lu    %20.*s   %.*s:%d\n", who, (unsigned long)s->peak,
                       MTRACE_NAMEMAX, s->func, MTRACE_NAMEMAX, s->file, s->line);
            }
            if (mt.nsorted > MTRACE_ROWS)
                MTRACE_OUT("%s       ...   (%u more sites)\n", who, mt.nsorted - MTRACE_ROWS);
        }
        mtrace_unpages(order, mt.maxsites * sizeof *order);
        if (mt.incomplete)
            MTRACE_OUT("%s*** MTRACE: the tracer ran out of memory: figures are incomplete\n", who);
        if (mt.trace_written && (q = (char *)mtrace_pages(QUOTED * 3))) {
            mtrace_shell_word(q, "--gnuplot=", mt.path, ".gp");
            mtrace_shell_word(q + QUOTED, "", mt.path, "");
            mtrace_shell_word(q + 2 * QUOTED, "", mt.path, ".gp");
            MTRACE_OUT("%s*** MTRACE: To get a graph use: mtrace2massif %s %s && gnuplot -persist %s\n",
                       who, q, q + QUOTED, q + 2 * QUOTED);
            mtrace_unpages(q, QUOTED * 3);
        }
    }
    if (mt.reachable_mode)
        mtrace_find_reachable();
    order = mtrace_sorted(mtrace_by_live, mt.depth > 0);    /* by stack, with stacks */
    for (i = 0; order && mt.depth > 1 && i < mt.nsorted && mt.sites[order[i]].live; i++)
        ;
    if (i)                      /* name the stacks that leak */
        mtrace_name_stacks(order, i);
    for (i = 0; order && i < mt.nsorted && mt.sites[order[i]].live; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        struct mtrace_supp *sup = mtrace_suppression(s);
        unsigned top = mtrace_charged(s);
        const struct mtrace_sym *y = top ? mtrace_sym_of(s->frames[top - 1]) : 0;
        if (o + 2 * MTRACE_NAMEMAX + 4096 >= end) {     /* flush a long leak list */
            mtrace_write_all(2, out, (size_t)(o - out));
            o = out;
        }
        if (sup) {              /* expected: counted, not an error */
            sup->bytes += s->live;
            sup->blocks += s->nlive;
            mt.suppressed += s->live;
            mt.suppressed_blocks += s->nlive;
            continue;
        }
        if (s->reach)
            MTRACE_OUT("%.*s:%d: note: %lu bytes still reachable here%s\n", MTRACE_NAMEMAX, s->file, s->line,
                       (unsigned long)s->reach, tag);
        mt.reachable += s->reach;
        if (s->live == s->reach)
            continue;
        if (!y)
            MTRACE_OUT("%.*s:%d: error: %lu bytes leaked here%s\n", MTRACE_NAMEMAX, s->file, s->line,
                       (unsigned long)(s->live - s->reach), tag);
        else                    /* charged past the MTRACE_ALLOC_FN functions */
            MTRACE_OUT("%s: error: %lu bytes leaked here (in %s)%s\n", y->where[0] ? y->where : "<unknown>:0",
                       (unsigned long)(s->live - s->reach), y->func, tag);
        if (s->nframes > top && !(top && mtrace_in_main(s->frames[top - 1])))
            o = mtrace_put_chain(o, end, s->frames, top, s->nframes);
        mt.leaked += s->live - s->reach;
        mt.leaked_blocks += s->nlive - s->reach_blocks;
        leaks++;
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    if (mt.suppressed)
        MTRACE_OUT("%s*** MTRACE: %lu bytes in %lu blocks suppressed\n", who,
                   (unsigned long)mt.suppressed, (unsigned long)mt.suppressed_blocks);
    for (i = 0; i < mt.nsupp; i++)
        if (!mt.supp[i].blocks)
            MTRACE_OUT("%.300s:%u: warning: suppression matched no leak%s\n", mt.supp_file, mt.supp[i].at, tag);
    if (mt.budget && mt.max > mt.budget)
        o = mtrace_put_budget(o, end, who);
    if (leaks && !mt.reachable_mode && (threads = mtrace_threads()) > 1)
        MTRACE_OUT("%s*** MTRACE: note: %ld other thread%s still running at exit: "
                   "the blocks they held count as leaks\n", who, threads - 1, threads > 2 ? "s were" : " was");
    if (mt.passed && mt.level <= 2)
        MTRACE_OUT("%s*** MTRACE: %lu calls made by signal handlers inside the tracer were not traced\n",
                   who, (unsigned long)mt.passed);
    if (mt.invalid_frees)
        MTRACE_OUT("%s*** MTRACE: %lu invalid free%s ignored\n", who,
               (unsigned long)mt.invalid_frees, mt.invalid_frees > 1 ? "s" : "");
    if (mt.double_frees)
        MTRACE_OUT("%s*** MTRACE: %lu double free%s ignored\n", who,
               (unsigned long)mt.double_frees, mt.double_frees > 1 ? "s" : "");
    else if (!leaks && !mt.invalid_frees && mt.level <= 2)
        MTRACE_OUT("%s*** MTRACE: No memory leaks\n", who);
#undef MTRACE_OUT
    mtrace_write_all(2, out, (size_t)(o - out));
    mtrace_unpages(out, cap);
    return leaks || mt.double_frees || mt.invalid_frees || mt.over_budget;
}

/* After the program's atexit handlers and destructors (ours has the
   highest priority number, so it runs last): tail, report, exit status.
   Leaks turn a 0 status into 1 with _exit, after flushing stdio ourselves:
   calling exit() again from here would be undefined. */
static void mtrace_finish(void)
{
    size_t rss;
    int bad;
    if (!mtrace_lock_ready())
        return;
    if (mtrace_getpid() != mt.pid) {
        mtrace_unlock();
        return;
    }
    __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
    rss = mtrace_rss();
    if (rss > mt.maxrss)
        mtrace_set_rss(rss);
    if ((mt.trace_written = mtrace_end_trace()))
        mtrace_close(mt.fd);
    pmtrace.fd = mt.fd = -1;
    mt.tracing = 0;
    mtrace_unlock();
    bad = mtrace_report();
    mtrace_write_json(bad && mt.exit_status == 0 ? 1 : mt.exit_status);
    if (bad && mt.exit_status == 0) {
        fflush(0);
        mtrace_exit_now(1);
    }
}

/* ---- the traced entry points (what the program's malloc etc. call) ---- */

/* The site its caller announced for the call whose first argument is
   `key`.  A ring, not one slot: another traced call may run while the
   arguments of this one are evaluated (calloc(n, strlen(strdup(s))));
   a key, so that a site announced for a call that never reached us
   (mem->free(p) with the program's own free) is not taken by the next
   call through a pointer. */
static MTRACE_HOT struct mtrace_site *mtrace_pop(struct mtrace_pending *q, unsigned j)
{
    struct mtrace_site *s = q->site[j];
    q->site[j] = 0;
    q->top = (j - 1) & 3;
    q->taken_frame = q->caller ? q->caller_frame : q->frame[j];
    return q->caller ? q->caller : s;
}

static MTRACE_HOT struct mtrace_site *mtrace_take(uintptr_t key)
{
    struct mtrace_pending *q = &mtrace_pending;
    unsigned i, t = q->top & 3;
    if (q->key[t] == key && q->site[t])     /* the usual case: the last one */
        return mtrace_pop(q, t);
    for (i = 1; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == key)
            return mtrace_pop(q, (t - i) & 3);
    /* The compiler turns realloc(NULL, n) into malloc(n): the key was the
       null pointer, the callee sees n. */
    for (i = 0; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == 0)
            return mtrace_pop(q, (t - i) & 3);
    q->taken_frame = q->caller ? q->caller_frame : 0;
    return q->caller ? q->caller : &mtrace_unknown_site;
}

/* c: the callers of the call under way in a traced entry point, walked
   with stacks on from the frame of the function that made the call (the
   macro's __builtin_frame_address makes it keep one).  The builtin here
   gives the entry point a frame pointer too: see mtrace_walk. */
#define MTRACE_CALLERS(c, d) struct mtrace_chain c;                                           \
    if (mt.depth > 1)                                                                       \
        mtrace_walk(&c, (const uintptr_t *)mtrace_pending.taken_frame, d,                   \
                    __builtin_frame_address(0));                                            \
    else                                                                                    \
        c.n = 0

static MTRACE_HOT void *mtrace_traced(void *p, size_t size, struct mtrace_site *d,
                                       const struct mtrace_chain *c, int op)
{
    if (p && mtrace_lock_ready()) {
        mtrace_add(&mt.heap, p, size, mtrace_where(d, c), op);
        mtrace_unlock();
    }
    return p;
}

/* realloc of a live traced block, lock held (released here).  The C
   library's realloc runs under our lock: it does not call the malloc
   symbols back, and the address it frees cannot reach another thread's
   record before our tombstone does.  `d` is 0 for code without mtrace:
   the block keeps its site. */
static void *mtrace_move(struct mtrace_block *b, void *p, size_t n, struct mtrace_site *d,
                         const struct mtrace_chain *c)
{
    unsigned site = d ? mtrace_where(d, c) : mtrace_b_site(b);
    void *q = mtrace_libc_realloc(p, n);
    if (q || n == 0) {
        mtrace_drop(&mt.heap, b, d ? d : &mtrace_untraced_site, '<');
        if (q)
            mtrace_add(&mt.heap, q, n, site, '>');
    }
    mtrace_unlock();
    return q;
}

/* realloc and reallocarray from traced code.  `first` is the record of a
   block that did not exist before: '>' for realloc(NULL, n). */
static void *mtrace_resize(void *p, size_t n, struct mtrace_site *d, const struct mtrace_chain *c, int first)
{
    struct mtrace_block *b;
    if (p && mtrace_lock_ready()) {
        b = mtrace_find(&mt.heap, (uintptr_t)p);
        if (mtrace_live(b))
            return mtrace_move(b, p, n, d, c);
        if (b->addr && mt.interposed) {
            mtrace_double_free(b, d, "double free: realloc of a block already freed", c, 0);  /* continuing: nothing */
            return 0;
        }
        mtrace_unlock();
    }
    return mtrace_traced(mtrace_libc_realloc(p, n), n, d, c, first);
}

/* The traced call under way on this thread, for the note that names it
   if the program dies inside (mtrace_on_signal): two stores per call. */
static MTRACE_HOT struct mtrace_site *mtrace_enter(const char *call, struct mtrace_site *d)
{
    mtrace_pending.call_site = d;
    mtrace_pending.call = call;
    return d;
}

static MTRACE_HOT void *mtrace_leave(void *result)
{
    mtrace_pending.call = 0;
    return result;
}

MTRACE_API void *mtrace_malloc(size_t n)
{
    struct mtrace_site *d = mtrace_enter("malloc", mtrace_take((uintptr_t)n));
    MTRACE_CALLERS(c, d);
    return mtrace_leave(mtrace_traced(mtrace_libc_malloc(n), n, d, &c, '+'));
}

MTRACE_API void *mtrace_calloc(size_t n, size_t size)
{
    struct mtrace_site *d = mtrace_enter("calloc", mtrace_take((uintptr_t)n));
    MTRACE_CALLERS(c, d);
    return mtrace_leave(mtrace_traced(mtrace_libc_calloc(n, size), n * size, d, &c, '+'));
}

MTRACE_API void *mtrace_realloc(void *p, size_t n)
{
    struct mtrace_site *d = mtrace_enter("realloc", mtrace_take((uintptr_t)p));
    MTRACE_CALLERS(c, d);
    return mtrace_leave(mtrace_resize(p, n, d, &c, '>'));
}

MTRACE_API void *mtrace_reallocarray(void *p, size_t n, size_t size)
{
    struct mtrace_site *d = mtrace_enter("reallocarray", mtrace_take((uintptr_t)p));
    MTRACE_CALLERS(c, d);
    if (size && n > (size_t)-1 / size)
        return mtrace_leave(mtrace_libc_reallocarray(p, n, size));  /* NULL, ENOMEM */
    return mtrace_leave(mtrace_resize(p, n * size, d, &c, '+'));
}

/* A block given back at `by`: closes it and says 1 (hand it to its
   allocator), or reports a double free of a tombstone when tombstones can
   be trusted, and says 0 (the call does nothing).  Unknown: 1. */
static MTRACE_HOT int mtrace_release(struct mtrace_table *t, void *p, struct mtrace_site *by, int trust,
                                     const uintptr_t *frame)
{
    struct mtrace_block *b;
    int known = 1;
    if (!p || !mtrace_lock_ready())
        return 1;
    b = t->dir ? mtrace_find(t, (uintptr_t)p) : 0;
    if (b && mtrace_live(b))
        mtrace_drop(t, b, by, '-');
    else if (b && b->addr && trust) {
        mtrace_double_free(b, by, "double free of a block", 0, frame);
        return 0;
    } else
        known = 0;
    mtrace_unlock();
    return known ? 1 : 2;
}

/* Is p on the calling thread's stack?  The bounds are asked once per
   thread; only pointers mtrace does not know get here (two compares). */
static int mtrace_on_stack(const void *p)
{
    struct mtrace_pending *q = &mtrace_pending;
    if (!q->stack_hi) {
        pthread_attr_t a;
        void *lo;
        size_t n;
        q->stack_hi = 1;        /* unknown: nothing is on it */
        if (mtrace_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &lo, &n) == 0) {
                q->stack_lo = (uintptr_t)lo;
                q->stack_hi = (uintptr_t)lo + n;
            }
            pthread_attr_destroy(&a);
        }
    }
    return (uintptr_t)p >= q->stack_lo && (uintptr_t)p < q->stack_hi;
}

/* free() of an address on the caller's stack: said like a double free,
   with the trace flushed, then abort (or go on: MTRACE_DOUBLE_FREE). */
static void mtrace_invalid_free(struct mtrace_site *by)
{
    char msg[2 * MTRACE_NAMEMAX + 128];
    int n = snprintf(msg, sizeof msg, "%.*s:%d: error: free of an address on the stack (in %.*s)\n",
                     MTRACE_NAMEMAX, by->file, by->line, MTRACE_NAMEMAX, by->func);
    if (mtrace_lock_ready()) {
        mt.invalid_frees++;
        mtrace_flush();
        mtrace_unlock();
    }
    mtrace_write_all(2, msg, n < (int)sizeof msg ? (size_t)n : sizeof msg - 1);
    mtrace_pending.call = 0;
    if (!mt.keep_going)
        abort();
}

MTRACE_API void mtrace_free(void *p)
{
    struct mtrace_site *d = mtrace_enter("free", mtrace_take((uintptr_t)p));
    int known = mtrace_release(&mt.heap, p, d, mt.interposed, (const uintptr_t *)mtrace_pending.taken_frame);
    if (known == 2 && mtrace_on_stack(p))
        mtrace_invalid_free(d);
    else if (known)
        mtrace_libc_free(p);
    mtrace_leave(0);
}

#ifdef MTRACE_RUNTIME           /* see mtrace_entry_points_ours */
static void *mtrace_own_malloc_(size_t) __attribute__((alias("mtrace_malloc")));
static void mtrace_own_free_(void *) __attribute__((alias("mtrace_free")));
#endif

/* strdup and strndup: the n bytes at s and a terminator, in a block of
   the C library's malloc itself, traced at d.  glibc's own strdup calls
   malloc through the program's symbol, which is our interposer: each copy
   cost a second pass through the tables (10% of the time of bench's
   json-config at level 2). */
static char *mtrace_copy(const char *s, size_t n, struct mtrace_site *d, const struct mtrace_chain *c)
{
    char *p = (char *)mtrace_libc_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return (char *)mtrace_leave(mtrace_traced(p, n + 1, d, c, '+'));
}

MTRACE_API char *mtrace_strdup(const char *s)
{
    struct mtrace_site *d = mtrace_enter("strdup", mtrace_take((uintptr_t)s));
    MTRACE_CALLERS(c, d);
    return mtrace_copy(s, strlen(s), d, &c);
}

MTRACE_API char *mtrace_strndup(const char *s, size_t n)
{
    struct mtrace_site *d = mtrace_enter("strndup", mtrace_take((uintptr_t)s));
    MTRACE_CALLERS(c, d);
    return mtrace_copy(s, strnlen(s, n), d, &c);
}

MTRACE_API void *mtrace_aligned_alloc(size_t align, size_t n)
{
    struct mtrace_site *d = mtrace_take((uintptr_t)align);
    MTRACE_CALLERS(c, d);
    return mtrace_traced(mtrace_libc_aligned_alloc(align, n), n, d, &c, '+');
}

MTRACE_API int mtrace_posix_memalign(void **pp, size_t align, size_t n)
{
    struct mtrace_site *d = mtrace_take((uintptr_t)pp);
    int err;
    MTRACE_CALLERS(c, d);
    if ((err = mtrace_libc_posix_memalign(pp, align, n)) == 0)
        mtrace_traced(*pp, n, d, &c, '+');
    return err;
}

MTRACE_API void *mtrace_valloc(size_t n)
{
    struct mtrace_site *d = mtrace_take((uintptr_t)n);
    MTRACE_CALLERS(c, d);
    return mtrace_traced(mtrace_libc_valloc(n), n, d, &c, '+');
}

#ifdef __GLIBC__
MTRACE_API void *mtrace_memalign(size_t align, size_t n)
{
    struct mtrace_site *d = mtrace_take((uintptr_t)align);
    MTRACE_CALLERS(c, d);
    return mtrace_traced(mtrace_libc_memalign(align, n), n, d, &c, '+');
}

MTRACE_API void *mtrace_pvalloc(size_t n)
{
    struct mtrace_site *d = mtrace_take((uintptr_t)n);
    MTRACE_CALLERS(c, d);
    return mtrace_traced(mtrace_libc_pvalloc(n), n, d, &c, '+');
}
#endif

/* _exit, _Exit and quick_exit from traced code: the program's exit
   handlers are skipped, and so is the report, but the trace is written
   out whole, with its tail (a forked child that ends with _exit leaves a
   complete trace).  The status is the program's. */
MTRACE_API void mtrace__exit(int status)
{
    mtrace_write_out();
    mtrace_exit_now(status);
}

MTRACE_API void mtrace__Exit(int status)
{
    mtrace_write_out();
    mtrace_libc__Exit(status);
}

MTRACE_API void mtrace_quick_exit(int status)
{
    mtrace_write_out();
    if (!mtrace_single_threaded)        /* quick_exit's own handlers may allocate */
        __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
    mtrace_pending.busy = 0;
    mtrace_libc_quick_exit(status);
}

#ifdef MTRACE_INTERPOSE
/* ---- interposers: the program's own malloc, calloc, realloc and free ----

   Code compiled without mtrace (the C library itself, other libraries)
   calls these.  They trace nothing new, but keep the table true: a traced
   block freed or resized there (getline growing a buffer the program
   allocated) is closed or moved, and an address handed out there erases
   the tombstone it may have left, so that freeing it later is not taken
   for a double free.  A static binary gets the C library's own functions
   instead; see mtrace_init. */

/* An address the C library just handed to code we do not see. */
static void *mtrace_forget(void *p)
{
    struct mtrace_block *b;
    if (!__atomic_load_n(&mt.interposed, __ATOMIC_RELAXED))
        __atomic_store_n(&mt.interposed, 1, __ATOMIC_RELAXED);
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY && mtrace_lock_ready()) {
        b = mtrace_find(&mt.heap, (uintptr_t)p);
        if (mtrace_live(b))
            mtrace_count('-', mtrace_b_site(b), mtrace_b_size(b));
        if (b->addr)
            mtrace_erase(&mt.heap, b);
        mtrace_unlock();
    }
    return p;
}

MTRACE_API void *mtrace_sym_malloc(size_t n)
{
    if (n == MTRACE_WHO_ASKS)           /* see mtrace_probe_interposer */
        return (void *)&mt;
    return mtrace_forget(mtrace_libc_malloc(n));
}

MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size) MTRACE_SYM_(calloc);
MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size)
{
    return mtrace_forget(mtrace_libc_calloc(n, size));
}

MTRACE_API void *mtrace_sym_realloc(void *p, size_t n) MTRACE_SYM_(realloc);
MTRACE_API void *mtrace_sym_realloc(void *p, size_t n)
{
    struct mtrace_block *b;
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY && mtrace_lock_ready()) {
        b = mtrace_find(&mt.heap, (uintptr_t)p);
        if (mtrace_live(b))
            return mtrace_move(b, p, n, 0, 0);
        mtrace_unlock();
    }
    return mtrace_forget(mtrace_libc_realloc(p, n));
}

MTRACE_API void mtrace_sym_free(void *p)
{
    if (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY)
        mtrace_release(&mt.heap, p, &mtrace_untraced_site, 0, 0);
    mtrace_libc_free(p);
}

/* The aligned ones too: glibc serves them without its malloc, so an
   address freed by traced code may come back through them, and its
   tombstone must go (or a later traced free of it would look double). */
MTRACE_API void *mtrace_sym_memalign(size_t align, size_t n) MTRACE_SYM_(memalign);
MTRACE_API void *mtrace_sym_memalign(size_t align, size_t n)
{
    return mtrace_forget(mtrace_libc_memalign(align, n));
}

MTRACE_API void *mtrace_sym_aligned_alloc(size_t align, size_t n) MTRACE_SYM_(aligned_alloc);
MTRACE_API void *mtrace_sym_aligned_alloc(size_t align, size_t n)
{
    return mtrace_forget(mtrace_libc_aligned_alloc(align, n));
}

MTRACE_API int mtrace_sym_posix_memalign(void **pp, size_t align, size_t n) MTRACE_SYM_(posix_memalign);
MTRACE_API int mtrace_sym_posix_memalign(void **pp, size_t align, size_t n)
{
    int err = mtrace_libc_posix_memalign(pp, align, n);
    if (err == 0)
        mtrace_forget(*pp);
    return err;
}

MTRACE_API void *mtrace_sym_valloc(size_t n) MTRACE_SYM_(valloc);
MTRACE_API void *mtrace_sym_valloc(size_t n)
{
    return mtrace_forget(mtrace_libc_valloc(n));
}

MTRACE_API void *mtrace_sym_pvalloc(size_t n) MTRACE_SYM_(pvalloc);
MTRACE_API void *mtrace_sym_pvalloc(size_t n)
{
    return mtrace_forget(mtrace_libc_pvalloc(n));
}
#endif

/* ---- annotations for the program's own allocators ---- */

/* The frame of the function that called the annotation: MTRACE_ALLOC_FN's
   caller's, or the one the annotation's own frame saved (its caller keeps
   frame pointers when its site says so; mtrace_walk checks the rest). */
#define mtrace_annotation_frame() (mtrace_pending.caller ? mtrace_pending.caller_frame \
                                   : *(void **)__builtin_frame_address(0))

MTRACE_API void mtrace_malloclike(void *p, size_t size, struct mtrace_site *site)
{
    struct mtrace_site *d = mtrace_pending.caller ? mtrace_pending.caller : site;
    unsigned pool;
    mtrace_pending.taken_frame = mtrace_annotation_frame();
    MTRACE_CALLERS(c, d);
    if (p && mtrace_lock_ready()) {
        pool = mtrace_pool_index(d);
        mtrace_add(&mt.pool, p, size, mt.depth && pool ? mtrace_stack_index(pool, &c) : pool, '+');
        mtrace_unlock();
    }
}

MTRACE_API void mtrace_freelike(void *p, struct mtrace_site *site)
{
    mtrace_release(&mt.pool, p, site, 1, (const uintptr_t *)mtrace_annotation_frame());
}

#undef mt
#endif /* MTRACE_RUNTIME_INCLUDED_ */
#else
typedef int mtrace_empty_unit_;     /* compiled alone: nothing (ISO C wants a declaration) */
#endif
