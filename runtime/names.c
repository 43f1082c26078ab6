/* SPDX-License-Identifier: MIT */
/* runtime/names.c - names of code addresses, for the reports.

   Owns: running addr2line on the frames a report prints, and the notes
   "file:line: note: called from f".
   May call: runtime/state.c, out.c, stacks.c, trace.c (its clock).

   addr2line (binutils, found wherever gcc is) turns a module's address
   into "function" and "file:line".  It runs without a shell, its
   arguments an argv, once per module and 64 addresses; never in a
   set-user-ID program (PATH is not ours to trust there).  Without it,
   frames are shown as module+offset. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

#define MTRACE_NOTE_FRAMES 6    /* callers shown under a report's place */
#define MTRACE_MAXSYMS 16384    /* addresses named per report */

struct mtrace_sym { uintptr_t addr; char func[128], where[256]; };

static int mtrace_by_sym_addr(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_sym *)a)->addr, y = ((const struct mtrace_sym *)b)->addr;
    return x < y ? -1 : x > y;
}

/* A path under the current directory made relative to it, as the
   compiler's __FILE__ usually is. */
static const char *mtrace_relative(const char *path)
{
    char cwd[MTRACE_PATHMAX];
    size_t n;
    if (!mtrace_getcwd(cwd, sizeof cwd))
        return path;
    n = strlen(cwd);
    return strncmp(path, cwd, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* Line k of text (lines cut at '\n' into dst, at most cap - 1 bytes). */
static const char *mtrace_take_line(const char *t, const char *end, char *dst, size_t cap)
{
    size_t n = 0;
    while (t < end && *t != '\n') {
        if (n + 1 < cap)
            dst[n++] = *t;
        t++;
    }
    dst[n] = 0;
    return t < end ? t + 1 : t;
}

/* Waits for the helper `pid` to write on fd, until mt.addr2line_until:
   1 when there is something to read (or its end).  A helper that does
   not answer in time (MTRACE_ADDR2LINE naming a program that never
   writes, a hung NFS mount) is killed, said once, and not asked again:
   the frames are then shown as module+offset, and the program ends. */
static int mtrace_answered(int fd, pid_t pid, const char *tool)
{
    struct pollfd pf;
    long left;
    int r;
    for (;;) {
        pf.fd = fd;
        pf.events = POLLIN;
        left = mt.addr2line_until - mtrace_now_ms();
        if (left > 0 && (r = poll(&pf, 1, (int)left)) != 0) {
            if (r > 0 || errno != EINTR)
                return r > 0;
            continue;
        }
        kill(pid, SIGKILL);
        mt.addr2line_dead = 1;
        mtrace_say("*** MTRACE: warning: ");
        mtrace_say(tool);
        mtrace_say(" (MTRACE_ADDR2LINE) did not answer within 5 s: frames shown as module+offset\n");
        return 0;
    }
}

/* addr2line's two lines per address for v[0..n), n <= 64, all in segment
   seg; names it cannot give stay "". */
static void mtrace_addr2line(struct mtrace_sym *v, unsigned n, const struct mtrace_seg *seg, const char *tool)
{
    enum { OUT = 1 << 16 };
    char *argv[4 + 64 + 1], hex[64][24], *out = (char *)mtrace_pages(OUT), line[256];
    const char *t, *end;
    posix_spawn_file_actions_t fa;
    int fds[2], status;
    unsigned i;
    pid_t pid;
    long got = 0, r;
    argv[0] = (char *)tool;
    argv[1] = (char *)"-f";
    argv[2] = (char *)"-e";
    argv[3] = (char *)seg->path;
    for (i = 0; i < n; i++) {
        snprintf(hex[i], sizeof hex[i], "0x%lx", (unsigned long)(v[i].addr - 1 - seg->bias));
        argv[4 + i] = hex[i];
    }
    argv[4 + n] = 0;
    if (!out || mtrace_pipe_cloexec(fds) != 0) {
        mtrace_unpages(out, OUT);
        return;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, tool, &fa, 0, argv, mtrace_environment()) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    mtrace_close(fds[1]);
    while (pid > 0 && got < OUT && mtrace_answered(fds[0], pid, tool)) {
        if ((r = mtrace_read(fds[0], out + got, (size_t)(OUT - got))) > 0)
            got += r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    mtrace_close(fds[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    for (t = out, end = out + got, i = 0; i < n && t < end; i++) {
        t = mtrace_take_line(t, end, line, sizeof line);
        if (strcmp(line, "??") != 0)
            snprintf(v[i].func, sizeof v[i].func, "%.*s", (int)sizeof v[i].func - 1, line);
        t = mtrace_take_line(t, end, line, sizeof line);
        if (strncmp(line, "??", 2) != 0 && line[0] != ':') {  /* "file:line (discriminator N)" */
            const char *where = mtrace_relative(line);
            snprintf(v[i].where, sizeof v[i].where, "%.*s", (int)strcspn(where, " "), where);
        }
    }
    mtrace_unpages(out, OUT);
}

/* Names for the addresses a[0..n): mt.syms, sorted and unique. */
static void mtrace_symbolize(const uintptr_t *a, unsigned n)
{
    const char *tool = mtrace_getenv("MTRACE_ADDR2LINE");
    unsigned i, j, k;
    if (!mt.syms && !(mt.syms = (struct mtrace_sym *)mtrace_pages(MTRACE_MAXSYMS * sizeof *mt.syms)))
        return;
    for (mt.nsyms = 0, i = 0; i < n && mt.nsyms < MTRACE_MAXSYMS; i++) {
        memset(&mt.syms[mt.nsyms], 0, sizeof *mt.syms);
        mt.syms[mt.nsyms++].addr = a[i];
    }
    qsort(mt.syms, mt.nsyms, sizeof *mt.syms, mtrace_by_sym_addr);
    for (i = j = 0; i < mt.nsyms; i++)
        if (!j || mt.syms[j - 1].addr != mt.syms[i].addr)
            mt.syms[j++] = mt.syms[i];
    mt.nsyms = j;
    if (!tool)
        tool = "addr2line";
    if (!*tool || mtrace_secure() || mt.addr2line_dead)
        return;
    mt.addr2line_until = mtrace_now_ms() + 5000;
    for (i = 0; i < mt.nsyms; i = j) {      /* runs of one segment, 64 at most */
        int seg = mtrace_seg_in(mt.syms[i].addr, mt.nsegs);
        for (j = i + 1, k = 1; j < mt.nsyms && k < 64 && mtrace_seg_in(mt.syms[j].addr, mt.nsegs) == seg; j++, k++)
            ;
        if (seg >= 0 && !mt.addr2line_dead)
            mtrace_addr2line(&mt.syms[i], j - i, &mt.segs[seg], tool);
    }
}

static const struct mtrace_sym *mtrace_sym_of(uintptr_t a)
{
    struct mtrace_sym key;
    key.addr = a;
    return mt.nsyms ? (const struct mtrace_sym *)bsearch(&key, mt.syms, mt.nsyms, sizeof key, mtrace_by_sym_addr) : 0;
}

/* One note for the caller at return address a: "file:line: note: called
   from f", or the module and offset when it has no name. */
static char *mtrace_put_caller(char *o, char *end, uintptr_t a)
{
    const struct mtrace_sym *y = mtrace_sym_of(a);
    int seg = mtrace_seg_in(a, mt.nsegs);
    if (y && y->func[0])
        return o + snprintf(o, (size_t)(end - o), "%s: note: called from %s\n",
                            y->where[0] ? y->where : "<unknown>:0", y->func);
    return o + snprintf(o, (size_t)(end - o), "<unknown>:0: note: called from 0x%lx (in %.*s+0x%lx)\n",
                        (unsigned long)a, MTRACE_NAMEMAX, seg >= 0 ? mt.segs[seg].path : "?",
                        (unsigned long)(seg >= 0 ? a - mt.segs[seg].bias : a));
}

/* Site s, made for the call that returns to `ret`, takes its name. */
static void mtrace_name_caller(struct mtrace_sitestat *s, uintptr_t ret)
{
    const struct mtrace_sym *y = mtrace_sym_of(ret);
    int seg = mtrace_seg_in(ret, mt.nsegs);
    const char *colon, *func = 0, *file = 0;
    char where[256];
    int line = 0;
    if (y && y->func[0] && y->where[0] && (colon = strrchr(y->where, ':'))) {
        snprintf(where, sizeof where, "%.*s", (int)(colon - y->where), y->where);
        func = mtrace_keep_name(y->func);
        file = mtrace_keep_name(where);
        line = atoi(colon + 1);
    } else if (seg >= 0) {      /* no line: the module and the offset */
        snprintf(where, sizeof where, "%.200s+0x%lx", mtrace_relative(mt.segs[seg].path),
                 (unsigned long)(ret - mt.segs[seg].bias));
        func = y && y->func[0] ? mtrace_keep_name(y->func) : "?";
        file = mtrace_keep_name(where);
    }
    if (func && file) {
        s->func = func;
        s->file = file;
        s->line = line;
        s->renamed = 1;
    }
}

/* Is return address a in main (where Massif's trees stop too)? */
static int mtrace_in_main(uintptr_t a)
{
    const struct mtrace_sym *y = mtrace_sym_of(a);
    return y && !strcmp(y->func, "main");
}

/* The callers frames[from..n), a note each, up to main and at most
   MTRACE_NOTE_FRAMES. */
static char *mtrace_put_chain(char *o, char *end, const uintptr_t *frames, unsigned from, unsigned n)
{
    unsigned i;
    for (i = from; i < n && i < from + MTRACE_NOTE_FRAMES && o < end; i++) {
        o = mtrace_put_caller(o, end, frames[i]);
        if (mtrace_in_main(frames[i]))
            break;
    }
    return o < end ? o : end;
}

/* The sites that callers.c made for calls no macro announced, named at
   exit (tables frozen) as the reports name frames: "f file.c:12" from
   addr2line, or "? module+0xOFF" where nothing better is known; their
   stacks take the name too.  The trace says it in "#site" records. */
static void mtrace_name_callers(void)
{
    const struct mtrace_caller *t = mt.callers;
    uintptr_t *a;
    unsigned i, n = 0;
    if (!t || !(a = (uintptr_t *)mtrace_pages(MTRACE_MAXCALLERS * sizeof *a)))
        return;
    for (i = 0; i < MTRACE_MAXCALLERS; i++)
        if (t[i].ready && t[i].site.index)
            a[n++] = t[i].ret;
    mtrace_symbolize(a, n);
    for (i = 0; i < MTRACE_MAXCALLERS; i++)
        if (t[i].ready && t[i].site.index)
            mtrace_name_caller(&mt.sites[t[i].site.index], t[i].ret);
    for (i = 1; i < mt.nsites; i++)
        if (mt.sites[i].parent && mt.sites[mt.sites[i].parent].renamed) {
            mt.sites[i].func = mt.sites[mt.sites[i].parent].func;
            mt.sites[i].file = mt.sites[mt.sites[i].parent].file;
            mt.sites[i].line = mt.sites[mt.sites[i].parent].line;
        }
    mtrace_unpages(a, MTRACE_MAXCALLERS * sizeof *a);
}

MTRACE_COLD_FILE_END
