/*
 * Switchyard -- growable pmix_data_buffer_t and the wire format of
 * PMIx_Data_pack / PMIx_Data_unpack.
 *
 * The buffer is the public struct itself:
 *   base_ptr        malloc'd storage (NULL for an empty buffer);
 *   bytes_allocated size of that storage;
 *   bytes_used      bytes of packed data, from base_ptr;
 *   pack_ptr        base_ptr + bytes_used (where the next pack writes);
 *   unpack_ptr      next byte to unpack, base_ptr <= unpack_ptr <= pack_ptr.
 * PMIX_DATA_BUFFER_DESTRUCT frees base_ptr, so base_ptr is always the start
 * of a malloc'd block and never moves inside it.
 *
 * WIRE FORMAT (one format for every peer; the target/source proc arguments
 * of PMIx_Data_pack/unpack are accepted and ignored)
 *
 * Byte order: every multi-byte integer is fixed-width LITTLE-ENDIAN, written
 * byte by byte, so the format does not depend on the host.
 *
 * Each PMIx_Data_pack call appends one record:
 *     u16 type   the pmix_data_type_t given to pack
 *     u32 count  num_vals (0 .. INT32_MAX)
 *     count elements of `type`, encoded as below, back to back.
 * Unpack reads one record per call.  A different type is
 * PMIX_ERR_TYPE_MISMATCH (the Standard's meaning of that code).  A count
 * that the remaining bytes cannot hold (count * smallest encoding of the
 * type) is PMIX_ERR_UNPACK_FAILURE, before anything is allocated.  More
 * elements than the caller has room for: the first ones are delivered, the
 * rest of the record is skipped, PMIX_ERR_UNPACK_INADEQUATE_SPACE.  Any
 * other failure leaves unpack_ptr where it was and delivers nothing.
 *
 * Scalars:
 *   BOOL                                  u8, 0 or 1 (anything else is malformed)
 *   BYTE INT8 UINT8 PERSIST SCOPE DATA_RANGE PROC_STATE ALLOC_DIRECTIVE
 *   JOB_STATE LINK_STATE                  u8
 *   INT16 UINT16 DATA_TYPE IOF_CHANNEL LOCTYPE STOR_ACCESS_TYPE    u16
 *   INT32 UINT32 PROC_RANK INFO_DIRECTIVES                          u32
 *   INT64 UINT64 DEVTYPE STOR_MEDIUM STOR_ACCESS STOR_PERSIST SIZE  u64
 *   INT PID STATUS TIME                   i64 (two's complement)
 *   UINT                                  u64
 *       Widened types are range-checked on unpack: a value the host type
 *       cannot hold is PMIX_ERR_UNPACK_FAILURE.
 *   FLOAT                                 u32 IEEE-754 binary32 bits
 *   DOUBLE                                u64 IEEE-754 binary64 bits
 *   TIMEVAL                               i64 tv_sec, i64 tv_usec
 *   POINTER                               u8 0 (an address means nothing
 *                                         to a peer; unpacks as NULL)
 * Strings and bytes:
 *   string  u64 length, then that many bytes (no NUL).  A NULL char* is
 *           the length 0xFFFFFFFFFFFFFFFF with no bytes, so NULL and ""
 *           stay distinct.  Unpack allocates length+1 and NUL-terminates.
 *   STRING REGEX (elements are char*)      string
 *   PROC_NSPACE                           string of at most PMIX_MAX_NSLEN
 *   key (inside INFO/PDATA/REGATTR)       string of at most PMIX_MAX_KEYLEN
 *   argv (NULL-terminated char**)         u64 n (0xFF..FF = NULL array),
 *                                         then n strings, none NULL
 *   byte object (BYTE_OBJECT COMPRESSED_STRING COMPRESSED_BYTE_OBJECT)
 *                                         u64 size, size bytes (size 0
 *                                         unpacks as bytes == NULL)
 *   DATA_BUFFER                           u64 read offset (unpack_ptr -
 *                                         base_ptr), then a byte object of
 *                                         its bytes_used bytes
 * Structures (fields in declaration order, each with the encoding above;
 * "n X" is a u64 count then that many X, NULL array when 0):
 *   PROC        nspace, u32 rank
 *   VALUE       u16 type, then the payload.  How a value holds a type comes
 *               from sy_value_kind (datatype.h): inline types are encoded
 *               as the element; boxed ones (PROC, PROC_INFO, DATA_ARRAY,
 *               PROC_NSPACE, COORD, REGATTR, TOPO, PROC_CPUSET, GEOMETRY,
 *               DEVICE_DIST, ENDPOINT, DATA_BUFFER and the stats) as u8
 *               presence (0 = NULL box) then the element; REGEX, which a
 *               value keeps as a byte object, as a byte object.  UNDEF has
 *               no payload; types a value cannot hold (VALUE, INFO, PDATA,
 *               APP, QUERY) are refused.
 *   INFO        key, u32 flags, VALUE.  PMIX_INFO_PERSISTENT is dropped on
 *               unpack: the unpacked info owns its value.
 *   PDATA       PROC, key, VALUE
 *   DATA_ARRAY  u16 element type, n elements of that type
 *   APP         cmd, argv, env, cwd, i64 maxprocs, n INFO
 *   QUERY       keys (argv), n INFO
 *   REGATTR     name, key, u16 type, description (argv)
 *   PROC_INFO   PROC, hostname, executable_name, i64 pid, i64 exit_code,
 *               u8 state
 *   ENVAR       envar, value, u8 separator
 *   COORD       u8 view, u64 dims, dims x u32
 *   GEOMETRY    u64 fabric, uuid, osname, n COORD
 *   DEVICE_DIST uuid, osname, u64 type, u16 mindist, u16 maxdist
 *   ENDPOINT    uuid, osname, byte object
 *   PROC_CPUSET source, bitmap as a string: hwloc_bitmap_list_asprintf text
 *               ("0-3,8", "5-" for infinite), NULL when there is no bitmap.
 *               Only hwloc ("hwloc*" source) bitmaps; indexes above
 *               SY_TOPO_MAX_INDEX are refused on unpack.
 *   TOPO        source, then a byte object holding the hwloc XML
 *               (hwloc_topology_export_xmlbuffer, v2, its NUL included),
 *               empty when there is no topology.  Unpack screens the XML
 *               (topo_xml.c), then imports it with hwloc keeping every
 *               object type and the support flags.
 *   PROC_STATS  node, PROC, i64 pid, cmd, u8 state, TIMEVAL time,
 *               FLOAT percent_cpu, INT32 priority, UINT16 num_threads,
 *               FLOAT pss vsize rss peak_vsize, UINT16 processor,
 *               TIMEVAL sample_time
 *   DISK_STATS  disk, 11 x u64 (declaration order)
 *   NET_STATS   net_interface, 6 x u64
 *   NODE_STATS  node, 11 x FLOAT (la .. mapped), TIMEVAL sample_time,
 *               n DISK_STATS, n NET_STATS
 * Not packable (PMIX_ERR_UNKNOWN_DATA_TYPE): UNDEF, COMMAND and KVAL (no
 * public layout), the removed BUFFER (26), 29, 44 and unknown types.
 *
 * Nesting (values in data arrays in infos ...) is limited to
 * SY_PACK_MAX_DEPTH element levels on both sides so that hostile input
 * cannot exhaust the stack.
 */
#ifndef SY_COMMON_BUFFER_H
#define SY_COMMON_BUFFER_H

#include <pmix_common.h>

/* Bytes that can still be unpacked (0 for an empty or invalid buffer). */
size_t sy_buffer_remaining(const pmix_data_buffer_t *b);

/* PMIX_SUCCESS if the fields of b are consistent (an all-zero buffer is),
 * PMIX_ERR_BAD_PARAM otherwise.  Every entry point checks this first so a
 * buffer mangled by the caller is reported, not followed. */
pmix_status_t sy_buffer_check(const pmix_data_buffer_t *b);

/* Make room for n more bytes after pack_ptr, growing base_ptr. */
pmix_status_t sy_buffer_reserve(pmix_data_buffer_t *b, size_t n);

/* Append n bytes at pack_ptr. */
pmix_status_t sy_buffer_append(pmix_data_buffer_t *b, const void *src, size_t n);

/* Copy the next n unread bytes to dst and advance unpack_ptr; if fewer than
 * n remain, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER and nothing moves.
 * dst may be NULL to skip.  Every unpacker reads through this. */
pmix_status_t sy_buffer_read(pmix_data_buffer_t *b, void *dst, size_t n);

/* Release the storage and zero the struct (PMIX_DATA_BUFFER_DESTRUCT). */
void sy_buffer_destruct(pmix_data_buffer_t *b);

/* Replace b's content with n bytes copied from src, unpack_ptr at start. */
pmix_status_t sy_buffer_set_copy(pmix_data_buffer_t *b, const void *src, size_t n);

#endif /* SY_COMMON_BUFFER_H */
