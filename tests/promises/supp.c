/* SPDX-License-Identifier: MIT */
/* Five leaks of 1, 2, 4, 8 and 16 bytes: the suppressed bytes tell
   which sites a suppression file matched (a sum names its set). */
#include <stdlib.h>
void *keep_alpha(void) { return malloc(1); }
void *keep_beta(void) { return malloc(2); }
void *other(void) { return malloc(4); }
void *keep[5];
int main(void)
{
    keep[0] = keep_alpha();
    keep[1] = keep_beta();
    keep[2] = other();
    keep[3] = malloc(8);                /* line 14 */
    keep[4] = malloc(16);               /* line 15 */
    return 0;
}
