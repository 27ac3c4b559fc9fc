/* Private to cost.c / cost_bfs.c: the search graphs built from a topology
 * and the per-item kernels the worker threads run. */
#ifndef SWITCHYARD_FABRIC_COST_IMPL_H
#define SWITCHYARD_FABRIC_COST_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/cost.h"

#define SY_COST_LATTICE_MAX_DIMS 16

/* CSR over up links only.  w == NULL: every link costs 1. */
typedef struct {
    uint32_t n;
    uint32_t *off; /* n + 1 */
    uint32_t *adj;
    uint32_t *w;
} sy_cgraph_t;

typedef struct {
    const sy_topo_t *t;
    const sy_devindex_t *ix;
    sy_cost_metric_t metric;
    uint32_t ndev;
    uint16_t *m;

    /* per-source: all vertices */
    sy_cgraph_t g;

    /* leaf-collapse: switches renumbered 0..ns-1 */
    sy_cgraph_t sg;
    uint32_t *sidx;    /* vertex -> switch id, SY_TOPO_NONE for devices */
    uint32_t *attach;  /* device -> switch id, SY_TOPO_NONE when it has no up link */
    uint32_t *wdev;    /* device -> cost of its link */
    uint32_t ngroups;  /* groups of devices sharing an attachment */
    uint32_t *grp_sw;  /* switch id of group k (SY_TOPO_NONE: detached devices) */
    uint32_t *grp_off; /* ngroups + 1 offsets into grp_dev */
    uint32_t *grp_dev; /* device indexes grouped by attachment, ascending */

    /* Verified torus lattice (hop metric only): switch id s sits at
     * coordinates (s / stride[k]) % dim[k] and the switch graph is exactly
     * the torus, so switch distances have a closed form.  lat_nd == 0: no. */
    uint32_t lat_nd;
    uint32_t lat_dim[SY_COST_LATTICE_MAX_DIMS];
    uint32_t lat_stride[SY_COST_LATTICE_MAX_DIMS];
    uint32_t lat_sum; /* sum of dims: size of the per-thread tables */
    uint32_t lat_p;   /* > 0: device j hangs off switch j / lat_p, all of
                       * them, so whole rows are written in lattice order */
} sy_cost_ctx_t;

/* Per-thread scratch, sized for the graph the kernel searches. */
typedef struct {
    uint32_t *stamp; /* visited iff stamp[v] == cur */
    uint32_t cur;
    uint32_t *queue;
    uint32_t *dist32;   /* hop mode */
    uint64_t *dist64;   /* speed mode */
    uint64_t *heap_key; /* speed mode: lazy binary heap */
    uint32_t *heap_v;
    size_t heap_cap;
    uint16_t *tmpl;    /* leaf-collapse template row */
    uint16_t *tmpl2;   /* speed mode: template plus the row's own link */
    uint16_t *lat_tab; /* lattice: per-dimension ring distances */
    /* leaf-collapse in hop mode: bit-parallel BFS from up to 64 switches */
    uint64_t *ms_seen, *ms_front, *ms_next;
    uint32_t *ms_list_a, *ms_list_b;
    uint16_t *ms_dist; /* SY_COST_BATCH rows of switch distances */
} sy_cost_scratch_t;

/* Build the up-link CSR over all vertices (per-source searches). */
pmix_status_t sy_cost_build_full(sy_cost_ctx_t *c);
/* Build the switch-only CSR and the attachment groups; *applies is false
 * (and nothing is kept) when some device has two up links or a device
 * neighbour. */
pmix_status_t sy_cost_build_leaf(sy_cost_ctx_t *c, bool *applies);
void sy_cost_ctx_free(sy_cost_ctx_t *c);

pmix_status_t sy_cost_scratch_init(const sy_cost_ctx_t *c, bool leaf, sy_cost_scratch_t *s);
void sy_cost_scratch_free(sy_cost_scratch_t *s);

/* Leaf-collapse work items are batches of SY_COST_BATCH groups, so that
 * one bit-parallel BFS serves 64 attachment switches. */
#define SY_COST_BATCH 64u
static inline uint32_t sy_cost_nbatches(const sy_cost_ctx_t *c)
{
    return (c->ngroups + SY_COST_BATCH - 1) / SY_COST_BATCH;
}

/* Write the rows of batch k (leaf-collapse) / of device i (per-source). */
void sy_cost_leaf_batch(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t k);
void sy_cost_source_row(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t i);

#endif
