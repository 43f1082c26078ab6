/* SPDX-License-Identifier: MIT */
/* top_follow.c - a trace followed as it grows: opened read-only, what it
 * gained read at each step (through libzstd's streaming decoder for
 * MTRACE=NAME.zst, loaded at run time as the other tools load it), its
 * complete lines given to trace/'s parser, which drives the heap model
 * here (the live bytes per site, the peak and when), and whether it is
 * over: its tail read, or no process writing it (the tracer holds its
 * trace flock'ed while it runs: /proc/locks tells, without taking a lock
 * that could send a starting run to NAME.PID).  A trace in segments
 * (MTRACE_TRACE_MAX) is followed from one segment to the next as the
 * name moves on, each later one's opening skipped (trace/segments.c).
 * Owns: struct followed's reading and the model.  Calls: trace/parse.c
 * (parse_more), tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "top.h"

double top_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* The heap model: the sites' live bytes (ctx_count), the peak           */

static void note_peak(struct conv *c, uint64_t rec)
{
    struct followed *f = (struct followed *)c;
    if (c->p.prev_total > f->peak) {
        f->peak = c->p.prev_total;
        f->peak_rec = rec;
        f->peak_ns = c->p.time_ns;
        f->peak_timed = c->p.have_time;
    }
}

static void ev_alloc(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    ctx_count(c, id, sid, size, 1);
    note_peak(c, rec);
}

static void ev_free(struct conv *c, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    (void)rec;
    ctx_count(c, id, sid, size, -1);
}

static void ev_realloc(struct conv *c, uint64_t old_id, uint64_t old_sid, uint64_t old_size,
                       uint64_t new_id, uint64_t new_sid, uint64_t new_size, uint64_t rec)
{
    ctx_count(c, old_id, old_sid, old_size, -1);
    ctx_count(c, new_id, new_sid, new_size, 1);
    note_peak(c, rec);
}

static void flush_pending(struct conv *c)
{
    if (c->p.pend) {
        c->p.pend = 0;
        ev_free(c, c->p.pend_site, c->p.pend_sid, c->p.pend_size, c->p.pend_rec);
    }
}

static void ctx_live(const struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks)
{
    if (sid) {
        *live = c->s.st[sid - 1].live;
        *blocks = c->s.st[sid - 1].blocks;
    } else {
        *live = c->sites[id - 1].live0;
        *blocks = c->sites[id - 1].blocks0;
    }
}

static const struct model top_model = { ev_alloc, ev_free, ev_realloc, flush_pending, ctx_live };

/* ------------------------------------------------------------------ */
/* Reading                                                              */

int follow_open(struct followed *f, const char *name, FILE *err)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    f->name = name;
    f->fd = -1;
    f->zst = -1;
    f->opening = 2;             /* a first segment's opening is the parser's */
    f->c.model = &top_model;
    f->c.p.n = 1;
    f->c.o.quiet = 1;
    f->c.e.prog = "mtrace-top";
    f->c.e.file = name;
    f->c.e.err = err;
    if (setjmp(f->c.e.jb))
        return -1;
    f->fd = open(name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (f->fd < 0)
        tool_fail(&f->c.e, "%s", strerror(errno));
    if (fstat(f->fd, &st) != 0)
        tool_fail(&f->c.e, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode))   /* a FIFO's reader would take the tracer's text */
        tool_fail(&f->c.e, "not a regular file");
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    /* a file last written long ago has been quiet that long */
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    double age = (double)(wall.tv_sec - st.st_mtim.tv_sec)
               + (double)(wall.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
    f->grew_at = top_now() - (age > 0 ? age : 0);
    return 0;
}

/* A later segment's opening (MTRACE_TRACE_MAX): the definitions and
 * the checkpoint the parser has already, skipped; its checkpoint must
 * take up where the segment before ended.  Where the records start. */
static char *skip_opening(struct followed *f, char *p, char *end)
{
    struct trace_checkpoint cp;
    while (f->opening < 2 && p < end) {
        char *eol = memchr(p, '\n', (size_t)(end - p)) + 1;
        int r = trace_opening_line(&f->opening, p);
        f->c.e.line++;
        if (r < 0)
            tool_fail(&f->c.e, "another trace under this name (a new run?)");
        if (!strncmp(p, "#checkpoint ", 12) && !trace_checkpoint_parse(p + 12, &cp))
            tool_fail(&f->c.e, "#checkpoint record: expected '#checkpoint SEG RECNO TOTAL BLOCKS "
                      "PEAK PEAK_RECNO PEAK_NS NS'");
        if (!strncmp(p, "#checkpoint ", 12) && (cp.seg != f->seg || cp.recno != f->c.p.nrec)) {
            f->lost = 1;        /* the segments between were removed unread */
            f->seg = cp.seg;
            return end;
        }
        if (r == 0) {
            f->c.e.line--;      /* the parser counts it */
            break;
        }
        p = eol;
    }
    return p;
}

/* Text of the trace: appended, and its complete lines parsed. */
static void take_text(void *arg, const char *p, size_t n)
{
    struct followed *f = arg;
    if (f->have + n + PAD > f->cap) {
        size_t cap = f->cap ? f->cap : (size_t)1 << 16;
        while (f->have + n + PAD > cap)
            cap *= 2;
        f->text = tool_realloc(&f->c.e, f->text, cap);
        f->cap = cap;
    }
    memcpy(f->text + f->have, p, n);
    f->have += n;
    memset(f->text + f->have, 0, PAD);
    char *last = memrchr(f->text, '\n', f->have);
    if (!last) {
        if (f->have > TOOL_MAX_LINE) {
            f->c.e.line++;
            tool_fail(&f->c.e, "line longer than %d bytes", TOOL_MAX_LINE);
        }
        return;
    }
    last++;
    char *from = skip_opening(f, f->text, last);
    parse_more(&f->c, from, last);
    f->have -= (size_t)(last - f->text);
    memmove(f->text, last, f->have);
    memset(f->text + f->have, 0, PAD);
}

/* Plain or zstd, from the first four bytes: -1 while fewer are there. */
static void find_kind(struct followed *f, int over)
{
    unsigned char head[4];
    ssize_t r = pread(f->fd, head, sizeof head, 0);
    if (r < 0)
        tool_fail(&f->c.e, "read error: %s", strerror(errno));
    if (r < (ssize_t)sizeof head && !over)
        return;
    f->zst = tool_is_zstd(head, (size_t)r);
    if (f->zst)
        f->z = tool_unzstd_new(&f->c.e);
}

/* What the file gained since the last step; 1 if it grew. */
static int read_more(struct followed *f)
{
    static char buf[1 << 17];
    struct stat st;
    int grew = 0;
    if (fstat(f->fd, &st) != 0)
        tool_fail(&f->c.e, "%s", strerror(errno));
    if (st.st_size < f->off)
        tool_fail(&f->c.e, "the file shrank (a new run writing it?)");
    for (;;) {
        ssize_t r = pread(f->fd, buf, sizeof buf, f->off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            tool_fail(&f->c.e, "read error: %s", strerror(errno));
        if (r == 0)
            return grew;
        f->off += r;
        grew = 1;
        if (f->zst)
            tool_unzstd_feed(f->z, buf, (size_t)r, take_text, f);
        else
            take_text(f, buf, (size_t)r);
    }
}

/* Does a process hold the file flock'ed (the tracer does while it
 * writes)?  From /proc/locks: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE
 * START END", the device in hex; lines "N: -> ..." are waiters.  Without
 * /proc/locks: a shared lock tried and let go at once. */
static int writer_alive(struct followed *f, const char *locks)
{
    if (!locks) {
        if (flock(f->fd, LOCK_SH | LOCK_NB) != 0)
            return errno == EWOULDBLOCK;
        flock(f->fd, LOCK_UN);
        return 0;
    }
    for (const char *p = locks; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        char kind[16], arrow[4];
        unsigned maj, min;
        unsigned long long ino;
        if (sscanf(p, "%*d: %3s", arrow) == 1 && !strcmp(arrow, "->"))
            continue;
        if (sscanf(p, "%*d: %15s %*s %*s %*d %x:%x:%llu", kind, &maj, &min, &ino) == 4 &&
            !strcmp(kind, "FLOCK") && ino == (unsigned long long)f->ino &&
            maj == major(f->dev) && min == minor(f->dev))
            return 1;
    }
    return 0;
}

char *follow_locks(void)
{
    FILE *fp = fopen("/proc/locks", "re");
    char *text = NULL;
    size_t len = 0;
    if (!fp)
        return NULL;
    FILE *m = open_memstream(&text, &len);
    char line[512];
    while (m && fgets(line, sizeof line, fp))
        fputs(line, m);
    if (m)
        fclose(m);
    fclose(fp);
    return text;
}

/* MTRACE_TRACE_MAX: the name has moved on to a new segment, and the one
 * read is whole (the tracer ends a segment before it renames it): the
 * next one opened, NAME.seg-K if it went by already, else NAME.  1 if
 * it did. */
static int next_segment(struct followed *f)
{
    struct stat st;
    if (f->have || stat(f->name, &st) != 0 || (st.st_ino == f->ino && st.st_dev == f->dev))
        return 0;
    if (!f->seg)                /* the first segment's number: its checkpoint's, or 1 */
        f->seg = f->c.cp.seg ? f->c.cp.seg : 1;
    char *path = tool_realloc(&f->c.e, NULL, strlen(f->name) + 32);
    sprintf(path, "%s.seg-%" PRIu64, f->name, f->seg + 1);
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    free(path);
    if (fd < 0)
        fd = open(f->name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return 0;               /* between two names: the next step sees it */
    }
    close(f->fd);
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->off = 0;
    f->zst = -1;
    if (f->z)
        tool_unzstd_free(f->z);
    f->z = NULL;
    f->seg++;
    f->opening = 0;
    return 1;
}

/* Segments went by between two reads, removed before they were read
 * (a small MTRACE_TRACE_MAX, a fast program): the model starts again at
 * the checkpoint of the segment open, read from its start. */
static void start_again(struct followed *f)
{
    struct tool_err e = f->c.e;         /* (its jmp_buf: follow_step's) */
    free_parsed(&f->c);
    memset(&f->c, 0, sizeof f->c);
    f->c.e = e;
    f->c.e.line = 0;
    f->c.model = &top_model;
    f->c.p.n = 1;
    f->c.o.quiet = 1;
    f->off = 0;
    f->have = 0;
    f->zst = -1;
    if (f->z)
        tool_unzstd_free(f->z);
    f->z = NULL;
    f->opening = 2;             /* its opening read this time */
    f->lost = 0;
}

/* What the file open gained (its kind first); started again at its
 * checkpoint if segments went by unread.  1 if it grew. */
static int read_segment(struct followed *f, int over)
{
    if (f->zst < 0)
        find_kind(f, over);
    int grew = f->zst >= 0 && read_more(f);
    if (f->lost) {
        start_again(f);
        find_kind(f, over);
        grew = f->zst >= 0 && read_more(f);
    }
    return grew;
}

int follow_step(struct followed *f, const char *locks)
{
    if (setjmp(f->c.e.jb))
        return -1;
    if (f->state != TOP_RUNNING)
        return 0;
    int alive = writer_alive(f, locks);
    int quiet = top_now() - f->grew_at >= TOP_QUIET_S;
    if (read_segment(f, !alive && quiet))
        f->grew_at = top_now();
    while (f->zst >= 0 && f->c.p.tail_n == 0 && next_segment(f)) {
        alive = 1;              /* the tracer wrote it just now */
        f->grew_at = top_now();
        read_segment(f, 0);
    }
    if (f->c.cp.seg && f->c.cp.peak > f->peak) {   /* the peak before a checkpoint */
        f->peak = f->c.cp.peak;
        f->peak_rec = f->c.cp.peak_recno;
        f->peak_ns = f->c.cp.peak_ns;
        f->peak_timed = 1;
    }
    if (f->c.p.tail_n == 2 && f->have == 0) {
        f->state = TOP_ENDED;
    } else if (!alive && top_now() - f->grew_at >= TOP_QUIET_S) {
        if (f->off == 0)
            tool_fail(&f->c.e, "empty, and no process is writing it");
        if (f->z && !tool_unzstd_whole(f->z)) {     /* as tool_input says it */
            f->c.e.line = 0;    /* the file's, not a line's */
            tool_fail(&f->c.e, "truncated zstd data: the file ends inside a block or a header");
        }
        f->state = TOP_CUT;
        flush_pending(&f->c);
    }
    return 0;
}

double follow_clock(struct followed *f, int *trace_clock)
{
    *trace_clock = f->c.p.have_time;
    return f->c.p.have_time ? (double)f->c.p.time_ns / 1e9 : top_now();
}

void follow_growth(struct followed *f)
{
    int tc;
    double t = follow_clock(f, &tc);
    uint64_t live = f->c.p.prev_total;
    if (f->have_prev && t > f->prev_t) {
        f->growth = ((double)live - (double)f->prev_live) / (t - f->prev_t);
        f->have_growth = 1;
    } else if (f->have_prev && live == f->prev_live) {
        f->growth = 0;          /* the trace's clock stood still: no record since */
        f->have_growth = 1;
    } else if (f->have_prev) {
        return;                 /* records in the same millisecond: wait for #time */
    }
    f->prev_live = live;
    f->prev_t = t;
    f->have_prev = 1;
}
