/* PUBLISH / LOOKUP / UNPUBLISH from clients, handed to the host's
 * publish / lookup / unpublish upcalls with the requester's identity and
 * PMIX_USERID / PMIX_GRPID appended, as the standard requires.  The host
 * answers on any thread; its lookup data is packed in its callback (it is
 * only valid there) and the reply is sent from the loop. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_internal.h"

typedef struct {
    sy_srv_peer_t *peer;
    uint32_t tag;
    pmix_status_t status;
    pmix_data_buffer_t reply; /* lookup: what follows the status */
    pmix_info_t *info;
    size_t ninfo;
    char **keys;
} pubsub_req_t;

static void req_free(pubsub_req_t *r)
{
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    for (size_t i = 0; r->keys != NULL && r->keys[i] != NULL; i++)
        free(r->keys[i]);
    free(r->keys);
    sy_buffer_destruct(&r->reply);
    free(r);
}

static void finish_on_loop(void *arg)
{
    pubsub_req_t *r = arg;
    if (sy_srv_peer_open(r->peer)) {
        pmix_data_buffer_t out = {0};
        if (sy_pack(&out, &r->status, 1, PMIX_STATUS) == PMIX_SUCCESS &&
            sy_buffer_append(&out, r->reply.base_ptr, r->reply.bytes_used) == PMIX_SUCCESS)
            sy_srv_peer_reply(r->peer, r->tag, &out);
        sy_buffer_destruct(&out);
    }
    sy_srv_peer_release(r->peer);
    req_free(r);
}

static void drop(void *arg)
{
    req_free(arg);
}

static void op_done(pmix_status_t status, void *cbdata)
{
    pubsub_req_t *r = cbdata;
    r->status = status;
    sy_srv_post_or_drop(finish_on_loop, drop, r);
}

static void lookup_done(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    pubsub_req_t *r = cbdata;
    r->status = status;
    size_t n = data != NULL ? ndata : 0;
    pmix_status_t rc = sy_pack(&r->reply, &n, 1, PMIX_SIZE);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        const char *key = data[i].key;
        rc = sy_pack(&r->reply, &data[i].proc, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(&r->reply, &key, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(&r->reply, &data[i].value, 1, PMIX_VALUE);
    }
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&r->reply);
        r->status = rc;
    }
    sy_srv_post_or_drop(finish_on_loop, drop, r);
}

/* The client's infos plus PMIX_USERID and PMIX_GRPID. */
static pmix_status_t unpack_infos(pmix_data_buffer_t *b, const sy_srv_client_t *c,
                                  pubsub_req_t *r)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_unpack(b, &n, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (n > sy_buffer_remaining(b))
        return PMIX_ERR_UNPACK_FAILURE;
    PMIX_INFO_CREATE(r->info, n + 2);
    if (r->info == NULL)
        return PMIX_ERR_NOMEM;
    r->ninfo = n + 2;
    if (n > 0) {
        int32_t cnt = (int32_t)n;
        rc = sy_unpack(b, r->info, &cnt, PMIX_INFO);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    uint32_t uid = (uint32_t)c->uid, gid = (uint32_t)c->gid;
    PMIX_INFO_LOAD(&r->info[n], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&r->info[n + 1], PMIX_GRPID, &gid, PMIX_UINT32);
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_keys(pmix_data_buffer_t *b, pubsub_req_t *r)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_unpack(b, &n, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (n > sy_buffer_remaining(b))
        return PMIX_ERR_UNPACK_FAILURE;
    r->keys = calloc(n + 1, sizeof(char *));
    if (r->keys == NULL)
        return PMIX_ERR_NOMEM;
    if (n == 0)
        return PMIX_SUCCESS;
    int32_t cnt = (int32_t)n;
    return sy_unpack(b, r->keys, &cnt, PMIX_STRING);
}

void sy_srv_pubsub_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    pmix_server_module_t *m = &s->module;
    bool have = (cmd == SY_CMD_PUBLISH && m->publish != NULL) ||
                (cmd == SY_CMD_LOOKUP && m->lookup != NULL) ||
                (cmd == SY_CMD_UNPUBLISH && m->unpublish != NULL);
    if (c == NULL || !have) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    pubsub_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    r->peer = peer;
    r->tag = tag;
    pmix_status_t rc = PMIX_SUCCESS;
    if (cmd != SY_CMD_PUBLISH)
        rc = unpack_keys(b, r);
    if (rc == PMIX_SUCCESS)
        rc = unpack_infos(b, c, r);
    if (rc == PMIX_SUCCESS && cmd == SY_CMD_LOOKUP && r->keys[0] == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc != PMIX_SUCCESS) {
        sy_srv_peer_reply_status(peer, tag, rc == PMIX_ERR_BAD_PARAM ? rc
                                                                      : PMIX_ERR_UNPACK_FAILURE);
        req_free(r);
        return;
    }
    sy_srv_peer_hold(peer);
    if (cmd == SY_CMD_PUBLISH)
        rc = m->publish(&c->proc, r->info, r->ninfo, op_done, r);
    else if (cmd == SY_CMD_LOOKUP)
        rc = m->lookup(&c->proc, r->keys, r->info, r->ninfo, lookup_done, r);
    else
        rc = m->unpublish(&c->proc, r->keys, r->info, r->ninfo, op_done, r);
    if (rc != PMIX_SUCCESS) {
        /* Done now: OPERATION_SUCCEEDED is success, anything else the answer. */
        r->status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        if (cmd == SY_CMD_LOOKUP && r->status == PMIX_SUCCESS)
            r->status = PMIX_ERR_NOT_FOUND;
        finish_on_loop(r);
    }
}
