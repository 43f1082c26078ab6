/* SPDX-License-Identifier: MIT */ /* One traced program for tests/inputs.sh (issue 23): it leaks 10 bytes
   in leak_here() and prints "done"; argv[1] adds one shape:
     sites      six more sites, freed: a JSON report over 1 KiB
     threads N  N threads that each hold a block in a local and block
                for ever, still running at exit
     twice      a double free (the mode MTRACE_DOUBLE_FREE decides) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *volatile keep;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started;

static void *hold(void *arg)
{
    char *volatile mine = malloc(64);      /* only this thread's stack has it */
    (void)arg;
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (;;)
        pause();
    return (void *)mine;
}

static char *leak_here(void)
{
    return malloc(10);
}

int main(int argc, char **argv)
{
    keep = leak_here();
    if (argc > 1 && !strcmp(argv[1], "sites")) {
        free(malloc(1));
        free(malloc(2));
        free(calloc(1, 3));
        free(realloc(malloc(4), 40));
        free(malloc(5));
        free(malloc(6));
    } else if (argc > 2 && !strcmp(argv[1], "threads")) {
        int i, n = atoi(argv[2]);
        pthread_t t;
        for (i = 0; i < n; i++)
            pthread_create(&t, 0, hold, 0);
        pthread_mutex_lock(&lock);
        while (started < n)
            pthread_cond_wait(&cond, &lock);
        pthread_mutex_unlock(&lock);
    } else if (argc > 1 && !strcmp(argv[1], "twice")) {
        char *volatile q = malloc(8);
        free(q);
        free(q);
    }
    keep = 0;                   /* the block is lost: no pointer left */
    printf("done\n");
    return 0;
}
