/* SPDX-License-Identifier: MIT */ #include "shared.h"
void *other(void) { return shared_alloc(20); }
