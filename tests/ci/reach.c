/* SPDX-License-Identifier: MIT */ /* Reachable or lost at exit, as Memcheck sees it: a cache held by a global
   (still reachable), a list whose head is lost (lost), a cycle (lost), and
   a block only another thread's stack points to (still reachable).  No
   stdio: every heap block is traced. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node { struct node *next; char pad[24]; };
static char *cache;
static volatile int ready;

static void *holder(void *arg)
{
    char *volatile mine = malloc(64);
    (void)arg;
    memset(mine, 0, 64);
    ready = 1;
    for (;;)
        pause();
    return 0;
}

static void lose_a_list(void)
{
    struct node *head = 0, *n;
    int i;
    for (i = 0; i < 3; i++) {
        n = malloc(sizeof *n);
        memset(n, 0, sizeof *n);
        n->next = head;
        head = n;
    }
}

static void lose_a_cycle(void)
{
    struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->next = b;
    b->next = a;
}

int main(void)
{
    pthread_t t;
    cache = malloc(100);
    memset(cache, 1, 100);
    lose_a_list();
    lose_a_cycle();
    pthread_create(&t, 0, holder, 0);
    while (!ready)
        usleep(1000);
    write(1, "done\n", 5);
    exit(0);
}
