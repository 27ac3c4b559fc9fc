/* The local fence (server_lfence.c, common/lfence_page.h): fences over the
 * whole namespace of a job that lives on this node alone meet in a page
 * shared with the namespace's clients.  Loop only. */
#ifndef SWITCHYARD_SERVER_LFENCE_H
#define SWITCHYARD_SERVER_LFENCE_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "server/server_coll.h"
#include "server/server_internal.h"

/* Do procs name one whole namespace whose fences meet in its page? */
bool sy_srv_lfence_whole(const pmix_proc_t *procs, size_t n);
/* Count who (peer's request tag, or notify(status, ctx) for a process
 * without a connection of ours) into the current fence of nspace; it is
 * answered when the generation ends.  PMIX_ERR_NOT_SUPPORTED: the
 * namespace has no page (take the collective engine). */
pmix_status_t sy_srv_lfence_join(const char *nspace, sy_srv_peer_t *peer, uint32_t tag,
                                 const pmix_proc_t *who, sy_srv_coll_notify_fn notify, void *ctx,
                                 bool collect, double timeout);
/* LFENCE: op 0 maps the page, op 1 ends a complete generation. */
void sy_srv_lfence_command(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b);
/* who's posted data changed (sy_srv_posted_put): a reply published ahead
 * no longer holds everything.  Before the change is acknowledged. */
void sy_srv_lfence_data_changed(const pmix_proc_t *who);
/* who committed (after its data went in): when every expected member has
 * since the last publication, the data is published ahead.  Before the
 * commit is acknowledged. */
void sy_srv_lfence_committed(const pmix_proc_t *who);
/* A member left (its connection, or a process without one). */
void sy_srv_lfence_peer_gone(const sy_srv_peer_t *peer);
void sy_srv_lfence_proc_gone(const pmix_proc_t *who);
/* The namespace (NULL: every one) is gone: its page too. */
void sy_srv_lfence_nspace_gone(const char *nspace);
/* Arrivals the server counted in for clients (tests, debug). */
unsigned long sy_srv_lfence_server_arrivals(void);
#endif
