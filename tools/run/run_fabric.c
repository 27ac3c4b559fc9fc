/* switchyard-run --fabric: the launcher is the scheduler of a fabric (a
 * topology file or a generator spec) and gives its job the fabric data,
 * as a resource manager would: PMIx_server_setup_application with the
 * job's maps, then PMIx_server_setup_local_support with what it returned,
 * before any process starts.  The job's node takes a host of the topology
 * (its own name if the topology has it, else the first host). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pmix.h>
#include <switchyard.h>

#include "run.h"

size_t run_fabric_server_info(const run_opts_t *opts, pmix_info_t *info)
{
    if (opts->fabric == NULL)
        return 0;
    struct stat st;
    bool file = stat(opts->fabric, &st) == 0;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_SCHEDULER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], file ? SWITCHYARD_FABRIC_TOPOLOGY : SWITCHYARD_FABRIC_GENERATE,
                   opts->fabric, PMIX_STRING);
    return 2;
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    pmix_op_cbfunc_t release;
    void *release_data;
} setup_wait_t;

static void setup_done(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                       void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_wait_t *w = provided_cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->info = info;
    w->ninfo = ninfo;
    w->release = cbfunc;
    w->release_data = cbdata;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

int run_fabric_setup(run_job_t *job)
{
    if (job->opts->fabric == NULL)
        return 0;
    char *nodes, *procs;
    if (run_maps(job, &nodes, &procs) != 0)
        return -1;
    pmix_info_t in[3];
    size_t one = 1;
    PMIX_INFO_LOAD(&in[0], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&in[1], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&in[2], PMIX_ALLOC_FABRIC_ENDPTS, &one, PMIX_SIZE);
    free(nodes);
    free(procs);
    setup_wait_t w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    pmix_status_t rc = PMIx_server_setup_application(job->nspace, in, 3, setup_done, &w);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&in[i]);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w.lock);
        while (!w.done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        rc = w.status;
    }
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_setup_local_support(job->nspace, w.info, w.ninfo, NULL, NULL);
    if (w.release != NULL)
        w.release(PMIX_SUCCESS, w.release_data);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-run: --fabric %s: %s\n", job->opts->fabric,
                PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}
