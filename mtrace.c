/* mtrace.c - the runtime of mtrace.h.  Not compiled on its own: mtrace.h
   includes it in every translation unit of the traced program, so that
   "-include mtrace.h" is the only flag a build needs.  Every external
   definition is weak (the linker keeps one copy); everything else is
   static.  The code is written in C89 syntax because it is compiled with
   the program's own flags, -std=c89 -pedantic included, and it names no
   libc function the program could have redefined: private names bound to
   the libc symbols with asm labels.

   One lock guards everything: the block table, the site table, the totals
   and the trace buffer.  Records are formatted under it, which is what
   makes RECNO gapless and every TOTAL consistent with the record order. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define MTRACE_API __attribute__((weak))
#define MT_HOT __inline__ __attribute__((always_inline))   /* the per-call path */
#if defined(__x86_64__) || defined(__i386__)
#define MT_PAUSE() __builtin_ia32_pause()   /* a spinning thread's hint */
#else
#define MT_PAUSE() ((void)0)
#endif
#define MT_LIBC(ret, name, args, sym) extern ret name args MTRACE_SYM_(sym)

MT_LIBC(long, mt_write, (int, const void *, size_t), write);
MT_LIBC(int, mt_close, (int), close);
MT_LIBC(int, mt_ftruncate, (int, long), ftruncate);
MT_LIBC(int, mt_getpid, (void), getpid);
MT_LIBC(char *, mt_getcwd, (char *, size_t), getcwd);
MT_LIBC(void, mt_exit_now, (int), _exit);
MT_LIBC(int, mt_sched_yield, (void), sched_yield);
MT_LIBC(char *, mt_getenv, (const char *), secure_getenv);
MT_LIBC(int, mt_atfork, (void (*)(void), void (*)(void), void (*)(void)), pthread_atfork);
MT_LIBC(char *, mt_libc_strdup, (const char *), strdup);
MT_LIBC(char *, mt_libc_strndup, (const char *, size_t), strndup);
MT_LIBC(void *, mt_libc_aligned_alloc, (size_t, size_t), aligned_alloc);
MT_LIBC(int, mt_libc_posix_memalign, (void **, size_t, size_t), posix_memalign);
MT_LIBC(void *, mt_libc_reallocarray, (void *, size_t, size_t), reallocarray);

/* The C library's allocator.  On glibc the program also defines malloc,
   calloc, realloc and free itself (see the interposers at the end), so
   the real ones are reached by their __libc_ names.  Not under
   AddressSanitizer, whose own malloc must stay the program's. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define MT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MT_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(MT_SANITIZED)
#define MT_INTERPOSE 1
#endif
#ifdef __GLIBC__
MT_LIBC(char, mt_single_threaded, , __libc_single_threaded);
#else
#define mt_single_threaded 0
#endif
#ifdef MT_INTERPOSE
MT_LIBC(void *, mt_libc_malloc, (size_t), __libc_malloc);
MT_LIBC(void *, mt_libc_calloc, (size_t, size_t), __libc_calloc);
MT_LIBC(void *, mt_libc_realloc, (void *, size_t), __libc_realloc);
MT_LIBC(void, mt_libc_free, (void *), __libc_free);
MT_LIBC(void *, mt_libc_memalign, (size_t, size_t), __libc_memalign);
MT_LIBC(void *, mt_libc_valloc, (size_t), __libc_valloc);
MT_LIBC(void *, mt_libc_pvalloc, (size_t), __libc_pvalloc);
#else
MT_LIBC(void *, mt_libc_malloc, (size_t), malloc);
MT_LIBC(void *, mt_libc_calloc, (size_t, size_t), calloc);
MT_LIBC(void *, mt_libc_realloc, (void *, size_t), realloc);
MT_LIBC(void, mt_libc_free, (void *), free);
MT_LIBC(void *, mt_libc_valloc, (size_t), valloc);
MT_LIBC(void *, mt_libc_memalign, (size_t, size_t), memalign);
MT_LIBC(void *, mt_libc_pvalloc, (size_t), pvalloc);
#endif

enum { MT_OFF, MT_STARTING, MT_READY, MT_DONE };
#define MT_BUFSIZE 65536        /* trace buffer; one write(2) when half full */
#define MT_NAMEMAX 4096         /* longest FUNC or FILE written to the trace */
#define MT_RSS_EVERY 1024       /* MAXRSS is refreshed every 1024 records... */
#define MT_RSS_BIG (1 << 20)    /* ...and after every operation of >= 1 MiB */
#define MT_ROWS 20              /* summary rows before "N more sites" */

/* A block the program got from a traced call, in 16 bytes: its address,
   and one word holding its site (the low 20 bits), a freed flag, and its
   size, or once freed the site of the free.  The entry stays as a
   tombstone until the C library hands the address out again, so a second
   free can name both places. */
struct mt_block {
    uintptr_t addr;
    uint64_t word;
};
#define MT_SITE_BITS 20
#define MT_MAXSITES ((1u << MT_SITE_BITS) - 1)
#define MT_FREED ((uint64_t)1 << MT_SITE_BITS)

/* Blocks by address: open addressing, linear probing, at most 3/4 full. */
struct mt_table {
    struct mt_block *slots;
    size_t n, nlive, nfreed, grow_at;
};

/* Per-site figures, indexed by mtrace_site.index.  `id` is the number the
   trace uses, given when the site first appears in a record. */
struct mt_site {
    const char *func, *file;
    int line;
    unsigned id;
    size_t live, peak, allocs;
};

struct mt_state {
    int fd;                     /* the trace, or -1 (first: see the initializer) */
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
    int keep_going;             /* MTRACE_DOUBLE_FREE=continue */
    int forked;                 /* this process has forked: name it */
    int nofollow;               /* the trace name is the default one */
    long rank;                  /* MPI rank, -1 outside MPI */
    unsigned long dev, ino;     /* the trace file, to check our descriptor */
    int pid;
    struct mt_table heap;       /* blocks from the C library */
    struct mt_table pool;       /* blocks of the program's own allocators
                                   (MTRACE_MALLOCLIKE): they may lie inside a
                                   heap block, even at its address */
    struct mt_site *sites;      /* [0] unused */
    unsigned nsites, maxsites, nids;
    unsigned *sitehash, nsitehash;
    unsigned nsorted;           /* length of mt_sorted_sites' result */
    size_t double_frees;
    char path[4096];
    volatile size_t len, flushed;   /* committed bytes in buf, written bytes */
    char buf[MT_BUFSIZE];
};

MTRACE_API __thread struct mtrace_pending mtrace_pending;
MTRACE_API volatile struct mtrace_pmtrace pmtrace = { 0, 0, 0, 0, 0, 0, 0, 0, "", -1 };
MTRACE_API struct mt_state mtrace_state_ = { -1 };
#define mt mtrace_state_

/* pmtrace is volatile for the program's sake (see mtrace.h): the tracer
   keeps its own copy of the figures and stores them there. */
static void mt_publish(void)
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
static struct mtrace_site mt_unknown_site = { "?", "<unknown>", 0, 0 };
static struct mtrace_site mt_untraced_site = { "?", "<code-without-mtrace>", 0, 0 };

/* The lock: a spinlock that yields early (with more threads than cores,
   spinning on a lock whose holder is not running wastes the core it
   needs), and no atomic operation at all while the process has one
   thread (glibc clears __libc_single_threaded for good in the first
   pthread_create, outside any critical section). */
static MT_HOT void mt_lock(void)
{
    int spins = 0;
    if (mt_single_threaded)
        return;
    while (__atomic_exchange_n(&mt.lock, 1, __ATOMIC_ACQUIRE))
        do {
            if (++spins % 2 == 0)
                mt_sched_yield();
            else
                MT_PAUSE();
        } while (__atomic_load_n(&mt.lock, __ATOMIC_RELAXED));
}

static MT_HOT void mt_unlock(void)
{
    if (!mt_single_threaded)
        __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
}

/* The tracer's own memory comes from mmap: never from the allocator it
   watches, so it cannot recurse or disturb the program's heap. */
static void *mt_pages(size_t bytes)
{
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    pmtrace.overhead = mt.overhead += bytes;
    return p;
}

static void mt_unpages(void *p, size_t bytes)
{
    if (p) {
        munmap(p, bytes);
        pmtrace.overhead = mt.overhead -= bytes;
    }
}

/* ---- output helpers (async-signal-safe) ---- */

static void mt_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        long w = mt_write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void mt_say(const char *s)
{
    mt_write_all(2, s, strlen(s));
}

/* Decimal digits, two at a time from the right: the trace is mostly
   numbers, and this is where level 1 spends its time.  The length comes
   from comparisons; the digits from 32-bit divisions when they fit. */
static char *mt_put_u(char *o, size_t v)
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
static void mt_next_recno(void)
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

static void mt_set_rss(size_t rss)
{
    pmtrace.maxrss = mt.maxrss = rss;
    mt.rss_len = (unsigned)(mt_put_u(mt.rss_text, rss) - mt.rss_text);
}

/* ---- the trace file ---- */

static int mt_fd_ok(void);
static void mt_warn(const char *what, const char *path, int err);

/* Writes the committed part of the buffer.  A signal handler may run this
   between two records of the interrupted thread: `len` only ever covers
   complete records, and `flushed` says what is already out. */
static void mt_flush(void)
{
    int fd = mt.fd;
    if (fd >= 0 && mt.flushed < mt.len)
        fd = mt_fd_ok() ? mt.fd : -1;
    while (fd >= 0 && mt.flushed < mt.len) {
        size_t from = mt.flushed;
        long w = mt_write(fd, mt.buf + from, mt.len - from);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            mt_warn("cannot write the trace file ", mt.path, w < 0 ? errno : ENOSPC);
            pmtrace.fd = mt.fd = -1;
            mt_close(fd);
            break;
        }
        mt.flushed = from + (size_t)w;
    }
    mt.len = 0;
    mt.flushed = 0;
}

static MT_HOT void mt_commit(char *end)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mt.len = (size_t)(end - mt.buf);
    if (mt.len > MT_BUFSIZE / 2)
        mt_flush();
}

/* FUNC and FILE must stay one token: blanks, control characters and '%'
   become %XX. */
static char *mt_put_name(char *o, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *end = s + strnlen(s, MT_NAMEMAX);
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
static void mt_put_site(struct mt_site *s)
{
    char *o = mt.buf + mt.len;
    s->id = ++mt.nids;
    *o++ = '@';
    *o++ = ' ';
    o = mt_put_u(o, s->id);
    *o++ = ' ';
    o = mt_put_name(o, s->func);
    *o++ = ' ';
    o = mt_put_name(o, s->file);
    *o++ = ' ';
    o = mt_put_u(o, (size_t)(s->line < 0 ? 0 : s->line));
    *o++ = '\n';
    mt_commit(o);
}

static size_t mt_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024;
}

/* "OP ID RECNO TOTAL SITE MAXRSS" for the operation just accounted. */
static MT_HOT void mt_put_op(int op, struct mt_site *s, size_t size)
{
    char *o;
    if ((mt.nr & (MT_RSS_EVERY - 1)) == 0 || size >= MT_RSS_BIG) {
        size_t rss = mt_rss();
        if (rss > mt.maxrss)
            mt_set_rss(rss);
    }
    if (mt.fd >= 0) {
        if (!s->id)
            mt_put_site(s);
        o = mt.buf + mt.len;
        *o++ = (char)op;
        *o++ = ' ';
        o = mt_put_u(o, s->id);
        *o++ = ' ';
        memcpy(o, mt.recno_text, sizeof mt.recno_text);     /* fixed size: */
        o += mt.recno_len;                                  /* no call */
        *o++ = ' ';
        o = mt_put_u(o, mt.total);
        *o++ = ' ';
        o = mt_put_u(o, s->live);
        *o++ = ' ';
        memcpy(o, mt.rss_text, sizeof mt.rss_text);
        o += mt.rss_len;
        *o++ = '\n';
        mt_commit(o);
        mt_next_recno();
    }
    pmtrace.nr = ++mt.nr;
}

/* ---- sites ---- */

static unsigned long mt_hash_str(unsigned long h, const char *s)
{
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3UL;
    return h;
}

static unsigned long mt_site_hash(const char *func, const char *file, int line)
{
    return mt_hash_str(mt_hash_str(0xcbf29ce484222325UL ^ (unsigned long)line, func), file);
}

static int mt_grow_sites(void)
{
    unsigned i, n = mt.maxsites ? mt.maxsites * 2 : 128;
    unsigned nhash = n * 2, mask = nhash - 1;
    struct mt_site *sites = (struct mt_site *)mt_pages(n * sizeof *sites);
    unsigned *hash = (unsigned *)mt_pages(nhash * sizeof *hash);
    if (!sites || !hash) {
        mt_unpages(sites, n * sizeof *sites);
        mt_unpages(hash, nhash * sizeof *hash);
        return 0;
    }
    if (mt.nsites)
        memcpy(sites, mt.sites, mt.nsites * sizeof *sites);
    for (i = 1; i < mt.nsites; i++) {
        unsigned long h = mt_site_hash(sites[i].func, sites[i].file, sites[i].line);
        while (hash[h & mask])
            h++;
        hash[h & mask] = i;
    }
    mt_unpages(mt.sites, mt.maxsites * sizeof *mt.sites);
    mt_unpages(mt.sitehash, mt.nsitehash * sizeof *mt.sitehash);
    mt.sites = sites;
    mt.sitehash = hash;
    mt.maxsites = n;
    mt.nsitehash = nhash;
    if (!mt.nsites)
        mt.nsites = 1;
    return 1;
}

/* The index of a call site, given on its first call.  Descriptors of the
   same function, file and line (a static inline function in a header, seen
   from several files) share one index.  0 if the table cannot grow. */
static unsigned mt_site_register(struct mtrace_site *d)
{
    unsigned long h;
    unsigned i, mask;
    if (mt.nsites >= MT_MAXSITES || (mt.nsites + 1 >= mt.maxsites && !mt_grow_sites()))
        return 0;
    mask = mt.nsitehash - 1;
    for (h = mt_site_hash(d->func, d->file, d->line); (i = mt.sitehash[h & mask]); h++) {
        struct mt_site *s = &mt.sites[i];
        if (s->line == d->line && !strcmp(s->func, d->func) && !strcmp(s->file, d->file))
            return d->index = i;
    }
    i = mt.nsites++;
    mt.sitehash[h & mask] = i;
    memset(&mt.sites[i], 0, sizeof mt.sites[i]);
    mt.sites[i].func = d->func;
    mt.sites[i].file = d->file;
    mt.sites[i].line = d->line;
    return d->index = i;
}

static MT_HOT unsigned mt_site_index(struct mtrace_site *d)
{
    return d->index ? d->index : mt_site_register(d);
}

/* ---- blocks ---- */

static MT_HOT unsigned mt_b_site(const struct mt_block *b)
{
    return (unsigned)(b->word & MT_MAXSITES);
}

static MT_HOT size_t mt_b_size(const struct mt_block *b)      /* live ones */
{
    return (size_t)(b->word >> (MT_SITE_BITS + 1));
}

static MT_HOT unsigned mt_b_freed_by(const struct mt_block *b) /* tombstones */
{
    return (unsigned)(b->word >> (MT_SITE_BITS + 1));
}

static MT_HOT int mt_freed(const struct mt_block *b)
{
    return (b->word & MT_FREED) != 0;
}

static MT_HOT size_t mt_slot(struct mt_table *t, uintptr_t addr)
{
    return (size_t)((((uint64_t)addr >> 4) * 0x9E3779B97F4A7C15ULL) >> 24) & (t->n - 1);
}

/* The entry for addr, or the empty slot where it would go. */
static MT_HOT struct mt_block *mt_find(struct mt_table *t, uintptr_t addr)
{
    size_t i = mt_slot(t, addr);
    while (t->slots[i].addr && t->slots[i].addr != addr)
        i = (i + 1) & (t->n - 1);
    return &t->slots[i];
}

/* Removes an entry, shifting back the ones that probed past it. */
static void mt_erase(struct mt_table *t, struct mt_block *b)
{
    size_t mask = t->n - 1, i = (size_t)(b - t->slots), j = i;
    if (mt_freed(b))
        t->nfreed--;
    else
        t->nlive--;
    for (;;) {
        size_t home;
        j = (j + 1) & mask;
        if (!t->slots[j].addr)
            break;
        home = mt_slot(t, t->slots[j].addr);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].addr = 0;
}

/* Grows the table (or rebuilds it without its tombstones when they
   outnumber live blocks: the oldest double frees then go unnoticed). */
static int mt_grow_blocks(struct mt_table *t)
{
    struct mt_block *old = t->slots;
    size_t i, n = t->n, cap = n;
    int keep_freed = t->nfreed <= t->nlive;
    if (!n)
        cap = 256;
    else if (keep_freed || t->nlive * 2 > n)
        cap = n * 2;
    t->slots = (struct mt_block *)mt_pages(cap * sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return 0;
    }
    t->n = cap;
    t->nlive = t->nfreed = 0;
    for (i = 0; i < n; i++)
        if (old[i].addr && (keep_freed || !mt_freed(&old[i]))) {
            *mt_find(t, old[i].addr) = old[i];
            if (mt_freed(&old[i]))
                t->nfreed++;
            else
                t->nlive++;
        }
    mt_unpages(old, n * sizeof *old);
    t->grow_at = cap / 4 * 3 - 1;
    return 1;
}

static MT_HOT int mt_make_room(struct mt_table *t)
{
    return t->nlive + t->nfreed < t->grow_at || mt_grow_blocks(t);
}

/* ---- accounting (lock held) ---- */

static MT_HOT void mt_count(int op, unsigned site, size_t size)
{
    struct mt_site *s = &mt.sites[site];
    if (op == '+' || op == '>') {
        s->allocs++;
        mt.total += size;
        s->live += size;
        if (s->live > s->peak)
            s->peak = s->live;
        if (mt.total > mt.max) {
            pmtrace.max = mt.max = mt.total;
            pmtrace.maxoverhead = mt.maxoverhead = mt.overhead;
        }
    } else {
        mt.total -= size;
        s->live -= size;
    }
    pmtrace.total = mt.total;
    mt_put_op(op, s, size);
}

/* A block the program now owns.  An entry already live at that address
   was freed behind our back (by code we do not see): close it first. */
static MT_HOT void mt_add(struct mt_table *t, void *p, size_t size, unsigned site, int op)
{
    struct mt_block *b;
    if (!site || (uint64_t)size >> (63 - MT_SITE_BITS) || !mt_make_room(t)) {
        if (!mt.incomplete)
            mt_say("*** MTRACE: the tracer's tables cannot grow: from now on its figures are incomplete\n");
        mt.incomplete = 1;
        return;
    }
    b = mt_find(t, (uintptr_t)p);
    if (!b->addr)
        t->nlive++;
    else if (mt_freed(b))
        t->nfreed--, t->nlive++;    /* the tombstone's address came back */
    else
        mt_count('-', mt_b_site(b), mt_b_size(b));
    b->addr = (uintptr_t)p;
    b->word = (uint64_t)size << (MT_SITE_BITS + 1) | site;
    mt_count(op, site, size);
}

/* The block is going away: writes '-' or '<' and leaves a tombstone. */
static MT_HOT void mt_drop(struct mt_table *t, struct mt_block *b, struct mtrace_site *by, int op)
{
    mt_count(op, mt_b_site(b), mt_b_size(b));
    b->word = (uint64_t)mt_site_index(by) << (MT_SITE_BITS + 1) | MT_FREED | mt_b_site(b);
    t->nlive--;
    t->nfreed++;
}

static MT_HOT int mt_live(struct mt_block *b)
{
    return b->addr && !mt_freed(b);
}

/* ---- start and end ---- */

static void mt_finish(void);
#ifdef MT_INTERPOSE
MT_LIBC(void *, mtrace_sym_malloc, (size_t), malloc);
MT_LIBC(void, mtrace_sym_free, (void *), free);
#else
#define mtrace_sym_malloc mt_libc_malloc
#define mtrace_sym_free mt_libc_free
#endif

static void mt_on_exit(int status, void *arg)
{
    (void)arg;
    mt.exit_status = status;
}

/* A fatal signal: get the completed records out, then die of the signal
   with its default action, so the exit status and core dump are the
   program's. */
static void mt_on_signal(int sig)
{
    struct sigaction dfl;
    mt_flush();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, 0);
    raise(sig);
}

static void mt_catch_signals(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM,
                                SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ };
    unsigned i;
    for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], 0, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = mt_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, 0);
    }
}

/* The MPI rank from the launcher's environment, -1 outside MPI. */
static long mt_mpi_rank(void)
{
    static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                  "MV2_COMM_WORLD_RANK", "SLURM_PROCID" };
    unsigned i;
    for (i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = mt_getenv(vars[i]);
        if (v && *v)
            return strtol(v, 0, 10);
    }
    return -1;
}

/* Appends s to the path being built, within its bounds. */
static char *mt_append(char *o, const char *s, size_t n)
{
    char *end = mt.path + sizeof mt.path - 32;
    while (n-- > 0 && *s && o < end)
        *o++ = *s++;
    return o;
}

/* mt.path: $MTRACE or "mtrace", with %p the pid and %q{VAR} the value of
   $VAR (as Massif's --massif-out-file), made absolute (the gnuplot lines
   must work from any directory), plus "-r" for MPI rank r > 0, plus
   ".PID" for a forked child whose name has no %p. */
static void mt_set_path(void)
{
    const char *name = mt_getenv("MTRACE"), *v, *close;
    char *o = mt.path, var[256];
    int has_pid = 0;
    mt.nofollow = !name || !*name;
    if (mt.nofollow)
        name = "mtrace";
    if (name[0] != '/' && mt_getcwd(mt.path, sizeof mt.path - 64)) {
        o += strlen(mt.path);
        if (o > mt.path + 1)
            *o++ = '/';
    }
    for (; *name; name++) {
        if (name[0] == '%' && name[1] == 'p') {
            o = mt_put_u(o, (size_t)mt.pid);
            has_pid = 1;
            name++;
        } else if (name[0] == '%' && name[1] == 'q' && name[2] == '{'
                   && (close = strchr(name, '}')) && close - name - 3 < (long)sizeof var) {
            memcpy(var, name + 3, (size_t)(close - name - 3));
            var[close - name - 3] = 0;
            if ((v = mt_getenv(var)))
                o = mt_append(o, v, strlen(v));
            name = close;
        } else
            o = mt_append(o, name, 1);
    }
    if (mt.rank > 0) {
        *o++ = '-';
        o = mt_put_u(o, (size_t)mt.rank);
    }
    if (mt.child && !has_pid) {
        *o++ = '.';
        o = mt_put_u(o, (size_t)mt.pid);
    }
    *o = 0;
}

static void mt_warn(const char *what, const char *path, int err)
{
    mt_say("*** MTRACE: ");
    mt_say(what);
    mt_say(path);
    mt_say(": ");
    mt_say(strerror(err));
    mt_say(": no trace, summary only\n");
    mt.trace_broken = 1;
}

/* Moves the descriptor out of the program's way (a high number, close on
   exec) and remembers which file it is, so that a program that closes
   all its descriptors or dup2()s over ours is noticed before a write. */
static int mt_keep_fd(int fd)
{
    struct stat st;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        mt_close(fd);
        fd = high;
    }
    if (fstat(fd, &st) == 0) {
        mt.dev = st.st_dev;
        mt.ino = st.st_ino;
    }
    return fd;
}

/* Opens the trace.  The file is locked while this process writes it: a
   program started by this one (system(), exec after fork) that traces
   under the same name finds the lock and writes NAME.PID instead of
   truncating our trace.  The default name is never followed through a
   symbolic link; a name the user gave is. */
static void mt_open_trace(void)
{
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mt.nofollow ? O_NOFOLLOW : 0);
    int fd, tries;
    struct stat st;
    mt_set_path();
    pmtrace.fname = mt.path;
    for (tries = 0; tries < 2; tries++) {
        fd = open(mt.path, flags, 0666);
        if (fd < 0) {
            mt_warn("cannot open the trace file ", mt.path, errno);
            return;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        mt_close(fd);
        fd = -1;
        if (!tries) {
            char *o = mt.path + strlen(mt.path);
            *o++ = '.';
            *mt_put_u(o, (size_t)mt.pid) = 0;
        }
    }
    if (fd < 0) {
        mt_warn("trace file in use: ", mt.path, EBUSY);
        return;
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && mt_ftruncate(fd, 0) != 0) {
        mt_warn("cannot truncate the trace file ", mt.path, errno);
        mt_close(fd);
        return;
    }
    pmtrace.fd = mt.fd = mt_keep_fd(fd);
}

/* Before each write: is our descriptor still our file?  If the program
   closed it or put another file under its number, reopen ours in append
   mode; if the file itself is gone, stop tracing with one warning. */
static int mt_fd_ok(void)
{
    struct stat st;
    int fd;
    if (fstat(mt.fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino)
        return 1;
    fd = open(mt.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino) {
        pmtrace.fd = mt.fd = mt_keep_fd(fd);
        return 1;
    }
    if (fd >= 0)
        mt_close(fd);
    pmtrace.fd = mt.fd = -1;
    mt_warn("lost the trace file ", mt.path, fd >= 0 ? ESTALE : errno);
    return 0;
}

/* fork: the child must not write the parent's buffered records.  It
   traces what it does itself, from zero: its own file (see mt_set_path),
   its own totals and leaks; the blocks it inherited are not its own
   (freeing them is silent, they are never its leaks). */
static void mt_fork_prepare(void) { mt_lock(); }
static void mt_fork_parent(void)
{
    mt.forked = 1;
    mt_unlock();
}
static void mt_fork_child(void)
{
    unsigned i;
    mt.len = mt.flushed = 0;
    mt.pid = mt_getpid();
    mt.child = 1;
    mt.forked = 0;
    memset(mt.heap.slots, 0, mt.heap.n * sizeof *mt.heap.slots);
    mt.heap.nlive = mt.heap.nfreed = 0;
    if (mt.pool.slots)
        memset(mt.pool.slots, 0, mt.pool.n * sizeof *mt.pool.slots);
    mt.pool.nlive = mt.pool.nfreed = 0;
    for (i = 1; i < mt.nsites; i++) {
        mt.sites[i].id = 0;
        mt.sites[i].live = mt.sites[i].peak = mt.sites[i].allocs = 0;
    }
    mt.nids = 0;
    mt.double_frees = 0;
    mt.total = mt.max = mt.nr = 0;
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    mt.maxoverhead = mt.overhead;
    if (mt.fd >= 0) {
        mt_close(mt.fd);
        pmtrace.fd = mt.fd = -1;
        mt_open_trace();
    }
    mt_publish();
    /* Released by hand: the child has one thread, and if glibc already says
       so, mt_unlock would leave the word taken for its first thread. */
    __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
}

/* Runs once, from the first traced call or from the constructor, whichever
   comes first.  on_exit and pthread_atfork allocate: they reach only the
   interposers, which do nothing until the state is READY. */
static void mt_init(void)
{
    int expect = MT_OFF;
    int probe;
    void *(*volatile probe_malloc)(size_t);
    void (*volatile probe_free)(void *);
    if (!__atomic_compare_exchange_n(&mt.state, &expect, MT_STARTING, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MT_STARTING)
            mt_sched_yield();
        return;
    }
    mt.pid = mt_getpid();
    mt.keep_going = mt_getenv("MTRACE_DOUBLE_FREE") && !strcmp(mt_getenv("MTRACE_DOUBLE_FREE"), "continue");
    mt.rank = mt_mpi_rank();
    if (MTRACE_LEVEL == 1)
        mt_open_trace();
    if (mt.fd >= 0)
        mt.overhead += sizeof mt.buf;
    mt_set_rss(mt.startrss = mt_rss());
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    on_exit(mt_on_exit, 0);
    mt_atfork(mt_fork_prepare, mt_fork_parent, mt_fork_child);
    if (mt.fd >= 0)
        mt_catch_signals();
    mt_grow_sites();
    mt_make_room(&mt.heap);
    /* Are our malloc and free the program's?  Not in a static binary,
       where the C library's own win; then a freed address may come back
       from an allocation we do not see, and a tombstone proves nothing. */
    probe = mt.interposed;
    mt.interposed = 0;
    probe_malloc = mtrace_sym_malloc;   /* through volatile pointers: the */
    probe_free = mtrace_sym_free;       /* compiler would drop the pair */
    probe_free(probe_malloc(1));
    mt.interposed = mt.interposed || probe;
    mt_publish();
    __atomic_store_n(&mt.state, MT_READY, __ATOMIC_RELEASE);
}

static int mt_ready_slow(void)
{
    int s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    if (s == MT_OFF || s == MT_STARTING) {
        mt_init();
        s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    }
    return s == MT_READY;
}

static MT_HOT int mt_ready(void)
{
    return __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MT_READY || mt_ready_slow();
}

__attribute__((constructor(101))) static void mt_constructor(void)
{
    mt_ready();
}

__attribute__((destructor(101))) static void mt_destructor(void)
{
    mt_finish();
}

/* ---- reports ---- */

/* Takes the lock if tracing is on; 0 (and no lock) otherwise. */
static MT_HOT int mt_lock_ready(void)
{
    if (!mt_ready())
        return 0;
    mt_lock();
    if (mt.state == MT_READY)
        return 1;
    mt_unlock();
    return 0;
}

static char *mt_place(char *o, char *end, unsigned site, const char *what)
{
    struct mt_site *s = &mt.sites[site];
    if (!site)
        return o + snprintf(o, (size_t)(end - o), "<unknown>:0: note: %s\n", what);
    return o + snprintf(o, (size_t)(end - o), "%s:%d: note: %s (in %s)\n",
                        s->file, s->line, what, s->func);
}

/* A second free (or realloc) of a traced block.  Called with the lock held;
   releases it.  Aborts, unless told to continue (MTRACE_DOUBLE_FREE). */
static void mt_double_free(struct mt_block *b, struct mtrace_site *by, const char *what)
{
    char msg[3 * MT_NAMEMAX], *o = msg, *end = msg + sizeof msg - 1;
    unsigned bad = mt_site_index(by);
    struct mt_site *s = &mt.sites[bad];
    o += snprintf(o, (size_t)(end - o), "%s:%d: error: %s of a block already freed (in %s)\n",
                  bad ? s->file : "<unknown>", bad ? s->line : 0, what, bad ? s->func : "?");
    if (o < end)
        o = mt_place(o, end, mt_b_site(b), "the block was allocated here");
    if (o < end)
        o = mt_place(o, end, mt_b_freed_by(b), "and first freed here");
    if (o > end)
        o = end;
    mt.double_frees++;
    mt_flush();
    mt_unlock();
    mt_write_all(2, msg, (size_t)(o - msg));
    if (!mt.keep_going)
        abort();
}

static int mt_by_peak(const void *a, const void *b)
{
    const struct mt_site *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->peak != y->peak)
        return x->peak < y->peak ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static int mt_by_live(const void *a, const void *b)
{
    const struct mt_site *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    if (x->live != y->live)
        return x->live < y->live ? 1 : -1;
    return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* The indices of the sites that allocated, sorted by `cmp`, in pages of their own (freed by caller). */
static unsigned *mt_sorted_sites(int (*cmp)(const void *, const void *))
{
    unsigned i, *order = (unsigned *)mt_pages(mt.maxsites * sizeof *order);
    if (!order)
        return 0;
    mt.nsorted = 0;
    for (i = 1; i < mt.nsites; i++)
        if (mt.sites[i].allocs)
            order[mt.nsorted++] = i;
    qsort(order, mt.nsorted, sizeof *order, cmp);
    return order;
}

/* A gnuplot string: double quotes, with \\ and \" escaped. */
static char *mt_put_quoted(char *o, const char *s)
{
    const char *end = s + strnlen(s, MT_NAMEMAX);
    *o++ = '"';
    for (; s < end; s++) {
        if (*s == '"' || *s == '\\')
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '"';
    return o;
}

/* The two last lines: settings, then the plot of MAXRSS - startrss, TOTAL
   and one curve per site that reached 1% of the peak.  A site's curve is
   drawn from a variable updated on that site's records, so it stays flat
   between them. */
static void mt_put_gnuplot(void)
{
    enum { CURVES = 12 };
    char *o = mt.buf + mt.len;
    unsigned i, n = 0, *order = mt_sorted_sites(mt_by_peak);
    o += sprintf(o, "set title ");
    o = mt_put_quoted(o, mt.path);
    o += sprintf(o, " noenhanced; set xlabel \"trace record\"; set ylabel \"memory\"; "
                    "set format y \"%%.1b %%BB\"; set key left top noenhanced; set grid");
    for (i = 0; order && i < mt.nsorted && i < CURVES; i++)
        o += sprintf(o, "; mt%u=0", mt.sites[order[i]].id);
    o += sprintf(o, "\nplot ");
    o = mt_put_quoted(o, mt.path);
    o += sprintf(o, " u 3:($6-%lu) w steps t \"max RSS - start RSS\", \"\" u 3:4 w steps lw 2 t \"total\"",
                 (unsigned long)mt.startrss);
    for (i = 0; order && i < mt.nsorted && n < CURVES; i++) {
        struct mt_site *s = &mt.sites[order[i]];
        char title[2 * MT_NAMEMAX + 64];
        if (!s->id || s->peak == 0 || s->peak * 100 < mt.max)
            break;
        snprintf(title, sizeof title, "%.1000s (%.1000s:%d)", s->func, s->file, s->line);
        o += sprintf(o, ", \"\" u 3:(strcol(1) ne \"@\" && $2==%u ? (mt%u=$5) : mt%u) w steps t ",
                     s->id, s->id, s->id);
        o = mt_put_quoted(o, title);
        n++;
    }
    *o++ = '\n';
    mt_unpages(order, mt.maxsites * sizeof *order);
    mt_commit(o);
}

/* Summary (levels 1-2) and leak errors (levels 1-3) on stderr, written
   in one go so that several processes do not interleave mid-line.  When
   there are several processes (MPI ranks, fork) each line says whose it
   is: a prefix on summary lines, a suffix on the leak errors, which keep
   the "file:line: error:" form that editors and CI read. */
static int mt_report(void)
{
    size_t cap = 8192 + (size_t)MT_ROWS * (2 * MT_NAMEMAX + 64), leaks = 0;
    char *out = (char *)mt_pages(cap), *o, *end;
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
#define MT_OUT(...) (o += snprintf(o, (size_t)(end - o), __VA_ARGS__), o = o < end ? o : end)
    if (MTRACE_LEVEL <= 2) {
        MT_OUT("%s*** MTRACE: max resident  set size: %10lu bytes\n", who, (unsigned long)mt.maxrss);
        MT_OUT("%s*** MTRACE: max traced memory size: %10lu bytes (tracing overhead %.1f%%)\n",
               who, (unsigned long)mt.max,
               mt.max ? 100.0 * (double)mt.maxoverhead / (double)mt.max : 0.0);
        order = mt_sorted_sites(mt_by_peak);
        if (order && mt.nsorted) {
            MT_OUT("%s max bytes                function   file\n", who);
            for (i = 0; i < mt.nsorted && i < MT_ROWS; i++) {
                struct mt_site *s = &mt.sites[order[i]];
                MT_OUT("%s%10lu    %20.*s   %.*s:%d\n", who, (unsigned long)s->peak,
                       MT_NAMEMAX, s->func, MT_NAMEMAX, s->file, s->line);
            }
            if (mt.nsorted > MT_ROWS)
                MT_OUT("%s       ...   (%u more sites)\n", who, mt.nsorted - MT_ROWS);
        }
        mt_unpages(order, mt.maxsites * sizeof *order);
        if (mt.incomplete)
            MT_OUT("%s*** MTRACE: the tracer ran out of memory: figures are incomplete\n", who);
        if (MTRACE_LEVEL == 1 && !mt.trace_broken)
            MT_OUT("%s*** MTRACE: To get a graph use: tail -n 2 %s | gnuplot -persist\n", who, mt.path);
    }
    order = mt_sorted_sites(mt_by_live);
    for (i = 0; order && i < mt.nsorted && mt.sites[order[i]].live; i++) {
        struct mt_site *s = &mt.sites[order[i]];
        if (o + 2 * MT_NAMEMAX + 128 >= end) {      /* flush a long leak list */
            mt_write_all(2, out, (size_t)(o - out));
            o = out;
        }
        MT_OUT("%.*s:%d: error: %lu bytes leaked here%s\n", MT_NAMEMAX, s->file, s->line,
               (unsigned long)s->live, tag);
        leaks++;
    }
    mt_unpages(order, mt.maxsites * sizeof *order);
    if (mt.double_frees)
        MT_OUT("%s*** MTRACE: %lu double free%s ignored\n", who,
               (unsigned long)mt.double_frees, mt.double_frees > 1 ? "s" : "");
    else if (!leaks && MTRACE_LEVEL <= 2)
        MT_OUT("%s*** MTRACE: No memory leaks\n", who);
#undef MT_OUT
    mt_write_all(2, out, (size_t)(o - out));
    mt_unpages(out, cap);
    return leaks || mt.double_frees;
}

/* After the program's atexit handlers and destructors (ours has the
   highest priority number, so it runs last): tail, report, exit status.
   Leaks turn a 0 status into 1 with _exit, after flushing stdio ourselves:
   calling exit() again from here would be undefined. */
static void mt_finish(void)
{
    size_t rss;
    int bad;
    if (!mt_lock_ready())
        return;
    if (mt_getpid() != mt.pid) {
        mt_unlock();
        return;
    }
    __atomic_store_n(&mt.state, MT_DONE, __ATOMIC_RELEASE);
    rss = mt_rss();
    if (rss > mt.maxrss)
        mt_set_rss(rss);
    if (mt.fd >= 0) {
        mt_flush();
        mt_put_gnuplot();
        mt_flush();
        if (mt.fd >= 0)
            mt_close(mt.fd);
        pmtrace.fd = mt.fd = -1;
    }
    mt_unlock();
    bad = mt_report();
    if (bad && mt.exit_status == 0) {
        fflush(0);
        mt_exit_now(1);
    }
}

/* ---- the traced entry points (what the program's malloc etc. call) ---- */

/* The site its caller announced for the call whose first argument is
   `key`.  A ring, not one slot: another traced call may run while the
   arguments of this one are evaluated (calloc(n, strlen(strdup(s))));
   a key, so that a site announced for a call that never reached us
   (mem->free(p) with the program's own free) is not taken by the next
   call through a pointer. */
static MT_HOT struct mtrace_site *mt_pop(struct mtrace_pending *q, unsigned j)
{
    struct mtrace_site *s = q->site[j];
    q->site[j] = 0;
    q->top = (j - 1) & 3;
    return q->caller ? q->caller : s;
}

static MT_HOT struct mtrace_site *mt_take(uintptr_t key)
{
    struct mtrace_pending *q = &mtrace_pending;
    unsigned i, t = q->top & 3;
    if (q->key[t] == key && q->site[t])     /* the usual case: the last one */
        return mt_pop(q, t);
    for (i = 1; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == key)
            return mt_pop(q, (t - i) & 3);
    /* The compiler turns realloc(NULL, n) into malloc(n): the key was the
       null pointer, the callee sees n. */
    for (i = 0; i < 4; i++)
        if (q->site[(t - i) & 3] && q->key[(t - i) & 3] == 0)
            return mt_pop(q, (t - i) & 3);
    return q->caller ? q->caller : &mt_unknown_site;
}

static MT_HOT void *mt_traced(void *p, size_t size, struct mtrace_site *d, int op)
{
    if (p && mt_lock_ready()) {
        mt_add(&mt.heap, p, size, mt_site_index(d), op);
        mt_unlock();
    }
    return p;
}

/* realloc of a live traced block, lock held (released here).  The C
   library's realloc runs under our lock: it does not call the malloc
   symbols back, and the address it frees cannot reach another thread's
   record before our tombstone does.  `d` is 0 for code without mtrace:
   the block keeps its site. */
static void *mt_move(struct mt_block *b, void *p, size_t n, struct mtrace_site *d)
{
    unsigned site = d ? mt_site_index(d) : mt_b_site(b);
    void *q = mt_libc_realloc(p, n);
    if (q || n == 0) {
        mt_drop(&mt.heap, b, d ? d : &mt_untraced_site, '<');
        if (q)
            mt_add(&mt.heap, q, n, site, '>');
    }
    mt_unlock();
    return q;
}

/* realloc and reallocarray from traced code.  `first` is the record of a
   block that did not exist before: '>' for realloc(NULL, n). */
static void *mt_resize(void *p, size_t n, struct mtrace_site *d, int first)
{
    struct mt_block *b;
    if (p && mt_lock_ready()) {
        b = mt_find(&mt.heap, (uintptr_t)p);
        if (mt_live(b))
            return mt_move(b, p, n, d);
        if (b->addr && mt.interposed) {
            mt_double_free(b, d, "realloc");    /* continuing: the call does nothing */
            return 0;
        }
        mt_unlock();
    }
    return mt_traced(mt_libc_realloc(p, n), n, d, first);
}

MTRACE_API void *mtrace_malloc(size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)n);
    return mt_traced(mt_libc_malloc(n), n, d, '+');
}

MTRACE_API void *mtrace_calloc(size_t n, size_t size)
{
    struct mtrace_site *d = mt_take((uintptr_t)n);
    return mt_traced(mt_libc_calloc(n, size), n * size, d, '+');
}

MTRACE_API void *mtrace_realloc(void *p, size_t n)
{
    return mt_resize(p, n, mt_take((uintptr_t)p), '>');
}

MTRACE_API void *mtrace_reallocarray(void *p, size_t n, size_t size)
{
    struct mtrace_site *d = mt_take((uintptr_t)p);
    if (size && n > (size_t)-1 / size)
        return mt_libc_reallocarray(p, n, size);    /* NULL, ENOMEM */
    return mt_resize(p, n * size, d, '+');
}

/* A block given back at `by`: closes it and says 1 (hand it to its
   allocator), or reports a double free of a tombstone when tombstones can
   be trusted, and says 0 (the call does nothing).  Unknown: 1. */
static MT_HOT int mt_release(struct mt_table *t, void *p, struct mtrace_site *by, int trust)
{
    struct mt_block *b;
    if (!p || !mt_lock_ready())
        return 1;
    b = t->slots ? mt_find(t, (uintptr_t)p) : 0;
    if (b && mt_live(b))
        mt_drop(t, b, by, '-');
    else if (b && b->addr && trust) {
        mt_double_free(b, by, "free");
        return 0;
    }
    mt_unlock();
    return 1;
}

MTRACE_API void mtrace_free(void *p)
{
    if (mt_release(&mt.heap, p, mt_take((uintptr_t)p), mt.interposed))
        mt_libc_free(p);
}

MTRACE_API char *mtrace_strdup(const char *s)
{
    struct mtrace_site *d = mt_take((uintptr_t)s);
    char *p = mt_libc_strdup(s);
    return (char *)mt_traced(p, p ? strlen(p) + 1 : 0, d, '+');
}

MTRACE_API char *mtrace_strndup(const char *s, size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)s);
    char *p = mt_libc_strndup(s, n);
    return (char *)mt_traced(p, p ? strlen(p) + 1 : 0, d, '+');
}

MTRACE_API void *mtrace_aligned_alloc(size_t align, size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)align);
    return mt_traced(mt_libc_aligned_alloc(align, n), n, d, '+');
}

MTRACE_API int mtrace_posix_memalign(void **pp, size_t align, size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)pp);
    int err = mt_libc_posix_memalign(pp, align, n);
    if (err == 0)
        mt_traced(*pp, n, d, '+');
    return err;
}

MTRACE_API void *mtrace_valloc(size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)n);
    return mt_traced(mt_libc_valloc(n), n, d, '+');
}

#ifdef __GLIBC__
MTRACE_API void *mtrace_memalign(size_t align, size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)align);
    return mt_traced(mt_libc_memalign(align, n), n, d, '+');
}

MTRACE_API void *mtrace_pvalloc(size_t n)
{
    struct mtrace_site *d = mt_take((uintptr_t)n);
    return mt_traced(mt_libc_pvalloc(n), n, d, '+');
}
#endif

#ifdef MT_INTERPOSE
/* ---- interposers: the program's own malloc, calloc, realloc and free ----

   Code compiled without mtrace (the C library itself, other libraries)
   calls these.  They trace nothing new, but keep the table true: a traced
   block freed or resized there (getline growing a buffer the program
   allocated) is closed or moved, and an address handed out there erases
   the tombstone it may have left, so that freeing it later is not taken
   for a double free.  A static binary gets the C library's own functions
   instead; see mt_init. */

/* An address the C library just handed to code we do not see. */
static void *mt_forget(void *p)
{
    struct mt_block *b;
    if (!__atomic_load_n(&mt.interposed, __ATOMIC_RELAXED))
        __atomic_store_n(&mt.interposed, 1, __ATOMIC_RELAXED);
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MT_READY && mt_lock_ready()) {
        b = mt_find(&mt.heap, (uintptr_t)p);
        if (mt_live(b))
            mt_count('-', mt_b_site(b), mt_b_size(b));
        if (b->addr)
            mt_erase(&mt.heap, b);
        mt_unlock();
    }
    return p;
}

MTRACE_API void *mtrace_sym_malloc(size_t n)
{
    return mt_forget(mt_libc_malloc(n));
}

MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size) MTRACE_SYM_(calloc);
MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size)
{
    return mt_forget(mt_libc_calloc(n, size));
}

MTRACE_API void *mtrace_sym_realloc(void *p, size_t n) MTRACE_SYM_(realloc);
MTRACE_API void *mtrace_sym_realloc(void *p, size_t n)
{
    struct mt_block *b;
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MT_READY && mt_lock_ready()) {
        b = mt_find(&mt.heap, (uintptr_t)p);
        if (mt_live(b))
            return mt_move(b, p, n, 0);
        mt_unlock();
    }
    return mt_forget(mt_libc_realloc(p, n));
}

MTRACE_API void mtrace_sym_free(void *p)
{
    if (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MT_READY)
        mt_release(&mt.heap, p, &mt_untraced_site, 0);
    mt_libc_free(p);
}
#endif

/* ---- annotations for the program's own allocators ---- */

MTRACE_API void mtrace_malloclike(void *p, size_t size, struct mtrace_site *site)
{
    if (p && mt_lock_ready()) {
        mt_add(&mt.pool, p, size, mt_site_index(mtrace_pending.caller ? mtrace_pending.caller : site), '+');
        mt_unlock();
    }
}

MTRACE_API void mtrace_freelike(void *p, struct mtrace_site *site)
{
    mt_release(&mt.pool, p, site, 1);
}
