/* SPDX-License-Identifier: MIT */
/* realloc of a pointer never traced (trace-format.md: "realloc(p, n) of
   a pointer never traced: > (the block is traced from then on)"): getline
   allocates the line inside the C library, untraced; the program grows
   it (REALLOC: '>' of 1000 bytes, no '<') and frees it ('-' of 1000). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    static char text[] = "abc\n";
    char *line = 0;
    size_t cap = 0;
    FILE *f = fmemopen(text, sizeof text - 1, "r");
    if (!f || getline(&line, &cap, f) < 0)
        return 2;
    fclose(f);
    line = realloc(line, 1000);                                 /* REALLOC */
    free(line);
    return 0;
}
