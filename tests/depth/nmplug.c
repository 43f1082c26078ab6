/* SPDX-License-Identifier: MIT */ /* Loads the MTRACE_NO_MACROS library (nmleaf.c, nmmid.c) as a plugin,
   argv[1], and leaks 100 bytes through it. */
#include <dlfcn.h>
#include <stdio.h>
void *nm_keep;
int main(int argc, char **argv)
{
    void *(*api)(size_t), *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : 0;
    *(void **)&api = h ? dlsym(h, "nm_api") : 0;
    if (!api) {
        fprintf(stderr, "nmplug: %s\n", dlerror());
        return 2;
    }
    nm_keep = api(100);                         /* PLUGIN */
    nm_keep = 0;
    return 0;
}
