/*
 * Unit test: OpenPMIx's v41 payload encoding (common/opx_bfrops.h).
 *
 * The expected bytes were worked out by hand from the format (varints
 * with zigzag for signed types, strings with their NUL and an INT32
 * length, counts before pack calls); the OpenPMIx client itself checks
 * the same encoding end to end in tests/external/interop.sh.  Hostile
 * input: every truncation of a rich buffer, forged counts and lengths,
 * nesting beyond the limit.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_bfrops.h"
#include "common/pack.h"

static void expect_bytes(const pmix_data_buffer_t *b, const uint8_t *want, size_t n)
{
    assert_int_equal(b->bytes_used, n);
    assert_memory_equal(b->base_ptr, want, n);
}

static void load(pmix_data_buffer_t *b, const uint8_t *bytes, size_t n)
{
    memset(b, 0, sizeof(*b));
    assert_int_equal(sy_buffer_set_copy(b, bytes, n), PMIX_SUCCESS);
}

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static void test_varints(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        uint8_t bytes[9];
        size_t n;
    } cases[] = {
        {0, {0x00}, 1},
        {127, {0x7f}, 1},
        {128, {0x80, 0x01}, 2},
        {300, {0xac, 0x02}, 2},
        {UINT32_MAX, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
        {UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 9},
        {UINT64_C(1) << 56, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 9},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t out[SY_OPX_VARINT_MAX];
        size_t n = sy_opx_varint_encode(cases[i].v, out);
        assert_int_equal(n, cases[i].n);
        assert_memory_equal(out, cases[i].bytes, n);
        pmix_data_buffer_t b;
        load(&b, cases[i].bytes, cases[i].n);
        uint64_t v = 1;
        assert_int_equal(sy_opx_varint_decode(&b, &v), PMIX_SUCCESS);
        assert_true(v == cases[i].v);
        assert_int_equal(sy_buffer_remaining(&b), 0);
        sy_buffer_destruct(&b);
    }
}

static void test_signed(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    int32_t vals[] = {0, -1, 1, -2, INT32_MIN};
    assert_int_equal(sy_opx_pack_elems(&b, vals, 5, PMIX_INT32), PMIX_SUCCESS);
    /* zigzag on the 64-bit widening: INT32_MIN folds to 0xffffffff */
    expect_bytes(&b, BYTES(0x00, 0x01, 0x02, 0x03, 0xff, 0xff, 0xff, 0xff, 0x0f));
    int32_t back[5];
    assert_int_equal(sy_opx_unpack_elems(&b, back, 5, PMIX_INT32), PMIX_SUCCESS);
    assert_memory_equal(back, vals, sizeof(vals));
    sy_buffer_destruct(&b);

    /* a value outside the receiving type's range is refused */
    load(&b, BYTES(0x80, 0x80, 0x04)); /* 65536 */
    uint16_t u16;
    assert_int_equal(sy_opx_unpack_elems(&b, &u16, 1, PMIX_UINT16), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
}

static void test_scalars(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    bool t = true;
    pid_t pid = 1234;
    size_t sz = 300;
    pmix_status_t st = PMIX_ERR_NOT_FOUND; /* -46 -> 91 */
    uint8_t u8 = 0xab;
    double d = 1.5;
    assert_int_equal(sy_opx_pack_elems(&b, &t, 1, PMIX_BOOL), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &pid, 1, PMIX_PID), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &sz, 1, PMIX_SIZE), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &st, 1, PMIX_STATUS), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &u8, 1, PMIX_UINT8), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &d, 1, PMIX_DOUBLE), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x01,             /* bool */
                           0x0e, 0xd2, 0x09, /* pid: UINT32, 1234 */
                           0xac, 0x02,       /* size 300 */
                           0x5b,             /* status -46 */
                           0xab,             /* uint8 raw */
                           0x12, '1', '.', '5', '0', '0', '0', '0', '0', 0x00));
    bool t2;
    pid_t pid2;
    size_t sz2;
    pmix_status_t st2;
    uint8_t u82;
    double d2;
    assert_int_equal(sy_opx_unpack_elems(&b, &t2, 1, PMIX_BOOL), PMIX_SUCCESS);
    assert_int_equal(sy_opx_unpack_elems(&b, &pid2, 1, PMIX_PID), PMIX_SUCCESS);
    assert_int_equal(sy_opx_unpack_elems(&b, &sz2, 1, PMIX_SIZE), PMIX_SUCCESS);
    assert_int_equal(sy_opx_unpack_elems(&b, &st2, 1, PMIX_STATUS), PMIX_SUCCESS);
    assert_int_equal(sy_opx_unpack_elems(&b, &u82, 1, PMIX_UINT8), PMIX_SUCCESS);
    assert_int_equal(sy_opx_unpack_elems(&b, &d2, 1, PMIX_DOUBLE), PMIX_SUCCESS);
    assert_true(t2);
    assert_int_equal(pid2, 1234);
    assert_int_equal(sz2, 300);
    assert_int_equal(st2, PMIX_ERR_NOT_FOUND);
    assert_int_equal(u82, 0xab);
    assert_true(d2 == 1.5);
    sy_buffer_destruct(&b);
}

static void test_strings_and_calls(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    char *strs[] = {"ab", NULL};
    assert_int_equal(sy_opx_pack(&b, strs, 2, PMIX_STRING), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x04, 0x06, 'a', 'b', 0x00, 0x00));
    char *back[2];
    int32_t n = 1;
    assert_int_equal(sy_opx_unpack(&b, back, &n, PMIX_STRING), PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    b.unpack_ptr = b.base_ptr;
    n = 2;
    assert_int_equal(sy_opx_unpack(&b, back, &n, PMIX_STRING), PMIX_SUCCESS);
    assert_int_equal(n, 2);
    assert_string_equal(back[0], "ab");
    assert_null(back[1]);
    free(back[0]);
    sy_buffer_destruct(&b);

    /* a string without its NUL still comes back terminated */
    load(&b, BYTES(0x04, 'x', 'y'));
    char *s;
    assert_int_equal(sy_opx_get_string(&b, &s), PMIX_SUCCESS);
    assert_string_equal(s, "xy");
    free(s);
    sy_buffer_destruct(&b);
    /* a length past the end */
    load(&b, BYTES(0x20, 'x', 'y'));
    assert_int_not_equal(sy_opx_get_string(&b, &s), PMIX_SUCCESS);
    assert_null(s);
    sy_buffer_destruct(&b);
    /* a negative length */
    load(&b, BYTES(0x01));
    assert_int_not_equal(sy_opx_get_string(&b, &s), PMIX_SUCCESS);
    sy_buffer_destruct(&b);
}

static void test_structures(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    pmix_proc_t p = {.nspace = "ns", .rank = PMIX_RANK_WILDCARD};
    assert_int_equal(sy_opx_pack_elems(&b, &p, 1, PMIX_PROC), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x06, 'n', 's', 0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f));
    sy_buffer_destruct(&b);

    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    strcpy(info.key, "k");
    info.flags = PMIX_INFO_REQD;
    info.value.type = PMIX_INT32;
    info.value.data.int32 = -1;
    assert_int_equal(sy_opx_pack_elems(&b, &info, 1, PMIX_INFO), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x04, 'k', 0x00, 0x01, 0x09, 0x01));
    pmix_info_t back;
    assert_int_equal(sy_opx_unpack_elems(&b, &back, 1, PMIX_INFO), PMIX_SUCCESS);
    assert_string_equal(back.key, "k");
    assert_int_equal(back.flags, PMIX_INFO_REQD);
    assert_int_equal(back.value.type, PMIX_INT32);
    assert_int_equal(back.value.data.int32, -1);
    sy_buffer_destruct(&b);

    /* a value holding a proc, a byte object, a data array of uint8 */
    pmix_value_t v = {.type = PMIX_PROC, .data.proc = &p};
    assert_int_equal(sy_opx_pack_elems(&b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x16, 0x06, 'n', 's', 0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f));
    sy_buffer_destruct(&b);
    uint8_t raw[] = {1, 2, 3};
    pmix_byte_object_t bo = {.bytes = (char *)raw, .size = 3};
    assert_int_equal(sy_opx_pack_elems(&b, &bo, 1, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x03, 1, 2, 3));
    sy_buffer_destruct(&b);
    uint8_t two[] = {7, 8};
    pmix_data_array_t da = {.type = PMIX_UINT8, .size = 2, .array = two};
    assert_int_equal(sy_opx_pack_elems(&b, &da, 1, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x0c, 0x02, 7, 8));
    pmix_data_array_t dback;
    assert_int_equal(sy_opx_unpack_elems(&b, &dback, 1, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    assert_int_equal(dback.size, 2);
    assert_memory_equal(dback.array, two, 2);
    sy_elem_destruct(&dback, PMIX_DATA_ARRAY);
    sy_buffer_destruct(&b);

    /* kval and nested buffer (OpenPMIx-internal) */
    pmix_value_t u = {.type = PMIX_UINT32, .data.uint32 = 5};
    assert_int_equal(sy_opx_pack_kval(&b, "k", &u), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_buffer(&b, "\xaa\xbb\xcc", 3), PMIX_SUCCESS);
    expect_bytes(&b, BYTES(0x04, 'k', 0x00, 0x0e, 0x05, 0x01, 0x03, 0xaa, 0xbb, 0xcc));
    char *key;
    pmix_value_t uback;
    void *bytes;
    size_t nbytes;
    assert_int_equal(sy_opx_unpack_kval(&b, &key, &uback), PMIX_SUCCESS);
    assert_string_equal(key, "k");
    assert_int_equal(uback.data.uint32, 5);
    free(key);
    assert_int_equal(sy_opx_unpack_buffer(&b, &bytes, &nbytes), PMIX_SUCCESS);
    assert_int_equal(nbytes, 3);
    assert_memory_equal(bytes, "\xaa\xbb\xcc", 3);
    free(bytes);
    sy_buffer_destruct(&b);
}

static void test_regex(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    char *r = "raw:a,b";
    char *plain = "nodes";
    assert_int_equal(sy_opx_pack_elems(&b, &r, 1, PMIX_REGEX), PMIX_SUCCESS);
    assert_int_equal(sy_opx_pack_elems(&b, &plain, 1, PMIX_REGEX), PMIX_SUCCESS);
    expect_bytes(&b, BYTES('r', 'a', 'w', ':', 'a', ',', 'b', 0x00, 0x02, 0x0c, 'n', 'o', 'd', 'e',
                           's', 0x00));
    char *back[2];
    assert_int_equal(sy_opx_unpack_elems(&b, back, 2, PMIX_REGEX), PMIX_SUCCESS);
    assert_string_equal(back[0], "raw:a,b");
    assert_string_equal(back[1], "nodes");
    free(back[0]);
    free(back[1]);
    sy_buffer_destruct(&b);
}

/* A rich buffer: every prefix of it must fail cleanly (no crash, no leak
 * under ASan), the whole must round-trip to the same bytes. */
static void rich(pmix_data_buffer_t *b)
{
    pmix_info_t infos[3];
    memset(infos, 0, sizeof(infos));
    PMIx_Info_load(&infos[0], "a", "str", PMIX_STRING);
    pmix_proc_t p = {.nspace = "job", .rank = 3};
    PMIx_Info_load(&infos[1], "b", &p, PMIX_PROC);
    pmix_info_t inner[1];
    memset(inner, 0, sizeof(inner));
    uint64_t big = UINT64_MAX;
    PMIx_Info_load(&inner[0], "c", &big, PMIX_UINT64);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = inner};
    PMIx_Info_load(&infos[2], "d", &da, PMIX_DATA_ARRAY);
    assert_int_equal(sy_opx_pack(b, infos, 3, PMIX_INFO), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&infos[0]);
    PMIX_INFO_DESTRUCT(&infos[1]);
    PMIX_INFO_DESTRUCT(&infos[2]);
    PMIX_INFO_DESTRUCT(&inner[0]);
}

static void test_roundtrip_and_truncation(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    rich(&b);
    size_t total = b.bytes_used;
    for (size_t cut = 0; cut <= total; cut++) {
        pmix_data_buffer_t t;
        load(&t, (const uint8_t *)b.base_ptr, cut);
        void *arr;
        size_t n;
        pmix_status_t rc = sy_opx_unpack_alloc(&t, PMIX_INFO, &arr, &n);
        if (cut < total) {
            assert_int_not_equal(rc, PMIX_SUCCESS);
            assert_null(arr);
        } else {
            assert_int_equal(rc, PMIX_SUCCESS);
            assert_int_equal(n, 3);
            pmix_info_t *in = arr;
            assert_string_equal(in[0].value.data.string, "str");
            assert_int_equal(in[1].value.data.proc->rank, 3);
            pmix_info_t *nested = in[2].value.data.darray->array;
            assert_true(nested[0].value.data.uint64 == UINT64_MAX);
            pmix_data_buffer_t again = {0};
            assert_int_equal(sy_opx_pack(&again, arr, (int32_t)n, PMIX_INFO), PMIX_SUCCESS);
            expect_bytes(&again, (const uint8_t *)b.base_ptr, total);
            sy_buffer_destruct(&again);
            sy_array_free(arr, n, PMIX_INFO);
        }
        sy_buffer_destruct(&t);
    }
    sy_buffer_destruct(&b);
}

static void test_hostile(void **state)
{
    (void)state;
    pmix_data_buffer_t b;
    void *arr;
    size_t n;
    /* a count of two billion infos in four bytes */
    load(&b, BYTES(0xfe, 0xff, 0xff, 0xff, 0x0f));
    assert_int_equal(sy_opx_unpack_alloc(&b, PMIX_INFO, &arr, &n), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
    /* a data array claiming 2^60 elements */
    load(&b, BYTES(0x27, 0x0c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10));
    pmix_value_t v;
    assert_int_not_equal(sy_opx_unpack_elems(&b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    assert_int_equal(v.type, PMIX_UNDEF);
    sy_buffer_destruct(&b);
    /* values nested in data arrays of values beyond the depth limit */
    size_t depth = SY_PACK_MAX_DEPTH + 4, len = depth * 3 + 1;
    uint8_t *deep = malloc(len);
    assert_non_null(deep);
    for (size_t i = 0; i < depth; i++) {
        deep[3 * i] = PMIX_DATA_ARRAY; /* value type */
        deep[3 * i + 1] = PMIX_VALUE;  /* array of one value */
        deep[3 * i + 2] = 1;
    }
    deep[len - 1] = 0;
    load(&b, deep, len);
    free(deep);
    assert_int_equal(sy_opx_unpack_elems(&b, &v, 1, PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
    /* an unknown value type */
    load(&b, BYTES(0xe7, 0x07, 0x00));
    assert_int_not_equal(sy_opx_unpack_elems(&b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    sy_buffer_destruct(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_signed),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_strings_and_calls),
        cmocka_unit_test(test_structures),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_roundtrip_and_truncation),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
