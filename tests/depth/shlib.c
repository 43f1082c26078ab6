/* SPDX-License-Identifier: MIT */ /* A traced shared library (hidden helpers) called by an untraced main. */
#include <stdlib.h>
__attribute__((visibility("hidden"))) void *lib_leaf(size_t n) { return malloc(n); }
__attribute__((visibility("hidden"))) void *lib_mid(size_t n) { return lib_leaf(n); }
void *lib_api(size_t n) { return lib_mid(n); }
