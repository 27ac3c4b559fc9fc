/* Helpers of the jobinfo unit tests (test_jobinfo_util.h). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix.h>

#include "common/datatype.h"
#include "test_jobinfo_util.h"

static pmix_info_t *il_add(ilist_t *l, const char *key)
{
    pmix_info_t *p = realloc(l->info, (l->n + 1) * sizeof(*p));
    assert_non_null(p);
    l->info = p;
    p = &l->info[l->n++];
    memset(p, 0, sizeof(*p));
    if (key != NULL) {
        sy_load_fixed(p->key, key, sizeof(p->key));
    }
    return p;
}

static void il_load(ilist_t *l, const char *key, const void *data, pmix_data_type_t type)
{
    pmix_info_t *p = il_add(l, key);
    assert_int_equal(PMIX_SUCCESS, PMIx_Info_load(p, key, data, type));
}

void il_str(ilist_t *l, const char *key, const char *s)
{
    if (s == NULL) {
        pmix_info_t *p = il_add(l, key);
        p->value.type = PMIX_STRING; /* a NULL pointer, as ORTE sends for unbound procs */
        return;
    }
    il_load(l, key, s, PMIX_STRING);
}

void il_regex(ilist_t *l, const char *key, const char *s)
{
    il_load(l, key, s, PMIX_REGEX);
}

void il_u32(ilist_t *l, const char *key, uint32_t v)
{
    il_load(l, key, &v, PMIX_UINT32);
}

void il_u16(ilist_t *l, const char *key, uint16_t v)
{
    il_load(l, key, &v, PMIX_UINT16);
}

void il_u64(ilist_t *l, const char *key, uint64_t v)
{
    il_load(l, key, &v, PMIX_UINT64);
}

void il_int(ilist_t *l, const char *key, int v)
{
    il_load(l, key, &v, PMIX_INT);
}

void il_rank(ilist_t *l, const char *key, pmix_rank_t v)
{
    il_load(l, key, &v, PMIX_PROC_RANK);
}

void il_bool(ilist_t *l, const char *key, bool v)
{
    il_load(l, key, &v, PMIX_BOOL);
}

void il_zero(ilist_t *l)
{
    (void)il_add(l, NULL);
}

void il_arr(ilist_t *l, const char *key, ilist_t *sub)
{
    pmix_data_array_t *da = malloc(sizeof(*da));
    assert_non_null(da);
    da->type = PMIX_INFO;
    da->size = sub->n;
    da->array = sub->info;
    pmix_info_t *p = il_add(l, key);
    p->value.type = PMIX_DATA_ARRAY;
    p->value.data.darray = da;
    sub->info = NULL;
    sub->n = 0;
}

void il_free(ilist_t *l)
{
    if (l->info != NULL) {
        sy_array_free(l->info, l->n, PMIX_INFO);
    }
    l->info = NULL;
    l->n = 0;
}

pmix_status_t ji_compile(const char *nspace, int nlocal, const ilist_t *l, const char *host,
                         sy_jseg_builder_t **b, sy_jobinfo_summary_t *s, char **error)
{
    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(nspace, b));
    return sy_jobinfo_compile(nspace, nlocal, l->info, l->n, host, *b, s, error);
}

/* The builder as a reader sees it: published to a file and opened, so
 * that derived values (computed by the reader from the layout) are
 * checked exactly as a client gets them. */
static sy_jseg_t *published(const sy_jseg_builder_t *b)
{
    char path[64];
    sy_jseg_t *seg = NULL;
    snprintf(path, sizeof(path), "/tmp/sy-test-jobinfo-%ld.seg", (long)getpid());
    assert_int_equal(PMIX_SUCCESS, sy_jseg_publish(b, path, 0600));
    assert_int_equal(PMIX_SUCCESS, sy_jseg_open(path, &seg));
    /* seeds for tests/fuzz/fuzz_jseg: the last segment of each namespace */
    const char *corpus = getenv("SY_WRITE_CORPUS"), *ns = sy_jseg_nspace(seg);
    if (corpus != NULL) {
        char to[4096], buf[4096];
        snprintf(to, sizeof(to), "%s/jobinfo-%s.seg", corpus, ns != NULL ? ns : "resources");
        FILE *in = fopen(path, "rb"), *out = fopen(to, "wb");
        assert_non_null(in);
        assert_non_null(out);
        for (size_t n; (n = fread(buf, 1, sizeof(buf), in)) > 0;) {
            assert_int_equal(n, fwrite(buf, 1, n, out));
        }
        fclose(in);
        fclose(out);
    }
    unlink(path);
    return seg;
}

/* The value of the last lookup, released by the next one. */
static pmix_value_t *last;

static pmix_value_t *lookup(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id,
                            const char *key)
{
    sy_jseg_t *seg = published(b);
    if (last != NULL) {
        PMIX_VALUE_RELEASE(last);
    }
    if (sy_jseg_get(seg, realm, id, key, &last) != PMIX_SUCCESS) {
        last = NULL;
    }
    sy_jseg_close(seg);
    return last;
}

pmix_status_t ji_ids(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t **ids, size_t *n)
{
    sy_jseg_t *seg = published(b);
    pmix_status_t rc = sy_jseg_ids(seg, realm, ids, n);
    sy_jseg_close(seg);
    return rc;
}

static const pmix_value_t *must_peek(const char *file, int line, const sy_jseg_builder_t *b,
                                     sy_realm_t realm, uint32_t id, const char *key,
                                     pmix_data_type_t type)
{
    const pmix_value_t *v = lookup(b, realm, id, key);
    if (v == NULL) {
        print_error("realm %d id %u: %s missing\n", (int)realm, id, key);
        _fail(file, line);
    }
    if (type != v->type) {
        print_error("realm %d id %u: %s has type %s, want %s\n", (int)realm, id, key,
                    PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
        _fail(file, line);
    }
    return v;
}

void ji_expect_u32(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, uint32_t want)
{
    const pmix_value_t *v = must_peek(file, line, b, realm, id, key, PMIX_UINT32);
    _assert_int_equal(v->data.uint32, want, file, line);
}

void ji_expect_u16(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, uint16_t want)
{
    const pmix_value_t *v = must_peek(file, line, b, realm, id, key, PMIX_UINT16);
    _assert_int_equal(v->data.uint16, want, file, line);
}

void ji_expect_rank(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                    uint32_t id, const char *key, pmix_rank_t want)
{
    const pmix_value_t *v = must_peek(file, line, b, realm, id, key, PMIX_PROC_RANK);
    _assert_int_equal(v->data.rank, want, file, line);
}

void ji_expect_str(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, const char *want)
{
    const pmix_value_t *v = must_peek(file, line, b, realm, id, key, PMIX_STRING);
    if (want == NULL) {
        if (v->data.string != NULL) {
            print_error("%s: \"%s\", want a NULL string\n", key, v->data.string);
            _fail(file, line);
        }
        return;
    }
    if (v->data.string == NULL) {
        print_error("%s: a NULL string, want \"%s\"\n", key, want);
        _fail(file, line);
    }
    _assert_string_equal(v->data.string, want, file, line);
}

void ji_expect_typed(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                     uint32_t id, const char *key, pmix_data_type_t type, uint64_t want)
{
    const pmix_value_t *v = must_peek(file, line, b, realm, id, key, type);
    uint64_t got;
    switch (type) {
    case PMIX_INT: got = (uint64_t)v->data.integer; break;
    case PMIX_UINT16: got = v->data.uint16; break;
    case PMIX_UINT32: got = v->data.uint32; break;
    case PMIX_UINT64: got = v->data.uint64; break;
    case PMIX_PROC_RANK: got = v->data.rank; break;
    case PMIX_PID: got = (uint64_t)v->data.pid; break;
    case PMIX_BOOL: got = v->data.flag; break;
    default:
        print_error("untestable type\n");
        _fail(file, line);
        return;
    }
    _assert_int_equal(got, want, file, line);
}

void ji_expect_absent(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                      uint32_t id, const char *key)
{
    if (lookup(b, realm, id, key) != NULL) {
        print_error("realm %d id %u: %s present, want absent\n", (int)realm, id, key);
        _fail(file, line);
    }
}
