/* Unit test: PMIx_Info_load, PMIx_Info_xfer and the PMIx_Info_list_* API.
 *
 * PMIx_Info_load is what Open MPI's and Slurm's PMIX_INFO_LOAD expand to
 * (NULL data with PMIX_BOOL meaning true); the info-list semantics follow
 * OpenPMIx 4.2.2's observable behaviour (an inserted info stays the
 * caller's).  Run under ASan too: ownership mistakes show as leaks or use
 * after free. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

static void test_load_bool_null_is_true(void **state)
{
    (void)state;
    pmix_info_t *info;

    PMIX_INFO_CREATE(info, 2);
    /* the create macro marks the last element; loading clears the flags */
    PMIX_INFO_REQUIRED(&info[1]);
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_load(&info[1], "pmix.flag", NULL, PMIX_BOOL));
    assert_int_equal(0, info[1].flags);
    assert_string_equal("pmix.flag", info[1].key);
    assert_int_equal(PMIX_BOOL, info[1].value.type);
    assert_true(info[1].value.data.flag);
    assert_true(PMIX_INFO_TRUE(&info[1]));
    {
        bool f = false;
        PMIX_INFO_LOAD(&info[0], "pmix.off", &f, PMIX_BOOL);
        assert_false(info[0].value.data.flag);
        assert_false(PMIX_INFO_TRUE(&info[0]));
    }
    PMIX_INFO_FREE(info, 2);
}

static void test_load_keys(void **state)
{
    (void)state;
    pmix_info_t info;
    char big[700];
    pmix_rank_t r = 3;

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_load(&info, NULL, "x", PMIX_STRING));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_load(NULL, "k", "x", PMIX_STRING));

    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memset(&info, 0x5a, sizeof(info));
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_load(&info, big, &r, PMIX_PROC_RANK));
    assert_int_equal(PMIX_MAX_KEYLEN, strlen(info.key));
    assert_int_equal(0, info.flags);
    assert_int_equal(3, info.value.data.rank);

    big[PMIX_MAX_KEYLEN] = '\0';
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_load(&info, big, "s", PMIX_STRING));
    assert_string_equal(big, info.key);
    assert_string_equal("s", info.value.data.string);
    PMIX_INFO_DESTRUCT(&info);

    /* a NULL string value is legal */
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_load(&info, "pmix.locstr", NULL, PMIX_STRING));
    assert_int_equal(PMIX_STRING, info.value.type);
    assert_null(info.value.data.string);
    PMIX_INFO_DESTRUCT(&info);

    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Info_load(&info, "k", "x", 999));
}

static void test_xfer(void **state)
{
    (void)state;
    pmix_info_t src, dst;
    pmix_proc_t p;

    PMIX_LOAD_PROCID(&p, "ns", 4);
    PMIX_INFO_LOAD(&src, "proc", &p, PMIX_PROC);
    PMIX_INFO_REQUIRED(&src);
    memset(&dst, 0x33, sizeof(dst));
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_xfer(&dst, &src));
    assert_string_equal("proc", dst.key);
    assert_int_equal(PMIX_INFO_REQD, dst.flags);
    assert_int_equal(PMIX_PROC, dst.value.type);
    assert_ptr_not_equal(src.value.data.proc, dst.value.data.proc);
    assert_true(PMIX_CHECK_PROCID(src.value.data.proc, dst.value.data.proc));
    PMIX_INFO_DESTRUCT(&src);
    assert_int_equal(4, dst.value.data.proc->rank); /* independent copy */
    PMIX_INFO_DESTRUCT(&dst);

    /* a persistent info does not own its value: the copy shares it */
    PMIX_INFO_LOAD(&src, "shared", "payload", PMIX_STRING);
    src.flags = PMIX_INFO_PERSISTENT;
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_xfer(&dst, &src));
    assert_ptr_equal(src.value.data.string, dst.value.data.string);
    assert_int_equal(PMIX_INFO_PERSISTENT, dst.flags);
    PMIX_INFO_DESTRUCT(&dst); /* frees nothing */
    PMIx_Value_destruct(&src.value);

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_xfer(NULL, &src));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_xfer(&dst, NULL));
}

static void test_list_add_xfer_convert(void **state)
{
    (void)state;
    void *list = PMIx_Info_list_start();
    pmix_info_t src;
    pmix_data_array_t da;
    pmix_info_t *arr;
    int n = 11;
    char key[32];

    assert_non_null(list);
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_add(list, "str", "value", PMIX_STRING));
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_add(list, "int", &n, PMIX_INT));
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_add(list, "flag", NULL, PMIX_BOOL));
    PMIX_INFO_LOAD(&src, "xfer", "copied", PMIX_STRING);
    PMIX_INFO_REQUIRED(&src);
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_xfer(list, &src));
    PMIX_INFO_DESTRUCT(&src); /* the list has its own copy */
    /* enough entries to make the list grow several times */
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_add(list, key, &i, PMIX_INT));
    }

    memset(&da, 0x44, sizeof(da));
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_convert(list, &da));
    assert_int_equal(PMIX_INFO, da.type);
    assert_int_equal(104, da.size);
    arr = da.array;
    assert_string_equal("str", arr[0].key);
    assert_string_equal("value", arr[0].value.data.string);
    assert_int_equal(11, arr[1].value.data.integer);
    assert_true(arr[2].value.data.flag);
    assert_string_equal("xfer", arr[3].key);
    assert_int_equal(PMIX_INFO_REQD, arr[3].flags);
    assert_string_equal("copied", arr[3].value.data.string);
    assert_string_equal("k99", arr[103].key);
    assert_int_equal(99, arr[103].value.data.integer);

    /* the array is independent of the list */
    PMIx_Info_list_release(list);
    assert_string_equal("value", arr[0].value.data.string);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    assert_null(da.array);
}

/* Insert: the list refers to the caller's value without taking it. */
static void test_list_insert(void **state)
{
    (void)state;
    void *list = PMIx_Info_list_start();
    pmix_info_t mine;
    pmix_data_array_t da;
    pmix_info_t *arr;
    char *payload;

    PMIX_INFO_LOAD(&mine, "inserted", "mine", PMIX_STRING);
    PMIX_INFO_REQUIRED(&mine);
    payload = mine.value.data.string;
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_insert(list, &mine));
    /* the caller's info is not modified */
    assert_int_equal(PMIX_INFO_REQD, mine.flags);
    assert_ptr_equal(payload, mine.value.data.string);

    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_convert(list, &da));
    arr = da.array;
    assert_int_equal(1, da.size);
    assert_string_equal("inserted", arr[0].key);
    assert_ptr_equal(payload, arr[0].value.data.string);
    assert_true(arr[0].flags & PMIX_INFO_REQD);
    assert_true(arr[0].flags & PMIX_INFO_PERSISTENT);

    /* neither releasing the list nor the array frees the caller's value */
    PMIx_Info_list_release(list);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    assert_string_equal("mine", mine.value.data.string);
    PMIX_INFO_DESTRUCT(&mine);
}

static void test_list_edges(void **state)
{
    (void)state;
    void *list = PMIx_Info_list_start();
    pmix_data_array_t da;
    pmix_info_t info;

    memset(&da, 0x44, sizeof(da));
    assert_int_equal(PMIX_ERR_EMPTY, PMIx_Info_list_convert(list, &da));
    assert_int_equal(PMIX_INFO, da.type);
    assert_int_equal(0, da.size);
    assert_null(da.array);

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_add(NULL, "k", "v", PMIX_STRING));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_add(list, NULL, "v", PMIX_STRING));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_insert(list, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_xfer(list, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_convert(NULL, &da));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Info_list_convert(list, NULL));
    /* a failed add leaves nothing behind */
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Info_list_add(list, "k", "v", 999));
    assert_int_equal(PMIX_ERR_EMPTY, PMIx_Info_list_convert(list, &da));

    PMIX_INFO_LOAD(&info, "k", "v", PMIX_STRING);
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_list_xfer(list, &info));
    PMIX_INFO_DESTRUCT(&info);
    PMIx_Info_list_release(list);
    PMIx_Info_list_release(NULL);
}

/* The deprecated macro forms used by existing programs. */
static void test_list_macros(void **state)
{
    (void)state;
    void *list;
    pmix_status_t rc;
    pmix_data_array_t da;
    uint32_t u = 8;

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.u32", &u, PMIX_UINT32);
    assert_int_equal(PMIX_SUCCESS, rc);
    PMIX_INFO_LIST_CONVERT(rc, list, &da);
    assert_int_equal(PMIX_SUCCESS, rc);
    assert_int_equal(8, ((pmix_info_t *)da.array)[0].value.data.uint32);
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_bool_null_is_true),
        cmocka_unit_test(test_load_keys),
        cmocka_unit_test(test_xfer),
        cmocka_unit_test(test_list_add_xfer_convert),
        cmocka_unit_test(test_list_insert),
        cmocka_unit_test(test_list_edges),
        cmocka_unit_test(test_list_macros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
