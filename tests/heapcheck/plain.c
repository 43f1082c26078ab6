/* SPDX-License-Identifier: MIT */
/* tests/heapcheck/plain.c - a library built without mtrace: its allocator
   calls are the C library's, through the process's symbols. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
char *plain_dup(const char *s) { return strdup(s); }
void plain_free(void *p) { free(p); }
void *plain_realloc(void *p, size_t n) { return realloc(p, n); }
size_t plain_usable(void *p) { return malloc_usable_size(p); }
