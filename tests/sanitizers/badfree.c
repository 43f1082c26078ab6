/* SPDX-License-Identifier: MIT */
/* tests/sanitizers/badfree.c - a double free and a free of a stack
   address, each in its own run ("double" or "stack"), under
   UndefinedBehaviorSanitizer alone: mtrace's own checks stay on (ASan
   would take them over), and its report must run no undefined code (a
   site with no call stack has no frames to copy: memcpy from NULL). */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char *p = malloc(10), local[16];
    if (argc > 1 && !strcmp(argv[1], "stack")) {
        free(local + (argc > 5));   /* (the index hides the mistake from the compiler) */
        return 0;
    }
    free(p);
    free(p);
    return 0;
}
