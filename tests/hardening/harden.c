/* SPDX-License-Identifier: MIT */ /* One traced program, one hazard per mode (argv[1]); see tests/hardening.sh. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void *plain_memalign(size_t align, size_t n);     /* libplain.so, untraced */
void plain_exit(int status);
char *volatile keep;

static void sleep_ms(long ms);

static void *churn(void *arg)
{
    long i, n = (long)arg;
    for (i = 0; n < 0 || i < n; i++) {
        free(malloc((size_t)(16 + i % 64)));
        if (n < 0)
            pthread_testcancel();
    }
    return 0;
}

/* A thread that offers an address on its own stack, then waits. */
static pthread_mutex_t offer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t offer_made = PTHREAD_COND_INITIALIZER;
static char *volatile offered;
static void *offer_stack(void *arg)
{
    char mine[64];
    (void)arg;
    memset(mine, 0, sizeof mine);
    pthread_mutex_lock(&offer_lock);
    offered = mine + 16;
    pthread_cond_signal(&offer_made);
    pthread_mutex_unlock(&offer_lock);
    for (;;)
        pause();
    return 0;
}

static void *hold(void *arg)
{
    char *mine = malloc(24);    /* held by a thread that never ends */
    (void)arg;
    for (;;)
        sleep_ms(mine ? 1000 : 1);
    return 0;
}

/* Not async-signal-safe, but common.  Made as safe as glibc allows, so
   that a hang is the tracer's: a size nothing else here allocates, whose
   per-thread cache bin each thread fills before the signal can reach it,
   so glibc serves it without its arena lock and without touching what
   the interrupted code may be changing; and the signal kept out of thread
   creation and exit, where glibc allocates and frees under that lock (it
   hung there 1 run in 40 under load, with or without the tracer). */
#define TICK_SIZE 1000
static void tick(int sig)
{
    (void)sig;
    free(malloc(TICK_SIZE));
}

/* churn with SIGALRM let in, on a thread where it is blocked. */
static void *churn_ticked(void *arg)
{
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    free(malloc(TICK_SIZE));    /* tick's cache bin, filled */
    pthread_sigmask(SIG_UNBLOCK, &alarm, 0);
    churn(arg);
    pthread_sigmask(SIG_BLOCK, &alarm, 0);
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&t, 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    pthread_t t[4];
    int i;
    if (!strcmp(mode, "cancel")) {          /* cancelled while tracing */
        for (i = 0; i < 20; i++) {
            pthread_create(&t[0], 0, churn, (void *)-1L);
            sleep_ms(2);
            pthread_cancel(t[0]);
            pthread_join(t[0], 0);
        }
        free(malloc(1));
        puts("cancel done");
    } else if (!strcmp(mode, "atfork")) {   /* fork with libplain's handler */
        for (i = 0; i < 20; i++) {
            pid_t pid = fork();
            if (pid == 0)
                _exit(0);
            waitpid(pid, 0, 0);
        }
        puts("fork done");
    } else if (!strcmp(mode, "sigalloc")) { /* a handler that allocates */
        struct itimerval every = { { 0, 200 }, { 0, 200 } };
        int threads = argc > 2 ? atoi(argv[2]) : 0;
        sigset_t alarm;
        sigemptyset(&alarm);
        sigaddset(&alarm, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &alarm, 0);  /* the threads start with it blocked */
        signal(SIGALRM, tick);
        for (i = 0; i < threads; i++)
            pthread_create(&t[i], 0, churn_ticked, (void *)200000L);
        setitimer(ITIMER_REAL, &every, 0);
        churn_ticked((void *)200000L);
        for (i = 0; i < threads; i++)
            pthread_join(t[i], 0);
        signal(SIGALRM, SIG_IGN);
        puts("sigalloc done");
    } else if (!strcmp(mode, "many")) {     /* 200000 records */
        churn((void *)100000L);
        puts("many done");
    } else if (!strcmp(mode, "memalign")) { /* libc hands a freed address back */
        char *a = malloc(100), *q;
        uintptr_t was = (uintptr_t)a;
        free(a);
        q = plain_memalign(16, 100);
        printf("reused %s\n", (uintptr_t)q == was ? "yes" : "no");
        free(q);
    } else if (!strcmp(mode, "term")) {     /* killed while 4 threads write */
        for (i = 0; i < 4; i++)
            pthread_create(&t[i], 0, churn, (void *)-1L);
        sleep_ms(50);
        raise(SIGTERM);
    } else if (!strcmp(mode, "_exit") || !strcmp(mode, "_Exit") || !strcmp(mode, "quick_exit")
               || !strcmp(mode, "usr1")) {
        for (i = 0; i < 1000; i++)
            keep = malloc(16);
        fflush(stdout);
        if (!strcmp(mode, "_exit"))
            _exit(3);
        if (!strcmp(mode, "_Exit"))
            _Exit(3);
        if (!strcmp(mode, "quick_exit"))
            quick_exit(3);
        raise(SIGUSR1);
    } else if (!strcmp(mode, "forks")) {    /* children that _exit */
        for (i = 0; i < 50; i++) {
            pid_t pid = fork();
            if (pid == 0) {
                if (i % 2)
                    free(malloc(10 + (size_t)i));
                _exit(0);
            }
            waitpid(pid, 0, 0);
        }
    } else if (!strcmp(mode, "quiet")) {    /* 100 records, 10 ms apart, then quiet */
        for (i = 0; i < 100; i++) {
            keep = malloc(8);
            sleep_ms(10);
        }
        puts("quiet now");
        fflush(stdout);
        pause();
    } else if (!strcmp(mode, "plain-exit") || !strcmp(mode, "rtsig")) {
        for (i = 0; i < 100; i++) {     /* 100 records, 10 ms apart, then at once */
            keep = malloc(8);
            sleep_ms(10);
        }
        if (!strcmp(mode, "rtsig"))
            raise(SIGRTMIN);            /* its default action: the process ends */
        plain_exit(3);                  /* _exit from code without mtrace */
    } else if (!strcmp(mode, "spell")) {    /* a record after a quiet spell, killed 250 ms later */
        for (i = 0; i < 3; i++) {   /* (the writer starts with the first) */
            free(malloc(8));
            sleep_ms(360);  /* just past the writer's idle nap after its flush */
        }
        keep = malloc(24);
        sleep_ms(250);
        kill(getpid(), SIGKILL);
    } else if (!strcmp(mode, "running")) {  /* exit while a thread holds a block */
        pthread_create(&t[0], 0, hold, 0);
        sleep_ms(20);
        exit(0);
    } else if (!strcmp(mode, "crash-free")) {
        char local[16], *volatile inside = local + 1;
        free(inside);           /* named by mtrace: on the stack */
    } else if (!strcmp(mode, "crash-interior")) {
        char *h = malloc(64), *volatile inside = h + 16;
        free(inside);           /* named by mtrace, then abort */
    } else if (!strcmp(mode, "crash-other-stack")) {
        pthread_create(&t[0], 0, offer_stack, 0);
        pthread_mutex_lock(&offer_lock);
        while (!offered)
            pthread_cond_wait(&offer_made, &offer_lock);
        pthread_mutex_unlock(&offer_lock);
        free(offered);          /* another thread's stack: not checked, glibc's turn */
    } else if (!strcmp(mode, "crash-untraced-interior")) {
        char *h = plain_memalign(16, 64), *volatile inside = h + 16;
        free(inside);           /* in a block mtrace never saw: glibc's turn */
    } else if (!strcmp(mode, "crash-strdup")) {
        keep = strdup(argc > 3 ? argv[3] : NULL);
    } else if (!strcmp(mode, "sigdfl")) {   /* what sigaction shows */
        int sigs[] = { SIGINT, SIGTERM, SIGSEGV, SIGUSR1, SIGALRM, SIGPIPE };
        for (i = 0; i < 6; i++) {
            struct sigaction sa;
            sigaction(sigs[i], 0, &sa);
            printf("%d:%s ", sigs[i], sa.sa_handler == SIG_DFL ? "dfl" : "handler");
        }
        putchar('\n');
    } else {
        for (i = 0; i < 10; i++)
            free(malloc(16));
        puts("plain");
    }
    return 0;
}
