/* SPDX-License-Identifier: MIT */ /* hello.c - the project of doc/guide.md's recipes: an ordinary program
   with its own build files (Makefile, CMakeLists.txt, configure.ac) that
   know nothing of mtrace.  It forgets one block on purpose. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "greet.h"

int main(int argc, char **argv)
{
    char *who = strdup(argc > 1 ? argv[1] : "world");
    char *line = greet(who);
    puts(line);
    free(line);
    return 0;                          /* forgot free(who) */
}
