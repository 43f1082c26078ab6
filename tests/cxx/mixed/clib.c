/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include "clib.h"
char *clib_copy(const char *s)
{
    char *copy = malloc(strlen(s) + 1);     /* C-COPY */
    if (copy)
        strcpy(copy, s);
    return copy;
}
void clib_release(char *s)
{
    free(s);
}
