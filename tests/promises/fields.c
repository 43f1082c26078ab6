/* SPDX-License-Identifier: MIT */
/* Every figure of the JSON report, worked out by hand in tests/promises.sh.
   get() holds 20 bytes in two blocks, then 20 in one (its peak first
   reached with 2 blocks); SIZES asks 0, 1, 2, 3, 4, 7 and 8 bytes, each
   freed at once (temporary); KEPT's 100 bytes grow to 200 at GROW, kept
   by a global (still reachable); lose() leaks 5 bytes (LOST), the last
   record and the peak (205), called at CALL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *get(size_t n) { return malloc(n); }               /* GET */
static void *lost;
static void lose(void) { lost = malloc(5); lost = 0; }         /* LOST */
/* the stack below main's frame wiped: no stale copy of lost's pointer
   left there for the reachability scan to see */
static void wipe(void) { volatile char junk[8192]; for (int i = 0; i < 8192; i++) junk[i] = 0; }
void *kept;
int main(void)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 4, 7, 8 };
    void *p = get(10), *q = get(10), *r;
    free(p), free(q);
    r = get(20);
    free(r);
    p = q = r = 0;              /* (the next block of 5 may take their address) */
    for (int i = 0; i < 7; i++)
        free(malloc(sizes[i]));                                 /* SIZES */
    kept = malloc(100);                                         /* KEPT */
    kept = realloc(kept, 200);                                  /* GROW */
    memset(kept, 0, 200);       /* no stale pointer from the heap's free lists */
    lose();                                                     /* CALL */
    wipe();
    printf("%d\n", (int)getpid());
    return 0;
}
