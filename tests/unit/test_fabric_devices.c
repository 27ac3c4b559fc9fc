/* Unit test: local fabric device inventory (src/fabric/devices*.c) and
 * device distances (src/sched/distances.c).
 *
 * libfabric reads its FI_* environment and loads its providers once per
 * process, so every scenario that calls fi_getinfo runs in a forked child
 * that sets the environment first; the child reports failures with CHECK
 * (file:line on stderr) and its exit status.  The fake provider
 * libfakenic-fi.so is in FAKEPROV_DIR (built by tests/unit/unit.mk) and
 * the hwloc XML in FABRIC_DATA_DIR. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix.h>

#include "fabric/devices.h"
#include "sched/distances.h"

#ifndef FABRIC_DATA_DIR
#define FABRIC_DATA_DIR "tests/fabric/data"
#endif
#ifndef FAKEPROV_DIR
#define FAKEPROV_DIR "tests/fabric/fakeprov"
#endif

/* hwloc 2.9's PCI discovery (the hwloc_pci plugin, through libpciaccess)
 * leaks ~1 KiB on every topology load with I/O objects, in code unloaded
 * by the time LeakSanitizer reports; only that is suppressed. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:hwloc_topology_load\n";
}
/* the fast unwinder stops at the unloaded plugin: the suppression needs
 * the full stack */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

/* ------------------------------------------------------------ helpers */

static const char *xml_path(void)
{
    static char path[4096];
    const char *top = getenv("top_srcdir");

    if (top != NULL) {
        snprintf(path, sizeof(path), "%s/tests/fabric/data/hwloc_2pkg_ib.xml", top);
    } else {
        snprintf(path, sizeof(path), "%s/hwloc_2pkg_ib.xml", FABRIC_DATA_DIR);
    }
    return path;
}

static hwloc_topology_t load_xml(void)
{
    hwloc_topology_t t;

    if (hwloc_topology_init(&t) != 0) {
        return NULL;
    }
    if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
        hwloc_topology_set_xml(t, xml_path()) != 0 || hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

/* Failures inside forked children: count and report, never longjmp. */
static int child_failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            child_failures++;                                                                      \
        }                                                                                          \
    } while (0)
#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) {                                     \
            fprintf(stderr, "%s:%d: \"%s\" != \"%s\" (%s)\n", __FILE__, __LINE__,                  \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)", #a);                                   \
            child_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* Run fn in a child with the given environment (NULL-terminated
 * name/value pairs) and assert it succeeded.  exit() rather than _exit()
 * so that LeakSanitizer checks the child. */
static void run_child(void (*fn)(void), const char *const *env)
{
    pid_t pid;
    int status = 0;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (; env != NULL && env[0] != NULL; env += 2) {
            setenv(env[0], env[1], 1);
        }
        child_failures = 0;
        fn();
        exit(child_failures == 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static const sy_device_t *find_dev(const sy_device_list_t *l, const char *osname)
{
    size_t i;

    for (i = 0; i < l->n; ++i) {
        if (l->devs[i].osname != NULL && strcmp(l->devs[i].osname, osname) == 0) {
            return &l->devs[i];
        }
    }
    return NULL;
}

static size_t count_name(const sy_device_list_t *l, const char *osname)
{
    size_t i, c = 0;

    for (i = 0; i < l->n; ++i) {
        c += (l->devs[i].osname != NULL && strcmp(l->devs[i].osname, osname) == 0);
    }
    return c;
}

static bool has_alias(const sy_device_t *d, const char *name)
{
    size_t i;

    for (i = 0; i < d->naliases; ++i) {
        if (strcmp(d->aliases[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* Every record converts, with PMIX_DEVICE_ID first and equal to d->id. */
static void check_converts(const sy_device_list_t *l)
{
    size_t i;

    for (i = 0; i < l->n; ++i) {
        pmix_data_array_t da;
        pmix_info_t *info;

        CHECK(sy_device_to_info(&l->devs[i], &da) == PMIX_SUCCESS);
        CHECK(da.type == PMIX_INFO && da.size >= 1);
        if (da.size >= 1) {
            info = da.array;
            CHECK(strcmp(info[0].key, PMIX_DEVICE_ID) == 0);
            CHECK(info[0].value.type == PMIX_STRING);
            CHECK_STR(info[0].value.data.string, l->devs[i].id);
        }
        PMIx_Data_array_destruct(&da);
    }
}

/* ------------------------------------------- (a) tcp on lo, no NIC data */

static void child_tcp(void)
{
    sy_devices_opts_t o = {.hostname = "hostA", .topology = NULL, .flags = SY_DEVICES_NO_HWLOC};
    sy_device_list_t l;
    const sy_device_t *lo;

    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    /* libfabric gives ~8 entries for lo (tcp, tcp;ofi_rxm, v4 and v6):
     * one device */
    CHECK(count_name(&l, "lo") == 1);
    lo = find_dev(&l, "lo");
    CHECK(lo != NULL);
    if (lo != NULL) {
        CHECK_STR(lo->id, "hostA:lo");
        CHECK(lo->pci_devid == NULL && lo->bus_type == NULL && lo->vendorid == NULL);
        CHECK(lo->driver == NULL && lo->firmware == NULL && lo->address == NULL);
        CHECK(lo->has == 0);
        CHECK(lo->sources == SY_DEV_SRC_FABRIC);
        CHECK_STR(lo->provider, "tcp");
        CHECK(lo->devtype == PMIX_DEVTYPE_NETWORK);
    }
    check_converts(&l);
    sy_device_list_free(&l);
    CHECK(l.devs == NULL && l.n == 0);

    /* entries without fid_nic can be skipped */
    o.flags = SY_DEVICES_NO_HWLOC | SY_DEVICES_NIC_ONLY;
    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 0 && l.devs == NULL);
    sy_device_list_free(&l);

    /* with this machine's hwloc view too, and default options */
    CHECK(sy_devices_gather(NULL, &l) == PMIX_SUCCESS);
    CHECK(count_name(&l, "lo") == 1);
    check_converts(&l);
    sy_device_list_free(&l);
    sy_devices_cache_release();
    sy_devices_cache_release(); /* idempotent */
}

static void test_tcp_lo(void **state)
{
    static const char *const env[] = {"FI_PROVIDER", "tcp", "FI_TCP_IFACE", "lo", NULL};
    (void)state;
    run_child(child_tcp, env);
}

/* ------------------------------------------- (b) fake provider, 2 NICs */

static void check_fake_nic(const sy_device_t *d, int i, bool merged)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "hostA:fake%d", i);
    CHECK_STR(d->id, buf);
    snprintf(buf, sizeof(buf), "0000:%02x:00:00", 0x21 + i);
    CHECK_STR(d->pci_devid, buf);
    CHECK_STR(d->bus_type, "PCI");
    CHECK_STR(d->vendorid, "0x17db");
    CHECK_STR(d->vendor, merged ? "Mellanox Technologies" : "Hewlett Packard Enterprise");
    CHECK_STR(d->driver, "fakenic");
    CHECK_STR(d->firmware, "1.5.41");
    snprintf(buf, sizeof(buf), "0x%x", 0x1000 + i);
    CHECK_STR(d->address, buf);
    CHECK_STR(d->type, "Ethernet");
    CHECK_STR(d->provider, "fakenic");
    CHECK(d->has == (SY_DEV_HAS_MTU | SY_DEV_HAS_SPEED | SY_DEV_HAS_STATE));
    CHECK(d->mtu == 2048);
    CHECK(d->speed == 200000000000ULL);
    CHECK(d->state == PMIX_LINK_UP);
    CHECK(d->sources == (merged ? (SY_DEV_SRC_FABRIC | SY_DEV_SRC_HWLOC) : SY_DEV_SRC_FABRIC));
}

static void child_fake(void)
{
    sy_devices_opts_t o = {.hostname = "hostA", .topology = NULL, .flags = SY_DEVICES_NO_HWLOC};
    sy_device_list_t l;
    hwloc_topology_t xml;
    pmix_data_array_t da;

    /* each NIC comes in two entries (RDM and DGRAM): two devices */
    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 2);
    if (l.n == 2) {
        CHECK_STR(l.devs[0].osname, "fake0");
        CHECK_STR(l.devs[1].osname, "fake1");
        check_fake_nic(&l.devs[0], 0, false);
        check_fake_nic(&l.devs[1], 1, false);
        CHECK(l.devs[0].devtype == PMIX_DEVTYPE_NETWORK);
    }
    check_converts(&l);
    /* the PMIX_FABRIC_DEVICES form */
    CHECK(sy_devices_to_info(&l, &da) == PMIX_SUCCESS);
    CHECK(da.type == PMIX_INFO && da.size == 2);
    if (da.size == 2) {
        pmix_info_t *dev = da.array;
        size_t k;

        for (k = 0; k < 2; ++k) {
            pmix_data_array_t *inner = dev[k].value.data.darray;

            CHECK(strcmp(dev[k].key, PMIX_FABRIC_DEVICE) == 0);
            CHECK(dev[k].value.type == PMIX_DATA_ARRAY && inner != NULL);
            if (inner != NULL) {
                /* id + 13 attributes (no index) */
                CHECK(inner->type == PMIX_INFO && inner->size == 13);
                CHECK(strcmp(((pmix_info_t *)inner->array)[0].key, PMIX_DEVICE_ID) == 0);
            }
        }
    }
    PMIx_Data_array_destruct(&da);
    sy_device_list_free(&l);

    /* the result is cached: a new knob value is not seen ... */
    setenv("FAKENIC_COUNT", "3", 1);
    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 2);
    sy_device_list_free(&l);
    /* ... until the cache is released */
    sy_devices_cache_release();
    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 3);
    sy_device_list_free(&l);
    setenv("FAKENIC_COUNT", "2", 1);
    sy_devices_cache_release();

    /* merged with hwloc: fake0 sits on the HCA's PCI function 0000:21:00.0 */
    xml = load_xml();
    CHECK(xml != NULL);
    o.topology = xml;
    o.flags = 0;
    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 3);
    if (l.n == 3) {
        /* PCI order: eth0 (00:03), fake0 (21:00), fake1 (22:00) */
        CHECK_STR(l.devs[0].osname, "eth0");
        CHECK_STR(l.devs[1].osname, "fake0");
        CHECK_STR(l.devs[2].osname, "fake1");
        check_fake_nic(&l.devs[1], 0, true);
        check_fake_nic(&l.devs[2], 1, false);
        CHECK(has_alias(&l.devs[1], "mlx5_0") && has_alias(&l.devs[1], "ib0") &&
              has_alias(&l.devs[1], "fake0"));
        CHECK_STR(l.devs[1].guid, "0xf452140300096fd0");
        CHECK(l.devs[1].devtype == PMIX_DEVTYPE_OPENFABRICS);
        CHECK(l.devs[0].sources == SY_DEV_SRC_HWLOC);
    }
    check_converts(&l);
    sy_device_list_free(&l);
    if (xml != NULL) {
        hwloc_topology_destroy(xml);
    }
    sy_devices_cache_release();
}

/* Concurrent gathers share the one cached fi_getinfo result. */
static void *gather_thread(void *arg)
{
    sy_devices_opts_t o = {.hostname = "hostA", .topology = NULL, .flags = SY_DEVICES_NO_HWLOC};
    sy_device_list_t l;
    size_t *n = arg;
    int i;

    for (i = 0; i < 20; ++i) {
        if (sy_devices_gather(&o, &l) != PMIX_SUCCESS) {
            *n = 0;
            return NULL;
        }
        *n = l.n;
        sy_device_list_free(&l);
    }
    return NULL;
}

static void child_fake_threads(void)
{
    pthread_t th[4];
    size_t n[4] = {9, 9, 9, 9};
    int i;

    for (i = 0; i < 4; ++i) {
        CHECK(pthread_create(&th[i], NULL, gather_thread, &n[i]) == 0);
    }
    for (i = 0; i < 4; ++i) {
        CHECK(pthread_join(th[i], NULL) == 0);
        CHECK(n[i] == 2);
    }
    sy_devices_cache_release();
}

static void test_fake_threads(void **state)
{
    static const char *const env[] = {"FI_PROVIDER_PATH", FAKEPROV_DIR, "FI_PROVIDER", "fakenic",
                                      "FAKENIC_COUNT",    "2",          NULL};
    (void)state;
    run_child(child_fake_threads, env);
}

static void test_fake_provider(void **state)
{
    static const char *const env[] = {"FI_PROVIDER_PATH", FAKEPROV_DIR,    "FI_PROVIDER",
                                      "fakenic",          "FAKENIC_COUNT", "2",
                                      "FAKENIC_PREFIX",   "fake",          NULL};
    (void)state;
    run_child(child_fake, env);
}

static void child_fake_none(void)
{
    sy_devices_opts_t o = {.hostname = "h", .topology = NULL, .flags = SY_DEVICES_NO_HWLOC};
    sy_device_list_t l;

    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 0 && l.devs == NULL);
    sy_device_list_free(&l);
    sy_devices_cache_release();
}

/* a provider that finds nothing: no devices, success */
static void test_fake_no_nic(void **state)
{
    static const char *const env[] = {"FI_PROVIDER_PATH", FAKEPROV_DIR, "FI_PROVIDER", "fakenic",
                                      "FAKENIC_COUNT",    "0",          NULL};
    (void)state;
    run_child(child_fake_none, env);
}

static void child_prefix(void)
{
    sy_devices_opts_t o = {.hostname = "n7", .topology = NULL, .flags = SY_DEVICES_NO_HWLOC};
    sy_device_list_t l;

    CHECK(sy_devices_gather(&o, &l) == PMIX_SUCCESS);
    CHECK(l.n == 4);
    if (l.n == 4) {
        CHECK_STR(l.devs[0].id, "n7:cxi0");
        CHECK_STR(l.devs[3].id, "n7:cxi3");
        CHECK_STR(l.devs[3].pci_devid, "0000:24:00:00");
    }
    sy_device_list_free(&l);
    sy_devices_cache_release();
}

static void test_fake_prefix(void **state)
{
    static const char *const env[] = {"FI_PROVIDER_PATH", FAKEPROV_DIR,    "FI_PROVIDER",
                                      "fakenic",          "FAKENIC_COUNT", "4",
                                      "FAKENIC_PREFIX",   "cxi",           NULL};
    (void)state;
    run_child(child_prefix, env);
}

/* ------------------------------------------------- hwloc-only inventory */

static void test_hwloc_xml_devices(void **state)
{
    hwloc_topology_t xml = load_xml();
    sy_devices_opts_t o = {.hostname = "node1", .topology = NULL, .flags = SY_DEVICES_NO_FABRIC};
    sy_device_list_t l;
    const sy_device_t *d;

    (void)state;
    assert_non_null(xml);
    o.topology = xml;
    assert_int_equal(sy_devices_gather(&o, &l), PMIX_SUCCESS);
    /* mlx5_0 and ib0 are one PCI function: one device, named by OpenFabrics */
    assert_int_equal(l.n, 2);
    d = &l.devs[0];
    assert_string_equal(d->osname, "eth0");
    assert_string_equal(d->id, "node1:eth0");
    assert_string_equal(d->pci_devid, "0000:00:03:00");
    assert_string_equal(d->bus_type, "PCI");
    assert_string_equal(d->vendorid, "0x8086");
    assert_string_equal(d->vendor, "Intel Corporation");
    assert_string_equal(d->address, "02:fc:00:00:00:01");
    assert_string_equal(d->type, "Ethernet");
    assert_null(d->guid);
    assert_int_equal(d->devtype, PMIX_DEVTYPE_NETWORK);
    d = &l.devs[1];
    assert_string_equal(d->osname, "mlx5_0");
    assert_string_equal(d->id, "node1:mlx5_0");
    assert_true(has_alias(d, "ib0"));
    assert_string_equal(d->pci_devid, "0000:21:00:00");
    assert_string_equal(d->vendorid, "0x15b3");
    assert_string_equal(d->vendor, "Mellanox Technologies");
    assert_string_equal(d->type, "InfiniBand");
    assert_string_equal(d->guid, "0xf452140300096fd0");
    assert_string_equal(d->address, "00:00:10:87:fe:80:00:00:00:00:00:00:f4:52:14:03:00:09:6f:d1");
    assert_int_equal(d->devtype, PMIX_DEVTYPE_OPENFABRICS);
    assert_int_equal(d->has, 0);
    assert_null(d->driver);
    sy_device_list_free(&l);
    hwloc_topology_destroy(xml);

    assert_int_equal(sy_devices_gather(NULL, NULL), PMIX_ERR_BAD_PARAM);
}

/* ------------------------------------------------ (c) info conversion */

static const pmix_info_t *ifind(const pmix_data_array_t *da, const char *key)
{
    const pmix_info_t *info = da->array;
    size_t i;

    for (i = 0; i < da->size; ++i) {
        if (strcmp(info[i].key, key) == 0) {
            return &info[i];
        }
    }
    return NULL;
}

static void test_to_info_full(void **state)
{
    sy_device_t d;
    pmix_data_array_t da;
    const pmix_info_t *p;
    static const struct {
        const char *key;
        const char *val;
    } strs[] = {
        {PMIX_FABRIC_DEVICE_NAME, "hsn0"},
        {PMIX_FABRIC_DEVICE_VENDOR, "HPE"},
        {PMIX_FABRIC_DEVICE_VENDORID, "0x17db"},
        {PMIX_FABRIC_DEVICE_BUS_TYPE, "PCI"},
        {PMIX_FABRIC_DEVICE_PCI_DEVID, "abc1:0f:23:01"},
        {PMIX_FABRIC_DEVICE_DRIVER, "cxi_core"},
        {PMIX_FABRIC_DEVICE_FIRMWARE, "1.5.41"},
        {PMIX_FABRIC_DEVICE_ADDRESS, "0x1000"},
        {PMIX_FABRIC_DEVICE_TYPE, "Ethernet"},
    };
    size_t i;

    (void)state;
    memset(&d, 0, sizeof(d));
    d.id = strdup("n0:hsn0");
    d.osname = strdup("hsn0");
    d.vendor = strdup("HPE");
    d.vendorid = strdup("0x17db");
    d.bus_type = strdup("PCI");
    d.pci_devid = strdup("abc1:0f:23:01");
    d.driver = strdup("cxi_core");
    d.firmware = strdup("1.5.41");
    d.address = strdup("0x1000");
    d.type = strdup("Ethernet");
    d.guid = strdup("0x1");
    d.mtu = 2048;
    d.speed = 200000000000ULL;
    d.state = PMIX_LINK_DOWN;
    d.index = 17;
    d.has = SY_DEV_HAS_MTU | SY_DEV_HAS_SPEED | SY_DEV_HAS_STATE | SY_DEV_HAS_INDEX;

    assert_int_equal(sy_device_to_info(&d, &da), PMIX_SUCCESS);
    assert_int_equal(da.type, PMIX_INFO);
    assert_int_equal(da.size, 14);
    p = da.array;
    assert_string_equal(p[0].key, PMIX_DEVICE_ID);
    assert_int_equal(p[0].value.type, PMIX_STRING);
    assert_string_equal(p[0].value.data.string, "n0:hsn0");
    for (i = 0; i < sizeof(strs) / sizeof(strs[0]); ++i) {
        p = ifind(&da, strs[i].key);
        assert_non_null(p);
        assert_int_equal(p->value.type, PMIX_STRING);
        assert_string_equal(p->value.data.string, strs[i].val);
    }
    p = ifind(&da, PMIX_FABRIC_DEVICE_MTU);
    assert_non_null(p);
    assert_int_equal(p->value.type, PMIX_SIZE);
    assert_int_equal(p->value.data.size, 2048);
    p = ifind(&da, PMIX_FABRIC_DEVICE_SPEED);
    assert_non_null(p);
    assert_int_equal(p->value.type, PMIX_SIZE);
    assert_true(p->value.data.size == 200000000000ULL);
    p = ifind(&da, PMIX_FABRIC_DEVICE_STATE);
    assert_non_null(p);
    assert_int_equal(p->value.type, PMIX_LINK_STATE);
    assert_int_equal(p->value.data.linkstate, PMIX_LINK_DOWN);
    p = ifind(&da, PMIX_FABRIC_DEVICE_INDEX);
    assert_non_null(p);
    assert_int_equal(p->value.type, PMIX_UINT32);
    assert_int_equal(p->value.data.uint32, 17);
    PMIx_Data_array_destruct(&da);
    assert_null(da.array);

    /* only what is known is published */
    d.has = 0;
    free(d.vendor);
    d.vendor = NULL;
    assert_int_equal(sy_device_to_info(&d, &da), PMIX_SUCCESS);
    assert_int_equal(da.size, 9);
    assert_null(ifind(&da, PMIX_FABRIC_DEVICE_VENDOR));
    assert_null(ifind(&da, PMIX_FABRIC_DEVICE_MTU));
    assert_null(ifind(&da, PMIX_FABRIC_DEVICE_STATE));
    PMIx_Data_array_destruct(&da);
    sy_device_destruct(&d);
    assert_null(d.id);
}

static void test_to_info_minimal_and_bad(void **state)
{
    sy_device_t d;
    pmix_data_array_t da;
    sy_device_list_t l = {NULL, 0};

    (void)state;
    memset(&d, 0, sizeof(d));
    /* no id: the first element cannot be PMIX_DEVICE_ID */
    assert_int_equal(sy_device_to_info(&d, &da), PMIX_ERR_BAD_PARAM);
    assert_int_equal(da.size, 0);
    assert_null(da.array);
    assert_int_equal(sy_device_to_info(NULL, &da), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_device_to_info(&d, NULL), PMIX_ERR_BAD_PARAM);
    d.id = strdup("h:x");
    assert_int_equal(sy_device_to_info(&d, &da), PMIX_SUCCESS);
    assert_int_equal(da.size, 1);
    assert_string_equal(((pmix_info_t *)da.array)[0].key, PMIX_DEVICE_ID);
    PMIx_Data_array_destruct(&da);
    sy_device_destruct(&d);
    sy_device_destruct(NULL);

    assert_int_equal(sy_devices_to_info(&l, &da), PMIX_SUCCESS);
    assert_int_equal(da.size, 0);
    assert_int_equal(sy_devices_to_info(NULL, &da), PMIX_ERR_BAD_PARAM);
    l.n = 3; /* devs NULL */
    assert_int_equal(sy_devices_to_info(&l, &da), PMIX_ERR_BAD_PARAM);
    sy_device_list_free(NULL);

    {
        char *id = sy_device_make_id("h", "mlx5_0");
        assert_string_equal(id, "h:mlx5_0");
        free(id);
        assert_null(sy_device_make_id("h", NULL));
        id = sy_device_make_id(NULL, "x");
        assert_non_null(id);
        assert_true(strlen(id) > 2 && strcmp(id + strlen(id) - 2, ":x") == 0);
        free(id);
    }
}

/* ------------------------------------------------------ (d) distances */

static const pmix_device_distance_t *dfind(const pmix_device_distance_t *d, size_t n,
                                           const char *osname)
{
    size_t i;

    for (i = 0; i < n; ++i) {
        if (strcmp(d[i].osname, osname) == 0) {
            return &d[i];
        }
    }
    return NULL;
}

static void expect_dist(const pmix_device_distance_t *d, size_t n, const char *osname,
                        pmix_device_type_t type, uint16_t mind, uint16_t maxd)
{
    const pmix_device_distance_t *e = dfind(d, n, osname);
    char uuid[64];

    assert_non_null(e);
    snprintf(uuid, sizeof(uuid), "node1:%s", osname);
    assert_string_equal(e->uuid, uuid);
    assert_int_equal(e->type, type);
    assert_int_equal(e->mindist, mind);
    assert_int_equal(e->maxdist, maxd);
}

static void test_distances_xml(void **state)
{
    hwloc_topology_t t = load_xml();
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    pmix_device_distance_t *d = NULL;
    size_t n = 99;

    (void)state;
    assert_non_null(t);
    assert_non_null(set);

    /* bound to PU 0 (package 0): the HCA is local, the GPU one level up */
    hwloc_bitmap_only(set, 0);
    assert_int_equal(sy_device_distances_host(t, set, 0, "node1", &d, &n), PMIX_SUCCESS);
    assert_int_equal(n, 4); /* ib0, mlx5_0, card1, eth0 */
    expect_dist(d, n, "mlx5_0", PMIX_DEVTYPE_OPENFABRICS, 0, 0);
    expect_dist(d, n, "ib0", PMIX_DEVTYPE_NETWORK, 0, 0);
    expect_dist(d, n, "card1", PMIX_DEVTYPE_GPU, 1, 1);
    expect_dist(d, n, "eth0", PMIX_DEVTYPE_NETWORK, 0, 0);
    PMIX_DEVICE_DIST_FREE(d, n);

    /* spread over both packages: min and max differ */
    hwloc_bitmap_only(set, 1);
    hwloc_bitmap_set(set, 3);
    assert_int_equal(sy_device_distances_host(t, set, 0, "node1", &d, &n), PMIX_SUCCESS);
    expect_dist(d, n, "mlx5_0", PMIX_DEVTYPE_OPENFABRICS, 0, 1);
    expect_dist(d, n, "card1", PMIX_DEVTYPE_GPU, 0, 1);
    expect_dist(d, n, "eth0", PMIX_DEVTYPE_NETWORK, 0, 0);
    PMIX_DEVICE_DIST_FREE(d, n);

    /* bound to package 1 only, asking for OpenFabrics devices only */
    hwloc_bitmap_only(set, 2);
    assert_int_equal(sy_device_distances_host(t, set, PMIX_DEVTYPE_OPENFABRICS, "node1", &d, &n),
                     PMIX_SUCCESS);
    assert_int_equal(n, 1);
    expect_dist(d, n, "mlx5_0", PMIX_DEVTYPE_OPENFABRICS, 1, 1);
    PMIX_DEVICE_DIST_FREE(d, n);

    /* no device of the requested type */
    assert_int_equal(sy_device_distances(t, set, PMIX_DEVTYPE_BLOCK, &d, &n), PMIX_SUCCESS);
    assert_int_equal(n, 0);
    assert_null(d);

    /* PUs the machine does not have: unknown distance */
    hwloc_bitmap_only(set, 40);
    assert_int_equal(sy_device_distances_host(t, set, PMIX_DEVTYPE_GPU, "node1", &d, &n),
                     PMIX_SUCCESS);
    expect_dist(d, n, "card1", PMIX_DEVTYPE_GPU, UINT16_MAX, UINT16_MAX);
    PMIX_DEVICE_DIST_FREE(d, n);

    assert_int_equal(sy_device_distances(NULL, set, 0, &d, &n), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_device_distances(t, NULL, 0, &d, &n), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_device_distances(t, set, 0, NULL, &n), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_device_distances(t, set, 0, &d, NULL), PMIX_ERR_BAD_PARAM);

    hwloc_bitmap_free(set);
    hwloc_topology_destroy(t);
}

/* A machine without I/O devices (synthetic topologies have none). */
static void test_distances_no_devices(void **state)
{
    hwloc_topology_t t;
    pmix_device_distance_t *d = (pmix_device_distance_t *)1;
    size_t n = 5;

    (void)state;
    assert_int_equal(hwloc_topology_init(&t), 0);
    assert_int_equal(hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:1"), 0);
    assert_int_equal(hwloc_topology_load(t), 0);
    assert_int_equal(sy_device_distances(t, hwloc_topology_get_topology_cpuset(t), 0, &d, &n),
                     PMIX_SUCCESS);
    assert_int_equal(n, 0);
    assert_null(d);
    hwloc_topology_destroy(t);
}

/* This machine: whatever it has, the answers are consistent. */
static void test_distances_local(void **state)
{
    hwloc_topology_t t;
    pmix_device_distance_t *d = NULL;
    size_t n = 0, i;

    (void)state;
    assert_int_equal(hwloc_topology_init(&t), 0);
    assert_int_equal(hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT), 0);
    assert_int_equal(hwloc_topology_load(t), 0);
    assert_int_equal(sy_device_distances(t, hwloc_topology_get_topology_cpuset(t),
                                         SY_DEVDIST_DEFAULT_TYPES | PMIX_DEVTYPE_BLOCK, &d, &n),
                     PMIX_SUCCESS);
    for (i = 0; i < n; ++i) {
        assert_non_null(d[i].uuid);
        assert_non_null(d[i].osname);
        assert_true(d[i].mindist <= d[i].maxdist);
        assert_true(d[i].maxdist != UINT16_MAX);
    }
    PMIX_DEVICE_DIST_FREE(d, n);
    hwloc_topology_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_info_full),
        cmocka_unit_test(test_to_info_minimal_and_bad),
        cmocka_unit_test(test_hwloc_xml_devices),
        cmocka_unit_test(test_distances_xml),
        cmocka_unit_test(test_distances_no_devices),
        cmocka_unit_test(test_distances_local),
        cmocka_unit_test(test_tcp_lo),
        cmocka_unit_test(test_fake_provider),
        cmocka_unit_test(test_fake_no_nic),
        cmocka_unit_test(test_fake_prefix),
        cmocka_unit_test(test_fake_threads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
