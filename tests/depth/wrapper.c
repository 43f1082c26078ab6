/* Every allocation goes through a two-level wrapper called through a
   function pointer, as SQLite's does: MTRACE_ALLOC_FN="raw_alloc wrap_alloc"
   charges each to the wrapper's caller without a source change. */
#include <stdlib.h>
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
