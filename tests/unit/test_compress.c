/*
 * Unit test: PMIx_Data_compress / PMIx_Data_decompress.
 *
 * Round trips, the Standard's "false when it would not get smaller", and
 * input that did not come from PMIx_Data_compress (random bytes, every
 * truncation, every single-byte corruption, forged lengths): always false,
 * never a crash or a huge allocation.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint8_t next_byte(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)rng;
}

static uint8_t *text(size_t n)
{
    static const char words[] = "pmix.nspace pmix.rank pmix.hostname node[0-127] ";
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)words[(i * 7 + i / 13) % (sizeof(words) - 1)];
    }
    return p;
}

static void test_roundtrip(void **state)
{
    (void)state;
    static const size_t sizes[] = {300, 1000, 100000, 3000000};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint8_t *in = text(sizes[k]);
        uint8_t *z = NULL, *out = NULL;
        size_t nz = 0, nout = 0;
        assert_true(PMIx_Data_compress(in, sizes[k], &z, &nz));
        assert_non_null(z);
        assert_true(nz < sizes[k]);
        assert_true(PMIx_Data_decompress(z, nz, &out, &nout));
        assert_int_equal(sizes[k], nout);
        assert_memory_equal(in, out, nout);
        /* one NUL past the end so a compressed string comes back usable */
        assert_int_equal(0, out[nout]);
        free(in);
        free(z);
        free(out);
    }
}

static void test_string_roundtrip(void **state)
{
    (void)state;
    const char *s = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    uint8_t *z, *out;
    size_t nz, nout;
    assert_true(PMIx_Data_compress((const uint8_t *)s, strlen(s) + 1, &z, &nz));
    assert_true(PMIx_Data_decompress(z, nz, &out, &nout));
    assert_string_equal(s, (char *)out);
    free(z);
    free(out);
}

static void test_incompressible_or_empty(void **state)
{
    (void)state;
    uint8_t rnd[256];
    for (size_t i = 0; i < sizeof(rnd); i++) {
        rnd[i] = next_byte();
    }
    uint8_t *z = (uint8_t *)"untouched";
    size_t nz = 42;
    /* would not be smaller: nothing produced, outputs untouched */
    assert_false(PMIx_Data_compress(rnd, sizeof(rnd), &z, &nz));
    assert_false(PMIx_Data_compress((const uint8_t *)"ab", 2, &z, &nz));
    assert_false(PMIx_Data_compress(rnd, 0, &z, &nz));
    assert_false(PMIx_Data_compress(NULL, 10, &z, &nz));
    assert_false(PMIx_Data_compress(rnd, 10, NULL, &nz));
    assert_false(PMIx_Data_compress(rnd, 10, &z, NULL));
    assert_string_equal("untouched", (char *)z);
    assert_int_equal(42, nz);
}

static void test_garbage_rejected(void **state)
{
    (void)state;
    uint8_t *out = NULL;
    size_t nout = 0;
    assert_false(PMIx_Data_decompress(NULL, 10, &out, &nout));
    assert_false(PMIx_Data_decompress((const uint8_t *)"x", 1, &out, &nout));
    /* random blobs of every length up to 300, with and without our magic */
    uint8_t junk[300];
    for (size_t len = 0; len < sizeof(junk); len++) {
        for (size_t i = 0; i < sizeof(junk); i++) {
            junk[i] = next_byte();
        }
        assert_false(PMIx_Data_decompress(junk, len, &out, &nout));
        if (len >= 4) {
            memcpy(junk, "SYZ1", 4);
            assert_false(PMIx_Data_decompress(junk, len, &out, &nout));
        }
    }
    assert_null(out);
}

static void test_tampered_blocks(void **state)
{
    (void)state;
    size_t n = 5000;
    uint8_t *in = text(n);
    uint8_t *z, *out = NULL;
    size_t nz, nout;
    assert_true(PMIx_Data_compress(in, n, &z, &nz));

    /* every truncation */
    for (size_t len = 0; len < nz; len++) {
        assert_false(PMIx_Data_decompress(z, len, &out, &nout));
    }
    /* trailing bytes */
    uint8_t *longer = malloc(nz + 1);
    memcpy(longer, z, nz);
    longer[nz] = 0;
    assert_false(PMIx_Data_decompress(longer, nz + 1, &out, &nout));
    free(longer);
    /* every single-byte corruption is caught (header, stream or Adler-32) */
    for (size_t i = 0; i < nz; i++) {
        z[i] ^= 0x5a;
        bool ok = PMIx_Data_decompress(z, nz, &out, &nout);
        if (ok) {
            /* only a change that leaves the very same data can pass */
            assert_int_equal(n, nout);
            assert_memory_equal(in, out, n);
            free(out);
            out = NULL;
        }
        z[i] ^= 0x5a;
    }
    /* a forged original length: too large for the stream, or smaller */
    uint8_t save[8];
    memcpy(save, z + 4, 8);
    memset(z + 4, 0xff, 8);
    assert_false(PMIx_Data_decompress(z, nz, &out, &nout));
    z[4] = 1;
    memset(z + 5, 0, 7);
    assert_false(PMIx_Data_decompress(z, nz, &out, &nout));
    memset(z + 4, 0, 8);
    assert_false(PMIx_Data_decompress(z, nz, &out, &nout));
    memcpy(z + 4, save, 8);
    assert_true(PMIx_Data_decompress(z, nz, &out, &nout));
    assert_memory_equal(in, out, n);
    free(out);
    free(z);
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_string_roundtrip),
        cmocka_unit_test(test_incompressible_or_empty),
        cmocka_unit_test(test_garbage_rejected),
        cmocka_unit_test(test_tampered_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
