/* Switch levels and device attachments: the structural facts that
 * grouping and coordinates start from.
 *
 * Level of a switch: 0 for a leaf (one hop from a device), 1 for a switch
 * two hops from the nearest device, and so on; it comes from a
 * multi-source BFS from every device over links that are not
 * PMIX_LINK_DOWN.  When the input gave a level (>= 0) to every switch
 * that BFS reaches (Slurm files, native files with level=, generators),
 * the given levels are used instead, so a Slurm tree keeps slurmctld's
 * numbering (leaf 0, parent 1 + highest child).  Switches no device can
 * reach get -1 unless the input gave them a level.  Devices are -1.
 *
 * Attachment of a device: its lowest-id switch neighbour over a link that
 * is not down (a multi-homed device is counted under that first switch
 * only), SY_TOPO_NONE when it has none.  Switches: SY_TOPO_NONE. */
#ifndef SWITCHYARD_FABRIC_LEVELS_H
#define SWITCHYARD_FABRIC_LEVELS_H

#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "fabric/topo.h"

typedef struct {
    uint32_t nv;
    int32_t *level;    /* nv entries */
    uint32_t *attach;  /* nv entries */
    int32_t max_level; /* highest switch level, -1 if none */
    bool from_input;   /* levels taken from the topology, not BFS */
} sy_levels_t;

/* The topology must be finalized (PMIX_ERR_NOT_AVAILABLE otherwise).
 * On failure *out is zeroed. */
pmix_status_t sy_levels_compute(const sy_topo_t *t, sy_levels_t *out);
void sy_levels_free(sy_levels_t *l);

/* True when edge e may carry traffic (not PMIX_LINK_DOWN). */
static inline bool sy_link_usable(const sy_topo_t *t, uint32_t e)
{
    return t->e[e].state != PMIX_LINK_DOWN;
}

#endif
