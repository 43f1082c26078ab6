/* SPDX-License-Identifier: MIT */ #include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "greet.h"

char *greet(const char *who)
{
    size_t n = strlen(who) + sizeof "hello, ";
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "hello, %s", who);
    return s;
}
