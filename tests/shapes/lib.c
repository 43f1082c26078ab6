/* SPDX-License-Identifier: MIT */ /* A traced shared library: hands out blocks, frees the program's, and
   keeps a cache that its own destructor frees (no leak: the report comes
   after every destructor). */
#include <stdlib.h>
#include <string.h>
#define API __attribute__((visibility("default")))

static char *cache;

API char *lib_make(const char *s)
{
    if (!cache)
        cache = malloc(512);
    return strdup(s);
}

API void lib_free(void *p)
{
    free(p);
}

__attribute__((destructor)) static void lib_done(void)
{
    free(cache);
}
