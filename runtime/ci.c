/* SPDX-License-Identifier: MIT */
/* runtime/ci.c - for CI: suppressions, a heap budget, the modes.

   Owns: MTRACE_SUPPRESS (read at start, matched at exit), MTRACE_MAX_HEAP,
   MTRACE_TRACE_MAX (read; runtime/segments.c obeys it), MTRACE_FREED_MAX, the modes MTRACE_DOUBLE_FREE, MTRACE_LEAK_CHECK and
   MTRACE_LEAK_RECORDS (read at start).  The JSON report is json.c's.
   May call: runtime/state.c, out.c, sites.c, segments.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

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
static int mtrace_is_dev_null(const mtrace_stat_t *st)
{
    mtrace_stat_t null;
    return S_ISCHR(st->st_mode) && mtrace_stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode)
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
    mtrace_stat_t st;
    size_t mapped = 0;
    const char *why = 0;
    char *text = 0;
    long got = 0;
    int fd;
    *len = 0;
    while ((fd = mtrace_open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0)) < 0 && errno == EINTR)
        ;
    if (fd < 0 || mtrace_fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "a directory";
    else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
        why = "a FIFO or a pipe, not a regular file (it would wait for its writer)";
    else if (mtrace_is_dev_null(&st))
        st.st_size = 0;
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    /* (compared unsigned long long: a 32-bit size_t takes 4 GiB + 1 for 1) */
    if (!why && (unsigned long long)st.st_size > MTRACE_SUPP_MAX)
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

/* MTRACE_TRACE_MAX=SIZE: the trace's disk use bounded, in segments
   (runtime/segments.c); below a segment's least, that least. */
static void mtrace_read_trace_max(void)
{
    size_t n = mtrace_read_size("MTRACE_TRACE_MAX", "a size (bytes, or with K, M or G)",
                                "the trace is not bounded");
    if (n && n < MTRACE_SEG_MIN) {
        mtrace_say("*** MTRACE: warning: MTRACE_TRACE_MAX=");
        mtrace_say_shown(mtrace_getenv("MTRACE_TRACE_MAX"));
        mtrace_say(" is below 16K, the least that holds 4 segments: 16K\n");
        n = MTRACE_SEG_MIN;
    }
    mt.seg.max = n;
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

/* MTRACE_LEAK_RECORDS=N: the leak records of each kind printed (the
   JSON report holds them all), 0 for all.  Unset (or not a number):
   MTRACE_LEAK_ROWS, about a screenful, decided at exit (with stacks,
   fewer records fill it). */
#define MTRACE_LEAK_ROWS ((size_t)-1)
static void mtrace_read_leak_rows(void)
{
    const char *text = mtrace_getenv("MTRACE_LEAK_RECORDS");
    if (text && !strcmp(text, "0"))
        mt.leak_rows = 0;
    else if (!(mt.leak_rows = mtrace_read_size("MTRACE_LEAK_RECORDS", "a number of records (0: all)",
                                               "about a screenful")))
        mt.leak_rows = MTRACE_LEAK_ROWS;
}

/* MTRACE_DOUBLE_FREE=continue, MTRACE_LEAK_CHECK=reachable and
   MTRACE_LEAK_RECORDS. */
static void mtrace_read_modes(void)
{
    mt.keep_going = mtrace_read_mode("MTRACE_DOUBLE_FREE", "continue", "a double or invalid free aborts");
    mt.reachable_mode = mtrace_read_mode("MTRACE_LEAK_CHECK", "reachable", "every block live at exit is a leak");
    mt.no_writer = mtrace_read_mode("MTRACE_WRITER", "0", "a thread of the tracer's formats and writes the trace");
    mtrace_read_leak_rows();
}

MTRACE_COLD_FILE_END
