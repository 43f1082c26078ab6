/* SPDX-License-Identifier: MIT */
/* C calls the C++ library: one block given back, one leaked. */
#include <stdlib.h>
#include "clib.h"
int cmain_run(void)
{
    void *kept = cxxlib_make(8);
    void *lost = cxxlib_make(3);            /* C-LEAKS-CXX */
    char *s = malloc(10);                   /* C-MALLOC */
    cxxlib_destroy(kept);
    free(s);
    return lost != 0;
}
