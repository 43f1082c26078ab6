/* SPDX-License-Identifier: MIT */
/* mtrace.h - a heap tracer for C programs, switched on at compile time.

   USAGE

     A quick trace, nothing to link (the runtime is compiled into each file):
       cc -g -DMTRACE=1 -include mtrace.h prog.c util.c -o prog
     A project (the runtime compiled once, in libmtrace):
       CC=mtrace-cc make                     or
       cc $(pkg-config --cflags mtrace) ... $(pkg-config --libs mtrace)
       (that is: -DMTRACE=1 -DMTRACE_LIB -include mtrace.h ... -lmtrace)
     Then:
       MTRACE=/tmp/trace ./prog              trace file: $MTRACE, default ./mtrace
       mtrace2massif --gnuplot=g.gp /tmp/trace && gnuplot -persist g.gp

   Without MTRACE (or with -DMTRACE=0) this header changes nothing at all.

   LEVELS (-DMTRACE=N)

     1   summary on stderr at exit + trace file + leak errors
     2   summary + leak errors (no file is created)
     3   leak errors only
   The level is the process's: if its files ask for different levels, the
   lowest N wins and start-up says so in one line on stderr.

   Leaks are printed as "file:line: error: N bytes in M blocks leaked
   here", largest first, after every destructor of the program and its
   libraries (MTRACE_LEAK_RECORDS of them: doc/guide.md), and turn
   an exit status of 0 into 1.  A double free prints the place of the bad
   free, of the allocation and of the first free (with MTRACE_DEPTH, the
   callers of each), then aborts; in a forked child too, for a block its
   parent had freed.

   SWITCHES (per file, -D on the command line)

     MTRACE_LIB            the runtime is linked (-lmtrace): this header then
                           holds declarations and macros only
     MTRACE_NO_GNU_SOURCE  do not define _GNU_SOURCE (strict C programs that
                           define their own getline or index); needs MTRACE_LIB
     MTRACE_NO_MACROS      no call-site macros in this file (a file that
                           declares malloc itself, like Redis's server.h):
                           its calls are still traced, each at a site per
                           return address, named at exit (function,
                           file:line) as the call stacks are
     MTRACE_FRAME_POINTERS this file is built with -fno-omit-frame-pointer:
                           MTRACE_DEPTH may walk through its module (implied
                           without optimisation; the build tells the
                           runtime, per module: nothing to set at run time)

   ENVIRONMENT (ignored in set-user-ID programs)

     MTRACE                   trace file (level 1), default "mtrace"; %p is
                              the pid, %q{VAR} the value of $VAR; MPI rank
                              r > 0 appends "-r", a forked child ".PID"
                              (unless the name has %p)
     MTRACE_DOUBLE_FREE=continue
                              report a double free and go on (the bad call
                              does nothing, the exit status becomes 1)
     MTRACE_DEPTH=N           call stacks of N frames (the site is one):
                              #stack records in the trace, callers under
                              each place of the leak and double-free
                              reports; frames are followed through files
                              built with -fno-omit-frame-pointer
                              -DMTRACE_FRAME_POINTERS (as mtrace-cc does)
     MTRACE_ALLOC_FN="f g"    with MTRACE_DEPTH: wrappers charged to their
                              callers in the summary and the leak report
     MTRACE_CHECK=heap        guard bytes, fills and a quarantine
                              (MTRACE_QUARANTINE=SIZE, default 256K): writes
                              past the end, before the start or after free
                              reported as a double free is, at free,
                              realloc, exit, mtrace_check_heap(), or every
                              MTRACE_CHECK_EVERY=N calls (glibc, dynamic)

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

   mtrace_check_heap() runs the heap check now (MTRACE_CHECK=heap: every
   live block's guards, every freed block held in the quarantine), its
   reports at the call's line; nothing when the check is off, nor without
   MTRACE (a program that relies on -include alone defines it as a no-op:
   #ifndef mtrace_check_heap / #define mtrace_check_heap() ((void)0)).

   Every name this header brings into a program begins with mtrace_ or
   MTRACE_, apart from the allocator's own names.

   COMPILERS AND LANGUAGES

   C in GNU C (gcc, clang; see the #error below for why).  C++ (g++,
   clang++) in the library use only (MTRACE_LIB: mtrace-c++, mtrace-cc,
   pkg-config): no call-site macros, the allocator's names bound to
   mtrace's, each call traced at its return address; libmtrace replaces
   operator new and delete (runtime/cxx.c).  In the one-line use a C++
   translation unit gets nothing (the annotations become no-ops) and is
   not traced.
   An assembler source (.S) preprocessed with the same flags sees nothing
   of this header.
*/
#ifndef MTRACE_H
#define MTRACE_H
/* Builds give the same -include mtrace.h (CFLAGS, CC=mtrace-cc) to the
   assembler sources they preprocess (.S): everything below is C, which the
   assembler cannot read, so it sees none of it. */
#ifndef __ASSEMBLER__
#if defined(MTRACE) && (MTRACE + 0) && !defined(__cplusplus)
#define MTRACE_ON_ 1
/* What the macros below and the runtime need beyond C99, all of it GNU C:
   statement expressions, __typeof__, __attribute__ (weak, visibility,
   tls_model), __thread, asm labels that rebind malloc to mtrace_malloc,
   __builtin_frame_address and __COUNTER__.  gcc and clang (and compilers
   built on them, as Intel's icx) define __GNUC__; TCC defines neither
   __GNUC__ nor knows __thread, and would fail deep inside a macro. */
#if !defined(__GNUC__) || defined(__TINYC__)
#error "mtrace: this compiler does not speak GNU C (statement expressions, __thread, asm labels): trace with gcc or clang, or build without -DMTRACE"
#endif
#ifndef __COUNTER__
#error "mtrace: this compiler has no __COUNTER__ (gcc 4.3 or later, clang): trace with a newer one, or build without -DMTRACE"
#endif
#if (MTRACE + 0) < 0 || (MTRACE + 0) > 3
#error "mtrace: MTRACE must be 0, 1, 2 or 3"
#endif
#if defined(MTRACE_NO_GNU_SOURCE) && !defined(MTRACE_LIB)
#error "mtrace: MTRACE_NO_GNU_SOURCE needs the compiled runtime: add -DMTRACE_LIB and link -lmtrace (CC=mtrace-cc does both)"
#endif

/* The system headers that declare the traced names must come before the
   macros, or their declarations would be macro-expanded into nonsense.
   Including them here freezes the feature-test macros before the program's
   own "#define _XOPEN_SOURCE 600" can act, so we ask for everything:
   with _GNU_SOURCE that program still finds sigaction, popen, mkstemp.
   The cost: the GNU strerror_r (returning char *), the GNU basename, and
   GNU names (getline, index) that a strict program may define itself:
   MTRACE_NO_GNU_SOURCE is its way out. */
#if !defined(_GNU_SOURCE) && !defined(MTRACE_NO_GNU_SOURCE)
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
#ifndef _LARGEFILE_SOURCE
#define MTRACE_UNDEF_LARGEFILE_SOURCE
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
#include <stdlib.h>
#include <string.h>
#ifdef __has_include
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#endif
#elif defined(MTRACE) && (MTRACE + 0) && defined(MTRACE_LIB)
/* C++, in the library use (mtrace-c++, mtrace-cc, pkg-config): no
   call-site macros (the standard headers must compile as they are): the
   allocator's names are bound to mtrace's below, and each call is traced
   at its return address (as MTRACE_NO_MACROS does in C); new and delete
   are libmtrace's own (runtime/cxx.c).  Nothing is included before the
   bindings but <features.h>: C++'s <cstdlib> copies malloc into std with
   "using ::malloc", and clang binds std::malloc to the declaration as it
   was then. */
#define MTRACE_ON_ 1
#define MTRACE_CXX_ 1
#if !defined(__GNUC__)
#error "mtrace: this compiler does not speak GNU C++ (asm labels, __thread): trace with g++ or clang++, or build without -DMTRACE"
#endif
#if (MTRACE + 0) < 0 || (MTRACE + 0) > 3
#error "mtrace: MTRACE must be 0, 1, 2 or 3"
#endif
#ifdef __has_include
#if __has_include(<features.h>)
#include <features.h>
#endif
#endif
#endif /* MTRACE on */

/* ---- declarations shared by traced code and the runtime ---- */
#if defined(MTRACE_ON_) || defined(MTRACE_RUNTIME)
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* One per call site, static in the calling function.  `index` is 0 until
   the first call, then the site's slot in the runtime's table. */
struct mtrace_site {
    const char *func, *file;
    int line;
    unsigned index;
    int frames;                    /* its file keeps frame pointers: the
                                      callers can be walked (MTRACE_DEPTH) */
};

/* The sites announced by the macros and not yet consumed by the callee: a
   ring of four per thread, keyed by the call's first argument (see
   mtrace_take in runtime/entry.c for why a ring and a key).  Initial-exec TLS: one
   instruction to reach it from the program, wherever the runtime is. */
struct mtrace_pending {
    __UINTPTR_TYPE__ key[4];
    struct mtrace_site *site[4];
    void *frame[4];                /* the calling function's frame (MTRACE_DEPTH) */
    unsigned top;
    struct mtrace_site *caller;    /* set by MTRACE_ALLOC_FN, */
    void *caller_frame;            /* with the frame of the function it is in */
    /* the runtime's own, per thread: */
    void *taken_frame;             /* frame[] of the site just taken, or 0 */
    int busy;                      /* inside the tracer (a signal handler's
                                      call then passes through untraced);
                                      3: in the C library for the tracer */
    unsigned waited;               /* of its last 32 takings of the tracer's
                                      lock, those that waited (a bit each) */
    const char *call;              /* the traced call under way ("free"), */
    struct mtrace_site *call_site; /* and its site: named if the program dies */
    __UINTPTR_TYPE__ stack_lo, stack_hi;   /* this thread's stack, once asked */
    unsigned long lock_window;     /* when its current 32 takings of the lock began (ns) */
    unsigned lock_takings;         /* its takings of the lock, */
    int lock_fast;                 /* ...and whether the last 32 came fast */
    struct mtrace_site *first;     /* a site at its first call here, */
    __UINTPTR_TYPE__ first_ret;    /* ...and that call's return address: the
                                      site's file's directory, at exit */
    int seen;                      /* a traced call of this thread came back
                                      (runtime/reach.c: mtrace_thread_seen) */
    __UINTPTR_TYPE__ gone;         /* the thread has ended: its mark (reach.c) */
};
extern __thread struct mtrace_pending mtrace_pending
    __attribute__((tls_model("initial-exec"), visibility("default")));

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
extern volatile struct mtrace_pmtrace pmtrace __attribute__((visibility("default")));

#define MTRACE_STR2_(x) #x
#define MTRACE_STR_(x) MTRACE_STR2_(x)
#define MTRACE_SYM_(name) __asm__(MTRACE_STR_(__USER_LABEL_PREFIX__) #name)
#define MTRACE_PUBLIC_ __attribute__((visibility("default")))
MTRACE_PUBLIC_ void *mtrace_malloc(size_t);
MTRACE_PUBLIC_ void *mtrace_calloc(size_t, size_t);
MTRACE_PUBLIC_ void *mtrace_realloc(void *, size_t);
MTRACE_PUBLIC_ void mtrace_free(void *);
MTRACE_PUBLIC_ char *mtrace_strdup(const char *);
MTRACE_PUBLIC_ char *mtrace_strndup(const char *, size_t);
MTRACE_PUBLIC_ void *mtrace_reallocarray(void *, size_t, size_t);
MTRACE_PUBLIC_ void *mtrace_aligned_alloc(size_t, size_t);
MTRACE_PUBLIC_ int mtrace_posix_memalign(void **, size_t, size_t);
MTRACE_PUBLIC_ void *mtrace_valloc(size_t);
MTRACE_PUBLIC_ void *mtrace_memalign(size_t, size_t);
MTRACE_PUBLIC_ void *mtrace_pvalloc(size_t);
MTRACE_PUBLIC_ void mtrace_malloclike(void *p, size_t size, struct mtrace_site *site);
MTRACE_PUBLIC_ void mtrace_freelike(void *p, struct mtrace_site *site);
MTRACE_PUBLIC_ void mtrace_frames_here(void (*code)(void));
MTRACE_PUBLIC_ void mtrace_check_heap_at(struct mtrace_site *site);
MTRACE_PUBLIC_ void mtrace__exit(int) __attribute__((__noreturn__));
MTRACE_PUBLIC_ void mtrace__Exit(int) __attribute__((__noreturn__));
MTRACE_PUBLIC_ void mtrace_quick_exit(int) __attribute__((__noreturn__));
MTRACE_PUBLIC_ void mtrace_exit(int) __attribute__((__noreturn__));
#ifdef __cplusplus
}
#endif
#endif

/* ---- what a traced file gets ---- */
#ifdef MTRACE_ON_

/* The one-line use: the runtime compiled into this file (each copy's
   external definitions are weak, so the program ends up with one).  Found
   beside this header; `make install` rewrites the line to the installed
   copy's name, "mtrace/mtrace.c" (the runtime as one file, in a directory
   of its own under the include directory). */
#ifndef MTRACE_LIB
#define MTRACE_INLINE_RUNTIME_
#include "mtrace.c"
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
#ifdef MTRACE_UNDEF_LARGEFILE_SOURCE
#undef _LARGEFILE_SOURCE
#undef MTRACE_UNDEF_LARGEFILE_SOURCE
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

/* This file's level, for the runtime to find at start-up (a weak symbol:
   one per level in the whole program, whatever the number of files). */
#define MTRACE_CAT2_(a, b) a##b
#define MTRACE_CAT_(a, b) MTRACE_CAT2_(a, b)
#define MTRACE_LEVEL_SYM_ MTRACE_CAT_(mtrace_level_, MTRACE)
/* Redeclarations are the point here: -Wredundant-decls must not fire. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wredundant-decls"
#ifdef MTRACE_CXX_
extern "C" {
#endif
extern const char MTRACE_LEVEL_SYM_;
#ifdef MTRACE_CXX_
__attribute__((weak, used, visibility("default"))) extern const char MTRACE_LEVEL_SYM_ = 1;  /* (C++: const
                                                       objects are internal unless extern) */
#else
__attribute__((weak, used, visibility("default"))) const char MTRACE_LEVEL_SYM_ = 1;
#endif
#ifdef MTRACE_CXX_
/* The C library's own exception specifications (glibc's __THROW), which
   a redeclaration must repeat in C++. */
#ifdef __THROW
#define MTRACE_THROW_ __THROW
#else
#define MTRACE_THROW_
#endif
extern void *malloc(__SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_malloc);
extern void *calloc(__SIZE_TYPE__, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_calloc);
extern void *realloc(void *, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_realloc);
extern void free(void *) MTRACE_THROW_ MTRACE_SYM_(mtrace_free);
extern char *strdup(const char *) MTRACE_THROW_ MTRACE_SYM_(mtrace_strdup);
extern char *strndup(const char *, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_strndup);
extern void *reallocarray(void *, __SIZE_TYPE__, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_reallocarray);
extern void *aligned_alloc(__SIZE_TYPE__, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_aligned_alloc);
extern int posix_memalign(void **, __SIZE_TYPE__, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_posix_memalign);
extern void *valloc(__SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_valloc);
#ifdef __GLIBC__
extern void *memalign(__SIZE_TYPE__, __SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_memalign);
extern void *pvalloc(__SIZE_TYPE__) MTRACE_THROW_ MTRACE_SYM_(mtrace_pvalloc);
#endif
extern void _exit(int) MTRACE_SYM_(mtrace__exit) __attribute__((__noreturn__));
extern void _Exit(int) MTRACE_THROW_ MTRACE_SYM_(mtrace__Exit) __attribute__((__noreturn__));
extern void quick_exit(int) MTRACE_THROW_ MTRACE_SYM_(mtrace_quick_exit) __attribute__((__noreturn__));
}
#else

/* Every name the program uses for the allocator is bound to mtrace's own
   symbol: calls by name and pointers taken to the functions both reach
   the tracer, in static and dynamic binaries alike.  Struct members named
   malloc or free are other identifiers and stay untouched. */
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
/* Exits that skip the exit handlers write the trace out first. */
extern void _exit(int) MTRACE_SYM_(mtrace__exit) __attribute__((__noreturn__));
extern void _Exit(int) MTRACE_SYM_(mtrace__Exit) __attribute__((__noreturn__));
extern void quick_exit(int) MTRACE_SYM_(mtrace_quick_exit) __attribute__((__noreturn__));
#ifndef __GLIBC__
/* A C library without on_exit (musl) does not tell the exit handlers the
   status: exit from traced code notes it first (runtime/platform.c). */
extern void exit(int) MTRACE_SYM_(mtrace_exit) __attribute__((__noreturn__));
#endif
#endif /* C++ or C */
#pragma GCC diagnostic pop

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
/* Frame pointers: always kept without optimisation; with it, only when
   the build says so (mtrace-cc and the pkg-config flags add both
   -fno-omit-frame-pointer and -DMTRACE_FRAME_POINTERS: no compiler
   predefines a macro for the option). */
#if !defined(__OPTIMIZE__) || defined(MTRACE_FRAME_POINTERS)
#define MTRACE_FRAMES_ 1
#else
#define MTRACE_FRAMES_ 0
#endif
/* ...and the runtime learns it per module, with nothing to set at run
   time: each file so built registers a function of its module, weak and
   hidden so that the module (program or shared library) keeps one,
   whatever the number of its files (each registers it: the runtime keeps
   it once).  MTRACE_DEPTH then walks through all of that module's code,
   the callers of calls no macro announced too (MTRACE_NO_MACROS files). */
#if MTRACE_FRAMES_
#ifdef MTRACE_CXX_
extern "C" {
#endif
void mtrace_frames_module_(void) __attribute__((weak, visibility("hidden"), constructor, used));
void mtrace_frames_module_(void)
{
    mtrace_frames_here(mtrace_frames_module_);
}
#ifdef MTRACE_CXX_
}
#endif
#endif
#define MTRACE_SITE_ (__extension__ ({ MTRACE_QUIET_                        \
    static struct mtrace_site mtrace_site_ =                                \
        { MTRACE_FUNC_, __FILE__, __LINE__, 0, MTRACE_FRAMES_ };            \
    MTRACE_LOUD_ &mtrace_site_; }))

/* Announce the site for a call whose first argument is `x` of type T, and
   yield x.  The macros keep the function's own name in front of the
   parentheses, so that mem->free(p) and mem->calloc(1, n) still compile
   (a macro is not expanded again inside its own expansion).  The
   variable's name is made unique with __COUNTER__, so that nested calls
   (calloc(n, strlen(strdup(s)))) shadow nothing under -Wshadow.
   The compiler believes that malloc and free read and write no memory of
   the program, so it would keep the ring in registers across the calls or
   drop the stores as dead: the two empty asm statements forbid both.
   This header is not a system header, so that the program's own warnings
   about these calls (an ignored result of malloc) are not hidden. */
#define MTRACE_AT_(T, x) MTRACE_AT2_(T, x, MTRACE_CAT_(mtrace_arg_, __COUNTER__))
#define MTRACE_AT2_(T, x, v) (__extension__ ({                              \
    T v = (x);                                                              \
    unsigned mtrace_top_;                                                   \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_top_ = (mtrace_pending.top + 1) & 3;                             \
    mtrace_pending.key[mtrace_top_] = (__UINTPTR_TYPE__)v;                  \
    mtrace_pending.site[mtrace_top_] = MTRACE_SITE_;                        \
    mtrace_pending.frame[mtrace_top_] = __builtin_frame_address(0);         \
    mtrace_pending.top = mtrace_top_;                                       \
    __asm__ __volatile__("" ::: "memory");                                  \
    v; }))

#if !defined(MTRACE_NO_MACROS) && !defined(MTRACE_CXX_)
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
/* A compile error in the expansion of one of these means that the file
   declares or defines the function itself (void *malloc(size_t n) ...):
   compile that file with -DMTRACE_NO_MACROS, or write the name in
   parentheses, void *(malloc)(size_t n); see doc/limits.md. */
#define malloc(n) malloc(MTRACE_AT_(size_t, n))                  /* an error here? see MTRACE_NO_MACROS */
#define calloc(n, size) calloc(MTRACE_AT_(size_t, n), size)      /* an error here? see MTRACE_NO_MACROS */
#define realloc(p, n) realloc(MTRACE_AT_(void *, p), n)          /* an error here? see MTRACE_NO_MACROS */
#define free(p) free(MTRACE_AT_(void *, p))                      /* an error here? see MTRACE_NO_MACROS */
#define strdup(s) strdup(MTRACE_AT_(const char *, s))            /* an error here? see MTRACE_NO_MACROS */
#define strndup(s, n) strndup(MTRACE_AT_(const char *, s), n)    /* an error here? see MTRACE_NO_MACROS */
#define reallocarray(p, n, size) reallocarray(MTRACE_AT_(void *, p), n, size) /* an error here? see MTRACE_NO_MACROS */
#define aligned_alloc(a, n) aligned_alloc(MTRACE_AT_(size_t, a), n) /* an error here? see MTRACE_NO_MACROS */
#define posix_memalign(pp, a, n) posix_memalign(MTRACE_AT_(void **, pp), a, n) /* an error here? see MTRACE_NO_MACROS */
#define memalign(a, n) memalign(MTRACE_AT_(size_t, a), n)        /* an error here? see MTRACE_NO_MACROS */
#define valloc(n) valloc(MTRACE_AT_(size_t, n))                  /* an error here? see MTRACE_NO_MACROS */
#define pvalloc(n) pvalloc(MTRACE_AT_(size_t, n))                /* an error here? see MTRACE_NO_MACROS */
#endif

/* Wrappers and custom allocators (see the top of this file). */
#define MTRACE_ALLOC_FN(call) (__extension__ ({                             \
    struct mtrace_site *mtrace_outer_ = mtrace_pending.caller;              \
    __typeof__(call) mtrace_result_;                                        \
    __asm__ __volatile__("" ::: "memory");                                  \
    if (!mtrace_outer_) {                                                   \
        mtrace_pending.caller = MTRACE_SITE_;                               \
        mtrace_pending.caller_frame = __builtin_frame_address(0);           \
    }                                                                       \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_result_ = (call);                                                \
    __asm__ __volatile__("" ::: "memory");                                  \
    mtrace_pending.caller = mtrace_outer_;                                  \
    mtrace_result_; }))
#define MTRACE_MALLOCLIKE(p, size) mtrace_malloclike((p), (size), MTRACE_SITE_)
#define MTRACE_FREELIKE(p) mtrace_freelike((p), MTRACE_SITE_)
/* The whole heap check now (MTRACE_CHECK=heap), reported at this line. */
#define mtrace_check_heap() mtrace_check_heap_at(MTRACE_SITE_)

#else /* no MTRACE: the annotations do nothing */
#define MTRACE_ALLOC_FN(call) (call)
#define MTRACE_MALLOCLIKE(p, size) ((void)(p), (void)(size))
#define MTRACE_FREELIKE(p) ((void)(p))
#define mtrace_check_heap() ((void)0)
#endif /* MTRACE_ON_ */
#endif /* !__ASSEMBLER__ */
#endif /* MTRACE_H */
