/* SPDX-License-Identifier: MIT */ /* fork while another thread allocates; the child starts threads of its own:
   nothing deadlocks, both processes report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void *work(void *a) { int i; for (i = 0; i < 100000; i++) free(malloc(32)); return a; }
int main(void) {
    pthread_t t; pid_t pid; int st;
    pthread_create(&t, NULL, work, NULL);
    pid = fork();
    if (pid == 0) {            /* the child starts a thread of its own */
        pthread_t u; pthread_create(&u, NULL, work, NULL); work(NULL); pthread_join(u, NULL);
        _exit(0);
    }
    pthread_join(t, NULL);
    waitpid(pid, &st, 0);
    printf("child %d\n", WEXITSTATUS(st));
    return 0;
}
