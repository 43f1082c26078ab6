/* SPDX-License-Identifier: MIT */ #include "shared.h"
void *volatile sink;

int main(void)
{
    void *a = shared_alloc(10), *b = other();
    sink = a;                   /* used: the compiler keeps the pair */
    free(a);
    free(b);
    return 0;
}
