/* Process group operations on the server side (Chap_API_Sets_Groups.tex,
 * "Process Groups"): CONSTRUCT, DESTRUCT and INVITE are collectives of
 * server_modex.c named by the group id; JOIN answers an invitation; DECIDE
 * carries what a participant's event handler chose (abort, or "I am the
 * new leader").  Loop only.
 *
 * A construct completes here when every member is on this node and no
 * context id is wanted.  Otherwise the host's group upcall gets this
 * node's part (the members' posted data as PMIX_GROUP_ENDPT_DATA, in the
 * fence blob's format) and answers with PMIX_GROUP_CONTEXT_ID and every
 * node's data.  Either way the members' posted data is published as a
 * fence's is, and each member's reply carries PMIX_GROUP_ID,
 * PMIX_GROUP_MEMBERSHIP and PMIX_GROUP_CONTEXT_ID.  An invitation is a
 * collective whose participants join by accepting; everyone invited must
 * be a client of this server. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_group.h"
#include "server/server_coll.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

/* A decision the server waits for: how `voter`'s handlers took event
 * `code` about `affected`. */
typedef struct {
    pmix_status_t code;
    pmix_proc_t affected, voter;
} vote_t;

typedef struct gop {
    uint8_t kind; /* SY_CMD_GROUP_CONSTRUCT, _DESTRUCT or _INVITE */
    uint64_t seq; /* names it for host callbacks that come late */
    char id[PMIX_MAX_NSLEN + 1];
    sy_srv_coll_t *coll;
    pmix_proc_t *want; /* the requested membership, in group-rank order */
    size_t nwant;
    pmix_proc_t *lost; /* members that ended, declined or never came */
    size_t nlost;
    pmix_info_t *dirs; /* the first caller's directives, for the host */
    size_t ndirs;
    bool optional, ft, notify_term, assign_ctxid;
    bool has_leader, leader_failed;
    pmix_proc_t leader;
    bool host_called;
    vote_t *votes; /* decisions still to come */
    size_t nvotes;
    bool ready_waits; /* every participant is in, the votes are not */
    struct gop *next;
} gop_t;

static gop_t *gops;
static uint64_t next_seq = 1;

/* ---- helpers ---- */

static bool in_list(const pmix_proc_t *list, size_t n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_PROCID(&list[i], p))
            return true;
    return false;
}

static gop_t *op_find(uint8_t kind, const char *id)
{
    for (gop_t *g = gops; g != NULL; g = g->next)
        if (g->kind == kind && strncmp(g->id, id, PMIX_MAX_NSLEN) == 0)
            return g;
    return NULL;
}

static gop_t *op_by_seq(uint64_t seq)
{
    for (gop_t *g = gops; g != NULL; g = g->next)
        if (g->seq == seq)
            return g;
    return NULL;
}

/* The current membership: requested minus lost, in order (malloc'd). */
static pmix_proc_t *members_now(const gop_t *g, const pmix_proc_t *except, size_t *n)
{
    pmix_proc_t *out = calloc(g->nwant ? g->nwant : 1, sizeof(*out));
    *n = 0;
    for (size_t i = 0; out != NULL && i < g->nwant; i++)
        if (!in_list(g->lost, g->nlost, &g->want[i]) &&
            (except == NULL || !PMIX_CHECK_PROCID(except, &g->want[i])))
            out[(*n)++] = g->want[i];
    return out;
}

static void lost_add(gop_t *g, const pmix_proc_t *p)
{
    if (in_list(g->lost, g->nlost, p))
        return;
    pmix_proc_t *l = realloc(g->lost, (g->nlost + 1) * sizeof(*l));
    if (l == NULL)
        return;
    g->lost = l;
    g->lost[g->nlost++] = *p;
}

static void op_ready(sy_srv_coll_t *c, void *ctx);

/* Wait for the decision of each of `voters` that can give one: a
 * participant here that joined and is still in. */
static void ask(gop_t *g, pmix_status_t code, const pmix_proc_t *affected,
                const pmix_proc_t *voters, size_t nvoters)
{
    for (size_t i = 0; i < nvoters; i++) {
        if (!sy_group_local(&voters[i]) || !sy_srv_coll_joined(g->coll, &voters[i]) ||
            in_list(g->lost, g->nlost, &voters[i]))
            continue;
        vote_t *v = realloc(g->votes, (g->nvotes + 1) * sizeof(*v));
        if (v == NULL)
            continue;
        g->votes = v;
        g->votes[g->nvotes++] = (vote_t){.code = code, .affected = *affected, .voter = voters[i]};
    }
}

/* Remove the votes matching (code, affected, voter); NULL matches any. */
static size_t unvote(gop_t *g, const pmix_status_t *code, const pmix_proc_t *affected,
                     const pmix_proc_t *voter)
{
    size_t k = 0, removed = 0;
    for (size_t i = 0; i < g->nvotes; i++) {
        vote_t *v = &g->votes[i];
        if ((code == NULL || v->code == *code) &&
            (affected == NULL || PMIX_CHECK_PROCID(&v->affected, affected)) &&
            (voter == NULL || PMIX_CHECK_PROCID(&v->voter, voter)))
            removed++;
        else
            g->votes[k++] = *v;
    }
    g->nvotes = k;
    return removed;
}

static bool awaited(const gop_t *g, const pmix_proc_t *affected)
{
    for (size_t i = 0; i < g->nvotes; i++)
        if (PMIX_CHECK_PROCID(&g->votes[i].affected, affected))
            return true;
    return false;
}

/* Act on what is decided: members left out whose votes are all in stop
 * being waited for, and a completion held for votes goes ahead.  g may be
 * gone afterwards. */
static void settle(gop_t *g)
{
    sy_srv_coll_t *c = g->coll;
    uint8_t kind = g->kind;
    char id[PMIX_MAX_NSLEN + 1];
    PMIX_LOAD_NSPACE(id, g->id);
    for (bool again = true; again;) {
        again = false;
        size_t np;
        const pmix_proc_t *procs = sy_srv_coll_procs(c, &np);
        for (size_t i = 0; i < g->nlost && !again; i++) {
            if (!in_list(procs, np, &g->lost[i]) || awaited(g, &g->lost[i]))
                continue;
            pmix_proc_t p = g->lost[i];
            sy_srv_coll_drop(c, &p);
            if (sy_srv_coll_find(kind, id) != c)
                return; /* that completed it */
            again = true;
        }
    }
    if (g->ready_waits && g->nvotes == 0) {
        g->ready_waits = false;
        op_ready(c, g);
    }
}

/* An event to every participant still in (but `except`). */
static void tell_members(gop_t *g, pmix_status_t code, const pmix_proc_t *source,
                         const pmix_proc_t *except, const pmix_proc_t *affected, bool non_default)
{
    size_t n;
    pmix_proc_t *to = members_now(g, except, &n);
    if (to != NULL)
        sy_group_notify(code, g->id, source, to, n, affected, NULL, 0, non_default);
    free(to);
}

/* An event to the leader, whose handlers' decision is then waited for. */
static void tell_leader(gop_t *g, pmix_status_t code, const pmix_proc_t *affected)
{
    if (!g->has_leader || g->leader_failed)
        return;
    sy_group_notify(code, g->id, affected, &g->leader, 1, affected, NULL, 0, true);
    ask(g, code, affected, &g->leader, 1);
}

/* Whole seconds of an integer type, as Get reads them (our clients refuse
 * other types; another implementation's float is ignored). */
static double timeout_of(const pmix_info_t *i)
{
    double t = 0;
    return sy_info_timeout_of(i, &t) == PMIX_SUCCESS ? t : 0;
}

/* Directives this library acts on itself. */
static bool ours(const pmix_info_t *i)
{
    static const char *const keys[] = {PMIX_GROUP_LEADER,
                                       PMIX_GROUP_OPTIONAL,
                                       PMIX_GROUP_FT_COLLECTIVE,
                                       PMIX_GROUP_NOTIFY_TERMINATION,
                                       PMIX_GROUP_ASSIGN_CONTEXT_ID,
                                       PMIX_GROUP_LOCAL_ONLY,
                                       PMIX_TIMEOUT};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (sy_info_is(i, keys[k]))
            return true;
    return false;
}

/* What one caller asked for; the first caller's directives go to the host. */
static void take_directives(gop_t *g, const pmix_proc_t *caller, pmix_info_t **dirs, size_t *ndirs)
{
    double t = 0;
    for (size_t i = 0; i < *ndirs; i++) {
        const pmix_info_t *d = &(*dirs)[i];
        if (sy_info_is(d, PMIX_GROUP_LEADER) && sy_info_true(d)) {
            g->has_leader = true;
            g->leader_failed = false;
            g->leader = *caller;
        } else if (sy_info_is(d, PMIX_GROUP_OPTIONAL)) {
            g->optional |= sy_info_true(d);
        } else if (sy_info_is(d, PMIX_GROUP_FT_COLLECTIVE)) {
            g->ft |= sy_info_true(d);
        } else if (sy_info_is(d, PMIX_GROUP_NOTIFY_TERMINATION)) {
            g->notify_term |= sy_info_true(d);
        } else if (sy_info_is(d, PMIX_GROUP_ASSIGN_CONTEXT_ID)) {
            g->assign_ctxid |= sy_info_true(d);
        } else if (sy_info_is(d, PMIX_TIMEOUT)) {
            t = timeout_of(d);
        }
        if (ours(d) && PMIX_INFO_IS_REQUIRED(d))
            PMIX_INFO_PROCESSED(&(*dirs)[i]);
    }
    if (t > 0)
        sy_srv_coll_set_timeout(g->coll, t);
    if (g->dirs == NULL && *ndirs > 0) {
        g->dirs = *dirs;
        g->ndirs = *ndirs;
        *dirs = NULL;
        *ndirs = 0;
    }
}

/* A required directive nobody here handles, when no host sees it. */
static bool unhandled_required(const gop_t *g)
{
    for (size_t i = 0; i < g->ndirs; i++)
        if (PMIX_INFO_IS_REQUIRED(&g->dirs[i]) && !PMIX_INFO_WAS_PROCESSED(&g->dirs[i]))
            return true;
    return false;
}

/* ---- completion ---- */

/* The results of a formed group: its id, membership and context id. */
static pmix_status_t make_results(pmix_info_t res[3], size_t *n, const gop_t *g,
                                  const pmix_proc_t *mem, size_t nmem, bool has_ctxid, size_t ctxid)
{
    *n = 0;
    memset(res, 0, 3 * sizeof(*res));
    /* the context id first: Open MPI 5 (and OpenPMIx's group_lcl_cid)
     * read it from results[0] */
    if (has_ctxid)
        PMIX_INFO_LOAD(&res[(*n)++], PMIX_GROUP_CONTEXT_ID, &ctxid, PMIX_SIZE);
    PMIX_INFO_LOAD(&res[(*n)++], PMIX_GROUP_ID, g->id, PMIX_STRING);
    PMIX_LOAD_KEY(res[*n].key, PMIX_GROUP_MEMBERSHIP);
    pmix_status_t rc = sy_group_load_procs(&res[(*n)++].value, mem, nmem);
    return rc;
}

/* The group exists: publish, register, reply to the members here.  hmem
 * (may be NULL) is the membership the host decided. */
static void complete(gop_t *g, const void *remote, size_t nremote, const pmix_proc_t *hmem,
                     size_t nhmem, bool has_ctxid, size_t ctxid)
{
    sy_srv_coll_t *c = g->coll;
    if (g->kind == SY_CMD_GROUP_DESTRUCT) {
        sy_group_t *grp = sy_group_find(g->id);
        if (grp != NULL)
            sy_group_remove(grp);
        sy_srv_coll_finish(c, PMIX_SUCCESS, 0, NULL);
        return;
    }
    size_t nmem;
    pmix_proc_t *mem = members_now(g, NULL, &nmem);
    if (hmem != NULL && nhmem > 0 && mem != NULL) {
        pmix_proc_t *copy = calloc(nhmem, sizeof(*copy));
        if (copy != NULL) {
            memcpy(copy, hmem, nhmem * sizeof(*copy));
            free(mem);
            mem = copy;
            nmem = nhmem;
        }
    }
    sy_wire_fence_rep_t pub = {0};
    pmix_info_t res[3];
    size_t nres = 0;
    pmix_status_t rc = mem == NULL ? PMIX_ERR_NOMEM : sy_srv_coll_publish(c, remote, nremote, &pub);
    if (rc == PMIX_SUCCESS)
        rc = make_results(res, &nres, g, mem, nmem, has_ctxid, ctxid);
    if (rc == PMIX_SUCCESS)
        rc = sy_group_add(g->id, mem, nmem, has_ctxid, ctxid, g->notify_term, g->host_called);
    if (rc == PMIX_SUCCESS && has_ctxid)
        sy_srv_group_info_cid(g->id, ctxid);
    if (rc != PMIX_SUCCESS) {
        for (size_t i = 0; i < nres; i++)
            PMIX_INFO_DESTRUCT(&res[i]);
        sy_wire_fence_rep_free(&pub);
        free(mem);
        sy_srv_coll_finish(c, rc, 0, NULL);
        return;
    }
    /* each node tells its own members */
    pmix_proc_t *here = calloc(nmem ? nmem : 1, sizeof(*here));
    size_t nhere = 0;
    for (size_t i = 0; here != NULL && i < nmem; i++)
        if (sy_group_local(&mem[i]))
            here[nhere++] = mem[i];
    pmix_info_t ev[2];
    size_t nev = 0;
    memset(ev, 0, sizeof(ev));
    PMIX_LOAD_KEY(ev[nev].key, PMIX_GROUP_MEMBERSHIP);
    if (sy_group_load_procs(&ev[nev].value, mem, nmem) == PMIX_SUCCESS)
        nev++;
    if (has_ctxid) {
        PMIX_INFO_LOAD(&ev[nev], PMIX_GROUP_CONTEXT_ID, &ctxid, PMIX_SIZE);
        sy_group_notify(PMIX_GROUP_CONTEXT_ID_ASSIGNED, g->id, NULL, here, nhere, NULL, &ev[nev], 1,
                        true);
        nev++;
    }
    sy_group_notify(PMIX_GROUP_CONSTRUCT_COMPLETE, g->id, g->has_leader ? &g->leader : NULL, here,
                    nhere, NULL, ev, nev, true);
    for (size_t i = 0; i < nev; i++)
        PMIX_INFO_DESTRUCT(&ev[i]);
    free(here);
    free(mem);
    bool partial = g->nlost > 0 && !(g->kind == SY_CMD_GROUP_CONSTRUCT && g->notify_term);
    /* CONSTRUCT, INVITE and JOIN answer alike: one reply for the members,
     * whichever they sent (the segments lent by pub) */
    sy_wire_group_construct_rep_t rep = {.segments = pub.segments,
                                         .nsegments = pub.nsegments,
                                         .retired = pub.retired,
                                         .nretired = pub.nretired,
                                         .results = res,
                                         .nresults = nres};
    sy_srv_coll_finish(c, partial ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS,
                       SY_WMSG_GROUP_CONSTRUCT_REP, &rep);
    for (size_t i = 0; i < nres; i++)
        PMIX_INFO_DESTRUCT(&res[i]);
    sy_wire_fence_rep_free(&pub);
}

/* ---- the host's group upcall ---- */

typedef struct {
    sy_srv_req_t req; /* first; no peer: the collective answers them */
    uint64_t seq;
    char grp[PMIX_MAX_NSLEN + 1];
    pmix_proc_t *procs; /* what the host was given: valid until it calls back */
    size_t nprocs;
    pmix_info_t *dirs;
    size_t ndirs, ngiven; /* allocated, given to the host */
    bool has_ctxid;
    size_t ctxid;
    pmix_data_buffer_t endpts; /* every node's data */
    pmix_proc_t *members;      /* the membership the host decided */
    size_t nmembers;
} host_grp_t;

static void host_grp_free(host_grp_t *h)
{
    free(h->procs);
    if (h->dirs != NULL)
        PMIX_INFO_FREE(h->dirs, h->ndirs);
    sy_buffer_destruct(&h->endpts);
    free(h->members);
    free(h);
}

static void host_grp_req_free(sy_srv_req_t *req)
{
    host_grp_free((host_grp_t *)req);
}

static void host_grp_done(sy_srv_req_t *req)
{
    host_grp_t *h = (host_grp_t *)req;
    gop_t *g = op_by_seq(h->seq);
    if (g == NULL)
        return; /* the operation ended meanwhile */
    /* OPERATION_SUCCEEDED: done at once (the upcall's return), no data */
    if (req->status == PMIX_SUCCESS || req->status == PMIX_ERR_PARTIAL_SUCCESS ||
        req->status == PMIX_OPERATION_SUCCEEDED)
        complete(g, h->endpts.base_ptr, h->endpts.bytes_used, h->members, h->nmembers, h->has_ctxid,
                 h->ctxid);
    else
        sy_srv_coll_finish(g->coll, req->status, 0, NULL);
}

/* Any thread: what the host returned is valid only here. */
static void host_grp_take(sy_srv_req_t *req, const pmix_info_t info[], size_t ninfo)
{
    host_grp_t *h = (host_grp_t *)req;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_value_t *v = &info[i].value;
        if (sy_info_is(&info[i], PMIX_GROUP_CONTEXT_ID)) {
            size_t id = 0;
            pmix_status_t ok;
            PMIX_VALUE_GET_NUMBER(ok, v, id, size_t);
            if (ok == PMIX_SUCCESS) {
                h->ctxid = id;
                h->has_ctxid = true;
            }
        } else if (sy_info_is(&info[i], PMIX_GROUP_ENDPT_DATA) && v->type == PMIX_BYTE_OBJECT &&
                   v->data.bo.size > 0) {
            if (sy_buffer_append(&h->endpts, v->data.bo.bytes, v->data.bo.size) != PMIX_SUCCESS)
                req->status = PMIX_ERR_NOMEM;
        } else if (sy_info_is(&info[i], PMIX_GROUP_MEMBERSHIP) && v->type == PMIX_DATA_ARRAY &&
                   v->data.darray != NULL && v->data.darray->type == PMIX_PROC &&
                   v->data.darray->size > 0) {
            free(h->members);
            h->members = calloc(v->data.darray->size, sizeof(pmix_proc_t));
            if (h->members != NULL) {
                memcpy(h->members, v->data.darray->array,
                       v->data.darray->size * sizeof(pmix_proc_t));
                h->nmembers = v->data.darray->size;
            }
        }
    }
}

static const sy_srv_req_type_t host_grp_type = {
    .name = "group", .done = host_grp_done, .take = host_grp_take, .free = host_grp_req_free};

static void fail(gop_t *g, pmix_status_t rc)
{
    sy_srv_coll_finish(g->coll, rc, 0, NULL);
}

/* The directives the host gets: the first caller's (ours marked processed
 * when required), what the participants asked for together, this node's
 * data and how the local part went. */
static pmix_status_t host_directives(gop_t *g, host_grp_t *h, bool construct)
{
    pmix_data_buffer_t blob = {0};
    pmix_status_t rc = construct ? sy_srv_coll_blob(g->coll, &blob) : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    size_t cap = g->ndirs + 7, n = 0;
    PMIX_INFO_CREATE(h->dirs, cap);
    if (h->dirs == NULL) {
        sy_buffer_destruct(&blob);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < g->ndirs; i++)
        if (!ours(&g->dirs[i]) || sy_info_is(&g->dirs[i], PMIX_TIMEOUT))
            PMIx_Info_xfer(&h->dirs[n++], &g->dirs[i]);
    bool yes = true;
    if (g->assign_ctxid)
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    if (g->optional)
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
    if (g->notify_term)
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
    if (g->ft)
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_FT_COLLECTIVE, &yes, PMIX_BOOL);
    if (!sy_srv_coll_remote(g->coll))
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_LOCAL_ONLY, &yes, PMIX_BOOL);
    pmix_status_t local = g->nlost > 0 ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS;
    PMIX_INFO_LOAD(&h->dirs[n++], PMIX_LOCAL_COLLECTIVE_STATUS, &local, PMIX_STATUS);
    if (construct) {
        pmix_byte_object_t bo = {.bytes = blob.base_ptr, .size = blob.bytes_used};
        PMIX_INFO_LOAD(&h->dirs[n++], PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
    }
    sy_buffer_destruct(&blob);
    h->ndirs = cap;
    h->ngiven = n;
    return rc;
}

static void call_host(gop_t *g, pmix_group_operation_t op)
{
    sy_srv_t *s = sy_srv;
    if (s->module.group == NULL) {
        fail(g, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    host_grp_t *h = calloc(1, sizeof(*h));
    if (h == NULL) {
        fail(g, PMIX_ERR_NOMEM);
        return;
    }
    h->seq = g->seq;
    PMIX_LOAD_NSPACE(h->grp, g->id);
    h->procs = members_now(g, NULL, &h->nprocs);
    pmix_status_t rc =
        h->procs == NULL ? PMIX_ERR_NOMEM : host_directives(g, h, op == PMIX_GROUP_CONSTRUCT);
    if (rc != PMIX_SUCCESS) {
        host_grp_free(h);
        fail(g, rc);
        return;
    }
    g->host_called = true;
    sy_srv_coll_host_called(g->coll);
    sy_srv_req_init(&h->req, &host_grp_type, NULL, 0);
    sy_srv_req_returned(&h->req,
                        s->module.group(op, h->grp, h->procs, h->nprocs, h->dirs, h->ngiven,
                                        sy_srv_req_info_done, sy_srv_req_ticket(&h->req)));
}

/* ---- the collective's hooks ---- */

static void op_ready(sy_srv_coll_t *c, void *ctx)
{
    (void)c;
    gop_t *g = ctx;
    if (g->nvotes > 0) {
        g->ready_waits = true; /* settle() goes on */
        return;
    }
    if (g->kind == SY_CMD_GROUP_DESTRUCT) {
        sy_group_t *grp = sy_group_find(g->id);
        if (grp != NULL && grp->via_host)
            call_host(g, PMIX_GROUP_DESTRUCT);
        else
            complete(g, NULL, 0, NULL, 0, false, 0);
        return;
    }
    if (sy_srv_coll_remote(g->coll) || g->assign_ctxid) {
        call_host(g, PMIX_GROUP_CONSTRUCT);
        return;
    }
    if (unhandled_required(g)) {
        fail(g, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    complete(g, NULL, 0, NULL, 0, false, 0);
}

static bool op_gone(sy_srv_coll_t *c, const pmix_proc_t *who, bool finalized, void *ctx)
{
    (void)c;
    gop_t *g = ctx;
    pmix_proc_t w = *who;
    bool is_leader = g->has_leader && PMIX_CHECK_PROCID(&g->leader, &w);
    /* what it was asked to decide, it never will */
    unvote(g, NULL, NULL, &w);
    switch (g->kind) {
    case SY_CMD_GROUP_DESTRUCT: {
        sy_group_t *grp = sy_group_find(g->id);
        /* with notification asked for, the event (sent by the registry's
         * departure) replaces the error */
        if (!finalized && (grp == NULL || !grp->notify_term))
            return false;
        break;
    }
    case SY_CMD_GROUP_CONSTRUCT:
        if (g->optional)
            break; /* no events: the group simply forms without it */
        if (is_leader) {
            g->leader_failed = true;
            tell_members(g, PMIX_GROUP_LEADER_FAILED, &w, &w, &w, false);
        }
        if (!g->ft && !g->notify_term)
            return false;
        if (g->notify_term && g->has_leader && !g->leader_failed) {
            tell_leader(g, PMIX_GROUP_MEMBER_FAILED, &w);
        } else if (g->notify_term) {
            size_t n;
            pmix_proc_t *to = members_now(g, &w, &n);
            if (to != NULL) {
                sy_group_notify(PMIX_GROUP_MEMBER_FAILED, g->id, &w, to, n, &w, NULL, 0, false);
                ask(g, PMIX_GROUP_MEMBER_FAILED, &w, to, n);
            }
            free(to);
        }
        break;
    default: /* SY_CMD_GROUP_INVITE */
        if (is_leader) {
            g->leader_failed = true;
            tell_members(g, PMIX_GROUP_LEADER_FAILED, &w, &w, &w, false);
        } else {
            tell_leader(
                g, sy_srv_coll_joined(c, &w) ? PMIX_GROUP_MEMBER_FAILED : PMIX_GROUP_INVITE_FAILED,
                &w);
        }
        break;
    }
    lost_add(g, &w);
    settle(g); /* may complete it: g may be gone */
    return true;
}

/* Participants of this node that have not joined, copied. */
static pmix_proc_t *absent(const gop_t *g, size_t *n)
{
    size_t np;
    const pmix_proc_t *procs = sy_srv_coll_procs(g->coll, &np);
    pmix_proc_t *out = calloc(np ? np : 1, sizeof(*out));
    *n = 0;
    for (size_t i = 0; out != NULL && i < np; i++)
        if (sy_group_local(&procs[i]) && !sy_srv_coll_joined(g->coll, &procs[i]))
            out[(*n)++] = procs[i];
    return out;
}

static void op_timeout(sy_srv_coll_t *c, void *ctx)
{
    gop_t *g = ctx;
    if (g->host_called)
        return; /* the host got PMIX_TIMEOUT too and answers for it */
    if (g->kind == SY_CMD_GROUP_DESTRUCT || (g->kind == SY_CMD_GROUP_CONSTRUCT && !g->optional)) {
        sy_srv_coll_finish(c, PMIX_ERR_TIMEOUT, 0, NULL);
        return;
    }
    /* optional members and silent invitees are left out */
    size_t n;
    pmix_proc_t *late = absent(g, &n);
    for (size_t i = 0; late != NULL && i < n; i++) {
        if (g->kind == SY_CMD_GROUP_INVITE)
            tell_leader(g, PMIX_GROUP_INVITE_FAILED, &late[i]);
        lost_add(g, &late[i]);
    }
    free(late);
    settle(g);
}

static void op_done(void *ctx)
{
    gop_t *g = ctx;
    for (gop_t **pp = &gops; *pp != NULL; pp = &(*pp)->next)
        if (*pp == g) {
            *pp = g->next;
            break;
        }
    free(g->want);
    free(g->lost);
    free(g->votes);
    if (g->dirs != NULL)
        PMIX_INFO_FREE(g->dirs, g->ndirs);
    free(g);
}

static const sy_srv_coll_ops_t group_ops = {
    .ready = op_ready, .gone = op_gone, .timeout = op_timeout, .done = op_done};

/* A new operation over `want` (taken on success). */
static pmix_status_t op_new(uint8_t kind, const char *id, pmix_proc_t *want, size_t nwant,
                            gop_t **out)
{
    gop_t *g = calloc(1, sizeof(*g));
    pmix_proc_t *procs = calloc(nwant, sizeof(*procs));
    if (g == NULL || procs == NULL) {
        free(g);
        free(procs);
        return PMIX_ERR_NOMEM;
    }
    memcpy(procs, want, nwant * sizeof(*procs));
    g->kind = kind;
    g->seq = next_seq++;
    PMIX_LOAD_NSPACE(g->id, id);
    pmix_status_t rc = sy_srv_coll_new(kind, id, procs, nwant, &group_ops, g, &g->coll);
    if (rc != PMIX_SUCCESS) {
        free(procs);
        free(g);
        return rc;
    }
    g->want = want;
    g->nwant = nwant;
    g->next = gops;
    gops = g;
    *out = g;
    return PMIX_SUCCESS;
}

/* ---- requests ---- */

typedef struct {
    char *grp;
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_info_t *dirs;
    size_t ndirs;
} req_t;

static void req_free(req_t *r)
{
    free(r->grp);
    free(r->procs);
    if (r->dirs != NULL)
        PMIX_INFO_FREE(r->dirs, r->ndirs);
}

/* A request of cmd into r (its arrays taken from the message); the id
 * checked. */
static pmix_status_t unpack_req(const sy_srv_peer_t *peer, pmix_data_buffer_t *b, uint8_t cmd,
                                req_t *r)
{
    pmix_status_t rc;
    if (cmd == SY_CMD_GROUP_DESTRUCT || cmd == SY_CMD_GROUP_LEAVE) {
        _Static_assert(sizeof(sy_wire_group_destruct_req_t) == sizeof(sy_wire_group_leave_req_t),
                       "DESTRUCT and LEAVE differ");
        sy_wire_group_destruct_req_t m;
        rc = sy_srv_unpack_msg(
            peer, b,
            cmd == SY_CMD_GROUP_LEAVE ? SY_WMSG_GROUP_LEAVE_REQ : SY_WMSG_GROUP_DESTRUCT_REQ, &m);
        *r = (req_t){.grp = m.grp, .dirs = m.info, .ndirs = m.ninfo};
    } else {
        _Static_assert(sizeof(sy_wire_group_construct_req_t) == sizeof(sy_wire_group_invite_req_t),
                       "CONSTRUCT and INVITE differ");
        sy_wire_group_construct_req_t m;
        rc = sy_srv_unpack_msg(peer, b,
                               cmd == SY_CMD_GROUP_INVITE ? SY_WMSG_GROUP_INVITE_REQ
                                                          : SY_WMSG_GROUP_CONSTRUCT_REQ,
                               &m);
        *r = (req_t){
            .grp = m.grp, .procs = m.procs, .nprocs = m.nprocs, .dirs = m.info, .ndirs = m.ninfo};
    }
    if (rc != PMIX_SUCCESS)
        return rc;
    if (r->grp == NULL || r->grp[0] == '\0' || strlen(r->grp) > PMIX_MAX_NSLEN)
        return PMIX_ERR_BAD_PARAM;
    return PMIX_SUCCESS;
}

/* Explicit ranks for wildcards; every member once. */
static pmix_status_t expand_members(req_t *r)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        if (r->procs[i].rank != PMIX_RANK_WILDCARD) {
            total++;
            continue;
        }
        sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, r->procs[i].nspace);
        if (ns == NULL || ns->summary.job_size == 0)
            return PMIX_ERR_NOT_FOUND;
        total += ns->summary.job_size;
    }
    pmix_proc_t *out = calloc(total ? total : 1, sizeof(*out));
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        if (r->procs[i].rank != PMIX_RANK_WILDCARD) {
            out[k++] = r->procs[i];
            continue;
        }
        sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, r->procs[i].nspace);
        for (uint32_t rank = 0; rank < ns->summary.job_size; rank++, k++)
            PMIX_LOAD_PROCID(&out[k], ns->name, rank);
    }
    free(r->procs);
    r->procs = out;
    r->nprocs = k;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            if (PMIX_CHECK_PROCID(&out[i], &out[j]))
                return PMIX_ERR_BAD_PARAM; /* a member named twice */
    return PMIX_SUCCESS;
}

static bool same_members(const pmix_proc_t *a, size_t na, const pmix_proc_t *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!in_list(b, nb, &a[i]))
            return false;
    return true;
}

/* Join the operation; a brand new one that cannot be joined goes away.
 * A new one learns which of its participants here ended before it began
 * (those that end later are the collective's gone hook's). */
static void join(gop_t *g, bool fresh, sy_srv_peer_t *peer, uint32_t tag)
{
    sy_srv_coll_t *c = g->coll;
    uint8_t kind = g->kind;
    char id[PMIX_MAX_NSLEN + 1];
    PMIX_LOAD_NSPACE(id, g->id);
    pmix_status_t rc = sy_srv_coll_join(c, peer, tag);
    if (rc != PMIX_SUCCESS) {
        if (fresh)
            fail(g, rc);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    for (size_t i = 0; fresh && sy_srv_coll_find(kind, id) == c && i < g->nwant; i++) {
        bool finalized;
        pmix_proc_t p = g->want[i];
        if (sy_group_ended(&p, &finalized) && !in_list(g->lost, g->nlost, &p) &&
            !op_gone(c, &p, finalized, g))
            fail(g, PMIX_PROC_TERMINATED);
    }
}

/* The end of a request: refused, or the caller's directives taken and the
 * caller in. */
static void proceed(gop_t *g, bool fresh, pmix_status_t rc, req_t *r, sy_srv_peer_t *peer,
                    uint32_t tag)
{
    if (rc != PMIX_SUCCESS) {
        req_free(r);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    take_directives(g, &peer->proc, &r->dirs, &r->ndirs);
    req_free(r);
    join(g, fresh, peer, tag);
}

static void handle_construct(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    req_t r = {0};
    pmix_status_t rc = unpack_req(peer, b, SY_CMD_GROUP_CONSTRUCT, &r);
    if (rc == PMIX_SUCCESS && r.nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS && sy_srv_nspace_find(sy_srv, r.grp) != NULL)
        rc = PMIX_ERR_BAD_PARAM; /* a group id must not be a namespace */
    if (rc == PMIX_SUCCESS)
        rc = expand_members(&r);
    if (rc == PMIX_SUCCESS && !in_list(r.procs, r.nprocs, &peer->proc))
        rc = PMIX_ERR_BAD_PARAM; /* a group the caller is no member of */
    /* an OpenPMIx client's PMIX_GROUP_INFO, posted for it before the
     * construct collects the members' data (ours post it themselves) */
    if (rc == PMIX_SUCCESS && peer->opx)
        rc = sy_srv_group_info_post(&peer->proc, r.grp, r.dirs, r.ndirs);
    gop_t *g = rc == PMIX_SUCCESS ? op_find(SY_CMD_GROUP_CONSTRUCT, r.grp) : NULL;
    bool fresh = false;
    if (rc == PMIX_SUCCESS && g != NULL && !same_members(g->want, g->nwant, r.procs, r.nprocs))
        rc = PMIX_ERR_BAD_PARAM; /* the others asked for other members */
    if (rc == PMIX_SUCCESS && g == NULL) {
        if (sy_group_find(r.grp) != NULL || op_find(SY_CMD_GROUP_INVITE, r.grp) != NULL)
            rc = PMIX_EXISTS;
        else if ((rc = op_new(SY_CMD_GROUP_CONSTRUCT, r.grp, r.procs, r.nprocs, &g)) ==
                 PMIX_SUCCESS)
            r.procs = NULL, fresh = true;
    }
    proceed(g, fresh, rc, &r, peer, tag);
}

static void handle_destruct(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    req_t r = {0};
    pmix_status_t rc = unpack_req(peer, b, SY_CMD_GROUP_DESTRUCT, &r);
    sy_group_t *grp = rc == PMIX_SUCCESS ? sy_group_find(r.grp) : NULL;
    if (rc == PMIX_SUCCESS && (grp == NULL || !sy_group_has(grp, &peer->proc)))
        rc = PMIX_ERR_NOT_FOUND;
    gop_t *g = rc == PMIX_SUCCESS ? op_find(SY_CMD_GROUP_DESTRUCT, r.grp) : NULL;
    bool fresh = false;
    if (rc == PMIX_SUCCESS && g == NULL) {
        pmix_proc_t *want = calloc(grp->nmembers, sizeof(*want));
        if (want == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            memcpy(want, grp->members, grp->nmembers * sizeof(*want));
            rc = op_new(SY_CMD_GROUP_DESTRUCT, r.grp, want, grp->nmembers, &g);
            if (rc != PMIX_SUCCESS)
                free(want);
            fresh = rc == PMIX_SUCCESS;
        }
    }
    proceed(g, fresh, rc, &r, peer, tag);
}

static void handle_invite(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    req_t r = {0};
    pmix_status_t rc = unpack_req(peer, b, SY_CMD_GROUP_INVITE, &r);
    if (rc == PMIX_SUCCESS && r.nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS && sy_srv_nspace_find(sy_srv, r.grp) != NULL)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS &&
        (sy_group_find(r.grp) != NULL || op_find(SY_CMD_GROUP_INVITE, r.grp) != NULL ||
         op_find(SY_CMD_GROUP_CONSTRUCT, r.grp) != NULL))
        rc = PMIX_EXISTS;
    if (rc == PMIX_SUCCESS)
        rc = expand_members(&r);
    if (rc == PMIX_SUCCESS) {
        /* the inviting process leads and is the first member */
        for (size_t i = 0; i < r.nprocs; i++)
            if (PMIX_CHECK_PROCID(&r.procs[i], &peer->proc)) {
                memmove(&r.procs[i], &r.procs[i + 1], (r.nprocs - i - 1) * sizeof(*r.procs));
                r.nprocs--;
                break;
            }
        pmix_proc_t *all = r.nprocs > 0 ? realloc(r.procs, (r.nprocs + 1) * sizeof(*all)) : NULL;
        if (all == NULL) {
            rc = r.nprocs > 0 ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM; /* nobody invited */
        } else {
            memmove(&all[1], all, r.nprocs * sizeof(*all));
            all[0] = peer->proc;
            r.procs = all;
            r.nprocs++;
        }
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < r.nprocs; i++)
        if (!sy_group_local(&r.procs[i])) {
            sy_log(SY_LOG_INFO,
                   "server: PMIx_Group_invite of %s:%u, which is not a client of "
                   "this server, is not supported",
                   r.procs[i].nspace, r.procs[i].rank);
            rc = PMIX_ERR_NOT_SUPPORTED;
        }
    gop_t *g = NULL;
    if (rc == PMIX_SUCCESS &&
        (rc = op_new(SY_CMD_GROUP_INVITE, r.grp, r.procs, r.nprocs, &g)) == PMIX_SUCCESS)
        r.procs = NULL;
    if (rc != PMIX_SUCCESS) {
        req_free(&r);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    g->has_leader = true;
    g->leader = peer->proc;
    take_directives(g, &peer->proc, &r.dirs, &r.ndirs);
    req_free(&r);
    /* the invitation, with who else is asked */
    pmix_info_t mem;
    PMIX_LOAD_KEY(mem.key, PMIX_GROUP_MEMBERSHIP);
    mem.flags = 0;
    if (sy_group_load_procs(&mem.value, g->want, g->nwant) == PMIX_SUCCESS) {
        sy_group_notify(PMIX_GROUP_INVITED, g->id, &peer->proc, &g->want[1], g->nwant - 1, NULL,
                        &mem, 1, true);
        PMIX_INFO_DESTRUCT(&mem);
    }
    join(g, true, peer, tag);
}

static void handle_join(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_group_join_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_GROUP_JOIN_REQ, &m);
    if (rc != PMIX_SUCCESS || m.grp == NULL) {
        sy_wire_group_join_req_free(&m);
        sy_srv_peer_reply_status(peer, tag, rc == PMIX_SUCCESS ? PMIX_ERR_BAD_PARAM : rc);
        return;
    }
    /* the invitation answered is the group's own: the leader named is
     * not needed, nor are the directives */
    uint8_t opt = m.opt;
    gop_t *g = op_find(SY_CMD_GROUP_INVITE, m.grp);
    sy_wire_group_join_req_free(&m);
    if (g == NULL || !in_list(g->want, g->nwant, &peer->proc) ||
        in_list(g->lost, g->nlost, &peer->proc)) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_FOUND); /* no invitation (left) */
        return;
    }
    if (PMIX_CHECK_PROCID(&g->leader, &peer->proc) || sy_srv_coll_joined(g->coll, &peer->proc)) {
        sy_srv_peer_reply_status(peer, tag, PMIX_EXISTS);
        return;
    }
    if (opt == PMIX_GROUP_ACCEPT) {
        tell_leader(g, PMIX_GROUP_INVITE_ACCEPTED, &peer->proc);
        join(g, false, peer, tag);
        return;
    }
    tell_leader(g, PMIX_GROUP_INVITE_DECLINED, &peer->proc);
    lost_add(g, &peer->proc);
    sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
    settle(g);
}

/* The pending operation on grp that p takes part in. */
static gop_t *op_of(const char *grp, const pmix_proc_t *p)
{
    static const uint8_t kinds[] = {SY_CMD_GROUP_CONSTRUCT, SY_CMD_GROUP_INVITE,
                                    SY_CMD_GROUP_DESTRUCT};
    for (size_t k = 0; k < sizeof(kinds); k++) {
        gop_t *g = op_find(kinds[k], grp);
        if (g != NULL && (p == NULL || in_list(g->want, g->nwant, p)))
            return g;
    }
    return NULL;
}

void sy_group_op_abort(const char *grp, const pmix_proc_t *by, bool tell)
{
    gop_t *g = op_of(grp, sy_group_local(by) ? by : NULL);
    if (g == NULL || g->kind == SY_CMD_GROUP_DESTRUCT)
        return;
    if (tell)
        tell_members(g, PMIX_GROUP_CONSTRUCT_ABORT, by, NULL, by, false);
    sy_srv_coll_finish(g->coll, PMIX_GROUP_CONSTRUCT_ABORT, 0, NULL);
}

void sy_group_op_left(const char *grp, const pmix_proc_t *who)
{
    gop_t *g = op_find(SY_CMD_GROUP_DESTRUCT, grp);
    if (g == NULL || sy_srv_coll_joined(g->coll, who))
        return;
    lost_add(g, who);
    settle(g);
}

/* GROUP_DECIDE: what the caller's handlers made of an event we sent it. */
static void handle_decide(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_group_decide_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_GROUP_DECIDE_REQ, &m);
    char *grp = m.grp; /* ours from here */
    pmix_status_t code = m.event, decision = m.decision;
    pmix_proc_t affected = m.affected;
    gop_t *g = rc == PMIX_SUCCESS && grp != NULL ? op_of(grp, &peer->proc) : NULL;
    if (rc == PMIX_SUCCESS && g == NULL)
        rc = PMIX_ERR_NOT_FOUND; /* over already */
    pmix_proc_t me = peer->proc;
    if (rc != PMIX_SUCCESS) {
        free(grp);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    if (decision == PMIX_GROUP_CONSTRUCT_ABORT) {
        sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
        sy_group_op_abort(grp, &me, true);
    } else if (decision == PMIX_GROUP_LEADER_SELECTED) {
        /* the first to claim it leads */
        if (g->has_leader && !g->leader_failed) {
            rc = PMIX_EXISTS;
        } else {
            g->has_leader = true;
            g->leader_failed = false;
            g->leader = me;
            tell_members(g, PMIX_GROUP_LEADER_SELECTED, &me, NULL, &me, false);
        }
        sy_srv_peer_reply_status(peer, tag, rc);
    } else {
        rc = unvote(g, &code, &affected, &me) > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
        sy_srv_peer_reply_status(peer, tag, rc);
        if (rc == PMIX_SUCCESS)
            settle(g);
    }
    free(grp);
}

void sy_srv_group_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    if (peer->client == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    switch (cmd) {
    case SY_CMD_GROUP_CONSTRUCT: handle_construct(peer, tag, b); break;
    case SY_CMD_GROUP_DESTRUCT: handle_destruct(peer, tag, b); break;
    case SY_CMD_GROUP_INVITE: handle_invite(peer, tag, b); break;
    case SY_CMD_GROUP_JOIN: handle_join(peer, tag, b); break;
    case SY_CMD_GROUP_LEAVE: sy_group_handle_leave(peer, tag, b); break;
    default: handle_decide(peer, tag, b); break;
    }
}
