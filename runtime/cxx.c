/* SPDX-License-Identifier: MIT */
/* runtime/cxx.c - C++'s global operator new and delete, replaced.

   Owns (libmtrace only, MTRACE_RUNTIME): the replaceable global
   operators new, new[], delete and delete[] of the C++ standard
   ([new.delete]), their sized, aligned (std::align_val_t) and nothrow
   forms, under their Itanium-mangled names, so that libmtrace needs no
   C++ compiler; the family each block is made by (malloc's, new's,
   new[]'s), for the mismatched-free error.
   May call: every file above it.

   Why in the library only: the one-line use compiles mtrace.c into the
   program's C files, and a C program that links a C++ library would then
   replace that library's operators from a C file nobody asked to trace
   C++; with libmtrace the program was built for it (mtrace-c++, or
   mtrace-cc and pkg-config on a mixed project).  The operators are the
   process's, as the allocator's symbols are (runtime/interpose.c): every
   new of the process is traced, the C++ library's own (std::string's
   growth, in libstdc++) too, each at a site by its return address
   (runtime/callers.c), named at exit.

   What the standard asks and how: a throwing new loops while the
   allocation fails, calling the new_handler (std::get_new_handler) if
   there is one, else throws std::bad_alloc (the C++ library's own
   std::__throw_bad_alloc, reached by a weak reference: libstdc++ and
   libc++ both have it).  A nothrow new returns null where the throwing
   one would throw; a new_handler that throws, a C frame cannot catch,
   and the caller compiled the nothrow new as noexcept: std::terminate
   (doc/limits.md).  The sized and aligned
   deletes free as the plain ones do: the C library needs neither. */
#ifdef MTRACE_RUNTIME
#if __SIZEOF_SIZE_T__ == __SIZEOF_LONG__
#define MTRACE_CXX_SIZE_ "m"        /* size_t mangled: unsigned long */
#else
#define MTRACE_CXX_SIZE_ "j"        /* unsigned int */
#endif
#define MTRACE_CXX_NAME_(name) __asm__(MTRACE_STR_(__USER_LABEL_PREFIX__) name)
#define MTRACE_CXX_ALIGN_ "St11align_val_t"
#define MTRACE_CXX_NOTHROW_ "RKSt9nothrow_t"
#define MTRACE_CXX_UNUSED_ __attribute__((unused))   /* the sizes and tags delete needs not */

typedef void (*mtrace_new_handler)(void);
extern mtrace_new_handler mtrace_get_new_handler_(void) MTRACE_CXX_NAME_("_ZSt15get_new_handlerv")
    __attribute__((weak));
extern void mtrace_throw_bad_alloc_(void) MTRACE_CXX_NAME_("_ZSt17__throw_bad_allocv")
    __attribute__((weak, __noreturn__));

/* The site of the operator call under way: by its return address, or a
   wrapper's (MTRACE_ALLOC_FN in a C caller); its callers are walked from
   the caller's frame (MTRACE_CALLERS). */
static MTRACE_HOT struct mtrace_site *mtrace_cxx_site(const char *call, uintptr_t ret)
{
    struct mtrace_pending *q = &mtrace_pending;
    q->taken_frame = q->caller ? q->caller_frame : 0;
    return mtrace_enter(call, mtrace_named(q->caller ? q->caller : &mtrace_unknown_site, ret));
}
#define MTRACE_CXX_SITE(call) mtrace_cxx_site(call, (uintptr_t)__builtin_return_address(0))

/* One try at n bytes aligned to `align` (0: new's own, malloc's). */
static void *mtrace_cxx_try(size_t n, size_t align)
{
    if (mtrace_checking())
        return mtrace_guard_new(n, align > 16 ? align : 16, 0);
    if (!align)
        return mtrace_libc_malloc(n ? n : 1);
    return mtrace_libc_aligned_alloc(align, n > align ? (n + align - 1) & ~(align - 1) : align);
}

/* new's loop ([new.delete.single]): the block of `family`, traced at d;
   on failure the new_handler, until there is none: then null (nothrow)
   or std::bad_alloc. */
static void *mtrace_cxx_new(size_t n, size_t align, int family, int nothrow, struct mtrace_site *d,
                            const struct mtrace_chain *c)
{
    void *p;
    mtrace_new_handler handler;
    while (!(p = mtrace_cxx_try(n, align))) {
        handler = mtrace_get_new_handler_ ? mtrace_get_new_handler_() : 0;
        if (handler)
            handler();
        else if (nothrow)
            return mtrace_leave(0);
        else if (mtrace_throw_bad_alloc_)
            mtrace_throw_bad_alloc_();
        else
            abort();            /* no C++ library: nothing to throw with */
    }
    return mtrace_leave(mtrace_traced_as(p, n, d, c, '+', family));
}

/* delete's: the block released as free's, its family checked. */
static void mtrace_cxx_delete(void *p, int family, struct mtrace_site *d, const struct mtrace_chain *c)
{
    mtrace_free_as(p, family, family == MTRACE_BY_NEW ? "delete" : "delete[]", d, c);
    mtrace_leave(0);
}

/* The operators: each takes its site and callers itself (the return
   address and frame are its own). */
#define MTRACE_CXX_NEW_(name, args, n, align, family, nothrow, call)                  \
    MTRACE_API void *name args MTRACE_CXX_NAME_(call);                               \
    MTRACE_API void *name args                                                       \
    {                                                                                \
        struct mtrace_site *d = MTRACE_CXX_SITE(family == MTRACE_BY_NEW ? "new" : "new[]"); \
        MTRACE_CALLERS(c, d);                                                        \
        return mtrace_cxx_new(n, align, family, nothrow, d, &c);                     \
    }
#define MTRACE_CXX_DELETE_(name, args, family, call)                                \
    MTRACE_API void name args MTRACE_CXX_NAME_(call);                                \
    MTRACE_API void name args                                                        \
    {                                                                                \
        struct mtrace_site *d = MTRACE_CXX_SITE(family == MTRACE_BY_NEW ? "delete" : "delete[]"); \
        MTRACE_CALLERS(c, d);                                                        \
        mtrace_cxx_delete(p, family, d, &c);                                         \
    }

typedef struct mtrace_nothrow_ mtrace_nothrow_t;
MTRACE_CXX_NEW_(mtrace_cxx_nw, (size_t n), n, 0, MTRACE_BY_NEW, 0, "_Znw" MTRACE_CXX_SIZE_)
MTRACE_CXX_NEW_(mtrace_cxx_na, (size_t n), n, 0, MTRACE_BY_NEW_ARRAY, 0, "_Zna" MTRACE_CXX_SIZE_)
MTRACE_CXX_NEW_(mtrace_cxx_nw_nt, (size_t n, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), n, 0, MTRACE_BY_NEW, 1,
                "_Znw" MTRACE_CXX_SIZE_ MTRACE_CXX_NOTHROW_)
MTRACE_CXX_NEW_(mtrace_cxx_na_nt, (size_t n, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), n, 0, MTRACE_BY_NEW_ARRAY, 1,
                "_Zna" MTRACE_CXX_SIZE_ MTRACE_CXX_NOTHROW_)
MTRACE_CXX_NEW_(mtrace_cxx_nw_al, (size_t n, size_t a), n, a, MTRACE_BY_NEW, 0,
                "_Znw" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_)
MTRACE_CXX_NEW_(mtrace_cxx_na_al, (size_t n, size_t a), n, a, MTRACE_BY_NEW_ARRAY, 0,
                "_Zna" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_)
MTRACE_CXX_NEW_(mtrace_cxx_nw_al_nt, (size_t n, size_t a, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), n, a, MTRACE_BY_NEW, 1,
                "_Znw" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_ MTRACE_CXX_NOTHROW_)
MTRACE_CXX_NEW_(mtrace_cxx_na_al_nt, (size_t n, size_t a, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), n, a,
                MTRACE_BY_NEW_ARRAY, 1, "_Zna" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_ MTRACE_CXX_NOTHROW_)

MTRACE_CXX_DELETE_(mtrace_cxx_dl, (void *p), MTRACE_BY_NEW, "_ZdlPv")
MTRACE_CXX_DELETE_(mtrace_cxx_da, (void *p), MTRACE_BY_NEW_ARRAY, "_ZdaPv")
MTRACE_CXX_DELETE_(mtrace_cxx_dl_sz, (void *p, size_t n MTRACE_CXX_UNUSED_), MTRACE_BY_NEW, "_ZdlPv" MTRACE_CXX_SIZE_)
MTRACE_CXX_DELETE_(mtrace_cxx_da_sz, (void *p, size_t n MTRACE_CXX_UNUSED_), MTRACE_BY_NEW_ARRAY, "_ZdaPv" MTRACE_CXX_SIZE_)
MTRACE_CXX_DELETE_(mtrace_cxx_dl_nt, (void *p, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), MTRACE_BY_NEW,
                   "_ZdlPv" MTRACE_CXX_NOTHROW_)
MTRACE_CXX_DELETE_(mtrace_cxx_da_nt, (void *p, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), MTRACE_BY_NEW_ARRAY,
                   "_ZdaPv" MTRACE_CXX_NOTHROW_)
MTRACE_CXX_DELETE_(mtrace_cxx_dl_al, (void *p, size_t a MTRACE_CXX_UNUSED_), MTRACE_BY_NEW, "_ZdlPv" MTRACE_CXX_ALIGN_)
MTRACE_CXX_DELETE_(mtrace_cxx_da_al, (void *p, size_t a MTRACE_CXX_UNUSED_), MTRACE_BY_NEW_ARRAY, "_ZdaPv" MTRACE_CXX_ALIGN_)
MTRACE_CXX_DELETE_(mtrace_cxx_dl_sz_al, (void *p, size_t n MTRACE_CXX_UNUSED_, size_t a MTRACE_CXX_UNUSED_), MTRACE_BY_NEW,
                   "_ZdlPv" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_)
MTRACE_CXX_DELETE_(mtrace_cxx_da_sz_al, (void *p, size_t n MTRACE_CXX_UNUSED_, size_t a MTRACE_CXX_UNUSED_), MTRACE_BY_NEW_ARRAY,
                   "_ZdaPv" MTRACE_CXX_SIZE_ MTRACE_CXX_ALIGN_)
MTRACE_CXX_DELETE_(mtrace_cxx_dl_al_nt, (void *p, size_t a MTRACE_CXX_UNUSED_, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), MTRACE_BY_NEW,
                   "_ZdlPv" MTRACE_CXX_ALIGN_ MTRACE_CXX_NOTHROW_)
MTRACE_CXX_DELETE_(mtrace_cxx_da_al_nt, (void *p, size_t a MTRACE_CXX_UNUSED_, const mtrace_nothrow_t *t MTRACE_CXX_UNUSED_), MTRACE_BY_NEW_ARRAY,
                   "_ZdaPv" MTRACE_CXX_ALIGN_ MTRACE_CXX_NOTHROW_)
#endif
