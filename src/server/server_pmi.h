/* The PMI-1 and PMI-2 wire protocols served by the server library
 * (docs/pmi.md), for programs that bootstrap through PMI (MPICH's
 * libmpich speaks PMI-1 over the descriptor in PMI_FD).  Enabled by the
 * host with SWITCHYARD_SERVER_PMI at PMIx_server_init; then
 * PMIx_server_setup_fork gives each child one end of a socketpair bound to
 * its (namespace, rank) (PMI_FD, PMI_RANK, PMI_SIZE, ...), and a secret
 * PMI_ID for hydra's PMI_PORT mode.  The peer never names itself: the
 * descriptor (or the secret) is its identity.
 *
 * The files: server_pmi_wire.c (connections, framing, replies, the
 * hooks below), server_pmi_job.c (the PMI process as a process of its
 * job: its data in the modex store, its barrier in the collective engine,
 * its life told to the host; node attributes; the host upcalls),
 * server_pmi_spawn.c (spawn), server_pmi_port.c (PMI_PORT),
 * server_pmi_remote.c (a get of another node's key), server_pmi1.c
 * and server_pmi2.c (the commands).  Everything runs on the server's
 * loop. */
#ifndef SWITCHYARD_SERVER_PMI_H
#define SWITCHYARD_SERVER_PMI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* ---- hooks for the rest of the server ---- */
/* PMIx_server_init: SWITCHYARD_SERVER_PMI in info enables the protocols. */
void sy_srv_pmi_init(const pmix_info_t info[], size_t ninfo);
/* On the loop, before the peers are closed. */
void sy_srv_pmi_finalize(void);
/* PMIx_server_setup_fork, any thread: a socketpair for proc and the
 * PMI_* variables in *env (nothing when not enabled, or in a forked
 * child, where there is no loop). */
pmix_status_t sy_srv_pmi_setup_fork(const pmix_proc_t *proc, char ***env);
/* On the loop: a namespace was deregistered. */
void sy_srv_pmi_nspace_gone(const char *nspace);

/* ---- between the PMI files ---- */
struct event;
typedef struct sy_pmi_job sy_pmi_job_t;

struct sy_pmi_conn;
typedef struct sy_pmi_spawn sy_pmi_spawn_t;
typedef void (*sy_pmi_barrier_fn)(struct sy_pmi_conn *c, pmix_status_t status);

/* A PMI-2 info-getnodeattr with wait=TRUE, held until the key is put. */
typedef struct sy_pmi_nodewait {
    char *key, *thrid; /* thrid NULL: none was sent */
    struct sy_pmi_nodewait *next;
} sy_pmi_nodewait_t;

typedef struct sy_pmi_conn {
    int fd;
    struct event *rev, *wev;
    pmix_proc_t proc;
    sy_pmi_job_t *job;
    unsigned long serial; /* names it to callbacks that may come late */
    int version;          /* 0 until init, then 1 or 2 */
    bool finalized, aborted, in_barrier;
    char *in; /* unparsed input */
    size_t in_len, in_cap;
    char *out; /* unsent output */
    size_t out_len, out_off, out_cap;
    sy_pmi_barrier_fn barrier_done; /* while in_barrier */
    sy_pmi_spawn_t *spawn;          /* PMI-1: the mcmd=spawn blocks so far */
    char *fence_thrid;              /* PMI-2: the thrid= of the pending kvs-fence */
    /* PMI-2: node attributes waited for; a threaded client may wait for
     * several at once, each answered with its own thrid */
    struct sy_pmi_nodewait *waits;
    unsigned nwaits;
    struct sy_pmi_conn *next;
} sy_pmi_conn_t;

/* A connection on fd (taken) for proc of job j, listed and read; proc and
 * j NULL: a PMI_PORT connection not identified yet.  NULL on failure. */
sy_pmi_conn_t *sy_pmi_conn_new(int fd, const pmix_proc_t *proc, sy_pmi_job_t *j);
/* Queue a reply (PMI-1: one line, newline added; PMI-2: the body, the
 * length prefix added).  Returns false (and the connection is being
 * dropped) when it cannot be queued. */
bool sy_pmi_send1(sy_pmi_conn_t *c, const char *line);
bool sy_pmi_send2(sy_pmi_conn_t *c, const char *body);
/* Drop a connection that broke the protocol: one log line. */
void sy_pmi_drop(sy_pmi_conn_t *c, const char *why);
/* The live connection of that serial, or NULL. */
sy_pmi_conn_t *sy_pmi_conn_by_serial(unsigned long serial);
/* Every live connection (for barriers and waiters). */
sy_pmi_conn_t *sy_pmi_conns(void);

/* server_pmi1.c / server_pmi2.c: one complete message (NUL-terminated
 * copy; PMI-1 without its newline). */
void sy_pmi1_command(sy_pmi_conn_t *c, char *msg, size_t len);
void sy_pmi2_command(sy_pmi_conn_t *c, char *msg, size_t len);

/* ---- server_pmi_job.c ---- */
sy_pmi_job_t *sy_pmi_job_get(const char *nspace); /* find or make; NULL: no such nspace */
const char *sy_pmi_job_nspace(const sy_pmi_job_t *j);
uint32_t sy_pmi_job_size(const sy_pmi_job_t *j);
bool sy_pmi_job_aborted(const sy_pmi_job_t *j);
void sy_pmi_jobs_free(void);
void sy_pmi_job_free_nspace(const char *nspace);
/* The job's data (the server's modex store): a put is c's process's
 * committed PMIX_GLOBAL string and replaces its earlier value; a get
 * finds the key among the processes of nspace (rank srcid first when
 * >= 0; then c's own; then the lowest rank), NULL when absent. */
bool sy_pmi_kvs_put(sy_pmi_conn_t *c, const char *key, const char *val);
const char *sy_pmi_kvs_get(const sy_pmi_conn_t *c, const char *nspace, long srcid, const char *key);
/* A key the job's data here lacks, asked of the job's processes served
 * elsewhere (server_pmi_remote.c: the host's direct_modex; only srcid
 * when it names one of them): done(c, value, thrid) later on the loop
 * (value NULL: nobody has it), unless c closed.  false: nobody to ask
 * (every process is here, or the host has no direct_modex); answer now. */
typedef void (*sy_pmi_get_done_fn)(sy_pmi_conn_t *c, const char *value, const char *thrid);
bool sy_pmi_kvs_get_remote(sy_pmi_conn_t *c, const char *nspace, long srcid, const char *key,
                           const char *thrid, sy_pmi_get_done_fn done);
/* Node attributes (PMI-2). */
bool sy_pmi_nodeattr_put(sy_pmi_job_t *j, const char *key, const char *val);
const char *sy_pmi_nodeattr_get(const sy_pmi_job_t *j, const char *key);
/* The job's barrier: c joins the fence of its job (with its PMIx ranks,
 * collecting data); done(c, status) runs later on the loop (in_barrier
 * cleared first), unless c closed meanwhile. */
void sy_pmi_barrier_enter(sy_pmi_conn_t *c, sy_pmi_barrier_fn done);
/* The process's life told to the host and the server (as a PMIx client's
 * HELLO, FINALIZE and end are): after init, at finalize, when c closes. */
void sy_pmi_conn_started(sy_pmi_conn_t *c);
void sy_pmi_conn_finalized(sy_pmi_conn_t *c);
void sy_pmi_conn_gone(sy_pmi_conn_t *c);
/* Values of the job from its registration: -1 / NULL when unknown. */
long sy_pmi_appnum(const pmix_proc_t *proc);
long sy_pmi_universe(const sy_pmi_job_t *j);
bool sy_pmi_mapping(const sy_pmi_job_t *j, char *out, size_t len);
/* The host's abort upcall for c's process. */
void sy_pmi_abort(sy_pmi_conn_t *c, int status, const char *msg);
/* Name service through the host: done(c, rc, port, thrid) on the loop
 * (c still open; port NULL unless a lookup found it; thrid the request's,
 * copied: a threaded PMI-2 client may have several out at once). */
typedef void (*sy_pmi_ns_done_fn)(sy_pmi_conn_t *c, pmix_status_t rc, const char *port,
                                  const char *thrid);
void sy_pmi_publish(sy_pmi_conn_t *c, const char *service, const char *port, const char *thrid,
                    sy_pmi_ns_done_fn done);
void sy_pmi_unpublish(sy_pmi_conn_t *c, const char *service, const char *thrid,
                      sy_pmi_ns_done_fn done);
void sy_pmi_lookup(sy_pmi_conn_t *c, const char *service, const char *thrid,
                   sy_pmi_ns_done_fn done);

/* ---- server_pmi_port.c: hydra's PMI_PORT mode ---- */
/* On the loop: a fresh secret id naming proc to a PMI_PORT connection
 * (the listener, on 127.0.0.1, is opened on first use; *port its port);
 * 0 when there is none. */
uint32_t sy_pmi_port_id(const pmix_proc_t *proc, int *port);
/* An unidentified connection names itself (PMI-1 initack pmiid, PMI-2
 * fullinit pmirank): false (and c unchanged) unless id is a live secret,
 * which is used up. */
bool sy_pmi_port_identify(sy_pmi_conn_t *c, const char *id);
void sy_pmi_port_forget(const char *nspace);
void sy_pmi_port_finalize(void);

/* ---- server_pmi_spawn.c ---- */
struct sy_pmi_spawn {
    pmix_app_t *apps; /* one per command: cmd, argv (argv[0] = cmd), maxprocs, cwd, info */
    size_t napps;
    char **pre_keys, **pre_vals; /* preput pairs */
    size_t npre;
    char *thrid; /* PMI-2: echoed in the reply (a threaded client may have
                  * other requests out meanwhile) */
};
/* Builders: false / NULL when out of memory (what was made is freed with
 * the spawn).  An app pointer is valid until the next add_app. */
sy_pmi_spawn_t *sy_pmi_spawn_new(void);
pmix_app_t *sy_pmi_spawn_add_app(sy_pmi_spawn_t *sp, const char *cmd, int maxprocs);
bool sy_pmi_spawn_add_arg(pmix_app_t *app, const char *arg);
bool sy_pmi_spawn_add_info(pmix_app_t *app, const char *key, const char *val);
bool sy_pmi_spawn_add_preput(sy_pmi_spawn_t *sp, const char *key, const char *val);
void sy_pmi_spawn_free(sy_pmi_spawn_t *sp);
/* Put the preput pairs as c's data and call the host's spawn upcall (sp
 * is taken); done(c, sp, rc, nspace) later on the loop, unless c closed. */
typedef void (*sy_pmi_spawn_done_fn)(sy_pmi_conn_t *c, const sy_pmi_spawn_t *sp, pmix_status_t rc,
                                     const char *nspace);
void sy_pmi_spawn(sy_pmi_conn_t *c, sy_pmi_spawn_t *sp, sy_pmi_spawn_done_fn done);
/* The process that spawned the job nspace (its PMIX_PARENT_ID). */
bool sy_pmi_parent(const char *nspace, pmix_proc_t *parent);
#endif
