/* SPDX-License-Identifier: MIT */ /* threads.c - four threads allocate at once.  A barrier makes them hold
   their blocks at the same moment, so the peaks are the same at every run;
   each thread forgets one block.  Build with -pthread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define BLOCKS 10

static pthread_barrier_t all_allocated;

static void *work(void *arg)
{
    void *block[BLOCKS];
    char *note = malloc(100);          /* each thread leaks this one */
    int i;
    (void)arg;
    for (i = 0; i < BLOCKS; i++)
        block[i] = malloc(1000);       /* 4 threads x 10 x 1000 at the peak */
    pthread_barrier_wait(&all_allocated);
    for (i = 0; i < BLOCKS; i++)
        free(block[i]);
    pthread_barrier_wait(&all_allocated);
    return note;                       /* main drops it */
}

int main(void)
{
    pthread_t t[THREADS];
    int i;
    pthread_barrier_init(&all_allocated, NULL, THREADS);
    for (i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, work, NULL))
            return 2;
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&all_allocated);
    printf("%d threads done\n", THREADS);
    return 0;
}
