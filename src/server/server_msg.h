/* The wire messages of a peer's connection (wire_msgs.txt), through its codec (server_util.c). */
#ifndef SWITCHYARD_SERVER_MSG_H
#define SWITCHYARD_SERVER_MSG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"
#include "server/server_upcall.h"

/* Messages of wire_msgs.h: the codec of a peer's connection; a request
 * of it unpacked (msg zeroed first; on failure freed, and the status is
 * PMIX_ERR_UNPACK_FAILURE or PMIX_ERR_NOMEM); a reply's fields set as what
 * follows `status` in req's reply (a failure to pack them becomes the
 * status, with no field). */
const sy_wire_codec_t *sy_srv_codec(const sy_srv_peer_t *peer);
pmix_status_t sy_srv_unpack_msg(const sy_srv_peer_t *peer, pmix_data_buffer_t *b,
                                sy_wire_msg_id_t id, void *msg);
void sy_srv_req_reply(sy_srv_req_t *req, pmix_status_t status, sy_wire_msg_id_t id,
                      const void *msg);
/* Reply to request `tag` with status, then the fields of msg (reply id;
 * NULL: the status alone).  A failure to pack them is the status sent. */
void sy_srv_peer_reply_msg(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                           sy_wire_msg_id_t id, const void *msg);
/* An unsolicited message (SY_WMSG_*_MSG): its kind, then its fields. */
pmix_status_t sy_srv_peer_send_msg(sy_srv_peer_t *peer, sy_wire_msg_id_t id, const void *msg);
#endif
