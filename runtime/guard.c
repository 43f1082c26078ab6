/* SPDX-License-Identifier: MIT */
/* runtime/guard.c - the heap check (MTRACE_CHECK=heap): guard bytes around
   every traced block, new and freed blocks filled, a quarantine.

   Owns: the layout of a checked block, its guards and fills, the
   quarantine (MTRACE_QUARANTINE), the whole check (mtrace_check_heap,
   MTRACE_CHECK_EVERY, exit), the heap errors' text, and the paths that
   give a block back without the table (its marks).
   May call: every file above it (report.c's mtrace_bad_report reports).

   A checked block is the C library's block `raw` of F + n + back bytes,
   the program's pointer p = raw + F:
   - F is 16, which keeps malloc's alignment, or for an alignment A > 16
     (aligned_alloc, posix_memalign, memalign, valloc, pvalloc) A itself.
   - The front guard, the 16 bytes before p: the word n ^ MTRACE_SIZE_KEY,
     then a mark word, MTRACE_MARK_PLAIN (F 16) or MTRACE_MARK_ALIGNED (F
     > 16: then the word at p - 24 holds F ^ MTRACE_SIZE_KEY).  A mark is
     no glibc chunk's size field (it is beyond any address space), so the
     block alone says whether p is checked and where its raw block starts:
     the paths that have no table to ask read it (a signal handler inside
     the tracer, a free after the exit report).  A block whose front guard
     is damaged is reported and never given back (its raw address could be
     anything): its memory stays, marked MTRACE_MARK_KEPT.
   - The back guard: from p + n to p + round_up(n, 8) + 16, all
     MTRACE_GUARD_BYTE (16 bytes at least: a write of a word past the end
     is seen whole).
   New blocks are filled with MTRACE_FILL_NEW (calloc's stay zero), freed
   ones with MTRACE_FILL_FREED, marked MTRACE_MARK_FREED and held in the
   quarantine, a ring in the tracer's own pages, oldest first, until the
   bytes it holds pass MTRACE_QUARANTINE (256 KiB by default; the ring
   grows with what it holds, up to 1 M blocks); a block that leaves is
   checked (its fill read whole up to 4 KiB, sampled past that:
   mtrace_fill_whole), then given to the C library.  Its tombstone stays
   in the table meanwhile (its address cannot come back), so a double free
   of a quarantined block is always named.  The default was 4 MiB: the
   quarantine is most of the check's cost, since a held block's memory is
   not reused, the C library hands out memory gone cold in the cache, and
   the table keeps three times the tombstones (bench's churn, 20 M
   operations, a loaded machine: 3.5x to 4.6x level 2's CPU time and 30
   MB at 4 MiB, 2.15x and 12.5 MB at 256 KiB, 1.4x and 11.5 MB holding
   none, where a freed block goes back unfilled; bench/RESULTS.md).

   Only blocks of the C library's heap table are checked: a pool's
   (MTRACE_MALLOCLIKE) are the program's own memory.  The check needs every
   free of the process to come through mtrace (the interposers): without
   them (a static link, another C library) it says so and stays off.
   Everything here runs under the lock but the mark readers. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

#define MTRACE_FILL_NEW 0xBE        /* a new block's bytes: reads of them show */
#define MTRACE_FILL_FREED 0xDF      /* a freed block's, while it is held */
#define MTRACE_GUARD_BYTE 0xFB      /* the back guard */
#define MTRACE_MARK_PLAIN 0xFAFAFAFAFAFAFAFAULL   /* the word before p: F is 16, */
#define MTRACE_MARK_ALIGNED 0xF9F9F9F9F9F9F9F9ULL /* ...F > 16, */
#define MTRACE_MARK_FREED 0xF8F8F8F8F8F8F8F8ULL   /* ...in the quarantine, */
#define MTRACE_MARK_KEPT 0xF7F7F7F7F7F7F7F7ULL    /* ...front damaged: never given back */
#define MTRACE_SIZE_KEY 0x6D74726163653338ULL     /* mixed into n and F: no plain number */
#define MTRACE_HELD_DEFAULT ((size_t)256 << 10)    /* MTRACE_QUARANTINE's default: see below */
#define MTRACE_HELD_MAX ((size_t)1 << 20)         /* blocks the ring holds at most */

static uint64_t mtrace_word_at(const char *a)
{
    uint64_t w;
    memcpy(&w, a, sizeof w);
    return w;
}

static void mtrace_word_put(char *a, uint64_t w)
{
    memcpy(a, &w, sizeof w);
}

/* The back guard's length for n bytes: to the next multiple of 8, and 16 more. */
static size_t mtrace_back_len(size_t n)
{
    return ((n + 7) & ~(size_t)7) - n + 16;
}

#define MTRACE_ALL(c) (0x0101010101010101ULL * (c))     /* 8 bytes of byte c, one word */

/* The back guard of n bytes at p written: three words, the last one
   overlapping the second where the guard is shorter than 24 bytes (no
   call to memset for 16 to 23 bytes; with the checks by words and
   mtrace_first_not's memcmp, churn under the check took 0.73x the CPU
   time it had, holding no block). */
static void mtrace_back_put(char *p, size_t n)
{
    size_t len = mtrace_back_len(n);
    mtrace_word_put(p + n, MTRACE_ALL(MTRACE_GUARD_BYTE));
    mtrace_word_put(p + n + 8, MTRACE_ALL(MTRACE_GUARD_BYTE));
    mtrace_word_put(p + n + len - 8, MTRACE_ALL(MTRACE_GUARD_BYTE));
}

static void mtrace_guard_set(char *p, size_t n, size_t f)
{
    mtrace_word_put(p - 16, (uint64_t)n ^ MTRACE_SIZE_KEY);
    mtrace_word_put(p - 8, f == 16 ? MTRACE_MARK_PLAIN : MTRACE_MARK_ALIGNED);
    if (f > 16)
        mtrace_word_put(p - 24, (uint64_t)f ^ MTRACE_SIZE_KEY);
    mtrace_back_put(p, n);
}

/* A checked block of n bytes aligned to `align` (a power of two; 16 or
   less: malloc's), its guards written, its bytes as the C library gave
   them (`zero`: calloc's zeros).  Called with or without the lock. */
static void *mtrace_guard_raw(size_t n, size_t align, int zero)
{
    size_t f = align > 16 ? align : 16;
    char *raw, *p;
    if (n > (size_t)-1 / 2 - f) {
        errno = ENOMEM;
        return 0;
    }
    if (f > 16)
        raw = (char *)mtrace_libc_memalign(f, f + n + mtrace_back_len(n));
    else if (zero)
        raw = (char *)mtrace_libc_calloc(1, f + n + mtrace_back_len(n));
    else
        raw = (char *)mtrace_libc_malloc(f + n + mtrace_back_len(n));
    if (!raw)
        return 0;
    p = raw + f;
    mtrace_guard_set(p, n, f);
    if (zero && f > 16)
        memset(p, 0, n);
    return p;
}

/* mtrace_guard_raw's block, its bytes filled (`zero`: calloc's zeros). */
static MTRACE_ONE_COPY void *mtrace_guard_new(size_t n, size_t align, int zero)
{
    char *p = (char *)mtrace_guard_raw(n, align, zero);
    if (p && !zero)
        memset(p, MTRACE_FILL_NEW, n);
    return p;
}

/* A checked block of n bytes that starts with the `old` bytes at `from`:
   only the bytes past them are filled (realloc moves every checked
   block: filling the whole new block first wrote the copied part twice). */
static MTRACE_ONE_COPY void *mtrace_guard_copy(const void *from, size_t old, size_t n)
{
    char *p = (char *)mtrace_guard_raw(n, 16, 0);
    size_t kept = old < n ? old : n;
    if (p) {
        memcpy(p, from, kept);
        memset(p + kept, MTRACE_FILL_NEW, n - kept);
    }
    return p;
}

/* The raw block of checked block p, by its marks alone: 0 if they do not
   tell (damaged, or p is not a live checked block). */
static char *mtrace_raw_of(char *p)
{
    uint64_t mark = mtrace_word_at(p - 8), f;
    if (mark == MTRACE_MARK_PLAIN)
        return p - 16;
    if (mark != MTRACE_MARK_ALIGNED)
        return 0;
    f = mtrace_word_at(p - 24) ^ MTRACE_SIZE_KEY;
    if (f <= 16 || f > ((uint64_t)1 << 30) || (f & (f - 1)) || ((uintptr_t)p & (f - 1)))
        return 0;
    return p - f;
}

/* What the checks found in one block: bytes written before its start
   (counted from the farthest one changed), past its end, or inside it
   after it was freed (bytes from-to). */
struct mtrace_damage {
    size_t n, before, after, from, to;
    int freed;                  /* found in a freed block's fill */
    unsigned alloc, freed_by;   /* the entries of its allocation and free */
};

/* The front guard of live block p of n bytes: bytes written before p.
   Each byte is compared with the mark the block has most of (plain or
   aligned: they differ in every byte), so a write of one byte counts
   one. */
static size_t mtrace_front_damage(const char *p, size_t n)
{
    unsigned char want[24];
    uint64_t size = (uint64_t)n ^ MTRACE_SIZE_KEY, mark, f;
    unsigned i, plain = 0, aligned = 0, len = 16;
    if (mtrace_word_at(p - 8) == MTRACE_MARK_PLAIN && mtrace_word_at(p - 16) == size)
        return 0;               /* the usual case, by words */
    for (i = 0; i < 8; i++) {
        plain += (unsigned char)p[(int)i - 8] == (MTRACE_MARK_PLAIN & 0xFF);
        aligned += (unsigned char)p[(int)i - 8] == (MTRACE_MARK_ALIGNED & 0xFF);
    }
    mark = plain >= aligned ? MTRACE_MARK_PLAIN : MTRACE_MARK_ALIGNED;
    memcpy(want + 8, &size, 8);
    memcpy(want + 16, &mark, 8);
    if (mark == MTRACE_MARK_ALIGNED) {      /* F's word too: its first and last bytes */
        f = mtrace_word_at(p - 24) ^ MTRACE_SIZE_KEY;
        len = 24;
        if (f <= 16 || f > ((uint64_t)1 << 30) || (f & (f - 1)) || ((uintptr_t)p & (f - 1)))
            return 24;          /* (a write that left a valid F: not seen) */
        f ^= MTRACE_SIZE_KEY;
        memcpy(want, &f, 8);
    }
    for (i = 0; i < len; i++)
        if ((unsigned char)p[(int)i - (int)len] != want[24 - len + i])
            return len - i;
    return 0;
}

/* The back guard of live block p of n bytes: bytes written past its end,
   up to the farthest one changed. */
static size_t mtrace_back_damage(const char *p, size_t n)
{
    size_t i = mtrace_back_len(n);
    if (mtrace_word_at(p + n) == MTRACE_ALL(MTRACE_GUARD_BYTE) && mtrace_word_at(p + n + 8) == MTRACE_ALL(MTRACE_GUARD_BYTE)
        && mtrace_word_at(p + n + i - 8) == MTRACE_ALL(MTRACE_GUARD_BYTE))
        return 0;               /* whole: the three words mtrace_back_put wrote */
    while (i > 0 && (unsigned char)p[n + i - 1] == MTRACE_GUARD_BYTE)
        i--;
    return i;
}

/* A live block's guards into d; 1 if damaged. */
static int mtrace_look_live(const char *p, size_t n, struct mtrace_damage *d)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->before = mtrace_word_at(p - 8) == MTRACE_MARK_KEPT ? 0 : mtrace_front_damage(p, n);
    d->after = mtrace_back_damage(p, n);
    return d->before || d->after;
}

/* The first of the n bytes at p that is not c, or n: up to 256 bytes at a
   time with the C library's memcmp against a block of c (the
   quarantine's blocks are read as they leave: byte by byte, that was a
   third of a churning program's time; a loop of words, a tenth), then
   byte by byte inside the 256 that differ.  The pattern
   is this copy's own (lock held: one line per traced file has its own
   copy of the runtime). */
static size_t mtrace_first_not(const char *p, size_t n, unsigned char c)
{
    static unsigned char pattern[256];
    size_t i = 0, k;
    if (pattern[0] != c)
        memset(pattern, c, sizeof pattern);
    for (; i < n; i += k) {
        k = n - i < sizeof pattern ? n - i : sizeof pattern;
        if (memcmp(p + i, pattern, k))
            break;
    }
    while (i < n && (unsigned char)p[i] == c)
        i++;
    return i;
}

/* Is the fill of held block p of n bytes whole where it is read: its
   first MTRACE_FILL_READ bytes, and beyond them the first word of every
   MTRACE_FILL_STRIDE bytes and the last word.  A block held and read
   whole costs a pass over memory that has gone cold in the quarantine;
   the words sampled past the bound find a memset, memcpy or loop into a
   large freed buffer at a line in eight (guide.md, limits.md). */
#define MTRACE_FILL_READ 4096
#define MTRACE_FILL_STRIDE 512
static int mtrace_fill_whole(const char *p, size_t n)
{
    size_t i;
    if (n <= MTRACE_FILL_READ)
        return mtrace_first_not(p, n, MTRACE_FILL_FREED) == n;
    if (mtrace_first_not(p, MTRACE_FILL_READ, MTRACE_FILL_FREED) != MTRACE_FILL_READ
        || mtrace_word_at(p + n - 8) != MTRACE_ALL(MTRACE_FILL_FREED))
        return 0;
    for (i = MTRACE_FILL_READ; i + 8 <= n; i += MTRACE_FILL_STRIDE)
        if (mtrace_word_at(p + i) != MTRACE_ALL(MTRACE_FILL_FREED))
            return 0;
    return 1;
}

/* A freed block's fill into d; 1 if written since (seen where
   mtrace_fill_whole reads; the bytes reported, from the first to the
   last written, are then read whole). */
static int mtrace_look_freed(const char *p, size_t n, struct mtrace_damage *d)
{
    size_t i;
    memset(d, 0, sizeof *d);
    d->n = n;
    d->freed = 1;
    if (mtrace_fill_whole(p, n))
        return 0;
    d->from = mtrace_first_not(p, n, MTRACE_FILL_FREED);
    for (i = n; (unsigned char)p[i - 1] == MTRACE_FILL_FREED; i--)
        ;
    d->to = i - 1;
    return 1;
}

/* The error's text: what was written, and where it was `found`.  At exit
   (`at_alloc`) the line stands at the allocation's place and says so. */
static void mtrace_damage_text(char *o, size_t room, const struct mtrace_damage *d, const char *found, int at_alloc)
{
    const char *here = at_alloc ? " allocated here" : "";
    unsigned long n = (unsigned long)d->n, a = (unsigned long)d->after, b = (unsigned long)d->before;
    if (d->freed && d->from == d->to)
        snprintf(o, room, "a %lu-byte block%s was written after it was freed, byte %lu (%s)", n, here,
                 (unsigned long)d->from, found);
    else if (d->freed)
        snprintf(o, room, "a %lu-byte block%s was written after it was freed, bytes %lu-%lu (%s)", n, here,
                 (unsigned long)d->from, (unsigned long)d->to, found);
    else if (d->before && d->after)
        snprintf(o, room, "%lu byte%s written before the start and %lu past the end of a %lu-byte block%s (%s)",
                 b, b > 1 ? "s" : "", a, n, here, found);
    else if (d->before)
        snprintf(o, room, "%lu byte%s written before the start of a %lu-byte block%s (%s)", b, b > 1 ? "s" : "",
                 n, here, found);
    else
        snprintf(o, room, "%lu byte%s written past the end of a %lu-byte block%s (%s)", a, a > 1 ? "s" : "",
                 n, here, found);
}

/* Reports damage d found at `by` (0: at exit; c its callers), the lock
   held: released, then taken back: 1 if this thread has it again.  Stops
   the program as a double free does, when `stop` and not told to go on. */
static int mtrace_heap_error(const struct mtrace_damage *d, struct mtrace_site *by, const struct mtrace_chain *c,
                             const char *found, int stop)
{
    char what[512];
    const char *call = mtrace_pending.call;
    mtrace_damage_text(what, sizeof what, d, found, !by);
    mtrace_bad_report(by, what, d->alloc, d->freed ? d->freed_by : 0, "and freed here", c, 0, &mt.heap_errors,
                      stop && !mt.keep_going);
    mtrace_pending.call = call;     /* (still under way: the check every N calls after it names it) */
    return mtrace_lock_traced();
}

/* Room in the quarantine's ring for one more block: mapped at the first
   (1024 slots), doubled when full, up to what the budget can hold (a
   held block keeps 32 bytes at least) or MTRACE_HELD_MAX slots; 0 when it
   is as large as it gets, or cannot grow. */
static int mtrace_held_room(void)
{
    size_t most = mt.held_budget / 32 + 2, cap = mt.held_cap ? 2 * mt.held_cap : 1024, i;
    struct mtrace_held *ring;
    if (mt.held_n < mt.held_cap)
        return 1;
    most = most < MTRACE_HELD_MAX ? most : MTRACE_HELD_MAX;
    if (mt.held_cap >= most || !(ring = (struct mtrace_held *)mtrace_pages(cap * sizeof *ring)))
        return 0;
    for (i = 0; i < mt.held_n; i++)     /* oldest first, from slot 0 */
        ring[i] = mt.held[(mt.held_first + i) % mt.held_cap];
    mtrace_unpages(mt.held, mt.held_cap * sizeof *ring);
    mt.held = ring;
    mt.held_cap = cap;
    mt.held_first = 0;
    return 1;
}

/* The bytes of the C library's that a held block keeps. */
static size_t mtrace_held_size(const struct mtrace_held *e)
{
    return (size_t)(MTRACE_HIDE(e->p) - MTRACE_HIDE(e->raw)) + e->n + mtrace_back_len(e->n);
}

/* The oldest held block leaves: its fill checked, its raw block given to
   the C library; damage reported as found at `by`'s `call`.  Lock held;
   1 if it still is. */
static int mtrace_held_leaves(struct mtrace_site *by, const struct mtrace_chain *c, const char *call)
{
    struct mtrace_held e = mt.held[mt.held_first];
    struct mtrace_damage d;
    char found[96];
    int damaged;
    mt.held_first = (mt.held_first + 1) % mt.held_cap;
    mt.held_n--;
    mt.held_bytes -= mtrace_held_size(&e);
    damaged = mtrace_look_freed((const char *)MTRACE_HIDE(e.p), e.n, &d);
    mtrace_libc_free((void *)MTRACE_HIDE(e.raw));
    if (!damaged)
        return 1;
    d.alloc = e.alloc;
    d.freed_by = e.freed;
    snprintf(found, sizeof found, "found as it left the quarantine, at this %s", call);
    return mtrace_heap_error(&d, by, c, found, 1);
}

/* Freed block p (raw, n bytes, its entries) into the quarantine, filled
   and marked; then the oldest leave while the quarantine holds more than
   its budget.  Lock held; 1 if it still is. */
static int mtrace_hold(char *raw, char *p, size_t n, unsigned alloc, unsigned freed, struct mtrace_site *by,
                       const struct mtrace_chain *c, const char *call)
{
    struct mtrace_held *e;
    if (!mt.held_budget) {      /* MTRACE_QUARANTINE=0: it would leave at once, */
        mtrace_libc_free(raw);  /* so its fill is neither written nor read */
        return 1;
    }
    memset(p, MTRACE_FILL_FREED, n);
    mtrace_word_put(p - 8, MTRACE_MARK_FREED);
    if (!mtrace_held_room()) {
        if (!mt.held_n) {
            mtrace_libc_free(raw);  /* no ring at all: checked at its free only */
            return 1;
        }
        if (!mtrace_held_leaves(by, c, call))
            return 0;           /* (the ring full: the oldest leaves first) */
    }
    e = &mt.held[(mt.held_first + mt.held_n) % mt.held_cap];
    e->raw = MTRACE_HIDE(raw);
    e->p = MTRACE_HIDE(p);
    e->n = n;
    e->alloc = alloc;
    e->freed = freed;
    mt.held_n++;
    mt.held_bytes += mtrace_held_size(e);
    while (mt.held_n && mt.held_bytes > mt.held_budget)
        if (!mtrace_held_leaves(by, c, call))
            return 0;
    return 1;
}

/* Checked block p of n bytes, its table entry just closed (entries
   `alloc` and `freed`), freed at `by` (c its callers) by `call`: its
   guards checked, then into the quarantine; a block whose front guard is
   damaged stays where it is.  Lock held; 1 if it still is. */
static MTRACE_ONE_COPY int mtrace_guard_free(char *p, size_t n, unsigned alloc, unsigned freed,
                                             struct mtrace_site *by, const struct mtrace_chain *c, const char *call)
{
    struct mtrace_damage d;
    char found[64], *raw;
    int damaged = mtrace_look_live(p, n, &d);
    int kept = mtrace_word_at(p - 8) == MTRACE_MARK_KEPT;
    raw = d.before || kept ? 0 : mtrace_raw_of(p);
    if (!raw)
        mtrace_word_put(p - 8, MTRACE_MARK_KEPT);
    if (damaged) {
        d.alloc = alloc;
        snprintf(found, sizeof found, "found at this %s", call);
        if (!mtrace_heap_error(&d, by, c, found, 1))
            return 0;
    }
    return raw ? mtrace_hold(raw, p, n, alloc, freed, by, c, call) : 1;
}

/* The live blocks of table t (and of the generations it inherited) whose
   guards are damaged, each reported once: its back guard is written
   anew, a damaged front marks it kept.  Lock held; 1 if it still is. */
static int mtrace_check_live(struct mtrace_table *t, struct mtrace_site *by, const struct mtrace_chain *c,
                             const char *found, int stop)
{
    for (; t; t = t->inherited) {
        size_t range = 0, slot = 0;
        struct mtrace_block *b;
        while ((b = mtrace_next_block(t, &range, &slot))) {
            struct mtrace_damage d;
            char *p = (char *)mtrace_b_addr(b);
            if (!mtrace_live(b) || !mtrace_look_live(p, mtrace_b_size(b), &d))
                continue;
            mtrace_back_put(p, d.n);
            if (d.before)
                mtrace_word_put(p - 8, MTRACE_MARK_KEPT);
            d.alloc = mtrace_b_site(b);
            if (!mtrace_heap_error(&d, by, c, found, stop))
                return 0;
        }
    }
    return 1;
}

/* The held blocks written since they were freed, each reported once (its
   fill written anew).  Lock held; 1 if it still is. */
static int mtrace_check_held(struct mtrace_site *by, const struct mtrace_chain *c, const char *found, int stop)
{
    size_t i;
    for (i = 0; i < mt.held_n; i++) {
        const struct mtrace_held *e = &mt.held[(mt.held_first + i) % mt.held_cap];
        struct mtrace_damage d;
        char *p = (char *)MTRACE_HIDE(e->p);
        if (!mtrace_look_freed(p, e->n, &d))
            continue;
        memset(p, MTRACE_FILL_FREED, e->n);
        d.alloc = e->alloc;
        d.freed_by = e->freed;
        if (!mtrace_heap_error(&d, by, c, found, stop))
            return 0;
    }
    return 1;
}

/* The whole check: every live block's guards, every held block's fill,
   at `by` (0: at exit), said to be `found` so.  Lock held; released. */
static void mtrace_check_all(struct mtrace_site *by, const struct mtrace_chain *c, const char *found, int stop)
{
    if (mtrace_check_live(&mt.heap, by, c, found, stop) && mtrace_check_held(by, c, found, stop))
        mtrace_unlock();
}

/* After a traced call (lock held; released here): with
   MTRACE_CHECK_EVERY=N, the whole check at every N-th. */
static MTRACE_ONE_COPY void mtrace_heap_tick(struct mtrace_site *by, const struct mtrace_chain *c)
{
    char found[96];
    if (!mt.check_every || ++mt.check_calls < mt.check_every) {
        mtrace_unlock();
        return;
    }
    mt.check_calls = 0;
    snprintf(found, sizeof found, "found by the check every %lu calls, at this %s", (unsigned long)mt.check_every,
             mtrace_pending.call ? mtrace_pending.call : "call");
    mtrace_check_all(by, c, found, 1);
}

/* Gives p to the C library without the table (unknown to it, or the
   tracer busy or done), the check on.  Anything but a checked block goes
   as it is.  A checked block found by its marks goes by its raw address
   once the exit's check is done; before, it stays where it is: the table
   may still hold it live (freed by a signal handler that interrupted the
   tracer: as without the check, it then counts as a leak), and the
   checks to come read its guards.  A held or kept one never goes (a
   double free, which only the table could name). */
static MTRACE_ONE_COPY void mtrace_guard_give_back(void *p)
{
    uint64_t mark;
    char *raw;
    if (!p)
        return;
    mark = mtrace_word_at((char *)p - 8);
    if (mark == MTRACE_MARK_FREED || mark == MTRACE_MARK_KEPT)
        return;
    if (mark != MTRACE_MARK_PLAIN && mark != MTRACE_MARK_ALIGNED)
        raw = (char *)p;
    else if (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY)
        return;
    else
        raw = mtrace_raw_of((char *)p);
    if (raw)
        mtrace_libc_free(raw);
}

/* free's last step for a block the table did not take. */
static MTRACE_HOT void mtrace_give_back(void *p)
{
    if (__builtin_expect(mt.check, 0))
        mtrace_guard_give_back(p);
    else
        mtrace_libc_free(p);
}

/* The size the program asked for of a checked block p, by its marks (no
   table); (size_t)-1 if p is not one. */
static size_t mtrace_marked_size(void *p)
{
    char *raw = p && mt.check ? mtrace_raw_of((char *)p) : 0;
    size_t n, room;
    if (!raw)
        return (size_t)-1;
    n = (size_t)(mtrace_word_at((char *)p - 16) ^ MTRACE_SIZE_KEY);
    room = mtrace_libc_usable_size(raw) - (size_t)((char *)p - raw);     /* (a damaged n: no further) */
    return n < room ? n : room;
}

/* realloc of a block the table does not know, the check on: a checked
   one (found by its marks) is copied into a plain block of the C
   library's and given back; anything else is the C library's. */
static MTRACE_ONE_COPY void *mtrace_guard_libc_realloc(void *p, size_t n)
{
    size_t old = mtrace_marked_size(p);
    void *q;
    if (old == (size_t)-1)
        return mtrace_libc_realloc(p, n);
    if (n == 0) {               /* glibc's realloc(p, 0): a free */
        mtrace_guard_give_back(p);
        return 0;
    }
    if ((q = mtrace_libc_malloc(n))) {
        memcpy(q, p, old < n ? old : n);
        mtrace_guard_give_back(p);
    }
    return q;
}

/* realloc by traced code of a block the table does not know (the C
   library's, or a checked one it could not record), the check on: the
   result is a checked block, as every traced block is then.  p is left
   as it was when there is no memory. */
static MTRACE_ONE_COPY void *mtrace_guard_adopt(void *p, size_t n)
{
    void *q, *moved;
    if (!p)
        return mtrace_guard_new(n, 16, 0);
    if (n == 0)
        return mtrace_guard_libc_realloc(p, 0);
    if (!(q = mtrace_guard_raw(n, 16, 0)))
        return 0;
    if (!(moved = mtrace_guard_libc_realloc(p, n))) {
        mtrace_guard_give_back(q);
        return 0;
    }
    memcpy(q, moved, n);        /* (past the old size: the C library's bytes; no fill to write first) */
    mtrace_libc_free(moved);
    return q;
}

/* MTRACE_CHECK=heap, MTRACE_CHECK_EVERY and MTRACE_QUARANTINE, read at
   start (the interposer probe done).  Off, with one line that says why,
   where a checked block could reach an allocator that does not know its
   guards. */
static void mtrace_read_check(void)
{
    const char *q = mtrace_getenv("MTRACE_QUARANTINE");
    if (!mtrace_read_mode("MTRACE_CHECK", "heap", "no heap check"))
        return;
    if (!mt.interposed) {
        mtrace_say("*** MTRACE: MTRACE_CHECK=heap is off: this process's malloc and free are not mtrace's "
                   "(a static link, a C library other than glibc, or a sanitizer), so a checked block could "
                   "reach an allocator that does not know its guards\n");
        return;
    }
    mt.check = 1;
    mt.check_every = mtrace_read_size("MTRACE_CHECK_EVERY", "a number of calls", "no check every N calls");
    mt.held_budget = q && !strcmp(q, "0") ? 0 : mtrace_read_size("MTRACE_QUARANTINE", "a size (bytes, or with K, M or G)",
                                                                "the default, 256K");
    if (!mt.held_budget && !(q && !strcmp(q, "0")))
        mt.held_budget = MTRACE_HELD_DEFAULT;
}

MTRACE_COLD_FILE_END
