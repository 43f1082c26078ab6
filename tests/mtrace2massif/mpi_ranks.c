/* SPDX-License-Identifier: MIT */ /* An MPI program whose ranks allocate differently, so that the summary of
 * `mtrace2massif NAME NAME-1 NAME-2 NAME-3` has a known value in every
 * cell and min and max at different ranks from one column to the next:
 * rank r holds r + 1 blocks of 1000 bytes at its peak ((r + 1) * 1016
 * bytes with Massif's extra heap: 8 bytes of admin, 8 of slop each),
 * frees them, then leaks (3 - r) * 100 bytes (none on the last rank), so
 * it writes 2 (r + 1) records, plus one for the leak.  tests/mtrace2massif.sh
 * runs it with 4 ranks. */
#include <mpi.h>
#include <stdlib.h>

void *sink;

int main(int argc, char **argv)
{
    int rank, size, i;
    char *blocks[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i <= rank && i < 64; i++)
        blocks[i] = malloc(1000);
    for (i = 0; i <= rank && i < 64; i++)
        free(blocks[i]);
    if (rank < size - 1)
        sink = malloc((size_t)(size - 1 - rank) * 100);    /* the leak */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
