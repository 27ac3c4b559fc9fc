/* The request object of host upcalls (server_upcall.c).
 *
 * Every upcall the server makes to its host (client_connected2, finalized,
 * abort, tool_connected, fence_nb, connect, disconnect, direct_modex,
 * publish, query, log, job control, spawn, IOF, events, groups, fabric,
 * credentials) is one sy_srv_req_t embedded first in the concrete
 * request, the way libuv embeds uv_req_t: a type (its name and hooks), the
 * peer it answers (held), the status and the reply.  The v1
 * client_connected alone is not: a notification Slurm never answers.  Whatever the host does, the
 * request ends exactly once, on the loop, through one path:
 *
 *   - it calls back inside the upcall, on our loop thread or any other:
 *     sy_srv_req_claim takes the ticket, sy_srv_req_post hops to the loop;
 *   - it returns an error or PMIX_OPERATION_SUCCEEDED instead:
 *     sy_srv_req_returned ends it with that status (the hooks map what
 *     OPERATION_SUCCEEDED and NOT_SUPPORTED mean for them);
 *   - it does both, or calls back twice: the ticket is taken once, the
 *     loser finds nothing and only releases what the host handed over;
 *   - the peer left meanwhile: the reply goes nowhere, the peer is
 *     released, the request freed (done hooks test sy_srv_peer_open);
 *   - the server finalized meanwhile, or the host never answers: at
 *     finalize every request still out is ended with the `gone` hook
 *     (status PMIX_ERR_INIT) and freed; a callback after that finds no
 *     ticket.  Except a request a caller of this process waits for that
 *     the host's answer can still reach without the loop (`waited_here`):
 *     it stays out, and a late answer ends it through `gone`.
 *
 * The host never sees our pointer, only a ticket number: tickets are never
 * reused, so a late callback cannot reach a newer request. */
#ifndef SWITCHYARD_SERVER_UPCALL_H
#define SWITCHYARD_SERVER_UPCALL_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

typedef struct sy_srv_req sy_srv_req_t;

typedef struct {
    const char *name; /* in log lines */
    /* On the loop, exactly once unless `gone` runs instead: act on
     * req->status.  NULL: reply req->status (OPERATION_SUCCEEDED read as
     * SUCCESS) and req->reply to the peer's request req->tag. */
    void (*done)(sy_srv_req_t *req);
    /* Instead of done, once the server is finalizing (any thread, or the
     * loop inside finalize): a requester of this process still hears of
     * it (req->status: the host's answer, or PMIX_ERR_INIT when it never
     * came); req->peer must not be touched.  NULL: nothing to tell. */
    void (*gone)(sy_srv_req_t *req);
    /* Copy what the host answered while it is valid (any thread, before
     * the post): for sy_srv_req_info_done.  NULL: the infos are ignored. */
    void (*take)(sy_srv_req_t *req, const pmix_info_t info[], size_t ninfo);
    /* Its own fields and itself (reply destructed, peer released). */
    void (*free)(sy_srv_req_t *req);
} sy_srv_req_type_t;

struct sy_srv_req {
    const sy_srv_req_type_t *type;
    sy_srv_peer_t *peer; /* held until it ends; NULL: the library's own */
    uint32_t tag;        /* the peer's request answered by default */
    pmix_status_t status;
    pmix_data_buffer_t reply; /* what follows the status in the default reply */
    bool waited_here;         /* see above: kept out with the host at finalize */
    /* A callback whose data stays the host's until its release_fn (the
     * modex callbacks: no copy) sets these; the release is called once the
     * request ended (on the loop after done, or later after gone), never
     * on the host's thread. */
    pmix_release_cbfunc_t release_fn;
    void *release_cbdata;
    /* private: the ticket and the table of requests out with the host */
    uintptr_t id;
    struct sy_srv_req *next;
};

/* On the loop: fill the header (peer, when not NULL, is held). */
void sy_srv_req_init(sy_srv_req_t *req, const sy_srv_req_type_t *type, sy_srv_peer_t *peer,
                     uint32_t tag);
/* On the loop, just before the upcall: the cbdata to give the host. */
void *sy_srv_req_ticket(sy_srv_req_t *req);
/* Any thread, in the host's callback: the request, or NULL when it was
 * ended already (then do nothing but release what the host handed over). */
sy_srv_req_t *sy_srv_req_claim(void *cbdata);
/* Any thread, after a claim: end it on the loop (or, with the server
 * gone, with the `gone` hook here). */
void sy_srv_req_post(sy_srv_req_t *req);
/* On the loop, right after the upcall: PMIX_SUCCESS leaves it to the
 * callback; anything else ends it now with rc as the status, unless the
 * callback came first.  True when it was ended here. */
bool sy_srv_req_returned(sy_srv_req_t *req, pmix_status_t rc);
/* On the loop, after an upcall that returned an error, for a caller that
 * returns the error instead of ending the request: true when the ticket
 * was taken back (the callback will not come; the request is the caller's
 * to free), false when the callback came first and has it. */
bool sy_srv_req_cancel(sy_srv_req_t *req);
/* On the loop, before or without an upcall: end it now with status. */
void sy_srv_req_complete(sy_srv_req_t *req, pmix_status_t status);
/* Any thread, for a request never handed to the host whose owner learns
 * the server is gone: the `gone` hook, then freed (the peer untouched). */
void sy_srv_req_gone(sy_srv_req_t *req);
/* Ready-made callbacks: a pmix_op_cbfunc_t, and a pmix_info_cbfunc_t that
 * passes the infos to the `take` hook and releases them on the loop. */
void sy_srv_req_op_done(pmix_status_t status, void *cbdata);
void sy_srv_req_info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata);
/* stop_on_loop, first thing: every request still out with the host ends
 * with `gone` and is freed. */
void sy_srv_reqs_finalize(void);

/* A host's release_fn, called on the loop once its callback returned
 * (never on the host's thread: it may hold the lock release_fn takes). */
void sy_srv_release_later(pmix_release_cbfunc_t fn, void *cbdata);

/* A host completion: run done(arg) on the loop, unless the server is
 * gone, in which case drop(arg) frees it on the calling thread. */
void sy_srv_post_or_drop(sy_progress_fn_t done, sy_progress_fn_t drop, void *arg);
#endif
