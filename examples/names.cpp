// SPDX-License-Identifier: MIT
// examples/names.cpp - C++ in the guide (doc/guide.md#c): a vector of strings
// that grows and leaks, and a new[] freed by delete.
#include <string>
#include <vector>

static std::vector<std::string> *names;

int main()
{
    names = new std::vector<std::string>;
    for (int i = 0; i < 100; i++)
        names->push_back(std::string(40, 'x'));
    int *counts = new int[16];
    delete counts;
    return 0;
}
