/* SPDX-License-Identifier: MIT */
/* tests/sanitizers/asanend.c - an error ASan finds while the program runs,
   one a run: "overflow" (a write past a block: the trace is written out,
   as at a fatal signal, with no report), "double" (a double free) and
   "inner" (free of an address inside a block): reported by ASan, not by
   mtrace (doc/platforms.md, "Sanitizers and Valgrind"). */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char *volatile p = malloc(10);
    const char *how = argc > 1 ? argv[1] : "";
    int i;
    for (i = 0; i < 100; i++)
        free(malloc(i + 1));
    if (!strcmp(how, "overflow"))
        p[10] = 1;
    else if (!strcmp(how, "double")) {
        free(p);
        free(p);
    } else if (!strcmp(how, "inner"))
        free(p + (argc > 1));   /* (the index hides the mistake from the compiler) */
    return 0;
}
