/* A rank for the tool interop test (tests/external/opx-tool.sh): it
 * initializes, says so, and waits.  Rank 0 then waits for the file
 * argv[1] (the tool has registered its handler), notifies the event
 * SY_TOOLTEST_EVENT to everyone (PMIX_RANGE_GLOBAL), and every rank
 * waits for the file argv[2] before it finalizes, so the job runs
 * while the tool looks at it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define SY_TOOLTEST_EVENT (PMIX_EXTERNAL_ERR_BASE - 77)

static int wait_for(const char *path, int seconds)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    for (int i = 0; i < seconds * 20; i++) {
        if (access(path, F_OK) == 0)
            return 0;
        nanosleep(&ts, NULL);
    }
    return -1;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    if (argc < 3)
        return 2;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("waiter FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("waiter %u up in %s\n", me.rank, me.nspace);
    fflush(stdout);
    if (me.rank == 0) {
        if (wait_for(argv[1], 60) != 0) {
            printf("waiter 0 FAIL: no %s\n", argv[1]);
            PMIx_Finalize(NULL, 0);
            return 1;
        }
        rc = PMIx_Notify_event(SY_TOOLTEST_EVENT, &me, PMIX_RANGE_GLOBAL, NULL, 0, NULL, NULL);
        printf("waiter 0 notified: %s\n", PMIx_Error_string(rc));
        fflush(stdout);
    }
    wait_for(argv[2], 60);
    PMIx_Finalize(NULL, 0);
    return 0;
}
