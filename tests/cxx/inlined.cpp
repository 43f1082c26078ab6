// SPDX-License-Identifier: MIT
// tests/cxx.sh: one line copied by the compiler into two places (make,
// inlined twice into main at -O2): two sites, one name.  The summary keeps
// a row per copy and says so; the leak records merge them.  inlined.h's
// line 8 is inlined into main too: the same line and function, another file.
#include "inlined.h"
int *volatile keep[3];
static inline int *make(int v) { return new int(v); }   // COPIED, line 8
int main()
{
    keep[0] = make(1);
    keep[1] = make(2);
    keep[2] = other(4);
    return keep[0] == keep[1];
}
