/* Direct modex: a client's DMODEX request for a key of a process whose
 * data was not exchanged in a fence, held until that process commits; the
 * host's direct_modex upcall for a process on another node; and the
 * host's PMIx_server_dmodex_request for one of ours.  Loop only. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/info.h"
#include "common/log.h"
#include "common/pack.h"
#include "server/server_group.h"
#include "server/server_internal.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"
#include "server/server_modex.h"
#include "server/server_msg.h"
#include "server/server_opx.h"

typedef struct waiter {
    sy_srv_peer_t *peer; /* NULL: a host's dmodex_request */
    uint32_t tag;
    pmix_proc_t target;
    char *key; /* NULL: the whole record (host request) */
    pmix_dmodex_response_fn_t hostcb;
    void *hostcbdata;
    sy_timer_t *timer;
    struct waiter *next;
} waiter_t;

static waiter_t *waiters;

static void waiter_free(waiter_t *w)
{
    if (w->timer != NULL)
        sy_timer_cancel(w->timer);
    free(w->key);
    free(w);
}

static void unlist_waiter(waiter_t *w)
{
    for (waiter_t **pp = &waiters; *pp != NULL; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            return;
        }
}

/* Answer a waiting client with (owner, value), or the host with a blob. */
static void waiter_answer(waiter_t *w, pmix_status_t status, const sy_srv_posted_t *p,
                          const sy_srv_kv_t *k)
{
    unlist_waiter(w);
    if (w->peer == NULL) {
        pmix_data_buffer_t blob = {0};
        if (status == PMIX_SUCCESS)
            status = sy_srv_pack_record(&blob, p, false);
        if (w->hostcb != NULL)
            w->hostcb(status, blob.base_ptr, blob.bytes_used, w->hostcbdata);
        sy_buffer_destruct(&blob);
    } else {
        /* the struct only lends the value to the codec */
        sy_wire_dmodex_rep_t rep = {0};
        if (status == PMIX_SUCCESS) {
            rep.owner = p->proc;
            rep.key = w->key;
            rep.value = k->val;
        }
        sy_srv_peer_reply_msg(w->peer, w->tag, status, SY_WMSG_DMODEX_REP,
                              status == PMIX_SUCCESS ? &rep : NULL);
        sy_srv_peer_release(w->peer);
    }
    waiter_free(w);
}

/* Try to answer w from committed data; true when it was answered. */
static bool waiter_try(waiter_t *w)
{
    if (w->key == NULL) {
        sy_srv_posted_t *p = sy_srv_posted_find(&w->target, false);
        if (p == NULL || !p->committed)
            return false;
        waiter_answer(w, PMIX_SUCCESS, p, NULL);
        return true;
    }
    for (sy_srv_posted_t *p = sy_srv_posted_all(); p != NULL; p = p->next) {
        if (!PMIX_CHECK_NSPACE(p->proc.nspace, w->target.nspace) ||
            (w->target.rank != PMIX_RANK_UNDEF && p->proc.rank != w->target.rank))
            continue;
        const sy_srv_kv_t *k = sy_srv_kv_find(p, w->key);
        if (k != NULL && k->scope != PMIX_REMOTE) {
            waiter_answer(w, PMIX_SUCCESS, p, k);
            return true;
        }
        if (k != NULL) {
            waiter_answer(w, PMIX_ERR_EXISTS_OUTSIDE_SCOPE, p, NULL);
            return true;
        }
        /* a key not posted yet may still come, until the process is gone */
        if (p->gone && w->target.rank != PMIX_RANK_UNDEF) {
            waiter_answer(w, PMIX_ERR_NOT_FOUND, p, NULL);
            return true;
        }
    }
    return false;
}

void sy_srv_dmodex_poke(const pmix_proc_t *proc)
{
    for (waiter_t *w = waiters, *next; w != NULL; w = next) {
        next = w->next;
        if (PMIX_CHECK_NSPACE(w->target.nspace, proc->nspace) &&
            (w->target.rank == PMIX_RANK_UNDEF || w->target.rank == proc->rank))
            waiter_try(w);
    }
}

static void waiter_timeout(void *arg)
{
    waiter_t *w = arg;
    if (w->timer != NULL) {
        sy_timer_cancel(w->timer);
        w->timer = NULL;
    }
    waiter_answer(w, PMIX_ERR_TIMEOUT, NULL, NULL);
}

typedef struct {
    sy_srv_req_t req; /* first */
    char *key;
    pmix_data_buffer_t blob;
    pmix_proc_t target; /* given to the host: ours until it calls back */
    pmix_info_t *info;  /* the client's directives + PMIX_REQUIRED_KEY */
    size_t ninfo;
    sy_srv_dmodex_fn own_done; /* the library's own request (no peer) */
    void *own_arg;
} host_dmx_t;

static void host_dmx_free(sy_srv_req_t *req)
{
    host_dmx_t *h = (host_dmx_t *)req;
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    free(h->key);
    sy_buffer_destruct(&h->blob);
    free(h);
}

/* The owner node's record: find our key in it and answer.  "Done at
 * once" from the host has no record: not found. */
static void host_dmx_done(sy_srv_req_t *req)
{
    host_dmx_t *h = (host_dmx_t *)req;
    pmix_status_t status =
        req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : req->status;
    sy_wire_dmodex_rep_t rep = {0};
    bool found = false;
    while (status == PMIX_SUCCESS && !found && sy_buffer_remaining(&h->blob) > 0) {
        pmix_proc_t p;
        size_t n = 0;
        int32_t one = 1;
        status = sy_unpack(&h->blob, &p, &one, PMIX_PROC);
        one = 1;
        if (status == PMIX_SUCCESS)
            status = sy_unpack(&h->blob, &n, &one, PMIX_SIZE);
        for (size_t i = 0; status == PMIX_SUCCESS && i < n && !found; i++) {
            uint8_t scope;
            char *key = NULL;
            pmix_value_t v;
            memset(&v, 0, sizeof(v));
            one = 1;
            status = sy_unpack(&h->blob, &scope, &one, PMIX_UINT8);
            one = 1;
            if (status == PMIX_SUCCESS)
                status = sy_unpack(&h->blob, &key, &one, PMIX_STRING);
            one = 1;
            if (status == PMIX_SUCCESS)
                status = sy_unpack(&h->blob, &v, &one, PMIX_VALUE);
            if (status == PMIX_SUCCESS && key != NULL && strcmp(key, h->key) == 0) {
                found = true;
                rep.owner = p;
                rep.key = key; /* taken, like the value */
                key = NULL;
                rep.value = v; /* taken */
                memset(&v, 0, sizeof(v));
            }
            free(key);
            sy_value_destruct(&v);
        }
    }
    if (h->own_done != NULL)
        h->own_done(found                    ? PMIX_SUCCESS
                    : status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND
                                             : status,
                    found ? &rep.value : NULL, h->own_arg);
    else if (found)
        sy_srv_peer_reply_msg(req->peer, req->tag, PMIX_SUCCESS, SY_WMSG_DMODEX_REP, &rep);
    else
        sy_srv_peer_reply_status(req->peer, req->tag,
                                 status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : status);
    sy_wire_dmodex_rep_free(&rep);
}

static const sy_srv_req_type_t dmx_type = {
    .name = "direct_modex", .done = host_dmx_done, .free = host_dmx_free};

/* The server goes while the library's own request is out: its owner
 * frees what it holds (PMIX_ERR_INIT; maybe not on the loop). */
static void own_dmx_gone(sy_srv_req_t *req)
{
    host_dmx_t *h = (host_dmx_t *)req;
    h->own_done(PMIX_ERR_INIT, NULL, h->own_arg);
}

static const sy_srv_req_type_t own_dmx_type = {
    .name = "direct_modex", .done = host_dmx_done, .gone = own_dmx_gone, .free = host_dmx_free};

static void host_dmx_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                        pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    host_dmx_t *h = (host_dmx_t *)sy_srv_req_claim(cbdata);
    if (h != NULL) {
        h->req.status = status;
        if (status == PMIX_SUCCESS && data != NULL && ndata > 0 &&
            sy_buffer_append(&h->blob, data, ndata) != PMIX_SUCCESS)
            h->req.status = PMIX_ERR_NOMEM;
    }
    /* copied: the host's buffer goes back to it once this returned */
    sy_srv_release_later(release_fn, release_cbdata);
    if (h != NULL)
        sy_srv_req_post(&h->req);
}

/* What the host's direct_modex gets: every directive of the client (its
 * PMIX_TIMEOUT among them) and the key wanted, as PMIX_REQUIRED_KEY
 * (Chap_API_Server.tex; OpenPMIx 4.2.2 tells hosts the same). */
static pmix_status_t host_dmx_infos(host_dmx_t *h, const char *key, const pmix_info_t *info,
                                    size_t ninfo)
{
    PMIX_INFO_CREATE(h->info, ninfo + 1);
    if (h->info == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (!sy_info_is(&info[i], PMIX_REQUIRED_KEY) &&
            PMIx_Info_xfer(&h->info[k], &info[i]) == PMIX_SUCCESS)
            k++;
    PMIX_INFO_LOAD(&h->info[k], PMIX_REQUIRED_KEY, key, PMIX_STRING);
    h->ninfo = k + 1;
    return PMIX_SUCCESS;
}

void sy_srv_dmodex_command(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_wire_dmodex_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_DMODEX_REQ, &m);
    /* the key and directives are taken from the message */
    pmix_proc_t target = m.proc;
    char *key = m.key;
    pmix_info_t *info = m.info;
    size_t ninfo = m.ninfo;
    if (rc == PMIX_SUCCESS && key == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    sy_srv_nspace_t *ns = rc == PMIX_SUCCESS ? sy_srv_nspace_find(s, target.nspace) : NULL;
    if (rc == PMIX_SUCCESS && ns == NULL)
        rc = PMIX_ERR_NOT_FOUND;
    double t = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_info_timeout(info, ninfo, &t);
    /* an OpenPMIx client's Get qualified by a group's context id
     * (PMIX_GROUP_INFO, server_group_info.c) */
    if (rc == PMIX_SUCCESS && peer->opx &&
        sy_srv_group_info_get(peer, tag, &target, key, info, ninfo)) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        free(key);
        return;
    }
    /* an OpenPMIx client asks for a reserved key it was not given at
     * init (its PMIX_PARENT_ID; any key of a job it spawned): from the
     * job's data, wherever the rank runs; or for a key a fence collected:
     * a batch of records from the modex segments (server_opx.c) */
    if (rc == PMIX_SUCCESS && peer->opx &&
        (sy_srv_opx_job_value(peer, tag, &target, key) ||
         sy_srv_opx_modex_value(peer, tag, &target, key))) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        free(key);
        return;
    }
    /* PMIX_IMMEDIATE: what this server holds now, never the host's */
    bool immediate = rc == PMIX_SUCCESS && sy_info_flag(info, ninfo, PMIX_IMMEDIATE);
    bool remote =
        rc == PMIX_SUCCESS && target.rank != PMIX_RANK_UNDEF && !sy_srv_rank_local(ns, target.rank);
    if (rc == PMIX_SUCCESS && remote && (immediate || s->module.direct_modex == NULL))
        rc = PMIX_ERR_NOT_FOUND;
    if (rc != PMIX_SUCCESS) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        free(key);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    if (remote) {
        /* another node's process: its server answers through our host */
        host_dmx_t *h = calloc(1, sizeof(*h));
        if (h == NULL || host_dmx_infos(h, key, info, ninfo) != PMIX_SUCCESS) {
            if (info != NULL)
                PMIX_INFO_FREE(info, ninfo);
            free(key);
            free(h);
            sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
            return;
        }
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        sy_srv_req_init(&h->req, &dmx_type, peer, tag);
        h->key = key;
        h->target = target;
        sy_srv_req_returned(&h->req,
                            s->module.direct_modex(&h->target, h->info, h->ninfo, host_dmx_cb,
                                                   sy_srv_req_ticket(&h->req)));
        return;
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        free(key);
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    w->peer = peer;
    w->tag = tag;
    w->target = target;
    w->key = key;
    sy_srv_peer_hold(peer);
    w->next = waiters;
    waiters = w;
    if (waiter_try(w))
        return;
    if (immediate) {
        waiter_answer(w, PMIX_ERR_NOT_FOUND, NULL, NULL);
        return;
    }
    /* held until the target commits, dies, or the timeout passes */
    if (t > 0)
        sy_progress_timer(s->progress, t, waiter_timeout, w, &w->timer);
}

pmix_status_t sy_srv_dmodex_ask(const pmix_proc_t *target, const char *key, sy_srv_dmodex_fn done,
                                void *arg)
{
    sy_srv_t *s = sy_srv;
    if (s->module.direct_modex == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    host_dmx_t *h = calloc(1, sizeof(*h));
    if (h == NULL || (h->key = strdup(key)) == NULL ||
        host_dmx_infos(h, key, NULL, 0) != PMIX_SUCCESS) {
        if (h != NULL) {
            free(h->key);
            free(h);
        }
        return PMIX_ERR_NOMEM;
    }
    sy_srv_req_init(&h->req, &own_dmx_type, NULL, 0);
    h->target = *target;
    h->own_done = done;
    h->own_arg = arg;
    sy_srv_req_returned(&h->req, s->module.direct_modex(&h->target, h->info, h->ninfo, host_dmx_cb,
                                                        sy_srv_req_ticket(&h->req)));
    return PMIX_SUCCESS;
}

/* ---- lifecycle ---- */

/* peer NULL: a process without a connection of ours, named by who */
static void proc_gone(const sy_srv_peer_t *peer, const pmix_proc_t *who, bool finalized)
{
    for (waiter_t *w = waiters, *next; w != NULL; w = next) {
        next = w->next;
        if (peer != NULL && w->peer == peer) {
            unlist_waiter(w);
            sy_srv_peer_release(w->peer);
            waiter_free(w);
        } else if (PMIX_CHECK_PROCID(&w->target, who)) {
            if (finalized)
                waiter_try(w); /* answered NOT_FOUND unless the key is there */
            else
                waiter_answer(w, PMIX_PROC_TERMINATED, NULL, NULL);
        }
    }
}

void sy_srv_dmodex_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    proc_gone(peer, &peer->proc, finalized);
}

void sy_srv_dmodex_proc_gone(const pmix_proc_t *who, bool finalized)
{
    proc_gone(NULL, who, finalized);
}

void sy_srv_dmodex_finalize(void)
{
    while (waiters != NULL)
        waiter_answer(waiters, PMIX_ERR_LOST_CONNECTION, NULL, NULL);
}

/* ---- PMIx_server_dmodex_request ---- */

typedef struct {
    pmix_proc_t proc;
    pmix_dmodex_response_fn_t cbfunc;
    void *cbdata;
} dmx_req_t;

static void dmodex_request_on_loop(void *arg)
{
    dmx_req_t *r = arg;
    waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        r->cbfunc(PMIX_ERR_NOMEM, NULL, 0, r->cbdata);
        free(r);
        return;
    }
    w->target = r->proc;
    w->hostcb = r->cbfunc;
    w->hostcbdata = r->cbdata;
    w->next = waiters;
    waiters = w;
    free(r);
    waiter_try(w); /* else held until the process commits */
}

PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc, void *cbdata)
{
    if (proc == NULL || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    dmx_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->proc = *proc;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    pmix_status_t rc = sy_srv_post(dmodex_request_on_loop, r);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}
