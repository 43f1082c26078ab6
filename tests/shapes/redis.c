/* SPDX-License-Identifier: MIT */ /* Like Redis's server.h: the file declares malloc itself to forbid direct
   calls.  Built with -DMTRACE_NO_MACROS, its allocations are still traced,
   each at its caller's address, named at exit (here zmalloc). */
#include <stdio.h>
#include <stdlib.h>
void *malloc(size_t size) __attribute__((deprecated));
void *zmalloc(size_t n);
void *zmalloc(size_t n)
{
#undef malloc
    return (malloc)(n);
}
int main(void)
{
    char *p = zmalloc(24);
    printf("%d\n", p != NULL);
    return 0;
}
