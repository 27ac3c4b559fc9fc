/* The client side of OpenPMIx's wire protocol (docs/wire-protocol.md,
 * "OpenPMIx protocol, client side"): telling from setup_fork's environment
 * whether our server or an OpenPMIx 4.x one launched us, its 4.2.x
 * connect handshake, and blocking request/reply exchanges on the socket
 * before it is handed to a connection (the job-info request of init). */
#ifndef SWITCHYARD_COMMON_OPX_CLIENT_H
#define SWITCHYARD_COMMON_OPX_CLIENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

/* The first tag of requests: OpenPMIx reserves 0 (events), 1 and 2 (IOF)
 * for unsolicited messages. */
#define SY_OPX_TAG_NOTIFY 0u
#define SY_OPX_TAG_IOF 2u
#define SY_OPX_TAG_DYNAMIC 100u

/* What we claim in the handshake: a 4.2 client with the v41 packing,
 * non-described buffers and the "hash" job store (never the shared-memory
 * ds21/ds12 ones, which we do not read). */
#define SY_OPX_VERSION "4.2.2"
#define SY_OPX_BFROPS "v41"
#define SY_OPX_GDS "hash"
#define SY_OPX_PSEC "native"

/* The kind of process a connect message announces (OpenPMIx's
 * "rendezvous flag", one byte): a client its server launched, a tool that
 * asks the server's host for an identity, a tool that brings its own. */
#define SY_OPX_PEER_CLIENT 0
#define SY_OPX_PEER_TOOL_NEEDS_ID 3
#define SY_OPX_PEER_TOOL_GIVEN_ID 4

/* OpenPMIx's command codes (a PMIX_COMMAND, one byte) */
#define SY_OPX_CMD_REQ 0

/* The server URI of the environment when it names an OpenPMIx server (a
 * pointer into the environment), else NULL: the URI of PMIX_SERVER_URI41
 * (or _URI4) that our own server did not mark as its own with
 * SWITCHYARD_SERVER (wire.h).  *old_only is set when only the URIs of
 * pre-4 servers (_URI3, _URI2, _URI21) are there. */
const char *sy_opx_server_uri(bool *old_only);

/* The connect message of a simple client `me` (header included), malloc'd
 * into *msg (free it). */
pmix_status_t sy_opx_connect_msg(const pmix_proc_t *me, uint8_t **msg, size_t *len);

/* Connect to uri, send the handshake and read the status and our peer
 * index (blocking, within `seconds`).  The status of a refusal is
 * returned as is; transport failures as PMIX_ERR_UNREACH. */
pmix_status_t sy_opx_connect(const char *uri, const pmix_proc_t *me, double seconds, int *fd,
                             int32_t *pindex);

/* A tool's connect to the OpenPMIx server at uri: as the identity me, or,
 * with me->nspace empty, as a tool asking for one (blocking, within
 * `seconds`).  *assigned receives the identity we have on that server,
 * *server the server's own; the socket is left in *fd.  Every later
 * header carries pindex 0 (tools are never told one).  A refusal's
 * status is returned as is, with one log line; a server that closed the
 * connection unanswered (how tools of OpenPMIx are refused) gives
 * PMIX_ERR_LOST_CONNECTION, nobody listening PMIX_ERR_UNREACH. */
pmix_status_t sy_opx_tool_connect(const char *uri, const pmix_proc_t *me, double seconds, int *fd,
                                  pmix_proc_t *assigned, pmix_proc_t *server);

/* One framed request on fd (blocking) and the body of the frame carrying
 * its tag (malloc'd; frames of other tags before it are dropped with a
 * log line).  PMIX_ERR_TIMEOUT, PMIX_ERR_LOST_CONNECTION,
 * PMIX_ERR_UNPACK_FAILURE for a frame over max_body bytes. */
pmix_status_t sy_opx_exchange(int fd, int32_t pindex, uint32_t tag, const void *body, size_t len,
                              double seconds, size_t max_body, void **reply, size_t *reply_len);

/* A PMIX_NODE_MAP or PMIX_PROC_MAP value of an OpenPMIx server (a string,
 * or the bytes of a PMIX_REGEX) as a string our regex parsers read
 * (regex.h): the "pmix[...]" and "raw:" forms as they are, a zlib "blob:"
 * decoded into its plain list.  Malloc'd into *out; PMIX_ERR_BAD_PARAM for
 * a malformed blob. */
pmix_status_t sy_opx_map_decode(const void *bytes, size_t len, char **out);

/* The body of the reply to REQ (the namespace, then the job's key/value
 * pairs as OpenPMIx's "hash" job store packs them) as an info array in the
 * shape of a register_nspace description (sy_array_free it): blobs of
 * per-process data become PMIX_PROC_DATA arrays, the location blob and
 * any node/proc map become plain PMIX_NODE_MAP / PMIX_PROC_MAP strings. */
pmix_status_t sy_opx_jobinfo_parse(pmix_data_buffer_t *b, const char *nspace, pmix_info_t **info,
                                   size_t *ninfo);
/* The same compiled into a job-data segment builder for me->nspace
 * (jobinfo.h), this node being `here` (NULL: the node me runs on, as the
 * job data names it).  Also for another job's data (a CONNECT reply's):
 * me is then that namespace with any rank, here our node's name.  The
 * builder points into the parsed infos, handed back in *held / *nheld
 * (also on failure): sy_array_free them once the builder is done with. */
struct sy_jseg_builder;
pmix_status_t sy_opx_jobinfo_compile(pmix_data_buffer_t *reply, const pmix_proc_t *me,
                                     const char *here, struct sy_jseg_builder *b,
                                     pmix_info_t **held, size_t *nheld);

/* The OpenPMIx codec, client direction (opx_codec_client.c): requests
 * packed as an OpenPMIx 4.2 client packs them, replies read back.  A
 * DMODEX reply's value is every pair OpenPMIx answers with: a
 * PMIX_DATA_ARRAY of PMIX_PROC_DATA infos, one per process (the wildcard
 * rank for job-level pairs of another job), each an array of PMIX_INFO
 * whose first is PMIX_PROCID (a PMIX_PROC), the pairs after it.  A
 * CONNECT reply's job data follows the status outside the codec's fields
 * (client_opx.c reads it). */
struct sy_wire_codec;
extern const struct sy_wire_codec sy_wire_opx_client;

/* DEREGEVENTS (14), which our EVENT_DEREGISTER (a reference) cannot
 * carry: the command, then one pack call of one STATUS per code no
 * handler of ours wants any more, into a fresh b.  No reply comes. */
pmix_status_t sy_opx_pack_deregevents(pmix_data_buffer_t *b, const pmix_status_t *codes, size_t n);
#endif
