/* SPDX-License-Identifier: MIT */
/* top.h - mtrace-top: the traces followed as they grow (top_follow.c),
 * their snapshot as text (top_show.c), the terminal and the loop
 * (mtrace-top.c).
 * Owns: struct followed.  May use: common/ (tool.h), trace/ (trace.h). */
#ifndef TOP_H
#define TOP_H

#include <sys/types.h>

#include "../trace/trace.h"

/* How far a trace is: still written, ended by its tail (the two gnuplot
 * lines), or cut short: no tail, and no process writes it any more. */
enum top_state { TOP_RUNNING, TOP_ENDED, TOP_CUT };

/* A trace that no process holds locked and that has not grown for this
 * long (seconds) is over: its writer was killed (SIGKILL leaves no tail). */
#define TOP_QUIET_S 1.0

/* One trace followed: the parser's conversion and what mtrace-top keeps. */
struct followed {
    struct conv c;              /* first: the model's conv is a struct followed */
    const char *name;           /* as given */
    long rank;                  /* NAME-r's r, 0 for NAME beside them, -1: none */
    int fd;                     /* open read-only */
    dev_t dev;
    ino_t ino;
    off_t off;                  /* bytes of the file read so far */
    int zst;                    /* -1: not yet known (under 4 bytes), 0 plain, 1 zstd */
    struct tool_unzstd *z;
    char *text;                 /* text read and not yet parsed: a line's start */
    size_t have, cap;
    double grew_at;             /* reading clock when the file last grew */
    enum top_state state;
    /* the peak of the live bytes: when, by record and by the trace's clock */
    uint64_t peak, peak_rec, peak_ns;
    int peak_timed;             /* a #time came before the peak's record */
    /* growth per second, from the snapshot before */
    uint64_t prev_live;
    double prev_t, growth;
    int have_prev, have_growth;
};

/* top_follow.c */
/* Opens f->name read-only (a regular file only): 0, or -1 after the one
 * error line (to err). */
int follow_open(struct followed *f, const char *name, FILE *err);
/* Reads what the file gained and updates f->state; `locks` is
 * /proc/locks's text (NULL: unknown).  0, or -1 after the error line. */
int follow_step(struct followed *f, const char *locks);
/* /proc/locks's text, or NULL; free it. */
char *follow_locks(void);
/* The reading clock: seconds, monotonic. */
double top_now(void);
/* The trace's clock for growth: its #time (1) or the reading clock (0). */
double follow_clock(struct followed *f, int *trace_clock);
/* The snapshot's growth per second: the change of the live bytes since
 * the snapshot before, over the time between them by the trace's clock
 * (its last #time each), or by the reading clock for a trace without
 * #time; none at the first snapshot. */
void follow_growth(struct followed *f);

/* top_show.c */
/* The snapshot of the n traces as lines of text into out; `rows` sites at
 * most (0: the default). */
void show_snapshot(FILE *out, struct followed *f, size_t n, size_t rows);
/* s[0..n) made harmless for a terminal: printable ASCII and well-formed
 * UTF-8 (no C1 controls) as they are, any other byte as %XX. */
void show_safe(FILE *out, const char *s, size_t n);

#endif
