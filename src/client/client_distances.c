/* PMIx_Get of PMIX_DEVICE_DISTANCES for a process on this node that the
 * host gave none for: its distances to the node's devices, computed here
 * from its PMIX_CPUSET (the whole node when it is unbound) with
 * PMIx_Compute_distances, honouring the PMIX_DEVICE_TYPE / PMIX_DEVICE_ID
 * qualifiers of the request.  Local data only: no server round trip. */
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "client/client_internal.h"
#include "common/store.h"
#include "common/topology.h"

static char *proc_string(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *v = NULL;
    char *s = NULL;
    if (sy_store_get(proc, key, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_STRING &&
        v->data.string != NULL)
        s = strdup(v->data.string);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return s;
}

static bool on_this_node(const pmix_proc_t *proc)
{
    pmix_proc_t me;
    pthread_mutex_lock(&sy_client_lock);
    bool init = sy_client.refcount > 0;
    me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    if (!init)
        return false;
    char *mine = proc_string(&me, PMIX_HOSTNAME);
    char *theirs = proc_string(proc, PMIX_HOSTNAME);
    bool same = mine != NULL && theirs != NULL && strcmp(mine, theirs) == 0;
    free(mine);
    free(theirs);
    return same;
}

pmix_status_t sy_client_device_distances(const pmix_proc_t *proc, const pmix_info_t info[],
                                         size_t ninfo, pmix_value_t **val)
{
    if (proc->rank >= PMIX_RANK_VALID || !on_this_node(proc))
        return PMIX_ERR_NOT_FOUND;
    pmix_cpuset_t cpuset;
    memset(&cpuset, 0, sizeof(cpuset));
    char *str = proc_string(proc, PMIX_CPUSET);
    pmix_status_t rc;
    if (str != NULL) {
        rc = PMIx_Parse_cpuset_string(str, &cpuset);
        free(str);
    } else {
        hwloc_topology_t t = NULL;
        rc = sy_topology_get(&t);
        if (rc == PMIX_SUCCESS) {
            cpuset.source = strdup("hwloc");
            cpuset.bitmap = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t));
            if (cpuset.source == NULL || cpuset.bitmap == NULL)
                rc = PMIX_ERR_NOMEM;
        }
    }
    pmix_device_distance_t *dist = NULL;
    size_t n = 0;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Compute_distances(NULL, &cpuset, (pmix_info_t *)info, ninfo, &dist, &n);
    PMIx_Cpuset_destruct(&cpuset);
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_value_t *v = calloc(1, sizeof(*v));
    pmix_data_array_t *arr = calloc(1, sizeof(*arr));
    if (v == NULL || arr == NULL) {
        free(v);
        free(arr);
        PMIX_DEVICE_DIST_FREE(dist, n);
        return PMIX_ERR_NOMEM;
    }
    arr->type = PMIX_DEVICE_DIST;
    arr->size = n;
    arr->array = dist;
    v->type = PMIX_DATA_ARRAY;
    v->data.darray = arr;
    *val = v;
    return PMIX_SUCCESS;
}
