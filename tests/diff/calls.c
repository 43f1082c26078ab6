/* SPDX-License-Identifier: MIT */
/* tests/diff/calls.c - one allocating line (grab) reached from two
 * callers, for tests/diff.sh's page with call stacks (MTRACE_DEPTH):
 * through one() its bytes grow with the argument N, through two() they
 * shrink; all freed at the end, after the peak. */
#include <stdlib.h>

#ifdef PAD      /* tests/diff.sh: the same functions at other addresses */
__attribute__((noinline, used)) int pad(volatile int x)
{
    return x * 3 + (x >> 2) * 5 - 7;
}
#endif

static __attribute__((noinline)) void *grab(size_t n)
{
    return malloc(n);
}

static __attribute__((noinline)) void *one(int n)
{
    return grab(100 * (size_t)n);
}

static __attribute__((noinline)) void *two(int n)
{
    return grab(600 / (size_t)n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    void *a = one(n), *b = two(n);
    free(a);
    free(b);
    return 0;
}
