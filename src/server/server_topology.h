/* The server's share of the node topology: adopting the one the host gives
 * PMIx_server_init (PMIX_TOPOLOGY2, or the older PMIX_TOPOLOGY pointer),
 * and describing it for clients when asked to share it
 * (PMIX_SERVER_SHARE_TOPOLOGY), so that their PMIx_Load_topology finds it
 * in the store without asking us.  The topology itself lives in the
 * process-wide cache of common/topology.h. */
#ifndef SWITCHYARD_SERVER_TOPOLOGY_H
#define SWITCHYARD_SERVER_TOPOLOGY_H
#include <pmix_common.h>

/* Called once by the first PMIx_server_init with its info.  When sharing
 * is requested, *node_info receives this node's node-realm values to
 * publish in the resources segment: PMIX_HWLOC_XML_V2 (string),
 * PMIX_TOPOLOGY_SIGNATURE (string) and PMIX_AVAIL_PHYS_MEMORY (uint64,
 * when hwloc knows it), a PMIX_INFO_FREE-able array; otherwise NULL and 0.
 * Without a host topology nothing is discovered unless sharing needs it
 * (discovery is lazy, on the first use).  A host topology of another
 * provider: PMIX_ERR_NOT_SUPPORTED; a malformed one: PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_server_topology_setup(const pmix_info_t info[], size_t ninfo,
                                       pmix_info_t **node_info, size_t *nnode_info);
/* Called by the last PMIx_server_finalize: forgets the host's topology (it
 * stays the host's) and releases any discovered one. */
void sy_server_topology_finalize(void);

#endif
