/* SPDX-License-Identifier: MIT */ /* Many allocation sites below the 1% threshold next to a few big ones,
 * generated with a macro so that each site has its own code address. */
#include <stdlib.h>

static void *p[512];
static int np;

#define SITE(k) __attribute__((noinline)) static void site##k(void) \
    { p[np++ % 512] = malloc(8 + (k) * 3); }
#define S10(k) SITE(k##0) SITE(k##1) SITE(k##2) SITE(k##3) SITE(k##4) \
    SITE(k##5) SITE(k##6) SITE(k##7) SITE(k##8) SITE(k##9)
S10(1) S10(2) S10(3) S10(4) S10(5) S10(6)
#define C10(k) site##k##0(); site##k##1(); site##k##2(); site##k##3(); \
    site##k##4(); site##k##5(); site##k##6(); site##k##7(); site##k##8(); \
    site##k##9();

__attribute__((noinline)) static void big(size_t n) { p[np++ % 512] = malloc(n); }

int main(void)
{
    big(20000);
    for (int r = 0; r < 3; r++) {
        C10(1) C10(2) C10(3) C10(4) C10(5) C10(6)
        big(5000 + r * 1000);
    }
    for (int i = 0; i < 512; i += 2)
        free(p[i]);
    big(100);
    return 0;
}
