/* SPDX-License-Identifier: MIT */
/* reallocarray(p, n, m) where n * m overflows: NULL and ENOMEM, p left
   as it was, no record (trace-format.md: "any call that fails:
   nothing").  Each product below wraps to 0 or to a small size, which a
   tracer that multiplied without checking would allocate.  One below
   the bound, 3 * 5 = 15 bytes, is an allocation ('+'). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static void say(const char *what, void *q)
{
    printf("%s: %s%s\n", what, q ? "a block" : "NULL", !q && errno == ENOMEM ? ", ENOMEM" : "");
    errno = 0;
}
int main(void)
{
    void *p = malloc(8);
    void *q;
    say("NULL, 2^63, 2", q = reallocarray(NULL, SIZE_MAX / 2 + 1, 2));
    say("NULL, 2^60 + 1, 16", q = reallocarray(NULL, SIZE_MAX / 16 + 2, 16));
    say("p, 2^60, 16", q = reallocarray(p, SIZE_MAX / 16 + 1, 16));
    say("p, 16, 2^60", q = reallocarray(p, 16, SIZE_MAX / 16 + 1));
    say("NULL, 3, 5", q = reallocarray(NULL, 3, 5));
    free(q);
    free(p);                            /* still p's own block: freed once */
    return 0;
}
