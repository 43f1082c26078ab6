/* SPDX-License-Identifier: MIT */ #include <stdlib.h>
void *three(void);
void *three(void)
{
    return malloc(3);
}
