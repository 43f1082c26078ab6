/* SPDX-License-Identifier: MIT */ /* Cleanup in an atexit handler and in a destructor runs before the leak
   check; output still buffered in stdio when a leak changes the exit
   status is not lost. */
#include <stdio.h>
#include <stdlib.h>

static void *global, *other;
void *sink;
static void cleanup(void) { free(global); }
__attribute__((destructor)) static void finish(void) { free(other); }

int main(int argc, char **argv)
{
    global = malloc(1000);
    other = malloc(2000);
    atexit(cleanup);
    if (argc > 1)
        sink = malloc(7);                   /* line 18: leaked on request */
    printf("no newline at the end");
    return 0;
}
