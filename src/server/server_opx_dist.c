/* COMPUTE_DEVICE_DISTANCES (OpenPMIx command 32) of an OpenPMIx 4.2.x client
 * (docs/wire-protocol.md, "OpenPMIx protocol"): answered with the distances
 * our own client library computes (PMIx_Compute_distances), over the
 * topology and cpuset the client sent.  Loop only. */
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/topology.h"
#include "server/server_opx.h"
#include "server/server_peer.h"

/* A pack call of one string (TOPO and PROC_CPUSET are packed as one):
 * its INT32 count must say 1; *out NULL when a NULL string was sent. */
static pmix_status_t take_string(pmix_data_buffer_t *b, char **out)
{
    int64_t n = 0;
    *out = NULL;
    pmix_status_t rc = sy_opx_get_int(b, INT32_MIN, INT32_MAX, &n);
    if (rc == PMIX_SUCCESS && n != 1)
        rc = PMIX_ERR_UNPACK_FAILURE;
    return rc == PMIX_SUCCESS ? sy_opx_get_string(b, out) : rc;
}

/* PMIX_TOPO: the hwloc XML (NULL string: none sent), then hwloc's three
 * support structures as raw bytes, which XML does not carry.  We compute
 * no binding on the client's topology, so they are skipped; their sizes
 * are those of the hwloc both libraries are built on, and a different
 * hwloc shows as an unpack failure of what follows. */
static pmix_status_t take_topology(pmix_data_buffer_t *b, hwloc_topology_t *out)
{
    *out = NULL;
    char *xml = NULL;
    pmix_status_t rc = take_string(b, &xml);
    if (rc != PMIX_SUCCESS || xml == NULL)
        return rc;
    const size_t support = sizeof(struct hwloc_topology_discovery_support) +
                           sizeof(struct hwloc_topology_cpubind_support) +
                           sizeof(struct hwloc_topology_membind_support);
    if (sy_buffer_remaining(b) < support) {
        free(xml);
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    b->unpack_ptr += support;
    rc = sy_topology_import_xml(xml, strlen(xml), false, out);
    free(xml);
    return rc;
}

/* PMIX_PROC_CPUSET: an hwloc list string (NULL: none sent). */
static pmix_status_t take_cpuset(pmix_data_buffer_t *b, hwloc_bitmap_t *out)
{
    *out = NULL;
    char *list = NULL;
    pmix_status_t rc = take_string(b, &list);
    if (rc != PMIX_SUCCESS || list == NULL)
        return rc;
    rc = sy_topology_parse_list(list, out);
    free(list);
    return rc;
}

static pmix_status_t take_directives(pmix_data_buffer_t *b, pmix_info_t **info, size_t *ninfo)
{
    *info = NULL;
    *ninfo = 0;
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_opx_unpack(b, &n, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || n == 0)
        return rc;
    void *arr = NULL;
    size_t got = 0;
    rc = sy_opx_unpack_alloc(b, PMIX_INFO, &arr, &got);
    if (rc == PMIX_SUCCESS && got != n)
        rc = PMIX_ERR_UNPACK_FAILURE;
    if (rc != PMIX_SUCCESS) {
        if (arr != NULL)
            sy_array_free(arr, got, PMIX_INFO);
        return rc;
    }
    *info = arr;
    *ninfo = got;
    return PMIX_SUCCESS;
}

/* The reply after the status: SIZE n, then n DEVICE_DIST. */
static pmix_status_t pack_distances(pmix_data_buffer_t *out, pmix_device_distance_t *dist, size_t n)
{
    pmix_status_t rc = sy_opx_pack(out, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = n > INT32_MAX ? PMIX_ERR_BAD_PARAM
                           : sy_opx_pack(out, dist, (int32_t)n, PMIX_DEVICE_DIST);
    return rc;
}

pmix_status_t sy_srv_opx_dist_unpack(pmix_data_buffer_t *b, sy_srv_opx_dist_req_t *req)
{
    memset(req, 0, sizeof(*req));
    pmix_status_t rc = take_topology(b, &req->topo);
    if (rc == PMIX_SUCCESS)
        rc = take_cpuset(b, &req->cpus);
    if (rc == PMIX_SUCCESS)
        rc = take_directives(b, &req->info, &req->ninfo);
    if (rc != PMIX_SUCCESS)
        sy_srv_opx_dist_req_free(req);
    return rc;
}

void sy_srv_opx_dist_req_free(sy_srv_opx_dist_req_t *req)
{
    if (req->info != NULL)
        sy_array_free(req->info, req->ninfo, PMIX_INFO);
    if (req->cpus != NULL)
        hwloc_bitmap_free(req->cpus);
    if (req->topo != NULL)
        hwloc_topology_destroy(req->topo);
    memset(req, 0, sizeof(*req));
}

void sy_srv_opx_distances(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_opx_dist_req_t req;
    pmix_status_t rc = sy_srv_opx_dist_unpack(b, &req);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "server: OpenPMIx client %s:%u: malformed COMPUTE_DEVICE_DISTANCES: %s",
               peer->proc.nspace, peer->proc.rank, PMIx_Error_string(rc));
    } else if (req.cpus == NULL) {
        /* 4.2.2's client always sends one; without it we would answer
         * for the server's own binding */
        sy_log(SY_LOG_WARN,
               "server: OpenPMIx client %s:%u: COMPUTE_DEVICE_DISTANCES without a cpuset",
               peer->proc.nspace, peer->proc.rank);
        rc = PMIX_ERR_BAD_PARAM;
    }
    pmix_device_distance_t *dist = NULL;
    size_t ndist = 0;
    if (rc == PMIX_SUCCESS) {
        /* no topology sent: this machine's, as for our own clients */
        pmix_topology_t t = {.source = "hwloc", .topology = req.topo};
        pmix_cpuset_t c = {.source = "hwloc", .bitmap = req.cpus};
        rc = PMIx_Compute_distances(req.topo != NULL ? &t : NULL, &c, req.info, req.ninfo, &dist,
                                    &ndist);
    }
    pmix_data_buffer_t out = {0};
    if (rc == PMIX_SUCCESS)
        rc = pack_distances(&out, dist, ndist);
    if (rc == PMIX_SUCCESS)
        sy_srv_peer_reply_with(peer, tag, PMIX_SUCCESS, &out);
    else
        sy_srv_peer_reply_status(peer, tag, rc);
    sy_buffer_destruct(&out);
    if (dist != NULL)
        PMIX_DEVICE_DIST_FREE(dist, ndist);
    sy_srv_opx_dist_req_free(&req);
}
