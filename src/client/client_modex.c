/* Data exchange on the client side (Chap_API_Sharing_Basics.tex,
 * Chap_API_NonReserved_Keys.tex): PMIx_Put keeps values here until
 * PMIx_Commit sends what changed; PMIx_Fence asks the server to complete a
 * collective, whose reply names the modex segments to map; a Get of a
 * peer's key looks there first, then asks the server (direct modex). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/datatype.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/store.h"
#include "common/sync.h"

typedef struct posted {
    pmix_scope_t scope;
    char *key;
    pmix_value_t val;
    bool dirty; /* not committed yet */
    struct posted *next;
} posted_t;

static pthread_mutex_t posted_lock = PTHREAD_MUTEX_INITIALIZER;
static posted_t *posted;

static pmix_status_t server_conn(sy_conn_t **conn, pmix_proc_t *me)
{
    pthread_mutex_lock(&sy_client_lock);
    pmix_status_t rc = sy_client.refcount == 0 ? PMIX_ERR_INIT : PMIX_SUCCESS;
    *conn = sy_client.conn;
    if (me != NULL)
        *me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

static bool reserved(const char *key)
{
    return strncmp(key, "pmix", 4) == 0;
}

/* Reserved keys in which a process describes itself to its peers.  Clients
 * may neither create nor modify reserved keys, yet Open MPI's ranks post
 * these (PMIX_HOSTNAME always, PMIX_CPUSET when they bind themselves) and
 * fail MPI_Init when that is refused, as OpenPMIx accepts them.  So such a
 * Put is taken, and shared with the peers through the modex, but the
 * host's own value of the key, where there is one, stays what every Get
 * returns (job data is looked up first). */
static bool self_description(const char *key)
{
    static const char *const keys[] = {PMIX_HOSTNAME, PMIX_CPUSET, PMIX_PROC_URI, PMIX_ARCH};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val)
{
    sy_conn_t *conn;
    pmix_proc_t me;
    pmix_status_t rc = server_conn(&conn, &me);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (key == NULL || key[0] == '\0' || strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN ||
        val == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (sy_value_check(val) != PMIX_SUCCESS) {
        sy_log(SY_LOG_INFO, "PMIx_Put: %s: the value's pointers do not match its type or size",
               key);
        return PMIX_ERR_BAD_PARAM;
    }
    bool is_reserved = reserved(key);
    if (is_reserved && !self_description(key)) {
        sy_log(SY_LOG_INFO, "PMIx_Put: %s is a reserved key", key);
        return PMIX_ERR_BAD_PARAM;
    }
    if (scope != PMIX_LOCAL && scope != PMIX_REMOTE && scope != PMIX_GLOBAL &&
        scope != PMIX_INTERNAL)
        return PMIX_ERR_NOT_SUPPORTED;
    if (val->type == PMIX_POINTER && scope != PMIX_INTERNAL)
        return PMIX_ERR_BAD_PARAM; /* an address means nothing elsewhere */
    pthread_mutex_lock(&posted_lock);
    posted_t *p = posted;
    while (p != NULL && strcmp(p->key, key) != 0)
        p = p->next;
    if (p != NULL && p->scope != scope) {
        pthread_mutex_unlock(&posted_lock);
        sy_log(SY_LOG_INFO, "PMIx_Put: %s was already posted in another scope", key);
        return PMIX_ERR_BAD_PARAM;
    }
    /* Our own Gets see the value at once (but never instead of the
     * host's value of a reserved key). */
    if (!is_reserved)
        rc = sy_store_internal_put(&me, key, val);
    if (rc != PMIX_SUCCESS || scope == PMIX_INTERNAL) {
        pthread_mutex_unlock(&posted_lock);
        return rc;
    }
    if (p == NULL) {
        p = calloc(1, sizeof(*p));
        if (p == NULL || (p->key = strdup(key)) == NULL) {
            free(p);
            pthread_mutex_unlock(&posted_lock);
            return PMIX_ERR_NOMEM;
        }
        p->scope = scope;
        p->next = posted;
        posted = p;
    } else {
        sy_value_destruct(&p->val);
    }
    rc = sy_value_copy(&p->val, val);
    p->dirty = true;
    pthread_mutex_unlock(&posted_lock);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Commit(void)
{
    sy_conn_t *conn;
    pmix_status_t rc = server_conn(&conn, NULL);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (conn == NULL)
        return PMIX_SUCCESS; /* a singleton has nobody to share with */
    /* what changed, lent to the request (packed under the lock: the
     * values stay put meanwhile) */
    pthread_mutex_lock(&posted_lock);
    size_t n = 0;
    for (posted_t *p = posted; p != NULL; p = p->next)
        n += p->dirty;
    sy_wire_commit_req_t m = {.data = n > 0 ? calloc(n, sizeof(*m.data)) : NULL, .ndata = 0};
    if (n > 0 && m.data == NULL) {
        pthread_mutex_unlock(&posted_lock);
        return PMIX_ERR_NOMEM;
    }
    for (posted_t *p = posted; p != NULL; p = p->next) {
        if (!p->dirty)
            continue;
        sy_wire_kv_t *kv = &m.data[m.ndata++];
        kv->scope = (uint8_t)p->scope;
        kv->key = p->key;
        kv->value = p->val; /* a shallow copy: only read */
    }
    pmix_data_buffer_t req, rb;
    rc = sy_wire_commit_req_pack(sy_client_codec(), &req, &m);
    if (rc == PMIX_SUCCESS)
        for (posted_t *p = posted; p != NULL; p = p->next)
            p->dirty = false;
    pthread_mutex_unlock(&posted_lock);
    free(m.data);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = sy_client_rpc_direct(&req, SY_REQUEST_WAIT, &rb);
    /* the reply has no field: its status is the answer */
    sy_buffer_destruct(&rb);
    if (rc == PMIX_SUCCESS)
        sy_client_lfence_prepare();
    return rc;
}

/* ---- fence ---- */

pmix_status_t sy_client_attach_segments(const sy_wire_segment_t *segments, size_t nsegments,
                                        const sy_wire_gone_t *retired, size_t nretired)
{
    pmix_status_t status = PMIX_SUCCESS;
    for (size_t i = 0; status == PMIX_SUCCESS && i < nsegments; i++)
        if (segments[i].nspace != NULL && segments[i].path != NULL)
            status = sy_store_attach_modex(segments[i].nspace, segments[i].path);
    /* the segments these make redundant (their files are gone) */
    for (size_t i = 0; status == PMIX_SUCCESS && i < nretired; i++)
        if (retired[i].path != NULL)
            sy_store_modex_forget(NULL, retired[i].path);
    return status;
}

/* The segments to map (also after PMIX_ERR_PARTIAL_SUCCESS: a participant
 * left, the others' data was exchanged). */
static pmix_status_t attach_reply(pmix_status_t status, const sy_wire_fence_rep_t *rep)
{
    if (status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS) {
        pmix_status_t rc =
            sy_client_attach_segments(rep->segments, rep->nsegments, rep->retired, rep->nretired);
        if (rc != PMIX_SUCCESS)
            status = rc;
    }
    return status;
}

/* FENCE, CONNECT and DISCONNECT are one shape (wire_msgs.txt): the
 * fence's structs serve the three. */
_Static_assert(sizeof(sy_wire_fence_req_t) == sizeof(sy_wire_connect_req_t) &&
                   sizeof(sy_wire_fence_req_t) == sizeof(sy_wire_disconnect_req_t) &&
                   sizeof(sy_wire_fence_rep_t) == sizeof(sy_wire_connect_rep_t) &&
                   sizeof(sy_wire_fence_rep_t) == sizeof(sy_wire_disconnect_rep_t),
               "FENCE, CONNECT and DISCONNECT differ");
static sy_wire_msg_id_t collective_id(sy_cmd_t cmd)
{
    return cmd == SY_CMD_CONNECT      ? SY_WMSG_CONNECT_REQ
           : cmd == SY_CMD_DISCONNECT ? SY_WMSG_DISCONNECT_REQ
                                      : SY_WMSG_FENCE_REQ;
}

static void fence_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                        void *cbdata)
{
    (void)id;
    status = attach_reply(status, reply);
    if (user.op != NULL)
        user.op(status, cbdata);
}

/* The request of a collective; PMIX_OPERATION_SUCCEEDED for a singleton
 * (nothing to send).  m lends the caller's arrays (or own, for the
 * default of the whole namespace). */
static pmix_status_t collective_req(const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo, sy_conn_t **conn,
                                    pmix_proc_t *own, sy_wire_fence_req_t *m)
{
    pmix_proc_t me;
    pmix_status_t rc = server_conn(conn, &me);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((procs == NULL && nprocs > 0) || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if (*conn == NULL)
        return PMIX_OPERATION_SUCCEEDED; /* a singleton fences with itself */
    if (procs == NULL || nprocs == 0) {
        PMIX_LOAD_PROCID(own, me.nspace, PMIX_RANK_WILDCARD);
        procs = own;
        nprocs = 1;
    }
    m->procs = (pmix_proc_t *)procs;
    m->nprocs = nprocs;
    m->info = (pmix_info_t *)info;
    m->ninfo = info != NULL ? ninfo : 0;
    return PMIX_SUCCESS;
}

/* An OpenPMIx server appends the job data of the other namespaces to the
 * status of its CONNECT reply, outside the codec's fields (as our server
 * does for OpenPMIx clients, server_opx.c): client_opx.c reads it. */
typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} opx_connect_t;

static pmix_status_t opx_connect_done(pmix_status_t status, pmix_data_buffer_t *rest)
{
    if (status != PMIX_SUCCESS && status != PMIX_ERR_PARTIAL_SUCCESS)
        return status;
    pmix_status_t rc = sy_client_opx_connect_jobs(rest);
    return rc != PMIX_SUCCESS ? rc : status;
}

static void opx_connect_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    opx_connect_t *c = cbdata;
    status = opx_connect_done(status, reply);
    if (c->cbfunc != NULL)
        c->cbfunc(status, c->cbdata);
    free(c);
}

static pmix_status_t opx_connect_nb(sy_conn_t *conn, const sy_wire_fence_req_t *m,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    opx_connect_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return PMIX_ERR_NOMEM;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_wire_pack_request(sy_client_codec(), &req, SY_WMSG_CONNECT_REQ, m);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_request_nb(conn, &req, opx_connect_reply, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

static pmix_status_t opx_connect_wait(const sy_wire_fence_req_t *m)
{
    pmix_data_buffer_t req, rb;
    pmix_status_t rc = sy_wire_pack_request(sy_client_codec(), &req, SY_WMSG_CONNECT_REQ, m);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* no time limit of ours: PMIX_TIMEOUT is the server's */
    rc = sy_client_rpc_direct(&req, 365.0 * 86400, &rb);
    rc = opx_connect_done(rc, &rb);
    sy_buffer_destruct(&rb);
    return rc;
}

static pmix_status_t collective_nb(sy_cmd_t cmd, const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    sy_conn_t *conn = NULL;
    pmix_proc_t own;
    sy_wire_fence_req_t m;
    pmix_status_t rc = collective_req(procs, nprocs, info, ninfo, &conn, &own, &m);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (cmd == SY_CMD_CONNECT && sy_client.opx)
        return opx_connect_nb(conn, &m, cbfunc, cbdata);
    return sy_client_call_nb_on(conn, collective_id(cmd), &m, fence_reply,
                                (sy_client_cb_t){.op = cbfunc}, cbdata);
}

/* The blocking form: the same request and reply as collective_nb, over the
 * direct channel when there is one, so that the caller wakes straight
 * from the server's reply (every participant of a fence pays that wake-up,
 * and on a loaded node they queue for the CPUs). */
static pmix_status_t collective_wait(sy_cmd_t cmd, const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo)
{
    sy_conn_t *conn = NULL;
    pmix_proc_t own;
    sy_wire_fence_req_t m;
    pmix_status_t rc = collective_req(procs, nprocs, info, ninfo, &conn, &own, &m);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    if (cmd == SY_CMD_CONNECT && sy_client.opx)
        return opx_connect_wait(&m);
    /* no time limit of ours: PMIX_TIMEOUT is the server's */
    sy_wire_fence_rep_t rep;
    rc = sy_client_call_direct(collective_id(cmd), &m, 365.0 * 86400, &rep);
    rc = attach_reply(rc, &rep);
    sy_wire_fence_rep_free(&rep);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return collective_nb(SY_CMD_FENCE, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* After a connect, each side reads the other's job data (resolved from the
 * server on first use) and posted data (the segments the reply names). */
PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    return collective_nb(SY_CMD_CONNECT, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* Under an OpenPMIx server, what a connect (or spawn) brought of another
 * job is a private copy: a disconnect drops it, as OpenPMIx's own client
 * drops those namespaces when its disconnect starts (so Open MPI expects
 * nothing of them after it).  A later Get of such a job's keys asks the
 * server again (sy_client_dmodex_get). */
static void opx_forget_jobs(const pmix_proc_t procs[], size_t nprocs)
{
    pmix_proc_t me;
    pthread_mutex_lock(&sy_client_lock);
    me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    for (size_t i = 0; i < nprocs; i++) {
        if (PMIX_CHECK_NSPACE(procs[i].nspace, me.nspace))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = PMIX_CHECK_NSPACE(procs[j].nspace, procs[i].nspace);
        if (seen)
            continue;
        sy_store_detach(procs[i].nspace);
        sy_store_internal_forget(procs[i].nspace);
    }
}

PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    if (sy_client.opx)
        opx_forget_jobs(procs, nprocs);
    return collective_nb(SY_CMD_DISCONNECT, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo)
{
    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    return collective_wait(SY_CMD_CONNECT, procs, nprocs, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo)
{
    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    if (sy_client.opx)
        opx_forget_jobs(procs, nprocs);
    return collective_wait(SY_CMD_DISCONNECT, procs, nprocs, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc;
    if (sy_client_lfence(procs, nprocs, info, ninfo, &rc))
        return rc;
    return collective_wait(SY_CMD_FENCE, procs, nprocs, info, ninfo);
}

/* ---- Get of a peer's key ---- */

/* An OpenPMIx server answers with all the process's pairs (and, for a
 * process of another job, its job's pairs under the wildcard rank), one
 * PMIX_PROC_DATA array per process (opx_codec_client.c): cache them all
 * under their owners, return the one asked for (the process's own, else
 * its job's). */
static pmix_status_t opx_pick(sy_wire_dmodex_rep_t *rep, const pmix_proc_t *proc, const char *key,
                              pmix_value_t **val)
{
    const pmix_value_t *found = NULL;
    bool own = false;
    const pmix_data_array_t *da = rep->value.data.darray;
    if (rep->value.type == PMIX_DATA_ARRAY && da != NULL && da->type == PMIX_INFO) {
        const pmix_info_t *blobs = da->array;
        for (size_t i = 0; i < da->size; i++) {
            const pmix_data_array_t *pa = blobs[i].value.data.darray;
            if (blobs[i].value.type != PMIX_DATA_ARRAY || pa == NULL || pa->type != PMIX_INFO ||
                pa->size == 0)
                continue;
            const pmix_info_t *pairs = pa->array;
            if (pairs[0].value.type != PMIX_PROC || pairs[0].value.data.proc == NULL)
                continue;
            const pmix_proc_t *who = pairs[0].value.data.proc;
            /* PMIX_RANK_UNDEF: any process of the namespace */
            bool mine = proc->rank == PMIX_RANK_UNDEF
                            ? who->rank != PMIX_RANK_WILDCARD &&
                                  PMIX_CHECK_NSPACE(who->nspace, proc->nspace)
                            : PMIX_CHECK_PROCID(who, proc);
            bool job =
                who->rank == PMIX_RANK_WILDCARD && PMIX_CHECK_NSPACE(who->nspace, proc->nspace);
            for (size_t k = 1; k < pa->size; k++) {
                sy_store_internal_put(who, pairs[k].key, &pairs[k].value);
                if (strcmp(pairs[k].key, key) != 0 || own || !(mine || (job && found == NULL)))
                    continue;
                found = &pairs[k].value;
                own = mine;
            }
        }
    }
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    if (found != NULL) {
        pmix_value_t *v = calloc(1, sizeof(*v));
        rc = v == NULL ? PMIX_ERR_NOMEM : sy_value_copy(v, found);
        if (rc == PMIX_SUCCESS)
            *val = v;
        else
            free(v);
    }
    sy_wire_dmodex_rep_free(rep);
    return rc;
}

/* Ask the server; it holds the request until the data exists (or the
 * PMIX_TIMEOUT in info passes, or the target dies). */
static pmix_status_t direct_modex(const pmix_proc_t *proc, const char *key,
                                  const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    sy_wire_dmodex_req_t m = {.proc = *proc,
                              .key = (char *)key,
                              .info = (pmix_info_t *)info,
                              .ninfo = info != NULL ? ninfo : 0};
    sy_wire_dmodex_rep_t rep;
    /* no time limit of ours: the server enforces PMIX_TIMEOUT */
    pmix_status_t rc = sy_client_call_direct(SY_WMSG_DMODEX_REQ, &m, 365.0 * 86400, &rep);
    if (rc == PMIX_SUCCESS && sy_client.opx)
        return opx_pick(&rep, proc, key, val);
    pmix_value_t *v = rc == PMIX_SUCCESS ? malloc(sizeof(*v)) : NULL;
    if (rc == PMIX_SUCCESS && v == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        /* the value is taken; cached for the next Get, attributed to the
         * real owner */
        *v = rep.value;
        memset(&rep.value, 0, sizeof(rep.value));
        sy_store_internal_put(&rep.owner, key, v);
        *val = v;
    }
    sy_wire_dmodex_rep_free(&rep);
    return rc;
}

/* Job data of another job than ours from an OpenPMIx server, which holds
 * what its host registered of every job: asked as OpenPMIx's own client
 * and tool ask (GETNB of the wildcard rank, or of the process, with
 * PMIX_IMMEDIATE: the server answers from what it holds, with the job's
 * pairs), the pairs cached under their owners.  A tool gets no job data
 * at its handshake; a client gets only its own. */
static pmix_status_t opx_other_job(const pmix_proc_t *proc, const char *key,
                                   const pmix_info_t info[], size_t ni, pmix_value_t **val)
{
    pmix_info_t *all;
    PMIX_INFO_CREATE(all, ni + 1);
    if (all == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ni; i++)
        all[i] = info[i]; /* borrowed */
    PMIX_INFO_LOAD(&all[ni], PMIX_IMMEDIATE, NULL, PMIX_BOOL);
    pmix_status_t rc = direct_modex(proc, key, all, ni + 1, val);
    free(all); /* the borrowed infos stay the caller's */
    return rc;
}

pmix_status_t sy_client_dmodex_get(const pmix_proc_t *proc, const char *key,
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    size_t ni = info != NULL ? ninfo : 0;
    if (sy_client.opx && (reserved(key) || proc->rank == PMIX_RANK_WILDCARD) &&
        !sy_info_flag(info, ni, PMIX_OPTIONAL)) {
        sy_conn_t *conn;
        pmix_proc_t me;
        if (server_conn(&conn, &me) == PMIX_SUCCESS && conn != NULL &&
            !PMIX_CHECK_NSPACE(proc->nspace, me.nspace))
            return opx_other_job(proc, key, info, ni, val);
    }
    /* A reserved key the host did not give is not waited for: what a peer
     * posted of itself is in the collected data or nowhere. */
    if (reserved(key))
        return PMIX_ERR_NOT_FOUND;
    /* PMIX_OPTIONAL: what is here, nothing more.  PMIX_IMMEDIATE asks the
     * local server once as well (it answers from what it holds, never
     * asking the host, never waiting). */
    if (sy_info_flag(info, ni, PMIX_OPTIONAL))
        return PMIX_ERR_NOT_FOUND;
    if (proc->rank == PMIX_RANK_WILDCARD)
        return PMIX_ERR_NOT_FOUND; /* job-level keys come from the job data */
    sy_conn_t *conn;
    pmix_proc_t me;
    if (server_conn(&conn, &me) != PMIX_SUCCESS || conn == NULL)
        return PMIX_ERR_NOT_FOUND;
    if (PMIX_CHECK_PROCID(proc, &me))
        return PMIX_ERR_NOT_FOUND; /* our own data is all in our store */
    return direct_modex(proc, key, info, ni, val);
}

void sy_client_modex_finalize(void)
{
    sy_client_lfence_finalize();
    pthread_mutex_lock(&posted_lock);
    while (posted != NULL) {
        posted_t *p = posted;
        posted = p->next;
        sy_value_destruct(&p->val);
        free(p->key);
        free(p);
    }
    pthread_mutex_unlock(&posted_lock);
}
