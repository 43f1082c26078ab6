/* SPDX-License-Identifier: MIT */ /* Frees an address 16 bytes into a string the C library made (asprintf,
   untraced): mtrace does not name it, the C library's check aborts, and
   mtrace names the call as the program dies (doc/limits.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *s = 0, *volatile inside;
    if (asprintf(&s, "%s", "a string long enough to free inside") < 0)
        return 2;
    inside = s + 16;        /* (volatile: the compiler's warning) */
    free(inside);           /* line 14 */
    return 0;
}
