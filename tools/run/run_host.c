/* The host module of switchyard-run: a resource manager of one node.
 * Upcalls arrive on the server's progress thread; what they change in the
 * job is guarded by job_lock and read by the main thread. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

static run_job_t *the_job;
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;

static run_proc_t *proc_of(const pmix_proc_t *p, void *server_object)
{
    if (server_object != NULL)
        return server_object;
    /* no object: a tool leaving (client_finalized), or another job's rank */
    if (the_job == NULL || !PMIX_CHECK_NSPACE(p->nspace, the_job->nspace) ||
        p->rank >= the_job->nprocs)
        return NULL;
    return &the_job->procs[p->rank];
}

static pmix_status_t connected2(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&job_lock);
    run_proc_t *p = proc_of(proc, server_object);
    if (p != NULL)
        p->connected = true;
    pthread_mutex_unlock(&job_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *server_object,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&job_lock);
    run_proc_t *p = proc_of(proc, server_object);
    if (p != NULL)
        p->finalized = true;
    pthread_mutex_unlock(&job_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

/* From the server's thread only with the host lock held (exited). */
void run_kill_all(run_job_t *job, int sig)
{
    for (unsigned r = 0; r < job->nprocs; r++)
        if (job->procs[r].pid > 0 && !job->procs[r].exited)
            kill(-job->procs[r].pid, sig); /* its process group */
}

/* Has something already explained the job's end?  A peer's abort is
 * often the reaction to a process that ended on its own (Open MPI aborts
 * when a peer vanished) and then does not explain it.  Besides what is
 * recorded, a process that ended but is not reaped yet counts (it becomes
 * the first failure).  Host lock held. */
static bool explained(run_job_t *job)
{
    if (job->first_failed >= 0 || job->failing)
        return true;
    for (unsigned r = 0; r < job->nprocs; r++) {
        const run_proc_t *p = &job->procs[r];
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (p->pid <= 0 || p->exited ||
            waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            continue;
        if (si.si_code != CLD_EXITED || si.si_status != 0 || (p->connected && !p->finalized)) {
            job->first_failed = (int)r;
            return true;
        }
    }
    return false;
}

static pmix_status_t do_abort(const pmix_proc_t *proc, void *server_object, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    (void)procs;
    (void)nprocs;
    pthread_mutex_lock(&job_lock);
    run_job_t *job = the_job;
    if (job != NULL && !job->aborted) {
        job->aborted = true;
        job->abort_status = status;
        job->abort_rank = proc->rank;
        job->abort_msg = msg != NULL ? strdup(msg) : NULL;
        job->abort_late = explained(job);
    }
    pthread_mutex_unlock(&job_lock);
    /* Acknowledge first, so the caller's PMIx_Abort returns; then the whole
     * job goes (the caller included, as mpirun does). */
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    if (job != NULL) {
        /* under the lock: the main thread marks reaped processes */
        pthread_mutex_lock(&job_lock);
        run_kill_all(job, SIGTERM);
        pthread_mutex_unlock(&job_lock);
    }
    return PMIX_SUCCESS;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* One node: the all-gather of this node's contribution is itself. */
static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                           void *cbdata)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    char *copy = NULL;
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

/* Every process is on this node, so the server never needs another node's
 * data: nothing to fetch. */
static pmix_status_t dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                            pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_FOUND;
}

void run_host_module(pmix_server_module_t *m, run_job_t *job)
{
    memset(m, 0, sizeof(*m));
    the_job = job;
    m->client_connected2 = connected2;
    m->client_finalized = finalized;
    m->abort = do_abort;
    m->fence_nb = fence;
    m->direct_modex = dmodex;
    run_pubsub_module(m);
    run_ops_module(m, job);
    run_group_module(m, job);
}

/* For the main thread: a consistent view of the flags the upcalls set. */
void run_host_lock(void)
{
    pthread_mutex_lock(&job_lock);
}

void run_host_unlock(void)
{
    pthread_mutex_unlock(&job_lock);
}

/* A process of the job lost its connection without PMIx_Finalize.  The
 * server tells us (on its loop) before it tells the peers, so when nothing
 * explained the job's end yet, this process is the first failure even if
 * its peers' reactions (an abort, a crash) are reaped before its own exit. */
static void lost_connection(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void)ref;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&job_lock);
    run_job_t *job = the_job;
    bool open = job != NULL && !job->aborted && !job->failing && job->first_failed < 0;
    for (size_t i = 0; open && i < ninfo; i++) {
        if (strcmp(info[i].key, PMIX_EVENT_AFFECTED_PROC) == 0 && info[i].value.type == PMIX_PROC &&
            PMIX_CHECK_NSPACE(info[i].value.data.proc->nspace, job->nspace) &&
            info[i].value.data.proc->rank < job->nprocs) {
            job->first_failed = (int)info[i].value.data.proc->rank;
            break;
        }
    }
    pthread_mutex_unlock(&job_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

void run_host_watch_losses(void)
{
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    PMIx_Register_event_handler(&code, 1, NULL, 0, lost_connection, NULL, NULL);
}
