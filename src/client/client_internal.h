/* State of the client role, shared by the files of src/client/ only. */
#ifndef SWITCHYARD_CLIENT_INTERNAL_H
#define SWITCHYARD_CLIENT_INTERNAL_H
#include <pthread.h>
#include <stdbool.h>

#include <pmix_common.h>

#include "common/frame.h"
#include "common/progress.h"
#include "common/sync.h"
#include "common/wire.h"

typedef struct {
    unsigned refcount; /* PMIx_Init calls not yet finalized */
    pmix_proc_t me;
    bool singleton;
    bool tool; /* PMIx_tool_init: conn is the primary server's, or NULL */
    sy_progress_t *progress;
    sy_conn_t *conn; /* NULL for a singleton */
    pmix_proc_t server;
    char *server_host;
    char *usock; /* the server's UNIX socket, when conn is one */
    bool opx;    /* the server speaks OpenPMIx's protocol (client_opx.c) */
} sy_client_t;

/* Guards sy_client's fields against concurrent Init/Finalize. */
extern pthread_mutex_t sy_client_lock;
extern sy_client_t sy_client;

/* PMIx_Spawn of a tool with no server to ask: the tool role starts the
 * processes itself when it can (set while such a tool is initialized). */
typedef pmix_status_t (*sy_client_local_spawn_fn)(const pmix_info_t job_info[], size_t ninfo,
                                                  const pmix_app_t apps[], size_t napps,
                                                  pmix_spawn_cbfunc_t cbfunc, void *cbdata);
void sy_client_set_local_spawn(sy_client_local_spawn_fn fn);

/* ---- client_rpc.c: requests to the server over sy_client.conn ---- */
/* The connection's callbacks (the context is unused). */
extern const sy_conn_callbacks_t sy_client_conn_callbacks;
/* Send `body` (taken: malloc'd, freed here) with a fresh tag and wait up
 * to `seconds` for the reply, whose malloc'd body is returned in *reply
 * (caller frees) with its length.  PMIX_ERR_LOST_CONNECTION when the
 * server goes away, PMIX_ERR_TIMEOUT. */
pmix_status_t sy_client_request(sy_conn_t *conn, uint32_t tag, void *body, size_t len,
                                double seconds, void **reply, size_t *reply_len);
/* A tag unique among outstanding requests (1 is the HELLO's). */
uint32_t sy_client_next_tag(void);
/* One request/reply with blocking I/O on the caller's thread, before the
 * socket is handed to a connection (the HELLO: no thread hand-off on the
 * path every Init takes). */
pmix_status_t sy_client_exchange(int fd, uint32_t tag, const void *body, size_t len, double seconds,
                                 void **reply, size_t *reply_len);
/* CLOCK_MONOTONIC in seconds; wait until fd is ready for `events` (poll
 * flags) or the deadline passes (PMIX_ERR_TIMEOUT), on the caller's thread. */
double sy_client_now(void);
pmix_status_t sy_client_wait_fd(int fd, short events, double deadline);
/* Fail every outstanding request (the connection is gone), or those sent
 * on one connection. */
void sy_client_fail_requests(pmix_status_t status);
void sy_client_fail_requests_on(sy_conn_t *conn, pmix_status_t status);
/* The connection requests go to, or why there is none: PMIX_ERR_INIT (not
 * initialized), PMIX_ERR_UNREACH (a tool without a primary server),
 * PMIX_ERR_NOT_SUPPORTED (a singleton). */
pmix_status_t sy_client_server_conn(sy_conn_t **conn);
/* A request whose reply comes to cb on the loop thread (or on the thread
 * that saw the connection die), with the opening PMIX_STATUS already
 * unpacked into `status` and the rest of the reply in `reply` (freed after
 * cb returns).  req is taken.  cb fires exactly once when this returns
 * PMIX_SUCCESS, never when it returns an error. */
typedef void (*sy_client_reply_fn)(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata);
/* Inside such a callback only: the descriptor that came with the reply
 * (SY_FRAME_F_FD; the caller closes it), or -1.  One not taken is closed
 * when the callback returns. */
int sy_client_reply_take_fd(void);
pmix_status_t sy_client_request_nb(sy_conn_t *conn, pmix_data_buffer_t *req, sy_client_reply_fn cb,
                                   void *cbdata);
/* Blocking request: returns the status that opens the reply (or the
 * transport's failure); the rest of the reply is left in *rb (destruct it). */
pmix_status_t sy_client_rpc(sy_conn_t *conn, pmix_data_buffer_t *req, double seconds,
                            pmix_data_buffer_t *rb);
/* The status that opens a reply, read with the connection's codec. */
pmix_status_t sy_client_unpack_status(pmix_data_buffer_t *b, pmix_status_t *status);
/* A reply's body (taken) made rb, its status read: the status, or
 * PMIX_ERR_UNPACK_FAILURE (rb then empty). */
pmix_status_t sy_client_reply_over(pmix_data_buffer_t *rb, void *body, size_t len);
/* Make b read `body` (taken; freed by sy_buffer_destruct). */
void sy_client_buffer_over(pmix_data_buffer_t *b, void *body, size_t len);
/* Build a job's data (fill writes it into the builder), publish it as a
 * private segment under $TMPDIR/switchyard-<what>.<pid>.XXXXXX and attach
 * it as nspace's; the file is removed once mapped (client_init.c).  Used
 * by a singleton and by a client of an OpenPMIx server. */
struct sy_jseg_builder;
typedef pmix_status_t (*sy_client_job_fill_t)(struct sy_jseg_builder *b, void *arg);
pmix_status_t sy_client_attach_private_job(const char *nspace, const char *what,
                                           sy_client_job_fill_t fill, void *arg);

#define SY_REQUEST_WAIT 30.0

/* ---- client_msg.c: requests made of wire_msgs.h structs ----
 * The request `id` (SY_WMSG_*_REQ) is packed from msg with the
 * connection's codec; its reply (sy_wire_reply_of(id)) is unpacked into a
 * struct of its message.  A malformed reply turns a success into
 * PMIX_ERR_UNPACK_FAILURE (with the empty message); an error reply's
 * fields are empty.  Like sy_client_request_nb, the callback fires
 * exactly once when the call returns PMIX_SUCCESS, never otherwise. */
const sy_wire_codec_t *sy_client_codec(void);
/* The caller's callback, carried to the reply with its cbdata. */
typedef union {
    pmix_op_cbfunc_t op;
    pmix_info_cbfunc_t info;
    pmix_lookup_cbfunc_t lookup;
    pmix_spawn_cbfunc_t spawn;
    pmix_credential_cbfunc_t cred;
    pmix_validation_cbfunc_t valid;
    void (*any)(void); /* another type, cast back by the reply's handler */
} sy_client_cb_t;
/* reply: the unpacked struct of message id (NULL for a reply with no
 * field), freed after cb returns; cb may take its fields (NULL them). */
typedef void (*sy_client_msg_fn)(pmix_status_t status, sy_wire_msg_id_t id, void *reply,
                                 sy_client_cb_t user, void *cbdata);
pmix_status_t sy_client_call_nb(sy_wire_msg_id_t id, const void *msg, sy_client_msg_fn cb,
                                sy_client_cb_t user, void *cbdata);
/* The same on a given connection. */
pmix_status_t sy_client_call_nb_on(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg,
                                   sy_client_msg_fn cb, sy_client_cb_t user, void *cbdata);
/* Blocking, on conn: the reply's status, its fields in *reply (zeroed
 * first; free it with its sy_wire_*_free). */
pmix_status_t sy_client_call(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg, double seconds,
                             void *reply);
/* The same over the direct channel when there is one, else on the
 * connection (sy_client_rpc_direct). */
pmix_status_t sy_client_call_direct(sy_wire_msg_id_t id, const void *msg, double seconds,
                                    void *reply);
/* A request on conn (NULL: none) whose reply nobody waits for. */
void sy_client_send_nb(sy_conn_t *conn, sy_wire_msg_id_t id, const void *msg);
/* Requests whose reply is the status alone, for a pmix_op_cbfunc_t (which
 * may be NULL: the request still goes). */
pmix_status_t sy_client_call_op_nb(sy_wire_msg_id_t id, const void *msg, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata);
/* Requests whose reply is one INFO array, for a pmix_info_cbfunc_t (may be
 * NULL); the infos are the callback's until it calls release_fn. */
pmix_status_t sy_client_call_info_nb(sy_wire_msg_id_t id, const void *msg,
                                     pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- client_init.c, shared with the tool role (src/tool/) ---- */
/* The HELLO on connected socket fd (blocking, on the caller's thread):
 * kind SY_PEER_CLIENT or SY_PEER_TOOL, claiming identity `me`, with the
 * token (may be NULL) and infos.  On success *server and *host (malloc'd)
 * describe the server, the job and resources segments it names are
 * mapped, and for a tool *assigned is the identity the host gave it. */
/* The HELLO request itself (req is initialised). */
pmix_status_t sy_client_pack_hello(pmix_data_buffer_t *req, uint8_t kind, const pmix_proc_t *me,
                                   const char *token, const pmix_info_t info[], size_t ninfo);
pmix_status_t sy_client_hello(int fd, uint8_t kind, const pmix_proc_t *me, const char *token,
                              const pmix_info_t info[], size_t ninfo, pmix_proc_t *server,
                              char **host, pmix_proc_t *assigned);
/* The store's resolver: the segment of a namespace, asked of the server. */
pmix_status_t sy_client_resolve_nspace(const char *nspace, const pmix_info_t info[], size_t ninfo,
                                       void *ctx);

/* ---- client_opx.c: PMIx_Init under an OpenPMIx server at uri ---- */
pmix_status_t sy_client_opx_connect(const char *uri);
/* What follows the status of an OpenPMIx server's CONNECT reply: per
 * other namespace taking part, a byte object holding the namespace and
 * its job data (as at init), each attached as that namespace's job-data
 * segment.  A malformed or unusable one: one log line, its status. */
pmix_status_t sy_client_opx_connect_jobs(pmix_data_buffer_t *rest);
/* PMIx_Spawn_nb to an OpenPMIx server on conn: its reply's namespace goes
 * to cbfunc, and the job-level pairs that follow it are attached as that
 * namespace's job data first (one log line when they cannot be). */
pmix_status_t sy_client_opx_spawn_nb(sy_conn_t *conn, const sy_wire_spawn_req_t *m,
                                     pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* ---- client_iof.c: PMIx_IOF_pull / deregister / push ---- */
/* An unsolicited SY_MSG_IOF on conn, kind already unpacked (on the loop). */
void sy_client_iof_unsolicited(sy_conn_t *conn, pmix_data_buffer_t *msg);
/* conn is gone: its registrations end (flushed), its stdin forwarding stops. */
void sy_client_iof_lost(sy_conn_t *conn);
/* The last finalize: every registration and stdin forwarding goes, in one
 * hop through the loop, which also drains what was posted to the loop
 * before it (sy_client_event_finalize relies on that: call this first). */
void sy_client_iof_finalize(void);

/* ---- client_direct.c: the direct channel (wire.h) ---- */
/* sy_client_rpc on the direct channel: the calling thread writes the
 * request and reads the reply itself, with no hand-off to or from the
 * progress thread.  The channel is opened on first use; when it cannot be
 * (TCP, refused), is busy with another thread's request, or the caller is
 * the loop, this is sy_client_rpc on the connection.  For requests whose
 * order relative to the connection's other traffic does not matter. */
pmix_status_t sy_client_rpc_direct(pmix_data_buffer_t *req, double seconds, pmix_data_buffer_t *rb);
/* Finalize: close the channel (a thread blocked on it gets
 * PMIX_ERR_LOST_CONNECTION). */
void sy_client_direct_close(void);

/* ---- client_modex.c: Put, Commit, Fence, Gets of peers' data (issue 4) ---- */
/* What only the server can tell after the store had nothing (or, with
 * PMIX_GET_REFRESH_CACHE, instead of asking it): a peer's posted key,
 * asked with DMODEX unless the key is reserved, PMIX_OPTIONAL or
 * PMIX_IMMEDIATE is set, or the target is the job or ourselves;
 * PMIX_ERR_NOT_FOUND when there is none. */
pmix_status_t sy_client_dmodex_get(const pmix_proc_t *proc, const char *key,
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val);
/* The last PMIx_Finalize, before the connection is dropped. */
void sy_client_modex_finalize(void);
/* ---- client_lfence.c: the local fence ---- */
/* A blocking fence over our whole namespace in the server's collective
 * page: true when it took it (*rc its outcome), false to send FENCE. */
bool sy_client_lfence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                      size_t ninfo, pmix_status_t *rc);
/* Map the page ahead, at the first commit: a fence usually follows, and
 * asking then would put a round trip into it. */
void sy_client_lfence_prepare(void);
/* At the end of PMIx_Init: ask for the page without waiting (the progress
 * thread maps it when the answer comes). */
void sy_client_lfence_init(void);
/* The server's connection closed: waiters return PMIX_ERR_LOST_CONNECTION. */
void sy_client_lfence_lost(void);
void sy_client_lfence_finalize(void);

/* ---- client_distances.c ---- */
/* PMIX_DEVICE_DISTANCES of a process on this node, computed locally: the
 * store's provider of that key while the client is initialized. */
pmix_status_t sy_client_device_distances(const pmix_proc_t *proc, const pmix_info_t info[],
                                         size_t ninfo, pmix_value_t **val);

/* The segments a collective's reply names mapped into the store, the
 * retired ones forgotten. */
pmix_status_t sy_client_attach_segments(const sy_wire_segment_t *segments, size_t nsegments,
                                        const sy_wire_gone_t *retired, size_t nretired);

/* ---- client_hostops.c: requests for the host, and what other request
 * files share with them ---- */
/* The blocking forms of info-returning requests: */
typedef struct {
    sy_sync_t sync;
    pmix_info_t *info; /* a copy of the callback's infos */
    size_t ninfo;
} sy_client_info_wait_t;
/* The pmix_info_cbfunc_t that fills a sy_client_info_wait_t and wakes it. */
void sy_client_info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata);
/* Start a blocking call made over an _nb one: clear the results and count
 * (either may be NULL) and ready w; PMIX_ERR_NOMEM when it cannot. */
pmix_status_t sy_client_info_wait_begin(sy_client_info_wait_t *w, pmix_info_t **results,
                                        size_t *nresults);
/* Wait (when started is PMIX_SUCCESS) and hand the infos to the caller, or
 * free them when results is NULL; destroys w->sync. */
pmix_status_t sy_client_wait_infos(pmix_status_t started, sy_client_info_wait_t *w,
                                   pmix_info_t **results, size_t *nresults);

/* ---- client_group.c: process groups ---- */
/* PMIx_Get of PMIX_PSET_NAMES or PMIX_GROUP_NAMES, which the server holds;
 * PMIX_ERR_NOT_SUPPORTED without one (a singleton). */
pmix_status_t sy_client_membership_get(const pmix_proc_t *proc, const char *key,
                                       pmix_value_t **val);
/* PMIx_Get of what a member gave in PMIX_GROUP_INFO, qualified by the
 * group's PMIX_GROUP_CONTEXT_ID; PMIX_ERR_NOT_SUPPORTED when info has no
 * such qualifier. */
pmix_status_t sy_client_group_info_get(const pmix_proc_t *proc, const char *key,
                                       const pmix_info_t info[], size_t ninfo, pmix_value_t **val);
/* Forget the context ids seen (finalize). */
void sy_client_group_finalize(void);

/* ---- client_event.c: events (issue 4) ---- */
/* An unsolicited SY_MSG_EVENT message, kind already unpacked; on the loop. */
void sy_client_event_unsolicited(pmix_data_buffer_t *msg, bool replay, bool primary);
/* The connection to the server died (on the loop). */
void sy_client_event_lost_connection(void);
/* After sy_client_iof_finalize (whose hop through the loop forwarded the
 * events notified before): the forwarder and hooks go. */
void sy_client_event_finalize(void);
/* After a successful init: the forwarder, our identity, PMIX_MODEL_DECLARED. */
/* route: this process's events go to its server and its handlers are
 * registered there (false for a tool inside a process whose own server
 * routes them: a launcher started by a tool). */
void sy_client_event_init(const pmix_info_t info[], size_t ninfo, bool route);

/* ---- client_fabric.c: the fabric route (issue 8) ---- */
void sy_client_fabric_init(void);
/* client_debug.c: the end of PMIx_Init, when the job-level
 * PMIX_DEBUG_STOP_IN_INIT names this process: PMIX_READY_FOR_DEBUG to the
 * server, then wait for PMIX_DEBUGGER_RELEASE. */
pmix_status_t sy_client_debug_hold(const pmix_proc_t *me);
void sy_client_fabric_finalize(void);

#endif
