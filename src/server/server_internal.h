/* State of the server role, shared by the files of src/server/ only.
 *
 * Everything below is owned by the runtime's loop: API calls thread-shift
 * to it with sy_progress_post, host callbacks (which may arrive on any
 * thread) post their completion back to it.  Only the reference count and
 * the `alive` flag are read elsewhere, under srv_life_lock. */
#ifndef SWITCHYARD_SERVER_INTERNAL_H
#define SWITCHYARD_SERVER_INTERNAL_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_server.h>

#include "common/info.h"
#include "common/attr_support.h"
#include "common/frame.h"
#include "common/jobinfo.h"
#include "common/jseg.h"
#include "common/progress.h"
#include "common/sync.h"
#include "common/wire.h"

#define SY_SRV_TOKEN_LEN 32 /* hex characters */

struct sy_srv_peer;

/* A process the host told us about (register_client) or prepared a child
 * for (setup_fork); the two may come in either order. */
typedef struct sy_srv_client {
    pmix_proc_t proc;
    bool registered; /* register_client was called */
    bool tool;       /* a tool's record, owned by its peer (server_tool.c) */
    uid_t uid;
    gid_t gid;
    void *server_object;
    char token[SY_SRV_TOKEN_LEN + 1];
    struct sy_srv_peer *peer; /* its live connection, or NULL */
    struct sy_srv_client *next;
} sy_srv_client_t;

typedef struct sy_srv_nspace {
    char name[PMIX_MAX_NSLEN + 1];
    unsigned id;    /* names its segment files: never the raw nspace */
    unsigned gen;   /* bumped by each re-registration */
    char *seg_path; /* current published segment */
    sy_jobinfo_summary_t summary;
    /* what PMIx_server_setup_local_support added (server_setup.c), for a
     * re-registration; the registration itself is not kept */
    int nlocalprocs;
    pmix_info_t *local_info;
    size_t nlocal_info;
    struct sy_srv_nspace *next;
} sy_srv_nspace_t;

typedef enum {
    SY_PEER_AWAIT_HELLO, /* nothing authenticated yet */
    SY_PEER_AWAIT_HOST,  /* identity checked, host's client_connected pending */
    SY_PEER_READY,
    SY_PEER_DIRECT, /* a READY client's direct channel (wire.h) */
    SY_PEER_CLOSED
} sy_peer_state_t;

typedef struct sy_srv_peer {
    sy_conn_t *conn;
    bool tcp;
    bool cred_known; /* uid/gid/pid below come from SO_PEERCRED */
    uid_t uid;
    gid_t gid;
    pid_t pid;
    sy_peer_state_t state;
    unsigned refs;     /* 1 while listed + 1 per pending host operation */
    sy_timer_t *timer; /* HELLO deadline, or the reap after a close */
    sy_srv_client_t *client;
    sy_srv_client_t *tool; /* a tool's own record (client points to it too) */
    pmix_proc_t proc;
    bool finalized;             /* FINALIZE received */
    struct sy_srv_peer *direct; /* READY: its direct channel, if open */
    struct sy_srv_peer *main;   /* DIRECT: the client it belongs to */
    unsigned long serial;       /* names it to host callbacks that may come late */
    struct sy_srv_peer *next;
    struct sy_srv_peer *prev;
} sy_srv_peer_t;

/* One accumulated PMIx_server_register_resources call. */
typedef struct sy_srv_res {
    pmix_info_t *info;
    size_t ninfo;
    struct sy_srv_res *next;
} sy_srv_res_t;

typedef struct {
    pmix_server_module_t module;
    sy_progress_t *progress;
    pmix_proc_t me;
    char hostname[256];
    char *tmpdir;
    bool tmpdir_made;
    char *system_tmpdir;
    bool tool_support, system_support, session_support, gateway, scheduler, remote;
    bool single_listener, usock_disable, tcp4_disable, tcp6_disable;
    mode_t sock_mode;
    size_t max_msg;           /* largest frame body of an authenticated peer (0: the default) */
    int tcp4_port, tcp6_port; /* requested; 0 = ephemeral, -1 = none */
    char **if_include, **if_exclude;
    /* listeners */
    int usock_fd, tcp4_fd, tcp6_fd;
    struct event *usock_ev, *tcp4_ev, *tcp6_ev;
    bool accept_paused;       /* listeners off after a failed accept */
    bool accept_starved;      /* ... logged once until an accept works */
    sy_timer_t *accept_timer; /* the retry while paused */
    char *usock_path;
    char *uri;         /* "<nspace>.<rank>;tcp4://addr:port", or NULL */
    char **made_files; /* every file we created outside segments */
    size_t nmade_files;
    time_t start_time;
    char tool_token[SY_SRV_TOKEN_LEN + 1]; /* tools' secret over TCP (rendezvous files) */
    /* A client's token is derived from its name under this key
     * (server_registry.c): setup_fork, also in a forked child, needs no
     * registry.  Empty (ok false) without randomness: no TCP clients. */
    uint8_t client_key[16];
    bool client_key_ok;
    bool started; /* PMIx_server_init is done: the listeners are known */
    /* registry */
    sy_srv_client_t *clients;
    sy_srv_nspace_t *nspaces;
    unsigned next_nspace_id;
    sy_srv_peer_t *peers;
    sy_srv_res_t *resources;
    sy_srv_res_t *topo_resources; /* this node's shared topology */
    char *res_path;
    unsigned res_gen;
} sy_srv_t;

/* The one server of the process; NULL when not initialized.  Loop only. */
extern sy_srv_t *sy_srv;

/* Guards the reference count and the liveness the host callbacks test.
 * Held across fork() (server_util.c), so a forked child finds it free and
 * what it guards consistent. */
extern pthread_mutex_t sy_srv_life_lock;
extern bool sy_srv_alive;
void sy_srv_atfork_init(void);
/* A use of the live server outside the lock: its runtime, or NULL when
 * there is none; the server is not freed until sy_srv_unuse.  Finalize,
 * holding the lock once sy_srv_alive is false, waits for every use to end
 * (sy_srv_wait_unused).  Never allocates or blocks under the lock. */
sy_progress_t *sy_srv_use(void);
void sy_srv_unuse(void);
void sy_srv_wait_unused(void);

/* ---- server_listen.c ---- */
pmix_status_t sy_srv_listen_start(sy_srv_t *s);
void sy_srv_listen_stop(sy_srv_t *s);
/* One of our descriptors was closed: listen again if a failed accept
 * paused the listeners (server_listen.c). */
void sy_srv_accept_resume(sy_srv_t *s);
pmix_status_t sy_srv_rendezvous_write(sy_srv_t *s);
void sy_srv_remember_file(sy_srv_t *s, const char *path);
void sy_srv_remove_files(sy_srv_t *s);

/* ---- server_peer.c ---- */
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
pmix_status_t sy_srv_peer_send(sy_srv_peer_t *peer, pmix_data_buffer_t *buf);
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
bool sy_srv_peer_awaiting_host(const sy_srv_peer_t *peer);
/* Constant-time comparison of a presented token with ours. */
bool sy_srv_token_matches(const char *given, const char *expected);

/* ---- server_tool.c: tool connections ---- */
/* A HELLO of kind SY_PEER_TOOL; info is taken. */
void sy_srv_tool_hello(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *claimed,
                       const char *token, pmix_info_t *info, size_t ninfo);
/* A tool's connection ended (called while detaching it). */
void sy_srv_tool_gone(sy_srv_peer_t *peer);

/* ---- server_iof.c: IOF_PULL / IOF_DEREG / IOF_PUSH, PMIx_server_IOF_deliver ---- */
void sy_srv_iof_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_iof_peer_gone(sy_srv_peer_t *peer);
void sy_srv_iof_finalize(void);

/* ---- server_query.c: queries (the library's part, the host's part) ---- */
/* answers is the caller's to take (its infos) or leave (freed after).
 * done runs on the loop; when the server goes before the host answers,
 * gone(arg) runs instead (any thread: free arg, touch no loop state).
 * gone NULL (the server's own PMIx_Query_info): done runs with the host's
 * answer whenever it comes, after finalize too. */
typedef void (*sy_srv_query_done_fn)(pmix_status_t status, sy_infos_t *answers, void *arg);
void sy_srv_query(const pmix_proc_t *requestor, const pmix_query_t q[], size_t n,
                  sy_srv_query_done_fn done, sy_progress_fn_t gone, void *arg);
void sy_srv_query_init(void);
void sy_srv_query_finalize(void);

/* ---- server_modex.c: Commit, Fence, direct modex (issue 4) ---- */
void sy_srv_modex_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* The connection of a READY client ended; finalized tells whether it
 * called PMIx_Finalize first. */
void sy_srv_modex_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_modex_nspace_gone(sy_srv_t *s, const char *nspace);
void sy_srv_modex_finalize(sy_srv_t *s);

/* ---- server_modex.c: collectives other files drive (the group operations) ----
 * The fence tracker, completed the way the caller decides.  A collective
 * is named by (kind, key); procs are its participants (taken).  Once every
 * local participant joined, ops->ready(c) runs: the caller then ends it
 * with sy_srv_coll_finish, which replies to every joined peer with the
 * status and `extra` (may be NULL) and frees it.  When a participant ends
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
/* A participant that will not join: one less to wait for. */
void sy_srv_coll_drop(sy_srv_coll_t *c, const pmix_proc_t *p);
/* The host has the collective now: no local completion any more. */
void sy_srv_coll_host_called(sy_srv_coll_t *c);
/* This node's contribution: the participants' REMOTE and GLOBAL posted
 * data, in the fence blob's format. */
pmix_status_t sy_srv_coll_blob(const sy_srv_coll_t *c, pmix_data_buffer_t *blob);
/* Publish the participants' posted data plus the records of `remote`
 * (other nodes', from the host) as modex segments; paths receives what a
 * FENCE reply carries (SIZE n, n x (nspace, path)). */
pmix_status_t sy_srv_coll_publish(sy_srv_coll_t *c, const void *remote, size_t nremote,
                                  pmix_data_buffer_t *paths);
void sy_srv_coll_finish(sy_srv_coll_t *c, pmix_status_t status, const pmix_data_buffer_t *extra);

/* ---- server_pubsub.c: publish / lookup / unpublish through the host ---- */
void sy_srv_pubsub_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);

/* ---- server_cleanup.c: cleanup registered through job control ---- */
/* The cleanup directives of client c's job-control request (targets: its
 * own job when none) are recorded here and removed from *dirs (freed and
 * NULL when none is left); *had tells whether there were any.  An error
 * is the request's answer. */
pmix_status_t sy_srv_cleanup_take(const sy_srv_client_t *c, const pmix_proc_t *targets,
                                  size_t ntargets, pmix_info_t **dirs, size_t *ndirs, bool *had);
/* A client finalized or its connection ended; a namespace went; finalize. */
void sy_srv_cleanup_proc_gone(const pmix_proc_t *proc);
void sy_srv_cleanup_nspace_gone(const char *nspace);
void sy_srv_cleanup_finalize(void);

/* ---- server_hostops.c: query, log, job control through the host ---- */
void sy_srv_hostops_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);

/* ---- server_fabric.c: fabric route, SY_CMD_FABRIC, inventory (issue 8) ---- */
pmix_status_t sy_srv_fabric_init(sy_srv_t *s, const pmix_info_t info[], size_t ninfo);
void sy_srv_fabric_finalize(sy_srv_t *s);
void sy_srv_fabric_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* deregister_resources: remove the fabric devices named by PMIX_DEVICE_ID,
 * or by PMIX_FABRIC_DEVICE_NAME in a node's PMIX_NODE_INFO_ARRAY. */
void sy_srv_fabric_prune_devices(sy_srv_res_t *res, const pmix_info_t *gone, size_t ngone);

/* ---- server_pset.c: process sets defined by the host ---- */
void sy_srv_pset_finalize(sy_srv_t *s);
size_t sy_srv_pset_count(void);
/* The sets (member NULL: all of them) as a PMIX_DATA_ARRAY of strings. */
pmix_status_t sy_srv_pset_names(const pmix_proc_t *member, pmix_value_t *out);
pmix_status_t sy_srv_pset_members(const char *name, pmix_value_t *out);

/* ---- server_setquery.c: the query keys of sets and groups, answered here ---- */
/* One key of query q into *out; PMIX_ERR_NOT_SUPPORTED when it is not one
 * of these keys, PMIX_ERR_NOT_FOUND when it is but names nothing. */
pmix_status_t sy_srv_sets_answer(const pmix_query_t *q, const char *key, pmix_value_t *out);

/* ---- server_cred.c: credentials, the host's or the server's own ---- */
void sy_srv_cred_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_cred_finalize(sy_srv_t *s);

/* ---- server_event.c: event registration and notification (issue 4) ---- */
void sy_srv_event_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_event_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_event_finalize(sy_srv_t *s);
void sy_srv_event_init(sy_srv_t *s);
/* An event of the library itself (groups, process sets): to the clients in
 * range, into the cache for later registrations, and to the host's
 * notify_event when the range reaches other nodes. */
void sy_srv_event_raise(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                        const pmix_info_t info[], size_t ninfo);

/* ---- server_group.c: process groups (PMIx_Group_*) ---- */
void sy_srv_group_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* Every event the server passes on (from clients or the host): the group
 * events that concern a group of ours change it. */
void sy_srv_group_event(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                        size_t ninfo);
/* A client's connection ended: it leaves the groups it was in. */
void sy_srv_group_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_group_finalize(sy_srv_t *s);
/* For queries: the groups known here and the ones a process is in. */
pmix_status_t sy_srv_group_names(const pmix_proc_t *member, pmix_value_t *out);
pmix_status_t sy_srv_group_members(const char *grp, pmix_value_t *out);
/* Participants named by a group id ({grp, WILDCARD} or {grp, group rank})
 * replaced by the members (procs is reallocated), as a fence over a group
 * needs. */
pmix_status_t sy_srv_group_expand(pmix_proc_t **procs, size_t *nprocs);

/* ---- server_nspace.c ---- */
/* Publish an nspace's segment with info added (taken: kept by the nspace
 * for a re-registration, freed on failure); the clients see it at their
 * next Get. */
pmix_status_t sy_srv_nspace_add_info(sy_srv_t *s, sy_srv_nspace_t *ns, pmix_info_t *info,
                                     size_t ninfo);

/* ---- server_registry.c ---- */
sy_srv_client_t *sy_srv_client_find(sy_srv_t *s, const pmix_proc_t *proc);
sy_srv_client_t *sy_srv_client_get(sy_srv_t *s, const pmix_proc_t *proc); /* find or add */
sy_srv_nspace_t *sy_srv_nspace_find(sy_srv_t *s, const char *nspace);
/* A fresh secret of SY_SRV_TOKEN_LEN hex digits (empty without randomness). */
void sy_srv_hex_token(char out[SY_SRV_TOKEN_LEN + 1]);
/* The token of a client (empty when the server has no key). */
void sy_srv_client_token(const sy_srv_t *s, const pmix_proc_t *proc,
                         char out[SY_SRV_TOKEN_LEN + 1]);
void sy_srv_registry_free(sy_srv_t *s);
/* Its segment detached and removed, its memory freed (already unlisted). */
void sy_srv_nspace_free(sy_srv_nspace_t *ns);
/* unlink, with a warning unless the file is gone already (path may be NULL). */
void sy_srv_unlink(const char *path);
pmix_status_t sy_srv_resources_publish(sy_srv_t *s);

/* ---- server_util.c ---- */
bool sy_srv_info_is(const pmix_info_t *inf, const char *key);
/* PMIX_BOOL value, or true for a flag given with no value (PMIX_UNDEF). */
/* A host completion: run done(arg) on the loop, unless the server is
 * gone, in which case drop(arg) frees it on the calling thread. */
void sy_srv_post_or_drop(sy_progress_fn_t done, sy_progress_fn_t drop, void *arg);
/* A count (PMIX_SIZE, at most what is left of b), then that many infos
 * or procs (malloc'd, NULL for none). */
pmix_status_t sy_srv_unpack_count(pmix_data_buffer_t *b, size_t *n);
pmix_status_t sy_srv_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *ninfo);
pmix_status_t sy_srv_unpack_procs(pmix_data_buffer_t *b, pmix_proc_t **procs, size_t *n);
/* Fill buf with n random bytes (getrandom, falling back to /dev/urandom). */
pmix_status_t sy_srv_random(void *buf, size_t n);
/* Append PMIX_USERID and PMIX_GRPID of the client (its registered ids)
 * to a malloc'd info array, as the upcalls that act for a client need. */
pmix_status_t sy_srv_add_ids(pmix_info_t **info, size_t *ninfo, const sy_srv_client_t *c);
/* Post fn(arg) to the loop of a live server; PMIX_ERR_INIT when there is
 * none (fn is then never called). */
pmix_status_t sy_srv_post(sy_progress_fn_t fn, void *arg);
/* For the blocking variants of the API (NULL cbfunc): wait on the loop's
 * progress for a sync the posted work signals. */
sy_progress_t *sy_srv_progress(void);

/* An API request thread-shifted to the loop.  Embed it first in a
 * malloc'd request struct; sy_srv_op_start posts fn(request) and, with a
 * NULL cbfunc, waits for the result (the blocking variants); fn ends with
 * sy_srv_op_finish, which fires cbfunc (and frees the request) or wakes the
 * waiter (who frees it). */
typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    bool blocking;
    sy_sync_t sync;
} sy_srv_op_t;
pmix_status_t sy_srv_op_start(sy_srv_op_t *op, sy_progress_fn_t fn, pmix_op_cbfunc_t cbfunc,
                              void *cbdata);
void sy_srv_op_finish(sy_srv_op_t *op, pmix_status_t status);

/* ---- server_upcall.c: the request object of host upcalls ---- */
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
/* An unsolicited message (SY_WMSG_*_MSG): its kind, then its fields. */
pmix_status_t sy_srv_peer_send_msg(sy_srv_peer_t *peer, sy_wire_msg_id_t id, const void *msg);
#endif
