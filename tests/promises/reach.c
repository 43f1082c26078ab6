/* SPDX-License-Identifier: MIT */
/* The reachability scan's edges (limits.md: "any word that looks like a
   pointer into a block keeps it"; "memory the program got from mmap
   itself is not scanned"; doc/guide.md: the scan reads "the program's data").
   Blocks of 16 bytes: START held by a pointer to its first byte (in
   .bss), LAST by one to its last byte (in .data), MMAPPED only by a
   pointer stored in the program's own mapping: lost. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static char *start;                             /* .bss */
static char *last = (char *)1;                  /* .data (initialized) */
static __attribute__((noinline)) void build(void)
{
    char **map = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    start = memset(malloc(16), 0, 16);          /* START */
    last = (char *)memset(malloc(16), 0, 16) + 15;      /* LAST */
    if (map != MAP_FAILED)
        map[0] = memset(malloc(16), 0, 16);     /* MMAPPED */
}
static __attribute__((noinline)) void scrub(void)
{
    volatile char buf[16384];
    memset((char *)buf, 0, sizeof buf);
}
int main(void)
{
    build();
    scrub();
    return 0;
}
