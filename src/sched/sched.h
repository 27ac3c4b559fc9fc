/* The fabric API of every role and the scheduler role (docs/fabric.md,
 * "Scheduler role").
 *
 * PMIx_Fabric_* are served by whichever route the roles of this process
 * installed: a scheduler server answers from its engines, another server
 * asks its host's `fabric` upcall, a client sends SY_CMD_FABRIC to its
 * server.  A route answers an operation with an info array: the
 * pmix_fabric_t attributes, PMIX_FABRIC_INDEX among them.  The cost matrix
 * crosses processes as a PMIX_BYTE_OBJECT, which fabric_api.c turns into a
 * pointer to the caller's own copy, or (a big one, from a client's server
 * on this host) as a read-only mapping of a sealed memfd.
 *
 * Everything here runs on the runtime's loop. */
#ifndef SWITCHYARD_SCHED_SCHED_H
#define SWITCHYARD_SCHED_SCHED_H

#include <stdbool.h>

#include <pmix_common.h>

/* The answer to a route request: info is taken by the callee (malloc'd,
 * freed with PMIX_INFO_FREE), NULL on error.  Called on the loop, possibly
 * before the route function returned. */
typedef void (*sy_fabric_reply_fn)(pmix_status_t status, pmix_info_t *info, size_t ninfo,
                                   void *arg);
/* PMIX_SUCCESS: cb fires exactly once.  Anything else: it never fires.
 * requestor is NULL for this process's own registrations. */
typedef pmix_status_t (*sy_fabric_route_fn)(const pmix_proc_t *requestor,
                                            pmix_fabric_operation_t op, const pmix_info_t dirs[],
                                            size_t ndirs, sy_fabric_reply_fn cb, void *arg);

typedef enum { SY_FABRIC_ROUTE_CLIENT = 0, SY_FABRIC_ROUTE_SERVER = 1 } sy_fabric_route_level_t;

/* SY_CMD_FABRIC between a client and its server on this host
 * (docs/wire-protocol.md, "FABRIC"): a client that can map a matrix from a
 * sealed memfd says so with SY_FABRIC_SHM_OK (bool) among its directives,
 * which its server takes out before routing; the server may then answer
 * with SY_FABRIC_CM_SHM (size_t: the matrix's bytes) in place of
 * PMIX_FABRIC_COST_MATRIX and the memfd riding on the reply frame.  It does
 * for a matrix above SY_FABRIC_SHM_MIN_ENV bytes (default 8 MiB; a test can
 * force the path with 0). */
#define SY_FABRIC_SHM_OK "sy.fabric.shm.ok"
#define SY_FABRIC_CM_SHM "sy.fabric.cm.shm"
#define SY_FABRIC_SHM_MIN_ENV "SWITCHYARD_FABRIC_SHM_MIN"
#define SY_FABRIC_SHM_MIN_DEFAULT ((size_t)8 << 20)

/* ---- fabric_api.c ---- */
/* A route's answer may carry the matrix as a read-only mapping of `size`
 * bytes (a client's, from its server's memfd): entry e becomes
 * PMIX_FABRIC_COST_MATRIX, a pointer to it, and the mapping is released
 * (munmap) with the registration's data, or copied into a byte object for a
 * registration by value.  Loop only. */
void sy_fabric_adopt_mapping(pmix_info_t *e, void *map, size_t size);

/* A role came up (fn) or goes down (NULL); the server's route wins over the
 * client's.  The last one gone releases every registration left (their
 * pmix_fabric_t are emptied).  Loop only. */
void sy_fabric_set_route(sy_fabric_route_level_t level, sy_fabric_route_fn fn);

/* ---- sched.c: the scheduler role (PMIX_SERVER_SCHEDULER) ---- */
/* Record the fabric definitions of PMIx_server_init (nothing is loaded
 * yet); hostname names this node.  Loop only. */
pmix_status_t sy_sched_init(const pmix_info_t info[], size_t ninfo, const pmix_proc_t *me);
void sy_sched_finalize(void);
bool sy_sched_active(void);
/* The scheduler's route. */
pmix_status_t sy_sched_route(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                             const pmix_info_t dirs[], size_t ndirs, sy_fabric_reply_fn cb,
                             void *arg);
/* A PMIX_FABRIC_UPDATE_PENDING chain of this process completed: changes
 * waiting for it are applied to the engines (on the worker thread);
 * requests are held until then and served after. */
void sy_sched_apply_pending(void);
/* Completion of the asynchronous calls below, on the loop. */
typedef void (*sy_sched_done_fn)(pmix_status_t status, void *arg);
/* deliver_inventory: keep the node's devices, apply fabric change
 * directives (SWITCHYARD_FABRIC_LINK, _RELOAD).  PMIX_SUCCESS: cb fires
 * (maybe before the return); the arrays are not used after the return. */
pmix_status_t sy_sched_inventory(const pmix_info_t info[], size_t ninfo, const pmix_info_t dirs[],
                                 size_t ndirs, sy_sched_done_fn cb, void *arg);
/* Fabric data of a job (setup_application): appended to *info (realloc'd)
 * on the worker thread; nodes, ranks, *info and *ninfo must stay valid and
 * untouched until cb, which fires when PMIX_SUCCESS is returned. */
pmix_status_t sy_sched_job_data(char **nodes, char **ranks, pmix_info_t **info, size_t *ninfo,
                                sy_sched_done_fn cb, void *arg);

/* ---- sched_module.c: the engine module, loaded on first use ---- */
struct sy_fabmod_ops;
pmix_status_t sy_fabmod_load(const struct sy_fabmod_ops **ops);
/* Release the module's caches; the module itself stays loaded. */
void sy_fabmod_unload(void);

#endif
