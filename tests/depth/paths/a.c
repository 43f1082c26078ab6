/* SPDX-License-Identifier: MIT */ /* Paths (issue 36): built inside src/ as Redis is (a.c with the macros,
   b.c with -DMTRACE_NO_MACROS, c.c compiled by its absolute path as CMake
   does), run from elsewhere: every path of the report written one way. */
#include <stdlib.h>
void *b_alloc(size_t n);
void *c_alloc(size_t n);
void *keep[3];
static __attribute__((noinline)) void fill(void)
{
    keep[0] = malloc(10);                       /* A */
    keep[1] = b_alloc(20);                      /* FILL_B */
    keep[2] = c_alloc(30);                      /* FILL_C */
}
int main(int argc, char **argv)
{
    fill();                                     /* MAIN */
    if (argc > 1 && argv[1][0] == 'd') {        /* a double free: its places too */
        free(keep[0]);                          /* FREE1 */
        free(keep[0]);                          /* FREE2 */
    }
    return 0;
}
