/* SPDX-License-Identifier: MIT */
/* runtime/trace.c - the trace file and its records (level 1).

   Owns: opening the trace (its name, which files may take it, the lock
   that keeps two processes apart), the buffer and its flushing, the
   records "@", "+ - < >", "#stack", "#map", "#cmd" and the gnuplot tail
   (doc/trace-format.md), and the warning that gives the trace up.
   May call: runtime/state.c, out.c, sites.c, stacks.c. */

/* Around the tracer's I/O, which may run with its lock held: no
   cancellation (write and open are cancellation points, and a thread
   cancelled there would die holding the lock), and neither SIGPIPE nor
   SIGXFSZ (a FIFO whose reader went away, or a file-size limit, must not
   kill the program: the write fails with EPIPE or EFBIG, and the signal
   that this write raised is taken back; the program's own writes meet
   the dispositions it chose). */
struct mtrace_io { int cancel; sigset_t mask; int pipe_was_pending, xfsz_was_pending; };

static void mtrace_io_begin(struct mtrace_io *io)
{
    sigset_t ours, pending;
    mtrace_setcancelstate(1 /* PTHREAD_CANCEL_DISABLE */, &io->cancel);
    sigemptyset(&ours);
    sigaddset(&ours, SIGPIPE);
    sigaddset(&ours, SIGXFSZ);
    mtrace_sigmask(SIG_BLOCK, &ours, &io->mask);
    io->pipe_was_pending = io->xfsz_was_pending = 0;
    if (sigpending(&pending) == 0) {
        io->pipe_was_pending = sigismember(&pending, SIGPIPE);
        io->xfsz_was_pending = sigismember(&pending, SIGXFSZ);
    }
}

/* `failed`: the errno of the write that failed, 0 if none. */
static void mtrace_io_end(struct mtrace_io *io, int failed)
{
    sigset_t raised;
    int ignored;
    sigemptyset(&raised);
    if (failed == EPIPE && !io->pipe_was_pending)
        sigaddset(&raised, SIGPIPE);
    if (failed == EFBIG && !io->xfsz_was_pending)
        sigaddset(&raised, SIGXFSZ);
    if (failed == EPIPE || failed == EFBIG)
        mtrace_drop_pending(&raised);
    mtrace_sigmask(SIG_SETMASK, &io->mask, 0);
    mtrace_setcancelstate(io->cancel, &ignored);
}

/* Milliseconds of a coarse monotonic clock (read from the vDSO, a few
   nanoseconds; async-signal-safe). */
static long mtrace_now_ms(void)
{
    struct timespec t;
    if (mtrace_clock_gettime(MTRACE_CLOCK, &t) != 0)
        return 0;
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* RECNO goes up by one per record and MAXRSS seldom changes: both are kept
   as text, the first counted up in place, the second redone on change. */
static void mtrace_next_recno(void)
{
    char *d = mt.recno_text + mt.recno_len;
    for (;;) {
        if (d == mt.recno_text) {           /* all nines: one digit more */
            memmove(mt.recno_text + 1, mt.recno_text, mt.recno_len);
            mt.recno_text[0] = '1';
            mt.recno_len++;
            return;
        }
        if (*--d != '9') {
            (*d)++;
            return;
        }
        *d = '0';
    }
}

static void mtrace_set_rss(size_t rss)
{
    pmtrace.maxrss = mt.maxrss = rss;
    mt.rss_len = (unsigned)(mtrace_put_u(mt.rss_text, rss) - mt.rss_text);
}

/* One line on stderr, and the trace is given up: the summary goes on. */
static void mtrace_warn(const char *what, const char *path, const char *why)
{
    char shown[256];
    size_t n = strnlen(path, sizeof shown - 4);
    memcpy(shown, path, n);
    if (path[n])
        memcpy(shown + n, "...", 4);
    else
        shown[n] = 0;
    for (n = 0; shown[n]; n++)
        if ((unsigned char)shown[n] < ' ' || shown[n] == 0x7f)
            shown[n] = '?';
    mtrace_say("*** MTRACE: ");
    mtrace_say(what);
    mtrace_say(shown);
    mtrace_say(": ");
    mtrace_say(why);
    mtrace_say(": no trace, summary only\n");
    mt.trace_broken = 1;
    mt.tracing = 0;
    mt.len = mt.flushed = 0;
}

/* Moves the descriptor out of the program's way (a high number, close on
   exec) and remembers which file it is, so that a program that closes
   all its descriptors or dup2()s over ours is noticed before a write. */
static int mtrace_keep_fd(int fd)
{
    struct stat st;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        mtrace_close(fd);
        fd = high;
    }
    if (fstat(fd, &st) == 0) {
        mt.dev = st.st_dev;
        mt.ino = st.st_ino;
    }
    return fd;
}

/* Before each write: is our descriptor still our file?  If the program
   closed it or put another file under its number, reopen ours in append
   mode; if the file itself is gone, stop tracing with one warning. */
static int mtrace_fd_ok(void)
{
    struct stat st;
    int fd;
    if (fstat(mt.fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino)
        return 1;
    fd = open(mt.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        return 1;
    }
    if (fd >= 0)
        mtrace_close(fd);
    pmtrace.fd = mt.fd = -1;
    mtrace_warn("lost the trace file ", mt.path, strerror(fd >= 0 ? ESTALE : errno));
    return 0;
}

/* Writes the committed part of the buffer.  A signal handler may run this
   between two records of the interrupted thread: `len` only ever covers
   complete records, and `flushed` says what is already out. */
/* A write of the trace failed after buf[0..mt.flushed) went out: the
   file loses the part of a record at its end, so that what a full disk
   or a file-size limit let through still replays (a FIFO keeps what its
   reader read). */
static void mtrace_cut_at_record(int fd)
{
    size_t keep = mt.flushed;
    long end;
    while (keep > 0 && mt.buf[keep - 1] != '\n')
        keep--;
    if (keep < mt.flushed && !mt.fifo && (end = mtrace_lseek(fd, 0, SEEK_CUR)) >= 0)
        mtrace_ftruncate(fd, end - (long)(mt.flushed - keep));
}

static void mtrace_flush(void)
{
    struct mtrace_io io;
    int fd = mt.fd, failed = 0;
    if (fd < 0 || mt.flushed >= mt.len) {
        mt.len = mt.flushed = 0;
        return;
    }
    mtrace_io_begin(&io);
    fd = mtrace_fd_ok() ? mt.fd : -1;
    while (fd >= 0 && mt.flushed < mt.len) {
        size_t from = mt.flushed;
        long w = mtrace_write(fd, mt.buf + from, mt.len - from);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            failed = w < 0 ? errno : ENOSPC;
            mtrace_cut_at_record(fd);
            mtrace_warn("cannot write the trace file ", mt.path,
                        failed == EPIPE ? "its reader went away" : strerror(failed));
            pmtrace.fd = mt.fd = -1;
            mtrace_close(fd);
            break;
        }
        mt.flushed = from + (size_t)w;
    }
    mtrace_io_end(&io, failed);
    mt.len = 0;
    mt.flushed = 0;
    mt.flush_ms = mtrace_now_ms();
}

/* A buffer that filled before the clock flushed it belongs to a program
   that writes fast: each write(2) costs about 10 us on ext4 beyond the
   copying (churn at level 1: 0.19 s of system time with 32 KiB writes,
   0.08 s with 512 KiB), so it doubles, empty, up to MTRACE_BUFMAX.  A
   program that writes little keeps the small one.  A signal handler that
   flushes sees either buffer, both mapped, and len 0. */
static void mtrace_grow_buf(void)
{
    char *old = mt.buf, *buf;
    if (mt.bufsize >= MTRACE_BUFMAX || mt.len || !(buf = (char *)mtrace_pages(2 * mt.bufsize)))
        return;
    mt.buf = buf;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mtrace_unpages(old, mt.bufsize);
    mt.bufsize *= 2;
}

static MTRACE_HOT void mtrace_commit(char *end)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mt.len = (size_t)(end - mt.buf);
    if (mt.len > mt.bufsize / 2) {
        mtrace_flush();
        mtrace_grow_buf();
    }
}

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
    if (!mtrace_build_name(mt.path, MTRACE_PATHMAX, mt.nofollow ? "mtrace" : name)) {
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
    struct stat st, io;
    int i;
    if ((fd >= 0 ? fstat(fd, &st) : (mt.nofollow ? lstat : stat)(mt.path, &st)) != 0)
        return fd >= 0 || errno != ENOENT ? strerror(errno) : 0;    /* to be created */
    if (fd < 0 && mt.nofollow && S_ISLNK(st.st_mode))
        return "a symbolic link (not followed)";
    if (mt.nofollow && (!S_ISREG(st.st_mode) || st.st_uid != mtrace_geteuid()))
        return "not a regular file of this user (set MTRACE to choose a name)";
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return "not a regular file or a FIFO";
    for (i = 0; i <= 2; i++)
        if (fstat(i, &io) == 0 && io.st_dev == st.st_dev && io.st_ino == st.st_ino)
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

/* "#cmd ARGS": the program's command line, escaped like FUNC and FILE, as
   the trace's first line (mtrace2massif's cmd:, gnuplot skips it). */
static void mtrace_put_cmd(void)
{
    char args[2048], *o = mt.buf + mt.len, *a;
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
    mtrace_commit(o);
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
    while ((fd = open(path, flags, 0666)) < 0 && (errno == EINTR || (errno == ENXIO && mtrace_now_ms() < until)))
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
                    || (!mt.fifo && mtrace_ftruncate(fd, 0) != 0))) {
        mtrace_warn("cannot truncate the trace file ", mt.path, strerror(errno));
        mtrace_close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        mtrace_put_cmd();
    }
    mtrace_io_end(&io, 0);
}

/* "@ ID FUNC FILE LINE": written just before the first record using ID. */
static void mtrace_put_site(struct mtrace_sitestat *s)
{
    char *o;
    if (mt.fd < 0) {            /* the first record: a process that writes */
        mtrace_open_trace();    /* none creates no file */
        if (!mt.tracing)
            return;
    }
    o = mt.buf + mt.len;
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
    mtrace_commit(o);
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
        o = mt.buf + mt.len;
        o += snprintf(o, 80, "#map 0x%lx 0x%lx 0x%lx ", (unsigned long)mt.segs[seg].lo,
                      (unsigned long)mt.segs[seg].hi, (unsigned long)mt.segs[seg].bias);
        o = mtrace_put_name(o, mt.segs[seg].path);
        *o++ = '\n';
        mtrace_commit(o);
    }
}

/* "#stack SID ID ADDR...": written just before the first record using it. */
static void mtrace_put_stack(struct mtrace_sitestat *s)
{
    char *o;
    unsigned i;
    mtrace_put_maps(s);
    o = mt.buf + mt.len;
    s->id = ++mt.nsids;
    o += snprintf(o, 64, "#stack %u %u", s->id, mt.sites[s->parent].id);
    for (i = 0; i < s->nframes; i++)
        o += snprintf(o, 24, " 0x%lx", (unsigned long)s->frames[i]);
    *o++ = '\n';
    mtrace_commit(o);
}

/* "OP ID RECNO TOTAL SITE MAXRSS", and " SID" with stacks (st: the stack,
   or s when it has none), for the operation just accounted. */
static MTRACE_HOT void mtrace_put_op(int op, struct mtrace_sitestat *s, struct mtrace_sitestat *st, size_t size)
{
    char *o, *t;
    if ((mt.nr & (MTRACE_RSS_EVERY - 1)) == 0 || size >= MTRACE_RSS_BIG) {
        size_t rss = mtrace_rss();
        if (rss > mt.maxrss)
            mtrace_set_rss(rss);
    }
    if (mt.tracing && (s->id || (mtrace_put_site(s), mt.tracing))
        && (st->id || st == s || (mtrace_put_stack(st), 1))) {
        o = mt.buf + mt.len;
        *o++ = (char)op;
        *o++ = ' ';
        o = mtrace_put_u(o, s->id);
        *o++ = ' ';
        memcpy(o, mt.recno_text, sizeof mt.recno_text);     /* fixed size: */
        o += mt.recno_len;                                  /* no call */
        *o++ = ' ';
        t = o;
        o = mtrace_put_u(o, mt.total);
        *o++ = ' ';
        if (s->live == mt.total) {  /* one site holds it all (a wrapper: Lua's l_alloc) */
            memmove(o, t, (size_t)(o - 1 - t));
            o += o - 1 - t;
        } else
            o = mtrace_put_u(o, s->live);
        *o++ = ' ';
        memcpy(o, mt.rss_text, sizeof mt.rss_text);
        o += mt.rss_len;
        if (mt.depth) {
            *o++ = ' ';
            o = mtrace_put_u(o, st == s ? 0 : st->id);
        }
        *o++ = '\n';
        mtrace_commit(o);
        mtrace_next_recno();
        if (mt.len && mtrace_now_ms() - mt.flush_ms >= MTRACE_FLUSH_MS)
            mtrace_flush();
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
    char *o = mt.buf + mt.len;
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
    mtrace_commit(o);
}

/* The records still in the buffer, then the tail: 1 if the trace got it
   (a trace opened and still writable).  Lock held. */
/* "#site ID FUNC FILE LINE" for each site named at exit (callers.c): the
   name its "@" record, written at its first call, could not give. */
static void mtrace_put_renamed(void)
{
    unsigned i;
    for (i = 1; i < mt.nsites; i++) {
        struct mtrace_sitestat *s = &mt.sites[i];
        char *o = mt.buf + mt.len;
        if (!s->renamed || !s->id || s->parent)
            continue;
        memcpy(o, "#site ", 6);
        o = mtrace_put_u(o + 6, s->id);
        *o++ = ' ';
        o = mtrace_put_name(o, s->func);
        *o++ = ' ';
        o = mtrace_put_name(o, s->file);
        *o++ = ' ';
        o = mtrace_put_u(o, (size_t)(s->line < 0 ? 0 : s->line));
        *o++ = '\n';
        mtrace_commit(o);
    }
}

static int mtrace_end_trace(void)
{
    if (mt.fd < 0)
        return 0;
    mtrace_flush();
    mtrace_put_renamed();
    mtrace_put_gnuplot();
    mtrace_flush();
    return mt.fd >= 0;
}

