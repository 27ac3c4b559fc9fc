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
    sy_srv_req_t req; /* first; reply: lookup's data */
    pmix_info_t *info;
    size_t ninfo;
    char **keys;
} pubsub_req_t;

static void req_free(sy_srv_req_t *req)
{
    pubsub_req_t *r = (pubsub_req_t *)req;
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    for (size_t i = 0; r->keys != NULL && r->keys[i] != NULL; i++)
        free(r->keys[i]);
    free(r->keys);
    free(r);
}

static void lookup_done(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    pubsub_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r == NULL)
        return;
    pmix_data_buffer_t *out = &r->req.reply;
    r->req.status = status;
    size_t n = data != NULL ? ndata : 0;
    pmix_status_t rc = sy_pack(out, &n, 1, PMIX_SIZE);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        const char *key = data[i].key;
        rc = sy_pack(out, &data[i].proc, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(out, &key, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(out, &data[i].value, 1, PMIX_VALUE);
    }
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(out);
        r->req.status = rc;
    }
    sy_srv_req_post(&r->req);
}

static pmix_status_t unpack_keys(pmix_data_buffer_t *b, pubsub_req_t *r)
{
    size_t n = 0;
    pmix_status_t rc = sy_srv_unpack_count(b, &n);
    if (rc != PMIX_SUCCESS)
        return rc;
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
    sy_srv_req_init(&r->req, peer, tag, req_free);
    pmix_status_t rc = PMIX_SUCCESS;
    if (cmd != SY_CMD_PUBLISH)
        rc = unpack_keys(b, r);
    /* the client's infos, then its uid and gid */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_unpack_infos(b, &r->info, &r->ninfo);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_add_ids(&r->info, &r->ninfo, c);
    if (rc == PMIX_SUCCESS && cmd == SY_CMD_LOOKUP && r->keys[0] == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc != PMIX_SUCCESS) {
        r->req.status = rc == PMIX_ERR_BAD_PARAM ? rc : PMIX_ERR_UNPACK_FAILURE;
        sy_srv_req_finish(&r->req);
        return;
    }
    void *t = sy_srv_req_ticket(&r->req);
    if (cmd == SY_CMD_PUBLISH)
        rc = m->publish(&c->proc, r->info, r->ninfo, sy_srv_req_op_done, t);
    else if (cmd == SY_CMD_LOOKUP)
        rc = m->lookup(&c->proc, r->keys, r->info, r->ninfo, lookup_done, t);
    else
        rc = m->unpublish(&c->proc, r->keys, r->info, r->ninfo, sy_srv_req_op_done, t);
    if (sy_srv_upcall_returned(&r->req.up, rc)) {
        /* Done now: OPERATION_SUCCEEDED is success, anything else the answer. */
        r->req.status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        if (cmd == SY_CMD_LOOKUP && r->req.status == PMIX_SUCCESS)
            r->req.status = PMIX_ERR_NOT_FOUND;
        sy_srv_req_finish(&r->req);
    }
}
