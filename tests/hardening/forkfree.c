/* SPDX-License-Identifier: MIT */ /* A forked child frees what its parent had: `forkfree KIND [N]`.
   The parent allocates `victim` (and `kept`), frees `victim` unless KIND
   says otherwise, forks, and waits; the child then does KIND:
     before N    frees victim again, after N allocations of its own
     twice       frees kept, inherited live, twice
     realloc     reallocs victim, freed before the fork
     thread      frees victim again on a thread of its own
     grandchild  forks once more; the grandchild frees victim again
     legit       frees kept once, reallocs an inherited block, allocates
                 and frees its own: nothing to report
     interior    frees an address 8 bytes into kept, inherited live
     untraced    getline (the C library, untraced) gets victim's address
                 back; the traced free of its line is no double free
   The parent prints how its child ended, then frees what it still has.
   mtrace reports in the child what it would have in the parent. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *victim, *kept, *grown, *own[1000];

static void *free_again(void *arg)
{
    (void)arg;
    free(victim);
    return 0;
}

/* Waits for child `pid`; says how it ended on stdout. */
static void reap(pid_t pid, const char *who)
{
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        printf("%s: signal %d\n", who, WTERMSIG(status));
    else
        printf("%s: exit %d\n", who, WEXITSTATUS(status));
    fflush(stdout);
}

static void child(const char *kind, long n)
{
    pthread_t t;
    long i;
    if (!strcmp(kind, "before")) {
        for (i = 0; i < n && i < 1000; i++)
            own[i] = malloc(1000);  /* never victim's address: a larger size */
        free(victim);
    } else if (!strcmp(kind, "twice")) {
        free(kept);
        free(kept);
    } else if (!strcmp(kind, "realloc"))
        victim = realloc(victim, 100);
    else if (!strcmp(kind, "thread")) {
        pthread_create(&t, 0, free_again, 0);
        pthread_join(t, 0);
    } else if (!strcmp(kind, "grandchild")) {
        pid_t pid = fork();
        if (pid == 0) {
            free(victim);
            exit(0);
        }
        reap(pid, "grandchild");
    } else if (!strcmp(kind, "interior"))
        free(kept + 8);
    else if (!strcmp(kind, "untraced")) {
        char *line = 0;
        size_t room = 0;
        FILE *f = fopen("/dev/null", "r");
        getline(&line, &room, f);   /* glibc's 120 bytes: victim's chunk */
        printf("getline %s victim's address\n", line == victim ? "reused" : "did not reuse");
        fclose(f);
        free(line);
    } else if (!strcmp(kind, "legit")) {
        char *mine = malloc(24);
        free(kept);
        grown = realloc(grown, 5000);
        free(mine);
        free(grown);
    }
    exit(0);
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "before";
    long n = argc > 2 ? atol(argv[2]) : 0;
    pid_t pid;
    victim = malloc(120);
    kept = malloc(56);
    grown = malloc(8);
    if (strcmp(kind, "legit") != 0)
        free(victim);
    fflush(stdout);
    if ((pid = fork()) == 0)
        child(kind, n);
    reap(pid, "child");
    if (!strcmp(kind, "legit"))
        free(victim);
    free(kept);
    free(grown);
    return 0;
}
