/* SPDX-License-Identifier: MIT */
/* tests/writer/writer.c - the record made off the program's thread.

   writer threads     the names of this process's threads after its first
                      allocation, sorted ("mtrace writer" at level 1)
   writer pool        the same after a first record that is a pool's
                      block (MTRACE_MALLOCLIKE), no malloc before it
   writer fork        the same in a forked child, after its own first
                      allocation (no writer there); the parent waits
   writer busy N T    N allocations and frees over 300 sites in T threads,
                      with reallocs: a ring that wraps many times, text
                      records ("@") among the operations
   writer burst       20,000 records at once, then the trace's line count
                      read back while the program still runs: 0 (nothing
                      is written in the program's thread before 100 ms
                      pass) or all of them (the writer caught up)
   writer huge        a pool's block of 2^40 + 3 bytes, a malloc, 256 more
                      blocks of 2^40 (MTRACE_MALLOCLIKE: nothing
                      allocated): TOTAL and SITE past 32 and 48 bits */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void print_threads(const char *who)
{
    char names[64][32], path[300];
    int n = 0, i;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 64) {
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if ((f = fopen(path, "r"))) {
            if (fgets(names[n], sizeof names[n], f)) {
                names[n][strcspn(names[n], "\n")] = 0;
                if (strcmp(names[n], "mtrace writer"))
                    strcpy(names[n], "a thread of the program");
                n++;
            }
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (i = 0; i < n; i++)
        printf("%s: %s\n", who, names[i]);
    fflush(stdout);
}

#define SITE(k) case k: p = malloc(16 + k); break;
static void *one_of_300(int k)
{
    void *p = 0;
    switch (k % 10) {
    SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9)
    }
    return p;
}

struct job { int n, seed; };
static void *busy(void *arg)
{
    struct job *j = (struct job *)arg;
    void *keep[64] = { 0 };
    int i;
    unsigned r = (unsigned)j->seed;
    for (i = 0; i < j->n; i++) {
        int slot = (int)((r = r * 1103515245u + 12345u) >> 16) % 64;
        free(keep[slot]);
        keep[slot] = one_of_300((int)(r >> 8) % 300);
        if (i % 7 == 0)
            keep[slot] = realloc(keep[slot], 100 + (r >> 20) % 300);
    }
    for (i = 0; i < 64; i++)
        free(keep[i]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "threads";
    /* (the pool mode's first record must be the annotation's) */
    void *first = strcmp(mode, "pool") ? malloc(10) : 0;
    if (!strcmp(mode, "threads"))
        print_threads("parent");
    else if (!strcmp(mode, "pool")) {
        static char pool[64];
        MTRACE_MALLOCLIKE(pool, sizeof pool);
        print_threads("parent");
        MTRACE_FREELIKE(pool);
    }
    else if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            void *mine = malloc(20);
            print_threads("child");
            free(mine);
            free(first);
            return 0;
        }
        waitpid(pid, 0, 0);
    } else if (!strcmp(mode, "busy")) {
        int n = argc > 2 ? atoi(argv[2]) : 100000, t = argc > 3 ? atoi(argv[3]) : 1, i;
        pthread_t th[16];
        struct job jobs[16];
        for (i = 0; i < t && i < 16; i++) {
            jobs[i].n = n / t;
            jobs[i].seed = i + 1;
            pthread_create(&th[i], 0, busy, &jobs[i]);
        }
        for (i = 0; i < t && i < 16; i++)
            pthread_join(th[i], 0);
        printf("busy: done\n");
    } else if (!strcmp(mode, "burst")) {
        int i;
        char line[256];
        long lines = 0;
        FILE *f;
        for (i = 0; i < 10000; i++)
            free(malloc(8));
        usleep(400000);
        if ((f = fopen(getenv("MTRACE"), "r"))) {
            while (fgets(line, sizeof line, f))
                lines += line[0] == '+' || line[0] == '-';
            fclose(f);
        }
        printf("burst: %ld of 20001 records in the file after 0.4 s\n", lines);
    } else if (!strcmp(mode, "huge")) {
        static char pool[257];
        void *p;
        int i;
        MTRACE_MALLOCLIKE(pool, ((size_t)1 << 40) + 3);
        p = malloc(5);
        for (i = 1; i <= 256; i++)
            MTRACE_MALLOCLIKE(pool + i, (size_t)1 << 40);
        free(p);
        for (i = 0; i <= 256; i++)
            MTRACE_FREELIKE(pool + i);
    }
    free(first);
    return 0;
}
