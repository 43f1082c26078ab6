/* SPDX-License-Identifier: MIT */ /* exit() from main while other threads are still allocating: the report
   comes once, nothing deadlocks or crashes, the trace ends with its tail. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *spin(void *arg)
{
    (void)arg;
    for (;;)
        free(malloc(64));
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    struct timespec ms = { 0, 20 * 1000 * 1000 };
    int i;
    for (i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, spin, NULL);
    nanosleep(&ms, NULL);
    exit(0);
}
