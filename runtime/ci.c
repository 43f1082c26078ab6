/* runtime/ci.c - for CI: suppressions, a heap budget, the JSON report.

   Owns: MTRACE_SUPPRESS (read at start, matched at exit), MTRACE_MAX_HEAP,
   MTRACE_FREED_MAX, the modes MTRACE_DOUBLE_FREE and MTRACE_LEAK_CHECK
   (read at start), and MTRACE_REPORT's file (doc/report-json.md).
   May call: runtime/state.c, out.c, sites.c, trace.c (mtrace_io_begin and
   _end around the report's writes). */

/* One line of the suppression file, s (its terminator already cut), into
   *p: 0 if it is not one. */
static int mtrace_parse_supp(char *s, struct mtrace_supp *p)
{
    char *colon, *end;
    memset(p, 0, sizeof *p);
    if (!strncmp(s, "fun:", 4) && s[4]) {
        p->fun = s + 4;
        return 1;
    }
    if (strncmp(s, "src:", 4) || !s[4])
        return 0;
    p->src = s + 4;
    colon = strrchr(p->src, ':');
    if (colon && colon[1]) {
        long line = strtol(colon + 1, &end, 10);
        if (!*end && line > 0) {
            *colon = 0;
            p->line = (int)line;
        }
    }
    return *p->src != 0;
}

/* Is this open file /dev/null?  As an input it is empty, as an output
   it discards: both are what the user asked for. */
static int mtrace_is_dev_null(const struct stat *st)
{
    struct stat null;
    return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode)
        && null.st_rdev == st->st_rdev;
}

/* The largest suppression file read: a larger one is refused with one
   warning, never cut (a pattern past the cut would be ignored unseen). */
#define MTRACE_SUPP_MAX ((size_t)64 << 20)

/* MTRACE_SUPPRESS's file, whole and NUL-terminated (the patterns point
   into it: kept), *len its length; 0 after one warning naming the
   variable.  It never waits: opened without blocking, and only a regular
   file (or /dev/null, empty) is read: a FIFO would wait for its writer. */
static char *mtrace_read_supp_file(const char *file, size_t *len)
{
    struct stat st;
    size_t mapped = 0;
    const char *why = 0;
    char *text = 0;
    long got = 0;
    int fd;
    *len = 0;
    while ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 && errno == EINTR)
        ;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "a directory";
    else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
        why = "a FIFO or a pipe, not a regular file (it would wait for its writer)";
    else if (mtrace_is_dev_null(&st))
        st.st_size = 0;
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    if (!why && (size_t)st.st_size > MTRACE_SUPP_MAX)
        why = "larger than 64 MiB (the most read)";
    else if (!why && !(text = (char *)mtrace_pages(mapped = (size_t)st.st_size + 1)))
        why = strerror(ENOMEM);
    while (!why && *len < (size_t)st.st_size
           && ((got = mtrace_read(fd, text + *len, (size_t)st.st_size - *len)) > 0 || (got < 0 && errno == EINTR)))
        *len += got > 0 ? (size_t)got : 0;
    if (!why && got < 0)
        why = strerror(errno);
    if (fd >= 0)
        mtrace_close(fd);
    if (why) {
        mtrace_say("*** MTRACE: warning: cannot read the suppression file ");
        mtrace_say_shown(file);
        mtrace_say(": ");
        mtrace_say(why);
        mtrace_say(": MTRACE_SUPPRESS ignored\n");
        mtrace_unpages(text, mapped);
        return 0;
    }
    text[*len] = 0;
    return text;
}

/* MTRACE_SUPPRESS: one pattern a line (blank lines and # comments
   skipped), the whole file; a line that is not one (a NUL byte in it
   included) is a warning naming file:line. */
static void mtrace_read_suppressions(void)
{
    const char *file = mtrace_getenv("MTRACE_SUPPRESS");
    char *text, *line, *next, *end;
    size_t len, cap = 0;
    unsigned at = 0;
    if (!file || !*file)
        return;
    mt.supp_file = file;
    if (!(text = mtrace_read_supp_file(file, &len)))
        return;
    for (line = text, end = text + len; line < end; line = next) {
        struct mtrace_supp *p;
        size_t n;
        if (!(next = (char *)memchr(line, '\n', (size_t)(end - line))))
            next = end;
        *next++ = 0;            /* (text[len] is the NUL after the last) */
        at++;
        if (strlen(line) < (size_t)(next - 1 - line)) {
            char msg[512];
            snprintf(msg, sizeof msg, "*** MTRACE: %.300s:%u: not a suppression (a NUL byte in the line)\n", file, at);
            mtrace_say(msg);
            continue;
        }
        line += strspn(line, " \t");
        line[strcspn(line, "\r")] = 0;
        while ((n = strlen(line)) && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[n - 1] = 0;
        if (!*line || *line == '#')
            continue;
        if (mt.nsupp == cap) {  /* the table doubles: no bound but the file's */
            struct mtrace_supp *more = (struct mtrace_supp *)mtrace_pages((cap ? 2 * cap : 64) * sizeof *more);
            if (!more) {
                mtrace_say("*** MTRACE: warning: out of memory for the suppressions: the rest of the file is ignored\n");
                return;
            }
            if (cap)
                memcpy(more, mt.supp, cap * sizeof *more);
            mtrace_unpages(mt.supp, cap * sizeof *more);
            mt.supp = more;
            cap = cap ? 2 * cap : 64;
        }
        p = &mt.supp[mt.nsupp];
        if (mtrace_parse_supp(line, p)) {
            p->at = at;
            mt.nsupp++;
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "*** MTRACE: %.300s:%u: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): %.100s\n",
                     file, at, line);
            mtrace_say(msg);
        }
    }
}

/* The first suppression that matches site s, or NULL.  A file pattern
   without '/' is also tried on the file's last component. */
static struct mtrace_supp *mtrace_suppression(const struct mtrace_sitestat *s)
{
    unsigned i;
    for (i = 0; i < mt.nsupp; i++) {
        struct mtrace_supp *p = &mt.supp[i];
        const char *base = strrchr(s->file, '/');
        if (p->fun && fnmatch(p->fun, s->func, 0) == 0)
            return p;
        if (p->src && (!p->line || p->line == s->line)
            && (fnmatch(p->src, s->file, 0) == 0
                || (base && !strchr(p->src, '/') && fnmatch(p->src, base + 1, 0) == 0)))
            return p;
    }
    return 0;
}

/* A count or size from the environment: a number, or with K, M or G
   (1024, 1024^2, 1024^3); 0 when unset, and with a warning (what it
   should be, what is done instead) when it is not one. */
static size_t mtrace_read_size(const char *var, const char *should, const char *instead)
{
    const char *text = mtrace_getenv(var);
    char *end;
    unsigned long long v;
    if (!text || !*text)
        return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    if (*end || end == text || errno || !v || *text == '-' || v != (size_t)v) {
        char msg[256];
        snprintf(msg, sizeof msg, "*** MTRACE: warning: %s=%.100s is not %s: %s\n", var, text, should, instead);
        mtrace_say(msg);
        return 0;
    }
    return (size_t)v;
}

/* MTRACE_MAX_HEAP=SIZE: a budget for the traced peak, in bytes. */
static void mtrace_read_budget(void)
{
    if ((mt.budget = mtrace_read_size("MTRACE_MAX_HEAP", "a size (bytes, or with K, M or G)", "no budget")))
        mt.budget_text = mtrace_getenv("MTRACE_MAX_HEAP");
}

/* MTRACE_FREED_MAX=N: the freed blocks whose double free is still caught,
   the most recent N per table (at least MTRACE_EPOCHS). */
static void mtrace_read_freed_max(void)
{
    size_t n = mtrace_read_size("MTRACE_FREED_MAX", "a number of blocks (or with K, M or G)",
                                "the default, 1M");
    mt.freed_max = !n ? MTRACE_FREED_DEFAULT : n < MTRACE_EPOCHS ? MTRACE_EPOCHS : n;
}

/* A variable that takes one value (beside unset or empty): 1 if it has
   it; another is one warning naming the variable and that value, and
   the default stays (`instead` says what it is). */
static int mtrace_read_mode(const char *var, const char *value, const char *instead)
{
    const char *text = mtrace_getenv(var);
    char msg[512];
    if (!text || !*text)
        return 0;
    if (!strcmp(text, value))
        return 1;
    snprintf(msg, sizeof msg, "*** MTRACE: warning: %s=%.100s is not %s (its only value): %s\n", var, text, value, instead);
    mtrace_say(msg);
    return 0;
}

/* MTRACE_DOUBLE_FREE=continue and MTRACE_LEAK_CHECK=reachable. */
static void mtrace_read_modes(void)
{
    mt.keep_going = mtrace_read_mode("MTRACE_DOUBLE_FREE", "continue", "a double or invalid free aborts");
    mt.reachable_mode = mtrace_read_mode("MTRACE_LEAK_CHECK", "reachable", "every block live at exit is a leak");
}

/* MTRACE_REPORT's file, opened for writing: its descriptor, or -1 after
   one warning.  The open never waits (a FIFO that nobody reads is
   refused); then only a regular file, a FIFO that has a reader, or
   /dev/null takes the report, and never the program's own standard
   input, output or error (the report would land amid, or before, what
   the program wrote there: stdio flushes after us).  A regular file is
   truncated only once it is known to be fit. */
static int mtrace_open_report(const char *path)
{
    struct stat st, io;
    const char *why = 0;
    int fd, i, null = 0;
    while ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666)) < 0 && errno == EINTR)
        ;
    if (fd < 0)
        why = errno == ENXIO ? "a FIFO that nobody reads" : strerror(errno);
    else if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !(null = mtrace_is_dev_null(&st)))
        why = "not a regular file, a FIFO or /dev/null";
    for (i = 0; !why && !null && i <= 2; i++)
        if (fstat(i, &io) == 0 && io.st_dev == st.st_dev && io.st_ino == st.st_ino)
            why = "the program's own standard input, output or error";
    if (!why && (fcntl(fd, F_SETFL, O_WRONLY) != 0 || (S_ISREG(st.st_mode) && mtrace_ftruncate(fd, 0) != 0)))
        why = strerror(errno);
    if (!why)
        return fd;
    if (fd >= 0)
        mtrace_close(fd);
    mtrace_say("*** MTRACE: warning: MTRACE_REPORT: cannot write the JSON report ");
    mtrace_say_shown(path);
    mtrace_say(": ");
    mtrace_say(why);
    mtrace_say(": no JSON report\n");
    return -1;
}

/* MTRACE_REPORT: what the summary and the leak report hold, as JSON
   (doc/report-json.md), written at exit at every level. */
static void mtrace_write_json(int status)
{
    const char *name = mtrace_getenv("MTRACE_REPORT");
    char path[4096], line[256];
    struct mtrace_fout *f;
    struct mtrace_io io;
    unsigned i, *order;
    const struct { const char *key; size_t value; } figures[] = {   /* in doc/report-json.md's order */
        { "max_rss_bytes", mt.maxrss }, { "peak_bytes", mt.max }, { "peak_record", mt.peak_recno },
        { "records", mt.nr }, { "tracer_bytes_at_peak", mt.maxoverhead },
        { "double_frees", mt.double_frees }, { "invalid_frees", mt.invalid_frees },
        { "freed_forgotten", mt.heap.forgotten + mt.pool.forgotten }, { "leaked_bytes", mt.leaked },
        { "leaked_blocks", mt.leaked_blocks }, { "suppressed_bytes", mt.suppressed },
        { "suppressed_blocks", mt.suppressed_blocks }, { "reachable_bytes", mt.reachable },
        { "untraced_signal_calls", mt.passed } };
    if (!name || !*name)
        return;
    if (mtrace_name_fault(name, line, sizeof line)) {
        mtrace_say("*** MTRACE: warning: MTRACE_REPORT=");
        mtrace_say_shown(name);
        mtrace_say(": ");
        mtrace_say_shown(line);
        mtrace_say(": no JSON report\n");
        return;
    }
    if (!mtrace_build_name(path, sizeof path, name) || !(f = (struct mtrace_fout *)mtrace_pages(sizeof *f))) {
        mtrace_say("*** MTRACE: warning: MTRACE_REPORT: the name is too long: no JSON report\n");
        return;
    }
    mtrace_io_begin(&io);       /* no SIGPIPE, no SIGXFSZ: a failed write is a warning */
    if ((f->fd = mtrace_open_report(path)) < 0) {
        mtrace_io_end(&io, 0);
        mtrace_unpages(f, sizeof *f);
        return;
    }
    f->n = 0;
    f->err = 0;
    mtrace_fputs(f, "{\n  \"mtrace_report\": 1,\n");
    mtrace_fput_num(f, "pid", (size_t)mt.pid, 0);
    snprintf(line, sizeof line, "  \"rank\": %ld,\n  \"level\": %d,\n", mt.rank, mt.level);
    mtrace_fputs(f, line);
    mtrace_fputs(f, "  \"trace\": ");
    if (mt.trace_written)
        mtrace_fput_json(f, mt.path);
    else
        mtrace_fputs(f, "null");
    snprintf(line, sizeof line, ",\n  \"program_status\": %d,\n  \"exit_status\": %d,\n", mt.exit_status, status);
    mtrace_fputs(f, line);
    for (i = 0; i < sizeof figures / sizeof *figures; i++)
        mtrace_fput_num(f, figures[i].key, figures[i].value, 0);
    if (mt.budget)
        mtrace_fput_num(f, "budget_bytes", mt.budget, 0);
    else
        mtrace_fputs(f, "  \"budget_bytes\": null,\n");
    snprintf(line, sizeof line, "  \"over_budget\": %s,\n  \"sites\": [", mt.over_budget ? "true" : "false");
    mtrace_fputs(f, line);
    order = mtrace_sorted_sites(mtrace_by_peak);
    for (i = 0; order && i < mt.nsorted; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        mtrace_fputs(f, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
        mtrace_fput_json(f, s->func);
        mtrace_fputs(f, ", \"file\": ");
        mtrace_fput_json(f, s->file);
        snprintf(line, sizeof line, ", \"line\": %d, \"allocations\": %lu, \"peak_bytes\": %lu, "
                 "\"bytes_at_peak\": %lu, \"live_bytes\": %lu, \"live_blocks\": %lu, \"reachable_bytes\": %lu, \"suppressed\": %s}",
                 s->line, (unsigned long)s->allocs, (unsigned long)s->peak,
                 (unsigned long)(s->seen == mt.peak_no ? s->at_peak : s->live), (unsigned long)s->live,
                 (unsigned long)s->nlive, (unsigned long)s->reach, s->live && mtrace_suppression(s) ? "true" : "false");
        mtrace_fputs(f, line);
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    mtrace_fputs(f, "\n  ]\n}\n");
    if (!f->err)
        f->err = mtrace_write_all(f->fd, f->buf, f->n);
    if (mtrace_close(f->fd) != 0 && !f->err && errno != EINTR)
        f->err = errno;         /* (NFS, a quota: the data may fail only here) */
    mtrace_io_end(&io, f->err);
    if (f->err) {
        mtrace_say("*** MTRACE: warning: MTRACE_REPORT: cannot write the JSON report ");
        mtrace_say_shown(path);
        mtrace_say(": ");
        mtrace_say(f->err == EPIPE ? "its reader went away" : strerror(f->err));
        mtrace_say(": the report is incomplete\n");
    }
    mtrace_unpages(f, sizeof *f);
}

