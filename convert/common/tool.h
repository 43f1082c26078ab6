/* SPDX-License-Identifier: MIT */
/* tool.h - what the tools, mtrace2massif, mtrace-diff, mtrace-top and
 * ms_print, share: the one-line error that unwinds, checked allocation,
 * the longest line read, the trace's %XX names, gnuplot's inert strings,
 * the Massif file's keys, the inputs read twice (pipes, traces compressed
 * with zstd), a zstd stream read as it grows, MPI ranks' names.
 * The tracer (mtrace.h, mtrace.c) does not use this file. */
#ifndef TOOL_H
#define TOOL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest line either tool reads.  Far above any real trace or Massif
 * file: their long lines are names (C++ template names run to tens of KB)
 * and command lines (Linux caps the arguments of one execve at 6 MiB); and
 * a file without newlines (/dev/zero) cannot take more memory than this. */
#define TOOL_MAX_LINE (1 << 24)

/* mtrace's release (the Makefile's VERSION: tests/packaging.sh compares
 * them) and licence, for every tool's --version. */
#define MTRACE_TOOLS_VERSION "1.0"
#define MTRACE_LICENCE "MIT licence"
/* Where bugs go: the last line of every tool's --help, as Valgrind's
 * ms_print ends its own with its author's address (ours reproduce
 * Valgrind's formats, and their bugs are ours, not Valgrind's). */
#define MTRACE_TOOLS_BUGS "Report bugs to the mtrace project's issue tracker, not to Valgrind's authors.\n"

/* The keys of a Massif file (Valgrind 3.19, coregrind/m_xtree.c). */
#define MASSIF_DESC      "desc:"
#define MASSIF_CMD       "cmd:"
#define MASSIF_TIME_UNIT "time_unit:"
#define MASSIF_SEP       "#-----------"
#define MASSIF_SNAPSHOT  "snapshot"
#define MASSIF_TIME      "time"
#define MASSIF_HEAP      "mem_heap_B"
#define MASSIF_EXTRA     "mem_heap_extra_B"
#define MASSIF_STACKS    "mem_stacks_B"
#define MASSIF_TREE      "heap_tree"
#define MASSIF_EMPTY     "empty"
#define MASSIF_DETAILED  "detailed"
#define MASSIF_PEAK      "peak"
#define MASSIF_ROOT      "(heap allocation functions) malloc/new/new[], --alloc-fns, etc."

/* Where a tool is, for its error line "prog: FILE:LINE: what is wrong",
 * or "prog: FILE: what is wrong" before the first line (the file cannot be
 * opened or read, or is empty): no line 0, which no editor can go to. */
struct tool_err {
    const char *prog;           /* the tool's name */
    const char *file;           /* the input, as named */
    uint64_t line;              /* the line being read, 0 before the first */
    FILE *err;                  /* NULL: no message (fuzzing) */
    jmp_buf jb;                 /* where tool_fail unwinds to */
};

/* Print the error line (unless e->err is NULL) and longjmp to e->jb. */
void tool_fail(struct tool_err *e, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* The start of a message about FILE at LINE to f: "prog: FILE:LINE: ", or
 * "prog: FILE: " when line is 0 (the message is about the whole file). */
void tool_where(FILE *f, const char *prog, const char *file, uint64_t line);

/* realloc that never returns NULL: fails with "out of memory". */
void *tool_realloc(struct tool_err *e, void *p, size_t n);

/* Value of a hex digit, or -1. */
int tool_hex(int ch);

/* Decode the trace's %XX escapes of [p, end) into out (end - p + 1 bytes
 * suffice); NUL-terminated; returns the length. */
size_t tool_decode(char *out, const char *p, const char *end);

/* Copy s[0..n) into out (3n + 1 bytes suffice) with control characters,
 * 0x7f and the bytes of 'also' written as %XX; returns the length. */
size_t tool_escape(char *out, const char *s, size_t n, const char *also);

/* tool_escape of a string, to a stream. */
void tool_put_escaped(FILE *f, const char *s, const char *also);

/* s[0..n) for a one-line message: escaped as above, cut with "..." to fit
 * cap bytes. */
void tool_shown(char *dst, size_t cap, const char *s, size_t n);

/* s as a gnuplot single-quoted string, which gnuplot never expands
 * (no backquote commands, no @macros, no backslash escapes): ' doubled,
 * control characters and 0x7f as %XX so the string stays on its line. */
void gp_quote(FILE *f, const char *s);

/* s[0..n) as a JSON string that stays inert inside an HTML <script>
 * element: '"' and '\\' escaped, control characters, '<', '>', '&',
 * U+2028 and U+2029 as \\uXXXX (so "</script>" cannot end the element),
 * and a byte that is not part of well-formed UTF-8 read as Latin-1. */
void tool_json_str(FILE *f, const char *s, size_t n);

/* --version: "PROG 1.0 (mtrace, MIT licence)" on standard output. */
void tool_version(const char *prog);

/* An input of mtrace2massif or mtrace-diff, open as fd, made a file that
 * can be read twice from its start: fd itself when it is seekable and not
 * compressed; else an unlinked temporary file (tmpfile) holding the text
 * of a pipe, or of a zstd stream (recognised by its magic bytes, 28 b5 2f
 * fd, whatever the input's name: MTRACE=NAME.zst traces; a pipe too),
 * decompressed with libzstd.so.1 (loaded now: never needed to build or to
 * read a plain input; MTRACE_ZSTD_LIB names another file, a test hook).
 * Returns that file's descriptor, at offset 0; the caller closes fd if it
 * differs.  A read error, a corrupt or truncated stream, libzstd missing:
 * tool_fail, one line, with nothing left open. */
int tool_input(struct tool_err *e, int fd);

/* A zstd stream decompressed as it comes (mtrace-top follows a growing
 * MTRACE=NAME.zst trace): libzstd.so.1 loaded as tool_input loads it, so
 * it stays optional.  tool_unzstd_new fails (tool_fail, one line) when the
 * library cannot be loaded; tool_unzstd_feed gives put() all the text the
 * n bytes at `in` complete (a frame may stop anywhere: the rest waits for
 * the next bytes), and fails on data that is not zstd. */
struct tool_unzstd;
struct tool_unzstd *tool_unzstd_new(struct tool_err *e);
void tool_unzstd_feed(struct tool_unzstd *u, const void *in, size_t n,
                      void (*put)(void *arg, const char *text, size_t len), void *arg);
/* Did the bytes fed so far stop at the end of a frame or between two
 * blocks (as the tracer leaves them at each write), not inside one? */
int tool_unzstd_whole(const struct tool_unzstd *u);
void tool_unzstd_free(struct tool_unzstd *u);

/* Do the first n bytes of a file say zstd (its magic number, 28 b5 2f fd)?
 * n < 4: not yet known, 0. */
int tool_is_zstd(const void *head, size_t n);

/* Basilisk's MPI names: rank r > 0 writes NAME-r.  Returns r, or -1 when
 * the name has no such suffix ("-0", leading zeros and more than 9 digits
 * are not rank numbers, nor is a name that is only "-r"). */
long tool_rank_suffix(const char *name);

/* Writes the file `name` with put(f, arg) (0, or -1 for out of memory):
 * under a temporary name renamed over it at the end, so that a failure
 * leaves nothing behind; something other than a regular file (/dev/null,
 * a FIFO) is written in place.  Returns 0, or -1 after one message
 * "PROG: NAME: why" on stderr. */
int tool_write_file(const char *prog, const char *name, int (*put)(FILE *f, void *arg), void *arg);

#endif
