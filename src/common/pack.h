/*
 * Switchyard -- typed packing into pmix_data_buffer_t (wire format in
 * buffer.h).  These are the engines behind PMIx_Data_pack/unpack, usable
 * by the rest of the library for its own messages.
 */
#ifndef SY_COMMON_PACK_H
#define SY_COMMON_PACK_H

#include <pmix_common.h>

/* Deepest nesting of containers (value -> data array -> info -> value ...)
 * accepted by pack and unpack. */
#define SY_PACK_MAX_DEPTH 64

/* A NULL string or argv on the wire. */
#define SY_WIRE_NULL UINT64_MAX

/* Data types are below this bound (the table size of pack/unpack). */
#define SY_WIRE_TYPE_LIMIT (PMIX_STOR_ACCESS_TYPE + 1)

/* True if `type` can be packed and unpacked. */
bool sy_wire_type_known(pmix_data_type_t type);

/* Append one record (type, count, n elements of type read from src).
 * On failure the buffer is left exactly as it was. */
pmix_status_t sy_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t type);

/* Read one record of `type` into dst (room for *n elements); *n becomes the
 * number of elements stored.  Errors (nothing stored, nothing leaked,
 * unpack_ptr unchanged): PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER,
 * PMIX_ERR_TYPE_MISMATCH, PMIX_ERR_UNPACK_FAILURE, PMIX_ERR_NOMEM, ...
 * If the record holds more than *n elements, the first *n are stored (the
 * caller owns them), the rest are skipped so the buffer stays readable, and
 * PMIX_ERR_UNPACK_INADEQUATE_SPACE is returned. */
pmix_status_t sy_unpack(pmix_data_buffer_t *b, void *dst, int32_t *n, pmix_data_type_t type);

/* Element-level engines (no record header), used by pack.c/unpack.c for
 * nesting and by callers that frame their own data.  depth starts at 0.
 * sy_unpack_elems zeroes dst first; on failure every element is released
 * and zeroed again, and how far unpack_ptr moved is unspecified. */
pmix_status_t sy_pack_elems(pmix_data_buffer_t *b, const void *src, size_t n, pmix_data_type_t type,
                            unsigned depth);
pmix_status_t sy_unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n, pmix_data_type_t type,
                              unsigned depth);

/* Smallest number of wire bytes one element of `type` can take, 0 if the
 * type cannot be unpacked.  Used to reject counts the remaining bytes
 * cannot possibly hold before anything is allocated. */
size_t sy_wire_min_size(pmix_data_type_t type);

#endif /* SY_COMMON_PACK_H */
