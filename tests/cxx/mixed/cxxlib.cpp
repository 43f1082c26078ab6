// SPDX-License-Identifier: MIT
#include "clib.h"
void *cxxlib_make(int n)
{
    return new int[n];                      // CXX-MAKE
}
void cxxlib_destroy(void *p)
{
    delete[] static_cast<int *>(p);
}
