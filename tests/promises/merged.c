/* SPDX-License-Identifier: MIT */
/* free of a page the program mapped itself (tests/promises.sh): mapped
   just above another anonymous mapping of the same kind, which the kernel
   merges with it, so that the page is in the middle of one mapping; or
   (`alone`) a page mapped on its own. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS;
    char *below = mmap(0, 2 * page, rw, anon, -1, 0), *above;
    if (below == MAP_FAILED)
        return 2;
    munmap(below + page, page);         /* room just above it */
    above = mmap(below + page, page, rw, anon | MAP_FIXED_NOREPLACE, -1, 0);
    if (above != below + page)
        return 3;
    if (argc > 1 && !strcmp(argv[1], "alone"))
        above = mmap(0, page, PROT_READ, anon, -1, 0);
    free(above);                        /* FREE */
    return 0;
}
