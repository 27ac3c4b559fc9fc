/* Growable info arrays for the fabric engine module (fabmod_util.h). */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "fabmod/fabmod_util.h"

static pmix_info_t *slot(sy_ilist_t *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        pmix_info_t *v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    pmix_info_t *i = &l->v[l->n];
    memset(i, 0, sizeof(*i));
    return i;
}

pmix_status_t sy_il_load(sy_ilist_t *l, const char *key, const void *data, pmix_data_type_t type)
{
    pmix_info_t *i = slot(l);
    if (i == NULL)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIx_Info_load(i, key, data, type);
    if (rc == PMIX_SUCCESS)
        l->n++;
    return rc;
}

pmix_status_t sy_il_xfer(sy_ilist_t *l, const pmix_info_t *src)
{
    pmix_info_t *i = slot(l);
    if (i == NULL)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIx_Info_xfer(i, src);
    if (rc == PMIX_SUCCESS)
        l->n++;
    return rc;
}

pmix_status_t sy_il_take_array(sy_ilist_t *l, const char *key, pmix_data_array_t *da)
{
    pmix_info_t *i = da != NULL ? slot(l) : NULL;
    if (i == NULL) {
        PMIX_DATA_ARRAY_FREE(da);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_KEY(i->key, key);
    i->value.type = PMIX_DATA_ARRAY;
    i->value.data.darray = da;
    l->n++;
    return PMIX_SUCCESS;
}

pmix_status_t sy_il_take_bytes(sy_ilist_t *l, const char *key, void *bytes, size_t size)
{
    pmix_info_t *i = slot(l);
    if (i == NULL) {
        free(bytes);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_KEY(i->key, key);
    i->value.type = PMIX_BYTE_OBJECT;
    i->value.data.bo.bytes = bytes;
    i->value.data.bo.size = size;
    l->n++;
    return PMIX_SUCCESS;
}

void sy_il_finish(sy_ilist_t *l, pmix_info_t **out, size_t *n)
{
    *out = l->n > 0 ? l->v : NULL;
    *n = l->n;
    if (l->n == 0)
        free(l->v);
    memset(l, 0, sizeof(*l));
}

void sy_il_free(sy_ilist_t *l)
{
    if (l->v != NULL)
        PMIX_INFO_FREE(l->v, l->n);
    memset(l, 0, sizeof(*l));
}

pmix_data_array_t *sy_darray_new(pmix_data_type_t type, size_t n)
{
    pmix_data_array_t *da;
    PMIX_DATA_ARRAY_CREATE(da, n, type);
    return da;
}

pmix_data_array_t *sy_darray_strings(char *const *v, size_t n)
{
    pmix_data_array_t *da = sy_darray_new(PMIX_STRING, n);
    for (size_t i = 0; da != NULL && i < n; i++)
        if ((((char **)da->array)[i] = strdup(v[i])) == NULL)
            PMIX_DATA_ARRAY_FREE(da);
    return da;
}

pmix_data_array_t *sy_il_to_darray(sy_ilist_t *l)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL) {
        sy_il_free(l);
        return NULL;
    }
    da->type = PMIX_INFO;
    sy_il_finish(l, (pmix_info_t **)&da->array, &da->size);
    return da;
}
