/* SPDX-License-Identifier: MIT */ /* dfree.c - a double free: mtrace stops the program at the second free
   and names the three places involved.  See doc/guide.md. */
#include <stdlib.h>

int main(void)
{
    char *p = malloc(10);
    free(p);
    free(p);
    return 0;
}
