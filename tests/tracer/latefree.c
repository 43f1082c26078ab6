/* SPDX-License-Identifier: MIT */ /* A double free far from the first free: `latefree N [realloc|thread]`.
   The block is freed, the program goes on (N allocations that stay live,
   or a realloc that moves another block, or the second free made by
   another thread), then frees it again.  mtrace names the three places
   however far apart the frees are. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char *victim;

static void *free_again(void *arg)
{
    (void)arg;
    free(victim);
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1, i;
    const char *between = argc > 2 ? argv[2] : "";
    char **keep = calloc((size_t)n + 1, sizeof *keep), *moved = malloc(16);
    pthread_t t;
    victim = malloc(40);
    free(victim);
    for (i = 0; i < n; i++)
        keep[i] = malloc(1000);
    if (!strcmp(between, "realloc"))
        moved = realloc(moved, 100000);
    if (!strcmp(between, "thread")) {
        pthread_create(&t, 0, free_again, 0);
        pthread_join(t, 0);
    } else
        free(victim);
    for (i = 0; i < n; i++)
        free(keep[i]);
    free(keep);
    free(moved);
    return 0;
}
