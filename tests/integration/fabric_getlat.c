/* A client of the scheduler's own server that keeps asking it questions
 * (fabric-nostall.sh): PMIx_Get of PMIX_PSET_NAMES, which the server
 * answers itself (a query on its loop, never from the local store), in a
 * loop until the file STOP appears.  Each answered Get is written to OUT
 * as "<start, CLOCK_REALTIME seconds> <latency, seconds>", so that the
 * script can see which Gets were answered while the scheduler
 * recomputed its fabric.  Public API only.
 *
 *   fabric_getlat OUT STOP READY */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fabric_getlat OUT STOP READY\n");
        return 2;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed\n");
        return 1;
    }
    FILE *out = fopen(argv[1], "w");
    if (out == NULL)
        return 1;
    FILE *ready = fopen(argv[3], "w");
    if (ready != NULL)
        fclose(ready);
    size_t n = 0, failed = 0;
    double worst = 0;
    while (access(argv[2], F_OK) != 0) {
        double wall = now(CLOCK_REALTIME), t0 = now(CLOCK_MONOTONIC);
        pmix_value_t *val = NULL;
        pmix_status_t rc = PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &val);
        double lat = now(CLOCK_MONOTONIC) - t0;
        if (val != NULL)
            PMIX_VALUE_RELEASE(val);
        /* no set yet is an answer too: NOT_FOUND comes from the server */
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
            failed++;
            continue;
        }
        fprintf(out, "%.6f %.6f\n", wall, lat);
        n++;
        if (lat > worst)
            worst = lat;
    }
    fclose(out);
    printf("gets %zu failed %zu max_ms %.3f\n", n, failed, worst * 1e3);
    PMIx_Finalize(NULL, 0);
    return failed == 0 && n > 0 ? 0 : 1;
}
