/* The cost-matrix chunk encoding (cm_codec.h): runs, a palette of
 * bit-packed indices, or raw entries, per block. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/cm_codec.h"

enum { SY_CM_RAW = 0, SY_CM_RUNS = 1, SY_CM_PALETTE = 2 };

#define SY_CM_MAX_PAL 256u

struct sy_cm_enc {
    /* value -> its palette index + 1 (0: not in the palette); only the
     * current palette's entries are ever non-zero between blocks */
    uint16_t slot[65536];
    uint16_t pal[SY_CM_MAX_PAL];
};

sy_cm_enc_t *sy_cm_enc_new(void)
{
    return calloc(1, sizeof(sy_cm_enc_t));
}

void sy_cm_enc_free(sy_cm_enc_t *e)
{
    free(e);
}

size_t sy_cm_encode_bound(size_t count)
{
    return 2 * count + (count + SY_CM_BLOCK - 1) / SY_CM_BLOCK;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint64_t load64(const uint16_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof(w));
    return w;
}

/* The end of the run of v that starts at j: whole words compared first,
 * because a fat tree's runs are thousands of entries long. */
static size_t run_end(const uint16_t *in, size_t j, size_t count, uint16_t v)
{
    uint64_t pat = 0x0001000100010001ull * v;
    while (j + 16 <= count && ((load64(in + j) ^ pat) | (load64(in + j + 4) ^ pat) |
                               (load64(in + j + 8) ^ pat) | (load64(in + j + 12) ^ pat)) == 0)
        j += 16;
    while (j + 4 <= count && load64(in + j) == pat)
        j += 4;
    while (j < count && in[j] == v)
        j++;
    return j;
}

/* The block as runs into out, if that takes at most max bytes: its size,
 * else 0. */
static size_t encode_runs(const uint16_t *in, size_t count, uint8_t *out, size_t max)
{
    size_t size = 3, nruns = 0;
    for (size_t i = 0; i < count;) {
        size_t j = run_end(in, i + 1, count, in[i]);
        if (size + 4 > max)
            return 0;
        put16(out + size, in[i]);
        put16(out + size + 2, (uint16_t)(j - i - 1));
        size += 4;
        nruns++;
        i = j;
    }
    out[0] = SY_CM_RUNS;
    put16(out + 1, (uint16_t)nruns);
    return size;
}

static void palette_clear(sy_cm_enc_t *e, size_t npal)
{
    for (size_t k = 0; k < npal; k++)
        e->slot[e->pal[k]] = 0;
}

/* The block's distinct values into e->pal (and e->slot): their number,
 * or 0 when there are more than a palette holds. */
static size_t palette_scan(sy_cm_enc_t *e, const uint16_t *in, size_t count)
{
    size_t npal = 0;
    for (size_t i = 0; i < count; i++) {
        uint16_t v = in[i];
        if (e->slot[v] != 0)
            continue;
        if (npal == SY_CM_MAX_PAL) {
            palette_clear(e, npal);
            return 0;
        }
        e->pal[npal++] = v;
        e->slot[v] = (uint16_t)npal;
    }
    return npal;
}

static unsigned palette_bits(size_t npal)
{
    return npal <= 2 ? 1 : npal <= 4 ? 2 : npal <= 16 ? 4 : 8;
}

static size_t palette_size(size_t count, size_t npal)
{
    return 4 + 2 * npal + (count * palette_bits(npal) + 7) / 8;
}

static size_t encode_palette(sy_cm_enc_t *e, const uint16_t *in, size_t count, size_t npal,
                             uint8_t *out)
{
    unsigned bits = palette_bits(npal), per = 8 / bits;
    out[0] = SY_CM_PALETTE;
    out[1] = (uint8_t)bits;
    put16(out + 2, (uint16_t)npal);
    uint8_t *o = out + 4;
    for (size_t k = 0; k < npal; k++, o += 2)
        put16(o, e->pal[k]);
    for (size_t i = 0; i < count;) {
        unsigned byte = 0;
        for (unsigned k = 0; k < per && i < count; k++, i++)
            byte |= (unsigned)(e->slot[in[i]] - 1) << (k * bits);
        *o++ = (uint8_t)byte;
    }
    return (size_t)(o - out);
}

static size_t encode_raw(const uint16_t *in, size_t count, uint8_t *out)
{
    out[0] = SY_CM_RAW;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out + 1, in, 2 * count);
#else
    for (size_t i = 0; i < count; i++)
        put16(out + 1 + 2 * i, in[i]);
#endif
    return 1 + 2 * count;
}

static size_t encode_block(sy_cm_enc_t *e, const uint16_t *in, size_t count, uint8_t *out)
{
    size_t raw = 1 + 2 * count;
    /* runs are kept without looking further when they beat any palette
     * but a 1-bit one; else they must beat what the palette gives */
    size_t runs = encode_runs(in, count, out, count / 4 > 3 ? count / 4 : 3);
    if (runs > 0)
        return runs;
    size_t npal = palette_scan(e, in, count);
    size_t size = raw;
    if (npal > 0) {
        size_t pal = palette_size(count, npal);
        size_t max = pal < raw ? pal : raw;
        runs = encode_runs(in, count, out, max - 1);
        if (runs > 0)
            size = runs;
        else if (pal < raw)
            size = encode_palette(e, in, count, npal, out);
        else
            size = encode_raw(in, count, out);
        palette_clear(e, npal);
        return size;
    }
    return encode_raw(in, count, out);
}

size_t sy_cm_encode(sy_cm_enc_t *e, const uint16_t *in, size_t count, uint8_t *out)
{
    size_t size = 0;
    for (size_t at = 0; at < count; at += SY_CM_BLOCK) {
        size_t n = count - at < SY_CM_BLOCK ? count - at : SY_CM_BLOCK;
        size += encode_block(e, in + at, n, out + size);
    }
    return size;
}

/* ---- decoding: every size the input declares is checked ---- */

static int fail(const char **why, const char *what)
{
    *why = what;
    return -1;
}

/* A run into the matrix: 8 entries per step (an entry-at-a-time loop,
 * which the compiler leaves scalar at -O2, made decoding 6x slower than
 * memset); memcpy keeps the stores within the aliasing rules. */
static void fill(uint16_t *out, size_t n, uint16_t v)
{
    uint64_t pat = 0x0001000100010001ull * v;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(out + i, &pat, 8);
        memcpy(out + i + 4, &pat, 8);
    }
    for (; i < n; i++)
        out[i] = v;
}

static int decode_runs(const uint8_t *in, size_t len, size_t *pos, uint16_t *out, size_t count,
                       const char **why)
{
    if (len - *pos < 2)
        return fail(why, "truncated run count");
    size_t nruns = get16(in + *pos);
    *pos += 2;
    if (nruns == 0 || nruns > count)
        return fail(why, "run count out of range");
    if ((len - *pos) / 4 < nruns)
        return fail(why, "truncated runs");
    const uint8_t *r = in + *pos;
    size_t left = count;
    for (size_t k = 0; k < nruns; k++, r += 4) {
        uint16_t v = get16(r);
        size_t n = (size_t)get16(r + 2) + 1;
        if (n > left)
            return fail(why, "runs longer than their block");
        fill(out, n, v);
        out += n;
        left -= n;
    }
    if (left != 0)
        return fail(why, "runs shorter than their block");
    *pos += 4 * nruns;
    return 0;
}

static int decode_palette(const uint8_t *in, size_t len, size_t *pos, uint16_t *out, size_t count,
                          const char **why)
{
    if (len - *pos < 3)
        return fail(why, "truncated palette header");
    unsigned bits = in[*pos];
    size_t npal = get16(in + *pos + 1);
    *pos += 3;
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8)
        return fail(why, "palette index width not 1, 2, 4 or 8 bits");
    if (npal == 0 || npal > ((size_t)1 << bits))
        return fail(why, "palette size out of range");
    size_t nidx = (count * bits + 7) / 8;
    if ((len - *pos) / 2 < npal || len - *pos - 2 * npal < nidx)
        return fail(why, "truncated palette block");
    uint16_t pal[SY_CM_MAX_PAL];
    for (size_t k = 0; k < npal; k++)
        pal[k] = get16(in + *pos + 2 * k);
    const uint8_t *idx = in + *pos + 2 * npal;
    unsigned per = 8 / bits, mask = (1u << bits) - 1;
    for (size_t i = 0, b = 0; i < count; b++) {
        unsigned byte = idx[b];
        for (unsigned k = 0; k < per && i < count; k++, i++) {
            unsigned x = (byte >> (k * bits)) & mask;
            if (x >= npal)
                return fail(why, "palette index out of range");
            out[i] = pal[x];
        }
    }
    *pos += 2 * npal + nidx;
    return 0;
}

static int decode_raw(const uint8_t *in, size_t len, size_t *pos, uint16_t *out, size_t count,
                      const char **why)
{
    if ((len - *pos) / 2 < count)
        return fail(why, "truncated raw block");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, in + *pos, 2 * count);
#else
    for (size_t i = 0; i < count; i++)
        out[i] = get16(in + *pos + 2 * i);
#endif
    *pos += 2 * count;
    return 0;
}

int sy_cm_decode(const uint8_t *in, size_t len, uint16_t *out, size_t count, const char **why)
{
    size_t pos = 0;
    for (size_t at = 0; at < count; at += SY_CM_BLOCK) {
        size_t n = count - at < SY_CM_BLOCK ? count - at : SY_CM_BLOCK;
        if (pos >= len)
            return fail(why, "truncated: a block is missing");
        uint8_t mode = in[pos++];
        int rc = mode == SY_CM_RAW       ? decode_raw(in, len, &pos, out + at, n, why)
                 : mode == SY_CM_RUNS    ? decode_runs(in, len, &pos, out + at, n, why)
                 : mode == SY_CM_PALETTE ? decode_palette(in, len, &pos, out + at, n, why)
                                         : fail(why, "unknown block kind");
        if (rc != 0)
            return rc;
    }
    if (pos != len)
        return fail(why, "trailing bytes after the last block");
    return 0;
}
