/* SPDX-License-Identifier: MIT */ /* pool.c - teaching mtrace about a program's own allocation functions.
   xmalloc/xstrdup are wrappers: one line after each declaration makes
   mtrace charge what they allocate to the line that called them.  The
   pool hands out blocks of a static arena: MTRACE_MALLOCLIKE and
   MTRACE_FREELIKE tell mtrace when a block is handed out and taken back,
   so pool blocks show in the trace, the summary and the leak report.
   Builds with or without mtrace (the #ifndef below).  See doc/guide.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MTRACE_ALLOC_FN                 /* built without mtrace.h */
#define MTRACE_ALLOC_FN(call) (call)
#define MTRACE_MALLOCLIKE(p, size) ((void)(p), (void)(size))
#define MTRACE_FREELIKE(p) ((void)(p))
#endif

/* --- wrappers (these would be in a header of the project) --- */
void *xmalloc(size_t n);
#define xmalloc(n) MTRACE_ALLOC_FN(xmalloc(n))
char *xstrdup(const char *s);
#define xstrdup(s) MTRACE_ALLOC_FN(xstrdup(s))

/* The definitions put the name in parentheses: no macro expansion there. */
void *(xmalloc)(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

char *(xstrdup)(const char *s)
{
    return memcpy(xmalloc(strlen(s) + 1), s, strlen(s) + 1);  /* wrapper in a wrapper */
}

/* --- a pool of 64-byte blocks carved from a static arena --- */
#define POOL_BLOCK 64
#define POOL_BLOCKS 256
static union slot {
    union slot *next;                   /* while the block is free */
    char bytes[POOL_BLOCK];
    long double align;
} arena[POOL_BLOCKS];
static union slot *free_slots;
static size_t used_slots;

void *pool_get(size_t n);
#define pool_get(n) MTRACE_ALLOC_FN(pool_get(n))
void pool_put(void *p);

void *(pool_get)(size_t n)
{
    union slot *s;
    if (n > POOL_BLOCK)
        return NULL;
    if (free_slots) {
        s = free_slots;
        free_slots = s->next;
    } else if (used_slots < POOL_BLOCKS)
        s = &arena[used_slots++];
    else
        return NULL;
    MTRACE_MALLOCLIKE(s, n);            /* handed out: n bytes, charged to the caller */
    return s;
}

void pool_put(void *p)
{
    union slot *s = p;
    if (!s)
        return;
    MTRACE_FREELIKE(s);                 /* taken back */
    s->next = free_slots;
    free_slots = s;
}

/* --- the program --- */
struct item {
    char *name;
    int value;
};

static struct item *item_new(const char *name, int value)
{
    struct item *it = pool_get(sizeof *it);        /* pool block: charged here */
    if (!it)
        exit(2);
    it->name = xstrdup(name);                      /* heap block: charged here */
    it->value = value;
    return it;
}

int main(void)
{
    static const char *names[] = { "one", "two", "three", "four", "five" };
    struct item *items[5];
    char *buffer = xmalloc(1000);                  /* charged here, not in xmalloc */
    int i, sum = 0;

    for (i = 0; i < 5; i++)
        items[i] = item_new(names[i], i + 1);
    for (i = 0; i < 5; i++)
        sum += items[i]->value;
    snprintf(buffer, 1000, "sum %d", sum);
    puts(buffer);
    free(buffer);
    for (i = 0; i < 4; i++) {                      /* the last item is forgotten */
        free(items[i]->name);
        pool_put(items[i]);
    }
    return 0;
}
