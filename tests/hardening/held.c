/* SPDX-License-Identifier: MIT */
/* tests/hardening/held.c - a fatal signal while another thread holds the
   tracer's lock and never lets it go (doc/design.md, "What a signal
   handler may run": the runtime's handler waits a second at most, then
   gives the trace up rather than write a record twice).  A thread
   allocates without end; SIGUSR2 is sent to it until its handler finds it
   inside the tracer, holding the lock (mtrace_pending.busy 2, mtrace.h),
   and stays there.  main then writes "held" and raises SIGTERM; it
   allocates nothing meanwhile (stdio would: the interposer's malloc would
   wait for the lock too). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t holding;

static void on_usr2(int sig)
{
    (void)sig;
    if (mtrace_pending.busy != 2)
        return;
    holding = 1;
    for (;;)
        pause();
}

static void *allocate(void *unused)
{
    for (;;)
        free(malloc(16));
    return unused;
}

int main(void)
{
    struct timespec ms = { 0, 1000 * 1000 };
    pthread_t t;
    int i;
    signal(SIGUSR2, on_usr2);
    pthread_create(&t, NULL, allocate, NULL);
    for (i = 0; i < 20000 && !holding; i++) {
        pthread_kill(t, SIGUSR2);
        nanosleep(&ms, NULL);
    }
    if (holding)
        (void)!write(1, "held\n", 5);
    raise(SIGTERM);
    return 0;
}
