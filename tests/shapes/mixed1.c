/* SPDX-License-Identifier: MIT */ /* Compiled with -DMTRACE=1; mixed3.c with -DMTRACE=3. */
#include <stdlib.h>
void *three(void);
int main(void)
{
    free(three());
    return malloc(5) == NULL;      /* leaked */
}
