/* SPDX-License-Identifier: MIT */ /* Loads ./libdlone.so, calls it back, unloads it (`keep`: keeps it),
   then ./libdltwo.so likewise (tests/depth.sh): the dynamic linker
   usually maps the second where the first was.  Prints where each was
   loaded; each call back leaks a block. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *volatile kept;
static void *make(int n)
{
    return malloc((size_t)n);           /* MAKE */
}
static void *through(const char *lib, const char *fn, int n, int unload)
{
    void *h = dlopen(lib, RTLD_NOW), *(*call)(void *(*)(int), int);
    void *p;
    Dl_info where;
    if (!h || !(*(void **)&call = dlsym(h, fn)) || !dladdr(*(void **)&call, &where))
        exit(2);
    p = call(make, n);
    printf("%p\n", where.dli_fbase);
    if (unload)
        dlclose(h);
    return p;
}
int main(int argc, char **argv)
{
    int unload = !(argc > 1 && !strcmp(argv[1], "keep"));
    kept = through("./libdlone.so", "p1_call", 10, unload);
    kept = through("./libdltwo.so", "p2_make", 20, unload);
    return 0;
}
