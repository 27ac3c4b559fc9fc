/*
 * Switchyard -- packing of every PMIx data type (wire format: buffer.h).
 *
 * One small function per type family, found through a table indexed by
 * the data type.  Element sizes come from sy_type_size (datatype.h), so
 * arrays are walked exactly as the rest of the data layer lays them out.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>
#include <hwloc/export.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/pack.h"

typedef pmix_status_t (*pack_fn)(pmix_data_buffer_t *b, const void *elem, unsigned depth);

/* ---- primitives ------------------------------------------------------- */

static pmix_status_t put_le(pmix_data_buffer_t *b, uint64_t v, size_t width)
{
    unsigned char bytes[8];
    for (size_t i = 0; i < width; i++) {
        bytes[i] = (unsigned char)(v >> (8 * i));
    }
    return sy_buffer_append(b, bytes, width);
}

static pmix_status_t put_u8(pmix_data_buffer_t *b, uint8_t v)
{
    return put_le(b, v, 1);
}
static pmix_status_t put_u16(pmix_data_buffer_t *b, uint16_t v)
{
    return put_le(b, v, 2);
}
static pmix_status_t put_u32(pmix_data_buffer_t *b, uint32_t v)
{
    return put_le(b, v, 4);
}
static pmix_status_t put_u64(pmix_data_buffer_t *b, uint64_t v)
{
    return put_le(b, v, 8);
}
static pmix_status_t put_i64(pmix_data_buffer_t *b, int64_t v)
{
    return put_le(b, (uint64_t)v, 8);
}

static pmix_status_t put_bytes(pmix_data_buffer_t *b, const void *p, size_t n)
{
    pmix_status_t rc = put_u64(b, n);
    return rc == PMIX_SUCCESS ? sy_buffer_append(b, p, n) : rc;
}

static pmix_status_t put_string(pmix_data_buffer_t *b, const char *s)
{
    return s == NULL ? put_u64(b, SY_WIRE_NULL) : put_bytes(b, s, strlen(s));
}

/* Fixed char arrays (nspace, key) need not be NUL-terminated at their last
 * byte; never read past `max` characters. */
static pmix_status_t put_fixed(pmix_data_buffer_t *b, const char *s, size_t max)
{
    return put_bytes(b, s, strnlen(s, max));
}

static pmix_status_t put_argv(pmix_data_buffer_t *b, char *const *argv)
{
    if (argv == NULL) {
        return put_u64(b, SY_WIRE_NULL);
    }
    uint64_t n = 0;
    while (argv[n] != NULL) {
        n++;
    }
    pmix_status_t rc = put_u64(b, n);
    for (uint64_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = put_string(b, argv[i]);
    }
    return rc;
}

/* A counted array of structures: the count, then the elements.  A NULL
 * array with a non-zero count is a caller error. */
static pmix_status_t put_array(pmix_data_buffer_t *b, const void *array, size_t n,
                               pmix_data_type_t type, unsigned depth)
{
    if (n != 0 && array == NULL) {
        return PMIX_ERR_PACK_FAILURE;
    }
    pmix_status_t rc = put_u64(b, n);
    if (rc != PMIX_SUCCESS || n == 0) {
        return rc;
    }
    return sy_pack_elems(b, array, n, type, depth + 1);
}

static pmix_status_t put_timeval(pmix_data_buffer_t *b, const struct timeval *tv)
{
    pmix_status_t rc = put_i64(b, tv->tv_sec);
    return rc == PMIX_SUCCESS ? put_i64(b, tv->tv_usec) : rc;
}

static pmix_status_t put_float(pmix_data_buffer_t *b, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof(bits));
    return put_u32(b, bits);
}

static pmix_status_t put_floats(pmix_data_buffer_t *b, const float *const *fs, size_t n)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = put_float(b, *fs[i]);
    }
    return rc;
}

static pmix_status_t put_u64s(pmix_data_buffer_t *b, const uint64_t *const *vs, size_t n)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = put_u64(b, *vs[i]);
    }
    return rc;
}

/* ---- scalars ---------------------------------------------------------- */

static pmix_status_t pack_bool(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u8(b, *(const bool *)e ? 1 : 0);
}

static pmix_status_t pack_u8(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u8(b, *(const uint8_t *)e);
}

static pmix_status_t pack_u16(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u16(b, *(const uint16_t *)e);
}

static pmix_status_t pack_u32(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u32(b, *(const uint32_t *)e);
}

static pmix_status_t pack_u64(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u64(b, *(const uint64_t *)e);
}

static pmix_status_t pack_size(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u64(b, *(const size_t *)e);
}

static pmix_status_t pack_int(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_i64(b, *(const int *)e);
}

static pmix_status_t pack_uint(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_u64(b, *(const unsigned int *)e);
}

static pmix_status_t pack_pid(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_i64(b, *(const pid_t *)e);
}

static pmix_status_t pack_time(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_i64(b, *(const time_t *)e);
}

static pmix_status_t pack_float(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_float(b, *(const float *)e);
}

static pmix_status_t pack_double(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    uint64_t bits;
    memcpy(&bits, e, sizeof(bits));
    return put_u64(b, bits);
}

static pmix_status_t pack_timeval(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_timeval(b, e);
}

static pmix_status_t pack_pointer(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)e;
    (void)d;
    return put_u8(b, 0);
}

/* ---- strings and bytes ------------------------------------------------ */

static pmix_status_t pack_string(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_string(b, *(char *const *)e);
}

static pmix_status_t pack_nspace(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    return put_fixed(b, e, PMIX_MAX_NSLEN);
}

static pmix_status_t pack_bo(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_byte_object_t *bo = e;
    if (bo->bytes == NULL && bo->size != 0) {
        return PMIX_ERR_PACK_FAILURE;
    }
    return put_bytes(b, bo->bytes, bo->size);
}

static pmix_status_t pack_dbuf(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_data_buffer_t *db = e;
    if (sy_buffer_check(db) != PMIX_SUCCESS) {
        return PMIX_ERR_PACK_FAILURE;
    }
    uint64_t offset = db->base_ptr == NULL ? 0 : (uint64_t)(db->unpack_ptr - db->base_ptr);
    pmix_status_t rc = put_u64(b, offset);
    return rc == PMIX_SUCCESS ? put_bytes(b, db->base_ptr, db->bytes_used) : rc;
}

/* ---- structures ------------------------------------------------------- */

static pmix_status_t pack_proc(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_proc_t *p = e;
    pmix_status_t rc = put_fixed(b, p->nspace, PMIX_MAX_NSLEN);
    return rc == PMIX_SUCCESS ? put_u32(b, p->rank) : rc;
}

static pmix_status_t pack_value(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_value_t *v = e;
    sy_value_kind_t kind = sy_value_kind(v->type);
    if (v->type != PMIX_UNDEF && (kind == SY_VALUE_NONE || !sy_wire_type_known(v->type))) {
        return PMIX_ERR_PACK_FAILURE;
    }
    pmix_status_t rc = put_u16(b, v->type);
    if (rc != PMIX_SUCCESS || v->type == PMIX_UNDEF) {
        return rc;
    }
    if (v->type == PMIX_REGEX) {
        /* A value keeps a regex as a byte object, which may be binary. */
        return pack_bo(b, &v->data.bo, depth);
    }
    if (kind != SY_VALUE_BOXED) {
        return sy_pack_elems(b, &v->data, 1, v->type, depth + 1);
    }
    /* The union's pointer members all sit at the start of `data`. */
    const void *p = v->data.ptr;
    rc = put_u8(b, p != NULL);
    if (rc != PMIX_SUCCESS || p == NULL) {
        return rc;
    }
    return sy_pack_elems(b, p, 1, v->type, depth + 1);
}

static pmix_status_t pack_info(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_info_t *i = e;
    pmix_status_t rc = put_fixed(b, i->key, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS) {
        rc = put_u32(b, i->flags);
    }
    return rc == PMIX_SUCCESS ? pack_value(b, &i->value, depth) : rc;
}

static pmix_status_t pack_pdata(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_pdata_t *p = e;
    pmix_status_t rc = pack_proc(b, &p->proc, depth);
    if (rc == PMIX_SUCCESS) {
        rc = put_fixed(b, p->key, PMIX_MAX_KEYLEN);
    }
    return rc == PMIX_SUCCESS ? pack_value(b, &p->value, depth) : rc;
}

static pmix_status_t pack_darray(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_data_array_t *da = e;
    pmix_status_t rc = put_u16(b, da->type);
    return rc == PMIX_SUCCESS ? put_array(b, da->array, da->size, da->type, depth) : rc;
}

static pmix_status_t pack_app(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_app_t *a = e;
    pmix_status_t rc = put_string(b, a->cmd);
    if (rc == PMIX_SUCCESS) {
        rc = put_argv(b, a->argv);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_argv(b, a->env);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, a->cwd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_i64(b, a->maxprocs);
    }
    return rc == PMIX_SUCCESS ? put_array(b, a->info, a->ninfo, PMIX_INFO, depth) : rc;
}

static pmix_status_t pack_query(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_query_t *q = e;
    pmix_status_t rc = put_argv(b, q->keys);
    return rc == PMIX_SUCCESS ? put_array(b, q->qualifiers, q->nqual, PMIX_INFO, depth) : rc;
}

static pmix_status_t pack_regattr(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_regattr_t *r = e;
    pmix_status_t rc = put_string(b, r->name);
    if (rc == PMIX_SUCCESS) {
        rc = put_fixed(b, r->string, PMIX_MAX_KEYLEN);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u16(b, r->type);
    }
    return rc == PMIX_SUCCESS ? put_argv(b, r->description) : rc;
}

static pmix_status_t pack_proc_info(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    const pmix_proc_info_t *p = e;
    pmix_status_t rc = pack_proc(b, &p->proc, d);
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, p->hostname);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, p->executable_name);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_i64(b, p->pid);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_i64(b, p->exit_code);
    }
    return rc == PMIX_SUCCESS ? put_u8(b, p->state) : rc;
}

static pmix_status_t pack_envar(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_envar_t *v = e;
    pmix_status_t rc = put_string(b, v->envar);
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, v->value);
    }
    return rc == PMIX_SUCCESS ? put_u8(b, (uint8_t)v->separator) : rc;
}

static pmix_status_t pack_coord(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_coord_t *c = e;
    if (c->dims != 0 && c->coord == NULL) {
        return PMIX_ERR_PACK_FAILURE;
    }
    pmix_status_t rc = put_u8(b, c->view);
    if (rc == PMIX_SUCCESS) {
        rc = put_u64(b, c->dims);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < c->dims; i++) {
        rc = put_u32(b, c->coord[i]);
    }
    return rc;
}

static pmix_status_t pack_geometry(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_geometry_t *g = e;
    pmix_status_t rc = put_u64(b, g->fabric);
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, g->uuid);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, g->osname);
    }
    return rc == PMIX_SUCCESS ? put_array(b, g->coordinates, g->ncoords, PMIX_COORD, depth) : rc;
}

static pmix_status_t pack_devdist(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_device_distance_t *dd = e;
    pmix_status_t rc = put_string(b, dd->uuid);
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, dd->osname);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u64(b, dd->type);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u16(b, dd->mindist);
    }
    return rc == PMIX_SUCCESS ? put_u16(b, dd->maxdist) : rc;
}

static pmix_status_t pack_endpoint(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    const pmix_endpoint_t *ep = e;
    pmix_status_t rc = put_string(b, ep->uuid);
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, ep->osname);
    }
    return rc == PMIX_SUCCESS ? pack_bo(b, &ep->endpt, d) : rc;
}

/* The bitmap and topology pointers are hwloc objects; nothing else can be
 * serialized, so another `source` is refused rather than misread. */
static pmix_status_t pack_cpuset(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_cpuset_t *c = e;
    if (c->bitmap != NULL && !sy_from_hwloc(c->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t rc = put_string(b, c->source);
    if (rc != PMIX_SUCCESS || c->bitmap == NULL) {
        return rc == PMIX_SUCCESS ? put_string(b, NULL) : rc;
    }
    char *list = NULL;
    if (hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)c->bitmap) < 0 || list == NULL) {
        free(list);
        return PMIX_ERR_NOMEM;
    }
    rc = put_string(b, list);
    free(list);
    return rc;
}

static pmix_status_t pack_topo(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_topology_t *t = e;
    if (t->topology != NULL && !sy_from_hwloc(t->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t rc = put_string(b, t->source);
    if (rc != PMIX_SUCCESS || t->topology == NULL) {
        return rc == PMIX_SUCCESS ? put_u64(b, 0) : rc;
    }
    hwloc_topology_t topo = (hwloc_topology_t)t->topology;
    char *xml = NULL;
    int len = 0;
    if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) != 0 || xml == NULL || len <= 0) {
        if (xml != NULL) {
            hwloc_free_xmlbuffer(topo, xml);
        }
        return PMIX_ERR_PACK_FAILURE;
    }
    rc = put_bytes(b, xml, (size_t)len);
    hwloc_free_xmlbuffer(topo, xml);
    return rc;
}

/* ---- statistics ------------------------------------------------------- */

static pmix_status_t pack_proc_stats(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    const pmix_proc_stats_t *s = e;
    const float *const fs[] = {&s->pss, &s->vsize, &s->rss, &s->peak_vsize};
    pmix_status_t rc = put_string(b, s->node);
    if (rc == PMIX_SUCCESS) {
        rc = pack_proc(b, &s->proc, d);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_i64(b, s->pid);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_string(b, s->cmd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u8(b, (uint8_t)s->state);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_timeval(b, &s->time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_float(b, s->percent_cpu);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u32(b, (uint32_t)s->priority);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u16(b, s->num_threads);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_floats(b, fs, sizeof(fs) / sizeof(fs[0]));
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_u16(b, s->processor);
    }
    return rc == PMIX_SUCCESS ? put_timeval(b, &s->sample_time) : rc;
}

static pmix_status_t pack_disk_stats(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_disk_stats_t *s = e;
    const uint64_t *const vs[] = {
        &s->num_reads_completed,  &s->num_reads_merged,        &s->num_sectors_read,
        &s->milliseconds_reading, &s->num_writes_completed,    &s->num_writes_merged,
        &s->num_sectors_written,  &s->milliseconds_writing,    &s->num_ios_in_progress,
        &s->milliseconds_io,      &s->weighted_milliseconds_io};
    pmix_status_t rc = put_string(b, s->disk);
    return rc == PMIX_SUCCESS ? put_u64s(b, vs, sizeof(vs) / sizeof(vs[0])) : rc;
}

static pmix_status_t pack_net_stats(pmix_data_buffer_t *b, const void *e, unsigned d)
{
    (void)d;
    const pmix_net_stats_t *s = e;
    const uint64_t *const vs[] = {&s->num_bytes_recvd, &s->num_packets_recvd, &s->num_recv_errs,
                                  &s->num_bytes_sent,  &s->num_packets_sent,  &s->num_send_errs};
    pmix_status_t rc = put_string(b, s->net_interface);
    return rc == PMIX_SUCCESS ? put_u64s(b, vs, sizeof(vs) / sizeof(vs[0])) : rc;
}

static pmix_status_t pack_node_stats(pmix_data_buffer_t *b, const void *e, unsigned depth)
{
    const pmix_node_stats_t *s = e;
    const float *const fs[] = {&s->la,         &s->la5,       &s->la15,   &s->total_mem,
                               &s->free_mem,   &s->buffers,   &s->cached, &s->swap_cached,
                               &s->swap_total, &s->swap_free, &s->mapped};
    pmix_status_t rc = put_string(b, s->node);
    if (rc == PMIX_SUCCESS) {
        rc = put_floats(b, fs, sizeof(fs) / sizeof(fs[0]));
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_timeval(b, &s->sample_time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = put_array(b, s->diskstats, s->ndiskstats, PMIX_DISK_STATS, depth);
    }
    return rc == PMIX_SUCCESS ? put_array(b, s->netstats, s->nnetstats, PMIX_NET_STATS, depth) : rc;
}

/* ---- dispatch --------------------------------------------------------- */

static const pack_fn pack_table[SY_WIRE_TYPE_LIMIT] = {
    [PMIX_BOOL] = pack_bool,
    [PMIX_BYTE] = pack_u8,
    [PMIX_STRING] = pack_string,
    [PMIX_SIZE] = pack_size,
    [PMIX_PID] = pack_pid,
    [PMIX_INT] = pack_int,
    [PMIX_INT8] = pack_u8,
    [PMIX_INT16] = pack_u16,
    [PMIX_INT32] = pack_u32,
    [PMIX_INT64] = pack_u64,
    [PMIX_UINT] = pack_uint,
    [PMIX_UINT8] = pack_u8,
    [PMIX_UINT16] = pack_u16,
    [PMIX_UINT32] = pack_u32,
    [PMIX_UINT64] = pack_u64,
    [PMIX_FLOAT] = pack_float,
    [PMIX_DOUBLE] = pack_double,
    [PMIX_TIMEVAL] = pack_timeval,
    [PMIX_TIME] = pack_time,
    [PMIX_STATUS] = pack_int,
    [PMIX_VALUE] = pack_value,
    [PMIX_PROC] = pack_proc,
    [PMIX_APP] = pack_app,
    [PMIX_INFO] = pack_info,
    [PMIX_PDATA] = pack_pdata,
    [PMIX_BYTE_OBJECT] = pack_bo,
    [PMIX_PERSIST] = pack_u8,
    [PMIX_POINTER] = pack_pointer,
    [PMIX_SCOPE] = pack_u8,
    [PMIX_DATA_RANGE] = pack_u8,
    [PMIX_COMMAND] = pack_u8,
    [PMIX_INFO_DIRECTIVES] = pack_u32,
    [PMIX_DATA_TYPE] = pack_u16,
    [PMIX_PROC_STATE] = pack_u8,
    [PMIX_PROC_INFO] = pack_proc_info,
    [PMIX_DATA_ARRAY] = pack_darray,
    [PMIX_PROC_RANK] = pack_u32,
    [PMIX_QUERY] = pack_query,
    [PMIX_COMPRESSED_STRING] = pack_bo,
    [PMIX_ALLOC_DIRECTIVE] = pack_u8,
    [PMIX_IOF_CHANNEL] = pack_u16,
    [PMIX_ENVAR] = pack_envar,
    [PMIX_COORD] = pack_coord,
    [PMIX_REGATTR] = pack_regattr,
    [PMIX_REGEX] = pack_string,
    [PMIX_JOB_STATE] = pack_u8,
    [PMIX_LINK_STATE] = pack_u8,
    [PMIX_PROC_CPUSET] = pack_cpuset,
    [PMIX_GEOMETRY] = pack_geometry,
    [PMIX_DEVICE_DIST] = pack_devdist,
    [PMIX_ENDPOINT] = pack_endpoint,
    [PMIX_TOPO] = pack_topo,
    [PMIX_DEVTYPE] = pack_u64,
    [PMIX_LOCTYPE] = pack_u16,
    [PMIX_COMPRESSED_BYTE_OBJECT] = pack_bo,
    [PMIX_PROC_NSPACE] = pack_nspace,
    [PMIX_PROC_STATS] = pack_proc_stats,
    [PMIX_DISK_STATS] = pack_disk_stats,
    [PMIX_NET_STATS] = pack_net_stats,
    [PMIX_NODE_STATS] = pack_node_stats,
    [PMIX_DATA_BUFFER] = pack_dbuf,
    [PMIX_STOR_MEDIUM] = pack_u64,
    [PMIX_STOR_ACCESS] = pack_u64,
    [PMIX_STOR_PERSIST] = pack_u64,
    [PMIX_STOR_ACCESS_TYPE] = pack_u16,
};

pmix_status_t sy_pack_elems(pmix_data_buffer_t *b, const void *src, size_t n, pmix_data_type_t type,
                            unsigned depth)
{
    if (depth > SY_PACK_MAX_DEPTH) {
        return PMIX_ERR_PACK_FAILURE;
    }
    pack_fn fn = type < SY_WIRE_TYPE_LIMIT ? pack_table[type] : NULL;
    size_t size = sy_type_size(type);
    if (fn == NULL || size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (n != 0 && src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = fn(b, (const char *)src + i * size, depth);
    }
    return rc;
}

pmix_status_t sy_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t type)
{
    pmix_status_t rc = sy_buffer_check(b);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (src == NULL || n < 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!sy_wire_type_known(type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    size_t start = b->bytes_used;
    rc = put_u16(b, type);
    if (rc == PMIX_SUCCESS) {
        rc = put_u32(b, (uint32_t)n);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_pack_elems(b, src, (size_t)n, type, 0);
    }
    if (rc != PMIX_SUCCESS && b->base_ptr != NULL) {
        /* Drop the partial record so the buffer holds only whole ones. */
        b->bytes_used = start;
        b->pack_ptr = b->base_ptr + start;
        if (b->unpack_ptr > b->pack_ptr) {
            b->unpack_ptr = b->pack_ptr;
        }
    }
    return rc;
}

bool sy_wire_type_known(pmix_data_type_t type)
{
    return type < SY_WIRE_TYPE_LIMIT && pack_table[type] != NULL && sy_type_size(type) != 0;
}
