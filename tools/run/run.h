/* switchyard-run: a one-machine host that embeds the PMIx server (public
 * API only) and launches a job of one or more app contexts.
 *
 *   run_opts.c  command line            run_job.c   registering the job
 *   run_host.c  the host module         run_iof.c   output forwarding
 *   run_bind.c  mapping and binding     run_main.c  launch, wait, exit status
 *   run_launch.c  starting one process (vfork, exec)
 *   run_pubsub.c  the publish/lookup datastore
 *   run_ops.c   query, log, job control
 *   run_group.c process groups, allocations, process sets
 *   run_tool.c  tools: connections, output they pull, stdin they push
 *   run_debug.c debuggers: pauses, debugger daemons, releases */
#ifndef SWITCHYARD_RUN_H
#define SWITCHYARD_RUN_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>
#include <pmix_server.h>

typedef enum { RUN_MAP_CORE, RUN_MAP_PACKAGE } run_map_t;
/* --max-procs default: far more than a node runs, far less than what would
 * exhaust its process table */
#define RUN_MAX_PROCS 4096
typedef enum { RUN_BIND_CORE, RUN_BIND_PACKAGE, RUN_BIND_NONE } run_bind_t;
/* where rank 0's stdin comes from (--stdin) */
typedef enum { RUN_STDIN_INHERIT, RUN_STDIN_TOOLS, RUN_STDIN_NONE } run_stdin_t;

typedef struct {
    unsigned np;
    char **argv;      /* NULL-terminated, points into the command line */
    char *wdir;       /* NULL: the launcher's cwd */
    const char *pset; /* --pset: the process set of this context, or NULL */
    char **env;       /* NAME=VALUE of this context only (spawned apps), or NULL */
    char *where;      /* spawned apps: argv[0] when it is a path to cmd */
} run_app_t;

/* run_debug.c: what a spawn request asked of the debugger support */
typedef struct run_debug run_debug_t;

typedef struct {
    run_app_t *apps;
    unsigned napps;
    char **env; /* NAME=VALUE to set in every process (malloc'd) */
    size_t nenv;
    char *wdir;
    double timeout; /* seconds, 0 = none */
    bool tag_output;
    char *output_dir;
    const char *fabric; /* --fabric: topology file or generator spec */
    bool oversubscribe;
    unsigned max_procs; /* --max-procs: processes at once, spawned included */
    bool verbose;
    bool system; /* --system: the node's system server (maybe with no job) */
    run_map_t map_by;
    run_bind_t bind_to;
    bool bind_given;
    run_stdin_t stdin_mode;
    run_debug_t *debug; /* debugger directives (a spawned job's, or the launch
                         * directives of the tool that started us), or NULL */
} run_opts_t;

/* One process of the job. */
typedef struct {
    pmix_rank_t rank;
    unsigned app;
    unsigned app_rank;
    pid_t pid;
    int out_fd, err_fd;    /* read ends, -1 once closed */
    hwloc_bitmap_t cpuset; /* NULL when unbound */
    char *locality;        /* PMIx locality string, or NULL */
    char *cpuset_str;      /* "hwloc:..." or NULL */
    bool connected, finalized, exited;
    int status;             /* waitpid status */
    int out_file, err_file; /* --output-dir files, -1 when none */
    /* between run_launch and run_launched: the exec-status pipe and the
     * write end of a --stdin tools pipe (-1 when none) */
    int exec_fd, stdin_fd;
} run_proc_t;

typedef struct {
    run_opts_t *opts;
    char nspace[PMIX_MAX_NSLEN + 1];
    char hostname[256];
    hwloc_topology_t topo;
    run_proc_t *procs;
    unsigned nprocs;
    unsigned nexited;
    void *iof;               /* run_iof.c's per-stream state */
    const char *session_dir; /* PMIX_TMPDIR: the launcher's private directory */
    bool spawned;            /* started by PMIx_Spawn */
    pmix_proc_t parent;      /* ... from this process */
    /* What explains the job's end, decided once, under the host lock (the
     * server's thread sees lost connections and aborts, the main thread
     * reaps): */
    int first_failed; /* the first process that failed on its own: lost
                       * by the server, or reaped failing, before anything
                       * else explained the end; -1: none */
    bool failing;     /* the launcher is stopping the job (a failure, an
                       * abort, a signal, the timeout); main thread writes */
    bool aborted;     /* PMIx_Abort was called (the first call counts) */
    bool abort_late;  /* ... after a failure explained the end already */
    int abort_status;
    pmix_rank_t abort_rank;
    char *abort_msg;
    int spawn_status;  /* main thread: the waitpid status of the spawned
                        * process whose failure explained the end, or 0 */
    double extra_time; /* seconds an allocation request added to --timeout */
} run_job_t;

/* run_opts.c: 0 on success, 1 on a usage error (message printed), 2 for
 * --help (printed). */
int run_parse(int argc, char **argv, run_opts_t *opts);
/* Add NAME=VALUE, or NAME with our value of it, to opts->env; 1 (with a
 * message) when NAME is not set here or memory ran out. */
int run_opts_add_env(run_opts_t *opts, const char *entry);

/* run_fabric.c: --fabric.  The server-init attributes that make the
 * launcher the scheduler of that fabric (0 or 2 of them), and the job's
 * fabric data through setup_application / setup_local_support. */
size_t run_fabric_server_info(const run_opts_t *opts, pmix_info_t *info);
int run_fabric_setup(run_job_t *job);
void run_opts_free(run_opts_t *opts);
void run_usage(FILE *out);

/* run_bind.c: place every process (cpusets, locality strings); -1 with a
 * message when the job does not fit and oversubscription is not allowed. */
int run_place(run_job_t *job);

/* run_job.c */
int run_register(run_job_t *job);
/* The job's node and proc maps (PMIx_generate_regex/ppn; the caller frees
 * both); -1 with a message on failure. */
int run_maps(const run_job_t *job, char **nodes, char **procs);
void run_deregister(run_job_t *job);

/* run_host.c: the module, and the job the upcalls act on. */
void run_host_module(pmix_server_module_t *m, run_job_t *job);
/* Kill every live process of the job with sig. */
void run_kill_all(run_job_t *job, int sig);
/* A consistent view, for the main thread, of what the upcalls set. */
/* Mark processes that vanish without finalizing as soon as the server
 * sees it (after PMIx_server_init). */
void run_host_watch_losses(void);
void run_host_lock(void);
void run_host_unlock(void);

/* run_pubsub.c: the datastore behind publish/lookup/unpublish. */
void run_pubsub_module(pmix_server_module_t *m);
/* From the main loop: time out held lookups. */
void run_pubsub_tick(void);
/* A process exited: its PMIX_PERSIST_PROC data goes. */
void run_pubsub_proc_gone(const pmix_proc_t *proc);
void run_pubsub_free(void);

/* run_ops.c: query, log, job control (cleanup registrations and heartbeat
 * monitoring are the library's: src/server/server_cleanup.c,
 * server_monitor.c); run_ops_cleanup answers what is still parked. */
void run_ops_module(pmix_server_module_t *m, run_job_t *job);
void run_ops_cleanup(void);
/* From the main loop: parked requests whose time came. */
void run_ops_tick(void);
/* An allocation request was decided: status queries waiting for it are
 * answered.  Any thread. */
void run_ops_alloc_decided(void);

/* run_group.c: the group and allocate upcalls; the process sets of a
 * job's app contexts (--pset), defined once it is registered and deleted
 * before it is deregistered. */
void run_group_module(pmix_server_module_t *m, run_job_t *job);
int run_psets_define(run_job_t *job);
/* PMIX_QUERY_ALLOC_STATUS of an allocation id (NULL: the launcher's own):
 * "active", "granted", "refused: <status>" (malloc'd), or NULL when no
 * request named it yet.  Any thread.  run_alloc_free at the end. */
char *run_alloc_status(const char *id);
void run_alloc_free(void);
void run_psets_delete(run_job_t *job);

/* run_launch.c: start one process of a job: 0 once it runs its program, -1
 * with errno when it could not be started (fork failed, or the program
 * could not be executed: ENOENT, EACCES, ...; that child is reaped).
 * run_start is run_launch (vfork: -1 with errno when that failed) then
 * run_launched (wait until the child ran its program or said why it
 * could not).  A rank started with vfork has exec'd (or failed to) when
 * run_launch returns; one traced with fork (PMIX_DEBUG_STOP_ON_EXEC) may
 * not have, hence a job's ranks are all launched before the first is
 * waited for. */
int run_start(run_job_t *job, run_proc_t *p);
int run_launch(run_job_t *job, run_proc_t *p);
int run_launched(run_job_t *job, run_proc_t *p);

/* run_spawn.c: jobs started by PMIx_Spawn, served from the main loop. */
void run_spawn_module(pmix_server_module_t *m, int wake_fd);
/* Check and admit what was asked for, start the next batch of processes
 * of jobs being launched; poll the children's output (no waiting). */
void run_spawn_service(run_job_t *main_job);
/* Is a spawned job being launched (the main loop must come back soon)? */
bool run_spawn_launching(void);
/* A reaped pid that is not the main job's: true when it was a child's. */
bool run_spawn_reaped(pid_t pid, int status, bool *failed);
/* Any spawned process still running? */
bool run_spawn_active(void);
void run_spawn_kill_all(int sig);
/* Read what is left, deregister, free (before the server goes). */
void run_spawn_finish(void);

/* run_spawn.c: is nspace one of the spawned jobs?  Any thread. */
bool run_spawn_knows(const char *nspace);
/* fn(arg, job) for each spawned job still running (some process not
 * reaped), under the spawn lock (fn copies what it keeps).  Any thread. */
void run_spawn_each(void (*fn)(void *arg, const run_job_t *job), void *arg);

/* run_tool.c: tool_connected, iof_pull, push_stdin; wake_fd wakes the main
 * loop, which answers tools (run_tool_service) and writes rank 0's stdin. */
void run_tool_module(pmix_server_module_t *m, run_job_t *job, int wake_fd);
/* After PMIx_server_init: PMIx_Register_attributes for every upcall. */
int run_tool_register_attrs(void);
void run_tool_service(void);
/* The write end of rank 0's stdin (--stdin tools), non-blocking; -1: none. */
void run_tool_set_stdin(int fd);
/* The fd to poll for writing (data is waiting), or -1; write what fits. */
int run_tool_stdin_fd(void);
void run_tool_stdin_write(void);
/* Is this output pulled away by a tool (PMIX_IOF_REDIRECT)?  stream 0:
 * stdout, 1: stderr. */
bool run_tool_redirected(const char *nspace, pmix_rank_t rank, int stream);
/* Before the server goes: refuse what waits, free. */
void run_tool_finish(void);

/* run_il.c: switchyard-run started by a tool (PMIX_LAUNCHER_RNDZ_URI):
 * the server's namespace the tool gave us (NULL: not started so), the
 * connection back to the tool on a thread (run_il_start), held until the
 * tool releases us (run_il_holding); then its directives apply to the job
 * and it becomes the job's parent (run_il_released, -1 on failure); it
 * hears the launch (run_il_launched) and the end (run_il_ended); if it
 * goes first, run_il_parent_gone. */
bool run_il_requested(void);
const char *run_il_server_nspace(void);
int run_il_start(int wake_fd);
bool run_il_holding(void);
bool run_il_parent_gone(void);
int run_il_released(run_job_t *job);
void run_il_launched(const run_job_t *job);
void run_il_ended(const run_job_t *job, int code);
void run_il_finish(void);

/* run_debug.c: debugger support for spawned jobs (pauses in init, at
 * exec or in the application; debugger daemons beside a job; releases).
 * run_debug_module sets notify_event and remembers the main job;
 * run_debug_init (after PMIx_server_init) watches for releases. */
void run_debug_module(pmix_server_module_t *m, const run_job_t *main_job);
int run_debug_init(void);
void run_debug_finish(void);
/* Server thread: the directives of a spawn request into o->debug (left
 * NULL when none); debugger daemon apps get their process count.  An
 * error status refuses the spawn. */
pmix_status_t run_debug_parse(run_opts_t *o, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps);
void run_debug_free(run_debug_t *d);
/* The job-level infos to register (malloc'd, *n of them), and, once
 * registered, the pauses to wait for. */
pmix_info_t *run_debug_job_info(const run_job_t *job, size_t *n);
void run_debug_job_registered(run_job_t *job);
/* In the forked child: is it to stop at exec (traced from here)? */
bool run_debug_stop_on_exec(const run_job_t *job, const run_proc_t *p);
/* Main thread: a traced child stopped (waitpid said so) is detached,
 * left stopped and counted; false when it could not be detached. */
bool run_debug_exec_stopped(pid_t pid);
const char *run_debug_spawn_support(void);
const char *run_debug_debug_support(void);

/* run_iof.c */
int run_iof_setup(run_job_t *job);
/* Forward what is readable; returns when `timeout_ms` passed or something
 * happened (data, a signal on wake_fd). */
void run_iof_poll(run_job_t *job, int wake_fd, int timeout_ms);
/* After every process exited: read pipes to their end. */
void run_iof_drain(run_job_t *job);
void run_iof_close(run_job_t *job);

#endif
