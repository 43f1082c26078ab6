/* SPDX-License-Identifier: MIT */ /* 4 threads allocate through helpers and free each other's blocks. */
#include <pthread.h>
#include <stdlib.h>
#define N 20000
static void *slot[4][N];
static void *leaf(size_t n) { return malloc(n); }
static void *mid(size_t n) { return n & 1 ? leaf(n) : realloc(leaf(n), n + 8); }
static void *work(void *arg)
{
    long t = (long)arg, i;
    for (i = 0; i < N; i++)
        slot[t][i] = mid((size_t)(i % 64) + 1);
    return 0;
}
int main(void)
{
    pthread_t th[4];
    long t, i;
    for (t = 0; t < 4; t++)
        pthread_create(&th[t], 0, work, (void *)t);
    for (t = 0; t < 4; t++)
        pthread_join(th[t], 0);
    for (t = 0; t < 4; t++)
        for (i = 0; i < N; i++)
            free(slot[(t + 1) % 4][i]);
    return 0;
}
