/* Unit test: the client side of OpenPMIx's protocol that needs no server
 * (src/common/opx_connect.c, opx_map.c): telling an OpenPMIx server's
 * environment from ours, the bytes of the connect message, and the three
 * node/proc map encodings, with malformed blobs refused. */
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

#include "common/frame.h"
#include "common/opx_client.h"
#include "common/wire.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_which_server),
        cmocka_unit_test(test_connect_msg),
        cmocka_unit_test(test_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
