/*
 * Switchyard -- PMIx_Info_list_*: an opaque, growable list of pmix_info_t.
 *
 * Each list is used by one caller at a time, as the Standard implies; it
 * holds no global state.  Entries added with _add/_xfer own their values.
 * An entry added with _insert shares the caller's value and is marked
 * PMIX_INFO_PERSISTENT, so neither the list nor the arrays made from it
 * ever free that value: the caller keeps ownership and must keep it alive
 * while the list or a converted array refers to it (OpenPMIx 4.2.2 does the
 * same, and its callers rely on destructing the original themselves).
 */
#include "common/datatype.h"

#include <string.h>

#include <pmix.h>

typedef struct {
    pmix_info_t *items;
    size_t count;
    size_t cap;
} sy_info_list_t;

PMIX_EXPORT void *PMIx_Info_list_start(void)
{
    return calloc(1, sizeof(sy_info_list_t));
}

/* Room for one more entry; returns it zeroed, or NULL. */
static pmix_info_t *grow(sy_info_list_t *l)
{
    pmix_info_t *items;
    size_t cap;

    if (l->count == l->cap) {
        cap = 0 == l->cap ? 8 : 2 * l->cap;
        items = realloc(l->items, cap * sizeof(pmix_info_t));
        if (NULL == items) {
            return NULL;
        }
        l->items = items;
        l->cap = cap;
    }
    memset(&l->items[l->count], 0, sizeof(pmix_info_t));
    return &l->items[l->count];
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
                                             pmix_data_type_t type)
{
    sy_info_list_t *l = ptr;
    pmix_info_t *slot;
    pmix_status_t rc;

    if (NULL == l || NULL == key) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL == (slot = grow(l))) {
        return PMIX_ERR_NOMEM;
    }
    rc = PMIx_Info_load(slot, key, value, type);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    l->count++;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
    sy_info_list_t *l = ptr;
    pmix_info_t *slot;

    if (NULL == l || NULL == info) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL == (slot = grow(l))) {
        return PMIX_ERR_NOMEM;
    }
    *slot = *info;
    slot->flags |= PMIX_INFO_PERSISTENT;
    l->count++;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)
{
    sy_info_list_t *l = ptr;
    pmix_info_t *slot;
    pmix_status_t rc;

    if (NULL == l || NULL == info) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL == (slot = grow(l))) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_elem_copy(slot, info, PMIX_INFO);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    l->count++;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
    sy_info_list_t *l = ptr;
    pmix_status_t rc;

    if (NULL == l || NULL == par) {
        return PMIX_ERR_BAD_PARAM;
    }
    par->type = PMIX_INFO;
    par->size = 0;
    par->array = NULL;
    if (0 == l->count) {
        return PMIX_ERR_EMPTY;
    }
    rc = sy_array_copy(&par->array, l->items, l->count, PMIX_INFO);
    if (PMIX_SUCCESS == rc) {
        par->size = l->count;
    }
    return rc;
}

PMIX_EXPORT void PMIx_Info_list_release(void *ptr)
{
    sy_info_list_t *l = ptr;

    if (NULL != l) {
        sy_array_free(l->items, l->count, PMIX_INFO);
        free(l);
    }
}
