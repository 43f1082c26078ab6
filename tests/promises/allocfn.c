/* SPDX-License-Identifier: MIT */
/* One wrapper, one leak through it: MTRACE_ALLOC_FN charges the leak to
   make_name (line 7) when its list names xmalloc, else to xmalloc (5). */
#include <stdlib.h>
void *xmalloc(size_t n) { return malloc(n); }
static void *keep;
static void make_name(void) { keep = xmalloc(24); }
int main(void)
{
    make_name();
    return 0;
}
