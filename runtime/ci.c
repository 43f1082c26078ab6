/* runtime/ci.c - for CI: suppressions, a heap budget, the JSON report.

   Owns: MTRACE_SUPPRESS (read at start, matched at exit), MTRACE_MAX_HEAP,
   and MTRACE_REPORT's file (doc/report-json.md).
   May call: runtime/state.c, out.c, sites.c. */

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

/* MTRACE_SUPPRESS: one pattern a line (blank lines and # comments
   skipped); a line that is not one is a warning naming file:line. */
static void mtrace_read_suppressions(void)
{
    enum { MAX = 1 << 20 };
    const char *file = mtrace_getenv("MTRACE_SUPPRESS");
    char *text, *line, *next;
    unsigned at = 0, lines = 1;
    if (!file || !*file)
        return;
    mt.supp_file = file;
    if (!(text = (char *)mtrace_pages(MAX)) || mtrace_read_file(file, text, MAX) < 0) {
        mtrace_say("*** MTRACE: warning: cannot read the suppression file ");
        mtrace_say(file);
        mtrace_say(": ");
        mtrace_say(strerror(errno));
        mtrace_say("\n");
        return;
    }
    for (line = text; *line; line++)
        lines += *line == '\n';
    if (!(mt.supp = (struct mtrace_supp *)mtrace_pages(lines * sizeof *mt.supp)))
        return;
    for (line = text; line; line = next) {
        struct mtrace_supp *p = &mt.supp[mt.nsupp];
        if ((next = strchr(line, '\n')))
            *next++ = 0;
        at++;
        line += strspn(line, " \t");
        line[strcspn(line, "\r")] = 0;
        while (*line && (line[strlen(line) - 1] == ' ' || line[strlen(line) - 1] == '\t'))
            line[strlen(line) - 1] = 0;
        if (!*line || *line == '#')
            continue;
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

/* MTRACE_REPORT: what the summary and the leak report hold, as JSON
   (doc/report-json.md), written at exit at every level. */
static void mtrace_write_json(int status)
{
    const char *name = mtrace_getenv("MTRACE_REPORT");
    char path[4096], line[256];
    struct mtrace_fout *f;
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
    if (!mtrace_build_name(path, sizeof path, name) || !(f = (struct mtrace_fout *)mtrace_pages(sizeof *f))) {
        mtrace_say("*** MTRACE: warning: MTRACE_REPORT: the name is too long: no JSON report\n");
        return;
    }
    if ((f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
        mtrace_say("*** MTRACE: warning: cannot write the JSON report ");
        mtrace_say(path);
        mtrace_say(": ");
        mtrace_say(strerror(errno));
        mtrace_say("\n");
        mtrace_unpages(f, sizeof *f);
        return;
    }
    f->n = 0;
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
    mtrace_write_all(f->fd, f->buf, f->n);
    mtrace_close(f->fd);
    mtrace_unpages(f, sizeof *f);
}

