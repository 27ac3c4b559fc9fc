/* The tool role (Chap_API_Tools.tex): a client that found its server
 * through rendezvous files instead of its environment, and may hold
 * several servers at once.  The primary server's connection is the
 * client's (sy_client.conn), so every client API works unchanged over it;
 * this role only finds, connects, switches and closes servers. */
#ifndef SWITCHYARD_TOOL_INTERNAL_H
#define SWITCHYARD_TOOL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include <pmix_common.h>
#include <pmix_server.h>

#include "common/frame.h"

typedef struct sy_tool_server {
    pmix_proc_t proc;
    sy_conn_t *conn;
    char *host;
    char *uri;
    pid_t pid;
    bool opx;                    /* an OpenPMIx server: its protocol on this connection */
    struct sy_tool_server *next; /* in order of attachment */
} sy_tool_server_t;

typedef struct {
    unsigned refcount;
    sy_tool_server_t *servers;
    sy_tool_server_t *primary;
    sy_conn_t **closed; /* connections that ended: freed at finalize, since
                         * another thread may still be sending on one */
    size_t nclosed;
    bool launcher; /* PMIX_LAUNCHER started a server in this process */
} sy_tool_t;

/* Guards sy_tool; sy_client_lock may be taken while holding it, never the
 * other way round. */
extern pthread_mutex_t sy_tool_lock;
extern sy_tool_t sy_tool;

/* ---- tool_attach.c ---- */
/* Find a server by info's precedence chain (Chap_API_Tools.tex,
 * "Rendezvousing with a local server") and connect to it.  primary: make
 * it the primary server (the first one always is).  *server (may be NULL)
 * receives its identity. */
pmix_status_t sy_tool_attach(const pmix_info_t info[], size_t ninfo, bool primary,
                             pmix_proc_t *server);
/* Make s (listed) the primary server. Under sy_tool_lock. */
void sy_tool_make_primary(sy_tool_server_t *s);
/* Close every connection and free the list (the loop must still run). */
void sy_tool_close_all(void);
/* Tell the server we leave, close and forget it. */
pmix_status_t sy_tool_drop(sy_tool_server_t *s);

/* ---- tool_rndz.c: a tool started by another tool ---- */
/* PMIX_LAUNCHER_RNDZ_URI is set, and the identity given with it. */
bool sy_tool_rndz_given(void);
bool sy_tool_rndz_identity(pmix_proc_t *me);
/* Watch PMIX_KEEPALIVE_PIPE; connect back to PMIX_LAUNCHER_RNDZ_URI,
 * record PMIX_PARENT_ID and pause while asked to stop in init. */
pmix_status_t sy_tool_rndz_connect(const pmix_proc_t *me);
void sy_tool_rndz_finalize(void);

/* ---- tool_spawn.c: tools started by a launcher tool with no server ---- */
pmix_status_t sy_tool_self_spawn(const pmix_info_t job_info[], size_t ninfo,
                                 const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                                 void *cbdata);
/* The launcher server's default host answers (tool_connected). */
void sy_tool_spawn_module(pmix_server_module_t *module);
/* A process we started has connected back to our server. */
bool sy_tool_spawn_connected(const pmix_proc_t *proc);
void sy_tool_spawn_finalize(void);

#endif
