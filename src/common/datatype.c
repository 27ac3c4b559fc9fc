/*
 * Switchyard -- the data-type table and the value-level glue.
 *
 * The table says, for every data type of the Standard, how big one element
 * is and how a pmix_value_t holds it.  Everything that copies or releases a
 * value goes through sy_value_set/sy_value_copy/sy_value_destruct, which in
 * turn use the per-element functions (value_copy.c, value_free.c), so the
 * ownership rules of a type live in exactly one switch.
 */
#include "common/datatype.h"

#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

typedef struct {
    size_t size; /* element size in a pmix_data_array_t */
    sy_value_kind_t kind;
    bool owns; /* an element can own memory (strings, arrays, ...) */
} sy_type_info_t;

#define T(type, sz, k, o) [type] = {(sz), SY_VALUE_##k, (o)}

/* Types 26 (BUFFER), 28 (KVAL), 29 (MODEX), 34 (COMMAND) and 44 (INFO_ARRAY)
 * are internal or retired in the Standard and have no public layout. */
static const sy_type_info_t types[] = {
    T(PMIX_BOOL, sizeof(bool), INLINE, false),
    T(PMIX_BYTE, sizeof(uint8_t), INLINE, false),
    T(PMIX_STRING, sizeof(char *), INLINE, true),
    T(PMIX_SIZE, sizeof(size_t), INLINE, false),
    T(PMIX_PID, sizeof(pid_t), INLINE, false),
    T(PMIX_INT, sizeof(int), INLINE, false),
    T(PMIX_INT8, sizeof(int8_t), INLINE, false),
    T(PMIX_INT16, sizeof(int16_t), INLINE, false),
    T(PMIX_INT32, sizeof(int32_t), INLINE, false),
    T(PMIX_INT64, sizeof(int64_t), INLINE, false),
    T(PMIX_UINT, sizeof(unsigned int), INLINE, false),
    T(PMIX_UINT8, sizeof(uint8_t), INLINE, false),
    T(PMIX_UINT16, sizeof(uint16_t), INLINE, false),
    T(PMIX_UINT32, sizeof(uint32_t), INLINE, false),
    T(PMIX_UINT64, sizeof(uint64_t), INLINE, false),
    T(PMIX_FLOAT, sizeof(float), INLINE, false),
    T(PMIX_DOUBLE, sizeof(double), INLINE, false),
    T(PMIX_TIMEVAL, sizeof(struct timeval), INLINE, false),
    T(PMIX_TIME, sizeof(time_t), INLINE, false),
    T(PMIX_STATUS, sizeof(pmix_status_t), INLINE, false),
    T(PMIX_VALUE, sizeof(pmix_value_t), NONE, true),
    T(PMIX_PROC, sizeof(pmix_proc_t), BOXED, false),
    T(PMIX_APP, sizeof(pmix_app_t), NONE, true),
    T(PMIX_INFO, sizeof(pmix_info_t), NONE, true),
    T(PMIX_PDATA, sizeof(pmix_pdata_t), NONE, true),
    T(PMIX_BYTE_OBJECT, sizeof(pmix_byte_object_t), INLINE, true),
    T(PMIX_PERSIST, sizeof(pmix_persistence_t), INLINE, false),
    T(PMIX_POINTER, sizeof(void *), RAW, false),
    T(PMIX_SCOPE, sizeof(pmix_scope_t), INLINE, false),
    T(PMIX_DATA_RANGE, sizeof(pmix_data_range_t), INLINE, false),
    T(PMIX_INFO_DIRECTIVES, sizeof(pmix_info_directives_t), INLINE, false),
    T(PMIX_DATA_TYPE, sizeof(pmix_data_type_t), INLINE, false),
    T(PMIX_PROC_STATE, sizeof(pmix_proc_state_t), INLINE, false),
    T(PMIX_PROC_INFO, sizeof(pmix_proc_info_t), BOXED, true),
    T(PMIX_DATA_ARRAY, sizeof(pmix_data_array_t), BOXED, true),
    T(PMIX_PROC_RANK, sizeof(pmix_rank_t), INLINE, false),
    T(PMIX_QUERY, sizeof(pmix_query_t), NONE, true),
    T(PMIX_COMPRESSED_STRING, sizeof(pmix_byte_object_t), INLINE, true),
    T(PMIX_ALLOC_DIRECTIVE, sizeof(pmix_alloc_directive_t), INLINE, false),
    T(PMIX_IOF_CHANNEL, sizeof(pmix_iof_channel_t), INLINE, false),
    T(PMIX_ENVAR, sizeof(pmix_envar_t), INLINE, true),
    T(PMIX_COORD, sizeof(pmix_coord_t), BOXED, true),
    T(PMIX_REGATTR, sizeof(pmix_regattr_t), BOXED, true),
    T(PMIX_REGEX, sizeof(char *), INLINE, true),
    T(PMIX_JOB_STATE, sizeof(pmix_job_state_t), INLINE, false),
    T(PMIX_LINK_STATE, sizeof(pmix_link_state_t), INLINE, false),
    T(PMIX_PROC_CPUSET, sizeof(pmix_cpuset_t), BOXED, true),
    T(PMIX_GEOMETRY, sizeof(pmix_geometry_t), BOXED, true),
    T(PMIX_DEVICE_DIST, sizeof(pmix_device_distance_t), BOXED, true),
    T(PMIX_ENDPOINT, sizeof(pmix_endpoint_t), BOXED, true),
    T(PMIX_TOPO, sizeof(pmix_topology_t), BOXED, true),
    T(PMIX_DEVTYPE, sizeof(pmix_device_type_t), INLINE, false),
    T(PMIX_LOCTYPE, sizeof(pmix_locality_t), INLINE, false),
    T(PMIX_COMPRESSED_BYTE_OBJECT, sizeof(pmix_byte_object_t), INLINE, true),
    T(PMIX_PROC_NSPACE, sizeof(pmix_nspace_t), BOXED, false),
    T(PMIX_PROC_STATS, sizeof(pmix_proc_stats_t), BOXED, true),
    T(PMIX_DISK_STATS, sizeof(pmix_disk_stats_t), BOXED, true),
    T(PMIX_NET_STATS, sizeof(pmix_net_stats_t), BOXED, true),
    T(PMIX_NODE_STATS, sizeof(pmix_node_stats_t), BOXED, true),
    T(PMIX_DATA_BUFFER, sizeof(pmix_data_buffer_t), BOXED, true),
    T(PMIX_STOR_MEDIUM, sizeof(pmix_storage_medium_t), INLINE, false),
    T(PMIX_STOR_ACCESS, sizeof(pmix_storage_accessibility_t), INLINE, false),
    T(PMIX_STOR_PERSIST, sizeof(pmix_storage_persistence_t), INLINE, false),
    T(PMIX_STOR_ACCESS_TYPE, sizeof(pmix_storage_access_type_t), INLINE, false),
};

#undef T

static const sy_type_info_t *lookup(pmix_data_type_t type)
{
    if (type >= sizeof(types) / sizeof(types[0]) || types[type].size == 0) {
        return NULL;
    }
    return &types[type];
}

size_t sy_type_size(pmix_data_type_t type)
{
    const sy_type_info_t *t = lookup(type);
    return t == NULL ? 0 : t->size;
}

bool sy_type_owns(pmix_data_type_t type)
{
    const sy_type_info_t *t = lookup(type);
    return t != NULL && t->owns;
}

sy_value_kind_t sy_value_kind(pmix_data_type_t type)
{
    const sy_type_info_t *t = lookup(type);
    return t == NULL ? SY_VALUE_NONE : t->kind;
}

/* Every member of the pmix_value_t union starts at &val->data, so an inline
 * element can be addressed there whatever its type. */
const void *sy_value_elem(const pmix_value_t *val)
{
    if (val == NULL) {
        return NULL;
    }
    switch (sy_value_kind(val->type)) {
    case SY_VALUE_INLINE: return &val->data;
    case SY_VALUE_RAW: return &val->data.ptr;
    case SY_VALUE_BOXED: return val->data.ptr;
    default: return NULL;
    }
}

static pmix_status_t set_into(pmix_value_t *val, const void *elem, pmix_data_type_t type)
{
    pmix_status_t rc;
    void *box;

    memset(val, 0, sizeof(*val));
    if (type == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    switch (sy_value_kind(type)) {
    case SY_VALUE_INLINE:
        if (elem != NULL) {
            rc = sy_elem_copy(&val->data, elem, type);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
            /* a regex travels as a byte object whose bytes alias the string */
            if (type == PMIX_REGEX && val->data.string != NULL) {
                val->data.bo.size = strlen(val->data.string) + 1;
            }
        }
        break;
    case SY_VALUE_RAW: val->data.ptr = elem == NULL ? NULL : *(void *const *)elem; break;
    case SY_VALUE_BOXED:
        if (elem != NULL) {
            box = malloc(sy_type_size(type));
            if (box == NULL) {
                return PMIX_ERR_NOMEM;
            }
            rc = sy_elem_copy(box, elem, type);
            if (rc != PMIX_SUCCESS) {
                free(box);
                return rc;
            }
            val->data.ptr = box;
        }
        break;
    default: return sy_type_size(type) == 0 ? PMIX_ERR_UNKNOWN_DATA_TYPE : PMIX_ERR_NOT_SUPPORTED;
    }
    val->type = type;
    return PMIX_SUCCESS;
}

pmix_status_t sy_value_set(pmix_value_t *val, const void *elem, pmix_data_type_t type)
{
    pmix_value_t tmp;
    pmix_status_t rc;

    if (val == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* built aside so that elem may point into val itself */
    rc = set_into(&tmp, elem, type);
    *val = tmp;
    return rc;
}

pmix_status_t sy_value_copy(pmix_value_t *dest, const pmix_value_t *src)
{
    pmix_value_t tmp;
    pmix_status_t rc;

    if (dest == NULL || src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (src->type == PMIX_REGEX && src->data.bo.size > 0) {
        /* a regex may be binary (a compressed form): keep its length */
        memset(&tmp, 0, sizeof(tmp));
        rc = sy_elem_copy(&tmp.data.bo, &src->data.bo, PMIX_BYTE_OBJECT);
        if (rc == PMIX_SUCCESS) {
            tmp.type = PMIX_REGEX;
        }
    } else {
        rc = set_into(&tmp, sy_value_elem(src), src->type);
    }
    *dest = tmp;
    return rc;
}

void sy_value_destruct(pmix_value_t *val)
{
    if (val == NULL) {
        return;
    }
    switch (sy_value_kind(val->type)) {
    case SY_VALUE_INLINE: sy_elem_destruct(&val->data, val->type); break;
    case SY_VALUE_BOXED:
        if (val->data.ptr != NULL) {
            sy_elem_destruct(val->data.ptr, val->type);
            free(val->data.ptr);
        }
        break;
    default:
        /* PMIX_POINTER is the caller's; unknown types own nothing we know of */
        break;
    }
    memset(val, 0, sizeof(*val));
}

pmix_status_t sy_array_copy(void **dst, const void *src, size_t n, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    size_t i;
    char *array;
    pmix_status_t rc;

    if (dst == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *dst = NULL;
    if (n == 0 || src == NULL) {
        return PMIX_SUCCESS;
    }
    if (size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    array = calloc(n, size);
    if (array == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        rc = sy_elem_copy(array + i * size, (const char *)src + i * size, type);
        if (rc != PMIX_SUCCESS) {
            sy_array_free(array, i, type);
            return rc;
        }
    }
    *dst = array;
    return PMIX_SUCCESS;
}

void sy_load_fixed(char *dst, const char *src, size_t cap)
{
    size_t len = 0;

    if (dst == NULL || cap == 0) {
        return;
    }
    if (src != NULL) {
        len = strnlen(src, cap - 1);
        memcpy(dst, src, len);
    }
    memset(dst + len, 0, cap - len);
}

bool sy_from_hwloc(const char *source)
{
    return source != NULL && strncasecmp(source, "hwloc", 5) == 0;
}
