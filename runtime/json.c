/* SPDX-License-Identifier: MIT */
/* runtime/json.c - MTRACE_REPORT: the exit report as JSON, for CI jobs.

   Owns: MTRACE_REPORT's file and its contents (doc/report-json.md): the
   figures, every site, every leak record (the text report prints the
   first of them), the allocation sizes.
   May call: runtime/state.c, out.c, sites.c, write.c (mtrace_io_begin and
   _end around the report's writes), ci.c, names.c, leaks.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

/* MTRACE_REPORT's file, opened for writing: its descriptor, or -1 after
   one warning.  The open never waits (a FIFO that nobody reads is
   refused); then only a regular file, a FIFO that has a reader, or
   /dev/null takes the report, and never the program's own standard
   input, output or error (the report would land amid, or before, what
   the program wrote there: stdio flushes after us).  A regular file is
   truncated only once it is known to be fit. */
static int mtrace_open_report(const char *path)
{
    mtrace_stat_t st, io;
    const char *why = 0;
    int fd, i, null = 0;
    while ((fd = mtrace_open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666)) < 0 && errno == EINTR)
        ;
    if (fd < 0)
        why = errno == ENXIO ? "a FIFO that nobody reads" : strerror(errno);
    else if (mtrace_fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !(null = mtrace_is_dev_null(&st)))
        why = "not a regular file, a FIFO or /dev/null";
    for (i = 0; !why && !null && i <= 2; i++)
        if (mtrace_fstat(i, &io) == 0 && io.st_dev == st.st_dev && io.st_ino == st.st_ino)
            why = "the program's own standard input, output or error";
    if (!why && (fcntl(fd, F_SETFL, O_WRONLY) != 0 || (S_ISREG(st.st_mode) && mtrace_empty_file(fd) != 0)))
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

/* "sites": every site that allocated, the summary's order. */
static void mtrace_fput_sites(struct mtrace_fout *f)
{
    char line[512];
    unsigned i, *order = mtrace_sorted_sites(mtrace_by_peak);
    for (i = 0; order && i < mt.nsorted; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        mtrace_fputs(f, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
        mtrace_fput_json(f, s->func);
        mtrace_fputs(f, ", \"file\": ");
        mtrace_fput_json(f, s->file);
        snprintf(line, sizeof line, ", \"line\": %d, \"allocations\": %lu, \"calls\": %lu, \"total_bytes\": %lu, "
                 "\"temporary\": %lu, \"peak_bytes\": %lu, \"peak_blocks\": %lu, \"bytes_at_peak\": %lu, "
                 "\"live_bytes\": %lu, \"live_blocks\": %lu, \"reachable_bytes\": %lu, \"suppressed\": %s}",
                 s->line, (unsigned long)s->allocs, (unsigned long)s->allocs, (unsigned long)s->total_bytes,
                 (unsigned long)s->temporary, (unsigned long)s->peak, (unsigned long)s->peak_blocks,
                 (unsigned long)(s->seen == mt.peak_no ? s->at_peak : s->live), (unsigned long)s->live,
                 (unsigned long)s->nlive, (unsigned long)s->reach, s->live && mtrace_suppression(s) ? "true" : "false");
        mtrace_fputs(f, line);
    }
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    mtrace_fputs(f, "\n  ]");
}

/* A place as "function", "file" and "line" members; `where` is "file:line"
   when line < 0 (a caller named by addr2line). */
static void mtrace_fput_place(struct mtrace_fout *f, const char *func, const char *where, int line)
{
    char text[MTRACE_NAMEMAX + 1];
    const char *colon = line < 0 ? strrchr(where, ':') : 0;
    if (line < 0) {
        snprintf(text, sizeof text, "%.*s", colon ? (int)(colon - where) : MTRACE_NAMEMAX, where);
        line = colon ? atoi(colon + 1) : 0;
        where = text;
    }
    mtrace_fputs(f, "{\"function\": ");
    mtrace_fput_json(f, func);
    mtrace_fputs(f, ", \"file\": ");
    mtrace_fput_json(f, where);
    snprintf(text, sizeof text, ", \"line\": %d", line);
    mtrace_fputs(f, text);
}

/* A caller's return address a, as a place, or its module and offset. */
static void mtrace_fput_caller(struct mtrace_fout *f, uintptr_t a)
{
    const struct mtrace_sym *y = mtrace_sym_of(a);
    int seg = mtrace_seg_in(a, mt.nsegs);
    char text[64];
    if (y && y->func[0] && y->where[0])
        mtrace_fput_place(f, y->func, y->where, -1);
    else {
        mtrace_fputs(f, "{\"function\": ");
        mtrace_fput_json(f, y && y->func[0] ? y->func : "?");
        mtrace_fputs(f, ", \"module\": ");
        mtrace_fput_json(f, seg >= 0 ? mt.segs[seg].path : "?");
        snprintf(text, sizeof text, ", \"offset\": %lu", (unsigned long)(seg >= 0 ? a - mt.segs[seg].bias : a));
        mtrace_fputs(f, text);
    }
    mtrace_fputs(f, "}");
}

/* "leaks": every leak record (leaks.c), errors then reachable notes,
   each with the callers the text shows. */
static void mtrace_fput_leaks(struct mtrace_fout *f)
{
    char line[128];
    unsigned i, j;
    mtrace_fputs(f, ",\n  \"leaks\": [");
    for (i = 0; i < mtrace_leaks.n; i++) {
        const struct mtrace_leak *r = &mtrace_leaks.rec[i];
        mtrace_fputs(f, i ? ",\n    " : "\n    ");
        mtrace_fput_place(f, r->func, r->file, r->line);
        snprintf(line, sizeof line, ", \"kind\": \"%s\", \"bytes\": %lu, \"blocks\": %lu, \"callers\": [",
                 r->reachable ? "reachable" : "leak", (unsigned long)r->bytes, (unsigned long)r->blocks);
        mtrace_fputs(f, line);
        for (j = r->from; j < r->to; j++) {
            mtrace_fputs(f, j > r->from ? ", " : "");
            mtrace_fput_caller(f, r->frames[j]);
        }
        mtrace_fputs(f, "]}");
    }
    mtrace_fputs(f, "\n  ]");
}

/* "size_histogram": the allocation requests by size, in power-of-two
   buckets [min, max], the empty ones left out. */
static void mtrace_fput_sizes(struct mtrace_fout *f)
{
    char line[128];
    unsigned k, n = 0;
    mtrace_fputs(f, ",\n  \"size_histogram\": [");
    for (k = 0; k < 65; k++)
        if (mt.sizes[k]) {
            unsigned long long lo = k ? 1ULL << (k - 1) : 0, hi = k ? lo + (lo - 1) : 0;
            snprintf(line, sizeof line, "%s{\"min\": %llu, \"max\": %llu, \"count\": %lu}", n++ ? ", " : "",
                     lo, hi, (unsigned long)mt.sizes[k]);
            mtrace_fputs(f, line);
        }
    mtrace_fputs(f, "]");
}

/* At start: a relative MTRACE_REPORT is taken from the working directory
   then (doc/report-json.md), not from wherever the program went since (a
   daemon's chdir("/")); kept in pages of its own, as mt.path is. */
static void mtrace_keep_report_dir(void)
{
    const char *name = mtrace_getenv("MTRACE_REPORT");
    if (!name || !*name || name[0] == '/' || !(mt.report_dir = (char *)mtrace_pages(MTRACE_PATHMAX)))
        return;
    if (!mtrace_getcwd(mt.report_dir, MTRACE_PATHMAX)) {
        mtrace_unpages(mt.report_dir, MTRACE_PATHMAX);
        mt.report_dir = 0;      /* no directory now: the one at exit, as before */
    }
}

/* MTRACE_REPORT: what the summary and the leak report hold, as JSON
   (doc/report-json.md), written at exit at every level. */
static void mtrace_write_json(int status)
{
    const char *name = mtrace_getenv("MTRACE_REPORT");
    char path[4096], line[256];
    struct mtrace_fout *f;
    struct mtrace_io io;
    unsigned i;
    const struct { const char *key; size_t value; } figures[] = {   /* in doc/report-json.md's order */
        { "max_rss_bytes", mt.maxrss }, { "peak_bytes", mt.max }, { "peak_record", mt.peak_recno },
        { "records", mt.nr }, { "tracer_bytes_at_peak", mt.maxoverhead },
        { "double_frees", mt.double_frees }, { "invalid_frees", mt.invalid_frees },
        { "mismatched_frees", mt.mismatched_frees }, { "heap_errors", mt.heap_errors },
        { "freed_forgotten", mt.heap.forgotten + mt.pool.forgotten }, { "leaked_bytes", mt.leaked },
        { "leaked_blocks", mt.leaked_blocks }, { "suppressed_bytes", mt.suppressed },
        { "suppressed_blocks", mt.suppressed_blocks }, { "reachable_bytes", mt.reachable },
        { "untraced_signal_calls", mt.passed }, { "calls", mtrace_calls() }, { "temporary", mt.temporary } };
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
    if (!mtrace_build_name(path, sizeof path, name, mt.report_dir) || !(f = (struct mtrace_fout *)mtrace_pages(sizeof *f))) {
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
    mtrace_fputs(f, "{\n  \"mtrace_report\": 2,\n");
    mtrace_fput_num(f, "pid", (size_t)mt.pid, 0);
    snprintf(line, sizeof line, "  \"rank\": %ld,\n  \"level\": %d,\n", mt.rank, mt.level);
    mtrace_fputs(f, line);
    mtrace_fputs(f, "  \"trace\": ");
    if (mt.trace_written)
        mtrace_fput_json(f, mt.path);
    else
        mtrace_fputs(f, "null");
    if (mt.status_unknown)      /* main returned, on a C library without on_exit */
        snprintf(line, sizeof line, ",\n  \"program_status\": null,\n  \"exit_status\": %d,\n", status);
    else
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
    mtrace_fput_sites(f);
    mtrace_fput_leaks(f);
    mtrace_fput_sizes(f);
    mtrace_fputs(f, "\n}\n");
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

MTRACE_COLD_FILE_END
