/* SPDX-License-Identifier: MIT */
/* runtime/platform.c - what the runtime takes from the system.

   Owns: the system headers, the attribute macros (MTRACE_API, MTRACE_HOT,
   MTRACE_ONE_COPY, MTRACE_COLD_FILE_BEGIN and _END),
   the C library functions the runtime calls under private names (asm
   labels: the program may define its own `write` or `free`), which
   allocator lies beneath the tracer (glibc's __libc_ names, or the
   process's plain ones under a sanitizer or another C library), and
   every call that is glibc's or Linux's alone: one small function per
   need, each with its POSIX fallback (doc/platforms.md lists them).
   What differs between platforms is decided here, once, at run time
   where a weak symbol can tell, else at compile time; no other file
   names a C library or a system.  Calls nothing of ours. */

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#ifdef __linux__
#include <link.h>             /* dl_iterate_phdr: glibc, musl */
#endif
#include <poll.h>
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
#ifdef __linux__
#include <sys/auxv.h>         /* getauxval(AT_SECURE) */
#endif
#include <sys/wait.h>
#ifdef __linux__
#include <sys/syscall.h>      /* futex (its two operations are numbered below: musl-gcc
                                 has no <linux/futex.h>) */
#endif
#include <time.h>
#include <spawn.h>
#include <unistd.h>


#define MTRACE_API __attribute__((weak, visibility("default")))
#ifdef MTRACE_RUNTIME           /* libmtrace: one state, its own */
#define MTRACE_SHARED static
#else                           /* one-line use: one state for all copies */
#define MTRACE_SHARED __attribute__((weak, visibility("default")))
#endif
#define MTRACE_HOT __inline__ __attribute__((always_inline))   /* the per-call path */
/* Compile time.  The one-line use compiles the runtime again into every
   traced file, with the program's flags: at -O2 its cost per file grows
   with the code the optimizer sees, and most of that is the per-call
   path (MTRACE_HOT), inlined into each entry point.  Two things keep it
   down (bench/RESULTS.md, "Build cost"):
   - MTRACE_ONE_COPY: a branch the path seldom takes (the lock found
     taken, a site that is not the last one announced) or an entry point
     programs seldom call (memalign ...) is a function of its own, out of
     line, so that each copy of the path stays small; the usual way
     through the path makes no more calls than before.
   - MTRACE_COLD_FILE_BEGIN and _END around a file with nothing on the
     per-call path (start, exit, the reports, the trace's rare records;
     not reach.c, whose scan at exit reads the whole heap):
     gcc compiles it as at -Og, not at the program's -O2 or -O3: a fifth
     less time for a small file at -O2.  -Og is gcc's level for a quick
     compile that still optimizes (-O1 took 8% more here, -Os more than
     -O1).  Its MTRACE_HOT functions are inlined into their callers and
     optimized there with the callers' flags.  Only in the one-line use
     (libmtrace is compiled once, all of it as the Makefile says), only
     when the program is optimized for speed (-Os stays -Os), and only
     with gcc (4.8 on, for -Og): clang has no such pragma (it ignores
     gcc's), nor has icc's classic front end.  Options the program gives
     (-fno-omit-frame-pointer) stay. */
#define MTRACE_ONE_COPY __attribute__((noinline))
#if defined(MTRACE_INLINE_RUNTIME_) && defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__) \
    && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER) \
    && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 8))
#define MTRACE_COLD_FILE_BEGIN _Pragma("GCC push_options") _Pragma("GCC optimize(\"Og\")")
#define MTRACE_COLD_FILE_END _Pragma("GCC pop_options")
#else
#define MTRACE_COLD_FILE_BEGIN
#define MTRACE_COLD_FILE_END
#endif
#if defined(__x86_64__) || defined(__i386__)
#define MTRACE_PAUSE() __builtin_ia32_pause()   /* a spinning thread's hint */
#else
#define MTRACE_PAUSE() ((void)0)
#endif
#define MTRACE_LIBC(ret, name, args, sym) extern ret name args MTRACE_SYM_(sym)
/* A symbol named by its link name, as a string: life.c compares the
   process's mtrace_malloc with the runtime's own without calling it. */
#define MTRACE_LINK_NAME_(str) __asm__(MTRACE_STR_(__USER_LABEL_PREFIX__) str)

MTRACE_LIBC(long, mtrace_write, (int, const void *, size_t), write);
MTRACE_LIBC(long, mtrace_read, (int, void *, size_t), read);
MTRACE_LIBC(int, mtrace_close, (int), close);
MTRACE_LIBC(int, mtrace_getpid, (void), getpid);
MTRACE_LIBC(unsigned, mtrace_geteuid, (void), geteuid);
MTRACE_LIBC(int, mtrace_sigmask, (int, const sigset_t *, sigset_t *), pthread_sigmask);
MTRACE_LIBC(int, mtrace_setcancelstate, (int, int *), pthread_setcancelstate);
MTRACE_LIBC(char *, mtrace_getcwd, (char *, size_t), getcwd);
MTRACE_LIBC(void, mtrace_exit_now, (int), _exit) __attribute__((__noreturn__));
MTRACE_LIBC(void, mtrace_libc__Exit, (int), _Exit) __attribute__((__noreturn__));
MTRACE_LIBC(void, mtrace_libc_quick_exit, (int), quick_exit) __attribute__((__noreturn__));
MTRACE_LIBC(void, mtrace_libc_exit, (int), exit) __attribute__((__noreturn__));
MTRACE_LIBC(int, mtrace_clock_gettime, (int, struct timespec *), clock_gettime);
MTRACE_LIBC(int, mtrace_sched_yield, (void), sched_yield);
MTRACE_LIBC(int, mtrace_atfork, (void (*)(void), void (*)(void), void (*)(void)), pthread_atfork);
MTRACE_LIBC(void *, mtrace_libc_reallocarray, (void *, size_t, size_t), reallocarray);
MTRACE_LIBC(int, mtrace_msync, (void *, size_t, int), msync);
MTRACE_LIBC(int, mtrace_key_create, (pthread_key_t *, void (*)(void *)), pthread_key_create);
MTRACE_LIBC(int, mtrace_setspecific, (pthread_key_t, const void *), pthread_setspecific);

/* Large files: a 32-bit program's trace may pass 2 GiB, and a report
   may replace a larger file.  The runtime is compiled with the program's
   flags, where off_t and struct stat may be 32 bits wide (no
   -D_FILE_OFFSET_BITS=64; glibc's open then does not add O_LARGEFILE
   itself).  So every open of ours adds O_LARGEFILE (without it, opening a
   file over 2 GiB fails with EOVERFLOW, and a write past 2 GiB with
   EFBIG); offsets are 64 bits (glibc's lseek64 and ftruncate64, in every
   glibc; elsewhere off_t is 64 bits wide: musl, the BSDs); and the stat
   calls are glibc's *64 ones (a 32-bit fstat of a file over 2 GiB fails
   with EOVERFLOW), unless the program's flags made the plain ones 64-bit
   already (and with _TIME_BITS=64, of another struct). */
#if defined(O_LARGEFILE)
#define MTRACE_O_LARGEFILE O_LARGEFILE
#elif defined(__O_LARGEFILE)
#define MTRACE_O_LARGEFILE __O_LARGEFILE
#else
#define MTRACE_O_LARGEFILE 0
#endif
#ifdef __GLIBC__
MTRACE_LIBC(long long, mtrace_lseek, (int, long long, int), lseek64);
MTRACE_LIBC(int, mtrace_ftruncate, (int, long long), ftruncate64);
#else
MTRACE_LIBC(long long, mtrace_lseek, (int, long long, int), lseek);
MTRACE_LIBC(int, mtrace_ftruncate, (int, long long), ftruncate);
#endif
#if defined(__GLIBC__) && defined(__USE_LARGEFILE64) && !defined(__USE_FILE_OFFSET64)
typedef struct stat64 mtrace_stat_t;
MTRACE_LIBC(int, mtrace_fstat, (int, struct stat64 *), fstat64);
MTRACE_LIBC(int, mtrace_stat, (const char *, struct stat64 *), stat64);
MTRACE_LIBC(int, mtrace_lstat, (const char *, struct stat64 *), lstat64);
#else
typedef struct stat mtrace_stat_t;
#define mtrace_fstat fstat
#define mtrace_stat stat
#define mtrace_lstat lstat
#endif

/* open(2) as the runtime opens every file: large files too. */
static int mtrace_open(const char *path, int flags, int mode)
{
    return open(path, flags | MTRACE_O_LARGEFILE, mode);
}

/* The C library's allocator.  On glibc the program also defines malloc,
   calloc, realloc and free itself (see the interposers at the end), so
   the real ones are reached by their __libc_ names.  Not when the runtime
   is compiled with a sanitizer, whose own malloc must stay the program's,
   nor when libmtrace, compiled without, runs in a sanitized program
   (mtrace_under_sanitizer, below): the process's plain names then.  The
   one-line runtime compiled plainly into a file that a sanitized program
   links is told with -DMTRACE_SANITIZED=1 (doc/limits.md): its malloc
   beside the sanitizer's would crash the program at start. */
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
/* glibc 2.32 on says whether the process has one thread (the lock then
   costs no atomic operation); elsewhere it may have several. */
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 32)
MTRACE_LIBC(char, mtrace_single_threaded, , __libc_single_threaded);
#define MTRACE_HAS_SINGLE_THREADED 1
#endif
#endif
#ifndef MTRACE_HAS_SINGLE_THREADED
#define mtrace_single_threaded 0
#endif

/* The process's allocator, whoever defined it: normally our interposer
   (runtime/interpose.c, see mtrace_probe_interposer), a sanitizer's, or
   the C library's. */
MTRACE_LIBC(void *, mtrace_process_malloc, (size_t), malloc);
MTRACE_LIBC(void *, mtrace_process_calloc, (size_t, size_t), calloc);
MTRACE_LIBC(void *, mtrace_process_realloc, (void *, size_t), realloc);
MTRACE_LIBC(void, mtrace_process_free, (void *), free);
MTRACE_LIBC(void *, mtrace_process_valloc, (size_t), valloc);
MTRACE_LIBC(void *, mtrace_process_memalign, (size_t, size_t), memalign);
MTRACE_LIBC(void *, mtrace_process_aligned_alloc, (size_t, size_t), aligned_alloc);
MTRACE_LIBC(int, mtrace_process_posix_memalign, (void **, size_t, size_t), posix_memalign);
#ifdef __GLIBC__
MTRACE_LIBC(void *, mtrace_process_pvalloc, (size_t), pvalloc);
#endif

/* Does a sanitizer's allocator own the process's malloc?  Every one of
   them (ASan, LSan, TSan, MSan, HWASan) defines this; a weak reference
   sees it wherever it is (the program, or gcc's libasan.so). */
extern size_t mtrace_sanitizer_size_(const void *) MTRACE_SYM_(__sanitizer_get_allocated_size) __attribute__((weak));
static MTRACE_HOT int mtrace_under_sanitizer(void)
{
    return mtrace_sanitizer_size_ != 0;
}

#ifdef MTRACE_INTERPOSE
MTRACE_LIBC(void *, mtrace_glibc_malloc, (size_t), __libc_malloc);
MTRACE_LIBC(void *, mtrace_glibc_calloc, (size_t, size_t), __libc_calloc);
MTRACE_LIBC(void *, mtrace_glibc_realloc, (void *, size_t), __libc_realloc);
MTRACE_LIBC(void, mtrace_glibc_free, (void *), __libc_free);
MTRACE_LIBC(void *, mtrace_glibc_memalign, (size_t, size_t), __libc_memalign);
MTRACE_LIBC(void *, mtrace_glibc_valloc, (size_t), __libc_valloc);
MTRACE_LIBC(void *, mtrace_glibc_pvalloc, (size_t), __libc_pvalloc);
/* Beneath the tracer: glibc's own allocator, or under a sanitizer the
   process's (memory from __libc_malloc, freed by the sanitizer's free,
   would be an error there).  A load and a branch that always goes one
   way. */
#define MTRACE_BENEATH(call, args) (mtrace_under_sanitizer() ? mtrace_process_##call args : mtrace_glibc_##call args)
static MTRACE_HOT void *mtrace_libc_malloc(size_t n)
{
    return MTRACE_BENEATH(malloc, (n));
}

static MTRACE_HOT void *mtrace_libc_calloc(size_t n, size_t size)
{
    return MTRACE_BENEATH(calloc, (n, size));
}

static MTRACE_HOT void *mtrace_libc_realloc(void *p, size_t n)
{
    return MTRACE_BENEATH(realloc, (p, n));
}

static MTRACE_HOT void mtrace_libc_free(void *p)
{
    if (mtrace_under_sanitizer())
        mtrace_process_free(p);
    else
        mtrace_glibc_free(p);
}

static void *mtrace_libc_memalign(size_t align, size_t n)
{
    return MTRACE_BENEATH(memalign, (align, n));
}

static void *mtrace_libc_valloc(size_t n)
{
    return MTRACE_BENEATH(valloc, (n));
}

static void *mtrace_libc_pvalloc(size_t n)
{
    return MTRACE_BENEATH(pvalloc, (n));
}

/* The program's aligned_alloc and posix_memalign are ours (see the
   interposers): the C library's, reached through __libc_memalign with
   the checks glibc makes. */
static void *mtrace_libc_aligned_alloc(size_t align, size_t n)
{
    if (mtrace_under_sanitizer())
        return mtrace_process_aligned_alloc(align, n);
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return 0;
    }
    return mtrace_glibc_memalign(align, n);
}

static int mtrace_libc_posix_memalign(void **pp, size_t align, size_t n)
{
    void *p;
    int saved = errno;
    if (mtrace_under_sanitizer())
        return mtrace_process_posix_memalign(pp, align, n);
    if (align % sizeof(void *) || (align & (align - 1)) || align == 0)
        return EINVAL;
    if (!(p = mtrace_glibc_memalign(align, n)))
        return ENOMEM;
    errno = saved;
    *pp = p;
    return 0;
}
#else
#define mtrace_libc_malloc mtrace_process_malloc
#define mtrace_libc_calloc mtrace_process_calloc
#define mtrace_libc_realloc mtrace_process_realloc
#define mtrace_libc_free mtrace_process_free
#define mtrace_libc_valloc mtrace_process_valloc
#define mtrace_libc_memalign mtrace_process_memalign
#define mtrace_libc_pvalloc mtrace_process_pvalloc
#define mtrace_libc_aligned_alloc mtrace_process_aligned_alloc
#define mtrace_libc_posix_memalign mtrace_process_posix_memalign
#endif

/* ---- What only some systems have: one function a need, its fallback ---- */

/* A coarse monotonic clock: Linux's is read from the vDSO in a few
   nanoseconds (and async-signal-safe, as every clock_gettime). */
#ifdef CLOCK_MONOTONIC_COARSE
#define MTRACE_CLOCK CLOCK_MONOTONIC_COARSE
#else
#define MTRACE_CLOCK CLOCK_MONOTONIC
#endif

/* A fine monotonic clock, in nanoseconds: also from the vDSO on Linux
   (24 ns on these machines); 0 if there is none. */
static long long mtrace_now_ns(void)
{
    struct timespec t;
    if (mtrace_clock_gettime(CLOCK_MONOTONIC, &t) != 0)
        return 0;
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Is this a set-user-ID (or file-capability) program, whose environment
   and PATH are not ours to trust?  Linux says so in the auxiliary vector
   (glibc 2.16, musl); the BSDs and macOS by issetugid. */
static int mtrace_secure(void)
{
#if defined(__linux__)
    return getauxval(AT_SECURE) != 0;
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
    return issetugid();
#else
    return getuid() != geteuid() || getgid() != getegid();
#endif
}

/* getenv that a set-user-ID program answers with NULL: glibc's
   secure_getenv; elsewhere the same, if the C library has it (musl
   does, dynamically linked), else getenv behind mtrace_secure. */
#ifdef __GLIBC__
MTRACE_LIBC(char *, mtrace_getenv, (const char *), secure_getenv);
#else
extern char *mtrace_libc_secure_getenv(const char *) MTRACE_SYM_(secure_getenv) __attribute__((weak));
MTRACE_LIBC(char *, mtrace_libc_getenv, (const char *), getenv);
static char *mtrace_getenv(const char *name)
{
    if (mtrace_libc_secure_getenv)
        return mtrace_libc_secure_getenv(name);
    return mtrace_secure() ? 0 : mtrace_libc_getenv(name);
}
#endif

/* The calling thread's stack, [*lo, *hi): 0 if the system does not say.
   pthread_getattr_np is glibc's and musl's (FreeBSD spells it
   pthread_attr_get_np, macOS pthread_get_stackaddr_np: not ported). */
#ifdef __linux__
MTRACE_LIBC(int, mtrace_getattr_np, (pthread_t, pthread_attr_t *), pthread_getattr_np);
#endif
static int mtrace_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
#ifdef __linux__
    pthread_attr_t a;
    void *base;
    size_t n;
    int known = 0;
    if (mtrace_getattr_np(pthread_self(), &a) != 0)
        return 0;
    if (pthread_attr_getstack(&a, &base, &n) == 0) {
        *lo = (uintptr_t)base;
        *hi = (uintptr_t)base + n;
        known = 1;
    }
    pthread_attr_destroy(&a);
    return known;
#else
    (void)lo;
    (void)hi;
    return 0;
#endif
}

/* The loaded modules (the program, its libraries, plugins) and their
   loadable segments, from the loader: dl_iterate_phdr (glibc, musl, the
   BSDs; macOS would need _dyld_image_count and friends).  fn is called
   for each module until it says nonzero, which mtrace_modules returns;
   0 if no module said so, or the system cannot tell. */
#define MTRACE_MODSEGS 16
struct mtrace_module {
    uintptr_t bias;             /* what the module's addresses are offset by */
    const char *path;           /* "" for the program */
    unsigned n;                 /* its loadable segments (the first MTRACE_MODSEGS) */
    struct mtrace_modseg { uintptr_t lo, hi; int writable, executable; } seg[MTRACE_MODSEGS];
};
typedef int (*mtrace_module_fn)(const struct mtrace_module *, void *);
struct mtrace_modules_walk { mtrace_module_fn fn; void *arg; };

#ifdef __linux__
static int mtrace_module_seen(struct dl_phdr_info *info, size_t size, void *arg)
{
    const struct mtrace_modules_walk *w = (const struct mtrace_modules_walk *)arg;
    struct mtrace_module m;
    int i;
    (void)size;
    m.bias = info->dlpi_addr;
    m.path = info->dlpi_name ? info->dlpi_name : "";
    m.n = 0;
    for (i = 0; i < info->dlpi_phnum && m.n < MTRACE_MODSEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        m.seg[m.n].lo = info->dlpi_addr + ph->p_vaddr;
        m.seg[m.n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        m.seg[m.n].writable = (ph->p_flags & PF_W) != 0;
        m.seg[m.n].executable = (ph->p_flags & PF_X) != 0;
        m.n++;
    }
    return w->fn(&m, w->arg);
}
#endif

static int mtrace_modules(mtrace_module_fn fn, void *arg)
{
#ifdef __linux__
    struct mtrace_modules_walk w;
    w.fn = fn;
    w.arg = arg;
    return dl_iterate_phdr(mtrace_module_seen, &w);
#else
    (void)fn;
    (void)arg;
    return 0;
#endif
}

/* The largest resident set size so far, in bytes: getrusage counts KiB
   on Linux and the BSDs, bytes on macOS.  Asked of the calling thread
   where the system can (Linux, FreeBSD): its ru_maxrss is the process's
   all the same (the address space's high-water mark), and the kernel
   then adds up no other thread's times: for the process's it reads the
   clock of every thread, locking the run queue of each one running on
   another core, the writer's among them (churn at level 1: 0.5x of the
   program's own time in 15,600 calls). */
#ifdef RUSAGE_THREAD
#define MTRACE_RUSAGE RUSAGE_THREAD
#else
#define MTRACE_RUSAGE RUSAGE_SELF
#endif
static size_t mtrace_rss(void)
{
    struct rusage ru;
    if (getrusage(MTRACE_RUSAGE, &ru) != 0)
        return 0;
#ifdef __APPLE__
    return (size_t)ru.ru_maxrss;
#else
    return (size_t)ru.ru_maxrss * 1024;
#endif
}

/* A pipe whose ends close on exec, made at once where pipe2 exists (no
   other thread's fork can inherit it in between). */
static int mtrace_pipe_cloexec(int fds[2])
{
#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

/* Empties a regular file the tracer is about to write (0, or -1 and
   errno).  ext4 takes a truncation to size 0 for a file about to be
   replaced (its auto_da_alloc) and has the file's last close write out
   all that was written since, in the closing thread: a program's exit
   waited 0.1 s for 288 MB of trace (bench/churn.c at level 1), a fifth
   of its run.  So a file already empty (a new one) is not truncated, and
   one with data is, then opened a second time through /proc and closed at
   once: that close ends the state while nothing is there to write out.
   Without /proc (or ext4) the close is what it was. */
static int mtrace_empty_file(int fd)
{
    mtrace_stat_t st;
    if (mtrace_fstat(fd, &st) == 0 && st.st_size == 0)
        return 0;
    if (mtrace_ftruncate(fd, 0) != 0)
        return -1;
#ifdef __linux__
    {
        char again_name[32];
        int again;
        snprintf(again_name, sizeof again_name, "/proc/self/fd/%d", fd);
        again = mtrace_open(again_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
        if (again < 0)          /* a file we may write, not read */
            again = mtrace_open(again_name, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
        if (again >= 0)
            mtrace_close(again);
    }
#endif
    return 0;
}

/* Takes back the signals of `set` that are pending (blocked, raised by the
   tracer's own write): sigtimedwait with no wait, or where it is missing
   (macOS), sigwait on each one sigpending shows. */
static void mtrace_drop_pending(const sigset_t *set)
{
#ifdef __linux__
    static const struct timespec now = { 0, 0 };
    while (sigtimedwait(set, 0, &now) > 0)
        ;
#else
    sigset_t pending, one;
    int sig, got;
    if (sigpending(&pending) != 0)
        return;
    for (sig = 1; sig < 32; sig++)
        if (sigismember(set, sig) == 1 && sigismember(&pending, sig) == 1) {
            sigemptyset(&one);
            sigaddset(&one, sig);
            sigwait(&one, &got);
        }
#endif
}

/* The writer thread (runtime/ring.c): a thread of the tracer's own, with
   every signal blocked (the program's signals are for the program's
   threads: a handler of the program's must never run on ours), named by
   its creator where threads have names (ps, top and gdb show it; named
   before the call that started it returns), and detached: at exit the
   report waits until it is gone (mtrace_thread_gone), which a join could
   not do on every way out (ThreadSanitizer checks for threads never
   joined before our report runs).  1 if it started. */
MTRACE_LIBC(int, mtrace_pthread_create, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *),
            pthread_create);
MTRACE_LIBC(int, mtrace_pthread_detach, (pthread_t), pthread_detach);
#ifdef __linux__
MTRACE_LIBC(int, mtrace_pthread_setname, (pthread_t, const char *), pthread_setname_np);
#endif
static int mtrace_start_thread(void *(*fn)(void *), const char *name)
{
    sigset_t all, old;
    pthread_t t;
    int err;
    sigfillset(&all);
    mtrace_sigmask(SIG_SETMASK, &all, &old);
    err = mtrace_pthread_create(&t, 0, fn, 0);
    mtrace_sigmask(SIG_SETMASK, &old, 0);
    if (err)
        return 0;
#ifdef __linux__
    mtrace_pthread_setname(t, name);
#else
    (void)name;
#endif
    mtrace_pthread_detach(t);
    return 1;
}


/* Sleeping on a word until another thread changes it and wakes us, or us
   microseconds pass: Linux's futex (no system call for the waker unless
   somebody sleeps: see ring.c; and not a cancellation point, which
   nanosleep is), elsewhere a short sleep that the waker cannot cut (the
   wait is bounded either way).  Linux adds the thread's timer slack, 50
   microseconds unless the program changed it. */
#ifdef __linux__
MTRACE_LIBC(long, mtrace_syscall, (long, ...), syscall);
#define MTRACE_FUTEX_WAIT_PRIVATE 128   /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
#define MTRACE_FUTEX_WAKE_PRIVATE 129   /* FUTEX_WAKE | FUTEX_PRIVATE_FLAG */
#endif
static void mtrace_sleep_us(int *word, int value, long us)
{
#ifdef __linux__
    struct timespec t;
    t.tv_sec = us / 1000000;
    t.tv_nsec = us % 1000000 * 1000;
    mtrace_syscall(SYS_futex, word, MTRACE_FUTEX_WAIT_PRIVATE, value, &t, 0, 0);
#else
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value)
        return;
    if (us < 1000)
        mtrace_sched_yield();
    else
        poll(0, 0, us < 2000 ? (int)(us / 1000) : 2);
#endif
}

static void mtrace_wake_on(int *word)
{
#ifdef __linux__
    mtrace_syscall(SYS_futex, word, MTRACE_FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
#else
    (void)word;
#endif
}

/* The calling thread's id, and whether the thread of that id is gone from
   this process (Linux: its /proc/self/task entry, removed when it has
   exited); elsewhere 0, and gone. */
static int mtrace_gettid(void)
{
#ifdef __linux__
    return (int)mtrace_syscall(SYS_gettid);
#else
    return 0;
#endif
}

static int mtrace_thread_gone(int tid)
{
#ifdef __linux__
    char path[64];
    mtrace_stat_t st;
    snprintf(path, sizeof path, "/proc/self/task/%d", tid);
    return tid <= 0 || mtrace_stat(path, &st) != 0;
#else
    (void)tid;
    return 1;
#endif
}

/* Is the page holding p mapped no more?  (msync says ENOMEM for an
   unmapped page, on Linux and the BSDs alike.) */
static int mtrace_unmapped(const void *p)
{
    return mtrace_msync((void *)((uintptr_t)p & ~(uintptr_t)4095), 1, MS_ASYNC) != 0 && errno == ENOMEM;
}

/* The environment, for the helpers the runtime starts (addr2line). */
extern char **environ;
static char **mtrace_environment(void)
{
    return environ;
}

/* The exit handler that gets the status exit() was given, registered
   once at start (runtime/life.c).  glibc's on_exit passes it; a C library
   without on_exit (musl, the BSDs, macOS) gets an atexit handler that
   passes the status mtrace_exit noted (exit() called from traced code),
   or says, by a nonzero second argument, that it is unknown (main
   returned, or code without mtrace called exit). */
typedef void (*mtrace_exit_fn)(int status, void *unknown);
MTRACE_SHARED struct mtrace_exit_seen { int status, known; } mtrace_exit_seen_;

static void mtrace_note_exit(int status)
{
    mtrace_exit_seen_.status = status;
    mtrace_exit_seen_.known = 1;
}

#ifdef __GLIBC__
static int mtrace_at_exit(mtrace_exit_fn fn)
{
    return on_exit(fn, 0);
}
#else
extern int mtrace_libc_on_exit(void (*)(int, void *), void *) MTRACE_SYM_(on_exit) __attribute__((weak));
static mtrace_exit_fn mtrace_exit_fn_;      /* the copy that registers it calls it */
static void mtrace_exit_handler_(void)
{
    mtrace_exit_fn_(mtrace_exit_seen_.status, mtrace_exit_seen_.known ? 0 : (void *)1);
}

static int mtrace_at_exit(mtrace_exit_fn fn)
{
    if (mtrace_libc_on_exit)
        return mtrace_libc_on_exit(fn, 0);
    mtrace_exit_fn_ = fn;
    return atexit(mtrace_exit_handler_);
}
#endif

/* Runs fn after the destructors that exit() is running now: glibc runs
   an exit handler registered during exit once they are done.  0 where
   that cannot be (musl ran its exit handlers before the destructors):
   the caller runs fn itself. */
static int mtrace_after_destructors(void (*fn)(void))
{
#ifdef __GLIBC__
    return atexit(fn) == 0;
#else
    (void)fn;
    return 0;
#endif
}

/* The dynamic loader's lookup, weak: no libdl needed, and 0 where there is
   none (a static binary; a C library older than glibc 2.34 without libdl
   linked).  dlopen is reached through it, never named (see below). */
extern void *mtrace_dlsym(void *, const char *) MTRACE_SYM_(dlsym) __attribute__((weak));

#ifdef MTRACE_INTERPOSE
/* The C library's malloc_usable_size, beneath the process's, which is
   ours (runtime/interpose.c): the next definition after this object's
   (dlsym's RTLD_NEXT), found at the first call; where the loader cannot
   say (a static binary), glibc's chunk header read as glibc reads it
   (the size word before the block, less the header, two words for a
   block of its own mapping). */
static size_t mtrace_libc_usable_size(void *p)
{
    static size_t (*next)(void *);
    size_t (*fn)(void *) = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    size_t head;
    if (!fn && mtrace_dlsym) {
        fn = __extension__ (size_t (*)(void *))mtrace_dlsym((void *)-1L /* RTLD_NEXT */, "malloc_usable_size");
        __atomic_store_n(&next, fn, __ATOMIC_RELEASE);
    }
    if (fn)
        return fn(p);
    if (!p)
        return 0;
    memcpy(&head, (char *)p - sizeof head, sizeof head);
    return (head & ~(size_t)7) - (head & 2 ? 2 : 1) * sizeof head;
}
#else
#define mtrace_libc_usable_size(p) ((void)(p), (size_t)-1)     /* (no heap check there) */
#endif

#if defined(__GLIBC__) && !defined(MTRACE_RUNTIME)
/* One-line use: the copy of the runtime that started registered handlers
   (exit, fork, signals) that point into its own object.  If that object
   is a plugin, dlclose must not unmap it: pin the module holding `addr`
   (libmtrace.so is linked with -z nodelete for the same reason; musl
   never unloads).  Weak: no libdl needed.  dlopen is not named: a static
   glibc (2.34 on) has it in libc.a, pulled in anyway, and ld warns at
   every reference to it ("Using 'dlopen' in statically linked
   applications..."); dlsym carries no such warning and finds dlopen at
   run time.  (A versioned reference, dlopen@GLIBC_2.34, is quiet too, but
   ld mislinks it beside a sanitizer's dlopen: gcc -fsanitize=thread
   programs crashed at start.) */
struct mtrace_dl_info { const char *fname; void *fbase; const char *sname; void *saddr; };
extern int mtrace_dladdr(const void *, struct mtrace_dl_info *) MTRACE_SYM_(dladdr) __attribute__((weak));
static void mtrace_pin_module_of(const void *addr)
{
    struct mtrace_dl_info info;
    void *(*pin)(const char *, int);
    if (!mtrace_dladdr || !mtrace_dlsym || !mtrace_dladdr(addr, &info) || !info.fname)
        return;     /* a static binary: nothing to pin, nothing unloads it */
    pin = __extension__ (void *(*)(const char *, int))mtrace_dlsym((void *)0 /* RTLD_DEFAULT */, "dlopen");
    if (pin)
        pin(info.fname, 0x0001 | 0x0004 | 0x1000);   /* RTLD_LAZY|NOLOAD|NODELETE */
}
#else
#define mtrace_pin_module_of(addr) ((void)(addr))
#endif

/* A sanitizer in the process (the program built with -fsanitize=...):
   fn runs when it ends the process, after its report (LeakSanitizer's
   leaks, or an error ASan found); and did ASan report an error?  Nothing
   without one. */
extern void mtrace_san_death_cb_(void (*)(void)) MTRACE_SYM_(__sanitizer_set_death_callback) __attribute__((weak));
extern int mtrace_asan_report_present_(void) MTRACE_SYM_(__asan_report_present) __attribute__((weak));
static void mtrace_at_sanitizer_death(void (*fn)(void))
{
    if (mtrace_san_death_cb_)
        mtrace_san_death_cb_(fn);
}

static int mtrace_sanitizer_error_reported(void)
{
    return mtrace_asan_report_present_ && mtrace_asan_report_present_();
}
