/* SPDX-License-Identifier: MIT */ /* 64 threads on a 2-core machine pass blocks to each other through a
   shared array: each turn takes a random slot's block (most often another
   thread's), frees it, reallocs it or keeps it growing, and puts a new one
   back.  The trace must replay: every RECNO once and in order, every TOTAL
   and SITE the replay of the records before it, every free and realloc of
   a block allocated before it, nothing left at the end. */
#include <pthread.h>
#include <stdlib.h>

#define THREADS 64
#define TURNS 3000
#define SLOTS 256

static char *slot[SLOTS];

static void *pass(void *arg)
{
    unsigned long seed = (unsigned long)arg * 0x9E3779B97F4A7C15UL + 1;
    int i;
    for (i = 0; i < TURNS; i++) {
        char *mine, *theirs;
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        mine = malloc((seed >> 56) + 1);
        theirs = __atomic_exchange_n(&slot[(seed >> 20) % SLOTS], mine, __ATOMIC_ACQ_REL);
        if (!theirs)
            continue;
        switch ((seed >> 40) % 3) {
        case 0:
            free(theirs);
            break;
        case 1:                 /* moved to another thread, freed there */
            free(realloc(theirs, (seed >> 48) + 1));
            break;
        default:                /* grown, then back in a slot */
            theirs = realloc(theirs, (seed >> 50) + 64);
            free(__atomic_exchange_n(&slot[(seed >> 8) % SLOTS], theirs, __ATOMIC_ACQ_REL));
        }
    }
    return 0;
}

int main(void)
{
    pthread_t t[THREADS];
    long i;
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], 0, pass, (void *)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], 0);
    for (i = 0; i < SLOTS; i++)
        free(slot[i]);
    return 0;
}
