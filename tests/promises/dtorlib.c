/* SPDX-License-Identifier: MIT */
/* A library built without mtrace whose destructor frees the block it was
   given (tests/promises.sh, dtor.c). */
#include <stdio.h>
#include <stdlib.h>
static void *held;
void dtorlib_hold(void *p);
void dtorlib_hold(void *p)
{
    held = p;
}
__attribute__((destructor)) static void library_destructor(void)
{
    free(held);
    fputs("library destructor\n", stderr);
}
