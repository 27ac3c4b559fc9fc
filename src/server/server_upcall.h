/* Host upcalls: tickets, and the request object every upcall for a peer uses (server_upcall.c,
 * server_util.c). */
#ifndef SWITCHYARD_SERVER_UPCALL_H
#define SWITCHYARD_SERVER_UPCALL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* Upcall tickets.
 * The cbdata a host upcall gets is a ticket, never the request itself:
 * hosts may call back inside the upcall, from any thread, never, or also
 * after returning an error or PMIX_OPERATION_SUCCEEDED.  Embed a
 * sy_srv_upcall_t in the request; pass sy_srv_upcall_ticket(&r->up, r) as
 * cbdata; in the callback, sy_srv_upcall_claim(cbdata) gives the request,
 * or NULL when it was ended already (then do nothing but release what the
 * host handed over); after the upcall, sy_srv_upcall_returned(&r->up, rc)
 * is true when the caller must end the request itself with rc (the
 * callback will not come or already lost the race). */
typedef struct sy_srv_upcall {
    uintptr_t id;
    void *req;
    struct sy_srv_upcall *next;
} sy_srv_upcall_t;
void *sy_srv_upcall_ticket(sy_srv_upcall_t *u, void *req);
void *sy_srv_upcall_claim(void *ticket);
bool sy_srv_upcall_returned(sy_srv_upcall_t *u, pmix_status_t rc);
/* A host's release_fn, called on the loop once its callback returned
 * (never on the host's thread: it may hold the lock release_fn takes). */
void sy_srv_release_later(pmix_release_cbfunc_t fn, void *cbdata);

/* A peer's request handed to a host upcall.  Embed it first in a malloc'd
 * request struct; sy_srv_req_init holds the peer.  The host's callback (any
 * thread) sets status and reply, then calls sy_srv_req_post (or passes
 * sy_srv_req_op_done as a pmix_op_cbfunc_t); on the loop, or at once where
 * the upcall returned its answer, sy_srv_req_finish replies with the status
 * followed by reply, releases the peer and frees the request with free_fn
 * (its own fields and itself; reply is destructed already).  A server gone
 * meanwhile only frees it. */
typedef struct sy_srv_req {
    sy_srv_upcall_t up; /* cbdata for the host: sy_srv_req_ticket */
    sy_srv_peer_t *peer;
    uint32_t tag;
    pmix_status_t status;
    pmix_data_buffer_t reply; /* what follows the status */
    void (*free_fn)(struct sy_srv_req *req);
} sy_srv_req_t;
void sy_srv_req_init(sy_srv_req_t *req, sy_srv_peer_t *peer, uint32_t tag,
                     void (*free_fn)(sy_srv_req_t *req));
void sy_srv_req_post(sy_srv_req_t *req);
/* The cbdata to give the host's upcall; its callback claims it
 * (sy_srv_upcall_claim); sy_srv_req_op_done does. */
void *sy_srv_req_ticket(sy_srv_req_t *req);
void sy_srv_req_op_done(pmix_status_t status, void *cbdata);
void sy_srv_req_finish(sy_srv_req_t *req);

/* A host completion: run done(arg) on the loop, unless the server is
 * gone, in which case drop(arg) frees it on the calling thread. */
void sy_srv_post_or_drop(sy_progress_fn_t done, sy_progress_fn_t drop, void *arg);
#endif
