/* runtime/platform.c - what the runtime takes from the system.

   Owns: the system headers, the attribute macros (MTRACE_API, MTRACE_HOT),
   the C library functions the runtime calls under private names (asm
   labels: the program may define its own `write` or `free`), and which
   allocator lies beneath the tracer (glibc's __libc_ names, or the
   plain ones under a sanitizer or another C library).  What differs
   between platforms is decided here, once.  Calls nothing of ours. */

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
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
/* A symbol named by its link name, as a string: life.c compares the
   process's mtrace_malloc with the runtime's own without calling it. */
#define MTRACE_LINK_NAME_(str) __asm__(MTRACE_STR_(__USER_LABEL_PREFIX__) str)

MTRACE_LIBC(long, mtrace_write, (int, const void *, size_t), write);
MTRACE_LIBC(long, mtrace_read, (int, void *, size_t), read);
MTRACE_LIBC(int, mtrace_close, (int), close);
MTRACE_LIBC(int, mtrace_ftruncate, (int, long), ftruncate);
MTRACE_LIBC(long, mtrace_lseek, (int, long, int), lseek);
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
MTRACE_LIBC(int, mtrace_msync, (void *, size_t, int), msync);

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
/* The process's malloc, whoever defined it: normally our interposer
   (runtime/interpose.c); see mtrace_probe_interposer. */
MTRACE_LIBC(void *, mtrace_process_malloc, (size_t), malloc);
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

