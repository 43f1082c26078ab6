// SPDX-License-Identifier: MIT
// tests/cxx/inlined.cpp's header: an inline function whose allocation is
// on line 8, as the copied line of inlined.cpp is: inlined into main, its
// row names main and line 8 too, in another file (not a copy).
#include <cstddef>
static inline __attribute__((always_inline)) int *other(std::size_t n)
{
    return new int[n]();   // OTHER, line 8
}
