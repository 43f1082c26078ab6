// SPDX-License-Identifier: MIT
// C++ calls the C library: a copy released by the library, one by free,
// one leaked; then the C part.
#include <cstdlib>
#include <string>
#include "clib.h"
extern "C" int cmain_run(void);
int main()
{
    std::string text(40, 'z');
    char *a = clib_copy(text.c_str());
    char *b = clib_copy("freed by C++ with free");
    char *c = clib_copy("leaked");          // CXX-LEAKS-C
    clib_release(a);
    std::free(b);
    (void)c;
    return cmain_run() - 1;
}
