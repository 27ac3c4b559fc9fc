/* Unit test: the process-wide store (store.h): the retrieval rules of the
 * standard over attached segments (realms, fallbacks, qualifiers and
 * directives), internal values, key NULL, the resolver hook, superseded
 * segments and concurrent readers. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix.h>

#include "common/jseg.h"
#include "common/store.h"

#define NS "test.ns1"

static char dir[64];

static void seg_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void put_u32(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                    uint32_t u)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, realm, id, key, &v));
}

static void put_str(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                    const char *s)
{
    pmix_value_t v = {.type = PMIX_STRING, .data.string = (char *)s};
    assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, realm, id, key, &v));
}

/* A job of 4 ranks in session 7: apps 0 (ranks 0,1) and 1 (ranks 2,3),
 * nodes 0 "n0" (ranks 0,2) and 1 "n1" (ranks 1,3); this node is node 0.
 * Keys with a "test." prefix say which realm answered. */
static void publish_job(const char *path, const char *nspace, const char *marker)
{
    sy_jseg_builder_t *b;

    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(nspace, &b));
    put_u32(b, SY_REALM_SESSION, 7, PMIX_UNIV_SIZE, 64);
    put_str(b, SY_REALM_SESSION, 7, "test.where", "session7");
    put_str(b, SY_REALM_SESSION, 8, "test.where", "session8");
    put_u32(b, SY_REALM_JOB, 0, PMIX_JOB_SIZE, 4);
    put_u32(b, SY_REALM_JOB, 0, PMIX_SESSION_ID, 7);
    put_u32(b, SY_REALM_JOB, 0, PMIX_NODEID, 0);
    put_u32(b, SY_REALM_JOB, 0, PMIX_LOCAL_SIZE, 2);
    put_str(b, SY_REALM_JOB, 0, "test.where", "job");
    put_str(b, SY_REALM_JOB, 0, "test.marker", marker);
    for (uint32_t a = 0; a < 2; a++) {
        char where[16];
        snprintf(where, sizeof(where), "app%u", a);
        put_u32(b, SY_REALM_APP, a, PMIX_APP_SIZE, 2);
        put_str(b, SY_REALM_APP, a, "test.where", where);
        put_str(b, SY_REALM_APP, a, "test.app_only", where);
    }
    for (uint32_t n = 0; n < 2; n++) {
        char name[16], where[16];
        snprintf(name, sizeof(name), "n%u", n);
        snprintf(where, sizeof(where), "node%u", n);
        put_str(b, SY_REALM_NODE, n, PMIX_HOSTNAME, name);
        put_u32(b, SY_REALM_NODE, n, PMIX_NODE_SIZE, 2);
        put_str(b, SY_REALM_NODE, n, "test.where", where);
    }
    put_str(b, SY_REALM_NODE, 1, PMIX_HOSTNAME_ALIASES, "n1.alias,n1-ib");
    for (uint32_t r = 0; r < 4; r++) {
        char where[16];
        snprintf(where, sizeof(where), "proc%u", r);
        put_u32(b, SY_REALM_PROC, r, PMIX_APPNUM, r / 2);
        put_u32(b, SY_REALM_PROC, r, PMIX_NODEID, r % 2);
        put_u32(b, SY_REALM_PROC, r, PMIX_RANK, r);
        put_str(b, SY_REALM_PROC, r, "test.where", where);
    }
    /* only rank 3 has no proc-level test.where2: it falls back */
    for (uint32_t r = 0; r < 3; r++) {
        put_str(b, SY_REALM_PROC, r, "test.where2", "proc");
    }
    put_str(b, SY_REALM_APP, 1, "test.where2", "app1");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
}

/* Node resources: node 0 "n0" (also in the job) and node 5 "r5". */
static void publish_resources(const char *path)
{
    sy_jseg_builder_t *b;

    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(NULL, &b));
    put_str(b, SY_REALM_NODE, 0, PMIX_HOSTNAME, "n0");
    put_u32(b, SY_REALM_NODE, 0, PMIX_MAX_PROCS, 16);
    put_str(b, SY_REALM_NODE, 0, "test.where", "resources0");
    put_str(b, SY_REALM_NODE, 5, PMIX_HOSTNAME, "r5");
    put_str(b, SY_REALM_NODE, 5, PMIX_HOSTNAME_ALIASES, "r5-alias");
    put_u32(b, SY_REALM_NODE, 5, PMIX_MAX_PROCS, 8);
    put_str(b, SY_REALM_NODE, 5, "test.where", "resources5");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
}

static int setup(void **state)
{
    char path[128];
    (void)state;
    sy_store_acquire();
    seg_path(path, sizeof(path), "job.seg");
    publish_job(path, NS, "gen1");
    if (sy_store_attach(NS, path) != PMIX_SUCCESS) {
        return -1;
    }
    seg_path(path, sizeof(path), "res.seg");
    publish_resources(path);
    return sy_store_attach_resources(path) == PMIX_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sy_store_release();
    return 0;
}

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/sy-store-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

/* ---- helpers ---- */

static pmix_proc_t proc_of(const char *nspace, pmix_rank_t rank)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    return p;
}

static pmix_status_t get(pmix_rank_t rank, const char *key, const pmix_info_t *info, size_t n,
                         pmix_value_t **v)
{
    pmix_proc_t p = proc_of(NS, rank);
    return sy_store_get(&p, key, info, n, v);
}

/* The string a Get returns, or a status name when it fails. */
static void expect_str(pmix_rank_t rank, const char *key, const pmix_info_t *info, size_t n,
                       const char *want)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = get(rank, key, info, n, &v);
    if (rc != PMIX_SUCCESS) {
        fail_msg("Get(%u, %s) -> %s, wanted \"%s\"", rank, key, PMIx_Error_string(rc), want);
    }
    assert_int_equal(PMIX_STRING, v->type);
    assert_string_equal(want, v->data.string);
    PMIX_VALUE_RELEASE(v);
}

static void expect_u32(pmix_rank_t rank, const char *key, const pmix_info_t *info, size_t n,
                       uint32_t want)
{
    pmix_value_t *v = NULL;
    assert_int_equal(PMIX_SUCCESS, get(rank, key, info, n, &v));
    assert_int_equal(PMIX_UINT32, v->type);
    assert_int_equal(want, v->data.uint32);
    PMIX_VALUE_RELEASE(v);
}

static void expect_status(pmix_rank_t rank, const char *key, const pmix_info_t *info, size_t n,
                          pmix_status_t want)
{
    pmix_value_t *v = NULL;
    assert_int_equal(want, get(rank, key, info, n, &v));
    assert_null(v);
}

static void flag(pmix_info_t *info, const char *key, bool value)
{
    PMIX_INFO_LOAD(info, key, &value, PMIX_BOOL);
}

static void u32_info(pmix_info_t *info, const char *key, uint32_t value)
{
    PMIX_INFO_LOAD(info, key, &value, PMIX_UINT32);
}

/* ---- the rules ---- */

static void test_wildcard_unqualified(void **state)
{
    (void)state;
    expect_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, 4);
    expect_str(PMIX_RANK_WILDCARD, "test.where", NULL, 0, "job");
    /* not in the job realm: the job's session (PMIX_SESSION_ID 7) */
    expect_u32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, NULL, 0, 64);
    /* nor in the session: this node (the job's PMIX_NODEID 0) */
    expect_u32(PMIX_RANK_WILDCARD, PMIX_NODE_SIZE, NULL, 0, 2);
    expect_u32(PMIX_RANK_WILDCARD, PMIX_MAX_PROCS, NULL, 0, 16);
    /* app data is not reachable from the wildcard without a qualifier */
    expect_status(PMIX_RANK_WILDCARD, "test.app_only", NULL, 0, PMIX_ERR_NOT_FOUND);
    expect_status(PMIX_RANK_WILDCARD, "test.nothing", NULL, 0, PMIX_ERR_NOT_FOUND);
}

static void test_rank_fallbacks(void **state)
{
    (void)state;
    expect_str(2, "test.where", NULL, 0, "proc2");
    expect_u32(1, PMIX_RANK, NULL, 0, 1);
    /* proc -> app of the rank -> job -> session */
    expect_str(3, "test.where2", NULL, 0, "app1");
    expect_str(0, "test.app_only", NULL, 0, "app0");
    expect_str(3, "test.app_only", NULL, 0, "app1");
    expect_u32(3, PMIX_APP_SIZE, NULL, 0, 2);
    expect_u32(2, PMIX_JOB_SIZE, NULL, 0, 4);
    expect_u32(2, PMIX_UNIV_SIZE, NULL, 0, 64);
    /* a rank the job does not have (its size is 4) sees nothing, as with
     * OpenPMIx: no fallback to job data */
    expect_status(9, "test.where", NULL, 0, PMIX_ERR_NOT_FOUND);
    expect_status(9, PMIX_JOB_SIZE, NULL, 0, PMIX_ERR_NOT_FOUND);
    expect_status(9, "test.nothing", NULL, 0, PMIX_ERR_NOT_FOUND);
}

static void test_qualifiers(void **state)
{
    pmix_info_t info[3];
    (void)state;

    /* PMIX_SESSION_INFO: session realm only, default the job's session */
    flag(&info[0], PMIX_SESSION_INFO, true);
    expect_str(PMIX_RANK_WILDCARD, "test.where", info, 1, "session7");
    expect_str(1, "test.where", info, 1, "session7");
    expect_status(1, PMIX_JOB_SIZE, info, 1, PMIX_ERR_NOT_FOUND);
    u32_info(&info[1], PMIX_SESSION_ID, 8);
    expect_str(1, "test.where", info, 2, "session8");
    u32_info(&info[1], PMIX_SESSION_ID, 9);
    expect_status(1, "test.where", info, 2, PMIX_ERR_NOT_FOUND);

    /* PMIX_JOB_INFO: even for a rank with proc data */
    flag(&info[0], PMIX_JOB_INFO, true);
    expect_str(2, "test.where", info, 1, "job");
    expect_status(2, PMIX_UNIV_SIZE, info, 1, PMIX_ERR_NOT_FOUND);

    /* PMIX_APP_INFO: the target's app, or the one named */
    flag(&info[0], PMIX_APP_INFO, true);
    expect_str(3, "test.where", info, 1, "app1");
    expect_str(0, "test.where", info, 1, "app0");
    u32_info(&info[1], PMIX_APPNUM, 1);
    expect_str(0, "test.where", info, 2, "app1");
    expect_str(PMIX_RANK_WILDCARD, "test.where", info, 2, "app1");
    expect_status(0, PMIX_JOB_SIZE, info, 2, PMIX_ERR_NOT_FOUND);

    /* PMIX_PROC_INFO ("pmix.proc.info") */
    flag(&info[0], "pmix.proc.info", true);
    expect_str(1, "test.where", info, 1, "proc1");
    expect_status(1, PMIX_JOB_SIZE, info, 1, PMIX_ERR_NOT_FOUND);

    /* a qualifier given as false is ignored */
    flag(&info[0], PMIX_JOB_INFO, false);
    expect_str(2, "test.where", info, 1, "proc2");
    /* other directives do not matter here */
    flag(&info[0], PMIX_OPTIONAL, true);
    flag(&info[1], PMIX_IMMEDIATE, true);
    expect_str(2, "test.where", info, 2, "proc2");

    /* malformed directives */
    flag(&info[0], PMIX_APP_INFO, true);
    PMIX_INFO_LOAD(&info[1], PMIX_APPNUM, "one", PMIX_STRING);
    expect_status(0, "test.where", info, 2, PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&info[1]);
    int neg = -1;
    PMIX_INFO_LOAD(&info[1], PMIX_APPNUM, &neg, PMIX_INT);
    expect_status(0, "test.where", info, 2, PMIX_ERR_BAD_PARAM);
    /* any integer type names an app */
    uint16_t one = 1;
    PMIX_INFO_LOAD(&info[1], PMIX_APPNUM, &one, PMIX_UINT16);
    expect_str(0, "test.where", info, 2, "app1");
}

static void test_node_info(void **state)
{
    pmix_info_t info[2];
    (void)state;

    flag(&info[0], PMIX_NODE_INFO, true);
    /* the target's node */
    expect_str(1, "test.where", info, 1, "node1");
    expect_str(2, "test.where", info, 1, "node0");
    /* wildcard: this node, the job's PMIX_NODEID */
    expect_str(PMIX_RANK_WILDCARD, "test.where", info, 1, "node0");
    /* by id and by name or alias */
    u32_info(&info[1], PMIX_NODEID, 1);
    expect_str(0, "test.where", info, 2, "node1");
    PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, "n1-ib", PMIX_STRING);
    expect_str(0, "test.where", info, 2, "node1");
    PMIX_INFO_DESTRUCT(&info[1]);
    /* the namespace's node data overrides the resources; the resources
     * fill in what it lacks */
    expect_str(2, PMIX_HOSTNAME, info, 1, "n0");
    expect_u32(2, PMIX_MAX_PROCS, info, 1, 16);
    /* a node only the resources know, by id or name */
    u32_info(&info[1], PMIX_NODEID, 5);
    expect_str(0, "test.where", info, 2, "resources5");
    expect_u32(PMIX_RANK_WILDCARD, PMIX_MAX_PROCS, info, 2, 8);
    PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, "r5-alias", PMIX_STRING);
    expect_str(PMIX_RANK_WILDCARD, "test.where", info, 2, "resources5");
    /* naming the node is enough, without PMIX_NODE_INFO */
    expect_str(PMIX_RANK_WILDCARD, "test.where", &info[1], 1, "resources5");
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, "nowhere", PMIX_STRING);
    expect_status(0, "test.where", info, 2, PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&info[1]);
    u32_info(&info[1], PMIX_NODEID, 5);

    /* no namespace segment at all: an empty nspace with the wildcard */
    pmix_proc_t anon = proc_of("", PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_store_get(&anon, PMIX_MAX_PROCS, info, 2, &v));
    assert_int_equal(8, v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    /* the hostname of a directive, as a key, is looked up normally */
    expect_str(1, PMIX_HOSTNAME, info, 2, "r5");
}

/* Keys that double as directives are plain keys in the key position. */
static void test_directive_keys(void **state)
{
    (void)state;
    expect_u32(3, PMIX_APPNUM, NULL, 0, 1);
    expect_u32(3, PMIX_NODEID, NULL, 0, 1);
    expect_u32(PMIX_RANK_WILDCARD, PMIX_NODEID, NULL, 0, 0);
    expect_u32(PMIX_RANK_WILDCARD, PMIX_SESSION_ID, NULL, 0, 7);
}

static void test_internal_values(void **state)
{
    pmix_proc_t p = proc_of(NS, 1);
    pmix_info_t info[1];
    pmix_value_t v, *out;
    uint32_t u = 99;
    (void)state;

    PMIX_VALUE_LOAD(&v, "internal", PMIX_STRING);
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&p, "test.where", &v));
    PMIX_VALUE_DESTRUCT(&v);
    expect_str(1, "test.where", NULL, 0, "internal");
    expect_str(2, "test.where", NULL, 0, "proc2");
    flag(&info[0], "pmix.proc.info", true);
    expect_str(1, "test.where", info, 1, "internal");
    /* replaced by a later put */
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&p, "test.where", &v));
    expect_u32(1, "test.where", NULL, 0, 99);
    /* job-level internal values */
    p.rank = PMIX_RANK_WILDCARD;
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&p, PMIX_JOB_SIZE, &v));
    expect_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, 99);
    expect_u32(3, PMIX_JOB_SIZE, NULL, 0, 99);
    /* a namespace without a segment still answers its internal values */
    pmix_proc_t other = proc_of("test.other", 0);
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&other, "test.k", &v));
    assert_int_equal(PMIX_SUCCESS, sy_store_get(&other, "test.k", NULL, 0, &out));
    PMIX_VALUE_RELEASE(out);
    /* bad parameters */
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_internal_put(NULL, "k", &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_internal_put(&p, NULL, &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_internal_put(&p, "k", NULL));
    /* forgotten with the namespace */
    sy_store_internal_forget(NS);
    expect_str(1, "test.where", NULL, 0, "proc1");
    expect_u32(3, PMIX_JOB_SIZE, NULL, 0, 4);
    assert_int_equal(PMIX_SUCCESS, sy_store_get(&other, "test.k", NULL, 0, &out));
    PMIX_VALUE_RELEASE(out);
}

static void test_key_null(void **state)
{
    pmix_proc_t p = proc_of(NS, 2);
    pmix_value_t v, *out = NULL;
    (void)state;

    PMIX_VALUE_LOAD(&v, "mine", PMIX_STRING);
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&p, "test.internal", &v));
    assert_int_equal(PMIX_SUCCESS, sy_store_internal_put(&p, "test.where", &v));
    PMIX_VALUE_DESTRUCT(&v);
    assert_int_equal(PMIX_SUCCESS, get(2, NULL, NULL, 0, &out));
    assert_int_equal(PMIX_DATA_ARRAY, out->type);
    assert_int_equal(PMIX_INFO, out->data.darray->type);
    pmix_info_t *infos = out->data.darray->array;
    size_t n = out->data.darray->size;
    /* APPNUM NODEID RANK test.where test.where2 + test.internal */
    assert_int_equal(6, n);
    bool internal = false, where = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(infos[i].key, "test.internal") == 0) {
            internal = true;
        }
        if (strcmp(infos[i].key, "test.where") == 0) {
            where = true;
            assert_string_equal("mine", infos[i].value.data.string);
        }
    }
    assert_true(internal && where);
    PMIX_VALUE_RELEASE(out);
    /* a rank with nothing */
    expect_status(17, NULL, NULL, 0, PMIX_ERR_NOT_FOUND);
    sy_store_internal_forget(NS);
}

static void test_bad_params(void **state)
{
    pmix_value_t *v = NULL;
    char longkey[PMIX_MAX_KEYLEN + 2];
    pmix_proc_t p = proc_of(NS, 0);
    (void)state;

    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_get(NULL, PMIX_JOB_SIZE, NULL, 0, &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_get(&p, longkey, NULL, 0, &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 1, &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 0, NULL));
    assert_null(v);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_attach(NULL, "/nonexistent"));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_store_attach("x", "/nonexistent/seg"));
    /* a segment of another namespace is refused */
    char path[128];
    seg_path(path, sizeof(path), "job.seg");
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_store_attach("test.wrong", path));
}

/* ---- the resolver ---- */

typedef struct {
    int calls;
    bool attach;
    char seen[PMIX_MAX_NSLEN + 1];
} resolver_state_t;

static pmix_status_t resolver(const char *nspace, const pmix_info_t info[], size_t ninfo, void *ctx)
{
    resolver_state_t *rs = ctx;
    char path[128];
    (void)info;
    (void)ninfo;
    rs->calls++;
    snprintf(rs->seen, sizeof(rs->seen), "%s", nspace);
    if (!rs->attach) {
        return PMIX_ERR_NOT_FOUND;
    }
    seg_path(path, sizeof(path), "resolved.seg");
    publish_job(path, nspace, "resolved");
    return sy_store_attach(nspace, path);
}

static void test_resolver(void **state)
{
    resolver_state_t rs = {0};
    pmix_proc_t p = proc_of("test.remote", 0);
    pmix_value_t *v = NULL;
    (void)state;

    /* no resolver */
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 0, &v));
    /* one that cannot help: called once */
    sy_store_set_resolver(resolver, &rs);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 0, &v));
    assert_int_equal(1, rs.calls);
    assert_string_equal("test.remote", rs.seen);
    /* known namespaces never reach it, even for absent keys */
    expect_status(0, "test.nothing", NULL, 0, PMIX_ERR_NOT_FOUND);
    assert_int_equal(1, rs.calls);
    /* one that attaches: the lookup is retried */
    rs.attach = true;
    assert_int_equal(PMIX_SUCCESS, sy_store_get(&p, "test.marker", NULL, 0, &v));
    assert_string_equal("resolved", v->data.string);
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(2, rs.calls);
    assert_int_equal(PMIX_SUCCESS, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 0, &v));
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(2, rs.calls);
    char **names;
    assert_int_equal(PMIX_SUCCESS, sy_store_nspaces(&names));
    assert_non_null(names[0]);
    assert_non_null(names[1]);
    assert_null(names[2]);
    assert_true((strcmp(names[0], NS) == 0 && strcmp(names[1], "test.remote") == 0) ||
                (strcmp(names[1], NS) == 0 && strcmp(names[0], "test.remote") == 0));
    for (int i = 0; names[i] != NULL; i++) {
        free(names[i]);
    }
    free(names);
    sy_store_detach("test.remote");
    sy_store_set_resolver(NULL, NULL);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_store_get(&p, PMIX_JOB_SIZE, NULL, 0, &v));
}

/* ---- updates and concurrency ---- */

typedef struct {
    volatile bool stop;
    int saw_new;
    int errors;
} reader_state_t;

static void *reader(void *arg)
{
    reader_state_t *rs = arg;
    while (!__atomic_load_n(&rs->stop, __ATOMIC_ACQUIRE)) {
        pmix_value_t *v = NULL;
        pmix_status_t rc = get(PMIX_RANK_WILDCARD, "test.marker", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_STRING ||
            (strcmp(v->data.string, "gen1") != 0 && strcmp(v->data.string, "gen2") != 0)) {
            __atomic_fetch_add(&rs->errors, 1, __ATOMIC_RELAXED);
        } else if (strcmp(v->data.string, "gen2") == 0) {
            __atomic_store_n(&rs->saw_new, 1, __ATOMIC_RELEASE);
        }
        if (v != NULL) {
            PMIX_VALUE_RELEASE(v);
        }
        /* a rank key too, so several segment lookups run per loop */
        rc = get(1, PMIX_APP_SIZE, NULL, 0, &v);
        if (rc != PMIX_SUCCESS) {
            __atomic_fetch_add(&rs->errors, 1, __ATOMIC_RELAXED);
        } else {
            PMIX_VALUE_RELEASE(v);
        }
    }
    return NULL;
}

/* A new generation published and the old one marked: readers switch to it
 * without ever seeing anything else. */
static void test_supersede_under_readers(void **state)
{
    reader_state_t rs = {0};
    pthread_t t[2];
    char old_path[128], new_path[128];
    (void)state;

    seg_path(old_path, sizeof(old_path), "job.seg");
    seg_path(new_path, sizeof(new_path), "job.gen2.seg");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(0, pthread_create(&t[i], NULL, reader, &rs));
    }
    usleep(1000);
    publish_job(new_path, NS, "gen2");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_supersede(old_path, new_path));
    /* wait until a reader switched; the bound only keeps a broken store
     * from hanging the test suite */
    for (int i = 0; i < 600000 && !__atomic_load_n(&rs.saw_new, __ATOMIC_ACQUIRE); i++) {
        usleep(100);
    }
    assert_true(__atomic_load_n(&rs.saw_new, __ATOMIC_ACQUIRE));
    __atomic_store_n(&rs.stop, true, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    assert_int_equal(0, rs.errors);
    /* this thread switches too */
    expect_str(PMIX_RANK_WILDCARD, "test.marker", NULL, 0, "gen2");
    /* and the old file can go: the store no longer maps it */
    assert_int_equal(0, unlink(old_path));
    expect_str(PMIX_RANK_WILDCARD, "test.marker", NULL, 0, "gen2");
}

/* Readers keep working while other namespaces come and go and the same
 * namespace is re-attached. */
static void test_attach_detach_under_readers(void **state)
{
    reader_state_t rs = {0};
    pthread_t t[2];
    char path[128], other[128];
    (void)state;

    seg_path(path, sizeof(path), "job.seg");
    seg_path(other, sizeof(other), "other.seg");
    publish_job(other, "test.other", "gen1");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(0, pthread_create(&t[i], NULL, reader, &rs));
    }
    for (int i = 0; i < 200; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_store_attach("test.other", other));
        assert_int_equal(PMIX_SUCCESS, sy_store_attach(NS, path));
        sy_store_detach("test.other");
        assert_int_equal(PMIX_SUCCESS, sy_store_attach_resources(NULL));
    }
    __atomic_store_n(&rs.stop, true, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    assert_int_equal(0, rs.errors);
    sy_store_detach(NS);
    expect_status(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, PMIX_ERR_NOT_FOUND);
}

static void test_lifetime(void **state)
{
    (void)state;
    /* setup acquired once */
    assert_true(sy_store_active());
    sy_store_acquire();
    sy_store_release();
    assert_true(sy_store_active());
    expect_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, 4);
    sy_store_release();
    assert_false(sy_store_active());
    /* the last release detached everything */
    expect_status(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, PMIX_ERR_NOT_FOUND);
    sy_store_acquire(); /* for teardown */
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_wildcard_unqualified),
        T(test_rank_fallbacks),
        T(test_qualifiers),
        T(test_node_info),
        T(test_directive_keys),
        T(test_internal_values),
        T(test_key_null),
        T(test_bad_params),
        T(test_resolver),
        T(test_supersede_under_readers),
        T(test_attach_detach_under_readers),
        T(test_lifetime),
    };
    setenv("SWITCHYARD_LOG", "error", 1);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
