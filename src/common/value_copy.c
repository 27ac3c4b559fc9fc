/*
 * Switchyard -- deep copy of one element of any data type, and
 * PMIx_Data_copy on top of it.
 *
 * Each copy starts from a zeroed destination and, on failure, hands the
 * partial result to sy_elem_destruct, so no error path leaks and the
 * destination never owns half a payload.
 */
#include "common/datatype.h"

#include <hwloc.h>
#include <string.h>

#include <pmix.h>

static pmix_status_t str_copy(char **dst, const char *src)
{
    *dst = NULL;
    if (src != NULL && (*dst = strdup(src)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

/* NULL-terminated string vector (argv, env, description). */
static pmix_status_t argv_copy(char ***dst, char *const *src)
{
    size_t n = 0, i;
    char **v;

    *dst = NULL;
    if (src == NULL) {
        return PMIX_SUCCESS;
    }
    while (src[n] != NULL) {
        n++;
    }
    v = calloc(n + 1, sizeof(char *));
    if (v == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        if ((v[i] = strdup(src[i])) == NULL) {
            while (i > 0) {
                free(v[--i]);
            }
            free(v);
            return PMIX_ERR_NOMEM;
        }
    }
    *dst = v;
    return PMIX_SUCCESS;
}

static pmix_status_t bo_copy(pmix_byte_object_t *d, const pmix_byte_object_t *s)
{
    d->bytes = NULL;
    d->size = 0;
    if (s->bytes == NULL || s->size == 0) {
        return PMIX_SUCCESS;
    }
    d->bytes = malloc(s->size);
    if (d->bytes == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->bytes, s->bytes, s->size);
    d->size = s->size;
    return PMIX_SUCCESS;
}

static pmix_status_t darray_copy(pmix_data_array_t *d, const pmix_data_array_t *s)
{
    d->type = s->type;
    d->size = s->array == NULL ? 0 : s->size;
    return sy_array_copy(&d->array, s->array, d->size, s->type);
}

static pmix_status_t info_copy(pmix_info_t *d, const pmix_info_t *s)
{
    sy_load_fixed(d->key, s->key, sizeof(d->key));
    d->flags = s->flags;
    /* A persistent info does not own its value (PMIx_Info_list_insert and
     * the *_DESTRUCT macros rely on this), so neither does its copy. */
    if (s->flags & PMIX_INFO_PERSISTENT) {
        d->value = s->value;
        return PMIX_SUCCESS;
    }
    return sy_value_copy(&d->value, &s->value);
}

static pmix_status_t app_copy(pmix_app_t *d, const pmix_app_t *s)
{
    pmix_status_t rc;

    d->maxprocs = s->maxprocs;
    if ((rc = str_copy(&d->cmd, s->cmd)) != PMIX_SUCCESS ||
        (rc = argv_copy(&d->argv, s->argv)) != PMIX_SUCCESS ||
        (rc = argv_copy(&d->env, s->env)) != PMIX_SUCCESS ||
        (rc = str_copy(&d->cwd, s->cwd)) != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_array_copy((void **)&d->info, s->info, s->ninfo, PMIX_INFO);
    if (rc == PMIX_SUCCESS && d->info != NULL) {
        d->ninfo = s->ninfo;
    }
    return rc;
}

static pmix_status_t query_copy(pmix_query_t *d, const pmix_query_t *s)
{
    pmix_status_t rc = argv_copy(&d->keys, s->keys);

    if (rc == PMIX_SUCCESS) {
        rc = sy_array_copy((void **)&d->qualifiers, s->qualifiers, s->nqual, PMIX_INFO);
        if (rc == PMIX_SUCCESS && d->qualifiers != NULL) {
            d->nqual = s->nqual;
        }
    }
    return rc;
}

static pmix_status_t coord_copy(pmix_coord_t *d, const pmix_coord_t *s)
{
    d->view = s->view;
    if (s->coord == NULL || s->dims == 0) {
        return PMIX_SUCCESS;
    }
    d->coord = calloc(s->dims, sizeof(uint32_t));
    if (d->coord == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->coord, s->coord, s->dims * sizeof(uint32_t));
    d->dims = s->dims;
    return PMIX_SUCCESS;
}

static pmix_status_t geometry_copy(pmix_geometry_t *d, const pmix_geometry_t *s)
{
    pmix_status_t rc;

    d->fabric = s->fabric;
    if ((rc = str_copy(&d->uuid, s->uuid)) != PMIX_SUCCESS ||
        (rc = str_copy(&d->osname, s->osname)) != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_array_copy((void **)&d->coordinates, s->coordinates, s->ncoords, PMIX_COORD);
    if (rc == PMIX_SUCCESS && d->coordinates != NULL) {
        d->ncoords = s->ncoords;
    }
    return rc;
}

static pmix_status_t topo_copy(pmix_topology_t *d, const pmix_topology_t *s)
{
    pmix_status_t rc = str_copy(&d->source, s->source);
    hwloc_topology_t t;

    if (rc != PMIX_SUCCESS || s->topology == NULL) {
        return rc;
    }
    if (!sy_from_hwloc(s->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (hwloc_topology_dup(&t, (hwloc_topology_t)s->topology) != 0) {
        return PMIX_ERROR;
    }
    d->topology = t;
    return PMIX_SUCCESS;
}

static pmix_status_t cpuset_copy(pmix_cpuset_t *d, const pmix_cpuset_t *s)
{
    pmix_status_t rc = str_copy(&d->source, s->source);

    if (rc != PMIX_SUCCESS || s->bitmap == NULL) {
        return rc;
    }
    if (!sy_from_hwloc(s->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    d->bitmap = hwloc_bitmap_dup((hwloc_const_bitmap_t)s->bitmap);
    return d->bitmap == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t node_stats_copy(pmix_node_stats_t *d, const pmix_node_stats_t *s)
{
    pmix_status_t rc;

    *d = *s;
    d->node = NULL;
    d->diskstats = NULL;
    d->ndiskstats = 0;
    d->netstats = NULL;
    d->nnetstats = 0;
    if ((rc = str_copy(&d->node, s->node)) != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_array_copy((void **)&d->diskstats, s->diskstats, s->ndiskstats, PMIX_DISK_STATS);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    d->ndiskstats = d->diskstats == NULL ? 0 : s->ndiskstats;
    rc = sy_array_copy((void **)&d->netstats, s->netstats, s->nnetstats, PMIX_NET_STATS);
    if (rc == PMIX_SUCCESS) {
        d->nnetstats = d->netstats == NULL ? 0 : s->nnetstats;
    }
    return rc;
}

/* The whole buffer, read and unread parts, with its cursors at the same
 * offsets: a copy unpacks exactly like the original would. */
static pmix_status_t dbuf_copy(pmix_data_buffer_t *d, const pmix_data_buffer_t *s)
{
    size_t cap = s->bytes_allocated > s->bytes_used ? s->bytes_allocated : s->bytes_used;
    const char *end;

    if (s->base_ptr == NULL || cap == 0) {
        return PMIX_SUCCESS;
    }
    end = s->base_ptr + cap;
    if ((s->pack_ptr != NULL && (s->pack_ptr < s->base_ptr || s->pack_ptr > end)) ||
        (s->unpack_ptr != NULL && (s->unpack_ptr < s->base_ptr || s->unpack_ptr > end))) {
        return PMIX_ERR_BAD_PARAM;
    }
    d->base_ptr = malloc(cap);
    if (d->base_ptr == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->base_ptr, s->base_ptr, s->bytes_used);
    d->bytes_allocated = cap;
    d->bytes_used = s->bytes_used;
    d->pack_ptr = s->pack_ptr == NULL ? NULL : d->base_ptr + (s->pack_ptr - s->base_ptr);
    d->unpack_ptr = s->unpack_ptr == NULL ? NULL : d->base_ptr + (s->unpack_ptr - s->base_ptr);
    return PMIX_SUCCESS;
}

static pmix_status_t copy_owning(void *dst, const void *src, pmix_data_type_t type)
{
    pmix_status_t rc;

    switch (type) {
    case PMIX_STRING:
    case PMIX_REGEX: return str_copy((char **)dst, *(char *const *)src);
    case PMIX_PROC_NSPACE: sy_load_fixed(dst, src, sizeof(pmix_nspace_t)); return PMIX_SUCCESS;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: return bo_copy(dst, src);
    case PMIX_VALUE: return sy_value_copy(dst, src);
    case PMIX_INFO: return info_copy(dst, src);
    case PMIX_PDATA: {
        pmix_pdata_t *d = dst;
        const pmix_pdata_t *s = src;
        d->proc = s->proc;
        sy_load_fixed(d->key, s->key, sizeof(d->key));
        return sy_value_copy(&d->value, &s->value);
    }
    case PMIX_APP: return app_copy(dst, src);
    case PMIX_QUERY: return query_copy(dst, src);
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *d = dst;
        const pmix_proc_info_t *s = src;
        d->proc = s->proc;
        d->pid = s->pid;
        d->exit_code = s->exit_code;
        d->state = s->state;
        if ((rc = str_copy(&d->hostname, s->hostname)) != PMIX_SUCCESS) {
            return rc;
        }
        return str_copy(&d->executable_name, s->executable_name);
    }
    case PMIX_DATA_ARRAY: return darray_copy(dst, src);
    case PMIX_ENVAR: {
        pmix_envar_t *d = dst;
        const pmix_envar_t *s = src;
        d->separator = s->separator;
        if ((rc = str_copy(&d->envar, s->envar)) != PMIX_SUCCESS) {
            return rc;
        }
        return str_copy(&d->value, s->value);
    }
    case PMIX_COORD: return coord_copy(dst, src);
    case PMIX_REGATTR: {
        pmix_regattr_t *d = dst;
        const pmix_regattr_t *s = src;
        sy_load_fixed(d->string, s->string, sizeof(d->string));
        d->type = s->type;
        if ((rc = str_copy(&d->name, s->name)) != PMIX_SUCCESS) {
            return rc;
        }
        return argv_copy(&d->description, s->description);
    }
    case PMIX_PROC_CPUSET: return cpuset_copy(dst, src);
    case PMIX_GEOMETRY: return geometry_copy(dst, src);
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = dst;
        const pmix_device_distance_t *s = src;
        d->type = s->type;
        d->mindist = s->mindist;
        d->maxdist = s->maxdist;
        if ((rc = str_copy(&d->uuid, s->uuid)) != PMIX_SUCCESS) {
            return rc;
        }
        return str_copy(&d->osname, s->osname);
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *d = dst;
        const pmix_endpoint_t *s = src;
        if ((rc = str_copy(&d->uuid, s->uuid)) != PMIX_SUCCESS ||
            (rc = str_copy(&d->osname, s->osname)) != PMIX_SUCCESS) {
            return rc;
        }
        return bo_copy(&d->endpt, &s->endpt);
    }
    case PMIX_TOPO: return topo_copy(dst, src);
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *d = dst;
        const pmix_proc_stats_t *s = src;
        *d = *s;
        d->node = NULL;
        d->cmd = NULL;
        if ((rc = str_copy(&d->node, s->node)) != PMIX_SUCCESS) {
            return rc;
        }
        return str_copy(&d->cmd, s->cmd);
    }
    case PMIX_DISK_STATS: {
        pmix_disk_stats_t *d = dst;
        const pmix_disk_stats_t *s = src;
        *d = *s;
        return str_copy(&d->disk, s->disk);
    }
    case PMIX_NET_STATS: {
        pmix_net_stats_t *d = dst;
        const pmix_net_stats_t *s = src;
        *d = *s;
        return str_copy(&d->net_interface, s->net_interface);
    }
    case PMIX_NODE_STATS: return node_stats_copy(dst, src);
    case PMIX_DATA_BUFFER: return dbuf_copy(dst, src);
    default: {
        /* everything else owns no memory: a plain copy (PMIX_POINTER keeps
         * pointing at the caller's object) */
        size_t size = sy_type_size(type);
        if (size == 0) {
            return PMIX_ERR_UNKNOWN_DATA_TYPE;
        }
        memcpy(dst, src, size);
        return PMIX_SUCCESS;
    }
    }
}

pmix_status_t sy_elem_copy(void *dst, const void *src, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    pmix_status_t rc;

    if (dst == NULL || src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    memset(dst, 0, size);
    rc = copy_owning(dst, src, type);
    if (rc != PMIX_SUCCESS) {
        sy_elem_destruct(dst, type);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    void *elem;
    pmix_status_t rc;

    if (dest == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *dest = NULL;
    if (size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    /* strings are passed as the string itself, everything else by address */
    if (type == PMIX_STRING || type == PMIX_REGEX) {
        return str_copy((char **)dest, src);
    }
    if (src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    elem = malloc(size);
    if (elem == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_elem_copy(elem, src, type);
    if (rc != PMIX_SUCCESS) {
        free(elem);
        return rc;
    }
    *dest = elem;
    return PMIX_SUCCESS;
}
