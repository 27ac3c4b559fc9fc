/* Rank 1 exits without MPI_Finalize (status 0) while the others go on to
 * finalize: mpirun must report it and must not hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        exit(0);
    MPI_Finalize();
    return 0;
}
