/* SPDX-License-Identifier: MIT */ /* The program dies of SIGSEGV (or with an argument, of abort()) while 4
   threads allocate: the trace must be complete up to the crash (whole
   records, in order, with the tail) and replay. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *churn(void *arg)
{
    unsigned long seed = (unsigned long)arg;
    void *live[32] = { 0 };
    for (;;) {
        int k = (int)(seed % 32);
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        free(live[k]);
        live[k] = malloc((seed >> 54) + 1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    pthread_t t[4];
    long i;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], 0, churn, (void *)(i + 1));
    usleep(200000);
    (void)argv;
    if (argc > 1)
        abort();
    *(volatile int *)0 = 1;     /* dies here, the threads still allocating */
    return 0;
}
