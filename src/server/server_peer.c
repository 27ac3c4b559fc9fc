/* Connections to the server: the HELLO handshake that authenticates a
 * client, and the commands of an authenticated one (wire.h).  Loop only.
 *
 * A peer is freed once it is closed, no host operation on its behalf is
 * pending (refs) and no timer of its own is armed.  Closes we start go
 * through a short "reap" timer, so that a refusal reply can still be
 * flushed and nothing is freed under the frame layer's own callback. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/usock.h"
#include "common/wire.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_monitor.h"
#include "server/server_peer.h"
#include "server/server_cleanup.h"
#include "server/server_cred.h"
#include "server/server_event.h"
#include "server/server_fabric.h"
#include "server/server_group.h"
#include "server/server_hostops.h"
#include "server/server_iof.h"
#include "server/server_listen.h"
#include "server/server_msg.h"
#include "server/server_pubsub.h"
#include "server/server_registry.h"
#include "server/server_tool.h"
#include "server/server_upcall.h"
#include "server/server_lfence.h"
#include "server/server_modex.h"
#include "server/server_opx.h"

#define SY_HELLO_TIMEOUT 5.0      /* seconds a new connection has to say HELLO */
#define SY_REAP_DELAY 2.0         /* seconds a refusal has to reach the peer */
#define SY_UNAUTH_MAX_BODY 65536u /* largest frame before authentication */

typedef enum { PENDING_CONNECT, PENDING_FINALIZE, PENDING_ABORT } pending_kind_t;

/* A host upcall in flight on behalf of a peer. */
typedef struct {
    sy_srv_req_t req; /* first */
    pending_kind_t kind;
    pmix_info_t *info;
    size_t ninfo;
    pmix_proc_t *procs;
    size_t nprocs;
    char *msg;
} pending_t;

static void peer_describe(const sy_srv_peer_t *peer, char *out, size_t len)
{
    if (peer->proc.nspace[0] != '\0')
        snprintf(out, len, "%s:%u (pid %ld, %s)", peer->proc.nspace, peer->proc.rank,
                 (long)peer->pid, peer->tcp ? "tcp" : "unix");
    else
        snprintf(out, len, "pid %ld (%s)", (long)peer->pid, peer->tcp ? "tcp" : "unix");
}

static void peer_maybe_free(sy_srv_peer_t *peer);

void sy_srv_peer_hold(sy_srv_peer_t *peer)
{
    peer->refs++;
}

void sy_srv_peer_release(sy_srv_peer_t *peer)
{
    peer->refs--;
    peer_maybe_free(peer);
}

bool sy_srv_peer_open(const sy_srv_peer_t *peer)
{
    return peer->state == SY_PEER_READY;
}

static void peer_maybe_free(sy_srv_peer_t *peer)
{
    if (peer->state != SY_PEER_CLOSED || peer->refs > 0 || peer->timer != NULL)
        return;
    sy_srv_t *s = sy_srv;
    if (peer->prev != NULL)
        peer->prev->next = peer->next;
    else if (s != NULL && s->peers == peer)
        s->peers = peer->next;
    if (peer->next != NULL)
        peer->next->prev = peer->prev;
    sy_conn_free(peer->conn);
    free(peer->tool);
    free(peer->events_sent_ids);
    free(peer);
    if (s != NULL)
        sy_srv_accept_resume(s); /* a descriptor is free */
}

/* Detach from the registration; no more messages will be handled.  The
 * data-exchange and event layers learn that a connected client is gone
 * (and whether it had finalized) before the peer is marked closed. */
static void peer_shut(sy_srv_peer_t *peer, bool flush);

static void peer_detach(sy_srv_peer_t *peer)
{
    bool was_ready = peer->state == SY_PEER_READY;
    if (peer->state == SY_PEER_DIRECT && peer->main != NULL && peer->main->direct == peer)
        peer->main->direct = NULL;
    peer->main = NULL;
    if (peer->direct != NULL) {
        sy_srv_peer_t *direct = peer->direct;
        peer->direct = NULL;
        direct->main = NULL;
        peer_shut(direct, false); /* the client is gone: its channel too */
    }
    if (was_ready) {
        if (!peer->finalized) {
            char who[320];
            peer_describe(peer, who, sizeof(who));
            sy_log(SY_LOG_INFO, "server: client %s disconnected without finalizing", who);
        }
        sy_srv_modex_peer_gone(peer, peer->finalized);
        sy_srv_group_peer_gone(peer, peer->finalized);
        /* a tool's departure is no process of a job terminating */
        sy_srv_event_peer_gone(peer, peer->finalized || peer->tool != NULL);
        sy_srv_iof_peer_gone(peer);
        sy_srv_tool_gone(peer);
        if (peer->tool == NULL)
            sy_srv_cleanup_proc_gone(&peer->proc);
        sy_srv_monitor_proc_gone(&peer->proc);
    }
    if (peer->client != NULL && peer->client->peer == peer)
        peer->client->peer = NULL;
    peer->client = NULL;
    peer->state = SY_PEER_CLOSED;
}

/* The holder of a timer drops it with sy_timer_cancel, fired or not: here
 * from the timer's own function, or before it fired. */
static void drop_timer(sy_srv_peer_t *peer)
{
    if (peer->timer != NULL) {
        sy_timer_cancel(peer->timer);
        peer->timer = NULL;
    }
}

static void reap(void *arg)
{
    sy_srv_peer_t *peer = arg;
    drop_timer(peer);
    peer_maybe_free(peer);
}

static void cancel_timer(sy_srv_peer_t *peer)
{
    drop_timer(peer);
}

/* Close from our side; the peer is freed a little later by reap(). */
static void peer_shut(sy_srv_peer_t *peer, bool flush)
{
    if (peer->state == SY_PEER_CLOSED)
        return;
    peer_detach(peer);
    cancel_timer(peer);
    if (flush)
        sy_conn_close_after_flush(peer->conn);
    else
        sy_conn_close(peer->conn);
    if (peer->timer == NULL && sy_srv != NULL &&
        sy_progress_timer(sy_srv->progress, flush ? SY_REAP_DELAY : 0.0, reap, peer,
                          &peer->timer) != PMIX_SUCCESS)
        peer->timer = NULL; /* freed at finalize */
}

static pmix_status_t reply(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *buf)
{
    sy_conn_t *conn = peer->conn;
    if ((tag & SY_WIRE_TAG_DIRECT) && peer->state != SY_PEER_DIRECT) {
        /* asked on the direct channel: answered there, or not at all */
        if (peer->direct == NULL) {
            sy_buffer_destruct(buf);
            return PMIX_ERR_UNREACH;
        }
        conn = peer->direct->conn;
    }
    /* A reply longer than the largest frame we take goes in pieces of that
     * size (the job shares SWITCHYARD_MAX_MSG_SIZE; our clients reassemble
     * them; OpenPMIx framing has no pieces and sends it whole). */
    pmix_status_t rc = sy_conn_send_owned_pieces(conn, tag, SY_WIRE_F_REPLY, buf->base_ptr,
                                                 buf->bytes_used, sy_frame_default_max_body());
    memset(buf, 0, sizeof(*buf));
    return rc;
}

void sy_srv_peer_reply(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *buf)
{
    if (peer->state == SY_PEER_CLOSED) {
        sy_buffer_destruct(buf);
        return;
    }
    reply(peer, tag, buf);
}

pmix_status_t sy_srv_peer_reply_fd(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                                   const pmix_data_buffer_t *rest, int fd)
{
    pmix_data_buffer_t buf = {0};
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (peer->state != SY_PEER_CLOSED && !peer->tcp && !peer->opx && !(tag & SY_WIRE_TAG_DIRECT))
        rc = sy_wire_pack_head(sy_srv_codec(peer), &buf, SY_WIRE_REPLY, status);
    if (rc == PMIX_SUCCESS && rest != NULL && rest->bytes_used > 0)
        rc = sy_buffer_append(&buf, rest->base_ptr, rest->bytes_used);
    if (rc == PMIX_SUCCESS) {
        rc = sy_conn_send_owned_fd(peer->conn, tag, SY_WIRE_F_REPLY, buf.base_ptr, buf.bytes_used,
                                   fd);
        memset(&buf, 0, sizeof(buf));
        return rc;
    }
    sy_buffer_destruct(&buf);
    close(fd);
    return rc;
}

pmix_status_t sy_srv_peer_send(sy_srv_peer_t *peer, pmix_data_buffer_t *buf)
{
    return sy_srv_peer_send_tagged(peer, 0, buf);
}

pmix_status_t sy_srv_peer_send_tagged(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *buf)
{
    if (peer->state != SY_PEER_READY) {
        sy_buffer_destruct(buf);
        return PMIX_ERR_UNREACH;
    }
    pmix_status_t rc = sy_conn_send_owned(peer->conn, tag, 0, buf->base_ptr, buf->bytes_used);
    memset(buf, 0, sizeof(*buf));
    return rc;
}

void sy_srv_peer_reply_with(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                            const pmix_data_buffer_t *rest)
{
    if (peer->state == SY_PEER_CLOSED)
        return;
    pmix_data_buffer_t buf = {0};
    pmix_status_t rc = sy_wire_pack_head(sy_srv_codec(peer), &buf, SY_WIRE_REPLY, status);
    if (rc == PMIX_SUCCESS && rest != NULL && rest->bytes_used > 0)
        rc = sy_buffer_append(&buf, rest->base_ptr, rest->bytes_used);
    if (rc == PMIX_SUCCESS)
        reply(peer, tag, &buf);
    sy_buffer_destruct(&buf);
    /* the requester waits for an answer: at least the failure */
    if (rc != PMIX_SUCCESS && rest != NULL)
        sy_srv_peer_reply_with(peer, tag, rc, NULL);
}

void sy_srv_peer_reply_status(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status)
{
    sy_srv_peer_reply_with(peer, tag, status, NULL);
}

void sy_srv_peer_refuse(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status, const char *reason)
{
    char who[320];
    peer_describe(peer, who, sizeof(who));
    sy_log(SY_LOG_WARN, "server: refused %s%s: %s", peer->opx ? "OpenPMIx peer " : "", who, reason);
    if (peer->opx && peer->state != SY_PEER_READY) {
        sy_srv_opx_answer_connect(peer, status);
    } else if (tag != 0) {
        /* the reason, the other fields empty */
        sy_wire_hello_rep_t m = {.reason = (char *)reason};
        PMIX_LOAD_PROCID(&m.server, "", PMIX_RANK_UNDEF);
        m.assigned = m.server;
        sy_srv_peer_reply_msg(peer, tag, status, SY_WMSG_HELLO_REP, &m);
    }
    peer_shut(peer, true);
}

static void hello_timeout(void *arg)
{
    sy_srv_peer_t *peer = arg;
    drop_timer(peer);
    if (peer->state == SY_PEER_AWAIT_HELLO)
        sy_srv_peer_refuse(peer, 0, PMIX_ERR_TIMEOUT, "no HELLO in time");
    else
        peer_maybe_free(peer);
}

/* ---- host upcalls ---- */

void sy_srv_peer_welcome(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *assigned)
{
    peer->state = SY_PEER_READY;
    if (peer->opx) {
        sy_srv_opx_answer_connect(peer, PMIX_SUCCESS);
        return;
    }
    sy_srv_t *s = sy_srv;
    sy_srv_nspace_t *ns = sy_srv_nspace_find(s, peer->proc.nspace);
    sy_wire_hello_rep_t m = {.server = s->me,
                             .hostname = s->hostname,
                             .jobseg = ns != NULL ? ns->seg_path : NULL,
                             .resources = s->res_path};
    if (assigned != NULL)
        m.assigned = *assigned;
    else
        m.assigned = peer->proc;
    sy_srv_peer_reply_msg(peer, tag, PMIX_SUCCESS, SY_WMSG_HELLO_REP, &m);
}

static void pending_free(sy_srv_req_t *req)
{
    pending_t *pd = (pending_t *)req;
    if (pd->info != NULL)
        PMIX_INFO_FREE(pd->info, pd->ninfo);
    if (pd->procs != NULL)
        PMIX_PROC_FREE(pd->procs, pd->nprocs);
    free(pd->msg);
    free(pd);
}

/* The host's answer (or what its upcall returned) on the loop:
 * OPERATION_SUCCEEDED (done) and NOT_SUPPORTED (the host does not care)
 * are success; anything else is the result. */
static void pending_done(sy_srv_req_t *req)
{
    pending_t *pd = (pending_t *)req;
    sy_srv_peer_t *peer = req->peer;
    pmix_status_t st = req->status;
    if (st == PMIX_OPERATION_SUCCEEDED || st == PMIX_ERR_NOT_SUPPORTED)
        st = PMIX_SUCCESS;
    if (peer->state == SY_PEER_AWAIT_HOST && pd->kind == PENDING_CONNECT) {
        if (st == PMIX_SUCCESS)
            sy_srv_peer_welcome(peer, req->tag, NULL);
        else
            sy_srv_peer_refuse(peer, req->tag, st, "the host refused the client");
    } else if (peer->state == SY_PEER_READY) {
        sy_srv_peer_reply_status(peer, req->tag, st);
    }
}

static const sy_srv_req_type_t pending_type = {
    .name = "client upcall", .done = pending_done, .free = pending_free};

static pending_t *pending_new(sy_srv_peer_t *peer, uint32_t tag, pending_kind_t kind)
{
    pending_t *pd = calloc(1, sizeof(*pd));
    if (pd == NULL)
        return NULL;
    sy_srv_req_init(&pd->req, &pending_type, peer, tag);
    pd->kind = kind;
    return pd;
}

/* ---- the v1 client_connected's late answer ---- */

typedef struct {
    unsigned long serial;
    pmix_status_t status;
} late_refusal_t;

static void late_refusal_on_loop(void *arg)
{
    late_refusal_t *l = arg;
    for (sy_srv_peer_t *peer = sy_srv != NULL ? sy_srv->peers : NULL; peer != NULL;
         peer = peer->next) {
        if (peer->serial == l->serial && peer->state != SY_PEER_CLOSED) {
            sy_srv_peer_refuse(peer, 0, l->status, "the host refused the client");
            break;
        }
    }
    free(l);
}

static void v1_connected_done(pmix_status_t status, void *cbdata)
{
    if (status == PMIX_SUCCESS || status == PMIX_OPERATION_SUCCEEDED)
        return;
    late_refusal_t *l = malloc(sizeof(*l));
    if (l == NULL)
        return;
    l->serial = (unsigned long)(uintptr_t)cbdata;
    l->status = status;
    sy_srv_post_or_drop(late_refusal_on_loop, free, l);
}

/* ---- HELLO ---- */

typedef struct {
    uint8_t cmd;
    sy_wire_hello_req_t m;
} hello_t;

static void hello_free(hello_t *h)
{
    sy_wire_hello_req_free(&h->m);
}

static pmix_status_t hello_unpack(const sy_srv_peer_t *peer, pmix_data_buffer_t *b, hello_t *h)
{
    int32_t cmd = 0;
    pmix_status_t rc = sy_wire_unpack_head(sy_srv_codec(peer), b, SY_WIRE_REQUEST, &cmd);
    h->cmd = (uint8_t)cmd;
    if (rc != PMIX_SUCCESS)
        return rc;
    if (h->cmd != SY_CMD_HELLO)
        return PMIX_ERR_BAD_PARAM;
    return sy_srv_unpack_msg(peer, b, SY_WMSG_HELLO_REQ, &h->m);
}

bool sy_srv_token_matches(const char *given, const char *expected)
{
    /* every byte of our token is looked at whatever the peer sent, and
     * nothing depends on where the first difference is: the time taken
     * tells a guesser nothing but the length it already knows */
    if (given == NULL || expected[0] == '\0')
        return false;
    size_t n = strnlen(given, SY_SRV_TOKEN_LEN + 1);
    unsigned char diff = n != SY_SRV_TOKEN_LEN;
    for (size_t i = 0; i < SY_SRV_TOKEN_LEN; i++)
        diff |= (unsigned char)((i < n ? given[i] : 0) ^ expected[i]);
    return diff == 0;
}

static bool wants_direct(const hello_t *h)
{
    for (size_t i = 0; i < h->m.ninfo; i++)
        if (sy_info_is(&h->m.info[i], SY_HELLO_DIRECT) && sy_info_true(&h->m.info[i]))
            return true;
    return false;
}

/* A second connection of a connected client, from the same process as the
 * kernel sees it: requests on it are the client's, replies go back on it. */
static void direct_hello(sy_srv_peer_t *peer, uint32_t tag, sy_srv_client_t *c)
{
    sy_srv_peer_t *client = c != NULL ? c->peer : NULL;
    const char *why = NULL;
    if (client == NULL || client->state != SY_PEER_READY)
        why = "a direct channel for a client that is not connected";
    else if (client->direct != NULL)
        why = "this client has a direct channel already";
    else if (!peer->cred_known || !client->cred_known || peer->pid != client->pid ||
             peer->uid != c->uid || peer->gid != c->gid)
        why = "a direct channel must come from the client's own process";
    if (why != NULL) {
        sy_srv_peer_refuse(peer, tag, PMIX_ERR_NO_PERMISSIONS, why);
        return;
    }
    cancel_timer(peer);
    sy_conn_set_max_body(peer->conn, sy_srv->max_msg);
    peer->state = SY_PEER_DIRECT;
    peer->main = client;
    client->direct = peer;
    sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
}

static void handle_hello(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    hello_t h = {0};
    pmix_status_t rc = hello_unpack(peer, b, &h);
    if (!peer->cred_known)
        peer->pid = h.m.pid;
    if (rc != PMIX_SUCCESS) {
        sy_srv_peer_refuse(peer, tag, PMIX_ERR_BAD_PARAM,
                           h.cmd != SY_CMD_HELLO && h.cmd != 0 ? "the first message is not a HELLO"
                                                               : "malformed HELLO");
        hello_free(&h);
        return;
    }
    if (h.m.kind == SY_PEER_TOOL && h.m.protocol != NULL &&
        strcmp(h.m.protocol, SY_WIRE_PROTOCOL) == 0 && h.m.version == SY_WIRE_VERSION) {
        sy_srv_tool_hello(peer, tag, &h.m.proc, h.m.token, h.m.info, h.m.ninfo);
        h.m.info = NULL;
        h.m.ninfo = 0;
        hello_free(&h);
        return;
    }
    PMIX_LOAD_PROCID(&peer->proc, h.m.proc.nspace, h.m.proc.rank);
    sy_srv_client_t *c = sy_srv_client_find(s, &h.m.proc);
    const char *why = NULL;
    if (h.m.protocol != NULL && strcmp(h.m.protocol, SY_WIRE_PROTOCOL) == 0 &&
        h.m.version == SY_WIRE_VERSION && h.m.kind == SY_PEER_CLIENT && wants_direct(&h)) {
        direct_hello(peer, tag, c);
        hello_free(&h);
        return;
    }
    if (h.m.protocol == NULL || strcmp(h.m.protocol, SY_WIRE_PROTOCOL) != 0) {
        rc = PMIX_ERR_NOT_SUPPORTED;
        why = "not a switchyard peer";
    } else if (h.m.version != SY_WIRE_VERSION) {
        rc = PMIX_ERR_NOT_SUPPORTED;
        why = "unsupported protocol version";
    } else if (h.m.kind != SY_PEER_CLIENT) {
        rc = PMIX_ERR_NOT_SUPPORTED;
        why = "unknown peer kind";
    } else if (c == NULL || !c->registered) {
        rc = PMIX_ERR_NOT_FOUND;
        why = "no such client was registered";
    } else if (peer->cred_known && (peer->uid != c->uid || peer->gid != c->gid)) {
        rc = PMIX_ERR_NO_PERMISSIONS;
        why = "uid/gid differ from the registration";
    } else if (!peer->cred_known && !sy_srv_token_matches(h.m.token, c->token)) {
        rc = PMIX_ERR_NO_PERMISSIONS;
        why = "wrong or missing token";
    } else if (c->peer != NULL) {
        rc = PMIX_EXISTS;
        why = "this client is already connected";
    }
    if (why != NULL) {
        sy_srv_peer_refuse(peer, tag, rc, why);
        hello_free(&h);
        return;
    }
    pmix_info_t *info = h.m.info;
    size_t ninfo = h.m.ninfo;
    h.m.info = NULL;
    h.m.ninfo = 0;
    hello_free(&h);
    sy_srv_peer_connect(peer, tag, c, info, ninfo);
}

void sy_srv_peer_connect(sy_srv_peer_t *peer, uint32_t tag, sy_srv_client_t *c, pmix_info_t *info,
                         size_t ninfo)
{
    sy_srv_t *s = sy_srv;
    pmix_status_t rc;
    sy_srv_peer_authenticated(peer);
    peer->client = c;
    c->peer = peer;
    pending_t *pd = pending_new(peer, tag, PENDING_CONNECT);
    if (pd == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        sy_srv_peer_refuse(peer, tag, PMIX_ERR_NOMEM, "out of memory");
        return;
    }
    pd->info = info;
    pd->ninfo = ninfo;
    if (s->module.client_connected2 != NULL) {
        /* the client waits until the host calls back */
        rc = s->module.client_connected2(&c->proc, c->server_object, pd->info, pd->ninfo,
                                         sy_srv_req_op_done, sy_srv_req_ticket(&pd->req));
        sy_srv_req_returned(&pd->req, rc);
        return;
    }
    if (s->module.client_connected != NULL) {
        /* The v1 upcall is a notification: PMIX_SUCCESS is not waited on
         * (OpenPMIx 4.2.2 does not wait either, and Slurm never calls
         * back).  A callback that comes anyway is harmless; one with an
         * error drops the client then. */
        rc = s->module.client_connected(&c->proc, c->server_object, v1_connected_done,
                                        (void *)(uintptr_t)peer->serial);
    } else {
        rc = PMIX_SUCCESS;
    }
    sy_srv_req_complete(&pd->req, rc);
}

void sy_srv_peer_authenticated(sy_srv_peer_t *peer)
{
    cancel_timer(peer);
    sy_conn_set_max_body(peer->conn, sy_srv->max_msg);
    peer->state = SY_PEER_AWAIT_HOST;
}

bool sy_srv_peer_awaiting_host(const sy_srv_peer_t *peer)
{
    return peer->state == SY_PEER_AWAIT_HOST;
}

/* ---- commands of a connected client ---- */

static void handle_finalize(sy_srv_peer_t *peer, uint32_t tag)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    peer->finalized = true;
    if (c == NULL || s->module.client_finalized == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
        return;
    }
    pending_t *pd = pending_new(peer, tag, PENDING_FINALIZE);
    if (pd == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_srv_req_returned(&pd->req,
                        s->module.client_finalized(&c->proc, c->server_object, sy_srv_req_op_done,
                                                   sy_srv_req_ticket(&pd->req)));
}

static void handle_abort(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    if (c == NULL || s->module.abort == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    pending_t *pd = pending_new(peer, tag, PENDING_ABORT);
    if (pd == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_wire_abort_req_t m;
    if (sy_srv_unpack_msg(peer, b, SY_WMSG_ABORT_REQ, &m) != PMIX_SUCCESS) {
        sy_srv_req_complete(&pd->req, PMIX_ERR_UNPACK_FAILURE);
        return;
    }
    int status = m.status; /* the message and procs are pd's from here */
    pd->msg = m.message;
    pd->procs = m.procs;
    pd->nprocs = m.nprocs;
    sy_srv_req_returned(&pd->req, s->module.abort(&c->proc, c->server_object, status, pd->msg,
                                                  pd->procs, pd->nprocs, sy_srv_req_op_done,
                                                  sy_srv_req_ticket(&pd->req)));
}

static void handle_jobseg(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_jobseg_req_t m;
    if (sy_srv_unpack_msg(peer, b, SY_WMSG_JOBSEG_REQ, &m) != PMIX_SUCCESS || m.nspace == NULL) {
        sy_wire_jobseg_req_free(&m);
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_BAD_PARAM);
        return;
    }
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, m.nspace);
    sy_wire_jobseg_req_free(&m);
    if (ns == NULL || ns->seg_path == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_FOUND);
        return;
    }
    sy_wire_jobseg_rep_t rep = {.path = ns->seg_path};
    pmix_data_buffer_t buf = {0};
    pmix_status_t rc = sy_wire_pack(sy_srv_codec(peer), &buf, SY_WMSG_JOBSEG_REP, &rep);
    sy_srv_peer_reply_with(peer, tag, rc, &buf);
    sy_buffer_destruct(&buf);
}

static void on_message(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body, size_t len,
                       void *ctx)
{
    (void)flags;
    sy_srv_peer_t *peer = ctx;
    if (sy_srv == NULL || peer->state == SY_PEER_CLOSED)
        return;
    pmix_data_buffer_t b = {0};
    if (len > 0) {
        void *owned = sy_conn_take_body(conn);
        if (owned == NULL && body != NULL) {
            if (sy_buffer_set_copy(&b, body, len) != PMIX_SUCCESS)
                return;
        } else {
            b.base_ptr = owned;
            b.unpack_ptr = owned;
            b.pack_ptr = (char *)owned + len;
            b.bytes_allocated = len;
            b.bytes_used = len;
        }
    }
    if (peer->state == SY_PEER_AWAIT_HELLO) {
        if (sy_conn_openpmix(conn))
            sy_srv_opx_hello(peer, tag, &b);
        else if (tag == 0)
            sy_srv_peer_refuse(peer, 0, PMIX_ERR_BAD_PARAM, "HELLO without a tag");
        else
            handle_hello(peer, tag, &b);
        sy_buffer_destruct(&b);
        return;
    }
    if (peer->state == SY_PEER_AWAIT_HOST) {
        sy_srv_peer_refuse(peer, tag, PMIX_ERR_BAD_PARAM, "a request before the HELLO reply");
        sy_buffer_destruct(&b);
        return;
    }
    if (peer->state == SY_PEER_DIRECT) {
        /* the client's request, answered on this channel (by its tag) */
        if (!(tag & SY_WIRE_TAG_DIRECT)) {
            if (tag != 0)
                sy_srv_peer_reply_status(peer, tag, PMIX_ERR_BAD_PARAM);
            sy_buffer_destruct(&b);
            return;
        }
        peer = peer->main; /* set while the channel is open (peer_detach) */
    }
    if (peer->opx && tag == 1) { /* OpenPMIx's heartbeat channel */
        sy_srv_opx_heartbeat(peer);
        sy_buffer_destruct(&b);
        return;
    }
    int32_t cmd = 0;
    if (sy_wire_unpack_head(sy_srv_codec(peer), &b, SY_WIRE_REQUEST, &cmd) != PMIX_SUCCESS) {
        if (peer->opx)
            sy_srv_peer_refuse(peer, tag, PMIX_ERR_UNPACK_FAILURE, "malformed OpenPMIx request");
        else
            sy_srv_peer_reply_status(peer, tag, PMIX_ERR_UNPACK_FAILURE);
    } else if (peer->opx && cmd >= SY_WIRE_OPX_UNMAPPED) {
        sy_srv_opx_command(peer, (uint8_t)(cmd - SY_WIRE_OPX_UNMAPPED), tag, &b);
    } else if (peer->tool != NULL &&
               (cmd == SY_CMD_ABORT || cmd == SY_CMD_COMMIT || cmd == SY_CMD_FENCE ||
                cmd == SY_CMD_CONNECT || cmd == SY_CMD_DISCONNECT)) {
        /* a tool is in no job: it takes part in no collective */
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
    } else {
        switch (cmd) {
        case SY_CMD_FINALIZE: handle_finalize(peer, tag); break;
        case SY_CMD_ABORT: handle_abort(peer, tag, &b); break;
        case SY_CMD_JOBSEG: handle_jobseg(peer, tag, &b); break;
        case SY_CMD_COMMIT:
        case SY_CMD_FENCE:
        case SY_CMD_DMODEX:
        case SY_CMD_CONNECT:
        case SY_CMD_DISCONNECT: sy_srv_modex_command(peer, cmd, tag, &b); break;
        case SY_CMD_EVENT_REGISTER:
        case SY_CMD_EVENT_DEREGISTER:
        case SY_CMD_EVENT_NOTIFY: sy_srv_event_command(peer, cmd, tag, &b); break;
        case SY_CMD_PUBLISH:
        case SY_CMD_LOOKUP:
        case SY_CMD_UNPUBLISH: sy_srv_pubsub_command(peer, cmd, tag, &b); break;
        case SY_CMD_QUERY:
        case SY_CMD_LOG:
        case SY_CMD_JOB_CONTROL:
        case SY_CMD_MONITOR:
        case SY_CMD_SPAWN:
        case SY_CMD_ALLOC: sy_srv_hostops_command(peer, cmd, tag, &b); break;
        case SY_CMD_IOF_PULL:
        case SY_CMD_IOF_DEREG:
        case SY_CMD_IOF_PUSH: sy_srv_iof_command(peer, cmd, tag, &b); break;
        case SY_CMD_FABRIC: sy_srv_fabric_command(peer, cmd, tag, &b); break;
        case SY_CMD_GET_CRED:
        case SY_CMD_VALIDATE_CRED: sy_srv_cred_command(peer, cmd, tag, &b); break;
        case SY_CMD_GROUP_CONSTRUCT:
        case SY_CMD_GROUP_DESTRUCT:
        case SY_CMD_GROUP_INVITE:
        case SY_CMD_GROUP_JOIN:
        case SY_CMD_GROUP_LEAVE:
        case SY_CMD_GROUP_DECIDE: sy_srv_group_command(peer, cmd, tag, &b); break;
        case SY_CMD_LFENCE: sy_srv_lfence_command(peer, tag, &b); break;
        case SY_CMD_HELLO:
            sy_srv_peer_refuse(peer, tag, PMIX_ERR_BAD_PARAM, "a second HELLO");
            break;
        default: sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED); break;
        }
    }
    sy_buffer_destruct(&b);
}

static void on_close(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx)
{
    (void)conn;
    sy_srv_peer_t *peer = ctx;
    if (peer->state == SY_PEER_CLOSED)
        return;
    char who[320];
    peer_describe(peer, who, sizeof(who));
    if (peer->state == SY_PEER_AWAIT_HELLO)
        sy_log(SY_LOG_WARN, "server: dropped %s before it was ready: %s", who, why);
    else if (reason != PMIX_ERR_LOST_CONNECTION)
        sy_log(SY_LOG_WARN, "server: dropped %s: %s", who, why);
    else
        sy_log(SY_LOG_DEBUG, "server: %s closed: %s", who, why);
    peer_detach(peer);
    cancel_timer(peer);
    peer_maybe_free(peer);
}

void sy_srv_peer_accept(sy_srv_t *s, int fd, bool tcp)
{
    sy_srv_peer_t *peer = calloc(1, sizeof(*peer));
    if (peer == NULL) {
        close(fd);
        return;
    }
    static unsigned long serials;
    peer->serial = ++serials;
    peer->tcp = tcp;
    peer->state = SY_PEER_AWAIT_HELLO;
    if (!tcp && sy_peer_cred(fd, &peer->uid, &peer->gid, &peer->pid) == PMIX_SUCCESS)
        peer->cred_known = true;
    static const sy_conn_callbacks_t cbs = {.on_message = on_message, .on_close = on_close};
    if (sy_conn_create(sy_progress_base(s->progress), fd, &cbs, peer, SY_UNAUTH_MAX_BODY,
                       &peer->conn) != PMIX_SUCCESS) {
        free(peer);
        return;
    }
    if (tcp)
        sy_conn_detect_openpmix(peer->conn); /* OpenPMIx clients speak TCP only */
    peer->next = s->peers;
    if (s->peers != NULL)
        s->peers->prev = peer;
    s->peers = peer;
    if (sy_progress_timer(s->progress, SY_HELLO_TIMEOUT, hello_timeout, peer, &peer->timer) !=
        PMIX_SUCCESS)
        peer->timer = NULL;
}

void sy_srv_peer_forget_client(sy_srv_client_t *c)
{
    sy_srv_peer_t *peer = c->peer;
    if (peer == NULL)
        return;
    c->peer = NULL;
    peer->client = NULL;
    peer_shut(peer, false);
}

void sy_srv_peers_close_all(sy_srv_t *s)
{
    while (s->peers != NULL) {
        sy_srv_peer_t *peer = s->peers;
        s->peers = peer->next;
        drop_timer(peer);
        sy_conn_free(peer->conn);
        free(peer->tool);
        free(peer->events_sent_ids);
        free(peer);
    }
}
