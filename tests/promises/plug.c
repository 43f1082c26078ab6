/* SPDX-License-Identifier: MIT */
/* A traced plugin (tests/promises.sh: mtrace-cc -shared), loaded by
   plughost.c: its one block leaks. */
#include <stdlib.h>
void *plug_make(void);
void *plug_make(void)
{
    return malloc(11);                  /* PLUG */
}
