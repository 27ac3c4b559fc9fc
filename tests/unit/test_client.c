/* The client role without a server: the singleton (a working namespace of
 * one process), reference counting, calls before Init and after Finalize,
 * Get_nb, and an environment naming a server that is not there. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix.h>

static void clear_env(void)
{
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    unsetenv("PMIX_SERVER_URI41");
    unsetenv("PMIX_SERVER_URI4");
    unsetenv("SWITCHYARD_USOCK");
}

static void expect_u32(const pmix_proc_t *p, const char *key, uint32_t want)
{
    pmix_value_t *v = NULL;
    assert_int_equal(PMIx_Get(p, key, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_UINT32);
    assert_int_equal(v->data.uint32, want);
    PMIX_VALUE_RELEASE(v);
}

static void test_before_init(void **state)
{
    (void)state;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "x", 0);
    pmix_value_t *v = NULL;
    assert_false(PMIx_Initialized());
    assert_int_equal(PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_INIT);
    assert_int_equal(PMIx_Finalize(NULL, 0), PMIX_ERR_INIT);
    assert_int_equal(PMIx_Abort(1, "no", NULL, 0), PMIX_ERR_INIT);
}

static void test_singleton(void **state)
{
    (void)state;
    clear_env();
    pmix_proc_t me;
    assert_int_equal(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    assert_true(PMIx_Initialized());
    assert_int_equal(me.rank, 0);
    assert_non_null(strstr(me.nspace, "singleton"));
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    expect_u32(&wild, PMIX_JOB_SIZE, 1);
    expect_u32(&wild, PMIX_UNIV_SIZE, 1);
    expect_u32(&wild, PMIX_LOCAL_SIZE, 1);
    pmix_value_t *v = NULL;
    assert_int_equal(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_UINT16);
    assert_int_equal(v->data.uint16, 0);
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_STRING);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    assert_string_equal(v->data.string, host);
    PMIX_VALUE_RELEASE(v);
    /* NULL proc means ourselves */
    assert_int_equal(PMIx_Get(NULL, PMIX_RANK, NULL, 0, &v), PMIX_SUCCESS);
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(PMIx_Get(&me, "sy.no.such.key", NULL, 0, &v), PMIX_ERR_NOT_FOUND);
    assert_int_equal(PMIx_Get(&me, PMIX_JOB_SIZE, NULL, 0, NULL), PMIX_ERR_BAD_PARAM);

    /* Store_internal on a foreign namespace, then key NULL */
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, "elsewhere", 3);
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, "tcp://10.0.0.1:7", PMIX_STRING);
    assert_int_equal(PMIx_Store_internal(&other, "opal.puri", &val), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&val);
    assert_int_equal(PMIx_Get(&other, "opal.puri", NULL, 0, &v), PMIX_SUCCESS);
    assert_string_equal(v->data.string, "tcp://10.0.0.1:7");
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(PMIx_Get(&me, NULL, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_DATA_ARRAY);
    assert_int_equal(v->data.darray->type, PMIX_INFO);
    assert_true(v->data.darray->size > 0);
    PMIX_VALUE_RELEASE(v);

    /* no datastore without a server */
    pmix_info_t pub;
    PMIX_INFO_LOAD(&pub, "sy.k", "v", PMIX_STRING);
    assert_int_equal(PMIx_Publish(&pub, 1), PMIX_ERR_NOT_SUPPORTED);
    assert_int_equal(PMIx_Log(&pub, 1, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&pub);

    /* Abort with nobody to tell: an error, and we are still alive */
    assert_int_not_equal(PMIx_Abort(1, "singleton", NULL, 0), PMIX_SUCCESS);

    /* reference counted */
    pmix_proc_t again;
    assert_int_equal(PMIx_Init(&again, NULL, 0), PMIX_SUCCESS);
    assert_true(PMIX_CHECK_PROCID(&again, &me));
    assert_int_equal(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    assert_true(PMIx_Initialized());
    assert_int_equal(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    assert_false(PMIx_Initialized());
    assert_int_equal(PMIx_Get(&me, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_INIT);
    /* and a process can init again */
    assert_int_equal(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    expect_u32(&wild, PMIX_JOB_SIZE, 1);
    assert_int_equal(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
}

static int nb_fired;
static uint32_t nb_value;

static void nb_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void)cbdata;
    if (status == PMIX_SUCCESS && kv->type == PMIX_UINT32)
        nb_value = kv->data.uint32;
    __atomic_add_fetch(&nb_fired, 1, __ATOMIC_SEQ_CST);
}

static void test_get_nb(void **state)
{
    (void)state;
    clear_env();
    pmix_proc_t me;
    assert_int_equal(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    assert_int_equal(PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, nb_done, NULL), PMIX_SUCCESS);
    for (int i = 0; i < 500 && __atomic_load_n(&nb_fired, __ATOMIC_SEQ_CST) == 0; i++)
        usleep(10000);
    usleep(20000);
    assert_int_equal(nb_fired, 1);
    assert_int_equal(nb_value, 1);
    assert_int_equal(PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
    assert_int_equal(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
}

static void test_dead_server(void **state)
{
    (void)state;
    clear_env();
    setenv("PMIX_NAMESPACE", "job", 1);
    setenv("PMIX_RANK", "0", 1);
    setenv("SWITCHYARD_USOCK", "/nonexistent/switchyard.sock", 1);
    setenv("PMIX_SERVER_URI41", "srv.0;tcp4://127.0.0.1:1", 1);
    pmix_proc_t me;
    assert_int_equal(PMIx_Init(&me, NULL, 0), PMIX_ERR_UNREACH);
    assert_false(PMIx_Initialized());
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),
        cmocka_unit_test(test_singleton),
        cmocka_unit_test(test_get_nb),
        cmocka_unit_test(test_dead_server),
    };
    return cmocka_run_group_tests_name("client role", tests, NULL, NULL);
}
