/* Unit test: derived values at scale.  A job of 1,048,576 ranks registered
 * the way ORTE and Slurm do (maps from PMIx_generate_regex/ppn over 16,384
 * nodes, job sizes, this node's peers and leader, per-process data for its
 * 64 ranks) is compiled, published and read back: every derived key of a
 * sample of ranks and nodes equals what the maps say, through the segment
 * and through the store's Get rules, and the segment holds a few bytes per
 * rank.  Then the edges: a cyclic map, a 1M-rank block map with a
 * different count on every node, three applications, ranks just
 * below PMIX_RANK_VALID, 100,000 nodes of 255-character names, a node of
 * 1,024 local peers, and per-process data for every rank in Slurm's types
 * and as strings that differ per rank, read back from their runs.
 *
 * With SY_WRITE_CORPUS=<dir> small segments of each kind are written there
 * as seeds for tests/fuzz/fuzz_jseg. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/jobinfo.h"
#include "common/jseg.h"
#include "common/store.h"

#define PROC SY_REALM_PROC
#define NODE SY_REALM_NODE
#define JOB SY_REALM_JOB
#define APP SY_REALM_APP

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/sy-jscale-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

/* ---- building registrations ---- */

/* A growable string. */
typedef struct {
    char *s;
    size_t len, cap;
} str_t;

__attribute__((format(printf, 2, 3))) static void str_add(str_t *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s != NULL ? b->s + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap == 0 ? 4096 : 2 * b->cap;
        while (b->cap <= b->len + (size_t)n) {
            b->cap *= 2;
        }
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

typedef struct {
    pmix_info_t *info;
    size_t n, cap;
} infos_t;

static pmix_info_t *add(infos_t *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 64 : 2 * l->cap;
        l->info = realloc(l->info, l->cap * sizeof(*l->info));
        assert_non_null(l->info);
    }
    memset(&l->info[l->n], 0, sizeof(l->info[0]));
    return &l->info[l->n++];
}

static void add_u32(infos_t *l, const char *key, uint32_t u)
{
    PMIX_INFO_LOAD(add(l), key, &u, PMIX_UINT32);
}

static void add_str(infos_t *l, const char *key, const char *s)
{
    PMIX_INFO_LOAD(add(l), key, s, PMIX_STRING);
}

static void add_arr(infos_t *l, const char *key, infos_t *sub)
{
    pmix_data_array_t *da = malloc(sizeof(*da));
    assert_non_null(da);
    da->type = PMIX_INFO;
    da->size = sub->n;
    da->array = sub->info;
    pmix_info_t *in = add(l);
    PMIX_LOAD_KEY(in->key, key);
    in->value.type = PMIX_DATA_ARRAY;
    in->value.data.darray = da;
    memset(sub, 0, sizeof(*sub));
}

static void infos_free(infos_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        PMIX_INFO_DESTRUCT(&l->info[i]);
    }
    free(l->info);
    memset(l, 0, sizeof(*l));
}

/* A job's shape: node i is named name(i); rank r lives on node_of(r). */
typedef struct {
    uint32_t nnodes, ppn;
    uint32_t base;    /* the lowest rank */
    bool cyclic;      /* rank r on node r % nnodes, else r / ppn */
    unsigned namelen; /* 0: "c%06u" */
    uint32_t me;      /* this node */
    /* irregular block placement (cyclic and ppn unused): node i holds
     * ranks start[i]..start[i + 1] - 1 */
    const uint32_t *start;
} shape_t;

static void name_of(const shape_t *s, uint32_t i, char *buf)
{
    if (s->namelen == 0) {
        sprintf(buf, "c%06u", i);
        return;
    }
    memset(buf, 'x', s->namelen - 10);
    sprintf(buf + s->namelen - 10, "%010u", i);
}

static uint32_t nranks(const shape_t *s)
{
    return s->start != NULL ? s->start[s->nnodes] : s->nnodes * s->ppn;
}

/* The ranks on node i. */
static uint32_t ppn_of(const shape_t *s, uint32_t i)
{
    return s->start != NULL ? s->start[i + 1] - s->start[i] : s->ppn;
}

static uint32_t node_of(const shape_t *s, uint32_t r)
{
    r -= s->base;
    if (s->start != NULL) {
        uint32_t lo = 0, hi = s->nnodes;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (s->start[mid] <= r) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
    return s->cyclic ? r % s->nnodes : r / s->ppn;
}

static uint32_t local_of(const shape_t *s, uint32_t r)
{
    if (s->start != NULL) {
        return r - s->base - s->start[node_of(s, r)];
    }
    r -= s->base;
    return s->cyclic ? r / s->nnodes : r % s->ppn;
}

/* The k-th rank of node i. */
static uint32_t rank_of(const shape_t *s, uint32_t i, uint32_t k)
{
    if (s->start != NULL) {
        return s->base + s->start[i] + k;
    }
    return s->base + (s->cyclic ? k * s->nnodes + i : i * s->ppn + k);
}

/* The maps and the job-level keys ORTE passes, for this node s->me. */
static void job_keys(infos_t *l, const shape_t *s)
{
    str_t names = {0}, procs = {0}, peers = {0};
    char name[300];
    char *nmap = NULL, *pmap = NULL;
    for (uint32_t i = 0; i < s->nnodes; i++) {
        name_of(s, i, name);
        str_add(&names, "%s%s", i ? "," : "", name);
        for (uint32_t k = 0; k < ppn_of(s, i); k++) {
            str_add(&procs, "%s%u", k ? "," : i ? ";" : "", rank_of(s, i, k));
        }
    }
    for (uint32_t k = 0; k < ppn_of(s, s->me); k++) {
        str_add(&peers, "%s%u", k ? "," : "", rank_of(s, s->me, k));
    }
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_regex(names.s, &nmap));
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_ppn(procs.s, &pmap));
    add_str(l, PMIX_JOBID, "scale");
    add_str(l, PMIX_NODE_MAP, nmap);
    add_str(l, PMIX_PROC_MAP, pmap);
    add_u32(l, PMIX_NODEID, s->me);
    add_u32(l, PMIX_UNIV_SIZE, nranks(s));
    add_u32(l, PMIX_JOB_SIZE, nranks(s));
    add_u32(l, PMIX_MAX_PROCS, nranks(s));
    add_u32(l, PMIX_NUM_NODES, s->nnodes);
    add_u32(l, PMIX_LOCAL_SIZE, ppn_of(s, s->me));
    add_u32(l, PMIX_NODE_SIZE, ppn_of(s, s->me));
    add_str(l, PMIX_LOCAL_PEERS, peers.s);
    pmix_rank_t ldr = rank_of(s, s->me, 0);
    PMIX_INFO_LOAD(add(l), PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
    free(nmap);
    free(pmap);
    free(names.s);
    free(procs.s);
    free(peers.s);
}

/* ORTE's per-process data for rank r, in the standard's types. */
static void orte_pdata(infos_t *l, const shape_t *s, uint32_t r)
{
    infos_t pd = {0};
    char name[300];
    pmix_rank_t rank = r;
    uint16_t lr = (uint16_t)local_of(s, r);
    name_of(s, node_of(s, r), name);
    PMIX_INFO_LOAD(add(&pd), PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(add(&pd), PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(add(&pd), PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    PMIX_INFO_LOAD(add(&pd), PMIX_NODE_RANK, &lr, PMIX_UINT16);
    add_u32(&pd, PMIX_NODEID, node_of(s, r));
    add_u32(&pd, PMIX_APPNUM, 0);
    add_str(&pd, PMIX_HOSTNAME, name);
    add_arr(l, PMIX_PROC_DATA, &pd);
}

/* Compile, publish and open. */
static sy_jseg_t *compile(const char *nspace, const infos_t *l, int nlocal, const char *file,
                          sy_jobinfo_summary_t *sum, size_t *size)
{
    sy_jseg_builder_t *b = NULL;
    sy_jseg_t *seg = NULL;
    sy_jobinfo_summary_t mine;
    char path[256], *err = NULL;
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (sum == NULL) {
        sum = &mine;
    }
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(nspace, &b));
    pmix_status_t rc = sy_jobinfo_compile(nspace, nlocal, l->info, l->n, "elsewhere", b, sum, &err);
    if (rc != PMIX_SUCCESS) {
        print_error("compile: %s\n", err != NULL ? err : PMIx_Error_string(rc));
        fail();
    }
    if (sum == &mine) {
        sy_jobinfo_summary_free(&mine);
    }
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &seg));
    assert_int_equal(0, stat(path, &st));
    if (size != NULL) {
        *size = (size_t)st.st_size;
    }
    const char *corpus = getenv("SY_WRITE_CORPUS");
    if (corpus != NULL && st.st_size < 65536) {
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", path, corpus, file);
        assert_int_equal(0, system(cmd));
    }
    return seg;
}

/* ---- checking ---- */

static pmix_value_t *get(sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                         pmix_data_type_t type)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = sy_jseg_get(seg, realm, id, key, &v);
    if (rc != PMIX_SUCCESS) {
        print_error("realm %d id %u %s: %s\n", realm, id, key, PMIx_Error_string(rc));
        fail();
    }
    if (v->type != type) {
        print_error("realm %d id %u %s: type %s\n", realm, id, key, PMIx_Data_type_string(v->type));
        fail();
    }
    return v;
}

static void expect_u32(sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                       pmix_data_type_t type, uint64_t want)
{
    pmix_value_t *v = get(seg, realm, id, key, type);
    uint64_t got = type == PMIX_UINT16 ? v->data.uint16
                   : type == PMIX_INT  ? (uint64_t)v->data.integer
                                       : v->data.uint32;
    if (got != want) {
        print_error("realm %d id %u %s: %llu, want %llu\n", realm, id, key, (unsigned long long)got,
                    (unsigned long long)want);
        fail();
    }
    PMIX_VALUE_RELEASE(v);
}

static void expect_str(sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                       const char *want)
{
    pmix_value_t *v = get(seg, realm, id, key, PMIX_STRING);
    assert_non_null(v->data.string);
    assert_string_equal(want, v->data.string);
    PMIX_VALUE_RELEASE(v);
}

static void expect_absent(sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key)
{
    pmix_value_t *v = NULL;
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_get(seg, realm, id, key, &v));
}

/* Every derived key of rank r, and its whole listing. */
static void check_rank(sy_jseg_t *seg, const shape_t *s, uint32_t r, uint32_t app,
                       uint32_t app_rank, uint32_t offset)
{
    char name[300];
    name_of(s, node_of(s, r), name);
    expect_u32(seg, PROC, r, PMIX_RANK, PMIX_PROC_RANK, r);
    if ((uint64_t)offset + r < PMIX_RANK_VALID) {
        expect_u32(seg, PROC, r, PMIX_GLOBAL_RANK, PMIX_PROC_RANK, offset + r);
    } else {
        expect_absent(seg, PROC, r, PMIX_GLOBAL_RANK);
    }
    expect_u32(seg, PROC, r, PMIX_LOCAL_RANK, PMIX_UINT16, local_of(s, r));
    expect_u32(seg, PROC, r, PMIX_NODE_RANK, PMIX_UINT16, local_of(s, r));
    expect_u32(seg, PROC, r, PMIX_NODEID, PMIX_UINT32, node_of(s, r));
    expect_str(seg, PROC, r, PMIX_HOSTNAME, name);
    expect_u32(seg, PROC, r, PMIX_APPNUM, PMIX_UINT32, app);
    expect_u32(seg, PROC, r, PMIX_APP_RANK, PMIX_PROC_RANK, app_rank);
    /* key NULL: the same values */
    pmix_info_t *all;
    size_t n, found = 0;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get_all(seg, PROC, r, &all, &n));
    for (size_t i = 0; i < n; i++) {
        pmix_value_t *one = NULL;
        assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, PROC, r, all[i].key, &one));
        assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(one, &all[i].value));
        PMIX_VALUE_RELEASE(one);
        found += strcmp(all[i].key, PMIX_HOSTNAME) == 0 || strcmp(all[i].key, PMIX_NODEID) == 0;
        if (i > 0) {
            assert_true(strcmp(all[i - 1].key, all[i].key) < 0);
        }
    }
    assert_int_equal(2, found);
    PMIX_INFO_FREE(all, n);
}

/* Every derived key of node i. */
static void check_node(sy_jseg_t *seg, const shape_t *s, uint32_t i)
{
    char name[300];
    str_t peers = {0};
    uint32_t id = 0;
    name_of(s, i, name);
    for (uint32_t k = 0; k < ppn_of(s, i); k++) {
        str_add(&peers, "%s%u", k ? "," : "", rank_of(s, i, k));
    }
    expect_str(seg, NODE, i, PMIX_HOSTNAME, name);
    expect_u32(seg, NODE, i, PMIX_NODEID, PMIX_UINT32, i);
    expect_u32(seg, NODE, i, PMIX_LOCAL_SIZE, PMIX_UINT32, ppn_of(s, i));
    expect_u32(seg, NODE, i, PMIX_NODE_SIZE, PMIX_UINT32, ppn_of(s, i));
    expect_u32(seg, NODE, i, PMIX_LOCALLDR, PMIX_PROC_RANK, rank_of(s, i, 0));
    if (i != s->me) { /* this node's peers are the host's string */
        expect_str(seg, NODE, i, PMIX_LOCAL_PEERS, peers.s);
    }
    assert_true(sy_jseg_node_by_name(seg, name, &id));
    assert_int_equal(i, id);
    free(peers.s);
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A sample of ranks: the first and last of the job and of some nodes, and
 * random ones. */
static void sample(uint32_t n, uint32_t *out, size_t *count)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t k = 0;
    const uint32_t fixed[] = {0, 1, 63, 64, 65, n / 2, n - 2, n - 1};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        if (fixed[i] < n) {
            out[k++] = fixed[i];
        }
    }
    while (k < 200) {
        out[k++] = (uint32_t)(xorshift(&x) % n);
    }
    *count = k;
}

/* ---- the tests ---- */

/* 1M ranks, 64 per node, maps and this node's data. */
static void test_million(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 16384, .ppn = 64, .me = 4321};
    infos_t l = {0};
    sy_jobinfo_summary_t sum;
    uint32_t ranks[256];
    size_t n, size;

    job_keys(&l, &s);
    for (uint32_t k = 0; k < s.ppn; k++) {
        orte_pdata(&l, &s, rank_of(&s, s.me, k));
    }
    sy_jseg_t *seg = compile("million", &l, 64, "million.seg", &sum, &size);
    assert_int_equal(nranks(&s), sum.job_size);
    assert_int_equal(s.me, sum.nodeid);
    assert_int_equal(64, sum.nlocal);
    assert_non_null(sum.local_ranks);
    assert_int_equal(rank_of(&s, s.me, 63), sum.local_ranks[63]);
    sy_jobinfo_summary_free(&sum);
    /* derive, don't store: a few bytes per rank */
    if (size > 4u * nranks(&s)) {
        print_error("a segment of %zu bytes for %u ranks\n", size, nranks(&s));
        fail();
    }
    sample(nranks(&s), ranks, &n);
    for (size_t i = 0; i < n; i++) {
        check_rank(seg, &s, ranks[i], 0, ranks[i], 0);
        check_node(seg, &s, node_of(&s, ranks[i]));
    }
    check_node(seg, &s, s.me);
    expect_u32(seg, JOB, 0, PMIX_JOB_SIZE, PMIX_UINT32, nranks(&s));
    expect_u32(seg, JOB, 0, PMIX_NUM_NODES, PMIX_UINT32, s.nnodes);
    pmix_value_t *v = get(seg, JOB, 0, PMIX_NODE_LIST, PMIX_STRING);
    assert_int_equal(8 * s.nnodes - 1, strlen(v->data.string));
    assert_memory_equal("c000000,c000001,", v->data.string, 16);
    PMIX_VALUE_RELEASE(v);
    v = get(seg, APP, 0, PMIX_NODE_LIST, PMIX_STRING);
    assert_int_equal(8 * s.nnodes - 1, strlen(v->data.string));
    PMIX_VALUE_RELEASE(v);
    expect_u32(seg, APP, 0, PMIX_APP_SIZE, PMIX_UINT32, nranks(&s));
    expect_u32(seg, JOB, 0, PMIX_NODEID, PMIX_UINT32, s.me);
    expect_absent(seg, PROC, nranks(&s), PMIX_HOSTNAME);
    expect_absent(seg, NODE, s.nnodes, PMIX_HOSTNAME);
    uint32_t *ids;
    size_t nids;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_ids(seg, NODE, &ids, &nids));
    assert_int_equal(s.nnodes, nids);
    assert_int_equal(s.nnodes - 1, ids[nids - 1]);
    free(ids);

    /* the store's rules over it: a remote rank's host, a node by name */
    char path[256], name[300];
    snprintf(path, sizeof(path), "%s/million.seg", dir);
    sy_store_acquire();
    assert_int_equal(PMIX_SUCCESS, sy_store_attach("million", path));
    for (size_t i = 0; i < 20; i++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "million", ranks[i]);
        name_of(&s, node_of(&s, ranks[i]), name);
        v = NULL;
        assert_int_equal(PMIX_SUCCESS, sy_store_get(&p, PMIX_HOSTNAME, NULL, 0, &v));
        assert_string_equal(name, v->data.string);
        PMIX_VALUE_RELEASE(v);
        pmix_info_t q[2];
        bool yes = true;
        PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, name, PMIX_STRING);
        PMIX_LOAD_PROCID(&p, "million", PMIX_RANK_WILDCARD);
        assert_int_equal(PMIX_SUCCESS, sy_store_get(&p, PMIX_LOCALLDR, q, 2, &v));
        assert_int_equal(rank_of(&s, node_of(&s, ranks[i]), 0), v->data.rank);
        PMIX_VALUE_RELEASE(v);
        PMIX_INFO_DESTRUCT(&q[1]);
    }
    sy_store_release();
    sy_jseg_close(seg);
    infos_free(&l);
}

/* Round-robin placement: every node's ranks are strided, one range each. */
static void test_cyclic(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 1024, .ppn = 64, .cyclic = true, .me = 7};
    infos_t l = {0};
    uint32_t ranks[256];
    size_t n;

    job_keys(&l, &s);
    sy_jseg_t *seg = compile("cyclic", &l, 64, "cyclic.seg", NULL, NULL);
    sample(nranks(&s), ranks, &n);
    for (size_t i = 0; i < n; i++) {
        check_rank(seg, &s, ranks[i], 0, ranks[i], 0);
        check_node(seg, &s, node_of(&s, ranks[i]));
    }
    sy_jseg_close(seg);
    infos_free(&l);
}

/* Block placement with a different count on every node (16 to 112, 1M
 * ranks in all): no stride finds a rank's node, the search must. */
static void test_irregular(void **state)
{
    (void)state;
    const uint32_t nnodes = 16384;
    uint32_t *start = malloc((nnodes + 1) * sizeof(*start));
    assert_non_null(start);
    uint64_t x = 0x2545f4914f6cdd1dull;
    start[0] = 0;
    for (uint32_t i = 0; i < nnodes; i++) {
        start[i + 1] = start[i] + 16 + (uint32_t)(xorshift(&x) % 97);
    }
    shape_t s = {.nnodes = nnodes, .me = 777, .start = start};
    infos_t l = {0};
    uint32_t ranks[256];
    size_t n;

    job_keys(&l, &s);
    sy_jseg_t *seg = compile("irregular", &l, (int)ppn_of(&s, s.me), "irregular.seg", NULL, NULL);
    sample(nranks(&s), ranks, &n);
    for (size_t i = 0; i < n; i++) {
        check_rank(seg, &s, ranks[i], 0, ranks[i], 0);
        check_node(seg, &s, node_of(&s, ranks[i]));
    }
    /* the edges of some nodes: first and last rank */
    for (uint32_t i = 0; i < nnodes; i += 997) {
        check_rank(seg, &s, start[i], 0, start[i], 0);
        check_rank(seg, &s, start[i + 1] - 1, 0, start[i + 1] - 1, 0);
    }
    expect_absent(seg, PROC, nranks(&s), PMIX_NODEID);
    sy_jseg_close(seg);
    infos_free(&l);
    free(start);
}

/* Three applications given by their sizes, no per-process numbers. */
static void test_apps(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 2048, .ppn = 64, .me = 0};
    const uint32_t first[] = {0, 10000, 60000};
    const uint32_t sizes[3] = {10000, 50000, nranks(&s) - 60000};
    infos_t l = {0};
    uint32_t ranks[256];
    size_t n;

    job_keys(&l, &s);
    add_u32(&l, PMIX_JOB_NUM_APPS, 3);
    for (uint32_t a = 0; a < 3; a++) {
        infos_t ai = {0};
        add_u32(&ai, PMIX_APPNUM, a);
        add_u32(&ai, PMIX_APP_SIZE, sizes[a]);
        pmix_rank_t ldr = first[a];
        PMIX_INFO_LOAD(add(&ai), PMIX_APPLDR, &ldr, PMIX_PROC_RANK);
        add_arr(&l, PMIX_APP_INFO_ARRAY, &ai);
    }
    sy_jseg_t *seg = compile("apps", &l, 64, "apps.seg", NULL, NULL);
    sample(nranks(&s), ranks, &n);
    for (size_t i = 0; i < n; i++) {
        uint32_t a = ranks[i] >= first[2] ? 2 : ranks[i] >= first[1] ? 1 : 0;
        check_rank(seg, &s, ranks[i], a, ranks[i] - first[a], 0);
    }
    for (uint32_t a = 0; a < 3; a++) {
        uint32_t n0 = node_of(&s, first[a]), n1 = node_of(&s, first[a] + sizes[a] - 1);
        expect_u32(seg, APP, a, PMIX_NUM_NODES, PMIX_UINT32, n1 - n0 + 1);
        expect_u32(seg, APP, a, PMIX_APP_SIZE, PMIX_UINT32, sizes[a]);
        pmix_value_t *v = get(seg, APP, a, PMIX_NODE_LIST, PMIX_STRING);
        char name[300];
        name_of(&s, n0, name);
        assert_int_equal(0, strncmp(v->data.string, name, strlen(name)));
        assert_int_equal(8 * (n1 - n0 + 1) - 1, strlen(v->data.string));
        PMIX_VALUE_RELEASE(v);
    }
    sy_jseg_close(seg);
    infos_free(&l);
}

/* Ranks just below PMIX_RANK_VALID, and an offset pushing global ranks
 * past it. */
static void test_high_ranks(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 4, .ppn = 64, .base = PMIX_RANK_VALID - 256, .me = 3};
    infos_t l = {0};

    job_keys(&l, &s);
    add_u32(&l, PMIX_NPROC_OFFSET, 100);
    orte_pdata(&l, &s, PMIX_RANK_VALID - 1);
    sy_jseg_t *seg = compile("high", &l, 64, "high.seg", NULL, NULL);
    for (uint32_t r = s.base; r < PMIX_RANK_VALID - 1; r += 17) {
        check_rank(seg, &s, r, 0, r - s.base, 100);
    }
    /* the host gave its global rank (without the offset): the host's wins */
    check_rank(seg, &s, PMIX_RANK_VALID - 1, 0, 255, 0);
    expect_absent(seg, PROC, PMIX_RANK_VALID, PMIX_RANK);
    expect_absent(seg, PROC, PMIX_RANK_WILDCARD, PMIX_RANK);
    expect_absent(seg, PROC, s.base - 1, PMIX_HOSTNAME);
    /* peers and leaders of ten digits, the last node ending at the limit */
    for (uint32_t i = 0; i < s.nnodes; i++) {
        check_node(seg, &s, i);
    }
    pmix_value_t *v = get(seg, NODE, 3, PMIX_LOCAL_PEERS, PMIX_STRING);
    char last[16];
    snprintf(last, sizeof(last), ",%u", PMIX_RANK_VALID - 1);
    assert_string_equal(last, v->data.string + strlen(v->data.string) - strlen(last));
    PMIX_VALUE_RELEASE(v);
    sy_jseg_close(seg);
    infos_free(&l);
}

/* 100,000 nodes whose names have 255 characters. */
static void test_long_names(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 100000, .ppn = 1, .namelen = 255, .me = 99999};
    infos_t l = {0};
    uint32_t ranks[256];
    size_t n;

    job_keys(&l, &s);
    sy_jseg_t *seg = compile("long", &l, 1, "long.seg", NULL, NULL);
    sample(nranks(&s), ranks, &n);
    for (size_t i = 0; i < n; i++) {
        check_rank(seg, &s, ranks[i], 0, ranks[i], 0);
        check_node(seg, &s, ranks[i]);
    }
    pmix_value_t *v = get(seg, JOB, 0, PMIX_NODE_LIST, PMIX_STRING);
    assert_int_equal(256u * s.nnodes - 1, strlen(v->data.string));
    PMIX_VALUE_RELEASE(v);
    sy_jseg_close(seg);
    infos_free(&l);
}

/* A node of 1,024 local peers, each with ORTE's data. */
static void test_many_peers(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 16, .ppn = 1024, .me = 5};
    infos_t l = {0};
    sy_jobinfo_summary_t sum;

    job_keys(&l, &s);
    for (uint32_t k = 0; k < s.ppn; k++) {
        orte_pdata(&l, &s, rank_of(&s, s.me, k));
    }
    sy_jseg_t *seg = compile("peers", &l, 1024, "peers.seg", &sum, NULL);
    assert_int_equal(1024, sum.nlocal);
    assert_non_null(sum.local_ranks);
    for (uint32_t k = 0; k < 1024; k++) {
        assert_int_equal(rank_of(&s, s.me, k), sum.local_ranks[k]);
        check_rank(seg, &s, rank_of(&s, s.me, k), 0, rank_of(&s, s.me, k), 0);
    }
    sy_jobinfo_summary_free(&sum);
    for (uint32_t i = 0; i < s.nnodes; i++) {
        check_node(seg, &s, i);
    }
    pmix_value_t *v = get(seg, JOB, 0, PMIX_LOCAL_PEERS, PMIX_STRING);
    assert_memory_equal("5120,5121,", v->data.string, 10);
    PMIX_VALUE_RELEASE(v);
    sy_jseg_close(seg);
    infos_free(&l);
}

/* PMIX_PROC_DATA for every rank: ORTE's types (all derivable: nothing
 * stored), Slurm's (INT application numbers and leaders, UINT32 global
 * and application ranks, every rank given this node's id) and a string
 * that differs per rank, read back from their runs. */
static void test_every_rank(void **state)
{
    (void)state;
    shape_t s = {.nnodes = 64, .ppn = 64, .me = 9};
    infos_t maps = {0}, orte = {0}, slurm = {0};
    size_t size_maps, size_orte, size_slurm;
    char tag[32];

    job_keys(&maps, &s);
    job_keys(&orte, &s);
    job_keys(&slurm, &s);
    for (uint32_t r = 0; r < nranks(&s); r++) {
        orte_pdata(&orte, &s, r);
        infos_t pd = {0};
        pmix_rank_t rank = r;
        int zero = 0;
        char name[300];
        name_of(&s, node_of(&s, r), name);
        PMIX_INFO_LOAD(add(&pd), PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(add(&pd), PMIX_APPNUM, &zero, PMIX_INT);
        PMIX_INFO_LOAD(add(&pd), PMIX_APPLDR, &zero, PMIX_INT);
        add_u32(&pd, PMIX_GLOBAL_RANK, r);
        add_u32(&pd, PMIX_APP_RANK, r);
        if (node_of(&s, r) == s.me) {
            uint16_t lr = (uint16_t)local_of(&s, r);
            PMIX_INFO_LOAD(add(&pd), PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
            PMIX_INFO_LOAD(add(&pd), PMIX_NODE_RANK, &lr, PMIX_UINT16);
        }
        add_str(&pd, PMIX_HOSTNAME, name);
        add_u32(&pd, PMIX_NODEID, s.me);
        snprintf(tag, sizeof(tag), "tag-%u", r * 7);
        add_str(&pd, "site.tag", tag);
        add_u32(&pd, "site.num", r % 3 == 0 ? 5 : r);
        add_arr(&slurm, PMIX_PROC_DATA, &pd);
    }
    sy_jseg_t *seg = compile("maps", &maps, 64, "pdata-maps.seg", NULL, &size_maps);
    sy_jseg_close(seg);
    seg = compile("orte", &orte, 64, "pdata-orte.seg", NULL, &size_orte);
    /* what ORTE passes is what the maps say: nothing more is stored */
    assert_true(size_orte <= size_maps + 4096);
    for (uint32_t r = 0; r < nranks(&s); r += 13) {
        check_rank(seg, &s, r, 0, r, 0);
    }
    sy_jseg_close(seg);
    seg = compile("slurm", &slurm, 64, "pdata-slurm.seg", NULL, &size_slurm);
    /* runs: a few bytes per rank for the per-rank strings only */
    assert_true(size_slurm <= size_maps + 64u * nranks(&s));
    for (uint32_t r = 0; r < nranks(&s); r++) {
        expect_u32(seg, PROC, r, PMIX_APPNUM, PMIX_INT, 0);
        expect_u32(seg, PROC, r, PMIX_APPLDR, PMIX_INT, 0);
        expect_u32(seg, PROC, r, PMIX_GLOBAL_RANK, PMIX_UINT32, r);
        expect_u32(seg, PROC, r, PMIX_APP_RANK, PMIX_UINT32, r);
        expect_u32(seg, PROC, r, PMIX_NODEID, PMIX_UINT32, s.me); /* the host's value wins */
        expect_u32(seg, PROC, r, PMIX_LOCAL_RANK, PMIX_UINT16, local_of(&s, r));
        expect_u32(seg, PROC, r, "site.num", PMIX_UINT32, r % 3 == 0 ? 5 : r);
        snprintf(tag, sizeof(tag), "tag-%u", r * 7);
        expect_str(seg, PROC, r, "site.tag", tag);
        pmix_info_t *all;
        size_t n;
        assert_int_equal(PMIX_SUCCESS, sy_jseg_get_all(seg, PROC, r, &all, &n));
        for (size_t i = 0; i < n; i++) {
            if (strcmp(all[i].key, PMIX_APPNUM) == 0) {
                assert_int_equal(PMIX_INT, all[i].value.type); /* the column hides the derived */
            }
        }
        PMIX_INFO_FREE(all, n);
    }
    sy_jseg_close(seg);
    infos_free(&maps);
    infos_free(&orte);
    infos_free(&slurm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_million),    cmocka_unit_test(test_cyclic),
        cmocka_unit_test(test_irregular),  cmocka_unit_test(test_apps),
        cmocka_unit_test(test_high_ranks), cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_many_peers), cmocka_unit_test(test_every_rank),
    };
    setenv("SWITCHYARD_LOG", "error", 1);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
