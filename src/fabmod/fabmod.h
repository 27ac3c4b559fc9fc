/* The fabric engine module: the one interface between libpmix and
 * libswitchyard-fabric.so, the separately built shared object that holds
 * src/fabric/ with libfabric and igraph.  libpmix dlopen()s it (RTLD_LOCAL)
 * only in a scheduler, or in a server asked for its inventory, so that no
 * other process pays for loading libfabric (docs/fabric.md, "Scheduler
 * role").  The module exports exactly one symbol, SY_FABMOD_SYMBOL, a
 * table of functions; everything it returns is plain libc memory.
 *
 * None of these functions is thread-safe: libpmix calls them from one
 * thread at a time (the scheduler's worker thread, sched_worker.h). */
#ifndef SWITCHYARD_SCHED_FABMOD_H
#define SWITCHYARD_SCHED_FABMOD_H

#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

/* Raised whenever the table below changes: libpmix refuses a module of
 * another ABI (a stale install found on the search path). */
#define SY_FABMOD_ABI 4u
#define SY_FABMOD_SYMBOL "sy_fabmod_v1"

typedef struct sy_fabmod_fab sy_fabmod_fab_t;

/* One node of a job for sy_fabmod_ops_t.job_data. */
typedef struct {
    const char *name;         /* the job's name for the node */
    const pmix_rank_t *ranks; /* the job's ranks on it */
    size_t nranks;
    /* PMIX_FABRIC_DEVICES the node delivered in its inventory, or NULL */
    const pmix_value_t *inventory;
} sy_fabmod_node_t;

typedef struct sy_fabmod_ops {
    unsigned abi; /* SY_FABMOD_ABI */

    /* A fabric from a topology file (format NULL: detect) or, when path is
     * NULL, from a generator spec.  *errmsg: one malloc'd line. */
    pmix_status_t (*open)(const char *path, const char *format, const char *spec,
                          sy_fabmod_fab_t **out, char **errmsg);
    void (*close)(sy_fabmod_fab_t *f);
    const char *(*last_error)(sy_fabmod_fab_t *f);
    /* What the reader passed over ("N lines that are not ... topology"),
     * or NULL. */
    const char *(*note)(sy_fabmod_fab_t *f);
    /* A fingerprint of the device set (names in device index order): when
     * it changes, endpoint assignments do (PMIX_FABRIC_UPDATE_ENDPOINTS). */
    uint64_t (*devices_hash)(sy_fabmod_fab_t *f);
    /* The computed plane ids as a NULL-terminated malloc'd argv. */
    pmix_status_t (*planes)(sy_fabmod_fab_t *f, char ***ids);

    /* The pmix_fabric_t attributes of one plane (NULL: the whole fabric):
     * PMIX_FABRIC_NUM_DEVICES, _COST_MATRIX, _GROUPS, _PLANE, _DIMS, _SHAPE,
     * _SHAPE_STRING.  The matrix is a PMIX_POINTER into the engine when
     * plane is NULL and by_value is false (valid until the next refresh),
     * else a PMIX_BYTE_OBJECT copy of the plane's rows and columns.  A
     * PMIX_FABRIC_DEVICE_INDEX directive (uint32, or a data array of them)
     * asks for those devices only: the matrix is their square submatrix in
     * the order given, PMIX_FABRIC_NUM_DEVICES their count, and
     * PMIX_FABRIC_DEVICE_INDEX (array) says which device each row is.
     * dirs may hold anything else too: it is ignored. */
    pmix_status_t (*describe)(sy_fabmod_fab_t *f, const char *plane, bool by_value,
                              const pmix_info_t *dirs, size_t ndirs, pmix_info_t **info,
                              size_t *ninfo);

    /* Changes.  They edit the topology at once but recompute nothing: what
     * describe() handed out stays valid until refresh() or the next
     * describe(), either of which recomputes what changed. */
    pmix_status_t (*reload)(sy_fabmod_fab_t *f, bool *changed);
    pmix_status_t (*link_state)(sy_fabmod_fab_t *f, const char *a, const char *b, uint8_t state,
                                bool *changed);
    pmix_status_t (*refresh)(sy_fabmod_fab_t *f);

    /* Fabric data of a job whose nodes are mapped onto the topology's hosts
     * (a node that is not a host of the topology takes the first host that
     * no node of the job names): one PMIX_NODE_INFO_ARRAY per mapped node
     * (PMIX_HOSTNAME, PMIX_FABRIC_DEVICES, PMIX_FABRIC_COORDINATES), one
     * PMIX_PROC_DATA per rank on a mapped node (PMIX_RANK,
     * PMIX_SWITCH_PEERS), and PMIX_FABRIC_PLANE / PMIX_FABRIC_SWITCH as
     * arrays of all plane and switch ids.  Appended to *info (realloc'd). */
    pmix_status_t (*job_data)(sy_fabmod_fab_t *f, const sy_fabmod_node_t *nodes, size_t nnodes,
                              pmix_info_t **info, size_t *ninfo);

    /* This node's inventory: PMIX_HOSTNAME, PMIX_FABRIC_DEVICES and, if the
     * node has any, SWITCHYARD_INV_GPUS. */
    pmix_status_t (*inventory)(const char *hostname, pmix_info_t **info, size_t *ninfo);

    /* Release process-wide caches (libfabric's fi_getinfo result). */
    void (*cleanup)(void);
} sy_fabmod_ops_t;

#endif
