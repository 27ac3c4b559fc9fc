/* Element-by-element packing of PMIx data types in OpenPMIx's v41 layout
 * (format: opx_bfrops.h).  One switch per direction; structures recurse
 * with a depth bound. */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_bfrops.h"
#include "common/pack.h"

static pmix_status_t pack_elems(pmix_data_buffer_t *b, const void *src, size_t n,
                                pmix_data_type_t type, unsigned depth);
static pmix_status_t unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n, pmix_data_type_t type,
                                  unsigned depth);

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        pmix_status_t rc_ = (expr);                                                                \
        if (rc_ != PMIX_SUCCESS) {                                                                 \
            return rc_;                                                                            \
        }                                                                                          \
    } while (0)

/* How a scalar type travels. */
typedef enum { K_NONE, K_BYTE, K_BOOL, K_UINT, K_INT } kind_t;

static kind_t scalar_kind(pmix_data_type_t t, size_t *width)
{
    switch (t) {
    case PMIX_BOOL: *width = sizeof(bool); return K_BOOL;
    case PMIX_BYTE:
    case PMIX_INT8:
    case PMIX_UINT8:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_PROC_STATE:
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_JOB_STATE:
    case PMIX_LINK_STATE:
    case PMIX_COMMAND: *width = 1; return K_BYTE;
    case PMIX_UINT16:
    case PMIX_DATA_TYPE:
    case PMIX_IOF_CHANNEL:
    case PMIX_LOCTYPE:
    case PMIX_STOR_ACCESS_TYPE: *width = 2; return K_UINT;
    case PMIX_UINT32:
    case PMIX_UINT:
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES: *width = 4; return K_UINT;
    case PMIX_UINT64:
    case PMIX_SIZE:
    case PMIX_DEVTYPE:
    case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS:
    case PMIX_STOR_PERSIST: *width = 8; return K_UINT;
    case PMIX_INT16: *width = 2; return K_INT;
    case PMIX_INT32:
    case PMIX_INT:
    case PMIX_STATUS: *width = 4; return K_INT;
    case PMIX_INT64: *width = 8; return K_INT;
    default: *width = 0; return K_NONE;
    }
}

static uint64_t load_uint(const void *p, size_t width)
{
    switch (width) {
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

static int64_t load_int(const void *p, size_t width)
{
    switch (width) {
    case 2: return *(const int16_t *)p;
    case 4: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static void store_uint(void *p, size_t width, uint64_t v)
{
    switch (width) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

static void store_int(void *p, size_t width, int64_t v)
{
    switch (width) {
    case 2: *(int16_t *)p = (int16_t)v; break;
    case 4: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = v; break;
    }
}

static uint64_t umax_of(size_t width)
{
    return width >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * width)) - 1;
}

static int64_t imax_of(size_t width)
{
    return width >= 8 ? INT64_MAX : (INT64_C(1) << (8 * width - 1)) - 1;
}

/* ---- small pieces shared by both directions ----------------------------- */

static pmix_status_t put_u8(pmix_data_buffer_t *b, uint8_t v)
{
    return sy_buffer_append(b, &v, 1);
}

static pmix_status_t get_u8(pmix_data_buffer_t *b, uint8_t *v)
{
    return sy_buffer_read(b, v, 1);
}

static pmix_status_t put_type(pmix_data_buffer_t *b, pmix_data_type_t t)
{
    return sy_opx_put_uint(b, t);
}

static pmix_status_t get_type(pmix_data_buffer_t *b, pmix_data_type_t *t)
{
    uint64_t v;
    TRY(sy_opx_get_uint(b, UINT16_MAX, &v));
    *t = (pmix_data_type_t)v;
    return PMIX_SUCCESS;
}

static pmix_status_t get_u32(pmix_data_buffer_t *b, uint32_t *v)
{
    uint64_t u;
    TRY(sy_opx_get_uint(b, UINT32_MAX, &u));
    *v = (uint32_t)u;
    return PMIX_SUCCESS;
}

static pmix_status_t get_size(pmix_data_buffer_t *b, size_t *v)
{
    uint64_t u;
    TRY(sy_opx_get_uint(b, SIZE_MAX, &u));
    *v = (size_t)u;
    return PMIX_SUCCESS;
}

static pmix_status_t get_i32(pmix_data_buffer_t *b, int32_t *v)
{
    int64_t s;
    TRY(sy_opx_get_int(b, INT32_MIN, INT32_MAX, &s));
    *v = (int32_t)s;
    return PMIX_SUCCESS;
}

/* Bytes with a SIZE length (byte objects, data buffers). */
static pmix_status_t put_sized(pmix_data_buffer_t *b, const void *p, size_t n)
{
    TRY(sy_opx_put_uint(b, n));
    return n > 0 ? sy_buffer_append(b, p, n) : PMIX_SUCCESS;
}

static pmix_status_t get_sized(pmix_data_buffer_t *b, char **p, size_t *n)
{
    size_t len;
    *p = NULL;
    *n = 0;
    TRY(get_size(b, &len));
    if (len == 0) {
        return PMIX_SUCCESS;
    }
    if (len > sy_buffer_remaining(b)) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    char *m = malloc(len);
    if (m == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = sy_buffer_read(b, m, len);
    if (rc != PMIX_SUCCESS) {
        free(m);
        return rc;
    }
    *p = m;
    *n = len;
    return PMIX_SUCCESS;
}

/* Fixed-size names (nspaces, keys): copied, always terminated. */
static pmix_status_t get_fixed(pmix_data_buffer_t *b, char *dst, size_t cap)
{
    char *s;
    TRY(sy_opx_get_string(b, &s));
    sy_load_fixed(dst, s, cap);
    free(s);
    return PMIX_SUCCESS;
}

/* An argv with an INT32 count before it (APP, QUERY, REGATTR). */
static pmix_status_t put_argv(pmix_data_buffer_t *b, char *const *argv)
{
    int64_t n = 0;
    while (argv != NULL && argv[n] != NULL) {
        n++;
    }
    TRY(sy_opx_put_int(b, n));
    for (int64_t i = 0; i < n; i++) {
        TRY(sy_opx_put_string(b, argv[i]));
    }
    return PMIX_SUCCESS;
}

static pmix_status_t get_argv(pmix_data_buffer_t *b, char ***out)
{
    int64_t n;
    *out = NULL;
    TRY(sy_opx_get_int(b, 0, INT32_MAX, &n));
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if ((size_t)n > sy_buffer_remaining(b)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    char **v = calloc((size_t)n + 1, sizeof(char *));
    if (v == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *out = v; /* owned by the element from now on: freed with it */
    for (int64_t i = 0; i < n; i++) {
        char *s;
        TRY(sy_opx_get_string(b, &s));
        if (s == NULL) {
            s = strdup(""); /* a NULL entry would cut the argv short */
            if (s == NULL) {
                return PMIX_ERR_NOMEM;
            }
        }
        v[i] = s;
    }
    return PMIX_SUCCESS;
}

/* A counted array stored behind a pointer (n first, then the elements). */
static pmix_status_t get_array(pmix_data_buffer_t *b, size_t n, pmix_data_type_t type, void **out,
                               unsigned depth)
{
    *out = NULL;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    size_t min = sy_opx_min_size(type);
    size_t size = sy_type_size(type);
    if (min == 0 || size == 0) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (n > sy_buffer_remaining(b) / min) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    void *p = calloc(n, size);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = unpack_elems(b, p, n, type, depth + 1);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *out = p;
    return PMIX_SUCCESS;
}

/* ---- regex: how OpenPMIx's preg modules lay out a node/proc map ---------- */

/* Length of a zlib "blob" regex (prefix fields then the compressed bytes),
 * 0 when s is not one. */
static size_t blob_len(const char *s, size_t avail)
{
    static const char c[] = "component=zlib:";
    size_t i = strnlen(s, avail);
    if (i + 1 >= avail || strncmp(s, "blob:", 5) != 0) {
        return 0;
    }
    i++;
    if (avail - i < sizeof(c) || memcmp(s + i, c, sizeof(c)) != 0) {
        return 0;
    }
    i += sizeof(c);
    if (avail - i < 6 || strncmp(s + i, "size=", 5) != 0) {
        return 0;
    }
    size_t field = strnlen(s + i, avail - i);
    if (field == avail - i) {
        return 0;
    }
    char *end;
    unsigned long long z = strtoull(s + i + 5, &end, 10);
    if (*end != ':' || z > avail) {
        return 0;
    }
    i += field + 1;
    return z > avail - i ? 0 : i + (size_t)z;
}

/* A regex as preg packs it: "raw:..." and "pmix[...]" travel as their
 * bytes with the NUL; a zlib blob as its bytes; anything else as a whole
 * pack call of one string (the preg base fallback). */
static pmix_status_t put_regex(pmix_data_buffer_t *b, const char *s, size_t len)
{
    if (s != NULL && (strncmp(s, "raw:", 4) == 0 || strncmp(s, "pmix", 4) == 0)) {
        return sy_buffer_append(b, s, strlen(s) + 1);
    }
    if (s != NULL && len > 0 && blob_len(s, len) == len) {
        return sy_buffer_append(b, s, len);
    }
    TRY(sy_opx_put_int(b, 1));
    return sy_opx_put_string(b, s);
}

static pmix_status_t get_regex(pmix_data_buffer_t *b, char **out, size_t *outlen)
{
    size_t avail = sy_buffer_remaining(b);
    const char *p = (const char *)b->unpack_ptr;
    size_t len = 0;
    *out = NULL;
    *outlen = 0;
    if (avail >= 4 && (memcmp(p, "raw:", 4) == 0 || memcmp(p, "pmix", 4) == 0)) {
        len = strnlen(p, avail);
        if (len == avail) {
            return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
        }
        len++;
    } else if (avail >= 4 && memcmp(p, "blob", 4) == 0) {
        len = blob_len(p, avail);
        if (len == 0) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
    } else {
        int64_t n;
        TRY(sy_opx_get_int(b, 1, 1, &n));
        TRY(sy_opx_get_string(b, out));
        *outlen = *out == NULL ? 0 : strlen(*out) + 1;
        return PMIX_SUCCESS;
    }
    char *m = malloc(len + 1);
    if (m == NULL) {
        return PMIX_ERR_NOMEM;
    }
    (void)sy_buffer_read(b, m, len);
    m[len] = '\0';
    *out = m;
    *outlen = len;
    return PMIX_SUCCESS;
}

/* ---- values ------------------------------------------------------------ */

static pmix_status_t pack_value(pmix_data_buffer_t *b, const pmix_value_t *v, unsigned depth)
{
    TRY(put_type(b, v->type));
    if (v->type == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    if (v->type == PMIX_REGEX) { /* a value keeps a regex as a byte object */
        return put_regex(b, v->data.bo.bytes, v->data.bo.size);
    }
    if (v->type == PMIX_POINTER) {
        return put_u8(b, 1);
    }
    switch (sy_value_kind(v->type)) {
    case SY_VALUE_INLINE: return pack_elems(b, &v->data, 1, v->type, depth + 1);
    case SY_VALUE_BOXED:
        if (v->data.ptr == NULL) {
            return PMIX_ERR_BAD_PARAM;
        }
        return pack_elems(b, v->data.ptr, 1, v->type, depth + 1);
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

static pmix_status_t unpack_value(pmix_data_buffer_t *b, pmix_value_t *v, unsigned depth)
{
    pmix_data_type_t t;
    TRY(get_type(b, &t));
    v->type = t;
    if (t == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    if (t == PMIX_REGEX) {
        char *s;
        size_t len;
        TRY(get_regex(b, &s, &len));
        v->data.bo.bytes = s;
        v->data.bo.size = len;
        return PMIX_SUCCESS;
    }
    if (t == PMIX_POINTER) {
        uint8_t ignored;
        v->data.ptr = NULL;
        return get_u8(b, &ignored);
    }
    switch (sy_value_kind(t)) {
    case SY_VALUE_INLINE: return unpack_elems(b, &v->data, 1, t, depth + 1);
    case SY_VALUE_BOXED: {
        size_t size = sy_type_size(t);
        void *box = size == 0 ? NULL : calloc(1, size);
        if (box == NULL) {
            v->type = PMIX_UNDEF;
            return size == 0 ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOMEM;
        }
        pmix_status_t rc = unpack_elems(b, box, 1, t, depth + 1);
        if (rc != PMIX_SUCCESS) {
            free(box);
            v->type = PMIX_UNDEF;
            return rc;
        }
        v->data.ptr = box;
        return PMIX_SUCCESS;
    }
    default: v->type = PMIX_UNDEF; return PMIX_ERR_UNPACK_FAILURE;
    }
}

/* ---- one element -------------------------------------------------------- */

static pmix_status_t pack_one(pmix_data_buffer_t *b, const void *e, pmix_data_type_t type,
                              unsigned depth)
{
    size_t width;
    switch (scalar_kind(type, &width)) {
    case K_BOOL: return put_u8(b, *(const bool *)e ? 1 : 0);
    case K_BYTE: return sy_buffer_append(b, e, 1);
    case K_UINT: return sy_opx_put_uint(b, load_uint(e, width));
    case K_INT: return sy_opx_put_int(b, load_int(e, width));
    case K_NONE: break;
    }
    switch (type) {
    case PMIX_PID:
        /* pid_t travels with its width: the type UINT32, then the value */
        TRY(put_type(b, PMIX_UINT32));
        return sy_opx_put_uint(b, (uint32_t) * (const pid_t *)e);
    case PMIX_TIME: return sy_opx_put_uint(b, (uint64_t) * (const time_t *)e);
    case PMIX_TIMEVAL: {
        const struct timeval *tv = e;
        TRY(sy_opx_put_int(b, (int64_t)tv->tv_sec));
        return sy_opx_put_int(b, (int64_t)tv->tv_usec);
    }
    case PMIX_FLOAT:
    case PMIX_DOUBLE: {
        /* printed with "%f", as OpenPMIx does */
        char tmp[512];
        double d = type == PMIX_FLOAT ? (double)*(const float *)e : *(const double *)e;
        int n = snprintf(tmp, sizeof(tmp), "%f", d);
        if (n < 0 || (size_t)n >= sizeof(tmp)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return sy_opx_put_string(b, tmp);
    }
    case PMIX_POINTER: return put_u8(b, 1);
    case PMIX_STRING: return sy_opx_put_string(b, *(char *const *)e);
    case PMIX_PROC_NSPACE: return sy_opx_put_string(b, (const char *)e);
    case PMIX_REGEX: {
        const char *s = *(char *const *)e;
        return put_regex(b, s, s == NULL ? 0 : strlen(s) + 1);
    }
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: {
        const pmix_byte_object_t *bo = e;
        return put_sized(b, bo->bytes, bo->bytes == NULL ? 0 : bo->size);
    }
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *db = e;
        return put_sized(b, db->base_ptr, db->base_ptr == NULL ? 0 : db->bytes_used);
    }
    case PMIX_PROC: {
        const pmix_proc_t *p = e;
        TRY(sy_opx_put_string(b, p->nspace));
        return sy_opx_put_uint(b, p->rank);
    }
    case PMIX_VALUE: return pack_value(b, e, depth);
    case PMIX_INFO: {
        const pmix_info_t *i = e;
        TRY(sy_opx_put_string(b, i->key));
        TRY(sy_opx_put_uint(b, i->flags));
        return pack_value(b, &i->value, depth);
    }
    case PMIX_PDATA: {
        const pmix_pdata_t *p = e;
        TRY(pack_one(b, &p->proc, PMIX_PROC, depth));
        TRY(sy_opx_put_string(b, p->key));
        return pack_value(b, &p->value, depth);
    }
    case PMIX_APP: {
        const pmix_app_t *a = e;
        TRY(sy_opx_put_string(b, a->cmd));
        TRY(put_argv(b, a->argv));
        TRY(put_argv(b, a->env));
        TRY(sy_opx_put_string(b, a->cwd));
        TRY(sy_opx_put_int(b, a->maxprocs));
        TRY(sy_opx_put_uint(b, a->info == NULL ? 0 : a->ninfo));
        return a->info == NULL ? PMIX_SUCCESS
                               : pack_elems(b, a->info, a->ninfo, PMIX_INFO, depth + 1);
    }
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *d = e;
        size_t n = d->array == NULL ? 0 : d->size;
        TRY(put_type(b, d->type));
        TRY(sy_opx_put_uint(b, n));
        if (n == 0 || d->type == PMIX_UNDEF) {
            return PMIX_SUCCESS;
        }
        return pack_elems(b, d->array, n, d->type, depth + 1);
    }
    case PMIX_QUERY: {
        const pmix_query_t *q = e;
        TRY(put_argv(b, q->keys));
        TRY(sy_opx_put_uint(b, q->qualifiers == NULL ? 0 : q->nqual));
        return q->qualifiers == NULL ? PMIX_SUCCESS
                                     : pack_elems(b, q->qualifiers, q->nqual, PMIX_INFO, depth + 1);
    }
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *p = e;
        TRY(pack_one(b, &p->proc, PMIX_PROC, depth));
        TRY(sy_opx_put_string(b, p->hostname));
        TRY(sy_opx_put_string(b, p->executable_name));
        TRY(pack_one(b, &p->pid, PMIX_PID, depth));
        return put_u8(b, p->state);
    }
    case PMIX_ENVAR: {
        const pmix_envar_t *v = e;
        TRY(sy_opx_put_string(b, v->envar));
        TRY(sy_opx_put_string(b, v->value));
        return put_u8(b, (uint8_t)v->separator);
    }
    case PMIX_COORD: {
        const pmix_coord_t *c = e;
        size_t dims = c->coord == NULL ? 0 : c->dims;
        TRY(put_u8(b, c->view));
        TRY(sy_opx_put_uint(b, dims));
        for (size_t i = 0; i < dims; i++) {
            TRY(sy_opx_put_uint(b, c->coord[i]));
        }
        return PMIX_SUCCESS;
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = e;
        TRY(sy_opx_put_string(b, r->name));
        TRY(sy_opx_put_string(b, r->string));
        TRY(put_type(b, r->type));
        return put_argv(b, r->description);
    }
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = e;
        size_t n = g->coordinates == NULL ? 0 : g->ncoords;
        TRY(sy_opx_put_uint(b, g->fabric));
        TRY(sy_opx_put_string(b, g->uuid));
        TRY(sy_opx_put_string(b, g->osname));
        TRY(sy_opx_put_uint(b, n));
        return pack_elems(b, g->coordinates, n, PMIX_COORD, depth + 1);
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = e;
        TRY(sy_opx_put_string(b, d->uuid));
        TRY(sy_opx_put_string(b, d->osname));
        TRY(sy_opx_put_uint(b, d->type));
        TRY(sy_opx_put_uint(b, d->mindist));
        return sy_opx_put_uint(b, d->maxdist);
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *d = e;
        TRY(sy_opx_put_string(b, d->uuid));
        TRY(sy_opx_put_string(b, d->osname));
        return put_sized(b, d->endpt.bytes, d->endpt.bytes == NULL ? 0 : d->endpt.size);
    }
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

static pmix_status_t unpack_one(pmix_data_buffer_t *b, void *e, pmix_data_type_t type,
                                unsigned depth)
{
    size_t width;
    switch (scalar_kind(type, &width)) {
    case K_BOOL: {
        uint8_t v;
        TRY(get_u8(b, &v));
        *(bool *)e = v != 0;
        return PMIX_SUCCESS;
    }
    case K_BYTE: return sy_buffer_read(b, e, 1);
    case K_UINT: {
        uint64_t v;
        TRY(sy_opx_get_uint(b, umax_of(width), &v));
        store_uint(e, width, v);
        return PMIX_SUCCESS;
    }
    case K_INT: {
        int64_t v;
        TRY(sy_opx_get_int(b, -imax_of(width) - 1, imax_of(width), &v));
        store_int(e, width, v);
        return PMIX_SUCCESS;
    }
    case K_NONE: break;
    }
    switch (type) {
    case PMIX_PID: {
        pmix_data_type_t t;
        uint64_t v;
        TRY(get_type(b, &t));
        if (t != PMIX_UINT32 && t != PMIX_INT32) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        TRY(sy_opx_get_uint(b, UINT32_MAX, &v));
        *(pid_t *)e = (pid_t)(uint32_t)v;
        return PMIX_SUCCESS;
    }
    case PMIX_TIME: {
        uint64_t v;
        TRY(sy_opx_get_uint(b, UINT64_MAX, &v));
        *(time_t *)e = (time_t)v;
        return PMIX_SUCCESS;
    }
    case PMIX_TIMEVAL: {
        struct timeval *tv = e;
        int64_t s, us;
        TRY(sy_opx_get_int(b, INT64_MIN, INT64_MAX, &s));
        TRY(sy_opx_get_int(b, INT64_MIN, INT64_MAX, &us));
        tv->tv_sec = (time_t)s;
        tv->tv_usec = (suseconds_t)us;
        return PMIX_SUCCESS;
    }
    case PMIX_FLOAT:
    case PMIX_DOUBLE: {
        char *s;
        TRY(sy_opx_get_string(b, &s));
        double d = s == NULL ? 0.0 : strtod(s, NULL);
        free(s);
        if (type == PMIX_FLOAT) {
            *(float *)e = (float)d;
        } else {
            *(double *)e = d;
        }
        return PMIX_SUCCESS;
    }
    case PMIX_POINTER: {
        uint8_t ignored;
        *(void **)e = NULL;
        return get_u8(b, &ignored);
    }
    case PMIX_STRING: return sy_opx_get_string(b, (char **)e);
    case PMIX_PROC_NSPACE: return get_fixed(b, (char *)e, PMIX_MAX_NSLEN + 1);
    case PMIX_REGEX: {
        size_t len;
        return get_regex(b, (char **)e, &len);
    }
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: {
        pmix_byte_object_t *bo = e;
        return get_sized(b, &bo->bytes, &bo->size);
    }
    case PMIX_DATA_BUFFER: {
        pmix_data_buffer_t *db = e;
        char *p;
        size_t n;
        TRY(get_sized(b, &p, &n));
        db->base_ptr = p;
        db->pack_ptr = p == NULL ? NULL : p + n;
        db->unpack_ptr = p;
        db->bytes_allocated = n;
        db->bytes_used = n;
        return PMIX_SUCCESS;
    }
    case PMIX_PROC: {
        pmix_proc_t *p = e;
        TRY(get_fixed(b, p->nspace, sizeof(p->nspace)));
        return get_u32(b, &p->rank);
    }
    case PMIX_VALUE: return unpack_value(b, e, depth);
    case PMIX_INFO: {
        pmix_info_t *i = e;
        TRY(get_fixed(b, i->key, sizeof(i->key)));
        TRY(get_u32(b, &i->flags));
        i->flags &= ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT; /* we own the value */
        return unpack_value(b, &i->value, depth);
    }
    case PMIX_PDATA: {
        pmix_pdata_t *p = e;
        TRY(unpack_one(b, &p->proc, PMIX_PROC, depth));
        TRY(get_fixed(b, p->key, sizeof(p->key)));
        return unpack_value(b, &p->value, depth);
    }
    case PMIX_APP: {
        pmix_app_t *a = e;
        int32_t maxprocs;
        TRY(sy_opx_get_string(b, &a->cmd));
        TRY(get_argv(b, &a->argv));
        TRY(get_argv(b, &a->env));
        TRY(sy_opx_get_string(b, &a->cwd));
        TRY(get_i32(b, &maxprocs));
        a->maxprocs = maxprocs;
        size_t n;
        TRY(get_size(b, &n));
        void *arr;
        TRY(get_array(b, n, PMIX_INFO, &arr, depth));
        a->info = arr;
        a->ninfo = arr == NULL ? 0 : n;
        return PMIX_SUCCESS;
    }
    case PMIX_DATA_ARRAY: {
        pmix_data_array_t *d = e;
        pmix_data_type_t t;
        size_t n;
        TRY(get_type(b, &t));
        TRY(get_size(b, &n));
        d->type = t;
        if (n == 0 || t == PMIX_UNDEF) {
            return PMIX_SUCCESS;
        }
        TRY(get_array(b, n, t, &d->array, depth));
        d->size = n;
        return PMIX_SUCCESS;
    }
    case PMIX_QUERY: {
        pmix_query_t *q = e;
        size_t n;
        TRY(get_argv(b, &q->keys));
        TRY(get_size(b, &n));
        void *arr;
        TRY(get_array(b, n, PMIX_INFO, &arr, depth));
        q->qualifiers = arr;
        q->nqual = arr == NULL ? 0 : n;
        return PMIX_SUCCESS;
    }
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *p = e;
        TRY(unpack_one(b, &p->proc, PMIX_PROC, depth));
        TRY(sy_opx_get_string(b, &p->hostname));
        TRY(sy_opx_get_string(b, &p->executable_name));
        TRY(unpack_one(b, &p->pid, PMIX_PID, depth));
        return get_u8(b, &p->state);
    }
    case PMIX_ENVAR: {
        pmix_envar_t *v = e;
        uint8_t sep;
        TRY(sy_opx_get_string(b, &v->envar));
        TRY(sy_opx_get_string(b, &v->value));
        TRY(get_u8(b, &sep));
        v->separator = (char)sep;
        return PMIX_SUCCESS;
    }
    case PMIX_COORD: {
        pmix_coord_t *c = e;
        size_t dims;
        TRY(get_u8(b, &c->view));
        TRY(get_size(b, &dims));
        if (dims == 0) {
            return PMIX_SUCCESS;
        }
        if (dims > sy_buffer_remaining(b)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        c->coord = calloc(dims, sizeof(uint32_t));
        if (c->coord == NULL) {
            return PMIX_ERR_NOMEM;
        }
        c->dims = dims;
        for (size_t i = 0; i < dims; i++) {
            TRY(get_u32(b, &c->coord[i]));
        }
        return PMIX_SUCCESS;
    }
    case PMIX_REGATTR: {
        pmix_regattr_t *r = e;
        TRY(sy_opx_get_string(b, &r->name));
        TRY(get_fixed(b, r->string, sizeof(r->string)));
        TRY(get_type(b, &r->type));
        return get_argv(b, &r->description);
    }
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = e;
        size_t n;
        TRY(get_size(b, &g->fabric));
        TRY(sy_opx_get_string(b, &g->uuid));
        TRY(sy_opx_get_string(b, &g->osname));
        TRY(get_size(b, &n));
        void *arr;
        TRY(get_array(b, n, PMIX_COORD, &arr, depth));
        g->coordinates = arr;
        g->ncoords = arr == NULL ? 0 : n;
        return PMIX_SUCCESS;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = e;
        uint64_t v;
        TRY(sy_opx_get_string(b, &d->uuid));
        TRY(sy_opx_get_string(b, &d->osname));
        TRY(sy_opx_get_uint(b, UINT64_MAX, &v));
        d->type = v;
        TRY(sy_opx_get_uint(b, UINT16_MAX, &v));
        d->mindist = (uint16_t)v;
        TRY(sy_opx_get_uint(b, UINT16_MAX, &v));
        d->maxdist = (uint16_t)v;
        return PMIX_SUCCESS;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *d = e;
        TRY(sy_opx_get_string(b, &d->uuid));
        TRY(sy_opx_get_string(b, &d->osname));
        return get_sized(b, &d->endpt.bytes, &d->endpt.size);
    }
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

/* ---- arrays of elements ------------------------------------------------- */

static pmix_status_t pack_elems(pmix_data_buffer_t *b, const void *src, size_t n,
                                pmix_data_type_t type, unsigned depth)
{
    if (depth > SY_PACK_MAX_DEPTH) {
        return PMIX_ERR_BAD_PARAM;
    }
    size_t size = sy_type_size(type);
    if (n > 0 && (size == 0 || src == NULL)) {
        return size == 0 ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < n; i++) {
        TRY(pack_one(b, (const char *)src + i * size, type, depth));
    }
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n, pmix_data_type_t type,
                                  unsigned depth)
{
    if (depth > SY_PACK_MAX_DEPTH) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    size_t size = sy_type_size(type);
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (size == 0 || sy_opx_min_size(type) == 0) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    memset(dst, 0, n * size);
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = unpack_one(b, (char *)dst + i * size, type, depth);
        if (rc != PMIX_SUCCESS) {
            for (size_t j = 0; j <= i; j++) {
                sy_elem_destruct((char *)dst + j * size, type);
            }
            memset(dst, 0, n * size);
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_pack_elems(pmix_data_buffer_t *b, const void *src, size_t n,
                                pmix_data_type_t type)
{
    return pack_elems(b, src, n, type, 0);
}

pmix_status_t sy_opx_unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n, pmix_data_type_t type)
{
    return unpack_elems(b, dst, n, type, 0);
}

size_t sy_opx_min_size(pmix_data_type_t type)
{
    size_t width;
    if (scalar_kind(type, &width) != K_NONE) {
        return 1;
    }
    switch (type) {
    case PMIX_PID:
    case PMIX_TIMEVAL: return 2;
    case PMIX_PROC:
    case PMIX_INFO:
    case PMIX_PDATA:
    case PMIX_QUERY:
    case PMIX_ENVAR:
    case PMIX_COORD:
    case PMIX_DATA_ARRAY: return 2;
    case PMIX_TIME:
    case PMIX_FLOAT:
    case PMIX_DOUBLE:
    case PMIX_POINTER:
    case PMIX_STRING:
    case PMIX_PROC_NSPACE:
    case PMIX_REGEX:
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT:
    case PMIX_DATA_BUFFER:
    case PMIX_VALUE:
    case PMIX_APP:
    case PMIX_PROC_INFO:
    case PMIX_REGATTR:
    case PMIX_GEOMETRY:
    case PMIX_DEVICE_DIST:
    case PMIX_ENDPOINT: return 1;
    default: return 0;
    }
}
