/* SPDX-License-Identifier: MIT */
/* m2m.h - the stages of mtrace2massif and what they share.
 *
 * A trace is read twice.  Both passes run the same replay: the parser
 * (m2m_parse.c) turns records into events, the heap model (m2m_heap.c)
 * counts them as Massif does and calls, in pass 2, the snapshot policy
 * (m2m_snap.c) and the gnuplot samples (m2m_gnuplot.c).  Between the
 * passes the frames are labelled (m2m_sym.c) and the call stacks made
 * into Massif's allocation tree (m2m_stack.c); after pass 2 the output
 * (m2m_out.c, m2m_gnuplot.c) is written.  m2m_convert.c runs these
 * steps for one trace, m2m_files.c opens and names its files,
 * m2m_ranks.c handles several traces; the command line is
 * mtrace2massif.c.  Calls between these files run one way only (each
 * file's opening comment says which it calls), and tool.c, shared with
 * ms_print, calls none of them.
 * Each stage reads alone: this header is the whole of what they share.
 */
#ifndef M2M_H
#define M2M_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>

#include "tool.h"

#define M2M_VERSION MTRACE_TOOLS_VERSION

/* Valgrind's allocator (amd64): usable size is the request rounded up to 16
 * bytes, except for blocks that get a superblock of their own (beyond 4 MiB
 * minus the 64-byte superblock header), which are rounded up to whole pages. */
#define BIG_BLOCK    4194240u
#define SB_OVERHEAD  64u
#define PAGE         4096u

/* Sizes above this are rejected so that heap + extra + time sums of a sane
 * trace never come near 2^63 (Massif prints time as a signed 64-bit value). */
#define MAX_BYTES    (UINT64_C(1) << 56)

/* Cap on in-place-shrunk blocks remembered (see struct abn). */
#define ABN_MAX      (1u << 20)

/* Curves in the gnuplot script besides total, heap and RSS. */
#define GP_MAX_SITES 12
#define GP_POINTS    2048

/* Every buffer the parser reads has PAD readable bytes after its end (the
 * number parser reads eight bytes at a time). */
#define PAD 16

/* --depth, as Massif's (its MAX_DEPTH is 200). */
#define DEPTH_MAX    200
/* The longest chain a trace may give ("#depth N"): far above any use,
 * and it bounds the memory of one "#stack" record. */
#define TRACE_DEPTH_MAX 4096

enum { NORMAL = 1, PEAK = 2 };

struct opts {
    int time_bytes;             /* --time-unit=B (1) or i (0) */
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

/* A detailed snapshot's tree as Massif prints it, in preorder: each entry
 * a node (significant, in Massif's order) followed by its subtree, or the
 * aggregate of the insignificant children of its parent (node 0). */
struct tnode { uint64_t bytes; uint32_t node, nkids; uint64_t n_insig; };
struct tree { size_t n; struct tnode e[]; };

struct snap {
    int kind;                   /* 0 = unused slot */
    int64_t time;
    uint64_t heap, extra;
    struct tree *tree;          /* NULL unless detailed */
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
    int truncated_line;         /* last line had no newline */
    /* heap model, as Massif counts */
    uint64_t heap, extra, nblocks;
    uint64_t time_b, time_i;
    uint64_t ev;                /* events (alloc, free, realloc) so far */
    uint64_t max_total, max_heap;
    struct abn abn;
    /* pass 1: the first peak check at the largest total */
    uint64_t best_check, best_check_ev;
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

/* One trace of the command line and what its conversion gave (the
 * summary needs only these numbers, so memory stays bounded per file). */
struct job {
    const char *trace;          /* as given; "-" is standard input */
    size_t pos;                 /* position among the traces, from 0 */
    long rank;
    char *out, *gp;             /* output names; gp is NULL without --gnuplot */
    char *html;                 /* --html's page, or NULL */
    int rc;                     /* 0 converted, 1 not */
    int truncated;
    uint64_t v[4];              /* peak heap, peak heap+extra, leaked, records */
};

/* m2m_files.c: one trace into its files; fills the job's summary numbers.
 * Returns 0, or 1 after a message (nothing is left behind then). */
int convert_one(const struct opts *o, struct job *j);

/* m2m_convert.c: convert the input; write the Massif file to 'out' and,
 * if 'gpf' is not NULL, the gnuplot script to it.  Returns 0, or 1 after
 * a message. */
int convert(struct conv *c, struct input *in, FILE *out, FILE *gpf,
            const char *trace, const char *out_name);

/* m2m_ranks.c: several traces (an MPI run's ranks): their ranks, the
 * names of their files, the table. */
long rank_suffix(const char *name);
void assign_ranks(struct job *j, size_t n);
int pattern_varies(const char *pat);
char *expand(const char *pat, const struct job *j);
char *default_out(const char *trace);
int check_names(const struct job *j, size_t n);
void print_summary(FILE *f, struct job *j, size_t n);

/* m2m_parse.c: the records of one pass, through the heap model. */
void run_pass(struct conv *c, struct input *in);
void rewind_input(struct conv *c, struct input *in);

/* m2m_heap.c: Massif's accounting, event by event.  'sid' is the block's
 * stack (0: unknown). */
void ev_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec);
void ev_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec);
void ev_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                uint64_t new_id, uint64_t new_sid, uint64_t new_size, uint64_t rec);
void flush_pending(struct conv *c);
void observe(struct conv *c);
void before_release(struct conv *c, uint64_t first_rec);
/* The live bytes and blocks of the context (site id, stack sid). */
void ctx_live(const struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks);
int64_t now(const struct conv *c);

/* m2m_snap.c: Massif's snapshots, culling and peaks.  The heap model
 * calls it and gives it the time (now()): it never calls back. */
void policy_init(struct conv *c);
void free_policy(struct conv *c);
void attempt(struct conv *c, int64_t t);
int peak_check(struct conv *c, uint64_t first_rec, int64_t *t);

/* m2m_gnuplot.c: the samples and the script. */
void samples_init(struct conv *c);
void gp_event(struct conv *c, uint64_t t);
void gp_peak(struct conv *c, int64_t t);
void write_gnuplot(struct conv *c, FILE *f, const char *trace, const char *massif_out);

/* m2m_stack.c: "#depth", "#map", "#stack" (pass 1), then the labels and
 * the tree of contexts; the tree's labels for the output. */
void depth_record(struct conv *c, const char *p);
void map_record(struct conv *c, const char *p);
void stack_record(struct conv *c, const char *p);
void make_contexts(struct conv *c);
void free_stacks(struct stacks *s);

/* m2m_sym.c: the frames' labels, through addr2line. */
void label_frames(struct conv *c);
/* Is fn one of the C library's functions below main (Massif's list)? */
int below_main(const char *fn);

/* m2m_out.c: the Massif file. */
void write_massif(struct conv *c, FILE *f, const char *cmd);

/* --html=FILE: one self-contained page (doc/mtrace2massif.md, "The HTML
 * page").  m2m_html_data.c gathers its figures during both passes: per
 * time bucket (at most HTML_BUCKETS, merged two by two as pass 1 goes)
 * the lowest and highest heap; per context (a site's blocks without a
 * stack, or a stack) calls, blocks, bytes, temporaries, peak, leaks; in
 * pass 2 the HTML_TOP largest sites at each bucket's highest moment and
 * the live contexts there (sampled to HTML_SNAP_BUDGET entries), at the
 * peak and at the end.  m2m_html.c writes the page: that data as JSON
 * and the page's own script and style (m2m_html_page.c, made from
 * convert/html/ by the Makefile). */
#define HTML_BUCKETS     4096
#define HTML_TOP         10
#define HTML_SNAP_BUDGET 300000

/* A time bucket: pass 1's figures, and where pass 2 samples it. */
struct hbucket {
    uint64_t rec_end, tb_end;   /* the time after its last event */
    uint64_t lo, hi;            /* lowest and highest useful heap in it */
    uint64_t hi_ev, hi_rec, hi_tb, hi_extra; /* its first highest moment */
    uint64_t rss;               /* MAXRSS so far (0: none) */
    uint32_t nz;                /* live contexts at hi_ev */
    uint32_t snap;              /* its snapshot + 1 (pass 2), 0: none */
};

/* A context's figures (pass 2). */
struct hctx {
    uint64_t calls, blocks, bytes, temp, peak, live, nlive;
};

/* A set of live contexts: entries (context, bytes, blocks). */
struct hsnap { uint32_t bucket; size_t first, n; };

struct html {
    struct hbucket *b;
    size_t nb;                  /* buckets so far (pass 1), then all */
    uint64_t width;             /* events per bucket */
    uint64_t end;               /* pass 1: the last event of the last bucket */
    uint32_t nz;                /* live contexts now (pass 1) */
    size_t nctx;                /* sites + stacks (pass 2) */
    struct hctx *ctx;
    uint32_t *set, *pos;        /* the live contexts; pos: index + 1 */
    size_t nset;
    uint64_t *hist;             /* per site, 64 power-of-two buckets */
    uint32_t top[HTML_TOP];     /* sites, largest peak first */
    int ntop;
    uint64_t *topv;             /* per bucket, the top sites' bytes */
    uint64_t *ents;             /* snapshots' entries, 3 numbers each */
    size_t nents, cap_ents;
    struct hsnap *snaps;
    size_t nsnaps;
    size_t peak_snap, end_snap; /* snapshot indexes */
    size_t cur;                 /* pass 2: the next bucket to sample */
    uint64_t last_ctx, last_size; /* the last allocation (ctx + 1), for
                                     temporaries; 0: none since */
    uint64_t peak_bucket;
};

/* m2m_html_data.c: the figures.  begin_pass() calls html_begin (which
 * does nothing without --html); the heap model calls html_alloc,
 * html_free or html_realloc after each event; write_html takes the last
 * snapshot with html_final. */
void html_begin(struct conv *c, int pass);
void html_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size);
void html_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size);
void html_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                  uint64_t new_id, uint64_t new_sid, uint64_t new_size);
void html_final(struct conv *c);
void free_html(struct conv *c);

/* m2m_html.c: the page, to o.html (a temporary name, then renamed). */
int write_html(struct conv *c, const char *trace);
/* ... returns 0, or 1 after a message (nothing is left behind then). */

/* m2m_html_page.c (made from convert/html/page.css and page.js). */
extern const char m2m_page_css[], m2m_common_js[], m2m_page_js[];

#endif
