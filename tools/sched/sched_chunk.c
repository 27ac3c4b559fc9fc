/* A cost matrix after its reply, in bounded chunks (sched_daemon.h):
 * raw (LINK_CHUNK) or, when the node asked for it, encoded
 * (LINK_CHUNK_ENC, src/fabric/cm_codec.h).  The scheduler sends with
 * chunk_send_all; the node daemon (and bench/fabric_e2e, which measures
 * this path) reads each frame with chunk_read and places it with
 * chunk_apply. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fabric/cm_codec.h"
#include "sched_daemon.h"

static int send_one(link_t *l, uint8_t kind, uint32_t id, uint64_t off, uint64_t rawlen,
                    const void *bytes, size_t size)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    pmix_byte_object_t bo = {.bytes = (char *)bytes, .size = size};
    pmix_status_t rc = PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &id, 1, PMIX_UINT32);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &off, 1, PMIX_UINT64);
    if (rc == PMIX_SUCCESS && kind == LINK_CHUNK_ENC)
        rc = PMIx_Data_pack(NULL, &b, &rawlen, 1, PMIX_UINT64);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &bo, 1, PMIX_BYTE_OBJECT);
    int sent = rc == PMIX_SUCCESS ? link_send(l, &b) : -1;
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    return sent;
}

int chunk_send_all(link_t *l, uint32_t id, const char *m, size_t msize, bool encode,
                   size_t *payload)
{
    *payload = 0;
    sy_cm_enc_t *enc = encode ? sy_cm_enc_new() : NULL;
    uint8_t *buf = enc != NULL ? malloc(sy_cm_encode_bound(LINK_CHUNK_BYTES / 2)) : NULL;
    if (encode && buf == NULL) {
        sy_cm_enc_free(enc);
        enc = NULL; /* no memory for the encoder: raw chunks do without */
    }
    int rc = 0;
    for (size_t off = 0; rc == 0 && off < msize;) {
        size_t len = msize - off < LINK_CHUNK_BYTES ? msize - off : LINK_CHUNK_BYTES;
        if (enc != NULL) {
            /* the engine's matrix is uint16-aligned and so is every chunk */
            const uint16_t *in = (const uint16_t *)(const void *)(m + off);
            size_t size = sy_cm_encode(enc, in, len / 2, buf);
            rc = send_one(l, LINK_CHUNK_ENC, id, off, len, buf, size);
            *payload += size;
        } else {
            rc = send_one(l, LINK_CHUNK, id, off, 0, m + off, len);
            *payload += len;
        }
        off += len;
    }
    free(buf);
    sy_cm_enc_free(enc);
    return rc;
}

char *chunk_matrix_alloc(size_t msize)
{
    /* 2 MiB aligned and advised, so that the kernel gives it huge pages:
     * filling 4 KiB pages, one fault each, costs more than the transfer.
     * Still malloc's: whoever gets the matrix frees it with free(). */
    const size_t huge = 2u << 20;
    void *p = NULL;
    if (msize < huge)
        return malloc(msize > 0 ? msize : 1);
    if (posix_memalign(&p, huge, msize) != 0)
        return NULL;
    madvise(p, msize & ~(huge - 1), MADV_HUGEPAGE);
    return p;
}

int chunk_read(pmix_data_buffer_t *b, uint8_t kind, chunk_t *c)
{
    int32_t one = 1;
    memset(c, 0, sizeof(*c));
    c->encoded = kind == LINK_CHUNK_ENC;
    if (PMIx_Data_unpack(NULL, b, &c->id, &one, PMIX_UINT32) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &c->off, &one, PMIX_UINT64) != PMIX_SUCCESS ||
        (c->encoded && PMIx_Data_unpack(NULL, b, &c->rawlen, &one, PMIX_UINT64) != PMIX_SUCCESS) ||
        PMIx_Data_unpack(NULL, b, &c->bo, &one, PMIX_BYTE_OBJECT) != PMIX_SUCCESS)
        return -1;
    if (!c->encoded)
        c->rawlen = c->bo.size;
    return 0;
}

int chunk_apply(chunk_t *c, char *matrix, size_t msize, size_t *placed, const char **why)
{
    int rc = 0;
    if (c->off > msize || c->rawlen > msize - c->off) {
        *why = "a chunk outside its matrix";
        rc = -1;
    } else if (c->off != *placed) {
        *why = "a chunk out of order or repeated";
        rc = -1;
    } else if (!c->encoded) {
        memcpy(matrix + c->off, c->bo.bytes, c->bo.size);
    } else if (c->off % 2 != 0 || c->rawlen % 2 != 0 || c->rawlen > LINK_CHUNK_BYTES) {
        *why = "an encoded chunk of a size or at an offset no sender uses";
        rc = -1;
    } else {
        uint16_t *out = (uint16_t *)(void *)(matrix + c->off);
        rc =
            sy_cm_decode((const uint8_t *)c->bo.bytes, c->bo.size, out, (size_t)c->rawlen / 2, why);
    }
    if (rc == 0)
        *placed += (size_t)c->rawlen;
    free(c->bo.bytes);
    c->bo.bytes = NULL;
    c->bo.size = 0;
    return rc;
}
