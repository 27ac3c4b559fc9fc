/* Device coordinates (PMIX_FABRIC_DEVICE_COORDINATES / pmix_coord_t) and
 * the per-plane PMIX_FABRIC_DIMS, PMIX_FABRIC_SHAPE and
 * PMIX_FABRIC_SHAPE_STRING derived from them.
 *
 * Every device gets a vector of `dims` uint32 values, the same dims for
 * the whole topology, and no two devices share a vector in a view (this
 * is checked after computing; a clash is reported as PMIX_ERROR and
 * would be a bug).  Methods, first that applies (docs/fabric.md,
 * "Coordinates"):
 *   TORUS      topologies from the torus generator: the router's lattice
 *              position (c0, c1, ...) read from its name, plus the port
 *              (device ordinal on the router) when routers carry more
 *              than one device;
 *   TREE       trees, Clos and single-switch stars: (pod, attachment
 *              switch in pod, port), pods as in structure.h;
 *   DRAGONFLY  (group, router in group, port), groups by the triangle rule;
 *   BFS        anything else: (component, BFS layer from the component's
 *              lowest device, ordinal in layer).
 * Ordinals follow device-index order: pod/group 0 holds device 0, and so
 * on.  A device with no usable switch link gets (next free first value, 0,
 * 0) under TREE and DRAGONFLY.
 * LOGICAL is the default view.  PHYSICAL (coords_phys.c) is where the
 * topology places a device (torus lattice, dragonfly group and router,
 * Slurm leaf and slot), PMIX_ERR_NOT_FOUND when it places nothing. */
#ifndef SWITCHYARD_FABRIC_COORDS_H
#define SWITCHYARD_FABRIC_COORDS_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/topo.h"

typedef enum {
    SY_COORDS_TORUS = 1,
    SY_COORDS_TREE,
    SY_COORDS_DRAGONFLY,
    SY_COORDS_BFS
} sy_coords_method_t;

typedef struct {
    pmix_coord_view_t view;
    sy_coords_method_t method;
    uint32_t ndev;
    uint32_t dims;
    uint32_t *coord; /* ndev * dims: device d's vector at coord[d * dims] */
} sy_coords_t;

/* view: PMIX_COORD_LOGICAL_VIEW, PMIX_COORD_PHYSICAL_VIEW, or
 * PMIX_COORD_VIEW_UNDEF (= logical); anything else is
 * PMIX_ERR_BAD_PARAM.  The topology must be finalized and ix built from
 * it.  On failure *out is zeroed. */
pmix_status_t sy_coords_compute(const sy_topo_t *t, const sy_devindex_t *ix, pmix_coord_view_t view,
                                sy_coords_t *out);
/* The same with a chosen method (0 = the automatic choice above).  TREE,
 * DRAGONFLY and BFS apply to any topology; TORUS returns
 * PMIX_ERR_NOT_SUPPORTED unless the topology is a generated torus. */
pmix_status_t sy_coords_compute_method(const sy_topo_t *t, const sy_devindex_t *ix,
                                       pmix_coord_view_t view, sy_coords_method_t method,
                                       sy_coords_t *out);
void sy_coords_free(sy_coords_t *c);
/* The physical view alone (coords_phys.c); PMIX_ERR_NOT_FOUND when the
 * topology carries no placement.  t must be finalized. */
pmix_status_t sy_coords_physical(const sy_topo_t *t, const sy_devindex_t *ix, sy_coords_t *out);

/* Device d's vector as a pmix_coord_t (coord malloc'd, caller frees). */
pmix_status_t sy_coords_get(const sy_coords_t *c, uint32_t dev, pmix_coord_t *out);

/* Shape over a set of devices (device indices; all devices when devs is
 * NULL): shape[i] = 1 + the largest value of dimension i, and the string
 * "S0xS1x...".  Both malloc'd; either pointer may be NULL if unwanted.
 * PMIX_ERR_NOT_FOUND for an empty set. */
pmix_status_t sy_coords_shape(const sy_coords_t *c, const uint32_t *devs, size_t ndevs,
                              uint32_t **shape, char **shape_string);

/* Shape of one plane of t (index into t->planes; SY_TOPO_NONE = the whole
 * topology): the devices whose vertex carries that plane.  The plane's
 * PMIX_FABRIC_DIMS is c->dims. */
pmix_status_t sy_coords_plane_shape(const sy_coords_t *c, const sy_topo_t *t,
                                    const sy_devindex_t *ix, uint32_t plane, uint32_t **shape,
                                    char **shape_string);

#endif
