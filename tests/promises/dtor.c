/* SPDX-License-Identifier: MIT */
/* Destructors that free (tests/promises.sh): the program's, and a
   library's built without mtrace (dtorlib.c), each freeing a traced
   block and saying so; 7 bytes stay leaked. */
#include <stdio.h>
#include <stdlib.h>
void dtorlib_hold(void *p);
static char *held;
static void *volatile leaked;
__attribute__((destructor)) static void program_destructor(void)
{
    free(held);
    fputs("program destructor\n", stderr);
}
int main(void)
{
    held = malloc(100);
    dtorlib_hold(malloc(50));
    leaked = malloc(7);                 /* LEAK */
    return 0;
}
