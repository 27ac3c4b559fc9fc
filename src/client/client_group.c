/* Process groups on the client side (Chap_API_Sets_Groups.tex, "Process
 * Groups"): PMIx_Group_construct / destruct / invite / join / leave (+ _nb)
 * are requests to the server, which tracks the operations.  A completed
 * construct, invite or join maps the members' published data (like a
 * fence) and keeps the group's results as job-level data of the group id,
 * so PMIx_Get({grp, PMIX_RANK_WILDCARD}, PMIX_GROUP_CONTEXT_ID or
 * PMIX_GROUP_MEMBERSHIP) answers locally until the group is destructed or
 * left.  What a participant's event handlers decide about a construction
 * (go on, PMIX_GROUP_CONSTRUCT_ABORT, or PMIX_GROUP_LEADER among their
 * results after PMIX_GROUP_LEADER_FAILED) goes back to the server as
 * DECIDE, which waits for it before it adjusts the membership.
 * PMIX_GROUP_INFO (what Open MPI 5 gives, e.g. PMIX_GROUP_LOCAL_CID): each
 * member posts its elements under keys of the group (sy.grpinfo.<grp>.),
 * collected with the construct like the rest of its posted data; a Get of
 * such a key of a member, qualified by the group's PMIX_GROUP_CONTEXT_ID,
 * reads them, after the group is gone too (the ids seen are kept until
 * finalize). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/event.h"
#include "common/pack.h"
#include "common/store.h"
#include "common/sync.h"

static bool good_id(const char grp[])
{
    return grp != NULL && grp[0] != '\0' && strnlen(grp, PMIX_MAX_NSLEN + 1) <= PMIX_MAX_NSLEN;
}

/* ---- handlers' decisions ---- */

/* DECIDE: STRING grp, STATUS the event's code, STATUS the decision
 * (PMIX_SUCCESS to go on, PMIX_GROUP_CONSTRUCT_ABORT, or
 * PMIX_GROUP_LEADER_SELECTED to take the lead), PROC the affected process. */
static void decide(const char *grp, pmix_status_t code, pmix_status_t decision,
                   const pmix_proc_t *affected)
{
    sy_conn_t *conn;
    if (sy_client_server_conn(&conn) != PMIX_SUCCESS)
        return;
    pmix_proc_t none;
    PMIX_LOAD_PROCID(&none, "", PMIX_RANK_UNDEF);
    sy_wire_group_decide_req_t m = {.grp = (char *)grp,
                                    .event = code,
                                    .decision = decision,
                                    .affected = affected != NULL ? *affected : none};
    sy_client_send_nb(conn, SY_WMSG_GROUP_DECIDE_REQ, &m);
}

/* How this process's handlers took a group event the server waits on:
 * a member that failed during a construction (PMIX_GROUP_MEMBER_FAILED),
 * or, for an inviting process, an invitee's answer or failure; a leader
 * that failed (PMIX_GROUP_LEADER_FAILED) is answered only to abort or to
 * take the lead (PMIX_GROUP_LEADER among the results). */
static void on_outcome(pmix_status_t code, pmix_status_t objection, const pmix_info_t results[],
                       size_t nresults, const pmix_info_t info[], size_t ninfo)
{
    bool waited = code == PMIX_GROUP_MEMBER_FAILED || code == PMIX_GROUP_INVITE_ACCEPTED ||
                  code == PMIX_GROUP_INVITE_DECLINED || code == PMIX_GROUP_INVITE_FAILED;
    if (!waited && code != PMIX_GROUP_LEADER_FAILED)
        return;
    const char *grp = NULL;
    const pmix_proc_t *affected = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING)
            grp = info[i].value.data.string;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                 info[i].value.type == PMIX_PROC)
            affected = info[i].value.data.proc;
    }
    if (grp == NULL)
        return;
    pmix_status_t decision = PMIX_SUCCESS;
    if (objection == PMIX_GROUP_CONSTRUCT_ABORT)
        decision = PMIX_GROUP_CONSTRUCT_ABORT;
    for (size_t i = 0; decision == PMIX_SUCCESS && code == PMIX_GROUP_LEADER_FAILED && i < nresults;
         i++)
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_LEADER) && sy_info_true(&results[i]))
            decision = PMIX_GROUP_LEADER_SELECTED;
    if (waited || decision != PMIX_SUCCESS)
        decide(grp, code, decision, affected);
}

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void watch_outcomes(void)
{
    sy_event_set_outcome_hook(on_outcome);
}

/* ---- requests ---- */

typedef struct {
    uint8_t cmd;
    char grp[PMIX_MAX_NSLEN + 1];
    pmix_info_cbfunc_t info_cb;
    pmix_op_cbfunc_t op_cb;
    void *cbdata;
    pmix_info_t *info; /* the results, freed by release_results */
    size_t ninfo;
} greq_t;

static void release_results(void *cbdata)
{
    greq_t *g = cbdata;
    if (g->info != NULL)
        PMIX_INFO_FREE(g->info, g->ninfo);
    free(g);
}

/* ---- PMIX_GROUP_INFO ---- */

typedef struct cid_seen {
    size_t cid;
    pmix_nspace_t grp;
    struct cid_seen *next;
} cid_seen_t;

static pthread_mutex_t cid_lock = PTHREAD_MUTEX_INITIALIZER;
static cid_seen_t *cids;

static void cid_remember(size_t cid, const char *grp)
{
    pthread_mutex_lock(&cid_lock);
    cid_seen_t *c = cids;
    while (c != NULL && c->cid != cid)
        c = c->next;
    if (c == NULL && (c = calloc(1, sizeof(*c))) != NULL) {
        c->cid = cid;
        c->next = cids;
        cids = c;
    }
    if (c != NULL)
        PMIX_LOAD_NSPACE(c->grp, grp);
    pthread_mutex_unlock(&cid_lock);
}

void sy_client_group_finalize(void)
{
    pthread_mutex_lock(&cid_lock);
    while (cids != NULL) {
        cid_seen_t *c = cids;
        cids = c->next;
        free(c);
    }
    pthread_mutex_unlock(&cid_lock);
}

static char *grpinfo_key(const char *grp, const char *key)
{
    size_t n = strlen(SY_GRPINFO_PREFIX) + strlen(grp) + strlen(key) + 2;
    char *k = malloc(n);
    if (k != NULL)
        snprintf(k, n, SY_GRPINFO_PREFIX "%s.%s", grp, key);
    return k;
}

/* Post (and commit, so that the construct collects them) the elements of
 * a PMIX_GROUP_INFO directive.  The commit waits for the server: the
 * construct request must come after it. */
static pmix_status_t post_group_info(const char *grp, const pmix_info_t info[], size_t ninfo)
{
    const pmix_info_t *gi = sy_info_find(info, ninfo, PMIX_GROUP_INFO);
    if (gi == NULL)
        return PMIX_SUCCESS;
    const pmix_data_array_t *da = gi->value.data.darray;
    if (gi->value.type != PMIX_DATA_ARRAY || da == NULL || da->type != PMIX_INFO ||
        (da->array == NULL && da->size > 0))
        return PMIX_ERR_BAD_PARAM;
    const pmix_info_t *el = da->array;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < da->size && rc == PMIX_SUCCESS; i++) {
        char *k = grpinfo_key(grp, el[i].key);
        rc = k == NULL ? PMIX_ERR_NOMEM : PMIx_Put(PMIX_GLOBAL, k, (pmix_value_t *)&el[i].value);
        free(k);
    }
    return rc == PMIX_SUCCESS ? PMIx_Commit() : rc;
}

pmix_status_t sy_client_group_info_get(const pmix_proc_t *proc, const char *key,
                                       const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    const pmix_info_t *q = sy_info_find(info, ninfo, PMIX_GROUP_CONTEXT_ID);
    if (q == NULL || key == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    size_t cid = 0;
    pmix_status_t rc;
    PMIX_VALUE_GET_NUMBER(rc, &q->value, cid, size_t);
    if (rc != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    pmix_nspace_t grp;
    bool known = false;
    pthread_mutex_lock(&cid_lock);
    for (cid_seen_t *c = cids; c != NULL && !known; c = c->next)
        if (c->cid == cid) {
            PMIX_LOAD_NSPACE(grp, c->grp);
            known = true;
        }
    pthread_mutex_unlock(&cid_lock);
    if (!known)
        return PMIX_ERR_NOT_FOUND;
    char *k = grpinfo_key(grp, key);
    if (k == NULL)
        return PMIX_ERR_NOMEM;
    /* the other directives (PMIX_TIMEOUT, ...) apply; the qualifier is ours */
    pmix_info_t *rest = NULL;
    size_t nrest = 0;
    if (ninfo > 1) {
        PMIX_INFO_CREATE(rest, ninfo - 1);
        for (size_t i = 0; rest != NULL && i < ninfo; i++)
            if (&info[i] != q)
                PMIx_Info_xfer(&rest[nrest++], &info[i]);
    }
    rc = PMIx_Get(proc, k, rest, nrest, val);
    if (rest != NULL)
        PMIX_INFO_FREE(rest, ninfo - 1);
    free(k);
    return rc;
}

/* The group's results become job-level data of the group id. */
static void remember(const char *grp, const pmix_info_t *info, size_t n)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, grp, PMIX_RANK_WILDCARD);
    sy_store_internal_forget(grp);
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID) ||
            PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP)) {
            size_t cid = 0;
            pmix_status_t rc = PMIX_ERR_BAD_PARAM;
            if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID))
                PMIX_VALUE_GET_NUMBER(rc, &info[i].value, cid, size_t);
            if (rc == PMIX_SUCCESS)
                cid_remember(cid, grp);
            sy_store_internal_put(&all, info[i].key, &info[i].value);
            if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP) &&
                info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL) {
                uint32_t size = (uint32_t)info[i].value.data.darray->size;
                pmix_value_t v = {.type = PMIX_UINT32, .data.uint32 = size};
                sy_store_internal_put(&all, PMIX_JOB_SIZE, &v);
            }
        }
}

/* CONSTRUCT, INVITE and JOIN answer alike (wire_msgs.txt): the
 * construct's reply struct reads the three. */
_Static_assert(sizeof(sy_wire_group_construct_rep_t) == sizeof(sy_wire_group_invite_rep_t) &&
                   sizeof(sy_wire_group_construct_rep_t) == sizeof(sy_wire_group_join_rep_t),
               "the group replies differ");

/* For a completed group: the segments to map, then the results. */
static void group_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                        void *cbdata)
{
    (void)id;
    (void)user;
    greq_t *g = cbdata;
    bool formed = status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS;
    if (g->cmd == SY_CMD_GROUP_DESTRUCT || g->cmd == SY_CMD_GROUP_LEAVE) {
        if (status == PMIX_SUCCESS)
            sy_store_internal_forget(g->grp);
        if (g->op_cb != NULL)
            g->op_cb(status, g->cbdata);
        free(g);
        return;
    }
    sy_wire_group_construct_rep_t *rep = reply;
    if (formed) {
        pmix_status_t rc =
            sy_client_attach_segments(rep->segments, rep->nsegments, rep->retired, rep->nretired);
        if (rc == PMIX_SUCCESS) {
            /* taken: the caller's callback gives them back */
            g->info = rep->results;
            g->ninfo = rep->nresults;
            rep->results = NULL;
            rep->nresults = 0;
            remember(g->grp, g->info, g->ninfo);
        } else {
            status = rc;
        }
    }
    /* a joiner is in the group, however many others declined */
    if (g->cmd == SY_CMD_GROUP_JOIN && status == PMIX_ERR_PARTIAL_SUCCESS)
        status = PMIX_SUCCESS;
    if (g->info_cb == NULL) {
        release_results(g);
        return;
    }
    g->info_cb(status, g->ninfo > 0 ? g->info : NULL, g->ninfo, g->cbdata, release_results, g);
}

/* Send a request (its struct m, SY_WMSG_GROUP_*_REQ id) and route the
 * reply to the caller's callback. */
static pmix_status_t send_group(uint8_t cmd, sy_wire_msg_id_t id, const void *m, const char *grp,
                                pmix_info_cbfunc_t info_cb, pmix_op_cbfunc_t op_cb, void *cbdata)
{
    sy_conn_t *conn;
    pmix_status_t rc = sy_client_server_conn(&conn);
    greq_t *g = rc == PMIX_SUCCESS ? calloc(1, sizeof(*g)) : NULL;
    if (g == NULL)
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    pthread_once(&watch_once, watch_outcomes);
    g->cmd = cmd;
    PMIX_LOAD_NSPACE(g->grp, grp);
    g->info_cb = info_cb;
    g->op_cb = op_cb;
    g->cbdata = cbdata;
    rc = sy_client_call_nb_on(conn, id, m, group_reply, (sy_client_cb_t){.any = NULL}, g);
    if (rc != PMIX_SUCCESS)
        free(g);
    return rc;
}

/* CONSTRUCT and INVITE. */
static pmix_status_t members_request(uint8_t cmd, const char grp[], const pmix_proc_t procs[],
                                     size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    double secs;
    if (!good_id(grp) || procs == NULL || nprocs == 0 || (info == NULL && ninfo > 0) ||
        sy_info_timeout(info, ninfo, &secs) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = post_group_info(grp, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    _Static_assert(sizeof(sy_wire_group_construct_req_t) == sizeof(sy_wire_group_invite_req_t),
                   "CONSTRUCT and INVITE differ");
    sy_wire_group_construct_req_t m = {.grp = (char *)grp,
                                       .procs = (pmix_proc_t *)procs,
                                       .nprocs = nprocs,
                                       .info = (pmix_info_t *)info,
                                       .ninfo = info != NULL ? ninfo : 0};
    sy_wire_msg_id_t id =
        cmd == SY_CMD_GROUP_INVITE ? SY_WMSG_GROUP_INVITE_REQ : SY_WMSG_GROUP_CONSTRUCT_REQ;
    return send_group(cmd, id, &m, grp, cbfunc, NULL, cbdata);
}

/* DESTRUCT and LEAVE. */
static pmix_status_t id_request(uint8_t cmd, const char grp[], const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    double secs;
    if (!good_id(grp) || (info == NULL && ninfo > 0) ||
        sy_info_timeout(info, ninfo, &secs) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    _Static_assert(sizeof(sy_wire_group_destruct_req_t) == sizeof(sy_wire_group_leave_req_t),
                   "DESTRUCT and LEAVE differ");
    sy_wire_group_destruct_req_t m = {
        .grp = (char *)grp, .info = (pmix_info_t *)info, .ninfo = info != NULL ? ninfo : 0};
    sy_wire_msg_id_t id =
        cmd == SY_CMD_GROUP_LEAVE ? SY_WMSG_GROUP_LEAVE_REQ : SY_WMSG_GROUP_DESTRUCT_REQ;
    return send_group(cmd, id, &m, grp, NULL, cbfunc, cbdata);
}

static void op_done(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

/* DESTRUCT or LEAVE, waited for. */
static pmix_status_t blocking(uint8_t cmd, const char grp[], const pmix_info_t info[], size_t ninfo)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = id_request(cmd, grp, info, ninfo, op_done, &s);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&s, sy_client.progress);
    sy_sync_destroy(&s);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[],
                                                  size_t nprocs, const pmix_info_t directives[],
                                                  size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                                  void *cbdata)
{
    return members_request(SY_CMD_GROUP_CONSTRUCT, grp, procs, nprocs, directives, ndirs, cbfunc,
                           cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t directives[],
                                               size_t ndirs, pmix_info_t **results,
                                               size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Group_construct_nb(grp, procs, nprocs, directives, ndirs, sy_client_info_done, &w), &w,
        results, nresults);
}

PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t info[],
                                               size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                               void *cbdata)
{
    return members_request(SY_CMD_GROUP_INVITE, grp, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[],
                                            size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Group_invite_nb(grp, procs, nprocs, info, ninfo, sy_client_info_done, &w), &w, results,
        nresults);
}

PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader,
                                             pmix_group_opt_t opt, const pmix_info_t info[],
                                             size_t ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    double secs;
    if (!good_id(grp) || (info == NULL && ninfo > 0) ||
        (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE) ||
        sy_info_timeout(info, ninfo, &secs) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    sy_wire_group_join_req_t m = {.grp = (char *)grp,
                                  .opt = (uint8_t)opt,
                                  .info = (pmix_info_t *)info,
                                  .ninfo = info != NULL ? ninfo : 0};
    if (leader != NULL)
        m.leader = *leader;
    else
        PMIX_LOAD_PROCID(&m.leader, "", PMIX_RANK_UNDEF);
    return send_group(SY_CMD_GROUP_JOIN, SY_WMSG_GROUP_JOIN_REQ, &m, grp, cbfunc, NULL, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader,
                                          pmix_group_opt_t opt, const pmix_info_t info[],
                                          size_t ninfo, pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(
        PMIx_Group_join_nb(grp, leader, opt, info, ninfo, sy_client_info_done, &w), &w, results,
        nresults);
}

PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t info[],
                                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return id_request(SY_CMD_GROUP_LEAVE, grp, info, ninfo, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t info[], size_t ninfo)
{
    return blocking(SY_CMD_GROUP_LEAVE, grp, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[],
                                                 size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                 void *cbdata)
{
    return id_request(SY_CMD_GROUP_DESTRUCT, grp, info, ninfo, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[],
                                              size_t ninfo)
{
    return blocking(SY_CMD_GROUP_DESTRUCT, grp, info, ninfo);
}

/* PMIx_Get of PMIX_PSET_NAMES / PMIX_GROUP_NAMES: the server knows, so ask
 * it with the query it answers itself. */
pmix_status_t sy_client_membership_get(const pmix_proc_t *proc, const char *key, pmix_value_t **val)
{
    sy_conn_t *conn;
    pmix_status_t rc = sy_client_server_conn(&conn);
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[2] = {(char *)key, NULL};
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_PROCID, proc, PMIX_PROC);
    q.keys = keys;
    q.qualifiers = &qual;
    q.nqual = 1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    PMIX_INFO_DESTRUCT(&qual);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nres; i++) {
        if (!PMIX_CHECK_KEY(&res[i], key))
            continue;
        *val = calloc(1, sizeof(pmix_value_t));
        if (*val == NULL)
            rc = PMIX_ERR_NOMEM;
        else
            PMIx_Value_xfer(*val, &res[i].value);
        break;
    }
    if (rc == PMIX_SUCCESS && *val == NULL)
        rc = PMIX_ERR_NOT_FOUND;
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    return rc;
}
