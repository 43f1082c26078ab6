/* SPDX-License-Identifier: MIT */
/* A malloc called through a pointer (tests/promises.sh): its site is a
   calling address, named at exit by addr2line, if it may run. */
#include <stdlib.h>
static void *(*volatile allocate)(size_t) = malloc;
static void *volatile kept;
int main(void)
{
    kept = allocate(9);                 /* CALL */
    return 0;
}
