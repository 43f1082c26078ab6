// SPDX-License-Identifier: MIT
// A C++ library loaded with dlopen by a C program (tests/cxx/dlmain.c).
#include <cstddef>
#include <new>
static void *volatile sink;
extern "C" void *plugin_make()
{
    return new int[3];                  // PLUGIN-NEW
}
extern "C" int plugin_fails()
{
    volatile std::size_t huge = (std::size_t)1 << 62;
    try {
        char *p = new char[huge];
        sink = p;
        delete[] p;
    } catch (const std::bad_alloc &) {
        return 1;
    }
    return 0;
}
