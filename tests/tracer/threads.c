/* SPDX-License-Identifier: MIT */ /* Four threads allocating and freeing at once: every record must be there,
   numbered without gaps, with totals consistent with the record order. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define OPS 20000

static void *churn(void *arg)
{
    unsigned long seed = (unsigned long)arg, sum = 0;
    void *live[16] = { 0 };
    int i;
    for (i = 0; i < OPS; i++) {
        int k = (int)(seed % 16);
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        free(live[k]);                      /* NULL at first: no record */
        live[k] = malloc(seed >> 54);
        sum += (unsigned long)(seed >> 54);
    }
    for (i = 0; i < 16; i++)
        free(live[i]);
    return (void *)sum;
}

int main(void)
{
    pthread_t t[4];
    unsigned long i;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, churn, (void *)(i + 1));
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}
