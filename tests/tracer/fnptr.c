/* SPDX-License-Identifier: MIT */ /* Allocations that no macro names: through a pointer to malloc taken in
   traced code (as libxml2's xmlMalloc), and from a file built with
   MTRACE_NO_MACROS (nomacros.c, as Redis's zmalloc.c).  Each calling place
   is a site of its own, named at exit from its return address. */
#include <stdlib.h>
#include <string.h>

void *(*my_malloc)(size_t) = malloc;
void (*my_free)(void *) = free;
char *from_nomacros(size_t n);     /* nomacros.c */

char *node(void)
{
    char *p = my_malloc(1000);      /* not a tail call: the place is node's */
    p[0] = 0;
    return p;
}

char *text(void)
{
    char *p = my_malloc(24);
    p[0] = 0;
    return p;
}

int main(void)
{
    char *a = node(), *b = text(), *c = from_nomacros(300);
    memset(a, 0, 1000);
    memset(b, 0, 24);
    my_free(c);
    c = from_nomacros(7);
    return 0;
}
