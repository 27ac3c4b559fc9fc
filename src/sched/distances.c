/*
 * Switchyard -- device distances from hwloc locality (metric in
 * distances.h and docs/fabric.md).
 */
#include "sched/distances.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>

#include <pmix.h>

#include "fabric/devices.h"

static pmix_device_type_t osdev_type(hwloc_obj_t os)
{
    switch (os->attr->osdev.type) {
    case HWLOC_OBJ_OSDEV_BLOCK: return PMIX_DEVTYPE_BLOCK;
    case HWLOC_OBJ_OSDEV_GPU: return PMIX_DEVTYPE_GPU;
    case HWLOC_OBJ_OSDEV_NETWORK: return PMIX_DEVTYPE_NETWORK;
    case HWLOC_OBJ_OSDEV_OPENFABRICS: return PMIX_DEVTYPE_OPENFABRICS;
    case HWLOC_OBJ_OSDEV_DMA: return PMIX_DEVTYPE_DMA;
    case HWLOC_OBJ_OSDEV_COPROC: return PMIX_DEVTYPE_COPROC;
    default: return PMIX_DEVTYPE_UNKNOWN;
    }
}

/* min/max over the PUs of `pus` of depth(A) - depth(common ancestor). */
static void measure(hwloc_topology_t topo, hwloc_const_bitmap_t pus, hwloc_obj_t anc,
                    uint16_t *mind, uint16_t *maxd)
{
    unsigned idx;

    *mind = UINT16_MAX;
    *maxd = UINT16_MAX;
    if (anc == NULL) {
        return;
    }
    hwloc_bitmap_foreach_begin(idx, pus)
    {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, idx);
        hwloc_obj_t c = (pu != NULL) ? hwloc_get_common_ancestor_obj(topo, pu, anc) : NULL;

        if (c != NULL && anc->depth >= c->depth) {
            int dd = anc->depth - c->depth;
            uint16_t d = (dd >= UINT16_MAX) ? UINT16_MAX - 1 : (uint16_t)dd;

            if (UINT16_MAX == *mind || d < *mind) {
                *mind = d;
            }
            if (UINT16_MAX == *maxd || d > *maxd) {
                *maxd = d;
            }
        }
    }
    hwloc_bitmap_foreach_end();
}

pmix_status_t sy_device_distances_host(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                       pmix_device_type_t types, const char *hostname,
                                       pmix_device_distance_t **out, size_t *n)
{
    hwloc_obj_t os = NULL;
    hwloc_bitmap_t pus;
    pmix_device_distance_t *d;
    size_t count = 0, k = 0;
    pmix_status_t rc = PMIX_SUCCESS;

    if (out == NULL || n == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *out = NULL;
    *n = 0;
    if (topo == NULL || cpuset == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (types == 0) {
        types = SY_DEVDIST_DEFAULT_TYPES;
    }
    while ((os = hwloc_get_next_osdev(topo, os)) != NULL) {
        if (os->name != NULL && (osdev_type(os) & types) != 0) {
            count++;
        }
    }
    if (count == 0) {
        return PMIX_SUCCESS;
    }
    pus = hwloc_bitmap_alloc();
    if (pus == NULL) {
        return PMIX_ERR_NOMEM;
    }
    /* PUs the topology does not know have no locality */
    if (hwloc_bitmap_and(pus, cpuset, hwloc_topology_get_topology_cpuset(topo)) != 0) {
        hwloc_bitmap_free(pus);
        return PMIX_ERR_NOMEM;
    }
    PMIX_DEVICE_DIST_CREATE(d, count);
    if (d == NULL) {
        hwloc_bitmap_free(pus);
        return PMIX_ERR_NOMEM;
    }
    while (rc == PMIX_SUCCESS && k < count && (os = hwloc_get_next_osdev(topo, os)) != NULL) {
        pmix_device_type_t t = osdev_type(os);

        if (os->name == NULL || (t & types) == 0) {
            continue;
        }
        d[k].type = t;
        d[k].osname = strdup(os->name);
        d[k].uuid = sy_device_make_id(hostname, os->name);
        if (d[k].osname == NULL || d[k].uuid == NULL) {
            rc = PMIX_ERR_NOMEM;
        }
        measure(topo, pus, hwloc_get_non_io_ancestor_obj(topo, os), &d[k].mindist, &d[k].maxdist);
        k++;
    }
    hwloc_bitmap_free(pus);
    if (rc != PMIX_SUCCESS) {
        PMIX_DEVICE_DIST_FREE(d, count);
        return rc;
    }
    *out = d;
    *n = k;
    return PMIX_SUCCESS;
}

pmix_status_t sy_device_distances(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                  pmix_device_type_t types, pmix_device_distance_t **out, size_t *n)
{
    return sy_device_distances_host(topo, cpuset, types, NULL, out, n);
}

/* In this file rather than devices.c so that libpmix, which carries the
 * distances (PMIx_Compute_distances) but not libfabric, has it too. */
char *sy_device_make_id(const char *hostname, const char *osname)
{
    char host[HOST_NAME_MAX + 1];
    char *id;
    size_t len;

    if (osname == NULL) {
        return NULL;
    }
    if (hostname == NULL) {
        if (gethostname(host, sizeof(host)) != 0) {
            snprintf(host, sizeof(host), "localhost");
        }
        host[sizeof(host) - 1] = '\0';
        hostname = host;
    }
    len = strlen(hostname) + strlen(osname) + 2;
    id = malloc(len);
    if (id != NULL) {
        snprintf(id, len, "%s:%s", hostname, osname);
    }
    return id;
}
