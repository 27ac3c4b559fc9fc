/* A node's client for fabric-netns.sh (public API only): it registers the
 * fabric and prints what it got, then follows the script's story:
 *
 *   ready                       registered (then waits for an update)
 *   updated 1: ...              the first PMIX_FABRIC_UPDATED (topology change)
 *   <waits for the file DOWN: the scheduler was killed>
 *   cached: ...                 a new registration, answered by the node
 *                               daemon from its cache
 *   updated 2: ...              the second UPDATED (the scheduler is back)
 *
 * Each data line: "<devices> devices, <unreachable> unreachable pairs,
 * diameter <d>".  The PENDING handler checks that PENDING came before
 * each UPDATED.
 *
 *   fabric_netns_client DOWN */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_fabric_t fabric;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int pendings, updates;

static void describe(const char *what, const pmix_fabric_t *f)
{
    size_t n = 0;
    const uint16_t *m = NULL;
    for (size_t i = 0; i < f->ninfo; i++) {
        if (PMIX_CHECK_KEY(&f->info[i], PMIX_FABRIC_NUM_DEVICES))
            n = f->info[i].value.data.size;
        else if (PMIX_CHECK_KEY(&f->info[i], PMIX_FABRIC_COST_MATRIX) &&
                 f->info[i].value.type == PMIX_POINTER)
            m = f->info[i].value.data.ptr;
    }
    unsigned long unreachable = 0;
    unsigned diameter = 0;
    for (size_t i = 0; m != NULL && i < n * n; i++) {
        if (m[i] == UINT16_MAX)
            unreachable++;
        else if (m[i] > diameter)
            diameter = m[i];
    }
    printf("%s: %zu devices, %lu unreachable pairs, diameter %u%s\n", what, n, unreachable,
           diameter, m == NULL ? " (no matrix)" : "");
    fflush(stdout);
}

static void on_event(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    if (status == PMIX_FABRIC_UPDATE_PENDING) {
        pendings++;
    } else {
        updates++;
        char what[64];
        snprintf(what, sizeof(what), "updated %d%s", updates,
                 pendings >= updates ? "" : " WITHOUT PENDING");
        describe(what, &fabric);
        pthread_cond_signal(&cond);
    }
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int wait_updates(int k, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    int rc = 0;
    pthread_mutex_lock(&lock);
    while (updates < k && rc == 0)
        rc = pthread_cond_timedwait(&cond, &lock, &until);
    pthread_mutex_unlock(&lock);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fabric_netns_client DOWN\n");
        return 2;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    pmix_status_t codes[2] = {PMIX_FABRIC_UPDATE_PENDING, PMIX_FABRIC_UPDATED};
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    PMIX_FABRIC_CONSTRUCT(&fabric);
    pmix_status_t rc = PMIx_Fabric_register(&fabric, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("register: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    pthread_mutex_lock(&lock);
    describe("registered", &fabric);
    printf("ready\n");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    int ret = 0;
    if (wait_updates(1, 60) != 0) {
        printf("no first update\n");
        ret = 1;
    }
    for (int i = 0; ret == 0 && access(argv[1], F_OK) != 0; i++) {
        if (i > 600) {
            printf("the scheduler was never stopped\n");
            ret = 1;
        }
        usleep(100000);
    }
    if (ret == 0) {
        /* the scheduler is away: the node daemon's cache answers */
        pmix_fabric_t f2;
        PMIX_FABRIC_CONSTRUCT(&f2);
        rc = PMIx_Fabric_register(&f2, NULL, 0);
        if (rc == PMIX_SUCCESS) {
            pthread_mutex_lock(&lock);
            describe("cached", &f2);
            pthread_mutex_unlock(&lock);
            PMIx_Fabric_deregister(&f2);
        } else {
            printf("cached: %s\n", PMIx_Error_string(rc));
            fflush(stdout);
            ret = 1;
        }
    }
    if (ret == 0 && wait_updates(2, 90) != 0) {
        printf("no second update\n");
        ret = 1;
    }
    PMIx_Fabric_deregister(&fabric);
    PMIx_Finalize(NULL, 0);
    return ret;
}
