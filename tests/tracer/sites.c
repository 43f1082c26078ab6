/* SPDX-License-Identifier: MIT */ /* Known allocations: the summary must give each site's exact peak, and the
   leak report the bytes still live at exit, largest first. */
#include <stdlib.h>
#include <string.h>

static char *keep;

static void *make(size_t n)
{
    return malloc(n);                       /* line 10: peak 3000 (3 x 1000) */
}

int main(void)
{
    void *a = make(1000), *b = make(1000), *c = make(1000);
    char *s = strdup("twelve bytes");       /* line 16: 13 bytes, leaked */
    void *big = calloc(100, 50);            /* line 17: 5000, freed */
    free(a);
    free(b);
    free(big);
    keep = realloc(NULL, 64);               /* line 21: 64, leaked */
    keep = realloc(keep, 640);              /* line 22: 640, leaked */
    (void)c;                                /* make:10 leaks 1000 */
    (void)s;
    return 0;
}
