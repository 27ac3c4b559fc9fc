/*
 * Switchyard -- growable pmix_data_buffer_t (see buffer.h for the layout).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buffer.h"

/* First allocation; later ones double, so packing many small items stays
 * amortised O(1) per byte. */
#define SY_BUFFER_MIN_ALLOC 256

pmix_status_t sy_buffer_check(const pmix_data_buffer_t *b)
{
    if (b == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (b->base_ptr == NULL) {
        /* A constructed or destructed buffer: everything is zero. */
        if (b->bytes_used != 0 || b->bytes_allocated != 0 || b->pack_ptr != NULL ||
            b->unpack_ptr != NULL) {
            return PMIX_ERR_BAD_PARAM;
        }
        return PMIX_SUCCESS;
    }
    if (b->bytes_used > b->bytes_allocated || b->pack_ptr != b->base_ptr + b->bytes_used ||
        b->unpack_ptr < b->base_ptr || b->unpack_ptr > b->pack_ptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

size_t sy_buffer_remaining(const pmix_data_buffer_t *b)
{
    if (sy_buffer_check(b) != PMIX_SUCCESS || b->base_ptr == NULL) {
        return 0;
    }
    return (size_t)(b->pack_ptr - b->unpack_ptr);
}

pmix_status_t sy_buffer_reserve(pmix_data_buffer_t *b, size_t n)
{
    pmix_status_t rc = sy_buffer_check(b);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (n <= b->bytes_allocated - b->bytes_used) {
        return PMIX_SUCCESS;
    }
    if (n > SIZE_MAX - b->bytes_used) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    size_t need = b->bytes_used + n;
    size_t want =
        b->bytes_allocated < SY_BUFFER_MIN_ALLOC ? SY_BUFFER_MIN_ALLOC : b->bytes_allocated;
    while (want < need) {
        want = want > SIZE_MAX / 2 ? need : want * 2;
    }
    size_t unpack_off = b->base_ptr == NULL ? 0 : (size_t)(b->unpack_ptr - b->base_ptr);
    char *p = realloc(b->base_ptr, want);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    b->base_ptr = p;
    b->bytes_allocated = want;
    b->pack_ptr = p + b->bytes_used;
    b->unpack_ptr = p + unpack_off;
    return PMIX_SUCCESS;
}

pmix_status_t sy_buffer_append(pmix_data_buffer_t *b, const void *src, size_t n)
{
    if (n == 0) {
        return sy_buffer_check(b);
    }
    pmix_status_t rc = sy_buffer_reserve(b, n);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    memcpy(b->pack_ptr, src, n);
    b->pack_ptr += n;
    b->bytes_used += n;
    return PMIX_SUCCESS;
}

pmix_status_t sy_buffer_read(pmix_data_buffer_t *b, void *dst, size_t n)
{
    if (sy_buffer_remaining(b) < n) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (dst != NULL) {
        memcpy(dst, b->unpack_ptr, n);
    }
    b->unpack_ptr += n;
    return PMIX_SUCCESS;
}

void sy_buffer_destruct(pmix_data_buffer_t *b)
{
    if (b == NULL) {
        return;
    }
    free(b->base_ptr);
    memset(b, 0, sizeof(*b));
}

pmix_status_t sy_buffer_set_copy(pmix_data_buffer_t *b, const void *src, size_t n)
{
    if (b == NULL || (src == NULL && n != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *p = NULL;
    if (n != 0) {
        p = malloc(n);
        if (p == NULL) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(p, src, n);
    }
    free(b->base_ptr);
    b->base_ptr = p;
    b->pack_ptr = p == NULL ? NULL : p + n;
    b->unpack_ptr = p;
    b->bytes_allocated = n;
    b->bytes_used = n;
    return PMIX_SUCCESS;
}
