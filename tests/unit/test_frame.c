/* Unit test: length-framed connections (src/common/frame.c) over
 * socketpairs, real UNIX sockets and TCP loopback: ordering, large bodies,
 * fragmented and hostile input, dying peers, concurrent senders, closing
 * and freeing from inside callbacks. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "common/frame.h"
#include "common/sealed.h"
#include "common/usock.h"
#include <sys/mman.h>
#include <sys/resource.h>

/* ------------------------------------------------------------ helpers */

enum { PAIR_SOCKETPAIR, PAIR_UNIX, PAIR_TCP };

static void make_pair(int kind, int fds[2])
{
    int lfd, port;
    char dir[] = "/tmp/sy-frame-XXXXXX", path[64];

    switch (kind) {
    case PAIR_SOCKETPAIR:
        assert_int_equal(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds));
        return;
    case PAIR_UNIX:
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/s", dir);
        assert_int_equal(PMIX_SUCCESS, sy_usock_listen(path, 0600, &lfd));
        assert_int_equal(PMIX_SUCCESS, sy_usock_connect(path, &fds[0]));
        break;
    default:
        assert_int_equal(PMIX_SUCCESS, sy_tcp_listen(NULL, 0, &lfd, &port));
        assert_int_equal(PMIX_SUCCESS, sy_tcp_connect("127.0.0.1", port, &fds[0]));
        break;
    }
    pmix_status_t rc = PMIX_ERR_WOULD_BLOCK;
    for (int i = 0; i < 2000 && rc == PMIX_ERR_WOULD_BLOCK; i++) {
        rc = sy_usock_accept(lfd, &fds[1]);
        if (rc == PMIX_ERR_WOULD_BLOCK)
            usleep(1000);
    }
    assert_int_equal(PMIX_SUCCESS, rc);
    close(lfd);
    if (PAIR_UNIX == kind) {
        unlink(path);
        rmdir(dir);
    }
}

typedef struct {
    /* received */
    size_t nmsg;
    uint32_t last_tag;
    size_t bytes;
    bool bad; /* a content or order check failed */
    char bad_why[128];
    size_t per_thread[4];
    void *taken; /* body kept with sy_conn_take_body */
    size_t taken_len;
    /* closing */
    int nclose;
    pmix_status_t reason;
    char why[256];
    /* behaviour */
    bool check_pattern; /* body[j] == (tag*7 + j) & 0xff */
    bool check_threads; /* tag = thread << 24 | seq, per-thread order */
    bool take;          /* take the body */
    size_t close_at;    /* sy_conn_close in the close_at-th message (1-based) */
    size_t free_at;     /* sy_conn_free in the free_at-th message */
    bool free_in_close; /* sy_conn_free inside on_close */
    bool freed;
} rec_t;

__attribute__((format(printf, 2, 3))) static void mark_bad(rec_t *r, const char *fmt, ...)
{
    va_list ap;
    if (r->bad)
        return;
    r->bad = true;
    va_start(ap, fmt);
    vsnprintf(r->bad_why, sizeof(r->bad_why), fmt, ap);
    va_end(ap);
}

static uint8_t pat(uint32_t tag, size_t j)
{
    return (uint8_t)(tag * 7u + j * 13u + (j >> 8));
}

static void fill(uint8_t *b, uint32_t tag, size_t len)
{
    for (size_t j = 0; j < len; j++)
        b[j] = pat(tag, j);
}

static void on_message(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body, size_t len,
                       void *ctx)
{
    rec_t *r = ctx;
    const uint8_t *b = body;

    r->nmsg++;
    r->bytes += len;
    if ((len == 0) != (body == NULL))
        mark_bad(r, "body %p with len %zu", body, len);
    if (r->check_pattern) {
        if (tag != r->last_tag + 1)
            mark_bad(r, "tag %u after %u", tag, r->last_tag);
        if (flags != (uint16_t)(tag ^ 0x1a5a))
            mark_bad(r, "flags %u for tag %u", flags, tag);
        for (size_t j = 0; j < len; j++)
            if (b[j] != pat(tag, j)) {
                mark_bad(r, "tag %u byte %zu of %zu differs", tag, j, len);
                break;
            }
    }
    if (r->check_threads) {
        unsigned t = tag >> 24, seq = tag & 0xffffff;
        if (t >= 4 || seq != r->per_thread[t])
            mark_bad(r, "thread %u seq %u, expected %zu", t, seq, t < 4 ? r->per_thread[t] : 0);
        else
            r->per_thread[t]++;
        if (len < 8 || memcmp(b, &tag, 4) != 0 || b[len - 1] != (uint8_t)tag)
            mark_bad(r, "thread message %u body corrupt", tag);
    }
    r->last_tag = tag;
    if (r->take) {
        free(r->taken);
        r->taken = sy_conn_take_body(conn);
        r->taken_len = len;
        /* A second take gets nothing. */
        if (sy_conn_take_body(conn) != NULL)
            mark_bad(r, "body taken twice");
    }
    if (r->close_at == r->nmsg)
        sy_conn_close(conn);
    if (r->free_at == r->nmsg) {
        sy_conn_free(conn);
        r->freed = true;
    }
}

static void on_close(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx)
{
    rec_t *r = ctx;
    r->nclose++;
    r->reason = reason;
    snprintf(r->why, sizeof(r->why), "%s", why ? why : "(null)");
    assert_int_equal(-1, sy_conn_fd(conn));
    if (r->free_in_close) {
        sy_conn_free(conn);
        r->freed = true;
    }
}

static const sy_conn_callbacks_t cbs = {.on_message = on_message, .on_close = on_close};

static void tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

typedef struct {
    struct event_base *base;
    struct event *timer;
} loop_t;

static void loop_init(loop_t *l)
{
    l->base = event_base_new();
    assert_non_null(l->base);
    /* A periodic timer so that one loop pass never waits long. */
    l->timer = event_new(l->base, -1, EV_PERSIST, tick, NULL);
    struct timeval tv = {0, 5000};
    event_add(l->timer, &tv);
}

static void loop_fini(loop_t *l)
{
    event_free(l->timer);
    event_base_free(l->base);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run the loop until *flag becomes true (60 s at most). */
#define RUN_UNTIL(l, cond)                                                                         \
    do {                                                                                           \
        double t0_ = now();                                                                        \
        while (!(cond) && now() - t0_ < 60)                                                        \
            event_base_loop((l)->base, EVLOOP_ONCE);                                               \
        assert_true(cond);                                                                         \
    } while (0)

static void spin(loop_t *l, int passes)
{
    for (int i = 0; i < passes; i++)
        event_base_loop(l->base, EVLOOP_NONBLOCK);
}

static void write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && (EINTR == errno || EAGAIN == errno))
            continue;
        assert_true(w > 0);
        b += w;
        n -= (size_t)w;
    }
}

/* ------------------------------------------------------------ tests */

static void test_header_layout(void **state)
{
    (void)state;
    uint8_t h[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(h, 0x01020304, 0xa0b0, 0x11223344);
    const uint8_t want[16] = {'S', 'Y', 'W', '1', 1,    0,    0xb0, 0xa0,
                              4,   3,   2,   1,   0x44, 0x33, 0x22, 0x11};
    assert_memory_equal(want, h, 16);
}

/* OpenPMIx's framing: network-order header, no magic, no flags; a raw
 * peer's frames arrive with their tags, ours carry the pindex, and a
 * header claiming more than the limit closes the connection. */
static void test_openpmix_framing(void **state)
{
    (void)state;
    uint8_t h[SY_FRAME_HEADER_SIZE];
    sy_frame_opx_header_encode(h, -1, 0x01020304, 0x11223344);
    const uint8_t want[16] = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4,
                              0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0};
    assert_memory_equal(want, h, 16);
    int32_t pindex;
    uint32_t tag, len;
    sy_frame_opx_header_decode(h, &pindex, &tag, &len);
    assert_int_equal(-1, pindex);
    assert_int_equal(0x01020304, tag);
    assert_int_equal(0x11223344, len);

    loop_t l;
    int fds[2];
    sy_conn_t *b;
    rec_t rb = {.take = true};
    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create_framed(l.base, fds[1], SY_FRAMING_OPENPMIX, 7,
                                                         &cbs, &rb, 1 << 16, &b));
    uint8_t frame[SY_FRAME_HEADER_SIZE + 5];
    sy_frame_opx_header_encode(frame, 3, 104, 5);
    memcpy(frame + SY_FRAME_HEADER_SIZE, "hello", 5);
    write_all(fds[0], frame, sizeof(frame));
    RUN_UNTIL(&l, rb.nmsg == 1 || rb.nclose);
    assert_int_equal(1, rb.nmsg);
    assert_int_equal(104, rb.last_tag);
    assert_int_equal(5, rb.taken_len);
    assert_memory_equal("hello", rb.taken, 5);

    /* our frames: the pindex we were given, the tag, the length */
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(b, 100, 0xffff, "abc", 3));
    spin(&l, 5);
    uint8_t got[SY_FRAME_HEADER_SIZE + 3];
    size_t n = 0;
    while (n < sizeof(got)) {
        ssize_t r = read(fds[0], got + n, sizeof(got) - n);
        assert_true(r > 0);
        n += (size_t)r;
    }
    sy_frame_opx_header_decode(got, &pindex, &tag, &len);
    assert_int_equal(7, pindex);
    assert_int_equal(100, tag);
    assert_int_equal(3, len);
    assert_memory_equal("abc", got + SY_FRAME_HEADER_SIZE, 3);

    /* a claimed body over the limit: the connection dies with a reason */
    sy_frame_opx_header_encode(frame, 3, 105, 1u << 30);
    write_all(fds[0], frame, SY_FRAME_HEADER_SIZE);
    RUN_UNTIL(&l, rb.nclose);
    assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rb.reason);
    assert_non_null(strstr(rb.why, "OpenPMIx"));
    free(rb.taken);
    sy_conn_free(b);
    close(fds[0]);
    loop_fini(&l);
}

static void small_messages(int kind)
{
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0}, rb = {.check_pattern = true};
    uint8_t buf[700];

    loop_init(&l);
    make_pair(kind, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    for (uint32_t tag = 1; tag <= 10000; tag++) {
        size_t len = (tag * 37u) % sizeof(buf); /* includes empty bodies */
        fill(buf, tag, len);
        assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, tag, (uint16_t)(tag ^ 0x1a5a), buf, len));
    }
    RUN_UNTIL(&l, rb.nmsg == 10000 || rb.bad || rb.nclose);
    assert_false(rb.bad);
    assert_int_equal(10000, rb.nmsg);
    assert_int_equal(10000, rb.last_tag);
    assert_int_equal(0, sy_conn_pending(a));
    /* Replies flow the other way on the same connection. */
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(b, 77, 0, "pong", 4));
    RUN_UNTIL(&l, ra.nmsg == 1);
    assert_int_equal(77, ra.last_tag);
    assert_int_equal(0, ra.nclose + rb.nclose);
    sy_conn_free(a);
    sy_conn_free(b);
    assert_int_equal(0, ra.nclose + rb.nclose); /* local close/free: no callback */
    loop_fini(&l);
}

static void test_small_socketpair(void **s)
{
    (void)s;
    small_messages(PAIR_SOCKETPAIR);
}
static void test_small_unix(void **s)
{
    (void)s;
    small_messages(PAIR_UNIX);
}
static void test_small_tcp(void **s)
{
    (void)s;
    small_messages(PAIR_TCP);
}

static void large_message(int kind)
{
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0}, rb = {.check_pattern = true, .take = true};
    const size_t big = (size_t)64 << 20;

    loop_init(&l);
    make_pair(kind, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    uint8_t *body = malloc(big);
    assert_non_null(body);
    fill(body, 1, big);
    double t0 = now();
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned(a, 1, 1 ^ 0x1a5a, body, big));
    /* Sent whole: never blocks, queue holds the rest. */
    assert_true(sy_conn_pending(a) > 0);
    uint8_t small[10];
    fill(small, 2, sizeof(small));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, 2, 2 ^ 0x1a5a, small, sizeof(small)));
    RUN_UNTIL(&l, rb.nmsg == 2 || rb.bad || rb.nclose);
    double dt = now() - t0;
    assert_false(rb.bad);
    assert_int_equal(big + sizeof(small), rb.bytes);
    assert_non_null(rb.taken);
    assert_int_equal(sizeof(small), rb.taken_len);
    assert_memory_equal(small, rb.taken, sizeof(small));
    free(rb.taken);
    /* Linear, not quadratic: 64 MiB in well under the test timeout. */
    assert_true(dt < 20.0);
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
}

static void test_large_socketpair(void **s)
{
    (void)s;
    large_message(PAIR_SOCKETPAIR);
}
static void test_large_unix(void **s)
{
    (void)s;
    large_message(PAIR_UNIX);
}
static void test_large_tcp(void **s)
{
    (void)s;
    large_message(PAIR_TCP);
}

/* A raw peer dribbles frames one byte at a time, then in odd-sized chunks. */
static void test_fragmented(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *b;
    rec_t rb = {.check_pattern = true, .take = true};

    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));

    size_t lens[] = {0, 1, 3000, 0, 17};
    for (uint32_t i = 0; i < 5; i++) {
        uint8_t frame[SY_FRAME_HEADER_SIZE + 3000];
        uint32_t tag = i + 1;
        sy_frame_header_encode(frame, tag, (uint16_t)(tag ^ 0x1a5a), (uint32_t)lens[i]);
        fill(frame + SY_FRAME_HEADER_SIZE, tag, lens[i]);
        for (size_t j = 0; j < SY_FRAME_HEADER_SIZE + lens[i]; j++) {
            write_all(fds[0], frame + j, 1);
            spin(&l, 1);
            /* Nothing is delivered before the last byte. */
            if (j + 1 < SY_FRAME_HEADER_SIZE + lens[i])
                assert_int_equal(i, rb.nmsg);
        }
        RUN_UNTIL(&l, rb.nmsg == i + 1);
    }
    assert_false(rb.bad);

    /* A 1 MiB body and a small frame in chunks of varying size, so that the
     * header, the staging buffer and direct reads all meet boundaries. */
    const size_t big = (size_t)1 << 20;
    size_t total = 2 * SY_FRAME_HEADER_SIZE + big + 5;
    uint8_t *s = malloc(total);
    assert_non_null(s);
    sy_frame_header_encode(s, 6, 6 ^ 0x1a5a, (uint32_t)big);
    fill(s + SY_FRAME_HEADER_SIZE, 6, big);
    sy_frame_header_encode(s + SY_FRAME_HEADER_SIZE + big, 7, 7 ^ 0x1a5a, 5);
    fill(s + 2 * SY_FRAME_HEADER_SIZE + big, 7, 5);
    size_t off = 0, step = 1;
    while (off < total) {
        size_t n = step < total - off ? step : total - off;
        write_all(fds[0], s + off, n);
        off += n;
        step = (step * 5 + 3) % 70001 + 1;
        spin(&l, 2);
    }
    RUN_UNTIL(&l, rb.nmsg == 7 || rb.bad || rb.nclose);
    assert_false(rb.bad);
    assert_int_equal(0, rb.nclose);
    assert_int_equal(5, rb.taken_len);
    free(rb.taken);
    free(s);
    sy_conn_free(b);
    close(fds[0]);
    loop_fini(&l);
}

/* Raw bytes from a peer: the connection dies once with `want` and the
 * reason contains `needle`; a good frame sent before is still delivered. */
static void hostile(const void *bytes, size_t n, bool then_eof, size_t max_body, pmix_status_t want,
                    const char *needle)
{
    loop_t l;
    int fds[2];
    sy_conn_t *b;
    rec_t rb = {.check_pattern = true};
    uint8_t good[SY_FRAME_HEADER_SIZE + 4];

    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, max_body, &b));
    sy_frame_header_encode(good, 1, 1 ^ 0x1a5a, 4);
    fill(good + SY_FRAME_HEADER_SIZE, 1, 4);
    write_all(fds[0], good, sizeof(good));
    write_all(fds[0], bytes, n);
    if (then_eof)
        close(fds[0]);
    RUN_UNTIL(&l, rb.nclose > 0);
    spin(&l, 20);
    assert_int_equal(1, rb.nmsg);
    assert_false(rb.bad);
    assert_int_equal(1, rb.nclose);
    assert_int_equal(want, rb.reason);
    if (strstr(rb.why, needle) == NULL)
        fail_msg("reason '%s' lacks '%s'", rb.why, needle);
    assert_int_equal(-1, sy_conn_fd(b));
    /* Dead: sends are refused, owned bodies released. */
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, sy_conn_send(b, 9, 0, "x", 1));
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, sy_conn_send_owned(b, 9, 0, strdup("x"), 1));
    if (!then_eof) {
        /* We hung up on the peer. */
        char c;
        ssize_t r;
        do {
            r = read(fds[0], &c, 1);
        } while (r < 0 && EINTR == errno);
        assert_int_equal(0, r);
        close(fds[0]);
    }
    sy_conn_free(b);
    loop_fini(&l);
}

static void test_garbage(void **state)
{
    (void)state;
    const char http[] = "GET / HTTP/1.0\r\n\r\n";
    hostile(http, sizeof(http) - 1, false, 0, PMIX_ERR_UNPACK_FAILURE, "magic");
    uint8_t h[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(h, 1, 0, 0);
    h[4] = 2; /* version 2 */
    hostile(h, sizeof(h), false, 0, PMIX_ERR_UNPACK_FAILURE, "version 2");
}

static void test_oversize(void **state)
{
    (void)state;
    uint8_t h[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(h, 1, 0, 4097);
    hostile(h, sizeof(h), false, 4096, PMIX_ERR_UNPACK_FAILURE, "exceeds the limit of 4096");
    /* A 4 GiB - 1 claim against the default limit: refused, never allocated. */
    sy_frame_header_encode(h, 1, 0, UINT32_MAX);
    hostile(h, sizeof(h), false, 0, PMIX_ERR_UNPACK_FAILURE, "exceeds");
}

static long vm_size_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmSize: %ld", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

/* What a peer makes us hold follows what it sent, not what its header
 * claims: a 200 MiB claim followed by 1 MiB grows us by far less than
 * 200 MiB (the reader of clients and tools is this one too). */
static void test_claim_not_allocated(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *b;
    rec_t rb = {0};
    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    long before = vm_size_kb();
    uint8_t h[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(h, 1, 0, 200u << 20);
    write_all(fds[0], h, sizeof(h));
    static uint8_t chunk[64 * 1024];
    for (int i = 0; i < 16; i++) {
        write_all(fds[0], chunk, sizeof(chunk));
        spin(&l, 4);
    }
    spin(&l, 20);
    long grown = vm_size_kb() - before;
    if (grown >= 64 * 1024)
        fail_msg("a 200 MiB claim with 1 MiB sent grew us by %ld kB", grown);
    close(fds[0]);
    RUN_UNTIL(&l, rb.nclose > 0);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, rb.reason);
    if (strstr(rb.why, "1048576 of 209715200") == NULL)
        fail_msg("reason '%s'", rb.why);
    sy_conn_free(b);
    loop_fini(&l);
}

/* SWITCHYARD_MAX_MSG_SIZE's syntax. */
static void test_parse_size(void **state)
{
    (void)state;
    size_t v = 0;
    assert_int_equal(PMIX_SUCCESS, sy_frame_parse_size("1048576", &v));
    assert_int_equal(1048576, v);
    assert_int_equal(PMIX_SUCCESS, sy_frame_parse_size("64K", &v));
    assert_int_equal(65536, v);
    assert_int_equal(PMIX_SUCCESS, sy_frame_parse_size("256m", &v));
    assert_int_equal((size_t)256 << 20, v);
    assert_int_equal(PMIX_SUCCESS, sy_frame_parse_size("2G", &v));
    assert_int_equal((size_t)2 << 30, v);
    const char *bad[] = {"", "abc", "-5", "1T", "10 K", "4G", "1K", "0", "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (sy_frame_parse_size(bad[i], &v) != PMIX_ERR_BAD_PARAM)
            fail_msg("'%s' was taken for a size", bad[i]);
}

static void test_truncated_eof(void **state)
{
    (void)state;
    uint8_t f[SY_FRAME_HEADER_SIZE + 100];
    sy_frame_header_encode(f, 2, 2 ^ 0x1a5a, 200);
    memset(f + SY_FRAME_HEADER_SIZE, 0, 100);
    hostile(f, sizeof(f), true, 0, PMIX_ERR_LOST_CONNECTION, "100 of 200 body bytes");
    hostile(f, 7, true, 0, PMIX_ERR_LOST_CONNECTION, "7 of 16 bytes");
    hostile(f, 0, true, 0, PMIX_ERR_LOST_CONNECTION, "peer closed the connection");
}

/* A forked peer writes half a frame, then exits or is killed. */
static void dying_peer(bool kill_it)
{
    loop_t l;
    int fds[2];
    sy_conn_t *b;
    rec_t rb = {0};

    loop_init(&l);
    make_pair(PAIR_UNIX, fds);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        uint8_t f[SY_FRAME_HEADER_SIZE + 10];
        close(fds[1]);
        sy_frame_header_encode(f, 1, 0, 20);
        memset(f + SY_FRAME_HEADER_SIZE, 1, 10);
        if (write(fds[0], f, sizeof(f)) != (ssize_t)sizeof(f))
            _exit(1);
        if (kill_it)
            for (;;)
                pause();
        _exit(0);
    }
    close(fds[0]);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    if (kill_it) {
        /* The half frame arrives and waits for the rest. */
        usleep(50000);
        spin(&l, 5);
        assert_int_equal(0, rb.nclose);
        kill(pid, SIGKILL);
    }
    int st;
    assert_int_equal(pid, waitpid(pid, &st, 0));
    if (kill_it)
        assert_true(WIFSIGNALED(st) && SIGKILL == WTERMSIG(st));
    else
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    RUN_UNTIL(&l, rb.nclose > 0);
    spin(&l, 20);
    assert_int_equal(1, rb.nclose);
    assert_int_equal(0, rb.nmsg);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, rb.reason);
    assert_non_null(strstr(rb.why, "10 of 20"));
    sy_conn_free(b);
    loop_fini(&l);
}

static void test_peer_exits(void **s)
{
    (void)s;
    dying_peer(false);
}
static void test_peer_killed(void **s)
{
    (void)s;
    dying_peer(true);
}

/* Writing to a peer that went away: one on_close, LOST_CONNECTION. */
static void test_write_to_dead_peer(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *a;
    rec_t ra = {0};
    static uint8_t chunk[256 * 1024];

    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    close(fds[1]);
    for (int i = 0; i < 8 && ra.nclose == 0; i++) {
        pmix_status_t rc = sy_conn_send(a, (uint32_t)i, 0, chunk, sizeof(chunk));
        assert_true(rc == PMIX_SUCCESS || rc == PMIX_ERR_LOST_CONNECTION);
        spin(&l, 2);
    }
    RUN_UNTIL(&l, ra.nclose > 0);
    spin(&l, 10);
    assert_int_equal(1, ra.nclose);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, ra.reason);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, sy_conn_send(a, 1, 0, NULL, 0));
    sy_conn_free(a);
    loop_fini(&l);
}

typedef struct {
    sy_conn_t *conn;
    unsigned id;
    int failures;
} sender_t;

static void *sender_main(void *arg)
{
    sender_t *s = arg;
    uint8_t *buf = malloc(300 * 1024);
    for (uint32_t seq = 0; seq < 2500; seq++) {
        uint32_t tag = (s->id << 24) | seq;
        /* Mostly small, sometimes big enough to fill the socket and make
         * this thread arm EV_WRITE. */
        size_t len = 0 == seq % 250 ? 300 * 1024 : 8 + (seq % 64);
        memset(buf, (int)s->id, len);
        memcpy(buf, &tag, 4);
        buf[len - 1] = (uint8_t)tag;
        pmix_status_t rc;
        if (seq & 1) {
            uint8_t *own = malloc(len);
            memcpy(own, buf, len);
            rc = sy_conn_send_owned(s->conn, tag, 0, own, len);
        } else {
            rc = sy_conn_send(s->conn, tag, 0, buf, len);
        }
        if (rc != PMIX_SUCCESS)
            s->failures++;
    }
    free(buf);
    return NULL;
}

static void test_concurrent_senders(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0}, rb = {.check_threads = true};
    pthread_t th[4];
    sender_t snd[4];

    loop_init(&l);
    make_pair(PAIR_UNIX, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    for (unsigned i = 0; i < 4; i++) {
        snd[i] = (sender_t){.conn = a, .id = i};
        assert_int_equal(0, pthread_create(&th[i], NULL, sender_main, &snd[i]));
    }
    /* The loop runs here while the threads send. */
    RUN_UNTIL(&l, rb.nmsg == 10000 || rb.bad || rb.nclose);
    for (unsigned i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(0, snd[i].failures);
        assert_int_equal(2500, rb.per_thread[i]);
    }
    if (rb.bad)
        fail_msg("%s", rb.bad_why);
    assert_int_equal(0, rb.nclose + ra.nclose);
    assert_int_equal(0, sy_conn_pending(a));
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
}

/* Close and free from inside callbacks: no further callback, no use after
 * free (ASan). */
static void test_close_inside_callbacks(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;

    /* sy_conn_close inside on_message: messages 3..5, already read into the
     * same buffer, are not delivered; no on_close. */
    {
        rec_t ra = {0}, rb = {.close_at = 2};
        loop_init(&l);
        make_pair(PAIR_SOCKETPAIR, fds);
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
        for (uint32_t t = 1; t <= 5; t++)
            assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, t, 0, "abc", 3));
        RUN_UNTIL(&l, rb.nmsg >= 2);
        spin(&l, 20);
        assert_int_equal(2, rb.nmsg);
        assert_int_equal(0, rb.nclose);
        assert_int_equal(-1, sy_conn_fd(b));
        assert_int_equal(PMIX_ERR_LOST_CONNECTION, sy_conn_send(b, 1, 0, "x", 1));
        /* The other side sees our hang-up. */
        RUN_UNTIL(&l, ra.nclose == 1);
        assert_int_equal(PMIX_ERR_LOST_CONNECTION, ra.reason);
        sy_conn_close(b); /* idempotent */
        sy_conn_free(b);
        sy_conn_free(a);
        loop_fini(&l);
    }
    /* sy_conn_free inside on_message. */
    {
        rec_t ra = {0}, rb = {.free_at = 1, .take = true};
        loop_init(&l);
        make_pair(PAIR_SOCKETPAIR, fds);
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
        for (uint32_t t = 1; t <= 3; t++)
            assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, t, 0, "abcdef", 6));
        RUN_UNTIL(&l, rb.freed);
        spin(&l, 20);
        assert_int_equal(1, rb.nmsg);
        assert_int_equal(0, rb.nclose);
        /* The taken body outlives the connection. */
        assert_memory_equal("abcdef", rb.taken, 6);
        free(rb.taken);
        RUN_UNTIL(&l, ra.nclose == 1);
        sy_conn_free(a);
        loop_fini(&l);
    }
    /* sy_conn_free inside on_close, the connection dying in the middle of a
     * burst of frames. */
    {
        rec_t rb = {.free_in_close = true};
        uint8_t junk[64];
        loop_init(&l);
        make_pair(PAIR_SOCKETPAIR, fds);
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
        sy_frame_header_encode(junk, 1, 0, 0);
        memset(junk + 16, 0xee, sizeof(junk) - 16);
        write_all(fds[0], junk, sizeof(junk));
        RUN_UNTIL(&l, rb.freed);
        spin(&l, 20);
        assert_int_equal(1, rb.nmsg);
        assert_int_equal(1, rb.nclose);
        assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rb.reason);
        close(fds[0]);
        loop_fini(&l);
    }
}

/* Refusal pattern: queue a reply, close after flushing it. */
static void test_close_after_flush(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0}, rb = {.check_pattern = true};
    const size_t big = (size_t)4 << 20;

    loop_init(&l);
    make_pair(PAIR_UNIX, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &rb, 0, &b));
    for (uint32_t t = 1; t <= 3; t++) {
        size_t len = t == 2 ? big : 100;
        uint8_t *body = malloc(len);
        fill(body, t, len);
        assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned(a, t, (uint16_t)(t ^ 0x1a5a), body, len));
    }
    assert_true(sy_conn_pending(a) > 0); /* the big one is still queued */
    /* Something from b that a must no longer deliver. */
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(b, 99, 0, "late", 4));
    sy_conn_close_after_flush(a);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, sy_conn_send(a, 4, 0, "x", 1));
    RUN_UNTIL(&l, rb.nclose > 0);
    spin(&l, 20);
    assert_false(rb.bad);
    assert_int_equal(3, rb.nmsg);
    assert_int_equal(PMIX_ERR_LOST_CONNECTION, rb.reason);
    assert_non_null(strstr(rb.why, "peer closed the connection"));
    assert_int_equal(0, ra.nmsg);
    assert_int_equal(0, ra.nclose);
    assert_int_equal(-1, sy_conn_fd(a));
    sy_conn_free(a);
    sy_conn_free(b);

    /* Nothing queued: closes at once. */
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    sy_conn_close_after_flush(a);
    assert_int_equal(-1, sy_conn_fd(a));
    sy_conn_free(a);
    close(fds[1]);
    loop_fini(&l);
}

static void test_bad_params(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *c = (sy_conn_t *)&c;

    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_conn_create(NULL, fds[0], &cbs, NULL, 0, &c));
    assert_null(c);
    /* The fd was taken (closed) even on failure. */
    assert_int_equal(-1, fcntl(fds[0], F_GETFD));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_conn_create(l.base, -1, &cbs, NULL, 0, &c));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, NULL, 0, &c));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_conn_send(NULL, 1, 0, "x", 1));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_conn_send(c, 1, 0, NULL, 1));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_conn_send_owned(NULL, 1, 0, malloc(4), 4));
    assert_int_equal(PMIX_ERR_BAD_PARAM,
                     sy_conn_send_owned(c, 1, 0, malloc(4), (size_t)UINT32_MAX + 1));
    assert_null(sy_conn_take_body(c)); /* outside on_message */
    assert_int_equal(0, sy_conn_pending(NULL));
    assert_int_equal(-1, sy_conn_fd(NULL));
    sy_conn_free(c);
    sy_conn_free(NULL);
    sy_conn_close(NULL);
    loop_fini(&l);
}

/* OpenPMIx framing (issue 19): a detecting connection switches on the
 * connect header (pindex -1, tag UINT32_MAX, nbytes in host order), reads
 * later headers in network order, writes its own in network order, sends
 * raw bytes with no header; a native peer on a detecting connection is
 * not disturbed. */
static void put_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

static void test_openpmix_detect(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *c;
    rec_t r = {0};
    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &r, 0, &c));
    sy_conn_detect_openpmix(c);
    assert_false(sy_conn_openpmix(c));
    uint8_t hello[16 + 3];
    uint32_t n = 3;
    memset(hello, 0xff, 8);
    memcpy(hello + 8, &n, 4); /* host order, as OpenPMIx writes it */
    memset(hello + 12, 0, 4);
    memcpy(hello + 16, "abc", 3);
    write_all(fds[0], hello, sizeof(hello));
    RUN_UNTIL(&l, r.nmsg == 1 || r.nclose);
    assert_int_equal(1, r.nmsg);
    assert_int_equal(UINT32_MAX, r.last_tag);
    assert_true(sy_conn_openpmix(c));
    uint8_t req[16 + 2];
    put_be(req, 5);
    put_be(req + 4, 100);
    put_be(req + 8, 2);
    put_be(req + 12, 0);
    req[16] = 1, req[17] = 2;
    write_all(fds[0], req, sizeof(req));
    RUN_UNTIL(&l, r.nmsg == 2 || r.nclose);
    assert_int_equal(2, r.nmsg);
    assert_int_equal(100, r.last_tag);
    /* the connect reply (raw), then a reply frame in network order */
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_raw(c, "\0\0\0\0", 4));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(c, 100, 0, "xy", 2));
    uint8_t got[4 + 16 + 2], want[4 + 16 + 2] = {0};
    put_be(want + 4 + 4, 100);
    put_be(want + 4 + 8, 2);
    want[20] = 'x', want[21] = 'y';
    size_t have = 0;
    while (have < sizeof(got)) {
        ssize_t k = read(fds[0], got + have, sizeof(got) - have);
        assert_true(k > 0);
        have += (size_t)k;
    }
    assert_memory_equal(want, got, sizeof(got));
    /* a header claiming more than the limit drops the connection */
    put_be(req + 8, 0x7fffffff);
    write_all(fds[0], req, 16);
    RUN_UNTIL(&l, r.nclose == 1);
    assert_int_equal(PMIX_ERR_UNPACK_FAILURE, r.reason);
    sy_conn_free(c);
    close(fds[0]);

    /* our own frames on a detecting connection */
    rec_t r2 = {.check_pattern = true};
    make_pair(PAIR_SOCKETPAIR, fds);
    sy_conn_t *a, *b;
    rec_t ra = {0};
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cbs, &r2, 0, &b));
    sy_conn_detect_openpmix(b);
    uint8_t buf[64];
    for (uint32_t tag = 1; tag <= 50; tag++) {
        fill(buf, tag, tag);
        assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, tag, (uint16_t)(tag ^ 0x1a5a), buf, tag));
    }
    RUN_UNTIL(&l, r2.nmsg == 50 || r2.bad || r2.nclose);
    assert_false(r2.bad);
    assert_int_equal(50, r2.nmsg);
    assert_false(sy_conn_openpmix(b));
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
}

/* ------------------------------------------------ descriptors (SY_FRAME_F_FD) */

static int open_fds(void)
{
    int n = 0;
    char path[64];
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (access(path, F_OK) == 0)
            n++;
    }
    return n;
}

typedef struct {
    int nmsg, nclose;
    int fd[4]; /* taken descriptors, by message */
    bool flagged[4];
    char why[256];
} fdrec_t;

static void fd_message(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body, size_t len,
                       void *ctx)
{
    (void)body;
    (void)len;
    fdrec_t *r = ctx;
    if (r->nmsg < 4) {
        r->flagged[r->nmsg] = (flags & SY_FRAME_F_FD) != 0;
        /* the frame of tag 3 leaves its descriptor: the layer closes it */
        r->fd[r->nmsg] = tag == 3 ? -1 : sy_conn_take_fd(conn);
        if (tag != 3 && sy_conn_take_fd(conn) != -1)
            r->fd[r->nmsg] = -2; /* taken twice */
    }
    r->nmsg++;
}

static void fd_close(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx)
{
    (void)conn;
    (void)reason;
    fdrec_t *r = ctx;
    r->nclose++;
    snprintf(r->why, sizeof(r->why), "%s", why);
}

static const sy_conn_callbacks_t fd_cbs = {
    .on_message = fd_message, .on_close = fd_close, .receive_fds = true};
static const sy_conn_callbacks_t nofd_cbs = {.on_message = fd_message, .on_close = fd_close};

/* A sealed memfd rides on a frame between frames without one; the
 * receiver maps it; every descriptor is accounted for. */
static void test_fd_passing(void **state)
{
    (void)state;
    int before = open_fds();
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0};
    fdrec_t rb = {0};
    loop_init(&l);
    make_pair(PAIR_UNIX, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &fd_cbs, &rb, 0, &b));
    static uint8_t bytes[100000];
    fill(bytes, 5, sizeof(bytes));
    int mfd = sy_sealed_export(bytes, sizeof(bytes));
    assert_true(mfd >= 0);
    int mfd2 = sy_sealed_export(bytes, 10);
    assert_true(mfd2 >= 0);
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, 1, 0, "one", 3));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned_fd(a, 2, 1, strdup("two"), 3, mfd));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned_fd(a, 3, 1, strdup("three"), 5, mfd2));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, 4, 0, "four", 4));
    RUN_UNTIL(&l, rb.nmsg == 4 || rb.nclose);
    assert_int_equal(0, rb.nclose);
    assert_false(rb.flagged[0]);
    assert_true(rb.flagged[1] && rb.flagged[2]);
    assert_false(rb.flagged[3]);
    assert_int_equal(-1, rb.fd[0]);
    assert_int_equal(-1, rb.fd[3]);
    assert_true(rb.fd[1] >= 0);
    const char *why = NULL;
    void *m = sy_sealed_map(rb.fd[1], sizeof(bytes), &why);
    assert_non_null(m);
    assert_memory_equal(bytes, m, sizeof(bytes));
    /* the announced size is the file's, to the byte */
    assert_null(sy_sealed_map(rb.fd[1], sizeof(bytes) - 1, &why));
    assert_non_null(strstr(why, "size"));
    munmap(m, sizeof(bytes));
    close(rb.fd[1]);
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
    assert_int_equal(before, open_fds());
}

/* bytes on sock in one sendmsg, with npass descriptors (up to 6) riding
 * on them as the framing layer passes one */
static void send_with_fds(int sock, const void *bytes, size_t len, const int *pass, int npass)
{
    struct iovec iov = {.iov_base = (void *)bytes, .iov_len = len};
    union {
        char buf[CMSG_SPACE(6 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    assert_true(npass >= 0 && npass <= 6);
    if (npass > 0) {
        memset(&ctl, 0, sizeof(ctl));
        mh.msg_control = ctl.buf;
        mh.msg_controllen = CMSG_SPACE((size_t)npass * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)npass * sizeof(int));
        memcpy(CMSG_DATA(cm), pass, (size_t)npass * sizeof(int));
    }
    assert_int_equal((ssize_t)len, sendmsg(sock, &mh, 0));
}

/* Hostile descriptors: a frame flagged without one, a connection that
 * takes none, too many at once; each kills the connection, none leaks. */
static void test_fd_hostile(void **state)
{
    (void)state;
    int before = open_fds();
    for (int round = 0; round < 3; round++) {
        loop_t l;
        int fds[2];
        sy_conn_t *b;
        fdrec_t rb = {0};
        loop_init(&l);
        make_pair(PAIR_SOCKETPAIR, fds);
        assert_int_equal(
            PMIX_SUCCESS,
            sy_conn_create(l.base, fds[1], round == 1 ? &nofd_cbs : &fd_cbs, &rb, 0, &b));
        uint8_t h[SY_FRAME_HEADER_SIZE];
        sy_frame_header_encode(h, 1, SY_FRAME_F_FD, 0);
        int pass[6];
        int npass = round == 0 ? 0 : round == 1 ? 1 : 6;
        for (int i = 0; i < npass; i++)
            pass[i] = sy_sealed_export("x", 1);
        send_with_fds(fds[0], h, sizeof(h), pass, npass);
        for (int i = 0; i < npass; i++)
            close(pass[i]);
        RUN_UNTIL(&l, rb.nclose > 0);
        assert_int_equal(0, rb.nmsg);
        const char *want = round == 2 ? "more descriptors" : "announces a descriptor";
        if (strstr(rb.why, want) == NULL)
            fail_msg("round %d: reason '%s'", round, rb.why);
        sy_conn_free(b);
        close(fds[0]);
        loop_fini(&l);
    }
    /* on an OpenPMIx connection there is no flag to announce one */
    loop_t l;
    int fds[2];
    sy_conn_t *a;
    rec_t ra = {0};
    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create_framed(l.base, fds[0], SY_FRAMING_OPENPMIX, 0,
                                                         &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED,
                     sy_conn_send_owned_fd(a, 1, 0, strdup("x"), 1, sy_sealed_export("x", 1)));
    sy_conn_free(a);
    close(fds[1]);
    loop_fini(&l);
    assert_int_equal(before, open_fds());
}

/* A message longer than a frame, in pieces (SY_FRAME_F_MORE): delivered
 * once, whole, with the last frame's flags, between whole messages sent
 * before and after it; many pieces over TCP, one tiny last piece. */
static const sy_conn_callbacks_t cont_cbs = {
    .on_message = on_message, .on_close = on_close, .accept_continued = true};

static void test_pieces(void **state)
{
    (void)state;
    loop_t l;
    int fds[2];
    sy_conn_t *a, *b;
    rec_t ra = {0}, rb = {.take = true};
    loop_init(&l);
    make_pair(PAIR_TCP, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cont_cbs, &rb, 0, &b));
    const size_t len = (3u << 20) + 1, piece = 64u << 10;
    uint8_t *big = malloc(len);
    assert_non_null(big);
    fill(big, 9, len);
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, 8, 3, "before", 6));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned_pieces(a, 9, 5, big, len, piece));
    assert_int_equal(PMIX_SUCCESS, sy_conn_send(a, 10, 0, "after", 5));
    /* not longer than a piece: one frame */
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned_pieces(a, 11, 0, strdup("small"), 5, piece));
    RUN_UNTIL(&l, rb.nmsg == 4 || rb.nclose);
    assert_int_equal(0, rb.nclose);
    assert_int_equal(11, rb.last_tag);
    assert_int_equal(6 + len + 5 + 5, rb.bytes);
    assert_false(rb.bad);
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
    free(rb.taken);

    /* the big one, checked byte by byte, taken whole */
    loop_init(&l);
    memset(&rb, 0, sizeof(rb));
    rb.take = true;
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[0], &cbs, &ra, 0, &a));
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &cont_cbs, &rb, 0, &b));
    big = malloc(len);
    assert_non_null(big);
    fill(big, 9, len);
    assert_int_equal(PMIX_SUCCESS, sy_conn_send_owned_pieces(a, 9, 5, big, len, piece));
    RUN_UNTIL(&l, rb.nmsg == 1 || rb.nclose);
    assert_int_equal(1, rb.nmsg);
    assert_int_equal(len, rb.taken_len);
    for (size_t j = 0; j < len; j++)
        if (((uint8_t *)rb.taken)[j] != pat(9, j))
            fail_msg("byte %zu of the message in pieces differs", j);
    free(rb.taken);
    sy_conn_free(a);
    sy_conn_free(b);
    loop_fini(&l);
}

/* Pieces no honest sender makes: to a connection that takes none, another
 * tag before the last piece, a piece with a descriptor; each closes the
 * connection with its reason, nothing is delivered. */
static void test_pieces_hostile(void **state)
{
    (void)state;
    int before = open_fds();
    for (int round = 0; round < 3; round++) {
        loop_t l;
        int fds[2];
        sy_conn_t *b;
        rec_t rb = {0};
        loop_init(&l);
        make_pair(round == 2 ? PAIR_UNIX : PAIR_SOCKETPAIR, fds);
        sy_conn_callbacks_t c = cont_cbs;
        c.receive_fds = round == 2;
        if (round == 0)
            c.accept_continued = false;
        assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &c, &rb, 0, &b));
        uint8_t h[SY_FRAME_HEADER_SIZE + 2];
        sy_frame_header_encode(h, 1, SY_FRAME_F_MORE | (round == 2 ? SY_FRAME_F_FD : 0), 2);
        h[SY_FRAME_HEADER_SIZE] = 'a';
        h[SY_FRAME_HEADER_SIZE + 1] = 'b';
        int pass = round == 2 ? sy_sealed_export("x", 1) : -1;
        send_with_fds(fds[0], h, sizeof(h), &pass, pass >= 0 ? 1 : 0);
        if (pass >= 0)
            close(pass);
        if (round == 1) {
            /* a whole frame of tag 2 where the last piece of tag 1 belongs */
            sy_frame_header_encode(h, 2, 0, 0);
            write_all(fds[0], h, SY_FRAME_HEADER_SIZE);
        }
        RUN_UNTIL(&l, rb.nclose > 0);
        assert_int_equal(0, rb.nmsg);
        assert_int_equal(PMIX_ERR_UNPACK_FAILURE, rb.reason);
        const char *want = round == 0   ? "takes none"
                           : round == 1 ? "another tag"
                                        : "carries a descriptor";
        if (strstr(rb.why, want) == NULL)
            fail_msg("round %d: reason '%s'", round, rb.why);
        sy_conn_free(b);
        close(fds[0]);
        loop_fini(&l);
    }
    assert_int_equal(before, open_fds());
}

/* Our descriptor table full: the kernel cannot give us the descriptor; its
 * frame comes without one and the connection stays up. */
static void test_fd_table_full(void **state)
{
    (void)state;
    int before = open_fds();
    loop_t l;
    int fds[2];
    sy_conn_t *b;
    fdrec_t rb = {0};
    loop_init(&l);
    make_pair(PAIR_SOCKETPAIR, fds);
    assert_int_equal(PMIX_SUCCESS, sy_conn_create(l.base, fds[1], &fd_cbs, &rb, 0, &b));
    int mfd = sy_sealed_export("abc", 3);
    assert_true(mfd >= 0);
    struct rlimit old;
    assert_int_equal(0, getrlimit(RLIMIT_NOFILE, &old));
    int top = 0;
    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            top = fd;
    struct rlimit tight = {.rlim_cur = (rlim_t)top + 1, .rlim_max = old.rlim_max};
    assert_int_equal(0, setrlimit(RLIMIT_NOFILE, &tight));
    int holes[1024], nholes = 0;
    for (int d; nholes < 1024 && (d = dup(0)) >= 0;)
        holes[nholes++] = d;
    for (int round = 0; round < 2; round++) {
        uint8_t h[SY_FRAME_HEADER_SIZE];
        sy_frame_header_encode(h, (uint32_t)round + 1, SY_FRAME_F_FD, 0);
        send_with_fds(fds[0], h, sizeof(h), &mfd, 1);
        RUN_UNTIL(&l, rb.nmsg == round + 1 || rb.nclose);
        if (round == 0) {
            /* room again for the second, which comes with its descriptor */
            for (int i = 0; i < nholes; i++)
                close(holes[i]);
            assert_int_equal(0, setrlimit(RLIMIT_NOFILE, &old));
        }
    }
    assert_int_equal(0, rb.nclose);
    assert_true(rb.flagged[0] && rb.flagged[1]);
    assert_int_equal(-1, rb.fd[0]);
    assert_true(rb.fd[1] >= 0);
    close(rb.fd[1]);
    close(mfd);
    sy_conn_free(b);
    close(fds[0]);
    loop_fini(&l);
    assert_int_equal(before, open_fds());
}

/* What sy_sealed_map refuses: an unsealed memfd, a regular file, a pipe. */
static void test_sealed_refusals(void **state)
{
    (void)state;
    const char *why = NULL;
    int fd = memfd_create("t", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(0, ftruncate(fd, 4096));
    assert_null(sy_sealed_map(fd, 4096, &why));
    assert_non_null(strstr(why, "sealed"));
    close(fd);
    FILE *f = tmpfile();
    assert_non_null(f);
    static const char zeros[4096];
    assert_int_equal(4096, fwrite(zeros, 1, 4096, f));
    fflush(f);
    assert_null(sy_sealed_map(fileno(f), 4096, &why));
    fclose(f);
    int p[2];
    assert_int_equal(0, pipe(p));
    assert_null(sy_sealed_map(p[0], 1, &why));
    assert_non_null(strstr(why, "not a shared-memory file"));
    close(p[0]);
    close(p[1]);
    assert_null(sy_sealed_map(-1, 1, &why));
}

int main(void)
{
    /* Sends from other threads need a thread-aware event base. */
    evthread_use_pthreads();
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_layout),
        cmocka_unit_test(test_openpmix_framing),
        cmocka_unit_test(test_small_socketpair),
        cmocka_unit_test(test_small_unix),
        cmocka_unit_test(test_small_tcp),
        cmocka_unit_test(test_large_socketpair),
        cmocka_unit_test(test_large_unix),
        cmocka_unit_test(test_large_tcp),
        cmocka_unit_test(test_fragmented),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_oversize),
        cmocka_unit_test(test_claim_not_allocated),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_truncated_eof),
        cmocka_unit_test(test_peer_exits),
        cmocka_unit_test(test_peer_killed),
        cmocka_unit_test(test_write_to_dead_peer),
        cmocka_unit_test(test_concurrent_senders),
        cmocka_unit_test(test_close_inside_callbacks),
        cmocka_unit_test(test_close_after_flush),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_openpmix_detect),
        cmocka_unit_test(test_fd_passing),
        cmocka_unit_test(test_fd_hostile),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_pieces_hostile),
        cmocka_unit_test(test_fd_table_full),
        cmocka_unit_test(test_sealed_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
