/*
 * Switchyard -- PMIx_Value_load, PMIx_Value_unload, PMIx_Value_xfer.
 *
 * `data` conventions (Standard, and what programs built against OpenPMIx
 * 4.2.2 pass): a PMIX_STRING/PMIX_REGEX is passed as the char* itself, a
 * PMIX_POINTER as the pointer to keep, every other type by the address of
 * one element (int*, pmix_proc_t*, pmix_data_array_t*, ...).
 */
#include "common/datatype.h"

#include <string.h>

#include <pmix.h>

PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
                                          pmix_data_type_t type)
{
    pmix_status_t rc;

    if (val == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (type == PMIX_STRING || type == PMIX_REGEX || type == PMIX_POINTER) {
        return sy_value_set(val, &data, type);
    }
    rc = sy_value_set(val, data, type);
    /* a boolean attribute given without a value means "true" */
    if (rc == PMIX_SUCCESS && type == PMIX_BOOL && data == NULL) {
        val->data.flag = true;
    }
    return rc;
}

static pmix_status_t unload_bytes(const pmix_byte_object_t *bo, void **data, size_t *sz)
{
    *data = NULL;
    *sz = 0;
    if (bo->bytes == NULL || bo->size == 0) {
        return PMIX_SUCCESS;
    }
    *data = malloc(bo->size);
    if (*data == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(*data, bo->bytes, bo->size);
    *sz = bo->size;
    return PMIX_SUCCESS;
}

/*
 * Plain data (numbers, enums, pmix_proc_t, pmix_nspace_t, timeval) goes into
 * the caller's storage when *data already points at some -- what OpenPMIx
 * 4.2.2 requires and its users do -- and into a malloc'd copy when *data is
 * NULL, as the Standard describes.  Types that own memory always come back
 * as a new malloc'd deep copy.
 */
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t *sz)
{
    const void *elem;
    size_t size;
    void *copy;
    pmix_status_t rc;

    if (val == NULL || data == NULL || sz == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    size = sy_type_size(val->type);
    if (val->type == PMIX_UNDEF || size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    switch (val->type) {
    case PMIX_STRING:
        *data = NULL;
        *sz = 0;
        if (val->data.string != NULL) {
            if ((*data = strdup(val->data.string)) == NULL) {
                return PMIX_ERR_NOMEM;
            }
            *sz = strlen(val->data.string);
        }
        return PMIX_SUCCESS;
    case PMIX_REGEX:
        if (val->data.bo.size == 0 && val->data.string != NULL) {
            pmix_byte_object_t bo = {val->data.string, strlen(val->data.string) + 1};
            return unload_bytes(&bo, data, sz);
        }
        return unload_bytes(&val->data.bo, data, sz);
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: return unload_bytes(&val->data.bo, data, sz);
    case PMIX_POINTER:
        *data = val->data.ptr;
        *sz = sizeof(void *);
        return PMIX_SUCCESS;
    default: break;
    }
    if (sy_value_kind(val->type) == SY_VALUE_NONE) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    elem = sy_value_elem(val);
    if (elem == NULL) {
        /* a NULL box (e.g. a PMIX_DATA_ARRAY value without array) */
        *data = NULL;
        *sz = 0;
        return PMIX_SUCCESS;
    }
    if (!sy_type_owns(val->type)) {
        if (*data == NULL && (*data = malloc(size)) == NULL) {
            return PMIX_ERR_NOMEM;
        }
        if (val->type == PMIX_PROC_NSPACE) {
            sy_load_fixed(*data, elem, sizeof(pmix_nspace_t));
            *sz = strlen(*data);
        } else {
            memcpy(*data, elem, size);
            *sz = size;
        }
        return PMIX_SUCCESS;
    }
    copy = malloc(size);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_elem_copy(copy, elem, val->type);
    if (rc != PMIX_SUCCESS) {
        free(copy);
        return rc;
    }
    *data = copy;
    *sz = size;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src)
{
    return sy_value_copy(dest, src);
}
