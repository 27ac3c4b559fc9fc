/* Switch peers: which switches each device is cabled to (over links that
 * are not down), and which devices hang off each such switch.  Switches
 * are the "attachment switches" of the devices, numbered 0..nswitches-1 in
 * ascending vertex id; all lists are ascending.  The scheduler maps device
 * indexes to ranks to publish PMIX_SWITCH_PEERS / PMIX_FABRIC_SWITCH. */
#ifndef SWITCHYARD_FABRIC_PEERS_H
#define SWITCHYARD_FABRIC_PEERS_H

#include <stdint.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/topo.h"

typedef struct {
    uint32_t ndev;
    uint32_t nswitches;   /* switches with at least one attached device */
    char **sw_name;       /* nswitches: switch ids (vertex names, malloc'd) */
    uint32_t *sw_vertex;  /* nswitches: vertex ids */
    uint32_t *sw_dev_off; /* nswitches + 1 */
    uint32_t *sw_dev;     /* devices of switch k: sw_dev[sw_dev_off[k] .. sw_dev_off[k+1]) */
    uint32_t *dev_sw_off; /* ndev + 1 */
    uint32_t *dev_sw;     /* switches of device i: dev_sw[dev_sw_off[i] .. dev_sw_off[i+1]) */
} sy_peers_t;

/* `ix` may be NULL (built internally).  On failure *out is zeroed. */
pmix_status_t sy_peers_compute(const sy_topo_t *t, const sy_devindex_t *ix, sy_peers_t *out);
void sy_peers_free(sy_peers_t *p);

#endif
