/* SPDX-License-Identifier: MIT */ /* Frees of addresses no allocator handed out: `badfree KIND`, KIND one of
   inside, big, static, literal, mmap, unmapped, stack, realloc.  Each is
   named before the C library sees it; `badfree legit` frees a buffer that
   the C library allocated itself (getline), which is no error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static char table[64];

/* The address, hidden from the compiler (which warns of such frees). */
static void *hidden(void *p)
{
    void *volatile v = p;
    return v;
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "";
    char local[16], *p = malloc(40), *big = malloc(200000), *line = 0;
    void *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t cap = 0;
    FILE *f;
    if (!strcmp(kind, "inside"))
        free(hidden(p + 8));
    else if (!strcmp(kind, "big"))
        free(hidden(big + 65536));
    else if (!strcmp(kind, "static"))
        free(hidden(table));
    else if (!strcmp(kind, "literal"))
        free(hidden((char *)"literal"));
    else if (!strcmp(kind, "mmap"))
        free(page);
    else if (!strcmp(kind, "unmapped") && munmap(page, 4096) == 0)
        free(page);
    else if (!strcmp(kind, "stack"))
        free(hidden(local));
    else if (!strcmp(kind, "realloc"))
        p = realloc(hidden(p + 8), 100);
    else if (!strcmp(kind, "legit") && (f = fopen(argv[0], "r"))) {
        if (getline(&line, &cap, f) >= 0)
            free(line);
        fclose(f);
    }
    puts("went on");
    free(p);
    free(big);
    return 0;
}
