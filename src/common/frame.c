/* Length-framed connections; see frame.h and docs/wire-protocol.md. */
#define _GNU_SOURCE
#include "config.h"
#include "common/frame.h"
#include "common/log.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Staging buffer for reads: many small frames are parsed out of one recv().
 * Bodies with at least this much left are read straight into their final
 * allocation instead. */
#define SY_RBUF_SIZE (64 * 1024)
/* Bound on recv() calls per readiness event, so that one busy peer cannot
 * starve the other connections of the loop. */
#define SY_READS_PER_EVENT 64
/* Frames gathered into one sendmsg(). */
#define SY_IOV_FRAMES 64
/* The first allocation for a body that is not all here yet; it grows (at
 * most doubling) as bytes arrive, so what a peer makes us hold follows
 * what it sent, not what its header claims. */
#define SY_BODY_FIRST (4 * 1024)

typedef struct sy_msg {
    struct sy_msg *next;
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    uint8_t *body;
    void *alloc;     /* a separate allocation to free() (body points into it), or NULL */
    uint8_t hdr_len; /* SY_FRAME_HEADER_SIZE, or 0 for raw bytes */
    int fd;          /* to pass with the first byte, until it is sent; else -1 */
    size_t len;
    size_t off; /* bytes of header + body already written */
} sy_msg_t;

struct sy_conn {
    struct event_base *base;
    int fd;
    struct event *rev, *wev, *wake;
    sy_conn_callbacks_t cbs;
    void *ctx;
    size_t max_body;
    /* SY_FRAMING_*: set at creation or, when detecting, by the first
     * header (on the loop, before anything is sent on the connection). */
    sy_framing_t framing;
    int32_t pindex; /* OpenPMIx framing: what our headers carry */

    /* Loop thread only. */
    bool closed;             /* no more I/O or callbacks */
    bool closed_for_reading; /* draining: no more reads or on_message */
    int in_handler;          /* depth of our event handlers on the stack */
    bool free_pending;       /* sy_conn_free() called inside a handler */
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    size_t hdr_got;
    bool in_body;
    uint32_t tag;
    uint16_t flags;
    uint8_t *body; /* body being received */
    size_t body_len, body_got;
    size_t body_cap; /* bytes allocated at body (<= body_len) */
    uint8_t *rbuf;
    /* The frame being delivered: either owned (msg_body) or a view into rbuf. */
    uint8_t *msg_body;
    const uint8_t *msg_view;
    size_t msg_len;
    bool in_message;
    /* A message in pieces (SY_FRAME_F_MORE): the pieces so far, its tag. */
    uint8_t *cont;
    size_t cont_len;
    uint32_t cont_tag;
    /* Descriptors (receive_fds): received, their frame not parsed yet
     * (oldest first); the one of the frame being received; the one of the
     * frame being delivered. */
    int fdq[SY_CONN_MAX_FDS];
    int nfds;
    int frame_fd, msg_fd;
    /* descriptors the kernel could not give us (our table full: it sets
     * MSG_CTRUNC and closes them): frames flagged for them come without */
    unsigned fds_lost;

    /* Shared with sending threads, under lock. */
    pthread_mutex_t lock;
    sy_msg_t *head, *tail;
    size_t pending;
    bool dead;      /* closed: refuse sends, never touch fd */
    bool draining;  /* sy_conn_close_after_flush: refuse sends, finish the queue */
    int werr;       /* write error met by a sender; reported by the loop */
    bool wev_added; /* wev is pending */
};

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* OpenPMIx's header is in network order */
static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static size_t env_max_body = SY_FRAME_DEFAULT_MAX_BODY;
static pthread_once_t env_max_once = PTHREAD_ONCE_INIT;

static void read_env_max(void)
{
    const char *e = getenv(SY_FRAME_MAX_ENV);
    if (e == NULL || *e == '\0')
        return;
    size_t v = 0;
    if (sy_frame_parse_size(e, &v) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "%s=%s is not a size (bytes, or with K, M or G); using %zu bytes",
               SY_FRAME_MAX_ENV, e, env_max_body);
        return;
    }
    env_max_body = v;
}

pmix_status_t sy_frame_parse_size(const char *text, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno != 0 || text[0] == '-')
        return PMIX_ERR_BAD_PARAM;
    unsigned long long mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1ull << 30;
        end++;
        break;
    default: break;
    }
    if (*end != '\0' || v == 0 || v > UINT32_MAX / mul)
        return PMIX_ERR_BAD_PARAM;
    if (v * mul < SY_FRAME_MIN_MAX_BODY)
        return PMIX_ERR_BAD_PARAM;
    *out = (size_t)(v * mul);
    return PMIX_SUCCESS;
}

size_t sy_frame_default_max_body(void)
{
    pthread_once(&env_max_once, read_env_max);
    return env_max_body;
}

void sy_frame_header_encode(uint8_t out[SY_FRAME_HEADER_SIZE], uint32_t tag, uint16_t flags,
                            uint32_t len)
{
    put_le32(out, SY_FRAME_MAGIC);
    put_le16(out + 4, SY_FRAME_VERSION);
    put_le16(out + 6, flags);
    put_le32(out + 8, tag);
    put_le32(out + 12, len);
}

pmix_status_t sy_frame_header_decode(const uint8_t in[SY_FRAME_HEADER_SIZE], uint32_t *tag,
                                     uint16_t *flags, uint32_t *len)
{
    if (get_le32(in) != SY_FRAME_MAGIC || get_le16(in + 4) != SY_FRAME_VERSION)
        return PMIX_ERR_UNPACK_FAILURE;
    *flags = get_le16(in + 6);
    *tag = get_le32(in + 8);
    *len = get_le32(in + 12);
    return PMIX_SUCCESS;
}

void sy_frame_opx_header_encode(uint8_t out[SY_FRAME_HEADER_SIZE], int32_t pindex, uint32_t tag,
                                uint32_t len)
{
    put_be32(out, (uint32_t)pindex);
    put_be32(out + 4, tag);
    put_be32(out + 8, len);
    put_be32(out + 12, 0);
}

void sy_frame_opx_header_decode(const uint8_t in[SY_FRAME_HEADER_SIZE], int32_t *pindex,
                                uint32_t *tag, uint32_t *len)
{
    *pindex = (int32_t)get_be32(in);
    *tag = get_be32(in + 4);
    *len = get_be32(in + 8);
}

static void free_msg(sy_msg_t *m)
{
    free(m->alloc);
    if (m->fd >= 0)
        close(m->fd);
    free(m);
}

/* ---- writing (any thread, under lock) ---- */

/* Write as much of the queue as the socket takes.  Returns 0 (queue empty
 * or socket full) or an errno. */
static int flush_locked(sy_conn_t *c)
{
    while (c->head != NULL) {
        struct iovec iov[2 * SY_IOV_FRAMES];
        int n = 0, frames = 0;
        /* a descriptor sticks to the first byte of what one sendmsg sends:
         * only the first frame of a batch may carry one */
        sy_msg_t *first = c->head;
        for (sy_msg_t *m = c->head; m != NULL && frames < SY_IOV_FRAMES; m = m->next, frames++) {
            if (m != first && m->fd >= 0)
                break;
            if (m->off < m->hdr_len) {
                iov[n].iov_base = m->hdr + m->off;
                iov[n++].iov_len = m->hdr_len - m->off;
                if (m->len > 0) {
                    iov[n].iov_base = m->body;
                    iov[n++].iov_len = m->len;
                }
            } else {
                size_t boff = m->off - m->hdr_len;
                iov[n].iov_base = m->body + boff;
                iov[n++].iov_len = m->len - boff;
            }
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        if (first->fd >= 0) {
            memset(&ctl, 0, sizeof(ctl));
            mh.msg_control = ctl.buf;
            mh.msg_controllen = sizeof(ctl.buf);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cm), &first->fd, sizeof(int));
        }
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (EINTR == errno)
                continue;
            if (EAGAIN == errno || EWOULDBLOCK == errno)
                return 0;
            return errno;
        }
        if (first->fd >= 0 && w > 0) {
            /* gone with the first byte: the peer holds its own now */
            close(first->fd);
            first->fd = -1;
        }
        size_t left = (size_t)w;
        c->pending -= left;
        while (left > 0) {
            sy_msg_t *m = c->head;
            size_t rest = m->hdr_len + m->len - m->off;
            if (left < rest) {
                m->off += left;
                break;
            }
            left -= rest;
            c->head = m->next;
            if (c->head == NULL)
                c->tail = NULL;
            free_msg(m);
        }
    }
    return 0;
}

/* Queue the messages m, m->next, ... together: nothing another thread
 * sends comes between them. */
static pmix_status_t enqueue(sy_conn_t *c, sy_msg_t *m)
{
    pthread_mutex_lock(&c->lock);
    if (c->dead || c->draining || c->werr != 0) {
        pthread_mutex_unlock(&c->lock);
        while (m != NULL) {
            sy_msg_t *next = m->next;
            free_msg(m);
            m = next;
        }
        return PMIX_ERR_LOST_CONNECTION;
    }
    bool was_empty = c->head == NULL;
    if (was_empty)
        c->head = m;
    else
        c->tail->next = m;
    for (; m != NULL; m = m->next) {
        c->tail = m;
        c->pending += m->hdr_len + m->len;
    }
    if (was_empty) {
        /* Write at once: no hand-off latency for the common small request. */
        int e = flush_locked(c);
        if (e != 0) {
            c->werr = e;
            event_active(c->wake, EV_WRITE, 0);
        }
    }
    if (c->head != NULL && c->werr == 0 && !c->wev_added) {
        /* Only ever added here; removed by the loop thread (event_del from
         * another thread could wait on a running handler that waits on us). */
        event_add(c->wev, NULL);
        c->wev_added = true;
    }
    pthread_mutex_unlock(&c->lock);
    return PMIX_SUCCESS;
}

static pmix_status_t make_msg(sy_conn_t *c, uint32_t tag, uint16_t flags, size_t len,
                              sy_msg_t **out, size_t inline_len)
{
    if (c == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (len > UINT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    sy_msg_t *m = malloc(sizeof(*m) + inline_len);
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->next = NULL;
    m->len = len;
    m->off = 0;
    m->body = inline_len ? (uint8_t *)(m + 1) : NULL;
    m->alloc = NULL;
    m->hdr_len = SY_FRAME_HEADER_SIZE;
    m->fd = -1;
    if (c->framing == SY_FRAMING_OPENPMIX)
        sy_frame_opx_header_encode(m->hdr, c->pindex, tag, (uint32_t)len); /* no flags there */
    else
        sy_frame_header_encode(m->hdr, tag, flags, (uint32_t)len);
    *out = m;
    return PMIX_SUCCESS;
}

pmix_status_t sy_conn_send(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body,
                           size_t len)
{
    sy_msg_t *m;
    if (len > 0 && body == NULL)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = make_msg(conn, tag, flags, len, &m, len);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (len > 0)
        memcpy(m->body, body, len);
    return enqueue(conn, m);
}

pmix_status_t sy_conn_send_owned(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                 size_t len)
{
    sy_msg_t *m;
    if (len > 0 && body == NULL)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = make_msg(conn, tag, flags, len, &m, 0);
    if (rc != PMIX_SUCCESS) {
        free(body);
        return rc;
    }
    m->body = body;
    m->alloc = body;
    return enqueue(conn, m);
}

pmix_status_t sy_conn_send_owned_pieces(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                        size_t len, size_t piece)
{
    if (conn == NULL || conn->framing != SY_FRAMING_NATIVE || piece == 0 || len <= piece)
        return sy_conn_send_owned(conn, tag, flags, body, len);
    /* The last piece owns the body: the pieces before it point into it and
     * are written, or dropped, first. */
    sy_msg_t *first = NULL, **link = &first;
    for (size_t off = 0; off < len; off += piece) {
        size_t n = len - off < piece ? len - off : piece;
        bool last = off + n == len;
        sy_msg_t *m;
        pmix_status_t rc =
            make_msg(conn, tag, (uint16_t)(last ? flags : flags | SY_FRAME_F_MORE), n, &m, 0);
        if (rc != PMIX_SUCCESS) {
            while (first != NULL) {
                sy_msg_t *next = first->next;
                free_msg(first);
                first = next;
            }
            free(body);
            return rc;
        }
        m->body = (uint8_t *)body + off;
        m->alloc = last ? body : NULL;
        *link = m;
        link = &m->next;
    }
    return enqueue(conn, first);
}

pmix_status_t sy_conn_send_owned_fd(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                    size_t len, int fd)
{
    sy_msg_t *m;
    if (fd < 0 || (len > 0 && body == NULL) || conn == NULL) {
        free(body);
        if (fd >= 0)
            close(fd);
        return PMIX_ERR_BAD_PARAM;
    }
    /* OpenPMIx headers have no flags to announce it */
    pmix_status_t rc = conn->framing == SY_FRAMING_NATIVE
                           ? make_msg(conn, tag, (uint16_t)(flags | SY_FRAME_F_FD), len, &m, 0)
                           : PMIX_ERR_NOT_SUPPORTED;
    if (rc != PMIX_SUCCESS) {
        free(body);
        close(fd);
        return rc;
    }
    m->body = body;
    m->alloc = body;
    m->fd = fd;
    return enqueue(conn, m);
}

void sy_conn_set_max_body(sy_conn_t *conn, size_t max_body)
{
    if (conn == NULL)
        return;
    conn->max_body = (max_body == 0) ? sy_frame_default_max_body() : max_body;
    if (conn->max_body > UINT32_MAX)
        conn->max_body = UINT32_MAX;
}

size_t sy_conn_pending(sy_conn_t *conn)
{
    if (conn == NULL)
        return 0;
    pthread_mutex_lock(&conn->lock);
    size_t p = conn->pending;
    pthread_mutex_unlock(&conn->lock);
    return p;
}

/* ---- closing (loop thread) ---- */

static void teardown(sy_conn_t *c)
{
    pthread_mutex_lock(&c->lock);
    c->dead = true;
    sy_msg_t *q = c->head;
    c->head = c->tail = NULL;
    c->pending = 0;
    pthread_mutex_unlock(&c->lock);
    while (q != NULL) {
        sy_msg_t *n = q->next;
        free_msg(q);
        q = n;
    }
    event_del(c->rev);
    event_del(c->wev);
    event_del(c->wake);
    c->wev_added = false;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->closed = true;
    free(c->body);
    c->body = NULL;
    c->body_cap = 0;
    free(c->cont);
    c->cont = NULL;
    c->cont_len = 0;
    for (int i = 0; i < c->nfds; i++)
        close(c->fdq[i]);
    c->nfds = 0;
    if (c->frame_fd >= 0)
        close(c->frame_fd);
    c->frame_fd = -1;
}

__attribute__((format(printf, 3, 4))) static void die(sy_conn_t *c, pmix_status_t reason,
                                                      const char *fmt, ...)
{
    char why[256];
    va_list ap;

    if (c->closed)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    teardown(c);
    if (c->cbs.on_close != NULL)
        c->cbs.on_close(c, reason, why, c->ctx);
}

static void destroy(sy_conn_t *c)
{
    if (!c->closed)
        teardown(c);
    event_free(c->rev);
    event_free(c->wev);
    event_free(c->wake);
    free(c->rbuf);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Every event handler runs between enter() and leave(); a sy_conn_free()
 * inside them is carried out by leave(). */
static void enter(sy_conn_t *c)
{
    c->in_handler++;
}

static void leave(sy_conn_t *c)
{
    if (0 == --c->in_handler && c->free_pending)
        destroy(c);
}

void sy_conn_close(sy_conn_t *conn)
{
    if (conn != NULL && !conn->closed)
        teardown(conn);
}

/* Before a graceful close: unread input makes close() reset the
 * connection (RST on TCP, ECONNRESET on UNIX), which can make the peer lose
 * the reply we just flushed.  Discard what has arrived and send FIN first. */
static void linger_close(sy_conn_t *c)
{
    if (c->fd >= 0) {
        char sink[4096];
        while (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
            ;
        shutdown(c->fd, SHUT_WR);
    }
    teardown(c);
}

void sy_conn_close_after_flush(sy_conn_t *conn)
{
    if (conn == NULL || conn->closed)
        return;
    pthread_mutex_lock(&conn->lock);
    conn->draining = true;
    bool empty = conn->head == NULL || conn->werr != 0;
    pthread_mutex_unlock(&conn->lock);
    if (empty) {
        linger_close(conn);
        return;
    }
    /* Nothing more is read or delivered; on_write finishes the queue. */
    event_del(conn->rev);
    conn->closed_for_reading = true;
}

void sy_conn_free(sy_conn_t *conn)
{
    if (conn == NULL)
        return;
    if (conn->in_handler > 0) {
        sy_conn_close(conn);
        conn->free_pending = true;
        return;
    }
    destroy(conn);
}

int sy_conn_fd(const sy_conn_t *conn)
{
    return conn == NULL ? -1 : conn->fd;
}

/* ---- reading (loop thread) ---- */

/* A frame of a message in pieces (SY_FRAME_F_MORE, or the last one):
 * added to what came before; true when the message is whole, in *owned
 * and *len.  Takes owned. */
static bool gather(sy_conn_t *c, uint8_t **owned, const uint8_t *view, size_t *len)
{
    const char *refusal = NULL;
    if (!c->cbs.accept_continued)
        refusal = "a message in pieces on a connection that takes none";
    else if (c->frame_fd >= 0)
        refusal = "a piece of a message carries a descriptor";
    else if (c->cont != NULL && c->tag != c->cont_tag)
        refusal = "a frame of another tag before the last piece of a message";
    else if (c->cont_len > SIZE_MAX / 2 - *len)
        refusal = "a message in pieces too long to hold";
    uint8_t *grown = refusal == NULL ? realloc(c->cont, c->cont_len + *len + 1) : NULL;
    if (refusal == NULL && grown == NULL)
        refusal = "out of memory for a message in pieces";
    if (refusal != NULL) {
        free(*owned);
        die(c, PMIX_ERR_UNPACK_FAILURE, "%s (tag %u)", refusal, c->tag);
        return false;
    }
    if (*len > 0)
        memcpy(grown + c->cont_len, *owned != NULL ? *owned : view, *len);
    free(*owned);
    c->cont = grown;
    c->cont_len += *len;
    c->cont_tag = c->tag;
    if (c->flags & SY_FRAME_F_MORE)
        return false;
    *owned = c->cont;
    *len = c->cont_len;
    c->cont = NULL;
    c->cont_len = 0;
    return true;
}

static void deliver(sy_conn_t *c, uint8_t *owned, const uint8_t *view, size_t len)
{
    c->hdr_got = 0;
    c->in_body = false;
    if (((c->flags & SY_FRAME_F_MORE) || c->cont != NULL) && !gather(c, &owned, view, &len))
        return;
    c->msg_body = owned;
    c->msg_view = owned != NULL ? owned : view;
    c->msg_len = len;
    c->msg_fd = c->frame_fd;
    c->frame_fd = -1;
    c->in_message = true;
    if (c->cbs.on_message != NULL)
        c->cbs.on_message(c, c->tag, c->flags, len ? c->msg_view : NULL, len, c->ctx);
    c->in_message = false;
    free(c->msg_body);
    c->msg_body = NULL;
    c->msg_view = NULL;
    if (c->msg_fd >= 0)
        close(c->msg_fd); /* nobody wanted it */
    c->msg_fd = -1;
}

int sy_conn_take_fd(sy_conn_t *conn)
{
    if (conn == NULL || !conn->in_message)
        return -1;
    int fd = conn->msg_fd;
    conn->msg_fd = -1;
    return fd;
}

void *sy_conn_take_body(sy_conn_t *conn)
{
    if (conn == NULL || !conn->in_message || conn->msg_len == 0)
        return NULL;
    void *b = conn->msg_body;
    if (b != NULL) {
        conn->msg_body = NULL;
    } else if (conn->msg_view != NULL && (b = malloc(conn->msg_len)) != NULL) {
        memcpy(b, conn->msg_view, conn->msg_len);
    }
    conn->msg_view = NULL;
    conn->msg_len = 0;
    return b;
}

/* Room for `want` bytes of the body being received (want <= body_len):
 * at least double what is there, never more than the header claims. */
static bool body_reserve(sy_conn_t *c, size_t want)
{
    if (want <= c->body_cap)
        return true;
    size_t cap = c->body_cap > 0 ? 2 * c->body_cap : SY_BODY_FIRST;
    if (cap < want)
        cap = want;
    if (cap > c->body_len)
        cap = c->body_len;
    uint8_t *grown = realloc(c->body, cap);
    if (grown == NULL) {
        die(c, PMIX_ERR_NOMEM, "out of memory for a frame body of %zu bytes", c->body_len);
        return false;
    }
    c->body = grown;
    c->body_cap = cap;
    return true;
}

/* A complete header is in c->hdr: check it and start the body. */
static bool start_opx_frame(sy_conn_t *c)
{
    int32_t pindex;
    uint32_t tag, len;
    sy_frame_opx_header_decode(c->hdr, &pindex, &tag, &len);
    if (c->framing == SY_FRAMING_DETECT) {
        /* The connect message: pindex -1, tag UINT32_MAX, and nbytes
         * written by OpenPMIx in its host's byte order (no htonl), which
         * on the same host is ours. */
        memcpy(&len, c->hdr + 8, sizeof(len));
        c->framing = SY_FRAMING_OPENPMIX;
    }
    if (len > c->max_body) {
        die(c, PMIX_ERR_UNPACK_FAILURE,
            "OpenPMIx frame body of %u bytes exceeds the limit of %zu bytes (%s, %s)", len,
            c->max_body, SY_FRAME_MAX_ENV, "docs/wire-protocol.md");
        return false;
    }
    c->flags = 0;
    c->tag = tag;
    c->body_len = len;
    c->body_got = 0;
    c->body_cap = 0;
    c->in_body = true;
    return true;
}

static bool start_frame(sy_conn_t *c)
{
    if (c->framing != SY_FRAMING_NATIVE) {
        /* one check per frame on connections that may speak OpenPMIx */
        static const uint8_t opx_hello[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        if (c->framing == SY_FRAMING_OPENPMIX || memcmp(c->hdr, opx_hello, sizeof(opx_hello)) == 0)
            return start_opx_frame(c);
        c->framing = SY_FRAMING_NATIVE;
    }
    uint32_t magic = get_le32(c->hdr);
    uint16_t version = get_le16(c->hdr + 4);
    uint32_t len = get_le32(c->hdr + 12);

    if (magic != SY_FRAME_MAGIC) {
        die(c, PMIX_ERR_UNPACK_FAILURE,
            "bad frame magic 0x%08x (expected 0x%08x \"SYW1\"): the peer does not speak the "
            "Switchyard wire protocol",
            magic, SY_FRAME_MAGIC);
        return false;
    }
    if (version != SY_FRAME_VERSION) {
        die(c, PMIX_ERR_UNPACK_FAILURE, "unsupported wire protocol version %u (we speak %u)",
            version, SY_FRAME_VERSION);
        return false;
    }
    if (len > c->max_body) {
        die(c, PMIX_ERR_UNPACK_FAILURE,
            "frame body of %u bytes exceeds the limit of %zu bytes (%s, %s)", len, c->max_body,
            SY_FRAME_MAX_ENV, "docs/wire-protocol.md");
        return false;
    }
    c->flags = get_le16(c->hdr + 6);
    if ((c->flags & SY_FRAME_F_FD) && c->nfds == 0 && c->fds_lost > 0) {
        /* delivered without it: the command layer answers the failure */
        c->fds_lost--;
    } else if (c->flags & SY_FRAME_F_FD) {
        /* it came with the header's first byte, which has been read */
        if (c->nfds == 0) {
            die(c, PMIX_ERR_UNPACK_FAILURE,
                "a frame announces a descriptor that did not come with it%s",
                c->cbs.receive_fds ? "" : " (this connection takes none)");
            return false;
        }
        c->frame_fd = c->fdq[0];
        memmove(c->fdq, c->fdq + 1, (size_t)(c->nfds - 1) * sizeof(int));
        c->nfds--;
    }
    c->tag = get_le32(c->hdr + 8);
    c->body_len = len;
    c->body_got = 0;
    c->body_cap = 0;
    c->in_body = true;
    return true;
}

/* Parse n bytes of stream data from p. */
static void consume(sy_conn_t *c, const uint8_t *p, size_t n)
{
    while (n > 0 && !c->closed && !c->closed_for_reading) {
        if (!c->in_body) {
            size_t k = SY_FRAME_HEADER_SIZE - c->hdr_got;
            if (k > n)
                k = n;
            memcpy(c->hdr + c->hdr_got, p, k);
            c->hdr_got += k;
            p += k;
            n -= k;
            if (c->hdr_got < SY_FRAME_HEADER_SIZE || !start_frame(c))
                continue;
            if (c->body_len == 0) {
                deliver(c, NULL, NULL, 0);
            } else if (n >= c->body_len) {
                /* Whole body already here: hand out a view, no copy. */
                size_t len = c->body_len;
                deliver(c, NULL, p, len);
                p += len;
                n -= len;
            }
            continue;
        }
        size_t k = c->body_len - c->body_got;
        if (k > n)
            k = n;
        if (!body_reserve(c, c->body_got + k))
            continue;
        memcpy(c->body + c->body_got, p, k);
        c->body_got += k;
        p += k;
        n -= k;
        if (c->body_got == c->body_len) {
            uint8_t *b = c->body;
            c->body = NULL;
            c->body_cap = 0;
            deliver(c, b, NULL, c->body_len);
        }
    }
}

/* recv(), or recvmsg() keeping the descriptors that come (receive_fds).
 * More than SY_CONN_MAX_FDS waiting, or some cut off, kill the connection
 * (-1, errno EPROTO): a peer cannot make us hold descriptors. */
static ssize_t read_some(sy_conn_t *c, void *buf, size_t len)
{
    if (!c->cbs.receive_fds)
        return recv(c->fd, buf, len, 0);
    union {
        char buf[CMSG_SPACE(SY_CONN_MAX_FDS * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl)};
    ssize_t r = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
    if (r < 0)
        return r;
    bool excess = false;
    int got_here = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int got;
            memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            got_here++;
            if (c->nfds < SY_CONN_MAX_FDS) {
                c->fdq[c->nfds++] = got;
            } else {
                close(got);
                excess = true;
            }
        }
    }
    /* cut off: more than our buffer holds (a peer's doing), or none at all
     * because our table is full (the kernel closed them) */
    if ((mh.msg_flags & MSG_CTRUNC) && got_here > 0)
        excess = true;
    else if (mh.msg_flags & MSG_CTRUNC)
        c->fds_lost++;
    if (excess) {
        die(c, PMIX_ERR_UNPACK_FAILURE,
            "the peer passed more descriptors than its frames announce (at most %d wait)",
            SY_CONN_MAX_FDS);
        errno = EPROTO;
        return -1;
    }
    return r;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
    sy_conn_t *c = arg;
    (void)fd;
    (void)what;
    enter(c);
    for (int i = 0; i < SY_READS_PER_EVENT && !c->closed && !c->closed_for_reading; i++) {
        size_t want;
        ssize_t r;
        bool direct = c->in_body && c->body_len - c->body_got >= SY_RBUF_SIZE;
        if (direct) {
            /* straight into the body, which grows with what came */
            size_t room = c->body_got + (c->body_got > SY_RBUF_SIZE ? c->body_got : SY_RBUF_SIZE);
            if (!body_reserve(c, room < c->body_len ? room : c->body_len))
                break;
            want = c->body_cap - c->body_got;
            r = read_some(c, c->body + c->body_got, want);
        } else {
            want = SY_RBUF_SIZE;
            r = read_some(c, c->rbuf, want);
        }
        if (r > 0) {
            if (direct) {
                c->body_got += (size_t)r;
                if (c->body_got == c->body_len) {
                    uint8_t *b = c->body;
                    c->body = NULL;
                    c->body_cap = 0;
                    deliver(c, b, NULL, c->body_len);
                }
            } else {
                consume(c, c->rbuf, (size_t)r);
            }
            if ((size_t)r < want)
                break; /* drained; level-triggered readiness brings us back */
            continue;
        }
        if (r == 0) {
            if (c->in_body)
                die(c, PMIX_ERR_LOST_CONNECTION,
                    "peer closed the connection in the middle of a frame (%zu of %zu body bytes "
                    "received)",
                    c->body_got, c->body_len);
            else if (c->hdr_got > 0)
                die(c, PMIX_ERR_LOST_CONNECTION,
                    "peer closed the connection in the middle of a frame header (%zu of %d "
                    "bytes received)",
                    c->hdr_got, SY_FRAME_HEADER_SIZE);
            else
                die(c, PMIX_ERR_LOST_CONNECTION, "peer closed the connection");
            break;
        }
        if (EINTR == errno)
            continue;
        if (EAGAIN == errno || EWOULDBLOCK == errno)
            break;
        die(c, PMIX_ERR_LOST_CONNECTION, "read from peer failed: %s", strerror(errno));
        break;
    }
    leave(c);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
    sy_conn_t *c = arg;
    (void)fd;
    (void)what;
    enter(c);
    if (!c->closed) {
        pthread_mutex_lock(&c->lock);
        int e = c->werr ? c->werr : flush_locked(c);
        if (c->head == NULL || e != 0) {
            event_del(c->wev);
            c->wev_added = false;
        }
        bool drained = c->draining && (c->head == NULL || e != 0);
        pthread_mutex_unlock(&c->lock);
        if (drained)
            linger_close(c); /* a local close: no on_close, even on error */
        else if (e != 0)
            die(c, PMIX_ERR_LOST_CONNECTION, "write to peer failed: %s", strerror(e));
    }
    leave(c);
}

/* Activated by a sending thread that met a write error. */
static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    on_write(-1, EV_WRITE, arg);
}

pmix_status_t sy_conn_create(struct event_base *base, int fd, const sy_conn_callbacks_t *cbs,
                             void *ctx, size_t max_body, sy_conn_t **out)
{
    return sy_conn_create_framed(base, fd, SY_FRAMING_NATIVE, 0, cbs, ctx, max_body, out);
}

pmix_status_t sy_conn_create_framed(struct event_base *base, int fd, sy_framing_t framing,
                                    int32_t pindex, const sy_conn_callbacks_t *cbs, void *ctx,
                                    size_t max_body, sy_conn_t **out)
{
    if (out != NULL)
        *out = NULL;
    if (base == NULL || fd < 0 || cbs == NULL || out == NULL) {
        if (fd >= 0)
            close(fd);
        return PMIX_ERR_BAD_PARAM;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        close(fd);
        return PMIX_ERR_BAD_PARAM;
    }
    sy_conn_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        close(fd);
        return PMIX_ERR_NOMEM;
    }
    c->base = base;
    c->fd = fd;
    c->cbs = *cbs;
    c->ctx = ctx;
    c->framing = framing;
    c->pindex = pindex;
    c->frame_fd = c->msg_fd = -1;
    c->max_body = (max_body == 0) ? sy_frame_default_max_body() : max_body;
    if (c->max_body > UINT32_MAX)
        c->max_body = UINT32_MAX;
    pthread_mutex_init(&c->lock, NULL);
    c->rbuf = malloc(SY_RBUF_SIZE);
    c->rev = event_new(base, fd, EV_READ | EV_PERSIST, on_read, c);
    c->wev = event_new(base, fd, EV_WRITE | EV_PERSIST, on_write, c);
    c->wake = event_new(base, -1, 0, on_wake, c);
    if (c->rbuf == NULL || c->rev == NULL || c->wev == NULL || c->wake == NULL ||
        event_add(c->rev, NULL) != 0) {
        if (c->rev)
            event_free(c->rev);
        if (c->wev)
            event_free(c->wev);
        if (c->wake)
            event_free(c->wake);
        free(c->rbuf);
        pthread_mutex_destroy(&c->lock);
        free(c);
        close(fd);
        return PMIX_ERR_NOMEM;
    }
    *out = c;
    return PMIX_SUCCESS;
}

void sy_conn_detect_openpmix(sy_conn_t *conn)
{
    if (conn != NULL)
        conn->framing = SY_FRAMING_DETECT;
}

bool sy_conn_openpmix(const sy_conn_t *conn)
{
    return conn != NULL && conn->framing == SY_FRAMING_OPENPMIX;
}

pmix_status_t sy_conn_send_raw(sy_conn_t *conn, const void *bytes, size_t len)
{
    sy_msg_t *m;
    if (len == 0 || bytes == NULL)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = make_msg(conn, 0, 0, len, &m, len);
    if (rc != PMIX_SUCCESS)
        return rc;
    m->hdr_len = 0;
    memcpy(m->body, bytes, len);
    return enqueue(conn, m);
}
