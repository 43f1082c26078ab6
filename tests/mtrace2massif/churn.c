/* SPDX-License-Identifier: MIT */ /* Thousands of operations from a few sites, so that Massif culls its
 * snapshot array many times: a pool of slots, each replaced in turn by a
 * block of a pseudo-random size from one of four functions.  The sizes are
 * a multiple of 64 minus 0..15 bytes: the slop varies, but a freed block
 * that Valgrind's allocator reuses always splits exactly (see
 * doc/mtrace2massif.md, "allocator reuse"). */
#include <stdlib.h>

#define SLOTS 64
static void *slot[SLOTS];
static unsigned seed = 12345;

static unsigned next(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
}

static size_t size64(unsigned lo, unsigned n) { return 64 * (lo + next() % n) - next() % 16; }
static void *small(void) { return malloc(size64(1, 4)); }
static void *medium(void) { return malloc(size64(4, 32)); }
static void *large(void) { return malloc(size64(160, 470)); }
static void *zeroed(void) { return calloc(1 + next() % 16, 64); }

int main(void)
{
    for (int i = 0; i < 6000; i++) {
        int k = (int)(next() % SLOTS);
        free(slot[k]);
        switch (next() % 4) {
        case 0: slot[k] = small(); break;
        case 1: slot[k] = medium(); break;
        case 2: slot[k] = large(); break;
        default: slot[k] = zeroed(); break;
        }
    }
    for (int k = 0; k < SLOTS; k++)
        free(slot[k]);
    return 0;
}
