/* SPDX-License-Identifier: MIT */
/* tests/zstd/shim.c - a libzstd for tests/zstd.sh's MTRACE_ZSTD_LIB: the
   functions the tracer looks up, passed to the real libzstd.so.1, except
   that the ZSHIM_AT-th call of ZSTD_compressStream2 raises SIGTERM first
   (ZSHIM_WHEN=after: once the real one returned), so that the tracer's
   handler finds the compressor interrupted.  Built with -DOLD: no
   ZSTD_compressStream2 at all (a libzstd older than 1.4). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void *real(const char *name)
{
    static void *lib;
    if (!lib)
        lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? dlsym(lib, name) : NULL;
}

#define PASS(ret, name, params, args) \
    ret name params { return ((ret (*) params)real(#name)) args; }
PASS(unsigned, ZSTD_isError, (size_t c), (c))
PASS(size_t, ZSTD_CCtx_reset, (void *c, int r), (c, r))
PASS(void *, ZSTD_initStaticCCtx, (void *w, size_t n), (w, n))
PASS(size_t, ZSTD_estimateCStreamSize, (int level), (level))
PASS(size_t, ZSTD_compressBound, (size_t n), (n))
PASS(size_t, ZSTD_CCtx_setParameter, (void *c, int p, int v), (c, p, v))

#ifndef OLD
size_t ZSTD_compressStream2(void *c, void *out, void *in, int end)
{
    static long calls;
    const char *at = getenv("ZSHIM_AT"), *when = getenv("ZSHIM_WHEN");
    int now = at && ++calls == atol(at), after = when && !strcmp(when, "after");
    size_t r;
    if (now && !after)
        raise(SIGTERM);
    r = ((size_t (*)(void *, void *, void *, int))real("ZSTD_compressStream2"))(c, out, in, end);
    if (now && after)
        raise(SIGTERM);
    return r;
}
#endif
