/*
 * Switchyard -- PMIx_Data_compress / PMIx_Data_decompress (zlib).
 *
 * Compressed block: the 4 magic bytes "SYZ1", the original length as a
 * u64 little-endian, then one zlib stream (RFC 1950, with its Adler-32).
 * The header lets decompress size its output exactly and refuse anything
 * that is not ours before zlib sees it.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <pmix.h>

#define SY_Z_MAGIC "SYZ1"
#define SY_Z_MAGIC_LEN 4
#define SY_Z_HEADER (SY_Z_MAGIC_LEN + 8)
/* deflate never expands data by more than this factor when inflating
 * (zlib's documented worst case is 1032:1), so a claimed length above
 * it proves the block is forged and nothing that large is allocated. */
#define SY_Z_MAX_RATIO 1032u

PMIX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                    size_t *nbytes)
{
    if (inbytes == NULL || size == 0 || outbytes == NULL || nbytes == NULL || size > ULONG_MAX) {
        return false;
    }
    uLong bound = compressBound((uLong)size);
    if (bound > SIZE_MAX - SY_Z_HEADER) {
        return false;
    }
    uint8_t *out = malloc(SY_Z_HEADER + (size_t)bound);
    if (out == NULL) {
        return false;
    }
    uLongf zlen = bound;
    if (Z_OK != compress2(out + SY_Z_HEADER, &zlen, inbytes, (uLong)size, Z_DEFAULT_COMPRESSION) ||
        SY_Z_HEADER + (size_t)zlen >= size) {
        /* The Standard: no compression when it would not make it smaller. */
        free(out);
        return false;
    }
    memcpy(out, SY_Z_MAGIC, SY_Z_MAGIC_LEN);
    for (size_t i = 0; i < 8; i++) {
        out[SY_Z_MAGIC_LEN + i] = (uint8_t)((uint64_t)size >> (8 * i));
    }
    size_t total = SY_Z_HEADER + (size_t)zlen;
    uint8_t *shrunk = realloc(out, total);
    *outbytes = shrunk == NULL ? out : shrunk;
    *nbytes = total;
    return true;
}

/* The output carries one extra NUL after *nbytes so that a compressed
 * string comes back usable as a C string. */
PMIX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                      size_t *nbytes)
{
    if (inbytes == NULL || outbytes == NULL || nbytes == NULL || size <= SY_Z_HEADER ||
        memcmp(inbytes, SY_Z_MAGIC, SY_Z_MAGIC_LEN) != 0 || size > ULONG_MAX) {
        return false;
    }
    uint64_t orig = 0;
    for (size_t i = 0; i < 8; i++) {
        orig |= (uint64_t)inbytes[SY_Z_MAGIC_LEN + i] << (8 * i);
    }
    size_t zsize = size - SY_Z_HEADER;
    if (orig == 0 || orig / SY_Z_MAX_RATIO > zsize || orig >= SIZE_MAX || orig > ULONG_MAX) {
        return false;
    }
    uint8_t *out = malloc((size_t)orig + 1);
    if (out == NULL) {
        return false;
    }
    uLongf outlen = (uLongf)orig;
    uLong inlen = (uLong)zsize;
    /* Exactly one complete stream that fills exactly the announced size. */
    if (Z_OK != uncompress2(out, &outlen, inbytes + SY_Z_HEADER, &inlen) || outlen != orig ||
        inlen != zsize) {
        free(out);
        return false;
    }
    out[orig] = '\0';
    *outbytes = out;
    *nbytes = (size_t)orig;
    return true;
}
