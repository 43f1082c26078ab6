// SPDX-License-Identifier: MIT
// Exceptions through traced frames, threads, static initialisation and
// destruction, new's failure and its handler.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
static std::vector<std::string> names = { "a static vector", "of strings", "freed by its destructor" };
static int *volatile static_leak = new int[6];  // STATIC-LEAK
static void *volatile sink;            // (no allocation elided: clang may, C++14 [expr.new])
static char *reserve;
static int handler_calls;
static void give_reserve()
{
    handler_calls++;
    delete[] reserve;
    reserve = nullptr;
    std::set_new_handler(nullptr);
}
static int depth_then_throw(int n)
{
    std::unique_ptr<int[]> held(new int[16]);
    if (n == 0)
        throw std::runtime_error("thrown through traced frames");
    return depth_then_throw(n - 1) + held[0];
}
int main()
{
    int caught = 0, failed = 0;
    try {
        depth_then_throw(5);
    } catch (const std::exception &e) {
        caught = 1;
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([] {
            for (int i = 0; i < 1000; i++)
                delete new std::string(100, 'y');
        });
    for (auto &t : threads)
        t.join();
    try {
        volatile size_t huge = (size_t)1 << 62;
        char *p = new char[huge];
        sink = p;
        delete[] p;
    } catch (const std::bad_alloc &) {
        failed = 1;
    }
    volatile size_t huge = (size_t)1 << 62;
    char *nothing = new (std::nothrow) char[huge];
    sink = nothing;
    reserve = new char[64];
    sink = reserve;
    std::set_new_handler(give_reserve);
    try {
        char *p = new char[huge];       // the handler gives its reserve, then there is none
        sink = p;
        delete[] p;
    } catch (const std::bad_alloc &) {
        failed++;
    }
    std::printf("caught %d failed %d nothing %d handler %d names %zu static %d\n", caught, failed,
                nothing == nullptr, handler_calls, names.size(), static_leak != nullptr);
    return 0;
}
