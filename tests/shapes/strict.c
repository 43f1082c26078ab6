/* SPDX-License-Identifier: MIT */ /* A strict C99 program that defines getline and index itself: it builds
   with the header only when the header leaves _GNU_SOURCE alone
   (-DMTRACE_NO_GNU_SOURCE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int index = 2;
static long getline(char *s) { return (long)strlen(s) + index; }
int main(void)
{
    char *s = malloc(8);
    strcpy(s, "abc");
    printf("%ld\n", getline(s));
    free(s);
    return 0;
}
