/* Events on the client side: notifications to and from the server
 * (EVENT_NOTIFY, SY_MSG_EVENT), the events the client generates itself
 * (lost connection, model declared); the registry is common/event.c. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/event.h"
#include "common/pack.h"

static pmix_status_t pack_event(pmix_data_buffer_t *b, pmix_status_t status,
                                const pmix_proc_t *source, pmix_data_range_t range,
                                const pmix_info_t info[], size_t ninfo)
{
    uint8_t r = (uint8_t)range;
    size_t n = info != NULL ? ninfo : 0;
    pmix_status_t rc = sy_pack(b, &status, 1, PMIX_STATUS);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(b, source, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(b, &r, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(b, info, (int32_t)n, PMIX_INFO);
    return rc;
}

static void notify_sent(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)status;
    (void)reply;
    (void)cbdata;
}

/* Beyond this process: the server spreads it over its range. */
static void forward(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                    const pmix_info_t info[], size_t ninfo)
{
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    pthread_mutex_unlock(&sy_client_lock);
    if (conn == NULL)
        return;
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_EVENT_NOTIFY);
    if (rc == PMIX_SUCCESS)
        rc = pack_event(&req, status, source, range, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return;
    }
    sy_client_request_nb(conn, &req, notify_sent, NULL);
}

/* A new handler: the server replays the events it cached that it wants. */
static void registered(size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    pthread_mutex_unlock(&sy_client_lock);
    if (conn == NULL)
        return;
    pmix_data_buffer_t req;
    size_t n = codes != NULL ? ncodes : 0;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_EVENT_REGISTER);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &ref, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(&req, codes, (int32_t)n, PMIX_STATUS);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return;
    }
    sy_client_request_nb(conn, &req, notify_sent, NULL);
}

/* A handler went: the server counts registrations per code for its host's
 * deregister_events. */
static void deregistered(size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    (void)codes;
    (void)ncodes;
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    pthread_mutex_unlock(&sy_client_lock);
    if (conn == NULL)
        return;
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_EVENT_DEREGISTER);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, &ref, 1, PMIX_SIZE);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return;
    }
    sy_client_request_nb(conn, &req, notify_sent, NULL);
}

void sy_client_event_init(const pmix_info_t info[], size_t ninfo)
{
    sy_event_set_self(&sy_client.me);
    /* a tool may get its server later: the forwarder looks at send time */
    if (sy_client.conn != NULL || sy_client.tool) {
        sy_event_set_forwarder(forward);
        sy_event_set_register_hook(registered);
        sy_event_set_deregister_hook(deregistered);
    }
    /* PMIX_MODEL_DECLARED: a programming model announced itself at init */
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (strncmp(info[i].key, PMIX_PROGRAMMING_MODEL, PMIX_MAX_KEYLEN) == 0) {
            PMIx_Notify_event(PMIX_MODEL_DECLARED, &sy_client.me, PMIX_RANGE_PROC_LOCAL, info,
                              ninfo, NULL, NULL);
            break;
        }
    }
}

void sy_client_event_unsolicited(pmix_data_buffer_t *msg, bool replay)
{
    size_t ref = 0;
    if (replay && sy_client_unpack_one(msg, &ref, PMIX_SIZE) != PMIX_SUCCESS)
        return;
    pmix_status_t status;
    pmix_proc_t source;
    uint8_t range = 0;
    size_t n = 0;
    pmix_info_t *info = NULL;
    if (sy_client_unpack_one(msg, &status, PMIX_STATUS) != PMIX_SUCCESS ||
        sy_client_unpack_one(msg, &source, PMIX_PROC) != PMIX_SUCCESS ||
        sy_client_unpack_one(msg, &range, PMIX_UINT8) != PMIX_SUCCESS ||
        sy_client_unpack_one(msg, &n, PMIX_SIZE) != PMIX_SUCCESS || n > sy_buffer_remaining(msg))
        return;
    if (n > 0) {
        PMIX_INFO_CREATE(info, n);
        int32_t cnt = (int32_t)n;
        if (info == NULL || sy_unpack(msg, info, &cnt, PMIX_INFO) != PMIX_SUCCESS) {
            if (info != NULL)
                PMIX_INFO_FREE(info, n);
            return;
        }
    }
    if (replay)
        sy_event_deliver_to(ref, status, &source, info, n);
    else
        sy_event_deliver(status, &source, (pmix_data_range_t)range, info, n);
    if (info != NULL)
        PMIX_INFO_FREE(info, n);
}

void sy_client_event_lost_connection(void)
{
    pthread_mutex_lock(&sy_client_lock);
    bool up = sy_client.refcount > 0;
    pmix_proc_t server = sy_client.server;
    pthread_mutex_unlock(&sy_client_lock);
    if (up)
        sy_event_deliver(PMIX_ERR_LOST_CONNECTION, &server, PMIX_RANGE_PROC_LOCAL, NULL, 0);
}

void sy_client_event_finalize(void)
{
    sy_event_set_forwarder(NULL);
    sy_event_set_register_hook(NULL);
    sy_event_set_deregister_hook(NULL);
}
