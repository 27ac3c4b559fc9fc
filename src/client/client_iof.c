/* PMIx_IOF_pull / PMIx_IOF_deregister and the delivery of forwarded output
 * (Chap_API_Tools.tex "IO Forwarding"): a registration is made at the
 * server (IOF_PULL), whose SY_MSG_IOF messages name it; output is formatted
 * (client_iof_fmt.c), held per source and channel while
 * PMIX_IOF_BUFFERING_SIZE/TIME ask it, and handed to the caller's callback
 * (or written to our stdout/stderr when there is none).
 *
 * Registrations are created by the API under iof_lock; everything else,
 * and every callback, happens on the loop. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "client/client_iof.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/runtime.h"
#include "common/sync.h"
#include "common/wire_codec.h"

typedef struct stream {
    pmix_proc_t source;
    pmix_iof_channel_t channel;
    sy_bytes_t partial; /* a line waiting for its end */
    sy_bytes_t held;    /* formatted, waiting for BUFFERING_SIZE/TIME */
    sy_timer_t *timer;
    struct reg *reg;
    struct stream *next;
} stream_t;

typedef struct reg {
    size_t id;  /* ours, given to the caller */
    size_t sid; /* the server's, 0 until it answered */
    sy_conn_t *conn;
    pmix_iof_channel_t channel;
    pmix_iof_cbfunc_t cbfunc;
    pmix_hdlr_reg_cbfunc_t regcbfunc;
    void *regcbdata;
    sy_iof_opts_t opts;
    stream_t *streams;
    struct reg *next;
} reg_t;

static pthread_mutex_t iof_lock = PTHREAD_MUTEX_INITIALIZER;
static reg_t *regs;
static size_t next_id = 1;

static reg_t *find_locked(size_t id)
{
    for (reg_t *r = regs; r != NULL; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static void unlink_reg(reg_t *r)
{
    pthread_mutex_lock(&iof_lock);
    for (reg_t **pp = &regs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    pthread_mutex_unlock(&iof_lock);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Hand a stream's held bytes to the caller. */
static void emit(stream_t *st)
{
    reg_t *r = st->reg;
    if (st->timer != NULL) {
        sy_timer_cancel(st->timer);
        st->timer = NULL;
    }
    if (st->held.len == 0)
        return;
    if (r->cbfunc == NULL) {
        write_all(st->channel & PMIX_FWD_STDERR_CHANNEL ? STDERR_FILENO : STDOUT_FILENO,
                  st->held.data, st->held.len);
    } else {
        pmix_byte_object_t bo = {.bytes = st->held.data, .size = st->held.len};
        pmix_proc_t src = st->source;
        r->cbfunc(r->id, st->channel, &src, &bo, NULL, 0);
    }
    st->held.len = 0;
}

static void held_timeout(void *arg)
{
    stream_t *st = arg;
    emit(st);
}

static stream_t *stream_of(reg_t *r, const pmix_proc_t *src, pmix_iof_channel_t ch)
{
    for (stream_t *st = r->streams; st != NULL; st = st->next)
        if (st->channel == ch && PMIX_CHECK_PROCID(&st->source, src))
            return st;
    stream_t *st = calloc(1, sizeof(*st));
    if (st == NULL)
        return NULL;
    st->source = *src;
    st->channel = ch;
    st->reg = r;
    st->next = r->streams;
    r->streams = st;
    return st;
}

static void flush_stream(stream_t *st)
{
    sy_iof_format(&st->reg->opts, &st->source, st->channel, &st->partial, NULL, 0, true, &st->held);
    emit(st);
}

static void reg_free(reg_t *r)
{
    while (r->streams != NULL) {
        stream_t *st = r->streams;
        r->streams = st->next;
        if (st->timer != NULL)
            sy_timer_cancel(st->timer);
        sy_bytes_free(&st->partial);
        sy_bytes_free(&st->held);
        free(st);
    }
    free(r);
}

static bool complete_in(const pmix_info_t *info, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sy_info_is(&info[i], PMIX_IOF_COMPLETE) && sy_info_true(&info[i]))
            return true;
    return false;
}

static void deliver(reg_t *r, const pmix_proc_t *src, pmix_iof_channel_t ch, const char *data,
                    size_t len, pmix_info_t *info, size_t ninfo)
{
    if (r->opts.merge && (ch & PMIX_FWD_STDERR_CHANNEL))
        ch = PMIX_FWD_STDOUT_CHANNEL;
    stream_t *st = stream_of(r, src, ch);
    if (st == NULL)
        return;
    bool done = complete_in(info, ninfo);
    sy_iof_format(&r->opts, src, ch, &st->partial, data, len, done, &st->held);
    if (done || r->opts.bsize == 0 || st->held.len >= r->opts.bsize) {
        emit(st);
    } else if (r->opts.btime > 0 && st->timer == NULL && st->held.len > 0) {
        sy_progress_timer(sy_runtime(), r->opts.btime, held_timeout, st, &st->timer);
    }
    if (done && r->cbfunc != NULL) {
        /* the end of the stream: no data, PMIX_IOF_COMPLETE in the info */
        pmix_byte_object_t none = {0};
        pmix_proc_t s = *src;
        r->cbfunc(r->id, ch, &s, &none, info, ninfo);
    }
}

void sy_client_iof_unsolicited(sy_conn_t *conn, pmix_data_buffer_t *msg)
{
    sy_wire_iof_msg_t m;
    if (sy_wire_iof_msg_unpack(sy_client_codec(), msg, &m) != PMIX_SUCCESS)
        return;
    /* an OpenPMIx server names the registration by our id, which our
     * IOF_PULL gave it; ours by its own */
    pthread_mutex_lock(&iof_lock);
    reg_t *r = regs;
    while (r != NULL && !(r->conn == conn && (sy_client.opx ? r->id : r->sid) == m.ref))
        r = r->next;
    pthread_mutex_unlock(&iof_lock);
    /* A registration goes only on the loop, where we are: r stays valid. */
    if (r != NULL)
        deliver(r, &m.source, m.channel, m.data.bytes, m.data.size, m.info, m.ninfo);
    sy_wire_iof_msg_free(&m);
}

/* ---- PMIx_IOF_pull ---- */

static void pull_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    reg_t *r = cbdata;
    /* a success names the registration */
    bool named = sy_buffer_remaining(reply) > 0;
    sy_wire_iof_pull_rep_t m;
    if (status == PMIX_SUCCESS &&
        (!named || sy_wire_iof_pull_rep_unpack(sy_client_codec(), reply, &m) != PMIX_SUCCESS))
        status = PMIX_ERR_UNPACK_FAILURE;
    size_t sid = status == PMIX_SUCCESS ? m.ref : 0;
    pmix_hdlr_reg_cbfunc_t cb = r->regcbfunc;
    void *cbdata2 = r->regcbdata;
    size_t id = r->id;
    if (status == PMIX_SUCCESS) {
        pthread_mutex_lock(&iof_lock);
        r->sid = sid;
        pthread_mutex_unlock(&iof_lock);
    } else {
        unlink_reg(r);
        reg_free(r);
        id = 0;
    }
    if (cb != NULL)
        cb(status, id, cbdata2);
}

PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata)
{
    if (procs == NULL || nprocs == 0 || (directives == NULL && ndirs > 0) ||
        channel == PMIX_FWD_NO_CHANNELS)
        return PMIX_ERR_BAD_PARAM;
    if (channel & PMIX_FWD_STDIN_CHANNEL)
        return PMIX_ERR_NOT_SUPPORTED; /* stdin is pushed, never pulled */
    sy_iof_opts_t opts;
    pmix_status_t rc = sy_iof_opts_parse(directives, ndirs, false, &opts);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_conn_t *conn;
    if ((rc = sy_client_server_conn(&conn)) != PMIX_SUCCESS)
        return rc;
    reg_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->conn = conn;
    r->channel = channel;
    r->cbfunc = cbfunc;
    r->regcbfunc = regcbfunc;
    r->regcbdata = regcbdata;
    r->opts = opts;
    pthread_mutex_lock(&iof_lock);
    r->id = next_id++;
    pthread_mutex_unlock(&iof_lock);
    /* An OpenPMIx server is told our id (its output names it): the codec
     * takes it from a last directive */
    pmix_info_t *dirs = (pmix_info_t *)directives;
    if (sy_client.opx) {
        PMIX_INFO_CREATE(dirs, ndirs + 1);
        if (dirs == NULL) {
            free(r);
            return PMIX_ERR_NOMEM;
        }
        for (size_t i = 0; i < ndirs; i++)
            dirs[i] = directives[i]; /* borrowed */
        PMIX_INFO_LOAD(&dirs[ndirs], SY_WIRE_OPX_IOF_ID, &r->id, PMIX_SIZE);
    }
    pmix_data_buffer_t req;
    sy_wire_iof_pull_req_t m = {.procs = (pmix_proc_t *)procs,
                                .nprocs = nprocs,
                                .directives = dirs,
                                .ndirectives = ndirs + (sy_client.opx ? 1 : 0),
                                .channels = channel};
    rc = sy_wire_iof_pull_req_pack(sy_client_codec(), &req, &m);
    if (dirs != directives)
        free(dirs); /* the borrowed ones stay the caller's; the id is a plain size */
    if (rc != PMIX_SUCCESS) {
        free(r);
        return rc;
    }
    pthread_mutex_lock(&iof_lock);
    r->next = regs;
    regs = r;
    pthread_mutex_unlock(&iof_lock);
    rc = sy_client_request_nb(conn, &req, pull_reply, r);
    if (rc != PMIX_SUCCESS) {
        unlink_reg(r);
        free(r);
    }
    return rc;
}

/* ---- PMIx_IOF_deregister ---- */

typedef struct {
    size_t id;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} dereg_t;

static void dereg_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    dereg_t *d = cbdata;
    /* a server that went away has forgotten us anyway */
    if (status == PMIX_ERR_LOST_CONNECTION || status == PMIX_ERR_UNREACH)
        status = PMIX_SUCCESS;
    if (d->cbfunc != NULL)
        d->cbfunc(status, d->cbdata);
    free(d);
}

/* On the loop: flush, forget, tell the server. */
static void dereg_on_loop(void *arg)
{
    dereg_t *d = arg;
    pthread_mutex_lock(&iof_lock);
    reg_t *r = find_locked(d->id);
    pthread_mutex_unlock(&iof_lock);
    if (r == NULL) {
        dereg_reply(PMIX_ERR_NOT_FOUND, NULL, d);
        return;
    }
    for (stream_t *st = r->streams; st != NULL; st = st->next)
        flush_stream(st);
    unlink_reg(r);
    size_t sid = r->sid;
    sy_conn_t *conn = r->conn;
    reg_free(r);
    pmix_data_buffer_t req;
    sy_wire_iof_dereg_req_t m = {.ref = sid};
    pmix_status_t rc = sy_wire_iof_dereg_req_pack(sy_client_codec(), &req, &m);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_request_nb(conn, &req, dereg_reply, d);
    if (rc != PMIX_SUCCESS)
        dereg_reply(PMIX_SUCCESS, NULL, d);
}

static void op_wake(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[],
                                              size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)directives;
    (void)ndirs;
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    pthread_mutex_lock(&iof_lock);
    reg_t *r = find_locked(iofhdlr);
    bool answered = r != NULL && r->sid != 0;
    pthread_mutex_unlock(&iof_lock);
    if (r == NULL || !answered)
        return PMIX_ERR_NOT_FOUND;
    dereg_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->id = iofhdlr;
    sy_sync_t sync;
    if (cbfunc == NULL) {
        if (sy_sync_init(&sync) != PMIX_SUCCESS) {
            free(d);
            return PMIX_ERR_NOMEM;
        }
        d->cbfunc = op_wake;
        d->cbdata = &sync;
    } else {
        d->cbfunc = cbfunc;
        d->cbdata = cbdata;
    }
    pmix_status_t rc = sy_progress_post(p, dereg_on_loop, d);
    if (rc != PMIX_SUCCESS)
        free(d);
    if (cbfunc == NULL) {
        if (rc == PMIX_SUCCESS)
            rc = sy_sync_wait_progress(&sync, p);
        sy_sync_destroy(&sync);
    }
    return rc;
}

/* ---- connection loss and finalize (on the loop) ---- */

void sy_client_iof_lost(sy_conn_t *conn)
{
    for (;;) {
        pthread_mutex_lock(&iof_lock);
        reg_t *r = regs;
        while (r != NULL && (conn != NULL && r->conn != conn))
            r = r->next;
        pthread_mutex_unlock(&iof_lock);
        if (r == NULL)
            break;
        for (stream_t *st = r->streams; st != NULL; st = st->next)
            flush_stream(st);
        unlink_reg(r);
        /* a pull still unanswered has its reply failed: pull_reply frees it */
        if (r->sid != 0)
            reg_free(r);
    }
    sy_client_iof_push_lost(conn);
}

/* (the loop runs what was posted in order: everything posted before this,
 * such as a PMIx_Notify_event's forwarding, is done when it signals) */
static void finalize_on_loop(void *arg)
{
    sy_client_iof_lost(NULL);
    sy_sync_signal(arg, PMIX_SUCCESS, NULL);
}

void sy_client_iof_finalize(void)
{
    sy_progress_t *p = sy_runtime();
    sy_sync_t sync;
    if (p == NULL || sy_sync_init(&sync) != PMIX_SUCCESS)
        return;
    if (sy_progress_post(p, finalize_on_loop, &sync) == PMIX_SUCCESS)
        sy_sync_wait_progress(&sync, p);
    sy_sync_destroy(&sync);
}
