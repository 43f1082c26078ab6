/* SPDX-License-Identifier: MIT */ /* Eight blocks of 16 bytes, never freed.  With --max-snapshots=10 Massif
 * keeps its start-up snapshot and one per malloc: 9, no culling.  Our
 * final peak (after the last record) is a 10th: nothing follows it, so
 * it must not cull the array to 5 as a full array otherwise would.  The
 * blocks stay reachable (LeakSanitizer under make test-sanitize). */
#include <stdlib.h>

int main(void)
{
    static void *keep[8];
    for (int i = 0; i < 8; i++)
        if (!(keep[i] = malloc(16)))
            return 1;
    return 0;
}
