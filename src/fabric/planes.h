/* Fabric planes: the connected components (over links that are not down)
 * that contain at least one device.  Planes are numbered in order of
 * their smallest device index.  A plane's id is the plane name declared in
 * the topology when every device of the component carries that same name
 * (and no earlier plane took it), else "plane<k>" with k its number.
 * Components are taken over the plain graph, so a device cabled into two
 * otherwise separate switch networks joins them into one plane even though
 * the cost matrix (devices do not forward) keeps their other devices
 * unreachable from each other. */
#ifndef SWITCHYARD_FABRIC_PLANES_H
#define SWITCHYARD_FABRIC_PLANES_H

#include <stdint.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/topo.h"

typedef struct {
    uint32_t nplanes;
    char **ids;         /* nplanes ids (malloc'd) */
    uint32_t *ndev;     /* nplanes: devices in each plane */
    uint32_t ndevices;  /* size of plane_of */
    uint32_t *plane_of; /* device index -> plane number */
} sy_planes_t;

/* `ix` may be NULL (built internally).  On failure *out is zeroed. */
pmix_status_t sy_planes_compute(const sy_topo_t *t, const sy_devindex_t *ix, sy_planes_t *out);
void sy_planes_free(sy_planes_t *p);

#endif
