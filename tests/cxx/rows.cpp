// SPDX-License-Identifier: MIT
// doc/limits.md's C++ rows, one mode each (tests/cxx.sh greps the lines):
//   own      a function of ours in namespace std, one outside it, and two
//            classes with their own operator new; each leaks once
//   frees    aligned new freed by the plain delete, a sized delete with
//            the wrong size, new[]'s block freed by a library built
//            without mtrace (plain_release): all freed;
//            that library's own blocks, one freed here, one leaked
//   handler  a nothrow new whose new_handler throws
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
extern "C" void plain_release(void *p);  // tests/cxx/plain.c, built plainly
extern "C" void *plain_make(std::size_t n);
static void *volatile sink;
namespace std {
// (not the C++ library's, though in its namespace: the rule is by name)
__attribute__((noinline)) int *mtrace_test_own(int n)
{
    return new int[n];                  // OWN-STD
}
}
__attribute__((noinline)) static int *outside_std(int n)
{
    return new int[n];                  // OUTSIDE-STD
}
struct ByMalloc {
    static void *operator new(std::size_t n) { return std::malloc(n); }  // CLASS-MALLOC
    static void operator delete(void *p) { std::free(p); }
    char bytes[13];
};
struct ByGlobal {
    static void *operator new(std::size_t n) { return ::operator new(n); }  // CLASS-GLOBAL
    static void operator delete(void *p) { ::operator delete(p); }
    char bytes[17];
};
struct alignas(64) Wide { char bytes[100]; };
static void throw_instead()
{
    throw std::bad_alloc();
}
static int own()
{
    sink = std::mtrace_test_own(3);     // CALL-STD
    sink = outside_std(7);              // CALL-OUTSIDE
    delete new ByMalloc;
    delete new ByGlobal;
    sink = new ByMalloc;                // NEW-BY-MALLOC
    sink = new ByGlobal;                // NEW-BY-GLOBAL
    return 0;
}
static int frees()
{
    Wide *wide = new Wide;
    sink = wide;
    ::operator delete(static_cast<void *>(wide));    // FREE-ALIGNED (aligned new, plain delete)
    int *four = new int[4];
    sink = four;
    ::operator delete[](static_cast<void *>(four), 3);  // FREE-SIZED (the size wrong)
    char *passed = new char[21];
    sink = passed;
    plain_release(passed);              // FREE-PLAIN (free() in code without mtrace)
    std::free(plain_make(31));
    sink = plain_make(33);
    return 0;
}
static int handler()
{
    volatile std::size_t huge = (std::size_t)1 << 62;
    std::set_new_handler(throw_instead);
    try {
        char *p = new (std::nothrow) char[huge];
        std::puts(p ? "nothrow new: a block" : "nothrow new: null");
    } catch (const std::bad_alloc &) {
        std::puts("nothrow new: the handler's exception");
    }
    return 0;
}
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!std::strcmp(mode, "own"))
        return own();
    if (!std::strcmp(mode, "frees"))
        return frees();
    if (!std::strcmp(mode, "handler"))
        return handler();
    return 2;
}
