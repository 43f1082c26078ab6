/* SPDX-License-Identifier: MIT */
/* runtime/segments.c - a bounded trace: MTRACE_TRACE_MAX=SIZE (level 1).

   Owns: the trace written in segments, its disk use kept under SIZE.
   The current segment is the file under the trace's name; when it would
   pass SIZE / MTRACE_SEG_PARTS, it becomes NAME.seg-K (K = 1, 2, ...,
   its number) and a new file takes the name, opened with the
   definitions so far ("#cmd", "@", "#stack", ...) and a checkpoint of
   the live figures ("#checkpoint", "#live", doc/trace-format.md); the
   oldest segments are removed while the others would pass SIZE.  The
   checkpoint is the replay of the records formatted so far, kept here
   by whoever formats them (the writer thread, or with none the lock's
   holder): the program's threads never wait for a segment.
   May call: runtime/state.c, out.c, zstd.c, write.c. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

#define MTRACE_SEG_PARTS 4          /* segments in SIZE: one current, the rest old */
#define MTRACE_SEG_MIN (16 << 10)   /* the least SIZE (a segment of 4 KiB) */
#define MTRACE_SEG_MARGIN 128       /* a #time, and zstd's bytes around a block */
#define MTRACE_SEG_OP_MAX 128       /* an operation's record, at the most */

/* NAME.seg-K in out (MTRACE_PATHMAX + 32 bytes); K 0: NAME.seg-new, the
   new segment's name until it takes NAME. */
static void mtrace_seg_name(char *out, unsigned long k)
{
    struct mtrace_out w;
    w.o = out;
    w.end = out + MTRACE_PATHMAX + 31;
    w.cut = 0;
    mtrace_out(&w, mt.path, strlen(mt.path));
    mtrace_out(&w, ".seg-", 5);
    if (k)
        mtrace_out_u(&w, k);
    else
        mtrace_out(&w, "new", 3);
    *w.o = 0;
}

/* Grows a mapped array to hold `need` elements of `size` bytes: the new
   copy is in place before the old one goes (a fork's child sees one or
   the other, both mapped).  0 when there is no memory. */
static int mtrace_seg_grow(void *pp, size_t *cap, size_t size, size_t need)
{
    char **p = (char **)pp, *old = *p, *mem;
    size_t n = *cap ? *cap : 1024;
    if (need <= *cap)
        return 1;
    while (n < need)
        n *= 2;
    if (!(mem = (char *)mtrace_pages(n * size)))
        return 0;
    if (old)
        memcpy(mem, old, *cap * size);
    *p = mem;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (old)
        mtrace_unpages(old, *cap * size);
    *cap = n;
    return 1;
}

/* At the trace's opening (runtime/trace.c; a forked child's own file
   too): segments when MTRACE_TRACE_MAX asks and the name is a regular
   file's own (renaming a FIFO, or a symbolic link given as the name,
   would not do what it says).  Everything counts from zero. */
static void mtrace_seg_start(void)
{
    mtrace_stat_t st;
    char name[MTRACE_PATHMAX + 32];
    mt.seg.on = 0;
    if (!mt.seg.max)
        return;
    mt.seg.no = mt.seg.oldest = 1;
    mt.seg.bytes = mt.seg.kept = mt.seg.defs_len = 0;
    mt.seg.total = mt.seg.blocks = mt.seg.peak = mt.seg.peak_recno = mt.seg.peak_ns = mt.seg.recno = 0;
    if (mt.seg.site)
        memset(mt.seg.site, 0, (mt.seg.max_id + 1) * sizeof *mt.seg.site);
    if (mt.seg.stack)
        memset(mt.seg.stack, 0, (mt.seg.max_sid + 1) * sizeof *mt.seg.stack);
    mt.seg.max_id = mt.seg.max_sid = 0;
    mt.seg.part = mt.seg.max / MTRACE_SEG_PARTS;
    mtrace_seg_name(name, (unsigned long)-1);
    if (mt.fifo || mtrace_lstat(mt.path, &st) != 0 || !S_ISREG(st.st_mode)
        || (unsigned long long)st.st_ino != mt.ino || (unsigned long long)st.st_dev != mt.dev
        || strlen(name) >= MTRACE_PATHMAX) {
        mtrace_say("*** MTRACE: warning: MTRACE_TRACE_MAX: the trace ");
        mtrace_say_shown(mt.path);
        mtrace_say(" is not a regular file under that name (a FIFO, a symbolic link), "
                   "or NAME.seg-N does not fit: written whole, not in segments\n");
        return;
    }
    mt.seg.on = 1;
}

/* A text record on its way to the file (s[0..n), whole lines): the
   definitions among them are kept for the next segments' openings,
   every "#" or "@" line but #time (the gnuplot tail is neither). */
static void mtrace_seg_text(const char *s, size_t n)
{
    const char *end = s + n, *e;
    for (; s < end; s = e) {
        e = (const char *)memchr(s, '\n', (size_t)(end - s));
        e = e ? e + 1 : end;
        if ((*s != '#' && *s != '@') || !strncmp(s, "#time ", 6))
            continue;
        if (!mtrace_seg_grow(&mt.seg.defs, &mt.seg.defs_cap, 1, mt.seg.defs_len + (size_t)(e - s))) {
            mtrace_warn("the trace's definitions ", mt.path, strerror(ENOMEM));
            return;
        }
        memcpy(mt.seg.defs + mt.seg.defs_len, s, (size_t)(e - s));
        mt.seg.defs_len += (size_t)(e - s);
    }
}

/* The #time now in force, in the trace's nanoseconds. */
static uint64_t mtrace_seg_now(void)
{
    return mt.clock_said > mt.clock_start ? (uint64_t)(mt.clock_said - mt.clock_start) : 0;
}

/* The replay of an operation's entry, once formatted: the site's live
   bytes (its SITE), blocks and peak, its stack's, the total's. */
static void mtrace_seg_op(const char *e)
{
    uint32_t op_id, sid;
    uint64_t total, live, size;
    size_t n;
    unsigned long id;
    int grows;
    struct mtrace_live *s;
    mtrace_op_decode(e, &op_id, &sid, &total, &live, &n);
    id = op_id & 0xffffff;
    grows = (op_id >> 24) == '+' || (op_id >> 24) == '>';
    size = grows ? total - mt.seg.total : mt.seg.total - total;
    if (!mtrace_seg_grow(&mt.seg.site, &mt.seg.site_cap, sizeof *mt.seg.site, id + 1)
        || (sid && !mtrace_seg_grow(&mt.seg.stack, &mt.seg.stack_cap, sizeof *mt.seg.stack, sid + 1))) {
        mtrace_warn("the trace's checkpoint ", mt.path, strerror(ENOMEM));
        return;
    }
    if (id > mt.seg.max_id)
        mt.seg.max_id = id;
    s = &mt.seg.site[id];
    s->bytes = live;
    s->blocks += grows ? 1 : (uint64_t)-1;
    if (live > s->peak)
        s->peak = live;
    if (sid) {
        if (sid > mt.seg.max_sid)
            mt.seg.max_sid = sid;
        mt.seg.stack[sid].bytes += grows ? size : (uint64_t)0 - size;
        mt.seg.stack[sid].blocks += grows ? 1 : (uint64_t)-1;
    }
    mt.seg.blocks += grows ? 1 : (uint64_t)-1;
    mt.seg.total = total;
    if (total > mt.seg.peak) {
        mt.seg.peak = total;
        mt.seg.peak_recno = mt.seg.recno;
        mt.seg.peak_ns = mtrace_seg_now();
    }
    mt.seg.recno++;
}

/* The bytes the next segment's opening takes, at the most. */
static size_t mtrace_seg_opening(void)
{
    unsigned long i, lines = 2;
    for (i = 1; i <= mt.seg.max_id; i++)
        lines += mt.seg.site[i].peak != 0;
    for (i = 1; i <= mt.seg.max_sid; i++)
        lines += mt.seg.stack[i].blocks != 0;
    return mt.seg.defs_len + lines * 96;
}

/* One line of the opening into the text buffer (flushed as it fills). */
static void mtrace_seg_line(const char *s, size_t n)
{
    char *end = mtrace_format_text(s, n);
    if (end)
        mtrace_formatted(end);
}

/* "NAME u u u ...\n" of `count` numbers into line: its length. */
static size_t mtrace_seg_numbers(char *line, const char *name, const uint64_t *v, int count)
{
    char *o = line;
    int i;
    memcpy(o, name, strlen(name));
    o += strlen(name);
    for (i = 0; i < count; i++) {
        *o++ = ' ';
        o = mtrace_put_u(o, (size_t)v[i]);
    }
    *o++ = '\n';
    return (size_t)(o - line);
}

/* The new segment's opening: the definitions, then the checkpoint
   "#checkpoint SEG RECNO TOTAL BLOCKS PEAK PEAK_RECNO PEAK_NS NS", a
   "#live-stack SID BYTES BLOCKS" for each stack holding blocks, a
   "#live ID BYTES BLOCKS PEAK" for each site that ever held bytes, and
   "#time NS". */
static void mtrace_seg_checkpoint(void)
{
    char line[256];
    uint64_t v[8];
    size_t at;
    unsigned long i;
    for (at = 0; at < mt.seg.defs_len; at += 65536)
        mtrace_seg_line(mt.seg.defs + at, mt.seg.defs_len - at < 65536 ? mt.seg.defs_len - at : 65536);
    v[0] = mt.seg.no;
    v[1] = mt.seg.recno;
    v[2] = mt.seg.total;
    v[3] = mt.seg.blocks;
    v[4] = mt.seg.peak;
    v[5] = mt.seg.peak_recno;
    v[6] = mt.seg.peak_ns;
    v[7] = mtrace_seg_now();
    mtrace_seg_line(line, mtrace_seg_numbers(line, "#checkpoint", v, 8));
    for (i = 1; i <= mt.seg.max_sid; i++)
        if (mt.seg.stack[i].blocks) {
            v[0] = i;
            v[1] = mt.seg.stack[i].bytes;
            v[2] = mt.seg.stack[i].blocks;
            mtrace_seg_line(line, mtrace_seg_numbers(line, "#live-stack", v, 3));
        }
    for (i = 1; i <= mt.seg.max_id; i++)
        if (mt.seg.site[i].peak) {
            v[0] = i;
            v[1] = mt.seg.site[i].bytes;
            v[2] = mt.seg.site[i].blocks;
            v[3] = mt.seg.site[i].peak;
            mtrace_seg_line(line, mtrace_seg_numbers(line, "#live", v, 4));
        }
    v[0] = mtrace_seg_now();
    mtrace_seg_line(line, mtrace_seg_numbers(line, "#time", v, 1));
}

/* The new segment's file, NAME.seg-new created (never through a link: a
   file or link planted there is removed first, once) and locked as the
   trace is, then NAME.seg-K made a name of the current file and the new
   one renamed over NAME: NAME is always there, and always locked.  The
   new descriptor, or -1 (errno). */
static int mtrace_seg_file(void)
{
    char fresh[MTRACE_PATHMAX + 32], old[MTRACE_PATHMAX + 32];
    int fd, tries;
    mtrace_stat_t st;
    mtrace_seg_name(fresh, 0);
    mtrace_seg_name(old, mt.seg.no);
    if (mtrace_lstat(mt.path, &st) != 0 || (unsigned long long)st.st_ino != mt.ino
        || (unsigned long long)st.st_dev != mt.dev) {
        errno = ESTALE;         /* NAME is no longer our file */
        return -1;
    }
    for (tries = 0; (fd = mtrace_open(fresh, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)) < 0
         && errno == EEXIST && tries < 1; tries++)
        mtrace_unlink(fresh);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0
        || (mtrace_link(mt.path, old) != 0
            && (errno != EEXIST || mtrace_unlink(old) != 0 || mtrace_link(mt.path, old) != 0)
            && mtrace_rename(mt.path, old) != 0)
        || mtrace_rename(fresh, mt.path) != 0) {
        int saved = errno;
        mtrace_close(fd);
        mtrace_unlink(fresh);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The old segments removed, oldest first, while they and a full current
   one would pass SIZE (or more of them than are remembered). */
static void mtrace_seg_remove_old(void)
{
    char name[MTRACE_PATHMAX + 32];
    while (mt.seg.oldest < mt.seg.no
           && (mt.seg.kept + mt.seg.part > mt.seg.max || mt.seg.no - mt.seg.oldest > MTRACE_SEG_KEPT - 1)) {
        mtrace_seg_name(name, mt.seg.oldest);
        mtrace_unlink(name);
        mt.seg.kept -= mt.seg.sizes[mt.seg.oldest % MTRACE_SEG_KEPT];
        mt.seg.oldest++;
    }
}

/* The trace given up (its opening cannot fit a segment, a file cannot be
   made): one warning; what is on disk stays under SIZE. */
static void mtrace_seg_fail(const char *why)
{
    int fd = mt.fd;
    mtrace_warn("MTRACE_TRACE_MAX: cannot begin a new segment of ", mt.path, why);
    pmtrace.fd = mt.fd = -1;
    if (fd >= 0)
        mtrace_close(fd);
}

/* The current segment is full: its text written, its zstd frame ended,
   it becomes NAME.seg-K, and the next one opens. */
static void mtrace_seg_rotate(void)
{
    struct mtrace_zst *z = (struct mtrace_zst *)mt.zst;
    int ending = z ? z->ending : 0, fd, err;
    struct mtrace_io io;
    if (mtrace_seg_opening() + MTRACE_SEG_MARGIN + MTRACE_SEG_OP_MAX > mt.seg.part) {
        mtrace_seg_fail("the definitions and the checkpoint outgrow a segment (raise it)");
        return;
    }
    mtrace_flush();
    if (mt.fd < 0 || __atomic_load_n(&mt.ring.failed, __ATOMIC_RELAXED))
        return;
    mtrace_io_begin(&io);
    err = mtrace_zst_finish(mt.fd);
    fd = err ? -1 : mtrace_seg_file();
    if (fd < 0)
        err = err ? err : errno;
    mtrace_io_end(&io, err);
    if (fd < 0) {
        mtrace_seg_fail(strerror(err));
        return;
    }
    mt.seg.bytes = (size_t)mtrace_lseek(mt.fd, 0, SEEK_END);
    mtrace_close(mt.fd);
    pmtrace.fd = mt.fd = mtrace_keep_fd(fd);
    mt.seg.sizes[mt.seg.no % MTRACE_SEG_KEPT] = mt.seg.bytes;
    mt.seg.kept += mt.seg.bytes;
    mt.seg.bytes = 0;
    mt.seg.no++;
    mtrace_seg_remove_old();
    mtrace_zst_start();
    if (z)
        z->ending = ending;
    mtrace_seg_checkpoint();
}

/* Before the consumer formats an entry whose text takes `next` bytes at
   the most: a new segment first if the current one would pass its
   share.  A compressed trace's text is written first to know what it
   takes (the bound counts the text's own bytes). */
static void mtrace_seg_check(size_t next)
{
    size_t pending = mt.len - mt.flushed, need = next + MTRACE_SEG_MARGIN;
    if (mt.seg.bytes + pending + need <= mt.seg.part || mt.fd < 0)
        return;
    if (mt.zst && pending > mt.seg.part / 8) {
        mtrace_flush();
        if (mt.seg.bytes + (mt.len - mt.flushed) + need <= mt.seg.part)
            return;
    }
    mtrace_seg_rotate();
    if (mt.fd >= 0 && mt.seg.bytes + (mt.len - mt.flushed) + need > mt.seg.part)
        mtrace_seg_fail("the definitions and the checkpoint outgrow a segment (raise it)");
}

MTRACE_COLD_FILE_END
