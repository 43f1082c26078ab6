// SPDX-License-Identifier: MIT
// The five mismatches Memcheck names "Mismatched free() / delete / delete []"
// (realloc of new's block the fifth: resized, malloc's block then).
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
    int *r = new int;                   // ALLOC-5
    sink = r;
    r = static_cast<int *>(std::realloc(sink, 64));  // FREE-5 realloc of new's
    std::free(r);
    return 0;
}
