/* SPDX-License-Identifier: MIT */ /* leak.c - two classic leaks: a list freed without its strings, and an
   early return that forgets a buffer.  mtrace names both lines, largest
   leak first, and makes the exit status 1.  See doc/guide.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    char *name;
    struct node *next;
};

static struct node *push(struct node *list, const char *name)
{
    struct node *n = malloc(sizeof *n);
    if (!n)
        exit(2);
    n->name = strdup(name);            /* never freed: 6 + 5 + 6 + 6 bytes */
    n->next = list;
    return n;
}

static int checksum(const char *s)
{
    char *copy = malloc(100);          /* leaked by the early return */
    int sum = 0;
    if (!copy || strlen(s) >= 100)
        return -1;
    strcpy(copy, s);
    if (copy[0] == 'd')
        return 0;                      /* forgot free(copy) */
    for (; *s; s++)
        sum += *s;
    free(copy);
    return sum;
}

int main(void)
{
    static const char *names[] = { "alpha", "beta", "gamma", "delta" };
    struct node *list = NULL, *next;
    int i, sum = 0;

    for (i = 0; i < 4; i++)
        list = push(list, names[i]);
    for (; list; list = next) {
        sum += checksum(list->name);
        next = list->next;
        free(list);                    /* but not list->name */
    }
    printf("checksum %d\n", sum);
    return 0;
}
