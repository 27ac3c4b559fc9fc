/* switchyard-sched: a small scheduler daemon and node daemon over the
 * public server API (docs/fabric.md, "switchyard-sched").
 *
 *   sched_main.c  options, the two modes, running the command as a client
 *   sched_node.c  node mode: the link to the scheduler, reconnection,
 *                 the cache of fabric answers
 *   sched_link.c  the daemons' link: sockets (UNIX or TCP), frames, MACs
 *   sched_auth.c  the link's handshake (MUNGE, a shared key, or the UNIX
 *                 peer's credentials)
 *
 * After the handshake each frame is a 4-byte big-endian length, a buffer
 * packed with PMIx_Data_pack whose first item is a PMIX_UINT8 kind, and
 * (when the link has a session key) a 32-byte HMAC-SHA256 of the
 * direction, a frame counter and the buffer:
 *   LINK_FABRIC     node -> sched: UINT32 id, UINT8 op, SIZE n, n INFO
 *   LINK_REPLY      sched -> node: UINT32 id, STATUS, SIZE n, n INFO; a
 *                   cost matrix larger than one chunk is left out of the
 *                   infos: on a UNIX socket it comes as a sealed memfd
 *                   attached to this frame (LINK_SHM = its size;
 *                   sched_shm.h), else it follows as LINK_CHUNK frames
 *                   (LINK_STREAMED = its size)
 *   LINK_CHUNK      sched -> node: UINT32 id, UINT64 offset, BYTE_OBJECT
 *   LINK_CHUNK_ENC  sched -> node: UINT32 id, UINT64 offset, UINT64 raw
 *                   length, BYTE_OBJECT of the raw bytes encoded
 *                   (src/fabric/cm_codec.h); only to a node whose
 *                   LINK_FABRIC carried LINK_ENCODING, whose reply then
 *                   carries it too (an older peer on either side: raw)
 *   LINK_INVENTORY  node -> sched: SIZE n, n INFO (collect_inventory's result)
 *   LINK_EVENT      sched -> node: STATUS code, PROC source, SIZE n, n INFO
 *   LINK_SETUP      node -> sched: UINT32 id, STRING nspace, SIZE n, n INFO
 *                   (PMIx_server_setup_application; answered by LINK_REPLY) */
#ifndef SWITCHYARD_TOOLS_SCHED_DAEMON_H
#define SWITCHYARD_TOOLS_SCHED_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix.h>

enum {
    LINK_FABRIC = 1,
    LINK_REPLY = 2,
    LINK_INVENTORY = 3,
    LINK_EVENT = 4,
    LINK_SETUP = 5,
    LINK_CHUNK = 6,
    LINK_CHUNK_ENC = 7
};

/* The size of a streamed matrix, in place of PMIX_FABRIC_COST_MATRIX. */
#define LINK_STREAMED "syfab.cm.streamed"
/* The size of a matrix in the shared memory the frame brings. */
#define LINK_SHM "syfab.cm.shm"
/* UINT32: in a node's LINK_FABRIC, the newest chunk encoding it reads; in
 * the reply, the one its chunks use. */
#define LINK_ENCODING "syfab.cm.encoding"
/* Matrix chunks: bounded frames, whatever the fabric's size. */
#define LINK_CHUNK_BYTES (8u << 20)

/* ---- authentication (sched_auth.c) ---- */

typedef enum { AUTH_NONE = 0, AUTH_KEY = 1, AUTH_MUNGE = 2, AUTH_PEERCRED = 3 } auth_method_t;

typedef struct {
    auth_method_t method; /* what this daemon offers and accepts */
    uint8_t key[64];      /* AUTH_KEY: the shared secret */
    size_t keylen;
} link_auth_t;

/* method: "auto" (MUNGE when munged answers, else the key file when one
 * is given, else on a UNIX socket the peer's credentials), "munge", "key"
 * or "none" ("none" only on UNIX sockets: the peer's credentials).  NULL
 * and a message on error. */
int link_auth_setup(const char *method, const char *key_file, bool tcp, link_auth_t *out,
                    char **why);
const char *link_auth_name(auth_method_t m);

/* ---- the link (sched_link.c) ---- */

typedef struct link link_t;

/* addr: "tcp://HOST:PORT", "HOST:PORT", or a UNIX socket path
 * ("unix:PATH" or any string with a '/').  *tcp tells which. */
int link_listen(const char *addr, bool *tcp);
/* The scheduler's side of a new connection: the handshake, then the
 * authenticated link; NULL (and *why) when the peer is refused. */
link_t *link_accept(int lfd, const link_auth_t *auth, char *peer, size_t peerlen, const char **why);
/* The node's side; NULL and *why when the scheduler cannot be reached or
 * is refused (refused: *fatal, retrying will not help). */
link_t *link_connect(const char *addr, const link_auth_t *auth, const char *hostname,
                     const char **why, bool *fatal);

/* One frame; serialised by a lock of the link.  -1 on error. */
int link_send(link_t *l, pmix_data_buffer_t *buf);
int link_send_bytes(link_t *l, const pmix_byte_object_t *bo);
/* A frame with a descriptor attached (UNIX sockets only: SCM_RIGHTS); the
 * caller keeps fd. */
int link_send_fd(link_t *l, pmix_data_buffer_t *buf, int fd);
/* The descriptor the last frame link_recv returned brought, or -1; the
 * caller owns it (one not taken is closed at the next link_recv). */
int link_take_fd(link_t *l);
/* A UNIX socket: the peer is on this host. */
bool link_is_local(const link_t *l);
/* The next frame into buf (constructed here); -1 at EOF, on error, or on
 * a frame whose MAC is wrong (the link is then dead). */
int link_recv(link_t *l, pmix_data_buffer_t *buf);
/* Wake a reader blocked in link_recv (it returns -1). */
void link_shutdown(link_t *l);
void link_free(link_t *l);

pmix_status_t link_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n);
pmix_status_t link_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n);

/* ---- what sched_link.c and sched_auth.c share ---- */
int link_write_all(int fd, const void *p, size_t n);
int link_read_all(int fd, void *p, size_t n);
link_t *link_new(int fd, const uint8_t *session_key, bool is_node);
bool link_random(void *p, size_t n);

/* ---- a matrix in chunks (sched_chunk.c) ---- */

typedef struct {
    uint32_t id;
    uint64_t off, rawlen; /* where its bytes go, and how many */
    bool encoded;
    pmix_byte_object_t bo;
} chunk_t;

/* The whole matrix after its reply, encoded or raw; *payload: the chunks'
 * bytes as sent.  -1 when the link fails. */
int chunk_send_all(link_t *l, uint32_t id, const char *m, size_t msize, bool encode,
                   size_t *payload);
/* Memory for a matrix of msize bytes that chunks fill (free() it). */
char *chunk_matrix_alloc(size_t msize);
/* A LINK_CHUNK or LINK_CHUNK_ENC frame (its kind already read); -1 when
 * malformed. */
int chunk_read(pmix_data_buffer_t *b, uint8_t kind, chunk_t *c);
/* Its bytes into the matrix of msize bytes, checked against it; frees
 * what chunk_read took.  *placed is how many bytes came before: the
 * chunk must start there (the sender sends them in order on one stream,
 * so a repeated or skipped chunk is a damaged or hostile one, and a
 * matrix completed from counted bytes could otherwise keep a hole); it
 * grows by the chunk's length.  -1 and *why when it does not fit, is out
 * of order or does not decode. */
int chunk_apply(chunk_t *c, char *matrix, size_t msize, size_t *placed, const char **why);

/* ---- node mode (sched_node.c) ---- */

typedef struct {
    const char *addr;
    const char *hostname;
    const link_auth_t *auth;
    bool inventory; /* collect and deliver this node's inventory */
} node_opts_t;

/* Connect (waiting up to wait_s for the scheduler to come up) and start
 * the link's thread, which reconnects with back-off when the link drops.
 * -1 when the scheduler cannot be reached or refuses us. */
int node_start(const node_opts_t *o, double wait_s);
/* The host's fabric upcall. */
pmix_status_t node_fabric(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                          const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                          void *cbdata);
/* After PMIx_server_init: send the inventory (and again at every
 * reconnection). */
void node_deliver_inventory(void);
/* The job's fabric data (PMIx_server_setup_application on the
 * scheduler), then PMIx_server_setup_local_support here. */
pmix_status_t node_setup(const char *nspace, const char *nodes, const char *procs);
void node_stop(void);

/* ---- sched_auth.c: the link's handshakes (used by sched_link.c) ---- */
int auth_server(int fd, const link_auth_t *a, char *peer, size_t peerlen, uint8_t session[32],
                bool *have_session, const char **why);
int auth_client(int fd, const link_auth_t *a, const char *hostname, uint8_t session[32],
                bool *have_session, const char **why, bool *fatal);

/* ---- sched_main.c ---- */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
