/* SPDX-License-Identifier: MIT */
/* A forked child lets the C library (untraced) realloc a block it
   inherited live: getline grows `big` to a new place and frees the old
   one.  A traced malloc then takes the old place's start, and the library
   hands out blocks carved from the rest of it; the traced frees of those
   are frees of the C library's blocks, no error: the old block is the
   child's no longer (runtime/interpose.c forgets it at the untraced
   realloc; nothing else would: no untraced block starts where it did).
   Prints whether the library's blocks lay inside the old one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { BIG = 2000, LINES = 24 };

static void child(char *big, const char *text)
{
    uintptr_t old = (uintptr_t)big;
    size_t room = BIG;
    char *line[LINES], *mine;
    int i, inside = 0;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f || getline(&big, &room, f) < 0)  /* the C library's realloc: moved */
        exit(2);
    fclose(f);
    mine = malloc(120);                 /* traced: the old place's start */
    for (i = 0; i < LINES; i++) {       /* the C library's blocks: 120 bytes each */
        line[i] = 0;
        room = 0;
        f = fopen("/dev/null", "r");
        getline(&line[i], &room, f);
        fclose(f);
        inside += (uintptr_t)line[i] > old && (uintptr_t)line[i] < old + BIG;
    }
    printf("moved %s, mine at its start %s, the library's inside it: %s\n", (uintptr_t)big != old ? "yes" : "no",
           (uintptr_t)mine == old ? "yes" : "no", inside ? "some" : "none");
    fflush(stdout);
    for (i = 0; i < LINES; i++)
        free(line[i]);
    free(mine);
    free(big);
    exit(0);
}

int main(void)
{
    static char text[3 * BIG];
    char *big = malloc(BIG), *after = malloc(64);  /* `after`: big cannot grow in place */
    int status;
    pid_t pid;
    memset(text, 'x', sizeof text - 2);
    text[sizeof text - 2] = '\n';
    memset(big, 0, BIG);
    if ((pid = fork()) == 0)
        child(big, text);
    waitpid(pid, &status, 0);
    printf("child: %s %d\n", WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    free(big);
    free(after);
    return 0;
}
