/* SPDX-License-Identifier: MIT */
/* tests/heapcheck/heap.c - the heap check (MTRACE_CHECK=heap), one case a
   mode (tests/heapcheck.sh).  Lines the suite names carry a "L:name"
   comment, which it looks for. */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef mtrace_check_heap
#define mtrace_check_heap() ((void)0)
#endif

char *plain_dup(const char *s);
void plain_free(void *p);
void *plain_realloc(void *p, size_t n);
size_t plain_usable(void *p);

static int bad;
#define EXPECT(cond) ((cond) ? (void)0 : (void)(bad++, fprintf(stderr, "heap.c:%d: expected %s\n", __LINE__, #cond)))

static char *volatile keep;     /* a block the compiler cannot see through */

static void aligned(void)
{
    size_t a, page = (size_t)sysconf(_SC_PAGESIZE);
    void *p;
    char *q;
    for (a = 32; a <= 4096; a *= 8) {
        q = aligned_alloc(a, 3 * a);
        EXPECT(q && (uintptr_t)q % a == 0 && malloc_usable_size(q) == 3 * a);
        memset(q, 1, 3 * a);
        free(q);
    }
    EXPECT(posix_memalign(&p, 4096, 100) == 0 && (uintptr_t)p % 4096 == 0);
    memset(p, 2, 100);
    free(p);
    EXPECT(posix_memalign(&p, 24, 100) != 0);
    q = memalign(128, 50);
    EXPECT(q && (uintptr_t)q % 128 == 0);
    memset(q, 3, 50);
    free(q);
    q = valloc(10);
    EXPECT(q && (uintptr_t)q % page == 0);
    free(q);
    q = pvalloc(10);
    EXPECT(q && (uintptr_t)q % page == 0 && malloc_usable_size(q) == page);
    memset(q, 4, malloc_usable_size(q));
    free(q);
}

/* Blocks of the C library's freed by traced code, traced ones freed and
   grown by the C library: nothing to report. */
static void library(void)
{
    static const char text[] = "a short line\nand a much longer line than the buffer it is read into\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    size_t cap = 4, len;
    char *line = malloc(cap), *s, *buf;
    EXPECT(getline(&line, &cap, f) == 13);
    EXPECT(getline(&line, &cap, f) > 13 && !strncmp(line, "and a much", 10));
    fclose(f);
    free(line);
    f = fmemopen((void *)text, sizeof text - 1, "r");
    line = 0;
    EXPECT(getline(&line, &cap, f) == 13);
    fclose(f);
    free(line);
    EXPECT(asprintf(&s, "%d and %s", 42, "more") > 0);
    free(s);
    f = open_memstream(&buf, &len);
    fprintf(f, "%0100d", 7);
    fclose(f);
    free(buf);
    s = plain_dup("from a library without mtrace");
    free(s);
    s = malloc(30);
    EXPECT(plain_usable(s) == 30);
    strcpy(s, "grown by a library");
    s = plain_realloc(s, 300);
    EXPECT(!strcmp(s, "grown by a library") && malloc_usable_size(s) == 300);
    memset(s, 5, 300);
    s = plain_realloc(s, 5);
    s = realloc(s, 50);
    plain_free(s);
    s = strdup("traced");
    plain_free(s);
}

static void clean(void)
{
    char *a = malloc(40), *b = malloc(64), *c = calloc(10, 8), *r;
    size_t i, zeros = 0;
    uintptr_t moved;
    EXPECT(malloc_usable_size(a) == 40);
    memset(a, 1, malloc_usable_size(a));
    for (i = 0; i < 64; i++)
        zeros += b[i] == (char)0xBE;                /* a new block: the fill */
    EXPECT(zeros == 64);
    for (i = 0; i < 80; i++)
        EXPECT(c[i] == 0);
    r = malloc(100);
    memset(r, 2, 100);
    moved = (uintptr_t)r;
    r = realloc(r, 10);                             /* a checked block always moves */
    EXPECT((uintptr_t)r != moved);
    memset(r, 3, 10);
    r = realloc(r, 1000);
    for (i = 0; i < 10; i++)
        EXPECT(r[i] == 3);
    for (i = 10, zeros = 0; i < 1000; i++)
        zeros += r[i] == (char)0xBE;                /* grown: the new bytes filled */
    EXPECT(zeros == 990);
    memset(r, 4, 1000);
    r = reallocarray(r, 10, 20);
    memset(r, 6, 200);
    free(r);
    free(a);
    free(b);
    free(c);
    free(malloc(0));
    free(calloc(0, 5));
    aligned();
    library();
    free(strdup("a copy"));
    free(strndup("a longer copy", 4));
    keep = malloc(16);                              /* a freed block, held: the fill */
    memset(keep, 9, 16);
    free(keep);
    EXPECT(keep[0] == (char)0xDF && keep[15] == (char)0xDF);
    keep = malloc(10000);                           /* read sampled past 4 KiB, filled whole */
    memset(keep, 9, 10000);
    free(keep);
    for (i = zeros = 0; i < 10000; i++)
        zeros += keep[i] == (char)0xDF;
    EXPECT(zeros == 10000);
}

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg, i;
    char *slot[16] = { 0 };
    for (i = 0; i < 20000; i++) {
        unsigned k = (seed = seed * 1103515245 + 12345) >> 16 & 15;
        size_t n = (seed >> 8) % 300;
        if (!slot[k]) {
            slot[k] = malloc(n);
            memset(slot[k], 7, n);
        } else if (i % 3) {
            slot[k] = realloc(slot[k], n + 1);
            memset(slot[k], 8, n + 1);
        } else {
            free(slot[k]);
            slot[k] = 0;
        }
    }
    for (i = 0; i < 16; i++)
        free(slot[i]);
    return 0;
}

/* With MTRACE_DEPTH: the places' callers. */
static __attribute__((noinline)) char *spoil(size_t n)
{
    char *p = malloc(n);                            /* L:spoil-alloc */
    p[n] = 'x';
    return p;
}

static __attribute__((noinline)) void release(char *p)
{
    free(p);                                        /* L:release */
}

#define SLOTS 64
static char *slots[SLOTS];
static volatile int next;
static void handler(int sig)
{
    (void)sig;
    if (next < SLOTS) {
        free(slots[next]);
        slots[next++] = 0;
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    char *a, *b;
    size_t n, at;
    int i;
    if (!strcmp(mode, "clean")) {
        clean();
    } else if (!strcmp(mode, "past")) {             /* up to the usable size is fine, one more is not */
        a = malloc(40);                             /* L:past-alloc */
        memset(a, 0, malloc_usable_size(a));
        a[malloc_usable_size(a)] = 'x';
        free(a);                                    /* L:past */
    } else if (!strcmp(mode, "before")) {
        a = malloc(40);                             /* L:before-alloc */
        a[-3] = 'x';
        free(a);                                    /* L:before */
    } else if (!strcmp(mode, "kept")) {             /* continuing, no quarantine: what goes back */
        size_t mapped, front, back;                 /* glibc's mapped bytes */
        a = malloc(1 << 20);                        /* (glibc maps a block this large) */
        b = malloc(1 << 20);
        a[-3] = 'x';                                /* the front guard */
        b[1 << 20] = 'x';                           /* the back guard */
        mapped = mallinfo2().hblkhd;
        free(a);                                    /* L:kept-front */
        front = mallinfo2().hblkhd;
        free(b);                                    /* L:kept-back */
        back = mallinfo2().hblkhd;
        printf("front %s back %s\n", front < mapped ? "given back" : "kept", back < front ? "given back" : "kept");
    } else if (!strcmp(mode, "skip")) {             /* a write through a, past its guards, into b's */
        a = malloc(64);
        b = malloc(64);                             /* L:skip-alloc */
        if (b < a) {
            char *t = a;
            a = b;
            b = t;
        }
        a[(b - a) - 2] = 'x';                       /* 2 bytes before b: b's front guard */
        free(a);                                    /* L:skip-a */
        free(b);                                    /* L:skip-b */
    } else if (!strcmp(mode, "aligned-past")) {
        a = aligned_alloc(64, 100);
        a[100] = 'x';
        free(a);                                    /* L:aligned-past */
    } else if (!strcmp(mode, "aligned-before")) {
        void *p;
        posix_memalign(&p, 4096, 100);
        ((char *)p)[-2] = 'x';
        free(p);                                    /* L:aligned-before */
    } else if (!strcmp(mode, "freed")) {            /* found as it leaves the quarantine */
        keep = malloc(40);                          /* L:freed-alloc */
        free(keep);                                 /* L:freed-free */
        memset(keep + 8, 'x', 4);
        for (i = 0; i < 10; i++)
            free(malloc(100));                      /* L:freed-push */
    } else if (sscanf(mode, "push-%zu", &n) == 1) {    /* the default budget: 40 bytes held, then n */
        keep = malloc(40);                          /* L:push-alloc */
        free(keep);
        memset(keep + 8, 'x', 4);
        free(malloc(n));                            /* L:push */
    } else if (sscanf(mode, "big-%zu-%zu", &n, &at) == 2) {    /* a held block's fill, read to N bytes */
        keep = malloc(n);
        free(keep);
        keep[at] = 'x';
        mtrace_check_heap();                        /* L:big */
    } else if (!strcmp(mode, "gone")) {             /* a 200-byte block freed: its byte 100, and */
        keep = malloc(200);                         /* is the next 200 bytes asked the same block? */
        memset(keep, 'A', 200);
        free(keep);
        at = (unsigned char)keep[100];
        b = malloc(200);
        printf("byte 100 after free: %zu, the same block next: %d\n", at, b == keep);
    } else if (!strcmp(mode, "realloc")) {
        a = malloc(40);
        a[41] = 'x';
        a = realloc(a, 80);                         /* L:realloc */
        free(a);
    } else if (!strcmp(mode, "exit-live")) {
        keep = malloc(40);                          /* L:exit-alloc */
        keep[40] = 'x';
    } else if (!strcmp(mode, "exit-freed")) {
        keep = malloc(40);                          /* L:ef-alloc */
        free(keep);                                 /* L:ef-free */
        keep[0] = 'x';
    } else if (!strcmp(mode, "check")) {
        a = malloc(40);
        a[40] = 'x';
        mtrace_check_heap();                        /* L:check */
        free(a);
    } else if (!strcmp(mode, "every")) {
        a = malloc(40);
        a[45] = 'x';
        for (i = 0; i < 5; i++)
            free(malloc(8));                        /* L:every */
        free(a);
    } else if (!strcmp(mode, "every-named")) {      /* MTRACE_CHECK_EVERY=3, continuing: */
        a = malloc(40);                             /* the check names the call it runs at */
        b = malloc(24);
        a[40] = 'x';
        b[24] = 'y';
        free(b);                                    /* L:every-free */
        b = aligned_alloc(64, 64);
        b[64] = 'z';
        keep = malloc(8);
        free(memalign(32, 10));                     /* L:every-memalign */
        free(keep);
        free(b);
        free(a);
    } else if (!strcmp(mode, "two")) {              /* continuing: both, counted */
        a = malloc(40);
        b = malloc(24);
        a[40] = 'x';
        b[-1] = 'y';
        free(a);                                    /* L:two-a */
        free(b);                                    /* L:two-b */
    } else if (!strcmp(mode, "deep")) {
        release(spoil(24));                         /* L:deep */
    } else if (!strcmp(mode, "threads")) {
        pthread_t t[4];
        for (i = 0; i < 4; i++)
            pthread_create(&t[i], 0, churn, (void *)(uintptr_t)(i + 1));
        for (i = 0; i < 4; i++)
            pthread_join(t[i], 0);
        mtrace_check_heap();
    } else if (!strcmp(mode, "fork-clean") || !strcmp(mode, "fork-bad")) {
        int status;
        pid_t pid;
        a = malloc(100);
        memset(a, 1, 100);
        fflush(0);
        if ((pid = fork()) == 0) {
            if (!strcmp(mode, "fork-bad"))
                a[100] = 'x';
            free(a);                                /* L:fork-free */
            free(malloc(50));
            exit(0);
        }
        waitpid(pid, &status, 0);
        printf("child %s %d\n", WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        memset(a, 2, 100);
        free(a);
    } else if (!strcmp(mode, "signal")) {           /* a handler frees checked blocks */
        struct itimerval every = { { 0, 300 }, { 0, 300 } }, off = { { 0, 0 }, { 0, 0 } };
        size_t sum = 0;
        for (i = 0; i < SLOTS; i++)
            slots[i] = malloc(200);
        a = malloc(10);
        signal(SIGALRM, handler);
        setitimer(ITIMER_REAL, &every, 0);
        /* Inside the tracer most of the time, never inside the C library's
           malloc (a free there from a handler would break its heap, with
           or without mtrace): the handler's frees land in and out. */
        for (i = 0; next < SLOTS && i < 20000000; i++) {
            volatile int k;
            mtrace_check_heap();
            sum += malloc_usable_size(a);
            for (k = 0; k < 300; k++)           /* (and outside it) */
                ;
        }
        setitimer(ITIMER_REAL, &off, 0);
        free(a);
        printf("%s\n", sum ? "usable" : "none");
        for (i = 0; i < SLOTS; i++)
            free(slots[i]);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    printf("%s done\n", mode);
    return bad != 0;
}
