/* SPDX-License-Identifier: MIT */ /* Built with -std=c99 and its own _XOPEN_SOURCE, as many programs are. */
#define _XOPEN_SOURCE 600
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_usr1(int sig) { (void)sig; }

int main(void)
{
    struct sigaction sa;
    FILE *p;
    char buf[32] = "";
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    p = popen("echo popen works", "r");
    if (!p || !fgets(buf, sizeof buf, p))
        return 1;
    pclose(p);
    fputs(buf, stdout);
    return 0;
}
