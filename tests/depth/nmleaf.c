/* SPDX-License-Identifier: MIT */ /* A program built wholly with -DMTRACE_NO_MACROS (Redis's shape, issue
   36) in three files: the allocation (nmleaf.c), three callers above it
   (nmmid.c) and main (nmmain.c); nmleaf.c and nmmid.c are also a shared
   library and a plugin (nmplug.c loads it). */
#include <stdlib.h>
void *nm_leaf(size_t n);
void *nm_leaf(size_t n)
{
    void *p = malloc(n);                        /* LEAF */
    __asm__ __volatile__("" ::: "memory");      /* (not a tail call) */
    return p;
}
