/* State of the server role, shared by the files of src/server/ only: the
 * server, its namespaces, clients and peers.  What each file offers the
 * others is in that file's own header (server_peer.h, server_coll.h, ...),
 * so that a file's includes show what it depends on.
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
    /* the ds21 store OpenPMIx clients read (server_ds21.c), or NULL; its
     * job data written yet */
    struct sy_ds21 *ds21;
    bool ds21_loaded;
    struct sy_srv_nspace *next;
} sy_srv_nspace_t;

typedef enum {
    SY_PEER_AWAIT_HELLO, /* nothing authenticated yet */
    SY_PEER_AWAIT_HOST,  /* identity checked, host's client_connected pending */
    SY_PEER_READY,
    SY_PEER_DIRECT, /* a READY client's direct channel (wire.h) */
    SY_PEER_CLOSED
} sy_peer_state_t;

/* The events a server keeps for late registrations; also how many live
 * events a peer may have in flight when it registers a handler and still
 * be replayed exactly the ones it missed (server_event.c). */
#define SY_EVENT_CACHE_MAX 128

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
    bool opx;                   /* speaks OpenPMIx's protocol (server_opx.c) */
    uint8_t opx_kind;           /* ... and its connect message's process type */
    bool opx_ds21;              /* ... and it reads the ds21 store (server_ds21.c) */
    struct sy_srv_peer *direct; /* READY: its direct channel, if open */
    struct sy_srv_peer *main;   /* DIRECT: the client it belongs to */
    unsigned long serial;       /* names it to host callbacks that may come late */
    /* live events sent, and the numbers of the last SY_EVENT_CACHE_MAX
     * (allocated with the first) */
    uint64_t events_sent;
    uint64_t *events_sent_ids;
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
    bool homogeneous; /* PMIX_HOMOGENEOUS_SYSTEM: told to every job's clients */
    bool monitoring;  /* PMIX_SERVER_ENABLE_MONITORING: heartbeats served here */
    char *singleton;  /* PMIX_SINGLETON: "nspace.rank" registered at init, or NULL */
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
#endif
