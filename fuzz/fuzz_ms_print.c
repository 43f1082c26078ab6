/* SPDX-License-Identifier: MIT */
/*
 * fuzz/fuzz_ms_print.c - libFuzzer harness for ms_print.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_ms_print.c
 * convert/ms_print/ms_print_*.c convert/common/tool.c (fuzz/ms_print.sh does
 * it): the whole program but its main (convert/ms_print/ms_print.c);
 * ms_print_run() is called on the input as if it were a massif.out file.
 *
 * The first input byte chooses the options (graph size, threshold) and
 * whether the input is seekable: a non-seekable stream takes the other
 * code path (the snapshot section formatted into memory).  The rest of the
 * input is the file.  Besides the sanitizers, the harness checks the error
 * contract: a failure prints exactly one line on stderr.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../convert/ms_print/ms_print_lib.h"

struct membuf {
    const uint8_t *p;
    size_t n, pos;
};

/* read callback of a stream that cannot seek (like a pipe) */
static ssize_t pipe_read(void *cookie, char *buf, size_t size)
{
    struct membuf *m = cookie;
    size_t k = m->n - m->pos;
    if (k > size)
        k = size;
    /* short reads, as from a pipe */
    if (k > 4096)
        k = 4096;
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const xs[] = { "--x=72", "--x=4", "--x=5", "--x=13",
                                      "--x=200", "--x=1000" };
    static const char *const ys[] = { "--y=20", "--y=4", "--y=7", "--y=50" };
    static const char *const ts[] = { "--threshold=1", "--threshold=0",
                                      "--threshold=0.5", "--threshold=100",
                                      "--threshold=2.5%", "--threshold=." };
    static FILE *devnull;
    unsigned b = size ? data[0] : 0;
    char *argv[6];
    char *errbuf = NULL;
    size_t errlen = 0;

    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size)
        data++, size--;
    argv[0] = "ms_print";
    argv[1] = (char *)xs[b % 6];
    argv[2] = (char *)ys[(b / 6) % 4];
    argv[3] = (char *)ts[(b / 24) % 6];
    argv[4] = "fuzz.massif.out";
    argv[5] = NULL;

    struct membuf m = { data, size, 0 };
    FILE *in;
    if (b & 0x80) {
        cookie_io_functions_t io = { pipe_read, NULL, NULL, NULL };
        in = fopencookie(&m, "r", io);
    } else {
        /* fmemopen refuses a zero-sized buffer: use a 1-byte one, no data */
        in = size ? fmemopen((void *)data, size, "r") : fmemopen((void *)"", 1, "r");
        if (in && !size)
            fgetc(in);
    }
    FILE *err = open_memstream(&errbuf, &errlen);
    if (!in || !err || !devnull)
        abort();
    int rc = ms_print_run(5, argv, in, devnull, err);
    fclose(in);
    fclose(err);
    if (rc != 0) {
        /* exactly one line: "ms_print: fuzz.massif.out:LINE: ..." */
        if (errlen == 0 || errbuf[errlen - 1] != '\n' ||
            memchr(errbuf, '\n', errlen - 1) != NULL ||
            strncmp(errbuf, "ms_print: fuzz.massif.out:", 26) != 0)
            abort();
    } else if (errlen != 0) {
        abort();
    }
    free(errbuf);
    return 0;
}
