/* Fabric cost matrix: relative costs between every pair of devices.
 *
 * Layout (what PMIX_FABRIC_COST_MATRIX points to): n×n uint16_t, row-major,
 * rows and columns in device-index order (devindex.h), so entry (i, j) is
 * m[i * n + j].  Conventions the standard leaves open:
 *   - 0 on the diagonal;
 *   - SY_COST_UNREACHABLE (65535) when no path of up links joins the two
 *     devices (another plane, or cut off by down links);
 *   - finite costs saturate at SY_COST_MAX (65534);
 *   - devices never forward traffic: a path runs device, switch, ...,
 *     switch, device, never through a third device;
 *   - links in state PMIX_LINK_DOWN do not exist; UNKNOWN counts as up.
 * Metrics: SY_COST_HOPS (default) counts links on the shortest path
 * (device-switch-device = 2, device-leaf-spine-leaf-device = 4).
 * SY_COST_SPEED gives each link the cost ceil(ref / speed), ref being the
 * fastest up link of the topology, 1 for an unknown speed (0), at most
 * 65534, and sums along the cheapest path (Dijkstra).  Both are symmetric.
 *
 * The matrix is one anonymous mapping (huge pages requested), written
 * straight by the searches: memory is n²·2 bytes plus O(V+E) per thread. */
#ifndef SWITCHYARD_FABRIC_COST_H
#define SWITCHYARD_FABRIC_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/topo.h"

#define SY_COST_UNREACHABLE UINT16_MAX
#define SY_COST_MAX (UINT16_MAX - 1)
#define SY_COST_DEFAULT_MAX_BYTES ((uint64_t)4 << 30)
#define SY_COST_MAX_THREADS 64u
#define SY_COST_DEFAULT_THREADS_CAP 8u

typedef enum { SY_COST_HOPS = 0, SY_COST_SPEED = 1 } sy_cost_metric_t;

typedef enum {
    /* Leaf-collapse when every device has at most one up link and it goes
     * to a switch, per-source search otherwise. */
    SY_COST_ALGO_AUTO = 0,
    /* Force leaf-collapse: PMIX_ERR_NOT_SUPPORTED when it does not apply. */
    SY_COST_ALGO_LEAF = 1,
    /* Force one search per device over the whole graph. */
    SY_COST_ALGO_SOURCE = 2
} sy_cost_algo_t;

/* Progress: `done` of `total` work items (searches).  Called from the
 * thread that called sy_cost_compute, at most ~100 times, the last time
 * with done == total. */
typedef void (*sy_cost_progress_fn_t)(uint64_t done, uint64_t total, void *arg);

typedef struct {
    sy_cost_metric_t metric;
    sy_cost_algo_t algo;
    unsigned nthreads;              /* 0 = online CPUs, at most 8; explicit values
                                     * are capped at SY_COST_MAX_THREADS */
    uint64_t max_bytes;             /* matrix size cap, 0 = SY_COST_DEFAULT_MAX_BYTES */
    sy_cost_progress_fn_t progress; /* may be NULL */
    void *progress_arg;
} sy_cost_opts_t;

typedef struct {
    uint32_t n;   /* devices: rows and columns */
    uint16_t *m;  /* n*n entries; NULL when n == 0 */
    size_t bytes; /* n*n*sizeof(uint16_t) */
    sy_cost_metric_t metric;
    sy_cost_algo_t algo;    /* the algorithm used (never AUTO) */
    bool torus_closed_form; /* leaf-collapse took switch distances from a
                             * verified torus lattice instead of BFS */
    uint64_t generation;    /* topology generation it was computed from */
    /* private: the mapping that holds m */
    void *map_base;
    size_t map_len;
} sy_cost_t;

/* Compute the matrix of `t` into *out (overwritten; free with
 * sy_cost_free).  `ix` may be NULL (built internally); `opts` may be NULL
 * (defaults).  The topology need not be finalized.  Errors:
 * PMIX_ERR_BAD_PARAM (NULL t/out, index not matching t),
 * PMIX_ERR_OUT_OF_RESOURCE (matrix above the cap; nothing allocated),
 * PMIX_ERR_NOT_SUPPORTED (forced leaf-collapse that does not apply),
 * PMIX_ERR_NOMEM.  On error *out is zeroed. */
pmix_status_t sy_cost_compute(const sy_topo_t *t, const sy_devindex_t *ix,
                              const sy_cost_opts_t *opts, sy_cost_t *out);
/* Unmap the matrix and zero *c; NULL and zeroed structs are fine. */
void sy_cost_free(sy_cost_t *c);

/* Entry (i, j); SY_COST_UNREACHABLE when out of range. */
static inline uint16_t sy_cost_get(const sy_cost_t *c, uint32_t i, uint32_t j)
{
    if (c == NULL || c->m == NULL || i >= c->n || j >= c->n) {
        return SY_COST_UNREACHABLE;
    }
    return c->m[(size_t)i * c->n + j];
}

#endif
