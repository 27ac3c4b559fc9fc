/* SipHash-2-4, written from the algorithm's description in the paper: two
 * compression rounds per 8-byte word, four finalization rounds. */
#include <string.h>

#include "common/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void store_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct {
    uint64_t v0, v1, v2, v3;
} sip_state_t;

static void rounds(sip_state_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        s->v0 += s->v1;
        s->v1 = rotl(s->v1, 13);
        s->v1 ^= s->v0;
        s->v0 = rotl(s->v0, 32);
        s->v2 += s->v3;
        s->v3 = rotl(s->v3, 16);
        s->v3 ^= s->v2;
        s->v0 += s->v3;
        s->v3 = rotl(s->v3, 21);
        s->v3 ^= s->v0;
        s->v2 += s->v1;
        s->v1 = rotl(s->v1, 17);
        s->v1 ^= s->v2;
        s->v2 = rotl(s->v2, 32);
    }
}

/* Absorb the whole input; wide selects the 128-bit variant's constants. */
static void absorb(sip_state_t *s, const uint8_t key[16], const uint8_t *in, size_t len, int wide)
{
    uint64_t k0 = load_le(key, 8), k1 = load_le(key + 8, 8);
    s->v0 = k0 ^ 0x736f6d6570736575ull;
    s->v1 = k1 ^ 0x646f72616e646f6dull;
    s->v2 = k0 ^ 0x6c7967656e657261ull;
    s->v3 = k1 ^ 0x7465646279746573ull;
    if (wide)
        s->v1 ^= 0xee;
    size_t full = len - len % 8;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t m = load_le(in + i, 8);
        s->v3 ^= m;
        rounds(s, 2);
        s->v0 ^= m;
    }
    uint64_t last = ((uint64_t)len << 56) | load_le(in + full, len % 8);
    s->v3 ^= last;
    rounds(s, 2);
    s->v0 ^= last;
}

void sy_siphash64(const uint8_t key[SY_SIPHASH_KEY_LEN], const void *in, size_t len, uint8_t out[8])
{
    sip_state_t s;
    absorb(&s, key, in, len, 0);
    s.v2 ^= 0xff;
    rounds(&s, 4);
    store_le(out, s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
}

void sy_siphash128(const uint8_t key[SY_SIPHASH_KEY_LEN], const void *in, size_t len,
                   uint8_t out[16])
{
    sip_state_t s;
    absorb(&s, key, in, len, 1);
    s.v2 ^= 0xee;
    rounds(&s, 4);
    store_le(out, s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
    s.v1 ^= 0xdd;
    rounds(&s, 4);
    store_le(out + 8, s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
}

int sy_mac_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < len; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}
