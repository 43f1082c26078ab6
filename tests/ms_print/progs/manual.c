/* SPDX-License-Identifier: MIT */ /* The Massif manual's example program (chapter 9.2.1). */
#include <stdlib.h>

static void *keep[3];

void g(void)
{
    static int n;
    keep[n++ % 3] = malloc(4000);
}

void f(void)
{
    keep[2] = malloc(2000);
    g();
}

int main(void)
{
    int i;
    int *a[10];

    for (i = 0; i < 10; i++)
        a[i] = malloc(1000);
    f();
    g();
    for (i = 0; i < 10; i++)
        free(a[i]);
    return 0;
}
