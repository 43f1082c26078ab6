/* SPDX-License-Identifier: MIT */ /* Every allocation goes through a two-level wrapper called through a
   function pointer, as SQLite's does: MTRACE_ALLOC_FN="raw_alloc wrap_alloc"
   charges each to the wrapper's caller without a source change.  Built
   with -DCLONE_NAMES, the wrappers bear the names gcc gives the copies it
   makes of a function (raw_alloc.constprop.0, wrap_alloc.isra.0: Redis's
   _sdsnewlen.constprop.0), and MTRACE_ALLOC_FN still matches them. */
#include <stdlib.h>
#ifdef CLONE_NAMES
static void *raw_alloc(size_t n) __asm__("raw_alloc.constprop.0");
static void *wrap_alloc(size_t n) __asm__("wrap_alloc.isra.0");
#endif
static void *raw_alloc(size_t n) { return malloc(n); }
static void *wrap_alloc(size_t n) { return raw_alloc(n); }
static void *(*volatile alloc)(size_t) = wrap_alloc;
static void *make_table(void) { return alloc(100); }
static void *make_name(void) { return alloc(20); }

int main(void)
{
    void *t = make_table();
    make_name();                        /* leaks 20 bytes */
    free(t);
    return 0;
}
