/* SPDX-License-Identifier: MIT */
/* One site (line 7) reached by three chains: from a() called on two
   lines of main (13, 14), and from b().  The leak records that read the
   same under MTRACE_DEPTH=N are one record: N = 1 site alone, N = 2 the
   site and a() or b(), N = 3 main's lines too. */
#include <stdlib.h>
void *leaf(size_t n) { return malloc(n); }
void *a(size_t n) { return leaf(n); }
void *b(size_t n) { return leaf(n); }
void *keep[3];
int main(void)
{
    keep[0] = a(1);
    keep[1] = a(2);
    keep[2] = b(4);
    return 0;
}
