/* SPDX-License-Identifier: MIT */
/* runtime/life.c - the process's life: start, exit, signals, fork.

   Owns: mtrace_init (the level, the environment, the handlers), the
   state's READY and DONE, the exit paths (exit, a fatal signal, _exit,
   a sanitizer ending the process),
   the fork handlers, and mtrace_finish (tail, report, exit status).
   May call: every file above it; the entry points only by their public
   names (mtrace.h), to see whose they are. */
MTRACE_COLD_FILE_BEGIN      /* off the per-call path, MTRACE_HOT aside: runtime/platform.c */

/* Takes the lock for an exit that skips the usual path (a signal, _exit):
   1 if this thread has it, now or already (the signal interrupted the
   tracer here: only whole records are committed).  Another thread inside
   the tracer gets a second to leave (a thread preempted with the lock may
   wait its turn on a loaded machine); after that the trace is given up
   rather than written twice.  Async-signal-safe. */
static int mtrace_lock_to_leave(void)
{
    long deadline = mtrace_now_ms() + 1000;
    if (mtrace_pending.busy == 2 || mtrace_single_threaded)
        return 1;
    do {
        if (!__atomic_exchange_n(&mt.lock, 1, __ATOMIC_ACQUIRE))
            return 1;
        mtrace_sched_yield();
    } while (mtrace_now_ms() < deadline);
    return 0;
}

/* Is this the child of a vfork, which shares the parent's memory until
   it calls _exit or exec?  It is a process of its own (fork's child
   takes its pid in mtrace_fork_child; vfork runs no atfork handler), and
   whatever it changed in the state, the parent would find changed: the
   exit paths leave the state alone there (a vfork child that _exited
   used to end the parent's tracing, report and all). */
static int mtrace_vfork_child(void)
{
    return mt.pid && mtrace_getpid() != mt.pid;
}

/* The trace out, whole, for a process about to end without mtrace_finish:
   the lock stays taken (other threads wait until the process is gone), so
   that no record is written twice or cut.  1 if this thread took it. */
static int mtrace_write_out(void)
{
    int ready = MTRACE_READY;
    /* DONE first: the other threads stop coming in, the one inside leaves */
    if (mtrace_vfork_child()
        || !__atomic_compare_exchange_n(&mt.state, &ready, MTRACE_DONE, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
        || !mtrace_lock_to_leave())
        return 0;
    mtrace_pending.busy = 2;
    mtrace_end_trace(0);
    mt.tracing = 0;
    return 1;
}

/* A signal whose default action ends the process: name the traced call
   it interrupted, if any (a crash in free() is the program's bug, seen
   there), get the records out, then die of the signal with its default
   action, so that the exit status and core dump are the program's. */
static void mtrace_on_signal(int sig)
{
    struct mtrace_site *at = mtrace_pending.call_site;
    struct sigaction dfl;
    if (mtrace_pending.call && (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGFPE || sig == SIGILL)) {
        char line[2 * MTRACE_NAMEMAX + 128];
        int n = snprintf(line, sizeof line, "%s:%d: note: the program died in %s() called here (in %s)\n",
                         at ? at->file : "<unknown>", at ? at->line : 0, mtrace_pending.call, at ? at->func : "?");
        mtrace_write_all(2, line, n < (int)sizeof line ? (size_t)n : sizeof line - 1);
    }
    mtrace_write_out();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, 0);
    raise(sig);
}

/* Every catchable signal whose default action ends the process, where the
   program left that default: the handler above saves the trace and
   re-raises.  Installed at every level (a crash is named at every level),
   so that sigaction shows the program the same thing whatever the level;
   a handler the program installs replaces ours. */
static void mtrace_catch_signals(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT,
                                SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2,
                                SIGALRM, SIGPROF, SIGVTALRM, SIGIO, SIGSYS, SIGTRAP,
#ifdef SIGSTKFLT
                                SIGSTKFLT,
#endif
#ifdef SIGPWR
                                SIGPWR,
#endif
                              };
    unsigned i;
    for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], 0, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = mtrace_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, 0);
    }
}

/* The MPI rank from the launcher's environment, -1 outside MPI. */
static long mtrace_mpi_rank(void)
{
    static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                  "MV2_COMM_WORLD_RANK", "SLURM_PROCID" };
    unsigned i;
    for (i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = mtrace_getenv(vars[i]);
        if (v && *v)
            return strtol(v, 0, 10);
    }
    return -1;
}

/* fork: the child must not write the parent's buffered records.  It
   traces what it does itself, from zero: its own file (see mtrace_set_path),
   its own totals and leaks; the blocks it inherited are not its own
   (freeing them is silent, they are never its leaks), but it remembers
   them, and those its parent had freed, so that freeing one of them
   again is the double free it would have been in the parent
   (mtrace_inherit). */
/* Prepare handlers run in reverse order of registration: one registered
   before ours may run after it and allocate.  The forking thread holds
   the lock from here to the parent or child handler, and passes through
   it meanwhile (mtrace_lock, mtrace_unlock). */
static void mtrace_fork_prepare(void)
{
    mtrace_lock();
    __atomic_store_n(&mt.forking, &mtrace_pending, __ATOMIC_RELAXED);
}
static void mtrace_fork_parent(void)
{
    mt.forked = 1;
    __atomic_store_n(&mt.forking, 0, __ATOMIC_RELAXED);
    mtrace_unlock();
}
static void mtrace_fork_child(void)
{
    unsigned i;
    __atomic_store_n(&mt.forking, 0, __ATOMIC_RELAXED);
    mtrace_ring_forget();
    mt.opened = 0;
    mt.pid = mtrace_getpid();
    mt.child = 1;
    mt.forked = 0;
    mtrace_inherit(&mt.heap);
    mtrace_inherit(&mt.pool);
    mtrace_grow_dir(&mt.heap);
    for (i = 1; i < mt.nsites; i++) {   /* every figure the child counts, from 0 */
        mt.sites[i].id = 0;
        mt.sites[i].live = mt.sites[i].peak = mt.sites[i].allocs = mt.sites[i].nlive = 0;
        mt.sites[i].peak_blocks = mt.sites[i].total_bytes = mt.sites[i].temporary = 0;
        mt.sites[i].at_peak = mt.sites[i].seen = 0;
    }
    mt.temporary = 0;
    mt.newest = 0;
    memset(mt.sizes, 0, sizeof mt.sizes);
    mt.nids = mt.nsids = 0;
    for (i = 0; i < mt.nsegs; i++)
        mt.segs[i].written = 0;
    mt.double_frees = mt.invalid_frees = mt.mismatched_frees = mt.heap_errors = 0;   /* (the quarantine stays: a copy) */
    mt.total = mt.max = mt.nr = mt.peak_no = mt.peak_recno = 0;
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    mtrace_rss_text(mt.maxrss);
    mt.maxoverhead = mt.overhead;
    if (mt.fd >= 0) {
        mtrace_close(mt.fd);
        pmtrace.fd = mt.fd = -1;
    }
    if (mt.tracing)             /* its own file, opened at its first record */
        mt.tracing = mtrace_set_path() && mtrace_path_fits();
    mtrace_publish();
    /* Released by hand: the child has one thread, and if glibc already says
       so, mtrace_unlock would leave the word taken for its first thread. */
    __atomic_store_n(&mt.lock, 0, __ATOMIC_RELEASE);
}

/* The level of the process: the lowest N among the files compiled with
   -DMTRACE=N, each of which defines the weak symbol mtrace_level_N (see
   mtrace.h).  Weak references see every object present at start (the
   program and its libraries; for libmtrace loaded by dlopen, the plugin
   that brought it); 0 if none is traced. */
extern const char mtrace_level_1 __attribute__((weak));
extern const char mtrace_level_2 __attribute__((weak));
extern const char mtrace_level_3 __attribute__((weak));
static int mtrace_program_level(void)
{
    int one = &mtrace_level_1 != 0, two = &mtrace_level_2 != 0, three = &mtrace_level_3 != 0;
    if (one + two + three > 1)
        mtrace_say(one && three ? "*** MTRACE: warning: files compiled with -DMTRACE=1 and -DMTRACE=3: the process runs at level 1\n"
                   : one ? "*** MTRACE: warning: files compiled with -DMTRACE=1 and -DMTRACE=2: the process runs at level 1\n"
                   : "*** MTRACE: warning: files compiled with -DMTRACE=2 and -DMTRACE=3: the process runs at level 2\n");
    return one ? 1 : two ? 2 : three ? 3 : 0;
}

#ifdef MTRACE_INTERPOSE
/* Whose malloc does the program call?  A size no C library can allocate,
   which our interposer answers with its state's address: ours (the
   normal case), NULL (a static binary, where the C library's own malloc
   wins: a freed address may then come back from an allocation we do not
   see, and a tombstone proves nothing), or another copy of the runtime
   (a build we could not merge into one: say so, its figures are apart). */
static int mtrace_probe_interposer(void)
{
    void *(*volatile probe)(size_t) = mtrace_process_malloc;   /* not folded away */
    int saved = errno;
    void *who;
    if (mtrace_under_sanitizer())   /* its malloc is the process's, and it aborts */
        return 1;                   /* at a size it cannot allocate: not ours */
    errno = MTRACE_WHO_ERRNO;
    who = probe(MTRACE_WHO_ASKS);
    errno = saved;
    if (who && who != (void *)&mt) {
        mtrace_say("*** MTRACE: warning: a second copy of the mtrace runtime is in this process; it stays off, "
                   "and calls that reach it are not traced (link every traced object with libmtrace: see doc/design.md)\n");
        return 0;
    }
    mt.interposed = who != 0;
    return 1;
}
#else
#define mtrace_probe_interposer() 1
#endif

#ifdef MTRACE_RUNTIME
/* Are mtrace_malloc and mtrace_free ours?  A traced file that defines the
   allocator itself, void *(malloc)(size_t n) { ... }, defines them through
   the header's asm labels, and the program's definition takes the place
   of ours in every call: then nothing is traced, and the program is told
   why.  (In the one-line use the compiler or assembler already refuses.) */
extern void *mtrace_public_malloc_(size_t) MTRACE_LINK_NAME_("mtrace_malloc");   /* the process's, */
extern void mtrace_public_free_(void *) MTRACE_LINK_NAME_("mtrace_free");
static void *mtrace_own_malloc_(size_t) __attribute__((alias("mtrace_malloc")));    /* ours */
static void mtrace_own_free_(void *) __attribute__((alias("mtrace_free")));
static int mtrace_entry_points_ours(void)
{
    void *(*volatile m)(size_t) = mtrace_public_malloc_;    /* through the GOT */
    void (*volatile f)(void *) = mtrace_public_free_;
    if (m == mtrace_own_malloc_ && f == mtrace_own_free_)
        return 1;
    mtrace_say("*** MTRACE: error: the program defines malloc or free itself in a file compiled with mtrace.h: "
               "compile that file without -DMTRACE (see doc/limits.md); nothing is traced\n");
    return 0;
}
#else
#define mtrace_entry_points_ours() 1
#endif

static void mtrace_on_exit(int status, void *unknown);     /* registered at start, report at exit */
static void mtrace_on_sanitizer_death(void);              /* ...or when a sanitizer ends it */

/* Runs once, from the first traced call or from the constructor, whichever
   comes first.  on_exit and pthread_atfork allocate: they reach only the
   interposers, which do nothing until the state is READY. */
static void mtrace_init(void)
{
    int expect = MTRACE_OFF;
    if (!__atomic_compare_exchange_n(&mt.state, &expect, MTRACE_STARTING, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_STARTING)
            mtrace_sched_yield();
        return;
    }
    pmtrace.fd = mt.fd = -1;
    mt.owner = mtrace_init;
    mt.level = mtrace_program_level();
    if (!mt.level || !mtrace_entry_points_ours() || !mtrace_probe_interposer()) {
        __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
        return;
    }
    mt.pid = mtrace_getpid();
    mt.rank = mtrace_mpi_rank();
    if (!(mt.path = (char *)mtrace_pages(MTRACE_PATHMAX))
        || (mt.level == 1 && !(mt.buf = (char *)mtrace_pages(mt.bufsize = MTRACE_BUFSIZE)))) {
        __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
        return;
    }
    pmtrace.fname = mt.path;
    if (mt.level == 1)          /* the file is opened at the first record */
        mt.tracing = mtrace_set_path() && mtrace_path_fits();
    mtrace_zst_load();          /* libzstd for NAME.zst, before READY */
    mtrace_set_rss(mt.startrss = mtrace_rss());
    mtrace_clock_starts();
    mt.recno_text[0] = '0';
    mt.recno_len = 1;
    mtrace_pin_module_of(&mtrace_state_);
    mtrace_at_exit(mtrace_on_exit);
    mtrace_at_sanitizer_death(mtrace_on_sanitizer_death);
    mtrace_atfork(mtrace_fork_prepare, mtrace_fork_parent, mtrace_fork_child);
    mtrace_catch_signals();
    mtrace_read_suppressions();
    mtrace_keep_report_dir();
    mtrace_read_budget();
    mtrace_read_trace_max();
    mtrace_read_freed_max();
    mtrace_read_depth();
    mtrace_read_modes();
    mtrace_read_check();
    mtrace_grow_sites();
    mtrace_grow_dir(&mt.heap);
    mtrace_publish();
    __atomic_store_n(&mt.state, MTRACE_READY, __ATOMIC_RELEASE);
}

static int mtrace_ready_slow(void)
{
    int s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    if (s == MTRACE_OFF || s == MTRACE_STARTING) {
        mtrace_init();
        s = __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE);
    }
    return s == MTRACE_READY;
}

static MTRACE_HOT int mtrace_ready(void)
{
    return __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY || mtrace_ready_slow();
}

/* Takes the lock for a traced call, starting the tracer at the first one;
   0 (and no lock) if tracing is off or over. */
static MTRACE_HOT int mtrace_lock_ready(void)
{
    return mtrace_ready() && mtrace_lock_traced();
}

__attribute__((constructor(101))) static void mtrace_constructor(void)
{
    mtrace_ready();
}

/* After the program's atexit handlers and destructors (ours has the
   highest priority number, so it runs last): tail, report, JSON report.
   1 if the report found an error, 0 if not, -1 if it did not run here
   (tracing off, or a forked child's copy of the parent's exit). */
static int mtrace_final_report(void)
{
    size_t rss;
    int bad;
    if (!mtrace_lock_ready())
        return -1;
    if (mtrace_getpid() != mt.pid) {
        mtrace_unlock();
        return -1;
    }
    if (mt.check) {             /* every block, live and held: all reported, none stops */
        mtrace_check_all(0, 0, "found at exit", 0);
        if (!mtrace_lock_traced())
            return -1;
    }
    __atomic_store_n(&mt.state, MTRACE_DONE, __ATOMIC_RELEASE);
    rss = mtrace_rss();
    if (rss > mt.maxrss)
        mtrace_set_rss(rss);
    mtrace_name_callers();
    if ((mt.trace_written = mtrace_end_trace(1)))
        mtrace_close(mt.fd);
    pmtrace.fd = mt.fd = -1;
    mt.tracing = 0;
    mtrace_unlock();
    mtrace_place_sites();
    bad = mtrace_report();
    mtrace_write_json(bad && mt.exit_status == 0 ? 1 : mt.exit_status);
    return bad != 0;
}

/* The report, then the status: leaks turn 0 into 1 with _exit, after
   flushing stdio ourselves (calling exit() again from here would be
   undefined).  A status we were not told (main returned, on a C library
   without on_exit) counts as 0: with leaks the process ends with 1
   (doc/platforms.md). */
static void mtrace_finish(void)
{
    if (mtrace_final_report() > 0 && mt.exit_status == 0) {
        fflush(0);
        mtrace_exit_now(1);
    }
}

/* A sanitizer ends the process.  LeakSanitizer (ASan's, or on its own)
   checks for leaks in an exit handler of its own, which runs before the
   destructors, before ours too when libmtrace started first, and when it
   finds a leak it ends the process there: the report comes here, after
   LSan's, both of the same heap, and the status is LSan's (its exitcode).
   An error that ASan reports while the program runs ends it as a fatal
   signal would: the trace is written out, without a report. */
static void mtrace_on_sanitizer_death(void)
{
    if (mtrace_sanitizer_error_reported()) {
        mtrace_write_out();
        return;
    }
    if (mt.owner != mtrace_init || mtrace_vfork_child())
        return;                 /* a report queued for after the destructors will */
    mt.finish_queued = 1;       /* not come: this one runs (once: state DONE after) */
    mt.status_unknown |= !mt.exiting;
    mtrace_final_report();
}

/* The first of the exit handlers' turns (on_exit runs them in reverse):
   keeps the status, and tells the destructors that this is exit(). */
static void mtrace_on_exit(int status, void *unknown)
{
    if (mtrace_vfork_child())   /* exit() in a vfork child: the parent's state */
        return;
    mt.exit_status = status;
    mt.status_unknown = unknown != 0;
    mt.exiting = 1;
    if (mt.destructed && !mt.finish_queued) {
        mt.finish_queued = 1;
        mtrace_finish();
    }
}

/* The report waits for every destructor of the program and of the
   libraries it loaded (a library may free its cache in its own).  Exit
   handlers and destructors interleave by registration: glibc registers
   the destructors' runner (_dl_fini) when the program starts, after the
   constructors of its libraries.  If our on_exit came first (libmtrace
   loaded with the program), it runs after every destructor: it reports.
   If it came later (the runtime started in the program or in a plugin),
   the destructor below sees the exit under way and queues the report as
   a new exit handler, which glibc runs after the destructors, just before
   it flushes stdio and ends the process.  Only the copy that started
   acts: another one-line copy may go away with its plugin. */
__attribute__((destructor(101))) static void mtrace_destructor(void)
{
    if (mt.owner != mtrace_init || mt.finish_queued || mtrace_vfork_child())
        return;
    if (!mt.exiting) {
        mt.destructed = 1;      /* on_exit comes later and reports */
        return;
    }
    mt.finish_queued = 1;
    if (!mtrace_after_destructors(mtrace_finish))
        mtrace_finish();
}

MTRACE_COLD_FILE_END
