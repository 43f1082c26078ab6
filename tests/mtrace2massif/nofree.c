/* SPDX-License-Identifier: MIT */ /* Never frees: the heap only grows.  Massif takes peak snapshots only at
 * deallocations, so its file has no peak; mtrace2massif adds one at the
 * end, where Massif would put it if the program freed its heap at exit. */
#include <stdlib.h>

static void *table(int i) { return malloc(256 * (size_t)i); }
static void *node(void) { return malloc(24); }

int main(void)
{
    static void *keep[300];
    for (int i = 0; i < 60; i++)
        keep[i] = table(i + 1);
    for (int i = 60; i < 300; i++)
        keep[i] = node();
    return keep[0] == NULL;
}
