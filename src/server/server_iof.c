/* Forwarded I/O at the server (Chap_API_Tools.tex "IO Forwarding",
 * Chap_API_Server.tex PMIx_server_IOF_deliver / iof_pull / push_stdin):
 *
 *   IOF_PULL   a client or tool registers for output of some processes; the
 *              host's iof_pull upcall is told, then the output this server
 *              kept from before (the cache) is replayed to it;
 *   IOF_DEREG  ends a registration (the host gets iof_pull with
 *              PMIX_IOF_STOP);
 *   IOF_PUSH   data for the stdin of processes, handed to push_stdin;
 *   PMIx_server_IOF_deliver  the host's output, sent to every matching
 *              registration as SY_MSG_IOF and kept in the cache.
 *
 * Each registration holds at most PMIX_IOF_CACHE_SIZE bytes that its peer
 * has not taken yet (the replay, and output while its socket is backed
 * up), dropping the newest (default) or oldest bytes beyond.  Loop only,
 * except the API and the host's callbacks. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/wire.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_iof.h"
#include "server/server_msg.h"
#include "server/server_opx.h"
#include "server/server_peer.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

#define SY_IOF_CACHE_MAX ((size_t)2 << 20)   /* output kept for later registrations */
#define SY_IOF_SUB_DEFAULT ((size_t)4 << 20) /* held per registration by default */
#define SY_IOF_WINDOW ((size_t)256 << 10)    /* queued in a socket before we hold */
#define SY_IOF_PUMP 0.02                     /* seconds between retries of a held queue */

typedef struct chunk {
    pmix_proc_t source;
    pmix_iof_channel_t channel;
    char *data;
    size_t len;
    pmix_info_t *info;
    size_t ninfo;
    struct chunk *next;
} chunk_t;

typedef struct sub {
    size_t id;
    size_t peer_ref; /* an OpenPMIx peer's own id for it (server_opx.c) */
    sy_srv_peer_t *peer;
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_iof_channel_t channels;
    pmix_info_t *dirs; /* as given, for the host's PMIX_IOF_STOP */
    size_t ndirs;
    size_t cap;
    bool drop_oldest;
    bool active; /* the host accepted it */
    chunk_t *qhead, *qtail;
    size_t queued;
    size_t dropped;
    sy_timer_t *timer;
    struct sub *next;
} sub_t;

static sub_t *subs;
static size_t next_id = 1;
static chunk_t *cache_head, *cache_tail;
static size_t cache_bytes;
/* (source, channel) pairs whose end was delivered: replayed after data */
static chunk_t *ended;

static void chunk_free(chunk_t *c)
{
    free(c->data);
    if (c->info != NULL)
        PMIX_INFO_FREE(c->info, c->ninfo);
    free(c);
}

static chunk_t *chunk_new(const pmix_proc_t *src, pmix_iof_channel_t ch, const char *data,
                          size_t len, const pmix_info_t *info, size_t ninfo)
{
    chunk_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->source = *src;
    c->channel = ch;
    if (len > 0 && (c->data = malloc(len)) == NULL) {
        free(c);
        return NULL;
    }
    if (len > 0)
        memcpy(c->data, data, len);
    c->len = len;
    if (ninfo > 0 && info != NULL) {
        PMIX_INFO_CREATE(c->info, ninfo);
        if (c->info == NULL) {
            chunk_free(c);
            return NULL;
        }
        c->ninfo = ninfo;
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&c->info[i], &info[i]);
    }
    return c;
}

static bool is_end(const chunk_t *c)
{
    for (size_t i = 0; i < c->ninfo; i++)
        if (sy_info_is(&c->info[i], PMIX_IOF_COMPLETE) && sy_info_true(&c->info[i]))
            return true;
    return false;
}

static bool matches(const sub_t *s, const pmix_proc_t *src, pmix_iof_channel_t ch)
{
    if (!(s->channels & ch))
        return false;
    for (size_t i = 0; i < s->nprocs; i++)
        if (PMIX_CHECK_NSPACE(s->procs[i].nspace, src->nspace) &&
            (s->procs[i].rank == PMIX_RANK_WILDCARD || s->procs[i].rank == src->rank))
            return true;
    return false;
}

static pmix_status_t send_chunk(sub_t *s, const chunk_t *c)
{
    sy_wire_iof_msg_t m = {.ref = s->peer->opx ? s->peer_ref : s->id,
                           .source = c->source,
                           .channel = c->channel,
                           .data = {.bytes = c->data, .size = c->len},
                           .info = c->info,
                           .ninfo = c->ninfo};
    return sy_srv_peer_send_msg(s->peer, SY_WMSG_IOF_MSG, &m);
}

static void pump(sub_t *s);

static void pump_later(void *arg)
{
    sub_t *s = arg;
    sy_timer_cancel(s->timer);
    s->timer = NULL;
    pump(s);
}

/* Hand what the socket can take; retry later while it is backed up. */
static void pump(sub_t *s)
{
    while (s->qhead != NULL && sy_srv_peer_open(s->peer) &&
           sy_conn_pending(s->peer->conn) < SY_IOF_WINDOW) {
        chunk_t *c = s->qhead;
        s->qhead = c->next;
        if (s->qhead == NULL)
            s->qtail = NULL;
        s->queued -= c->len;
        send_chunk(s, c);
        chunk_free(c);
    }
    if (s->qhead != NULL && s->timer == NULL && sy_srv != NULL &&
        sy_progress_timer(sy_srv->progress, SY_IOF_PUMP, pump_later, s, &s->timer) != PMIX_SUCCESS)
        s->timer = NULL;
}

static void note_dropped(sub_t *s, size_t n)
{
    if (n > 0 && s->dropped == 0)
        sy_log(SY_LOG_WARN,
               "server: IOF registration %zu of %s:%u is behind; %zu bytes dropped "
               "(PMIX_IOF_CACHE_SIZE %zu)",
               s->id, s->peer->proc.nspace, s->peer->proc.rank, n, s->cap);
    s->dropped += n;
}

/* Queue c (taken) for s within its cap. */
static void enqueue(sub_t *s, chunk_t *c)
{
    if (c->len > 0 && s->queued + c->len > s->cap) {
        if (s->drop_oldest) {
            while (s->qhead != NULL && s->queued + c->len > s->cap) {
                chunk_t *old = s->qhead;
                if (old->len == 0 && old != s->qtail) {
                    /* keep end markers: move on past them */
                    break;
                }
                s->qhead = old->next;
                if (s->qhead == NULL)
                    s->qtail = NULL;
                s->queued -= old->len;
                note_dropped(s, old->len);
                chunk_free(old);
            }
            if (c->len > s->cap) {
                size_t cut = c->len - s->cap;
                memmove(c->data, c->data + cut, s->cap);
                c->len = s->cap;
                note_dropped(s, cut);
            }
        } else {
            size_t room = s->cap > s->queued ? s->cap - s->queued : 0;
            note_dropped(s, c->len - room);
            c->len = room;
            if (room == 0 && c->ninfo == 0) {
                chunk_free(c);
                return;
            }
        }
    }
    if (s->qtail != NULL)
        s->qtail->next = c;
    else
        s->qhead = c;
    s->qtail = c;
    c->next = NULL;
    s->queued += c->len;
}

static void deliver_to(sub_t *s, const chunk_t *c)
{
    if (s->qhead == NULL && sy_conn_pending(s->peer->conn) < SY_IOF_WINDOW) {
        send_chunk(s, c);
        return;
    }
    chunk_t *copy = chunk_new(&c->source, c->channel, c->data, c->len, c->info, c->ninfo);
    if (copy != NULL) {
        enqueue(s, copy);
        pump(s);
    }
}

static void cache_add(chunk_t *c)
{
    if (is_end(c) && c->len == 0) {
        c->next = ended;
        ended = c;
        return;
    }
    if (cache_tail != NULL)
        cache_tail->next = c;
    else
        cache_head = c;
    cache_tail = c;
    cache_bytes += c->len;
    while (cache_bytes > SY_IOF_CACHE_MAX && cache_head != NULL) {
        chunk_t *old = cache_head;
        cache_head = old->next;
        if (cache_head == NULL)
            cache_tail = NULL;
        cache_bytes -= old->len;
        chunk_free(old);
    }
}

/* The backlog a new registration gets, cut to its cap by its policy. */
static void replay(sub_t *s)
{
    size_t total = 0;
    for (chunk_t *c = cache_head; c != NULL; c = c->next)
        if (matches(s, &c->source, c->channel))
            total += c->len;
    size_t skip = total > s->cap && s->drop_oldest ? total - s->cap : 0;
    size_t budget = s->cap;
    if (total > s->cap)
        note_dropped(s, total - s->cap);
    for (chunk_t *c = cache_head; c != NULL && budget > 0; c = c->next) {
        if (!matches(s, &c->source, c->channel))
            continue;
        size_t off = 0, len = c->len;
        if (skip > 0) {
            off = skip < len ? skip : len;
            skip -= off;
            len -= off;
        }
        if (len > budget)
            len = budget;
        if (len == 0)
            continue;
        budget -= len;
        chunk_t *copy = chunk_new(&c->source, c->channel, c->data + off, len, c->info, c->ninfo);
        if (copy != NULL) {
            copy->next = NULL;
            if (s->qtail != NULL)
                s->qtail->next = copy;
            else
                s->qhead = copy;
            s->qtail = copy;
            s->queued += copy->len;
        }
    }
    for (chunk_t *c = ended; c != NULL; c = c->next) {
        if (!matches(s, &c->source, c->channel))
            continue;
        chunk_t *copy = chunk_new(&c->source, c->channel, NULL, 0, c->info, c->ninfo);
        if (copy != NULL)
            enqueue(s, copy);
    }
    pump(s);
}

/* ---- PMIx_server_IOF_deliver ---- */

typedef struct {
    chunk_t *chunk;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} deliver_t;

static void deliver_on_loop(void *arg)
{
    deliver_t *d = arg;
    chunk_t *c = d->chunk;
    for (sub_t *s = subs; s != NULL; s = s->next)
        if (s->active && matches(s, &c->source, c->channel))
            deliver_to(s, c);
    cache_add(c);
    if (d->cbfunc != NULL)
        d->cbfunc(PMIX_SUCCESS, d->cbdata);
    free(d);
}

PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (source == NULL || bo == NULL || (bo->size > 0 && bo->bytes == NULL) ||
        (info == NULL && ninfo > 0) || channel == PMIX_FWD_NO_CHANNELS)
        return PMIX_ERR_BAD_PARAM;
    deliver_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->chunk = chunk_new(source, channel, bo->bytes, bo->size, info, ninfo);
    if (d->chunk == NULL) {
        free(d);
        return PMIX_ERR_NOMEM;
    }
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    /* The data is ours now: the caller may reuse bo as soon as we return
     * (blocking form) or once cbfunc ran. */
    pmix_status_t rc = sy_srv_post(deliver_on_loop, d);
    if (rc != PMIX_SUCCESS) {
        chunk_free(d->chunk);
        free(d);
    }
    return rc;
}

/* ---- registrations ---- */

static void sub_free(sub_t *s)
{
    if (s->timer != NULL)
        sy_timer_cancel(s->timer);
    while (s->qhead != NULL) {
        chunk_t *c = s->qhead;
        s->qhead = c->next;
        chunk_free(c);
    }
    if (s->procs != NULL)
        PMIX_PROC_FREE(s->procs, s->nprocs);
    if (s->dirs != NULL)
        PMIX_INFO_FREE(s->dirs, s->ndirs);
    free(s);
}

static void unlink_sub(sub_t *s)
{
    for (sub_t **pp = &subs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            return;
        }
}

/* dirs plus what the host must always get (PMIX_USERID, PMIX_GRPID) and
 * `extra` (PMIX_IOF_STOP) when given. */
static pmix_status_t host_dirs(const sy_srv_peer_t *peer, const pmix_info_t *dirs, size_t ndirs,
                               const char *extra, pmix_info_t **out, size_t *nout)
{
    size_t n = ndirs + 2 + (extra != NULL), k = 0;
    PMIX_INFO_CREATE(*out, n);
    if (*out == NULL)
        return PMIX_ERR_NOMEM;
    /* the peer's own PMIX_USERID/PMIX_GRPID, if it sent any, are not passed
     * on: the host hears only the identity we know */
    for (size_t i = 0; i < ndirs; i++)
        if (!sy_info_is(&dirs[i], PMIX_USERID) && !sy_info_is(&dirs[i], PMIX_GRPID))
            PMIx_Info_xfer(&(*out)[k++], &dirs[i]);
    uint32_t uid = peer->client != NULL ? (uint32_t)peer->client->uid : (uint32_t)peer->uid;
    uint32_t gid = peer->client != NULL ? (uint32_t)peer->client->gid : (uint32_t)peer->gid;
    PMIX_INFO_LOAD(&(*out)[k++], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&(*out)[k++], PMIX_GRPID, &gid, PMIX_UINT32);
    if (extra != NULL)
        PMIX_INFO_LOAD(&(*out)[k++], extra, NULL, PMIX_BOOL);
    *nout = k;
    return PMIX_SUCCESS;
}

typedef struct {
    sy_srv_req_t req;  /* first; peer NULL for a stop the peer did not ask */
    sub_t *sub;        /* PULL */
    pmix_info_t *dirs; /* what the host was given */
    size_t ndirs;
    pmix_proc_t *targets; /* PUSH */
    size_t ntargets;
    pmix_byte_object_t bo;
} op_t;

static void op_free(op_t *o)
{
    if (o->dirs != NULL)
        PMIX_INFO_FREE(o->dirs, o->ndirs);
    if (o->targets != NULL)
        PMIX_PROC_FREE(o->targets, o->ntargets);
    free(o->bo.bytes);
    free(o);
}

static void op_req_free(sy_srv_req_t *req)
{
    op_free((op_t *)req);
}

static void stop_sub(sub_t *s, sy_srv_peer_t *peer, uint32_t tag);

/* The host's answer to a registration (on the loop). */
static void pull_done(sy_srv_req_t *req)
{
    op_t *o = (op_t *)req;
    sy_srv_peer_t *peer = req->peer;
    sub_t *s = o->sub;
    pmix_status_t st = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
    if (st == PMIX_SUCCESS && sy_srv_peer_open(peer)) {
        sy_wire_iof_pull_rep_t rep = {.ref = s->id};
        pmix_data_buffer_t b = {0};
        pmix_status_t rc = sy_wire_iof_pull_rep_pack(sy_srv_codec(peer), &b, &rep);
        sy_srv_peer_reply_with(peer, req->tag, rc, &b);
        sy_buffer_destruct(&b);
        s->active = true;
        replay(s);
    } else if (st == PMIX_SUCCESS) {
        /* the host took a registration whose peer has left since */
        stop_sub(s, peer, 0);
    } else {
        sy_srv_peer_reply_status(peer, req->tag, st);
        unlink_sub(s);
        sub_free(s);
    }
}

static const sy_srv_req_type_t pull_type = {
    .name = "iof_pull", .done = pull_done, .free = op_req_free};
/* PUSH and DEREG: the status is the reply (none for a stop of our own). */
static const sy_srv_req_type_t op_type = {.name = "iof", .free = op_req_free};

/* PMIX_IOF_CACHE_SIZE and the drop policy of a registration. */
static pmix_status_t sub_policy(sub_t *s)
{
    s->cap = SY_IOF_SUB_DEFAULT;
    bool oldest = false, newest = false;
    for (size_t i = 0; i < s->ndirs; i++) {
        const pmix_info_t *d = &s->dirs[i];
        if (sy_info_is(d, PMIX_IOF_CACHE_SIZE)) {
            if (d->value.type == PMIX_UINT32)
                s->cap = d->value.data.uint32;
            else if (d->value.type == PMIX_SIZE)
                s->cap = d->value.data.size;
            else
                return PMIX_ERR_BAD_PARAM;
        } else if (sy_info_is(d, PMIX_IOF_DROP_OLDEST)) {
            oldest = sy_info_true(d);
        } else if (sy_info_is(d, PMIX_IOF_DROP_NEWEST)) {
            newest = sy_info_true(d);
        }
    }
    if (oldest && newest)
        return PMIX_ERR_BAD_PARAM;
    s->drop_oldest = oldest;
    return PMIX_SUCCESS;
}

static void handle_pull(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *srv = sy_srv;
    sub_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_wire_iof_pull_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_IOF_PULL_REQ, &m);
    s->procs = m.procs; /* the registration's from here */
    s->nprocs = m.nprocs;
    s->dirs = m.directives;
    s->ndirs = m.ndirectives;
    s->channels = m.channels;
    if (rc == PMIX_SUCCESS && peer->opx)
        rc = sy_srv_opx_take_iof_id(&s->dirs, &s->ndirs, &s->peer_ref);
    if (rc != PMIX_SUCCESS)
        rc = PMIX_ERR_UNPACK_FAILURE;
    else if (s->nprocs == 0 || s->channels == PMIX_FWD_NO_CHANNELS)
        rc = PMIX_ERR_BAD_PARAM;
    else if (s->channels & PMIX_FWD_STDIN_CHANNEL)
        rc = PMIX_ERR_NOT_SUPPORTED; /* stdin is pushed, never pulled */
    else if (srv->module.iof_pull == NULL)
        rc = PMIX_ERR_NOT_SUPPORTED;
    else
        rc = sub_policy(s);
    op_t *o = rc == PMIX_SUCCESS ? calloc(1, sizeof(*o)) : NULL;
    if (rc == PMIX_SUCCESS && o == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = host_dirs(peer, s->dirs, s->ndirs, NULL, &o->dirs, &o->ndirs);
    if (rc != PMIX_SUCCESS) {
        free(o);
        sub_free(s);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    s->id = next_id++;
    s->peer = peer;
    s->next = subs;
    subs = s;
    sy_srv_req_init(&o->req, &pull_type, peer, tag);
    o->sub = s;
    sy_srv_req_returned(&o->req,
                        srv->module.iof_pull(s->procs, s->nprocs, o->dirs, o->ndirs, s->channels,
                                             sy_srv_req_op_done, sy_srv_req_ticket(&o->req)));
}

/* Tell the host a registration ended; the reply (if tag) follows its answer. */
static void stop_sub(sub_t *s, sy_srv_peer_t *peer, uint32_t tag)
{
    sy_srv_t *srv = sy_srv;
    unlink_sub(s);
    op_t *o = calloc(1, sizeof(*o));
    if (o == NULL || srv == NULL || srv->module.iof_pull == NULL ||
        host_dirs(s->peer, s->dirs, s->ndirs, PMIX_IOF_STOP, &o->dirs, &o->ndirs) != PMIX_SUCCESS) {
        if (tag != 0)
            sy_srv_peer_reply_status(peer, tag, o == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS);
        if (o != NULL)
            op_free(o);
        sub_free(s);
        return;
    }
    sy_srv_req_init(&o->req, &op_type, tag != 0 ? peer : NULL, tag);
    pmix_proc_t *procs = s->procs;
    size_t nprocs = s->nprocs;
    pmix_iof_channel_t ch = s->channels;
    /* the host may use procs until it calls back: they go with the op */
    o->targets = procs;
    o->ntargets = nprocs;
    s->procs = NULL;
    s->nprocs = 0;
    sub_free(s);
    sy_srv_req_returned(&o->req,
                        srv->module.iof_pull(procs, nprocs, o->dirs, o->ndirs, ch,
                                             sy_srv_req_op_done, sy_srv_req_ticket(&o->req)));
}

static void handle_dereg(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_iof_dereg_req_t m;
    if (sy_srv_unpack_msg(peer, b, SY_WMSG_IOF_DEREG_REQ, &m) != PMIX_SUCCESS) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_UNPACK_FAILURE);
        return;
    }
    size_t id = m.ref;
    for (sub_t *s = subs; s != NULL; s = s->next) {
        if (s->id == id && s->peer == peer && s->active) {
            stop_sub(s, peer, tag);
            return;
        }
    }
    sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_FOUND);
}

static void handle_push(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *srv = sy_srv;
    op_t *o = calloc(1, sizeof(*o));
    if (o == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_wire_iof_push_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_IOF_PUSH_REQ, &m);
    o->targets = m.targets; /* the op's from here */
    o->ntargets = m.ntargets;
    o->bo = m.data;
    pmix_info_t *dirs = m.directives;
    size_t ndirs = m.ndirectives;
    if (rc != PMIX_SUCCESS)
        rc = PMIX_ERR_UNPACK_FAILURE;
    else if (o->ntargets == 0)
        rc = PMIX_ERR_BAD_PARAM;
    else if (srv->module.push_stdin == NULL)
        rc = PMIX_ERR_NOT_SUPPORTED;
    if (rc == PMIX_SUCCESS)
        rc = host_dirs(peer, dirs, ndirs, NULL, &o->dirs, &o->ndirs);
    if (dirs != NULL)
        PMIX_INFO_FREE(dirs, ndirs);
    if (rc != PMIX_SUCCESS) {
        op_free(o);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    sy_srv_req_init(&o->req, &op_type, peer, tag);
    pmix_proc_t source = peer->proc;
    sy_srv_req_returned(&o->req, srv->module.push_stdin(&source, o->targets, o->ntargets, o->dirs,
                                                        o->ndirs, &o->bo, sy_srv_req_op_done,
                                                        sy_srv_req_ticket(&o->req)));
}

void sy_srv_iof_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    if (cmd == SY_CMD_IOF_PULL)
        handle_pull(peer, tag, b);
    else if (cmd == SY_CMD_IOF_DEREG)
        handle_dereg(peer, tag, b);
    else
        handle_push(peer, tag, b);
}

void sy_srv_iof_peer_gone(sy_srv_peer_t *peer)
{
    for (sub_t *s = subs, *next; s != NULL; s = next) {
        next = s->next;
        if (s->peer != peer)
            continue;
        if (s->active)
            stop_sub(s, peer, 0);
        /* a registration the host has not answered yet goes when it does */
    }
}

void sy_srv_iof_finalize(void)
{
    while (subs != NULL) {
        sub_t *s = subs;
        subs = s->next;
        sub_free(s);
    }
    while (cache_head != NULL) {
        chunk_t *c = cache_head;
        cache_head = c->next;
        chunk_free(c);
    }
    cache_tail = NULL;
    cache_bytes = 0;
    while (ended != NULL) {
        chunk_t *c = ended;
        ended = c->next;
        chunk_free(c);
    }
    next_id = 1;
}
