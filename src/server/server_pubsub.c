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
#include "server/server_pubsub.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

typedef struct {
    sy_srv_req_t req; /* first; reply: lookup's data */
    sy_wire_msg_id_t id;
    union {
        sy_wire_publish_req_t publish;
        sy_wire_lookup_req_t lookup;
        sy_wire_unpublish_req_t unpublish;
    } m;
    /* into m: the client's infos (uid and gid appended), its keys */
    pmix_info_t **info;
    size_t *ninfo;
    char ***keys;
} pubsub_req_t;

static void req_free(sy_srv_req_t *req)
{
    pubsub_req_t *r = (pubsub_req_t *)req;
    sy_wire_free(r->id, &r->m);
    free(r);
}

static void lookup_done(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    pubsub_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r == NULL)
        return;
    /* the records point into the host's data, valid in this callback */
    sy_wire_lookup_rep_t rep = {.ndata = data != NULL ? ndata : 0};
    if (rep.ndata > 0 && (rep.data = calloc(rep.ndata, sizeof(*rep.data))) == NULL)
        status = PMIX_ERR_NOMEM;
    for (size_t i = 0; rep.data != NULL && i < rep.ndata; i++) {
        rep.data[i].proc = data[i].proc;
        rep.data[i].key = data[i].key;
        rep.data[i].value = data[i].value;
    }
    sy_srv_req_reply(&r->req, status, SY_WMSG_LOOKUP_REP, &rep);
    free(rep.data);
    sy_srv_req_post(&r->req);
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
    if (cmd == SY_CMD_PUBLISH) {
        r->id = SY_WMSG_PUBLISH_REQ;
        r->info = &r->m.publish.info;
        r->ninfo = &r->m.publish.ninfo;
    } else if (cmd == SY_CMD_LOOKUP) {
        r->id = SY_WMSG_LOOKUP_REQ;
        r->info = &r->m.lookup.info;
        r->ninfo = &r->m.lookup.ninfo;
        r->keys = &r->m.lookup.keys;
    } else {
        r->id = SY_WMSG_UNPUBLISH_REQ;
        r->info = &r->m.unpublish.info;
        r->ninfo = &r->m.unpublish.ninfo;
        r->keys = &r->m.unpublish.keys;
    }
    /* the client's infos, then its uid and gid */
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, r->id, &r->m);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_add_ids(r->info, r->ninfo, c);
    if (rc == PMIX_SUCCESS && cmd == SY_CMD_LOOKUP && (*r->keys)[0] == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc != PMIX_SUCCESS) {
        r->req.status = rc == PMIX_ERR_BAD_PARAM ? rc : PMIX_ERR_UNPACK_FAILURE;
        sy_srv_req_finish(&r->req);
        return;
    }
    void *t = sy_srv_req_ticket(&r->req);
    if (cmd == SY_CMD_PUBLISH)
        rc = m->publish(&c->proc, *r->info, *r->ninfo, sy_srv_req_op_done, t);
    else if (cmd == SY_CMD_LOOKUP)
        rc = m->lookup(&c->proc, *r->keys, *r->info, *r->ninfo, lookup_done, t);
    else
        rc = m->unpublish(&c->proc, *r->keys, *r->info, *r->ninfo, sy_srv_req_op_done, t);
    if (sy_srv_upcall_returned(&r->req.up, rc)) {
        /* Done now: OPERATION_SUCCEEDED is success, anything else the answer. */
        r->req.status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        if (cmd == SY_CMD_LOOKUP && r->req.status == PMIX_SUCCESS)
            r->req.status = PMIX_ERR_NOT_FOUND;
        sy_srv_req_finish(&r->req);
    }
}
