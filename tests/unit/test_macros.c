/* Unit test: the convenience macros of <pmix_common.h> (include/pmix_macros.h).
 *
 * Programs built against OpenPMIx 4.2.2 use these macros with our library
 * and the reverse, so the test pins down what they observably do: every
 * create/free pair round-trips without leaks or double frees (run it under
 * ASan: make check-asan), the CHECK_* comparisons treat wildcards as
 * OpenPMIx does, argv/env arrays are plain NULL-terminated libc arrays, and
 * PMIX_INFO_CREATE marks the end of its array. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

/* A string of n copies of c, malloc'd. */
static char *repeat(char c, size_t n)
{
    char *s = (char *)malloc(n + 1);

    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* ---- static initializers ------------------------------------------------ */

static void test_static_init(void **state)
{
    (void)state;
    pmix_proc_t proc = PMIX_PROC_STATIC_INIT;
    pmix_value_t val = PMIX_VALUE_STATIC_INIT;
    pmix_info_t info = PMIX_INFO_STATIC_INIT;
    pmix_pdata_t pdata = PMIX_LOOKUP_STATIC_INIT;
    pmix_app_t app = PMIX_APP_STATIC_INIT;
    pmix_query_t query = PMIX_QUERY_STATIC_INIT;
    pmix_byte_object_t bo = PMIX_BYTE_OBJECT_STATIC_INIT;
    pmix_data_array_t darray = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_envar_t envar = PMIX_ENVAR_STATIC_INIT;
    pmix_coord_t coord = PMIX_COORD_STATIC_INIT;
    pmix_geometry_t geo = PMIX_GEOMETRY_STATIC_INIT;
    pmix_endpoint_t endpt = PMIX_ENDPOINT_STATIC_INIT;
    pmix_device_distance_t dist = PMIX_DEVICE_DIST_STATIC_INIT;
    pmix_topology_t topo = PMIX_TOPOLOGY_STATIC_INIT;
    pmix_cpuset_t cpuset = PMIX_CPUSET_STATIC_INIT;
    pmix_regattr_t attr = PMIX_REGATTR_STATIC_INIT;
    pmix_proc_info_t pinfo = PMIX_PROC_INFO_STATIC_INIT;
    pmix_fabric_t fabric = PMIX_FABRIC_STATIC_INIT;
    pmix_data_buffer_t buf = PMIX_DATA_BUFFER_STATIC_INIT;
    pmix_proc_stats_t pstats = PMIX_PROC_STATS_STATIC_INIT;
    pmix_disk_stats_t dstats = PMIX_DISK_STATS_STATIC_INIT;
    pmix_net_stats_t nstats = PMIX_NET_STATS_STATIC_INIT;
    pmix_node_stats_t ndstats = PMIX_NODE_STATS_STATIC_INIT;

    assert_string_equal(proc.nspace, "");
    assert_int_equal(proc.rank, PMIX_RANK_UNDEF);
    assert_int_equal(val.type, PMIX_UNDEF);
    assert_null(val.data.ptr);
    assert_string_equal(info.key, "");
    assert_int_equal(info.flags, 0);
    assert_int_equal(info.value.type, PMIX_UNDEF);
    assert_int_equal(pdata.proc.rank, PMIX_RANK_UNDEF);
    assert_int_equal(pdata.value.type, PMIX_UNDEF);
    assert_null(app.cmd);
    assert_null(app.info);
    assert_int_equal(app.maxprocs, 0);
    assert_null(query.keys);
    assert_null(bo.bytes);
    assert_int_equal(darray.type, PMIX_UNDEF);
    assert_null(darray.array);
    assert_null(envar.envar);
    assert_int_equal(envar.separator, '\0');
    assert_int_equal(coord.view, PMIX_COORD_VIEW_UNDEF);
    assert_null(geo.coordinates);
    assert_null(endpt.endpt.bytes);
    assert_int_equal(dist.type, PMIX_DEVTYPE_UNKNOWN);
    assert_int_equal(dist.mindist, 0);
    assert_null(topo.topology);
    assert_null(cpuset.bitmap);
    assert_null(attr.name);
    assert_int_equal(attr.type, PMIX_UNDEF);
    assert_int_equal(pinfo.proc.rank, PMIX_RANK_UNDEF);
    assert_int_equal(pinfo.state, PMIX_PROC_STATE_UNDEF);
    assert_null(fabric.module);
    assert_null(buf.base_ptr);
    assert_int_equal(pstats.proc.rank, PMIX_RANK_UNDEF);
    assert_int_equal(pstats.processor, 0);
    assert_null(dstats.disk);
    assert_null(nstats.net_interface);
    assert_null(ndstats.netstats);
}

/* ---- keys, namespaces, ranks, process ids ------------------------------ */

static void test_keys(void **state)
{
    (void)state;
    pmix_info_t info;
    pmix_key_t key;
    char *longkey = repeat('k', PMIX_MAX_KEYLEN + 40);

    memset(key, 'x', sizeof(key));
    PMIX_LOAD_KEY(key, "pmix.foo");
    assert_string_equal(key, "pmix.foo");
    for (size_t i = strlen("pmix.foo"); i <= PMIX_MAX_KEYLEN; i++) {
        assert_int_equal(key[i], '\0');
    }

    /* at most PMIX_MAX_KEYLEN characters, always terminated */
    PMIX_LOAD_KEY(key, longkey);
    assert_int_equal(strlen(key), PMIX_MAX_KEYLEN);
    assert_int_equal(key[PMIX_MAX_KEYLEN], '\0');

    /* NULL leaves the key zeroed */
    PMIX_LOAD_KEY(key, NULL);
    assert_string_equal(key, "");

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, "pmix.bar");
    assert_true(PMIX_CHECK_KEY(&info, "pmix.bar"));
    assert_false(PMIX_CHECK_KEY(&info, "pmix.ba"));
    assert_false(PMIX_CHECK_KEY(&info, "pmix.barn"));

    /* keys agreeing in their first PMIX_MAX_KEYLEN chars are the same key */
    PMIX_LOAD_KEY(info.key, longkey);
    assert_true(PMIX_CHECK_KEY(&info, longkey));

    assert_true(PMIX_CHECK_RESERVED_KEY("pmix.job.size"));
    assert_true(PMIX_CHECK_RESERVED_KEY("pmix"));
    assert_false(PMIX_CHECK_RESERVED_KEY("opal.puri"));
    assert_false(PMIX_CHECK_RESERVED_KEY("pmi"));
    free(longkey);
}

static void test_nspaces_ranks(void **state)
{
    (void)state;
    pmix_nspace_t ns;
    char *longns = repeat('n', PMIX_MAX_NSLEN + 10);

    PMIX_LOAD_NSPACE(ns, longns);
    assert_int_equal(strlen(ns), PMIX_MAX_NSLEN);
    PMIX_LOAD_NSPACE(ns, "job1");
    assert_string_equal(ns, "job1");
    for (size_t i = 4; i <= PMIX_MAX_NSLEN; i++) {
        assert_int_equal(ns[i], '\0');
    }
    PMIX_LOAD_NSPACE(ns, NULL);
    assert_string_equal(ns, "");
    free(longns);

    assert_true(PMIX_NSPACE_INVALID(ns));
    assert_true(PMIX_NSPACE_INVALID((char *)NULL));
    PMIX_LOAD_NSPACE(ns, "job1");
    assert_false(PMIX_NSPACE_INVALID(ns));

    assert_true(PMIX_CHECK_NSPACE(ns, "job1"));
    assert_false(PMIX_CHECK_NSPACE(ns, "job2"));
    /* an empty (invalid) namespace on either side matches anything */
    assert_true(PMIX_CHECK_NSPACE(ns, ""));
    assert_true(PMIX_CHECK_NSPACE("", ns));
    assert_true(PMIX_CHECK_NSPACE(ns, (char *)NULL));

    assert_true(PMIX_CHECK_RANK(3, 3));
    assert_false(PMIX_CHECK_RANK(3, 4));
    assert_true(PMIX_CHECK_RANK(PMIX_RANK_WILDCARD, 4));
    assert_true(PMIX_CHECK_RANK(3, PMIX_RANK_WILDCARD));
    assert_false(PMIX_CHECK_RANK(PMIX_RANK_UNDEF, 4));

    assert_true(PMIX_RANK_IS_VALID(0));
    assert_true(PMIX_RANK_IS_VALID(PMIX_RANK_VALID - 1));
    assert_false(PMIX_RANK_IS_VALID(PMIX_RANK_VALID));
    assert_false(PMIX_RANK_IS_VALID(PMIX_RANK_WILDCARD));
    assert_false(PMIX_RANK_IS_VALID(PMIX_RANK_INVALID));

    assert_true(PMIX_SYSTEM_EVENT(PMIX_EVENT_NODE_DOWN));
    assert_true(PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_BASE));
    assert_true(PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_OTHER));
    assert_false(PMIX_SYSTEM_EVENT(PMIX_EVENT_NO_ACTION_TAKEN));
    assert_false(PMIX_SYSTEM_EVENT(PMIX_ERR_NOT_FOUND));
}

static void test_procids(void **state)
{
    (void)state;
    pmix_proc_t a, b, *procs = NULL;

    PMIX_LOAD_PROCID(&a, "job1", 2);
    assert_string_equal(a.nspace, "job1");
    assert_int_equal(a.rank, 2);

    PMIX_PROCID_XFER(&b, &a);
    assert_true(PMIX_CHECK_PROCID(&a, &b));
    PMIX_XFER_PROCID(&b, &a);
    assert_true(PMIX_CHECK_PROCID(&a, &b));

    b.rank = 3;
    assert_false(PMIX_CHECK_PROCID(&a, &b));
    b.rank = PMIX_RANK_WILDCARD;
    assert_true(PMIX_CHECK_PROCID(&a, &b));
    PMIX_LOAD_PROCID(&b, "job2", 2);
    assert_false(PMIX_CHECK_PROCID(&a, &b));
    PMIX_LOAD_PROCID(&b, NULL, 2);
    assert_true(PMIX_CHECK_PROCID(&a, &b));

    assert_false(PMIX_PROCID_INVALID(&a));
    a.rank = PMIX_RANK_INVALID;
    assert_true(PMIX_PROCID_INVALID(&a));
    PMIX_LOAD_PROCID(&a, "", 0);
    assert_true(PMIX_PROCID_INVALID(&a));

    PMIX_PROC_LOAD(&a, "job3", 7);
    assert_string_equal(a.nspace, "job3");
    assert_int_equal(a.rank, 7);
    PMIX_PROC_CONSTRUCT(&a);
    assert_string_equal(a.nspace, "");
    assert_int_equal(a.rank, 0);
    PMIX_PROC_DESTRUCT(&a);

    PMIX_PROC_CREATE(procs, 0);
    assert_null(procs);
    PMIX_PROC_CREATE(procs, 4);
    assert_non_null(procs);
    assert_int_equal(procs[3].rank, 0);
    PMIX_PROC_FREE(procs, 4);
    assert_null(procs);
    PMIX_PROC_CREATE(procs, 1);
    PMIX_PROC_RELEASE(procs);
    assert_null(procs);
}

static void test_multicluster(void **state)
{
    (void)state;
    pmix_nspace_t target, cluster, nspace;
    char *big = repeat('c', PMIX_MAX_NSLEN - 3);

    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, "clusterA", "job1");
    assert_string_equal(target, "clusterA:job1");
    memset(cluster, 'x', sizeof(cluster));
    memset(nspace, 'x', sizeof(nspace));
    PMIX_MULTICLUSTER_NSPACE_PARSE(target, cluster, nspace);
    assert_string_equal(cluster, "clusterA");
    assert_string_equal(nspace, "job1");

    /* too long together: left empty */
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, big, "job1");
    assert_string_equal(target, "");
    /* just fits: cluster + ':' + nspace == PMIX_MAX_NSLEN chars */
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, big, "jo");
    assert_int_equal(strlen(target), PMIX_MAX_NSLEN);

    /* no ':' -- everything is the cluster */
    PMIX_MULTICLUSTER_NSPACE_PARSE("plain", cluster, nspace);
    assert_string_equal(cluster, "plain");
    assert_string_equal(nspace, "");
    free(big);
}

/* ---- argv arrays and environments -------------------------------------- */

static void test_argv(void **state)
{
    (void)state;
    char **argv = NULL, **copy = NULL;
    char *joined = NULL;
    pmix_status_t rc;
    int n;

    PMIX_ARGV_COUNT(n, argv);
    assert_int_equal(n, 0);

    PMIX_ARGV_APPEND(rc, argv, "b");
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND(rc, argv, "c");
    PMIX_ARGV_PREPEND(rc, argv, "a");
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "b");
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "d");
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_COUNT(n, argv);
    assert_int_equal(n, 4);
    assert_string_equal(argv[0], "a");
    assert_string_equal(argv[1], "b");
    assert_string_equal(argv[2], "c");
    assert_string_equal(argv[3], "d");
    assert_null(argv[4]);

    PMIX_ARGV_JOIN(joined, argv, ',');
    assert_string_equal(joined, "a,b,c,d");
    free(joined);

    PMIX_ARGV_COPY(copy, argv);
    assert_non_null(copy);
    assert_ptr_not_equal(copy[0], argv[0]);
    assert_string_equal(copy[3], "d");
    assert_null(copy[4]);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_FREE(argv);

    /* empty fields are dropped */
    PMIX_ARGV_SPLIT(argv, ",,x,,yz,", ',');
    PMIX_ARGV_COUNT(n, argv);
    assert_int_equal(n, 2);
    assert_string_equal(argv[0], "x");
    assert_string_equal(argv[1], "yz");
    PMIX_ARGV_FREE(argv);

    PMIX_ARGV_SPLIT(argv, "", ':');
    assert_null(argv);
    PMIX_ARGV_SPLIT(argv, ":::", ':');
    assert_null(argv);
    PMIX_ARGV_SPLIT(argv, "single", ':');
    assert_non_null(argv);
    assert_string_equal(argv[0], "single");
    assert_null(argv[1]);

    PMIX_ARGV_JOIN(joined, argv, ':');
    assert_string_equal(joined, "single");
    free(joined);
    PMIX_ARGV_FREE(argv);

    argv = NULL;
    PMIX_ARGV_JOIN(joined, argv, ':');
    assert_string_equal(joined, "");
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    assert_null(copy);

    /* a copy of an empty array is an empty array, not NULL */
    argv = (char **)calloc(1, sizeof(char *));
    PMIX_ARGV_COPY(copy, argv);
    assert_non_null(copy);
    assert_null(copy[0]);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_FREE(argv);

    /* NULL is accepted by FREE */
    PMIX_ARGV_FREE(NULL);
}

static void test_setenv(void **state)
{
    (void)state;
    char **env = NULL;
    pmix_status_t rc;
    int n;

    PMIX_SETENV(rc, "FOO", "bar", &env);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_SETENV(rc, "FOOBAR", "x", &env);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_COUNT(n, env);
    assert_int_equal(n, 2);
    assert_string_equal(env[0], "FOO=bar");
    assert_string_equal(env[1], "FOOBAR=x");

    /* the macro always overwrites, matching NAME= exactly */
    PMIX_SETENV(rc, "FOO", "baz", &env);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_COUNT(n, env);
    assert_int_equal(n, 2);
    assert_string_equal(env[0], "FOO=baz");
    assert_string_equal(env[1], "FOOBAR=x");

    PMIX_SETENV(rc, "EMPTY", NULL, &env);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_string_equal(env[2], "EMPTY=");
    assert_null(env[3]);
    PMIX_ARGV_FREE(env);

    PMIX_SETENV(rc, "FOO", "bar", NULL);
    assert_int_equal(rc, PMIX_ERR_BAD_PARAM);

    /* the process environment is changed with setenv, not realloc */
    PMIX_SETENV(rc, "SWITCHYARD_TEST_MACROS", "1", &environ);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_non_null(getenv("SWITCHYARD_TEST_MACROS"));
    assert_string_equal(getenv("SWITCHYARD_TEST_MACROS"), "1");
    PMIX_SETENV(rc, "SWITCHYARD_TEST_MACROS", NULL, &environ);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_null(getenv("SWITCHYARD_TEST_MACROS"));
}

/* ---- pmix_value_t ------------------------------------------------------ */

static void test_value(void **state)
{
    (void)state;
    pmix_value_t *vals = NULL, *copy = NULL, val;
    pmix_status_t rc;
    uint32_t u32 = 42;
    char *out = NULL;
    size_t sz = 0;

    PMIX_VALUE_CREATE(vals, 0);
    assert_null(vals);
    PMIX_VALUE_CREATE(vals, 3);
    assert_non_null(vals);
    assert_int_equal(vals[2].type, PMIX_UNDEF);
    assert_int_equal(PMIX_VALUE_LOAD(&vals[0], "hello", PMIX_STRING), PMIX_SUCCESS);
    assert_int_equal(vals[0].type, PMIX_STRING);
    assert_string_equal(vals[0].data.string, "hello");
    (void)PMIX_VALUE_LOAD(&vals[1], &u32, PMIX_UINT32);
    assert_int_equal(vals[1].data.uint32, 42);

    PMIX_VALUE_UNLOAD(rc, &vals[0], (void **)&out, &sz);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_string_equal(out, "hello");
    assert_ptr_not_equal(out, vals[0].data.string);
    free(out);

    /* XFER allocates a NULL destination */
    PMIX_VALUE_XFER(rc, copy, &vals[0]);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_non_null(copy);
    assert_string_equal(copy->data.string, "hello");
    assert_ptr_not_equal(copy->data.string, vals[0].data.string);
    PMIX_VALUE_RELEASE(copy);
    assert_null(copy);

    PMIX_VALUE_CONSTRUCT(&val);
    PMIX_VALUE_XFER_DIRECT(rc, &val, &vals[0]);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_string_equal(val.data.string, "hello");
    PMIX_VALUE_DESTRUCT(&val);

    PMIX_VALUE_FREE(vals, 3);
    assert_null(vals);
}

static void test_value_get_number(void **state)
{
    (void)state;
    pmix_value_t v;
    pmix_status_t rc;
    uint64_t u64 = 0;
    int i = 0;
    float f = 0;

    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT16;
    v.data.uint16 = 513;
    PMIX_VALUE_GET_NUMBER(rc, &v, u64, uint64_t);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_int_equal(u64, 513);

    v.type = PMIX_INT8;
    v.data.int8 = -5;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_int_equal(i, -5);

    v.type = PMIX_DOUBLE;
    v.data.dval = 2.75;
    PMIX_VALUE_GET_NUMBER(rc, &v, f, float);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_true(f > 2.74f && f < 2.76f);
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(i, 2);

    v.type = PMIX_SIZE;
    v.data.size = 77;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(i, 77);
    v.type = PMIX_PROC_RANK;
    v.data.rank = 9;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(i, 9);
    v.type = PMIX_PID;
    v.data.pid = 1234;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(i, 1234);

    /* non-numeric types leave the variable alone */
    i = 99;
    v.type = PMIX_BOOL;
    v.data.flag = true;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(rc, PMIX_ERR_BAD_PARAM);
    assert_int_equal(i, 99);
    v.type = PMIX_STATUS;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(rc, PMIX_ERR_BAD_PARAM);
    v.type = PMIX_STRING;
    v.data.string = NULL;
    PMIX_VALUE_GET_NUMBER(rc, &v, i, int);
    assert_int_equal(rc, PMIX_ERR_BAD_PARAM);
}

/* ---- pmix_info_t ------------------------------------------------------- */

static void test_info_create_free(void **state)
{
    (void)state;
    pmix_info_t *info = NULL;
    bool flag = true;
    char *owned;

    PMIX_INFO_CREATE(info, 0);
    assert_null(info);

    PMIX_INFO_CREATE(info, 1);
    assert_non_null(info);
    assert_true(PMIX_INFO_IS_END(&info[0]));
    PMIX_INFO_FREE(info, 1);
    assert_null(info);

    PMIX_INFO_CREATE(info, 4);
    for (size_t i = 0; i < 3; i++) {
        assert_false(PMIX_INFO_IS_END(&info[i]));
        assert_int_equal(info[i].value.type, PMIX_UNDEF);
        assert_string_equal(info[i].key, "");
    }
    assert_true(PMIX_INFO_IS_END(&info[3]));
    assert_int_equal(info[3].flags, PMIX_INFO_ARRAY_END);

    PMIX_INFO_LOAD(&info[0], "pmix.s", "a string", PMIX_STRING);
    assert_true(PMIX_CHECK_KEY(&info[0], "pmix.s"));
    assert_string_equal(info[0].value.data.string, "a string");
    PMIX_INFO_LOAD(&info[1], "pmix.b", &flag, PMIX_BOOL);
    PMIX_INFO_XFER(&info[2], &info[0]);
    assert_true(PMIX_CHECK_KEY(&info[2], "pmix.s"));
    assert_string_equal(info[2].value.data.string, "a string");
    assert_ptr_not_equal(info[2].value.data.string, info[0].value.data.string);

    /* a persistent info does not own its value: FREE must not release it */
    owned = strdup("kept");
    PMIX_LOAD_KEY(info[3].key, "pmix.p");
    info[3].value.type = PMIX_STRING;
    info[3].value.data.string = owned;
    PMIX_INFO_SET_PERSISTENT(&info[3]);
    assert_true(PMIX_INFO_IS_PERSISTENT(&info[3]));
    PMIX_INFO_FREE(info, 4);
    assert_null(info);
    assert_string_equal(owned, "kept");
    free(owned);
}

static void test_info_construct_destruct(void **state)
{
    (void)state;
    pmix_info_t info;
    char *owned = strdup("mine");

    PMIX_INFO_CONSTRUCT(&info);
    assert_int_equal(info.flags, 0);
    assert_int_equal(info.value.type, PMIX_UNDEF);
    PMIX_INFO_LOAD(&info, "pmix.x", "value", PMIX_STRING);
    PMIX_INFO_DESTRUCT(&info); /* releases the copied string */

    PMIX_INFO_CONSTRUCT(&info);
    info.value.type = PMIX_STRING;
    info.value.data.string = owned;
    PMIX_INFO_SET_PERSISTENT(&info);
    PMIX_INFO_DESTRUCT(&info); /* must leave it alone */
    assert_string_equal(owned, "mine");
    free(owned);
}

static void test_info_flags(void **state)
{
    (void)state;
    pmix_info_t info;

    PMIX_INFO_CONSTRUCT(&info);
    assert_false(PMIX_INFO_IS_REQUIRED(&info));
    assert_true(PMIX_INFO_IS_OPTIONAL(&info));
    PMIX_INFO_REQUIRED(&info);
    assert_true(PMIX_INFO_IS_REQUIRED(&info));
    assert_false(PMIX_INFO_IS_OPTIONAL(&info));
    PMIX_INFO_OPTIONAL(&info);
    assert_false(PMIX_INFO_IS_REQUIRED(&info));

    assert_false(PMIX_INFO_WAS_PROCESSED(&info));
    PMIX_INFO_PROCESSED(&info);
    assert_true(PMIX_INFO_WAS_PROCESSED(&info));
    assert_false(PMIX_INFO_IS_END(&info));
    PMIX_INFO_SET_END(&info);
    assert_true(PMIX_INFO_IS_END(&info));
    assert_false(PMIX_INFO_IS_QUALIFIER(&info));
    PMIX_INFO_SET_QUALIFIER(&info);
    assert_true(PMIX_INFO_IS_QUALIFIER(&info));
    assert_false(PMIX_INFO_IS_PERSISTENT(&info));
    PMIX_INFO_SET_PERSISTENT(&info);
    assert_true(PMIX_INFO_IS_PERSISTENT(&info));

    /* each macro touches its own bit only */
    assert_int_equal(info.flags, PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END |
                                     PMIX_INFO_QUALIFIER | PMIX_INFO_PERSISTENT);
    /* the tests yield the bit itself, as OpenPMIx's do */
    assert_int_equal(PMIX_INFO_IS_END(&info), PMIX_INFO_ARRAY_END);
}

/* How PMIX_INFO_TRUE and PMIX_CHECK_BOOL read a string value:
 * 1 true, 0 false, -1 not a boolean at all. */
static int read_string_bool(const char *s)
{
    pmix_info_t info;
    int result;

    PMIX_INFO_CONSTRUCT(&info);
    info.value.type = PMIX_STRING;
    info.value.data.string = (s == NULL) ? NULL : strdup(s);
    if (PMIX_INFO_TRUE(&info)) {
        assert_true(PMIX_CHECK_TRUE(&info.value));
        assert_true(PMIX_CHECK_BOOL(&info.value));
        result = 1;
    } else {
        assert_false(PMIX_CHECK_TRUE(&info.value));
        result = PMIX_CHECK_BOOL(&info.value) ? 0 : -1;
    }
    free(info.value.data.string);
    return result;
}

static void test_info_true(void **state)
{
    (void)state;
    pmix_info_t info;
    static const char *yes[] = {"true", "TRUE", "True",   "yes",   "YES", "1",
                                "42",   "007",  "  true", "\tyes", "",    "   "};
    static const char *no[] = {"false", "FALSE", "no", "No", "0", "00", " 0"};
    static const char *neither[] = {"maybe", "on", "off", "t", "f", "-1"};

    PMIX_INFO_CONSTRUCT(&info);
    /* a bare flag (no value) means true */
    assert_true(PMIX_INFO_TRUE(&info));
    assert_true(PMIX_CHECK_TRUE(&info.value));
    assert_true(PMIX_CHECK_BOOL(&info.value));

    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    assert_true(PMIX_INFO_TRUE(&info));
    info.value.data.flag = false;
    assert_false(PMIX_INFO_TRUE(&info));
    assert_false(PMIX_CHECK_TRUE(&info.value));
    assert_true(PMIX_CHECK_BOOL(&info.value));

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        assert_int_equal(read_string_bool(yes[i]), 1);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        assert_int_equal(read_string_bool(no[i]), 0);
    }
    for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
        assert_int_equal(read_string_bool(neither[i]), -1);
    }
    /* a string attribute given without a string */
    assert_int_equal(read_string_bool(NULL), 1);

    /* other types are not booleans */
    info.value.type = PMIX_UINT32;
    info.value.data.uint32 = 1;
    assert_false(PMIX_INFO_TRUE(&info));
    assert_false(PMIX_CHECK_BOOL(&info.value));
}

static void test_info_list(void **state)
{
    (void)state;
    void *list = NULL;
    pmix_status_t rc;
    pmix_info_t extra, *arr;
    pmix_data_array_t darray;
    bool flag = true;

    PMIX_INFO_LIST_START(list);
    assert_non_null(list);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.a", "alpha", PMIX_STRING);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.b", &flag, PMIX_BOOL);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_INFO_CONSTRUCT(&extra);
    PMIX_INFO_LOAD(&extra, "pmix.c", "gamma", PMIX_STRING);
    PMIX_INFO_LIST_XFER(rc, list, &extra);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&extra);

    PMIX_DATA_ARRAY_INIT(&darray, PMIX_INFO);
    PMIX_INFO_LIST_CONVERT(rc, list, &darray);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_int_equal(darray.type, PMIX_INFO);
    assert_int_equal(darray.size, 3);
    arr = (pmix_info_t *)darray.array;
    assert_true(PMIX_CHECK_KEY(&arr[0], "pmix.a"));
    assert_string_equal(arr[0].value.data.string, "alpha");
    assert_true(PMIX_CHECK_KEY(&arr[1], "pmix.b"));
    assert_true(PMIX_INFO_TRUE(&arr[1]));
    assert_true(PMIX_CHECK_KEY(&arr[2], "pmix.c"));
    assert_string_equal(arr[2].value.data.string, "gamma");
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
}

/* ---- pmix_pdata_t ------------------------------------------------------ */

static void test_pdata(void **state)
{
    (void)state;
    pmix_pdata_t *pd = NULL, one;
    pmix_proc_t proc;
    int32_t n = -7;

    PMIX_PDATA_CREATE(pd, 0);
    assert_null(pd);
    PMIX_PDATA_CREATE(pd, 2);
    assert_non_null(pd);
    PMIX_LOAD_PROCID(&proc, "job9", 4);
    PMIX_PDATA_LOAD(&pd[0], &proc, "pmix.svc", "tcp://x", PMIX_STRING);
    assert_string_equal(pd[0].proc.nspace, "job9");
    assert_int_equal(pd[0].proc.rank, 4);
    assert_string_equal(pd[0].key, "pmix.svc");
    assert_int_equal(pd[0].value.type, PMIX_STRING);
    assert_string_equal(pd[0].value.data.string, "tcp://x");

    PMIX_PDATA_XFER(&pd[1], &pd[0]);
    assert_true(PMIX_CHECK_PROCID(&pd[1].proc, &proc));
    assert_string_equal(pd[1].key, "pmix.svc");
    assert_string_equal(pd[1].value.data.string, "tcp://x");
    assert_ptr_not_equal(pd[1].value.data.string, pd[0].value.data.string);
    PMIX_PDATA_FREE(pd, 2);
    assert_null(pd);

    PMIX_PDATA_CONSTRUCT(&one);
    assert_int_equal(one.value.type, PMIX_UNDEF);
    PMIX_PDATA_LOAD(&one, &proc, "pmix.n", &n, PMIX_INT32);
    assert_int_equal(one.value.data.int32, -7);
    PMIX_PDATA_DESTRUCT(&one);

    PMIX_PDATA_CREATE(pd, 1);
    PMIX_PDATA_LOAD(pd, &proc, "pmix.svc", "y", PMIX_STRING);
    PMIX_PDATA_RELEASE(pd);
    assert_null(pd);
}

/* ---- pmix_app_t, pmix_query_t ------------------------------------------ */

static void test_app(void **state)
{
    (void)state;
    pmix_app_t *apps = NULL, app;
    pmix_status_t rc;

    PMIX_APP_CREATE(apps, 0);
    assert_null(apps);
    PMIX_APP_CREATE(apps, 2);
    assert_non_null(apps);
    for (int i = 0; i < 2; i++) {
        apps[i].cmd = strdup("/bin/true");
        apps[i].cwd = strdup("/tmp");
        PMIX_ARGV_APPEND(rc, apps[i].argv, "true");
        assert_int_equal(rc, PMIX_SUCCESS);
        PMIX_ARGV_APPEND(rc, apps[i].argv, "--flag");
        PMIX_SETENV(rc, "A", "1", &apps[i].env);
        assert_int_equal(rc, PMIX_SUCCESS);
        apps[i].maxprocs = 2;
        PMIX_APP_INFO_CREATE(&apps[i], 2);
        assert_int_equal(apps[i].ninfo, 2);
        assert_non_null(apps[i].info);
        assert_true(PMIX_INFO_IS_END(&apps[i].info[1]));
        PMIX_INFO_LOAD(&apps[i].info[0], PMIX_WDIR, "/tmp", PMIX_STRING);
    }
    PMIX_APP_FREE(apps, 2);
    assert_null(apps);

    PMIX_APP_CONSTRUCT(&app);
    assert_null(app.argv);
    app.cmd = strdup("x");
    PMIX_APP_INFO_CREATE(&app, 0);
    assert_null(app.info);
    assert_int_equal(app.ninfo, 0);
    PMIX_APP_DESTRUCT(&app);
    assert_null(app.cmd);

    PMIX_APP_CREATE(apps, 1);
    apps->cmd = strdup("y");
    PMIX_APP_RELEASE(apps);
    assert_null(apps);
}

static void test_query(void **state)
{
    (void)state;
    pmix_query_t *q = NULL, one;
    pmix_status_t rc;

    PMIX_QUERY_CREATE(q, 0);
    assert_null(q);
    PMIX_QUERY_CREATE(q, 2);
    assert_non_null(q);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    assert_int_equal(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_SPAWN_SUPPORT);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 2);
    assert_int_equal(q[0].nqual, 2);
    assert_true(PMIX_INFO_IS_END(&q[0].qualifiers[1]));
    PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_NSPACE, "job1", PMIX_STRING);
    PMIX_QUERY_FREE(q, 2);
    assert_null(q);

    PMIX_QUERY_CONSTRUCT(&one);
    PMIX_ARGV_APPEND(rc, one.keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_QUALIFIERS_CREATE(&one, 1);
    PMIX_QUERY_DESTRUCT(&one);
    assert_null(one.keys);
    assert_null(one.qualifiers);
    assert_int_equal(one.nqual, 0);

    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q->keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_RELEASE(q);
    assert_null(q);
}

/* ---- small structs ----------------------------------------------------- */

static void test_envar_byte_object(void **state)
{
    (void)state;
    pmix_envar_t *ev = NULL, one;
    pmix_byte_object_t *bos = NULL, bo;
    char *data = (char *)malloc(8);
    size_t sz = 8;

    PMIX_ENVAR_CREATE(ev, 0);
    assert_null(ev);
    PMIX_ENVAR_CREATE(ev, 2);
    PMIX_ENVAR_LOAD(&ev[0], "PATH", "/opt/bin", ':');
    assert_string_equal(ev[0].envar, "PATH");
    assert_string_equal(ev[0].value, "/opt/bin");
    assert_int_equal(ev[0].separator, ':');
    PMIX_ENVAR_LOAD(&ev[1], "X", NULL, ';');
    assert_null(ev[1].value);
    PMIX_ENVAR_FREE(ev, 2);

    PMIX_ENVAR_CONSTRUCT(&one);
    PMIX_ENVAR_LOAD(&one, "A", "b", ',');
    PMIX_ENVAR_DESTRUCT(&one);
    assert_null(one.envar);
    assert_null(one.value);

    /* LOAD takes the data over and clears the caller's variables */
    memcpy(data, "abcdefg", 8);
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_BYTE_OBJECT_LOAD(&bo, data, sz);
    assert_null(data);
    assert_int_equal(sz, 0);
    assert_int_equal(bo.size, 8);
    assert_string_equal(bo.bytes, "abcdefg");
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    assert_null(bo.bytes);
    assert_int_equal(bo.size, 0);

    PMIX_BYTE_OBJECT_CREATE(bos, 0);
    assert_null(bos);
    PMIX_BYTE_OBJECT_CREATE(bos, 3);
    bos[1].bytes = strdup("xyz");
    bos[1].size = 4;
    PMIX_BYTE_OBJECT_FREE(bos, 3);
    assert_null(bos);
}

static void test_proc_info(void **state)
{
    (void)state;
    pmix_proc_info_t *pi = NULL, one;

    PMIX_PROC_INFO_CREATE(pi, 0);
    assert_null(pi);
    PMIX_PROC_INFO_CREATE(pi, 2);
    pi[0].hostname = strdup("node1");
    pi[1].executable_name = strdup("a.out");
    PMIX_PROC_INFO_FREE(pi, 2);

    PMIX_PROC_INFO_CONSTRUCT(&one);
    one.hostname = strdup("node2");
    PMIX_PROC_INFO_DESTRUCT(&one);
    assert_null(one.hostname);

    PMIX_PROC_INFO_CREATE(pi, 1);
    pi->hostname = strdup("node3");
    PMIX_PROC_INFO_RELEASE(pi);
}

static void test_fabric_types(void **state)
{
    (void)state;
    pmix_coord_t *coords = NULL, c;
    pmix_geometry_t *geo = NULL, g;
    pmix_endpoint_t *ep = NULL, e;
    pmix_device_distance_t *dd = NULL, d;
    pmix_fabric_t fabric;

    PMIX_COORD_CREATE(coords, 0, 3);
    assert_null(coords);
    PMIX_COORD_CREATE(coords, 2, 3);
    assert_non_null(coords);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(coords[i].view, PMIX_COORD_VIEW_UNDEF);
        assert_int_equal(coords[i].dims, 3);
        assert_non_null(coords[i].coord);
        assert_int_equal(coords[i].coord[2], 0);
    }
    PMIX_COORD_FREE(coords, 2);
    assert_null(coords);
    PMIX_COORD_CONSTRUCT(&c);
    assert_null(c.coord);
    c.coord = (uint32_t *)calloc(2, sizeof(uint32_t));
    c.dims = 2;
    c.view = PMIX_COORD_LOGICAL_VIEW;
    PMIX_COORD_DESTRUCT(&c);
    assert_null(c.coord);
    assert_int_equal(c.dims, 0);
    assert_int_equal(c.view, PMIX_COORD_VIEW_UNDEF);

    PMIX_GEOMETRY_CREATE(geo, 0);
    assert_null(geo);
    PMIX_GEOMETRY_CREATE(geo, 2);
    geo[0].uuid = strdup("uuid");
    geo[0].osname = strdup("ib0");
    PMIX_COORD_CREATE(geo[0].coordinates, 2, 4);
    geo[0].ncoords = 2;
    PMIX_GEOMETRY_FREE(geo, 2);
    assert_null(geo);
    PMIX_GEOMETRY_CONSTRUCT(&g);
    g.uuid = strdup("u");
    PMIX_COORD_CREATE(g.coordinates, 1, 1);
    g.ncoords = 1;
    PMIX_GEOMETRY_DESTRUCT(&g);
    assert_null(g.uuid);
    assert_null(g.coordinates);

    PMIX_ENDPOINT_CREATE(ep, 0);
    assert_null(ep);
    PMIX_ENDPOINT_CREATE(ep, 2);
    ep[1].uuid = strdup("u");
    ep[1].osname = strdup("eth0");
    ep[1].endpt.bytes = strdup("addr");
    ep[1].endpt.size = 5;
    PMIX_ENDPOINT_FREE(ep, 2);
    assert_null(ep);
    PMIX_ENDPOINT_CONSTRUCT(&e);
    e.osname = strdup("x");
    PMIX_ENDPOINT_DESTRUCT(&e);
    assert_null(e.osname);

    /* unmeasured distances read as UINT16_MAX */
    PMIX_DEVICE_DIST_CREATE(dd, 0);
    assert_null(dd);
    PMIX_DEVICE_DIST_CREATE(dd, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(dd[i].mindist, UINT16_MAX);
        assert_int_equal(dd[i].maxdist, UINT16_MAX);
        assert_null(dd[i].uuid);
    }
    dd[2].uuid = strdup("gpu0");
    PMIX_DEVICE_DIST_FREE(dd, 3);
    assert_null(dd);
    PMIX_DEVICE_DIST_CONSTRUCT(&d);
    assert_int_equal(d.mindist, UINT16_MAX);
    assert_int_equal(d.type, PMIX_DEVTYPE_UNKNOWN);
    d.osname = strdup("card0");
    PMIX_DEVICE_DIST_DESTRUCT(&d);
    assert_null(d.osname);

    memset(&fabric, 0xff, sizeof(fabric));
    PMIX_FABRIC_CONSTRUCT(&fabric);
    assert_null(fabric.name);
    assert_null(fabric.info);
    assert_int_equal(fabric.ninfo, 0);
}

static void test_topology_cpuset(void **state)
{
    (void)state;
    pmix_topology_t *topos = NULL, t;
    pmix_cpuset_t *sets = NULL, s;

    PMIX_TOPOLOGY_CREATE(topos, 0);
    assert_null(topos);
    PMIX_TOPOLOGY_CREATE(topos, 2);
    assert_non_null(topos);
    assert_null(topos[1].topology);
    free(topos);
    PMIX_TOPOLOGY_CONSTRUCT(&t);
    assert_null(t.source);
    PMIX_TOPOLOGY_DESTRUCT(&t); /* empty: nothing to release */

    PMIX_CPUSET_CREATE(sets, 0);
    assert_null(sets);
    PMIX_CPUSET_CREATE(sets, 2);
    assert_non_null(sets);
    assert_null(sets[1].bitmap);
    PMIX_CPUSET_FREE(sets, 2);
    assert_null(sets);
    PMIX_CPUSET_CONSTRUCT(&s);
    assert_null(s.source);
    PMIX_CPUSET_DESTRUCT(&s);
}

static void test_regattr(void **state)
{
    (void)state;
    pmix_regattr_t *attrs = NULL, a, b;

    PMIX_REGATTR_CREATE(attrs, 0);
    assert_null(attrs);
    PMIX_REGATTR_CREATE(attrs, 2);
    PMIX_REGATTR_LOAD(&attrs[0], "PMIX_JOB_SIZE", PMIX_JOB_SIZE, PMIX_UINT32, "job size");
    /* a second load with a NULL key adds a description line */
    PMIX_REGATTR_LOAD(&attrs[0], NULL, NULL, PMIX_UINT32, "second line");
    assert_string_equal(attrs[0].name, "PMIX_JOB_SIZE");
    assert_string_equal(attrs[0].string, PMIX_JOB_SIZE);
    assert_int_equal(attrs[0].type, PMIX_UINT32);
    assert_string_equal(attrs[0].description[0], "job size");
    assert_string_equal(attrs[0].description[1], "second line");
    assert_null(attrs[0].description[2]);

    PMIX_REGATTR_XFER(&attrs[1], &attrs[0]);
    assert_string_equal(attrs[1].name, "PMIX_JOB_SIZE");
    assert_ptr_not_equal(attrs[1].name, attrs[0].name);
    assert_string_equal(attrs[1].string, PMIX_JOB_SIZE);
    assert_string_equal(attrs[1].description[1], "second line");
    assert_ptr_not_equal(attrs[1].description, attrs[0].description);
    PMIX_REGATTR_FREE(attrs, 2);
    assert_null(attrs);

    PMIX_REGATTR_CONSTRUCT(&a);
    assert_null(a.name);
    assert_int_equal(a.type, PMIX_UNDEF);
    PMIX_REGATTR_LOAD(&a, "n", "pmix.k", PMIX_STRING, NULL);
    assert_null(a.description);
    PMIX_REGATTR_XFER(&b, &a);
    PMIX_REGATTR_DESTRUCT(&a);
    PMIX_REGATTR_DESTRUCT(&b);
    assert_null(a.name);
    assert_null(b.name);
}

static void test_stats(void **state)
{
    (void)state;
    pmix_proc_stats_t *ps = NULL, p;
    pmix_disk_stats_t *ds = NULL, d;
    pmix_net_stats_t *ns = NULL, n;
    pmix_node_stats_t *nd = NULL, node;

    PMIX_PROC_STATS_CREATE(ps, 0);
    assert_null(ps);
    PMIX_PROC_STATS_CREATE(ps, 2);
    ps[0].node = strdup("node1");
    ps[1].cmd = strdup("a.out");
    PMIX_PROC_STATS_FREE(ps, 2);
    assert_null(ps);
    PMIX_PROC_STATS_CREATE(ps, 1);
    ps->cmd = strdup("b.out");
    PMIX_PROC_STATS_RELEASE(ps);
    assert_null(ps);
    PMIX_PROC_STATS_CONSTRUCT(&p);
    p.node = strdup("n");
    PMIX_PROC_STATS_DESTRUCT(&p);
    assert_null(p.node);

    PMIX_DISK_STATS_CREATE(ds, 2);
    ds[1].disk = strdup("sda");
    PMIX_DISK_STATS_FREE(ds, 2);
    assert_null(ds);
    PMIX_DISK_STATS_CREATE(ds, 1);
    PMIX_DISK_STATS_RELEASE(ds);
    assert_null(ds);
    PMIX_DISK_STATS_CONSTRUCT(&d);
    d.disk = strdup("sdb");
    PMIX_DISK_STATS_DESTRUCT(&d);
    assert_null(d.disk);

    PMIX_NET_STATS_CREATE(ns, 2);
    ns[0].net_interface = strdup("eth0");
    PMIX_NET_STATS_FREE(ns, 2);
    assert_null(ns);
    PMIX_NET_STATS_CREATE(ns, 1);
    PMIX_NET_STATS_RELEASE(ns);
    assert_null(ns);
    PMIX_NET_STATS_CONSTRUCT(&n);
    n.net_interface = strdup("lo");
    PMIX_NET_STATS_DESTRUCT(&n);
    assert_null(n.net_interface);

    /* node stats own their disk and net arrays */
    PMIX_NODE_STATS_CREATE(nd, 0);
    assert_null(nd);
    PMIX_NODE_STATS_CREATE(nd, 2);
    nd[0].node = strdup("node1");
    PMIX_DISK_STATS_CREATE(nd[0].diskstats, 2);
    nd[0].ndiskstats = 2;
    nd[0].diskstats[0].disk = strdup("sda");
    PMIX_NET_STATS_CREATE(nd[0].netstats, 1);
    nd[0].nnetstats = 1;
    nd[0].netstats[0].net_interface = strdup("eth0");
    PMIX_NODE_STATS_FREE(nd, 2);
    assert_null(nd);
    PMIX_NODE_STATS_CREATE(nd, 1);
    nd->node = strdup("node2");
    PMIX_NODE_STATS_RELEASE(nd);
    assert_null(nd);
    PMIX_NODE_STATS_CONSTRUCT(&node);
    PMIX_NET_STATS_CREATE(node.netstats, 1);
    node.nnetstats = 1;
    PMIX_NODE_STATS_DESTRUCT(&node);
    assert_null(node.netstats);
}

/* ---- pmix_data_array_t ------------------------------------------------- */

static void test_data_array(void **state)
{
    (void)state;
    pmix_data_array_t *da = NULL, local;
    pmix_info_t *info;
    char **strs;
    uint64_t *u64;
    pmix_proc_t *procs;

    PMIX_DATA_ARRAY_CREATE(da, 3, PMIX_INFO);
    assert_non_null(da);
    assert_int_equal(da->type, PMIX_INFO);
    assert_int_equal(da->size, 3);
    info = (pmix_info_t *)da->array;
    assert_true(PMIX_INFO_IS_END(&info[2]));
    assert_false(PMIX_INFO_IS_END(&info[1]));
    PMIX_INFO_LOAD(&info[0], "pmix.a", "x", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], "pmix.b", "y", PMIX_STRING);
    PMIX_DATA_ARRAY_FREE(da);
    assert_null(da);

    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_STRING);
    strs = (char **)da->array;
    assert_null(strs[0]);
    strs[0] = strdup("s0");
    strs[1] = strdup("s1");
    PMIX_DATA_ARRAY_FREE(da);

    PMIX_DATA_ARRAY_CREATE(da, 4, PMIX_UINT64);
    u64 = (uint64_t *)da->array;
    u64[3] = UINT64_MAX;
    PMIX_DATA_ARRAY_FREE(da);

    PMIX_DATA_ARRAY_CREATE(da, 0, PMIX_PROC);
    assert_non_null(da);
    assert_int_equal(da->type, PMIX_PROC);
    assert_int_equal(da->size, 0);
    assert_null(da->array);
    PMIX_DATA_ARRAY_FREE(da);

    /* a type OpenPMIx's macro does not handle gives an empty array */
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_TOPO);
    assert_non_null(da);
    assert_int_equal(da->type, PMIX_TOPO);
    assert_int_equal(da->size, 0);
    assert_null(da->array);
    free(da); /* OpenPMIx 4.2.2's PMIx_Data_array_destruct crashes on this */
    da = NULL;

    /* NULL is accepted by FREE */
    PMIX_DATA_ARRAY_FREE(da);

    PMIX_DATA_ARRAY_CONSTRUCT(&local, 2, PMIX_PROC);
    assert_int_equal(local.type, PMIX_PROC);
    assert_int_equal(local.size, 2);
    procs = (pmix_proc_t *)local.array;
    PMIX_LOAD_PROCID(&procs[1], "job1", 1);
    PMIX_DATA_ARRAY_DESTRUCT(&local);

    PMIX_DATA_ARRAY_CONSTRUCT(&local, 2, PMIX_BYTE_OBJECT);
    ((pmix_byte_object_t *)local.array)[0].bytes = strdup("b");
    ((pmix_byte_object_t *)local.array)[0].size = 2;
    PMIX_DATA_ARRAY_DESTRUCT(&local);

    PMIX_DATA_ARRAY_INIT(&local, PMIX_BOOL);
    assert_int_equal(local.type, PMIX_BOOL);
    assert_int_equal(local.size, 0);
    assert_null(local.array);
}

/* ---- pmix_data_buffer_t ------------------------------------------------ */

static void test_data_buffer(void **state)
{
    (void)state;
    pmix_data_buffer_t *buf = NULL, local;
    char *blob = (char *)malloc(16), *out = NULL;
    size_t sz = 0;

    PMIX_DATA_BUFFER_CREATE(buf);
    assert_non_null(buf);
    assert_null(buf->base_ptr);
    assert_int_equal(buf->bytes_used, 0);

    memcpy(blob, "0123456789abcde", 16);
    PMIX_DATA_BUFFER_LOAD(buf, blob, 16);
    PMIX_DATA_BUFFER_UNLOAD(buf, out, sz);
    assert_int_equal(sz, 16);
    assert_non_null(out);
    assert_memory_equal(out, "0123456789abcde", 16);
    free(out);
    PMIX_DATA_BUFFER_RELEASE(buf);
    assert_null(buf);

    /* unloading an empty buffer gives nothing */
    PMIX_DATA_BUFFER_CONSTRUCT(&local);
    out = (char *)&local;
    sz = 99;
    PMIX_DATA_BUFFER_UNLOAD(&local, out, sz);
    assert_null(out);
    assert_int_equal(sz, 0);

    local.base_ptr = (char *)malloc(32);
    local.pack_ptr = local.unpack_ptr = local.base_ptr;
    local.bytes_allocated = 32;
    PMIX_DATA_BUFFER_DESTRUCT(&local);
    assert_null(local.base_ptr);
    assert_int_equal(local.bytes_allocated, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_init),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_nspaces_ranks),
        cmocka_unit_test(test_procids),
        cmocka_unit_test(test_multicluster),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_setenv),
        cmocka_unit_test(test_value),
        cmocka_unit_test(test_value_get_number),
        cmocka_unit_test(test_info_create_free),
        cmocka_unit_test(test_info_construct_destruct),
        cmocka_unit_test(test_info_flags),
        cmocka_unit_test(test_info_true),
        cmocka_unit_test(test_info_list),
        cmocka_unit_test(test_pdata),
        cmocka_unit_test(test_app),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_envar_byte_object),
        cmocka_unit_test(test_proc_info),
        cmocka_unit_test(test_fabric_types),
        cmocka_unit_test(test_topology_cpuset),
        cmocka_unit_test(test_regattr),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_data_array),
        cmocka_unit_test(test_data_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
