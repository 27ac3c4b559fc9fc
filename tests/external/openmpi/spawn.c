/* MPI_Comm_spawn: the parents spawn 2 children of this same binary; child
 * c pairs with parent c % nparents, they exchange a value over the
 * intercommunicator, then disconnect.  Every process, parent or child,
 * reports which libpmix it and its parent (the launcher) mapped. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "sy_mapcheck.h"

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, size, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        int errs[2];
        char *args[] = {"child", NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        int rsize, got = -1;
        MPI_Comm_remote_size(inter, &rsize);
        for (int c = rank; c < rsize; c += size) {
            int v = 100 + rank;
            MPI_Send(&v, 1, MPI_INT, c, 0, inter);
            MPI_Recv(&got, 1, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
            printf("parent %d: %d children, got %d from child %d\n", rank, rsize, got, c);
            rc |= got != 200 + c;
        }
        rc |= rsize != 2;
    } else {
        int rsize, got = -1;
        MPI_Comm_remote_size(parent, &rsize);
        MPI_Recv(&got, 1, MPI_INT, rank % rsize, 0, parent, MPI_STATUS_IGNORE);
        int v = 200 + rank;
        MPI_Send(&v, 1, MPI_INT, rank % rsize, 1, parent);
        printf("child %d of %d: %d parents, got %d\n", rank, size, rsize, got);
        rc = got != 100 + rank % rsize;
        inter = parent;
    }
    MPI_Comm_disconnect(&inter);
    /* (reported, not counted: openmpi.sh and interop.sh check the lines) */
    sy_mapcheck("rank", 0);
    sy_mapcheck("parent", getppid());
    MPI_Finalize();
    return rc;
}
