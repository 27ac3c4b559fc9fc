/* Structural partitions of the switches, shared by grouping and
 * coordinates, and the classification that picks between them.
 *
 * All of them look only at switch-to-switch links that are not down.
 *   - pods: in each connected part of the switch graph, drop the switches
 *     of its top level (when that level is >= 1) and take the connected
 *     components of what remains; each dropped switch becomes a part of
 *     its own (it matters only if devices hang directly off it);
 *   - triangles (dragonfly groups): keep a switch link only if its two
 *     ends share at least max(2, floor(d/2)) switch neighbours, d being
 *     the smallest non-zero switch degree, and take components.  Router
 *     groups are cliques, so their links keep a-2 common neighbours while
 *     global links keep almost none;
 *   - leaf: every switch on its own.
 * Part ids of a partition are numbered by ascending lowest switch id. */
#ifndef SWITCHYARD_FABRIC_STRUCTURE_H
#define SWITCHYARD_FABRIC_STRUCTURE_H

#include <stdint.h>

#include <pmix_common.h>

#include "fabric/levels.h"
#include "fabric/topo.h"

typedef enum {
    SY_FABRIC_FLAT = 0,  /* no switch-to-switch link at all */
    SY_FABRIC_TREE,      /* no clustered triangles and levels above 0 (tree, Clos) */
    SY_FABRIC_DIRECT,    /* no clustered triangles, every switch at level 0 (torus, mesh) */
    SY_FABRIC_DRAGONFLY, /* the triangle rule splits the switches into >= 2 parts */
    SY_FABRIC_OTHER      /* clustered but not separable by the rule */
} sy_fabric_kind_t;

typedef struct {
    uint32_t *part; /* t->nv entries: part id of a switch, SY_TOPO_NONE for devices */
    uint32_t npart;
} sy_partition_t;

pmix_status_t sy_partition_leaf(const sy_topo_t *t, sy_partition_t *out);
pmix_status_t sy_partition_pods(const sy_topo_t *t, const sy_levels_t *lv, sy_partition_t *out);
/* *nkept (may be NULL) receives the number of switch links the rule kept. */
pmix_status_t sy_partition_triangles(const sy_topo_t *t, sy_partition_t *out, uint32_t *nkept);
void sy_partition_free(sy_partition_t *p);

/* tri/nkept: the result of sy_partition_triangles on the same topology. */
sy_fabric_kind_t sy_fabric_classify(const sy_topo_t *t, const sy_levels_t *lv,
                                    const sy_partition_t *tri, uint32_t nkept);

/* Community detection (community.c): igraph Leiden with the modularity
 * objective (node weight = degree, resolution = 1/2m, 2 iterations) on the
 * switch graph, driven by a private random stream seeded with `seed`, so
 * equal inputs and seeds give equal partitions.  Runs under the igraph
 * guard; an igraph failure comes back as a status.  Part ids are
 * renumbered by lowest switch id. */
pmix_status_t sy_partition_community(const sy_topo_t *t, uint64_t seed, sy_partition_t *out);

#endif
