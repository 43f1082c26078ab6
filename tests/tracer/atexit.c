/* Cleanup in an atexit handler runs before the leak check; output still
   buffered in stdio when a leak changes the exit status is not lost. */
#include <stdio.h>
#include <stdlib.h>

static void *global;
void *sink;
static void cleanup(void) { free(global); }

int main(int argc, char **argv)
{
    global = malloc(1000);
    atexit(cleanup);
    if (argc > 1)
        sink = malloc(7);                   /* line 15: leaked on request */
    printf("no newline at the end");
    return 0;
}
