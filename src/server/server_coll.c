/* The collective engine: FENCE, CONNECT and DISCONNECT requests, the
 * group operations (server_coll.h), and the host's fence_nb, connect and
 * disconnect upcalls.  Loop only.
 *
 * A collective completes once every local participant arrived
 * (participants that have not connected yet count: the registered
 * namespace says how many are local); with remote participants the host's
 * fence_nb gets this node's blob (server_modex.h) and returns every
 * node's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/info.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_coll.h"
#include "server/server_group.h"
#include "server/server_internal.h"
#include "server/server_lfence.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"
#include "server/server_modex.h"
#include "server/server_msg.h"
#include "server/server_opx.h"

typedef struct member {
    sy_srv_peer_t *peer; /* NULL: a process without a connection of ours */
    uint32_t tag;
    pmix_proc_t proc;
    sy_srv_coll_notify_fn notify; /* tells it when peer is NULL */
    void *ctx;
    struct member *next;
} member_t;

typedef struct sy_srv_coll {
    uint8_t kind; /* SY_CMD_FENCE, SY_CMD_CONNECT, SY_CMD_DISCONNECT, or another
                   * file's collective (ops != NULL) */
    pmix_proc_t *procs;
    size_t nprocs;
    bool collect;
    size_t expected, arrived;
    bool remote; /* some participant is on another node */
    bool host_called;
    bool departed;                     /* a local participant ended (finalized, disconnected or
                                        * died) before or during it: the others end with
                                        * PMIX_ERR_PARTIAL_SUCCESS (fence/connect/disconnect) */
    member_t *members, **members_tail; /* in arrival order: answered first come first */
    sy_timer_t *timer;
    pmix_data_buffer_t remote_data; /* blobs from the host */
    pmix_info_t *dirs;              /* the first participant's directives, for the host */
    size_t ndirs;
    char *key;                    /* names another file's collective (a group id) */
    const sy_srv_coll_ops_t *ops; /* how it completes; NULL: fence/connect/disconnect */
    void *ctx;
    unsigned long serial; /* names it for host callbacks that come late */
    struct sy_srv_coll *next;
} fence_t;

static fence_t *fences;

/* How many local processes take part, and whether others elsewhere do. */
static pmix_status_t count_local(sy_srv_t *s, const pmix_proc_t *procs, size_t n, size_t *local,
                                 bool *remote)
{
    *local = 0;
    *remote = false;
    for (size_t i = 0; i < n; i++) {
        sy_srv_nspace_t *ns = sy_srv_nspace_find(s, procs[i].nspace);
        if (ns == NULL)
            return PMIX_ERR_NOT_FOUND;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            *local += ns->summary.nlocal;
            if (ns->summary.job_size > ns->summary.nlocal)
                *remote = true;
        } else if (sy_srv_rank_local(ns, procs[i].rank)) {
            (*local)++;
        } else {
            *remote = true;
        }
    }
    return PMIX_SUCCESS;
}

static bool same_set(const fence_t *f, uint8_t kind, const pmix_proc_t *procs, size_t n)
{
    if (f->kind != kind || f->nprocs != n || f->key != NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!sy_srv_proc_in_set(f->procs, f->nprocs, &procs[i]) ||
            !sy_srv_proc_in_set(procs, n, &f->procs[i]))
            return false;
    return true;
}

/* ---- ending things ---- */

static void unlist_fence(fence_t *f)
{
    for (fence_t **pp = &fences; *pp != NULL; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            return;
        }
}

static void fence_free(fence_t *f)
{
    if (f->timer != NULL)
        sy_timer_cancel(f->timer);
    if (f->ops != NULL && f->ops->done != NULL)
        f->ops->done(f->ctx);
    free(f->procs);
    free(f->key);
    if (f->dirs != NULL)
        PMIX_INFO_FREE(f->dirs, f->ndirs);
    sy_buffer_destruct(&f->remote_data);
    free(f);
}

/* Reply to every member: the status, then msg (a reply of id; NULL: the
 * status alone). */
static void fence_finish(fence_t *f, pmix_status_t status, sy_wire_msg_id_t id, const void *msg)
{
    /* done among the participants that stayed: OpenPMIx 4.2.2's answer
     * when one leaves a fence or connect, whether it finalized or died */
    if (status == PMIX_SUCCESS && f->departed && f->ops == NULL)
        status = PMIX_ERR_PARTIAL_SUCCESS;
    unlist_fence(f);
    while (f->members != NULL) {
        member_t *m = f->members;
        f->members = m->next;
        if (m->peer != NULL && m->peer->opx && f->kind == SY_CMD_CONNECT && f->ops == NULL) {
            sy_srv_opx_connect_reply(m->peer, m->tag, status, f->procs, f->nprocs);
            sy_srv_peer_release(m->peer);
        } else if (m->peer != NULL) {
            sy_srv_peer_reply_msg(m->peer, m->tag, status, id, msg);
            sy_srv_peer_release(m->peer);
        } else {
            m->notify(status, m->ctx);
        }
        free(m);
    }
    fence_free(f);
}

/* The reply of each kind of collective this file runs itself. */
static sy_wire_msg_id_t reply_id(uint8_t kind)
{
    return kind == SY_CMD_CONNECT      ? SY_WMSG_CONNECT_REP
           : kind == SY_CMD_DISCONNECT ? SY_WMSG_DISCONNECT_REP
                                       : SY_WMSG_FENCE_REP;
}

static void fence_complete(fence_t *f)
{
    /* DISCONNECT: nothing to exchange, no segment to map, none retired */
    sy_wire_fence_rep_t rep = {0};
    pmix_status_t rc =
        f->kind == SY_CMD_DISCONNECT
            ? PMIX_SUCCESS
            : sy_srv_modex_publish(sy_srv, f->procs, f->nprocs, &f->remote_data, &rep);
    fence_finish(f, rc, reply_id(f->kind), rc == PMIX_SUCCESS ? &rep : NULL);
    sy_wire_fence_rep_free(&rep);
}

/* ---- the host's fence_nb ---- */

typedef struct {
    sy_srv_req_t req; /* first; no peer: the fence answers its members */
    fence_t *f;
    unsigned long serial; /* f's, checked before f is used: it may be gone */
    const char *data;     /* the host's, until req.release_fn */
    size_t ndata;
    /* what the host was given: ours until it calls back, which may be
     * after the fence itself ended here */
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_info_t *info;
    size_t ninfo;
} host_fence_t;

static void host_fence_free(sy_srv_req_t *req)
{
    host_fence_t *h = (host_fence_t *)req;
    if (h->procs != NULL)
        PMIX_PROC_FREE(h->procs, h->nprocs);
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    free(h);
}

static bool fence_alive(const fence_t *f)
{
    for (const fence_t *x = fences; x != NULL; x = x->next)
        if (x == f)
            return true;
    return false;
}

/* fence_nb, connect or disconnect answered (on the loop, not in the host's
 * callback: Slurm holds a lock there).  OPERATION_SUCCEEDED is done at
 * once with nothing from elsewhere: ours published. */
static void host_fence_done(sy_srv_req_t *req)
{
    host_fence_t *h = (host_fence_t *)req;
    if (!fence_alive(h->f) || h->f->serial != h->serial)
        return; /* the fence ended meanwhile */
    fence_t *f = h->f;
    pmix_status_t st = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
    if (st == PMIX_SUCCESS && h->ndata > 0 &&
        sy_buffer_append(&f->remote_data, h->data, h->ndata) != PMIX_SUCCESS)
        st = PMIX_ERR_NOMEM;
    if (st == PMIX_SUCCESS)
        fence_complete(f);
    else
        fence_finish(f, st, 0, NULL);
}

static const sy_srv_req_type_t fence_type = {
    .name = "collective", .done = host_fence_done, .free = host_fence_free};

static void host_fence_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    host_fence_t *h = (host_fence_t *)sy_srv_req_claim(cbdata);
    if (h == NULL) { /* ended already (an error return): only release */
        sy_srv_release_later(release_fn, release_cbdata);
        return;
    }
    /* The data stays the host's until release_fn, called on the loop once
     * this returned: Slurm calls here holding the lock release_fn takes. */
    h->req.status = status;
    h->data = data;
    h->ndata = data != NULL ? ndata : 0;
    h->req.release_fn = release_fn;
    h->req.release_cbdata = release_cbdata;
    sy_srv_req_post(&h->req);
}

/* What the host's fence_nb/connect/disconnect get (Chap_API_Server.tex):
 * the participants' directives (the first arrival's; PMIX_COLLECT_DATA as
 * any participant asked) and PMIX_LOCAL_COLLECTIVE_STATUS, the outcome of
 * the part done here: success, PMIX_ERR_PARTIAL_SUCCESS when a local
 * participant left first, PMIX_ERR_LOST_CONNECTION when none of them is
 * left (the host is still asked, so that the other nodes' participants
 * are not left waiting).  Destruct with PMIX_INFO_FREE. */
static bool ours(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_COLLECT_DATA) || PMIX_CHECK_KEY(i, PMIX_LOCAL_COLLECTIVE_STATUS);
}

static pmix_status_t host_directives(const fence_t *f, pmix_info_t **out, size_t *nout)
{
    size_t n = f->collect + 1;
    for (size_t i = 0; i < f->ndirs; i++)
        n += !ours(&f->dirs[i]);
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, n);
    if (info == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < f->ndirs; i++)
        if (!ours(&f->dirs[i]))
            PMIx_Info_xfer(&info[k++], &f->dirs[i]);
    if (f->collect) {
        bool yes = true;
        PMIX_INFO_LOAD(&info[k], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        k++;
    }
    /* a departure here: partial, or lost when none of ours is left */
    pmix_status_t local = !f->departed         ? PMIX_SUCCESS
                          : f->members != NULL ? PMIX_ERR_PARTIAL_SUCCESS
                                               : PMIX_ERR_LOST_CONNECTION;
    PMIX_INFO_LOAD(&info[k], PMIX_LOCAL_COLLECTIVE_STATUS, &local, PMIX_STATUS);
    *out = info;
    *nout = n;
    return PMIX_SUCCESS;
}

/* A host_fence_t holding the participants and directives the host gets. */
static host_fence_t *host_fence_new(fence_t *f)
{
    host_fence_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    sy_srv_req_init(&h->req, &fence_type, NULL, 0);
    h->f = f;
    h->serial = f->serial;
    if (f->nprocs > 0) {
        PMIX_PROC_CREATE(h->procs, f->nprocs);
        if (h->procs == NULL) {
            host_fence_free(&h->req);
            return NULL;
        }
        memcpy(h->procs, f->procs, f->nprocs * sizeof(pmix_proc_t));
        h->nprocs = f->nprocs;
    }
    if (host_directives(f, &h->info, &h->ninfo) != PMIX_SUCCESS) {
        host_fence_free(&h->req);
        return NULL;
    }
    return h;
}

/* Connect/disconnect across nodes: the host's own upcalls. */
static void connect_ready(sy_srv_t *s, fence_t *f)
{
    pmix_server_connect_fn_t fn =
        f->kind == SY_CMD_CONNECT ? s->module.connect : s->module.disconnect;
    if (fn == NULL) {
        fence_finish(f, PMIX_ERR_NOT_SUPPORTED, 0, NULL);
        return;
    }
    host_fence_t *h = host_fence_new(f);
    if (h == NULL) {
        fence_finish(f, PMIX_ERR_NOMEM, 0, NULL);
        return;
    }
    f->host_called = true;
    sy_srv_req_returned(&h->req, fn(h->procs, h->nprocs, h->info, h->ninfo, sy_srv_req_op_done,
                                    sy_srv_req_ticket(&h->req)));
}

static void fence_ready(sy_srv_t *s, fence_t *f)
{
    if (f->ops != NULL) {
        f->ops->ready(f, f->ctx);
        return;
    }
    if (!f->remote) {
        if (f->members == NULL) /* every participant here left: no one to tell */
            fence_finish(f, PMIX_ERR_LOST_CONNECTION, 0, NULL);
        else
            fence_complete(f);
        return;
    }
    if (f->kind != SY_CMD_FENCE) {
        connect_ready(s, f);
        return;
    }
    if (s->module.fence_nb == NULL) {
        fence_finish(f, PMIX_ERR_NOT_SUPPORTED, 0, NULL);
        return;
    }
    pmix_data_buffer_t blob = {0};
    pmix_status_t rc = sy_srv_coll_blob(f, &blob);
    host_fence_t *h = rc == PMIX_SUCCESS ? host_fence_new(f) : NULL;
    if (h == NULL) {
        sy_buffer_destruct(&blob);
        fence_finish(f, rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM, 0, NULL);
        return;
    }
    f->host_called = true;
    /* The blob is the host's, malloc'd: it frees it (Open MPI's ORTE
     * does), as with OpenPMIx 4.2.2, also when it refuses the call. */
    char *data = blob.base_ptr;
    size_t ndata = blob.bytes_used;
    sy_srv_req_returned(&h->req,
                        s->module.fence_nb(h->procs, h->nprocs, h->info, h->ninfo, data, ndata,
                                           host_fence_cb, sy_srv_req_ticket(&h->req)));
}

/* A local participant of a fence, connect or disconnect ended before the
 * part done here was complete: one less to wait for. */
static void depart(fence_t *f)
{
    f->departed = true;
    if (f->host_called)
        return; /* the host has it now: its answer ends it */
    if (f->expected > 0)
        f->expected--;
    if (f->arrived >= f->expected)
        fence_ready(sy_srv, f);
}

static void depart_if_ended(fence_t *f, const char *nspace, pmix_rank_t rank)
{
    pmix_proc_t p;
    bool finalized;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    if (sy_group_ended(&p, &finalized)) {
        f->departed = true;
        if (f->expected > 0)
            f->expected--;
    }
}

/* A new fence, connect or disconnect does not wait for the local
 * participants that ended before it began (counted in `expected`). */
static void skip_ended(fence_t *f)
{
    for (size_t i = 0; i < f->nprocs; i++) {
        const sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, f->procs[i].nspace);
        if (ns == NULL)
            continue;
        if (f->procs[i].rank != PMIX_RANK_WILDCARD) {
            if (sy_srv_rank_local(ns, f->procs[i].rank))
                depart_if_ended(f, ns->name, f->procs[i].rank);
            continue;
        }
        for (uint32_t k = 0; k < ns->summary.nlocal; k++)
            depart_if_ended(f, ns->name,
                            ns->summary.local_ranks != NULL ? ns->summary.local_ranks[k] : k);
    }
}

static void fence_timeout(void *arg)
{
    fence_t *f = arg;
    if (f->timer != NULL) {
        sy_timer_cancel(f->timer);
        f->timer = NULL;
    }
    if (f->ops != NULL && f->ops->timeout != NULL)
        f->ops->timeout(f, f->ctx);
    else if (!f->host_called)
        fence_finish(f, PMIX_ERR_TIMEOUT, 0, NULL);
}

void sy_srv_coll_command(sy_srv_peer_t *peer, uint8_t kind, uint32_t tag, pmix_data_buffer_t *b)
{
    /* FENCE, CONNECT and DISCONNECT requests are one shape */
    _Static_assert(sizeof(sy_wire_fence_req_t) == sizeof(sy_wire_connect_req_t) &&
                       sizeof(sy_wire_fence_req_t) == sizeof(sy_wire_disconnect_req_t),
                   "FENCE, CONNECT and DISCONNECT differ");
    sy_wire_msg_id_t id = kind == SY_CMD_CONNECT      ? SY_WMSG_CONNECT_REQ
                          : kind == SY_CMD_DISCONNECT ? SY_WMSG_DISCONNECT_REQ
                                                      : SY_WMSG_FENCE_REQ;
    sy_wire_fence_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, id, &m);
    /* the arrays are taken from the message */
    pmix_proc_t *procs = m.procs;
    size_t nprocs = m.nprocs;
    pmix_info_t *info = m.info;
    size_t ninfo = m.ninfo;
    if (rc == PMIX_SUCCESS && nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_group_expand(&procs, &nprocs); /* {group id, rank} names members */
    if (rc == PMIX_SUCCESS && !sy_srv_proc_in_set(procs, nprocs, &peer->proc))
        rc = PMIX_ERR_BAD_PARAM; /* a fence the caller does not take part in */
    if (rc == PMIX_SUCCESS && kind == SY_CMD_FENCE && sy_srv_lfence_whole(procs, nprocs)) {
        /* the namespace's fences meet in its page (server_lfence.c) */
        double secs = 0;
        bool collect = sy_info_flag(info, ninfo, PMIX_COLLECT_DATA) ||
                       sy_info_flag(info, ninfo, PMIX_COLLECT_GENERATED_JOB_INFO);
        if (sy_info_timeout(info, ninfo, &secs) != PMIX_SUCCESS)
            secs = 0;
        rc = sy_srv_lfence_join(procs[0].nspace, peer, tag, &peer->proc, NULL, NULL, collect, secs);
        if (rc != PMIX_ERR_NOT_SUPPORTED) {
            if (info != NULL)
                PMIX_INFO_FREE(info, ninfo);
            free(procs);
            if (rc != PMIX_SUCCESS)
                sy_srv_peer_reply_status(peer, tag, rc);
            return;
        }
        rc = PMIX_SUCCESS;
    }
    fence_t *f = NULL;
    if (rc == PMIX_SUCCESS) {
        for (f = fences; f != NULL && !same_set(f, kind, procs, nprocs); f = f->next)
            ;
        if (f == NULL &&
            (rc = sy_srv_coll_new(kind, NULL, procs, nprocs, NULL, NULL, &f)) == PMIX_SUCCESS) {
            procs = NULL;
            skip_ended(f);
        }
    }
    if (rc == PMIX_SUCCESS) {
        if (sy_info_flag(info, ninfo, PMIX_COLLECT_DATA) ||
            sy_info_flag(info, ninfo, PMIX_COLLECT_GENERATED_JOB_INFO))
            f->collect = true;
        double secs = 0; /* an unreadable PMIX_TIMEOUT: no limit of ours */
        if (sy_info_timeout(info, ninfo, &secs) == PMIX_SUCCESS)
            sy_srv_coll_set_timeout(f, secs);
        if (f->dirs == NULL && ninfo > 0) { /* the first arrival's, for the host */
            f->dirs = info;
            f->ndirs = ninfo;
            info = NULL;
        }
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    free(procs); /* an existing fence kept its own copy */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_coll_join(f, peer, tag);
    if (rc != PMIX_SUCCESS)
        sy_srv_peer_reply_status(peer, tag, rc);
}

/* ---- collectives other files drive (server_coll.h) ---- */

pmix_status_t sy_srv_coll_new(uint8_t kind, const char *key, pmix_proc_t *procs, size_t nprocs,
                              const sy_srv_coll_ops_t *ops, void *ctx, sy_srv_coll_t **out)
{
    size_t expected = 0;
    bool remote = false;
    pmix_status_t rc = count_local(sy_srv, procs, nprocs, &expected, &remote);
    if (rc != PMIX_SUCCESS)
        return rc;
    static unsigned long serials;
    fence_t *f = calloc(1, sizeof(*f));
    if (f == NULL || (key != NULL && (f->key = strdup(key)) == NULL)) {
        free(f);
        return PMIX_ERR_NOMEM;
    }
    f->kind = kind;
    f->procs = procs;
    f->nprocs = nprocs;
    f->expected = expected;
    f->remote = remote;
    f->ops = ops;
    f->ctx = ctx;
    f->serial = ++serials;
    f->members_tail = &f->members;
    f->next = fences;
    fences = f;
    sy_log(SY_LOG_DEBUG, "%s over %zu proc entries (%s.%u first): %zu local, %s",
           kind == SY_CMD_FENCE ? "fence"
           : ops != NULL        ? "group operation"
                                : "connect/disconnect",
           nprocs, f->procs[0].nspace, f->procs[0].rank, expected,
           remote ? "others elsewhere" : "all here");
    *out = f;
    return PMIX_SUCCESS;
}

sy_srv_coll_t *sy_srv_coll_find(uint8_t kind, const char *key)
{
    for (fence_t *f = fences; f != NULL; f = f->next)
        if (f->kind == kind && f->key != NULL && strcmp(f->key, key) == 0)
            return f;
    return NULL;
}

void sy_srv_coll_set_timeout(sy_srv_coll_t *f, double seconds)
{
    if (seconds > 0 && f->timer == NULL)
        sy_progress_timer(sy_srv->progress, seconds, fence_timeout, f, &f->timer);
}

static void add_member(fence_t *f, member_t *m)
{
    *f->members_tail = m;
    f->members_tail = &m->next;
    if (++f->arrived >= f->expected)
        fence_ready(sy_srv, f);
    else if (f->kind != SY_CMD_DISCONNECT)
        sy_srv_modex_make_spare(sy_srv); /* while waiting for the others */
}

pmix_status_t sy_srv_coll_join(sy_srv_coll_t *f, sy_srv_peer_t *peer, uint32_t tag)
{
    if (!sy_srv_proc_in_set(f->procs, f->nprocs, &peer->proc))
        return PMIX_ERR_BAD_PARAM; /* a collective the caller does not take part in */
    member_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->peer = peer;
    m->tag = tag;
    m->proc = peer->proc;
    sy_srv_peer_hold(peer);
    add_member(f, m);
    return PMIX_SUCCESS;
}

pmix_status_t sy_srv_coll_fence_job(const pmix_proc_t *who, sy_srv_coll_notify_fn notify, void *ctx)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, who->nspace, PMIX_RANK_WILDCARD);
    if (sy_srv_lfence_whole(&job, 1)) {
        pmix_status_t rc = sy_srv_lfence_join(who->nspace, NULL, 0, who, notify, ctx, true, 0);
        if (rc != PMIX_ERR_NOT_SUPPORTED)
            return rc;
    }
    fence_t *f;
    for (f = fences; f != NULL && !same_set(f, SY_CMD_FENCE, &job, 1); f = f->next)
        ;
    if (f == NULL) {
        pmix_proc_t *procs = malloc(sizeof(*procs));
        if (procs == NULL)
            return PMIX_ERR_NOMEM;
        *procs = job;
        pmix_status_t rc = sy_srv_coll_new(SY_CMD_FENCE, NULL, procs, 1, NULL, NULL, &f);
        if (rc != PMIX_SUCCESS) {
            free(procs);
            return rc;
        }
        skip_ended(f);
    }
    member_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->proc = *who;
    m->notify = notify;
    m->ctx = ctx;
    f->collect = true;
    add_member(f, m);
    return PMIX_SUCCESS;
}

bool sy_srv_coll_joined(const sy_srv_coll_t *f, const pmix_proc_t *p)
{
    for (const member_t *m = f->members; m != NULL; m = m->next)
        if (PMIX_CHECK_PROCID(&m->proc, p))
            return true;
    return false;
}

bool sy_srv_coll_remote(const sy_srv_coll_t *f)
{
    return f->remote;
}

const pmix_proc_t *sy_srv_coll_procs(const sy_srv_coll_t *f, size_t *n)
{
    *n = f->nprocs;
    return f->procs;
}

void sy_srv_coll_drop(sy_srv_coll_t *f, const pmix_proc_t *p)
{
    for (size_t i = 0; i < f->nprocs; i++) {
        if (!PMIX_CHECK_PROCID(&f->procs[i], p))
            continue;
        memmove(&f->procs[i], &f->procs[i + 1], (f->nprocs - i - 1) * sizeof(*f->procs));
        f->nprocs--;
        sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, p->nspace);
        if (ns != NULL && sy_srv_rank_local(ns, p->rank) && f->expected > 0)
            f->expected--;
        break;
    }
    if (f->arrived >= f->expected && !f->host_called)
        fence_ready(sy_srv, f);
}

void sy_srv_coll_host_called(sy_srv_coll_t *f)
{
    f->host_called = true;
}

pmix_status_t sy_srv_coll_blob(const sy_srv_coll_t *f, pmix_data_buffer_t *blob)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (sy_srv_posted_t *p = sy_srv_posted_all(); p != NULL && rc == PMIX_SUCCESS; p = p->next)
        if (sy_srv_proc_in_set(f->procs, f->nprocs, &p->proc))
            rc = sy_srv_pack_record(blob, p, false);
    return rc;
}

pmix_status_t sy_srv_coll_publish(sy_srv_coll_t *f, const void *remote, size_t nremote,
                                  sy_wire_fence_rep_t *out)
{
    if (nremote > 0 && sy_buffer_append(&f->remote_data, remote, nremote) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_srv_modex_publish(sy_srv, f->procs, f->nprocs, &f->remote_data, out);
}

void sy_srv_coll_finish(sy_srv_coll_t *f, pmix_status_t status, sy_wire_msg_id_t id,
                        const void *msg)
{
    fence_finish(f, status, id, msg);
}

/* ---- lifecycle ---- */

/* peer NULL: a member without a connection of ours, named by who. */
static void proc_gone(const sy_srv_peer_t *peer, const pmix_proc_t *who, bool finalized)
{
    /* Every fence, connect or disconnect it belongs to (as a member or an
     * expected participant) waits for it no more and ends for the others
     * with PMIX_ERR_PARTIAL_SUCCESS, whether it finalized or died (what
     * OpenPMIx 4.2.2 answers); requests it made are dropped.  The
     * collectives of other files decide for themselves, afterwards (their
     * decision may end other collectives). */
    size_t nhooked = 0;
    for (fence_t *f = fences; f != NULL; f = f->next)
        nhooked += f->ops != NULL;
    fence_t **hooked = nhooked > 0 ? calloc(nhooked, sizeof(*hooked)) : NULL;
    nhooked = 0;
    for (fence_t *f = fences, *next; f != NULL; f = next) {
        next = f->next;
        bool member = false;
        member_t **pp = &f->members;
        while (*pp != NULL) {
            member_t *m = *pp;
            if (m->peer == peer && (peer != NULL || PMIX_CHECK_PROCID(&m->proc, who))) {
                *pp = m->next;
                if (m->peer != NULL)
                    sy_srv_peer_release(m->peer);
                free(m);
                member = true;
                if (f->arrived > 0)
                    f->arrived--;
            } else {
                pp = &m->next;
            }
        }
        f->members_tail = pp;
        if (f->ops != NULL) {
            if (member || sy_srv_proc_in_set(f->procs, f->nprocs, who)) {
                if (hooked != NULL)
                    hooked[nhooked++] = f;
                else
                    fence_finish(f, PMIX_ERR_NOMEM, 0, NULL);
            }
        } else if (member || sy_srv_proc_in_set(f->procs, f->nprocs, who)) {
            depart(f);
        }
    }
    for (size_t i = 0; i < nhooked; i++) {
        fence_t *f = hooked[i];
        if (fence_alive(f) && !f->ops->gone(f, who, finalized, f->ctx))
            fence_finish(f, PMIX_PROC_TERMINATED, 0, NULL);
    }
    free(hooked);
}

void sy_srv_coll_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    proc_gone(peer, &peer->proc, finalized);
}

void sy_srv_coll_proc_gone(const pmix_proc_t *who, bool finalized)
{
    proc_gone(NULL, who, finalized);
}

void sy_srv_coll_finalize(void)
{
    while (fences != NULL)
        fence_finish(fences, PMIX_ERR_LOST_CONNECTION, 0, NULL);
}
