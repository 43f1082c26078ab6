/* SPDX-License-Identifier: MIT */
/* runtime/names.c - names of code addresses, for the reports.

   Owns: running addr2line on the frames a report prints, the notes
   "file:line: note: called from f", and the one way the exit report
   writes paths (mtrace_relative; the sites' files, mtrace_place_sites).
   May call: runtime/state.c, out.c, sites.c, stacks.c, trace.c (its clock).

   addr2line (binutils, found wherever gcc is) turns a module's address
   into "function" and "file:line".  It runs without a shell, its
   arguments an argv, once per module and 512 addresses; never in a
   set-user-ID program (PATH is not ours to trust there).  Without it,
   frames are shown as module+offset. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

#define MTRACE_NOTE_FRAMES 6    /* callers shown under a report's place */
#define MTRACE_MAXSYMS 16384    /* addresses named per report */
#define MTRACE_A2L_BATCH 512    /* addresses per run of addr2line (each reads the
                                   module's debug information again) */
#define MTRACE_PLACE_ASKED 2048 /* calls named to place the sites' files (4 runs) */

/* An address's name: its function, "file:line" as the reports write it
   (mtrace_relative), and the file as addr2line gave it (its compilation
   directory's path: mtrace_place_sites). */
struct mtrace_sym {
    uintptr_t addr;
    char func[256], where[256], path[256];
    /* When the code at addr is the C++ library's, inlined (std::vector's
       growth in an optimised caller): the first function it was inlined
       into that is not, and its "file:line" (addr2line -i); else "". */
    char outer_func[256], outer_where[256];
};

/* Is `func` (as addr2line -C names it) the C++ standard library's: in
   namespace std (libstdc++'s, libc++'s std::__1) or libstdc++'s
   __gnu_cxx?  Once the program allocated with operator new, the reports
   charge an allocation past these, as Massif's --alloc-fn list names the
   allocator's own functions: std::vector's growth is charged to the line
   that made the vector grow, past allocator<T>::allocate,
   _M_realloc_insert, ...  A template's name begins with its return type
   ("void std::vector<int>::_M_realloc_insert<int>(...)"): the name is
   the last word before the parameters. */
static int mtrace_is_cxx_library_fn(const char *func)
{
    const char *name = func, *p;
    int depth = 0;
    if (!mt.cxx)
        return 0;
    for (p = func; *p && (*p != '(' || depth); p++)
        if (*p == '<')
            depth++;
        else if (*p == '>')
            depth--;
        else if (*p == ' ' && !depth)
            name = p + 1;
    return !strncmp(name, "std::", 5) || !strncmp(name, "__gnu_cxx::", 11);
}

static int mtrace_by_sym_addr(const void *a, const void *b)
{
    uintptr_t x = ((const struct mtrace_sym *)a)->addr, y = ((const struct mtrace_sym *)b)->addr;
    return x < y ? -1 : x > y;
}

/* The one way every path of a report is written: relative to the
   current directory when it lies below it, else as it is (absolute, as
   addr2line gives it); mtrace_place_sites writes the sites' files so. */
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

/* One function and "file:line" of addr2line's answer for v: the first
   (`inlined` 0: the code at the address) as its name, then the functions
   it was inlined into: the first that is not the C++ library's, when it
   is (mtrace_sym's outer_func). */
static void mtrace_take_frame(struct mtrace_sym *v, int inlined, const char *func, char *line)
{
    char *tail = strstr(line, " (discriminator ");
    int named = strcmp(func, "??") != 0, placed = strncmp(line, "??", 2) != 0 && line[0] != ':';
    if (tail)
        *tail = 0;
    if (!inlined) {
        if (named)
            snprintf(v->func, sizeof v->func, "%s", func);
        if (placed) {
            snprintf(v->path, sizeof v->path, "%s", line);
            snprintf(v->where, sizeof v->where, "%s", mtrace_relative(line));
        }
    } else if (named && placed && !v->outer_func[0] && mtrace_is_cxx_library_fn(v->func)
               && !mtrace_is_cxx_library_fn(func)) {
        snprintf(v->outer_func, sizeof v->outer_func, "%s", func);
        snprintf(v->outer_where, sizeof v->outer_where, "%s", mtrace_relative(line));
    }
}

/* addr2line's answer for v[0..n), n <= MTRACE_A2L_BATCH, all in segment
   seg: per address (-a) its line "0x...", then two lines per function,
   the inlined ones (-i) after the first; names it cannot give stay "".
   A function's line never begins with "0x" (no name does).  Its
   arguments and its output (1 KiB an address at most) in pages of their
   own. */
static void mtrace_addr2line(struct mtrace_sym *v, unsigned n, const struct mtrace_seg *seg, const char *tool)
{
    enum { HEX = 24, PER = 1024 };
    size_t most = (size_t)n * PER, bytes = most + (n + 8) * sizeof(char *) + (size_t)n * HEX;
    char *out = (char *)mtrace_pages(bytes), **argv, *hex, line[256], func[256];
    const char *t, *end;
    posix_spawn_file_actions_t fa;
    int fds[2], status;
    unsigned i;
    pid_t pid;
    long got = 0, r;
    int inlined;
    if (!out)
        return;
    argv = (char **)(out + most);
    hex = (char *)(argv + n + 8);
    argv[0] = (char *)tool;
    argv[1] = (char *)"-a";
    argv[2] = (char *)"-i";
    argv[3] = (char *)"-f";
    argv[4] = (char *)"-C";     /* C++'s names demangled (C's stay as they are) */
    argv[5] = (char *)"-e";
    argv[6] = (char *)seg->path;
    for (i = 0; i < n; i++) {
        snprintf(hex + i * HEX, HEX, "0x%lx", (unsigned long)(v[i].addr - 1 - seg->bias));
        argv[7 + i] = hex + i * HEX;
    }
    argv[7 + n] = 0;
    if (mtrace_pipe_cloexec(fds) != 0) {
        mtrace_unpages(out, bytes);
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
    while (pid > 0 && (size_t)got < most && mtrace_answered(fds[0], pid, tool)) {
        if ((r = mtrace_read(fds[0], out + got, most - (size_t)got)) > 0)
            got += r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    mtrace_close(fds[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    for (t = out, end = out + got, i = 0, inlined = -1; t < end;) {
        t = mtrace_take_line(t, end, func, sizeof func);
        if (!strncmp(func, "0x", 2)) {      /* the next address */
            i += inlined >= 0;
            inlined = 0;
            continue;
        }
        t = mtrace_take_line(t, end, line, sizeof line);   /* "file:line (discriminator N)" */
        if (inlined >= 0 && i < n)
            mtrace_take_frame(&v[i], inlined++, func, line);
    }
    mtrace_unpages(out, bytes);
}

/* Names for the addresses a[0..n): mt.syms, sorted and unique.  The C
   library allocates on the way (qsort's buffer, posix_spawn's file
   actions), and a bad-free report names its places while the program
   runs: the thread counts as inside the tracer meanwhile
   (mtrace_own_calls_begin says why). */
static void mtrace_symbolize_now(const uintptr_t *a, unsigned n);
static void mtrace_symbolize(const uintptr_t *a, unsigned n)
{
    int was = mtrace_own_calls_begin();
    mtrace_symbolize_now(a, n);
    mtrace_own_calls_end(was);
}

static void mtrace_symbolize_now(const uintptr_t *a, unsigned n)
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
    for (i = 0; i < mt.nsyms; i = j) {      /* runs of one segment, MTRACE_A2L_BATCH at most */
        int seg = mtrace_seg_in(mt.syms[i].addr, mt.nsegs);
        for (j = i + 1, k = 1; j < mt.nsyms && k < MTRACE_A2L_BATCH && mtrace_seg_in(mt.syms[j].addr, mt.nsegs) == seg;
             j++, k++)
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
                        (unsigned long)a, MTRACE_NAMEMAX, seg >= 0 ? mtrace_relative(mt.segs[seg].path) : "?",
                        (unsigned long)(seg >= 0 ? a - mt.segs[seg].bias : a));
}

/* Site s, made for the call that returns to `ret`, takes its name. */
static void mtrace_name_caller(struct mtrace_sitestat *s, uintptr_t ret)
{
    const struct mtrace_sym *y = mtrace_sym_of(ret);
    int seg = mtrace_seg_in(ret, mt.nsegs), outer = y && y->outer_func[0];
    const char *colon, *func = 0, *file = 0, *at = !y ? 0 : outer ? y->outer_where : y->where;
    char where[256];
    int line = 0;
    s->ret = ret;               /* (its inlined functions, for the reports' charging) */
    if (y && y->func[0] && at[0] && (colon = strrchr(at, ':'))) {
        snprintf(where, sizeof where, "%.*s", (int)(colon - at), at);
        func = mtrace_keep_name(outer ? y->outer_func : y->func);
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

/* Sites by file, then function, as the compiler named them. */
static int mtrace_by_file(const void *a, const void *b)
{
    const struct mtrace_sitestat *x = &mt.sites[*(const unsigned *)a], *y = &mt.sites[*(const unsigned *)b];
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->func, y->func);
}

/* The end of the run of sites order[from..n) with the same file (and
   function, when `func`). */
static unsigned mtrace_run_end(const unsigned *order, unsigned from, unsigned n, int func)
{
    const struct mtrace_sitestat *s = &mt.sites[order[from]];
    unsigned i;
    for (i = from + 1; i < n; i++) {
        const struct mtrace_sitestat *t = &mt.sites[order[i]];
        if (strcmp(t->file, s->file) != 0 || (func && strcmp(t->func, s->func) != 0))
            break;
    }
    return i;
}

/* A return address among the sites order[from..to) (one function of one
   file) that addr2line can be asked about: 0 if none. */
static uintptr_t mtrace_run_ret(const unsigned *order, unsigned from, unsigned to)
{
    for (; from < to; from++)
        if (mt.sites[order[from]].ret && mtrace_seg_at_exit(mt.sites[order[from]].ret) >= 0)
            return mt.sites[order[from]].ret;
    return 0;
}

/* The calls to name for the sites order[0..n), sorted by file: one call
   of each relative file first (its functions not asked about take their
   path from it), then one of each of its functions, MTRACE_PLACE_ASKED
   at most (addr2line's runs, a few, must stay within its 5 s). */
static unsigned mtrace_place_asks(const unsigned *order, unsigned n, uintptr_t *a)
{
    unsigned i, j, na = 0, func;
    for (func = 0; func < 2; func++)
        for (i = 0; i < n && na < n && na < MTRACE_PLACE_ASKED; i = j) {
            j = mtrace_run_end(order, i, n, (int)func);
            if (mt.sites[order[i]].file[0] != '/' && (a[na] = mtrace_run_ret(order, i, j)))
                na++;
        }
    return na;
}

/* `file`, a relative __FILE__, written as the reports write paths: it
   is relative to the directory it was compiled in, which only the debug
   information knows: addr2line's path for a call made in it (the sym
   of `ret`) is that directory joined with it, so it ends with "/" +
   file; made relative to ours (mtrace_relative).  0 if that does not
   say it (no such call, no addr2line, no -g, another path). */
static const char *mtrace_path_of(const char *file, uintptr_t ret, char *path, size_t room)
{
    const struct mtrace_sym *y = ret ? mtrace_sym_of(ret) : 0;
    const char *colon;
    size_t n = strlen(file), m;
    if (!y || !(colon = strrchr(y->path, ':')))
        return 0;
    m = (size_t)(colon - y->path);
    if (m < n || memcmp(colon - n, file, n) != 0 || (m > n && y->path[m - n - 1] != '/'))
        return 0;
    snprintf(path, room, "%.*s", (int)m, y->path);
    return mtrace_relative(path);
}

/* The same, kept in the tracer's pages (lock held, or the tables frozen). */
static const char *mtrace_file_path(const char *file, uintptr_t ret)
{
    char path[sizeof mt.syms->path];
    const char *p = mtrace_path_of(file, ret, path, sizeof path);
    return p ? mtrace_keep_name(p) : 0;
}

/* The sites order[from..to) of one file, by function, written as the
   reports write paths: an absolute file made relative; a relative one
   by a call of the same function (mtrace_file_path), or else, when the
   functions that made one agree, as they have it (a wrapper's site,
   MTRACE_ALLOC_FN, and the annotations' make no call of their own).
   named[k - from]: order[k] has its path. */
static void mtrace_place_file(const unsigned *order, unsigned from, unsigned to, char *named)
{
    const char *file = mt.sites[order[from]].file, *path, *agreed = 0;
    unsigned i, j, k;
    int conflict = 0;
    for (i = from; i < to; i = j) {
        j = mtrace_run_end(order, i, to, 1);
        path = file[0] == '/' ? mtrace_relative(file) : mtrace_file_path(file, mtrace_run_ret(order, i, j));
        if (!path)
            continue;
        conflict |= agreed && strcmp(agreed, path) != 0;
        agreed = agreed ? agreed : path;
        for (k = i; k < j; k++) {
            mt.sites[order[k]].file = path;
            named[k - from] = 1;
        }
    }
    for (k = from; agreed && !conflict && k < to; k++)
        if (!named[k - from])
            mt.sites[order[k]].file = agreed;
}

/* Every path of the exit report written one way (issue 36): the sites'
   files as the compiler named them (__FILE__: "a.c" compiled inside
   src/, "/abs/src/b.c" by CMake), as addr2line's names of the call
   stacks and of the sites named by their caller are written
   (mtrace_relative).  Once the trace's tail is out (its "@" records keep
   __FILE__ as given), before the reports; the tables are frozen.
   addr2line is asked once per function of a file, not once per site. */
static void mtrace_place_sites(void)
{
    unsigned *order, i, j, n = 0, na;
    uintptr_t *a;
    char *named;
    size_t bytes = (size_t)mt.nsites * (sizeof *a + sizeof *order + 1);
    if (mt.nsites < 2 || !(a = (uintptr_t *)mtrace_pages(bytes)))
        return;
    order = (unsigned *)(a + mt.nsites);
    named = (char *)(order + mt.nsites);
    for (i = 1; i < mt.nsites; i++)
        if (!mt.sites[i].parent && !mt.sites[i].renamed)
            order[n++] = i;
    qsort(order, n, sizeof *order, mtrace_by_file);
    if ((na = mtrace_place_asks(order, n, a)) > 0)
        mtrace_symbolize(a, na);
    for (i = 0; i < n; i = j) {
        j = mtrace_run_end(order, i, n, 0);
        mtrace_place_file(order, i, j, named + i);
    }
    for (i = 1; i < mt.nsites; i++)     /* the stacks, as their sites */
        if (mt.sites[i].parent)
            mt.sites[i].file = mt.sites[mt.sites[i].parent].file;
    mtrace_unpages(a, bytes);
}
MTRACE_COLD_FILE_END
