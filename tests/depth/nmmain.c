/* SPDX-License-Identifier: MIT */ /* main of the MTRACE_NO_MACROS program (see nmleaf.c): leaks 100 bytes. */
#include <stddef.h>
void *nm_api(size_t n);
void *nm_keep;
int main(void)
{
    nm_keep = nm_api(100);                      /* MAIN */
    nm_keep = 0;
    return 0;
}
