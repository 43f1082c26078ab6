/* SPDX-License-Identifier: MIT */ /* A double free reached through helpers. */
#include <stdlib.h>
static void release(char *p) { free(p); }
static char *make(void) { return malloc(8); }
static char *build(void) { return make(); }

int main(void)
{
    char *p = build();
    release(p);
    release(p);
    return 0;
}
