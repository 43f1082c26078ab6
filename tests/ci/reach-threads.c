/* SPDX-License-Identifier: MIT */ /* Reachable or lost at exit when threads
   have ended (issue 37): glibc keeps an ended thread's stack mapped for the
   next thread, its TLS at the top, with words of its last calls there.
   Memcheck knows the thread is gone; the argument picks the case:
     realloc  a thread reallocs a block and loses it: 40 bytes lost
     free     a thread frees a block and ends; main gets the same address
              from malloc and loses it: 50 bytes lost
     arena    a thread allocates and frees (its own arena); a malloc no
              allocator can serve moves main to that arena, where main
              loses a block: 704 bytes lost
     reuse    a thread that made traced calls ends; the next thread takes
              its stack over (glibc's cache: it says "reused" on stdout),
              holds the only pointer to a block, makes no traced call and
              is still running at exit: 64 bytes still reachable
     reuse-traced  the same, the second thread making a traced call too
     many N   N threads at once (small stacks, all in glibc's cache after)
              each realloc a block and lose it: 48 bytes each lost, up to
              256 threads (the stacks listed); past that, the stacks first
              listed are scanned again (words of their last calls there)
   No stdio: every heap block is traced. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *block, *volatile handover;
static pthread_barrier_t together;
static volatile int ready;
static volatile uintptr_t first_self;

/* Zeroes the stack the calls used: what is left is not in the frames. */
static __attribute__((noinline)) void scrub(void)
{
    char pad[1 << 16];
    memset(pad, 0, sizeof pad);
    __asm__ volatile("" : : "r"(pad) : "memory");
}

static __attribute__((noinline)) void lose(size_t n, int resize)
{
    char *p = malloc(n - 4 * resize);
    if (resize)
        p = realloc(p, n);
    memset(p, 0, n);
    __asm__ volatile("" : : "r"(p) : "memory");
}

static void *ends(void *arg)
{
    const char *how = arg;
    first_self = (uintptr_t)pthread_self();
    if (!strcmp(how, "realloc"))
        lose(40, 1);
    else if (!strcmp(how, "free")) {
        free(block);
        block = 0;
    } else {
        char *p = malloc(52);
        __asm__ volatile("" : : "r"(p) : "memory");
        free(p);
    }
    scrub();
    return 0;
}

/* The second thread of `reuse`: the block's only holder, until exit. */
static void *holds(void *arg)
{
    char *volatile mine = handover;
    if (arg)
        free(malloc(8));
    if ((uintptr_t)pthread_self() == first_self)
        write(1, "reused\n", 7);
    ready = 1;
    for (;;)
        pause();
    return mine;
}

static int reuse(int traced)
{
    pthread_t t;
    handover = malloc(64);
    memset(handover, 0, 64);
    if (pthread_create(&t, 0, holds, traced ? "traced" : 0))
        return 2;
    while (!ready)
        usleep(1000);
    handover = 0;
    scrub();
    exit(0);
}

/* A thread of `many`: its block lost, it waits for all the others. */
static void *loses(void *arg)
{
    lose(48, 1);
    pthread_barrier_wait(&together);
    return arg;
}

static int many(int n)
{
    pthread_t t[1024];
    pthread_attr_t small;
    int i;
    if (n < 1 || n > 1024 || pthread_attr_init(&small) || pthread_attr_setstacksize(&small, 64 * 1024)
        || pthread_barrier_init(&together, 0, n))
        return 2;
    for (i = 0; i < n; i++)
        if (pthread_create(&t[i], &small, loses, 0))
            return 2;
    for (i = 0; i < n; i++)
        pthread_join(t[i], 0);
    return 0;
}

int main(int argc, char **argv)
{
    pthread_t t;
    const char *how = argc > 1 ? argv[1] : "realloc";
    if (!strcmp(how, "many"))
        return many(argc > 2 ? atoi(argv[2]) : 0);
    if (!strcmp(how, "free"))
        block = malloc(50);
    if (pthread_create(&t, 0, ends, (void *)how) || pthread_join(t, 0))
        return 2;
    if (!strcmp(how, "free"))
        lose(50, 0);
    else if (!strcmp(how, "arena")) {
        void *huge = malloc((size_t)1 << 48);      /* fails: glibc retries in another arena */
        __asm__ volatile("" : : "r"(huge) : "memory");
        lose(704, 0);
    } else if (!strncmp(how, "reuse", 5))
        return reuse(how[5] != 0);
    scrub();
    return 0;
}
