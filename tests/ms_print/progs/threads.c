/* SPDX-License-Identifier: MIT */ /* Threads: thread stacks and TLS blocks give inlined-frame lines
 * (calloc inlined into allocate_dtv) in the trees; with --stacks=yes the
 * stack column moves too. */
#include <pthread.h>
#include <stdlib.h>

static void *work(void *arg)
{
    size_t n = (size_t)arg;
    void *p = malloc(n);
    void *q = malloc(n / 2);
    free(p);
    return q;
}

int main(void)
{
    pthread_t t[4];
    void *r[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, work, (void *)(size_t)(1000 * (i + 1)));
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], &r[i]);
        free(r[i]);
    }
    return 0;
}
