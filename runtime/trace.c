/* SPDX-License-Identifier: MIT */
/* runtime/trace.c - the trace file and its records (level 1).

   Owns: opening the trace (its name, which files may take it, the lock
   that keeps two processes apart), and the records as the program's
   threads make them, lock held: "@", "#stack", "#map", "#cmd", "#site"
   and the gnuplot tail as text, "+ - < >" as the numbers of the writer's
   entry (doc/trace-format.md), all appended to the ring (ring.c).
   May call: runtime/state.c, out.c, sites.c, stacks.c, write.c, segments.c, ring.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

/* mt.path, from $MTRACE or "mtrace".  0, with a warning, for a name that
   does not fit or has a control character (the gnuplot tail could not
   name it on one line). */
static int mtrace_set_path(void)
{
    const char *name = mtrace_getenv("MTRACE"), *c;
    char why[256];
    mt.nofollow = !name || !*name;
    if (!mt.nofollow && mtrace_name_fault(name, why, sizeof why)) {
        mtrace_warn("MTRACE=", name, why);
        return 0;
    }
    if (!mtrace_build_name(mt.path, MTRACE_PATHMAX, mt.nofollow ? "mtrace" : name, 0)) {
        mtrace_warn("the trace file's name", "", "longer than 4095 bytes");
        return 0;
    }
    for (c = mt.path; *c; c++)
        if ((unsigned char)*c < ' ' || *c == 0x7f) {
            mtrace_warn("the trace file's name has a control character: ", mt.path, "refused");
            return 0;
        }
    return 1;
}

/* May the trace go to this open file?  The default name only to a
   regular file of this user (another user's file or FIFO planted there
   gets nothing); a name the user gave to a regular file or a FIFO; and
   never to the program's own standard input, output or error
   (MTRACE=/dev/stdout would mix the trace into the program's output). */
static const char *mtrace_unfit(int fd)
{
    mtrace_stat_t st, io;
    int i;
    if ((fd >= 0 ? mtrace_fstat(fd, &st) : (mt.nofollow ? mtrace_lstat : mtrace_stat)(mt.path, &st)) != 0)
        return fd >= 0 || errno != ENOENT ? strerror(errno) : 0;    /* to be created */
    if (fd < 0 && mt.nofollow && S_ISLNK(st.st_mode))
        return "a symbolic link (not followed)";
    if (mt.nofollow && (!S_ISREG(st.st_mode) || st.st_uid != mtrace_geteuid()))
        return "not a regular file of this user (set MTRACE to choose a name)";
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return "not a regular file or a FIFO";
    for (i = 0; i <= 2; i++)
        if (mtrace_fstat(i, &io) == 0 && io.st_dev == st.st_dev && io.st_ino == st.st_ino)
            return "the program's own standard input, output or error";
    mt.fifo = S_ISFIFO(st.st_mode);
    return 0;
}

/* The same, before the file is opened: a name that cannot take the trace
   is refused at once (and a forked child derives no NAME.PID from it). */
static int mtrace_path_fits(void)
{
    const char *unfit = mtrace_unfit(-1);
    if (unfit)
        mtrace_warn("the trace file ", mt.path, unfit);
    return !unfit;
}

/* The trace's clock (#time) starts with the tracer; #clock says when
   that was by the wall clock. */
static void mtrace_clock_starts(void)
{
    struct timespec t;
    mt.clock_start = mtrace_now_ns();
    if (mtrace_clock_gettime(CLOCK_REALTIME, &t) == 0)
        mt.clock_wall = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* "#clock WALL" (when the trace's clock was 0, in nanoseconds since 1970)
   and the first "#time NS", after #cmd: a program's thread formatting
   the header now stamps no other #time before it in this millisecond. */
static char *mtrace_put_clock(char *o)
{
    long long now = mtrace_now_ns();
    o += snprintf(o, 64, "#clock %lld\n#time %lld\n", mt.clock_wall,
                  now > mt.clock_start ? now - mt.clock_start : 0);
    mt.clock_said = now;
    mt.clock_said_ms = mtrace_now_ms();
    return o;
}

/* "#cmd ARGS": the program's command line, escaped like FUNC and FILE, as
   the trace's first line (mtrace2massif's cmd:, gnuplot skips it); then
   #depth with call stacks, and #clock. */
static void mtrace_put_cmd(void)
{
    char args[2048], *o = mtrace_text_room(4 + 3 * sizeof args + 64), *a;
    long n = mtrace_read_file("/proc/self/cmdline", args, sizeof args);
    if (n > 0) {
        memcpy(o, "#cmd", 4);
        o += 4;
        for (a = args; a < args + n; a += strlen(a) + 1) {
            *o++ = ' ';
            o = mtrace_put_name(o, a);
        }
        *o++ = '\n';
    }
    if (mt.depth)
        o += snprintf(o, 32, "#depth %d\n", mt.depth);
    o = mtrace_put_clock(o);
    mtrace_text_put(o);
}

/* Opens the trace, at the first record.  The file is locked while this
   process writes it: a program started by this one (system(), exec after
   fork) that traces under the same name finds the lock and writes
   NAME.PID instead of truncating our trace.  The default name is never
   followed through a symbolic link; a name the user gave is followed.
   A FIFO is waited for 5 s at most (MTRACE_FIFO_MS: a reader started
   just before or after the program), then refused with a warning: it
   used to hang the program for ever.  Once read, its writes wait for
   the reader, as a pipe's do. */
#define MTRACE_FIFO_MS 5000
/* open(2) that never blocks: a FIFO with no reader yet (ENXIO) is tried
   again every 10 ms for MTRACE_FIFO_MS at most. */
static int mtrace_open_waiting(const char *path, int flags)
{
    long until = mtrace_now_ms() + MTRACE_FIFO_MS;
    int fd;
    while ((fd = mtrace_open(path, flags, 0666)) < 0 && (errno == EINTR || (errno == ENXIO && mtrace_now_ms() < until)))
        if (errno == ENXIO)
            poll(0, 0, 10);
    return fd;
}

static void mtrace_open_trace(void)
{
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | (mt.nofollow ? O_NOFOLLOW : 0);
    int fd = -1, tries;
    const char *unfit;
    struct mtrace_io io;
    if (!mt.tracing)
        return;
    mtrace_io_begin(&io);
    for (tries = 0; tries < 2; tries++) {
        fd = mtrace_open_waiting(mt.path, flags);
        if (fd < 0) {
            mtrace_warn("cannot open the trace file ", mt.path,
                        errno == ELOOP && mt.nofollow ? "a symbolic link (not followed)"
                        : errno == ENXIO ? "a FIFO that nobody read within 5 s" : strerror(errno));
            break;
        }
        if ((unfit = mtrace_unfit(fd))) {
            mtrace_warn("the trace file ", mt.path, unfit);
            mtrace_close(fd);
            fd = -1;
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        mtrace_close(fd);
        fd = -1;
        if (!tries) {
            struct mtrace_out w;
            w.o = mt.path + strlen(mt.path);
            w.end = mt.path + MTRACE_PATHMAX - 1;
            w.cut = 0;
            mtrace_out(&w, ".", 1);
            mtrace_out_u(&w, (size_t)mt.pid);
            *w.o = 0;
            if (w.cut) {
                mtrace_warn("trace file in use: ", mt.path, "and NAME.PID does not fit");
                break;
            }
        } else
            mtrace_warn("trace file in use: ", mt.path, strerror(EBUSY));
    }
    if (fd >= 0 && (fcntl(fd, F_SETFL, O_WRONLY) != 0
                    || (!mt.fifo && mtrace_empty_file(fd) != 0))) {
        mtrace_warn("cannot truncate the trace file ", mt.path, strerror(errno));
        mtrace_close(fd);
        fd = -1;
    }
    if (fd >= 0 && !mt.ring.mem && !(mt.ring.mem = (char *)mtrace_pages(MTRACE_RING_BYTES))) {
        mtrace_warn("the trace file ", mt.path, strerror(ENOMEM));
        mtrace_close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        mtrace_seg_start();     /* MTRACE_TRACE_MAX: in segments */
        mtrace_zst_start();     /* NAME.zst: a zstd frame begins */
        mt.opened = 1;
        if (!mt.no_writer)
            __atomic_store_n(&mt.ring.writer, MTRACE_WRITER_WANTED, __ATOMIC_RELEASE);
        mtrace_put_cmd();
    }
    mtrace_io_end(&io, 0);
}

/* "@ ID FUNC FILE LINE": written just before the first record using ID. */
static void mtrace_put_site(struct mtrace_sitestat *s)
{
    char *o;
    if (!mt.opened) {           /* the first record: a process that writes */
        mtrace_open_trace();    /* none creates no file */
        if (!mt.opened || !mtrace_tracing())
            return;
    }
    o = mtrace_text_room(64 + 2 * 3 * MTRACE_NAMEMAX);
    s->id = ++mt.nids;
    *o++ = '@';
    *o++ = ' ';
    o = mtrace_put_u(o, s->id);
    *o++ = ' ';
    o = mtrace_put_name(o, s->func);
    *o++ = ' ';
    o = mtrace_put_name(o, s->file);
    *o++ = ' ';
    o = mtrace_put_u(o, (size_t)(s->line < 0 ? 0 : s->line));
    *o++ = '\n';
    if (s->pool) {              /* no malloc slop for mtrace2massif */
        memcpy(o, "#pool ", 6);
        o = mtrace_put_u(o + 6, s->id);
        *o++ = '\n';
    }
    mtrace_text_put(o);
}

/* "#map LO HI BIAS PATH" for each segment of s's frames not yet written. */
static void mtrace_put_maps(const struct mtrace_sitestat *s)
{
    unsigned i;
    char *o;
    int seg;
    for (i = 0; i < s->nframes; i++) {
        if ((seg = mtrace_seg_in(s->frames[i], mt.nsegs)) < 0 || mt.segs[seg].written)
            continue;
        mt.segs[seg].written = 1;
        o = mtrace_text_room(80 + 3 * MTRACE_NAMEMAX);
        o += snprintf(o, 80, "#map 0x%lx 0x%lx 0x%lx ", (unsigned long)mt.segs[seg].lo,
                      (unsigned long)mt.segs[seg].hi, (unsigned long)mt.segs[seg].bias);
        o = mtrace_put_name(o, mt.segs[seg].path);
        *o++ = '\n';
        mtrace_text_put(o);
    }
}

/* "#stack SID ID ADDR...": written just before the first record using it. */
static void mtrace_put_stack(struct mtrace_sitestat *s)
{
    char *o;
    unsigned i;
    mtrace_put_maps(s);
    o = mtrace_text_room(64 + 24 * (size_t)s->nframes);
    s->id = ++mt.nsids;
    o += snprintf(o, 64, "#stack %u %u", s->id, mt.sites[s->parent].id);
    for (i = 0; i < s->nframes; i++)
        o += snprintf(o, 24, " 0x%lx", (unsigned long)s->frames[i]);
    *o++ = '\n';
    mtrace_text_put(o);
}

/* MAXRSS's new value: the records after it show it. */
static void mtrace_set_rss(size_t rss)
{
    pmtrace.maxrss = mt.maxrss = rss;
    if (mt.opened && mtrace_tracing())
        mtrace_rss_put(rss);
    else if (!mt.opened)
        mtrace_rss_text(rss);   /* no writer yet */
}

/* MAXRSS read again, once in MTRACE_RSS_EVERY records and after a large
   block: out of line (MTRACE_ONE_COPY). */
static MTRACE_ONE_COPY void mtrace_check_rss(void)
{
    size_t rss = mtrace_rss();
    if (rss > mt.maxrss)
        mtrace_set_rss(rss);
}

/* The record of the operation just accounted (st: the stack, or s when it
   has none): its numbers to the writer, who makes
   "OP ID RECNO TOTAL SITE MAXRSS [SID]" of them (mtrace_format_op). */
static MTRACE_HOT void mtrace_put_op(int op, struct mtrace_sitestat *s, struct mtrace_sitestat *st, size_t size)
{
    if ((mt.nr & (MTRACE_RSS_EVERY - 1)) == 0 || size >= MTRACE_RSS_BIG)
        mtrace_check_rss();
    if (mtrace_tracing() && (s->id || (mtrace_put_site(s), mtrace_tracing()))
        && (st->id || st == s || (mtrace_put_stack(st), 1))) {
        uint32_t sid = st == s ? 0 : st->id;
        size_t n = mtrace_op_size(sid, mt.total, s->live);
        mtrace_op_encode(mtrace_ring_room(n), n, op, s->id, sid, mt.total, s->live);
        mtrace_ring_put(n);
    }
    pmtrace.nr = ++mt.nr;
}

/* The two last lines: settings, then the plot of MAXRSS - startrss, TOTAL
   and one curve per site that reached 1% of the peak.  A site's curve is
   drawn from a variable updated on that site's records, so it stays flat
   between them. */
static void mtrace_put_gnuplot(void)
{
    enum { CURVES = 12 };
    char *o = mtrace_text_room(16384 + 4 * MTRACE_NAMEMAX + CURVES * (4 * 2000 + 256));
    unsigned i, n = 0, *order = mtrace_sorted_sites(mtrace_by_peak);
    o += sprintf(o, "set title ");
    o = mtrace_put_quoted(o, mt.path);
    o += sprintf(o, " noenhanced; set xlabel 'trace record'; set ylabel 'memory'; "
                    "set format y '%%.1b %%BB'; set key left top noenhanced; set grid");
    for (i = 0; order && i < mt.nsorted && i < CURVES; i++)
        o += sprintf(o, "; mt%u=0", mt.sites[order[i]].id);
    o += sprintf(o, "\nplot ");
    o = mtrace_put_quoted(o, mt.path);
    o += sprintf(o, " u 3:($6-%lu) w steps t 'max RSS - start RSS', '' u 3:4 w steps lw 2 t 'total'",
                 (unsigned long)mt.startrss);
    for (i = 0; order && i < mt.nsorted && n < CURVES; i++) {
        struct mtrace_sitestat *s = &mt.sites[order[i]];
        char title[2 * MTRACE_NAMEMAX + 64];
        if (!s->id || s->peak == 0 || s->peak * 100 < mt.max)
            break;
        snprintf(title, sizeof title, "%.1000s (%.1000s:%d)", s->func, s->file, s->line);
        o += sprintf(o, ", '' u 3:(strcol(1) ne '@' && $2==%u ? (mt%u=$5) : mt%u) w steps t ",
                     s->id, s->id, s->id);
        o = mtrace_put_quoted(o, title);
        n++;
    }
    *o++ = '\n';
    mtrace_unpages(order, mt.maxsites * sizeof *order);
    mtrace_text_put(o);
}

/* "#site ID FUNC FILE LINE" for each site named at exit (callers.c): the
   name its "@" record, written at its first call, could not give. */
static void mtrace_put_renamed(void)
{
    unsigned i;
    for (i = 1; i < mt.nsites; i++) {
        struct mtrace_sitestat *s = &mt.sites[i];
        char *o;
        if (!s->renamed || !s->id || s->parent)
            continue;
        o = mtrace_text_room(64 + 2 * 3 * MTRACE_NAMEMAX);
        memcpy(o, "#site ", 6);
        o = mtrace_put_u(o + 6, s->id);
        *o++ = ' ';
        o = mtrace_put_name(o, s->func);
        *o++ = ' ';
        o = mtrace_put_name(o, s->file);
        *o++ = ' ';
        o = mtrace_put_u(o, (size_t)(s->line < 0 ? 0 : s->line));
        *o++ = '\n';
        mtrace_text_put(o);
    }
}

/* The records still on their way, then the tail, all out in the file,
   and the writer ended (`join`: see mtrace_ring_stop): 1 if the trace got
   it (a trace opened and still writable).  Lock held. */
static int mtrace_end_trace(int join)
{
    if (!mt.opened)
        return 0;
    mtrace_ring_drain();
    if (mtrace_tracing()) {
        mtrace_put_renamed();
        mtrace_ring_drain();    /* (the writer idle: the next write is the tail's, */
        mtrace_zst_ending();    /* which ends NAME.zst's frame) */
        mtrace_put_gnuplot();
    }
    mtrace_ring_stop(join);
    return mt.fd >= 0 && !__atomic_load_n(&mt.ring.failed, __ATOMIC_ACQUIRE);
}

MTRACE_COLD_FILE_END
