/* The client's fabric route (src/sched/sched.h): PMIx_Fabric_register and
 * _update go to the server as SY_CMD_FABRIC, which serves them itself when
 * it is the scheduler or asks its host.  The cost matrix comes back as a
 * byte object, copied into this process, or, above 8 MiB from a server on
 * this host, as a sealed memfd riding on the reply, which we map
 * read-only (docs/fabric.md, "Big fabrics"; docs/security.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/log.h"
#include "common/sealed.h"
#include "sched/sched.h"

/* The SY_FABRIC_CM_SHM entry of a reply becomes the matrix, mapped from
 * the descriptor that came with the reply; a descriptor missing or not
 * what was announced fails the request (one log line), never leaks. */
static pmix_status_t map_matrix(pmix_info_t *info, size_t ninfo)
{
    int fd = sy_client_reply_take_fd();
    pmix_info_t *e = NULL;
    size_t count = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], SY_FABRIC_CM_SHM) && count++ == 0)
            e = &info[i];
    const char *why = NULL;
    void *m = NULL;
    if (e == NULL)
        why = fd >= 0 ? "a descriptor came with a reply that names none" : NULL;
    else if (count > 1 || e->value.type != PMIX_SIZE)
        why = "the reply names it twice or without a size";
    else if (fd < 0)
        why = "its descriptor did not come (is this process's descriptor table full?)";
    else
        m = sy_sealed_map(fd, e->value.data.size, &why);
    if (fd >= 0)
        close(fd); /* the mapping, if any, keeps the memory */
    if (m != NULL) {
        sy_fabric_adopt_mapping(e, m, e->value.data.size);
        return PMIX_SUCCESS;
    }
    if (why == NULL)
        return PMIX_SUCCESS; /* by value, as usual */
    sy_log(SY_LOG_WARN, "fabric: the server's cost matrix in shared memory is refused: %s", why);
    return PMIX_ERR_UNPACK_FAILURE;
}

/* The infos go to the route's callback, which keeps them. */
static void fabric_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply,
                         sy_client_cb_t user, void *cbdata)
{
    (void)id;
    sy_wire_fabric_rep_t *m = reply;
    sy_fabric_reply_fn cb = (sy_fabric_reply_fn)user.any;
    if (status == PMIX_SUCCESS)
        status = map_matrix(m->info, m->ninfo);
    if (status != PMIX_SUCCESS) {
        cb(status, NULL, 0, cbdata);
        return;
    }
    cb(status, m->info, m->ninfo, cbdata);
    m->info = NULL;
    m->ninfo = 0;
}

static pmix_status_t client_route(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                                  const pmix_info_t dirs[], size_t ndirs, sy_fabric_reply_fn cb,
                                  void *arg)
{
    (void)requestor;
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    bool ours = !sy_client.opx;
    pthread_mutex_unlock(&sy_client_lock);
    if (conn == NULL)
        return PMIX_ERR_NOT_SUPPORTED; /* a singleton: no server to ask */
    /* the directives, and that we map a big matrix from a memfd (a server
     * of ours on this host; others ignore the key) */
    pmix_info_t *all = calloc(ndirs + 1, sizeof(*all));
    if (all == NULL)
        return PMIX_ERR_NOMEM;
    if (ndirs > 0)
        memcpy(all, dirs, ndirs * sizeof(*all)); /* shallow: only packed */
    size_t n = ndirs;
    bool t = true;
    if (ours)
        PMIx_Info_load(&all[n++], SY_FABRIC_SHM_OK, &t, PMIX_BOOL);
    sy_wire_fabric_req_t m = {.op = (uint8_t)op, .directives = all, .ndirectives = n};
    pmix_status_t rc = sy_client_call_nb_on(conn, SY_WMSG_FABRIC_REQ, &m, fabric_reply,
                                            (sy_client_cb_t){.any = (void (*)(void))cb}, arg);
    free(all); /* the bool entry holds no memory */
    return rc;
}

void sy_client_fabric_init(void)
{
    sy_fabric_set_route(SY_FABRIC_ROUTE_CLIENT, client_route);
}

void sy_client_fabric_finalize(void)
{
    sy_fabric_set_route(SY_FABRIC_ROUTE_CLIENT, NULL);
}
