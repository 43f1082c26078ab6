// SPDX-License-Identifier: MIT
// The C++ library's containers: growth charged to the line that grew them.
#include <map>
#include <memory>
#include <string>
#include <vector>
static std::vector<int> *kept;
static std::map<int, std::string> *kept_map;
int main()
{
    std::vector<int> *v = new std::vector<int>;
    for (int i = 0; i < 1000; i++)
        v->push_back(i);                // GROW-VECTOR
    kept = v;
    std::map<int, std::string> *m = new std::map<int, std::string>;
    (*m)[1] = "one";                    // GROW-MAP
    kept_map = m;
    std::string s(300, 'x');
    std::shared_ptr<int> sp = std::make_shared<int>(5);
    return (int)s.size() - 300 + *sp - 5;
}
