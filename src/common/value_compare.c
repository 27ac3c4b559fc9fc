/*
 * Switchyard -- PMIx_Value_compare.
 *
 * Numbers, enums, ranks, times and booleans compare numerically (signed
 * types as signed), strings with strcmp (a NULL string sorts first), byte
 * objects byte by byte then by length, procs by nspace then rank, data
 * arrays element by element then by length.  Structured objects that have
 * no natural order (proc info, topologies, endpoints, ...) report
 * PMIX_EQUAL when every field is equal and PMIX_VALUE_COMPARISON_NOT_AVAIL
 * otherwise; so do two different PMIX_POINTERs.
 */
#include "common/datatype.h"

#include <hwloc.h>
#include <string.h>

#include <pmix.h>

/* Internal outcome; the public enum is produced only at the top. */
enum { LT = -1, EQ = 0, GT = 1, NA = 2, INCOMPAT = 3, TYPEDIFF = 4 };

#define ORDER(a, b) ((a) < (b) ? LT : (a) > (b) ? GT : EQ)
/* Evaluate the next criterion only while everything so far was equal. */
#define THEN(expr)                                                                                 \
    do {                                                                                           \
        if (EQ != (r = (expr))) {                                                                  \
            return r;                                                                              \
        }                                                                                          \
    } while (0)

static int value_order(const pmix_value_t *a, const pmix_value_t *b);
static int elem_order(const void *a, const void *b, pmix_data_type_t type);

static int unordered(int r)
{
    return (LT == r || GT == r) ? NA : r;
}

static int real_order(double a, double b)
{
    if (a == b) {
        return EQ;
    }
    return a < b ? LT : a > b ? GT : NA; /* NaN */
}

static int str_order(const char *a, const char *b)
{
    int c;

    if (a == b) {
        return EQ;
    }
    if (a == NULL || b == NULL) {
        return a == NULL ? LT : GT;
    }
    c = strcmp(a, b);
    return ORDER(c, 0);
}

static int fixed_order(const char *a, const char *b, size_t cap)
{
    int c = strncmp(a, b, cap);
    return ORDER(c, 0);
}

static int bytes_order(const void *a, size_t na, const void *b, size_t nb)
{
    size_t n = na < nb ? na : nb;
    int c = 0;

    if (n > 0) {
        c = memcmp(a, b, n);
    }
    return c != 0 ? ORDER(c, 0) : ORDER(na, nb);
}

static int bo_order(const pmix_byte_object_t *a, const pmix_byte_object_t *b)
{
    return bytes_order(a->bytes, a->bytes == NULL ? 0 : a->size, b->bytes,
                       b->bytes == NULL ? 0 : b->size);
}

static int argv_order(char *const *a, char *const *b)
{
    int r;

    if (a == NULL || b == NULL) {
        return ORDER(a != NULL, b != NULL);
    }
    for (; *a != NULL && *b != NULL; a++, b++) {
        THEN(str_order(*a, *b));
    }
    return ORDER(*a != NULL, *b != NULL);
}

static int array_order(const void *a, size_t na, const void *b, size_t nb, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    size_t n;
    int r;

    na = a == NULL ? 0 : na;
    nb = b == NULL ? 0 : nb;
    n = na < nb ? na : nb;
    if (n > 0 && size == 0) {
        return NA;
    }
    for (size_t i = 0; i < n; i++) {
        THEN(elem_order((const char *)a + i * size, (const char *)b + i * size, type));
    }
    return ORDER(na, nb);
}

static int timeval_order(const struct timeval *a, const struct timeval *b)
{
    int r;

    THEN(ORDER(a->tv_sec, b->tv_sec));
    return ORDER(a->tv_usec, b->tv_usec);
}

static int proc_order(const pmix_proc_t *a, const pmix_proc_t *b)
{
    int r;

    THEN(fixed_order(a->nspace, b->nspace, sizeof(a->nspace)));
    return ORDER(a->rank, b->rank);
}

static int coord_order(const pmix_coord_t *a, const pmix_coord_t *b)
{
    int r;

    THEN(ORDER(a->view, b->view));
    return array_order(a->coord, a->dims, b->coord, b->dims, PMIX_UINT32);
}

static int info_order(const pmix_info_t *a, const pmix_info_t *b)
{
    int r;

    THEN(fixed_order(a->key, b->key, sizeof(a->key)));
    r = value_order(&a->value, &b->value);
    return TYPEDIFF == r ? NA : r;
}

/* Field-by-field equality of the structures without a natural order; the
 * chain's ordering is collapsed to "not available" by the caller. */
static int struct_chain(const void *a, const void *b, pmix_data_type_t type)
{
    int r;

    switch (type) {
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *x = a, *y = b;
        THEN(proc_order(&x->proc, &y->proc));
        THEN(str_order(x->hostname, y->hostname));
        THEN(str_order(x->executable_name, y->executable_name));
        THEN(ORDER(x->pid, y->pid));
        THEN(ORDER(x->exit_code, y->exit_code));
        return ORDER(x->state, y->state);
    }
    case PMIX_APP: {
        const pmix_app_t *x = a, *y = b;
        THEN(str_order(x->cmd, y->cmd));
        THEN(argv_order(x->argv, y->argv));
        THEN(argv_order(x->env, y->env));
        THEN(str_order(x->cwd, y->cwd));
        THEN(ORDER(x->maxprocs, y->maxprocs));
        return array_order(x->info, x->ninfo, y->info, y->ninfo, PMIX_INFO);
    }
    case PMIX_QUERY: {
        const pmix_query_t *x = a, *y = b;
        THEN(argv_order(x->keys, y->keys));
        return array_order(x->qualifiers, x->nqual, y->qualifiers, y->nqual, PMIX_INFO);
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *x = a, *y = b;
        THEN(str_order(x->name, y->name));
        THEN(fixed_order(x->string, y->string, sizeof(x->string)));
        THEN(ORDER(x->type, y->type));
        return argv_order(x->description, y->description);
    }
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *x = a, *y = b;
        THEN(ORDER(x->fabric, y->fabric));
        THEN(str_order(x->uuid, y->uuid));
        THEN(str_order(x->osname, y->osname));
        return array_order(x->coordinates, x->ncoords, y->coordinates, y->ncoords, PMIX_COORD);
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *x = a, *y = b;
        THEN(str_order(x->uuid, y->uuid));
        THEN(str_order(x->osname, y->osname));
        THEN(ORDER(x->type, y->type));
        THEN(ORDER(x->mindist, y->mindist));
        return ORDER(x->maxdist, y->maxdist);
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *x = a, *y = b;
        THEN(str_order(x->uuid, y->uuid));
        THEN(str_order(x->osname, y->osname));
        return bo_order(&x->endpt, &y->endpt);
    }
    case PMIX_PROC_CPUSET: {
        const pmix_cpuset_t *x = a, *y = b;
        THEN(str_order(x->source, y->source));
        if (x->bitmap == NULL || y->bitmap == NULL || !sy_from_hwloc(x->source)) {
            return ORDER(x->bitmap, y->bitmap);
        }
        return hwloc_bitmap_isequal(x->bitmap, y->bitmap) ? EQ : NA;
    }
    case PMIX_TOPO: {
        /* comparing two machine descriptions is not meaningful here */
        const pmix_topology_t *x = a, *y = b;
        THEN(str_order(x->source, y->source));
        return x->topology == y->topology ? EQ : NA;
    }
    case PMIX_PROC_STATS: {
        const pmix_proc_stats_t *x = a, *y = b;
        THEN(str_order(x->node, y->node));
        THEN(proc_order(&x->proc, &y->proc));
        THEN(ORDER(x->pid, y->pid));
        THEN(str_order(x->cmd, y->cmd));
        THEN(ORDER(x->state, y->state));
        THEN(timeval_order(&x->time, &y->time));
        THEN(real_order(x->percent_cpu, y->percent_cpu));
        THEN(ORDER(x->priority, y->priority));
        THEN(ORDER(x->num_threads, y->num_threads));
        THEN(real_order(x->pss, y->pss));
        THEN(real_order(x->vsize, y->vsize));
        THEN(real_order(x->rss, y->rss));
        THEN(real_order(x->peak_vsize, y->peak_vsize));
        THEN(ORDER(x->processor, y->processor));
        return timeval_order(&x->sample_time, &y->sample_time);
    }
    case PMIX_DISK_STATS: {
        const pmix_disk_stats_t *x = a, *y = b;
        const uint64_t cx[] = {
            x->num_reads_completed,  x->num_reads_merged,        x->num_sectors_read,
            x->milliseconds_reading, x->num_writes_completed,    x->num_writes_merged,
            x->num_sectors_written,  x->milliseconds_writing,    x->num_ios_in_progress,
            x->milliseconds_io,      x->weighted_milliseconds_io};
        const uint64_t cy[] = {
            y->num_reads_completed,  y->num_reads_merged,        y->num_sectors_read,
            y->milliseconds_reading, y->num_writes_completed,    y->num_writes_merged,
            y->num_sectors_written,  y->milliseconds_writing,    y->num_ios_in_progress,
            y->milliseconds_io,      y->weighted_milliseconds_io};
        THEN(str_order(x->disk, y->disk));
        return array_order(cx, 11, cy, 11, PMIX_UINT64);
    }
    case PMIX_NET_STATS: {
        const pmix_net_stats_t *x = a, *y = b;
        const uint64_t cx[] = {x->num_bytes_recvd, x->num_packets_recvd, x->num_recv_errs,
                               x->num_bytes_sent,  x->num_packets_sent,  x->num_send_errs};
        const uint64_t cy[] = {y->num_bytes_recvd, y->num_packets_recvd, y->num_recv_errs,
                               y->num_bytes_sent,  y->num_packets_sent,  y->num_send_errs};
        THEN(str_order(x->net_interface, y->net_interface));
        return array_order(cx, 6, cy, 6, PMIX_UINT64);
    }
    case PMIX_NODE_STATS: {
        const pmix_node_stats_t *x = a, *y = b;
        const float fx[] = {x->la,         x->la5,       x->la15,   x->total_mem,
                            x->free_mem,   x->buffers,   x->cached, x->swap_cached,
                            x->swap_total, x->swap_free, x->mapped};
        const float fy[] = {y->la,         y->la5,       y->la15,   y->total_mem,
                            y->free_mem,   y->buffers,   y->cached, y->swap_cached,
                            y->swap_total, y->swap_free, y->mapped};
        THEN(str_order(x->node, y->node));
        THEN(array_order(fx, 11, fy, 11, PMIX_FLOAT));
        THEN(timeval_order(&x->sample_time, &y->sample_time));
        THEN(
            array_order(x->diskstats, x->ndiskstats, y->diskstats, y->ndiskstats, PMIX_DISK_STATS));
        return array_order(x->netstats, x->nnetstats, y->netstats, y->nnetstats, PMIX_NET_STATS);
    }
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *x = a, *y = b;
        return bytes_order(x->base_ptr, x->base_ptr == NULL ? 0 : x->bytes_used, y->base_ptr,
                           y->base_ptr == NULL ? 0 : y->bytes_used);
    }
    default: return NA;
    }
}

static int elem_order(const void *a, const void *b, pmix_data_type_t type)
{
    int r;

#define NUM(ctype) return ORDER(*(const ctype *)a, *(const ctype *)b)
    switch (type) {
    case PMIX_BOOL: NUM(bool);
    case PMIX_BYTE:
    case PMIX_UINT8:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_PROC_STATE:
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_JOB_STATE:
    case PMIX_LINK_STATE: NUM(uint8_t);
    case PMIX_SIZE: NUM(size_t);
    case PMIX_PID: NUM(pid_t);
    case PMIX_INT: NUM(int);
    case PMIX_INT8: NUM(int8_t);
    case PMIX_INT16: NUM(int16_t);
    case PMIX_INT32: NUM(int32_t);
    case PMIX_INT64: NUM(int64_t);
    case PMIX_UINT: NUM(unsigned int);
    case PMIX_UINT16:
    case PMIX_DATA_TYPE:
    case PMIX_IOF_CHANNEL:
    case PMIX_LOCTYPE:
    case PMIX_STOR_ACCESS_TYPE: NUM(uint16_t);
    case PMIX_UINT32:
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES: NUM(uint32_t);
    case PMIX_UINT64:
    case PMIX_DEVTYPE:
    case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS:
    case PMIX_STOR_PERSIST: NUM(uint64_t);
    case PMIX_TIME: NUM(time_t);
    case PMIX_STATUS: NUM(pmix_status_t);
    case PMIX_FLOAT: return real_order(*(const float *)a, *(const float *)b);
    case PMIX_DOUBLE: return real_order(*(const double *)a, *(const double *)b);
    case PMIX_TIMEVAL: return timeval_order(a, b);
    case PMIX_STRING:
    case PMIX_REGEX: return str_order(*(char *const *)a, *(char *const *)b);
    case PMIX_PROC_NSPACE: return fixed_order(a, b, sizeof(pmix_nspace_t));
    case PMIX_PROC: return proc_order(a, b);
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: return bo_order(a, b);
    case PMIX_POINTER: return *(void *const *)a == *(void *const *)b ? EQ : NA;
    case PMIX_ENVAR: {
        const pmix_envar_t *x = a, *y = b;
        THEN(str_order(x->envar, y->envar));
        THEN(str_order(x->value, y->value));
        return ORDER(x->separator, y->separator);
    }
    case PMIX_COORD: return coord_order(a, b);
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *x = a, *y = b;
        if (x->type != y->type && x->size > 0 && y->size > 0) {
            return INCOMPAT;
        }
        return array_order(x->array, x->size, y->array, y->size, x->type);
    }
    case PMIX_VALUE: return value_order(a, b);
    case PMIX_INFO: return info_order(a, b);
    case PMIX_PDATA: {
        const pmix_pdata_t *x = a, *y = b;
        THEN(proc_order(&x->proc, &y->proc));
        THEN(fixed_order(x->key, y->key, sizeof(x->key)));
        r = value_order(&x->value, &y->value);
        return TYPEDIFF == r ? NA : r;
    }
    default: return unordered(struct_chain(a, b, type));
    }
#undef NUM
}

/* A regex value may hold binary bytes (bo.size > 0) or just a string. */
static pmix_byte_object_t regex_bytes(const pmix_value_t *v)
{
    pmix_byte_object_t bo = v->data.bo;

    if (bo.size == 0 && bo.bytes != NULL) {
        bo.size = strlen(bo.bytes) + 1;
    }
    return bo;
}

static int value_order(const pmix_value_t *a, const pmix_value_t *b)
{
    const void *ea, *eb;

    if (a->type != b->type) {
        return TYPEDIFF;
    }
    if (a->type == PMIX_UNDEF) {
        return EQ;
    }
    if (a->type == PMIX_REGEX) {
        pmix_byte_object_t x = regex_bytes(a), y = regex_bytes(b);
        return bo_order(&x, &y);
    }
    if (sy_type_size(a->type) == 0) {
        return NA;
    }
    ea = sy_value_elem(a);
    eb = sy_value_elem(b);
    if (ea == NULL || eb == NULL) {
        return ea == eb ? EQ : ea == NULL ? LT : GT;
    }
    return elem_order(ea, eb, a->type);
}

PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2)
{
    if (v1 == NULL || v2 == NULL) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    switch (value_order(v1, v2)) {
    case EQ: return PMIX_EQUAL;
    case GT: return PMIX_VALUE1_GREATER;
    case LT: return PMIX_VALUE2_GREATER;
    case TYPEDIFF: return PMIX_VALUE_TYPE_DIFFERENT;
    case INCOMPAT: return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    default: return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
}
