/* SPDX-License-Identifier: MIT */ /* Exit status and stdout with a leak: 0 becomes 1, 3 stays 3, and the
   buffered output is written. */
#include <stdio.h>
#include <stdlib.h>
char *volatile kept;
int main(int argc, char **argv)
{
    kept = malloc(10);
    printf("buffered, no newline");
    return argc > 1 ? atoi(argv[1]) : 0;
}
