/* SPDX-License-Identifier: MIT */ #include <stdlib.h>
void helper_free(void *p);
void helper_free(void *p)
{
    free(p);
}
