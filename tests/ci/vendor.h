/* SPDX-License-Identifier: MIT */ /* A vendored library that keeps its cache until exit. */
#include <stdlib.h>
static char *vendor_cache(size_t n)
{
    return malloc(n);
}
