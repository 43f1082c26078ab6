/* SPDX-License-Identifier: MIT */ /* Each MPI rank allocates differently (rank r keeps (r + 1) * 1000 bytes
   at its peak and leaks r * 100): every rank writes its own trace and its
   own report, tagged with its rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void *sink;

int main(int argc, char **argv)
{
    int rank, i;
    char *blocks[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i <= rank; i++)
        blocks[i] = malloc(1000);           /* line 17 */
    for (i = 0; i <= rank; i++)
        free(blocks[i]);
    if (rank > 0)
        sink = malloc((size_t)rank * 100);  /* line 21: the leak */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
