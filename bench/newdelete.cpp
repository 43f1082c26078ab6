/* SPDX-License-Identifier: MIT */
/* bench/newdelete.cpp - C++'s new and delete beside malloc and free.

   usage: newdelete new|array|malloc PAIRS

   Keeps 64 blocks live and PAIRS times frees one chosen at random and
   makes a new one in its place, of 16 to 1040 bytes chosen at random;
   then frees the 64.  The three modes are the same loop (one template)
   and differ only in the pair: `::operator new(n)` and `::operator
   delete` (what std::allocator, and so every container, calls), `new
   unsigned char[n]` and `delete[]`, `malloc(n)` and `free`.  So in one
   build the time of one mode over another's is what its pair costs over
   the other's, and a tracer's cost on new and delete is seen beside its
   cost on malloc and free (issue 41).  PAIRS may be 0: the program then
   only starts and ends (bench/cxx.sh measures heaptrack's start-up on
   it).  The checksum is of the sizes and the bytes written, never of
   addresses: the same in every build. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include "common.h"

namespace {

struct With_new {
    static void *make(size_t n) { return ::operator new(n); }
    static void drop(void *p) { ::operator delete(p); }
};
struct With_array {
    static void *make(size_t n) { return new unsigned char[n]; }
    static void drop(void *p) { delete[] static_cast<unsigned char *>(p); }
};
struct With_malloc {
    static void *make(size_t n) { return std::malloc(n); }
    static void drop(void *p) { std::free(p); }
};

/* PAIRS frees and allocations over 64 live blocks, by the pair of Alloc:
   the checksum of what was written and read. */
template <class Alloc> uint64_t churn(long pairs)
{
    const int LIVE = 64;
    unsigned char *slot[LIVE];
    size_t size[LIVE];
    uint64_t h = 0;
    rng_t r;
    long i;

    rng_seed(&r, 41);
    for (i = 0; i < LIVE; i++) {
        size[i] = 16 + rng_below(&r, 1025);
        slot[i] = static_cast<unsigned char *>(xcheck(Alloc::make(size[i])));
        slot[i][0] = static_cast<unsigned char>(i);
    }
    for (i = 0; i < pairs; i++) {
        uint32_t k = rng_below(&r, LIVE);
        h = mix(h, slot[k][0] + 256 * size[k]);
        Alloc::drop(slot[k]);
        size[k] = 16 + rng_below(&r, 1025);
        slot[k] = static_cast<unsigned char *>(xcheck(Alloc::make(size[k])));
        slot[k][0] = static_cast<unsigned char>(i);
    }
    for (i = 0; i < LIVE; i++) {
        h = mix(h, slot[i][0] + 256 * size[i]);
        Alloc::drop(slot[i]);
    }
    return h;
}

}  // namespace

int main(int argc, char **argv)
{
    char *end = 0;
    long pairs = argc == 3 ? std::strtol(argv[2], &end, 10) : -1;
    uint64_t h;

    if (pairs < 0 || !end || *end || end == argv[2]) {
        std::fputs("usage: newdelete new|array|malloc PAIRS\n", stderr);
        return 2;
    }
    if (std::strcmp(argv[1], "new") == 0)
        h = churn<With_new>(pairs);
    else if (std::strcmp(argv[1], "array") == 0)
        h = churn<With_array>(pairs);
    else if (std::strcmp(argv[1], "malloc") == 0)
        h = churn<With_malloc>(pairs);
    else {
        std::fputs("usage: newdelete new|array|malloc PAIRS\n", stderr);
        return 2;
    }
    report(h, static_cast<uint64_t>(2 * (64 + pairs)));
    std::printf("pairs %ld\n", pairs);
    return 0;
}
