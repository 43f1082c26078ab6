/* SPDX-License-Identifier: MIT */ /* unseen: what musl's table row says mtrace
   does not see there (doc/platforms.md): a block from memalign (bound to
   mtrace on glibc only), beside valloc's and aligned_alloc's, which are
   traced; and a traced buffer that getline grows and the program frees:
   musl's own realloc moves it unseen, so the traced block stays live.
   With an argument ("inner"): the free of an address inside a traced
   block, which musl's check, not mtrace, catches. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

void *keep[3];

int main(int argc, char **argv)
{
    char *line = malloc(1);     /* GROWN */
    size_t size = 1;
    keep[0] = memalign(64, 100);        /* MEMALIGN */
    keep[1] = valloc(200);              /* VALLOC */
    keep[2] = aligned_alloc(64, 320);   /* ALIGNED */
    if (argc > 1)
        free((char *)keep[2] + (argv[1][0] == 'i') * 16);
    if (getline(&line, &size, stdin) < 0)
        return 2;
    free(line);
    free(keep[0]);
    free(keep[1]);
    free(keep[2]);
    return 0;
}
