/* SPDX-License-Identifier: MIT */ // C++ templates and lambdas: demangled names such as
// "main::{lambda(int)#1}::operator()(int) const" contain '#', which
// ms_print treats as the start of a comment.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

template <typename T, int N> struct Pool {
    std::vector<std::unique_ptr<T[]>> blocks;
    void grow() { blocks.emplace_back(new T[N]); }
};

template <typename F> static void twice(F f) { f(1); f(2); }

int main()
{
    Pool<double, 512> pd;
    Pool<char, 3000> pc;
    std::map<std::string, std::vector<int>> m;
    auto fill = [&](int k) {
        for (int i = 0; i < 40; i++)
            m["key" + std::to_string(k * 100 + i)].resize(50 + i);
    };
    auto g = [&pd](int n) { for (int i = 0; i < n; i++) pd.grow(); };
    twice(fill);
    twice(g);
    std::function<void(int)> h = [&pc](int n) { while (n--) pc.grow(); };
    h(5);
    m.clear();
    g(3);
    return 0;
}
