/* Requests made of wire_msgs.h structs: the one place where the client
 * packs a request with the connection's codec, sends it, and unpacks the
 * reply into its struct.  The shapes most requests share (an op callback,
 * an info callback) are here once instead of once per request file. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_client.h"

const sy_wire_codec_t *sy_client_codec(void)
{
    /* chosen at the handshake: ours, or an OpenPMIx server's (client_opx.c) */
    return sy_client.opx ? &sy_wire_opx_client : &sy_wire_native;
}

typedef struct {
    sy_wire_msg_id_t reply_id;
    sy_client_msg_fn cb;
    sy_client_cb_t user;
    void *cbdata;
    max_align_t reply[]; /* the reply's struct: nothing to allocate when it comes */
} call_t;

/* Unpack the reply into a struct of its message (the status already
 * read): a malformed body turns a success into PMIX_ERR_UNPACK_FAILURE,
 * and the callback then sees the empty message. */
static void call_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    call_t *c = cbdata;
    void *msg = sy_wire_desc(c->reply_id)->size > 0 ? c->reply : NULL;
    pmix_status_t rc = sy_wire_unpack(sy_client_codec(), reply, c->reply_id, msg);
    if (rc != PMIX_SUCCESS && (status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS))
        status = rc;
    c->cb(status, c->reply_id, msg, c->user, c->cbdata);
    sy_wire_free(c->reply_id, msg);
    free(c);
}

pmix_status_t sy_client_call_nb(sy_wire_msg_id_t id, const void *msg, sy_client_msg_fn cb,
                                sy_client_cb_t user, void *cbdata)
{
    sy_conn_t *conn;
    pmix_status_t rc = sy_client_server_conn(&conn);
    if (rc != PMIX_SUCCESS)
        return rc;
    return sy_client_call_nb_on(conn, id, msg, cb, user, cbdata);
}

pmix_status_t sy_client_call_nb_on(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg,
                                   sy_client_msg_fn cb, sy_client_cb_t user, void *cbdata)
{
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_wire_pack_request(sy_client_codec(), &req, id, msg);
    const sy_wire_desc_t *rd = sy_wire_desc(sy_wire_reply_of(id));
    if (rc == PMIX_SUCCESS && rd == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    call_t *c = rc == PMIX_SUCCESS ? calloc(1, sizeof(*c) + rd->size) : NULL;
    if (c == NULL) {
        sy_buffer_destruct(&req);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    }
    c->reply_id = sy_wire_reply_of(id);
    c->cb = cb;
    c->user = user;
    c->cbdata = cbdata;
    rc = sy_client_request_nb(conn, &req, call_reply, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

/* conn NULL: over the direct channel (sy_client_rpc_direct). */
static pmix_status_t call_blocking(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg,
                                   double seconds, void *reply)
{
    sy_wire_msg_id_t rid = sy_wire_reply_of(id);
    const sy_wire_desc_t *rd = sy_wire_desc(rid);
    if (rd == NULL || (reply == NULL && rd->nfields > 0))
        return PMIX_ERR_BAD_PARAM;
    if (reply != NULL)
        memset(reply, 0, rd->size);
    pmix_data_buffer_t req, rb;
    pmix_status_t rc = sy_wire_pack_request(sy_client_codec(), &req, id, msg);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = conn != NULL ? sy_client_rpc(conn, &req, seconds, &rb)
                      : sy_client_rpc_direct(&req, seconds, &rb);
    if (rc == PMIX_SUCCESS || rc == PMIX_ERR_PARTIAL_SUCCESS) {
        pmix_status_t urc = sy_wire_unpack(sy_client_codec(), &rb, rid, reply);
        if (urc != PMIX_SUCCESS)
            rc = urc;
    }
    sy_buffer_destruct(&rb);
    return rc;
}

pmix_status_t sy_client_call(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg, double seconds,
                             void *reply)
{
    if (conn == NULL)
        return PMIX_ERR_BAD_PARAM;
    return call_blocking(conn, id, msg, seconds, reply);
}

pmix_status_t sy_client_call_direct(sy_wire_msg_id_t id, const void *msg, double seconds,
                                    void *reply)
{
    return call_blocking(NULL, id, msg, seconds, reply);
}

static void ignore_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)status;
    (void)reply;
    (void)cbdata;
}

void sy_client_send_nb(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg)
{
    pmix_data_buffer_t req;
    if (conn != NULL && sy_wire_pack_request(sy_client_codec(), &req, id, msg) == PMIX_SUCCESS)
        sy_client_request_nb(conn, &req, ignore_reply, NULL);
}

/* ---- replies with nothing after the status ---- */

static void op_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                     void *cbdata)
{
    (void)id;
    (void)reply;
    if (user.op != NULL)
        user.op(status, cbdata);
}

pmix_status_t sy_client_call_op_nb(sy_wire_msg_id_t id, const void *msg, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    return sy_client_call_nb(id, msg, op_reply, (sy_client_cb_t){.op = cbfunc}, cbdata);
}

/* ---- replies of one info array ---- */

typedef struct {
    pmix_info_t *info;
    size_t ninfo;
} infos_t;

static void release_infos(void *cbdata)
{
    infos_t *held = cbdata;
    if (held == NULL)
        return;
    sy_array_free(held->info, held->ninfo, PMIX_INFO);
    free(held);
}

static void info_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                       void *cbdata)
{
    if (user.info == NULL)
        return;
    /* the infos are the reply's only field: take them; the callback gives
     * them back through release */
    infos_t *held = NULL;
    if (reply != NULL) {
        const sy_wire_field_t *f = &sy_wire_desc(id)->fields[0];
        pmix_info_t **info = (pmix_info_t **)((char *)reply + f->offset);
        size_t *n = (size_t *)((char *)reply + f->count_offset);
        if (*info != NULL && (held = malloc(sizeof(*held))) == NULL) {
            status = PMIX_ERR_NOMEM;
        } else if (*info != NULL) {
            held->info = *info;
            held->ninfo = *n;
            *info = NULL;
            *n = 0;
        }
    }
    user.info(status, held != NULL ? held->info : NULL, held != NULL ? held->ninfo : 0, cbdata,
              release_infos, held);
}

pmix_status_t sy_client_call_info_nb(sy_wire_msg_id_t id, const void *msg,
                                     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    const sy_wire_desc_t *d = sy_wire_desc(sy_wire_reply_of(id));
    if (d == NULL || d->nfields != 1 || d->fields[0].kind != SY_WIRE_ARRAY ||
        d->fields[0].type != PMIX_INFO)
        return PMIX_ERR_BAD_PARAM; /* a reply of another shape: a bug of ours */
    return sy_client_call_nb(id, msg, info_reply, (sy_client_cb_t){.info = cbfunc}, cbdata);
}
