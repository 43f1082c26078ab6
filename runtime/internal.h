/* SPDX-License-Identifier: MIT */
/* runtime/internal.h - the runtime's shared state: its types and rules.

   Owns: the limits, the block, site, segment and suppression records, and
   struct mtrace_state, the one state of the process (runtime/state.c
   defines it; `mt` names it everywhere).

   The rules every file keeps:
   - One lock (mtrace_lock) guards everything in the state that changes
     after start: the block tables, the site and stack tables, the totals
     and the appending end of the writer's ring.  Records are appended
     under it, which is what makes RECNO gapless and every TOTAL
     consistent with the record order.  Read without it: `state`
     (atomic), `nsegs` and a segment's `traced` (published with release
     stores, read with acquire loads), and the ring's consumer side: the
     text buffer, RECNO and MAXRSS as text, `tail` and `done`, owned by the
     one consumer, the writer thread or, with none, the lock's holder
     (runtime/ring.c).
   - What a signal handler may run (the tracer may be interrupted anywhere,
     and the program's handler may allocate): the output helpers of
     runtime/out.c, mtrace_ring_drain, and the exit paths of runtime/life.c
     (mtrace_on_signal, mtrace_write_out).  A traced call made by a handler
     that interrupted the tracer on its own thread passes through untraced
     (mtrace_pending.busy).
   - The tracer's memory comes from mmap (mtrace_pages), never from the
     allocator it watches. */
#ifndef MTRACE_INTERNAL_H
#define MTRACE_INTERNAL_H

enum { MTRACE_OFF, MTRACE_STARTING, MTRACE_READY, MTRACE_DONE };
#define MTRACE_BUFSIZE (1 << 20)    /* the trace's text buffer; one write(2) when half full */
#define MTRACE_NAMEMAX 4096         /* longest FUNC or FILE written to the trace */
#define MTRACE_PATHMAX 4096         /* longest trace file name, with its NUL */
#define MTRACE_RSS_EVERY 1024       /* MAXRSS is refreshed every 1024 records... */
#define MTRACE_RSS_BIG (1 << 20)    /* ...and after every operation of >= 1 MiB */
#define MTRACE_FLUSH_MS 100         /* records wait in memory at most this long while
                                       the program writes (SIGKILL loses only them) */
#define MTRACE_ROWS 20              /* summary rows before "N more sites" */
#define MTRACE_RING_BYTES (1 << 20) /* the records on their way to the writer (ring.c) */

/* A block the program got from a traced call, in 16 bytes: its address,
   and one word holding its site (the low 20 bits), a freed flag, and its
   size, or once freed the site of the free and the age of the free (its
   epoch, see mtrace_forget_oldest).  The entry stays as a tombstone until
   the C library hands the address out again, so a second free can name
   both places, or until MTRACE_FREED_MAX newer tombstones push it out. */
struct mtrace_block {
    uintptr_t addr;             /* hidden: MTRACE_HIDE(address); 0 for an empty slot */
    uint64_t word;
};
/* The tracer's memory holds no pointer into a live block: a leak checker
   that scans memory for pointers (Valgrind's Memcheck, LeakSanitizer)
   must find the program's lost blocks lost, not reachable from the
   tracer's tables.  So the tables keep each address complemented, which
   never looks like a pointer into the heap (and is never 0), and costs
   one instruction where an address is looked up or read back. */
#define MTRACE_HIDE(a) (~(uintptr_t)(a))
#define MTRACE_SITE_BITS 20
#define MTRACE_MAXSITES ((1u << MTRACE_SITE_BITS) - 1)
#define MTRACE_FREED ((uint64_t)1 << MTRACE_SITE_BITS)
#define MTRACE_EPOCH_SHIFT (2 * MTRACE_SITE_BITS + 1)     /* a tombstone's epoch: */
#define MTRACE_EPOCH_MASK ((1u << (64 - MTRACE_EPOCH_SHIFT)) - 1)   /* its top 23 bits */
#define MTRACE_EPOCHS 16            /* MTRACE_FREED_MAX / MTRACE_EPOCHS frees an epoch */
#define MTRACE_FREED_DEFAULT (1 << 20)  /* tombstones kept: about 21 MiB of table at most */

/* Blocks by address, in two levels (see "---- blocks ----"): a directory
   of the 64 KiB ranges of addresses that hold blocks, and per range a
   small table of its blocks' entries, its bucket. */
#define MTRACE_RANGE_BITS 16
#define MTRACE_CLASSES 32           /* bucket sizes: 2, 3, 4, 6, 8, ... 98304 */
struct mtrace_range {
    uint64_t key;               /* range number << 23 | entries in use << 6 | hashed | class */
    struct mtrace_block *slots; /* its bucket; 0 in an empty directory slot */
};

/* The ranges an epoch's frees left tombstones in (range number + 1, open
   addressing, at most half full; an epoch with more ranges than that is
   not listed), so that forgetting that epoch reads those ranges only
   (mtrace_forget_oldest).  MTRACE_SETS epochs are listed, twice those a
   table keeps. */
#define MTRACE_SET_SLOTS 2048
#define MTRACE_SETS 32
struct mtrace_epoch_set {
    uint64_t epoch;             /* the epoch listed (its number + 1); 0: none */
    size_t n;                   /* ranges in it */
    uint64_t range[MTRACE_SET_SLOTS];
};

struct mtrace_table {
    struct mtrace_range *dir;    /* open addressing, linear probing, at most half full */
    size_t n, nranges;          /* directory slots, ranges in it */
    size_t nlive, nfreed;       /* entries: live blocks, tombstones */
    unsigned epoch;             /* the epoch new tombstones get, */
    size_t epoch_left;          /* ...for this many more frees */
    size_t forgotten;           /* tombstones forgotten for MTRACE_FREED_MAX */
    uint64_t epoch_no;          /* epochs begun before the current one */
    uint64_t clean_below;       /* no tombstone left of the epochs before this one */
    uint64_t last_listed;       /* the range (+ 1) last listed in the current epoch */
    struct mtrace_epoch_set *sets;  /* MTRACE_SETS, from half the budget on; else 0 */
    size_t largest;             /* the largest block it ever held (mtrace_holder) */
    struct mtrace_block *spare[MTRACE_CLASSES];    /* buckets given back, by class */
    char *cut, *cut_end;        /* the mapped space new buckets are cut from */
    size_t mapped;              /* bytes mapped for buckets so far */
    struct mtrace_table *inherited; /* a forked child's: its parent's table as it was
                                   at fork, read, never grown (mtrace_inherit) */
};

/* Per-site figures, indexed by mtrace_site.index.  `id` is the number the
   trace uses, given when the site first appears in a record. */
struct mtrace_sitestat {
    const char *func, *file;
    int line;
    unsigned id;
    int pool;                   /* its blocks come from MTRACE_MALLOCLIKE */
    size_t live, peak, allocs;
    size_t peak_blocks;         /* live blocks when live bytes first reached `peak` */
    size_t total_bytes;         /* bytes it allocated in all */
    size_t temporary;           /* blocks freed before any other allocation (heaptrack's
                                   "temporary": the cheapest waste to remove) */
    size_t nlive;               /* live blocks */
    size_t reach, reach_blocks; /* of those, still reachable at exit (MTRACE_LEAK_CHECK) */
    size_t at_peak;             /* live bytes at the last global peak, once */
    unsigned long seen;         /* ...its peak number (see mtrace_count) */
    /* With MTRACE_DEPTH, each distinct chain of callers of a site is an
       entry of its own (a "stack"), counted like a site and also through
       its site: `parent` is the site, `frames` the callers' return
       addresses, innermost first, and `id` the trace's SID. */
    unsigned parent, nframes;
    const uintptr_t *frames;
    unsigned last;              /* a site's stack used last (loops repeat it) */
    int renamed;                /* named at exit by its caller's address (callers.c) */
    uintptr_t ret;              /* where a call made there returns (its first), 0 if
                                   unknown: its file's directory, at exit (names.c) */
};

/* An executable segment of a loaded module, for the call stacks: frames
   are trusted (followed further) only in the segments of traced code. */
struct mtrace_seg {
    uintptr_t lo, hi, bias;
    const char *path;
    int traced;                 /* holds traced code with frame pointers */
    int written;                /* its "#map" is in the trace */
};
#define MTRACE_MAXDEPTH 64      /* MTRACE_DEPTH's ceiling (Massif's default is 30) */
#define MTRACE_MAXSEGS 1024
#define MTRACE_MAXFRAMED 256    /* modules that say they keep frame pointers */

/* The callers of one traced call, walked before the lock is taken. */
struct mtrace_sym;
struct mtrace_caller;
struct mtrace_chain {
    unsigned n;
    uintptr_t ret[MTRACE_MAXDEPTH - 1];
};

/* A suppression: fun:GLOB, src:GLOB or src:GLOB:LINE, from line `at` of
   the file; what it matched at exit. */
struct mtrace_supp {
    const char *fun, *src;
    int line;                   /* 0: any */
    unsigned at;
    size_t bytes, blocks;
};

/* The records of level 1 on their way from the program's threads to the
   writer (runtime/ring.c): a ring of entries, binary for the operations,
   text for the rest, in RECNO order (appended under the lock).  Positions
   count bytes from the start, for ever: the entry at position p is at
   mem[p % MTRACE_RING_BYTES].  Each side's words on cache lines of their
   own: the program's threads write `fill` and `head` on every record, the
   writer `tail`. */
struct mtrace_ring {
    char *mem __attribute__((aligned(64)));    /* MTRACE_RING_BYTES, mapped at the first record */
    size_t fill;                /* where the next entry goes (lock held) */
    size_t tail_seen;           /* `tail` as last read: the free space known */
    int writer;                 /* 0: none (records formatted in the program's thread),
                                   1: to start after this call, 2: starting, 3: running */
    int tid;                    /* the writer's thread id, 0 for none (mtrace_ring_stop) */
    size_t head __attribute__((aligned(64)));  /* entries before it are complete */
    int failed;                 /* the writer gave the trace up (mtrace_warn) */
    int drain;                  /* a thread waits for everything before `head` to be out */
    int stop;                   /* the writer is to end (its `writer` becomes 0) */
    int sleeping __attribute__((aligned(64)));  /* the writer sleeps on this word: wake it */
    size_t tail __attribute__((aligned(64)));  /* entries before it are formatted */
    size_t done;                /* ...and out in the file (or given up) */
    long first_ms;              /* when the oldest text not yet written was formatted */
    long long looked_ns;        /* the writer's last look that found no entry waiting:
                                   those appended since came after it (#time) */
};

/* A block in the heap check's quarantine (runtime/guard.c): freed by the
   program, filled, held back from the C library.  Addresses hidden as the
   block table's are (MTRACE_HIDE). */
struct mtrace_held {
    uintptr_t raw, p;           /* the C library's block, the program's pointer */
    size_t n;                   /* the size the program asked for */
    unsigned alloc, freed;      /* entries (sites or stacks) of its allocation and free */
};

struct mtrace_state {
    int fd;                     /* the trace, or -1 (set by mtrace_init) */
    int level;                  /* the process's: 1, 2, 3; 0 before start */
    int exiting, destructed;    /* exit() has begun; our destructor ran */
    int finish_queued;          /* the report is queued or done */
    void (*owner)(void);        /* mtrace_init of the copy that started */
    size_t total, max, overhead, maxoverhead, nr, startrss, maxrss;   /* pmtrace's */
    /* The lock and the state word each on a cache line of its own: every
       call reads the state without the lock, and with several threads
       the lock's line goes back and forth between the cores. */
    int lock __attribute__((aligned(64)));
    int lock_starving;          /* threads that waited long for it (mtrace_unlock) */
    int state __attribute__((aligned(64)));
    int interposed __attribute__((aligned(64)));
    int child, trace_broken, incomplete, exit_status;
    int status_unknown;         /* exit_status is not known: main returned, on a
                                   C library without on_exit (mtrace_at_exit) */
    int tracing;                /* level 1 and the trace not given up: records go to buf */
    struct mtrace_pending *forking;     /* the thread in fork(): it holds the lock */
    size_t passed;              /* calls from signal handlers let through untraced */
    unsigned long peak_no;      /* global peaks so far */
    size_t peak_recno;          /* RECNO of the record that made the peak */
    uintptr_t newest;           /* the block allocated last, until it is freed, inverted */
    size_t temporary;           /* frees of `newest`: temporary allocations */
    size_t sizes[65];           /* requests of 0 bytes, then of [2^(k-1), 2^k) bytes */
    struct mtrace_supp *supp;   /* MTRACE_SUPPRESS's patterns */
    unsigned nsupp;
    const char *supp_file;
    size_t budget;              /* MTRACE_MAX_HEAP, 0 for none */
    const char *budget_text;
    size_t leaked, leaked_blocks, suppressed, suppressed_blocks;   /* at exit */
    size_t reachable;           /* live at exit, not suppressed, still reachable */
    int over_budget;
    int reachable_mode;         /* MTRACE_LEAK_CHECK=reachable */
    struct mtrace_gone *gone;   /* threads that ended, their stacks (reach.c): MTRACE_GONE_MAX, */
    unsigned ngone, gone_next;  /* ...mapped at the first; the slot the next one takes */
    pthread_key_t thread_key;   /* its destructor marks a thread ended (reach.c), */
    int thread_key_state;       /* ...once made: 0 not yet, 1 being made, 2 made, 3 failed */
    size_t leak_rows;           /* MTRACE_LEAK_RECORDS: records of each kind printed, 0 all */
    int trace_written;          /* the trace got its tail: the report shows how to draw it */
    int fifo;                   /* the trace is a FIFO: its reader may go away */
    int keep_going;             /* MTRACE_DOUBLE_FREE=continue */
    int forked;                 /* this process has forked: name it */
    int nofollow;               /* the trace name is the default one */
    long rank;                  /* MPI rank, -1 outside MPI */
    unsigned long long dev, ino;    /* the trace file, to check our descriptor (64-bit inodes on 32-bit too) */
    int pid;
    struct mtrace_table heap;       /* blocks from the C library */
    struct mtrace_table pool;       /* blocks of the program's own allocators
                                   (MTRACE_MALLOCLIKE): they may lie inside a
                                   heap block, even at its address */
    struct mtrace_sitestat *sites;      /* [0] unused */
    unsigned nsites, maxsites, nids;
    unsigned *sitehash, nsitehash;
    int depth;                  /* MTRACE_DEPTH: frames per stack, the site one of
                                   them; 0: no stacks */
    unsigned *stackhash, nstackhash, nstacks, nsids;
    uintptr_t *framespace, *framespace_end;
    struct mtrace_seg *segs;    /* MTRACE_MAXSEGS, published by nsegs */
    unsigned nsegs;
    char *exe;                  /* the program's path, for its "#map" */
    const char *alloc_fns;      /* MTRACE_ALLOC_FN, with stacks */
    int caller_frames;          /* MTRACE_FRAME_POINTERS=1: the modules of calls no macro
                                   announced keep frame pointers (callers.c) */
    uintptr_t framed[MTRACE_MAXFRAMED]; /* an address in each module whose build said it
                                   keeps frame pointers (mtrace_frames_here); 0 ends */
    struct mtrace_caller *callers;  /* sites by return address (callers.c) */
    struct mtrace_sym *syms;    /* names of code addresses, for a report */
    unsigned nsyms;
    long addr2line_until;       /* when the wait for addr2line ends (ms) */
    int addr2line_dead;         /* it did not answer in time: no more */
    char *names, *names_end;    /* free space for the sites' names */
    unsigned nsorted;           /* length of mtrace_sorted_sites' result */
    size_t double_frees, invalid_frees;
    /* MTRACE_CHECK=heap (runtime/guard.c), decided at start, never changed */
    int check;                  /* guards, fills and the quarantine are on */
    size_t check_every, check_calls;    /* MTRACE_CHECK_EVERY=N: a whole check every N calls */
    size_t heap_errors;         /* damaged blocks reported */
    size_t (*libc_usable)(void *);      /* the C library's malloc_usable_size */
    struct mtrace_held *held;   /* the quarantine: a ring of `held_cap` (mapped at its first block), */
    size_t held_cap, held_first, held_n;    /* ...the oldest's slot, the blocks in it, */
    size_t held_bytes, held_budget;     /* ...their bytes (the C library's), MTRACE_QUARANTINE */
    size_t freed_max;           /* MTRACE_FREED_MAX: tombstones kept per table */
    char *path;                 /* MTRACE_PATHMAX bytes, and buf (level 1): mapped at
                                   start (not in the state: the one-line use would
                                   keep a copy of the state's space per file) */
    char *report_dir;           /* MTRACE_REPORT relative: the working directory at
                                   start (MTRACE_PATHMAX bytes, mapped), 0 otherwise */
    size_t bufsize;             /* bytes mapped at buf */
    char *buf;
    void *zst;                  /* the compressor (runtime/zstd.c), 0: plain */
    int opened;                 /* the trace was opened (its first record) */
    int no_writer;              /* MTRACE_WRITER=0: records formatted in the program's thread */
    struct mtrace_ring ring;
    /* The formatter's (the writer, or with none the lock's holder): on cache
       lines of their own, away from the figures every call writes. */
    volatile size_t len __attribute__((aligned(64)));   /* formatted bytes in buf, */
    volatile size_t flushed;    /* ...of which written */
    char recno_text[24], rss_text[24];  /* RECNO and MAXRSS as they are written */
    unsigned recno_len, rss_len;
    long flush_ms;              /* when the buffer was last written (monotonic, ms) */
    long long clock_start;      /* the trace's clock at 0 (mtrace_now_ns), */
    long long clock_wall;       /* ...and the wall clock then, ns since 1970 (#clock) */
    long long clock_said;       /* the last #time's reading (mtrace_now_ns) */
    long clock_said_ms;         /* a program's thread formatting: the coarse ms of its last */
    char pad_[64];              /* (nothing hot after it on the formatter's line) */
};


/* A size no C library can allocate: the process's malloc, when it is our
   interposer, answers it with the state's address (see
   mtrace_probe_interposer), but only when errno is MTRACE_WHO_ERRNO
   too, which the probe sets and no C library does: a program's own
   malloc((size_t)-4096) gets NULL and ENOMEM, as from the C library,
   never the tracer's memory.  (errno: the one place every copy of the
   runtime in a process shares without a symbol of its own.) */
#define MTRACE_WHO_ASKS ((size_t)-1 - 4095)
#define MTRACE_WHO_ERRNO 0x6d747263     /* "mtrc" */

#endif
