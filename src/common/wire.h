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
 * HELLO (client -> server, the first frame on a connection; tag 1):
 *   PMIX_UINT8   SY_CMD_HELLO
 *   PMIX_STRING  SY_WIRE_PROTOCOL ("switchyard")
 *   PMIX_UINT32  SY_WIRE_VERSION
 *   PMIX_UINT8   peer kind (sy_peer_kind_t)
 *   PMIX_PROC    the identity the peer claims (nspace, rank)
 *   PMIX_PID     its pid
 *   PMIX_STRING  its token from SY_ENV_TOKEN (NULL when none; required on
 *                TCP, where the kernel cannot tell us the peer's uid)
 *   PMIX_SIZE n, then n PMIX_INFO: the info given to PMIx_Init (passed on
 *                to the host's client_connected2)
 * HELLO reply:
 *   PMIX_STATUS  PMIX_SUCCESS, or why the peer is refused
 *   on refusal:  PMIX_STRING reason; then the server closes the connection
 *   on success:  PMIX_PROC   the server's identity
 *                PMIX_STRING the server's hostname
 *                PMIX_STRING path of the job-data segment of the peer's
 *                            nspace (NULL if it has none, e.g. NODATA)
 *                PMIX_STRING path of the resources segment (NULL if none)
 *                PMIX_PROC   (tools only) the identity the host gave the tool
 * A tool's HELLO claims its identity if it has one (else an empty nspace
 * and PMIX_RANK_UNDEF), carries the token of the rendezvous file over TCP,
 * and its PMIX_USERID/PMIX_GRPID among the infos (believed over TCP only,
 * where the token vouches for them).
 *
 * FINALIZE (client -> server): no argument.  The server calls the host's
 *   client_finalized and replies when the host acked; the client then closes.
 * ABORT (client -> server): PMIX_INT status, PMIX_STRING msg, PMIX_SIZE n,
 *   n PMIX_PROC.  Reply after the host's abort upcall completed.
 * JOBSEG (client -> server): PMIX_STRING nspace.  Reply: status, then on
 *   success PMIX_STRING the segment path of that nspace.
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

#define SY_WIRE_PROTOCOL "switchyard"
#define SY_WIRE_VERSION 1u

/* frame flags */
#define SY_WIRE_F_REPLY 0x0001u

/* tags of requests made on a client's direct channel (see above) */
#define SY_WIRE_TAG_DIRECT 0x80000000u
/* HELLO info key (PMIX_BOOL) opening a direct channel */
#define SY_HELLO_DIRECT "switchyard.direct"

typedef enum {
    SY_CMD_HELLO = 1,
    SY_CMD_FINALIZE = 2,
    SY_CMD_ABORT = 3,
    SY_CMD_JOBSEG = 4,
    /* data exchange (src/server/server_modex*.c, src/client/client_modex*.c) */
    SY_CMD_COMMIT = 5,
    SY_CMD_FENCE = 6,
    SY_CMD_DMODEX = 7,
    /* events (src/server/server_event*.c, src/client/client_event*.c) */
    SY_CMD_EVENT_REGISTER = 8,
    SY_CMD_EVENT_DEREGISTER = 9,
    SY_CMD_EVENT_NOTIFY = 10,
    /* name service (src/server/server_pubsub.c, src/client/client_pubsub.c) */
    SY_CMD_PUBLISH = 11,
    SY_CMD_LOOKUP = 12,
    SY_CMD_UNPUBLISH = 13,
    /* requests for the host (src/server/server_hostops.c, src/client/client_hostops.c) */
    SY_CMD_QUERY = 14,
    SY_CMD_LOG = 15,
    SY_CMD_JOB_CONTROL = 16,
    /* collectives like FENCE, with the host's connect/disconnect upcalls
     * (src/server/server_modex.c) */
    SY_CMD_CONNECT = 17,
    SY_CMD_DISCONNECT = 18,
    /* process monitoring through the host (server_hostops.c) */
    SY_CMD_MONITOR = 19,
    /* PMIx_Spawn through the host's spawn upcall (server_hostops.c) */
    SY_CMD_SPAWN = 20,
    /* 30-39: tools and forwarded I/O (src/server/server_iof.c,
     * src/client/client_iof.c).
     * IOF_PULL: PMIX_SIZE n, n PMIX_PROC sources, PMIX_SIZE d, d PMIX_INFO
     *   directives, PMIX_UINT16 channels.  Reply: PMIX_SIZE the
     *   registration, then SY_MSG_IOF messages carry it.
     * IOF_DEREG: PMIX_SIZE the registration.  Reply: status.
     * IOF_PUSH: PMIX_SIZE n, n PMIX_PROC targets, PMIX_BYTE_OBJECT data,
     *   PMIX_SIZE d, d PMIX_INFO directives.  Reply after the host's
     *   push_stdin. */
    SY_CMD_IOF_PULL = 30,
    SY_CMD_IOF_DEREG = 31,
    SY_CMD_IOF_PUSH = 32,
    /* fabric (40-49): PMIx_Fabric_register/update through the server
     * (src/server/server_fabric.c, src/client/client_fabric.c) */
    SY_CMD_FABRIC = 40,
    /* process groups (src/server/server_group.c, src/client/client_group.c):
     * construct, destruct and invite are collectives like FENCE; DECIDE
     * carries what a participant's event handler chose (abort, or "I am
     * the new leader") */
    SY_CMD_GROUP_CONSTRUCT = 50,
    SY_CMD_GROUP_DESTRUCT = 51,
    SY_CMD_GROUP_INVITE = 52,
    SY_CMD_GROUP_JOIN = 53,
    SY_CMD_GROUP_LEAVE = 54,
    /* credentials: the host's, or the server's own (server_cred.c, client_cred.c) */
    SY_CMD_GET_CRED = 55,
    SY_CMD_VALIDATE_CRED = 56,
    /* PMIx_Allocation_request through the host's allocate upcall (server_hostops.c) */
    SY_CMD_ALLOC = 57,
    SY_CMD_GROUP_DECIDE = 58,
} sy_cmd_t;

/* Unsolicited messages (tag 0, no reply flag) start with a PMIX_UINT8 kind. */
typedef enum {
    SY_MSG_EVENT = 1,
    /* a cached event for one registration: PMIX_SIZE ref, then as EVENT */
    SY_MSG_EVENT_REPLAY = 2,
    /* forwarded output: PMIX_SIZE registration, PMIX_PROC source,
     * PMIX_UINT16 channel, PMIX_BYTE_OBJECT data, PMIX_SIZE n, n PMIX_INFO
     * (PMIX_IOF_COMPLETE when the source closed the channel) */
    SY_MSG_IOF = 10,
} sy_msg_t;

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
/* Per-process secret that authenticates a client over TCP. */
#define SY_ENV_TOKEN "SWITCHYARD_TOKEN"
#define SY_ENV_SERVER_TMPDIR "PMIX_SERVER_TMPDIR"
#define SY_ENV_SYSTEM_TMPDIR "PMIX_SYSTEM_TMPDIR"
#define SY_ENV_HOSTNAME "PMIX_HOSTNAME"
#define SY_ENV_VERSION "PMIX_VERSION"

#endif
