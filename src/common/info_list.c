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
        cap = l->cap == 0 ? 8 : 2 * l->cap;
        items = realloc(l->items, cap * sizeof(pmix_info_t));
        if (items == NULL) {
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

    if (l == NULL || key == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((slot = grow(l)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = PMIx_Info_load(slot, key, value, type);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    l->count++;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
    sy_info_list_t *l = ptr;
    pmix_info_t *slot;

    if (l == NULL || info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((slot = grow(l)) == NULL) {
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

    if (l == NULL || info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((slot = grow(l)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_elem_copy(slot, info, PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    l->count++;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
    sy_info_list_t *l = ptr;
    pmix_status_t rc;

    if (l == NULL || par == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    par->type = PMIX_INFO;
    par->size = 0;
    par->array = NULL;
    if (l->count == 0) {
        return PMIX_ERR_EMPTY;
    }
    rc = sy_array_copy(&par->array, l->items, l->count, PMIX_INFO);
    if (rc == PMIX_SUCCESS) {
        par->size = l->count;
    }
    return rc;
}

PMIX_EXPORT void PMIx_Info_list_release(void *ptr)
{
    sy_info_list_t *l = ptr;

    if (l != NULL) {
        sy_array_free(l->items, l->count, PMIX_INFO);
        free(l);
    }
}
