/* Unit test: the map forms the jobinfo compiler accepts (ours, OpenPMIx's
 * "pmix[...]", "raw:", plain lists, the PMIX_REGEX type, the _RAW keys)
 * and bad descriptions, each refused with its status and a sentence. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_server.h>

#include "common/datatype.h"
#include "test_jobinfo_util.h"

/* Three nodes c01..c03 with ranks 0-1 / 2 / 3-5, however the maps say it. */
static void expect_layout(const ilist_t *l)
{
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;

    assert_int_equal(PMIX_SUCCESS, ji_compile("maps", 3, l, "c03", &b, &s, &err));
    assert_null(err);
    assert_int_equal(s.nodeid, 2);
    assert_int_equal(s.nlocal, 3);
    assert_non_null(s.local_ranks);
    assert_int_equal(s.local_ranks[0], 3);
    assert_int_equal(s.local_ranks[2], 5);
    EXPECT_STR(b, SY_REALM_JOB, 0, PMIX_NODE_LIST, "c01,c02,c03");
    EXPECT_U32(b, SY_REALM_JOB, 0, PMIX_JOB_SIZE, 6);
    EXPECT_STR(b, SY_REALM_NODE, 0, PMIX_LOCAL_PEERS, "0,1");
    EXPECT_STR(b, SY_REALM_NODE, 1, PMIX_LOCAL_PEERS, "2");
    EXPECT_STR(b, SY_REALM_NODE, 2, PMIX_LOCAL_PEERS, "3,4,5");
    EXPECT_STR(b, SY_REALM_PROC, 2, PMIX_HOSTNAME, "c02");
    EXPECT_U16(b, SY_REALM_PROC, 5, PMIX_LOCAL_RANK, 2);
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
}

static void test_map_forms(void **state)
{
    (void)state;
    static const char *const forms[][2] = {
        {"pmix[c[2:1-3]]", "pmix[0-1;2;3-5]"},
        {"raw:c01,c02,c03", "raw:0,1;2;3,4,5"},
        {"c01,c02,c03", "0-1;2;3-5"},
    };
    ilist_t l = {0};
    char *nmap = NULL, *pmap = NULL;

    assert_int_equal(PMIX_SUCCESS, PMIx_generate_regex("c01,c02,c03", &nmap));
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_ppn("0,1;2;3,4,5", &pmap));
    il_str(&l, PMIX_NODE_MAP, nmap);
    il_str(&l, PMIX_PROC_MAP, pmap);
    expect_layout(&l);
    il_free(&l);
    il_regex(&l, PMIX_NODE_MAP, nmap);
    il_regex(&l, PMIX_PROC_MAP, pmap);
    expect_layout(&l);
    il_free(&l);
    free(nmap);
    free(pmap);
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        il_str(&l, PMIX_NODE_MAP, forms[i][0]);
        il_str(&l, PMIX_PROC_MAP, forms[i][1]);
        expect_layout(&l);
        il_free(&l);
    }
    il_str(&l, PMIX_NODE_MAP_RAW, "c01,c02,c03");
    il_str(&l, PMIX_PROC_MAP_RAW, "0,1;2;3,4,5");
    expect_layout(&l);
    il_free(&l);
    /* a NULL map string is no map: the raw one is used */
    il_str(&l, PMIX_NODE_MAP, NULL);
    il_str(&l, PMIX_NODE_MAP_RAW, "c01,c02,c03");
    il_regex(&l, PMIX_PROC_MAP, "0,1;2;3,4,5");
    expect_layout(&l);
    il_free(&l);
}

/* Only a process map: nodes known by position, no names. */
static void test_proc_map_only(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;

    il_str(&l, PMIX_PROC_MAP, "0,2;1,3");
    il_u32(&l, PMIX_NODEID, 1);
    assert_int_equal(PMIX_SUCCESS, ji_compile("pm", 2, &l, "h", &b, &s, NULL));
    assert_int_equal(s.nodeid, 1);
    assert_int_equal(s.local_ranks[0], 1);
    assert_int_equal(s.local_ranks[1], 3);
    EXPECT_U32(b, SY_REALM_JOB, 0, PMIX_NUM_NODES, 2);
    EXPECT_ABSENT(b, SY_REALM_JOB, 0, PMIX_NODE_LIST);
    EXPECT_U16(b, SY_REALM_PROC, 2, PMIX_LOCAL_RANK, 1);
    EXPECT_U32(b, SY_REALM_PROC, 3, PMIX_NODEID, 1);
    EXPECT_ABSENT(b, SY_REALM_PROC, 3, PMIX_HOSTNAME);
    EXPECT_STR(b, SY_REALM_JOB, 0, PMIX_LOCAL_PEERS, "1,3");
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* Compile l, expect status `want` and an error sentence containing
 * `needle`; nothing about the summary may leak. */
static void expect_refused(ilist_t *l, int nlocal, pmix_status_t want, const char *needle)
{
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;

    assert_int_equal(want, ji_compile("bad", nlocal, l, "h1", &b, &s, &err));
    assert_non_null(err);
    if (strstr(err, needle) == NULL) {
        print_error("error \"%s\" does not mention \"%s\"\n", err, needle);
        fail();
    }
    assert_null(s.local_ranks);
    free(err);
    sy_jseg_builder_free(b);
    il_free(l);
}

static void nest(ilist_t *l, int depth)
{
    ilist_t inner = {0};
    il_u32(&inner, PMIX_JOB_SIZE, 1);
    for (int i = 0; i < depth; i++) {
        ilist_t outer = {0};
        il_arr(&outer, PMIX_JOB_INFO_ARRAY, &inner);
        inner = outer;
    }
    *l = inner;
}

static void test_bad_input(void **state)
{
    (void)state;
    ilist_t l = {0}, sub = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    void *p = &l;

    il_str(&l, PMIX_JOB_SIZE, "2");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_JOB_SIZE);
    il_u32(&sub, PMIX_RANK, 0);
    il_str(&sub, PMIX_LOCAL_RANK, "zero");
    il_arr(&l, PMIX_PROC_DATA, &sub);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_LOCAL_RANK);
    il_u32(&l, PMIX_LOCAL_RANK, 70000);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "70000 is too large");
    il_int(&l, PMIX_APPNUM, -1);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "negative");
    il_u32(&l, PMIX_NODE_MAP, 5);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_NODE_MAP);
    il_u32(&l, PMIX_REGISTER_NODATA, 1);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_REGISTER_NODATA);

    /* containers */
    il_str(&l, PMIX_PROC_DATA, "rank 0");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_PROC_DATA);
    {
        pmix_info_t *slot;
        il_u32(&l, PMIX_JOB_SIZE, 1); /* placeholder, turned into a string array */
        slot = &l.info[0];
        pmix_data_array_t *da = calloc(1, sizeof(*da));
        char **strs = calloc(1, sizeof(char *));
        assert_non_null(da);
        assert_non_null(strs);
        strs[0] = strdup("x");
        da->type = PMIX_STRING;
        da->size = 1;
        da->array = strs;
        memset(slot->key, 0, sizeof(slot->key));
        strcpy(slot->key, PMIX_APP_INFO_ARRAY);
        slot->value.type = PMIX_DATA_ARRAY;
        slot->value.data.darray = da;
    }
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "PMIX_STRING");
    il_u32(&sub, PMIX_APPNUM, 1);
    il_arr(&l, PMIX_APP_INFO_ARRAY, &sub);
    void *held = l.info[0].value.data.darray->array;
    l.info[0].value.data.darray->array = NULL;
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_APP_INFO_ARRAY);
    sy_array_free(held, 1, PMIX_INFO);
    nest(&l, 17);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "nested");
    il_str(&sub, PMIX_LOCALITY_STRING, "x");
    il_arr(&l, PMIX_PROC_DATA, &sub);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_RANK);
    il_rank(&sub, PMIX_RANK, PMIX_RANK_WILDCARD);
    il_arr(&l, PMIX_PROC_DATA, &sub);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "special rank");
    il_u32(&sub, PMIX_LOCAL_SIZE, 1);
    il_arr(&l, PMIX_NODE_INFO_ARRAY, &sub);
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_HOSTNAME);

    /* maps */
    il_str(&l, PMIX_NODE_MAP, "a,b");
    il_str(&l, PMIX_PROC_MAP, "0;1;2");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "3 nodes");
    il_str(&l, PMIX_NODE_MAP, "pmix[a[2:1-");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "malformed");
    il_str(&l, PMIX_PROC_MAP, "0,x;1");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, PMIX_PROC_MAP);
    il_str(&l, PMIX_NODE_MAP, "a,b");
    il_str(&l, PMIX_PROC_MAP, "0,1;1,2");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "rank 1");
    il_str(&l, PMIX_NODE_MAP, "a,a");
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "twice");
    il_str(&l, PMIX_NODE_MAP, "blob:component=zlib:size=3:");
    expect_refused(&l, 0, PMIX_ERR_NOT_SUPPORTED, "blob");

    /* values the builder cannot hold, and bad arguments */
    {
        pmix_info_t *slot;
        il_u32(&l, "site.ptr", 0);
        slot = &l.info[0];
        slot->value.type = PMIX_POINTER;
        slot->value.data.ptr = p;
    }
    expect_refused(&l, 0, PMIX_ERR_BAD_PARAM, "site.ptr");
    expect_refused(&l, -1, PMIX_ERR_BAD_PARAM, "nlocalprocs");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("bad", &b));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jobinfo_compile("bad", 0, NULL, 3, "h", b, &s, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jobinfo_compile(NULL, 0, NULL, 0, "h", b, &s, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jobinfo_compile("bad", 0, NULL, 0, "h", b, NULL, NULL));
    sy_jseg_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_forms),
        cmocka_unit_test(test_proc_map_only),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
