/* SPDX-License-Identifier: MIT */ /* realloc-heavy: a buffer grown by doubling, a string grown a few bytes at a
 * time (mostly in place, inside Valgrind's 16-byte rounding), shrunk to fit
 * (in place: useful bytes become extra heap), realloc(NULL, n), and frees. */
#include <stdlib.h>
#include <string.h>

static char *grow(char *p, size_t n)
{
    char *q = realloc(p, n);
    if (!q)
        abort();
    return q;
}

int main(void)
{
    char *buf = NULL, *s = NULL, *keep[8];
    size_t cap = 16;
    for (int i = 0; i < 12; i++) {          /* doubling: every step moves */
        buf = grow(buf, cap);
        memset(buf, i, cap);
        cap *= 2;
    }
    for (size_t len = 1000; len < 1400; len += 3) /* small steps */
        s = grow(s, len);
    s = grow(s, 40);                         /* shrink to fit, in place */
    for (int i = 0; i < 8; i++) {
        keep[i] = malloc(1000 + 100 * i);
        keep[i] = grow(keep[i], 500 + 50 * i);    /* shrink in place */
    }
    for (int i = 0; i < 8; i++)
        keep[i] = grow(keep[i], 3000);       /* grow: moves */
    buf = grow(buf, 100);                    /* a big shrink */
    free(buf);
    for (int i = 0; i < 8; i++)
        free(keep[i]);
    free(s);
    return 0;
}
