/* Values whose pointers contradict what they claim: a NULL string, a byte
 * object of 1000 bytes at NULL, an array of n elements at NULL, a NULL
 * box for a PMIX_PROC.  They are refused where they enter the library
 * (PMIx_Put), before anything reads through them or sends them to peers
 * that would have to. */
#include "common/datatype.h"

/* nested arrays and infos deeper than this are refused: a value whose
 * arrays point back into themselves would otherwise never end */
#define SY_VALUE_CHECK_DEPTH 32

static pmix_status_t value_check(const pmix_value_t *v, int depth);

static pmix_status_t bytes_check(const void *p, size_t n)
{
    return p == NULL && n != 0 ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
}

static pmix_status_t elem_check(const void *e, pmix_data_type_t type, int depth);

static pmix_status_t array_check(const pmix_data_array_t *a, int depth)
{
    if (a->size == 0)
        return PMIX_SUCCESS;
    size_t sz = sy_type_size(a->type);
    if (a->array == NULL || sz == 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < a->size && rc == PMIX_SUCCESS; i++)
        rc = elem_check((const char *)a->array + i * sz, a->type, depth + 1);
    return rc;
}

static pmix_status_t infos_check(const pmix_info_t *info, size_t n, int depth)
{
    if (info == NULL)
        return bytes_check(info, n);
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = value_check(&info[i].value, depth + 1);
    return rc;
}

static pmix_status_t coord_check(const pmix_coord_t *c)
{
    return bytes_check(c->coord, c->dims);
}

/* One element as it sits in a data array (or inline in a value). */
static pmix_status_t elem_check(const void *e, pmix_data_type_t type, int depth)
{
    if (depth > SY_VALUE_CHECK_DEPTH)
        return PMIX_ERR_BAD_PARAM;
    switch (type) {
    case PMIX_STRING:
    case PMIX_REGEX: return *(char *const *)e == NULL ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: {
        const pmix_byte_object_t *bo = e;
        return bytes_check(bo->bytes, bo->size);
    }
    case PMIX_DATA_ARRAY: return array_check(e, depth);
    case PMIX_VALUE: return value_check(e, depth + 1);
    case PMIX_INFO: return value_check(&((const pmix_info_t *)e)->value, depth + 1);
    case PMIX_PDATA: return value_check(&((const pmix_pdata_t *)e)->value, depth + 1);
    case PMIX_APP: {
        const pmix_app_t *app = e;
        return infos_check(app->info, app->ninfo, depth);
    }
    case PMIX_QUERY: {
        const pmix_query_t *q = e;
        return infos_check(q->qualifiers, q->nqual, depth);
    }
    case PMIX_ENVAR:
        return ((const pmix_envar_t *)e)->envar == NULL ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
    case PMIX_COORD: return coord_check(e);
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = e;
        pmix_status_t rc = bytes_check(g->coordinates, g->ncoords);
        for (size_t i = 0; rc == PMIX_SUCCESS && g->coordinates != NULL && i < g->ncoords; i++)
            rc = coord_check(&g->coordinates[i]);
        return rc;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *ep = e;
        return bytes_check(ep->endpt.bytes, ep->endpt.size);
    }
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *db = e;
        return bytes_check(db->base_ptr, db->bytes_used);
    }
    case PMIX_NODE_STATS: {
        const pmix_node_stats_t *ns = e;
        pmix_status_t rc = bytes_check(ns->diskstats, ns->ndiskstats);
        return rc == PMIX_SUCCESS ? bytes_check(ns->netstats, ns->nnetstats) : rc;
    }
    default: return PMIX_SUCCESS;
    }
}

static pmix_status_t value_check(const pmix_value_t *v, int depth)
{
    if (depth > SY_VALUE_CHECK_DEPTH)
        return PMIX_ERR_BAD_PARAM;
    switch (sy_value_kind(v->type)) {
    case SY_VALUE_BOXED:
        /* a PMIX_PROC, PMIX_DATA_ARRAY, ... without its box */
        return v->data.ptr == NULL ? PMIX_ERR_BAD_PARAM : elem_check(v->data.ptr, v->type, depth);
    case SY_VALUE_INLINE:
        /* in a value a regex is a byte object (its bytes are the string) */
        if (v->type == PMIX_REGEX)
            return v->data.bo.bytes == NULL ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
        return elem_check(&v->data, v->type, depth);
    default: return PMIX_SUCCESS;
    }
}

pmix_status_t sy_value_check(const pmix_value_t *v)
{
    return v == NULL ? PMIX_ERR_BAD_PARAM : value_check(v, 0);
}
