/* SPDX-License-Identifier: MIT */ /* At the peak under MTRACE_ALLOC_FN="xmalloc xcalloc": 2000 at make_c, 150 at make_ab (two calls, one line), 0 at make_t. */
#include <stdlib.h>
static void *xmalloc(size_t n) { return malloc(n); }
static void *xcalloc(size_t n, size_t m) { return calloc(n, m); }
static void *a, *b, *c;
static void make_ab(void) { a = xmalloc(100), b = xcalloc(1, 50); }
static void make_c(void) { c = xmalloc(2000); }
static void make_t(void) { free(xmalloc(1000)); }
int main(void)
{
    make_t();
    make_ab();
    make_c();
    free(a), free(b), free(c);
    return 0;
}
