/*
 * Unit test: a cost matrix in chunks between switchyard-sched daemons
 * (tools/sched/sched_chunk.c) over a real link (sched_link.c, with a
 * session key, so every frame carries its MAC): a sender process runs
 * chunk_send_all, this one reads the frames as the node daemon does and
 * places them with chunk_apply.  Encoded and raw chunks give the same
 * matrix; chunks that no honest scheduler sends (outside the matrix, at
 * an odd offset, longer than a chunk, an encoding that does not give its
 * raw length, one that repeats or skips bytes) are refused with a reason
 * and write nothing outside.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/sched/sched_daemon.h"

static const uint8_t key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

/* A matrix of n x n entries shaped like a fat tree's (runs of a few hop
 * counts) with some noise, so that blocks of every kind appear. */
static uint16_t *make_matrix(size_t n)
{
    uint16_t *m = malloc(n * n * sizeof(uint16_t));
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            m[i * n + j] = (uint16_t)(i == j             ? 0
                                      : i / 16 == j / 16 ? 2
                                      : i > n - 40       ? (i * 7 + j * 13) % 4001
                                                         : 6);
    return m;
}

/* Receive one matrix of msize bytes from l as sched_node.c does (until
 * the sender hangs up); the bytes placed. */
static size_t receive(link_t *l, char *out, size_t msize)
{
    size_t got = 0;
    pmix_data_buffer_t b;
    while (link_recv(l, &b) == 0) {
        uint8_t kind = 0;
        int32_t one = 1;
        chunk_t c;
        const char *why = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8));
        assert_int_equal(0, chunk_read(&b, kind, &c));
        assert_int_equal(0, chunk_apply(&c, out, msize, &got, &why));
        PMIX_DATA_BUFFER_DESTRUCT(&b);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    return got;
}

static void roundtrip(bool encode)
{
    size_t n = 2100, msize = n * n * sizeof(uint16_t); /* 8.8 MB: two chunks */
    uint16_t *m = make_matrix(n);
    int sv[2];
    assert_int_equal(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[1]);
        link_t *s = link_new(sv[0], key, false);
        size_t payload = 0;
        int rc = chunk_send_all(s, 7, (const char *)m, msize, encode, &payload);
        link_free(s);
        _exit(rc == 0 && (encode ? payload < msize / 4 : payload == msize) ? 0 : 1);
    }
    close(sv[0]);
    link_t *l = link_new(sv[1], key, true);
    char *out = chunk_matrix_alloc(msize + 16);
    assert_non_null(out);
    memset(out + msize, 0x5a, 16);
    assert_int_equal(msize, receive(l, out, msize));
    assert_memory_equal(m, out, msize);
    for (size_t i = 0; i < 16; i++)
        assert_int_equal(0x5a, (uint8_t)out[msize + i]);
    int st = 0;
    assert_int_equal(pid, waitpid(pid, &st, 0));
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    link_free(l);
    free(out);
    free(m);
}

static void test_encoded(void **state)
{
    (void)state;
    roundtrip(true);
}

static void test_raw(void **state)
{
    (void)state;
    roundtrip(false);
}

/* One hostile LINK_CHUNK_ENC frame, as a scheduler would frame it. */
static void send_chunk(link_t *l, uint8_t kind, uint64_t off, uint64_t rawlen, const void *bytes,
                       size_t size)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint32_t id = 9;
    pmix_byte_object_t bo = {.bytes = (char *)bytes, .size = size};
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &off, 1, PMIX_UINT64);
    if (kind == LINK_CHUNK_ENC)
        PMIx_Data_pack(NULL, &b, &rawlen, 1, PMIX_UINT64);
    PMIx_Data_pack(NULL, &b, &bo, 1, PMIX_BYTE_OBJECT);
    assert_int_equal(0, link_send(l, &b));
    PMIX_DATA_BUFFER_DESTRUCT(&b);
}

/* The next frame from l placed into out, after placed bytes:
 * chunk_apply's result. */
static int receive_one(link_t *l, char *out, size_t msize, size_t placed)
{
    pmix_data_buffer_t b;
    uint8_t kind = 0;
    int32_t one = 1;
    chunk_t c;
    const char *why = NULL;
    assert_int_equal(0, link_recv(l, &b));
    assert_int_equal(PMIX_SUCCESS, PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8));
    assert_int_equal(0, chunk_read(&b, kind, &c));
    int rc = chunk_apply(&c, out, msize, &placed, &why);
    if (rc != 0)
        assert_non_null(why);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    return rc;
}

static void test_hostile(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    link_t *s = link_new(sv[0], key, false), *l = link_new(sv[1], key, true);
    const size_t msize = 64;
    char out[64 + 16];
    /* one run of 4 entries of 3, and the same claiming other lengths */
    const uint8_t run4[] = {1, 1, 0, 3, 0, 3, 0};
    /* placed: the bytes that came before it; where it starts, but for
     * the chunks that repeat or skip */
    struct {
        uint8_t kind;
        uint64_t off, rawlen;
        const void *bytes;
        size_t size, placed;
    } bad[] = {
        {LINK_CHUNK_ENC, 62, 8, run4, sizeof(run4), 62},            /* past the end */
        {LINK_CHUNK_ENC, UINT64_MAX - 3, 8, run4, sizeof(run4), 0}, /* overflow */
        {LINK_CHUNK_ENC, 1, 8, run4, sizeof(run4), 1},              /* odd offset */
        {LINK_CHUNK_ENC, 0, 7, run4, sizeof(run4), 0},              /* odd length */
        {LINK_CHUNK_ENC, 0, 10, run4, sizeof(run4), 0},             /* runs too short */
        {LINK_CHUNK_ENC, 0, 6, run4, sizeof(run4), 0},              /* runs too long */
        {LINK_CHUNK_ENC, 0, 8, run4, 3, 0},                         /* truncated */
        {LINK_CHUNK, 60, 0, run4, sizeof(run4), 60},                /* raw past end */
        {LINK_CHUNK_ENC, 0, 8, run4, sizeof(run4), 8},              /* repeated */
        {LINK_CHUNK_ENC, 16, 8, run4, sizeof(run4), 8},             /* skips 8 bytes */
        {LINK_CHUNK, 0, 0, run4, sizeof(run4), 8},                  /* raw repeated */
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        send_chunk(s, bad[k].kind, bad[k].off, bad[k].rawlen, bad[k].bytes, bad[k].size);
        memset(out, 0x5a, sizeof(out));
        assert_int_equal(-1, receive_one(l, out, msize, bad[k].placed));
        for (size_t i = msize; i < sizeof(out); i++)
            assert_int_equal(0x5a, (uint8_t)out[i]);
    }
    /* and the honest one goes in */
    send_chunk(s, LINK_CHUNK_ENC, 56, 8, run4, sizeof(run4));
    assert_int_equal(0, receive_one(l, out, msize, 56));
    const uint16_t want[4] = {3, 3, 3, 3};
    assert_memory_equal(want, out + 56, sizeof(want));
    link_free(s);
    link_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoded),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
