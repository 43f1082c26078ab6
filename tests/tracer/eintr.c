/* SPDX-License-Identifier: MIT */ /* Signals without SA_RESTART arrive every millisecond while the trace goes
   to a pipe read slowly: write(2) is interrupted or cut short, and every
   record must still arrive once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile long ticks;
static void tick(int sig) { (void)sig; ticks++; }

int main(void)
{
    struct sigaction sa;
    struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };
    int i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tick;                   /* no SA_RESTART */
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &every_ms, NULL);
    for (i = 0; i < 100000; i++)
        free(malloc((size_t)(i % 1000)));
    printf("done\n");
    return 0;
}
