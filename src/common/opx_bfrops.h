/* OpenPMIx's payload encoding ("bfrops v41", non-described buffers, integers
 * squashed with psquash/flex128), as OpenPMIx 4.2.x peers write it on the
 * wire.  The format is a fact to match (docs/wire-protocol.md, "OpenPMIx
 * protocol"); this is our own implementation of it.
 *
 * In short:
 *   - integers are base-128 varints, least significant group first, the
 *     high bit of a byte saying "more follows"; after 8 such bytes a 9th
 *     byte carries the top 8 bits whole.  Signed types are zigzag-folded
 *     first (v < 0: (~v << 1) | 1, else v << 1), on the 64-bit widening.
 *   - u8-sized types are one raw byte; PID carries its width first (the
 *     data type UINT32 as a varint, then the value).
 *   - a string is its length including the NUL as an INT32 varint (0 for
 *     NULL), then the bytes with the NUL;
 *   - a "pack call" (sy_opx_pack) writes the count as an INT32 varint, then
 *     the elements back to back with no type;
 *   - structures are their fields in order, values are a UINT16 varint
 *     type then the payload.
 *
 * Every read goes through sy_buffer_read (bounds-checked); counts are
 * checked against the bytes left before anything is allocated; nesting is
 * limited to SY_PACK_MAX_DEPTH.  Unpacked memory is plain malloc, released
 * with sy_elem_destruct / sy_array_free (datatype.h) like everything else. */
#ifndef SWITCHYARD_COMMON_OPX_BFROPS_H
#define SWITCHYARD_COMMON_OPX_BFROPS_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* The largest varint (9 bytes for 64 bits). */
#define SY_OPX_VARINT_MAX 9

/* The buffer-type byte of an OpenPMIx buffer (PMIX_BFROP_BUFFER_NON_DESC). */
#define SY_OPX_BUFFER_NON_DESC 1

/* ---- integers ---------------------------------------------------------- */

/* Encode v into out; returns the number of bytes (1..9). */
size_t sy_opx_varint_encode(uint64_t v, uint8_t out[SY_OPX_VARINT_MAX]);
/* Read one varint; PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER when b ends in
 * the middle of one. */
pmix_status_t sy_opx_varint_decode(pmix_data_buffer_t *b, uint64_t *v);

/* Unsigned (UINT16/32/64, SIZE, ...) and signed (INT16/32/64, INT, STATUS)
 * integers.  get_* fail with PMIX_ERR_UNPACK_FAILURE when the value does not
 * fit [min, max] (the receiving type's range). */
pmix_status_t sy_opx_put_uint(pmix_data_buffer_t *b, uint64_t v);
pmix_status_t sy_opx_put_int(pmix_data_buffer_t *b, int64_t v);
pmix_status_t sy_opx_get_uint(pmix_data_buffer_t *b, uint64_t max, uint64_t *v);
pmix_status_t sy_opx_get_int(pmix_data_buffer_t *b, int64_t min, int64_t max, int64_t *v);

/* ---- strings ----------------------------------------------------------- */

pmix_status_t sy_opx_put_string(pmix_data_buffer_t *b, const char *s);
/* *s is malloc'd and NUL-terminated (a peer that forgot the NUL gets one),
 * NULL for a zero length. */
pmix_status_t sy_opx_get_string(pmix_data_buffer_t *b, char **s);

/* ---- typed elements ---------------------------------------------------- */

/* n elements of `type`, back to back, no count.  Supported: every scalar,
 * STRING, PROC_NSPACE, REGEX (char*), BYTE_OBJECT and the compressed
 * kinds, DATA_BUFFER, PROC, VALUE, INFO, PDATA, APP, DATA_ARRAY, QUERY,
 * PROC_INFO, ENVAR, COORD, REGATTR, GEOMETRY, DEVICE_DIST, ENDPOINT.
 * Others: PMIX_ERR_NOT_SUPPORTED.  Pack never changes what it reads; on
 * failure b may hold part of the elements (callers discard the buffer). */
pmix_status_t sy_opx_pack_elems(pmix_data_buffer_t *b, const void *src, size_t n,
                                pmix_data_type_t type);
/* dst (room for n) is zeroed first; on failure every element is released
 * and zeroed again. */
pmix_status_t sy_opx_unpack_elems(pmix_data_buffer_t *b, void *dst, size_t n,
                                  pmix_data_type_t type);

/* One "pack call": INT32 count, then the elements. */
pmix_status_t sy_opx_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t type);
/* One "unpack call" into room for *n elements: *n becomes the count read.
 * A count above *n: PMIX_ERR_UNPACK_INADEQUATE_SPACE, nothing stored. */
pmix_status_t sy_opx_unpack(pmix_data_buffer_t *b, void *dst, int32_t *n, pmix_data_type_t type);
/* One unpack call of any count: *out is a calloc'd array of *n elements
 * (NULL when 0), to release with sy_array_free. */
pmix_status_t sy_opx_unpack_alloc(pmix_data_buffer_t *b, pmix_data_type_t type, void **out,
                                  size_t *n);

/* The smallest encoding of one element of `type` (for count checks), 0
 * when the type is not supported. */
size_t sy_opx_min_size(pmix_data_type_t type);

/* ---- OpenPMIx-internal types ------------------------------------------- */

/* A pmix_kval_t (PMIX_KVAL): key, then a value (type + payload). */
pmix_status_t sy_opx_pack_kval(pmix_data_buffer_t *b, const char *key, const pmix_value_t *v);
/* *key malloc'd; v zeroed first and released on failure. */
pmix_status_t sy_opx_unpack_kval(pmix_data_buffer_t *b, char **key, pmix_value_t *v);

/* A nested pmix_buffer_t (PMIX_BUFFER): its type byte, SIZE length, bytes. */
pmix_status_t sy_opx_pack_buffer(pmix_data_buffer_t *b, const void *bytes, size_t n);
/* *bytes malloc'd (NULL when n == 0). */
pmix_status_t sy_opx_unpack_buffer(pmix_data_buffer_t *b, void **bytes, size_t *n);

#endif
