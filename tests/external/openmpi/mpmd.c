/* One binary for both app contexts of an MPMD job: argv[1] names the app;
 * every rank checks its MPI_APPNUM and that the world spans both apps. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, *appnum, flag, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    int want = argc > 1 && strcmp(argv[1], "b") == 0 ? 1 : 0;
    if (!flag || *appnum != want) {
        printf("rank %d: appnum %d, expected %d\n", rank, flag ? *appnum : -1, want);
        rc = 1;
    }
    int total = 0;
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpmd rank %d of %d app %s appnum %d total %d\n", rank, size, argc > 1 ? argv[1] : "?",
           flag ? *appnum : -1, total);
    MPI_Finalize();
    return rc || total != size * (size - 1) / 2;
}
