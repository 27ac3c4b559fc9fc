/* PMIx_Compute_distances (+ _nb): a cpuset's distances to the node's
 * devices (src/sched/distances.c, hwloc only: no engine module).  The
 * topology is the caller's, or this process's when it shows I/O devices,
 * else this machine's loaded once with I/O objects and kept until exit of
 * the last role (hwloc's I/O discovery is slow). */
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "common/progress.h"
#include "common/runtime.h"
#include "common/topology.h"
#include "sched/distances.h"

static pmix_status_t local_topology(hwloc_topology_t *out)
{
    hwloc_topology_t t = NULL;
    if (sy_topology_get(&t) == PMIX_SUCCESS && hwloc_get_next_osdev(t, NULL) != NULL) {
        *out = t;
        return PMIX_SUCCESS;
    }
    return sy_topology_get_io(out);
}

static pmix_status_t compute(pmix_topology_t *topo, pmix_cpuset_t *cpuset, const pmix_info_t info[],
                             size_t ninfo, pmix_device_distance_t **dist, size_t *ndist)
{
    *dist = NULL;
    *ndist = 0;
    if ((cpuset != NULL && cpuset->bitmap == NULL) || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if (cpuset != NULL && cpuset->source != NULL && strncmp(cpuset->source, "hwloc", 5) != 0)
        return PMIX_ERR_NOT_SUPPORTED;
    hwloc_topology_t t = NULL;
    pmix_status_t rc;
    if (topo != NULL && topo->topology != NULL) {
        if (topo->source != NULL && strncmp(topo->source, "hwloc", 5) != 0)
            return PMIX_ERR_NOT_SUPPORTED;
        t = topo->topology;
        rc = PMIX_SUCCESS;
    } else {
        rc = local_topology(&t);
    }
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_device_type_t types = 0;
    const char *id = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_TYPE)) {
            if (info[i].value.type != PMIX_DEVTYPE && info[i].value.type != PMIX_UINT64)
                return PMIX_ERR_BAD_PARAM;
            types |= info[i].value.data.devtype;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_ID)) {
            if (info[i].value.type != PMIX_STRING || info[i].value.data.string == NULL)
                return PMIX_ERR_BAD_PARAM;
            id = info[i].value.data.string;
        }
    }
    /* a device named by id is looked for among every type */
    if (id != NULL && types == 0)
        types = ~(pmix_device_type_t)0;
    /* no cpuset: where this process is bound, as OpenPMIx takes it */
    hwloc_bitmap_t own = NULL;
    if (cpuset == NULL) {
        own = hwloc_bitmap_alloc();
        if (own == NULL)
            return PMIX_ERR_NOMEM;
        if (hwloc_get_cpubind(t, own, HWLOC_CPUBIND_PROCESS) != 0) {
            hwloc_bitmap_free(own);
            return PMIX_ERR_NOT_AVAILABLE;
        }
    }
    rc = sy_device_distances(t, own != NULL ? own : cpuset->bitmap, types, dist, ndist);
    hwloc_bitmap_free(own);
    if (rc != PMIX_SUCCESS || id == NULL)
        return rc;
    size_t k = 0;
    for (size_t i = 0; i < *ndist; i++) {
        pmix_device_distance_t *d = &(*dist)[i];
        bool keep = (d->uuid != NULL && strcmp(d->uuid, id) == 0) ||
                    (d->osname != NULL && strcmp(d->osname, id) == 0);
        if (keep) {
            pmix_device_distance_t tmp = (*dist)[k];
            (*dist)[k++] = *d;
            *d = tmp;
        }
    }
    for (size_t i = k; i < *ndist; i++)
        PMIX_DEVICE_DIST_DESTRUCT(&(*dist)[i]);
    if (k == 0) {
        free(*dist);
        *dist = NULL;
    }
    *ndist = k;
    return k > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[], size_t ninfo,
                                                 pmix_device_distance_t *distances[], size_t *ndist)
{
    if (distances == NULL || ndist == NULL)
        return PMIX_ERR_BAD_PARAM;
    return compute(topo, cpuset, info, ninfo, distances, ndist);
}

typedef struct {
    pmix_topology_t *topo;
    pmix_cpuset_t *cpuset;
    pmix_info_t *info;
    size_t ninfo;
    pmix_device_dist_cbfunc_t cbfunc;
    void *cbdata;
    pmix_device_distance_t *dist;
    size_t ndist;
} dist_req_t;

static void dist_release(void *arg)
{
    dist_req_t *q = arg;
    if (q->dist != NULL)
        PMIX_DEVICE_DIST_FREE(q->dist, q->ndist);
    free(q);
}

static void dist_on_loop(void *arg)
{
    dist_req_t *q = arg;
    pmix_status_t rc = compute(q->topo, q->cpuset, q->info, q->ninfo, &q->dist, &q->ndist);
    q->cbfunc(rc, q->dist, q->ndist, q->cbdata, dist_release, q);
}

PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    dist_req_t *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return PMIX_ERR_NOMEM;
    /* the caller's arguments stay valid until the callback */
    q->topo = topo;
    q->cpuset = cpuset;
    q->info = info;
    q->ninfo = ninfo;
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    pmix_status_t rc = sy_progress_post(p, dist_on_loop, q);
    if (rc != PMIX_SUCCESS)
        free(q);
    return rc;
}
