/* PMIx_IOF_push (Chap_API_Tools.tex, "Forwarding stdin"): data for the
 * stdin of processes, sent to the server (IOF_PUSH) for the host's
 * push_stdin.  With PMIX_IOF_PUSH_STDIN the library reads this process's
 * own stdin and forwards it to the targets until EOF (then the targets'
 * stdin is closed with PMIX_IOF_COMPLETE) or until a push with
 * PMIX_IOF_COMPLETE.  At most PMIX_IOF_CACHE_SIZE bytes (default 1 MiB)
 * are in flight: reading pauses until the host took them, so nothing is
 * dropped here.  The forwarder lives on the loop. */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "client/client_internal.h"
#include "client/client_iof.h"
#include "common/buffer.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/runtime.h"
#include "common/sync.h"

#define SY_STDIN_CAP ((size_t)1 << 20)
#define SY_STDIN_CHUNK 65536
#define SY_STDIN_POLL 0.01 /* seconds between reads of a stdin that cannot be polled */

/* The one stdin forwarder (loop only). */
static struct {
    bool active;
    unsigned gen; /* bumped at each stop: late replies of an old one are ignored */
    sy_conn_t *conn;
    pmix_proc_t *targets;
    size_t ntargets;
    pmix_info_t *dirs; /* passed to the host */
    size_t ndirs;
    size_t cap, inflight, bsize;
    double btime;
    sy_bytes_t held;
    struct event *ev;
    bool polled; /* a regular file or /dev/null: read from a timer */
    bool paused;
    sy_timer_t *hold_timer, *poll_timer;
} fwd;

/* Forwarded directives: what the server or host acts on. */
static bool for_host(const pmix_info_t *d)
{
    return strncmp(d->key, PMIX_IOF_PUSH_STDIN, PMIX_MAX_KEYLEN) != 0 &&
           strncmp(d->key, PMIX_IOF_COMPLETE, PMIX_MAX_KEYLEN) != 0 &&
           strncmp(d->key, PMIX_IOF_BUFFERING_SIZE, PMIX_MAX_KEYLEN) != 0 &&
           strncmp(d->key, PMIX_IOF_BUFFERING_TIME, PMIX_MAX_KEYLEN) != 0;
}

static pmix_status_t send_push(sy_conn_t *conn, const pmix_proc_t *targets, size_t ntargets,
                               const char *data, size_t len, const pmix_info_t *dirs, size_t ndirs,
                               bool complete, sy_client_reply_fn cb, void *cbdata)
{
    /* the directives and, to close the targets' stdin, PMIX_IOF_COMPLETE:
     * one array (the structs are copied, the codec only reads them) */
    size_t n = (dirs != NULL ? ndirs : 0) + (complete ? 1 : 0);
    pmix_info_t *all = n > 0 ? calloc(n, sizeof(*all)) : NULL;
    if (n > 0 && all == NULL)
        return PMIX_ERR_NOMEM;
    if (dirs != NULL && ndirs > 0)
        memcpy(all, dirs, ndirs * sizeof(*all));
    if (complete)
        PMIX_INFO_LOAD(&all[n - 1], PMIX_IOF_COMPLETE, NULL, PMIX_BOOL);
    sy_wire_iof_push_req_t m = {.targets = (pmix_proc_t *)targets,
                                .ntargets = ntargets,
                                .data = {.bytes = (char *)data, .size = len},
                                .directives = all,
                                .ndirectives = n};
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_wire_iof_push_req_pack(sy_client_codec(), &req, &m);
    if (complete)
        PMIX_INFO_DESTRUCT(&all[n - 1]);
    free(all);
    if (rc != PMIX_SUCCESS)
        return rc;
    return sy_client_request_nb(conn, &req, cb, cbdata);
}

/* ---- the stdin forwarder ---- */

static void fwd_stop(bool send_rest, bool complete);
static void fwd_read(void);

typedef struct {
    unsigned gen;
    size_t len;
} sent_t;

static void fwd_resume(void)
{
    if (!fwd.paused)
        return;
    fwd.paused = false;
    if (fwd.ev != NULL)
        event_add(fwd.ev, NULL);
    else
        fwd_read();
}

static void fwd_sent(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    sent_t *s = cbdata;
    if (fwd.active && s->gen == fwd.gen) {
        fwd.inflight -= s->len;
        if (status != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "PMIx_IOF_push: stdin forwarding stopped: %s",
                   PMIx_Error_string(status));
            fwd_stop(false, false);
        } else if (fwd.inflight < fwd.cap) {
            fwd_resume();
        }
    }
    free(s);
}

static void fwd_send_held(bool complete)
{
    if (fwd.hold_timer != NULL) {
        sy_timer_cancel(fwd.hold_timer);
        fwd.hold_timer = NULL;
    }
    if (fwd.held.len == 0 && !complete)
        return;
    sent_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return;
    s->gen = fwd.gen;
    s->len = fwd.held.len;
    fwd.inflight += s->len;
    if (send_push(fwd.conn, fwd.targets, fwd.ntargets, fwd.held.data, fwd.held.len, fwd.dirs,
                  fwd.ndirs, complete, fwd_sent, s) != PMIX_SUCCESS) {
        fwd.inflight -= s->len;
        free(s);
    }
    fwd.held.len = 0;
}

static void hold_expired(void *arg)
{
    (void)arg;
    fwd_send_held(false);
}

static void poll_again(void *arg);

static void fwd_read(void)
{
    if (!fwd.active || fwd.paused)
        return;
    size_t room = fwd.cap > fwd.inflight + fwd.held.len ? fwd.cap - fwd.inflight - fwd.held.len : 0;
    if (room == 0) {
        fwd_send_held(false);
        fwd.paused = true;
        if (fwd.ev != NULL)
            event_del(fwd.ev);
        return;
    }
    char buf[SY_STDIN_CHUNK];
    ssize_t n = read(STDIN_FILENO, buf, room < sizeof(buf) ? room : sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        n = -2;
    } else if (n <= 0) {
        /* EOF (or an unreadable stdin): what is held goes, then the end */
        fwd_stop(true, true);
        return;
    }
    if (n > 0) {
        sy_bytes_add(&fwd.held, buf, (size_t)n);
        if (fwd.bsize == 0 || fwd.held.len >= fwd.bsize)
            fwd_send_held(false);
        else if (fwd.btime > 0 && fwd.hold_timer == NULL)
            sy_progress_timer(sy_runtime(), fwd.btime, hold_expired, NULL, &fwd.hold_timer);
    }
    if (fwd.inflight + fwd.held.len >= fwd.cap) {
        fwd.paused = true;
        if (fwd.ev != NULL)
            event_del(fwd.ev);
    }
    if (fwd.polled && !fwd.paused && fwd.poll_timer == NULL)
        sy_progress_timer(sy_runtime(), n > 0 ? 0 : SY_STDIN_POLL, poll_again, NULL,
                          &fwd.poll_timer);
}

static void poll_again(void *arg)
{
    (void)arg;
    if (fwd.poll_timer != NULL) {
        sy_timer_cancel(fwd.poll_timer);
        fwd.poll_timer = NULL;
    }
    fwd_read();
}

static void on_stdin(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fwd_read();
}

static void fwd_stop(bool send_rest, bool complete)
{
    if (!fwd.active)
        return;
    if (send_rest)
        fwd_send_held(complete);
    if (fwd.ev != NULL) {
        event_free(fwd.ev);
        fwd.ev = NULL;
    }
    if (fwd.hold_timer != NULL)
        sy_timer_cancel(fwd.hold_timer);
    if (fwd.poll_timer != NULL)
        sy_timer_cancel(fwd.poll_timer);
    fwd.hold_timer = fwd.poll_timer = NULL;
    if (fwd.targets != NULL)
        PMIX_PROC_FREE(fwd.targets, fwd.ntargets);
    if (fwd.dirs != NULL)
        PMIX_INFO_FREE(fwd.dirs, fwd.ndirs);
    sy_bytes_free(&fwd.held);
    fwd.targets = NULL;
    fwd.dirs = NULL;
    fwd.active = false;
    fwd.gen++;
}

/* ---- PMIx_IOF_push ---- */

typedef struct {
    sy_conn_t *conn;
    pmix_proc_t *targets;
    size_t ntargets;
    char *data;
    size_t len;
    bool has_data;
    pmix_info_t *dirs;
    size_t ndirs;
    sy_iof_opts_t opts;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} push_t;

static void push_free(push_t *p)
{
    if (p->targets != NULL)
        PMIX_PROC_FREE(p->targets, p->ntargets);
    if (p->dirs != NULL)
        PMIX_INFO_FREE(p->dirs, p->ndirs);
    free(p->data);
    free(p);
}

static void push_replied(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    push_t *p = cbdata;
    if (p->cbfunc != NULL)
        p->cbfunc(status, p->cbdata);
    push_free(p);
}

static void fwd_start(push_t *p)
{
    fwd_stop(true, false); /* a new forwarding replaces the old one */
    fwd.active = true;
    fwd.paused = false;
    fwd.conn = p->conn;
    fwd.cap = p->opts.cache > 0 ? p->opts.cache : SY_STDIN_CAP;
    fwd.bsize = p->opts.bsize;
    fwd.btime = p->opts.btime;
    fwd.inflight = 0;
    PMIX_PROC_CREATE(fwd.targets, p->ntargets);
    if (fwd.targets != NULL) {
        fwd.ntargets = p->ntargets;
        memcpy(fwd.targets, p->targets, p->ntargets * sizeof(pmix_proc_t));
    }
    if (p->ndirs > 0) {
        PMIX_INFO_CREATE(fwd.dirs, p->ndirs);
        fwd.ndirs = fwd.dirs != NULL ? p->ndirs : 0;
        for (size_t i = 0; i < fwd.ndirs; i++)
            PMIx_Info_xfer(&fwd.dirs[i], &p->dirs[i]);
    }
    fwd.ev = event_new(sy_progress_base(sy_runtime()), STDIN_FILENO, EV_READ | EV_PERSIST, on_stdin,
                       NULL);
    fwd.polled = fwd.ev == NULL || event_add(fwd.ev, NULL) != 0;
    if (fwd.polled) {
        if (fwd.ev != NULL)
            event_free(fwd.ev);
        fwd.ev = NULL;
        fwd_read();
    }
}

static void push_on_loop(void *arg)
{
    push_t *p = arg;
    if (p->opts.complete)
        fwd_stop(true, false);
    if (p->opts.push_stdin)
        fwd_start(p);
    if (p->has_data || p->opts.complete) {
        pmix_status_t rc = send_push(p->conn, p->targets, p->ntargets, p->data, p->len, p->dirs,
                                     p->ndirs, p->opts.complete, push_replied, p);
        if (rc != PMIX_SUCCESS)
            push_replied(rc, NULL, p);
        return;
    }
    push_replied(PMIX_SUCCESS, NULL, p);
}

static void op_wake(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo, const pmix_info_t directives[],
                                        size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (targets == NULL || ntargets == 0 || (directives == NULL && ndirs > 0) ||
        (bo != NULL && bo->size > 0 && bo->bytes == NULL))
        return PMIX_ERR_BAD_PARAM;
    sy_iof_opts_t opts;
    pmix_status_t rc = sy_iof_opts_parse(directives, ndirs, true, &opts);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (bo == NULL && !opts.push_stdin && !opts.complete)
        return PMIX_ERR_BAD_PARAM;
    sy_conn_t *conn;
    if ((rc = sy_client_server_conn(&conn)) != PMIX_SUCCESS)
        return rc;
    sy_progress_t *prog = sy_runtime();
    push_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    p->conn = conn;
    p->opts = opts;
    PMIX_PROC_CREATE(p->targets, ntargets);
    p->ntargets = ntargets;
    bool ok = p->targets != NULL;
    if (ok)
        memcpy(p->targets, targets, ntargets * sizeof(pmix_proc_t));
    /* the library keeps its own copy: bo is free again once cbfunc ran */
    p->has_data = bo != NULL && bo->size > 0;
    if (ok && p->has_data && (p->data = malloc(bo->size)) != NULL) {
        memcpy(p->data, bo->bytes, bo->size);
        p->len = bo->size;
    } else if (p->has_data) {
        ok = false;
    }
    for (size_t i = 0; ok && i < ndirs; i++)
        p->ndirs += for_host(&directives[i]);
    if (ok && p->ndirs > 0) {
        PMIX_INFO_CREATE(p->dirs, p->ndirs);
        ok = p->dirs != NULL;
        for (size_t i = 0, k = 0; ok && i < ndirs; i++)
            if (for_host(&directives[i]))
                PMIx_Info_xfer(&p->dirs[k++], &directives[i]);
    }
    if (!ok) {
        push_free(p);
        return PMIX_ERR_NOMEM;
    }
    sy_sync_t sync;
    if (cbfunc == NULL) {
        if (sy_sync_init(&sync) != PMIX_SUCCESS) {
            push_free(p);
            return PMIX_ERR_NOMEM;
        }
        p->cbfunc = op_wake;
        p->cbdata = &sync;
    } else {
        p->cbfunc = cbfunc;
        p->cbdata = cbdata;
    }
    rc = prog != NULL ? sy_progress_post(prog, push_on_loop, p) : PMIX_ERR_INIT;
    if (rc != PMIX_SUCCESS)
        push_free(p);
    if (cbfunc == NULL) {
        if (rc == PMIX_SUCCESS)
            rc = sy_sync_wait_progress(&sync, prog);
        sy_sync_destroy(&sync);
    }
    return rc;
}

void sy_client_iof_push_lost(void *conn)
{
    if (fwd.active && (conn == NULL || fwd.conn == conn))
        fwd_stop(false, false);
}
