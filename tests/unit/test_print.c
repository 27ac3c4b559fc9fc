/* Unit test: PMIx_Data_print, PMIx_Value_string, PMIx_Info_string.
 * Every data type prints, with its type name and its value in the text;
 * results are malloc'd (free()d here, so ASan checks that too). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

#include "common/datatype.h"
#include "value_samples.h"

static int teardown(void **state)
{
    (void)state;
    sample_topology_release();
    return 0;
}

/* Text expected in the rendering of sample 0 of each type. */
static const char *expected_text(pmix_data_type_t type)
{
    switch (type) {
    case PMIX_BOOL: return "True";
    case PMIX_STRING: return "alpha";
    case PMIX_REGEX: return "pmix[n[1-4]]";
    case PMIX_SIZE: return "1000";
    case PMIX_PID: return "4242";
    case PMIX_INT: return "-7";
    case PMIX_INT8: return "-8";
    case PMIX_INT64: return "-64";
    case PMIX_UINT32: return "32";
    case PMIX_DOUBLE: return "2.25";
    case PMIX_FLOAT: return "1.5";
    case PMIX_TIMEVAL: return "100.000005";
    case PMIX_TIME: return "1700000000";
    case PMIX_STATUS: return PMIx_Error_string(PMIX_ERR_NOT_FOUND);
    case PMIX_VALUE: return "inner-0";
    case PMIX_PROC: return "ns.sample:0";
    case PMIX_APP: return "/bin/true";
    case PMIX_INFO: return "sample.key";
    case PMIX_PDATA: return "published";
    case PMIX_BYTE_OBJECT: return "Size: 6";
    case PMIX_DATA_TYPE: return PMIx_Data_type_string(PMIX_INT);
    case PMIX_SCOPE: return PMIx_Scope_string(1);
    case PMIX_PROC_INFO: return "node01";
    case PMIX_DATA_ARRAY: return "ns.da:1";
    case PMIX_PROC_RANK: return "5";
    case PMIX_QUERY: return "pmix.qry.ns";
    case PMIX_ENVAR: return "PATH";
    case PMIX_COORD: return "1,2,3";
    case PMIX_REGATTR: return "pmix.sample";
    case PMIX_PROC_CPUSET: return "0-1";
    case PMIX_GEOMETRY: return "ib0";
    case PMIX_DEVICE_DIST: return "mlx5_0";
    case PMIX_ENDPOINT: return "hfi1_0";
    case PMIX_TOPO: return "PUs:";
    case PMIX_PROC_NSPACE: return "nspace-0";
    case PMIX_PROC_STATS: return "a.out";
    case PMIX_DISK_STATS: return "sda";
    case PMIX_NET_STATS: return "eth0";
    case PMIX_NODE_STATS: return "eth0";
    case PMIX_DATA_BUFFER: return "Used: 10";
    default: return NULL;
    }
}

static void test_print_every_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < sample_ntypes; i++) {
        pmix_data_type_t type = sample_types[i];
        void *elem = sample_new(type, 0);
        const char *want = expected_text(type);
        char *out = NULL;
        char label[128];

        assert_int_equal(PMIX_SUCCESS,
                         PMIx_Data_print(&out, "PFX> ", (void *)sample_data(elem, type), type));
        assert_non_null(out);
        assert_memory_equal("PFX> ", out, 5);
        snprintf(label, sizeof(label), "Data type: %s", PMIx_Data_type_string(type));
        assert_non_null(strstr(out, label));
        if (want != NULL && strstr(out, want) == NULL) {
            fail_msg("type %s: \"%s\" not in \"%s\"", PMIx_Data_type_string(type), want, out);
        }
        free(out);

        if (sy_value_kind(type) != SY_VALUE_NONE) {
            pmix_value_t v;
            assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(elem, type), type));
            out = PMIx_Value_string(&v);
            assert_non_null(out);
            assert_non_null(strstr(out, label));
            if (want != NULL && strstr(out, want) == NULL) {
                fail_msg("value %s: \"%s\" not in \"%s\"", PMIx_Data_type_string(type), want, out);
            }
            free(out);
            PMIx_Value_destruct(&v);
        }
        sample_free(elem, type);
    }
}

static void test_print_specifics(void **state)
{
    (void)state;
    char *out = NULL;
    pmix_rank_t r = PMIX_RANK_WILDCARD;
    pmix_proc_t p;
    int obj;

    assert_int_equal(PMIX_SUCCESS, PMIx_Data_print(&out, NULL, &r, PMIX_PROC_RANK));
    assert_non_null(strstr(out, "PMIX_RANK_WILDCARD"));
    assert_memory_equal("Data type:", out, 10);
    free(out);

    PMIX_LOAD_PROCID(&p, "job", PMIX_RANK_UNDEF);
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_print(&out, "", &p, PMIX_PROC));
    assert_non_null(strstr(out, "job:PMIX_RANK_UNDEF"));
    free(out);

    /* strings and pointers are passed as themselves */
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_print(&out, "", NULL, PMIX_STRING));
    assert_non_null(strstr(out, "NULL"));
    free(out);
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_print(&out, "", &obj, PMIX_POINTER));
    {
        char addr[32];
        snprintf(addr, sizeof(addr), "%p", (void *)&obj);
        assert_non_null(strstr(out, addr));
    }
    free(out);

    /* nested arrays continue on prefixed lines */
    {
        pmix_info_t *infos;
        pmix_data_array_t da;
        PMIX_INFO_CREATE(infos, 2);
        PMIX_INFO_LOAD(&infos[0], "first", "one", PMIX_STRING);
        PMIX_INFO_LOAD(&infos[1], "second", NULL, PMIX_BOOL);
        da.type = PMIX_INFO;
        da.size = 2;
        da.array = infos;
        assert_int_equal(PMIX_SUCCESS, PMIx_Data_print(&out, "##", &da, PMIX_DATA_ARRAY));
        assert_non_null(strstr(out, "Size: 2"));
        assert_non_null(strstr(out, "\n##  [0] Key: first"));
        assert_non_null(strstr(out, "\n##  [1] Key: second"));
        assert_non_null(strstr(out, "one"));
        free(out);
        PMIX_INFO_FREE(infos, 2);
    }

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Data_print(NULL, "", &r, PMIX_PROC_RANK));
    out = (char *)&obj;
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Data_print(&out, "", NULL, PMIX_INT));
    assert_null(out);
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Data_print(&out, "", &r, 999));
    assert_null(out);
}

static void test_value_and_info_strings(void **state)
{
    (void)state;
    pmix_value_t v;
    pmix_info_t info;
    char *s;
    int n = 42;

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &n, PMIX_INT));
    s = PMIx_Value_string(&v);
    assert_non_null(strstr(s, "42"));
    assert_non_null(strstr(s, PMIx_Data_type_string(PMIX_INT)));
    free(s);

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_STRING));
    s = PMIx_Value_string(&v);
    assert_non_null(strstr(s, "NULL"));
    free(s);
    v.type = PMIX_UNDEF;
    s = PMIx_Value_string(&v);
    assert_non_null(s);
    free(s);
    v.type = 999;
    s = PMIx_Value_string(&v);
    assert_non_null(s);
    free(s);

    PMIX_INFO_LOAD(&info, "pmix.my.key", "my-value", PMIX_STRING);
    PMIX_INFO_REQUIRED(&info);
    s = PMIx_Info_string(&info);
    assert_non_null(strstr(s, "pmix.my.key"));
    assert_non_null(strstr(s, "my-value"));
    assert_non_null(strstr(s, PMIx_Data_type_string(PMIX_STRING)));
    {
        char *dirs = PMIx_Info_directives_string(PMIX_INFO_REQD);
        assert_non_null(strstr(s, dirs));
        free(dirs);
    }
    free(s);
    PMIX_INFO_DESTRUCT(&info);

    s = PMIx_Value_string(NULL);
    assert_non_null(s);
    free(s);
    s = PMIx_Info_string(NULL);
    assert_non_null(s);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print_every_type),
        cmocka_unit_test(test_print_specifics),
        cmocka_unit_test(test_value_and_info_strings),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
