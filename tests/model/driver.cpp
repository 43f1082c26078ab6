/* SPDX-License-Identifier: MIT */
/* tests/model/driver.cpp - performs an operation script of C++ allocations
   and frees, so that tests/model/cxx.py can predict, from the documented
   contract alone, what mtrace must report: the mismatched frees (a block
   freed by another family than the one that made it), the double and
   invalid frees among them, the leaks (issue 41).  driver.c's sibling for
   C++, in the library use: built with mtrace-c++ (-std=c++17), run as
   `driver-cxx SCRIPT`.  One operation a line:

     malloc SITE SLOT SIZE              calloc SITE SLOT N SIZE
     realloc SITE SLOT SIZE             free SITE SLOT
     new SITE SLOT TYPE                 new_array SITE SLOT TYPE COUNT
     new_nothrow SITE SLOT TYPE         new_array_nothrow SITE SLOT TYPE COUNT
     delete SITE SLOT TYPE              delete_array SITE SLOT TYPE
     operator_delete SITE SLOT          operator_delete_array SITE SLOT
     thread                             join
     fork                               wait

   SITE is a or b: each call is written twice below, on lines marked
   `SITE name_a` and `SITE name_b` (the model finds them by these markers).
   SLOT is a handle 0..63; a slot keeps its pointer after a free, so that a
   later free of it is a double free.  TYPE is P (24 bytes, trivial), D (40
   bytes with a destructor: new D[n] stores the count before the elements,
   an 8-byte cookie, so the pointer it gives is 8 bytes into the block) or
   A (64 bytes aligned to 64: the aligned operators).  new and new_array
   are the new-expressions, `_nothrow` with std::nothrow; delete and
   delete_array are the delete-expressions on the slot's pointer cast to
   TYPE* (the compiler picks the sized or unsized, aligned or unaligned
   operator; delete[] of D* reads the cookie, so it is only written for a
   block of new D[]); operator_delete and operator_delete_array call
   ::operator delete(p) and ::operator delete[](p) by name (unsized,
   whatever the compiler).  D's destructor touches no byte of its object:
   running it on a block of another kind is harmless.

   The ops between `thread` and its `join` run on a new thread while this
   one waits; between `fork` and its `wait` (nesting like brackets) in a
   child while the parent waits: the child returns from main at the wait,
   then the parent says on stdout `child PID of PPID: exit STATUS` (or
   `signal N`) and goes on after the wait.  Nothing else is printed.

   The driver makes no allocation of its own (no C++ library container, no
   stdio stream: every block of the process is the script's).  One guard,
   as driver.c's: a double free is only one if the address was not handed
   out again; if a free of a freed slot would free somebody else's block,
   the driver says so and leaves with status 77 before the call. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <new>

#define NSLOTS 64
#define MAXOPS 20000
#define NOINLINE __attribute__((noinline))

static volatile unsigned long destroyed;   /* D's destructor's only effect */
struct P {
    char c[24];
};
struct D {
    char c[40];
    ~D() { destroyed = destroyed + 1; }
};
struct alignas(64) A {
    char c[64];
};

/* The compiler must not see where a pointer comes from (it would warn
   about a mismatch it can prove, or assume things about it). */
static void *launder(void *p)
{
    __asm__ volatile("" : "+r"(p));
    return p;
}

/* --- the traced calls, two sites each ----------------------------------- */

static NOINLINE void *do_malloc(int site, unsigned long n)
{
    if (site == 'a')
        return malloc(n);                                   /* SITE malloc_a */
    return malloc(n);                                       /* SITE malloc_b */
}

static NOINLINE void *do_calloc(int site, unsigned long n, unsigned long size)
{
    if (site == 'a')
        return calloc(n, size);                             /* SITE calloc_a */
    return calloc(n, size);                                 /* SITE calloc_b */
}

static NOINLINE void *do_realloc(int site, void *p, unsigned long n)
{
    if (site == 'a')
        return realloc(launder(p), n);                      /* SITE realloc_a */
    return realloc(launder(p), n);                          /* SITE realloc_b */
}

static NOINLINE void do_free(int site, void *p)
{
    if (site == 'a')
        free(launder(p));                                   /* SITE free_a */
    else
        free(launder(p));                                   /* SITE free_b */
}

static NOINLINE void *do_new_P(int site)
{
    if (site == 'a')
        return new P;                                       /* SITE new_P_a */
    return new P;                                           /* SITE new_P_b */
}

static NOINLINE void *do_new_D(int site)
{
    if (site == 'a')
        return new D;                                       /* SITE new_D_a */
    return new D;                                           /* SITE new_D_b */
}

static NOINLINE void *do_new_A(int site)
{
    if (site == 'a')
        return new A;                                       /* SITE new_A_a */
    return new A;                                           /* SITE new_A_b */
}

static NOINLINE void *do_new_array_P(int site, unsigned long n)
{
    if (site == 'a')
        return new P[n];                                    /* SITE new_array_P_a */
    return new P[n];                                        /* SITE new_array_P_b */
}

static NOINLINE void *do_new_array_D(int site, unsigned long n)
{
    if (site == 'a')
        return new D[n];                                    /* SITE new_array_D_a */
    return new D[n];                                        /* SITE new_array_D_b */
}

static NOINLINE void *do_new_array_A(int site, unsigned long n)
{
    if (site == 'a')
        return new A[n];                                    /* SITE new_array_A_a */
    return new A[n];                                        /* SITE new_array_A_b */
}

static NOINLINE void *do_new_nothrow_P(int site)
{
    if (site == 'a')
        return new (std::nothrow) P;                        /* SITE new_nothrow_P_a */
    return new (std::nothrow) P;                            /* SITE new_nothrow_P_b */
}

static NOINLINE void *do_new_nothrow_D(int site)
{
    if (site == 'a')
        return new (std::nothrow) D;                        /* SITE new_nothrow_D_a */
    return new (std::nothrow) D;                            /* SITE new_nothrow_D_b */
}

static NOINLINE void *do_new_nothrow_A(int site)
{
    if (site == 'a')
        return new (std::nothrow) A;                        /* SITE new_nothrow_A_a */
    return new (std::nothrow) A;                            /* SITE new_nothrow_A_b */
}

static NOINLINE void *do_new_array_nothrow_P(int site, unsigned long n)
{
    if (site == 'a')
        return new (std::nothrow) P[n];                     /* SITE new_array_nothrow_P_a */
    return new (std::nothrow) P[n];                         /* SITE new_array_nothrow_P_b */
}

static NOINLINE void *do_new_array_nothrow_D(int site, unsigned long n)
{
    if (site == 'a')
        return new (std::nothrow) D[n];                     /* SITE new_array_nothrow_D_a */
    return new (std::nothrow) D[n];                         /* SITE new_array_nothrow_D_b */
}

static NOINLINE void *do_new_array_nothrow_A(int site, unsigned long n)
{
    if (site == 'a')
        return new (std::nothrow) A[n];                     /* SITE new_array_nothrow_A_a */
    return new (std::nothrow) A[n];                         /* SITE new_array_nothrow_A_b */
}

static NOINLINE void do_delete_P(int site, void *p)
{
    if (site == 'a')
        delete static_cast<P *>(launder(p));                /* SITE delete_P_a */
    else
        delete static_cast<P *>(launder(p));                /* SITE delete_P_b */
}

static NOINLINE void do_delete_D(int site, void *p)
{
    if (site == 'a')
        delete static_cast<D *>(launder(p));                /* SITE delete_D_a */
    else
        delete static_cast<D *>(launder(p));                /* SITE delete_D_b */
}

static NOINLINE void do_delete_A(int site, void *p)
{
    if (site == 'a')
        delete static_cast<A *>(launder(p));                /* SITE delete_A_a */
    else
        delete static_cast<A *>(launder(p));                /* SITE delete_A_b */
}

static NOINLINE void do_delete_array_P(int site, void *p)
{
    if (site == 'a')
        delete[] static_cast<P *>(launder(p));              /* SITE delete_array_P_a */
    else
        delete[] static_cast<P *>(launder(p));              /* SITE delete_array_P_b */
}

static NOINLINE void do_delete_array_D(int site, void *p)
{
    if (site == 'a')
        delete[] static_cast<D *>(launder(p));              /* SITE delete_array_D_a */
    else
        delete[] static_cast<D *>(launder(p));              /* SITE delete_array_D_b */
}

static NOINLINE void do_delete_array_A(int site, void *p)
{
    if (site == 'a')
        delete[] static_cast<A *>(launder(p));              /* SITE delete_array_A_a */
    else
        delete[] static_cast<A *>(launder(p));              /* SITE delete_array_A_b */
}

static NOINLINE void do_operator_delete(int site, void *p)
{
    if (site == 'a')
        ::operator delete(launder(p));                      /* SITE operator_delete_a */
    else
        ::operator delete(launder(p));                      /* SITE operator_delete_b */
}

static NOINLINE void do_operator_delete_array(int site, void *p)
{
    if (site == 'a')
        ::operator delete[](launder(p));                    /* SITE operator_delete_array_a */
    else
        ::operator delete[](launder(p));                    /* SITE operator_delete_array_b */
}

/* --- the script ---------------------------------------------------------- */

enum kind {
    MALLOC, CALLOC, REALLOC, FREE, NEW, NEW_ARRAY, NEW_NOTHROW, NEW_ARRAY_NOTHROW,
    DELETE, DELETE_ARRAY, OPERATOR_DELETE, OPERATOR_DELETE_ARRAY, THREAD, JOIN, FORK, WAIT, NKINDS
};
struct kind_syntax {
    const char *name;
    int site, nargs;    /* after the site: numbers, a TYPE letter where `typed` says */
    int typed;          /* the index of the TYPE argument, or -1 */
};
static const struct kind_syntax kinds[NKINDS] = {
    {"malloc", 1, 2, -1}, {"calloc", 1, 3, -1}, {"realloc", 1, 2, -1}, {"free", 1, 1, -1},
    {"new", 1, 2, 1}, {"new_array", 1, 3, 1}, {"new_nothrow", 1, 2, 1}, {"new_array_nothrow", 1, 3, 1},
    {"delete", 1, 2, 1}, {"delete_array", 1, 2, 1}, {"operator_delete", 1, 1, -1},
    {"operator_delete_array", 1, 1, -1}, {"thread", 0, 0, -1}, {"join", 0, 0, -1}, {"fork", 0, 0, -1},
    {"wait", 0, 0, -1},
};

struct op {
    enum kind kind;
    int site;                   /* 'a' or 'b' */
    int slot;
    char type;                  /* P, D or A */
    unsigned long arg[2];       /* the numbers after SLOT (and TYPE) */
    int end;                    /* thread: the index of its join, fork: of its wait (or nops) */
};
static struct op ops[MAXOPS];
static int nops;
static char script[1 << 20];

enum state { EMPTY, LIVE, FREED };
static struct {
    void *p;
    unsigned long size;
    enum state state;
    int reused;
    int cookie;         /* new D[]'s: only delete[] of D* frees it (anything else is refused: invalid) */
} slot[NSLOTS];

/* A message on stderr ("driver-cxx: line N: what"), then _exit(status). */
static void die(const char *what, int line, int status)
{
    char msg[200];
    int n = snprintf(msg, sizeof msg, "driver-cxx: line %d: %s\n", line, what);
    if (write(2, msg, (size_t)n) < 0)
        _exit(status);
    _exit(status);
}

/* The guard: a block [q, q + n) handed out; the freed slots inside it are
   no longer freed blocks of their own. */
static void handed_out(void *q, unsigned long n)
{
    for (int i = 0; i < NSLOTS; i++)
        if (q && slot[i].state == FREED && (char *)slot[i].p >= (char *)q - 64
            && (char *)slot[i].p < (char *)q + (n ? n : 1))
            slot[i].reused = 1;
}

static void set_slot(int s, void *q, unsigned long n)
{
    handed_out(q, n);
    slot[s].p = q;
    slot[s].size = n;
    slot[s].state = q ? LIVE : EMPTY;
    slot[s].reused = 0;
    slot[s].cookie = 0;
}

/* Slot s given to a free-like call (`frees`: one that frees new D[]'s
   pointer, delete[] of D*). */
static void freed(int s, int line, int frees)
{
    if (slot[s].state == FREED && slot[s].reused)
        die("the freed address was handed out again: this free would not be a double free (status 77)", line, 77);
    if (slot[s].state == LIVE && (frees || !slot[s].cookie))
        slot[s].state = FREED;
}

/* new's calls, one a line (each line's CALL marker: the caller the
   model predicts under the allocation's place with MTRACE_DEPTH). */
static NOINLINE void *make(const struct op *o)
{
    unsigned long n = o->arg[0];     /* COUNT */
    int site = o->site, array = o->kind == NEW_ARRAY || o->kind == NEW_ARRAY_NOTHROW;
    int nothrow = o->kind == NEW_NOTHROW || o->kind == NEW_ARRAY_NOTHROW;
    void *p;
    if (!array && !nothrow)
        p = o->type == 'P' ? do_new_P(site)                                /* CALL make_new_P */
            : o->type == 'D' ? do_new_D(site)                              /* CALL make_new_D */
            : do_new_A(site);                                              /* CALL make_new_A */
    else if (!array)
        p = o->type == 'P' ? do_new_nothrow_P(site)                        /* CALL make_new_nothrow_P */
            : o->type == 'D' ? do_new_nothrow_D(site)                      /* CALL make_new_nothrow_D */
            : do_new_nothrow_A(site);                                      /* CALL make_new_nothrow_A */
    else if (!nothrow)
        p = o->type == 'P' ? do_new_array_P(site, n)                       /* CALL make_new_array_P */
            : o->type == 'D' ? do_new_array_D(site, n)                     /* CALL make_new_array_D */
            : do_new_array_A(site, n);                                     /* CALL make_new_array_A */
    else
        p = o->type == 'P' ? do_new_array_nothrow_P(site, n)               /* CALL make_new_array_nothrow_P */
            : o->type == 'D' ? do_new_array_nothrow_D(site, n)             /* CALL make_new_array_nothrow_D */
            : do_new_array_nothrow_A(site, n);                             /* CALL make_new_array_nothrow_A */
    __asm__ volatile("" : : "r"(p) : "memory");     /* (no tail call) */
    return p;
}

static unsigned long size_of(char type)
{
    return type == 'P' ? sizeof(P) : type == 'D' ? sizeof(D) : sizeof(A);
}

/* One op on the calling thread. */
static NOINLINE void perform(const struct op *o, int line)
{
    int s = o->slot, site = o->site;
    void *p = slot[s].p;
    switch (o->kind) {
    case MALLOC: set_slot(s, do_malloc(site, o->arg[0]), o->arg[0]); break;                  /* CALL perform_malloc */
    case CALLOC: set_slot(s, do_calloc(site, o->arg[0], o->arg[1]), o->arg[0] * o->arg[1]); break;   /* CALL perform_calloc */
    case REALLOC: {
        enum state was = slot[s].state;
        freed(s, line, 0);         /* (the guard only: a refused realloc leaves the slot as it was) */
        slot[s].state = was;
        void *q = do_realloc(site, p, o->arg[0]);                                         /* CALL perform_realloc */
        if (q)      /* (NULL: refused as a bad realloc, the slot as it was) */
            set_slot(s, q, o->arg[0]);
        break;
    }
    case NEW: case NEW_NOTHROW: set_slot(s, make(o), size_of(o->type)); break;               /* CALL perform_new */
    case NEW_ARRAY: case NEW_ARRAY_NOTHROW:
        set_slot(s, make(o), size_of(o->type) * o->arg[0]);                                  /* CALL perform_new_array */
        slot[s].cookie = o->type == 'D';
        break;
    case FREE: freed(s, line, 0); do_free(site, p); break;                                     /* CALL perform_free */
    case OPERATOR_DELETE: freed(s, line, 0); do_operator_delete(site, p); break;               /* CALL perform_operator_delete */
    case OPERATOR_DELETE_ARRAY: freed(s, line, 0); do_operator_delete_array(site, p); break;   /* CALL perform_operator_delete_array */
    case DELETE:
        freed(s, line, 0);
        if (o->type == 'P')
            do_delete_P(site, p);                                                          /* CALL perform_delete_P */
        else if (o->type == 'D')
            do_delete_D(site, p);                                                          /* CALL perform_delete_D */
        else
            do_delete_A(site, p);                                                          /* CALL perform_delete_A */
        break;
    case DELETE_ARRAY:
        freed(s, line, o->type == 'D');
        if (o->type == 'P')
            do_delete_array_P(site, p);                                                    /* CALL perform_delete_array_P */
        else if (o->type == 'D')
            do_delete_array_D(site, p);                                                    /* CALL perform_delete_array_D */
        else
            do_delete_array_A(site, p);                                                    /* CALL perform_delete_array_A */
        break;
    default: break;
    }
    __asm__ volatile("" : : : "memory");    /* no call above is a tail call */
}

static NOINLINE void run(int from, int to);

struct span { int from, to; };
static void *thread_main(void *arg)
{
    const struct span *s = static_cast<const struct span *>(arg);
    run(s->from, s->to);
    return NULL;
}

/* The parent's side of `wait`: how child `pid` ended, on stdout. */
static void reap(pid_t pid, int line)
{
    char msg[120];
    int status, n;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid failed", line, 2);
    if (WIFSIGNALED(status))
        n = snprintf(msg, sizeof msg, "child %d of %d: signal %d\n", (int)pid, (int)getpid(), WTERMSIG(status));
    else
        n = snprintf(msg, sizeof msg, "child %d of %d: exit %d\n", (int)pid, (int)getpid(), WEXITSTATUS(status));
    if (write(1, msg, (size_t)n) < 0)
        _exit(2);
}

/* Runs ops [from, to): a thread joined before the next op; a fork's child
   runs its span (one more frame of run: the model's callers) and exits. */
static NOINLINE void run(int from, int to)
{
    for (int i = from; i < to; i++) {
        const struct op *o = &ops[i];
        if (o->kind == THREAD) {
            pthread_t t;
            struct span sp = {i + 1, o->end};
            if (pthread_create(&t, NULL, thread_main, &sp) || pthread_join(t, NULL))
                die("cannot run a thread", i + 1, 2);
            i = o->end;
        } else if (o->kind == FORK) {
            pid_t pid = fork();
            if (pid < 0)
                die("fork failed", i + 1, 2);
            if (pid == 0) {
                run(i + 1, o->end);                                                        /* CALL run_child */
                exit(0);                /* (the child's end: its report) */
            }
            reap(pid, i + 1);
            i = o->end;
        } else if (o->kind != JOIN && o->kind != WAIT) {
            perform(o, i + 1);                                                             /* CALL run_perform */
        }
    }
}

static char *token(char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
    if (!**p)
        return NULL;
    char *t = *p;
    while (**p && **p != ' ' && **p != '\t')
        (*p)++;
    if (**p)
        *(*p)++ = 0;
    return t;
}

static unsigned long number(const char *t, int line)
{
    char *end;
    unsigned long n = strtoul(t, &end, 10);
    if (!*t || *end)
        die("not a number", line, 2);
    return n;
}

static void parse_line(char *text, int line)
{
    char *p = text, *t = token(&p);
    int k;
    if (!t || *t == '#')
        return;
    for (k = 0; k < NKINDS && strcmp(t, kinds[k].name); k++)
        ;
    if (k == NKINDS)
        die("unknown operation", line, 2);
    if (nops == MAXOPS)
        die("too many operations", line, 2);
    struct op *o = &ops[nops];
    memset(o, 0, sizeof *o);
    o->kind = (enum kind)k;
    if (kinds[k].site) {
        t = token(&p);
        if (!t || t[1] || (*t != 'a' && *t != 'b'))
            die("the site must be a or b", line, 2);
        o->site = *t;
    }
    for (int i = 0, n = 0; i < kinds[k].nargs; i++) {
        if (!(t = token(&p)))
            die("missing argument", line, 2);
        if (i == 0)
            o->slot = (int)(number(t, line) % NSLOTS);
        else if (i == kinds[k].typed) {
            if (t[1] || !strchr("PDA", *t))
                die("the type must be P, D or A", line, 2);
            o->type = *t;
        } else
            o->arg[n++] = number(t, line);
    }
    if (token(&p))
        die("too many arguments", line, 2);
    nops++;
}

static void read_script(const char *name)
{
    int fd = open(name, O_RDONLY), line = 1;
    size_t n = 0;
    ssize_t r;
    if (fd < 0)
        die("cannot open the script", 0, 2);
    while ((r = read(fd, script + n, sizeof script - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    if (n >= sizeof script - 1)
        die("script too long", 0, 2);
    for (char *p = script, *nl; *p; p = nl, line++) {
        nl = strchr(p, '\n');
        if (nl)
            *nl++ = 0;
        else
            nl = p + strlen(p);
        parse_line(p, line);
    }
}

/* `thread` runs to its `join`, `fork` to its `wait` (counted as brackets);
   without one, to the end. */
static void match_spans(void)
{
    for (int i = 0; i < nops; i++) {
        int j, open = 1;
        if (ops[i].kind == THREAD) {
            for (j = i + 1; j < nops && ops[j].kind != JOIN; j++)
                ;
            ops[i].end = j;
        } else if (ops[i].kind == FORK) {
            for (j = i + 1; j < nops; j++)
                if ((open += (ops[j].kind == FORK) - (ops[j].kind == WAIT)) == 0)
                    break;
            ops[i].end = j;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: driver-cxx SCRIPT", 0, 2);
    read_script(argv[1]);
    match_spans();
    run(0, nops);                                                                          /* CALL main_run */
    return 0;
}
