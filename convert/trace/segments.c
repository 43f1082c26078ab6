/* SPDX-License-Identifier: MIT */
/* segments.c - a trace written in segments (MTRACE_TRACE_MAX): the files
 * kept found from the name MTRACE gave, and joined into one trace that
 * the parser reads as any other; the checkpoint records' syntax
 * ("#checkpoint", "#live", "#live-stack": doc/trace-format.md).
 * The current segment is NAME itself; the older ones kept are
 * NAME.seg-K, K its number.  Each segment opens with the definitions so
 * far and a checkpoint; the join keeps the first kept segment whole and
 * the others from after their checkpoint, so that the parser sees one
 * checkpoint, the records after it, and each definition once.  Only the
 * segments of NAME's run are joined (the same "#clock", numbers without
 * a gap down from NAME's): a segment that vanished while the files were
 * read (the program still running removed it) ends the older part.
 * Owns: the segments' names, their join, the checkpoint records' syntax.
 * Calls: tool.c (tool_input: a segment may be compressed).  Used by
 * parse.c, mtrace2massif/, mtrace-diff/, mtrace-top/. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

/* The numbers K of the files NAME.seg-K beside NAME, in *ks (malloc'd),
 * highest first; their count. */
static size_t seg_numbers(struct tool_err *e, const char *name, uint64_t **ks)
{
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    char *dir = slash ? strndup(name, (size_t)(slash - name) + 1) : strdup(".");
    size_t n = 0, cap = 0, blen = strlen(base);
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *de;
    *ks = NULL;
    free(dir);
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        const char *p = de->d_name + blen + 5;
        char *end;
        if (strncmp(de->d_name, base, blen) || strncmp(de->d_name + blen, ".seg-", 5) || *p < '1' || *p > '9')
            continue;
        unsigned long long k = strtoull(p, &end, 10);
        if (*end || k == 0 || end - p > 18)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            *ks = tool_realloc(e, *ks, cap * sizeof **ks);
        }
        (*ks)[n++] = k;
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)     /* highest first (few: insertion) */
        for (size_t j = i; j > 0 && (*ks)[j] > (*ks)[j - 1]; j--) {
            uint64_t t = (*ks)[j];
            (*ks)[j] = (*ks)[j - 1];
            (*ks)[j - 1] = t;
        }
    return n;
}

int trace_numbers_parse(const char *p, uint64_t *v, int n)
{
    char *end;
    for (int i = 0; i < n; i++) {
        if (*p < '0' || *p > '9')
            return 0;
        errno = 0;
        v[i] = strtoull(p, &end, 10);
        if (errno || (*end != ' ' && !(i == n - 1 && (*end == '\n' || !*end))))
            return 0;
        p = end + 1;
    }
    return 1;
}

int trace_checkpoint_parse(const char *p, struct trace_checkpoint *cp)
{
    uint64_t v[8];
    if (!trace_numbers_parse(p, v, 8))
        return 0;
    cp->seg = v[0], cp->recno = v[1], cp->total = v[2], cp->blocks = v[3];
    cp->peak = v[4], cp->peak_recno = v[5], cp->peak_ns = v[6], cp->ns = v[7];
    return cp->seg >= 2 && cp->total <= cp->peak && (cp->peak == 0 || cp->peak_recno < cp->recno);
}

/* One segment's text (decompressed), open for reading at its start; or
 * NULL when the file is gone (removed since it was listed). */
static FILE *seg_open(struct tool_err *e, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), text;
    if (fd < 0) {
        if (errno == ENOENT)
            return NULL;
        tool_fail(e, "%s: %s", path, strerror(errno));
    }
    const char *file = e->file;
    e->file = path;
    text = tool_input(e, fd);
    e->file = file;
    if (text != fd)
        close(fd);
    FILE *f = fdopen(text, "r");
    if (!f) {
        close(text);
        tool_fail(e, "%s: %s", path, strerror(errno));
    }
    return f;
}

/* A segment's opening: its number (1 without a checkpoint) and its
 * #clock (0 without).  Reads to the end of its checkpoint, or to its
 * first operation record. */
static void seg_head(FILE *f, char **line, size_t *cap, uint64_t *no, uint64_t *clock)
{
    struct trace_checkpoint cp;
    ssize_t n;
    *no = 1;
    *clock = 0;
    while ((n = getline(line, cap, f)) > 0) {
        const char *l = *line;
        if (!strncmp(l, "#clock ", 7))
            trace_numbers_parse(l + 7, clock, 1);
        else if (!strncmp(l, "#checkpoint ", 12)) {
            if (trace_checkpoint_parse(l + 12, &cp))
                *no = cp.seg;
            return;
        } else if (l[0] != '#' && l[0] != '@')
            return;
    }
}

int trace_opening_line(int *state, const char *l)
{
    if (*state == 0) {
        if (!strncmp(l, "#checkpoint ", 12))
            *state = 1;
        return l[0] == '#' || l[0] == '@' ? 1 : -1;
    }
    if (*state == 1 && (!strncmp(l, "#live", 5) || !strncmp(l, "#time ", 6)))
        return 1;
    *state = 2;
    return 0;
}

/* Copies f to out: whole, or from after its opening. */
static void seg_copy(struct tool_err *e, FILE *f, FILE *out, int whole, char **line, size_t *cap)
{
    ssize_t n;
    int state = whole ? 2 : 0;
    while ((n = getline(line, cap, f)) > 0) {
        if (state < 2 && trace_opening_line(&state, *line) != 0)
            continue;           /* (-1, a record before a checkpoint: seg_run made it one) */
        if (fwrite(*line, 1, (size_t)n, out) != (size_t)n)
            tool_fail(e, "cannot write a temporary file: %s", strerror(errno));
    }
}

/* The path of segment k of name (k 0: name itself), malloc'd. */
static char *seg_path(struct tool_err *e, const char *name, uint64_t k)
{
    char *p = tool_realloc(e, NULL, strlen(name) + 32);
    if (k)
        sprintf(p, "%s.seg-%llu", name, (unsigned long long)k);
    else
        strcpy(p, name);
    return p;
}

/* The segments of NAME's run among ks[0..nk) (highest first): from NAME's
 * own number down, without a gap, with NAME's #clock.  They are moved to
 * the front of ks; their count.  *no: NAME's number. */
static size_t seg_run(struct tool_err *e, const char *name, uint64_t *ks, size_t nk, uint64_t *no,
                      char **line, size_t *cap)
{
    uint64_t clock, want, k_no, k_clock;
    size_t used = 0;
    FILE *f = seg_open(e, name);
    if (!f)
        return (size_t)-1;
    seg_head(f, line, cap, no, &clock);
    fclose(f);
    want = *no - 1;
    for (size_t i = 0; i < nk; i++) {
        if (ks[i] > want)
            continue;           /* another run's, or NAME's own just renamed */
        if (ks[i] < want)
            break;
        char *path = seg_path(e, name, ks[i]);
        f = seg_open(e, path);
        free(path);
        if (!f)
            break;              /* removed since it was listed */
        seg_head(f, line, cap, &k_no, &k_clock);
        fclose(f);
        if (k_no != ks[i] || k_clock != clock)
            break;
        ks[used++] = ks[i];
        want--;
    }
    return used;
}

size_t trace_segments_list(struct tool_err *e, const char *name, char ***paths)
{
    uint64_t *ks, no;
    char *line = NULL;
    size_t cap = 0, nk = seg_numbers(e, name, &ks), used;
    *paths = NULL;
    if (nk == 0 || (used = seg_run(e, name, ks, nk, &no, &line, &cap)) == (size_t)-1) {
        free(ks);
        free(line);
        return 0;
    }
    *paths = tool_realloc(e, NULL, (used + 1) * sizeof **paths);
    for (size_t i = 0; i < used; i++)   /* oldest first */
        (*paths)[i] = seg_path(e, name, ks[used - 1 - i]);
    (*paths)[used] = seg_path(e, name, 0);
    free(ks);
    free(line);
    return used + 1;
}

int trace_segments_join(struct tool_err *e, const char *name)
{
    char **paths, *line = NULL;
    size_t cap = 0, n = trace_segments_list(e, name, &paths);
    if (n == 0)
        return -1;
    FILE *out = tmpfile();
    if (!out)
        tool_fail(e, "cannot create a temporary file: %s", strerror(errno));
    for (size_t i = 0; i < n; i++) {
        FILE *f = seg_open(e, paths[i]);
        if (!f)
            tool_fail(e, "a segment was removed while it was read (the program still runs): try again");
        seg_copy(e, f, out, i == 0, &line, &cap);
        fclose(f);
        free(paths[i]);
    }
    free(paths);
    free(line);
    if (fflush(out) != 0)
        tool_fail(e, "cannot write a temporary file: %s", strerror(errno));
    int fd = dup(fileno(out));
    fclose(out);
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        tool_fail(e, "cannot read a temporary file back: %s", strerror(errno));
    return fd;
}

void trace_dropped_text(const struct trace_checkpoint *cp, char *out, size_t cap)
{
    if (!cp->seg) {
        if (cap)
            out[0] = 0;
        return;
    }
    char segs[48];
    if (cp->seg > 2)
        snprintf(segs, sizeof segs, "segments 1-%llu", (unsigned long long)cp->seg - 1);
    else
        snprintf(segs, sizeof segs, "segment 1");
    if (!cp->recno) {           /* only definitions were in them */
        snprintf(out, cap, "%s of the trace removed (MTRACE_TRACE_MAX): no record dropped", segs);
        return;
    }
    snprintf(out, cap, "%s of the trace removed (MTRACE_TRACE_MAX): records 0 to %llu "
             "dropped, exact from record %llu (%.3f s) on; the peak before, %llu B at record %llu (%.3f s)",
             segs, (unsigned long long)cp->recno - 1, (unsigned long long)cp->recno, cp->ns / 1e9,
             (unsigned long long)cp->peak, (unsigned long long)cp->peak_recno, cp->peak_ns / 1e9);
}
