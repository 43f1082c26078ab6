/* SPDX-License-Identifier: MIT */ /* A thread forks 300 times while 4 others allocate and free: every fork
   must come back (no lock of the tracer left taken in the child, none
   waited for forever in the parent), and each child allocates, frees and
   exits by itself. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKS 300

static int done;

static void *churn(void *arg)
{
    unsigned long seed = (unsigned long)arg;
    void *live[32] = { 0 };
    int i;
    while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
        int k = (int)(seed % 32);
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        live[k] = realloc(live[k], (seed >> 54) + 1);
    }
    for (i = 0; i < 32; i++)
        free(live[i]);
    return 0;
}

static void *forker(void *arg)
{
    int i, bad = 0;
    (void)arg;
    for (i = 0; i < FORKS; i++) {
        int status;
        pid_t pid = fork();
        if (pid == 0) {
            char *p = malloc(100);
            free(p);
            _exit(0);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
            bad++;
    }
    return (void *)(long)bad;
}

int main(void)
{
    pthread_t t[4], f;
    void *bad;
    long i;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], 0, churn, (void *)(i + 1));
    pthread_create(&f, 0, forker, 0);
    pthread_join(f, &bad);
    __atomic_store_n(&done, 1, __ATOMIC_RELAXED);
    for (i = 0; i < 4; i++)
        pthread_join(t[i], 0);
    printf("%d forks, %ld failed\n", FORKS, (long)bad);
    return 0;
}
