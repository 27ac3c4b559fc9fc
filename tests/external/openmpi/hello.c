/* MPI_Init, an Allreduce, a Barrier, MPI_Finalize; every rank reports
 * which libpmix it and its parent (mpirun, orted or switchyard-run)
 * mapped. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "sy_mapcheck.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0, one = 1, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad += sy_mapcheck("rank", 0);
    bad += sy_mapcheck("parent", getppid());
    printf("hello from %d of %d sum=%d\n", rank, size, sum);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return sum == size && bad == 0 ? 0 : 1;
}
