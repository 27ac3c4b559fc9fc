/* An MPI program for tests/external/mpich.sh, built with mpicc.mpich:
 *   mpi_check hello      Allreduce of ranks + a Barrier; "rank R/N sum=S"
 *   mpi_check ring       a token passed twice around a ring; "ring ok R/N"
 *   mpi_check abort N    the last rank calls MPI_Abort(MPI_COMM_WORLD, N)
 *   mpi_check publish    rank 0 publishes a name, the last rank looks it up
 *   mpi_check die N      the last rank exits N without MPI_Finalize */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = 0;
    if (strcmp(mode, "hello") == 0) {
        int one = rank + 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        printf("rank %d/%d sum=%d\n", rank, size, sum);
        rc = sum == size * (size + 1) / 2 ? 0 : 1;
    } else if (strcmp(mode, "ring") == 0) {
        int token = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
        for (int lap = 0; lap < 2; lap++) {
            if (rank == 0) {
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0 && token != 2 * size)
            rc = 1;
        printf("ring %s %d/%d\n", rc == 0 ? "ok" : "bad", rank, size);
    } else if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1)
            MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
        MPI_Barrier(MPI_COMM_WORLD); /* the others are killed here */
        rc = 1;
    } else if (strcmp(mode, "die") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1)
            exit(argc > 2 ? atoi(argv[2]) : 1);
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: the job is stopped */
        rc = 1;
    } else if (strcmp(mode, "publish") == 0) {
        char port[MPI_MAX_PORT_NAME] = "tag#0$fake-port$", got[MPI_MAX_PORT_NAME] = "";
        if (rank == 0)
            MPI_Publish_name("sy-mpich-svc", MPI_INFO_NULL, port);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1) {
            MPI_Lookup_name("sy-mpich-svc", MPI_INFO_NULL, got);
            rc = strcmp(got, port) == 0 ? 0 : 1;
            printf("lookup %s '%s'\n", rc == 0 ? "ok" : "bad", got);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Unpublish_name("sy-mpich-svc", MPI_INFO_NULL, port);
    }
    MPI_Finalize();
    return rc;
}
