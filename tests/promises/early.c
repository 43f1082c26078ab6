/* SPDX-License-Identifier: MIT */
/* tests/promises/early.c - traced calls made before the runtime's
   constructor start the tracer themselves (doc/design.md, "The lock").
   Linked with earlylib.c's library, whose constructor allocates before
   this program's constructors run; built with -DPREINIT, it also
   allocates from its .preinit_array, before the C library has set
   environ: the tracer then starts without the environment. */
#include <stdlib.h>

void *first, *later;
extern void *lib_kept;      /* earlylib.c's: the library is needed */

#ifdef PREINIT
static void before_constructors(void)
{
    first = malloc(16);         /* PRE */
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(void) = before_constructors;
#endif

int main(void)
{
    later = malloc(40);         /* LATER */
    free(later);
    return lib_kept == NULL;
}
