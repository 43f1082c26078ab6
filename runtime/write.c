/* SPDX-License-Identifier: MIT */
/* runtime/write.c - the trace's text and its writing (level 1).

   Owns: the text buffer records are formatted into and its writing to
   the trace's descriptor (kept out of the program's way, checked before
   each write, cut at a record when the disk fills), the I/O guard
   (no cancellation, no SIGPIPE or SIGXFSZ), the clock of the flushes,
   RECNO and MAXRSS as text, the formatting of an operation's record, the
   warning that gives the trace up.  Whoever consumes the ring runs this:
   the writer thread, or the program's thread when there is none
   (runtime/ring.c).
   May call: runtime/state.c, out.c, zstd.c. */

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
   as text by whoever formats the records, the first counted up in place,
   the second redone on change. */
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

static void mtrace_rss_text(size_t rss)
{
    mt.rss_len = (unsigned)(mtrace_put_u(mt.rss_text, rss) - mt.rss_text);
}

/* One line on stderr, and the trace is given up: the summary goes on.
   The writer's word `failed` tells the program's threads (ring.c). */
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
    __atomic_store_n(&mt.ring.failed, 1, __ATOMIC_RELEASE);
    mt.len = mt.flushed = 0;
}

/* Moves the descriptor out of the program's way (a high number, close on
   exec) and remembers which file it is, so that a program that closes
   all its descriptors or dup2()s over ours is noticed before a write. */
static int mtrace_keep_fd(int fd)
{
    mtrace_stat_t st;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        mtrace_close(fd);
        fd = high;
    }
    if (mtrace_fstat(fd, &st) == 0) {
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
    mtrace_stat_t st;
    int fd;
    if (mtrace_fstat(mt.fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino)
        return 1;
    fd = mtrace_open(mt.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd >= 0 && mtrace_fstat(fd, &st) == 0 && st.st_dev == mt.dev && st.st_ino == mt.ino) {
        pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
        return 1;
    }
    if (fd >= 0)
        mtrace_close(fd);
    pmtrace.fd = mt.fd = -1;
    mtrace_warn("lost the trace file ", mt.path, strerror(fd >= 0 ? ESTALE : errno));
    return 0;
}

/* A write of the trace failed after buf[0..mt.flushed) went out: the
   file loses the part of a record at its end, so that what a full disk
   or a file-size limit let through still replays (a FIFO keeps what its
   reader read). */
static void mtrace_cut_at_record(int fd)
{
    size_t keep = mt.flushed;
    long long end;
    while (keep > 0 && mt.buf[keep - 1] != '\n')
        keep--;
    if (keep < mt.flushed && !mt.fifo && (end = mtrace_lseek(fd, 0, SEEK_CUR)) >= 0)
        mtrace_ftruncate(fd, end - (long long)(mt.flushed - keep));
}

/* Writes the formatted part of the buffer.  A signal handler may run this
   between two records of the interrupted thread: `len` only ever covers
   complete records, and `flushed` says what is already out. */
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
        long w = mtrace_zst_write(fd, mt.buf + from, mt.len - from);  /* write(2), or compressed */
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
    if (mt.seg.on && fd >= 0 && mt.fd >= 0)     /* MTRACE_TRACE_MAX: the segment's bytes */
        mt.seg.bytes = (size_t)mtrace_lseek(mt.fd, 0, SEEK_CUR);
    mtrace_io_end(&io, failed);
    mt.len = 0;
    mt.flushed = 0;
    mt.flush_ms = mtrace_now_ms();
}

/* Text formatted at buf[len..end): written out when half the buffer
   holds.  (Each write(2) costs about 10 us on ext4 beyond the copying:
   churn at level 1 spent 0.19 s of system time with 32 KiB writes, 0.08 s
   with 512 KiB.  The buffer is mapped whole at start; only the pages a
   program's records reach are ever touched.) */
static MTRACE_HOT void mtrace_formatted(char *end)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    mt.len = (size_t)(end - mt.buf);
    if (mt.len > mt.bufsize / 2)
        mtrace_flush();
}

/* An operation as the ring carries it (runtime/ring.c): the record
   "OP ID RECNO TOTAL SITE MAXRSS [SID]" without what the formatter knows
   (RECNO, MAXRSS), in 24 bytes; or in 16 when it has no stack and TOTAL
   and SITE are below 2^48 (a program without MTRACE_DEPTH and under
   256 TiB: all its records), marked by OP's top bit.  The writer waits on
   each line of entries it reads from the program's core (half its time
   on churn, bench/floor.sh's profile): a third fewer lines a record. */
struct mtrace_op_entry {
    uint32_t op_id;             /* OP << 24 | site ID */
    uint32_t sid;               /* the stack's SID, 0 for none */
    uint64_t total, live;       /* TOTAL and SITE after the operation */
};
struct mtrace_op_short {
    uint32_t op_id;             /* (OP | 0x80) << 24 | site ID */
    uint32_t live_low;          /* SITE's low 32 bits */
    uint64_t total_live_high;   /* TOTAL, and SITE's high 16 bits from bit 48 */
};
#define MTRACE_OP_SHORT 0x80u
#define MTRACE_OP_SHORT_MAX ((uint64_t)1 << 48)

/* The bytes an operation's entry takes (a multiple of 8). */
static MTRACE_HOT size_t mtrace_op_size(uint32_t sid, uint64_t total, uint64_t live)
{
    return !sid && total < MTRACE_OP_SHORT_MAX && live < MTRACE_OP_SHORT_MAX
        ? sizeof(struct mtrace_op_short) : sizeof(struct mtrace_op_entry);
}

/* The entry of `size` bytes (mtrace_op_size's) at e. */
static MTRACE_HOT void mtrace_op_encode(char *e, size_t size, int op, uint32_t id, uint32_t sid,
                                        uint64_t total, uint64_t live)
{
    if (size == sizeof(struct mtrace_op_short)) {
        struct mtrace_op_short *o = (struct mtrace_op_short *)e;
        o->op_id = ((uint32_t)op | MTRACE_OP_SHORT) << 24 | id;
        o->live_low = (uint32_t)live;
        o->total_live_high = total | (live >> 32) << 48;
    } else {
        struct mtrace_op_entry *o = (struct mtrace_op_entry *)e;
        o->op_id = (uint32_t)op << 24 | id;
        o->sid = sid;
        o->total = total;
        o->live = live;
    }
}

/* "OP ID RECNO TOTAL SITE MAXRSS", and " SID" with stacks, at buf + len:
   where it ends (mtrace_formatted counts it in). */
static MTRACE_HOT char *mtrace_format_op(uint32_t op_id, uint32_t sid, uint64_t total, uint64_t live)
{
    char *o = mt.buf + mt.len, *t;
    *o++ = (char)(op_id >> 24);
    *o++ = ' ';
    o = mtrace_put_u(o, op_id & 0xffffff);
    *o++ = ' ';
    memcpy(o, mt.recno_text, sizeof mt.recno_text);     /* fixed size: */
    o += mt.recno_len;                                  /* no call */
    *o++ = ' ';
    t = o;
    o = mtrace_put_u(o, (size_t)total);
    *o++ = ' ';
    if (live == total) {        /* one site holds it all (a wrapper: Lua's l_alloc) */
        memmove(o, t, (size_t)(o - 1 - t));
        o += o - 1 - t;
    } else
        o = mtrace_put_u(o, (size_t)live);
    *o++ = ' ';
    memcpy(o, mt.rss_text, sizeof mt.rss_text);
    o += mt.rss_len;
    if (mt.depth) {
        *o++ = ' ';
        o = mtrace_put_u(o, sid);
    }
    *o++ = '\n';
    mtrace_next_recno();
    return o;
}

/* The numbers of the entry at e, an operation's of either size: *size
   its bytes.  (Also the checkpoint's replay: runtime/segments.c.) */
static MTRACE_HOT void mtrace_op_decode(const char *e, uint32_t *op_id, uint32_t *sid, uint64_t *total,
                                        uint64_t *live, size_t *size)
{
    *op_id = *(const uint32_t *)e;
    if (*op_id >> 24 & MTRACE_OP_SHORT) {
        const struct mtrace_op_short *o = (const struct mtrace_op_short *)e;
        *op_id &= ~(MTRACE_OP_SHORT << 24);
        *sid = 0;
        *total = o->total_live_high & (MTRACE_OP_SHORT_MAX - 1);
        *live = (o->total_live_high >> 48) << 32 | o->live_low;
        *size = sizeof *o;
    } else {
        const struct mtrace_op_entry *o = (const struct mtrace_op_entry *)e;
        *sid = o->sid;
        *total = o->total;
        *live = o->live;
        *size = sizeof *o;
    }
}

/* The record of the entry at e, an operation's of either size: where its
   text ends; *size: the entry's bytes. */
static MTRACE_HOT char *mtrace_format_entry(const char *e, size_t *size)
{
    uint32_t op_id, sid;
    uint64_t total, live;
    mtrace_op_decode(e, &op_id, &sid, &total, &live, size);
    return mtrace_format_op(op_id, sid, total, live);
}

/* A record the program's thread formatted ("@", "#stack" ...), copied to
   buf + len: where it ends, or 0 if it cannot fit (never: the longest,
   the gnuplot lines, is far below the buffer's half). */
static char *mtrace_format_text(const char *s, size_t n)
{
    if (mt.len + n > mt.bufsize)
        mtrace_flush();
    if (n > mt.bufsize)
        return 0;
    memcpy(mt.buf + mt.len, s, n);
    return mt.buf + mt.len + n;
}

/* "#time NS" before the records that follow: NS nanoseconds since the
   trace's clock started (mtrace_init), read where the records are taken
   (doc/trace-format.md: each record was made within a few milliseconds
   of the #time before it).  One a millisecond at most, so that a busy
   writer's batches do not each get one. */
#define MTRACE_TIME_EVERY_NS 1000000LL
static void mtrace_time_text(long long at)
{
    char line[48], *o = line, *end;
    if (at < mt.clock_said + MTRACE_TIME_EVERY_NS || !mt.clock_start)
        return;
    mt.clock_said = at;
    memcpy(o, "#time ", 6);
    o = mtrace_put_u(o + 6, at > mt.clock_start ? (size_t)(at - mt.clock_start) : 0);
    *o++ = '\n';
    if ((end = mtrace_format_text(line, (size_t)(o - line))))
        mtrace_formatted(end);
}
