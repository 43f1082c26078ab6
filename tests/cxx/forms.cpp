// SPDX-License-Identifier: MIT
// Each form of new and delete, freed by its own delete; then one leak of
// each family, at a line of its own (tests/cxx.sh greps the lines).
#include <cstdlib>
#include <new>
struct alignas(64) Wide { char bytes[100]; };
static void *volatile sink;
int main(int argc, char **argv)
{
    (void)argv;
    int *one = new int(1);
    int *many = new int[10];
    Wide *wide = new Wide;
    Wide *wides = new Wide[3];
    int *quiet = new (std::nothrow) int;
    int *quiets = new (std::nothrow) int[4];
    void *raw = ::operator new(24, std::align_val_t(128));
    void *raw_nt = ::operator new(24, std::align_val_t(128), std::nothrow);
    sink = one; sink = many; sink = wide; sink = wides; sink = quiet; sink = quiets;
    delete one;
    delete[] many;
    delete wide;
    delete[] wides;
    delete quiet;
    delete[] quiets;
    ::operator delete(raw, std::align_val_t(128));
    ::operator delete(raw_nt, 24, std::align_val_t(128));
    if (argc > 1) {
        sink = new int(7);              // LEAK-NEW
        sink = new int[5];              // LEAK-ARRAY
        sink = std::malloc(33);         // LEAK-MALLOC
        sink = new Wide;                // LEAK-ALIGNED
        sink = nullptr;                 // (all four lost, for Memcheck too)
    }
    return 0;
}
