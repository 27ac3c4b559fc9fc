/* Requests the server hands to its host and that return infos or a status:
 * PMIx_Query_info, PMIx_Log, PMIx_Job_control, PMIx_Process_monitor,
 * PMIx_Allocation_request (+ _nb).  A singleton has no host:
 * PMIX_ERR_NOT_SUPPORTED. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/query_lib.h"
#include "common/runtime.h"
#include "common/sync.h"

/* ---- blocking forms ---- */

void sy_client_info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    sy_client_info_wait_t *w = cbdata;
    if (ninfo > 0 && info != NULL) {
        PMIX_INFO_CREATE(w->info, ninfo);
        if (w->info != NULL) {
            for (size_t i = 0; i < ninfo; i++)
                PMIx_Info_xfer(&w->info[i], &info[i]);
            w->ninfo = ninfo;
        }
    }
    if (release_fn != NULL)
        release_fn(release_cbdata);
    sy_sync_signal(&w->sync, status, NULL);
}

pmix_status_t sy_client_info_wait_begin(sy_client_info_wait_t *w, pmix_info_t **results,
                                        size_t *nresults)
{
    memset(w, 0, sizeof(*w));
    if (results != NULL)
        *results = NULL;
    if (nresults != NULL)
        *nresults = 0;
    return sy_sync_init(&w->sync) == PMIX_SUCCESS ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t sy_client_wait_infos(pmix_status_t started, sy_client_info_wait_t *w,
                                   pmix_info_t **results, size_t *nresults)
{
    pmix_status_t rc = started;
    if (rc == PMIX_SUCCESS) /* the runtime: a server's host may query too */
        rc = sy_sync_wait_progress(&w->sync, sy_runtime());
    sy_sync_destroy(&w->sync);
    if (results != NULL && nresults != NULL) {
        *results = w->info;
        *nresults = w->ninfo;
    } else if (w->info != NULL) {
        PMIX_INFO_FREE(w->info, w->ninfo);
    }
    return rc;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

/* ---- Query ---- */

/* What the library answers itself is answered here, when nothing is left
 * for a server; the rest goes to the server (whose library answers its
 * part), or to the server of this very process. */
PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (queries == NULL || nqueries == 0 || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    for (size_t q = 0; q < nqueries; q++)
        if (queries[q].keys == NULL || queries[q].keys[0] == NULL)
            return PMIX_ERR_BAD_PARAM;
    sy_query_ctx_t local = {0};
    if (sy_query_local_only(queries, nqueries, &local))
        return sy_query_answer_local(queries, nqueries, &local, cbfunc, cbdata);
    sy_conn_t *conn;
    pmix_status_t st = sy_client_server_conn(&conn);
    sy_query_path_fn own = sy_query_server_path();
    if (st != PMIX_SUCCESS && own != NULL)
        return own(queries, nqueries, cbfunc, cbdata);
    if (st != PMIX_SUCCESS)
        return st;
    /* the records point into the caller's queries */
    sy_wire_query_t *q = calloc(nqueries, sizeof(*q));
    if (q == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < nqueries; i++) {
        q[i].keys = queries[i].keys;
        while (q[i].keys[q[i].nkeys] != NULL)
            q[i].nkeys++;
        q[i].qualifiers = queries[i].qualifiers;
        q[i].nqualifiers = queries[i].nqual;
    }
    sy_wire_query_req_t m = {.queries = q, .nqueries = nqueries};
    pmix_status_t rc = sy_client_call_info_nb(SY_WMSG_QUERY_REQ, &m, cbfunc, cbdata);
    free(q);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                          pmix_info_t **results, size_t *nresults)
{
    if (results == NULL || nresults == NULL)
        return PMIX_ERR_BAD_PARAM;
    *results = NULL;
    *nresults = 0;
    /* the ABI versions: answered here, before any init too (Chap_API_Query) */
    if (queries != NULL && sy_query_abi_only(queries, nqueries))
        return sy_query_answer_now(queries, nqueries, results, nresults);
    sy_client_info_wait_t w = {0};
    if (sy_sync_init(&w.sync) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(PMIx_Query_info_nb(queries, nqueries, sy_client_info_done, &w), &w,
                                results, nresults);
}

/* ---- Log ---- */

PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if ((data == NULL && ndata > 0) || (directives == NULL && ndirs > 0) || ndata == 0)
        return PMIX_ERR_BAD_PARAM;
    sy_wire_log_req_t m = {.data = (pmix_info_t *)data,
                           .ndata = ndata,
                           .directives = (pmix_info_t *)directives,
                           .ndirectives = ndirs};
    /* A NULL callback still gets the request done (fire and forget). */
    return sy_client_call_op_nb(SY_WMSG_LOG_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[], size_t ndirs)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIx_Log_nb(data, ndata, directives, ndirs, op_done, &s);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&s, sy_client.progress);
    sy_sync_destroy(&s);
    return rc;
}

/* ---- Job control ---- */

PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if ((targets == NULL && ntargets > 0) || (directives == NULL && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_wire_job_control_req_t m = {.targets = (pmix_proc_t *)targets,
                                   .ntargets = ntargets,
                                   .directives = (pmix_info_t *)directives,
                                   .ndirectives = ndirs};
    /* With a NULL callback the request still goes; its result is dropped. */
    return sy_client_call_info_nb(SY_WMSG_JOB_CONTROL_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                           const pmix_info_t directives[], size_t ndirs,
                                           pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Job_control_nb(targets, ntargets, directives, ndirs, sy_client_info_done, &w), &w,
        results, nresults);
}

/* ---- Process monitoring (PMIx_Heartbeat is a macro over _nb) ---- */

PMIX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (monitor == NULL || (directives == NULL && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_wire_monitor_req_t m = {.monitor = (pmix_info_t *)monitor,
                               .nmonitor = 1,
                               .error = error,
                               .directives = (pmix_info_t *)directives,
                               .ndirectives = ndirs};
    return sy_client_call_info_nb(SY_WMSG_MONITOR_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Process_monitor_nb(monitor, error, directives, ndirs, sy_client_info_done, &w), &w,
        results, nresults);
}

/* ---- Spawn ---- */

static sy_client_local_spawn_fn local_spawn; /* under sy_client_lock */

void sy_client_set_local_spawn(sy_client_local_spawn_fn fn)
{
    pthread_mutex_lock(&sy_client_lock);
    local_spawn = fn;
    pthread_mutex_unlock(&sy_client_lock);
}

static void spawn_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                        void *cbdata)
{
    (void)id;
    sy_wire_spawn_rep_t *m = reply;
    pmix_nspace_t nspace;
    memset(nspace, 0, sizeof(nspace));
    if (status == PMIX_SUCCESS && m->nspace != NULL)
        PMIX_LOAD_NSPACE(nspace, m->nspace);
    if (user.spawn != NULL)
        user.spawn(status, nspace, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
                                        const pmix_app_t apps[], size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    if (apps == NULL || napps == 0 || (job_info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    pthread_mutex_lock(&sy_client_lock);
    sy_client_local_spawn_fn local = local_spawn;
    bool unconnected = sy_client.refcount > 0 && sy_client.tool && sy_client.conn == NULL;
    pthread_mutex_unlock(&sy_client_lock);
    if (unconnected && local != NULL)
        return local(job_info, ninfo, apps, napps, cbfunc, cbdata);
    sy_wire_spawn_req_t m = {.job_info = (pmix_info_t *)job_info,
                             .njob_info = ninfo,
                             .apps = (pmix_app_t *)apps,
                             .napps = napps};
    sy_conn_t *conn = NULL;
    if (sy_client.opx && sy_client_server_conn(&conn) == PMIX_SUCCESS)
        return sy_client_opx_spawn_nb(conn, &m, cbfunc, cbdata);
    return sy_client_call_nb(SY_WMSG_SPAWN_REQ, &m, spawn_reply, (sy_client_cb_t){.spawn = cbfunc},
                             cbdata);
}

typedef struct {
    sy_sync_t sync;
    char *nspace;
} spawn_wait_t;

static void spawn_done(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    spawn_wait_t *w = cbdata;
    if (status == PMIX_SUCCESS && w->nspace != NULL)
        PMIX_LOAD_NSPACE(w->nspace, nspace);
    sy_sync_signal(&w->sync, status, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)
{
    spawn_wait_t w = {.nspace = nspace};
    if (sy_sync_init(&w.sync) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIx_Spawn_nb(job_info, ninfo, apps, napps, spawn_done, &w);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&w.sync, sy_client.progress);
    sy_sync_destroy(&w.sync);
    return rc;
}

/* ---- Allocation requests ---- */

PMIX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive,
                                                     pmix_info_t info[], size_t ninfo,
                                                     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    sy_wire_alloc_req_t m = {.directive = directive, .info = info, .ninfo = ninfo};
    return sy_client_call_info_nb(SY_WMSG_ALLOC_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive,
                                                  pmix_info_t info[], size_t ninfo,
                                                  pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Allocation_request_nb(directive, info, ninfo, sy_client_info_done, &w), &w, results,
        nresults);
}
