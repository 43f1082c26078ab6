/* SPDX-License-Identifier: MIT */
/* A C program that loads a C++ library with dlopen (tests/cxx/plugin.cpp):
   `dlmain` its new leaks; `dlmain fail` a new that fails there. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    void *lib = dlopen("./libplugin.so", RTLD_NOW);
    void *(*make)(void);
    int (*fails)(void);
    if (!lib) {
        fprintf(stderr, "dlmain: %s\n", dlerror());
        return 2;
    }
    *(void **)&make = dlsym(lib, "plugin_make");
    *(void **)&fails = dlsym(lib, "plugin_fails");
    if (!make || !fails)
        return 2;
    if (argc > 1 && !strcmp(argv[1], "fail"))
        printf("bad_alloc caught: %d\n", fails());
    return make() ? 0 : 2;
}
