// SPDX-License-Identifier: MIT
// The four mismatches Memcheck names "Mismatched free() / delete / delete []".
#include <cstdlib>
static int *volatile sink;
int main()
{
    int *a = new int[4];                // ALLOC-1
    sink = a;
    delete sink;                        // FREE-1 delete of new[]'s
    int *m = static_cast<int *>(std::malloc(8));    // ALLOC-2
    sink = m;
    delete sink;                        // FREE-2 delete of malloc's
    int *n = new int;                   // ALLOC-3
    sink = n;
    delete[] sink;                      // FREE-3 delete[] of new's
    int *b = new int[2];                // ALLOC-4
    sink = b;
    std::free(sink);                    // FREE-4 free of new[]'s
    return 0;
}
