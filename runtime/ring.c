/* SPDX-License-Identifier: MIT */
/* runtime/ring.c - the records on their way to the writer (level 1).

   Owns: the ring between the program's threads, which append entries to
   it under the lock, in RECNO order, and the one consumer that formats
   them into the text buffer and writes it (runtime/write.c): the writer
   thread, started after the first record, or, where there is none, the
   program's thread as it appends; waiting for room in a full ring; and
   draining it (every record appended so far out in the file) before an
   exit, a report, a fork's child.
   Why a writer: making a record's text costs the program's thread 20 to
   28 ns (make bench-floor), appending its 24 bytes a few; with a core to
   spare, the formatting and the write(2) then cost the program nothing
   but the wait when the ring is full.  The order is the ring's, which is
   the lock's: the trace stays what it was, byte for byte.
   May call: runtime/state.c, out.c, write.c, segments.c. */

#define MTRACE_RING_MASK ((size_t)MTRACE_RING_BYTES - 1)
#define MTRACE_RING_WAKE (MTRACE_RING_BYTES / 4)    /* a sleeping writer is woken past this */
#define MTRACE_RING_BATCH (MTRACE_RING_BYTES / 16)  /* the writer formats no fewer entries at a time
    (unless woken or asked): following close behind the program's thread, it would read each
    cache line the thread is still writing, and the line would go back and forth */
#define MTRACE_WRITER_NAP 4         /* ms the writer sleeps with text not yet written (its
    looks at the ring place the records in time: #time), */
#define MTRACE_WRITER_IDLE 250      /* ...and with none */
/* How the writer sleeps (mt.ring.sleeping): napping, with text on its
   way, it is woken when a quarter of the ring waits; idling, with
   nothing, by the first entry.  Else a record made after a quiet spell
   waited for the end of the idle nap (up to 250 ms) before the 100 ms of
   MTRACE_FLUSH_MS even began, and a program killed by SIGKILL then lost
   more than doc/limits.md's 120 ms.  One futex wake per quiet spell. */
#define MTRACE_WRITER_NAPPING 1
#define MTRACE_WRITER_IDLING 2

/* An entry's first word: its kind in the top byte (an operation's OP, or
   one of these) and a number in the low 24 bits. */
#define MTRACE_E_TEXT 'T'       /* a text record: its length, the text from byte 8 */
#define MTRACE_E_RSS 'R'        /* MAXRSS changed: the value at byte 8 */
#define MTRACE_E_WRAP 'W'       /* nothing more before the ring's end: go on at its start */
enum { MTRACE_NO_WRITER, MTRACE_WRITER_WANTED, MTRACE_WRITER_STARTING, MTRACE_WRITER_RUNNING };

static int mtrace_writer_state(void)
{
    return __atomic_load_n(&mt.ring.writer, __ATOMIC_ACQUIRE);
}

/* Does this process still write its trace?  (The writer gives it up on a
   write that failed: mtrace_warn.) */
static MTRACE_HOT int mtrace_tracing(void)
{
    return mt.tracing && !__atomic_load_n(&mt.ring.failed, __ATOMIC_RELAXED);
}

/* ---- the consumer: one at a time, the writer or (with none) the lock's holder ---- */

/* Formats the entries before `upto`.  In a program's thread (`every` 1)
   `tail` moves past each entry before `len` takes its text in: a signal
   handler that drains the ring between the two (a fatal signal in this
   thread) loses that record, never writes it twice.  The writer, whose
   thread no signal reaches, moves it every MTRACE_TAIL_EVERY entries and
   at the end: a store a record less (6% of the writer's time on churn),
   and a thread waiting for room waits that much longer at most. */
#define MTRACE_TAIL_EVERY 64
static void mtrace_consume(size_t upto, unsigned every)
{
    struct mtrace_ring *r = &mt.ring;
    size_t t = r->tail;
    unsigned n = 0;
    while (t != upto) {
        const char *e = r->mem + (t & MTRACE_RING_MASK);
        uint32_t word = *(const uint32_t *)e;
        char *end = 0;
        switch (word >> 24) {
        case MTRACE_E_WRAP:
            t += MTRACE_RING_BYTES - (t & MTRACE_RING_MASK);
            break;
        case MTRACE_E_TEXT:
            if (mt.seg.on) {    /* MTRACE_TRACE_MAX: runtime/segments.c */
                mtrace_seg_check(word & 0xffffff);
                mtrace_seg_text(e + 8, word & 0xffffff);
            }
            end = mtrace_format_text(e + 8, word & 0xffffff);
            t += 8 + (((size_t)(word & 0xffffff) + 7) & ~(size_t)7);
            break;
        case MTRACE_E_RSS:
            mtrace_rss_text((size_t) * (const uint64_t *)(e + 8));
            t += 16;
            break;
        default: {
            size_t size;
            if (mt.seg.on)
                mtrace_seg_check(MTRACE_SEG_OP_MAX);
            end = mtrace_format_entry(e, &size);
            if (mt.seg.on)
                mtrace_seg_op(e);
            t += size;
        }
        }
        if (++n == every || t == upto) {
            __atomic_store_n(&r->tail, t, __ATOMIC_RELEASE);
            n = 0;
        }
        if (end)
            mtrace_formatted(end);
    }
}

/* The writer thread: formats what the program's threads appended (a
   batch at a time, or all there is after a nap or when asked), writes
   it when half the buffer holds, when MTRACE_FLUSH_MS passed since its
   oldest text was made (a program killed by SIGKILL loses at most that
   much), or when a thread drains; sleeps when there is nothing to do. */
static void *mtrace_writer_main(void *unused)
{
    struct mtrace_ring *r = &mt.ring;
    size_t head;
    long long now;
    int drain, stop, idle, woke = 0, woken_idle = 0;
    (void)unused;
    __atomic_store_n(&r->tid, mtrace_gettid(), __ATOMIC_RELEASE);
    while (mtrace_writer_state() != MTRACE_WRITER_RUNNING) {    /* its creator says so under the lock, */
        if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))        /* ...unless the process ended first */
            return 0;
        mtrace_sched_yield();
    }
    for (;;) {
        head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
        now = mtrace_now_ns();  /* every entry before head was made by now */
        drain = __atomic_load_n(&r->drain, __ATOMIC_ACQUIRE);
        stop = __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
        if (head != r->tail && (head - r->tail >= MTRACE_RING_BATCH || drain || stop || woke)) {
            int had_text = mt.len != 0;
            /* the entries came after the last look that found none, or,
               the first after a quiet spell, just before it woke us */
            mtrace_time_text(woken_idle ? now : r->looked_ns);
            mtrace_consume(head, MTRACE_TAIL_EVERY);
            r->looked_ns = now;
            woken_idle = 0;
            if (!had_text && mt.len)
                r->first_ms = mtrace_now_ms();
            woke = 0;
            continue;
        }
        if (head == r->tail)
            r->looked_ns = now;
        if (mt.len && (drain || stop || mtrace_now_ms() - r->first_ms >= MTRACE_FLUSH_MS))
            mtrace_flush();
        if (!mt.len)
            __atomic_store_n(&r->done, r->tail, __ATOMIC_RELEASE);
        if (stop && !mt.len)
            break;
        idle = !mt.len && head == r->tail;
        __atomic_store_n(&r->sleeping, idle ? MTRACE_WRITER_IDLING : MTRACE_WRITER_NAPPING, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&r->head, __ATOMIC_SEQ_CST) - r->tail < (idle ? 1 : MTRACE_RING_BATCH)
            && !__atomic_load_n(&r->drain, __ATOMIC_SEQ_CST)
            && !__atomic_load_n(&r->stop, __ATOMIC_SEQ_CST))
            mtrace_sleep_us(&r->sleeping, idle ? MTRACE_WRITER_IDLING : MTRACE_WRITER_NAPPING,
                            1000L * (idle ? MTRACE_WRITER_IDLE : MTRACE_WRITER_NAP));
        __atomic_store_n(&r->sleeping, 0, __ATOMIC_RELAXED);
        woke = 1;
        woken_idle = idle;
    }
    __atomic_store_n(&r->writer, MTRACE_NO_WRITER, __ATOMIC_RELEASE);
    return 0;
}

/* Wakes the writer if it sleeps: a system call only then. */
static void mtrace_wake_writer(void)
{
    int sleeping = __atomic_load_n(&mt.ring.sleeping, __ATOMIC_SEQ_CST);
    if (sleeping && __atomic_compare_exchange_n(&mt.ring.sleeping, &sleeping, 0, 0, __ATOMIC_SEQ_CST,
                                                __ATOMIC_RELAXED))
        mtrace_wake_on(&mt.ring.sleeping);
}

/* The writer, wanted since this process's first record, is started by
   the traced call that made it, after it let go of the lock: never under
   the lock (pthread_create takes the C library's locks and allocates,
   and another thread may hold one of them while it waits for ours).
   Until it RUNS, the program's threads format the records themselves, as
   with no writer: one of them waiting for room must not wait for a
   writer whose pthread_create waits for the lock (its calloc comes to
   our interposer).  The state changes under the lock, where they format,
   so that the writer begins after the last of theirs.  Not in a vfork
   child (it would start a thread in its parent). */
static void mtrace_writer_start(void)
{
    int wanted = MTRACE_WRITER_WANTED, ok;
    mtrace_lock();
    ok = __atomic_compare_exchange_n(&mt.ring.writer, &wanted, MTRACE_WRITER_STARTING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    mtrace_unlock();
    if (!ok)
        return;
    ok = mtrace_getpid() == mt.pid && mtrace_start_thread(mtrace_writer_main, "mtrace writer");
    mtrace_lock();
    if (__atomic_load_n(&mt.ring.stop, __ATOMIC_ACQUIRE))
        ok = 0;                 /* the trace ended while it started: it ends at once */
    __atomic_store_n(&mt.ring.writer, ok ? MTRACE_WRITER_RUNNING : MTRACE_NO_WRITER, __ATOMIC_RELEASE);
    mtrace_unlock();
}

/* After a traced call's unlock: start the writer if it is wanted.  One
   load and a branch on the path of every call. */
static MTRACE_HOT void mtrace_writer_check(void)
{
    if (__builtin_expect(__atomic_load_n(&mt.ring.writer, __ATOMIC_RELAXED) == MTRACE_WRITER_WANTED, 0))
        mtrace_writer_start();
}

/* Every record appended so far out in the file (or the trace given up).
   With a writer: it is asked and waited for (it never waits for the
   lock, which the caller may hold); without one running, the caller
   formats and writes. */
static void mtrace_ring_drain(void)
{
    struct mtrace_ring *r = &mt.ring;
    size_t upto = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    if (!r->mem)
        return;
    __atomic_add_fetch(&r->drain, 1, __ATOMIC_ACQ_REL);
    for (;;) {
        int w = mtrace_writer_state();
        if (w == MTRACE_WRITER_RUNNING) {
            if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) - upto < (size_t)-1 / 2)
                break;  /* done >= upto (positions only grow) */
            mtrace_wake_writer();
            mtrace_sched_yield();
        } else {
            mtrace_consume(upto, 1);
            mtrace_flush();
            break;
        }
    }
    __atomic_sub_fetch(&r->drain, 1, __ATOMIC_ACQ_REL);
}

/* Drains the ring and ends the writer: what follows (the report, the
   process's end) has the trace to itself.  `join`: and wait until its
   thread is gone from the process (the report counts the threads still
   running); not on the way out of a signal handler or _exit, where only
   the trace matters. */
static void mtrace_ring_stop(int join)
{
    mtrace_ring_drain();
    __atomic_store_n(&mt.ring.stop, 1, __ATOMIC_RELEASE);
    while (mtrace_writer_state() == MTRACE_WRITER_RUNNING) {
        mtrace_wake_writer();
        mtrace_sched_yield();
    }
    if (join) {                 /* gone from the process: a second at most */
        int tid = __atomic_load_n(&mt.ring.tid, __ATOMIC_ACQUIRE), never = 0, ms;
        for (ms = 0; tid && !mtrace_thread_gone(tid) && ms < 1000; ms++)
            mtrace_sleep_us(&never, 0, 1000);
        /* atomic: a writer created as the trace ended (exit() in one
           thread while another's first call started it) may store its
           tid only now, then see `stop` and return (ThreadSanitizer saw
           a plain write here race with that store: tests/tracer.sh's
           exitrace, and then hung in its own report) */
        __atomic_store_n(&mt.ring.tid, 0, __ATOMIC_RELAXED);
    }
    if (mt.ring.mem)
        mtrace_consume(mt.ring.head, 1);
    mtrace_flush();
}

/* ---- the program's threads: appending, lock held ---- */

/* Waits for `need` bytes of room: the writer is woken and given the
   processor, then, if it is still behind (a compressed trace: zstd takes
   about 360 MB of text a second, churn makes 600), waited for in naps of
   a millisecond, not by spinning on a core it may need; without a
   writer, the caller formats what is there. */
static void mtrace_ring_wait(size_t need)
{
    struct mtrace_ring *r = &mt.ring;
    int turns = 0, never = 0;
    for (;;) {
        int w;
        r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        if (MTRACE_RING_BYTES - (r->fill - r->tail_seen) >= need)
            return;
        w = mtrace_writer_state();
        if (w == MTRACE_WRITER_RUNNING) {
            mtrace_wake_writer();
            if (++turns < 16)
                mtrace_sched_yield();
            else
                mtrace_sleep_us(&never, 0, 1000);
        } else
            mtrace_consume(r->head, 1);
    }
}

/* Room for an entry of n bytes (a multiple of 8), contiguous: where it
   starts.  An entry that would cross the ring's end goes to its start,
   after a WRAP mark. */
static MTRACE_HOT char *mtrace_ring_room(size_t n)
{
    struct mtrace_ring *r = &mt.ring;
    size_t at = r->fill & MTRACE_RING_MASK, need = n;
    if (at + n > MTRACE_RING_BYTES)
        need += MTRACE_RING_BYTES - at;
    if (MTRACE_RING_BYTES - (r->fill - r->tail_seen) < need)
        mtrace_ring_wait(need);
    if (at + n > MTRACE_RING_BYTES) {
        *(uint32_t *)(r->mem + at) = (uint32_t)MTRACE_E_WRAP << 24;
        r->fill += MTRACE_RING_BYTES - at;
        at = 0;
    }
    return r->mem + at;
}

/* With no writer running, the program's thread formats each entry as it
   is made, and stamps the time first when the coarse clock moved (it is
   read for the buffer's age anyway: a few nanoseconds). */
static void mtrace_consume_now(void)
{
    long ms = mtrace_now_ms();
    if (ms != mt.clock_said_ms) {
        mt.clock_said_ms = ms;
        mtrace_time_text(mtrace_now_ns());
    }
    mtrace_consume(mt.ring.fill, 1);
    if (mt.len && ms - mt.flush_ms >= MTRACE_FLUSH_MS)
        mtrace_flush();
}

/* The entry of n bytes at `fill` is complete: it is published.  A writer
   napping is woken when a quarter of the ring waits (else it wakes on its
   own within MTRACE_WRITER_NAP), one idling at once; with no writer, the caller formats the
   entry at once, and writes when the buffer or the clock says so. */
static MTRACE_HOT void mtrace_ring_put(size_t n)
{
    struct mtrace_ring *r = &mt.ring;
    r->fill += n;
    __atomic_store_n(&r->head, r->fill, __ATOMIC_RELEASE);
    if (__atomic_load_n(&r->writer, __ATOMIC_RELAXED) == MTRACE_WRITER_RUNNING) {
        int sleeping = __atomic_load_n(&r->sleeping, __ATOMIC_RELAXED);
        if (sleeping == MTRACE_WRITER_IDLING
            || (sleeping && r->fill - (r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE)) >= MTRACE_RING_WAKE))
            mtrace_wake_writer();
        return;
    }
    mtrace_consume_now();
}


/* A text record of at most n bytes: where to write it (mtrace_text_put
   ends it). */
static char *mtrace_text_room(size_t n)
{
    return mtrace_ring_room(8 + ((n + 7) & ~(size_t)7)) + 8;
}

static void mtrace_text_put(char *end)
{
    char *e = mt.ring.mem + (mt.ring.fill & MTRACE_RING_MASK);
    size_t n = (size_t)(end - (e + 8));
    *(uint32_t *)e = (uint32_t)MTRACE_E_TEXT << 24 | (uint32_t)n;
    mtrace_ring_put(8 + ((n + 7) & ~(size_t)7));
}

/* MAXRSS's new value, for the records after it. */
static void mtrace_rss_put(size_t rss)
{
    char *e = mtrace_ring_room(16);
    *(uint32_t *)e = (uint32_t)MTRACE_E_RSS << 24;
    *(uint64_t *)(e + 8) = rss;
    mtrace_ring_put(16);
}

/* A fork's child: the parent's records are the parent's (its writer
   writes them); the child starts an empty ring and formats its records
   itself.  It starts no writer: its parent has at least ours, and a
   thread started after the fork of a process with threads is beyond what
   POSIX allows a child before exec (ThreadSanitizer kills such a child;
   glibc would allow it).  A program that execs starts afresh, with a
   writer of its own. */
static void mtrace_ring_forget(void)
{
    struct mtrace_ring *r = &mt.ring;
    mt.no_writer = 1;
    __atomic_store_n(&r->tid, 0, __ATOMIC_RELAXED);     /* the parent's thread, not the child's */
    r->fill = r->tail_seen = r->head = r->tail = r->done = 0;
    r->writer = MTRACE_NO_WRITER;
    r->drain = r->stop = r->sleeping = 0;
    mt.len = mt.flushed = 0;
}
