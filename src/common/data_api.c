/*
 * Switchyard -- the public buffer functions: PMIx_Data_pack/unpack and the
 * payload transfers load, unload, embed and copy_payload.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/pack.h"

/* The Standard lets the peer's proc select a wire version; there is only
 * one here, so target and source are accepted and not used. */
PMIX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target, pmix_data_buffer_t *buffer,
                                         void *src, int32_t num_vals, pmix_data_type_t type)
{
    (void)target;
    if (buffer == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return sy_pack(buffer, src, num_vals, type);
}

PMIX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source, pmix_data_buffer_t *buffer,
                                           void *dest, int32_t *max_num_values,
                                           pmix_data_type_t type)
{
    (void)source;
    if (buffer == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return sy_unpack(buffer, dest, max_num_values, type);
}

/* Takes ownership of payload->bytes (released with the buffer) and clears
 * the payload, as PMIX_DATA_BUFFER_LOAD expects. */
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (buffer == NULL || payload == NULL || (payload->bytes == NULL && payload->size != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (payload->bytes != buffer->base_ptr) {
        free(buffer->base_ptr);
    }
    char *bytes = payload->bytes;
    size_t size = bytes == NULL ? 0 : payload->size;
    buffer->base_ptr = bytes;
    buffer->unpack_ptr = bytes;
    buffer->pack_ptr = bytes == NULL ? NULL : bytes + size;
    buffer->bytes_allocated = size;
    buffer->bytes_used = size;
    payload->bytes = NULL;
    payload->size = 0;
    return PMIX_SUCCESS;
}

/* Hands out the unread part as a malloc'd block and leaves the buffer
 * empty; the block is the buffer's own storage when nothing was read. */
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (buffer == NULL || payload == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = sy_buffer_check(buffer);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    size_t unread = sy_buffer_remaining(buffer);
    payload->bytes = NULL;
    payload->size = 0;
    if (unread != 0) {
        if (buffer->unpack_ptr == buffer->base_ptr) {
            payload->bytes = buffer->base_ptr;
            buffer->base_ptr = NULL;
        } else {
            payload->bytes = malloc(unread);
            if (payload->bytes == NULL) {
                return PMIX_ERR_NOMEM;
            }
            memcpy(payload->bytes, buffer->unpack_ptr, unread);
        }
        payload->size = unread;
    }
    sy_buffer_destruct(buffer);
    return PMIX_SUCCESS;
}

/* As PMIx_Data_load, but the buffer gets a copy and the payload is left
 * untouched. */
PMIX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                          const pmix_byte_object_t *payload)
{
    if (buffer == NULL || payload == NULL || (payload->bytes == NULL && payload->size != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    return sy_buffer_set_copy(buffer, payload->bytes, payload->size);
}

/* Appends the unread part of src to dest; src is not modified. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest, pmix_data_buffer_t *src)
{
    if (dest == NULL || src == NULL || sy_buffer_check(src) != PMIX_SUCCESS ||
        sy_buffer_check(dest) != PMIX_SUCCESS) {
        return PMIX_ERR_BAD_PARAM;
    }
    size_t n = sy_buffer_remaining(src);
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (src == dest) {
        /* Appending may move the storage the bytes come from. */
        size_t off = (size_t)(src->unpack_ptr - src->base_ptr);
        pmix_status_t rc = sy_buffer_reserve(dest, n);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        return sy_buffer_append(dest, src->base_ptr + off, n);
    }
    return sy_buffer_append(dest, src->unpack_ptr, n);
}
