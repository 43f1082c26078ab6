/* SPDX-License-Identifier: MIT */
/* runtime/interpose.c - the process's own malloc, calloc, realloc and free.

   Owns (glibc only): the allocator's symbols that untraced code calls,
   which keep the block table true (a traced block freed by the C library,
   an address handed out again).
   May call: every file above it.

   Code compiled without mtrace (the C library itself, other libraries)
   calls these.  They trace nothing new, but keep the table true: a traced
   block freed or resized there (getline growing a buffer the program
   allocated) is closed or moved, and an address handed out there erases
   the tombstone it may have left, so that freeing it later is not taken
   for a double free.  A static binary gets the C library's own functions
   instead; see mtrace_init.  Under the heap check (runtime/guard.c) they
   keep the guards true too: a checked block freed or resized here is
   checked and moved as a traced call would, any other block goes to the
   C library as it is, and malloc_usable_size answers a checked block's
   requested size. */
#ifdef MTRACE_INTERPOSE
MTRACE_LIBC(void *, mtrace_sym_malloc, (size_t), malloc);
MTRACE_LIBC(void, mtrace_sym_free, (void *), free);

/* Forgets what table t and the generations it inherited (a forked
   child's) know of address p: code we do not see now has it. */
static void mtrace_forget_addr(struct mtrace_table *t, uintptr_t p)
{
    struct mtrace_table *heir;
    struct mtrace_block *b;
    while ((b = mtrace_lookup(t, p, &heir))->addr) {
        if (mtrace_live(b) && heir == t)
            mtrace_count_unseen(b);
        mtrace_erase(heir, b);
    }
}

/* An address the C library just handed to code we do not see. */
static void *mtrace_forget(void *p)
{
    if (!__atomic_load_n(&mt.interposed, __ATOMIC_RELAXED))
        __atomic_store_n(&mt.interposed, 1, __ATOMIC_RELAXED);
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY && mtrace_lock_ready()) {
        mtrace_forget_addr(&mt.heap, (uintptr_t)p);
        mtrace_unlock();
    }
    return p;
}

MTRACE_API void *mtrace_sym_malloc(size_t n)
{
    if (n == MTRACE_WHO_ASKS && errno == MTRACE_WHO_ERRNO)  /* see mtrace_probe_interposer */
        return (void *)&mt;
    return mtrace_forget(mtrace_libc_malloc(n));
}

MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size) MTRACE_SYM_(calloc);
MTRACE_API void *mtrace_sym_calloc(size_t n, size_t size)
{
    return mtrace_forget(mtrace_libc_calloc(n, size));
}

MTRACE_API void *mtrace_sym_realloc(void *p, size_t n) MTRACE_SYM_(realloc);
MTRACE_API void *mtrace_sym_realloc(void *p, size_t n)
{
    struct mtrace_block *b;
    struct mtrace_table *heir;
    if (p && __atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY && mtrace_lock_ready()) {
        b = mtrace_lookup(&mt.heap, (uintptr_t)p, &heir);
        /* (a forked child's inherited block, the check on: checked, it must move) */
        if (mtrace_live(b) && (heir == &mt.heap || mt.check))
            return mtrace_move(heir, b, p, n, 0, 0, '+');
        if (mtrace_live(b))     /* a forked child's inherited block: code we do not see has it */
            mtrace_erase(heir, b);
        mtrace_unlock();
    }
    return mtrace_forget(mt.check ? mtrace_guard_libc_realloc(p, n) : mtrace_libc_realloc(p, n));
}

MTRACE_API void mtrace_sym_free(void *p)
{
    if (__atomic_load_n(&mt.state, __ATOMIC_ACQUIRE) == MTRACE_READY
        && !mtrace_release(&mt.heap, p, &mtrace_untraced_site, 0, 0))
        return;                 /* a checked block: checked, and held */
    mtrace_give_back(p);
}

/* malloc_usable_size, traced code's and the rest's: under the heap check,
   a checked block's size is the one asked for (a program may write up to
   what this says: the guards must start there); else the C library's. */
MTRACE_API size_t mtrace_sym_usable_size(void *p) MTRACE_SYM_(malloc_usable_size);
MTRACE_API size_t mtrace_sym_usable_size(void *p)
{
    struct mtrace_block *b;
    struct mtrace_table *heir;
    size_t n;
    if (p && mt.check && mtrace_lock_ready()) {
        b = mtrace_lookup(&mt.heap, (uintptr_t)p, &heir);
        n = mtrace_b_size(b);
        if (mtrace_live(b)) {
            mtrace_unlock();
            return n;
        }
        mtrace_unlock();
    }
    n = mtrace_marked_size(p);
    return n != (size_t)-1 ? n : mtrace_libc_usable_size(p);
}

/* The aligned ones too: glibc serves them without its malloc, so an
   address freed by traced code may come back through them, and its
   tombstone must go (or a later traced free of it would look double). */
MTRACE_API void *mtrace_sym_memalign(size_t align, size_t n) MTRACE_SYM_(memalign);
MTRACE_API void *mtrace_sym_memalign(size_t align, size_t n)
{
    return mtrace_forget(mtrace_libc_memalign(align, n));
}

MTRACE_API void *mtrace_sym_aligned_alloc(size_t align, size_t n) MTRACE_SYM_(aligned_alloc);
MTRACE_API void *mtrace_sym_aligned_alloc(size_t align, size_t n)
{
    return mtrace_forget(mtrace_libc_aligned_alloc(align, n));
}

MTRACE_API int mtrace_sym_posix_memalign(void **pp, size_t align, size_t n) MTRACE_SYM_(posix_memalign);
MTRACE_API int mtrace_sym_posix_memalign(void **pp, size_t align, size_t n)
{
    int err = mtrace_libc_posix_memalign(pp, align, n);
    if (err == 0)
        mtrace_forget(*pp);
    return err;
}

MTRACE_API void *mtrace_sym_valloc(size_t n) MTRACE_SYM_(valloc);
MTRACE_API void *mtrace_sym_valloc(size_t n)
{
    return mtrace_forget(mtrace_libc_valloc(n));
}

MTRACE_API void *mtrace_sym_pvalloc(size_t n) MTRACE_SYM_(pvalloc);
MTRACE_API void *mtrace_sym_pvalloc(size_t n)
{
    return mtrace_forget(mtrace_libc_pvalloc(n));
}
#endif

