/* SPDX-License-Identifier: MIT */
/* runtime/annotate.c - the program's own allocators (MTRACE_MALLOCLIKE).

   Owns: mtrace_malloclike and mtrace_freelike, which count a pool's
   blocks in a table of their own.
   May call: every file above it. */

/* The frame of the function that called the annotation: MTRACE_ALLOC_FN's
   caller's, or the one the annotation's own frame saved (its caller keeps
   frame pointers when its site says so; mtrace_walk checks the rest). */
#define mtrace_annotation_frame() (mtrace_pending.caller ? mtrace_pending.caller_frame \
                                   : *(void **)__builtin_frame_address(0))

MTRACE_API void mtrace_malloclike(void *p, size_t size, struct mtrace_site *site)
{
    struct mtrace_site *d = mtrace_pending.caller ? mtrace_pending.caller : site;
    unsigned pool;
    mtrace_pending.taken_frame = mtrace_annotation_frame();
    MTRACE_CALLERS(c, d);
    if (p && mtrace_lock_ready()) {
        pool = mtrace_pool_index(d);
        mtrace_add(&mt.pool, p, size, mt.depth && pool ? mtrace_stack_index(pool, &c) : pool, '+');
        mtrace_unlock();
        mtrace_writer_check();
    }
}

MTRACE_API void mtrace_freelike(void *p, struct mtrace_site *site)
{
    mtrace_pending.taken_frame = mtrace_annotation_frame();
    {
        MTRACE_CALLERS(c, site);
        mtrace_release(&mt.pool, p, site, 1, &c);
    }
}

