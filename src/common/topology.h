/* The hwloc topology of this node as every role sees it, and the locality
 * and cpuset strings built on it (docs/architecture.md, "Topology").
 *
 * One topology per process, loaded on first use and kept until
 * sy_topology_release_cached(): the one a host gave the server
 * (sy_topology_adopt), else the hwloc XML v2 our server published for this
 * node in the store (screened by topo_xml before hwloc sees it), else local
 * discovery.  PMIx_Load_topology hands out that shared object; callers treat
 * it as read-only and PMIx_Topology_destruct leaves it alone
 * (sy_topology_is_cached).
 *
 * The string functions are pure: they take the topology explicitly so tests
 * can run them on synthetic machines.  Thread-safe. */
#ifndef SWITCHYARD_COMMON_TOPOLOGY_H
#define SWITCHYARD_COMMON_TOPOLOGY_H
#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>
#include <pmix_common.h>

/* The process-wide topology, loaded if needed (store XML, then discovery).
 * *out stays owned by the cache. */
pmix_status_t sy_topology_get(hwloc_topology_t *out);
/* Make topo the process-wide topology (replacing a previous one).  owned:
 * the cache destroys it at release; otherwise it stays the caller's (a
 * host's PMIX_TOPOLOGY2), who must keep it alive until the release. */
pmix_status_t sy_topology_adopt(hwloc_topology_t topo, bool owned);
/* True if topology is the process-wide one (never destroy it). */
bool sy_topology_is_cached(const void *topology);
/* Forget the process-wide topology (destroying it if the cache owns it).
 * Called by each role's last finalize; a later use loads it again. */
void sy_topology_release_cached(void);
/* This machine's topology with its I/O devices (network, OpenFabrics, GPU),
 * loaded on first use and released with the cached one above; for
 * PMIx_Compute_distances. */
pmix_status_t sy_topology_get_io(hwloc_topology_t *out);
/* "hwloc:<version>", the source PMIx_Load_topology reports. */
const char *sy_topology_source(void);

/* Discover this machine (with the I/O devices that matter for distances). */
pmix_status_t sy_topology_discover(hwloc_topology_t *out);
/* Import hwloc XML (len bytes, NUL not required) after screening it with
 * sy_topo_xml_ok; this_system marks it as describing this node so binding
 * queries work on it.  Refused or unparsable: PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_topology_import_xml(const char *xml, size_t len, bool this_system,
                                     hwloc_topology_t *out);
/* The topology as hwloc v2 XML, malloc'd, NUL-terminated. */
pmix_status_t sy_topology_export_xml(hwloc_topology_t topo, char **xml);

/* Locality string of cpuset in topo: for each of package, L3, L2, L1, core
 * and hwthread levels (top down) then NUMA, "<code><list>" of the logical
 * indexes of the objects the cpuset's PUs fall in, joined with ':' - codes
 * SK L3 L2 L1 CR HT NM, lists in hwloc list syntax, e.g.
 * "SK0:L30:L20:L10:CR0:HT0-1:NM0".  A cpuset covering the whole machine
 * (unbound) gives *out = NULL and PMIX_SUCCESS; one with no PU in topo,
 * PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_topology_locality_string(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                          char **out);
/* Bits of pmix_locality_t shared by two locality strings (each optionally
 * prefixed "hwloc:"); PMIX_LOCALITY_SHARE_NODE always.  Malformed:
 * PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_topology_relative_locality(const char *loc1, const char *loc2,
                                            pmix_locality_t *out);
/* A strict hwloc list ("", "N", "N-M", "N-" items joined with ','), every
 * index at most SY_TOPO_MAX_INDEX, into a new bitmap. */
pmix_status_t sy_topology_parse_list(const char *list, hwloc_bitmap_t *out);

#endif
