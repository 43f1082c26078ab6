/* SPDX-License-Identifier: MIT */ /* realloc growth and shrink (in place and moving), zero-sized blocks:
 * malloc(0), calloc(0, n), realloc(p, 0), realloc(NULL, n). */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *buf = NULL;
    size_t n;
    void *zero[8];

    for (n = 16; n <= 65536; n *= 2) {
        buf = realloc(buf, n);
        memset(buf, 1, n);
    }
    for (n = 65536; n >= 16; n /= 4)
        buf = realloc(buf, n);
    for (int i = 0; i < 8; i++)
        zero[i] = i % 2 ? malloc(0) : calloc(0, 32);
    buf = realloc(buf, 100000);
    char *q = realloc(NULL, 3000);
    q = realloc(q, 0);
    (void)q;
    buf = realloc(buf, 10);
    for (int i = 0; i < 8; i++)
        free(zero[i]);
    free(buf);
    return 0;
}
