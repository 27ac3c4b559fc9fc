/* Small helpers of the fabric engine module: a growable pmix_info_t array
 * whose entries take ownership of what is put in them. */
#ifndef SWITCHYARD_SCHED_FABMOD_UTIL_H
#define SWITCHYARD_SCHED_FABMOD_UTIL_H

#include <stddef.h>

#include <pmix_common.h>

typedef struct {
    pmix_info_t *v;
    size_t n, cap;
} sy_ilist_t;

/* Append a copy of data (PMIx_Info_load). */
pmix_status_t sy_il_load(sy_ilist_t *l, const char *key, const void *data, pmix_data_type_t type);
/* Append a copy of an info (PMIx_Info_xfer). */
pmix_status_t sy_il_xfer(sy_ilist_t *l, const pmix_info_t *src);
/* Append a data array, taking it (freed with the list's entry). */
pmix_status_t sy_il_take_array(sy_ilist_t *l, const char *key, pmix_data_array_t *da);
/* Append a byte object that takes `bytes` (malloc'd). */
pmix_status_t sy_il_take_bytes(sy_ilist_t *l, const char *key, void *bytes, size_t size);
/* Hand the entries out as a pmix_info_t array (list emptied). */
void sy_il_finish(sy_ilist_t *l, pmix_info_t **out, size_t *n);
void sy_il_free(sy_ilist_t *l);

/* A data array of `n` elements of `type`, zeroed (calloc); NULL on ENOMEM. */
pmix_data_array_t *sy_darray_new(pmix_data_type_t type, size_t n);
/* A PMIX_STRING data array of copies of v[0..n-1]; NULL on ENOMEM. */
pmix_data_array_t *sy_darray_strings(char *const *v, size_t n);
/* A PMIX_INFO data array that takes the list's entries. */
pmix_data_array_t *sy_il_to_darray(sy_ilist_t *l);

#endif
