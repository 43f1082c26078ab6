/* SPDX-License-Identifier: MIT */ /* A file that declares malloc itself, built with -DMTRACE_NO_MACROS. */
#include <stddef.h>
void *malloc(size_t);

char *from_nomacros(size_t n)
{
    char *p = malloc(n);
    p[0] = 0;
    return p;
}
