/* Unit test: SipHash-2-4 (src/common/siphash.c) against the reference
 * implementation's published test vectors (key 00..0f, message 00..len-1),
 * and the constant-time MAC comparison. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/siphash.h"

static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void message(uint8_t *m, size_t len)
{
    for (size_t i = 0; i < len; i++)
        m[i] = (uint8_t)i;
}

static void test_sip64_vectors(void **state)
{
    (void)state;
    static const uint8_t want[3][8] = {
        {0x31, 0x0e, 0x0e, 0xdd, 0x47, 0xdb, 0x6f, 0x72},
        {0xfd, 0x67, 0xdc, 0x93, 0xc5, 0x39, 0xf8, 0x74},
        {0x5a, 0x4f, 0xa9, 0xd9, 0x09, 0x80, 0x6c, 0x0d},
    };
    uint8_t m[8], out[8];
    for (size_t len = 0; len < 3; len++) {
        message(m, len);
        sy_siphash64(key, m, len, out);
        assert_memory_equal(out, want[len], 8);
    }
}

static void test_sip128_vectors(void **state)
{
    (void)state;
    static const struct {
        size_t len;
        uint8_t out[16];
    } want[] = {
        {0,
         {0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02,
          0x93}},
        {1,
         {0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76, 0x59, 0x11, 0x9b, 0x22, 0xfc,
          0x45}},
        {2,
         {0x81, 0x77, 0x22, 0x8d, 0xa4, 0xa4, 0x5d, 0xc7, 0xfc, 0xa3, 0x8b, 0xde, 0xf6, 0x0a, 0xff,
          0xe4}},
        {8,
         {0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83, 0xe2, 0x64, 0xf3, 0x14, 0x97,
          0xb4}},
        {15,
         {0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08, 0xec, 0x0f, 0x97, 0xcf, 0xc3,
          0xd9}},
        {63,
         {0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e, 0x06, 0x9a, 0x97, 0x3f, 0xbd,
          0x7c}},
    };
    uint8_t m[64], out[16];
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        message(m, want[i].len);
        sy_siphash128(key, m, want[i].len, out);
        assert_memory_equal(out, want[i].out, 16);
    }
}

/* Every bit of the key and of the message changes the MAC. */
static void test_sip128_sensitivity(void **state)
{
    (void)state;
    uint8_t m[40], k[16], ref[16], out[16];
    message(m, sizeof(m));
    memcpy(k, key, sizeof(k));
    sy_siphash128(k, m, sizeof(m), ref);
    for (size_t bit = 0; bit < sizeof(m) * 8; bit++) {
        m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        sy_siphash128(k, m, sizeof(m), out);
        assert_false(sy_mac_equal(out, ref, 16));
        m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    for (size_t bit = 0; bit < sizeof(k) * 8; bit++) {
        k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        sy_siphash128(k, m, sizeof(m), out);
        assert_false(sy_mac_equal(out, ref, 16));
        k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    sy_siphash128(k, m, sizeof(m), out);
    assert_true(sy_mac_equal(out, ref, 16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sip64_vectors),
        cmocka_unit_test(test_sip128_vectors),
        cmocka_unit_test(test_sip128_sensitivity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
