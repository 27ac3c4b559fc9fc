/* The client's direct channel (wire.h): a second UNIX connection to the
 * server on which a thread making a blocking request also reads its reply.
 * On the main connection the progress thread reads every reply and wakes
 * the waiting thread: two wake-ups per request (measured here: about 21 µs
 * of CPU per round trip instead of 7), which a collective of many
 * processes on few cores pays once per process.  One request at a time
 * uses the channel; the others take the main connection. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/runtime.h"
#include "common/usock.h"

#define SY_DIRECT_HELLO_WAIT 5.0

static pthread_mutex_t direct_lock = PTHREAD_MUTEX_INITIALIZER; /* the channel's user */
/* Written under direct_lock; closed only by sy_client_direct_close, so that
 * it may shut the socket down without the lock. */
static int direct_fd = -1;
static bool direct_tried;  /* opened, or failed to: never retried */
static bool direct_broken; /* a request failed on it: the stream is lost */
static pid_t direct_pid;   /* the process that opened it (not a forked child) */
static uint32_t direct_tag;

/* One request and its reply, in as few system calls as the sizes allow
 * (one sendmsg; a poll and one recv for a small reply).  Only replies
 * travel on the channel and one request at a time, so what arrives is the
 * reply; anything else is a broken stream. */
static pmix_status_t exchange(int fd, uint32_t tag, const void *body, size_t len, double seconds,
                              void **reply, size_t *reply_len)
{
    double deadline = sy_client_now() + seconds;
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(hdr, tag, 0, (uint32_t)len);
    struct iovec iov[2] = {{hdr, sizeof(hdr)}, {(void *)body, len}};
    size_t left = sizeof(hdr) + len;
    while (left > 0) {
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pmix_status_t rc = sy_client_wait_fd(fd, POLLOUT, deadline);
            if (rc != PMIX_SUCCESS)
                return rc;
            continue;
        }
        if (w <= 0)
            return PMIX_ERR_LOST_CONNECTION;
        left -= (size_t)w;
        for (int i = 0; i < 2 && w > 0; i++) {
            size_t take = (size_t)w < iov[i].iov_len ? (size_t)w : iov[i].iov_len;
            iov[i].iov_base = (char *)iov[i].iov_base + take;
            iov[i].iov_len -= take;
            w -= (ssize_t)take;
        }
    }
    /* header and (small) body usually come in one recv */
    size_t cap = 4096, got = 0, need = SY_FRAME_HEADER_SIZE;
    uint8_t *buf = malloc(cap);
    bool have_hdr = false;
    uint32_t rlen = 0;
    if (buf == NULL)
        return PMIX_ERR_NOMEM;
    while (got < need) {
        pmix_status_t rc = sy_client_wait_fd(fd, POLLIN, deadline);
        if (rc != PMIX_SUCCESS) {
            free(buf);
            return rc;
        }
        if (have_hdr && got == cap) {
            /* grows with what arrives, never to what the header claims */
            size_t bigger_cap = 2 * cap < need ? 2 * cap : need;
            uint8_t *bigger = realloc(buf, bigger_cap);
            if (bigger == NULL) {
                free(buf);
                return PMIX_ERR_NOMEM;
            }
            buf = bigger;
            cap = bigger_cap;
        }
        ssize_t r = recv(fd, buf + got, (have_hdr && need < cap ? need : cap) - got, 0);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (r <= 0) {
            free(buf);
            return PMIX_ERR_LOST_CONNECTION;
        }
        got += (size_t)r;
        if (!have_hdr && got >= SY_FRAME_HEADER_SIZE) {
            uint32_t rtag = 0;
            uint16_t flags = 0;
            if (sy_frame_header_decode(buf, &rtag, &flags, &rlen) != PMIX_SUCCESS || rtag != tag ||
                !(flags & SY_WIRE_F_REPLY) || rlen > sy_frame_default_max_body()) {
                free(buf);
                return PMIX_ERR_UNPACK_FAILURE;
            }
            have_hdr = true;
            need = SY_FRAME_HEADER_SIZE + (size_t)rlen;
        }
        if (got > need && have_hdr) {
            free(buf);
            return PMIX_ERR_UNPACK_FAILURE; /* more than our reply */
        }
    }
    /* the body without the header, as a buffer of its own */
    if (rlen == 0) {
        free(buf);
        *reply = NULL;
    } else {
        memmove(buf, buf + SY_FRAME_HEADER_SIZE, rlen);
        *reply = buf;
    }
    *reply_len = rlen;
    return PMIX_SUCCESS;
}

/* Under direct_lock: connect and say HELLO with SY_HELLO_DIRECT. */
static void direct_open(void)
{
    direct_tried = true;
    pthread_mutex_lock(&sy_client_lock);
    char *path = sy_client.refcount > 0 && sy_client.usock != NULL ? strdup(sy_client.usock) : NULL;
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    int fd = -1;
    if (path == NULL || sy_usock_connect(path, &fd) != PMIX_SUCCESS) {
        free(path);
        return;
    }
    free(path);
    pmix_data_buffer_t req;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, SY_HELLO_DIRECT, &yes, PMIX_BOOL);
    pmix_status_t rc =
        sy_client_pack_hello(&req, SY_PEER_CLIENT, &me, getenv(SY_ENV_TOKEN), &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    void *body = NULL;
    size_t len = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_client_exchange(fd, 1, req.base_ptr, req.bytes_used, SY_DIRECT_HELLO_WAIT, &body,
                                &len);
    sy_buffer_destruct(&req);
    pmix_status_t status = PMIX_ERROR;
    if (rc == PMIX_SUCCESS) {
        pmix_data_buffer_t rb;
        sy_client_buffer_over(&rb, body, len);
        if (sy_client_unpack_status(&rb, &status) != PMIX_SUCCESS)
            status = PMIX_ERR_UNPACK_FAILURE;
        sy_buffer_destruct(&rb);
    }
    if (rc != PMIX_SUCCESS || status != PMIX_SUCCESS) {
        sy_log(SY_LOG_DEBUG, "client: no direct channel (%s); requests use the connection",
               PMIx_Error_string(rc != PMIX_SUCCESS ? rc : status));
        close(fd);
        return;
    }
    direct_pid = getpid();
    __atomic_store_n(&direct_fd, fd, __ATOMIC_RELEASE);
}

pmix_status_t sy_client_rpc_direct(pmix_data_buffer_t *req, double seconds, pmix_data_buffer_t *rb)
{
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    pthread_mutex_unlock(&sy_client_lock);
    sy_progress_t *p = sy_runtime();
    bool usable = conn != NULL && p != NULL && !sy_progress_in_loop(p) &&
                  pthread_mutex_trylock(&direct_lock) == 0;
    if (usable && !direct_tried)
        direct_open();
    if (!usable || direct_fd < 0 || direct_broken || direct_pid != getpid()) {
        if (usable)
            pthread_mutex_unlock(&direct_lock);
        if (conn == NULL) {
            sy_buffer_destruct(req);
            memset(rb, 0, sizeof(*rb));
            return PMIX_ERR_INIT;
        }
        return sy_client_rpc(conn, req, seconds, rb);
    }
    if (++direct_tag >= SY_WIRE_TAG_DIRECT)
        direct_tag = 1;
    uint32_t tag = SY_WIRE_TAG_DIRECT | direct_tag;
    void *body = NULL;
    size_t len = 0;
    pmix_status_t rc =
        exchange(direct_fd, tag, req->base_ptr, req->bytes_used, seconds, &body, &len);
    sy_buffer_destruct(req);
    if (rc != PMIX_SUCCESS) {
        /* a frame may be half read: the channel is not used again.  The
         * server closes it only when it drops us. */
        direct_broken = true;
        if (rc != PMIX_ERR_TIMEOUT && rc != PMIX_ERR_NOMEM)
            rc = PMIX_ERR_LOST_CONNECTION;
    }
    pthread_mutex_unlock(&direct_lock);
    memset(rb, 0, sizeof(*rb));
    if (rc != PMIX_SUCCESS)
        return rc;
    return sy_client_reply_over(rb, body, len);
}

void sy_client_direct_close(void)
{
    /* wake a thread blocked on the channel, then wait for it to let go */
    int fd = __atomic_load_n(&direct_fd, __ATOMIC_ACQUIRE);
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
    pthread_mutex_lock(&direct_lock);
    if (direct_fd >= 0)
        close(direct_fd);
    __atomic_store_n(&direct_fd, -1, __ATOMIC_RELEASE);
    direct_tried = false;
    direct_broken = false;
    pthread_mutex_unlock(&direct_lock);
}
