/* SPDX-License-Identifier: MIT */
/* examples/offbyone.c - a block one byte short, which MTRACE_CHECK=heap
   finds (doc/guide.md, "The heap check"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s and t joined by a space, in a new block: its terminator forgotten. */
static char *join(const char *s, const char *t)
{
    char *r = malloc(strlen(s) + strlen(t) + 1);
    sprintf(r, "%s %s", s, t);
    return r;
}

int main(void)
{
    char *r = join("hello", "world!");
    puts(r);
    free(r);
    return 0;
}
