/* SPDX-License-Identifier: MIT */ /* Three levels of helpers, recursion, and a callback from the C library. */
#include <stdlib.h>
#include <string.h>
static void *xmalloc(size_t n) { return malloc(n); }
static char *copy(const char *s) { char *p = xmalloc(strlen(s) + 1); return strcpy(p, s); }
static char *nest(int k) { return k ? nest(k - 1) : copy("deep"); }
static int cmp(const void *a, const void *b) { free(malloc(1)); return *(const int *)a - *(const int *)b; }

int main(void)
{
    int v[3] = {3, 1, 2};
    char *kept = copy("kept");
    char *deep = nest(2);
    qsort(v, 3, sizeof *v, cmp);
    free(deep);
    return kept[0] == 'k' ? 0 : 2;      /* kept leaks */
}
