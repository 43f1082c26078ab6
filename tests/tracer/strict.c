/* SPDX-License-Identifier: MIT */ /* Strict builds: C89 through C23, -pedantic, -Wc++-compat, -Wshadow and
   friends.  The header must add no warning of its own. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static char *copy(const char *s)
{
    char *c = (char *)malloc(strlen(s) + 1);
    if (c)
        strcpy(c, s);
    return c;
}

int main(void)
{
    char *a = copy("abc");
    char *b = (char *)calloc(4, (size_t)malloc_usable_size(a) > 0 ? 2 : 1);
    char *c = (char *)realloc(b, strlen(copy("nested") ? "x" : "yy") + 10);
    free(a);
    free(c);
    return 0;
}
