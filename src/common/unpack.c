/*
 * Switchyard -- unpacking of every PMIx data type (wire format: buffer.h).
 *
 * Input is untrusted.  Every byte is read through sy_buffer_read (bounds
 * checked); every count or length is compared with the bytes that remain
 * before anything is allocated for it; nesting is capped.  Elements are
 * unpacked into zeroed storage and filled field by field, so on failure
 * sy_elem_destruct releases exactly what was filled.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/pack.h"
#include "common/topo_xml.h"

typedef pmix_status_t (*unpack_fn)(pmix_data_buffer_t *b, void *elem, unsigned depth);

/* ---- primitives ------------------------------------------------------- */

static pmix_status_t get_le(pmix_data_buffer_t *b, uint64_t *v, size_t width)
{
    unsigned char bytes[8];
    pmix_status_t rc = sy_buffer_read(b, bytes, width);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    *v = 0;
    for (size_t i = 0; i < width; i++) {
        *v |= (uint64_t)bytes[i] << (8 * i);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t get_u8(pmix_data_buffer_t *b, uint8_t *out)
{
    uint64_t v = 0;
    pmix_status_t rc = get_le(b, &v, 1);
    *out = (uint8_t)v;
    return rc;
}

static pmix_status_t get_u16(pmix_data_buffer_t *b, uint16_t *out)
{
    uint64_t v = 0;
    pmix_status_t rc = get_le(b, &v, 2);
    *out = (uint16_t)v;
    return rc;
}

static pmix_status_t get_u32(pmix_data_buffer_t *b, uint32_t *out)
{
    uint64_t v = 0;
    pmix_status_t rc = get_le(b, &v, 4);
    *out = (uint32_t)v;
    return rc;
}

static pmix_status_t get_u64(pmix_data_buffer_t *b, uint64_t *out)
{
    return get_le(b, out, 8);
}

static pmix_status_t get_i64(pmix_data_buffer_t *b, int64_t *out)
{
    uint64_t v = 0;
    pmix_status_t rc = get_le(b, &v, 8);
    *out = (int64_t)v;
    return rc;
}

/* A signed wire value into a host type of `width` bytes (int, pid_t,
 * time_t, suseconds_t), refusing values that do not fit. */
static pmix_status_t get_signed(pmix_data_buffer_t *b, void *out, size_t width)
{
    int64_t v = 0;
    pmix_status_t rc = get_i64(b, &v);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (width == 4) {
        if (v < INT32_MIN || v > INT32_MAX) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        int32_t n = (int32_t)v;
        memcpy(out, &n, sizeof(n));
    } else if (width == 8) {
        memcpy(out, &v, sizeof(v));
    } else {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    return PMIX_SUCCESS;
}

/* A u64 length or count that must leave `unit` bytes per item in what is
 * left of the buffer; anything larger cannot be genuine. */
static pmix_status_t get_count(pmix_data_buffer_t *b, uint64_t *n, size_t unit)
{
    pmix_status_t rc = get_u64(b, n);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (unit > 0 && *n > sy_buffer_remaining(b) / unit) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    return PMIX_SUCCESS;
}

/* A string into a fresh NUL-terminated allocation; the NULL marker gives
 * NULL. */
static pmix_status_t get_string(pmix_data_buffer_t *b, char **out)
{
    uint64_t len = 0;
    *out = NULL;
    pmix_status_t rc = get_u64(b, &len);
    if (rc != PMIX_SUCCESS || len == SY_WIRE_NULL) {
        return rc;
    }
    if (len > sy_buffer_remaining(b)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    char *s = malloc((size_t)len + 1);
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_buffer_read(b, s, (size_t)len);
    if (rc != PMIX_SUCCESS) {
        free(s);
        return rc;
    }
    s[len] = '\0';
    *out = s;
    return PMIX_SUCCESS;
}

/* Into a fixed char array of max+1 bytes (nspace, key). */
static pmix_status_t get_fixed(pmix_data_buffer_t *b, char *dst, size_t max)
{
    uint64_t len = 0;
    pmix_status_t rc = get_u64(b, &len);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (len > max) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    rc = sy_buffer_read(b, dst, (size_t)len);
    dst[PMIX_SUCCESS == rc ? len : 0] = '\0';
    return rc;
}

static void free_argv(char **argv)
{
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
        free(argv[i]);
    }
    free(argv);
}

static pmix_status_t get_argv(pmix_data_buffer_t *b, char ***out)
{
    uint64_t n = 0;
    *out = NULL;
    pmix_status_t rc = get_u64(b, &n);
    if (rc != PMIX_SUCCESS || n == SY_WIRE_NULL) {
        return rc;
    }
    /* Each string takes at least its 8-byte length. */
    if (n > sy_buffer_remaining(b) / 8) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    char **argv = calloc((size_t)n + 1, sizeof(char *));
    if (argv == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint64_t i = 0; i < n; i++) {
        rc = get_string(b, &argv[i]);
        if (rc == PMIX_SUCCESS && argv[i] == NULL) {
            /* A NULL inside would end the array early and hide the rest. */
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        if (rc != PMIX_SUCCESS) {
            free_argv(argv);
            return rc;
        }
    }
    *out = argv;
    return PMIX_SUCCESS;
}

/* A counted array of `type` (put_array in pack.c): a fresh allocation, or
 * NULL for zero elements.  *array and *n are set only on success. */
static pmix_status_t get_array(pmix_data_buffer_t *b, void **array, size_t *n,
                               pmix_data_type_t type, unsigned depth)
{
    uint64_t count = 0;
    pmix_status_t rc = get_count(b, &count, sy_wire_min_size(type));
    if (rc != PMIX_SUCCESS || count == 0) {
        return rc;
    }
    size_t size = sy_type_size(type);
    void *p = calloc((size_t)count, size);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_unpack_elems(b, p, (size_t)count, type, depth + 1);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *array = p;
    *n = (size_t)count;
    return PMIX_SUCCESS;
}

static pmix_status_t get_timeval(pmix_data_buffer_t *b, struct timeval *tv)
{
    pmix_status_t rc = get_signed(b, &tv->tv_sec, sizeof(tv->tv_sec));
    return rc == PMIX_SUCCESS ? get_signed(b, &tv->tv_usec, sizeof(tv->tv_usec)) : rc;
}

static pmix_status_t get_float(pmix_data_buffer_t *b, float *f)
{
    uint32_t bits = 0;
    pmix_status_t rc = get_u32(b, &bits);
    memcpy(f, &bits, sizeof(*f));
    return rc;
}

static pmix_status_t get_floats(pmix_data_buffer_t *b, float *const *fs, size_t n)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = get_float(b, fs[i]);
    }
    return rc;
}

static pmix_status_t get_u64s(pmix_data_buffer_t *b, uint64_t *const *vs, size_t n)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = get_u64(b, vs[i]);
    }
    return rc;
}

/* ---- scalars ---------------------------------------------------------- */

static pmix_status_t unpack_bool(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    uint8_t v = 0;
    pmix_status_t rc = get_u8(b, &v);
    if (rc == PMIX_SUCCESS && v > 1) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *(bool *)e = (v == 1);
    return rc;
}

static pmix_status_t unpack_u8(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_u8(b, e);
}

static pmix_status_t unpack_u16(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_u16(b, e);
}

static pmix_status_t unpack_u32(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_u32(b, e);
}

static pmix_status_t unpack_u64(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_u64(b, e);
}

static pmix_status_t unpack_size(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    uint64_t v = 0;
    pmix_status_t rc = get_u64(b, &v);
    if (rc == PMIX_SUCCESS && v > SIZE_MAX) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *(size_t *)e = (size_t)v;
    return rc;
}

static pmix_status_t unpack_uint(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    uint64_t v = 0;
    pmix_status_t rc = get_u64(b, &v);
    if (rc == PMIX_SUCCESS && v > UINT_MAX) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *(unsigned int *)e = (unsigned int)v;
    return rc;
}

static pmix_status_t unpack_int(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_signed(b, e, sizeof(int));
}

static pmix_status_t unpack_pid(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_signed(b, e, sizeof(pid_t));
}

static pmix_status_t unpack_time(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_signed(b, e, sizeof(time_t));
}

static pmix_status_t unpack_float(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_float(b, e);
}

static pmix_status_t unpack_double(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    uint64_t bits = 0;
    pmix_status_t rc = get_u64(b, &bits);
    memcpy(e, &bits, sizeof(double));
    return rc;
}

static pmix_status_t unpack_timeval(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_timeval(b, e);
}

static pmix_status_t unpack_pointer(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    uint8_t v = 0;
    pmix_status_t rc = get_u8(b, &v);
    *(void **)e = NULL;
    return rc == PMIX_SUCCESS && v != 0 ? PMIX_ERR_UNPACK_FAILURE : rc;
}

/* ---- strings and bytes ------------------------------------------------ */

static pmix_status_t unpack_string(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_string(b, e);
}

static pmix_status_t unpack_nspace(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    return get_fixed(b, e, PMIX_MAX_NSLEN);
}

static pmix_status_t get_bytes(pmix_data_buffer_t *b, char **bytes, size_t *size)
{
    uint64_t n = 0;
    pmix_status_t rc = get_count(b, &n, 1);
    if (rc != PMIX_SUCCESS || n == 0) {
        return rc;
    }
    char *p = malloc((size_t)n);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_buffer_read(b, p, (size_t)n);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *bytes = p;
    *size = (size_t)n;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_bo(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_byte_object_t *bo = e;
    return get_bytes(b, &bo->bytes, &bo->size);
}

static pmix_status_t unpack_dbuf(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_data_buffer_t *db = e;
    uint64_t offset = 0;
    char *bytes = NULL;
    size_t n = 0;
    pmix_status_t rc = get_u64(b, &offset);
    if (rc == PMIX_SUCCESS) {
        rc = get_bytes(b, &bytes, &n);
    }
    if (rc == PMIX_SUCCESS && offset > n) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        free(bytes);
        return rc;
    }
    if (bytes != NULL) {
        db->base_ptr = bytes;
        db->unpack_ptr = bytes + offset;
        db->pack_ptr = bytes + n;
        db->bytes_allocated = n;
        db->bytes_used = n;
    }
    return PMIX_SUCCESS;
}

/* ---- structures ------------------------------------------------------- */

static pmix_status_t unpack_proc(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_proc_t *p = e;
    pmix_status_t rc = get_fixed(b, p->nspace, PMIX_MAX_NSLEN);
    return rc == PMIX_SUCCESS ? get_u32(b, &p->rank) : rc;
}

static pmix_status_t unpack_value(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_value_t *v = e;
    uint16_t type = 0;
    pmix_status_t rc = get_u16(b, &type);
    if (rc != PMIX_SUCCESS || type == PMIX_UNDEF) {
        return rc;
    }
    sy_value_kind_t kind = sy_value_kind(type);
    if (kind == SY_VALUE_NONE || !sy_wire_type_known(type)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (type == PMIX_REGEX) {
        v->type = type;
        return unpack_bo(b, &v->data.bo, depth);
    }
    if (kind != SY_VALUE_BOXED) {
        if (sy_type_size(type) > sizeof(v->data)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        v->type = type;
        return sy_unpack_elems(b, &v->data, 1, type, depth + 1);
    }
    uint8_t present = 0;
    rc = get_u8(b, &present);
    if (rc != PMIX_SUCCESS || present > 1) {
        return rc == PMIX_SUCCESS ? PMIX_ERR_UNPACK_FAILURE : rc;
    }
    v->type = type;
    if (present == 0) {
        return PMIX_SUCCESS;
    }
    void *p = calloc(1, sy_type_size(type));
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_unpack_elems(b, p, 1, type, depth + 1);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    /* Every pointer member of the union starts at the same address. */
    v->data.ptr = p;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_info(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_info_t *i = e;
    pmix_status_t rc = get_fixed(b, i->key, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS) {
        rc = get_u32(b, &i->flags);
    }
    /* A persistent info does not own its value; the unpacked one does. */
    i->flags &= ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT;
    return rc == PMIX_SUCCESS ? unpack_value(b, &i->value, depth) : rc;
}

static pmix_status_t unpack_pdata(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_pdata_t *p = e;
    pmix_status_t rc = unpack_proc(b, &p->proc, depth);
    if (rc == PMIX_SUCCESS) {
        rc = get_fixed(b, p->key, PMIX_MAX_KEYLEN);
    }
    return rc == PMIX_SUCCESS ? unpack_value(b, &p->value, depth) : rc;
}

static pmix_status_t unpack_darray(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_data_array_t *da = e;
    uint16_t type = 0;
    pmix_status_t rc = get_u16(b, &type);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (!sy_wire_type_known(type)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    da->type = type;
    return get_array(b, &da->array, &da->size, type, depth);
}

static pmix_status_t unpack_app(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_app_t *a = e;
    pmix_status_t rc = get_string(b, &a->cmd);
    if (rc == PMIX_SUCCESS) {
        rc = get_argv(b, &a->argv);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_argv(b, &a->env);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &a->cwd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_signed(b, &a->maxprocs, sizeof(a->maxprocs));
    }
    return rc == PMIX_SUCCESS ? get_array(b, (void **)&a->info, &a->ninfo, PMIX_INFO, depth) : rc;
}

static pmix_status_t unpack_query(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_query_t *q = e;
    pmix_status_t rc = get_argv(b, &q->keys);
    return rc == PMIX_SUCCESS ? get_array(b, (void **)&q->qualifiers, &q->nqual, PMIX_INFO, depth)
                              : rc;
}

static pmix_status_t unpack_regattr(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_regattr_t *r = e;
    pmix_status_t rc = get_string(b, &r->name);
    if (rc == PMIX_SUCCESS) {
        rc = get_fixed(b, r->string, PMIX_MAX_KEYLEN);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u16(b, &r->type);
    }
    return rc == PMIX_SUCCESS ? get_argv(b, &r->description) : rc;
}

static pmix_status_t unpack_proc_info(pmix_data_buffer_t *b, void *e, unsigned d)
{
    pmix_proc_info_t *p = e;
    pmix_status_t rc = unpack_proc(b, &p->proc, d);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &p->hostname);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &p->executable_name);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_signed(b, &p->pid, sizeof(p->pid));
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_signed(b, &p->exit_code, sizeof(p->exit_code));
    }
    return rc == PMIX_SUCCESS ? get_u8(b, &p->state) : rc;
}

static pmix_status_t unpack_envar(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_envar_t *v = e;
    pmix_status_t rc = get_string(b, &v->envar);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &v->value);
    }
    uint8_t sep = 0;
    if (rc == PMIX_SUCCESS) {
        rc = get_u8(b, &sep);
    }
    v->separator = (char)sep;
    return rc;
}

static pmix_status_t unpack_coord(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_coord_t *c = e;
    uint64_t dims = 0;
    pmix_status_t rc = get_u8(b, &c->view);
    if (rc == PMIX_SUCCESS) {
        rc = get_count(b, &dims, sizeof(uint32_t));
    }
    if (rc != PMIX_SUCCESS || dims == 0) {
        return rc;
    }
    uint32_t *coord = calloc((size_t)dims, sizeof(uint32_t));
    if (coord == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint64_t i = 0; rc == PMIX_SUCCESS && i < dims; i++) {
        rc = get_u32(b, &coord[i]);
    }
    if (rc != PMIX_SUCCESS) {
        free(coord);
        return rc;
    }
    c->coord = coord;
    c->dims = (size_t)dims;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_geometry(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_geometry_t *g = e;
    pmix_status_t rc = unpack_size(b, &g->fabric, depth);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &g->uuid);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &g->osname);
    }
    return PMIX_SUCCESS == rc
               ? get_array(b, (void **)&g->coordinates, &g->ncoords, PMIX_COORD, depth)
               : rc;
}

static pmix_status_t unpack_devdist(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_device_distance_t *dd = e;
    pmix_status_t rc = get_string(b, &dd->uuid);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &dd->osname);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u64(b, &dd->type);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u16(b, &dd->mindist);
    }
    return rc == PMIX_SUCCESS ? get_u16(b, &dd->maxdist) : rc;
}

static pmix_status_t unpack_endpoint(pmix_data_buffer_t *b, void *e, unsigned d)
{
    pmix_endpoint_t *ep = e;
    pmix_status_t rc = get_string(b, &ep->uuid);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &ep->osname);
    }
    return rc == PMIX_SUCCESS ? unpack_bo(b, &ep->endpt, d) : rc;
}

/* One list number: decimal, no leading zero (hwloc reads it with strtoul
 * base 0, so "010" would be 8 and "08-65" a range up to 2^32-65), at most
 * SY_TOPO_MAX_INDEX (hwloc sizes the bitmap by the highest index). */
static bool list_number(const char **pp)
{
    const char *p = *pp;
    unsigned long v = 0;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9')) {
        return false;
    }
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > SY_TOPO_MAX_INDEX) {
            return false;
        }
        p++;
    }
    *pp = p;
    return true;
}

/* hwloc's list syntax, strictly: "" | item ("," item)*, item = N | N-M,
 * and the last item may be "N-" (every index from N on).  Anything else
 * is refused before hwloc sees it. */
static bool cpuset_list_ok(const char *p)
{
    if ('\0' == *p) {
        return true;
    }
    for (;;) {
        if (!list_number(&p)) {
            return false;
        }
        if ('-' == *p) {
            p++;
            if ('\0' == *p) {
                return true;
            }
            if (!list_number(&p)) {
                return false;
            }
        }
        if ('\0' == *p) {
            return true;
        }
        if (',' != *p++) {
            return false;
        }
    }
}

static pmix_status_t unpack_cpuset(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_cpuset_t *c = e;
    char *list = NULL;
    pmix_status_t rc = get_string(b, &c->source);
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &list);
    }
    if (rc != PMIX_SUCCESS || list == NULL) {
        return rc;
    }
    hwloc_bitmap_t bm = NULL;
    if (!sy_from_hwloc(c->source) || !cpuset_list_ok(list)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    } else if ((bm = hwloc_bitmap_alloc()) == NULL) {
        rc = PMIX_ERR_NOMEM;
    } else if (hwloc_bitmap_list_sscanf(bm, list) != 0) {
        hwloc_bitmap_free(bm);
        rc = PMIX_ERR_UNPACK_FAILURE;
    } else {
        c->bitmap = bm;
    }
    free(list);
    return rc;
}

static pmix_status_t load_topology(const char *xml, size_t len, hwloc_topology_t *out)
{
    hwloc_topology_t topo;
    if (len > INT_MAX || hwloc_topology_init(&topo) != 0) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    /* Keep everything the sender exported: by default hwloc would drop I/O
     * objects and some caches, and the sender's support flags. */
    if (hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) != 0 ||
        hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IMPORT_SUPPORT) != 0 ||
        hwloc_topology_set_xmlbuffer(topo, xml, (int)len) != 0 || hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *out = topo;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_topo(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_topology_t *t = e;
    char *xml = NULL;
    size_t len = 0;
    pmix_status_t rc = get_string(b, &t->source);
    if (rc == PMIX_SUCCESS) {
        rc = get_bytes(b, &xml, &len);
    }
    if (rc != PMIX_SUCCESS || xml == NULL) {
        return rc;
    }
    hwloc_topology_t topo = NULL;
    /* hwloc wants the buffer's own terminating NUL inside the length. */
    if (!sy_from_hwloc(t->source) || '\0' != xml[len - 1] || strlen(xml) != len - 1 ||
        !sy_topo_xml_ok(xml, len - 1)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    } else {
        rc = load_topology(xml, len, &topo);
    }
    free(xml);
    if (rc == PMIX_SUCCESS) {
        t->topology = topo;
    }
    return rc;
}

/* ---- statistics ------------------------------------------------------- */

static pmix_status_t unpack_proc_stats(pmix_data_buffer_t *b, void *e, unsigned d)
{
    pmix_proc_stats_t *s = e;
    float *const fs[] = {&s->pss, &s->vsize, &s->rss, &s->peak_vsize};
    uint8_t state = 0;
    uint32_t prio = 0;
    pmix_status_t rc = get_string(b, &s->node);
    if (rc == PMIX_SUCCESS) {
        rc = unpack_proc(b, &s->proc, d);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_signed(b, &s->pid, sizeof(s->pid));
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_string(b, &s->cmd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u8(b, &state);
        s->state = (char)state;
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_timeval(b, &s->time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_float(b, &s->percent_cpu);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u32(b, &prio);
        s->priority = (int32_t)prio;
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u16(b, &s->num_threads);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_floats(b, fs, sizeof(fs) / sizeof(fs[0]));
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_u16(b, &s->processor);
    }
    return rc == PMIX_SUCCESS ? get_timeval(b, &s->sample_time) : rc;
}

static pmix_status_t unpack_disk_stats(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_disk_stats_t *s = e;
    uint64_t *const vs[] = {
        &s->num_reads_completed,  &s->num_reads_merged,        &s->num_sectors_read,
        &s->milliseconds_reading, &s->num_writes_completed,    &s->num_writes_merged,
        &s->num_sectors_written,  &s->milliseconds_writing,    &s->num_ios_in_progress,
        &s->milliseconds_io,      &s->weighted_milliseconds_io};
    pmix_status_t rc = get_string(b, &s->disk);
    return rc == PMIX_SUCCESS ? get_u64s(b, vs, sizeof(vs) / sizeof(vs[0])) : rc;
}

static pmix_status_t unpack_net_stats(pmix_data_buffer_t *b, void *e, unsigned d)
{
    (void)d;
    pmix_net_stats_t *s = e;
    uint64_t *const vs[] = {&s->num_bytes_recvd, &s->num_packets_recvd, &s->num_recv_errs,
                            &s->num_bytes_sent,  &s->num_packets_sent,  &s->num_send_errs};
    pmix_status_t rc = get_string(b, &s->net_interface);
    return rc == PMIX_SUCCESS ? get_u64s(b, vs, sizeof(vs) / sizeof(vs[0])) : rc;
}

static pmix_status_t unpack_node_stats(pmix_data_buffer_t *b, void *e, unsigned depth)
{
    pmix_node_stats_t *s = e;
    float *const fs[] = {&s->la,         &s->la5,       &s->la15,   &s->total_mem,
                         &s->free_mem,   &s->buffers,   &s->cached, &s->swap_cached,
                         &s->swap_total, &s->swap_free, &s->mapped};
    pmix_status_t rc = get_string(b, &s->node);
    if (rc == PMIX_SUCCESS) {
        rc = get_floats(b, fs, sizeof(fs) / sizeof(fs[0]));
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_timeval(b, &s->sample_time);
    }
    if (rc == PMIX_SUCCESS) {
        rc = get_array(b, (void **)&s->diskstats, &s->ndiskstats, PMIX_DISK_STATS, depth);
    }
    return PMIX_SUCCESS == rc
               ? get_array(b, (void **)&s->netstats, &s->nnetstats, PMIX_NET_STATS, depth)
               : rc;
}

/* ---- dispatch --------------------------------------------------------- */

/* `min` is the size on the wire of a zeroed element (NULL strings, empty
 * arrays): no element of the type can be shorter, so count * min must fit
 * in the bytes left.  tests/unit/test_pack.c checks these numbers. */
static const struct {
    unpack_fn fn;
    uint8_t min;
} unpack_table[SY_WIRE_TYPE_LIMIT] = {
    [PMIX_BOOL] = {unpack_bool, 1},
    [PMIX_BYTE] = {unpack_u8, 1},
    [PMIX_STRING] = {unpack_string, 8},
    [PMIX_SIZE] = {unpack_size, 8},
    [PMIX_PID] = {unpack_pid, 8},
    [PMIX_INT] = {unpack_int, 8},
    [PMIX_INT8] = {unpack_u8, 1},
    [PMIX_INT16] = {unpack_u16, 2},
    [PMIX_INT32] = {unpack_u32, 4},
    [PMIX_INT64] = {unpack_u64, 8},
    [PMIX_UINT] = {unpack_uint, 8},
    [PMIX_UINT8] = {unpack_u8, 1},
    [PMIX_UINT16] = {unpack_u16, 2},
    [PMIX_UINT32] = {unpack_u32, 4},
    [PMIX_UINT64] = {unpack_u64, 8},
    [PMIX_FLOAT] = {unpack_float, 4},
    [PMIX_DOUBLE] = {unpack_double, 8},
    [PMIX_TIMEVAL] = {unpack_timeval, 16},
    [PMIX_TIME] = {unpack_time, 8},
    [PMIX_STATUS] = {unpack_int, 8},
    [PMIX_VALUE] = {unpack_value, 2},
    [PMIX_PROC] = {unpack_proc, 12},
    [PMIX_APP] = {unpack_app, 48},
    [PMIX_INFO] = {unpack_info, 14},
    [PMIX_PDATA] = {unpack_pdata, 22},
    [PMIX_BYTE_OBJECT] = {unpack_bo, 8},
    [PMIX_PERSIST] = {unpack_u8, 1},
    [PMIX_POINTER] = {unpack_pointer, 1},
    [PMIX_SCOPE] = {unpack_u8, 1},
    [PMIX_DATA_RANGE] = {unpack_u8, 1},
    [PMIX_COMMAND] = {unpack_u8, 1},
    [PMIX_INFO_DIRECTIVES] = {unpack_u32, 4},
    [PMIX_DATA_TYPE] = {unpack_u16, 2},
    [PMIX_PROC_STATE] = {unpack_u8, 1},
    [PMIX_PROC_INFO] = {unpack_proc_info, 45},
    [PMIX_DATA_ARRAY] = {unpack_darray, 10},
    [PMIX_PROC_RANK] = {unpack_u32, 4},
    [PMIX_QUERY] = {unpack_query, 16},
    [PMIX_COMPRESSED_STRING] = {unpack_bo, 8},
    [PMIX_ALLOC_DIRECTIVE] = {unpack_u8, 1},
    [PMIX_IOF_CHANNEL] = {unpack_u16, 2},
    [PMIX_ENVAR] = {unpack_envar, 17},
    [PMIX_COORD] = {unpack_coord, 9},
    [PMIX_REGATTR] = {unpack_regattr, 26},
    [PMIX_REGEX] = {unpack_string, 8},
    [PMIX_JOB_STATE] = {unpack_u8, 1},
    [PMIX_LINK_STATE] = {unpack_u8, 1},
    [PMIX_PROC_CPUSET] = {unpack_cpuset, 16},
    [PMIX_GEOMETRY] = {unpack_geometry, 32},
    [PMIX_DEVICE_DIST] = {unpack_devdist, 28},
    [PMIX_ENDPOINT] = {unpack_endpoint, 24},
    [PMIX_TOPO] = {unpack_topo, 16},
    [PMIX_DEVTYPE] = {unpack_u64, 8},
    [PMIX_LOCTYPE] = {unpack_u16, 2},
    [PMIX_COMPRESSED_BYTE_OBJECT] = {unpack_bo, 8},
    [PMIX_PROC_NSPACE] = {unpack_nspace, 8},
    [PMIX_PROC_STATS] = {unpack_proc_stats, 97},
    [PMIX_DISK_STATS] = {unpack_disk_stats, 96},
    [PMIX_NET_STATS] = {unpack_net_stats, 56},
    [PMIX_NODE_STATS] = {unpack_node_stats, 84},
    [PMIX_DATA_BUFFER] = {unpack_dbuf, 16},
    [PMIX_STOR_MEDIUM] = {unpack_u64, 8},
    [PMIX_STOR_ACCESS] = {unpack_u64, 8},
    [PMIX_STOR_PERSIST] = {unpack_u64, 8},
    [PMIX_STOR_ACCESS_TYPE] = {unpack_u16, 2},
};

size_t sy_wire_min_size(pmix_data_type_t type)
{
    return sy_wire_type_known(type) && unpack_table[type].fn != NULL ? unpack_table[type].min : 0;
}

pmix_status_t sy_unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n, pmix_data_type_t type,
                              unsigned depth)
{
    if (depth > SY_PACK_MAX_DEPTH) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    size_t size = sy_type_size(type);
    size_t min = sy_wire_min_size(type);
    if (min == 0 || size == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (n > sy_buffer_remaining(b) / min) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (dst == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(dst, 0, n * size);
    unpack_fn fn = unpack_table[type].fn;
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = fn(b, (char *)dst + i * size, depth);
        if (rc != PMIX_SUCCESS) {
            for (size_t j = 0; j <= i; j++) {
                sy_elem_destruct((char *)dst + j * size, type);
            }
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

/* Read and drop n elements so that a short unpack leaves the buffer at the
 * next record. */
static pmix_status_t skip_elems(pmix_data_buffer_t *b, size_t n, pmix_data_type_t type)
{
    void *scratch = calloc(1, sy_type_size(type));
    if (scratch == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = sy_unpack_elems(b, scratch, 1, type, 0);
        if (rc == PMIX_SUCCESS) {
            sy_elem_destruct(scratch, type);
        }
    }
    free(scratch);
    return rc;
}

pmix_status_t sy_unpack(pmix_data_buffer_t *b, void *dst, int32_t *n, pmix_data_type_t type)
{
    pmix_status_t rc = sy_buffer_check(b);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (dst == NULL || n == NULL || *n < 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!sy_wire_type_known(type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    char *start = b->unpack_ptr;
    uint16_t wire_type = 0;
    uint32_t count = 0;
    rc = get_u16(b, &wire_type);
    if (rc == PMIX_SUCCESS) {
        rc = get_u32(b, &count);
    }
    if (rc == PMIX_SUCCESS && wire_type != type) {
        rc = PMIX_ERR_TYPE_MISMATCH;
    }
    if (rc == PMIX_SUCCESS &&
        (count > INT32_MAX || count > sy_buffer_remaining(b) / sy_wire_min_size(type))) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        b->unpack_ptr = start;
        return rc;
    }
    size_t take = count < (uint32_t)*n ? count : (size_t)*n;
    rc = sy_unpack_elems(b, dst, take, type, 0);
    if (rc == PMIX_SUCCESS && take < count) {
        rc = skip_elems(b, count - take, type);
        if (rc != PMIX_SUCCESS) {
            for (size_t i = 0; i < take; i++) {
                sy_elem_destruct((char *)dst + i * sy_type_size(type), type);
            }
        } else {
            rc = PMIX_ERR_UNPACK_INADEQUATE_SPACE;
        }
    }
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
        b->unpack_ptr = start;
        return rc;
    }
    *n = (int32_t)take;
    return rc;
}
