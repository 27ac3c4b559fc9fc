/* The client's fabric route (src/sched/sched.h): PMIx_Fabric_register and
 * _update go to the server as SY_CMD_FABRIC, which serves them itself when
 * it is the scheduler or asks its host.  The cost matrix comes back as a
 * byte object, copied into this process. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "sched/sched.h"

typedef struct {
    sy_fabric_reply_fn cb;
    void *arg;
} fabric_req_t;

/* Reply after the status: SIZE n, n INFO. */
static void fabric_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    fabric_req_t *r = cbdata;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (status == PMIX_SUCCESS) {
        if (sy_client_unpack_one(reply, &n, PMIX_SIZE) != PMIX_SUCCESS ||
            n > sy_buffer_remaining(reply)) {
            status = PMIX_ERR_UNPACK_FAILURE;
            n = 0;
        } else if (n > 0) {
            PMIX_INFO_CREATE(info, n);
            int32_t cnt = (int32_t)n;
            if (info == NULL || sy_unpack(reply, info, &cnt, PMIX_INFO) != PMIX_SUCCESS) {
                if (info != NULL)
                    PMIX_INFO_FREE(info, n);
                n = 0;
                status = PMIX_ERR_UNPACK_FAILURE;
            }
        }
    }
    r->cb(status, info, n, r->arg);
    free(r);
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
    pmix_data_buffer_t req;
    uint8_t o = (uint8_t)op;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_FABRIC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &o, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &ndirs, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ndirs > 0)
        rc = sy_pack(&req, dirs, (int32_t)ndirs, PMIX_INFO);
    fabric_req_t *r = rc == PMIX_SUCCESS ? calloc(1, sizeof(*r)) : NULL;
    if (r == NULL) {
        sy_buffer_destruct(&req);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    }
    r->cb = cb;
    r->arg = arg;
    rc = sy_client_request_nb(conn, &req, fabric_reply, r);
    if (rc != PMIX_SUCCESS)
        free(r);
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
