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
    pmix_data_buffer_t req, rb;
    rc = sy_client_pack_cmd(&req, SY_CMD_COMMIT);
    pthread_mutex_lock(&posted_lock);
    size_t n = 0;
    for (posted_t *p = posted; p != NULL; p = p->next)
        n += p->dirty;
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &n, 1, PMIX_SIZE);
    for (posted_t *p = posted; p != NULL && rc == PMIX_SUCCESS; p = p->next) {
        if (!p->dirty)
            continue;
        uint8_t scope = (uint8_t)p->scope;
        rc = sy_pack(&req, &scope, 1, PMIX_UINT8);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(&req, &p->key, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(&req, &p->val, 1, PMIX_VALUE);
    }
    if (rc == PMIX_SUCCESS)
        for (posted_t *p = posted; p != NULL; p = p->next)
            p->dirty = false;
    pthread_mutex_unlock(&posted_lock);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return rc;
    }
    rc = sy_client_rpc_direct(&req, SY_REQUEST_WAIT, &rb);
    sy_buffer_destruct(&rb);
    return rc;
}

/* ---- fence ---- */

typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} fence_req_t;

pmix_status_t sy_client_attach_segments(pmix_data_buffer_t *reply)
{
    size_t n = 0;
    pmix_status_t status = sy_client_unpack_one(reply, &n, PMIX_SIZE);
    for (size_t i = 0; status == PMIX_SUCCESS && i < n; i++) {
        char *ns = NULL, *path = NULL;
        status = sy_client_unpack_one(reply, &ns, PMIX_STRING);
        if (status == PMIX_SUCCESS)
            status = sy_client_unpack_one(reply, &path, PMIX_STRING);
        if (status == PMIX_SUCCESS && ns != NULL && path != NULL)
            status = sy_store_attach_modex(ns, path);
        free(ns);
        free(path);
    }
    /* the segments these make redundant (their files are gone) */
    size_t k = 0;
    if (status == PMIX_SUCCESS)
        status = sy_client_unpack_one(reply, &k, PMIX_SIZE);
    for (size_t i = 0; status == PMIX_SUCCESS && i < k; i++) {
        char *path = NULL;
        status = sy_client_unpack_one(reply, &path, PMIX_STRING);
        if (status == PMIX_SUCCESS && path != NULL)
            sy_store_modex_forget(NULL, path);
        free(path);
    }
    return status;
}

/* Reply after the status: SIZE n, n x (STRING nspace, STRING path): the
 * segments to map (also after PMIX_ERR_PARTIAL_SUCCESS: a participant
 * left, the others' data was exchanged). */
static pmix_status_t attach_reply(pmix_status_t status, pmix_data_buffer_t *reply)
{
    if ((status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS) &&
        sy_buffer_remaining(reply) > 0) {
        pmix_status_t rc = sy_client_attach_segments(reply);
        if (rc != PMIX_SUCCESS)
            status = rc;
    }
    return status;
}

static void fence_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    fence_req_t *f = cbdata;
    status = attach_reply(status, reply);
    if (f->cbfunc != NULL)
        f->cbfunc(status, f->cbdata);
    free(f);
}

/* The request of a collective; PMIX_OPERATION_SUCCEEDED for a singleton
 * (nothing to send). */
static pmix_status_t collective_req(sy_cmd_t cmd, const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo, sy_conn_t **conn,
                                    pmix_data_buffer_t *req)
{
    pmix_proc_t me;
    pmix_status_t rc = server_conn(conn, &me);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((procs == NULL && nprocs > 0) || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if (*conn == NULL)
        return PMIX_OPERATION_SUCCEEDED; /* a singleton fences with itself */
    pmix_proc_t own;
    if (procs == NULL || nprocs == 0) {
        PMIX_LOAD_PROCID(&own, me.nspace, PMIX_RANK_WILDCARD);
        procs = &own;
        nprocs = 1;
    }
    size_t ni = info != NULL ? ninfo : 0;
    rc = sy_client_pack_cmd(req, cmd);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(req, &nprocs, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(req, procs, (int32_t)nprocs, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(req, &ni, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ni > 0)
        rc = sy_pack(req, info, (int32_t)ni, PMIX_INFO);
    if (rc != PMIX_SUCCESS)
        sy_buffer_destruct(req);
    return rc;
}

static pmix_status_t collective_nb(sy_cmd_t cmd, const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    sy_conn_t *conn = NULL;
    pmix_data_buffer_t req;
    pmix_status_t rc = collective_req(cmd, procs, nprocs, info, ninfo, &conn, &req);
    if (rc != PMIX_SUCCESS)
        return rc;
    fence_req_t *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        sy_buffer_destruct(&req);
        return PMIX_ERR_NOMEM;
    }
    f->cbfunc = cbfunc;
    f->cbdata = cbdata;
    rc = sy_client_request_nb(conn, &req, fence_reply, f);
    if (rc != PMIX_SUCCESS)
        free(f);
    return rc;
}

/* The blocking form: the same request and reply as collective_nb, over the
 * direct channel when there is one, so that the caller wakes straight
 * from the server's reply (every participant of a fence pays that wake-up,
 * and on a loaded node they queue for the CPUs). */
static pmix_status_t collective_wait(sy_cmd_t cmd, const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo)
{
    sy_conn_t *conn = NULL;
    pmix_data_buffer_t req, rb;
    pmix_status_t rc = collective_req(cmd, procs, nprocs, info, ninfo, &conn, &req);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    /* no time limit of ours: PMIX_TIMEOUT is the server's */
    rc = sy_client_rpc_direct(&req, 365.0 * 86400, &rb);
    rc = attach_reply(rc, &rb);
    sy_buffer_destruct(&rb);
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

PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (procs == NULL || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
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
    return collective_wait(SY_CMD_DISCONNECT, procs, nprocs, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo)
{
    return collective_wait(SY_CMD_FENCE, procs, nprocs, info, ninfo);
}

/* ---- Get of a peer's key ---- */

/* Ask the server; it holds the request until the data exists (or the
 * PMIX_TIMEOUT in info passes, or the target dies). */
static pmix_status_t direct_modex(const pmix_proc_t *proc, const char *key,
                                  const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    pmix_data_buffer_t req, rb;
    size_t ni = info != NULL ? ninfo : 0;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_DMODEX);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &key, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &ni, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ni > 0)
        rc = sy_pack(&req, info, (int32_t)ni, PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return rc;
    }
    /* no time limit of ours: the server enforces PMIX_TIMEOUT */
    rc = sy_client_rpc_direct(&req, 365.0 * 86400, &rb);
    if (rc == PMIX_SUCCESS) {
        pmix_proc_t owner;
        pmix_value_t *v = calloc(1, sizeof(*v));
        rc = v == NULL ? PMIX_ERR_NOMEM : sy_client_unpack_one(&rb, &owner, PMIX_PROC);
        if (rc == PMIX_SUCCESS)
            rc = sy_client_unpack_one(&rb, v, PMIX_VALUE);
        if (rc == PMIX_SUCCESS) {
            /* cached for the next Get, attributed to the real owner */
            sy_store_internal_put(&owner, key, v);
            *val = v;
        } else {
            free(v);
        }
    }
    sy_buffer_destruct(&rb);
    return rc;
}

pmix_status_t sy_client_dmodex_get(const pmix_proc_t *proc, const char *key,
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    size_t ni = info != NULL ? ninfo : 0;
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
