/* SPDX-License-Identifier: MIT */ /* What the program sees is what the C library gives, and the trace says
   exactly what happened: one line per call below, then the records. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAY(what, ok) printf("%-34s %s\n", what, (ok) ? "ok" : "WRONG")

int main(int argc, char **argv)
{
    void *p, *q, *null = argv[argc];        /* NULL the compiler cannot see:
                                               it turns realloc(NULL, n) into
                                               malloc(n), recorded as "+" */
    char *s;
    int err;
    p = realloc(null, 100);                 /* > 100 */
    SAY("realloc(NULL, 100)", p != NULL);
    q = realloc(p, 1000);                   /* < 100, > 1000 */
    SAY("realloc(p, 1000)", q != NULL);
    errno = 0;
    p = realloc(q, SIZE_MAX / 2);           /* fails: nothing written */
    SAY("realloc(p, huge) fails, ENOMEM", p == NULL && errno == ENOMEM);
    p = realloc(q, 0);                      /* glibc frees: < 1000 */
    SAY("realloc(p, 0) frees, NULL", p == NULL);
    errno = 0;
    p = calloc(SIZE_MAX / 2, 4);            /* overflow: nothing */
    SAY("calloc overflow: NULL, ENOMEM", p == NULL && errno == ENOMEM);
    errno = 0;
    p = malloc(SIZE_MAX - 64);              /* nothing */
    SAY("malloc(huge): NULL, ENOMEM", p == NULL && errno == ENOMEM);
    free(NULL);                             /* nothing */
    p = malloc(0);                          /* + 0 */
    SAY("malloc(0)", p != NULL);
    free(p);                                /* - 0 */
    p = calloc(3, 7);                       /* + 21 */
    SAY("calloc(3, 7) zeroed", p && !memcmp(p, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 21));
    errno = 0;
    q = reallocarray(p, SIZE_MAX / 2, 4);   /* overflow: nothing, p kept */
    SAY("reallocarray overflow", q == NULL && errno == ENOMEM);
    q = reallocarray(p, 10, 8);             /* < 21, > 80 */
    SAY("reallocarray(p, 10, 8)", q != NULL);
    free(q);                                /* - 80 */
    err = posix_memalign(&p, 3, 64);        /* EINVAL: nothing */
    SAY("posix_memalign(3): EINVAL", err == EINVAL);
    err = posix_memalign(&p, 256, 64);      /* + 64 */
    SAY("posix_memalign(256) aligned", err == 0 && (uintptr_t)p % 256 == 0);
    free(p);                                /* - 64 */
    p = aligned_alloc(64, 128);             /* + 128 */
    SAY("aligned_alloc(64) aligned", p && (uintptr_t)p % 64 == 0);
    free(p);                                /* - 128 */
    s = strndup("abcdef", 3);               /* + 4 */
    SAY("strndup(s, 3)", s && !strcmp(s, "abc"));
    free(s);                                /* - 4 */
    s = strndup("ab", 10);                  /* + 3: shorter than n */
    SAY("strndup(\"ab\", 10)", s && !strcmp(s, "ab"));
    free(s);                                /* - 3 */
    s = strdup("");                         /* + 1 */
    SAY("strdup(\"\")", s && !*s);
    free(s);                                /* - 1 */
    return 0;
}
