/* SPDX-License-Identifier: MIT */ /* tests/model/driver.c - performs an operation script under mtrace, so that
   tests/model/model.py can predict, from the documented contract alone, what
   the tracer must report for it.

   Build it traced (-DMTRACE=N -include mtrace.h, with or without
   -DMTRACE_LIB), run it as `driver SCRIPT`.  One operation a line:

     malloc SITE SLOT SIZE             calloc SITE SLOT N SIZE
     realloc SITE SLOT SIZE            reallocarray SITE SLOT N SIZE
     strdup SITE SLOT LEN              strndup SITE SLOT LEN N
     aligned_alloc SITE SLOT ALIGN SIZE
     posix_memalign SITE SLOT ALIGN SIZE
     memalign SITE SLOT ALIGN SIZE     valloc SITE SLOT SIZE
     pvalloc SITE SLOT SIZE            free SITE SLOT
     free_at SITE SLOT K               realloc_at SITE SLOT K SIZE
     free_static SITE data|bss OFF     free_mmap SITE OFF
     free_stack SITE OFF               free_unmapped SITE OFF
     burst SIZE COUNT                  say WORD
     libc LEN
     thread                            join
     fork                              wait
     exit STATUS                       return STATUS
     wrap SITE SLOT SIZE               wrap2 SITE SLOT SIZE
     root G SLOT OFF                   unroot G
     link SLOT K SLOT2 OFF             hold SLOT

   SITE is a or b: each traced call is written twice below, on lines marked
   `SITE name_a` and `SITE name_b`, so that per-site figures are exercised;
   the model finds the lines by these markers.  A and B are the same sites
   called through one more function (`indirect`), so that with MTRACE_DEPTH
   two calls of one site have different callers; m (malloc, realloc and free
   only, not on a thread) is a call written in main itself, a place with no
   callers.  The lines that call each function on the way (perform's call of
   do_malloc, main's of perform, ...) are marked `CALL name`.  SLOT is a
   handle 0..63.
   strdup and strndup copy a string of LEN 'x's.  A slot keeps its pointer
   after a free (that is how a later `free` of it is a double free); an
   allocation stores its result, NULL included; a realloc stores only a
   non-NULL result.  The bad frees: free_at/realloc_at give the slot's
   pointer plus K; free_static an address OFF bytes into an array in .data
   or .bss; free_mmap one OFF bytes into a page this program mmap'ed
   (between two inaccessible pages, so that it is a mapping of its own);
   free_stack one OFF bytes into a local array; free_unmapped one OFF bytes
   above 16 TiB, where nothing is mapped.  burst mallocs COUNT blocks of
   SIZE, then frees them all.  libc has the C library allocate a string
   of LEN blanks (asprintf, not traced: it may take any freed block's
   address), then frees it (a traced free of a block mtrace did not see:
   silent).  A line starting with # is a comment.  The
   ops between `thread` and its `join` (or the end) run on a new thread
   while this one waits, so the order of the calls is the script's (no fork
   there).  The ops between `fork` and its `wait` (forks and waits nest like
   brackets; no wait: the end) run in a child while the parent waits: the
   child returns from main at the wait (or at its `return`, or ends at its
   `exit` or by a signal), then the parent says on stdout how it ended,
   `child PID of PPID: exit STATUS` (or `signal N`), and goes on after the
   wait.  Nothing else is printed but `say`'s word, on stdout.

   The program's own allocators, for MTRACE_ALLOC_FN: wrap mallocs SIZE
   bytes through x_alloc (at SITE x_alloc, in x_alloc, called from do_wrap's
   line for SITE), wrap2 through x_alloc2, which calls x_alloc.

   Pointers for the reachability scan (MTRACE_LEAK_CHECK=reachable): the
   slots keep their pointers hidden (xor'ed), so that the driver's own
   table keeps nothing reachable, and every block is zeroed when it is
   handed out (no stale pointer in it); the only pointers to blocks left in
   memory are those the script stores: root stores the slot's pointer plus
   OFF in a global (G < 8), unroot clears it; link stores the pointer of
   SLOT2 plus OFF at byte K of SLOT's block (K a multiple of 8); hold keeps
   the slot's pointer in a local array of main (8 of them, the oldest
   overwritten; main only, not on a thread), which is live when the program
   ends by `exit` (called below main) and cleared when main returns.  The
   stack below is zeroed before the program ends and when a thread ends, so
   that no stale copy of a pointer stays where the scan looks.

   One guard: a double free is only one if the C library has not handed the
   address out again.  Every allocation is compared with the freed slots
   (that are still named by a slot); if a later free of such a slot would
   in fact free somebody else's block, the driver says so on stderr and
   leaves with status 77 before the call (the model's rules for scripts,
   not the tracer, were wrong then). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NSLOTS 64
#define MAXOPS 100000
#define MAXBURST 100000
#define MAXSTR 8192
#define NOINLINE __attribute__((noinline))   /* each caller a frame of its own */
#define UNMAPPED ((uintptr_t)1 << 44)   /* 16 TiB: below the program, the heap
                                           and the mappings (checked before use) */

enum kind {
    MALLOC, CALLOC, REALLOC, REALLOCARRAY, STRDUP, STRNDUP, ALIGNED_ALLOC,
    POSIX_MEMALIGN, MEMALIGN, VALLOC, PVALLOC, FREE, FREE_AT, REALLOC_AT,
    FREE_STATIC, FREE_MMAP, FREE_STACK, FREE_UNMAPPED, WRAP, WRAP2, BURST, LIBC, SAY,
    ROOT, UNROOT, LINK, HOLD, THREAD, JOIN, FORK, WAIT, EXIT, RETURN
};
static const struct { const char *name; int nargs; int site; } kinds[] = {
    [MALLOC] = {"malloc", 2, 1}, [CALLOC] = {"calloc", 3, 1},
    [REALLOC] = {"realloc", 2, 1}, [REALLOCARRAY] = {"reallocarray", 3, 1},
    [STRDUP] = {"strdup", 2, 1}, [STRNDUP] = {"strndup", 3, 1},
    [ALIGNED_ALLOC] = {"aligned_alloc", 3, 1}, [POSIX_MEMALIGN] = {"posix_memalign", 3, 1},
    [MEMALIGN] = {"memalign", 3, 1}, [VALLOC] = {"valloc", 2, 1},
    [PVALLOC] = {"pvalloc", 2, 1}, [FREE] = {"free", 1, 1},
    [FREE_AT] = {"free_at", 2, 1}, [REALLOC_AT] = {"realloc_at", 3, 1},
    [FREE_STATIC] = {"free_static", 2, 1}, [FREE_MMAP] = {"free_mmap", 1, 1},
    [FREE_STACK] = {"free_stack", 1, 1}, [FREE_UNMAPPED] = {"free_unmapped", 1, 1},
    [WRAP] = {"wrap", 2, 1}, [WRAP2] = {"wrap2", 2, 1},
    [ROOT] = {"root", 3, 0}, [UNROOT] = {"unroot", 1, 0}, [LINK] = {"link", 4, 0},
    [HOLD] = {"hold", 1, 0},
    [BURST] = {"burst", 2, 0}, [LIBC] = {"libc", 1, 0}, [SAY] = {"say", 1, 0},
    [THREAD] = {"thread", 0, 0},
    [JOIN] = {"join", 0, 0}, [FORK] = {"fork", 0, 0}, [WAIT] = {"wait", 0, 0},
    [EXIT] = {"exit", 1, 0}, [RETURN] = {"return", 1, 0},
};

struct op {
    enum kind kind;
    char site;                  /* 'a' or 'b' ('m': in main) */
    char via;                   /* A or B: called through indirect() */
    unsigned long long arg[4];  /* numbers, in the order of the syntax */
    char word[64];              /* say's word; free_static's data|bss */
    int end;                    /* thread: the index of its join, fork: of its
                                   wait (or nops) */
};

static struct op ops[MAXOPS];
static int nops;
static char script[1 << 22];

/* The slots: the pointer, hidden (see slot_ptr), and what the driver did
   with it (for the guard). */
enum state { EMPTY, LIVE, FREED };
static struct { uintptr_t hidden; size_t size; enum state state; int reused; } slot[NSLOTS];
static void *many[MAXBURST];
#define NROOTS 8
#define NHELD 8
static void *volatile roots[NROOTS];    /* root's globals (volatile: stores never read) */
/* The mask makes a hidden pointer a non-canonical address, never one into
   a block: the reachability scan must not find the slots' blocks through
   the driver's own table. */
#define HIDE ((uintptr_t)0x5a5a5a5a5a5a5a5aULL)
static char text[MAXSTR + 1];
static char bss_buf[256];
static char data_buf[256] = "static data";
static char *page;

static void *slot_ptr(int s)
{
    return (void *)(slot[s].hidden ^ HIDE);
}

/* every slot NULL at the start (hidden, so not 0) */
static void clear_slots(void)
{
    int i;
    for (i = 0; i < NSLOTS; i++)
        slot[i].hidden = HIDE;
}

/* A message on stderr ("driver: line N: what"), then _exit(status). */
static void die(const char *what, int line, int status)
{
    char msg[200], digits[12];
    size_t n = 0, k = 0;
    const char *p;
    do
        digits[k++] = (char)('0' + line % 10);
    while ((line /= 10) && k < sizeof digits);
    for (p = "driver: line "; *p; p++)
        msg[n++] = *p;
    while (k)
        msg[n++] = digits[--k];
    msg[n++] = ':';
    msg[n++] = ' ';
    for (p = what; *p && n < sizeof msg - 1; p++)
        msg[n++] = *p;
    msg[n++] = '\n';
    if (write(2, msg, n) < 0)
        _exit(status);
    _exit(status);
}

/* The compiler must not see where a bad pointer comes from: it would warn
   (-Wfree-nonheap-object) or assume things about undefined behaviour. */
static void *launder(void *p)
{
    __asm__ volatile("" : "+r"(p));
    return p;
}

/* --- the traced calls, two sites each ----------------------------------- */

static NOINLINE void *do_malloc(int site, size_t n)
{
    if (site == 'a')
        return malloc(n);                                   /* SITE malloc_a */
    return malloc(n);                                       /* SITE malloc_b */
}

static NOINLINE void *do_calloc(int site, size_t n, size_t size)
{
    if (site == 'a')
        return calloc(n, size);                             /* SITE calloc_a */
    return calloc(n, size);                                 /* SITE calloc_b */
}

static NOINLINE void *do_realloc(int site, void *p, size_t n)
{
    if (site == 'a')
        return realloc(p, n);                               /* SITE realloc_a */
    return realloc(p, n);                                   /* SITE realloc_b */
}

static NOINLINE void *do_reallocarray(int site, void *p, size_t n, size_t size)
{
    if (site == 'a')
        return reallocarray(p, n, size);                    /* SITE reallocarray_a */
    return reallocarray(p, n, size);                        /* SITE reallocarray_b */
}

static NOINLINE void *do_strdup(int site, const char *s)
{
    if (site == 'a')
        return strdup(s);                                   /* SITE strdup_a */
    return strdup(s);                                       /* SITE strdup_b */
}

static NOINLINE void *do_strndup(int site, const char *s, size_t n)
{
    if (site == 'a')
        return strndup(s, n);                               /* SITE strndup_a */
    return strndup(s, n);                                   /* SITE strndup_b */
}

static NOINLINE void *do_aligned_alloc(int site, size_t align, size_t n)
{
    if (site == 'a')
        return aligned_alloc(align, n);                     /* SITE aligned_alloc_a */
    return aligned_alloc(align, n);                         /* SITE aligned_alloc_b */
}

static NOINLINE void *do_posix_memalign(int site, size_t align, size_t n)
{
    void *p = NULL;
    int err;
    if (site == 'a')
        err = posix_memalign(&p, align, n);                 /* SITE posix_memalign_a */
    else
        err = posix_memalign(&p, align, n);                 /* SITE posix_memalign_b */
    return err ? NULL : p;
}

static NOINLINE void *do_memalign(int site, size_t align, size_t n)
{
    if (site == 'a')
        return memalign(align, n);                          /* SITE memalign_a */
    return memalign(align, n);                              /* SITE memalign_b */
}

static NOINLINE void *do_valloc(int site, size_t n)
{
    if (site == 'a')
        return valloc(n);                                   /* SITE valloc_a */
    return valloc(n);                                       /* SITE valloc_b */
}

static NOINLINE void *do_pvalloc(int site, size_t n)
{
    if (site == 'a')
        return pvalloc(n);                                  /* SITE pvalloc_a */
    return pvalloc(n);                                      /* SITE pvalloc_b */
}

static NOINLINE void do_free(int site, void *p)
{
    if (site == 'a')
        free(p);                                            /* SITE free_a */
    else
        free(p);                                            /* SITE free_b */
}

/* --- bad frees: a pointer into a block, static data, mmap, the stack ---- */

static NOINLINE void do_free_at(int site, void *p)
{
    if (site == 'a')
        free(launder(p));                                   /* SITE free_at_a */
    else
        free(launder(p));                                   /* SITE free_at_b */
}

static NOINLINE void *do_realloc_at(int site, void *p, size_t n)
{
    if (site == 'a')
        return realloc(launder(p), n);                      /* SITE realloc_at_a */
    return realloc(launder(p), n);                          /* SITE realloc_at_b */
}

static NOINLINE void do_free_static(int site, char *p)
{
    if (site == 'a')
        free(launder(p));                                   /* SITE free_static_a */
    else
        free(launder(p));                                   /* SITE free_static_b */
}

static NOINLINE void do_free_mmap(int site, char *p)
{
    if (site == 'a')
        free(launder(p));                                   /* SITE free_mmap_a */
    else
        free(launder(p));                                   /* SITE free_mmap_b */
}

static NOINLINE void do_free_stack(int site, size_t off)
{
    char local[256];
    local[0] = (char)site;
    if (site == 'a')
        free(launder(local + off));                         /* SITE free_stack_a */
    else
        free(launder(local + off));                         /* SITE free_stack_b */
    __asm__ volatile("" : : "r"(local) : "memory");     /* keep the array */
}

static NOINLINE void do_free_unmapped(int site, size_t off)
{
    if (site == 'a')
        free(launder((void *)(UNMAPPED + off)));            /* SITE free_unmapped_a */
    else
        free(launder((void *)(UNMAPPED + off)));            /* SITE free_unmapped_b */
}

/* --- the program's own allocators (MTRACE_ALLOC_FN) -------------------- */

/* Each keeps its frame (no tail call), so that the walk sees it. */
static NOINLINE void *x_alloc(size_t n)
{
    void *p = malloc(n);                                    /* SITE x_alloc */
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

static NOINLINE void *x_alloc2(size_t n)
{
    void *p = x_alloc(n);                                   /* CALL x_alloc2 */
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

static NOINLINE void *do_wrap(int site, size_t n)
{
    void *p;
    if (site == 'a')
        p = x_alloc(n);                                     /* CALL wrap_a */
    else
        p = x_alloc(n);                                     /* CALL wrap_b */
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

static NOINLINE void *do_wrap2(int site, size_t n)
{
    void *p;
    if (site == 'a')
        p = x_alloc2(n);                                    /* CALL wrap2_a */
    else
        p = x_alloc2(n);                                    /* CALL wrap2_b */
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

/* Zeroes the stack below the caller: what the frames of the calls made
   so far left there is gone before the reachability scan reads the
   stack (the exit handlers' frames take that room, leaving some words as
   they found them). */
static NOINLINE void scrub(void)
{
    char pad[1 << 16];
    memset(pad, 0, sizeof pad);
    __asm__ volatile("" : : "r"(pad) : "memory");
}

/* many allocations, then as many frees: the tables grow and shrink */
static NOINLINE void do_burst(size_t n, unsigned long long count)
{
    unsigned long long i;
    for (i = 0; i < count; i++)
        many[i] = malloc(n);                                /* SITE burst_malloc */
    for (i = 0; i < count; i++)
        free(many[i]);                                      /* SITE burst_free */
}

/* the burst's pointers, once the guard has seen them: a later block at
   one of these addresses must not be reachable through them */
static void forget_burst(unsigned long long count)
{
    memset(many, 0, (size_t)count * sizeof *many);
}

static void handed_out(void *q, size_t n);

/* a string the C library allocates (untraced), freed here */
static NOINLINE void do_libc(unsigned long long len, int line)
{
    char *s = NULL;
    if (asprintf(&s, "%*s", (int)(len % MAXSTR), "") < 0)
        die("asprintf failed", line, 2);
    handed_out(s, (size_t)(len % MAXSTR) + 1);
    free(s);                                                /* SITE libc_free */
}

/* --- the guard ---------------------------------------------------------- */

/* A block [q, q + n) handed out: the freed slots inside it are no longer
   freed blocks of their own, and a later free of them proves nothing. */
static void handed_out(void *q, size_t n)
{
    int i;
    if (!q)
        return;
    for (i = 0; i < NSLOTS; i++)
        if (slot[i].state == FREED && (char *)slot_ptr(i) >= (char *)q && (char *)slot_ptr(i) < (char *)q + (n ? n : 1))
            slot[i].reused = 1;
}

static int nfreed(void)
{
    int i, n = 0;
    for (i = 0; i < NSLOTS; i++)
        n += slot[i].state == FREED;
    return n;
}

static void check_not_reused(int s, int line)
{
    if (slot[s].state == FREED && slot[s].reused)
        die("the freed address was handed out again: this free would not be a double free (status 77)", line, 77);
}

static void set_slot(int s, void *q, size_t n)
{
    handed_out(q, n);
    if (q && n && n < SIZE_MAX)
        memset(q, 0, n);        /* no stale pointer in it (reachability) */
    slot[s].hidden = (uintptr_t)q ^ HIDE;
    slot[s].size = n;
    slot[s].state = q ? LIVE : EMPTY;
    slot[s].reused = 0;
}

/* A page of its own: the kernel merges an anonymous mapping with its
   neighbours of the same protection (the tracer's tables, say), and an
   address in the middle of a mapping may be an allocator's block that
   mtrace cannot see (doc/limits.md); between two PROT_NONE pages it stays a
   mapping's first page. */
static char *map_page(void)
{
    char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, 4096, PROT_NONE) || mprotect(p + 2 * 4096, 4096, PROT_NONE))
        die("mmap failed", 0, 2);
    return p + 4096;
}

/* --- the interpreter ---------------------------------------------------- */

static const char *string_of(unsigned long long len)
{
    if (len > MAXSTR)
        len = MAXSTR;
    memset(text, 'x', len);
    text[len] = 0;
    return text;
}

/* After a realloc of slot s to n bytes that returned q: a new block, the
   same one freed (n == 0), or a failure that leaves the block as it was. */
static void after_realloc(int s, void *q, size_t n)
{
    if (q)
        set_slot(s, q, n);
    else if (slot[s].state == LIVE && n == 0)
        slot[s].state = FREED;
}

static size_t product(unsigned long long a, unsigned long long b)
{
    size_t n;
    return __builtin_mul_overflow(a, b, &n) ? SIZE_MAX : n;
}

static int run(int from, int to);

struct span { int from, to; };
static void *thread_main(void *arg)
{
    struct span *s = arg;
    run(s->from, s->to);
    scrub();            /* (glibc keeps the stack for the next thread) */
    return NULL;
}

/* One op with a site a or b (A, B: o->via) on the calling thread.  Each
   call of a do_ function is on a line of its own, marked for the model. */
static NOINLINE void perform(struct op *o, int line)
{
    unsigned long long *a = o->arg;
    int s = (int)(a[0] % NSLOTS), site = o->site;
    unsigned long long i;
    switch (o->kind) {
    case MALLOC: set_slot(s, do_malloc(site, a[1]), a[1]); break;                  /* CALL malloc */
    case CALLOC: set_slot(s, do_calloc(site, a[1], a[2]), product(a[1], a[2])); break;  /* CALL calloc */
    case REALLOC:
        check_not_reused(s, line);
        after_realloc(s, do_realloc(site, slot_ptr(s), a[1]), a[1]);                /* CALL realloc */
        break;
    case REALLOCARRAY:
        check_not_reused(s, line);
        after_realloc(s, do_reallocarray(site, slot_ptr(s), a[1], a[2]), product(a[1], a[2]));  /* CALL reallocarray */
        break;
    case STRDUP: set_slot(s, do_strdup(site, string_of(a[1])), a[1] + 1); break;  /* CALL strdup */
    case STRNDUP:
        set_slot(s, do_strndup(site, string_of(a[1]), a[2]), (a[1] < a[2] ? a[1] : a[2]) + 1);  /* CALL strndup */
        break;
    case ALIGNED_ALLOC: set_slot(s, do_aligned_alloc(site, a[1], a[2]), a[2]); break;    /* CALL aligned_alloc */
    case POSIX_MEMALIGN: set_slot(s, do_posix_memalign(site, a[1], a[2]), a[2]); break;  /* CALL posix_memalign */
    case MEMALIGN: set_slot(s, do_memalign(site, a[1], a[2]), a[2]); break;        /* CALL memalign */
    case VALLOC: set_slot(s, do_valloc(site, a[1]), a[1]); break;                  /* CALL valloc */
    case PVALLOC: set_slot(s, do_pvalloc(site, a[1]), a[1]); break;                /* CALL pvalloc */
    case FREE:
        check_not_reused(s, line);
        do_free(site, slot_ptr(s));                                                  /* CALL free */
        if (slot[s].state == LIVE)
            slot[s].state = FREED;
        break;
    case FREE_AT: do_free_at(site, (char *)slot_ptr(s) + a[1]); break;               /* CALL free_at */
    case REALLOC_AT: {
        void *q = do_realloc_at(site, (char *)slot_ptr(s) + a[1], a[2]);             /* CALL realloc_at */
        if (q)      /* the tracer let it through: then it is the slot's block */
            set_slot(s, q, a[2]);
        break;
    }
    case FREE_STATIC:
        do_free_static(site, (strcmp(o->word, "bss") ? data_buf : bss_buf) + a[0] % sizeof bss_buf);  /* CALL free_static */
        break;
    case FREE_MMAP: do_free_mmap(site, page + a[0] % 4096); break;                 /* CALL free_mmap */
    case FREE_STACK: do_free_stack(site, (size_t)(a[0] % 256)); break;             /* CALL free_stack */
    case FREE_UNMAPPED: {
        unsigned char vec;
        if (mincore((void *)UNMAPPED, 4096, &vec) == 0)
            die("the address meant to be unmapped is mapped", line, 2);
        do_free_unmapped(site, (size_t)(a[0] % 4096));                             /* CALL free_unmapped */
        break;
    }
    case BURST:
        if (a[1] > MAXBURST)
            die("burst: at most 100000 blocks", line, 2);
        do_burst(a[0], a[1]);                                                      /* CALL burst */
        for (i = 0; i < a[1] && nfreed(); i++)
            handed_out(many[i], a[0]);
        forget_burst(a[1]);
        break;
    case WRAP: set_slot(s, do_wrap(site, a[1]), a[1]); break;                      /* CALL wrap */
    case WRAP2: set_slot(s, do_wrap2(site, a[1]), a[1]); break;                    /* CALL wrap2 */
    case ROOT: roots[a[0] % NROOTS] = (char *)slot_ptr((int)(a[1] % NSLOTS)) + a[2]; break;
    case UNROOT: roots[a[0] % NROOTS] = NULL; break;
    case LINK:
        if (!slot_ptr(s) || a[1] % 8 || a[1] + 8 > slot[s].size)
            die("link: K must be an aligned word inside the block", line, 2);
        *(void **)((char *)slot_ptr(s) + a[1]) = (char *)slot_ptr((int)(a[2] % NSLOTS)) + a[3];
        break;
    case LIBC: do_libc(a[0], line); break;                                         /* CALL libc */
    case SAY: {
        size_t n = strlen(o->word);
        o->word[n] = '\n';
        if (write(1, o->word, n + 1) < 0) _exit(2);
        o->word[n] = 0;
        break;
    }
    case EXIT:
        scrub();
        exit((int)a[0]);
    default: break;
    }
    __asm__ volatile("" : : : "memory");    /* no call above is a tail call */
}

/* A and B: the same sites, one frame further from main. */
static NOINLINE void indirect(struct op *o, int line)
{
    perform(o, line);                                                              /* CALL perform_indirect */
    __asm__ volatile("" : : : "memory");
}

/* Runs ops [from, to) on a thread; returns the status of a `return`, or
   -1.  (No fork, no op of main's here.) */
static int run(int from, int to)
{
    int i;
    for (i = from; i < to; i++) {
        struct op *o = &ops[i];
        if (o->kind == THREAD) {
            pthread_t t;
            struct span s = {i + 1, o->end};
            if (pthread_create(&t, NULL, thread_main, &s) || pthread_join(t, NULL))
                die("cannot run a thread", i + 1, 2);
            i = o->end;                     /* past the join */
        } else if (o->kind == RETURN) {
            return (int)o->arg[0];
        } else if (o->kind == FORK || o->kind == HOLD || o->site == 'm') {
            die("fork, hold, and the calls of main (site m), only outside threads", i + 1, 2);
        } else if (o->via) {
            indirect(o, i + 1);
        } else {
            perform(o, i + 1);
        }
    }
    return -1;
}

/* The parent's side of `wait`: how child `pid` ended, on stdout. */
static void reap(pid_t pid, int line)
{
    char msg[120];
    int status, n;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid failed", line, 2);
    if (WIFSIGNALED(status))
        n = snprintf(msg, sizeof msg, "child %d of %d: signal %d\n", (int)pid, (int)getpid(), WTERMSIG(status));
    else
        n = snprintf(msg, sizeof msg, "child %d of %d: exit %d\n", (int)pid, (int)getpid(), WEXITSTATUS(status));
    if (write(1, msg, (size_t)n) < 0)
        _exit(2);
}

/* --- reading the script ------------------------------------------------- */

static char *token(char **p)
{
    char *t;
    while (**p == ' ' || **p == '\t')
        (*p)++;
    if (!**p)
        return NULL;
    t = *p;
    while (**p && **p != ' ' && **p != '\t')
        (*p)++;
    if (**p)
        *(*p)++ = 0;
    return t;
}

static void parse_line(char *line, int lineno)
{
    struct op *o = &ops[nops];
    char *p = line, *t = token(&p), *end;
    int k, i;
    if (!t || *t == '#')
        return;
    for (k = 0; k <= RETURN; k++)
        if (!strcmp(t, kinds[k].name))
            break;
    if (k > RETURN)
        die("unknown operation", lineno, 2);
    if (nops == MAXOPS)
        die("too many operations", lineno, 2);
    memset(o, 0, sizeof *o);
    o->kind = (enum kind)k;
    if (kinds[k].nargs > (int)(sizeof o->arg / sizeof o->arg[0]))
        die("too many arguments", lineno, 2);
    if (kinds[k].site) {
        t = token(&p);
        if (!t || t[1] || !strchr("abABm", *t))
            die("the site must be a, b, A, B or m", lineno, 2);
        if (*t == 'm' && k != MALLOC && k != REALLOC && k != FREE)
            die("site m: malloc, realloc and free only", lineno, 2);
        o->site = *t == 'A' ? 'a' : *t == 'B' ? 'b' : *t;
        o->via = *t == 'A' || *t == 'B';
    }
    for (i = 0; i < kinds[k].nargs; i++) {
        if (!(t = token(&p)))
            die("missing argument", lineno, 2);
        if (k == SAY || (k == FREE_STATIC && i == 0)) {
            if (strlen(t) >= sizeof o->word - 1)
                die("word too long", lineno, 2);
            strcpy(o->word, t);
            continue;
        }
        o->arg[k == FREE_STATIC ? i - 1 : i] = strtoull(t, &end, 10);
        if (*end)
            die("not a number", lineno, 2);
    }
    if (token(&p))
        die("too many arguments", lineno, 2);
    nops++;
}

static void read_script(const char *name)
{
    int fd = open(name, O_RDONLY), lineno = 1;
    size_t n = 0;
    ssize_t r;
    char *p, *nl;
    if (fd < 0)
        die("cannot open the script", 0, 2);
    while ((r = read(fd, script + n, sizeof script - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    if (n >= sizeof script - 1)
        die("script too long", 0, 2);
    script[n] = 0;
    for (p = script; *p; p = nl, lineno++) {
        nl = strchr(p, '\n');
        if (nl)
            *nl++ = 0;
        else
            nl = p + strlen(p);
        parse_line(p, lineno);
    }
}

/* `thread` runs to its `join`; a thread without one runs to the end.
   `fork` runs to its `wait`, counted as brackets; without one, to the end. */
static void match_spans(void)
{
    int i, j, open;
    for (i = 0; i < nops; i++) {
        if (ops[i].kind == THREAD) {
            for (j = i + 1; j < nops && ops[j].kind != JOIN; j++)
                ;
            ops[i].end = j;
        } else if (ops[i].kind == FORK) {
            for (j = i + 1, open = 1; j < nops; j++)
                if ((open += (ops[j].kind == FORK) - (ops[j].kind == WAIT)) == 0)
                    break;
            ops[i].end = j;
        }
    }
}

int main(int argc, char **argv)
{
    int i, to, s, status = -1;
    void *volatile held[NHELD] = {0};    /* hold's: live until main returns */
    unsigned nheld = 0;
    if (argc != 2)
        die("usage: driver SCRIPT", 0, 2);
    page = map_page();
    clear_slots();
    read_script(argv[1]);
    match_spans();
    /* The ops outside threads, in this frame: a child goes on here with
       the ops of its span, then returns from main. */
    for (i = 0, to = nops; i < to && status < 0; i++) {
        struct op *o = &ops[i];
        unsigned long long *a = o->arg;
        s = (int)(a[0] % NSLOTS);
        if (o->kind == FORK) {
            pid_t pid = fork();
            if (pid < 0)
                die("fork failed", i + 1, 2);
            if (pid == 0) {
                to = o->end;                /* the child: its span, then the end */
                continue;
            }
            reap(pid, i + 1);
            i = o->end;                     /* the parent: past the wait */
        } else if (o->kind == THREAD) {
            pthread_t t;
            struct span sp = {i + 1, o->end};
            if (pthread_create(&t, NULL, thread_main, &sp) || pthread_join(t, NULL))
                die("cannot run a thread", i + 1, 2);
            i = o->end;                     /* past the join */
        } else if (o->kind == RETURN) {
            status = (int)a[0];
        } else if (o->kind == HOLD) {
            held[nheld++ % NHELD] = slot_ptr(s);
        } else if (o->site == 'm' && o->kind == MALLOC) {
            set_slot(s, malloc(a[1]), a[1]);                                            /* SITE malloc_m */
        } else if (o->site == 'm' && o->kind == REALLOC) {
            check_not_reused(s, i + 1);
            after_realloc(s, realloc(slot_ptr(s), a[1]), a[1]);                           /* SITE realloc_m */
        } else if (o->site == 'm') {
            check_not_reused(s, i + 1);
            free(slot_ptr(s));                                                            /* SITE free_m */
            if (slot[s].state == LIVE)
                slot[s].state = FREED;
        } else if (o->via) {
            indirect(o, i + 1);                                                         /* CALL indirect */
        } else {
            perform(o, i + 1);                                                          /* CALL perform */
        }
    }
    for (i = 0; i < NHELD; i++)      /* main's frame goes: its words would stay */
        held[i] = NULL;
    __asm__ volatile("" : : "r"(held) : "memory");
    scrub();
    return status < 0 ? 0 : status;
}
