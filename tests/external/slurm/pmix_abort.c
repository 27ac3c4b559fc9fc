/* Rank 1 calls PMIx_Abort(7) while the others wait in a fence that can
 * only end by the step being killed: srun must exit 7. */
#include <stdio.h>
#include <unistd.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("abort: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 1) {
        printf("abort: rank 1 calls PMIx_Abort(7)\n");
        fflush(stdout);
        rc = PMIx_Abort(7, "sy slurm test abort", NULL, 0);
        printf("abort: PMIx_Abort returned %s\n", PMIx_Error_string(rc));
        fflush(stdout);
        sleep(30);
        return 2;
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("abort: rank %u left the fence: %s\n", me.rank, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return 3;
}
