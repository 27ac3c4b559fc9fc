/* The request object of host upcalls and its tickets (server_upcall.h).
 *
 * Hosts complete upcalls in every way the field has seen: inside the
 * upcall, on our own loop thread (Slurm's last local fence contributor,
 * holding a lock its release_fn takes); later from any thread; never
 * (v1 upcalls); and on some error paths both with a callback and an error
 * return (Slurm's fence_nb and direct_modex).  So the host never gets a
 * pointer to our request as its cbdata, only a ticket number: the
 * callback and the caller's handling of the return race to take the
 * ticket out of this table, and whoever loses finds nothing and does
 * nothing.  Tickets are never reused, so a late callback cannot reach a
 * newer request; the ones still in the table at finalize are the
 * requests the host never answered, ended there. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/buffer.h"
#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_peer.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

#define NBUCKETS 64

/* The requests out with the host, by ticket; never-reused numbers. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t last_id;

/* ---- the request object ---- */

static sy_srv_req_t *reqs[NBUCKETS]; /* under `lock` */

void sy_srv_req_init(sy_srv_req_t *req, const sy_srv_req_type_t *type, sy_srv_peer_t *peer,
                     uint32_t tag)
{
    req->type = type;
    req->peer = peer;
    req->tag = tag;
    req->status = PMIX_SUCCESS;
    req->waited_here = false;
    req->release_fn = NULL;
    req->release_cbdata = NULL;
    req->id = 0;
    req->next = NULL;
    if (peer != NULL)
        sy_srv_peer_hold(peer);
}

void *sy_srv_req_ticket(sy_srv_req_t *req)
{
    pthread_mutex_lock(&lock);
    req->id = ++last_id;
    sy_srv_req_t **b = &reqs[req->id % NBUCKETS];
    req->next = *b;
    *b = req;
    pthread_mutex_unlock(&lock);
    return (void *)req->id;
}

static sy_srv_req_t *req_take(uintptr_t id)
{
    sy_srv_req_t *req = NULL;
    pthread_mutex_lock(&lock);
    for (sy_srv_req_t **pp = &reqs[id % NBUCKETS]; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            req = *pp;
            *pp = req->next;
            req->next = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return req;
}

sy_srv_req_t *sy_srv_req_claim(void *cbdata)
{
    return req_take((uintptr_t)cbdata);
}

static void req_free(sy_srv_req_t *req)
{
    sy_buffer_destruct(&req->reply);
    req->type->free(req);
}

/* The one end of a request on the loop. */
static void req_end(sy_srv_req_t *req)
{
    if (req->type->done != NULL) {
        req->type->done(req);
    } else if (req->peer != NULL && req->tag != 0) {
        pmix_status_t st = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
        sy_srv_peer_reply_with(req->peer, req->tag, st, &req->reply);
    }
    if (req->peer != NULL)
        sy_srv_peer_release(req->peer);
    /* on the loop, the host's callback has returned */
    pmix_release_cbfunc_t release_fn = req->release_fn;
    void *release_cbdata = req->release_cbdata;
    req_free(req);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

static void req_end_on_loop(void *arg)
{
    req_end(arg);
}

/* The server is gone or going: nobody on the loop to answer, and its peers
 * are freed with it. */
static void req_gone(sy_srv_req_t *req)
{
    if (req->type->gone != NULL)
        req->type->gone(req);
    pmix_release_cbfunc_t release_fn = req->release_fn;
    void *release_cbdata = req->release_cbdata;
    req_free(req);
    /* maybe in the host's callback, which may hold the lock it takes */
    sy_srv_release_later(release_fn, release_cbdata);
}

static void req_gone_now(void *arg)
{
    req_gone(arg);
}

void sy_srv_req_gone(sy_srv_req_t *req)
{
    req_gone(req);
}

void sy_srv_req_post(sy_srv_req_t *req)
{
    sy_srv_post_or_drop(req_end_on_loop, req_gone_now, req);
}

bool sy_srv_req_returned(sy_srv_req_t *req, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS)
        return false; /* the callback ends it, now or later */
    /* An error, or done at once: the callback is not expected.  If it came
     * anyway, inside the upcall, it has the request already. */
    if (!sy_srv_req_cancel(req))
        return false;
    sy_srv_req_complete(req, rc);
    return true;
}

bool sy_srv_req_cancel(sy_srv_req_t *req)
{
    return req_take(req->id) != NULL;
}

void sy_srv_req_complete(sy_srv_req_t *req, pmix_status_t status)
{
    req->status = status;
    req_end(req);
}

void sy_srv_req_op_done(pmix_status_t status, void *cbdata)
{
    sy_srv_req_t *req = sy_srv_req_claim(cbdata);
    if (req == NULL)
        return; /* ended already: late, twice, or after finalize */
    req->status = status;
    sy_srv_req_post(req);
}

void sy_srv_req_info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    sy_srv_req_t *req = sy_srv_req_claim(cbdata);
    if (req != NULL) {
        req->status = status;
        if (req->type->take != NULL && info != NULL && ninfo > 0)
            req->type->take(req, info, ninfo);
    }
    sy_srv_release_later(release_fn, release_cbdata);
    if (req != NULL)
        sy_srv_req_post(req);
}

void sy_srv_reqs_finalize(void)
{
    sy_srv_req_t *all = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < NBUCKETS; i++) {
        for (sy_srv_req_t **pp = &reqs[i]; *pp != NULL;) {
            sy_srv_req_t *req = *pp;
            if (req->waited_here) {
                pp = &req->next;
                continue;
            }
            *pp = req->next;
            req->next = all;
            all = req;
        }
    }
    pthread_mutex_unlock(&lock);
    size_t n = 0;
    while (all != NULL) {
        sy_srv_req_t *req = all;
        all = req->next;
        req->next = NULL;
        req->status = PMIX_ERR_INIT;
        req_gone(req);
        n++;
    }
    if (n > 0)
        sy_log(SY_LOG_DEBUG, "PMIx_server_finalize: %zu host upcall(s) never answered", n);
}

typedef struct {
    pmix_release_cbfunc_t fn;
    void *cbdata;
} release_t;

static void release_on_loop(void *arg)
{
    release_t *r = arg;
    r->fn(r->cbdata);
    free(r);
}

static void *release_thread(void *arg)
{
    release_on_loop(arg);
    return NULL;
}

void sy_srv_release_later(pmix_release_cbfunc_t fn, void *cbdata)
{
    if (fn == NULL)
        return;
    release_t *r = malloc(sizeof(*r));
    if (r == NULL) {
        sy_log(SY_LOG_WARN, "server: out of memory: a host release function is not called");
        return;
    }
    r->fn = fn;
    r->cbdata = cbdata;
    if (sy_srv_post(release_on_loop, r) == PMIX_SUCCESS)
        return;
    /* No loop (the server is gone): still never on the host's own thread,
     * which may be inside the callback holding the lock fn takes. */
    pthread_t t;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int err = pthread_create(&t, &attr, release_thread, r);
        pthread_attr_destroy(&attr);
        if (err == 0)
            return;
    }
    sy_log(SY_LOG_WARN, "server: no thread for a host release function: not called");
    free(r);
}
