/* SPDX-License-Identifier: MIT */ /* A static inline function in a header: one call site, whichever file
   calls it. */
#include <stdlib.h>
static inline void *shared_alloc(size_t n) { return malloc(n); }
void *other(void);
