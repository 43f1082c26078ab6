/* SPDX-License-Identifier: MIT */
/* tests/writer/signals.c - the writer thread blocks every signal, so the
   program's handlers run on its own threads only (doc/design.md, "What a
   signal handler may run").  At level 1 the first record starts the
   thread "mtrace writer"; the program's one thread then blocks SIGUSR1
   and sends it to the process: the kernel gives a process's signal to any
   thread that does not block it, so it stays pending unless the writer
   takes it.  Prints "named" when a thread is called "mtrace writer",
   "pending" when the handler has not run 200 ms later, and "main" when,
   unblocked, it runs on the program's thread. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long handled_on;

static void on_usr1(int sig)
{
    (void)sig;
    handled_on = syscall(SYS_gettid);
}

/* Is one of the process's threads named "mtrace writer"? */
static int writer_named(void)
{
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *t;
    int found = 0;
    while (tasks && (t = readdir(tasks)) != NULL) {
        char path[300], comm[64] = "";
        FILE *f;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", t->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            found |= fgets(comm, sizeof comm, f) && !strcmp(comm, "mtrace writer\n");
            fclose(f);
        }
    }
    if (tasks)
        closedir(tasks);
    return found;
}

int main(void)
{
    struct timespec nap = { 0, 10 * 1000 * 1000 };
    sigset_t usr1;
    int i;
    free(malloc(16));                   /* the first record: the writer starts */
    for (i = 0; i < 200 && !writer_named(); i++)
        nanosleep(&nap, NULL);
    puts(writer_named() ? "named" : "unnamed");
    signal(SIGUSR1, on_usr1);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    kill(getpid(), SIGUSR1);
    for (i = 0; i < 20; i++)
        nanosleep(&nap, NULL);
    puts(handled_on ? "handled by another thread" : "pending");
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
    puts(handled_on == syscall(SYS_gettid) ? "main" : "not main");
    return 0;
}
