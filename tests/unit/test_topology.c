/* Unit test: locality strings, relative locality, cpuset strings,
 * PMIx_Load_topology and the server's topology sharing, on a synthetic
 * machine whose answers follow from its layout and on this machine. */
#define _GNU_SOURCE
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
#include <pmix_server.h>

#include "common/jseg.h"
#include "common/store.h"
#include "common/topology.h"
#include "common/wire.h"
#include "server/server_topology.h"

/* hwloc 2.9's PCI discovery (through libpciaccess) leaks on every load of
 * this machine with I/O objects, in a plugin unloaded by the time
 * LeakSanitizer reports (as in test_fabric_devices); only that is
 * suppressed, with the full stack it needs. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:hwloc_topology_load\n";
}
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

/* 2 packages, each with one NUMA node and one L3; 2 L2 (each with its own
 * L1) per L3; 2 cores per L1; 2 PUs per core.  PU i (logical = physical)
 * sits in package i/8, L3 i/8, L2 and L1 i/4, core i/2, NUMA node i/8. */
#define SYNTH "pack:2 numa:1 l3:1 l2:2 l1:1 core:2 pu:2"
#define NPU 16
#define PKG(i) ((i) / 8)
#define L2(i) ((i) / 4)
#define CORE(i) ((i) / 2)

static hwloc_topology_t synth(void)
{
    hwloc_topology_t t;
    assert_int_equal(0, hwloc_topology_init(&t));
    assert_int_equal(0, hwloc_topology_set_synthetic(t, SYNTH));
    assert_int_equal(0, hwloc_topology_load(t));
    return t;
}

static hwloc_bitmap_t bits(const char *list)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    assert_non_null(b);
    assert_int_equal(0, hwloc_bitmap_list_sscanf(b, list));
    return b;
}

static char *locstr(hwloc_topology_t t, const char *list)
{
    hwloc_bitmap_t b = bits(list);
    char *s = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topology_locality_string(t, b, &s));
    hwloc_bitmap_free(b);
    return s;
}

/* ---- locality strings on the synthetic machine ------------------------ */

static void test_single_pu_strings(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    for (int i = 0; i < NPU; i++) {
        char list[16], want[128];
        snprintf(list, sizeof(list), "%d", i);
        snprintf(want, sizeof(want), "SK%d:L3%d:L2%d:L1%d:CR%d:HT%d:NM%d", PKG(i), PKG(i), L2(i),
                 L2(i), CORE(i), i, PKG(i));
        char *s = locstr(t, list);
        assert_non_null(s);
        assert_string_equal(want, s);
        free(s);
    }
    hwloc_topology_destroy(t);
}

static void test_span_strings(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    /* PUs 2..5: cores 1 and 2, which sit under different L2s */
    char *s = locstr(t, "2-5");
    assert_string_equal("SK0:L30:L20-1:L10-1:CR1-2:HT2-5:NM0", s);
    free(s);
    /* one PU in each package */
    s = locstr(t, "7,8");
    assert_string_equal("SK0-1:L30-1:L21-2:L11-2:CR3-4:HT7-8:NM0-1", s);
    free(s);
    /* the whole machine, or more: unbound */
    s = locstr(t, "0-15");
    assert_null(s);
    s = locstr(t, "0-");
    assert_null(s);
    /* PUs the machine does not have */
    hwloc_bitmap_t b = bits("16-20");
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_locality_string(t, b, &s));
    assert_null(s);
    hwloc_bitmap_free(b);
    hwloc_topology_destroy(t);
}

/* ---- relative locality ------------------------------------------------- */

static pmix_locality_t expected_sharing(int a, int b)
{
    pmix_locality_t l = PMIX_LOCALITY_SHARE_NODE;
    if (PKG(a) == PKG(b)) {
        l |= PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE | PMIX_LOCALITY_SHARE_NUMA;
    }
    if (L2(a) == L2(b)) {
        l |= PMIX_LOCALITY_SHARE_L2CACHE | PMIX_LOCALITY_SHARE_L1CACHE;
    }
    if (CORE(a) == CORE(b)) {
        l |= PMIX_LOCALITY_SHARE_CORE;
    }
    if (a == b) {
        l |= PMIX_LOCALITY_SHARE_HWTHREAD;
    }
    return l;
}

static void test_relative_every_pair(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    char *s[NPU];
    for (int i = 0; i < NPU; i++) {
        char list[16];
        snprintf(list, sizeof(list), "%d", i);
        s[i] = locstr(t, list);
    }
    for (int a = 0; a < NPU; a++) {
        for (int b = 0; b < NPU; b++) {
            pmix_locality_t l = 0;
            assert_int_equal(PMIX_SUCCESS, PMIx_Get_relative_locality(s[a], s[b], &l));
            assert_int_equal(expected_sharing(a, b), l);
        }
    }
    /* the "hwloc:" prefixed form compares the same */
    char *p = NULL;
    assert_true(asprintf(&p, "hwloc:%s", s[1]) > 0);
    pmix_locality_t l = 0;
    assert_int_equal(PMIX_SUCCESS, PMIx_Get_relative_locality(p, s[0], &l));
    assert_int_equal(expected_sharing(1, 0), l);
    free(p);
    for (int i = 0; i < NPU; i++) {
        free(s[i]);
    }
    hwloc_topology_destroy(t);
}

static void test_relative_partial_levels(void **state)
{
    (void)state;
    pmix_locality_t l = 0;
    /* only the levels both strings name are compared */
    assert_int_equal(PMIX_SUCCESS, PMIx_Get_relative_locality("SK0:CR1", "CR1-2:HT3", &l));
    assert_int_equal(PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_CORE, l);
    assert_int_equal(PMIX_SUCCESS, PMIx_Get_relative_locality("NM0", "NM1", &l));
    assert_int_equal(PMIX_LOCALITY_SHARE_NODE, l);
}

static void test_relative_bad_strings(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",      "hwloc:", "XX0",        "SK",  "SK0:", ":SK0", "SK0::CR1", "SK0:SK1",   "SKa",
        "SK1-0", "SK0,",   "SK99999999", "sk0", "SK0 ", "SK-1", "SK0;L30",  "HT0-1,3-2", "L40",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pmix_locality_t l = 0x1234;
        assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_relative_locality(bad[i], "SK0", &l));
        assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_relative_locality("SK0", bad[i], &l));
        assert_int_equal(0x1234, l);
    }
    pmix_locality_t l;
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_relative_locality(NULL, "SK0", &l));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_relative_locality("SK0", NULL, &l));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_relative_locality("SK0", "SK0", NULL));
}

/* ---- cpuset strings ---------------------------------------------------- */

static void test_cpuset_round_trip(void **state)
{
    (void)state;
    static const char *const lists[] = {"0", "0-3,8,10-11", "5,7,9", "1048575", "3-"};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        pmix_cpuset_t in = {.source = "hwloc", .bitmap = bits(lists[i])};
        char *s = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_server_generate_cpuset_string(&in, &s));
        assert_non_null(s);
        assert_int_equal(0, strncmp(s, "hwloc:", 6));
        pmix_cpuset_t out;
        PMIX_CPUSET_CONSTRUCT(&out);
        assert_int_equal(PMIX_SUCCESS, PMIx_Parse_cpuset_string(s, &out));
        assert_string_equal("hwloc", out.source);
        assert_true(hwloc_bitmap_isequal(in.bitmap, out.bitmap));
        PMIx_Cpuset_destruct(&out);
        free(s);
        hwloc_bitmap_free(in.bitmap);
    }
}

static void test_cpuset_bad(void **state)
{
    (void)state;
    pmix_cpuset_t out;
    PMIX_CPUSET_CONSTRUCT(&out);
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Parse_cpuset_string("0-3", &out));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Parse_cpuset_string("other:0-3", &out));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Parse_cpuset_string("hwlocx:0-3", &out));
    static const char *const bad[] = {"hwloc:3-1",         "hwloc:a",  "hwloc:0x3",
                                      "hwloc:1,,2",        "hwloc:-1", "hwloc:1048576",
                                      "hwloc:0-4294967295"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Parse_cpuset_string(bad[i], &out));
    }
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Parse_cpuset_string(NULL, &out));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Parse_cpuset_string("hwloc:1", NULL));
    assert_null(out.source);
    assert_null(out.bitmap);

    char *s = (char *)"untouched";
    pmix_cpuset_t foreign = {.source = "other", .bitmap = (void *)&out};
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_server_generate_cpuset_string(&foreign, &s));
    assert_null(s);
    pmix_cpuset_t empty = {.source = "hwloc", .bitmap = NULL};
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_server_generate_cpuset_string(&empty, &s));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_server_generate_cpuset_string(NULL, &s));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_server_generate_locality_string(&foreign, &s));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_server_generate_locality_string(NULL, &s));
    /* no bitmap: an unbound process, no locality */
    s = (char *)"untouched";
    assert_int_equal(PMIX_SUCCESS, PMIx_server_generate_locality_string(&empty, &s));
    assert_null(s);
}

/* ---- the process-wide topology ------------------------------------------ */

static void test_adopted_topology(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    assert_int_equal(PMIX_SUCCESS, sy_topology_adopt(t, false));

    /* the public generator uses the process topology */
    pmix_cpuset_t cs = {.source = "hwloc", .bitmap = bits("6")};
    char *s = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_server_generate_locality_string(&cs, &s));
    char *want = locstr(t, "6");
    assert_string_equal(want, s);
    free(want);
    free(s);
    hwloc_bitmap_free(cs.bitmap);

    pmix_topology_t topo;
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&topo));
    assert_ptr_equal(t, topo.topology);
    assert_string_equal(sy_topology_source(), topo.source);
    assert_int_equal(0, strncmp(topo.source, "hwloc:", 6));
    /* the shared object survives a destruct by the caller */
    PMIx_Topology_destruct(&topo);
    assert_true(sy_topology_is_cached(t));
    assert_int_equal(NPU, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));

    /* a pinned source: ours matches, another provider does not */
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    topo.source = strdup("HWLOC");
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&topo));
    assert_string_equal("HWLOC", topo.source);
    assert_ptr_equal(t, topo.topology);
    PMIx_Topology_destruct(&topo);
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    topo.source = strdup("hwloc:0.1");
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Load_topology(&topo));
    free(topo.source);
    topo.source = strdup("other");
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Load_topology(&topo));
    assert_null(topo.topology);
    free(topo.source);
    /* already loaded: left alone */
    topo.source = NULL;
    topo.topology = (void *)&topo;
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&topo));
    assert_ptr_equal(&topo, topo.topology);
    assert_null(topo.source);
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Load_topology(NULL));

    /* the host's topology stays the host's */
    sy_topology_release_cached();
    assert_false(sy_topology_is_cached(t));
    hwloc_topology_destroy(t);
}

static void test_this_machine(void **state)
{
    (void)state;
    pmix_topology_t topo;
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&topo));
    hwloc_topology_t t = topo.topology;
    assert_non_null(t);
    /* loaded once per process */
    pmix_topology_t again;
    PMIX_TOPOLOGY_CONSTRUCT(&again);
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&again));
    assert_ptr_equal(t, again.topology);
    PMIx_Topology_destruct(&again);

    pmix_cpuset_t cs;
    PMIX_CPUSET_CONSTRUCT(&cs);
    assert_int_equal(PMIX_SUCCESS, PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS));
    assert_string_equal("hwloc", cs.source);
    assert_false(hwloc_bitmap_iszero(cs.bitmap));
    PMIx_Cpuset_destruct(&cs);
    PMIX_CPUSET_CONSTRUCT(&cs);
    assert_int_equal(PMIX_SUCCESS, PMIx_Get_cpuset(&cs, PMIX_CPUBIND_THREAD));
    PMIx_Cpuset_destruct(&cs);
    PMIX_CPUSET_CONSTRUCT(&cs);
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_cpuset(&cs, 7));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS));

    /* each PU: its own hwthread and core, and every level it names is
     * shared with itself */
    int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    assert_true(npu > 0);
    for (int i = 0; i < npu; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i);
        char *s = NULL;
        assert_int_equal(PMIX_SUCCESS, sy_topology_locality_string(t, pu->cpuset, &s));
        if (npu == 1) {
            assert_null(s); /* one PU is the whole machine */
            continue;
        }
        char ht[32];
        snprintf(ht, sizeof(ht), "HT%d", i);
        assert_non_null(strstr(s, ht));
        pmix_locality_t l = 0;
        assert_int_equal(PMIX_SUCCESS, PMIx_Get_relative_locality(s, s, &l));
        assert_true(l & PMIX_LOCALITY_SHARE_NODE);
        assert_true(l & PMIX_LOCALITY_SHARE_HWTHREAD);
        assert_int_equal(hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu) != NULL,
                         (l & PMIX_LOCALITY_SHARE_CORE) != 0);
        free(s);
    }
    char *s = (char *)"untouched";
    assert_int_equal(PMIX_SUCCESS,
                     sy_topology_locality_string(t, hwloc_topology_get_topology_cpuset(t), &s));
    assert_null(s);
    sy_topology_release_cached();
    free(topo.source);
}

static void *load_in_thread(void *arg)
{
    pmix_topology_t *topo = arg;
    PMIX_TOPOLOGY_CONSTRUCT(topo);
    return (void *)(intptr_t)PMIx_Load_topology(topo);
}

/* Threads racing on the first load all get the one topology. */
static void test_concurrent_first_load(void **state)
{
    (void)state;
    enum { N = 4 };
    pthread_t th[N];
    pmix_topology_t topo[N];
    sy_topology_release_cached();
    for (int i = 0; i < N; i++) {
        assert_int_equal(0, pthread_create(&th[i], NULL, load_in_thread, &topo[i]));
    }
    for (int i = 0; i < N; i++) {
        void *rc;
        assert_int_equal(0, pthread_join(th[i], &rc));
        assert_int_equal(PMIX_SUCCESS, (pmix_status_t)(intptr_t)rc);
        assert_non_null(topo[i].topology);
        assert_ptr_equal(topo[0].topology, topo[i].topology);
    }
    for (int i = 0; i < N; i++) {
        PMIx_Topology_destruct(&topo[i]);
    }
    sy_topology_release_cached();
}

/* ---- XML through the screening path ------------------------------------ */

static void test_xml_import(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    char *xml = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topology_export_xml(t, &xml));
    hwloc_topology_t back = NULL;
    /* with or without its terminating NUL */
    assert_int_equal(PMIX_SUCCESS, sy_topology_import_xml(xml, strlen(xml) + 1, false, &back));
    hwloc_topology_destroy(back);
    assert_int_equal(PMIX_SUCCESS, sy_topology_import_xml(xml, strlen(xml), false, &back));
    for (int i = 0; i < NPU; i += 3) {
        char list[16];
        snprintf(list, sizeof(list), "%d", i);
        char *a = locstr(t, list), *b = locstr(back, list);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    hwloc_topology_destroy(back);

    /* truncated, garbage, and a PU without os_index are refused */
    hwloc_topology_t none = NULL;
    size_t len = strlen(xml);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_import_xml(xml, len / 2, false, &none));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_import_xml("<topology>", 10, false, &none));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_import_xml("garbage", 7, false, &none));
    char *p = strstr(xml, "type=\"PU\" os_index=\"3\"");
    assert_non_null(p);
    memcpy(p + 10, "xs_index", 8);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_import_xml(xml, len, false, &none));
    /* an embedded NUL would hide the rest of the document from the screen */
    p[0] = '\0';
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topology_import_xml(xml, len, false, &none));
    assert_null(none);
    free(xml);
    hwloc_topology_destroy(t);
}

/* ---- the topology a server published, found through the store ---------- */

/* A resources segment naming this host, with xml as its topology. */
static void publish_node(const char *path, const char *xml)
{
    char host[256];
    assert_int_equal(0, gethostname(host, sizeof(host)));
    host[sizeof(host) - 1] = '\0';
    sy_jseg_builder_t *b = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(NULL, &b));
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = host;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, SY_REALM_NODE, 0, PMIX_HOSTNAME, &v));
    v.data.string = (char *)xml;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, SY_REALM_NODE, 0, PMIX_HWLOC_XML_V2, &v));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
}

/* Whether PMIx_Load_topology returned the published document (marked on
 * its root) rather than this machine. */
static bool loaded_published(void)
{
    pmix_topology_t topo;
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    assert_int_equal(PMIX_SUCCESS, PMIx_Load_topology(&topo));
    hwloc_obj_t root = hwloc_get_root_obj(topo.topology);
    const char *mark = hwloc_obj_get_info_by_name(root, "SwitchyardTest");
    bool published = mark != NULL && strcmp(mark, "published") == 0;
    assert_int_equal(published ? NPU : hwloc_get_nbobjs_by_type(topo.topology, HWLOC_OBJ_PU),
                     hwloc_get_nbobjs_by_type(topo.topology, HWLOC_OBJ_PU));
    PMIx_Topology_destruct(&topo);
    sy_topology_release_cached();
    return published;
}

static void test_load_from_store(void **state)
{
    (void)state;
    char dir[] = "/tmp/sy-topo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char good[64], bad[64];
    snprintf(good, sizeof(good), "%s/good", dir);
    snprintf(bad, sizeof(bad), "%s/bad", dir);
    hwloc_topology_t t = synth();
    assert_int_equal(0, hwloc_obj_add_info(hwloc_get_root_obj(t), "SwitchyardTest", "published"));
    char *xml = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topology_export_xml(t, &xml));
    publish_node(good, xml);
    /* a PU without its os_index must not reach hwloc */
    char *p = strstr(xml, "type=\"PU\" os_index=\"3\"");
    assert_non_null(p);
    memcpy(p + 10, "xs_index", 8);
    publish_node(bad, xml);
    free(xml);
    unsetenv(SY_ENV_NSPACE);
    unsetenv(SY_ENV_HOSTNAME);

    sy_store_acquire();
    assert_int_equal(PMIX_SUCCESS, sy_store_attach_resources(good));
    assert_true(loaded_published());
    /* the node is named by the hostname the server gave its clients */
    setenv(SY_ENV_HOSTNAME, "no-such-node.invalid", 1);
    assert_false(loaded_published());
    unsetenv(SY_ENV_HOSTNAME);
    /* a refused document: discovered instead */
    assert_int_equal(PMIX_SUCCESS, sy_store_attach_resources(bad));
    assert_false(loaded_published());
    sy_store_attach_resources(NULL);
    sy_store_release();
    /* no store at all: discovered */
    assert_false(loaded_published());

    assert_int_equal(0, unlink(good));
    assert_int_equal(0, unlink(bad));
    assert_int_equal(0, rmdir(dir));
    hwloc_topology_destroy(t);
}

/* ---- the server's sharing ----------------------------------------------- */

static const pmix_info_t *find(const pmix_info_t *infos, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&infos[i], key)) {
            return &infos[i];
        }
    }
    return NULL;
}

static void test_server_share(void **state)
{
    (void)state;
    hwloc_topology_t t = synth();
    pmix_topology_t host = {.source = "hwloc", .topology = t};
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_TOPOLOGY2, &host, PMIX_TOPO);
    bool yes = true;
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_SHARE_TOPOLOGY, &yes, PMIX_BOOL);
    /* PMIX_INFO_LOAD deep-copies the topology: hand over the original */
    hwloc_topology_t copy = info[0].value.data.topo->topology;
    info[0].value.data.topo->topology = t;

    pmix_info_t *node = NULL;
    size_t nnode = 0;
    assert_int_equal(PMIX_SUCCESS, sy_server_topology_setup(info, 2, &node, &nnode));
    assert_true(sy_topology_is_cached(t));
    assert_in_range(nnode, 2, 3);

    const pmix_info_t *xml = find(node, nnode, PMIX_HWLOC_XML_V2);
    assert_non_null(xml);
    assert_int_equal(PMIX_STRING, xml->value.type);
    hwloc_topology_t back = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_topology_import_xml(xml->value.data.string, strlen(xml->value.data.string),
                                            true, &back));
    assert_int_equal(NPU, hwloc_get_nbobjs_by_type(back, HWLOC_OBJ_PU));
    hwloc_topology_destroy(back);

    const pmix_info_t *sig = find(node, nnode, PMIX_TOPOLOGY_SIGNATURE);
    assert_non_null(sig);
    const char *arch = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "Architecture");
    char want[128];
    snprintf(want, sizeof(want), "%dN:%dS:%dL3:%dL2:%dL1:%dC:%dH:%s:le", NPU / 8, NPU / 8, NPU / 8,
             NPU / 4, NPU / 4, NPU / 2, NPU, arch == NULL ? "unknown" : arch);
    assert_string_equal(want, sig->value.data.string);
    const pmix_info_t *mem = find(node, nnode, PMIX_AVAIL_PHYS_MEMORY);
    if (mem != NULL) {
        assert_int_equal(PMIX_UINT64, mem->value.type);
        assert_true(hwloc_get_root_obj(t)->total_memory == mem->value.data.uint64);
    }
    PMIX_INFO_FREE(node, nnode);
    sy_server_topology_finalize();
    assert_false(sy_topology_is_cached(t));

    /* not sharing: nothing to publish */
    assert_int_equal(PMIX_SUCCESS, sy_server_topology_setup(info, 1, &node, &nnode));
    assert_null(node);
    assert_int_equal(0, nnode);
    sy_server_topology_finalize();

    /* another provider, or a value of the wrong type */
    info[0].value.data.topo->source[0] = 'x';
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_server_topology_setup(info, 1, &node, &nnode));
    info[0].value.data.topo->source[0] = 'h';
    pmix_info_t wrong;
    PMIX_INFO_LOAD(&wrong, PMIX_TOPOLOGY2, "hwloc", PMIX_STRING);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_server_topology_setup(&wrong, 1, &node, &nnode));
    PMIX_INFO_DESTRUCT(&wrong);
    assert_false(sy_topology_is_cached(t));

    info[0].value.data.topo->topology = copy;
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    hwloc_topology_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_pu_strings),    cmocka_unit_test(test_span_strings),
        cmocka_unit_test(test_relative_every_pair),  cmocka_unit_test(test_relative_partial_levels),
        cmocka_unit_test(test_relative_bad_strings), cmocka_unit_test(test_cpuset_round_trip),
        cmocka_unit_test(test_cpuset_bad),           cmocka_unit_test(test_adopted_topology),
        cmocka_unit_test(test_this_machine),         cmocka_unit_test(test_concurrent_first_load),
        cmocka_unit_test(test_xml_import),           cmocka_unit_test(test_load_from_store),
        cmocka_unit_test(test_server_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
