/* Unit test: the client side of OpenPMIx's protocol that needs no server
 * (src/common/opx_connect.c, opx_map.c, opx_codec_client.c): telling an
 * OpenPMIx server's environment from ours, the bytes of the connect
 * message, the three node/proc map encodings, with malformed blobs
 * refused, and a GETNB reply's pairs kept with their processes. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include <pmix_common.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/frame.h"
#include "common/opx_bfrops.h"
#include "common/opx_client.h"
#include "common/wire.h"
#include "common/wire_codec.h"
#include "common/wire_msgs.h"

static void clear_env(void)
{
    unsetenv(SY_ENV_URI);
    unsetenv("PMIX_SERVER_URI4");
    unsetenv("PMIX_SERVER_URI3");
    unsetenv("PMIX_SERVER_URI2");
    unsetenv("PMIX_SERVER_URI21");
    unsetenv(SY_ENV_SERVER);
}

static void test_which_server(void **state)
{
    (void)state;
    bool old = true;
    clear_env();
    assert_null(sy_opx_server_uri(&old));
    assert_false(old);
    /* OpenPMIx 4.x: its URIs, no mark of ours */
    const char *uri = "pmix-server.1234;tcp4://127.0.0.1:4711";
    setenv(SY_ENV_URI, uri, 1);
    setenv("PMIX_SERVER_URI4", uri, 1);
    const char *got = sy_opx_server_uri(&old);
    assert_non_null(got);
    assert_string_equal(uri, got);
    /* ours marks the URI it serves */
    setenv(SY_ENV_SERVER, uri, 1);
    assert_null(sy_opx_server_uri(&old));
    /* a mark inherited from an outer Switchyard job names another URI */
    setenv(SY_ENV_SERVER, "sy.0;tcp4://127.0.0.1:1", 1);
    assert_non_null(sy_opx_server_uri(&old));
    /* only _URI4 (an OpenPMIx 4.0/4.1 server) */
    clear_env();
    setenv("PMIX_SERVER_URI4", uri, 1);
    assert_non_null(sy_opx_server_uri(&old));
    /* only pre-4 servers: flagged, not attempted */
    clear_env();
    setenv("PMIX_SERVER_URI3", uri, 1);
    assert_null(sy_opx_server_uri(&old));
    assert_true(old);
    clear_env();
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* what an OpenPMIx 4.2 server reads (ptl_base_connection_hdlr.c) */
static void test_connect_msg(void **state)
{
    (void)state;
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, "job.7", 3);
    uint8_t *m = NULL;
    size_t len = 0;
    assert_int_equal(PMIX_SUCCESS, sy_opx_connect_msg(&me, &m, &len));
    int32_t pindex;
    uint32_t tag, n;
    memcpy(&pindex, m, 4); /* host order, the wart */
    memcpy(&tag, m + 4, 4);
    memcpy(&n, m + 8, 4);
    assert_int_equal(-1, pindex);
    assert_int_equal(UINT32_MAX, tag);
    assert_int_equal(len - SY_FRAME_HEADER_SIZE, n);
    const uint8_t *p = m + SY_FRAME_HEADER_SIZE;
    assert_string_equal("native", (const char *)p);
    p += 7;
    assert_int_equal(8, be32(p)); /* the credential: euid, egid */
    p += 4;
    uint32_t id;
    memcpy(&id, p, 4);
    assert_int_equal(geteuid(), id);
    memcpy(&id, p + 4, 4);
    assert_int_equal(getegid(), id);
    p += 8;
    assert_int_equal(0, *p++); /* a simple client */
    assert_string_equal("job.7", (const char *)p);
    p += 6;
    assert_int_equal(3, be32(p));
    p += 4;
    assert_string_equal("4.2.2", (const char *)p);
    p += 6;
    assert_string_equal("v41", (const char *)p);
    p += 4;
    assert_int_equal(1, *p++); /* non-described buffers */
    assert_string_equal("hash", (const char *)p);
    p += 5;
    assert_ptr_equal(m + len, p);
    free(m);
}

/* a blob as OpenPMIx's preg/compress writes one */
static size_t make_blob(const char *plain, uint8_t *out, size_t cap, size_t *zlen)
{
    uLongf clen = compressBound(strlen(plain));
    uint8_t *z = malloc(clen);
    assert_int_equal(Z_OK, compress2(z, &clen, (const Bytef *)plain, strlen(plain), 9));
    char head[64];
    int h = snprintf(head, sizeof(head), "blob:%ccomponent=zlib:%csize=%lu:", 0, 0,
                     (unsigned long)clen + 4);
    assert_true((size_t)h + 1 + 4 + clen <= cap);
    memcpy(out, head, (size_t)h + 1);
    uint32_t u = (uint32_t)strlen(plain);
    memcpy(out + h + 1, &u, 4);
    memcpy(out + h + 1 + 4, z, clen);
    free(z);
    *zlen = clen;
    return (size_t)h + 1 + 4 + clen;
}

static void test_maps(void **state)
{
    (void)state;
    char *s = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_opx_map_decode("pmix[node[1:1-4]]", 18, &s));
    assert_string_equal("pmix[node[1:1-4]]", s);
    free(s);
    assert_int_equal(PMIX_SUCCESS, sy_opx_map_decode("raw:a,b", 8, &s));
    assert_string_equal("raw:a,b", s);
    free(s);

    const char *plain = "0,1,2,3;4,5,6,7;8,9,10,11;12,13,14,15;16,17,18,19";
    uint8_t blob[512];
    size_t zlen;
    size_t len = make_blob(plain, blob, sizeof(blob), &zlen);
    assert_int_equal(PMIX_SUCCESS, sy_opx_map_decode(blob, len, &s));
    assert_string_equal(plain, s);
    free(s);
    /* truncated anywhere: refused, never read past the end */
    for (size_t cut = 5; cut < len; cut++) {
        s = NULL;
        assert_int_not_equal(PMIX_SUCCESS, sy_opx_map_decode(blob, cut, &s));
        assert_null(s);
    }
    /* a lying plain length, a corrupt stream, another component */
    uint8_t bad[512];
    size_t h = len - zlen - 4;
    memcpy(bad, blob, len);
    uint32_t lie = 3;
    memcpy(bad + h, &lie, 4);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_opx_map_decode(bad, len, &s));
    memcpy(bad, blob, len);
    bad[h + 4 + zlen / 2] ^= 0x55;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_opx_map_decode(bad, len, &s));
    memcpy(bad, blob, len);
    memcpy(bad + 6, "component=lz4:", 14);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_opx_map_decode(bad, len, &s));
}

/* One GETNB byte object: the process, then its pairs, a KVAL pack call
 * each (as OpenPMIx's server packs them). */
static void put_blob(pmix_data_buffer_t *reply, const char *ns, pmix_rank_t rank, const char *key,
                     uint32_t value)
{
    pmix_data_buffer_t blob = {0};
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, ns, rank);
    assert_int_equal(PMIX_SUCCESS, sy_opx_pack(&blob, &who, 1, PMIX_PROC));
    pmix_value_t v = {.type = PMIX_UINT32, .data.uint32 = value};
    assert_int_equal(PMIX_SUCCESS, sy_opx_put_int(&blob, 1));
    assert_int_equal(PMIX_SUCCESS, sy_opx_pack_kval(&blob, key, &v));
    pmix_byte_object_t bo = {.bytes = (char *)blob.base_ptr, .size = blob.bytes_used};
    assert_int_equal(PMIX_SUCCESS, sy_opx_pack(reply, &bo, 1, PMIX_BYTE_OBJECT));
    sy_buffer_destruct(&blob);
}

/* A GETNB reply for a process of another job opens with that job's pairs
 * under the wildcard rank: every pair must keep its own process (one
 * PMIX_PROC_DATA array per byte object, PMIX_PROCID first), or the job's
 * values would pass for the target's and the next target's for this
 * one's. */
static void test_dmodex_owners(void **state)
{
    (void)state;
    pmix_data_buffer_t b = {0};
    put_blob(&b, "other.job", PMIX_RANK_WILDCARD, "pmix.job.size", 2);
    put_blob(&b, "other.job", 1, "btl.addr", 71);
    sy_wire_dmodex_rep_t m;
    assert_int_equal(PMIX_SUCCESS, sy_wire_unpack(&sy_wire_opx_client, &b, SY_WMSG_DMODEX_REP, &m));
    assert_string_equal("other.job", m.owner.nspace);
    assert_int_equal(PMIX_RANK_WILDCARD, m.owner.rank);
    assert_int_equal(PMIX_DATA_ARRAY, m.value.type);
    const pmix_data_array_t *da = m.value.data.darray;
    assert_int_equal(PMIX_INFO, da->type);
    assert_int_equal(2, da->size);
    const pmix_info_t *blobs = da->array;
    const pmix_rank_t ranks[2] = {PMIX_RANK_WILDCARD, 1};
    const char *keys[2] = {"pmix.job.size", "btl.addr"};
    const uint32_t values[2] = {2, 71};
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(PMIX_PROC_DATA, blobs[i].key);
        assert_int_equal(PMIX_DATA_ARRAY, blobs[i].value.type);
        const pmix_data_array_t *pa = blobs[i].value.data.darray;
        assert_int_equal(2, pa->size);
        const pmix_info_t *pairs = pa->array;
        assert_string_equal(PMIX_PROCID, pairs[0].key);
        assert_int_equal(PMIX_PROC, pairs[0].value.type);
        assert_string_equal("other.job", pairs[0].value.data.proc->nspace);
        assert_int_equal(ranks[i], pairs[0].value.data.proc->rank);
        assert_string_equal(keys[i], pairs[1].key);
        assert_int_equal(values[i], pairs[1].value.data.uint32);
    }
    sy_wire_dmodex_rep_free(&m);
    sy_buffer_destruct(&b);
    /* cut anywhere but between the byte objects: refused */
    pmix_data_buffer_t whole = {0};
    put_blob(&whole, "other.job", PMIX_RANK_WILDCARD, "pmix.job.size", 2);
    size_t first = whole.bytes_used;
    put_blob(&whole, "other.job", 1, "btl.addr", 71);
    for (size_t cut = 1; cut < whole.bytes_used; cut++) {
        pmix_data_buffer_t part = {0};
        assert_int_equal(PMIX_SUCCESS, sy_buffer_set_copy(&part, whole.base_ptr, cut));
        pmix_status_t rc = sy_wire_unpack(&sy_wire_opx_client, &part, SY_WMSG_DMODEX_REP, &m);
        if (cut == first) {
            assert_int_equal(PMIX_SUCCESS, rc);
            assert_int_equal(1, m.value.data.darray->size);
            sy_wire_dmodex_rep_free(&m);
        } else {
            assert_int_not_equal(PMIX_SUCCESS, rc);
        }
        sy_buffer_destruct(&part);
    }
    sy_buffer_destruct(&whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_which_server),
        cmocka_unit_test(test_connect_msg),
        cmocka_unit_test(test_maps),
        cmocka_unit_test(test_dmodex_owners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
