/* SPDX-License-Identifier: MIT */ /* Blocks beyond 4 MiB: Valgrind gives each its own superblock, rounded up
 * to whole pages (malloc(10 MiB) has 4032 bytes of slop), and a big block
 * grown by realloc within its last page stays in place.  Also: the heap's
 * maximum comes 4 KiB (0.02 %) above an earlier peak, which Massif's 1 %
 * peak inaccuracy ignores and mtrace2massif does not. */
#include <stdlib.h>

int main(void)
{
    char *a = malloc(5000000);
    char *b = malloc(10u << 20);
    char *c = malloc(4194240);          /* the largest 16-byte-rounded block */
    a = realloc(a, 5001000);            /* within the page: in place */
    a = realloc(a, 6000000);            /* moves */
    b = realloc(b, 100);                /* shrinks in place: 10 MiB of extra */
    free(c);
    c = malloc(4194241);                /* just past the limit: page rounded */
    free(a);
    b = realloc(b, 20000);              /* grows inside the old big block */
    free(b);
    free(c);
    return 0;
}
