/* Collectives among processes of this node and others: FENCE, CONNECT and
 * DISCONNECT requests, and the group operations of server_group.c. */
#ifndef SWITCHYARD_SERVER_COLL_H
#define SWITCHYARD_SERVER_COLL_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "server/server_internal.h"

/* The collective engine (server_coll.c), which the group operations drive too.
 * The fence tracker, completed the way the caller decides.  A collective
 * is named by (kind, key); procs are its participants (taken).  Once every
 * local participant joined, ops->ready(c) runs: the caller then ends it
 * with sy_srv_coll_finish, which replies to every joined peer with the
 * status and a reply message (may be NULL) and frees it.  When a participant ends
 * first (joined or not; finalized tells how), ops->gone decides: true means
 * it was dealt with (typically sy_srv_coll_drop), false fails the
 * collective with PMIX_PROC_TERMINATED.  ops->timeout (optional) replaces
 * the PMIX_ERR_TIMEOUT failure; ops->done(ctx) runs when it is freed.
 * ready may run inside sy_srv_coll_join and sy_srv_coll_drop: the
 * collective may be gone when they return. */
typedef struct sy_srv_coll sy_srv_coll_t;
typedef struct {
    void (*ready)(sy_srv_coll_t *c, void *ctx);
    bool (*gone)(sy_srv_coll_t *c, const pmix_proc_t *who, bool finalized, void *ctx);
    void (*timeout)(sy_srv_coll_t *c, void *ctx);
    void (*done)(void *ctx);
} sy_srv_coll_ops_t;
pmix_status_t sy_srv_coll_new(uint8_t kind, const char *key, pmix_proc_t *procs, size_t nprocs,
                              const sy_srv_coll_ops_t *ops, void *ctx, sy_srv_coll_t **out);
sy_srv_coll_t *sy_srv_coll_find(uint8_t kind, const char *key);
pmix_status_t sy_srv_coll_join(sy_srv_coll_t *c, sy_srv_peer_t *peer, uint32_t tag);
void sy_srv_coll_set_timeout(sy_srv_coll_t *c, double seconds);
bool sy_srv_coll_joined(const sy_srv_coll_t *c, const pmix_proc_t *p);
bool sy_srv_coll_remote(const sy_srv_coll_t *c);
const pmix_proc_t *sy_srv_coll_procs(const sy_srv_coll_t *c, size_t *n);
/* A process of ours with no PMIx connection (a PMI wire client,
 * server_pmi.h) joins the fence of its whole job with PMIX_COLLECT_DATA,
 * the one its PMIx peers join with PMIx_Fence(NULL, 0); notify(status,
 * ctx) tells it the outcome.  Its end: sy_srv_coll_proc_gone. */
typedef void (*sy_srv_coll_notify_fn)(pmix_status_t status, void *ctx);
pmix_status_t sy_srv_coll_fence_job(const pmix_proc_t *who, sy_srv_coll_notify_fn notify,
                                    void *ctx);
void sy_srv_coll_proc_gone(const pmix_proc_t *who, bool finalized);
/* A participant that will not join: one less to wait for. */
void sy_srv_coll_drop(sy_srv_coll_t *c, const pmix_proc_t *p);
/* The host has the collective now: no local completion any more. */
void sy_srv_coll_host_called(sy_srv_coll_t *c);
/* This node's contribution: the participants' REMOTE and GLOBAL posted
 * data, in the fence blob's format. */
pmix_status_t sy_srv_coll_blob(const sy_srv_coll_t *c, pmix_data_buffer_t *blob);
/* Publish the participants' posted data plus the records of `remote`
 * (other nodes', from the host) as modex segments; out receives the
 * segments to map and those retired (sy_wire_fence_rep_free it). */
pmix_status_t sy_srv_coll_publish(sy_srv_coll_t *c, const void *remote, size_t nremote,
                                  sy_wire_fence_rep_t *out);
/* Reply status and msg (a reply of id, packed with each peer's codec;
 * NULL: the status alone) to every joined peer, and free c. */
void sy_srv_coll_finish(sy_srv_coll_t *c, pmix_status_t status, sy_wire_msg_id_t id,
                        const void *msg);
#endif
