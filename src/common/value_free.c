/*
 * Switchyard -- release of what one element of any data type owns, and the
 * public destructors built on it.
 *
 * Callers (Open MPI, Slurm) build values with their own malloc/strdup and
 * PMIX_*_CREATE macros and hand them to PMIx_Value_destruct, so this code
 * frees with plain free() and tolerates NULL in every pointer field.
 */
#include "common/datatype.h"
#include "common/topology.h"

#include <hwloc.h>
#include <string.h>

#include <pmix.h>

static void argv_free(char **v)
{
    if (v != NULL) {
        for (char **p = v; *p != NULL; p++) {
            free(*p);
        }
        free(v);
    }
}

/* Objects of another provider are left alone: leaking beats calling the
 * wrong destructor.  Neither is the process-wide topology PMIx_Load_topology
 * hands out (topology.h): it is shared and released at finalize. */
static void topo_release(pmix_topology_t *t)
{
    if (t->topology != NULL && sy_from_hwloc(t->source) && !sy_topology_is_cached(t->topology)) {
        hwloc_topology_destroy((hwloc_topology_t)t->topology);
    }
    free(t->source);
}

static void cpuset_release(pmix_cpuset_t *c)
{
    if (c->bitmap != NULL && sy_from_hwloc(c->source)) {
        hwloc_bitmap_free((hwloc_bitmap_t)c->bitmap);
    }
    free(c->source);
}

static void release_owned(void *elem, pmix_data_type_t type)
{
    switch (type) {
    case PMIX_STRING:
    case PMIX_REGEX: free(*(char **)elem); break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: free(((pmix_byte_object_t *)elem)->bytes); break;
    case PMIX_VALUE: sy_value_destruct(elem); break;
    case PMIX_INFO: {
        pmix_info_t *i = elem;
        /* same rule as PMIX_INFO_DESTRUCT: a persistent info's value
         * belongs to someone else */
        if (!(i->flags & PMIX_INFO_PERSISTENT)) {
            sy_value_destruct(&i->value);
        }
        break;
    }
    case PMIX_PDATA: sy_value_destruct(&((pmix_pdata_t *)elem)->value); break;
    case PMIX_APP: {
        pmix_app_t *a = elem;
        free(a->cmd);
        argv_free(a->argv);
        argv_free(a->env);
        free(a->cwd);
        sy_array_free(a->info, a->ninfo, PMIX_INFO);
        break;
    }
    case PMIX_QUERY: {
        pmix_query_t *q = elem;
        argv_free(q->keys);
        sy_array_free(q->qualifiers, q->nqual, PMIX_INFO);
        break;
    }
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *p = elem;
        free(p->hostname);
        free(p->executable_name);
        break;
    }
    case PMIX_DATA_ARRAY: {
        pmix_data_array_t *d = elem;
        sy_array_free(d->array, d->size, d->type);
        break;
    }
    case PMIX_ENVAR: {
        pmix_envar_t *e = elem;
        free(e->envar);
        free(e->value);
        break;
    }
    case PMIX_COORD: free(((pmix_coord_t *)elem)->coord); break;
    case PMIX_REGATTR: {
        pmix_regattr_t *r = elem;
        free(r->name);
        argv_free(r->description);
        break;
    }
    case PMIX_PROC_CPUSET: cpuset_release(elem); break;
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = elem;
        free(g->uuid);
        free(g->osname);
        sy_array_free(g->coordinates, g->ncoords, PMIX_COORD);
        break;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = elem;
        free(d->uuid);
        free(d->osname);
        break;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *e = elem;
        free(e->uuid);
        free(e->osname);
        free(e->endpt.bytes);
        break;
    }
    case PMIX_TOPO: topo_release(elem); break;
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *p = elem;
        free(p->node);
        free(p->cmd);
        break;
    }
    case PMIX_DISK_STATS: free(((pmix_disk_stats_t *)elem)->disk); break;
    case PMIX_NET_STATS: free(((pmix_net_stats_t *)elem)->net_interface); break;
    case PMIX_NODE_STATS: {
        pmix_node_stats_t *n = elem;
        free(n->node);
        sy_array_free(n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
        sy_array_free(n->netstats, n->nnetstats, PMIX_NET_STATS);
        break;
    }
    case PMIX_DATA_BUFFER: free(((pmix_data_buffer_t *)elem)->base_ptr); break;
    default:
        /* owns nothing; PMIX_POINTER in particular is never freed */
        break;
    }
}

void sy_elem_destruct(void *elem, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);

    if (elem == NULL || size == 0) {
        return;
    }
    release_owned(elem, type);
    memset(elem, 0, size);
}

void sy_array_free(void *array, size_t n, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);

    if (array == NULL) {
        return;
    }
    /* an array of an unknown type: its elements cannot be walked, but the
     * block itself is still ours to free */
    if (size != 0) {
        for (size_t i = 0; i < n; i++) {
            sy_elem_destruct((char *)array + i * size, type);
        }
    }
    free(array);
}

PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val)
{
    sy_value_destruct(val);
}

PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d)
{
    sy_elem_destruct(d, PMIX_DATA_ARRAY);
}

PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo)
{
    sy_elem_destruct(topo, PMIX_TOPO);
}

PMIX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)
{
    sy_elem_destruct(cpuset, PMIX_PROC_CPUSET);
}
