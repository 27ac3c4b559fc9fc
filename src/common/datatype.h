/*
 * Switchyard -- the per-type element logic of the data layer.
 *
 * Every PMIx data type is handled here once: its element size inside a
 * pmix_data_array_t, how to deep-copy one element and how to release what
 * one element owns.  The public value, info, data-array, copy, pack and
 * print functions are all built on these, so that a new type, or a fix to
 * the ownership of an existing one, is made in a single place.
 *
 * "Element" means one item as it sits in a pmix_data_array_t of that type:
 * a char* for PMIX_STRING and PMIX_REGEX, a pmix_proc_t for PMIX_PROC, a
 * pmix_data_array_t for PMIX_DATA_ARRAY, a void* for PMIX_POINTER, ...
 */
#ifndef SWITCHYARD_COMMON_DATATYPE_H
#define SWITCHYARD_COMMON_DATATYPE_H

#include <pmix_common.h>

/* Size in bytes of one element of `type` inside a pmix_data_array_t (e.g.
 * PMIX_INFO -> sizeof(pmix_info_t), PMIX_STRING -> sizeof(char*), PMIX_BOOL
 * -> sizeof(bool)), 0 for unknown or non-array types. */
size_t sy_type_size(pmix_data_type_t type);

/* Deep-copy ONE element of `type` from src into the (already allocated,
 * uninitialized) element dst.  Strings are strdup'd, structs copied with all
 * owned payloads; hwloc topologies/cpusets are duplicated with hwloc.  A
 * PMIX_INFO flagged PMIX_INFO_PERSISTENT does not own its value, so its copy
 * shares that value (and keeps the flag).  On failure dst is left zeroed
 * and owns nothing. */
pmix_status_t sy_elem_copy(void *dst, const void *src, pmix_data_type_t type);

/* Release what ONE element of `type` owns (not the element's own storage),
 * leaving it zeroed.  Never frees a PMIX_POINTER, nor the value of a
 * PMIX_INFO flagged PMIX_INFO_PERSISTENT (as PMIX_INFO_DESTRUCT). */
void sy_elem_destruct(void *elem, pmix_data_type_t type);

/* Release `n` elements of `type` starting at `array`, then free(array). */
void sy_array_free(void *array, size_t n, pmix_data_type_t type);

/* ---- helpers built on the above ---------------------------------------- */

/* Deep-copy `n` elements of `type` into a new calloc'd array stored in
 * *dst (NULL when n == 0 or src == NULL). */
pmix_status_t sy_array_copy(void **dst, const void *src, size_t n, pmix_data_type_t type);

/* True when an element of `type` can own memory (strings, byte objects,
 * structs with pointers, hwloc objects); false for plain data, including
 * pmix_proc_t, pmix_nspace_t and PMIX_POINTER. */
bool sy_type_owns(pmix_data_type_t type);

/* How a pmix_value_t holds a payload of a given type. */
typedef enum {
    SY_VALUE_NONE,   /* no union member: cannot be held by a value */
    SY_VALUE_INLINE, /* the element itself is stored in val->data */
    SY_VALUE_BOXED,  /* val->data holds a pointer to one malloc'd element */
    SY_VALUE_RAW     /* PMIX_POINTER: the caller's pointer, never owned */
} sy_value_kind_t;

sy_value_kind_t sy_value_kind(pmix_data_type_t type);

/* Address of the element a value holds (a char** for PMIX_STRING, the
 * box for SY_VALUE_BOXED types), or NULL when it holds none (PMIX_UNDEF,
 * a type a value cannot hold, a NULL box). */
const void *sy_value_elem(const pmix_value_t *val);

/* Deep-copy the payload of src into dest (whose previous contents are
 * ignored, not released).  On failure dest is left as PMIX_UNDEF. */
pmix_status_t sy_value_copy(pmix_value_t *dest, const pmix_value_t *src);

/* Store a deep copy of the element `elem` of `type` in val (previous
 * contents ignored).  elem points at the element as everywhere else: a
 * char** for PMIX_STRING, a void** for PMIX_POINTER.  elem == NULL stores
 * an all-zero payload (a NULL string, a NULL box). */
pmix_status_t sy_value_set(pmix_value_t *val, const void *elem, pmix_data_type_t type);

/* Release everything val owns, then zero it (type PMIX_UNDEF). */
void sy_value_destruct(pmix_value_t *val);

/* PMIX_ERR_BAD_PARAM when a pointer in val contradicts what it claims (a
 * NULL string, a byte object or array of n > 0 elements at NULL, a NULL
 * box for a PMIX_PROC, PMIX_DATA_ARRAY, ...; inside arrays and infos too),
 * else PMIX_SUCCESS (value_check.c). */
pmix_status_t sy_value_check(const pmix_value_t *val);

/* Copy a key/nspace into fixed storage of `cap` bytes, always terminated
 * and zero-filled; src may be NULL. */
void sy_load_fixed(char *dst, const char *src, size_t cap);

/* True when `source` names hwloc, the only provider of pmix_topology_t and
 * pmix_cpuset_t objects this library can duplicate and destroy. */
bool sy_from_hwloc(const char *source);

#endif /* SWITCHYARD_COMMON_DATATYPE_H */
