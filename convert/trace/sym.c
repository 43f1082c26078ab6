/* SPDX-License-Identifier: MIT */
/* sym.c - the labels of the stacks' frames, as Massif's describe_IP
 * writes them: "0xADDR: function (file:line)", one line per function
 * inlined at that address (innermost first); "0xADDR: function (in
 * MODULE)" without a line, "0xADDR: ??? (in MODULE)" without even a
 * function, "0xADDR: ???" outside every module.  Names come from an
 * external addr2line (binutils), run once per 2048 addresses of a module,
 * never through a shell: the module's path is one argument however
 * hostile it is.  Below-main functions are shown as "(below main)".
 * Owns the frames' names and labels (fn, label in struct frame) and
 * Massif's list of the functions below main, which the tree also uses.
 * Calls: tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

extern char **environ;

/* Addresses per run of addr2line: 2048 arguments of 19 bytes stay far
 * below the kernel's limits on a command line. */
#define BATCH 2048
/* addr2line's lines (a function's name, a file and line) are cut here,
 * the bound the tracer puts on its own names. */
#define NAME_MAX_LEN 4096

/* Massif's names for the functions below main (debuginfo.c,
 * VG_(get_fnname_kind)), which it cuts off with --show-below-main=no. */
int below_main(const char *fn)
{
    return !strcmp(fn, "__libc_start_main") || !strcmp(fn, "__libc_start_call_main") ||
           !strncmp(fn, "__libc_start_main.", 18) || !strcmp(fn, "generic_start_main") ||
           !strncmp(fn, "generic_start_main.", 19) || !strcmp(fn, "_start");
}

/* addr2line's output, line by line, from a pipe. */
struct reader { int fd; size_t have, pos; char buf[1 << 16]; };

/* The next line into out (cut to cap - 1 bytes, the rest skipped);
 * returns its length, or -1 at the end. */
static long read_line(struct reader *r, char *out, size_t cap)
{
    size_t n = 0;
    int any = 0;
    for (;;) {
        if (r->pos == r->have) {
            ssize_t k = read(r->fd, r->buf, sizeof r->buf);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                return any ? (long)n : -1;
            r->have = (size_t)k;
            r->pos = 0;
        }
        char ch = r->buf[r->pos++];
        any = 1;
        if (ch == '\n')
            break;
        if (n + 1 < cap)
            out[n++] = ch;
    }
    out[n] = 0;
    return (long)n;
}

/* Append to *lab (growing it) the text s, escaped for a Massif label
 * (control characters, '#' and '%' as %XX). */
static void lab_put(struct conv *c, char **lab, size_t *len, const char *s)
{
    size_t n = strlen(s);
    *lab = tool_realloc(&c->e, *lab, *len + 3 * n + 1);
    *len += tool_escape(*lab + *len, s, n, "#%");
}

/* One line of a label: "0xADDR: fn (file:line)" or "... (in MODULE)". */
static void lab_line(struct conv *c, struct frame *f, char **lab, size_t *len,
                     const char *fn, const char *loc)
{
    char head[32];
    const char *path = f->map ? c->s.maps[f->map - 1].path : NULL;
    if (*len)                   /* an inlined function's caller: a line of its own */
        (*lab)[(*len)++] = '\n';
    snprintf(head, sizeof head, "0x%" PRIX64 ": ", f->addr);
    lab_put(c, lab, len, head);
    lab_put(c, lab, len, !fn ? "???" : below_main(fn) ? "(below main)" : fn);
    if (!loc && !path)
        return;
    lab_put(c, lab, len, loc ? " (" : " (in ");
    lab_put(c, lab, len, loc ? loc : path);
    lab_put(c, lab, len, ")");
}

/* addr2line's "FILE:LINE[ (discriminator N)]" as Massif's "file:line"
 * (the file without its directory), in place; NULL when unknown. */
static const char *srcloc(char *s)
{
    char *d = strstr(s, " (discriminator ");
    if (d)
        *d = 0;
    char *colon = strrchr(s, ':');
    if (!colon || colon == s || !strncmp(s, "??", 2) || colon[1] < '1' || colon[1] > '9')
        return NULL;
    char *slash = memrchr(s, '/', (size_t)(colon - s));
    return slash ? slash + 1 : s;
}

/* Read the blocks addr2line -a -f -i wrote for frames idx[0..n): each an
 * address line, then (function, place) pairs, innermost first. */
static void read_blocks(struct conv *c, struct reader *r, const uint32_t *idx, size_t n)
{
    static char fn[NAME_MAX_LEN + 1], loc[NAME_MAX_LEN + 1];   /* a name and its NUL */
    size_t k = 0;
    size_t len = 0;
    struct frame *f = NULL;
    char *lab = NULL;
    while (read_line(r, fn, sizeof fn) >= 0) {
        if (!strncmp(fn, "0x", 2)) {        /* the next address */
            if (f)
                f->label = lab;
            f = k < n ? &c->s.frames[idx[k++]] : NULL;
            lab = NULL, len = 0;
            continue;
        }
        if (read_line(r, loc, sizeof loc) < 0 || !f)
            break;
        const char *name = strcmp(fn, "??") ? fn : NULL;
        lab_line(c, f, &lab, &len, name, srcloc(loc));
        free(f->fn);            /* the outermost function is the last */
        f->fn = name ? strdup(name) : NULL;
    }
    if (f)
        f->label = lab;
    else
        free(lab);
}

/* Run addr2line on frames idx[0..n) of map m.  Returns 0, or an errno
 * when it could not be started. */
static int run_batch(struct conv *c, uint32_t m, const uint32_t *idx, size_t n, int *status)
{
    const struct map *mp = &c->s.maps[m - 1];
    char **argv = tool_realloc(&c->e, NULL, (n + 8) * sizeof *argv);
    char *args = tool_realloc(&c->e, NULL, n * 20 + strlen(mp->path) + 8);
    size_t a = 0, o = 0;
    argv[a++] = (char *)c->o.addr2line;
    argv[a++] = "-a", argv[a++] = "-f", argv[a++] = "-i", argv[a++] = "-C";
    argv[a++] = args;
    o += (size_t)sprintf(args, "--exe=%s", mp->path) + 1;
    for (size_t i = 0; i < n; i++) {
        argv[a++] = args + o;
        o += (size_t)sprintf(args + o, "0x%" PRIx64, c->s.frames[idx[i]].addr - mp->bias) + 1;
    }
    argv[a] = NULL;
    int fds[2], rc = pipe2(fds, O_CLOEXEC) ? errno : 0;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    if (!rc) {
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        rc = posix_spawnp(&pid, c->o.addr2line, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(fds[1]);
        if (!rc) {
            struct reader *r = malloc(sizeof *r);
            if (r) {
                r->fd = fds[0], r->have = r->pos = 0;
                read_blocks(c, r, idx, n);
            }
            free(r);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
        }
        close(fds[0]);
    }
    free(argv);
    free(args);
    return rc;
}

/* The frames of map m through addr2line, BATCH at a time.  A module it
 * cannot read (gone since the run, say) is said once; its frames keep
 * the label without names. */
static void label_map(struct conv *c, uint32_t m, const uint32_t *idx, size_t n, int *cannot_run)
{
    for (size_t i = 0; i < n && !*cannot_run; i += BATCH) {
        int status = 0;
        int rc = run_batch(c, m, idx + i, n - i < BATCH ? n - i : BATCH, &status);
        if (rc) {
            *cannot_run = 1;
            if (!c->o.quiet)
                fprintf(stderr, "mtrace2massif: %s: warning: cannot run %s (%s): code addresses "
                        "are labelled ??? (in MODULE)\n", c->e.file, c->o.addr2line, strerror(rc));
        } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            if (!c->o.quiet) {
                fprintf(stderr, "mtrace2massif: %s: warning: %s could not read ", c->e.file,
                        c->o.addr2line);
                tool_put_escaped(stderr, c->s.maps[m - 1].path, "");
                fputs("; its addresses are labelled ??? (in MODULE)\n", stderr);
            }
            break;
        }
    }
}

/* Every frame's label: through addr2line module by module (unless there
 * is none to run), then "???" for what it did not name. */
void label_frames(struct conv *c)
{
    struct stacks *s = &c->s;
    uint32_t *idx = tool_realloc(&c->e, NULL, (s->nframes + 1) * sizeof *idx);
    int cannot_run = !c->o.addr2line;
    for (uint32_t m = 1; m <= s->nmaps && !cannot_run; m++) {
        size_t n = 0;
        for (size_t i = 0; i < s->nframes; i++)
            if (s->frames[i].map == m)
                idx[n++] = (uint32_t)i;
        if (n)
            label_map(c, m, idx, n, &cannot_run);
    }
    free(idx);
    for (size_t i = 0; i < s->nframes; i++) {
        size_t len = 0;
        if (!s->frames[i].label)
            lab_line(c, &s->frames[i], &s->frames[i].label, &len, NULL, NULL);
    }
}
