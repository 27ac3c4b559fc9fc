/* Events on the server side: notifications from clients (EVENT_NOTIFY)
 * delivered to this process's handlers, spread to the local clients in
 * their range (SY_MSG_EVENT) and, beyond this node, to the host's
 * notify_event; PMIx_Notify_event called in the server process reaches the
 * clients the same way; a client that dies raises PMIX_ERR_LOST_CONNECTION
 * for this process's handlers only (the host decides what its peers
 * hear).  The
 * registrations of the clients and of this process are counted per code,
 * so that the host's register_events hears of a code when the first one
 * wants it and deregister_events when the last one is gone.  Loop only. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/event.h"
#include "common/pack.h"
#include "common/wire.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_event.h"
#include "server/server_group.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

/* ---- the cache the standard requires: every event this server saw, in
 * order, replayed to clients that register for it later ---- */

typedef struct cached {
    uint64_t id; /* the event's number (event_ids) */
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info;
    size_t ninfo;
    struct cached *next;
} cached_t;

static cached_t *cache_head, *cache_tail;
static size_t cache_len;
/* every event this server sends, cached or not, numbered in order */
static uint64_t event_ids;

static void cached_free(cached_t *c)
{
    if (c->info != NULL)
        PMIX_INFO_FREE(c->info, c->ninfo);
    free(c);
}

/* Numbers the event and keeps it (unless asked not to); the number. */
static uint64_t cache_event(pmix_status_t status, const pmix_proc_t *source,
                            pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
    uint64_t id = ++event_ids;
    for (size_t i = 0; i < ninfo; i++)
        if (sy_info_is(&info[i], PMIX_EVENT_DO_NOT_CACHE) && sy_info_true(&info[i]))
            return id;
    cached_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return id;
    c->id = id;
    c->status = status;
    c->source = *source;
    c->range = range;
    if (ninfo > 0) {
        PMIX_INFO_CREATE(c->info, ninfo);
        if (c->info == NULL) {
            free(c);
            return id;
        }
        c->ninfo = ninfo;
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&c->info[i], &info[i]);
    }
    if (cache_tail != NULL)
        cache_tail->next = c;
    else
        cache_head = c;
    cache_tail = c;
    if (++cache_len > SY_EVENT_CACHE_MAX) {
        cached_t *old = cache_head;
        cache_head = old->next;
        cached_free(old);
        cache_len--;
    }
    return id;
}

/* The processes a PMIX_EVENT_CUSTOM_RANGE info names (none for another
 * key or type). */
static const pmix_proc_t *custom_procs(const pmix_info_t *inf, size_t *n)
{
    const pmix_value_t *v = &inf->value;
    *n = 0;
    if (!sy_info_is(inf, PMIX_EVENT_CUSTOM_RANGE))
        return NULL;
    if (v->type == PMIX_PROC && v->data.proc != NULL) {
        *n = 1;
        return v->data.proc;
    }
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL && v->data.darray->type == PMIX_PROC) {
        *n = v->data.darray->size;
        return v->data.darray->array;
    }
    return NULL;
}

static bool in_custom(const pmix_info_t *info, size_t ninfo, const pmix_proc_t *p)
{
    for (size_t i = 0; i < ninfo; i++) {
        size_t n;
        const pmix_proc_t *procs = custom_procs(&info[i], &n);
        for (size_t k = 0; k < n; k++)
            if (PMIX_CHECK_NSPACE(procs[k].nspace, p->nspace) &&
                (procs[k].rank == PMIX_RANK_WILDCARD || procs[k].rank == p->rank))
                return true;
    }
    return false;
}

static bool in_range(pmix_data_range_t range, const pmix_proc_t *source, const pmix_info_t *info,
                     size_t ninfo, const pmix_proc_t *p)
{
    switch (range) {
    case PMIX_RANGE_PROC_LOCAL:
    case PMIX_RANGE_RM: return false;
    case PMIX_RANGE_NAMESPACE: return PMIX_CHECK_NSPACE(source->nspace, p->nspace);
    case PMIX_RANGE_CUSTOM: return in_custom(info, ninfo, p);
    default: return true;
    }
}

/* A live event sent to a peer: which one, in the order the peer gets them. */
static void note_sent(sy_srv_peer_t *peer, uint64_t id)
{
    if (peer->events_sent_ids == NULL &&
        (peer->events_sent_ids = calloc(SY_EVENT_CACHE_MAX, sizeof(uint64_t))) == NULL)
        return; /* its registrations get every cached event they want */
    peer->events_sent_ids[peer->events_sent % SY_EVENT_CACHE_MAX] = id;
    peer->events_sent++;
}

/* The first cached event a registration made when the peer had received
 * `seen` live events must not get replayed: it and those after it reached
 * the new handler live (the connection keeps their order). */
static uint64_t replay_limit(const sy_srv_peer_t *peer, uint64_t seen)
{
    if (seen >= peer->events_sent)
        return UINT64_MAX; /* none in flight: replay all it wants */
    /* more in flight than it remembers (the cache's size): from the oldest
     * it knows, the safe side being a duplicate, not a loss */
    if (peer->events_sent - seen > SY_EVENT_CACHE_MAX)
        seen = peer->events_sent - SY_EVENT_CACHE_MAX;
    return peer->events_sent_ids[seen % SY_EVENT_CACHE_MAX];
}

/* One event message to one peer; ref != 0 makes it a replay for that
 * registration, else id is its number. */
static void send_event(sy_srv_peer_t *peer, size_t ref, uint64_t id, pmix_status_t status,
                       const pmix_proc_t *source, pmix_data_range_t range, const pmix_info_t info[],
                       size_t ninfo)
{
    /* the structs only lend the caller's infos to the codec */
    pmix_info_t *inf = (pmix_info_t *)info;
    if (ref != 0) {
        sy_wire_event_replay_msg_t m = {.ref = ref,
                                        .code = status,
                                        .source = *source,
                                        .range = (uint8_t)range,
                                        .info = inf,
                                        .ninfo = ninfo};
        sy_srv_peer_send_msg(peer, SY_WMSG_EVENT_REPLAY_MSG, &m);
    } else {
        sy_wire_event_msg_t m = {.code = status,
                                 .source = *source,
                                 .range = (uint8_t)range,
                                 .info = inf,
                                 .ninfo = ninfo};
        sy_srv_peer_send_msg(peer, SY_WMSG_EVENT_MSG, &m);
        note_sent(peer, id);
    }
}

/* Send the event to every connected client in range but `except`. */
static void to_clients(uint64_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                       const sy_srv_peer_t *except)
{
    sy_srv_t *s = sy_srv;
    if (s == NULL)
        return;
    for (sy_srv_peer_t *peer = s->peers; peer != NULL; peer = peer->next) {
        if (peer == except || !sy_srv_peer_open(peer) || peer->client == NULL ||
            !in_range(range, source, info, ninfo, &peer->client->proc))
            continue;
        send_event(peer, 0, id, status, source, range, info, ninfo);
    }
}

static bool beyond_node(pmix_data_range_t range)
{
    return range == PMIX_RANGE_SESSION || range == PMIX_RANGE_GLOBAL || range == PMIX_RANGE_RM ||
           range == PMIX_RANGE_CUSTOM;
}

/* PMIx_Notify_event in this process (the host's own events): its clients. */
static void forward(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                    const pmix_info_t info[], size_t ninfo)
{
    uint64_t id = cache_event(status, source, range, info, ninfo);
    to_clients(id, status, source, range, info, ninfo, NULL);
    sy_srv_group_event(status, source, info, ninfo);
}

/* What the host's notify_event may use until it calls back. */
typedef struct {
    sy_srv_req_t req; /* first */
    pmix_info_t *info;
    size_t ninfo;
} host_notice_t;

static void host_notice_free(sy_srv_req_t *req)
{
    host_notice_t *h = (host_notice_t *)req;
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    free(h);
}

/* Nothing to answer: the host's callback only ends what it was lent. */
static const sy_srv_req_type_t notice_type = {.name = "notify_event", .free = host_notice_free};

/* To the host's notify_event, which may use info (taken) until it calls
 * back. */
static void to_host(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                    pmix_info_t *info, size_t ninfo)
{
    sy_srv_t *s = sy_srv;
    host_notice_t *h = NULL;
    if (s->module.notify_event == NULL || (h = calloc(1, sizeof(*h))) == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        return;
    }
    sy_srv_req_init(&h->req, &notice_type, NULL, 0);
    h->info = info;
    h->ninfo = ninfo;
    sy_srv_req_returned(&h->req,
                        s->module.notify_event(status, source, range, h->info, h->ninfo,
                                               sy_srv_req_op_done, sy_srv_req_ticket(&h->req)));
}

/* A custom range naming some process that is not a client of ours. */
static bool reaches_elsewhere(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        size_t n;
        const pmix_proc_t *procs = custom_procs(&info[i], &n);
        for (size_t k = 0; k < n; k++) {
            sy_srv_client_t *c = sy_srv_client_find(sy_srv, &procs[k]);
            if (procs[k].rank == PMIX_RANK_WILDCARD || c == NULL || !c->registered)
                return true;
        }
    }
    return false;
}

void sy_srv_event_raise(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                        const pmix_info_t info[], size_t ninfo)
{
    uint64_t id = cache_event(status, source, range, info, ninfo);
    to_clients(id, status, source, range, info, ninfo, NULL);
    bool elsewhere =
        range == PMIX_RANGE_CUSTOM ? reaches_elsewhere(info, ninfo) : beyond_node(range);
    if (!elsewhere || sy_srv->module.notify_event == NULL)
        return;
    pmix_info_t *copy = NULL;
    if (ninfo > 0) {
        PMIX_INFO_CREATE(copy, ninfo);
        if (copy == NULL)
            return;
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&copy[i], &info[i]);
    }
    to_host(status, source, range, copy, ninfo);
}

static void handle_notify(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_event_notify_req_t m;
    if (sy_srv_unpack_msg(peer, b, SY_WMSG_EVENT_NOTIFY_REQ, &m) != PMIX_SUCCESS) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_UNPACK_FAILURE);
        return;
    }
    pmix_status_t status = m.code;
    pmix_proc_t source = m.source;
    uint8_t range = m.range;
    pmix_info_t *info = m.info; /* ours from here */
    size_t n = m.ninfo;
    /* a client cannot speak for another process */
    if (peer->client != NULL)
        source = peer->client->proc;
    pmix_data_range_t r = (pmix_data_range_t)range;
    sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
    uint64_t id = cache_event(status, &source, r, info, n);
    if (r != PMIX_RANGE_PROC_LOCAL && r != PMIX_RANGE_RM)
        sy_event_deliver(status, &source, r, info, n);
    to_clients(id, status, &source, r, info, n, peer);
    sy_srv_group_event(status, &source, info, n);
    if (beyond_node(r)) {
        to_host(status, &source, r, info, n);
        info = NULL;
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, n);
}

/* ---- registrations, for the host's register_events/deregister_events ---- */

typedef struct reg {
    const sy_srv_peer_t *peer; /* NULL: a handler of this process */
    size_t ref;
    pmix_status_t *codes;
    size_t ncodes;
    struct reg *next;
} reg_t;

static reg_t *regs;

/* The codes the host is told about (Chap_API_Server.tex): environmental
 * ones, and those outside the standard's range of constants (user codes:
 * positive, or beyond PMIX_EXTERNAL_ERR_BASE). */
static bool host_code(pmix_status_t code)
{
    return PMIX_SYSTEM_EVENT(code) || code > 0 || code <= PMIX_EXTERNAL_ERR_BASE;
}

static bool code_held(pmix_status_t code, const reg_t *except)
{
    for (const reg_t *r = regs; r != NULL; r = r->next)
        if (r != except)
            for (size_t i = 0; i < r->ncodes; i++)
                if (r->codes[i] == code)
                    return true;
    return false;
}

/* The host codes of r that no other registration holds, once each. */
static size_t lone_codes(const reg_t *r, pmix_status_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < r->ncodes; i++) {
        pmix_status_t code = r->codes[i];
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = out[j] == code;
        if (!seen && host_code(code) && !code_held(code, r))
            out[k++] = code;
    }
    return k;
}

/* What the host was given, until it calls back (any thread). */
typedef struct {
    sy_srv_req_t req; /* first */
    pmix_status_t *codes;
    pmix_info_t info[2];
    size_t ninfo;
} host_call_t;

static void host_call_free(sy_srv_req_t *req)
{
    host_call_t *h = (host_call_t *)req;
    for (size_t i = 0; i < h->ninfo; i++)
        PMIX_INFO_DESTRUCT(&h->info[i]);
    free(h->codes);
    free(h);
}

static const sy_srv_req_type_t call_type = {.name = "register_events", .free = host_call_free};

static void tell_host(bool registering, pmix_status_t *codes, size_t n, uid_t uid, gid_t gid)
{
    sy_srv_t *s = sy_srv;
    if (s == NULL || n == 0 ||
        (registering ? s->module.register_events == NULL : s->module.deregister_events == NULL)) {
        free(codes);
        return;
    }
    host_call_t *h = calloc(1, sizeof(*h));
    if (h == NULL) {
        free(codes);
        return;
    }
    sy_srv_req_init(&h->req, &call_type, NULL, 0);
    h->codes = codes;
    pmix_status_t rc;
    void *t = sy_srv_req_ticket(&h->req);
    if (registering) {
        uint32_t u = (uint32_t)uid, g = (uint32_t)gid;
        PMIX_INFO_LOAD(&h->info[0], PMIX_USERID, &u, PMIX_UINT32);
        PMIX_INFO_LOAD(&h->info[1], PMIX_GRPID, &g, PMIX_UINT32);
        h->ninfo = 2;
        rc = s->module.register_events(h->codes, n, h->info, h->ninfo, sy_srv_req_op_done, t);
    } else {
        rc = s->module.deregister_events(h->codes, n, sy_srv_req_op_done, t);
    }
    sy_srv_req_returned(&h->req, rc);
}

static void add_reg(const sy_srv_peer_t *peer, size_t ref, const pmix_status_t *codes, size_t n,
                    uid_t uid, gid_t gid)
{
    reg_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (n > 0 && (r->codes = malloc(n * sizeof(*codes))) == NULL)) {
        free(r);
        return;
    }
    if (n > 0)
        memcpy(r->codes, codes, n * sizeof(*codes));
    r->ncodes = n;
    r->peer = peer;
    r->ref = ref;
    pmix_status_t *lone = n > 0 ? malloc(n * sizeof(*lone)) : NULL;
    size_t k = lone != NULL ? lone_codes(r, lone) : 0;
    r->next = regs;
    regs = r;
    tell_host(true, lone, k, uid, gid);
}

static void drop_reg(reg_t *r)
{
    for (reg_t **pp = &regs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    r->next = NULL;
    /* r is unlisted: its codes nobody else holds are the host's to drop */
    pmix_status_t *lone = r->ncodes > 0 ? malloc(r->ncodes * sizeof(*lone)) : NULL;
    size_t k = lone != NULL ? lone_codes(r, lone) : 0;
    tell_host(false, lone, k, 0, 0);
    free(r->codes);
    free(r);
}

static void drop_regs_of(const sy_srv_peer_t *peer, size_t ref, bool all)
{
    for (reg_t *r = regs, *next; r != NULL; r = next) {
        next = r->next;
        if (r->peer == peer && (all || r->ref == ref))
            drop_reg(r);
    }
}

/* Handlers registered and deregistered in this process (any thread). */
typedef struct {
    bool registering;
    size_t ref;
    pmix_status_t *codes;
    size_t ncodes;
} own_reg_t;

/* A handler of this process registered: the cached events a custom range
 * aimed at this very process (a debugger's release of a launcher that is
 * still starting) reach it, as a client's late handler gets its own. */
static void replay_aimed_at_us(size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    const pmix_proc_t *me = &sy_srv->me;
    for (cached_t *c = cache_head; c != NULL; c = c->next) {
        bool wanted = ncodes == 0;
        for (size_t i = 0; i < ncodes && !wanted; i++)
            wanted = codes[i] == c->status;
        if (!wanted || c->range != PMIX_RANGE_CUSTOM)
            continue;
        bool aimed = false;
        for (size_t i = 0; i < c->ninfo && !aimed; i++) {
            size_t n;
            const pmix_proc_t *procs = custom_procs(&c->info[i], &n);
            for (size_t k = 0; k < n && !aimed; k++)
                aimed = PMIX_CHECK_NSPACE(procs[k].nspace, me->nspace) &&
                        (procs[k].rank == me->rank || procs[k].rank == PMIX_RANK_WILDCARD);
        }
        if (aimed)
            sy_event_deliver_to(ref, c->status, &c->source, c->info, c->ninfo);
    }
}

static void own_reg_on_loop(void *arg)
{
    own_reg_t *o = arg;
    if (o->registering) {
        add_reg(NULL, o->ref, o->codes, o->ncodes, getuid(), getgid());
        replay_aimed_at_us(o->ref, o->codes, o->ncodes);
    } else
        drop_regs_of(NULL, o->ref, false);
    free(o->codes);
    free(o);
}

static void own_reg(bool registering, size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    own_reg_t *o = calloc(1, sizeof(*o));
    if (o == NULL)
        return;
    o->registering = registering;
    o->ref = ref;
    if (registering && codes != NULL && ncodes > 0) {
        o->codes = malloc(ncodes * sizeof(*codes));
        if (o->codes == NULL) {
            free(o);
            return;
        }
        memcpy(o->codes, codes, ncodes * sizeof(*codes));
        o->ncodes = ncodes;
    }
    if (sy_srv_post(own_reg_on_loop, o) != PMIX_SUCCESS) {
        free(o->codes);
        free(o);
    }
}

static void own_registered(size_t ref, const pmix_status_t *codes, size_t ncodes, uint64_t seen)
{
    (void)seen; /* this process's own events reach its handlers on the loop */
    own_reg(true, ref, codes, ncodes);
}

static void own_deregistered(size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    (void)codes;
    (void)ncodes;
    own_reg(false, ref, NULL, 0);
}

/* A client registered a handler: replay the cached events it wants, in
 * the order they came (the client filters the live ones itself). */
static void handle_register(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_event_register_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_EVENT_REGISTER_REQ, &m);
    size_t ref = m.ref, n = m.ncodes;
    pmix_status_t *codes = m.codes;
    sy_srv_peer_reply_status(peer, tag, rc);
    if (rc == PMIX_SUCCESS && peer->client != NULL) {
        const pmix_proc_t *me = &peer->client->proc;
        uint64_t limit = replay_limit(peer, m.seen);
        for (cached_t *c = cache_head; c != NULL && c->id < limit; c = c->next) {
            bool wanted = n == 0;
            for (size_t i = 0; i < n && !wanted; i++)
                wanted = codes[i] == c->status;
            /* not its own event back (exactly it: a host's event from
             * {nspace, WILDCARD} is for every rank) */
            bool own =
                PMIX_CHECK_NSPACE(c->source.nspace, me->nspace) && c->source.rank == me->rank;
            if (wanted && !own && in_range(c->range, &c->source, c->info, c->ninfo, me))
                send_event(peer, ref, 0, c->status, &c->source, c->range, c->info, c->ninfo);
        }
        add_reg(peer, ref, codes, n, peer->client->uid, peer->client->gid);
    }
    sy_wire_event_register_req_free(&m);
}

static void handle_deregister(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_event_deregister_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_EVENT_DEREGISTER_REQ, &m);
    size_t ref = m.ref;
    sy_srv_peer_reply_status(peer, tag, rc);
    if (rc == PMIX_SUCCESS)
        drop_regs_of(peer, ref, false);
}

void sy_srv_event_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    if (cmd == SY_CMD_EVENT_NOTIFY)
        handle_notify(peer, tag, b);
    else if (cmd == SY_CMD_EVENT_REGISTER)
        handle_register(peer, tag, b);
    else
        handle_deregister(peer, tag, b);
}

void sy_srv_event_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    drop_regs_of(peer, 0, true);
    if (finalized || peer->client == NULL || sy_srv == NULL)
        return;
    pmix_proc_t gone = peer->client->proc;
    pmix_info_t info[1];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &gone, PMIX_PROC);
    /* The host hears of it and decides what the peers are told (as
     * OpenPMIx does): Open MPI's runtime reports the lost process itself,
     * and ranks that heard of it first would abort the job with a status
     * of their own. */
    sy_event_deliver(PMIX_ERR_LOST_CONNECTION, &gone, PMIX_RANGE_PROC_LOCAL, info, 1);
    PMIX_INFO_DESTRUCT(&info[0]);
}

void sy_srv_event_init(sy_srv_t *s)
{
    sy_event_set_self(&s->me);
    sy_event_set_forwarder(SY_EVENT_ROUTE_SERVER, forward);
    sy_event_set_register_hook(SY_EVENT_ROUTE_SERVER, own_registered);
    sy_event_set_deregister_hook(SY_EVENT_ROUTE_SERVER, own_deregistered);
}

void sy_srv_event_finalize(sy_srv_t *s)
{
    (void)s;
    sy_event_set_forwarder(SY_EVENT_ROUTE_SERVER, NULL);
    sy_event_set_register_hook(SY_EVENT_ROUTE_SERVER, NULL);
    sy_event_set_deregister_hook(SY_EVENT_ROUTE_SERVER, NULL);
    while (regs != NULL) { /* the host is going too: nothing to tell it */
        reg_t *r = regs;
        regs = r->next;
        free(r->codes);
        free(r);
    }
    while (cache_head != NULL) {
        cached_t *c = cache_head;
        cache_head = c->next;
        cached_free(c);
    }
    cache_tail = NULL;
    cache_len = 0;
}
