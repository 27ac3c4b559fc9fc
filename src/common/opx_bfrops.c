/* OpenPMIx's v41 encoding: varint integers, strings, pack/unpack calls and
 * the OpenPMIx-internal KVAL and BUFFER types (format: opx_bfrops.h).  The
 * per-type element walk is in opx_elems.c. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_bfrops.h"

/* ---- integers ---------------------------------------------------------- */

size_t sy_opx_varint_encode(uint64_t v, uint8_t out[SY_OPX_VARINT_MAX])
{
    size_t n = 0;
    /* Eight groups of 7 bits with a continuation flag; whatever is left
     * after them (the top 8 bits) goes whole into a ninth byte. */
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v != 0) {
            byte |= 0x80;
        }
        out[n++] = byte;
    } while (v != 0 && n < 8);
    if (v != 0) {
        out[n++] = (uint8_t)v;
    }
    return n;
}

pmix_status_t sy_opx_varint_decode(pmix_data_buffer_t *b, uint64_t *v)
{
    uint64_t value = 0;
    for (unsigned i = 0; i < SY_OPX_VARINT_MAX; i++) {
        uint8_t byte;
        pmix_status_t rc = sy_buffer_read(b, &byte, 1);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        if (i == 8) {
            value |= (uint64_t)byte << 56;
            break;
        }
        value |= (uint64_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
            break;
        }
    }
    *v = value;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_put_uint(pmix_data_buffer_t *b, uint64_t v)
{
    uint8_t tmp[SY_OPX_VARINT_MAX];
    return sy_buffer_append(b, tmp, sy_opx_varint_encode(v, tmp));
}

pmix_status_t sy_opx_put_int(pmix_data_buffer_t *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    uint64_t folded = v < 0 ? ((~u) << 1) | 1u : u << 1;
    return sy_opx_put_uint(b, folded);
}

pmix_status_t sy_opx_get_uint(pmix_data_buffer_t *b, uint64_t max, uint64_t *v)
{
    uint64_t u;
    pmix_status_t rc = sy_opx_varint_decode(b, &u);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (u > max) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *v = u;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_get_int(pmix_data_buffer_t *b, int64_t min, int64_t max, int64_t *v)
{
    uint64_t u;
    pmix_status_t rc = sy_opx_varint_decode(b, &u);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    uint64_t mag = u >> 1;
    int64_t s = (u & 1) ? (int64_t)~mag : (int64_t)mag;
    if (s < min || s > max) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *v = s;
    return PMIX_SUCCESS;
}

/* ---- strings ----------------------------------------------------------- */

pmix_status_t sy_opx_put_string(pmix_data_buffer_t *b, const char *s)
{
    if (s == NULL) {
        return sy_opx_put_int(b, 0);
    }
    size_t len = strlen(s) + 1;
    if (len > INT32_MAX) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = sy_opx_put_int(b, (int64_t)len);
    return rc == PMIX_SUCCESS ? sy_buffer_append(b, s, len) : rc;
}

pmix_status_t sy_opx_get_string(pmix_data_buffer_t *b, char **s)
{
    int64_t len;
    *s = NULL;
    pmix_status_t rc = sy_opx_get_int(b, 0, INT32_MAX, &len);
    if (rc != PMIX_SUCCESS || len == 0) {
        return rc;
    }
    if ((size_t)len > sy_buffer_remaining(b)) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    char *p = malloc((size_t)len + 1);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_buffer_read(b, p, (size_t)len);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    p[len] = '\0'; /* the peer's NUL is normally at len-1; never trust it */
    *s = p;
    return PMIX_SUCCESS;
}

/* ---- pack / unpack calls ----------------------------------------------- */

pmix_status_t sy_opx_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t type)
{
    if (n < 0 || (src == NULL && n > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = sy_opx_put_int(b, n);
    return rc == PMIX_SUCCESS ? sy_opx_pack_elems(b, src, (size_t)n, type) : rc;
}

static pmix_status_t get_count(pmix_data_buffer_t *b, pmix_data_type_t type, size_t *n)
{
    int64_t count;
    pmix_status_t rc = sy_opx_get_int(b, 0, INT32_MAX, &count);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    size_t min = sy_opx_min_size(type);
    if (min == 0) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if ((size_t)count > sy_buffer_remaining(b) / min) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    *n = (size_t)count;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_unpack(pmix_data_buffer_t *b, void *dst, int32_t *n, pmix_data_type_t type)
{
    size_t count;
    if (n == NULL || *n < 0 || dst == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = get_count(b, type, &count);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (count > (size_t)*n) {
        return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
    }
    rc = sy_opx_unpack_elems(b, dst, count, type);
    if (rc == PMIX_SUCCESS) {
        *n = (int32_t)count;
    }
    return rc;
}

pmix_status_t sy_opx_unpack_alloc(pmix_data_buffer_t *b, pmix_data_type_t type, void **out,
                                  size_t *n)
{
    size_t count;
    *out = NULL;
    *n = 0;
    pmix_status_t rc = get_count(b, type, &count);
    if (rc != PMIX_SUCCESS || count == 0) {
        return rc;
    }
    size_t size = sy_type_size(type);
    void *p = size == 0 ? NULL : calloc(count, size);
    if (p == NULL) {
        return size == 0 ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOMEM;
    }
    rc = sy_opx_unpack_elems(b, p, count, type);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *out = p;
    *n = count;
    return PMIX_SUCCESS;
}

/* ---- OpenPMIx-internal types ------------------------------------------- */

pmix_status_t sy_opx_pack_kval(pmix_data_buffer_t *b, const char *key, const pmix_value_t *v)
{
    pmix_status_t rc = sy_opx_put_string(b, key);
    return rc == PMIX_SUCCESS ? sy_opx_pack_elems(b, v, 1, PMIX_VALUE) : rc;
}

pmix_status_t sy_opx_unpack_kval(pmix_data_buffer_t *b, char **key, pmix_value_t *v)
{
    memset(v, 0, sizeof(*v));
    pmix_status_t rc = sy_opx_get_string(b, key);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_opx_unpack_elems(b, v, 1, PMIX_VALUE);
    if (rc != PMIX_SUCCESS) {
        free(*key);
        *key = NULL;
    }
    return rc;
}

pmix_status_t sy_opx_pack_buffer(pmix_data_buffer_t *b, const void *bytes, size_t n)
{
    uint8_t type = SY_OPX_BUFFER_NON_DESC;
    pmix_status_t rc = sy_buffer_append(b, &type, 1);
    if (rc == PMIX_SUCCESS) {
        rc = sy_opx_put_uint(b, n);
    }
    if (rc == PMIX_SUCCESS && n > 0) {
        rc = sy_buffer_append(b, bytes, n);
    }
    return rc;
}

pmix_status_t sy_opx_unpack_buffer(pmix_data_buffer_t *b, void **bytes, size_t *n)
{
    uint8_t type;
    uint64_t len;
    *bytes = NULL;
    *n = 0;
    pmix_status_t rc = sy_buffer_read(b, &type, 1);
    if (rc == PMIX_SUCCESS) {
        rc = sy_opx_get_uint(b, SIZE_MAX, &len);
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    /* A fully described buffer would need the typed reader; peers that
     * talk to us were told PMIX_BFROP_BUFFER_NON_DESC. */
    if (type != SY_OPX_BUFFER_NON_DESC && len > 0) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (len > sy_buffer_remaining(b)) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    if (len == 0) {
        return PMIX_SUCCESS;
    }
    void *p = malloc(len);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_buffer_read(b, p, len);
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *bytes = p;
    *n = len;
    return PMIX_SUCCESS;
}
