/* SPDX-License-Identifier: MIT */
/* tests/depth/lazy.c - nothing is symbolized while the program runs; at
   exit addr2line names only the frames the report prints (doc/design.md,
   "Call stacks").  leaf() allocates through two callers: other()'s
   blocks are all freed, so that stack is never printed; mid()'s block
   leaks, so its frames are.  argv[1] is the log an MTRACE_ADDR2LINE
   wrapper writes: it must not exist before main returns. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *keep;

__attribute__((noinline)) static void *leaf(int n)
{
    return malloc(n);
}

__attribute__((noinline)) static void *other(int n)
{
    return leaf(n);
}

__attribute__((noinline)) static void *mid(int n)
{
    return leaf(n);
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i <= 100; i++)
        free(other(i));
    keep = mid(10);
    puts(argc > 1 && access(argv[1], F_OK) != 0 ? "no addr2line yet" : "addr2line ran");
    return 0;
}
