/* SPDX-License-Identifier: MIT */ /* Memory the tracer never saw (from getline, asprintf, realpath) freed by
   traced code: silent.  getline growing a buffer the program allocated is
   seen through the C library's realloc.  Addresses freed by traced code and
   handed out again by the C library must not look like double frees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    char *line = malloc(2), *s = 0, *path, *q;
    size_t n = 2;
    int i, reused = 0;
    if (!f || getline(&line, &n, f) < 0)
        return 2;
    fclose(f);
    free(line);
    for (i = 0; i < 100; i++) {             /* traced block, then libc's */
        q = malloc(100);
        free(q);
        if (asprintf(&s, "%0*d", 90, i) < 0)
            return 2;
        reused += s == q;
        free(s);
    }
    path = realpath(".", NULL);
    free(path);
    line = 0;
    n = 0;
    f = fopen("/proc/self/cmdline", "r");
    if (!f || getline(&line, &n, f) < 0)
        return 2;
    fclose(f);
    free(line);
    printf("reused %s\n", reused ? "yes" : "no");
    return 0;
}
