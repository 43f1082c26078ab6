/* SPDX-License-Identifier: MIT */ /* A pool in a static array hands out blocks announced to Valgrind with
 * VALGRIND_MALLOCLIKE_BLOCK, beside a plain malloc.  Massif gives the
 * pool's blocks its 8 admin bytes but no slop: the 100-byte block costs
 * 108, where malloc(100) costs 120.  pool.trace is this run as the tracer
 * writes it with MTRACE_MALLOCLIKE (its sites marked "#pool ID"). */
#include <stdlib.h>
#ifdef MTRACE   /* traced: the same calls, as mtrace's annotations */
#define VALGRIND_MALLOCLIKE_BLOCK(p, n, redzone, zeroed) MTRACE_MALLOCLIKE(p, n)
#define VALGRIND_FREELIKE_BLOCK(p, redzone) MTRACE_FREELIKE(p)
#else
#include <valgrind/valgrind.h>
#endif

static char arena[4096];

int main(void)
{
    VALGRIND_MALLOCLIKE_BLOCK(arena, 100, 0, 0);
    char *p = malloc(100);
    VALGRIND_MALLOCLIKE_BLOCK(arena + 128, 30, 0, 0);
    VALGRIND_FREELIKE_BLOCK(arena, 0);
    free(p);
    VALGRIND_FREELIKE_BLOCK(arena + 128, 0);
    return 0;
}
