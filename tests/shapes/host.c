/* SPDX-License-Identifier: MIT */ /* Opens the plugin, takes a block from it, closes it, frees the block,
   and allocates again: everything traced, one report, no crash. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "./plugin.so", RTLD_NOW);
    char *(*run)(void);
    char *s, *after;
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    *(void **)&run = dlsym(h, "plugin_run");
    s = run();
    printf("%s\n", s);
    dlclose(h);
    free(s);
    after = malloc(44);        /* after dlclose: still traced */
    free(after);
    return 0;
}
