/* SPDX-License-Identifier: MIT */ /* A program of two files with a traced shared library: blocks cross the
   boundary both ways; one leak is planted at app.c:14. */
#include <stdio.h>
#include <stdlib.h>
char *lib_make(const char *s);
void lib_free(void *p);
void helper_free(void *p);

int main(void)
{
    char *mine = malloc(100);
    char *theirs = lib_make("hello");
    char *kept;
    kept = malloc(7);
    lib_free(mine);             /* ours, freed by the library */
    helper_free(theirs);        /* the library's, freed by the other file */
    printf("ok %d", kept != NULL);  /* no newline: stdio must still flush */
    return 0;
}
