/* SPDX-License-Identifier: MIT */
/* tests/writer/digits.c - mtrace_put_u (runtime/out.c) against snprintf.

   digits.c is compiled with runtime/out.c's mtrace_put_u, taken out of it
   by tests/writer.sh into digits.h.  Every number below 2,000,000,
   each power of ten and its neighbours, 2^64 - 1, and 10,000,000 numbers
   of random bit lengths (a fixed seed): the same text as "%llu", and no
   byte written past the 20 a number may take.  Prints "digits: N numbers
   as snprintf writes them" or the first difference. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "digits.h"

static unsigned long long checked;

/* n bytes of '#' from p: the guard around the number's 20 bytes */
static int untouched(const char *p, size_t n)
{
    while (n--)
        if (*p++ != '#')
            return 0;
    return 1;
}

static int same_as_printf(uint64_t v)
{
    char want[32], got[48];
    char *end;
    int n = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    memset(got, '#', sizeof got);
    end = mtrace_put_u(got + 8, (size_t)v);
    checked++;
    if (end - (got + 8) != n || memcmp(got + 8, want, (size_t)n) != 0
        || !untouched(got, 8) || !untouched(got + 28, 20)) {
        printf("digits: %llu written as '%.*s' (%d bytes, %d expected), or outside its 20 bytes\n",
               (unsigned long long)v, (int)(end - (got + 8)), got + 8, (int)(end - (got + 8)), n);
        return 0;
    }
    return 1;
}

int main(void)
{
    uint64_t v, ten = 1, seed = 88172645463325252ULL;
    int i;
    for (v = 0; v < 2000000; v++)
        if (!same_as_printf(v))
            return 1;
    for (i = 0; i < 20; i++, ten *= 10)
        if (!same_as_printf(ten - 1) || !same_as_printf(ten) || !same_as_printf(ten + 1))
            return 1;
    if (!same_as_printf(UINT64_MAX) || !same_as_printf(UINT64_MAX - 1))
        return 1;
    for (i = 0; i < 10000000; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;     /* xorshift64 */
        if (!same_as_printf(seed >> (seed & 63)))
            return 1;
    }
    printf("digits: %llu numbers as snprintf writes them\n", checked);
    return 0;
}
