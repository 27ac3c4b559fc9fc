/* Open MPI under srun --mpi=pmix: MPI_Init, an Allreduce of rank + 1, a
 * Barrier, MPI_Finalize; every rank reports the libpmix it and its parent
 * (slurmstepd) mapped. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "mapped.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    char host[256] = "?";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    gethostname(host, sizeof host - 1);
    sy_mapped("task", 0);
    sy_mapped("stepd", getppid());
    printf("hello from %d of %d on %s sum=%d\n", rank, size, host, sum);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return sum == size * (size + 1) / 2 ? 0 : 1;
}
