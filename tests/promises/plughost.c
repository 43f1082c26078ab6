/* SPDX-License-Identifier: MIT */
/* A program that loads the traced plugin ./libplug.so (plug.c) and leaks
   a block of its own; tests/promises.sh builds it with and without the
   header, with and without libmtrace. */
#include <dlfcn.h>
#include <stdlib.h>
static void *volatile kept;
int main(void)
{
    void *lib = dlopen("./libplug.so", RTLD_NOW);
    void *(*make)(void);
    if (!lib || !(*(void **)&make = dlsym(lib, "plug_make")))
        return 2;
    kept = make();
    kept = malloc(5);                   /* HOST */
    return 0;
}
