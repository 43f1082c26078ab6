/* SPDX-License-Identifier: MIT */
/* mtrace.c - the runtime of mtrace.h, as one translation unit.

   Built once as libmtrace.so and libmtrace.a (cc -DMTRACE_RUNTIME, see the
   Makefile), or, in the one-line use "cc -DMTRACE=1 -include mtrace.h",
   included by the header into every translation unit.  Compiled on its
   own without MTRACE_RUNTIME (a project that builds every *.c it finds)
   it is an empty unit.

   This file only includes the runtime's files, one concern each, in the
   order of their dependencies: each may call the ones above it, never one
   below (doc/design.md draws them).  runtime/internal.h holds the shared
   state and its rules: what the lock guards, what a signal handler may
   run.  `make install` writes them out as one file (build/mtrace.c).

   Every external definition is weak with default visibility: the copies
   of the one-line use are merged into one by the linkers (static and
   dynamic), and libmtrace's own malloc and free give way to a static C
   library's.  Everything else is static and named mtrace_ or MTRACE_, as
   it lands in the program's own files in the one-line use.  The code is
   written in C89 syntax because it is then compiled with the program's
   own flags, -std=c89 -pedantic included, and it names no libc function
   the program could have redefined: private names bound to the libc
   symbols with asm labels (runtime/platform.c). */
#if !defined(MTRACE_H) && defined(MTRACE_RUNTIME)
#define _GNU_SOURCE
#include "mtrace.h"
#endif
#if defined(MTRACE_RUNTIME) || defined(MTRACE_INLINE_RUNTIME_)
#ifndef MTRACE_RUNTIME_INCLUDED_
#define MTRACE_RUNTIME_INCLUDED_
#ifdef MTRACE_INLINE_RUNTIME_
#pragma GCC system_header   /* compiled with the program's flags: no warnings of ours */
#endif
#include "runtime/platform.c"   /* the C library's names, the allocator beneath */
#include "runtime/internal.h"   /* the shared state's types and rules */
#include "runtime/state.c"      /* the state, the lock, the tracer's own pages */
#include "runtime/out.c"        /* text out: numbers, escaping, bounded names */
#include "runtime/sites.c"      /* the site table */
#include "runtime/stacks.c"     /* call stacks: segments, the walk, the stack table */
#include "runtime/callers.c"    /* sites of calls no macro announced, by address */
#include "runtime/zstd.c"       /* the compressed trace (MTRACE=NAME.zst) */
#include "runtime/write.c"      /* the trace's text and its writing */
#include "runtime/segments.c"   /* a bounded trace in segments (MTRACE_TRACE_MAX) */
#include "runtime/ring.c"       /* the records on their way to the writer */
#include "runtime/trace.c"      /* the trace file and its records */
#include "runtime/blocks.c"     /* the block table */
#include "runtime/account.c"    /* the figures of one operation */
#include "runtime/ci.c"         /* suppressions, the heap budget, the modes */
#include "runtime/reach.c"      /* the reachability scan at exit */
#include "runtime/names.c"      /* names of code addresses (addr2line) */
#include "runtime/leaks.c"      /* what is live at exit, as merged records */
#include "runtime/report.c"     /* the exit report, double and invalid frees */
#include "runtime/guard.c"      /* the heap check: guards, fills, the quarantine */
#include "runtime/json.c"       /* the exit report as JSON (MTRACE_REPORT) */
#include "runtime/life.c"       /* start, exit, signals, fork */
#include "runtime/entry.c"      /* the traced entry points */
#include "runtime/cxx.c"        /* C++'s operators new and delete (libmtrace) */
#include "runtime/interpose.c"  /* the process's malloc and free (glibc) */
#include "runtime/annotate.c"   /* the program's own allocators */
#undef mt
#endif /* MTRACE_RUNTIME_INCLUDED_ */
#else
typedef int mtrace_empty_unit_;     /* compiled alone: nothing (ISO C wants a declaration) */
#endif
