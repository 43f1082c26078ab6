/* SPDX-License-Identifier: MIT */
/* A library built without mtrace (tests/cxx.sh: cc -shared, plainly):
   what it frees, mtrace's interposer sees; what it allocates, nobody. */
#include <stdlib.h>
void plain_release(void *p)
{
    free(p);
}
void *plain_make(size_t n)
{
    return malloc(n);
}
