/* Request/reply with the server: the caller's thread sends and waits, the
 * loop matches replies to waiters by tag.  Whoever removes a request from
 * the outstanding list under req_lock decides its fate: the loop signals
 * it (the waiter frees it), a waiter that timed out frees it itself. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/log.h"
#include "common/opx_client.h"
#include "common/pack.h"
#include "common/runtime.h"
#include "common/sync.h"
#include "common/wire.h"

typedef struct request {
    uint32_t tag;
    sy_conn_t *conn; /* where it went: a tool has several servers */
    sy_sync_t sync;
    void *body;
    size_t len;
    int fd; /* a descriptor that came with the reply, or -1 */
    /* non-blocking requests: called on the loop instead of signalling */
    sy_client_reply_fn cb;
    void *cbdata;
    struct request *next;
} request_t;

static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static request_t *outstanding;
static uint32_t last_tag = 1;

uint32_t sy_client_next_tag(void)
{
    pthread_mutex_lock(&req_lock);
    /* from 100: OpenPMIx servers send unsolicited messages on 0..2 */
    if (++last_tag < SY_OPX_TAG_DYNAMIC || last_tag >= SY_WIRE_TAG_DIRECT)
        last_tag = SY_OPX_TAG_DYNAMIC;
    uint32_t t = last_tag;
    pthread_mutex_unlock(&req_lock);
    return t;
}

static request_t *take(uint32_t tag)
{
    for (request_t **pp = &outstanding; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->tag == tag) {
            request_t *r = *pp;
            *pp = r->next;
            return r;
        }
    }
    return NULL;
}

static void request_free(request_t *r)
{
    if (r->cb == NULL)
        sy_sync_destroy(&r->sync);
    if (r->fd >= 0)
        close(r->fd);
    free(r->body);
    free(r);
}

/* The descriptor of the reply whose callback runs on this thread. */
static _Thread_local int reply_fd = -1;

int sy_client_reply_take_fd(void)
{
    int fd = reply_fd;
    reply_fd = -1;
    return fd;
}

void sy_client_buffer_over(pmix_data_buffer_t *b, void *body, size_t len)
{
    memset(b, 0, sizeof(*b));
    b->base_ptr = body;
    b->unpack_ptr = body;
    b->pack_ptr = (char *)body + len;
    b->bytes_allocated = len;
    b->bytes_used = len;
}

/* A non-blocking request's callback gets the reply with its opening status
 * already unpacked; runs outside req_lock. */
static void run_callback(request_t *r, pmix_status_t status)
{
    pmix_data_buffer_t rb = {0};
    if (status == PMIX_SUCCESS) {
        sy_client_buffer_over(&rb, r->body, r->len);
        r->body = NULL;
        if (sy_client_unpack_status(&rb, &status) != PMIX_SUCCESS)
            status = PMIX_ERR_UNPACK_FAILURE;
    }
    int outer = reply_fd; /* (a callback inside a callback) */
    reply_fd = r->fd;
    r->fd = -1;
    r->cb(status, &rb, r->cbdata);
    if (reply_fd >= 0)
        close(reply_fd); /* not taken */
    reply_fd = outer;
    sy_buffer_destruct(&rb);
    request_free(r);
}

/* Under req_lock: blocking waiters are signalled; non-blocking requests
 * are queued on `done` to run their callback once the lock is dropped. */
static void complete(request_t *r, pmix_status_t status, request_t **done)
{
    if (r->cb != NULL) {
        r->sync.status = status;
        r->next = *done;
        *done = r;
        return;
    }
    sy_sync_signal(&r->sync, status, NULL);
}

static void run_done(request_t *done)
{
    while (done != NULL) {
        request_t *r = done;
        done = r->next;
        run_callback(r, r->sync.status);
    }
}

static void on_message(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body, size_t len,
                       void *ctx)
{
    (void)ctx;
    /* OpenPMIx frames have no flags: replies carry a request's tag */
    if (sy_client.opx && tag >= SY_OPX_TAG_DYNAMIC) {
        flags |= SY_WIRE_F_REPLY;
    } else if (sy_client.opx && tag == SY_OPX_TAG_IOF) {
        /* forwarded output: no command, the tag says what it is */
        pmix_data_buffer_t msg = {0};
        if (sy_buffer_set_copy(&msg, body, len) == PMIX_SUCCESS) {
            sy_client_iof_unsolicited(conn, &msg);
            sy_buffer_destruct(&msg);
        }
        return;
    } else if (sy_client.opx && tag != SY_OPX_TAG_NOTIFY) {
        sy_log(SY_LOG_INFO, "client: an OpenPMIx message of tag %u, not handled yet: dropped", tag);
        return;
    }
    if (!(flags & SY_WIRE_F_REPLY)) {
        if (tag == 0 && len > 0) {
            void *owned = sy_conn_take_body(conn);
            pmix_data_buffer_t msg = {0};
            if (owned != NULL)
                sy_client_buffer_over(&msg, owned, len);
            else if (sy_buffer_set_copy(&msg, body, len) != PMIX_SUCCESS)
                return;
            int32_t kind = 0;
            if (sy_wire_unpack_head(sy_client_codec(), &msg, SY_WIRE_MESSAGE, &kind) !=
                PMIX_SUCCESS)
                kind = 0;
            if (kind == SY_MSG_EVENT || kind == SY_MSG_EVENT_REPLAY) {
                /* (no connection yet: Init's, whose first events may come
                 * before it is recorded) */
                pthread_mutex_lock(&sy_client_lock);
                bool primary = sy_client.conn == NULL || conn == sy_client.conn;
                pthread_mutex_unlock(&sy_client_lock);
                sy_client_event_unsolicited(&msg, kind == SY_MSG_EVENT_REPLAY, primary);
            } else if (kind == SY_MSG_IOF)
                sy_client_iof_unsolicited(conn, &msg);
            sy_buffer_destruct(&msg);
        }
        return;
    }
    request_t *done = NULL;
    pthread_mutex_lock(&req_lock);
    request_t *r = take(tag);
    if (r != NULL) {
        if (flags & SY_FRAME_F_FD)
            r->fd = sy_conn_take_fd(conn);
        r->len = len;
        r->body = len > 0 ? sy_conn_take_body(conn) : NULL;
        if (len > 0 && r->body == NULL && (r->body = malloc(len)) != NULL)
            memcpy(r->body, body, len);
        complete(r, len > 0 && r->body == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS, &done);
    }
    pthread_mutex_unlock(&req_lock);
    run_done(done);
}

void sy_client_fail_requests_on(sy_conn_t *conn, pmix_status_t status)
{
    request_t *done = NULL;
    pthread_mutex_lock(&req_lock);
    for (request_t **pp = &outstanding; *pp != NULL;) {
        request_t *r = *pp;
        if (conn != NULL && r->conn != conn) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        complete(r, status, &done);
    }
    pthread_mutex_unlock(&req_lock);
    run_done(done);
}

void sy_client_fail_requests(pmix_status_t status)
{
    sy_client_fail_requests_on(NULL, status);
}

static void on_close(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx)
{
    (void)ctx;
    (void)reason;
    sy_log(SY_LOG_INFO, "client: connection to the server closed: %s", why);
    sy_client_fail_requests_on(conn, PMIX_ERR_LOST_CONNECTION);
    sy_client_iof_lost(conn);
    sy_client_lfence_lost(); /* a client has one server connection */
    sy_client_event_lost_connection();
}

/* Descriptors are taken from the server (a fabric matrix in a sealed
 * memfd: client_fabric.c); the framing layer bounds and closes them.  A
 * reply longer than a frame (a matrix by value to a client over TCP)
 * comes in pieces. */
const sy_conn_callbacks_t sy_client_conn_callbacks = {
    .on_message = on_message, .on_close = on_close, .receive_fds = true, .accept_continued = true};

pmix_status_t sy_client_request(sy_conn_t *conn, uint32_t tag, void *body, size_t len,
                                double seconds, void **reply, size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    request_t *r = calloc(1, sizeof(*r));
    if (r == NULL || sy_sync_init(&r->sync) != PMIX_SUCCESS) {
        free(r);
        free(body);
        return PMIX_ERR_NOMEM;
    }
    r->tag = tag;
    r->conn = conn;
    r->fd = -1;
    pthread_mutex_lock(&req_lock);
    r->next = outstanding;
    outstanding = r;
    pthread_mutex_unlock(&req_lock);

    pmix_status_t rc = sy_conn_send_owned(conn, tag, 0, body, len);
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&req_lock);
        request_t *mine = take(tag);
        pthread_mutex_unlock(&req_lock);
        if (mine != NULL) {
            request_free(mine);
            return PMIX_ERR_LOST_CONNECTION;
        }
        /* Already completed by a close: fall through and collect it. */
    }
    sy_progress_t *p = sy_runtime();
    if (p != NULL && (sy_progress_in_loop(p) || sy_progress_mode(p) != SY_PROGRESS_THREAD))
        rc = sy_sync_wait_progress(&r->sync, p);
    else
        rc = sy_sync_wait_timeout(&r->sync, seconds);
    if (rc == PMIX_ERR_TIMEOUT) {
        pthread_mutex_lock(&req_lock);
        request_t *mine = take(tag);
        pthread_mutex_unlock(&req_lock);
        if (mine != NULL) {
            request_free(r);
            return PMIX_ERR_TIMEOUT;
        }
        /* Completed meanwhile: the signal was given under req_lock. */
        rc = sy_sync_wait(&r->sync);
    }
    if (rc == PMIX_SUCCESS) {
        *reply = r->body;
        *reply_len = r->len;
        r->body = NULL;
    }
    request_free(r);
    return rc;
}

pmix_status_t sy_client_request_nb(sy_conn_t *conn, pmix_data_buffer_t *req, sy_client_reply_fn cb,
                                   void *cbdata)
{
    request_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        sy_buffer_destruct(req);
        return PMIX_ERR_NOMEM;
    }
    r->tag = sy_client_next_tag();
    r->conn = conn;
    r->fd = -1;
    r->cb = cb;
    r->cbdata = cbdata;
    pthread_mutex_lock(&req_lock);
    r->next = outstanding;
    outstanding = r;
    pthread_mutex_unlock(&req_lock);
    pmix_status_t rc = sy_conn_send_owned(conn, r->tag, 0, req->base_ptr, req->bytes_used);
    memset(req, 0, sizeof(*req));
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&req_lock);
        request_t *mine = take(r->tag);
        pthread_mutex_unlock(&req_lock);
        if (mine != NULL) {
            free(mine);
            return PMIX_ERR_UNREACH;
        }
        /* a close already failed it: its callback ran or will run */
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_client_reply_over(pmix_data_buffer_t *rb, void *body, size_t len)
{
    sy_client_buffer_over(rb, body, len);
    pmix_status_t status;
    if (sy_client_unpack_status(rb, &status) != PMIX_SUCCESS) {
        sy_buffer_destruct(rb);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    return status;
}

pmix_status_t sy_client_unpack_status(pmix_data_buffer_t *b, pmix_status_t *status)
{
    int32_t v = PMIX_ERROR;
    pmix_status_t rc = sy_wire_unpack_head(sy_client_codec(), b, SY_WIRE_REPLY, &v);
    *status = v;
    return rc;
}

pmix_status_t sy_client_rpc(sy_conn_t *conn, pmix_data_buffer_t *req, double seconds,
                            pmix_data_buffer_t *rb)
{
    void *body = NULL;
    size_t len = 0;
    memset(rb, 0, sizeof(*rb));
    pmix_status_t rc = sy_client_request(conn, sy_client_next_tag(), req->base_ptr, req->bytes_used,
                                         seconds, &body, &len);
    memset(req, 0, sizeof(*req));
    if (rc != PMIX_SUCCESS)
        return rc;
    return sy_client_reply_over(rb, body, len);
}

/* ---- the handshake, before the connection has a loop ---- */

double sy_client_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

pmix_status_t sy_client_wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - sy_client_now();
        if (left <= 0)
            return PMIX_ERR_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left > 86400 ? -1 : (int)(left * 1000) + 1);
        if (n > 0)
            return PMIX_SUCCESS;
        if (n < 0 && errno != EINTR)
            return PMIX_ERR_LOST_CONNECTION;
    }
}

static pmix_status_t write_all(int fd, const void *buf, size_t len, double deadline)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pmix_status_t rc = sy_client_wait_fd(fd, POLLOUT, deadline);
            if (rc != PMIX_SUCCESS)
                return rc;
        } else {
            return PMIX_ERR_LOST_CONNECTION;
        }
    }
    return PMIX_SUCCESS;
}

static pmix_status_t read_all(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = recv(fd, p, len, 0);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pmix_status_t rc = sy_client_wait_fd(fd, POLLIN, deadline);
            if (rc != PMIX_SUCCESS)
                return rc;
        } else {
            return PMIX_ERR_LOST_CONNECTION;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_client_exchange(int fd, uint32_t tag, const void *body, size_t len, double seconds,
                                 void **reply, size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    double deadline = sy_client_now() + seconds;
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(hdr, tag, 0, (uint32_t)len);
    pmix_status_t rc = write_all(fd, hdr, sizeof(hdr), deadline);
    if (rc == PMIX_SUCCESS)
        rc = write_all(fd, body, len, deadline);
    if (rc == PMIX_SUCCESS)
        rc = read_all(fd, hdr, sizeof(hdr), deadline);
    uint32_t rtag = 0, rlen = 0;
    uint16_t flags = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_frame_header_decode(hdr, &rtag, &flags, &rlen);
    if (rc == PMIX_SUCCESS && (rtag != tag || !(flags & SY_WIRE_F_REPLY) || rlen > (1u << 24)))
        rc = PMIX_ERR_UNPACK_FAILURE;
    if (rc != PMIX_SUCCESS)
        return rc;
    char *buf = rlen > 0 ? malloc(rlen) : NULL;
    if (rlen > 0 && buf == NULL)
        return PMIX_ERR_NOMEM;
    rc = read_all(fd, buf, rlen, deadline);
    if (rc != PMIX_SUCCESS) {
        free(buf);
        return rc;
    }
    *reply = buf;
    *reply_len = rlen;
    return PMIX_SUCCESS;
}
