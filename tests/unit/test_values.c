/* Unit test: values of every data type -- PMIx_Value_load/unload/xfer/
 * compare/destruct, PMIx_Data_copy, PMIx_Data_array_destruct, the topology
 * and cpuset destructors, and the internal contract of datatype.h.
 *
 * Ownership is what breaks drop-in users (Open MPI builds values with its
 * own malloc and has the library free them), so run this under ASan/LSan
 * too (make check-asan): a leak, double free or use after free fails it. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hwloc.h>
#include <pmix.h>

#include "common/datatype.h"
#include "value_samples.h"

static int teardown(void **state)
{
    (void)state;
    sample_topology_release();
    return 0;
}

/* ---- datatype.h contract ----------------------------------------------- */

static void test_type_sizes(void **state)
{
    (void)state;
    assert_int_equal(sizeof(pmix_info_t), sy_type_size(PMIX_INFO));
    assert_int_equal(sizeof(char *), sy_type_size(PMIX_STRING));
    assert_int_equal(sizeof(char *), sy_type_size(PMIX_REGEX));
    assert_int_equal(sizeof(bool), sy_type_size(PMIX_BOOL));
    assert_int_equal(sizeof(pmix_proc_t), sy_type_size(PMIX_PROC));
    assert_int_equal(sizeof(pmix_nspace_t), sy_type_size(PMIX_PROC_NSPACE));
    assert_int_equal(sizeof(pmix_data_array_t), sy_type_size(PMIX_DATA_ARRAY));
    assert_int_equal(sizeof(pmix_byte_object_t), sy_type_size(PMIX_COMPRESSED_STRING));
    assert_int_equal(sizeof(void *), sy_type_size(PMIX_POINTER));
    assert_int_equal(sizeof(pmix_topology_t), sy_type_size(PMIX_TOPO));
    assert_int_equal(8, sy_type_size(PMIX_STOR_MEDIUM));
    assert_int_equal(2, sy_type_size(PMIX_STOR_ACCESS_TYPE));
    assert_int_equal(0, sy_type_size(PMIX_UNDEF));
    assert_int_equal(0, sy_type_size(PMIX_BUFFER));
    assert_int_equal(0, sy_type_size(PMIX_KVAL));
    assert_int_equal(0, sy_type_size(999));
    for (size_t i = 0; i < sample_ntypes; i++) {
        assert_int_not_equal(0, sy_type_size(sample_types[i]));
    }
}

/* A failed copy leaves the destination zeroed and owning nothing. */
static void test_elem_copy_failure_is_clean(void **state)
{
    (void)state;
    pmix_topology_t other = {.source = "not-hwloc", .topology = &other};
    pmix_topology_t tcopy;
    pmix_data_array_t bad = {.type = 999, .size = 2, .array = &other};
    pmix_data_array_t dcopy;
    pmix_data_array_t outer = {.type = PMIX_DATA_ARRAY, .size = 1, .array = &bad};
    pmix_value_t v;

    memset(&tcopy, 0x55, sizeof(tcopy));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_elem_copy(&tcopy, &other, PMIX_TOPO));
    assert_null(tcopy.source);
    assert_null(tcopy.topology);
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, sy_elem_copy(&dcopy, &bad, PMIX_DATA_ARRAY));
    assert_null(dcopy.array);
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Value_load(&v, &outer, PMIX_DATA_ARRAY));
    assert_int_equal(PMIX_UNDEF, v.type);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_elem_copy(NULL, &bad, PMIX_DATA_ARRAY));
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, sy_elem_copy(&dcopy, &bad, 999));
}

static void test_array_copy_and_free(void **state)
{
    (void)state;
    char *strs[3] = {"a", NULL, "c"};
    char **copy = NULL;

    assert_int_equal(PMIX_SUCCESS, sy_array_copy((void **)&copy, strs, 3, PMIX_STRING));
    assert_non_null(copy);
    assert_ptr_not_equal(strs[0], copy[0]);
    assert_string_equal("a", copy[0]);
    assert_null(copy[1]);
    assert_string_equal("c", copy[2]);
    sy_array_free(copy, 3, PMIX_STRING);

    assert_int_equal(PMIX_SUCCESS, sy_array_copy((void **)&copy, strs, 0, PMIX_STRING));
    assert_null(copy);
    sy_array_free(NULL, 5, PMIX_INFO);
    /* an array of an unknown type is still freed as a block */
    sy_array_free(malloc(16), 2, 999);
}

/* ---- every type: load, xfer, compare, unload, copy, destruct ----------- */

static void check_unloaded(const pmix_value_t *v, void *out, size_t sz)
{
    pmix_data_type_t type = v->type;
    pmix_value_t back;

    switch (type) {
    case PMIX_STRING:
        assert_string_equal(v->data.string, out);
        assert_ptr_not_equal(v->data.string, out);
        assert_int_equal(strlen(out), sz);
        free(out);
        return;
    case PMIX_POINTER:
        assert_ptr_equal(v->data.ptr, out);
        assert_int_equal(sizeof(void *), sz);
        return;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT:
    case PMIX_REGEX:
        assert_int_equal(v->data.bo.size, sz);
        assert_ptr_not_equal(v->data.bo.bytes, out);
        assert_memory_equal(v->data.bo.bytes, out, sz);
        free(out);
        return;
    default: break;
    }
    if (type == PMIX_PROC_NSPACE) {
        assert_int_equal(strlen(*v->data.nspace), sz);
    } else {
        assert_int_equal(sy_type_size(type), sz);
    }
    /* what came out loads back into an equal value */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&back, out, type));
    if (sample_comparable(type)) {
        assert_int_equal(PMIX_EQUAL, PMIx_Value_compare((pmix_value_t *)v, &back));
    }
    PMIx_Value_destruct(&back);
    sample_free(out, type);
}

static void roundtrip_one(pmix_data_type_t type)
{
    void *elem = sample_new(type, 0);
    void *other = sample_new(type, 1);
    pmix_value_t v, x, o;
    void *out = NULL;
    void *copy = NULL;
    size_t sz = 0;

    if (sy_value_kind(type) == SY_VALUE_NONE) {
        /* no pmix_value_t union member: array-only types */
        assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Value_load(&v, elem, type));
        assert_int_equal(PMIX_UNDEF, v.type);
    } else {
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(elem, type), type));
        assert_int_equal(type, v.type);
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&o, sample_data(other, type), type));
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&x, &v));
        assert_int_equal(type, x.type);
        if (sample_comparable(type)) {
            assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &x));
        }
        if (sample_variants_differ(type)) {
            assert_int_not_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &o));
        }
        out = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
        check_unloaded(&v, out, sz);
        PMIx_Value_destruct(&v);
        assert_int_equal(PMIX_UNDEF, v.type);
        PMIx_Value_destruct(&o);
        /* x is independent of v (ASan: no use after free) */
        out = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&x, &out, &sz));
        check_unloaded(&x, out, sz);
        PMIx_Value_destruct(&x);
    }

    /* PMIx_Data_copy: a new element equal to the original; its source is
     * the address of the element, except for strings */
    assert_int_equal(
        PMIX_SUCCESS,
        PMIx_Data_copy(&copy, (type == PMIX_STRING || type == PMIX_REGEX) ? *(char **)elem : elem,
                       type));
    assert_non_null(copy);
    if (type == PMIX_STRING || type == PMIX_REGEX) {
        assert_string_equal(*(char **)elem, copy);
        free(copy);
    } else {
        if (sy_value_kind(type) != SY_VALUE_NONE && sample_comparable(type)) {
            assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(copy, type), type));
            assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&x, sample_data(elem, type), type));
            assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &x));
            PMIx_Value_destruct(&v);
            PMIx_Value_destruct(&x);
        }
        sample_free(copy, type);
    }

    /* the element in a data array: copy, compare, destruct */
    {
        pmix_data_array_t da = {.type = type, .size = 1, .array = elem};
        pmix_data_array_t *dup = NULL;
        pmix_value_t a, b;
        assert_int_equal(PMIX_SUCCESS, PMIx_Data_copy((void **)&dup, &da, PMIX_DATA_ARRAY));
        assert_int_equal(type, dup->type);
        assert_int_equal(1, dup->size);
        assert_ptr_not_equal(elem, dup->array);
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&a, &da, PMIX_DATA_ARRAY));
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&b, dup, PMIX_DATA_ARRAY));
        if (sample_comparable(type)) {
            assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&a, &b));
        }
        PMIx_Value_destruct(&a);
        PMIx_Value_destruct(&b);
        PMIX_DATA_ARRAY_FREE(dup);
        assert_null(dup);
    }

    sample_free(elem, type);
    sample_free(other, type);
}

static void test_roundtrip_every_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < sample_ntypes; i++) {
        roundtrip_one(sample_types[i]);
    }
}

/* Load copies: releasing the source afterwards leaves the value intact. */
static void test_load_is_deep(void **state)
{
    (void)state;
    for (size_t i = 0; i < sample_ntypes; i++) {
        pmix_data_type_t type = sample_types[i];
        void *elem = sample_new(type, 0);
        void *again = sample_new(type, 0);
        pmix_value_t v, w;

        if (sy_value_kind(type) == SY_VALUE_NONE) {
            sample_free(elem, type);
            sample_free(again, type);
            continue;
        }
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, sample_data(elem, type), type));
        sample_free(elem, type);
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&w, sample_data(again, type), type));
        if (sample_comparable(type)) {
            assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &w));
        }
        PMIx_Value_destruct(&v);
        PMIx_Value_destruct(&w);
        sample_free(again, type);
    }
}

/* ---- nested data arrays ------------------------------------------------ */

/* An info array: [0] "procs" = darray of procs, [1] "nested" = darray of
 * infos whose values are darrays of strings / byte objects, [2] a string. */
static pmix_data_array_t *build_nested(const char *tag)
{
    pmix_data_array_t *top, *procs, *inner, *strs, *bos;
    pmix_info_t *infos, *inner_infos;
    pmix_byte_object_t *bo;
    char **s;

    PMIX_DATA_ARRAY_CREATE(procs, 3, PMIX_PROC);
    for (pmix_rank_t r = 0; r < 3; r++) {
        PMIX_LOAD_PROCID(&((pmix_proc_t *)procs->array)[r], tag, r);
    }
    PMIX_DATA_ARRAY_CREATE(strs, 3, PMIX_STRING);
    s = strs->array;
    s[0] = strdup(tag);
    s[1] = NULL;
    s[2] = strdup("third");
    PMIX_DATA_ARRAY_CREATE(bos, 1, PMIX_BYTE_OBJECT);
    bo = bos->array;
    bo->bytes = malloc(3);
    memcpy(bo->bytes, "x\0y", 3);
    bo->size = 3;

    PMIX_DATA_ARRAY_CREATE(inner, 2, PMIX_INFO);
    inner_infos = inner->array;
    PMIX_INFO_LOAD(&inner_infos[0], "strings", strs, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&inner_infos[1], "bytes", bos, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(strs);
    PMIX_DATA_ARRAY_FREE(bos);

    PMIX_DATA_ARRAY_CREATE(top, 3, PMIX_INFO);
    infos = top->array;
    PMIX_INFO_LOAD(&infos[0], "procs", procs, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&infos[1], "nested", inner, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&infos[2], "plain", tag, PMIX_STRING);
    PMIX_DATA_ARRAY_FREE(procs);
    PMIX_DATA_ARRAY_FREE(inner);
    return top;
}

static void test_nested_arrays(void **state)
{
    (void)state;
    pmix_data_array_t *a = build_nested("ns.A");
    pmix_data_array_t *b = build_nested("ns.B");
    pmix_data_array_t *out = NULL;
    pmix_value_t va, vb, vx;
    pmix_info_t *infos;
    size_t sz;

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&va, a, PMIX_DATA_ARRAY));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&vb, b, PMIX_DATA_ARRAY));
    PMIX_DATA_ARRAY_FREE(a);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&vx, &va));
    assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&va, &vx));
    assert_int_equal(PMIX_VALUE2_GREATER, PMIx_Value_compare(&va, &vb));

    /* dig into the copy: info[1] -> darray of infos -> [0] -> strings */
    infos = vx.data.darray->array;
    assert_string_equal("nested", infos[1].key);
    {
        pmix_info_t *inner = infos[1].value.data.darray->array;
        char **strs = inner[0].value.data.darray->array;
        pmix_byte_object_t *bo = inner[1].value.data.darray->array;
        assert_string_equal("ns.A", strs[0]);
        assert_null(strs[1]);
        assert_int_equal(3, bo->size);
        assert_memory_equal("x\0y", bo->bytes, 3);
        /* a change deep inside the copy makes it different */
        free(strs[2]);
        strs[2] = strdup("changed");
        assert_int_not_equal(PMIX_EQUAL, PMIx_Value_compare(&va, &vx));
    }

    /* unload gives a separate pmix_data_array_t* */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&va, (void **)&out, &sz));
    assert_int_equal(sizeof(pmix_data_array_t), sz);
    assert_ptr_not_equal(va.data.darray, out);
    assert_int_equal(PMIX_INFO, out->type);
    assert_int_equal(3, out->size);
    PMIx_Value_destruct(&va);
    assert_string_equal("ns.A", ((pmix_info_t *)out->array)[2].value.data.string);
    PMIX_DATA_ARRAY_FREE(out);

    PMIx_Value_destruct(&vb);
    PMIx_Value_destruct(&vx);
    PMIX_DATA_ARRAY_FREE(b);
}

/* ---- values built by callers, freed by the library ---------------------- */

/* What Open MPI's ext3x does (pmix3x_value_load and pmix.pdata): payloads
 * from its own malloc/strdup/PMIX_*_CREATE, released via the macros. */
static void test_destruct_caller_built(void **state)
{
    (void)state;
    pmix_value_t *vals;
    pmix_info_t *info;
    pmix_proc_t *proc;
    pmix_proc_info_t *pinfo;
    pmix_data_array_t *darray;
    pmix_pdata_t *pdata;
    pmix_value_t stack;

    PMIX_VALUE_CREATE(vals, 6);
    vals[0].type = PMIX_STRING;
    vals[0].data.string = strdup("hello");
    vals[1].type = PMIX_BYTE_OBJECT;
    vals[1].data.bo.bytes = malloc(8);
    memset(vals[1].data.bo.bytes, 1, 8);
    vals[1].data.bo.size = 8;
    PMIX_PROC_CREATE(proc, 1);
    PMIX_LOAD_PROCID(proc, "ns", 0);
    vals[2].type = PMIX_PROC;
    vals[2].data.proc = proc;
    PMIX_PROC_INFO_CREATE(pinfo, 1);
    pinfo->hostname = strdup("host");
    pinfo->executable_name = strdup("exe");
    vals[3].type = PMIX_PROC_INFO;
    vals[3].data.pinfo = pinfo;
    /* a plain-malloc'd data array holding PMIX_INFO_CREATE'd infos */
    darray = malloc(sizeof(*darray));
    darray->type = PMIX_INFO;
    darray->size = 2;
    PMIX_INFO_CREATE(info, 2);
    darray->array = info;
    PMIX_INFO_LOAD(&info[0], "k0", "v0", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], "k1", NULL, PMIX_BOOL);
    vals[4].type = PMIX_DATA_ARRAY;
    vals[4].data.darray = darray;
    vals[5].type = PMIX_ENVAR;
    vals[5].data.envar.envar = strdup("X");
    vals[5].data.envar.value = strdup("1");
    PMIX_VALUE_FREE(vals, 6);
    assert_null(vals);

    PMIX_PDATA_CREATE(pdata, 2);
    {
        pmix_proc_t who;
        PMIX_LOAD_PROCID(&who, "ns.pub", 1);
        PMIX_PDATA_LOAD(&pdata[0], &who, "key", "val", PMIX_STRING);
    }
    PMIX_PDATA_FREE(pdata, 2);

    memset(&stack, 0, sizeof(stack));
    stack.type = PMIX_PROC_NSPACE;
    stack.data.nspace = malloc(sizeof(pmix_nspace_t));
    PMIX_LOAD_NSPACE(*stack.data.nspace, "ns");
    PMIx_Value_destruct(&stack);
    assert_int_equal(PMIX_UNDEF, stack.type);
    assert_null(stack.data.ptr);

    /* destructing twice, or a zeroed value, is harmless */
    PMIx_Value_destruct(&stack);
    PMIx_Value_destruct(NULL);
    PMIx_Data_array_destruct(NULL);
}

static void test_pointer_never_freed(void **state)
{
    (void)state;
    int *obj = malloc(sizeof(int));
    void **ptrs;
    pmix_info_t *info;
    pmix_value_t v, x;
    pmix_data_array_t da;

    *obj = 17;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, obj, PMIX_POINTER));
    assert_ptr_equal(obj, v.data.ptr);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&x, &v));
    assert_ptr_equal(obj, x.data.ptr);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);
    assert_int_equal(17, *obj); /* ASan: still allocated */

    PMIX_INFO_CREATE(info, 1);
    PMIX_INFO_LOAD(&info[0], "ptr", obj, PMIX_POINTER);
    PMIX_INFO_FREE(info, 1);
    assert_int_equal(17, *obj);

    ptrs = malloc(2 * sizeof(void *));
    ptrs[0] = obj;
    ptrs[1] = obj;
    da.type = PMIX_POINTER;
    da.size = 2;
    da.array = ptrs;
    PMIx_Data_array_destruct(&da);
    assert_null(da.array);
    assert_int_equal(17, *obj);
    free(obj);
}

static void test_null_strings(void **state)
{
    (void)state;
    pmix_value_t v, x, s;
    void *out = (void *)&v;
    void *copy = (void *)&v;
    size_t sz = 99;

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_STRING));
    assert_int_equal(PMIX_STRING, v.type);
    assert_null(v.data.string);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&x, &v));
    assert_null(x.data.string);
    assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &x));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_null(out);
    assert_int_equal(0, sz);
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_copy(&copy, NULL, PMIX_STRING));
    assert_null(copy);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&s, "a", PMIX_STRING));
    assert_int_equal(PMIX_VALUE2_GREATER, PMIx_Value_compare(&v, &s));
    assert_int_equal(PMIX_VALUE1_GREATER, PMIx_Value_compare(&s, &v));
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);
    PMIx_Value_destruct(&s);
}

/* ---- unload conventions (OpenPMIx 4.2.2 and the Standard) -------------- */

static void test_unload_conventions(void **state)
{
    (void)state;
    pmix_value_t v;
    int i = 42, got = 0;
    void *out;
    size_t sz;
    pmix_proc_t p, pgot;
    pmix_nspace_t ns = "my-nspace", nsgot;
    pmix_byte_object_t bo = {.bytes = "abc", .size = 3};

    /* scalar into the caller's storage: what 4.2.2 requires */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &i, PMIX_INT));
    out = &got;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_ptr_equal(&got, out);
    assert_int_equal(42, got);
    assert_int_equal(sizeof(int), sz);
    /* scalar with *data == NULL: a malloc'd copy */
    out = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_non_null(out);
    assert_int_equal(42, *(int *)out);
    free(out);

    PMIX_LOAD_PROCID(&p, "ns.p", 7);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &p, PMIX_PROC));
    out = &pgot;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_ptr_equal(&pgot, out);
    assert_true(PMIX_CHECK_PROCID(&p, &pgot));
    assert_int_equal(sizeof(pmix_proc_t), sz);
    PMIx_Value_destruct(&v);

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, ns, PMIX_PROC_NSPACE));
    out = nsgot;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_string_equal("my-nspace", nsgot);
    assert_int_equal(strlen("my-nspace"), sz);
    PMIx_Value_destruct(&v);
    /* a short string passed as nspace is not over-read */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, "x", PMIX_PROC_NSPACE));
    assert_string_equal("x", *v.data.nspace);
    PMIx_Value_destruct(&v);

    /* byte objects come back as a copy (4.2.2 aliases them) */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &bo, PMIX_BYTE_OBJECT));
    out = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&v, &out, &sz));
    assert_ptr_not_equal(v.data.bo.bytes, out);
    assert_int_equal(3, sz);
    free(out);
    PMIx_Value_destruct(&v);

    /* errors */
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Value_unload(&v, &out, &sz));
    v.type = 999;
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Value_unload(&v, &out, &sz));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_unload(NULL, &out, &sz));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_unload(&v, NULL, &sz));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_unload(&v, &out, NULL));
}

static void test_load_edge_cases(void **state)
{
    (void)state;
    pmix_value_t v;
    pmix_info_t info;

    memset(&v, 0x7f, sizeof(v));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_BOOL));
    assert_int_equal(PMIX_BOOL, v.type);
    assert_true(v.data.flag);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_INT));
    assert_int_equal(0, v.data.integer);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_DATA_ARRAY));
    assert_null(v.data.darray);
    PMIx_Value_destruct(&v);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, NULL, PMIX_UNDEF));
    assert_int_equal(PMIX_UNDEF, v.type);

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_load(NULL, "x", PMIX_STRING));
    memset(&v, 0x7f, sizeof(v));
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Value_load(&v, &info, 999));
    assert_int_equal(PMIX_UNDEF, v.type);
    memset(&info, 0, sizeof(info));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Value_load(&v, &info, PMIX_INFO));
    assert_int_equal(PMIX_UNDEF, v.type);

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_xfer(NULL, &v));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Value_xfer(&v, NULL));
    /* xfer onto itself keeps the value */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, "self", PMIX_STRING));
    {
        char *old = v.data.string;
        assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&v, &v));
        assert_string_equal("self", v.data.string);
        free(old);
    }
    PMIx_Value_destruct(&v);
}

/* A regex value may be binary: its byte length survives copies. */
static void test_regex_binary(void **state)
{
    (void)state;
    pmix_value_t v, x;
    void *out = NULL;
    size_t sz;

    memset(&v, 0, sizeof(v));
    v.type = PMIX_REGEX;
    v.data.bo.bytes = malloc(6);
    memcpy(v.data.bo.bytes, "blob:\0", 6);
    v.data.bo.size = 6;
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&x, &v));
    assert_int_equal(6, x.data.bo.size);
    assert_memory_equal("blob:\0", x.data.bo.bytes, 6);
    assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&v, &x));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&x, &out, &sz));
    assert_int_equal(6, sz);
    free(out);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);

    /* loaded from a string: string and byte views agree */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, "pmix[a]", PMIX_REGEX));
    assert_string_equal("pmix[a]", v.data.string);
    assert_int_equal(8, v.data.bo.size);
    PMIx_Value_destruct(&v);
}

/* ---- compare ------------------------------------------------------------ */

static pmix_value_cmp_t cmp_loaded(const void *a, const void *b, pmix_data_type_t t)
{
    pmix_value_t x, y;
    pmix_value_cmp_t r;

    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&x, a, t));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&y, b, t));
    r = PMIx_Value_compare(&x, &y);
    PMIx_Value_destruct(&x);
    PMIx_Value_destruct(&y);
    return r;
}

static void test_compare(void **state)
{
    (void)state;
    int i1 = 1, i2 = 2;
    int8_t n1 = -1, p1 = 1;
    pmix_status_t s1 = PMIX_ERROR, s2 = PMIX_SUCCESS;
    uint64_t big = UINT64_MAX, small = 1;
    double d1 = 0.5, d2 = 1.5, nan = NAN;
    float f1 = 1.0f, f2 = 2.0f;
    bool t = true, f = false;
    pmix_proc_t a1, a2, b1;
    pmix_byte_object_t abc = {"abc", 3}, abd = {"abd", 3}, ab = {"ab", 2};
    struct timeval tv1 = {1, 900000}, tv2 = {2, 0};
    pmix_envar_t e1 = {"A", "1", ':'}, e2 = {"A", "2", ':'};
    pmix_value_t x, y;
    int obj1, obj2;

    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&i1, &i2, PMIX_INT));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded(&i2, &i1, PMIX_INT));
    assert_int_equal(PMIX_EQUAL, cmp_loaded(&i1, &i1, PMIX_INT));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&n1, &p1, PMIX_INT8));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&s1, &s2, PMIX_STATUS));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded(&big, &small, PMIX_UINT64));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&d1, &d2, PMIX_DOUBLE));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&f1, &f2, PMIX_FLOAT));
    assert_int_equal(PMIX_VALUE_COMPARISON_NOT_AVAIL, cmp_loaded(&nan, &d1, PMIX_DOUBLE));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded(&t, &f, PMIX_BOOL));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&tv1, &tv2, PMIX_TIMEVAL));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded("a", "b", PMIX_STRING));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded("b", "a", PMIX_STRING));
    assert_int_equal(PMIX_EQUAL, cmp_loaded("same", "same", PMIX_STRING));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&abc, &abd, PMIX_BYTE_OBJECT));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded(&abc, &ab, PMIX_BYTE_OBJECT));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&e1, &e2, PMIX_ENVAR));

    PMIX_LOAD_PROCID(&a1, "a", 1);
    PMIX_LOAD_PROCID(&a2, "a", 2);
    PMIX_LOAD_PROCID(&b1, "b", 1);
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&a1, &a2, PMIX_PROC));
    assert_int_equal(PMIX_VALUE1_GREATER, cmp_loaded(&a2, &a1, PMIX_PROC));
    assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&a2, &b1, PMIX_PROC));
    assert_int_equal(PMIX_EQUAL, cmp_loaded(&a1, &a1, PMIX_PROC));

    /* pointers: identity only */
    assert_int_equal(PMIX_EQUAL, cmp_loaded(&obj1, &obj1, PMIX_POINTER));
    assert_int_equal(PMIX_VALUE_COMPARISON_NOT_AVAIL, cmp_loaded(&obj1, &obj2, PMIX_POINTER));

    /* types */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&x, &i1, PMIX_INT));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&y, "1", PMIX_STRING));
    assert_int_equal(PMIX_VALUE_TYPE_DIFFERENT, PMIx_Value_compare(&x, &y));
    assert_int_equal(PMIX_VALUE_INCOMPATIBLE_OBJECTS, PMIx_Value_compare(&x, NULL));
    PMIx_Value_destruct(&x);
    PMIx_Value_destruct(&y);
    memset(&x, 0, sizeof(x));
    memset(&y, 0, sizeof(y));
    assert_int_equal(PMIX_EQUAL, PMIx_Value_compare(&x, &y));

    /* data arrays: element-wise, then by length; different element types
     * cannot be compared */
    {
        pmix_proc_t ps[2] = {a1, a2};
        int ints[1] = {3};
        pmix_data_array_t d1a = {PMIX_PROC, 1, ps}, d2a = {PMIX_PROC, 2, ps};
        pmix_data_array_t di = {PMIX_INT, 1, ints};
        assert_int_equal(PMIX_VALUE2_GREATER, cmp_loaded(&d1a, &d2a, PMIX_DATA_ARRAY));
        assert_int_equal(PMIX_EQUAL, cmp_loaded(&d2a, &d2a, PMIX_DATA_ARRAY));
        assert_int_equal(PMIX_VALUE_INCOMPATIBLE_OBJECTS, cmp_loaded(&d1a, &di, PMIX_DATA_ARRAY));
    }
    /* structures without an order: equal, or not comparable */
    {
        pmix_proc_info_t pa, pb;
        memset(&pa, 0, sizeof(pa));
        memset(&pb, 0, sizeof(pb));
        pa.hostname = "h1";
        pb.hostname = "h1";
        assert_int_equal(PMIX_EQUAL, cmp_loaded(&pa, &pb, PMIX_PROC_INFO));
        pb.hostname = "h2";
        assert_int_equal(PMIX_VALUE_COMPARISON_NOT_AVAIL, cmp_loaded(&pa, &pb, PMIX_PROC_INFO));
    }
}

/* ---- hwloc objects ----------------------------------------------------- */

static void test_topology_and_cpuset(void **state)
{
    (void)state;
    hwloc_topology_t mine = sample_topology();
    pmix_topology_t *topo;
    pmix_topology_t src = {.source = "hwloc", .topology = mine};
    pmix_topology_t foreign;
    pmix_cpuset_t *cs;
    pmix_cpuset_t csrc;
    pmix_value_t v, x;
    void *out = NULL;
    size_t sz;

    /* load duplicates the hwloc topology: the value owns its own */
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &src, PMIX_TOPO));
    assert_non_null(v.data.topo->topology);
    assert_ptr_not_equal(mine, v.data.topo->topology);
    assert_int_equal(hwloc_get_nbobjs_by_type(mine, HWLOC_OBJ_PU),
                     hwloc_get_nbobjs_by_type(v.data.topo->topology, HWLOC_OBJ_PU));
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_xfer(&x, &v));
    assert_ptr_not_equal(v.data.topo->topology, x.data.topo->topology);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_unload(&x, &out, &sz));
    assert_int_equal(sizeof(pmix_topology_t), sz);
    topo = out;
    assert_string_equal("hwloc", topo->source);
    PMIx_Topology_destruct(topo);
    assert_null(topo->topology);
    assert_null(topo->source);
    free(topo);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);

    /* PMIX_TOPOLOGY_CREATE'd, filled by the caller, released by the library */
    PMIX_TOPOLOGY_CREATE(topo, 1);
    topo->source = strdup("hwloc");
    assert_int_equal(0, hwloc_topology_dup((hwloc_topology_t *)&topo->topology, mine));
    PMIx_Topology_destruct(topo);
    free(topo);
    PMIx_Topology_destruct(NULL);

    /* a topology from another provider is neither duplicated nor destroyed */
    foreign.source = strdup("other");
    foreign.topology = &foreign;
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, PMIx_Value_load(&v, &foreign, PMIX_TOPO));
    PMIx_Topology_destruct(&foreign);
    assert_null(foreign.source);

    /* cpusets */
    csrc.source = "hwloc";
    csrc.bitmap = hwloc_bitmap_alloc();
    hwloc_bitmap_set(csrc.bitmap, 0);
    hwloc_bitmap_set(csrc.bitmap, 3);
    assert_int_equal(PMIX_SUCCESS, PMIx_Value_load(&v, &csrc, PMIX_PROC_CPUSET));
    assert_ptr_not_equal(csrc.bitmap, v.data.cpuset->bitmap);
    assert_true(hwloc_bitmap_isequal(csrc.bitmap, v.data.cpuset->bitmap));
    hwloc_bitmap_free(csrc.bitmap);
    assert_true(hwloc_bitmap_isset(v.data.cpuset->bitmap, 3));
    PMIx_Value_destruct(&v);

    PMIX_CPUSET_CREATE(cs, 1);
    cs->source = strdup("hwloc");
    cs->bitmap = hwloc_bitmap_alloc_full();
    PMIx_Cpuset_destruct(cs);
    assert_null(cs->bitmap);
    free(cs);
    PMIx_Cpuset_destruct(NULL);
}

/* ---- data arrays and PMIx_Data_copy ------------------------------------- */

static void test_data_array_destruct(void **state)
{
    (void)state;
    pmix_data_array_t da;
    pmix_value_t *vals;
    pmix_app_t *apps;

    PMIX_VALUE_CREATE(vals, 2);
    PMIx_Value_load(&vals[0], "s", PMIX_STRING);
    {
        pmix_data_array_t *inner = build_nested("ns.V");
        PMIx_Value_load(&vals[1], inner, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(inner);
    }
    da.type = PMIX_VALUE;
    da.size = 2;
    da.array = vals;
    PMIx_Data_array_destruct(&da);
    assert_int_equal(PMIX_UNDEF, da.type);
    assert_int_equal(0, da.size);
    assert_null(da.array);

    PMIX_APP_CREATE(apps, 1);
    apps[0].cmd = strdup("a.out");
    {
        pmix_status_t rc;
        PMIX_ARGV_APPEND(rc, apps[0].argv, "a.out");
        assert_int_equal(PMIX_SUCCESS, rc);
    }
    PMIX_INFO_CREATE(apps[0].info, 1);
    apps[0].ninfo = 1;
    PMIX_INFO_LOAD(&apps[0].info[0], "k", "v", PMIX_STRING);
    PMIX_DATA_ARRAY_INIT(&da, PMIX_APP);
    da.array = apps;
    da.size = 1;
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    assert_null(da.array);
}

static void test_data_copy(void **state)
{
    (void)state;
    void *out = NULL;
    int i = 5;
    pmix_info_t info;

    assert_int_equal(PMIX_SUCCESS, PMIx_Data_copy(&out, &i, PMIX_INT));
    assert_int_equal(5, *(int *)out);
    free(out);
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_copy(&out, "str", PMIX_STRING));
    assert_string_equal("str", out);
    free(out);

    PMIX_INFO_LOAD(&info, "key", "val", PMIX_STRING);
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_copy(&out, &info, PMIX_INFO));
    assert_string_equal("key", ((pmix_info_t *)out)->key);
    assert_ptr_not_equal(info.value.data.string, ((pmix_info_t *)out)->value.data.string);
    PMIX_INFO_FREE(out, 1);
    PMIX_INFO_DESTRUCT(&info);

    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Data_copy(NULL, &i, PMIX_INT));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_Data_copy(&out, NULL, PMIX_INT));
    assert_null(out);
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Data_copy(&out, &i, 999));
    assert_int_equal(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIx_Data_copy(&out, &i, PMIX_UNDEF));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_sizes),
        cmocka_unit_test(test_elem_copy_failure_is_clean),
        cmocka_unit_test(test_array_copy_and_free),
        cmocka_unit_test(test_roundtrip_every_type),
        cmocka_unit_test(test_load_is_deep),
        cmocka_unit_test(test_nested_arrays),
        cmocka_unit_test(test_destruct_caller_built),
        cmocka_unit_test(test_pointer_never_freed),
        cmocka_unit_test(test_null_strings),
        cmocka_unit_test(test_unload_conventions),
        cmocka_unit_test(test_load_edge_cases),
        cmocka_unit_test(test_regex_binary),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_topology_and_cpuset),
        cmocka_unit_test(test_data_array_destruct),
        cmocka_unit_test(test_data_copy),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
