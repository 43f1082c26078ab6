/* SPDX-License-Identifier: MIT */
/* tests/promises/earlylib.c - a traced library whose constructor
   allocates: it runs before the program's constructors, the runtime's
   among them (early.c, the one-line use, -rdynamic), so its call starts
   the tracer itself (doc/design.md, "The lock"). */
#include <stdlib.h>

void *lib_kept;

__attribute__((constructor)) static void lib_init(void)
{
    lib_kept = malloc(24);      /* LIB */
    free(malloc(8));            /* LIB-FREED */
}
