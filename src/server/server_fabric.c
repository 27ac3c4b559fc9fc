/* The server side of the fabric API: the route of a server (its own
 * engines when it is the scheduler, else the host's `fabric` upcall),
 * SY_CMD_FABRIC from clients, and the inventory calls
 * (PMIx_server_collect_inventory / deliver_inventory). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/frame.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/sealed.h"
#include "common/wire.h"
#include "fabmod/fabmod.h"
#include "sched/sched.h"
#include "server/server_internal.h"
#include "server/server_fabric.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"
#include "switchyard.h"

/* A cost matrix the host gave as a pointer becomes a byte-object copy, so
 * that it survives the host's release and can be packed. */
static void matrix_by_value(pmix_info_t *info, size_t ninfo)
{
    size_t n = 0;
    bool have_n = false;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_NUM_DEVICES) && info[i].value.type == PMIX_SIZE) {
            n = info[i].value.data.size;
            have_n = true;
        }
    for (size_t i = 0; i < ninfo; i++) {
        pmix_value_t *v = &info[i].value;
        if (!PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_COST_MATRIX) || v->type != PMIX_POINTER)
            continue;
        void *src = v->data.ptr;
        void *copy = NULL;
        /* without a size the pointer means nothing elsewhere: dropped */
        if (have_n && src != NULL && n > 0 && n < (1u << 20) && (copy = malloc(n * n * 2)) != NULL)
            memcpy(copy, src, n * n * 2);
        v->type = copy != NULL ? PMIX_BYTE_OBJECT : PMIX_UNDEF;
        v->data.bo.bytes = copy;
        v->data.bo.size = copy != NULL ? n * n * 2 : 0;
    }
}

/* ---- a non-scheduler server's route: the host ---- */

/* A client's request on the route; the reply is packed in cmd_reply. */
typedef struct {
    sy_srv_req_t req; /* first */
    bool shm_ok;      /* the client maps a matrix from a memfd (SY_FABRIC_SHM_OK) */
    int fd;           /* the memfd of the reply's matrix, or -1 */
} cmd_req_t;

/* SWITCHYARD_FABRIC_SHM_MIN: bytes, or with a K, M or G suffix; 0 sends
 * every matrix through a memfd (tests). */
static size_t shm_min(void)
{
    const char *e = getenv(SY_FABRIC_SHM_MIN_ENV);
    if (e == NULL || *e == '\0')
        return SY_FABRIC_SHM_MIN_DEFAULT;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(e, &end, 10);
    unsigned shift = *end == 'K' || *end == 'k'   ? 10
                     : *end == 'M' || *end == 'm' ? 20
                     : *end == 'G' || *end == 'g' ? 30
                                                  : 0;
    if (shift != 0)
        end++;
    if (end == e || *end != '\0' || errno != 0 || e[0] == '-' || v > (SIZE_MAX >> shift))
        return SY_FABRIC_SHM_MIN_DEFAULT;
    return (size_t)v << shift;
}

static void cmd_reply(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *arg);

typedef struct {
    sy_srv_req_t req; /* first; no peer: cb answers the requester */
    sy_fabric_reply_fn cb;
    void *arg;
    pmix_info_t *info;
    size_t ninfo;
    int fd; /* the matrix, already in a memfd for a client (host_take), or -1 */
} host_req_t;

static void host_req_free(sy_srv_req_t *req)
{
    host_req_t *h = (host_req_t *)req;
    if (h->fd >= 0)
        close(h->fd);
    free(req);
}

static void host_done(sy_srv_req_t *req)
{
    host_req_t *h = (host_req_t *)req;
    /* "succeeded" without data is no answer to a request for data */
    pmix_status_t st =
        req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_AVAILABLE : req->status;
    if (h->fd >= 0 && st == PMIX_SUCCESS && h->cb == cmd_reply) {
        ((cmd_req_t *)h->arg)->fd = h->fd; /* its SY_FABRIC_CM_SHM entry's */
        h->fd = -1;
    }
    h->cb(st, h->info, h->ninfo, h->arg); /* the infos are cb's */
}

static void host_gone(sy_srv_req_t *req)
{
    host_req_t *h = (host_req_t *)req;
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    /* The server is gone: a requester of this process still hears of it; a
     * client's request went with its peer. */
    if (h->cb == cmd_reply)
        sy_srv_req_gone(h->arg);
    else
        h->cb(PMIX_ERR_INIT, NULL, 0, h->arg);
}

/* Any thread: the host's infos are valid only in its callback. */
static void host_take(sy_srv_req_t *req, const pmix_info_t info[], size_t ninfo)
{
    host_req_t *h = (host_req_t *)req;
    if (req->status != PMIX_SUCCESS)
        return;
    PMIX_INFO_CREATE(h->info, ninfo);
    if (h->info == NULL) {
        req->status = PMIX_ERR_NOMEM;
        return;
    }
    h->ninfo = ninfo;
    /* A big matrix for a client that maps one goes from the host's answer
     * straight into a memfd, on the host's thread: one copy, not two (on
     * a VM each first touch of 1.5 GB costs tens of seconds). */
    const cmd_req_t *c = h->cb == cmd_reply ? h->arg : NULL;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_value_t *v = &info[i].value;
        if (c != NULL && c->shm_ok && h->fd < 0 &&
            PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_COST_MATRIX) && v->type == PMIX_BYTE_OBJECT &&
            v->data.bo.bytes != NULL && v->data.bo.size > shm_min() &&
            (h->fd = sy_sealed_export(v->data.bo.bytes, v->data.bo.size)) >= 0) {
            size_t size = v->data.bo.size;
            PMIx_Info_load(&h->info[i], SY_FABRIC_CM_SHM, &size, PMIX_SIZE);
            continue;
        }
        PMIx_Info_xfer(&h->info[i], &info[i]);
    }
    matrix_by_value(h->info, h->ninfo);
}

static const sy_srv_req_type_t host_type = {.name = "fabric",
                                            .done = host_done,
                                            .gone = host_gone,
                                            .take = host_take,
                                            .free = host_req_free};

static pmix_status_t host_route(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                                const pmix_info_t dirs[], size_t ndirs, sy_fabric_reply_fn cb,
                                void *arg)
{
    sy_srv_t *s = sy_srv;
    if (s == NULL)
        return PMIX_ERR_INIT;
    if (s->module.fabric == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    host_req_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return PMIX_ERR_NOMEM;
    sy_srv_req_init(&h->req, &host_type, NULL, 0);
    h->cb = cb;
    h->arg = arg;
    h->fd = -1;
    const pmix_proc_t *who = requestor != NULL && requestor->nspace[0] != '\0' ? requestor : &s->me;
    pmix_status_t rc =
        s->module.fabric(who, op, dirs, ndirs, sy_srv_req_info_done, sy_srv_req_ticket(&h->req));
    /* a route's error is returned, not called back */
    if (rc == PMIX_SUCCESS || !sy_srv_req_cancel(&h->req))
        return PMIX_SUCCESS;
    free(h);
    return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_AVAILABLE : rc;
}

static pmix_status_t server_route(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                                  const pmix_info_t dirs[], size_t ndirs, sy_fabric_reply_fn cb,
                                  void *arg)
{
    if (sy_sched_active())
        return sy_sched_route(requestor, op, dirs, ndirs, cb, arg);
    return host_route(requestor, op, dirs, ndirs, cb, arg);
}

pmix_status_t sy_srv_fabric_init(sy_srv_t *s, const pmix_info_t info[], size_t ninfo)
{
    if (s->scheduler) {
        pmix_status_t rc = sy_sched_init(info, ninfo, &s->me);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    sy_fabric_set_route(SY_FABRIC_ROUTE_SERVER, server_route);
    return PMIX_SUCCESS;
}

void sy_srv_fabric_finalize(sy_srv_t *s)
{
    sy_fabric_set_route(SY_FABRIC_ROUTE_SERVER, NULL);
    if (s->scheduler)
        sy_sched_finalize();
    /* the module (if the scheduler or the inventory loaded it) lets go of
     * its caches */
    sy_fabmod_unload();
}

/* ---- SY_CMD_FABRIC from clients ---- */

static void cmd_req_free(sy_srv_req_t *req)
{
    cmd_req_t *c = (cmd_req_t *)req;
    if (c->fd >= 0)
        close(c->fd);
    free(req);
}

/* The reply, with the matrix's memfd when there is one. */
static void cmd_done(sy_srv_req_t *req)
{
    cmd_req_t *c = (cmd_req_t *)req;
    pmix_status_t st = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
    if (c->fd >= 0 && st == PMIX_SUCCESS && sy_srv_peer_open(req->peer)) {
        int fd = c->fd;
        c->fd = -1;
        pmix_status_t rc = sy_srv_peer_reply_fd(req->peer, req->tag, st, &req->reply, fd);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_LOST_CONNECTION)
            return;
        /* the reply names a matrix that cannot come: say so instead */
        sy_log(SY_LOG_WARN, "fabric: the matrix's descriptor cannot be passed: %s",
               PMIx_Error_string(rc));
        sy_srv_peer_reply_status(req->peer, req->tag, rc);
        return;
    }
    sy_srv_peer_reply_with(req->peer, req->tag, st, &req->reply);
}

static const sy_srv_req_type_t cmd_type = {
    .name = "fabric request", .done = cmd_done, .free = cmd_req_free};

/* The cost matrix entry of a reply (a byte object), or NULL. */
static pmix_info_t *matrix_entry(pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_COST_MATRIX) &&
            info[i].value.type == PMIX_BYTE_OBJECT && info[i].value.data.bo.bytes != NULL)
            return &info[i];
    return NULL;
}

/* Why a matrix does not go in shared memory (for the log line of a reply
 * too big for a frame), or NULL when it does. */
static const char *shm_refusal(const cmd_req_t *c, const pmix_info_t *e)
{
    if (e == NULL)
        return "it holds no cost matrix";
    if (e->value.data.bo.size <= shm_min())
        return "it is below the shared-memory threshold";
    if (!c->shm_ok)
        return c->req.peer->tcp ? "the client is connected by TCP"
                                : "the client cannot map shared memory";
    return NULL;
}

/* Pack the answer (the matrix by value, or named by SY_FABRIC_CM_SHM with
 * c->fd set) and end the request; the infos are freed. */
static void cmd_finish(cmd_req_t *c, pmix_status_t status, pmix_info_t *info, size_t ninfo,
                       const char *why_not)
{
    sy_srv_peer_t *peer = c->req.peer;
    if (sy_srv_peer_open(peer)) {
        sy_wire_fabric_rep_t rep = {.info = info, .ninfo = info != NULL ? ninfo : 0};
        pmix_status_t rc = sy_wire_fabric_rep_pack(sy_srv_codec(peer), &c->req.reply, &rep);
        /* Our clients take a long reply in pieces (server_peer.c); an
         * OpenPMIx client would refuse it as a frame (its connection would
         * go): a status instead, and the way round it. */
        if (rc == PMIX_SUCCESS && peer->opx &&
            c->req.reply.bytes_used > SY_FRAME_DEFAULT_MAX_BODY - 4096) {
            sy_log(SY_LOG_WARN,
                   "fabric: a %zu-byte answer exceeds a frame and cannot go in shared memory "
                   "(%s); the client can ask for its devices' rows (PMIX_FABRIC_DEVICE_INDEX) "
                   "or one plane",
                   c->req.reply.bytes_used, why_not != NULL ? why_not : "?");
            rc = PMIX_ERR_VALUE_OUT_OF_BOUNDS;
        }
        if (rc != PMIX_SUCCESS) {
            sy_buffer_destruct(&c->req.reply);
            status = rc;
        }
    }
    if (status != PMIX_SUCCESS && c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    sy_srv_req_complete(&c->req, status);
}

/* Filling a memfd touches every page of a new copy: seconds for a big
 * matrix on a VM (about 16 us per 4 KiB page on ours), during which the
 * server's loop would answer nobody.  A thread of its own fills it, then
 * the answer goes on from the loop. */
typedef struct {
    cmd_req_t *c;
    pmix_info_t *info;
    size_t ninfo;
    pmix_info_t *e; /* the matrix entry, in info */
    int fd, err;
} fill_t;

static void fill_done(void *arg)
{
    fill_t *f = arg;
    const char *why_not = NULL;
    char why[128];
    if (f->fd >= 0) {
        size_t size = f->e->value.data.bo.size;
        free(f->e->value.data.bo.bytes);
        PMIX_LOAD_KEY(f->e->key, SY_FABRIC_CM_SHM);
        f->e->value.type = PMIX_SIZE;
        f->e->value.data.size = size;
        f->c->fd = f->fd;
    } else {
        snprintf(why, sizeof(why), "no memfd can be made (%s)", strerror(f->err));
        why_not = why;
    }
    cmd_finish(f->c, PMIX_SUCCESS, f->info, f->ninfo, why_not);
    free(f);
}

/* The server went meanwhile: nobody to answer. */
static void fill_drop(void *arg)
{
    fill_t *f = arg;
    if (f->fd >= 0)
        close(f->fd);
    PMIX_INFO_FREE(f->info, f->ninfo);
    sy_srv_req_gone(&f->c->req);
    free(f);
}

static void *fill_thread(void *arg)
{
    fill_t *f = arg;
    f->fd = sy_sealed_export(f->e->value.data.bo.bytes, f->e->value.data.bo.size);
    f->err = f->fd < 0 ? errno : 0;
    sy_srv_post_or_drop(fill_done, fill_drop, f);
    return NULL;
}

/* A matrix above the threshold, to a client that maps one, goes in a
 * sealed memfd filled on a thread; true when that started (it answers). */
static bool fill_start(cmd_req_t *c, pmix_info_t *info, size_t ninfo, pmix_info_t *e)
{
    fill_t *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return false;
    *f = (fill_t){.c = c, .info = info, .ninfo = ninfo, .e = e, .fd = -1};
    pthread_attr_t attr;
    pthread_t tid;
    bool started = pthread_attr_init(&attr) == 0;
    if (started) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&tid, &attr, fill_thread, f) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started)
        free(f);
    return started;
}

static void cmd_reply(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *arg)
{
    cmd_req_t *c = arg;
    const char *why_not = NULL;
    /* (c->fd set: the host route put the matrix in a memfd already) */
    if (c->fd < 0 && info != NULL && sy_srv_peer_open(c->req.peer)) {
        matrix_by_value(info, ninfo);
        pmix_info_t *e = matrix_entry(info, ninfo);
        why_not = status == PMIX_SUCCESS ? shm_refusal(c, e) : "the request failed";
        if (why_not == NULL && fill_start(c, info, ninfo, e))
            return;
        if (why_not == NULL) {
            /* no thread: filled here, the loop waits */
            int fd = sy_sealed_export(e->value.data.bo.bytes, e->value.data.bo.size);
            int err = fd < 0 ? errno : 0;
            fill_t *f = calloc(1, sizeof(*f));
            if (f != NULL) {
                *f = (fill_t){.c = c, .info = info, .ninfo = ninfo, .e = e, .fd = fd, .err = err};
                fill_done(f);
                return;
            }
            if (fd >= 0)
                close(fd);
            why_not = "out of memory";
        }
    }
    cmd_finish(c, status, info, ninfo, why_not);
}

/* FABRIC (wire_msgs.txt): the reply's infos carry the matrix as a byte
 * object. */
void sy_srv_fabric_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    (void)cmd;
    sy_wire_fabric_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_FABRIC_REQ, &m);
    uint8_t op = m.op;
    size_t n = m.ndirectives;
    pmix_info_t *dirs = NULL;
    /* one more slot for the by-value directive */
    if (rc == PMIX_SUCCESS) {
        PMIX_INFO_CREATE(dirs, n + 1);
        if (dirs == NULL)
            rc = PMIX_ERR_NOMEM;
    }
    /* the client's capability is ours, not the route's */
    bool shm_ok = false;
    size_t k = 0;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        if (PMIX_CHECK_KEY(&m.directives[i], SY_FABRIC_SHM_OK))
            shm_ok = PMIX_INFO_TRUE(&m.directives[i]);
        else
            PMIx_Info_xfer(&dirs[k++], &m.directives[i]);
    }
    n = k;
    sy_wire_fabric_req_free(&m);
    /* only on a UNIX socket of ours, and not on the direct channel, whose
     * replies are read without a descriptor */
    shm_ok = shm_ok && !peer->tcp && !peer->opx && peer->state == SY_PEER_READY &&
             !(tag & SY_WIRE_TAG_DIRECT);
    if (rc == PMIX_SUCCESS && op != PMIX_FABRIC_REQUEST_INFO && op != PMIX_FABRIC_UPDATE_INFO)
        rc = PMIX_ERR_BAD_PARAM;
    cmd_req_t *c = rc == PMIX_SUCCESS ? calloc(1, sizeof(*c)) : NULL;
    if (rc == PMIX_SUCCESS && c == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        bool t = true;
        PMIx_Info_load(&dirs[n], SWITCHYARD_FABRIC_BY_VALUE, &t, PMIX_BOOL);
        sy_srv_req_init(&c->req, &cmd_type, peer, tag);
        c->shm_ok = shm_ok;
        c->fd = -1;
        /* a tool has no client record: its claimed identity */
        rc = server_route(peer->client != NULL ? &peer->client->proc : &peer->proc,
                          (pmix_fabric_operation_t)op, dirs, n + 1, cmd_reply, c);
        if (rc != PMIX_SUCCESS)
            sy_srv_req_complete(&c->req, rc);
    }
    if (dirs != NULL)
        PMIX_INFO_FREE(dirs, n + 1);
    if (rc != PMIX_SUCCESS && c == NULL)
        sy_srv_peer_reply_status(peer, tag, rc);
}

/* ---- inventory ---- */

typedef struct {
    pmix_info_t *dirs;
    size_t ndirs;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} collect_t;

static void collect_release(void *arg)
{
    collect_t *c = arg;
    if (c->info != NULL)
        PMIX_INFO_FREE(c->info, c->ninfo);
    free(c);
}

static void collect_on_loop(void *arg)
{
    collect_t *c = arg;
    const sy_fabmod_ops_t *ops;
    sy_srv_t *s = sy_srv;
    /* the module (libfabric) is loaded for the inventory only */
    c->status = s == NULL ? PMIX_ERR_INIT : sy_fabmod_load(&ops);
    if (c->status == PMIX_SUCCESS)
        c->status = ops->inventory(s->hostname, &c->info, &c->ninfo);
    if (c->dirs != NULL)
        PMIX_INFO_FREE(c->dirs, c->ndirs);
    c->cbfunc(c->status, c->info, c->ninfo, c->cbdata, collect_release, c);
}

PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL || (directives == NULL && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    collect_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return PMIX_ERR_NOMEM;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    pmix_status_t rc = PMIX_SUCCESS;
    if (ndirs > 0) {
        PMIX_INFO_CREATE(c->dirs, ndirs);
        if (c->dirs == NULL)
            rc = PMIX_ERR_NOMEM;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < ndirs; i++)
            rc = PMIx_Info_xfer(&c->dirs[i], &directives[i]);
        c->ndirs = ndirs;
    }
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_post(collect_on_loop, c);
    if (rc != PMIX_SUCCESS) {
        if (c->dirs != NULL)
            PMIX_INFO_FREE(c->dirs, c->ndirs);
        free(c);
    }
    return rc;
}

typedef struct {
    sy_srv_op_t op;
    pmix_info_t *info, *dirs;
    size_t ninfo, ndirs;
} deliver_t;

/* The node's devices become node data of this server's resources, so
 * that PMIx_Get by PMIX_HOSTNAME finds them. */
static pmix_status_t store_node(sy_srv_t *s, const pmix_info_t *info, size_t ninfo)
{
    const char *host = NULL;
    const pmix_info_t *devs = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_HOSTNAME) && info[i].value.type == PMIX_STRING)
            host = info[i].value.data.string;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_DEVICES))
            devs = &info[i];
    }
    if (host == NULL || devs == NULL)
        return host == NULL && devs != NULL ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
    sy_srv_res_t *res = calloc(1, sizeof(*res));
    pmix_data_array_t *node;
    PMIX_DATA_ARRAY_CREATE(node, 2, PMIX_INFO);
    if (res == NULL || node == NULL) {
        free(res);
        PMIX_DATA_ARRAY_FREE(node);
        return PMIX_ERR_NOMEM;
    }
    pmix_info_t *ni = node->array;
    PMIx_Info_load(&ni[0], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIx_Info_xfer(&ni[1], devs);
    PMIX_INFO_CREATE(res->info, 1);
    if (res->info == NULL) {
        PMIX_DATA_ARRAY_FREE(node);
        free(res);
        return PMIX_ERR_NOMEM;
    }
    res->ninfo = 1;
    PMIX_LOAD_KEY(res->info[0].key, PMIX_NODE_INFO_ARRAY);
    res->info[0].value.type = PMIX_DATA_ARRAY;
    res->info[0].value.data.darray = node;
    sy_srv_res_t **tail = &s->resources;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = res;
    pmix_status_t rc = sy_srv_resources_publish(s);
    if (rc != PMIX_SUCCESS) {
        *tail = NULL;
        PMIX_INFO_FREE(res->info, res->ninfo);
        free(res);
    }
    return rc;
}

static void deliver_done(pmix_status_t status, void *arg)
{
    deliver_t *d = arg;
    sy_srv_op_finish(&d->op, status);
}

static void deliver_on_loop(void *arg)
{
    deliver_t *d = arg;
    sy_srv_t *s = sy_srv;
    pmix_status_t rc = s == NULL ? PMIX_ERR_INIT : store_node(s, d->info, d->ninfo);
    /* a fabric change is applied by the scheduler's worker: finished then */
    if (rc == PMIX_SUCCESS && sy_sched_active())
        rc = sy_sched_inventory(d->info, d->ninfo, d->dirs, d->ndirs, deliver_done, d);
    else if (rc == PMIX_SUCCESS)
        rc = PMIX_OPERATION_SUCCEEDED;
    if (rc != PMIX_SUCCESS)
        deliver_done(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, d);
}

PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                        pmix_info_t directives[], size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if ((info == NULL && ninfo > 0) || (directives == NULL && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    deliver_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    /* the caller's arrays stay valid until the callback (the standard) */
    d->info = info;
    d->ninfo = ninfo;
    d->dirs = directives;
    d->ndirs = ndirs;
    return sy_srv_op_start(&d->op, deliver_on_loop, cbfunc, cbdata);
}

/* ---- deregister_resources of devices ---- */

static const char *dev_str(const pmix_info_t *dev, const char *key)
{
    if (dev->value.type != PMIX_DATA_ARRAY || dev->value.data.darray == NULL ||
        dev->value.data.darray->type != PMIX_INFO)
        return NULL;
    const pmix_info_t *a = dev->value.data.darray->array;
    for (size_t i = 0; i < dev->value.data.darray->size; i++)
        if (PMIX_CHECK_KEY(&a[i], key) && a[i].value.type == PMIX_STRING)
            return a[i].value.data.string;
    return NULL;
}

static const char *node_name(const pmix_data_array_t *node)
{
    const pmix_info_t *a = node->array;
    for (size_t i = 0; i < node->size; i++)
        if (PMIX_CHECK_KEY(&a[i], PMIX_HOSTNAME) && a[i].value.type == PMIX_STRING)
            return a[i].value.data.string;
    return NULL;
}

/* Is device `dev` of node `host` named by the deregistration? */
static bool device_gone(const pmix_info_t *dev, const char *host, const pmix_info_t *gone,
                        size_t ngone)
{
    const char *id = dev_str(dev, PMIX_DEVICE_ID), *name = dev_str(dev, PMIX_FABRIC_DEVICE_NAME);
    for (size_t j = 0; j < ngone; j++) {
        const pmix_info_t *g = &gone[j];
        if (PMIX_CHECK_KEY(g, PMIX_DEVICE_ID) && g->value.type == PMIX_STRING && id != NULL &&
            strcmp(g->value.data.string, id) == 0)
            return true;
        if (PMIX_CHECK_KEY(g, PMIX_NODE_INFO_ARRAY) && g->value.type == PMIX_DATA_ARRAY &&
            g->value.data.darray != NULL && g->value.data.darray->type == PMIX_INFO) {
            const char *gh = node_name(g->value.data.darray);
            const pmix_info_t *ga = g->value.data.darray->array;
            for (size_t k = 0; gh != NULL && host != NULL && strcmp(gh, host) == 0 &&
                               k < g->value.data.darray->size;
                 k++)
                if (PMIX_CHECK_KEY(&ga[k], PMIX_FABRIC_DEVICE_NAME) &&
                    ga[k].value.type == PMIX_STRING && name != NULL &&
                    strcmp(ga[k].value.data.string, name) == 0)
                    return true;
        }
    }
    return false;
}

void sy_srv_fabric_prune_devices(sy_srv_res_t *res, const pmix_info_t *gone, size_t ngone)
{
    for (size_t i = 0; i < res->ninfo; i++) {
        pmix_info_t *inf = &res->info[i];
        if (!PMIX_CHECK_KEY(inf, PMIX_NODE_INFO_ARRAY) || inf->value.type != PMIX_DATA_ARRAY ||
            inf->value.data.darray == NULL || inf->value.data.darray->type != PMIX_INFO)
            continue;
        pmix_data_array_t *node = inf->value.data.darray;
        const char *host = node_name(node);
        pmix_info_t *na = node->array;
        for (size_t k = 0; k < node->size; k++) {
            if (!PMIX_CHECK_KEY(&na[k], PMIX_FABRIC_DEVICES) ||
                na[k].value.type != PMIX_DATA_ARRAY || na[k].value.data.darray == NULL ||
                na[k].value.data.darray->type != PMIX_INFO)
                continue;
            pmix_data_array_t *devs = na[k].value.data.darray;
            pmix_info_t *d = devs->array;
            size_t keep = 0;
            for (size_t e = 0; e < devs->size; e++) {
                if (device_gone(&d[e], host, gone, ngone)) {
                    PMIX_INFO_DESTRUCT(&d[e]);
                    continue;
                }
                if (keep != e) {
                    d[keep] = d[e];
                    memset(&d[e], 0, sizeof(d[e]));
                }
                keep++;
            }
            devs->size = keep;
        }
    }
}
