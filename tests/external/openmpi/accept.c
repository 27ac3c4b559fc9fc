/* MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect inside one job: the
 * lower half of the ranks accepts, the upper half connects; the port name
 * travels over MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, rc = 0;
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm half, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int server = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, server, rank, &half);
    if (rank == 0)
        MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (server)
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    else
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    int rsize, sum = 0;
    MPI_Comm_remote_size(inter, &rsize);
    /* an allreduce over the intercommunicator sums the other side's ranks */
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
    int lo = size / 2, want = server ? (lo + size - 1) * (size - lo) / 2 : (lo - 1) * lo / 2;
    rc = sum != want;
    printf("accept rank %d: remote size %d sum %d expected %d\n", rank, rsize, sum, want);
    MPI_Comm_disconnect(&inter);
    if (rank == 0)
        MPI_Close_port(port);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return rc;
}
