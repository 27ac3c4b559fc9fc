/* The messages of our wire protocol (docs/wire-protocol.md), carried in the
 * frames of frame.h.  Shared by every role, so that client, server and tool
 * agree on one definition.
 *
 * Every body is a packed pmix_data_buffer_t (pack.h).  A request's first
 * item is its command (PMIX_UINT8).  The requester picks a tag unique among
 * its outstanding requests on that connection (1..UINT32_MAX); the reply
 * carries the same tag and SY_WIRE_F_REPLY, and its first item is a
 * PMIX_STATUS.  Tag 0 without SY_WIRE_F_REPLY is an unsolicited message
 * from the server (events, later issues).
 *
 * The commands, their numbers and the fields of every request, reply and
 * unsolicited message are declared once, in wire_msgs.txt; the generated
 * wire_msgs.h (included here) has sy_cmd_t, sy_msg_t and one struct per
 * message, which a codec (wire_codec.h) packs and unpacks.
 *
 * Direct channel: a connected client may open a second UNIX connection
 * whose HELLO carries the info SY_HELLO_DIRECT; the server accepts it when
 * the kernel says it comes from the same process (pid and uid) as the
 * client's connection, answers PMIX_STATUS only, and then takes requests
 * on it as the client's.  Their tags have SY_WIRE_TAG_DIRECT set and their
 * replies go back on that channel, whose reader is the thread that made
 * the request: no hand-off to a progress thread.  Nothing unsolicited is
 * ever sent there. */
#ifndef SWITCHYARD_COMMON_WIRE_H
#define SWITCHYARD_COMMON_WIRE_H

#include "common/wire_msgs.h"

#define SY_WIRE_PROTOCOL "switchyard"
#define SY_WIRE_VERSION 2u

/* frame flags */
#define SY_WIRE_F_REPLY 0x0001u

/* tags of requests made on a client's direct channel (see above) */
#define SY_WIRE_TAG_DIRECT 0x80000000u
/* HELLO info key (PMIX_BOOL) opening a direct channel */
#define SY_HELLO_DIRECT "switchyard.direct"
/* Posted-data key prefix of a member's PMIX_GROUP_INFO elements:
 * "sy.grpinfo.<grp>.<key>" (client_group.c posts them; the server does
 * for OpenPMIx clients, server_group_info.c). */
#define SY_GRPINFO_PREFIX "sy.grpinfo."

typedef enum {
    SY_PEER_CLIENT = 1,
    SY_PEER_TOOL = 2,
} sy_peer_kind_t;

/* Environment a server gives a child through PMIx_server_setup_fork, and
 * that PMIx_Init reads.  The PMIX_* names are the ones OpenPMIx uses, so
 * launchers and scripts that look for them keep working. */
#define SY_ENV_NSPACE "PMIX_NAMESPACE"
#define SY_ENV_RANK "PMIX_RANK"
/* "<server nspace>.<server rank>;tcp4://127.0.0.1:<port>" (OpenPMIx's URI
 * form); also exported as PMIX_SERVER_URI4, _URI3, _URI2 and _URI21. */
#define SY_ENV_URI "PMIX_SERVER_URI41"
/* Path of the server's UNIX socket; preferred over the URI when present. */
#define SY_ENV_USOCK "SWITCHYARD_USOCK"
/* Set by our server to the value of PMIX_SERVER_URI41 (or of
 * SWITCHYARD_USOCK when it has no TCP listener): a client sees that the
 * environment names a Switchyard server.  A URI it does not vouch for is
 * an OpenPMIx server's (common/opx_client.h). */
#define SY_ENV_SERVER "SWITCHYARD_SERVER"
/* Per-process secret that authenticates a client over TCP. */
#define SY_ENV_TOKEN "SWITCHYARD_TOKEN"
#define SY_ENV_SERVER_TMPDIR "PMIX_SERVER_TMPDIR"
#define SY_ENV_SYSTEM_TMPDIR "PMIX_SYSTEM_TMPDIR"
#define SY_ENV_HOSTNAME "PMIX_HOSTNAME"
#define SY_ENV_VERSION "PMIX_VERSION"

#endif
