/* mtrace.h - a heap tracer for C programs, switched on at compile time.

   USAGE

     cc -g -DMTRACE=1 -include mtrace.h prog.c util.c -o prog   # nothing to link
     MTRACE=/tmp/trace ./prog          # trace file: $MTRACE, default ./mtrace
     tail -n 2 /tmp/trace | gnuplot -persist

   For an existing project: make CFLAGS="-g -DMTRACE=1 -include /path/to/mtrace.h".
   Without MTRACE (or with -DMTRACE=0) this header changes nothing at all.
   The runtime is mtrace.c, next to this header: it is compiled into every
   translation unit as weak definitions, so the linker keeps one copy.

   LEVELS (-DMTRACE=N, the same N in every file of a program)

     1   summary on stderr at exit + trace file + leak errors
     2   summary + leak errors (no file is created)
     3   leak errors only

   Leaks are printed as "file:line: error: N bytes leaked here", largest
   first, and turn an exit status of 0 into 1.  A double free prints the
   place of the bad free, of the allocation and of the first free, then
   aborts.

   ENVIRONMENT (ignored in set-user-ID programs)

     MTRACE                   trace file (level 1), default "mtrace"; %p is
                              the pid, %q{VAR} the value of $VAR; MPI rank
                              r > 0 appends "-r", a forked child ".PID"
                              (unless the name has %p)
     MTRACE_DOUBLE_FREE=continue
                              report a double free and go on (the bad call
                              does nothing, the exit status becomes 1)

   WHAT IS TRACED

   Calls made by code compiled with this header to malloc, calloc, realloc,
   free, strdup, strndup, reallocarray, aligned_alloc, posix_memalign,
   memalign, valloc and pvalloc, by name or through a pointer taken in such
   code.  Each call site gets a static descriptor (function, file, line)
   built by the macros below; the index is given on first use.  Blocks are
   kept in a side table keyed by address (no header in front of them), so a
   pointer mtrace never saw is handed to the C library untouched.
   See doc/design.md for how and why, and doc/limits.md for what is not seen.

   WRAPPERS AND CUSTOM ALLOCATORS (like Massif's --alloc-fn and Valgrind's
   MALLOCLIKE/FREELIKE client requests)

     void *xmalloc(size_t n);                    after the wrapper's declaration,
     #define xmalloc(n) MTRACE_ALLOC_FN(xmalloc(n))   one line per wrapper:
   the allocations made inside the wrapper are attributed to the line that
   called it (the outermost such call when wrappers call wrappers).  For
   wrappers that return a value; the wrapper's own definition then puts its
   name in parentheses: void *(xmalloc)(size_t n) { ... }.

     p = pool_get(pool);  MTRACE_MALLOCLIKE(p, size);
     MTRACE_FREELIKE(p);  pool_put(pool, p);
   tell mtrace that the program's own allocator handed out or took back a
   block; the annotation's file:line is the block's site (or, inside a
   function called through MTRACE_ALLOC_FN, that call's place).  Without MTRACE
   all three do nothing (when the program includes this header itself; a
   program that relies on -include alone defines them as no-ops:
   #ifndef MTRACE_ALLOC_FN / #define MTRACE_ALLOC_FN(call) (call) ...).

   PROGRAM ACCESS

   `pmtrace` (Basilisk's name) holds the live figures: total, max,
   overhead, maxoverhead, nr, startrss, maxrss, fname (fp is always NULL:
   the trace is written with write(2) through the descriptor `fd`).
*/
#ifndef MTRACE_H
#define MTRACE_H
#if defined(MTRACE) && (MTRACE + 0) && !defined(__cplusplus)
#pragma GCC system_header

/* The system headers that declare the traced names must come before the
   macros, or their declarations would be macro-expanded into nonsense.
   Including them here freezes the feature-test macros before the program's
   own "#define _XOPEN_SOURCE 600" can act, so we ask for everything:
   with _GNU_SOURCE that program still finds sigaction, popen, mkstemp.
   The cost: the GNU strerror_r (returning char *) and the GNU basename. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#define MTRACE_UNDEF_GNU_SOURCE
#endif
#ifndef _XOPEN_SOURCE
#define MTRACE_UNDEF_XOPEN_SOURCE
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define MTRACE_UNDEF_XOPEN_SOURCE_EXTENDED
#endif
#ifndef _POSIX_C_SOURCE
#define MTRACE_UNDEF_POSIX_C_SOURCE
#endif
#ifndef _POSIX_SOURCE
#define MTRACE_UNDEF_POSIX_SOURCE
#endif
#ifndef _DEFAULT_SOURCE
#define MTRACE_UNDEF_DEFAULT_SOURCE
#endif
#ifndef _ISOC95_SOURCE
#define MTRACE_UNDEF_ISOC95_SOURCE
#endif
#ifndef _ISOC99_SOURCE
#define MTRACE_UNDEF_ISOC99_SOURCE
#endif
#ifndef _ISOC11_SOURCE
#define MTRACE_UNDEF_ISOC11_SOURCE
#endif
#ifndef _ISOC2X_SOURCE
#define MTRACE_UNDEF_ISOC2X_SOURCE
#endif
#ifndef _LARGEFILE64_SOURCE
#define MTRACE_UNDEF_LARGEFILE64_SOURCE
#endif
#ifndef _ATFILE_SOURCE
#define MTRACE_UNDEF_ATFILE_SOURCE
#endif
#ifndef _DYNAMIC_STACK_SIZE_SOURCE
#define MTRACE_UNDEF_DYNAMIC_STACK_SIZE_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __has_include
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#endif
/* The features are fixed now (<features.h> runs once).  Forget the
   request macros that ours made it define (the build's own stay), so that
   the program's own "#define _XOPEN_SOURCE 600" is no redefinition. */
#ifdef MTRACE_UNDEF_GNU_SOURCE
#undef _GNU_SOURCE
#undef MTRACE_UNDEF_GNU_SOURCE
#endif
#ifdef MTRACE_UNDEF_XOPEN_SOURCE
#undef _XOPEN_SOURCE
#undef MTRACE_UNDEF_XOPEN_SOURCE
#endif
#ifdef MTRACE_UNDEF_XOPEN_SOURCE_EXTENDED
#undef _XOPEN_SOURCE_EXTENDED
#undef MTRACE_UNDEF_XOPEN_SOURCE_EXTENDED
#endif
#ifdef MTRACE_UNDEF_POSIX_C_SOURCE
#undef _POSIX_C_SOURCE
#undef MTRACE_UNDEF_POSIX_C_SOURCE
#endif
#ifdef MTRACE_UNDEF_POSIX_SOURCE
#undef _POSIX_SOURCE
#undef MTRACE_UNDEF_POSIX_SOURCE
#endif
#ifdef MTRACE_UNDEF_DEFAULT_SOURCE
#undef _DEFAULT_SOURCE
#undef MTRACE_UNDEF_DEFAULT_SOURCE
#endif
#ifdef MTRACE_UNDEF_ISOC95_SOURCE
#undef _ISOC95_SOURCE
#undef MTRACE_UNDEF_ISOC95_SOURCE
#endif
#ifdef MTRACE_UNDEF_ISOC99_SOURCE
#undef _ISOC99_SOURCE
#undef MTRACE_UNDEF_ISOC99_SOURCE
#endif
#ifdef MTRACE_UNDEF_ISOC11_SOURCE
#undef _ISOC11_SOURCE
#undef MTRACE_UNDEF_ISOC11_SOURCE
#endif
#ifdef MTRACE_UNDEF_ISOC2X_SOURCE
#undef _ISOC2X_SOURCE
#undef MTRACE_UNDEF_ISOC2X_SOURCE
#endif
#ifdef MTRACE_UNDEF_LARGEFILE64_SOURCE
#undef _LARGEFILE64_SOURCE
#undef MTRACE_UNDEF_LARGEFILE64_SOURCE
#endif
#ifdef MTRACE_UNDEF_ATFILE_SOURCE
#undef _ATFILE_SOURCE
#undef MTRACE_UNDEF_ATFILE_SOURCE
#endif
#ifdef MTRACE_UNDEF_DYNAMIC_STACK_SIZE_SOURCE
#undef _DYNAMIC_STACK_SIZE_SOURCE
#undef MTRACE_UNDEF_DYNAMIC_STACK_SIZE_SOURCE
#endif

#define MTRACE_LEVEL (MTRACE + 0)

/* One per call site, static in the calling function.  `index` is 0 until
   the first call, then the site's slot in the runtime's table. */
struct mtrace_site {
    const char *func, *file;
    int line;
    unsigned index;
};

/* The sites announced by the macros and not yet consumed by the callee: a
   ring of four per thread, keyed by the call's first argument (see
   mtrace_take in mtrace.c for why a ring and a key). */
struct mtrace_pending {
    uintptr_t key[4];
    struct mtrace_site *site[4];
    unsigned top;
    struct mtrace_site *caller;    /* set by MTRACE_ALLOC_FN */
};
extern __thread struct mtrace_pending mtrace_pending;

struct mtrace_pmtrace {
    void *fp;                      /* Basilisk's trace FILE *: always NULL */
    size_t total, max;             /* current and maximum traced bytes */
    size_t overhead, maxoverhead;  /* tracer's own bytes, now and at max */
    size_t nr;                     /* number of operation records */
    size_t startrss, maxrss;       /* resident set size at start, peak */
    char *fname;                   /* trace file name ("" below level 1) */
    int fd;                        /* trace file descriptor, or -1 */
};
/* volatile: the compiler knows that free() touches no global and would
   otherwise keep pmtrace.total in a register across the call. */
extern volatile struct mtrace_pmtrace pmtrace;

/* Every name the program uses for the allocator is bound to mtrace's own
   symbol: calls by name and pointers taken to the functions both reach
   the tracer, in static and dynamic binaries alike.  Struct members named
   malloc or free are other identifiers and stay untouched. */
#define MTRACE_STR2_(x) #x
#define MTRACE_STR_(x) MTRACE_STR2_(x)
#define MTRACE_SYM_(name) __asm__(MTRACE_STR_(__USER_LABEL_PREFIX__) #name)
extern void *malloc(size_t) MTRACE_SYM_(mtrace_malloc);
extern void *calloc(size_t, size_t) MTRACE_SYM_(mtrace_calloc);
extern void *realloc(void *, size_t) MTRACE_SYM_(mtrace_realloc);
extern void free(void *) MTRACE_SYM_(mtrace_free);
extern char *strdup(const char *) MTRACE_SYM_(mtrace_strdup);
extern char *strndup(const char *, size_t) MTRACE_SYM_(mtrace_strndup);
extern void *reallocarray(void *, size_t, size_t) MTRACE_SYM_(mtrace_reallocarray);
extern void *aligned_alloc(size_t, size_t) MTRACE_SYM_(mtrace_aligned_alloc);
extern int posix_memalign(void **, size_t, size_t) MTRACE_SYM_(mtrace_posix_memalign);
extern void *valloc(size_t) MTRACE_SYM_(mtrace_valloc);
#ifdef __GLIBC__
extern void *memalign(size_t, size_t) MTRACE_SYM_(mtrace_memalign);
extern void *pvalloc(size_t) MTRACE_SYM_(mtrace_pvalloc);
#endif

void mtrace_malloclike(void *p, size_t size, struct mtrace_site *site);
void mtrace_freelike(void *p, struct mtrace_site *site);

#include "mtrace.c"

/* The call-site descriptor: a static object per expansion.  clang warns
   about static locals in extern inline functions; for us each copy is
   fine, since sites are merged by function, file and line. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define MTRACE_FUNC_ __func__
#else
#define MTRACE_FUNC_ __FUNCTION__
#endif
#ifdef __clang__
#define MTRACE_QUIET_ _Pragma("clang diagnostic push") \
    _Pragma("clang diagnostic ignored \"-Wstatic-local-in-inline\"")
#define MTRACE_LOUD_ _Pragma("clang diagnostic pop")
#else
#define MTRACE_QUIET_
#define MTRACE_LOUD_
#endif
#define MTRACE_SITE_ (__extension__ ({ MTRACE_QUIET_                        \
    static struct mtrace_site mtrace_site_ =                                \
        { MTRACE_FUNC_, __FILE__, __LINE__, 0 };                            \
    MTRACE_LOUD_ &mtrace_site_; }))

/* Announce the site for a call whose first argument is `x` of type T, and
   yield x.  The macros keep the function's own name in front of the
   parentheses, so that mem->free(p) and mem->calloc(1, n) still compile
   (a macro is not expanded again inside its own expansion).
   The compiler believes that malloc and free read and write no memory of
   the program, so it would keep the ring in registers across the calls or
   drop the stores as dead: the two empty asm statements forbid both. */
#define MTRACE_AT_(T, x) (__extension__ ({                                  \
    T mtrace_arg_ = (x);                                                    \
    unsigned mtrace_top_;                                                   \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_top_ = (mtrace_pending.top + 1) & 3;                             \
    mtrace_pending.key[mtrace_top_] = (uintptr_t)mtrace_arg_;               \
    mtrace_pending.site[mtrace_top_] = MTRACE_SITE_;                        \
    mtrace_pending.top = mtrace_top_;                                       \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_arg_; }))

#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup
#undef strndup
#undef reallocarray
#undef aligned_alloc
#undef posix_memalign
#undef memalign
#undef valloc
#undef pvalloc
#define malloc(n) malloc(MTRACE_AT_(size_t, n))
#define calloc(n, size) calloc(MTRACE_AT_(size_t, n), size)
#define realloc(p, n) realloc(MTRACE_AT_(void *, p), n)
#define free(p) free(MTRACE_AT_(void *, p))
#define strdup(s) strdup(MTRACE_AT_(const char *, s))
#define strndup(s, n) strndup(MTRACE_AT_(const char *, s), n)
#define reallocarray(p, n, size) reallocarray(MTRACE_AT_(void *, p), n, size)
#define aligned_alloc(a, n) aligned_alloc(MTRACE_AT_(size_t, a), n)
#define posix_memalign(pp, a, n) posix_memalign(MTRACE_AT_(void **, pp), a, n)
#define memalign(a, n) memalign(MTRACE_AT_(size_t, a), n)
#define valloc(n) valloc(MTRACE_AT_(size_t, n))
#define pvalloc(n) pvalloc(MTRACE_AT_(size_t, n))

/* Wrappers and custom allocators (see the top of this file). */
#define MTRACE_ALLOC_FN(call) (__extension__ ({                             \
    struct mtrace_site *mtrace_outer_ = mtrace_pending.caller;              \
    __typeof__(call) mtrace_result_;                                        \
    __asm__ __volatile__("" ::: "memory");                                  \
    if (!mtrace_outer_)                                                     \
        mtrace_pending.caller = MTRACE_SITE_;                               \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_result_ = (call);                                                \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_pending.caller = mtrace_outer_;                                  \
    mtrace_result_; }))
#define MTRACE_MALLOCLIKE(p, size) mtrace_malloclike((p), (size), MTRACE_SITE_)
#define MTRACE_FREELIKE(p) mtrace_freelike((p), MTRACE_SITE_)

#else /* no MTRACE: the annotations do nothing */
#define MTRACE_ALLOC_FN(call) (call)
#define MTRACE_MALLOCLIKE(p, size) ((void)(p), (void)(size))
#define MTRACE_FREELIKE(p) ((void)(p))
#endif /* MTRACE */
#endif /* MTRACE_H */
