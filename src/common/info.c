/*
 * Switchyard -- PMIx_Info_load and PMIx_Info_xfer.
 */
#include "common/info.h"

#include "common/datatype.h"

#include <limits.h>
#include <string.h>

#include <pmix.h>

/* Open MPI and Slurm reach this through PMIX_INFO_LOAD, often with a NULL
 * `data` for PMIX_BOOL meaning "true"; PMIx_Value_load handles that. */
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                                         pmix_data_type_t type)
{
    if (info == NULL || key == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_load_fixed(info->key, key, sizeof(info->key));
    /* any earlier directive (e.g. the ARRAY_END mark of PMIX_INFO_CREATE)
     * does not describe the new contents */
    info->flags = 0;
    return PMIx_Value_load(&info->value, data, type);
}

/* Key, directives and value; a persistent source's value is shared, not
 * copied, as with every pmix_info_t element (see sy_elem_copy). */
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src)
{
    pmix_info_t tmp;
    pmix_status_t rc;

    if (dest == NULL || src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    rc = sy_elem_copy(&tmp, src, PMIX_INFO);
    *dest = tmp;
    return rc;
}

const pmix_info_t *sy_info_find(const pmix_info_t info[], size_t ninfo, const char *key)
{
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        if (sy_info_is(&info[i], key))
            return &info[i];
    return NULL;
}

bool sy_info_flag(const pmix_info_t info[], size_t ninfo, const char *key)
{
    const pmix_info_t *i = sy_info_find(info, ninfo, key);
    return i != NULL && sy_info_true(i);
}

pmix_status_t sy_info_timeout_of(const pmix_info_t *i, double *secs)
{
    const pmix_value_t *v = &i->value;
    long long n;
    switch (v->type) {
    case PMIX_INT: n = v->data.integer; break;
    case PMIX_INT8: n = v->data.int8; break;
    case PMIX_INT16: n = v->data.int16; break;
    case PMIX_INT32: n = v->data.int32; break;
    case PMIX_INT64: n = v->data.int64; break;
    case PMIX_UINT: n = v->data.uint; break;
    case PMIX_UINT8: n = v->data.uint8; break;
    case PMIX_UINT16: n = v->data.uint16; break;
    case PMIX_UINT32: n = v->data.uint32; break;
    case PMIX_UINT64: n = v->data.uint64 > LLONG_MAX ? LLONG_MAX : (long long)v->data.uint64; break;
    case PMIX_SIZE: n = v->data.size > LLONG_MAX ? LLONG_MAX : (long long)v->data.size; break;
    default: return PMIX_ERR_BAD_PARAM;
    }
    if (n < 0)
        return PMIX_ERR_BAD_PARAM;
    *secs = (double)n;
    return PMIX_SUCCESS;
}

pmix_status_t sy_info_timeout(const pmix_info_t info[], size_t ninfo, double *secs)
{
    *secs = 0;
    const pmix_info_t *i = sy_info_find(info, ninfo, PMIX_TIMEOUT);
    return i == NULL ? PMIX_SUCCESS : sy_info_timeout_of(i, secs);
}
