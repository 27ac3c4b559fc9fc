/*
 * libFuzzer target: the cost-matrix chunk decoder (src/fabric/cm_codec.c)
 * on arbitrary bytes, as a node daemon receives them in LINK_CHUNK_ENC
 * frames.  Must never crash, read past the input or write past the
 * entries it was given, and must refuse with a reason.  Input: two bytes
 * of entry count (little-endian, at most 2 blocks and a bit), then the
 * encoded bytes.  What decodes is encoded again and must decode to the
 * same entries (the encoder's round trip on whatever the decoder
 * accepted).  Seeds: tests/fuzz/corpus/fuzz_cm_decode/.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/cm_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t count = (size_t)(data[0] | (data[1] << 8)) % (2 * SY_CM_BLOCK + 100);
    /* exactly count entries: ASan sees any write past them */
    uint16_t *out = malloc((count > 0 ? count : 1) * sizeof(uint16_t));
    if (out == NULL)
        return 0;
    const char *why = NULL;
    if (sy_cm_decode(data + 2, size - 2, out, count, &why) != 0) {
        if (why == NULL)
            abort();
        free(out);
        return 0;
    }
    sy_cm_enc_t *e = sy_cm_enc_new();
    uint8_t *enc = malloc(sy_cm_encode_bound(count) + 1);
    uint16_t *back = malloc((count > 0 ? count : 1) * sizeof(uint16_t));
    if (e != NULL && enc != NULL && back != NULL) {
        size_t n = sy_cm_encode(e, out, count, enc);
        if (n > sy_cm_encode_bound(count) || sy_cm_decode(enc, n, back, count, &why) != 0 ||
            memcmp(out, back, count * sizeof(uint16_t)) != 0)
            abort();
    }
    free(back);
    free(enc);
    sy_cm_enc_free(e);
    free(out);
    return 0;
}
