/* SPDX-License-Identifier: MIT */ /* dtor: a block freed by the program's own
   destructor, after main returned.  On musl the report comes in mtrace's
   destructor, after the program's (doc/platforms.md): no leak, and the
   destructor's line comes before the report's. */
#include <stdio.h>
#include <stdlib.h>

static void *cache;

__attribute__((destructor)) static void drop(void)
{
    free(cache);
    fputs("the program's destructor ran\n", stderr);
}

int main(void)
{
    cache = malloc(100);
    return 0;
}
