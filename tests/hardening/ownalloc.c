/* SPDX-License-Identifier: MIT */ /* The tracer's own calls of the C library do not make it forget a
   freed block: `ownalloc KIND [thread]`.  p is allocated and freed; then
   KIND makes mtrace ask the thread's stack bounds, the first time on this
   thread (pthread_getattr_np reallocs, and on the main thread reads /proc
   with stdio: blocks that may take p's address); then p is freed again:
     invalid    free of an address where nothing is mapped (an invalid free:
                mtrace asks whether it is on the stack)
     untraced   free of a string the C library made (asprintf: untraced,
                silent; mtrace asks the same)
   With `thread` it all happens on a new thread.  The double free must be
   reported with its places (README), not reach the C library's abort. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind;

static void *run(void *unused)
{
    char *volatile nowhere = (char *)((uintptr_t)1 << 44);
    char *s, *p = malloc(40);
    (void)unused;
    free(p);
    if (strcmp(kind, "invalid") == 0)
        free(nowhere);
    else if (asprintf(&s, "%d", 42) >= 0)
        free(s);
    free(p);                /* line 31: the double free */
    return 0;
}

int main(int argc, char **argv)
{
    pthread_t t;
    kind = argc > 1 ? argv[1] : "invalid";
    if (argc > 2 && pthread_create(&t, 0, run, 0) == 0)
        pthread_join(t, 0);
    else
        run(0);
    puts("ended");
    return 0;
}
