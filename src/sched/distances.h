/*
 * Switchyard -- distances from a process's cpuset to the node's devices.
 *
 * Metric (docs/fabric.md, "Device distances"): for each PU of the cpuset,
 * the number of tree levels between the device's locality (its first
 * non-I/O ancestor A) and the deepest object C that contains both A and
 * the PU, i.e. depth(A) - depth(C); 0 when the PU lies inside A.  mindist
 * and maxdist are the extremes over the cpuset's PUs; UINT16_MAX when the
 * cpuset has no PU in the topology or the device has no locality.
 */
#ifndef SWITCHYARD_FABRIC_DISTANCES_H
#define SWITCHYARD_FABRIC_DISTANCES_H

#include <stddef.h>

#include <hwloc.h>
#include <pmix_common.h>

/* Default device types when `types` is 0. */
#define SY_DEVDIST_DEFAULT_TYPES                                                                   \
    (PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_COPROC)

/* One entry per hwloc OS device whose type is in `types` (0: the default
 * set), in topology order: uuid "<hostname>:<osname>" (as PMIX_DEVICE_ID),
 * osname, type, min/max distance.  *out is allocated like
 * PMIX_DEVICE_DIST_CREATE (release with PMIX_DEVICE_DIST_FREE(*out, *n));
 * no matching device gives *out = NULL, *n = 0 and PMIX_SUCCESS. */
pmix_status_t sy_device_distances(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                  pmix_device_type_t types, pmix_device_distance_t **out,
                                  size_t *n);

/* The same with an explicit host name for the uuids (NULL: this host). */
pmix_status_t sy_device_distances_host(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                       pmix_device_type_t types, const char *hostname,
                                       pmix_device_distance_t **out, size_t *n);

#endif /* SWITCHYARD_FABRIC_DISTANCES_H */
