/* SPDX-License-Identifier: MIT */
/* m2m.h - the stages of mtrace2massif and what they share.
 *
 * A trace is read twice.  Both passes run the same replay: the parser
 * (trace/parse.c) turns records into events, the heap model (m2m_heap.c,
 * the parser's struct model) counts them as Massif does and calls, in
 * pass 2, the snapshot policy (m2m_snap.c) and the gnuplot samples
 * (m2m_gnuplot.c).  Between the passes the frames are labelled
 * (trace/sym.c) and the call stacks made into Massif's allocation tree
 * (trace/stack.c); after pass 2 the output (m2m_out.c, m2m_gnuplot.c) is
 * written.  m2m_convert.c runs these steps for one trace, m2m_files.c
 * opens and names its files, m2m_ranks.c handles several traces; the
 * command line is mtrace2massif.c.  Calls between these files run one way
 * only (each file's opening comment says which it calls).
 * Owns: the command line, Massif's heap model, snapshots and file, the
 * gnuplot script, the HTML page's figures.  May use: common/, trace/,
 * html/ (README.md).
 * Each stage reads alone: this header and trace/trace.h are the whole of
 * what they share.
 */
#ifndef M2M_H
#define M2M_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>

#include "../html/pages.h"
#include "../trace/trace.h"

#define M2M_VERSION MTRACE_TOOLS_VERSION

/* Valgrind's allocator (amd64): usable size is the request rounded up to 16
 * bytes, except for blocks that get a superblock of their own (beyond 4 MiB
 * minus the 64-byte superblock header), which are rounded up to whole pages. */
#define BIG_BLOCK    4194240u
#define SB_OVERHEAD  64u
#define PAGE         4096u

/* Cap on in-place-shrunk blocks remembered (see struct abn). */
#define ABN_MAX      (1u << 20)

/* The gnuplot script's points (its curves: trace.h, GP_MAX_SITES). */
#define GP_POINTS    2048

/* --depth, as Massif's (its MAX_DEPTH is 200). */
#define DEPTH_MAX    200

enum { NORMAL = 1, PEAK = 2 };

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

/* One trace of the command line and what its conversion gave (the
 * summary needs only these numbers, so memory stays bounded per file). */
struct job {
    const char *trace;          /* as given; "-" is standard input */
    size_t pos;                 /* position among the traces, from 0 */
    long rank;
    char *out, *gp;             /* output names; gp is NULL without --gnuplot */
    char *html;                 /* --html's page, or NULL */
    FILE *part;                 /* one page for several traces: this one's data */
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
void assign_ranks(struct job *j, size_t n);
int pattern_varies(const char *pat);
char *expand(const char *pat, const struct job *j);
char *default_out(const char *trace);
int check_names(const struct job *j, size_t n);
void print_summary(FILE *f, struct job *j, size_t n);
struct job **jobs_by_rank(struct job *j, size_t n);

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
/* ... the functions above as the parser's model (trace.h). */
extern const struct model massif_model;

/* m2m_snap.c: Massif's snapshots, culling and peaks.  The heap model
 * calls it and gives it the time (now()): it never calls back. */
void policy_init(struct conv *c);
void free_policy(struct conv *c);
void attempt(struct conv *c, int64_t t);
int peak_check(struct conv *c, int64_t t);

/* m2m_gnuplot.c: the samples and the script. */
void samples_init(struct conv *c);
void gp_event(struct conv *c, uint64_t t);
void gp_peak(struct conv *c, int64_t t);
void gp_end(struct conv *c, uint64_t t);
void write_gnuplot(struct conv *c, FILE *f, const char *trace, const char *massif_out);

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
    uint64_t t_end, hi_t;       /* the trace's clock (#time, ns) after its last
                                   event, and at its highest moment */
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

/* m2m_html.c: the page, to o.html (a temporary name, then renamed), or
 * with o.html_part its data alone, there; then the page of several
 * traces (an MPI run), made of their parts, to 'name'. */
int write_html(struct conv *c, const char *trace);
int write_run_page(const char *name, struct job *j, size_t n);
/* ... both return 0, or 1 after a message (nothing is left behind then). */

/* The page's style and script: html/m2m_html_page.c (made from
 * convert/html/page.css and page.js), ../html/pages.h. */

#endif
