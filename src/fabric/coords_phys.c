/* The physical coordinate view (PMIX_COORD_PHYSICAL_VIEW): where a device
 * sits, for the topologies that say so, independent of link states:
 *
 *   torus      (generated tori) the router's lattice position, plus the
 *              port when routers carry several devices: a torus is laid
 *              out as its lattice;
 *   dragonfly  (generated dragonflies) (group, router in group, port),
 *              read from the router names r<group>_<router>;
 *   slurm      topology.conf placement: (leaf switch, slot), the leaf
 *              being the rank of the device's first leaf switch among the
 *              file's leaf switches (SwitchName= with Nodes=) in file
 *              order, and the slot its rank among that leaf's devices.
 *
 * Anything else (ibnetdiscover, OpenSM and ibsim dumps, native files)
 * carries no placement: PMIX_ERR_NOT_FOUND, never a copy of the logical
 * view. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/coords.h"

/* The device's first switch neighbour, whatever the link's state. */
static uint32_t first_switch(const sy_topo_t *t, uint32_t v)
{
    for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
        if (t->v[t->adj[k]].kind == SY_TOPO_SWITCH)
            return t->adj[k];
    return SY_TOPO_NONE;
}

/* (a, b, port) per device: a and b from the attachment switch (b may be
 * unused), port the device's rank on that switch. */
typedef bool (*place_fn)(const sy_topo_t *t, uint32_t sw, const uint32_t *leaf_rank, uint32_t *a,
                         uint32_t *b);

static bool place_dragonfly(const sy_topo_t *t, uint32_t sw, const uint32_t *leaf_rank, uint32_t *a,
                            uint32_t *b)
{
    (void)leaf_rank;
    unsigned g, r;
    char tail;
    return sscanf(t->v[sw].name, "r%u_%u%c", &g, &r, &tail) == 2 && (*a = g, *b = r, true);
}

static bool place_slurm(const sy_topo_t *t, uint32_t sw, const uint32_t *leaf_rank, uint32_t *a,
                        uint32_t *b)
{
    (void)t;
    *a = leaf_rank[sw];
    *b = 0;
    return *a != SY_TOPO_NONE;
}

static pmix_status_t by_switch(const sy_topo_t *t, const sy_devindex_t *ix, place_fn place,
                               bool two, sy_coords_t *out)
{
    uint32_t *port = calloc((size_t)t->nv + 1, sizeof(uint32_t));
    uint32_t *leaf_rank = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    out->dims = two ? 2 : 3;
    out->ndev = ix->ndev;
    out->coord = malloc(((size_t)ix->ndev * out->dims + 1) * sizeof(uint32_t));
    if (port == NULL || leaf_rank == NULL || out->coord == NULL) {
        free(port);
        free(leaf_rank);
        return PMIX_ERR_NOMEM;
    }
    uint32_t nleaf = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        bool leaf = false;
        for (uint32_t k = t->adj_off[v]; t->v[v].kind == SY_TOPO_SWITCH && k < t->adj_off[v + 1];
             k++)
            leaf = leaf || t->v[t->adj[k]].kind == SY_TOPO_DEVICE;
        leaf_rank[v] = leaf ? nleaf++ : SY_TOPO_NONE;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (uint32_t d = 0; d < ix->ndev && rc == PMIX_SUCCESS; d++) {
        uint32_t sw = first_switch(t, ix->dev_to_vertex[d]), a, b;
        if (sw == SY_TOPO_NONE || !place(t, sw, leaf_rank, &a, &b)) {
            rc = PMIX_ERR_NOT_FOUND;
            break;
        }
        uint32_t *x = out->coord + (size_t)d * out->dims;
        x[0] = a;
        if (two) {
            x[1] = port[sw]++;
        } else {
            x[1] = b;
            x[2] = port[sw]++;
        }
    }
    free(port);
    free(leaf_rank);
    return rc;
}

pmix_status_t sy_coords_physical(const sy_topo_t *t, const sy_devindex_t *ix, sy_coords_t *out)
{
    if (t->format == NULL || !t->finalized)
        return PMIX_ERR_NOT_FOUND;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    if (strcmp(t->format, "torus") == 0) {
        rc = sy_coords_compute_method(t, ix, PMIX_COORD_LOGICAL_VIEW, SY_COORDS_TORUS, out);
        if (rc == PMIX_ERR_NOT_SUPPORTED)
            rc = PMIX_ERR_NOT_FOUND;
    } else if (strcmp(t->format, "dragonfly") == 0) {
        rc = by_switch(t, ix, place_dragonfly, false, out);
    } else if (strcmp(t->format, "slurm") == 0) {
        rc = by_switch(t, ix, place_slurm, true, out);
    }
    if (rc == PMIX_SUCCESS)
        out->view = PMIX_COORD_PHYSICAL_VIEW;
    else
        sy_coords_free(out);
    return rc;
}
