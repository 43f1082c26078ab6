/* SPDX-License-Identifier: MIT */ /* A double free: the report names the bad free, the allocation and the
   first free, then the program aborts with the trace flushed. */
#include <stdlib.h>

int main(void)
{
    char *p = malloc(10);
    free(p);
    free(p);
    return 0;
}
