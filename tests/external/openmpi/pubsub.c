/* MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name: rank 0
 * publishes a port name, every rank looks it up, rank 0 unpublishes and
 * a second lookup fails. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, rc = 0;
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        snprintf(port, sizeof port, "sy-port-%d", 42);
        MPI_Publish_name("sy-service", MPI_INFO_NULL, port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Lookup_name("sy-service", MPI_INFO_NULL, found);
    if (strcmp(found, "sy-port-42") != 0) {
        printf("rank %d: lookup gave '%s'\n", rank, found);
        rc = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Unpublish_name("sy-service", MPI_INFO_NULL, port);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int err = MPI_Lookup_name("sy-service", MPI_INFO_NULL, found);
        if (err == MPI_SUCCESS) {
            printf("lookup after unpublish succeeded\n");
            rc = 1;
        }
    }
    printf("pubsub rank %d %s\n", rank, rc ? "FAILED" : "ok");
    MPI_Finalize();
    return rc;
}
