/*
 * Unit test: the cost-matrix chunk encoding (src/fabric/cm_codec.c).
 *
 * Round trips of real matrices (the engine's fat tree, dragonfly, torus),
 * random and adversarial entries, every length around the block size;
 * the block kind the encoder picks; and input that no encoder wrote
 * (every truncation, every single-byte change, forged counts, random
 * bytes): a clear refusal, never a crash or a write past the output.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/cm_codec.h"
#include "fabric/cost.h"
#include "fabric_fixtures.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Encode, decode into a buffer with a guard after it, compare; the
 * encoded size. */
static size_t roundtrip(const uint16_t *in, size_t count)
{
    sy_cm_enc_t *e = sy_cm_enc_new();
    assert_non_null(e);
    size_t bound = sy_cm_encode_bound(count);
    uint8_t *enc = malloc(bound + 1);
    uint16_t *out = malloc((count + 8) * sizeof(uint16_t));
    assert_non_null(enc);
    assert_non_null(out);
    size_t size = sy_cm_encode(e, in, count, enc);
    assert_true(size <= bound);
    for (size_t i = 0; i < count + 8; i++)
        out[i] = 0xA5A5;
    const char *why = NULL;
    assert_int_equal(0, sy_cm_decode(enc, size, out, count, &why));
    if (count > 0)
        assert_memory_equal(in, out, count * sizeof(uint16_t));
    for (size_t i = count; i < count + 8; i++)
        assert_int_equal(0xA5A5, out[i]);
    free(out);
    free(enc);
    sy_cm_enc_free(e);
    return size;
}

/* The engine's matrix of a generated fabric, encoded in link chunks. */
static void engine_matrix(const char *spec, double max_ratio)
{
    fab_t f = fab_gen(spec);
    sy_cost_t c;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(f.t, &f.ix, NULL, &c));
    size_t count = (size_t)c.n * c.n, size = roundtrip(c.m, count);
    printf("# %s: %u devices, %zu bytes encoded to %zu\n", spec, c.n, count * 2, size);
    assert_true((double)size <= max_ratio * (double)(count * 2));
    sy_cost_free(&c);
    fab_free(&f);
}

static void test_engine_matrices(void **state)
{
    (void)state;
    /* a fat tree's rows are a few long runs */
    engine_matrix("fattree:k=16", 0.02);
    engine_matrix("dragonfly:a=4,p=4,h=2,g=9", 0.3);
    engine_matrix("torus:6x6x6", 0.3);
}

static void test_lengths(void **state)
{
    (void)state;
    static const size_t lens[] = {
        0, 1, 2, 3, 7, 8, 9, SY_CM_BLOCK - 1, SY_CM_BLOCK, SY_CM_BLOCK + 1, 3 * SY_CM_BLOCK + 5};
    uint16_t *v = malloc((3 * SY_CM_BLOCK + 5) * sizeof(uint16_t));
    assert_non_null(v);
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t n = lens[k];
        for (size_t i = 0; i < n; i++)
            v[i] = 7;
        roundtrip(v, n); /* one run */
        for (size_t i = 0; i < n; i++)
            v[i] = (uint16_t)(i % 3 == 0 ? 65535 : 4);
        roundtrip(v, n); /* a palette */
        for (size_t i = 0; i < n; i++)
            v[i] = (uint16_t)next();
        roundtrip(v, n); /* raw */
        for (size_t i = 0; i < n; i++)
            v[i] = (uint16_t)(i / 5 % 2 ? 65534 : 0);
        roundtrip(v, n); /* short runs */
    }
    free(v);
}

/* The first block's kind byte for these entries. */
static uint8_t kind_of(const uint16_t *v, size_t n)
{
    sy_cm_enc_t *e = sy_cm_enc_new();
    uint8_t *enc = malloc(sy_cm_encode_bound(n));
    assert_non_null(enc);
    sy_cm_encode(e, v, n, enc);
    uint8_t k = enc[0];
    free(enc);
    sy_cm_enc_free(e);
    return k;
}

static void test_block_kinds(void **state)
{
    (void)state;
    size_t n = SY_CM_BLOCK;
    uint16_t *v = malloc(n * sizeof(uint16_t));
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(i < 100 ? 2 : i < 3000 ? 4 : 6);
    assert_int_equal(1, kind_of(v, n)); /* runs */
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(next() % 4 * 2);
    assert_int_equal(2, kind_of(v, n)); /* 4 values, no runs: 2-bit palette */
    size_t size = roundtrip(v, n);
    assert_true(size <= 4 + 8 + n / 4);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(next() % 200);
    assert_int_equal(2, kind_of(v, n)); /* 200 values: 8-bit palette */
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(i % 257); /* one value more than a palette holds */
    assert_int_equal(0, kind_of(v, n));
    assert_int_equal(1 + 2 * n, roundtrip(v, n));
    /* the worst case for runs: every entry its own run, two values */
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(i % 2);
    assert_int_equal(2, kind_of(v, n));
    free(v);
}

static int decode(const uint8_t *in, size_t len, size_t count)
{
    uint16_t out[64];
    const char *why = NULL;
    assert_true(count <= 64);
    int rc = sy_cm_decode(in, len, out, count, &why);
    if (rc != 0)
        assert_non_null(why);
    return rc;
}

static void test_malformed(void **state)
{
    (void)state;
    /* runs: nruns 2, (5, len 3), (9, len 1) = 4 entries */
    const uint8_t runs[] = {1, 2, 0, 5, 0, 2, 0, 9, 0, 0, 0};
    assert_int_equal(0, decode(runs, sizeof(runs), 4));
    assert_int_equal(-1, decode(runs, sizeof(runs), 5)); /* runs too short */
    assert_int_equal(-1, decode(runs, sizeof(runs), 3)); /* too long */
    for (size_t cut = 0; cut < sizeof(runs); cut++)
        assert_int_equal(-1, decode(runs, cut, 4));
    uint8_t more[sizeof(runs) + 1];
    memcpy(more, runs, sizeof(runs));
    more[sizeof(runs)] = 0;
    assert_int_equal(-1, decode(more, sizeof(more), 4)); /* trailing byte */
    uint8_t bad[sizeof(runs)];
    memcpy(bad, runs, sizeof(runs));
    bad[1] = 0; /* no runs */
    bad[2] = 0;
    assert_int_equal(-1, decode(bad, sizeof(bad), 4));
    bad[1] = 0xff; /* 65535 runs */
    bad[2] = 0xff;
    assert_int_equal(-1, decode(bad, sizeof(bad), 4));
    memcpy(bad, runs, sizeof(runs));
    bad[5] = 0xff; /* a run of 256 entries */
    assert_int_equal(-1, decode(bad, sizeof(bad), 4));
    bad[0] = 3; /* no such block kind */
    assert_int_equal(-1, decode(bad, sizeof(bad), 4));

    /* palette: 2 bits, 3 values (1, 2, 3), 5 entries 0 1 2 0 1 */
    const uint8_t pal[] = {2, 2, 3, 0, 1, 0, 2, 0, 3, 0, 0x24, 0x01};
    uint16_t out[5];
    const char *why = NULL;
    assert_int_equal(0, sy_cm_decode(pal, sizeof(pal), out, 5, &why));
    const uint16_t want[] = {1, 2, 3, 1, 2};
    assert_memory_equal(want, out, sizeof(want));
    for (size_t cut = 0; cut < sizeof(pal); cut++)
        assert_int_equal(-1, decode(pal, cut, 5));
    uint8_t p2[sizeof(pal)];
    memcpy(p2, pal, sizeof(pal));
    p2[11] = 0x03; /* index 3 of a 3-value palette */
    assert_int_equal(-1, decode(p2, sizeof(p2), 5));
    memcpy(p2, pal, sizeof(pal));
    p2[1] = 3; /* 3-bit indices */
    assert_int_equal(-1, decode(p2, sizeof(p2), 5));
    memcpy(p2, pal, sizeof(pal));
    p2[2] = 5; /* 5 values for 2 bits */
    assert_int_equal(-1, decode(p2, sizeof(p2), 5));
    p2[2] = 0; /* none */
    assert_int_equal(-1, decode(p2, sizeof(p2), 5));

    /* raw: 2 entries; and no input at all for a non-empty matrix */
    const uint8_t raw[] = {0, 1, 0, 2, 0};
    assert_int_equal(0, decode(raw, sizeof(raw), 2));
    assert_int_equal(-1, decode(raw, sizeof(raw) - 1, 2));
    assert_int_equal(-1, decode(raw, 0, 2));
    assert_int_equal(0, decode(raw, 0, 0));
    assert_int_equal(-1, decode(raw, 1, 0)); /* bytes for no entries */
}

/* Every single-byte change and truncation of a real encoding, and random
 * bytes: refused or decoded, never out of bounds (the guard holds). */
static void test_corrupted(void **state)
{
    (void)state;
    size_t n = 2 * SY_CM_BLOCK + 100;
    uint16_t *v = malloc(n * sizeof(uint16_t)), *out = malloc((n + 4) * sizeof(uint16_t));
    uint8_t *enc = malloc(sy_cm_encode_bound(n));
    sy_cm_enc_t *e = sy_cm_enc_new();
    assert_non_null(v);
    assert_non_null(out);
    assert_non_null(enc);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(i < SY_CM_BLOCK ? i / 1000 : i < 2 * SY_CM_BLOCK ? next() % 3 : next());
    size_t size = sy_cm_encode(e, v, n, enc);
    const char *why;
    for (size_t at = 0; at < size; at += 1 + at / 64) {
        uint8_t keep = enc[at];
        for (unsigned x = 1; x < 256; x <<= 1) {
            enc[at] = (uint8_t)(keep ^ x);
            out[n] = out[n + 1] = 0x5A5A;
            (void)sy_cm_decode(enc, size, out, n, &why);
            assert_int_equal(0x5A5A, out[n]);
            assert_int_equal(0x5A5A, out[n + 1]);
        }
        enc[at] = keep;
        assert_int_equal(-1, sy_cm_decode(enc, at, out, n, &why));
    }
    assert_int_equal(0, sy_cm_decode(enc, size, out, n, &why));
    assert_memory_equal(v, out, n * sizeof(uint16_t));
    for (int k = 0; k < 2000; k++) {
        size_t len = next() % 64;
        for (size_t i = 0; i < len; i++)
            enc[i] = (uint8_t)next();
        out[20] = 0x5A5A;
        (void)sy_cm_decode(enc, len, out, 20, &why);
        assert_int_equal(0x5A5A, out[20]);
    }
    sy_cm_enc_free(e);
    free(enc);
    free(out);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_matrices), cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_block_kinds),     cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_corrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
