/* SPDX-License-Identifier: MIT */ /* mpi.c - every rank allocates (r + 1) * 1000 bytes of work space and
   rank r > 0 leaks r * 100 bytes.  Each rank writes its own trace (rank
   r > 0 appends "-r" to the name) and its own report, tagged [rank r].
   mpicc -g -DMTRACE=1 -include mtrace.h mpi.c -o mpi
   MTRACE=trace mpirun --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    double *work, sum = 0, total = 0;
    char *forgotten = NULL;
    size_t i, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = (size_t)(rank + 1) * 1000 / sizeof *work;
    work = malloc(n * sizeof *work);
    for (i = 0; i < n; i++)
        work[i] = rank;
    for (i = 0; i < n; i++)
        sum += work[i];
    if (rank > 0) {
        forgotten = malloc((size_t)rank * 100);    /* leaked on ranks 1.. */
        memset(forgotten, 0, (size_t)rank * 100);
    }
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, sum %g\n", size, total);
    free(work);
    MPI_Finalize();
    return 0;
}
