/* Unit test: job-data segments (jseg.h): builder, publish/open round trip
 * of every value type, lookups by realm, node names, supersede marks,
 * refusal of truncated or altered files, publishing in place with a kept
 * scratch buffer and borrowed values, and mapping before checking. */
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

#include <hwloc.h>
#include <pmix.h>

#include "common/datatype.h"
#include "common/jseg.h"
#include "common/jseg_format.h"
#include "value_samples.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/sy-jseg-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

/* Remove every file the tests left in dir, then dir. */
static int remove_dir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

static void seg_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static bool round_trip_type(pmix_data_type_t type)
{
    return sy_value_kind(type) != SY_VALUE_NONE && type != PMIX_POINTER && type != PMIX_TOPO;
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

/* Every type a value can hold, in every realm, back exactly as put. */
static void test_round_trip(void **state)
{
    sy_jseg_builder_t *b;
    sy_jseg_t *seg;
    char path[128], key[64];
    pmix_value_t *back;
    (void)state;

    seg_path(path, sizeof(path), "all.seg");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.all", &b));
    for (size_t i = 0; i < sample_ntypes; i++) {
        pmix_data_type_t type = sample_types[i];
        if (!round_trip_type(type)) {
            continue;
        }
        void *elem = sample_new(type, (int)(i % 2));
        pmix_value_t v;
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(elem, type), type));
        snprintf(key, sizeof(key), "test.type.%u", (unsigned)type);
        for (int r = 0; r < SY_REALM_COUNT; r++) {
            assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, (sy_realm_t)r, (uint32_t)r * 3, key, &v));
        }
        PMIx_Value_destruct(&v);
        sample_free(elem, type);
    }
    /* a NULL string, distinct from "" */
    put_str(b, SY_REALM_JOB, 0, "test.null", NULL);
    put_str(b, SY_REALM_JOB, 0, "test.empty", "");
    /* refused types */
    {
        int x = 1;
        pmix_value_t p = {.type = PMIX_POINTER, .data.ptr = &x};
        assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_put(b, SY_REALM_JOB, 0, "test.ptr", &p));
        pmix_value_t t = {.type = PMIX_TOPO};
        assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_put(b, SY_REALM_JOB, 0, "test.topo", &t));
        pmix_value_t u = {.type = PMIX_UINT32};
        assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_put(b, SY_REALM_COUNT, 0, "k", &u));
        assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_put(b, SY_REALM_JOB, 0, NULL, &u));
        char longkey[PMIX_MAX_KEYLEN + 2];
        memset(longkey, 'k', sizeof(longkey) - 1);
        longkey[sizeof(longkey) - 1] = '\0';
        assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_put(b, SY_REALM_JOB, 0, longkey, &u));
    }
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &seg));
    assert_string_equal("ns.all", sy_jseg_nspace(seg));
    assert_null(sy_jseg_superseded_by(seg));

    for (size_t i = 0; i < sample_ntypes; i++) {
        pmix_data_type_t type = sample_types[i];
        if (!round_trip_type(type)) {
            continue;
        }
        void *elem = sample_new(type, (int)(i % 2));
        pmix_value_t v;
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(elem, type), type));
        snprintf(key, sizeof(key), "test.type.%u", (unsigned)type);
        for (int r = 0; r < SY_REALM_COUNT; r++) {
            const pmix_value_t *peek = sy_jseg_peek(b, (sy_realm_t)r, (uint32_t)r * 3, key);
            assert_non_null(peek);
            assert_int_equal(PMIX_SUCCESS,
                             sy_jseg_get(seg, (sy_realm_t)r, (uint32_t)r * 3, key, &back));
            assert_int_equal(type, back->type);
            if (sample_comparable(type)) {
                assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, back));
            }
            PMIX_VALUE_RELEASE(back);
            /* other ids and realms do not answer */
            assert_int_equal(PMIX_ERR_NOT_FOUND,
                             sy_jseg_get(seg, (sy_realm_t)r, (uint32_t)r * 3 + 1, key, &back));
        }
        PMIx_Value_destruct(&v);
        sample_free(elem, type);
    }
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_JOB, 0, "test.null", &back));
    assert_int_equal(PMIX_STRING, back->type);
    assert_null(back->data.string);
    PMIX_VALUE_RELEASE(back);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_JOB, 0, "test.empty", &back));
    assert_string_equal("", back->data.string);
    PMIX_VALUE_RELEASE(back);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_get(seg, SY_REALM_JOB, 0, "test.ptr", &back));

    /* whole (realm, id) listings and ids */
    pmix_info_t *infos;
    size_t n;
    uint32_t *ids;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get_all(seg, SY_REALM_PROC, 12, &infos, &n));
    assert_true(n > 40);
    for (size_t i = 1; i < n; i++) {
        assert_true(strcmp(infos[i - 1].key, infos[i].key) < 0);
    }
    PMIX_INFO_FREE(infos, n);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_get_all(seg, SY_REALM_PROC, 11, &infos, &n));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_ids(seg, SY_REALM_APP, &ids, &n));
    assert_int_equal(1, n);
    assert_int_equal(6, ids[0]);
    free(ids);
    sy_jseg_close(seg);
    sy_jseg_builder_free(b);
    sample_topology_release();
}

/* A later put of the same (realm, id, key) replaces the value; ids are
 * listed once, ascending. */
static void test_duplicates_and_ids(void **state)
{
    sy_jseg_builder_t *b;
    sy_jseg_t *seg;
    pmix_value_t *back;
    uint32_t *ids;
    size_t n;
    char path[128];
    (void)state;

    seg_path(path, sizeof(path), "dup.seg");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(NULL, &b));
    assert_null(sy_jseg_peek(b, SY_REALM_NODE, 1, PMIX_HOSTNAME));
    put_str(b, SY_REALM_NODE, 9, PMIX_HOSTNAME, "first");
    put_str(b, SY_REALM_NODE, 9, PMIX_HOSTNAME, "second");
    put_u32(b, SY_REALM_NODE, 9, PMIX_HOSTNAME, 7);
    put_str(b, SY_REALM_NODE, 2, PMIX_HOSTNAME, "two");
    put_str(b, SY_REALM_NODE, 2, PMIX_HOSTNAME_ALIASES, "two-a,two-b,t");
    put_u32(b, SY_REALM_NODE, 2, PMIX_NODEID, 2);
    /* many entries: the index grows */
    for (uint32_t r = 0; r < 1000; r++) {
        put_u32(b, SY_REALM_PROC, 999 - r, PMIX_RANK, 999 - r);
    }
    assert_int_equal(PMIX_UINT32, sy_jseg_peek(b, SY_REALM_NODE, 9, PMIX_HOSTNAME)->type);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_ids(b, SY_REALM_NODE, &ids, &n));
    assert_int_equal(2, n);
    assert_int_equal(2, ids[0]);
    assert_int_equal(9, ids[1]);
    free(ids);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_ids(b, SY_REALM_APP, &ids, &n));
    assert_int_equal(0, n);
    assert_null(ids);

    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0644));
    struct stat st;
    assert_int_equal(0, stat(path, &st));
    assert_int_equal(0644, st.st_mode & 0777);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &seg));
    assert_null(sy_jseg_nspace(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_NODE, 9, PMIX_HOSTNAME, &back));
    assert_int_equal(PMIX_UINT32, back->type);
    assert_int_equal(7, back->data.uint32);
    PMIX_VALUE_RELEASE(back);
    for (uint32_t r = 0; r < 1000; r++) {
        assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, r, PMIX_RANK, &back));
        assert_int_equal(r, back->data.uint32);
        PMIX_VALUE_RELEASE(back);
    }
    assert_int_equal(PMIX_SUCCESS, sy_jseg_ids(seg, SY_REALM_PROC, &ids, &n));
    assert_int_equal(1000, n);
    for (uint32_t r = 0; r < 1000; r++) {
        assert_int_equal(r, ids[r]);
    }
    free(ids);

    /* node names: PMIX_HOSTNAME and each alias; a value of another type
     * (node 9) is no name */
    uint32_t nid = 0;
    assert_true(sy_jseg_node_by_name(seg, "two", &nid));
    assert_int_equal(2, nid);
    nid = 0;
    assert_true(sy_jseg_node_by_name(seg, "two-b", &nid));
    assert_int_equal(2, nid);
    assert_true(sy_jseg_node_by_name(seg, "t", &nid));
    assert_false(sy_jseg_node_by_name(seg, "two-", &nid));
    assert_false(sy_jseg_node_by_name(seg, "tw", &nid));
    assert_false(sy_jseg_node_by_name(seg, "first", &nid));
    sy_jseg_close(seg);
    sy_jseg_builder_free(b);
}

/* Publishing an empty builder gives a valid, empty segment. */
static void test_empty(void **state)
{
    sy_jseg_builder_t *b;
    sy_jseg_t *seg;
    pmix_value_t *back;
    pmix_info_t *infos;
    size_t n;
    char path[128];
    (void)state;

    seg_path(path, sizeof(path), "empty.seg");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.empty", &b));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &seg));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_get(seg, SY_REALM_JOB, 0, PMIX_JOB_SIZE, &back));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_get_all(seg, SY_REALM_JOB, 0, &infos, &n));
    assert_false(sy_jseg_node_by_name(seg, "x", NULL));
    sy_jseg_close(seg);
    seg_path(path, sizeof(path), "missing.seg");
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_jseg_open(path, &seg));
}

/* The mark names the replacing file; a second mark naming another file is
 * refused, the same one accepted. */
static void test_supersede(void **state)
{
    sy_jseg_builder_t *b;
    sy_jseg_t *seg;
    char a[128], c[128], other[128];
    (void)state;

    seg_path(a, sizeof(a), "gen1.seg");
    seg_path(c, sizeof(c), "gen2.seg");
    seg_path(other, sizeof(other), "gen3.seg");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.s", &b));
    put_u32(b, SY_REALM_JOB, 0, PMIX_JOB_SIZE, 4);
    /* published read-only: supersede still works for the owner */
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, a, 0400));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, c, 0600));
    sy_jseg_builder_free(b);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(a, &seg));
    assert_null(sy_jseg_superseded_by(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_supersede(a, c));
    /* seen through the existing read-only mapping */
    assert_non_null(sy_jseg_superseded_by(seg));
    assert_string_equal(c, sy_jseg_superseded_by(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_supersede(a, c));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_supersede(a, other));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jseg_supersede(a, ""));
    sy_jseg_close(seg);
    struct stat st;
    assert_int_equal(0, stat(a, &st));
    assert_int_equal(0400, st.st_mode & 0777);
    /* the superseded file still opens, and says so */
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(a, &seg));
    assert_string_equal(c, sy_jseg_superseded_by(seg));
    sy_jseg_close(seg);
    assert_int_equal(PMIX_ERR_FILE_OPEN_FAILURE, sy_jseg_supersede(other, c));
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(*size, fread(buf, 1, *size, f));
    fclose(f);
    return buf;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(size, fwrite(data, 1, size, f));
    fclose(f);
}

/* Touch everything an opened segment offers (under ASan this proves no
 * lookup reads out of bounds). */
static void exercise(sy_jseg_t *seg)
{
    static const char *keys[] = {PMIX_JOB_SIZE, PMIX_HOSTNAME, "test.darray", "test.str",
                                 PMIX_RANK};
    for (int r = 0; r < SY_REALM_COUNT; r++) {
        uint32_t *ids;
        size_t n;
        if (sy_jseg_ids(seg, (sy_realm_t)r, &ids, &n) == PMIX_SUCCESS) {
            for (size_t i = 0; i < n; i++) {
                pmix_info_t *infos;
                size_t ni;
                if (sy_jseg_get_all(seg, (sy_realm_t)r, ids[i], &infos, &ni) == PMIX_SUCCESS) {
                    PMIX_INFO_FREE(infos, ni);
                }
                for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                    pmix_value_t *v;
                    if (sy_jseg_get(seg, (sy_realm_t)r, ids[i], keys[k], &v) == PMIX_SUCCESS) {
                        PMIX_VALUE_RELEASE(v);
                    }
                }
            }
            free(ids);
        }
    }
    (void)sy_jseg_node_by_name(seg, "node0", NULL);
    (void)sy_jseg_superseded_by(seg);
}

/* What the intact segment answers: the lookups of `probe`. */
static const struct {
    sy_realm_t realm;
    uint32_t id;
    const char *key;
} probe[] = {
    {SY_REALM_JOB, 0, PMIX_JOB_SIZE},
    {SY_REALM_NODE, 0, PMIX_HOSTNAME},
    {SY_REALM_NODE, 0, PMIX_HOSTNAME_ALIASES},
    {SY_REALM_PROC, 1, "test.str"},
    {SY_REALM_APP, 0, "test.darray"},
    {SY_REALM_SESSION, 3, "test.bool"},
    {SY_REALM_PROC, 2, "test.str"},
};
#define NPROBE (sizeof(probe) / sizeof(probe[0]))

/* Every lookup of a damaged segment answers as the intact one did, or
 * refuses (PMIX_ERR_UNPACK_FAILURE): damage never yields a wrong value.
 * The number of refusals. */
static size_t same_or_refused(sy_jseg_t *seg, sy_jseg_t *good)
{
    size_t refused = 0;
    for (size_t i = 0; i < NPROBE; i++) {
        pmix_value_t *a = NULL, *b = NULL;
        pmix_status_t ra = sy_jseg_get(seg, probe[i].realm, probe[i].id, probe[i].key, &a);
        pmix_status_t rb = sy_jseg_get(good, probe[i].realm, probe[i].id, probe[i].key, &b);
        if (ra == PMIX_ERR_UNPACK_FAILURE) {
            refused++;
        } else {
            assert_int_equal(rb, ra);
            if (ra == PMIX_SUCCESS) {
                assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(a, b));
            }
        }
        if (a != NULL) {
            PMIX_VALUE_RELEASE(a);
        }
        if (b != NULL) {
            PMIX_VALUE_RELEASE(b);
        }
    }
    uint32_t nid = 99, gid = 99;
    bool found = sy_jseg_node_by_name(seg, "n0", &nid);
    assert_true(sy_jseg_node_by_name(good, "n0", &gid));
    if (found) {
        assert_int_equal(gid, nid);
    } else {
        refused++;
    }
    return refused;
}

/* Every truncation of a valid file is refused.  Every single-byte change
 * is refused when opened (the header, the table of sums) or by every
 * lookup that reads the changed chunk, and no lookup answers differently
 * from the intact file.  With the sums recomputed (a hostile writer), the
 * structure checks refuse the file or leave it safe to use. */
static void test_corrupt(void **state)
{
    sy_jseg_builder_t *b;
    sy_jseg_t *seg, *good;
    char path[128], bad[128];
    uint8_t *img, *copy;
    size_t size;
    pmix_status_t rc;
    (void)state;

    seg_path(path, sizeof(path), "good.seg");
    seg_path(bad, sizeof(bad), "bad.seg");
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.c", &b));
    put_u32(b, SY_REALM_JOB, 0, PMIX_JOB_SIZE, 2);
    put_str(b, SY_REALM_NODE, 0, PMIX_HOSTNAME, "node0");
    put_str(b, SY_REALM_NODE, 0, PMIX_HOSTNAME_ALIASES, "n0,node-zero");
    put_str(b, SY_REALM_PROC, 1, "test.str", "hello");
    {
        pmix_info_t inf[2];
        PMIX_INFO_LOAD(&inf[0], "a", "x", PMIX_STRING);
        uint64_t u = 5;
        PMIX_INFO_LOAD(&inf[1], "b", &u, PMIX_UINT64);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 2, .array = inf};
        pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = &da};
        assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, SY_REALM_APP, 0, "test.darray", &v));
        PMIX_INFO_DESTRUCT(&inf[0]);
        PMIX_INFO_DESTRUCT(&inf[1]);
    }
    bool t = true;
    pmix_value_t bv;
    PMIX_VALUE_LOAD(&bv, &t, PMIX_BOOL);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_put(b, SY_REALM_SESSION, 3, "test.bool", &bv));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    sy_jseg_builder_free(b);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &good));
    img = read_file(path, &size);
    copy = malloc(size);
    assert_non_null(copy);

    for (size_t len = 0; len < size; len++) {
        write_file(bad, img, len);
        rc = sy_jseg_open(bad, &seg);
        assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rc);
    }
    /* only the supersede mark may change after publication; a mark that
     * is not a terminated path reads as no mark */
    const sy_jseg_header_t *gh = (const sy_jseg_header_t *)img;
    const size_t mark_from = offsetof(sy_jseg_header_t, superseded);
    const size_t mark_to = sizeof(sy_jseg_header_t);
    size_t refused = 0;
    for (size_t off = 0; off < size; off++) {
        memcpy(copy, img, size);
        copy[off] ^= 0x5a;
        write_file(bad, copy, size);
        rc = sy_jseg_open(bad, &seg);
        if (off >= mark_from && off < mark_to) {
            assert_int_equal(PMIX_SUCCESS, rc);
            assert_int_equal(0, same_or_refused(seg, good));
            exercise(seg);
            sy_jseg_close(seg);
        } else if (off < gh->data_off || off >= gh->sums_off) {
            assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rc);
        } else {
            /* the data: found by the lookups that read it */
            assert_int_equal(PMIX_SUCCESS, rc);
            refused += same_or_refused(seg, good);
            exercise(seg);
            sy_jseg_close(seg);
        }
    }
    assert_true(refused > 0);
    /* a hostile writer can fix the sums: then the structure checks
     * must refuse the file or leave it safe to use */
    refused = 0;
    for (size_t off = 0; off < size; off++) {
        if (off >= mark_from && off < mark_to) {
            continue;
        }
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(copy, img, size);
            copy[off] ^= (uint8_t)(1u << bit);
            sy_jseg_reseal(copy, size);
            write_file(bad, copy, size);
            rc = sy_jseg_open(bad, &seg);
            if (rc == PMIX_SUCCESS) {
                exercise(seg);
                sy_jseg_close(seg);
            } else {
                assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rc);
                refused++;
            }
        }
    }
    assert_true(refused > 0);
    /* a flag without a path, or a path without its NUL */
    memcpy(copy, img, size);
    memset(copy + mark_from, 0x41, mark_to - mark_from);
    write_file(bad, copy, size);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(bad, &seg));
    assert_null(sy_jseg_superseded_by(seg));
    sy_jseg_close(seg);
    /* trailing garbage is refused too */
    uint8_t *longer = calloc(1, size + 8);
    assert_non_null(longer);
    memcpy(longer, img, size);
    write_file(bad, longer, size + 8);
    assert_int_equal(PMIX_ERR_UNPACK_FAILURE, sy_jseg_open(bad, &seg));
    free(longer);
    free(copy);
    free(img);
    sy_jseg_close(good);
}

/* The in-place publisher (borrowed values, a scratch buffer reused) writes
 * the same image as sy_jseg_publish; a mapped segment answers nothing
 * until sy_jseg_check accepted it, and a damaged one never does. */
static void test_in_place_and_lazy(void **state)
{
    char a[128], b2[128], bad[128];
    (void)state;
    seg_path(a, sizeof(a), "renamed.seg");
    seg_path(b2, sizeof(b2), "in-place.seg");
    seg_path(bad, sizeof(bad), "lazy-bad.seg");
    char big[5000];
    memset(big, 'x', sizeof(big));
    pmix_byte_object_t bo = {.bytes = big, .size = sizeof(big)};
    pmix_value_t vals[3];
    PMIX_VALUE_LOAD(&vals[0], &bo, PMIX_BYTE_OBJECT);
    PMIX_VALUE_LOAD(&vals[1], "text", PMIX_STRING);
    uint64_t u = 42;
    PMIX_VALUE_LOAD(&vals[2], &u, PMIX_UINT64);
    sy_jseg_builder_t *copied, *borrowed;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.lazy", &copied));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("ns.lazy", &borrowed));
    const char *keys[3] = {"k.bo", "k.str", "k.u64"};
    for (uint32_t r = 0; r < 4; r++)
        for (int k = 0; k < 3; k++) {
            assert_int_equal(PMIX_SUCCESS,
                             sy_jseg_put(copied, SY_REALM_PROC, r, keys[k], &vals[k]));
            assert_int_equal(PMIX_SUCCESS,
                             sy_jseg_put_borrowed(borrowed, SY_REALM_PROC, r, keys[k], &vals[k]));
        }
    /* a borrowed entry replaced: neither value is freed by the builder */
    assert_int_equal(PMIX_SUCCESS,
                     sy_jseg_put_borrowed(borrowed, SY_REALM_PROC, 0, "k.u64", &vals[2]));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(copied, a, 0600));
    pmix_data_buffer_t scratch = {0};
    for (int round = 0; round < 2; round++) { /* the second reuses scratch */
        int fd = -1;
        unlink(b2);
        assert_int_equal(PMIX_SUCCESS, sy_jseg_create(b2, 0600, &fd));
        assert_int_equal(PMIX_SUCCESS, sy_jseg_publish_fd(borrowed, fd, b2, &scratch));
        size_t na, nb;
        uint8_t *ia = read_file(a, &na), *ib = read_file(b2, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ia, ib, na);
        free(ia);
        free(ib);
    }
    assert_true(scratch.bytes_allocated > 0);
    PMIX_DATA_BUFFER_DESTRUCT(&scratch);
    sy_jseg_builder_free(copied);
    sy_jseg_builder_free(borrowed);
    /* mapped, not checked: lookups refused; checked: they work */
    sy_jseg_t *seg = NULL;
    pmix_value_t *v = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_jseg_map(b2, &seg));
    assert_int_not_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, 1, "k.str", &v));
    assert_null(sy_jseg_nspace(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_check(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_check(seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, 1, "k.str", &v));
    assert_string_equal("text", v->data.string);
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, 3, "k.bo", &v));
    assert_int_equal(sizeof(big), v->data.bo.size);
    assert_memory_equal(big, v->data.bo.bytes, sizeof(big));
    PMIX_VALUE_RELEASE(v);
    assert_string_equal("ns.lazy", sy_jseg_nspace(seg));
    sy_jseg_close(seg);
    /* a file with a damaged header maps, fails its check, and stays
     * refused */
    size_t n;
    uint8_t *img = read_file(b2, &n);
    img[offsetof(sy_jseg_header_t, nentries)] ^= 0x5a;
    write_file(bad, img, n);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_map(bad, &seg));
    assert_int_equal(PMIX_ERR_UNPACK_FAILURE, sy_jseg_check(seg));
    assert_int_equal(PMIX_ERR_UNPACK_FAILURE, sy_jseg_check(seg));
    assert_int_not_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, 1, "k.str", &v));
    uint32_t *ids = NULL;
    size_t nids = 0;
    assert_int_not_equal(PMIX_SUCCESS, sy_jseg_ids(seg, SY_REALM_PROC, &ids, &nids));
    sy_jseg_close(seg);
    /* damaged data passes the check (which reads no data) and is refused
     * by the lookups that read it, while the others still answer */
    img[offsetof(sy_jseg_header_t, nentries)] ^= 0x5a;
    const sy_jseg_header_t *h = (const sy_jseg_header_t *)img;
    img[h->values_off + h->values_size - 100] ^= 0x5a; /* inside the big byte object */
    write_file(bad, img, n);
    free(img);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_map(bad, &seg));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_check(seg));
    size_t failed = 0;
    for (uint32_t r = 0; r < 4; r++) {
        pmix_status_t rc = sy_jseg_get(seg, SY_REALM_PROC, r, "k.bo", &v);
        if (rc == PMIX_SUCCESS) {
            assert_int_equal(sizeof(big), v->data.bo.size);
            assert_memory_equal(big, v->data.bo.bytes, sizeof(big));
            PMIX_VALUE_RELEASE(v);
        } else {
            assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rc);
            failed++;
        }
    }
    assert_int_equal(1, failed);
    assert_int_equal(PMIX_SUCCESS, sy_jseg_get(seg, SY_REALM_PROC, 1, "k.str", &v));
    assert_string_equal("text", v->data.string);
    PMIX_VALUE_RELEASE(v);
    sy_jseg_close(seg);
    for (int k = 0; k < 3; k++)
        PMIX_VALUE_DESTRUCT(&vals[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_duplicates_and_ids),
        cmocka_unit_test(test_empty),      cmocka_unit_test(test_supersede),
        cmocka_unit_test(test_corrupt),    cmocka_unit_test(test_in_place_and_lazy),
    };
    setenv("SWITCHYARD_LOG", "error", 1);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
