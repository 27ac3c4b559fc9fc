/* The client's fabric route (src/sched/sched.h): PMIx_Fabric_register and
 * _update go to the server as SY_CMD_FABRIC, which serves them itself when
 * it is the scheduler or asks its host.  The cost matrix comes back as a
 * byte object, copied into this process. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "sched/sched.h"

/* The infos go to the route's callback, which keeps them. */
static void fabric_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply,
                         sy_client_cb_t user, void *cbdata)
{
    (void)id;
    sy_wire_fabric_rep_t *m = reply;
    sy_fabric_reply_fn cb = (sy_fabric_reply_fn)user.any;
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
    pthread_mutex_unlock(&sy_client_lock);
    if (conn == NULL)
        return PMIX_ERR_NOT_SUPPORTED; /* a singleton: no server to ask */
    sy_wire_fabric_req_t m = {
        .op = (uint8_t)op, .directives = (pmix_info_t *)dirs, .ndirectives = ndirs};
    return sy_client_call_nb_on(conn, SY_WMSG_FABRIC_REQ, &m, fabric_reply,
                                (sy_client_cb_t){.any = (void (*)(void))cb}, arg);
}

void sy_client_fabric_init(void)
{
    sy_fabric_set_route(SY_FABRIC_ROUTE_CLIENT, client_route);
}

void sy_client_fabric_finalize(void)
{
    sy_fabric_set_route(SY_FABRIC_ROUTE_CLIENT, NULL);
}
