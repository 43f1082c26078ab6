/* SPDX-License-Identifier: MIT */ /* A traced plugin, opened and closed with dlopen/dlclose.  It leaks one
   block (plugin.c:11), and hands out one that the program frees after
   dlclose. */
#include <stdlib.h>
#include <string.h>

char *volatile plugin_lost;

__attribute__((visibility("default"))) char *plugin_run(void)
{
    plugin_lost = malloc(33);
    return strdup("from the plugin");
}
