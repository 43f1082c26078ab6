/* SPDX-License-Identifier: MIT */
/* Blocks at the table's size limit (tests/promises.sh), announced as a
   pool's (MTRACE_MALLOCLIKE: no memory behind them): 2 TiB - 1 bytes,
   traced and freed; then 2 TiB, which the table cannot take. */
#include <stdlib.h>
static char arena[64];
int main(void)
{
    size_t tib2 = (size_t)2 << 40;
    MTRACE_MALLOCLIKE(arena, tib2 - 1);     /* BELOW */
    MTRACE_FREELIKE(arena);
    MTRACE_MALLOCLIKE(arena + 8, tib2);     /* AT */
    free(malloc(20));                       /* AFTER */
    return 0;
}
