/* SPDX-License-Identifier: MIT */
/*
 * ms_print.c - print a Massif output file (massif.out.*) exactly as
 * Valgrind 3.19's Perl `ms_print` does: same bytes on stdout for every
 * file and option set that the original accepts, but streaming and fast.
 *
 * The original parses the whole file, buffering the snapshot section in a
 * temporary file, and only then prints the preamble, the graph and the
 * section.  We write no temporary file: a first pass validates the file and
 * keeps only one (time, total, detailed) triple per snapshot; a second pass
 * re-reads the snapshot section from the saved offset and prints it.  Memory
 * is therefore bounded by the deepest tree plus a few words per snapshot,
 * never by the file.  Input that cannot be re-read (a pipe) is the one
 * exception: its snapshot section is formatted into memory instead.
 *
 * Numbers: the original never checks that values are numbers; it relies on
 * Perl's numification and on Perl's arithmetic, which switches between
 * exact 64-bit integers and doubles depending on the operands.  Output such
 * as the "total" column, the graph and the percentages depends on which of
 * the two was used, so `pnum` (ms_print_pnum.c) models exactly that.
 *
 * Errors: where the original dies we print one line
 * "ms_print: FILE:LINE: what is wrong" on stderr and exit non-zero; stdout
 * then holds what the original's stdout would hold (nothing, or just the
 * preamble for the errors that it detects after printing it).
 *
 * This file is main; the program is ms_print_run() and the files below it
 * (ms_print_lib.h lists them), which the libFuzzer harness fuzz/fuzz_ms_print.c
 * links without this file.
 * Calls: ms_print_run.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ms_print_lib.h"

int main(int argc, char **argv)
{
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int rc = ms_print_run(argc, argv, NULL, stdout, stderr);
    if (fflush(stdout) != 0 && rc == 0) {
        fprintf(stderr, "ms_print: write error: %s\n", strerror(errno));
        rc = 1;
    }
    return rc;
}
