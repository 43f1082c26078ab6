/* SPDX-License-Identifier: MIT */ #include <stddef.h>
void *lib_api(size_t n);
int main(void) { return lib_api(42) ? 0 : 2; }     /* leaks 42 bytes */
