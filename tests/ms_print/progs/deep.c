/* SPDX-License-Identifier: MIT */ /* Deep call chains: a recursion 40 frames deep through alternating
 * functions, plus a few shallow sites, with frees so that peaks move. */
#include <stdlib.h>

static void *slots[256];
static int nslots;

static void *grab(size_t n)
{
    void *p = malloc(n);
    slots[nslots++ % 256] = p;
    return p;
}

static void down_b(int depth, size_t n);

__attribute__((noinline)) static void down_a(int depth, size_t n)
{
    if (depth == 0) {
        grab(n);
        return;
    }
    down_b(depth - 1, n + 16);
}

__attribute__((noinline)) static void down_b(int depth, size_t n)
{
    if (depth == 0) {
        grab(n * 2);
        return;
    }
    down_a(depth - 1, n + 8);
    if (depth % 7 == 0)
        grab(100);
}

int main(void)
{
    for (int round = 0; round < 6; round++) {
        down_a(40, 1000);
        down_b(25, 3000);
        down_a(5, 20000);
        if (round % 2)
            for (int i = 0; i < nslots && i < 256; i += 3) {
                free(slots[i]);
                slots[i] = NULL;
            }
    }
    return 0;
}
