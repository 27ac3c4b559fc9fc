/* Device index: the row/column order of the cost matrix and the value of
 * PMIX_FABRIC_DEVICE_INDEX.  Devices are numbered 0..ndev-1 in ascending
 * vertex id, so the order is fixed by the reader or generator that built
 * the topology and survives any recomputation of the same graph. */
#ifndef SWITCHYARD_FABRIC_DEVINDEX_H
#define SWITCHYARD_FABRIC_DEVINDEX_H

#include <stdint.h>

#include <pmix_common.h>

#include "fabric/topo.h"

typedef struct {
    uint32_t ndev;
    uint32_t *dev_to_vertex; /* ndev entries */
    uint32_t *vertex_to_dev; /* t->nv entries, SY_TOPO_NONE for switches */
} sy_devindex_t;

/* Fill *out (overwritten, not freed first).  On failure *out is zeroed.
 * Works on finalized and unfinalized topologies alike. */
pmix_status_t sy_devindex_build(const sy_topo_t *t, sy_devindex_t *out);
/* Release the arrays and zero *d; NULL and zeroed structs are fine. */
void sy_devindex_free(sy_devindex_t *d);

#endif
