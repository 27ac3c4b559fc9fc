/* Connections of clients and tools: replies, holds, the HELLO outcome (server_peer.c). */
#ifndef SWITCHYARD_SERVER_PEER_H
#define SWITCHYARD_SERVER_PEER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_peer_accept(sy_srv_t *s, int fd, bool tcp);
void sy_srv_peers_close_all(sy_srv_t *s);
/* A connected client whose registration is withdrawn. */
void sy_srv_peer_forget_client(sy_srv_client_t *c);
/* For the command files: reply to request `tag` with a packed body that
 * starts with a PMIX_STATUS (buf is taken and left empty), or with a bare
 * status; send an unsolicited message (tag 0, body starts with a sy_msg_t
 * kind).  All are no-ops on a closed peer. */
void sy_srv_peer_reply(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *buf);
void sy_srv_peer_reply_status(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status);
/* The status followed by the bytes of rest (NULL or empty: nothing). */
void sy_srv_peer_reply_with(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                            const pmix_data_buffer_t *rest);
/* The same with descriptor fd riding on the reply (SY_FRAME_F_FD): a
 * client of ours on a UNIX socket, asked on its main connection.  fd is
 * taken.  PMIX_SUCCESS when it was queued; else nothing was sent (the
 * caller answers otherwise). */
pmix_status_t sy_srv_peer_reply_fd(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                                   const pmix_data_buffer_t *rest, int fd);
pmix_status_t sy_srv_peer_send(sy_srv_peer_t *peer, pmix_data_buffer_t *buf);
/* The same on an unsolicited channel of its own (OpenPMIx's IOF: 2). */
pmix_status_t sy_srv_peer_send_tagged(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *buf);
/* Keep a peer's memory valid while an operation on its behalf is pending
 * (it may close meanwhile: test sy_srv_peer_open before using it). */
void sy_srv_peer_hold(sy_srv_peer_t *peer);
void sy_srv_peer_release(sy_srv_peer_t *peer);
bool sy_srv_peer_open(const sy_srv_peer_t *peer);
/* For the HELLO of tools (server_tool.c): refuse and close; welcome (the
 * peer is READY; `assigned` is appended for a tool); the identity is
 * checked, the host's answer pending; is it still pending? */
void sy_srv_peer_refuse(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                        const char *reason);
void sy_srv_peer_welcome(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *assigned);
void sy_srv_peer_authenticated(sy_srv_peer_t *peer);
/* An authenticated client's connection: the host's client_connected(2)
 * upcall (info, malloc'd, is taken), then welcome or refusal. */
void sy_srv_peer_connect(sy_srv_peer_t *peer, uint32_t tag, sy_srv_client_t *c, pmix_info_t *info,
                         size_t ninfo);
bool sy_srv_peer_awaiting_host(const sy_srv_peer_t *peer);
/* Constant-time comparison of a presented token with ours. */
bool sy_srv_token_matches(const char *given, const char *expected);
#endif
