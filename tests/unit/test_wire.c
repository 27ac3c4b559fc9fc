/*
 * Unit test: the wire messages generated from src/common/wire_msgs.txt and
 * the native codec (src/common/wire_codec.c).
 *
 * The codec must write the bytes the hand-written packers wrote (the
 * protocol version did not change), read back what it wrote, and turn
 * every truncation, corruption and lying count of a body into a status,
 * never a crash or a leak (run it under ASan: make check-asan).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/wire.h"

static const sy_wire_codec_t *codec = &sy_wire_native;

static void assert_same_bytes(const pmix_data_buffer_t *a, const pmix_data_buffer_t *b)
{
    assert_int_equal(a->bytes_used, b->bytes_used);
    assert_memory_equal(a->base_ptr, b->base_ptr, a->bytes_used);
}

/* A buffer that reads the bytes of src after its first `skip` bytes, cut
 * to `len` of them. */
static void reader(pmix_data_buffer_t *r, const pmix_data_buffer_t *src, size_t skip, size_t len)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(sy_buffer_set_copy(r, src->base_ptr + skip, len), PMIX_SUCCESS);
}

/* Every message is described, its code is its command's, and a request's
 * reply is the next id. */
static void test_descriptors(void **state)
{
    (void)state;
    for (sy_wire_msg_id_t id = 0; id < SY_WMSG_COUNT; id++) {
        const sy_wire_desc_t *d = sy_wire_desc(id);
        assert_non_null(d);
        assert_non_null(d->name);
        assert_true(d->code > 0);
        assert_true(d->nfields == 0 || d->size > 0);
        if (d->part == SY_WIRE_REQUEST) {
            const sy_wire_desc_t *r = sy_wire_desc(sy_wire_reply_of(id));
            assert_non_null(r);
            assert_int_equal(r->part, SY_WIRE_REPLY);
            assert_int_equal(r->code, d->code);
        }
    }
    assert_null(sy_wire_desc(SY_WMSG_COUNT));
    assert_int_equal(sy_wire_desc(SY_WMSG_LOOKUP_REQ)->code, SY_CMD_LOOKUP);
    assert_int_equal(sy_wire_desc(SY_WMSG_IOF_MSG)->code, SY_MSG_IOF);
}

/* LOOKUP as the hand-written client packed it: the command, SIZE k, k
 * STRING, SIZE n, n INFO (no INFO record for n = 0). */
static void test_bytes_as_before(void **state)
{
    (void)state;
    char *keys[] = {"alpha", "beta", NULL};
    pmix_info_t info[1];
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &(int){5}, PMIX_INT);
    for (size_t ninfo = 0; ninfo <= 1; ninfo++) {
        pmix_data_buffer_t hand = {0}, gen;
        uint8_t cmd = SY_CMD_LOOKUP;
        size_t nk = 2;
        assert_int_equal(sy_pack(&hand, &cmd, 1, PMIX_UINT8), PMIX_SUCCESS);
        assert_int_equal(sy_pack(&hand, &nk, 1, PMIX_SIZE), PMIX_SUCCESS);
        assert_int_equal(sy_pack(&hand, keys, 2, PMIX_STRING), PMIX_SUCCESS);
        assert_int_equal(sy_pack(&hand, &ninfo, 1, PMIX_SIZE), PMIX_SUCCESS);
        if (ninfo > 0)
            assert_int_equal(sy_pack(&hand, info, (int32_t)ninfo, PMIX_INFO), PMIX_SUCCESS);
        sy_wire_lookup_req_t m = {.keys = keys, .nkeys = 2, .info = info, .ninfo = ninfo};
        assert_int_equal(sy_wire_lookup_req_pack(codec, &gen, &m), PMIX_SUCCESS);
        assert_same_bytes(&hand, &gen);
        sy_buffer_destruct(&hand);
        sy_buffer_destruct(&gen);
    }
    /* a NULL array travels as n = 0, whatever its count says */
    pmix_data_buffer_t hand = {0}, gen;
    uint8_t cmd = SY_CMD_PUBLISH;
    size_t zero = 0;
    sy_pack(&hand, &cmd, 1, PMIX_UINT8);
    sy_pack(&hand, &zero, 1, PMIX_SIZE);
    sy_wire_publish_req_t p = {.info = NULL, .ninfo = 3};
    assert_int_equal(sy_wire_publish_req_pack(codec, &gen, &p), PMIX_SUCCESS);
    assert_same_bytes(&hand, &gen);
    sy_buffer_destruct(&hand);
    sy_buffer_destruct(&gen);
    PMIX_INFO_DESTRUCT(&info[0]);
}

/* A QUERY request (records holding arrays) of two queries. */
static void pack_query(pmix_data_buffer_t *b)
{
    char *k1[] = {PMIX_QUERY_NAMESPACES, NULL};
    char *k2[] = {PMIX_QUERY_PROC_TABLE, PMIX_QUERY_NUM_PSETS, NULL};
    pmix_info_t q[2];
    PMIX_INFO_LOAD(&q[0], PMIX_NSPACE, "ns-1", PMIX_STRING);
    PMIX_INFO_LOAD(&q[1], PMIX_RANK, &(pmix_rank_t){3}, PMIX_PROC_RANK);
    sy_wire_query_t queries[2] = {
        {.keys = k1, .nkeys = 1},
        {.keys = k2, .nkeys = 2, .qualifiers = q, .nqualifiers = 2},
    };
    sy_wire_query_req_t m = {.queries = queries, .nqueries = 2};
    assert_int_equal(sy_wire_query_req_pack(codec, b, &m), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void test_round_trip(void **state)
{
    (void)state;
    pmix_data_buffer_t b, r;
    pack_query(&b);
    reader(&r, &b, 0, b.bytes_used);
    uint8_t cmd;
    int32_t one = 1;
    assert_int_equal(sy_unpack(&r, &cmd, &one, PMIX_UINT8), PMIX_SUCCESS);
    assert_int_equal(cmd, SY_CMD_QUERY);
    sy_wire_query_req_t m;
    assert_int_equal(sy_wire_query_req_unpack(codec, &r, &m), PMIX_SUCCESS);
    assert_int_equal(sy_buffer_remaining(&r), 0);
    assert_int_equal(m.nqueries, 2);
    assert_int_equal(m.queries[0].nkeys, 1);
    assert_string_equal(m.queries[0].keys[0], PMIX_QUERY_NAMESPACES);
    assert_null(m.queries[0].keys[1]); /* key lists come NULL-terminated */
    assert_null(m.queries[0].qualifiers);
    assert_int_equal(m.queries[1].nkeys, 2);
    assert_string_equal(m.queries[1].keys[1], PMIX_QUERY_NUM_PSETS);
    assert_null(m.queries[1].keys[2]);
    assert_int_equal(m.queries[1].nqualifiers, 2);
    assert_string_equal(m.queries[1].qualifiers[0].value.data.string, "ns-1");
    assert_int_equal(m.queries[1].qualifiers[1].value.data.rank, 3);
    sy_wire_query_req_free(&m);
    assert_null(m.queries);
    sy_buffer_destruct(&r);
    sy_buffer_destruct(&b);

    /* a reply with records of values */
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, "pub", 7);
    sy_wire_pdata_t data[2] = {{.proc = who, .key = "k1"}, {.proc = who, .key = "k2"}};
    PMIX_VALUE_LOAD(&data[0].value, "v1", PMIX_STRING);
    PMIX_VALUE_LOAD(&data[1].value, &(uint64_t){42}, PMIX_UINT64);
    sy_wire_lookup_rep_t rep = {.data = data, .ndata = 2};
    memset(&b, 0, sizeof(b));
    assert_int_equal(sy_wire_lookup_rep_pack(codec, &b, &rep), PMIX_SUCCESS);
    reader(&r, &b, 0, b.bytes_used);
    sy_wire_lookup_rep_t got;
    assert_int_equal(sy_wire_lookup_rep_unpack(codec, &r, &got), PMIX_SUCCESS);
    assert_int_equal(got.ndata, 2);
    assert_true(PMIX_CHECK_PROCID(&got.data[1].proc, &who));
    assert_string_equal(got.data[0].key, "k1");
    assert_string_equal(got.data[0].value.data.string, "v1");
    assert_int_equal(got.data[1].value.data.uint64, 42);
    sy_wire_lookup_rep_free(&got);
    PMIX_VALUE_DESTRUCT(&data[0].value);
    sy_buffer_destruct(&r);
    sy_buffer_destruct(&b);
}

/* Every prefix of a body is refused with PMIX_ERR_UNPACK_FAILURE and
 * leaves the message empty (ASan sees any leak). */
static void test_every_truncation(void **state)
{
    (void)state;
    pmix_data_buffer_t b, r;
    pack_query(&b);
    size_t body = b.bytes_used - 7; /* after the command record */
    for (size_t len = 1; len < body; len++) {
        reader(&r, &b, 7, len);
        sy_wire_query_req_t m;
        assert_int_equal(sy_wire_query_req_unpack(codec, &r, &m), PMIX_ERR_UNPACK_FAILURE);
        assert_null(m.queries);
        assert_int_equal(m.nqueries, 0);
        sy_buffer_destruct(&r);
    }
    sy_buffer_destruct(&b);
}

/* Any byte changed: a status, never a crash; what was read is freed. */
static void test_every_corruption(void **state)
{
    (void)state;
    pmix_data_buffer_t b, r;
    pack_query(&b);
    for (size_t i = 7; i < b.bytes_used; i++) {
        for (unsigned x = 1; x < 256; x <<= 1) {
            reader(&r, &b, 7, b.bytes_used - 7);
            r.base_ptr[i - 7] = (char)(r.base_ptr[i - 7] ^ x);
            sy_wire_query_req_t m;
            pmix_status_t rc = sy_wire_query_req_unpack(codec, &r, &m);
            assert_true(rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_FAILURE ||
                        rc == PMIX_ERR_NOMEM);
            sy_wire_query_req_free(&m);
            sy_buffer_destruct(&r);
        }
    }
    sy_buffer_destruct(&b);
}

/* Counts the remaining bytes cannot hold are refused before anything is
 * allocated for them. */
static void test_lying_counts(void **state)
{
    (void)state;
    size_t lies[] = {(size_t)1 << 40, (size_t)INT32_MAX + 1, 1000, 3};
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        /* PUBLISH: SIZE n and no infos at all */
        pmix_data_buffer_t b = {0};
        assert_int_equal(sy_pack(&b, &lies[i], 1, PMIX_SIZE), PMIX_SUCCESS);
        sy_wire_publish_req_t m;
        assert_int_equal(sy_wire_publish_req_unpack(codec, &b, &m), PMIX_ERR_UNPACK_FAILURE);
        assert_null(m.info);
        sy_buffer_destruct(&b);
        /* QUERY: n records, each far more than the bytes that follow */
        memset(&b, 0, sizeof(b));
        char pad[64] = {0};
        assert_int_equal(sy_pack(&b, &lies[i], 1, PMIX_SIZE), PMIX_SUCCESS);
        assert_int_equal(sy_buffer_append(&b, pad, sizeof(pad)), PMIX_SUCCESS);
        sy_wire_query_req_t q;
        assert_int_equal(sy_wire_query_req_unpack(codec, &b, &q), PMIX_ERR_UNPACK_FAILURE);
        assert_null(q.queries);
        sy_buffer_destruct(&b);
    }
    /* a count that disagrees with its array's record */
    pmix_data_buffer_t b = {0};
    size_t two = 2;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "ns", 0);
    sy_pack(&b, &(int){1}, 1, PMIX_INT);
    char *msg = "bye";
    sy_pack(&b, &msg, 1, PMIX_STRING);
    sy_pack(&b, &two, 1, PMIX_SIZE);
    sy_pack(&b, &p, 1, PMIX_PROC);
    sy_pack(&b, &p, 1, PMIX_PROC);
    sy_wire_abort_req_t a;
    assert_int_equal(sy_wire_abort_req_unpack(codec, &b, &a), PMIX_ERR_UNPACK_FAILURE);
    assert_null(a.message);
    assert_null(a.procs);
    sy_buffer_destruct(&b);
}

/* An error reply is its status alone: its fields read as empty. */
static void test_error_reply(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    sy_wire_spawn_rep_t m;
    assert_int_equal(sy_wire_spawn_rep_unpack(codec, &b, &m), PMIX_SUCCESS);
    assert_null(m.nspace);
    /* a request is never empty when it has fields */
    sy_wire_jobseg_req_t j;
    assert_int_equal(sy_wire_jobseg_req_unpack(codec, &b, &j), PMIX_ERR_UNPACK_FAILURE);
    /* a type other than the table's */
    assert_int_equal(sy_pack(&b, &(uint32_t){7}, 1, PMIX_UINT32), PMIX_SUCCESS);
    assert_int_equal(sy_wire_jobseg_req_unpack(codec, &b, &j), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
}

/* The records of the modex messages: a FENCE reply as the server packed
 * it by hand (SIZE n, n x (nspace, path), SIZE k, k x path, each string
 * its own record), read back, every prefix refused; a COMMIT of kv[] with
 * values of two types round trips, and a count of kvs the bytes cannot
 * hold is refused. */
static void test_modex_records(void **state)
{
    (void)state;
    pmix_data_buffer_t hand = {0}, gen = {0}, r;
    size_t two = 2, one = 1;
    char *s[] = {"ns-a", "/tmp/seg-1", "ns-b", "/tmp/seg-2", "/tmp/seg-0"};
    sy_pack(&hand, &two, 1, PMIX_SIZE);
    for (int i = 0; i < 4; i++)
        sy_pack(&hand, &s[i], 1, PMIX_STRING);
    sy_pack(&hand, &one, 1, PMIX_SIZE);
    sy_pack(&hand, &s[4], 1, PMIX_STRING);
    sy_wire_segment_t segs[2] = {{s[0], s[1]}, {s[2], s[3]}};
    sy_wire_gone_t gone[1] = {{s[4]}};
    sy_wire_fence_rep_t m = {.segments = segs, .nsegments = 2, .retired = gone, .nretired = 1};
    assert_int_equal(sy_wire_fence_rep_pack(codec, &gen, &m), PMIX_SUCCESS);
    assert_same_bytes(&hand, &gen);
    sy_wire_fence_rep_t back;
    reader(&r, &gen, 0, gen.bytes_used);
    assert_int_equal(sy_wire_fence_rep_unpack(codec, &r, &back), PMIX_SUCCESS);
    assert_int_equal(back.nsegments, 2);
    assert_string_equal(back.segments[1].path, "/tmp/seg-2");
    assert_int_equal(back.nretired, 1);
    assert_string_equal(back.retired[0].path, "/tmp/seg-0");
    sy_wire_fence_rep_free(&back);
    assert_null(back.segments);
    sy_buffer_destruct(&r);
    for (size_t len = 1; len < gen.bytes_used; len++) {
        reader(&r, &gen, 0, len);
        assert_int_equal(sy_wire_fence_rep_unpack(codec, &r, &back), PMIX_ERR_UNPACK_FAILURE);
        assert_null(back.segments);
        assert_null(back.retired);
        sy_buffer_destruct(&r);
    }
    sy_buffer_destruct(&hand);
    sy_buffer_destruct(&gen);

    sy_wire_kv_t kv[2];
    memset(kv, 0, sizeof(kv));
    kv[0].scope = PMIX_GLOBAL;
    kv[0].key = "k-int";
    PMIX_VALUE_LOAD(&kv[0].value, &(int){42}, PMIX_INT);
    kv[1].scope = PMIX_LOCAL;
    kv[1].key = "k-str";
    PMIX_VALUE_LOAD(&kv[1].value, "hello", PMIX_STRING);
    sy_wire_commit_req_t c = {.data = kv, .ndata = 2};
    assert_int_equal(sy_wire_commit_req_pack(codec, &gen, &c), PMIX_SUCCESS);
    reader(&r, &gen, 7, gen.bytes_used - 7); /* after the command */
    sy_wire_commit_req_t cb;
    assert_int_equal(sy_wire_commit_req_unpack(codec, &r, &cb), PMIX_SUCCESS);
    assert_int_equal(cb.ndata, 2);
    assert_int_equal(cb.data[0].scope, PMIX_GLOBAL);
    assert_int_equal(cb.data[0].value.data.integer, 42);
    assert_string_equal(cb.data[1].key, "k-str");
    assert_string_equal(cb.data[1].value.data.string, "hello");
    sy_wire_commit_req_free(&cb);
    sy_buffer_destruct(&r);
    sy_buffer_destruct(&gen);
    PMIX_VALUE_DESTRUCT(&kv[1].value);
    pmix_data_buffer_t lie = {0};
    size_t many = 1000;
    sy_pack(&lie, &many, 1, PMIX_SIZE);
    sy_pack(&lie, &(uint8_t){1}, 1, PMIX_UINT8);
    assert_int_equal(sy_wire_commit_req_unpack(codec, &lie, &cb), PMIX_ERR_UNPACK_FAILURE);
    assert_null(cb.data);
    sy_buffer_destruct(&lie);
}

/* The heads are the codec's: a request's command byte, a reply's status,
 * a message's kind, read back; a missing or wrong-typed head is refused. */
static void test_heads(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    int32_t v = 0;
    assert_int_equal(sy_wire_pack_head(codec, &b, SY_WIRE_REPLY, PMIX_ERR_NOT_FOUND), PMIX_SUCCESS);
    assert_int_equal(sy_wire_pack_head(codec, &b, SY_WIRE_REQUEST, SY_CMD_FENCE), PMIX_SUCCESS);
    assert_int_equal(sy_wire_pack_head(codec, &b, SY_WIRE_REQUEST, 300), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_wire_unpack_head(codec, &b, SY_WIRE_REPLY, &v), PMIX_SUCCESS);
    assert_int_equal(v, PMIX_ERR_NOT_FOUND);
    assert_int_equal(sy_wire_unpack_head(codec, &b, SY_WIRE_REQUEST, &v), PMIX_SUCCESS);
    assert_int_equal(v, SY_CMD_FENCE);
    assert_int_equal(sy_wire_unpack_head(codec, &b, SY_WIRE_REQUEST, &v), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
    /* a status where a command byte belongs */
    memset(&b, 0, sizeof(b));
    sy_wire_pack_head(codec, &b, SY_WIRE_REPLY, PMIX_SUCCESS);
    assert_int_equal(sy_wire_unpack_head(codec, &b, SY_WIRE_REQUEST, &v), PMIX_ERR_UNPACK_FAILURE);
    sy_buffer_destruct(&b);
    /* an unsolicited message opens with its kind */
    sy_wire_iof_msg_t io = {.ref = 3, .channel = PMIX_FWD_STDOUT_CHANNEL};
    PMIX_LOAD_PROCID(&io.source, "ns", 1);
    assert_int_equal(sy_wire_pack_message(codec, &b, SY_WMSG_IOF_MSG, &io), PMIX_SUCCESS);
    assert_int_equal(sy_wire_unpack_head(codec, &b, SY_WIRE_MESSAGE, &v), PMIX_SUCCESS);
    assert_int_equal(v, SY_MSG_IOF);
    sy_wire_iof_msg_t back;
    assert_int_equal(sy_wire_iof_msg_unpack(codec, &b, &back), PMIX_SUCCESS);
    assert_int_equal(back.ref, 3);
    sy_wire_iof_msg_free(&back);
    sy_buffer_destruct(&b);
    /* a request id is no message */
    assert_int_equal(sy_wire_pack_message(codec, &b, SY_WMSG_FENCE_REQ, NULL), PMIX_ERR_BAD_PARAM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_bytes_as_before),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_every_corruption),
        cmocka_unit_test(test_lying_counts),
        cmocka_unit_test(test_error_reply),
        cmocka_unit_test(test_modex_records),
        cmocka_unit_test(test_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
