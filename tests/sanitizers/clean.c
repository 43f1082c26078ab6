/* SPDX-License-Identifier: MIT */ /* No leak: under a sanitizer the program runs, mtrace says so, and the
   status stays 0. */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *p = malloc(100), *q = strdup("twelve bytes");
    p = realloc(p, 1000);
    free(q);
    free(p);
    return 0;
}
