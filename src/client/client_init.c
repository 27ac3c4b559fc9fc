/* PMIx_Init / PMIx_Initialized / PMIx_Finalize / PMIx_Abort: finding the
 * server from setup_fork's environment, the HELLO handshake, mapping the
 * job-data segments, and the singleton case (no server at all). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/jobinfo.h"
#include "common/log.h"
#include "common/opx_client.h"
#include "common/pack.h"
#include "common/rendezvous.h"
#include "common/runtime.h"
#include "common/store.h"
#include "common/sync.h"
#include "common/topology.h"
#include "common/usock.h"
#include "common/wire.h"

#define SY_HELLO_WAIT 30.0 /* the host's client_connected may take a while */

pthread_mutex_t sy_client_lock = PTHREAD_MUTEX_INITIALIZER;
sy_client_t sy_client;

/* The store's resolver: ask the server for the segment of a namespace this
 * process has not mapped yet. */
pmix_status_t sy_client_resolve_nspace(const char *nspace, const pmix_info_t info[], size_t ninfo,
                                       void *ctx)
{
    (void)info;
    (void)ninfo;
    (void)ctx;
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    bool opx = sy_client.opx;
    pthread_mutex_unlock(&sy_client_lock);
    /* An OpenPMIx server has no such request: the job data of another
     * namespace comes with the CONNECT reply (client_opx.c), its pairs
     * with a GETNB of one of its processes (client_modex.c). */
    if (conn == NULL || opx)
        return PMIX_ERR_NOT_FOUND;
    sy_wire_jobseg_req_t m = {.nspace = (char *)nspace};
    sy_wire_jobseg_rep_t rep;
    pmix_status_t rc = sy_client_call(conn, SY_WMSG_JOBSEG_REQ, &m, SY_REQUEST_WAIT, &rep);
    if (rc == PMIX_SUCCESS)
        rc = rep.path != NULL ? sy_store_attach(nspace, rep.path) : PMIX_ERR_NOT_FOUND;
    sy_wire_jobseg_rep_free(&rep);
    return rc;
}

static pmix_status_t dial(int *fd)
{
    const char *usock = getenv(SY_ENV_USOCK);
    if (usock != NULL && *usock != '\0' && sy_usock_connect(usock, fd) == PMIX_SUCCESS) {
        sy_client.usock = strdup(usock); /* for the direct channel; NULL: none */
        return PMIX_SUCCESS;
    }
    const char *uri = getenv(SY_ENV_URI);
    if (uri == NULL)
        uri = getenv("PMIX_SERVER_URI4");
    char host[256];
    int port = 0;
    if (uri != NULL && sy_rndz_parse_uri(uri, host, sizeof(host), &port) == PMIX_SUCCESS &&
        sy_tcp_connect(host, port, fd) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    sy_log(SY_LOG_WARN, "PMIx_Init: cannot reach the server (%s%s%s)", usock != NULL ? usock : "",
           usock != NULL && uri != NULL ? ", " : "", uri != NULL ? uri : "");
    return PMIX_ERR_UNREACH;
}

pmix_status_t sy_client_pack_hello(pmix_data_buffer_t *req, uint8_t kind, const pmix_proc_t *me,
                                   const char *token, const pmix_info_t info[], size_t ninfo)
{
    sy_wire_hello_req_t m = {.protocol = SY_WIRE_PROTOCOL,
                             .version = SY_WIRE_VERSION,
                             .kind = kind,
                             .proc = *me,
                             .pid = getpid(),
                             .token = (char *)token,
                             .info = (pmix_info_t *)info,
                             .ninfo = info != NULL ? ninfo : 0};
    return sy_wire_hello_req_pack(sy_client_codec(), req, &m);
}

pmix_status_t sy_client_hello(int fd, uint8_t kind, const pmix_proc_t *me, const char *token,
                              const pmix_info_t info[], size_t ninfo, pmix_proc_t *server,
                              char **host, pmix_proc_t *assigned)
{
    pmix_data_buffer_t req, rb;
    const char *who = kind == SY_PEER_TOOL ? "PMIx_tool_init" : "PMIx_Init";
    *host = NULL;
    pmix_status_t rc = sy_client_pack_hello(&req, kind, me, token, info, ninfo);
    void *body = NULL;
    size_t len = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_client_exchange(fd, 1, req.base_ptr, req.bytes_used, SY_HELLO_WAIT, &body, &len);
    sy_buffer_destruct(&req);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "%s: no answer to our HELLO: %s", who, PMIx_Error_string(rc));
        return rc == PMIX_ERR_TIMEOUT ? rc : PMIX_ERR_UNREACH;
    }
    sy_client_buffer_over(&rb, body, len);
    pmix_status_t status;
    sy_wire_hello_rep_t m;
    rc = sy_client_unpack_status(&rb, &status);
    pmix_status_t urc = rc == PMIX_SUCCESS ? sy_wire_hello_rep_unpack(sy_client_codec(), &rb, &m)
                                           : PMIX_ERR_UNPACK_FAILURE;
    sy_buffer_destruct(&rb);
    if (rc == PMIX_SUCCESS && status != PMIX_SUCCESS) {
        /* a refusal is its status, whatever became of the reason */
        sy_log(SY_LOG_WARN, "%s: the server refused us: %s (%s)", who,
               urc == PMIX_SUCCESS && m.reason != NULL ? m.reason : "no reason",
               PMIx_Error_string(status));
        if (urc == PMIX_SUCCESS)
            sy_wire_hello_rep_free(&m);
        return status;
    }
    if (rc != PMIX_SUCCESS || urc != PMIX_SUCCESS)
        return rc != PMIX_SUCCESS ? rc : urc;
    *server = m.server;
    if (kind == SY_PEER_TOOL)
        *assigned = m.assigned;
    const char *ns = kind == SY_PEER_TOOL ? assigned->nspace : me->nspace;
    if (m.jobseg != NULL)
        rc = sy_store_attach(ns, m.jobseg);
    if (rc == PMIX_SUCCESS && m.resources != NULL)
        rc = sy_store_attach_resources(m.resources);
    if (rc == PMIX_SUCCESS) {
        *host = m.hostname; /* taken */
        m.hostname = NULL;
    }
    sy_wire_hello_rep_free(&m);
    return rc;
}

static pmix_status_t hello(int fd, const pmix_info_t info[], size_t ninfo)
{
    return sy_client_hello(fd, SY_PEER_CLIENT, &sy_client.me, getenv(SY_ENV_TOKEN), info, ninfo,
                           &sy_client.server, &sy_client.server_host, NULL);
}

static void free_conn_on_loop(void *arg)
{
    sy_sync_t *sync = arg;
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.conn;
    sy_client.conn = NULL;
    pthread_mutex_unlock(&sy_client_lock);
    sy_conn_free(conn);
    sy_sync_signal(sync, PMIX_SUCCESS, NULL);
}

/* libevent objects belong to the loop: the connection is freed there. */
static void drop_conn(void)
{
    if (sy_client.conn == NULL)
        return;
    sy_sync_t sync;
    sy_progress_t *p = sy_client.progress;
    if (sy_sync_init(&sync) == PMIX_SUCCESS) {
        if (sy_progress_post(p, free_conn_on_loop, &sync) == PMIX_SUCCESS)
            sy_sync_wait_progress(&sync, p);
        sy_sync_destroy(&sync);
    }
    sy_client_fail_requests(PMIX_ERR_LOST_CONNECTION);
}

static pmix_status_t connect_server(const pmix_info_t info[], size_t ninfo)
{
    const char *rank = getenv(SY_ENV_RANK);
    char *stop = NULL;
    unsigned long r = rank != NULL ? strtoul(rank, &stop, 10) : 0;
    if (rank == NULL || stop == rank || *stop != '\0' || r >= PMIX_RANK_VALID) {
        sy_log(SY_LOG_WARN, "PMIx_Init: %s is not a rank", rank != NULL ? rank : "(unset)");
        return PMIX_ERR_BAD_PARAM;
    }
    PMIX_LOAD_PROCID(&sy_client.me, getenv(SY_ENV_NSPACE), (pmix_rank_t)r);
    bool old_only = false;
    const char *opx_uri = sy_opx_server_uri(&old_only);
    if (opx_uri != NULL)
        return sy_client_opx_connect(opx_uri);
    if (old_only) {
        sy_log(SY_LOG_WARN, "PMIx_Init: the server is an OpenPMIx release before 4.0, whose "
                            "protocol we do not speak");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    int fd = -1;
    pmix_status_t rc = dial(&fd);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = hello(fd, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        close(fd);
        return rc;
    }
    sy_conn_t *conn = NULL;
    rc = sy_conn_create(sy_progress_base(sy_client.progress), fd, &sy_client_conn_callbacks, NULL,
                        0, &conn);
    if (rc == PMIX_SUCCESS)
        sy_client.conn = conn;
    return rc;
}

/* A job's data built here (fill), published as a private segment under
 * $TMPDIR/switchyard-<what>.<pid>.XXXXXX and attached as nspace's; the
 * file is gone as soon as it is mapped (the pid in the name lets a server
 * sweep it if we die in between). */
pmix_status_t sy_client_attach_private_job(const char *nspace, const char *what,
                                           sy_client_job_fill_t fill, void *arg)
{
    const char *t = getenv("TMPDIR");
    char *dir = NULL, *path = NULL;
    if (asprintf(&dir, "%s/switchyard-%s.%ld.XXXXXX", t != NULL && *t == '/' ? t : "/tmp", what,
                 (long)getpid()) < 0)
        return PMIX_ERR_NOMEM;
    if (mkdtemp(dir) == NULL) {
        sy_log(SY_LOG_WARN, "PMIx_Init: no private directory for the %s job data", what);
        free(dir);
        return PMIX_ERR_NO_PERMISSIONS;
    }
    sy_jseg_builder_t *b = NULL;
    pmix_status_t rc = asprintf(&path, "%s/job", dir) < 0 ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
    if (rc == PMIX_SUCCESS)
        rc = sy_jseg_builder_new(nspace, &b);
    if (rc == PMIX_SUCCESS)
        rc = fill(b, arg);
    if (rc == PMIX_SUCCESS)
        rc = sy_jseg_publish(b, path, 0600);
    if (rc == PMIX_SUCCESS)
        rc = sy_store_attach(nspace, path);
    sy_jseg_builder_free(b);
    if (path != NULL)
        unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    return rc;
}

static pmix_status_t fill_singleton(sy_jseg_builder_t *b, void *host)
{
    return sy_jobinfo_compile_singleton(sy_client.me.nspace, host, getpid(), b);
}

/* No server: a namespace of one process. */
static pmix_status_t become_singleton(void)
{
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    char nspace[PMIX_MAX_NSLEN + 1];
    snprintf(nspace, sizeof(nspace), "singleton.%.200s.%ld", host, (long)getpid());
    PMIX_LOAD_PROCID(&sy_client.me, nspace, 0);
    sy_client.singleton = true;
    return sy_client_attach_private_job(nspace, "singleton", fill_singleton, host);
}

static void reset_state(void)
{
    free(sy_client.server_host);
    free(sy_client.usock);
    memset(&sy_client, 0, sizeof(sy_client));
}

PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    pthread_mutex_lock(&sy_client_lock);
    if (sy_client.refcount > 0) {
        sy_client.refcount++;
        if (proc != NULL)
            *proc = sy_client.me;
        pthread_mutex_unlock(&sy_client_lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&sy_client_lock);

    /* Init/Finalize are not meant to race each other; the lock above only
     * keeps the reference count honest.  The connection is published in
     * sy_client before HELLO, so replies can be matched. */
    sy_progress_t *p = NULL;
    pmix_status_t rc = sy_runtime_acquire(info, ninfo, &p);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_store_acquire();
    pthread_mutex_lock(&sy_client_lock);
    reset_state();
    sy_client.progress = p;
    pthread_mutex_unlock(&sy_client_lock);

    const char *ns = getenv(SY_ENV_NSPACE);
    if (ns != NULL && *ns != '\0')
        rc = connect_server(info, ninfo);
    else
        rc = become_singleton();
    if (rc != PMIX_SUCCESS) {
        sy_store_detach(sy_client.me.nspace);
        sy_store_release();
        sy_runtime_release();
        pthread_mutex_lock(&sy_client_lock);
        reset_state();
        pthread_mutex_unlock(&sy_client_lock);
        return rc;
    }
    if (!sy_client.singleton)
        sy_store_set_resolver(sy_client_resolve_nspace, NULL);
    sy_store_set_provider(PMIX_DEVICE_DISTANCES, sy_client_device_distances);
    pthread_mutex_lock(&sy_client_lock);
    sy_client.refcount = 1;
    if (proc != NULL)
        *proc = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    sy_client_event_init(info, ninfo, true);
    sy_client_fabric_init();
    sy_client_lfence_init();
    /* a debugger may hold us here (PMIX_DEBUG_STOP_IN_INIT) */
    rc = sy_client.singleton ? PMIX_SUCCESS : sy_client_debug_hold(&sy_client.me);
    if (rc != PMIX_SUCCESS) {
        PMIx_Finalize(NULL, 0);
        return rc;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_client_server_conn(sy_conn_t **conn)
{
    pthread_mutex_lock(&sy_client_lock);
    pmix_status_t rc = PMIX_SUCCESS;
    if (sy_client.refcount == 0)
        rc = PMIX_ERR_INIT;
    else if (sy_client.conn == NULL)
        rc = sy_client.tool ? PMIX_ERR_UNREACH : PMIX_ERR_NOT_SUPPORTED;
    *conn = sy_client.conn;
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

PMIX_EXPORT int PMIx_Initialized(void)
{
    pthread_mutex_lock(&sy_client_lock);
    int yes = sy_client.refcount > 0;
    pthread_mutex_unlock(&sy_client_lock);
    return yes;
}

PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo)
{
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&sy_client_lock);
    if (sy_client.refcount == 0) {
        pthread_mutex_unlock(&sy_client_lock);
        return PMIX_ERR_INIT;
    }
    if (--sy_client.refcount > 0) {
        pthread_mutex_unlock(&sy_client_lock);
        return PMIX_SUCCESS;
    }
    sy_conn_t *conn = sy_client.conn;
    if (sy_client.tool) {
        /* the tool's connections are PMIx_tool_finalize's to close */
        sy_client.refcount++;
        pthread_mutex_unlock(&sy_client_lock);
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_unlock(&sy_client_lock);

    sy_client_iof_finalize();
    sy_client_modex_finalize();
    sy_client_group_finalize();
    sy_client_fabric_finalize();
    sy_client_event_finalize();
    pmix_status_t rc = PMIX_SUCCESS;
    if (conn != NULL) {
        /* Tell the server, so the host's client_finalized runs before we
         * return; a server already gone is no error of ours. */
        rc = sy_client_call(conn, SY_WMSG_FINALIZE_REQ, NULL, SY_REQUEST_WAIT, NULL);
        if (rc == PMIX_ERR_LOST_CONNECTION)
            rc = PMIX_SUCCESS;
        sy_store_set_resolver(NULL, NULL);
        sy_client_direct_close();
        drop_conn();
    }
    sy_store_set_provider(PMIX_DEVICE_DISTANCES, NULL);
    sy_store_detach(sy_client.me.nspace);
    sy_store_release();
    sy_topology_release_cached();
    sy_runtime_release();
    pthread_mutex_lock(&sy_client_lock);
    reset_state();
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[],
                                     size_t nprocs)
{
    pthread_mutex_lock(&sy_client_lock);
    bool up = sy_client.refcount > 0;
    sy_conn_t *conn = sy_client.conn;
    pthread_mutex_unlock(&sy_client_lock);
    if (!up)
        return PMIX_ERR_INIT;
    if (procs == NULL && nprocs > 0)
        return PMIX_ERR_BAD_PARAM;
    if (conn == NULL)
        return PMIX_ERR_UNREACH; /* a singleton has nobody to ask */
    sy_wire_abort_req_t m = {
        .status = status, .message = (char *)msg, .procs = (pmix_proc_t *)procs, .nprocs = nprocs};
    /* No time limit: the host may take its time to kill the job, and Open
     * MPI exits right after we return. */
    return sy_client_call(conn, SY_WMSG_ABORT_REQ, &m, 3600.0, NULL);
}
