/* SPDX-License-Identifier: MIT */
/* trace.h - a trace read: the parser that mtrace2massif, mtrace-diff and
 * mtrace-top share.  parse.c turns the records of one pass into events and gives
 * them to the heap model the tool sets in struct conv's 'model'
 * (mtrace2massif's Massif accounting, m2m_heap.c; mtrace-diff's per-site
 * counts, diff_trace.c): it calls the model only through those pointers.
 * stack.c reads the call stacks' records ("#depth", "#map", "#stack")
 * and makes them Massif's tree of contexts, labelled by sym.c
 * (addr2line).  struct conv is one conversion whole: the parser's state,
 * the model's counts, and mtrace2massif's snapshots and samples, which
 * the parser does not touch (but for asking whether there are samples).
 * segments.c joins a trace written in segments (MTRACE_TRACE_MAX) and
 * reads its checkpoints.
 * Owns: the records' syntax and checks, the call stacks and their labels,
 * the segments.
 * May use: common/ (tool.h).  Used by: mtrace2massif/, mtrace-diff/,
 * mtrace-top/.
 */
#ifndef TRACE_H
#define TRACE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>

#include "../common/tool.h"

/* Sizes above this are rejected so that heap + extra + time sums of a sane
 * trace never come near 2^63 (Massif prints time as a signed 64-bit value). */
#define MAX_BYTES    (UINT64_C(1) << 56)

/* Curves in the gnuplot script besides total, heap and RSS. */
#define GP_MAX_SITES 12

/* Every buffer the parser reads has PAD readable bytes after its end (the
 * number parser reads eight bytes at a time). */
#define PAD 16

/* The longest chain a trace may give ("#depth N"): far above any use,
 * and it bounds the memory of one "#stack" record. */
#define TRACE_DEPTH_MAX 4096

struct opts {
    int time_bytes;             /* --time-unit=B (1) or i (0) */
    int time_ms;                /* --time-unit=ms (time_bytes 0): the #time records */
    unsigned max_snapshots;     /* 10..1000 */
    unsigned detailed_freq;     /* 1..1000000 */
    double threshold;           /* 0..100, percent */
    unsigned heap_admin;        /* 0..1024 */
    double peak_inaccuracy;     /* 0..100, percent */
    unsigned depth;             /* 1..DEPTH_MAX: tree levels below the root */
    const char **alloc_fns;     /* --alloc-fn=NAME, n_alloc_fns of them */
    size_t n_alloc_fns;
    const char *addr2line;      /* the program, or NULL: no symbolization */
    const char *gnuplot;        /* --gnuplot=FILE or NULL */
    const char *html;           /* --html=FILE or NULL */
    FILE *html_part;            /* several traces, one page: this trace's data
                                   goes here, not to a page of its own */
    unsigned html_share;        /* the traces sharing that page (0: alone) */
    char desc[4096];            /* the Massif-like options, for desc: */
    int quiet;                  /* no warnings (fuzzing) */
};

struct site {
    uint64_t live;              /* live requested bytes */
    uint64_t blocks;            /* live blocks */
    uint64_t live0, blocks0;    /* ... of them with no known stack (SID 0) */
    uint64_t peak;              /* highest live (pass 1) */
    int seen;                   /* allocated from at least once */
    char *label;                /* "func (file:line)", escaped */
    size_t flen;                /* length of its "func" */
    char *func;                 /* FUNC decoded: --alloc-fn and main match it */
    int pool;                   /* "#pool ID": its blocks have no slop */
    uint32_t node;              /* its node in the tree, for SID 0 */
};

/* "#map LO HI BIAS PATH": code of module PATH at [lo, hi). */
struct map { uint64_t lo, hi, bias; char *path; };

/* A return address of a "#stack", as Massif shows it (the address minus
 * one: the call), in the map that held it when the stack was written. */
struct frame {
    uint64_t addr;
    uint32_t map;               /* index + 1 in maps, 0: in none */
    char *fn;                   /* its function (the outermost one if
                                   inlined), NULL if unknown */
    char *label;                /* Massif's label(s): one line per inlined
                                   function, innermost first */
};

/* "#stack SID ID ADDR...": site ID called from frames pool[first..+n). */
struct stack {
    uint64_t site;
    uint32_t first, n;
    uint64_t live, blocks;      /* this pass */
    uint32_t node;              /* its context in the tree */
};

/* A node of Massif's allocation tree: node 0 is the root (the allocation
 * functions); a node is a site or a frame below its parent. */
struct node {
    uint32_t parent, child, next;   /* first child, next sibling */
    uint32_t site;              /* site ID, or 0: frames[frame] */
    uint32_t frame;
    uint64_t order;             /* Massif's tie-break: the code address
                                   (a site's: its ID) */
    uint64_t bytes;             /* live bytes of the contexts under it */
    int seen;                   /* allocated under at least once (pass 2) */
};

/* The call stacks of a trace, and the tree made of them. */
struct stacks {
    unsigned depth;             /* "#depth N", 0: none */
    struct map *maps;
    size_t nmaps, cap_maps;
    uint32_t *active;           /* the maps in force, sorted by lo: index+1 */
    size_t nactive;
    struct frame *frames;
    size_t nframes, cap_frames;
    uint32_t *hash;             /* (addr, map) -> frame index + 1 */
    size_t nhash;
    uint32_t *pool;             /* the stacks' frame indexes */
    size_t npool, cap_pool;
    struct stack *st;
    size_t n, cap;
    struct node *nodes;
    size_t nnodes, cap_nodes;
};

/* In-place shrunk blocks: Massif keeps the old usable size of a block that
 * realloc shrank in place, so its slop is larger than the size alone says.
 * The trace has no block identities, so such blocks are remembered by
 * (site, size) and matched last-in first-out when a block of that site and
 * size is released.  Chained hash, entries linked through 'next'. */
struct abn_entry { uint64_t site, size, excess; uint32_t next; };
struct abn {
    struct abn_entry *e;
    uint32_t *head;             /* bucket -> entry+1, 0 = empty */
    uint32_t nbuckets, n, cap, free_list; /* free_list: entry+1 */
    uint64_t dropped;
};

struct gp_point { uint64_t x, heap, total, rss; uint64_t site[GP_MAX_SITES]; };

/* What one pass over the trace builds: the parser's and the heap model's
 * state.  begin_pass() zeroes it, and nothing else resets it. */
struct pass {
    int n;                      /* 1 or 2 */
    /* parser */
    uint64_t nrec;              /* operation records so far */
    uint64_t prev_total;
    uint64_t rss, rss0;
    int have_rss;               /* MAXRSS seen (Basilisk may omit it) */
    uint64_t tail_first_line;   /* first non-record line not yet followed */
    int tail_n;                 /* by a record; 0 if none */
    int pend;                   /* a '<' waiting for a possible '>' */
    uint64_t pend_site, pend_sid, pend_size, pend_rec;
    size_t ndef;                /* '@' records seen */
    size_t nstacks;             /* '#stack' records seen */
    int cp;                     /* a checkpoint: 1 its #live records, 2 after */
    uint64_t cp_bytes, cp_blocks;   /* what its #live records gave */
    int truncated_line;         /* last line had no newline */
    uint64_t time_ns;           /* the last "#time NS": the trace's clock */
    uint64_t clock_ns;          /* "#clock WALL": its 0 by the wall clock */
    int have_time, have_clock;
    /* heap model, as Massif counts */
    uint64_t heap, extra, nblocks;
    uint64_t time_b, time_i;
    uint64_t ev;                /* events (alloc, free, realloc) so far */
    uint64_t max_total, max_heap;
    struct abn abn;
    /* pass 1: the first peak check at the largest total */
    uint64_t best_check, best_check_ev;
};

/* A checkpoint's live blocks are replayed one by one: a bound, so that a
 * corrupt one cannot make the replay run for hours (2^28 blocks: a heap
 * of 4 GiB at the least; 10 million take a second to replay). */
#define CHECKPOINT_BLOCKS_MAX (1 << 28)

/* "#checkpoint SEG RECNO TOTAL BLOCKS PEAK PEAK_RECNO PEAK_NS NS": a
 * segment's opening (MTRACE_TRACE_MAX, segments.c). */
struct trace_checkpoint {
    uint64_t seg;               /* its number, 2 or more (0: no checkpoint) */
    uint64_t recno;             /* the RECNO of the first record after it */
    uint64_t total, blocks;     /* live then */
    uint64_t peak, peak_recno, peak_ns;     /* TOTAL's highest before it, when */
    uint64_t ns;                /* the #time then */
};

struct kid;

/* The snapshot policy (pass 2): Massif's array and its clock.
 * policy_init() sets it up. */
struct policy {
    struct snap *snaps;         /* max_snapshots slots */
    unsigned next_i;
    int64_t min_interval, earliest;
    unsigned since_detailed;
    uint64_t peak_total;
    struct kid *scratch;        /* children being ordered, for trees */
    struct tnode *build;        /* the tree being made */
    size_t build_cap;
    int ended;                  /* after the last record: nothing to cull for */
};

/* The gnuplot curves' samples (pass 2). */
struct samples {
    int n;                      /* sites plotted */
    uint64_t ids[GP_MAX_SITES];
    struct gp_point *pt;        /* NULL: no --gnuplot */
    size_t len;
    uint64_t next, step;
    struct gp_point peak, lo, hi;
    int have_peak, open;
};

/* One trace's conversion. */
struct conv {
    struct opts o;
    struct tool_err e;          /* name, line, where errors unwind to */
    const struct model *model;  /* what the parser's events go to */
    char *cmd;                  /* "#cmd": the program's command line, decoded */
    /* sites, index = ID - 1: labels from pass 1; live bytes per pass */
    struct site *sites;
    size_t nsites, cap_sites;
    struct stacks s;            /* pass 1 reads them, the tree is made after */
    struct pass p;
    /* what pass 1 found: its counts, which pass 2 must see again, and
     * where the exact peak goes */
    uint64_t events1, nrec1;
    uint64_t peak_ev;           /* event whose peak check is forced */
    int peak_at_end;            /* ... or a check after the last record */
    struct policy sn;
    struct samples gp;
    struct html *h;             /* --html: the page's figures, or NULL */
    int truncated;              /* no tail or last line cut: the run's summary says so */
    struct trace_checkpoint cp; /* the trace starts at this checkpoint (seg 0: none) */
};

/* A block of `size` bytes comes to (or, sign -1, leaves) context (id, sid):
 * the live figures of its site and of its stack (SID 0: the site alone).
 * The heap model (m2m_heap.c) and mtrace-diff's (diff_trace.c) both count
 * so; the peak is the caller's. */
static inline void ctx_count(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, int sign)
{
    struct site *s = &c->sites[id - 1];
    uint64_t *live = sid ? &c->s.st[sid - 1].live : &s->live0;
    uint64_t *blocks = sid ? &c->s.st[sid - 1].blocks : &s->blocks0;
    if (sign > 0) {
        s->live += size, s->blocks++, *live += size, ++*blocks;
        s->seen = 1;
        if (s->live > s->peak)
            s->peak = s->live;
    } else
        s->live -= size, s->blocks--, *live -= size, --*blocks;
}

/* The input: a file read twice (a pipe or a compressed trace: its text in a
 * temporary file, tool_input). */
struct input {
    int fd;                     /* -1 for memory input (mem[memlen..+PAD) readable);
                                   else a file read twice (tool_input) */
    const char *mem;
    size_t memlen;
    char *buf;
    size_t cap;
};

/* The heap model the parser drives, set in struct conv before run_pass:
 * Massif's accounting (m2m_heap.c) or mtrace-diff's (diff_trace.c).
 * 'sid' is the block's stack (0: unknown). */
struct model {
    void (*alloc)(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec);
    void (*free)(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec);
    void (*realloc)(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                    uint64_t new_id, uint64_t new_sid, uint64_t new_size, uint64_t rec);
    /* a '<' still waiting for its '>' applied as a free */
    void (*flush)(struct conv *c);
    /* the live bytes and blocks of the context (site id, stack sid) */
    void (*live)(const struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks);
};

/* parse.c: the records of one pass, through the heap model. */
void run_pass(struct conv *c, struct input *in);
void rewind_input(struct conv *c, struct input *in);
/* The complete lines [p, end) of pass 1, read as they come (mtrace-top
 * follows a growing trace): end[-1] is '\n', PAD readable bytes after it.
 * c->e.line counts on from the lines given before. */
void parse_more(struct conv *c, const char *p, const char *end);

/* What the parser allocated for c: the sites and their labels, the
 * command line, the call stacks (the tool's own model is the tool's). */
void free_parsed(struct conv *c);

/* stack.c: "#depth", "#map", "#stack" (pass 1), then the labels and
 * the tree of contexts; the tree's labels for the output. */
void depth_record(struct conv *c, const char *p);
void map_record(struct conv *c, const char *p);
void stack_record(struct conv *c, const char *p);
void make_contexts(struct conv *c);
void free_stacks(struct stacks *s);

/* segments.c: a trace in segments (MTRACE_TRACE_MAX).  The kept
 * segments of trace `name` (NAME.seg-K and NAME) joined into one trace
 * in a temporary file: its descriptor, at offset 0; -1 when there is no
 * NAME.seg-K (read NAME as it is).  (The first kept segment's number is
 * its checkpoint's: the parser reads it there.)  Errors: tool_fail. */
int trace_segments_join(struct tool_err *e, const char *name);
/* The files of NAME's run, oldest first, NAME last, in *paths (each and
 * the array malloc'd): their count; 0 when there is no NAME.seg-K (or
 * no NAME).  For a reader that follows the files itself (mtrace-top). */
size_t trace_segments_list(struct tool_err *e, const char *name, char ***paths);
/* A later segment's opening, line by line (l: a whole line), *state from
 * 0: its definitions up to its #checkpoint (0), then the checkpoint's
 * #live and #time lines (1), then the records (2).  1: the line is the
 * opening's (the reader has it already); 0: it is the first after it; -1:
 * a record before any checkpoint (not a later segment). */
int trace_opening_line(int *state, const char *l);
/* The fields after "#checkpoint ": 1 if they are one. */
int trace_checkpoint_parse(const char *p, struct trace_checkpoint *cp);
/* n decimal numbers separated by one space, to the line's end: 1 if so. */
int trace_numbers_parse(const char *p, uint64_t *v, int n);
/* The words of the dropped part for the Massif file's description, the
 * page and stderr: "segments 1-4 of the trace were removed
 * (MTRACE_TRACE_MAX): ...".  Empty without a checkpoint. */
void trace_dropped_text(const struct trace_checkpoint *cp, char *out, size_t cap);

/* sym.c: the frames' labels, through addr2line. */
void label_frames(struct conv *c);
/* Is fn one of the C library's functions below main (Massif's list)? */
int below_main(const char *fn);

#endif
