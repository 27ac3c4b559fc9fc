/* Run under switchyard-run with 3 ranks: process groups between real
 * processes (Chap_API_Sets_Groups.tex).
 *   construct   groups over the job with and without a context id (from
 *               the launcher's group upcall), results, what members read
 *               afterwards (context id, membership, peers' posted data
 *               without a fence, PMIX_GROUP_NAMES, group queries), a fence
 *               over the group id, events, the non-blocking forms, bad
 *               requests, destruct.
 *   invite      rank 0 invites 1 and 2; 1 accepts, 2 declines; the leader
 *               hears both; 1 leaves (PMIX_GROUP_LEFT), 0 destructs.
 *   die-error   rank 2 ends (without finalizing) while 0 and 1 construct
 *               with it: the construction fails; later ones fail at once,
 *               and with PMIX_GROUP_FT_COLLECTIVE form without it.
 *   die-notify  the same with PMIX_GROUP_NOTIFY_TERMINATION and rank 1 as
 *               leader: only the leader hears PMIX_GROUP_MEMBER_FAILED, the
 *               group forms without rank 2.
 *   die-abort   rank 0's PMIX_GROUP_MEMBER_FAILED handler answers
 *               PMIX_GROUP_CONSTRUCT_ABORT: both constructions abort.
 *   die-leader  the declared leader (rank 2) ends after joining: the others
 *               hear PMIX_GROUP_LEADER_FAILED, rank 0 takes the lead
 *               (PMIX_GROUP_LEADER in its handler's results) and everyone
 *               hears PMIX_GROUP_LEADER_SELECTED.
 * Rank 2 is killed in the die modes; the launcher then stops the job (as
 * mpirun does), so the others ignore its SIGTERM long enough to finish
 * (it sends SIGKILL 2 s later).
 * Run by test_host (the three-node job of job_layout.h, this node's ranks):
 *   host-group  a group of the whole job goes through the host's group
 *               upcall: context id 4242, the other nodes' endpoint data
 *               readable afterwards; a group of this node's ranks does not.
 *   no-group    without a group upcall: the same group is not supported, a
 *               group of this node's ranks still forms. */
#include <signal.h>
#include <stdlib.h>

#include "itest.h"
#include "job_layout.h"

static size_t get_size(const pmix_info_t *res, size_t n, const char *key, bool *found)
{
    const pmix_info_t *i = find_info(res, n, key);
    size_t v = 0;
    *found = i != NULL && i->value.type == PMIX_SIZE;
    if (*found)
        v = i->value.data.size;
    return v;
}

/* ---- event counters ---- */
static int n_complete, n_ctxid_ev, n_member_failed, n_leader_failed, n_leader_selected, n_abort_ev,
    n_invited, n_accepted, n_declined, n_left;
static size_t ctxid_ev;
/* the process each code was last about (events may come in any order: a
 * handler registered late gets the cached ones then) */
static pmix_rank_t left_rank = PMIX_RANK_UNDEF, selected_rank = PMIX_RANK_UNDEF;
static char invited_grp[PMIX_MAX_NSLEN + 1];
static pmix_proc_t invited_by;

static void record(pmix_status_t st, const pmix_proc_t *src, const pmix_info_t *info, size_t n)
{
    const pmix_info_t *a = find_info(info, n, PMIX_EVENT_AFFECTED_PROC);
    pmix_rank_t affected =
        a != NULL && a->value.type == PMIX_PROC ? a->value.data.proc->rank : PMIX_RANK_UNDEF;
    pthread_mutex_lock(&itest_lock);
    switch (st) {
    case PMIX_GROUP_CONSTRUCT_COMPLETE: n_complete++; break;
    case PMIX_GROUP_CONTEXT_ID_ASSIGNED: {
        const pmix_info_t *c = find_info(info, n, PMIX_GROUP_CONTEXT_ID);
        if (c != NULL && c->value.type == PMIX_SIZE)
            ctxid_ev = c->value.data.size;
        n_ctxid_ev++;
        break;
    }
    case PMIX_GROUP_MEMBER_FAILED: n_member_failed++; break;
    case PMIX_GROUP_LEADER_FAILED: n_leader_failed++; break;
    case PMIX_GROUP_LEADER_SELECTED:
        selected_rank = affected;
        n_leader_selected++;
        break;
    case PMIX_GROUP_CONSTRUCT_ABORT: n_abort_ev++; break;
    case PMIX_GROUP_INVITE_ACCEPTED: n_accepted++; break;
    case PMIX_GROUP_INVITE_DECLINED: n_declined++; break;
    case PMIX_GROUP_LEFT:
        left_rank = affected;
        n_left++;
        break;
    case PMIX_GROUP_INVITED: {
        const pmix_info_t *g = find_info(info, n, PMIX_GROUP_ID);
        if (g != NULL && g->value.type == PMIX_STRING)
            PMIX_LOAD_NSPACE(invited_grp, g->value.data.string);
        invited_by = *src;
        n_invited++;
        break;
    }
    default: break;
    }
    pthread_mutex_unlock(&itest_lock);
}

static void h_record(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                     size_t ninfo, pmix_info_t *res, size_t nres,
                     pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)res, (void)nres;
    record(st, src, info, ninfo);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Gives up the construction a member failed in. */
static void h_abort(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)res, (void)nres;
    record(st, src, info, ninfo);
    cb(PMIX_GROUP_CONSTRUCT_ABORT, NULL, 0, NULL, NULL, cbdata);
}

/* Takes the lead when the leader failed. */
static void h_lead(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)res, (void)nres;
    record(st, src, info, ninfo);
    static pmix_info_t mine;
    bool yes = true;
    PMIX_INFO_LOAD(&mine, PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
    cb(PMIX_SUCCESS, &mine, 1, NULL, NULL, cbdata);
}

/* ---- construct ---- */

static pmix_info_t ctxid_dir;

static size_t construct_all(const char *grp)
{
    pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
    pmix_info_t *res = NULL;
    size_t nres = 0, ctx = 0;
    bool found;
    EXPECT(PMIx_Group_construct(grp, &all, 1, &ctxid_dir, 1, &res, &nres), PMIX_SUCCESS,
           "PMIx_Group_construct with a context id");
    const pmix_info_t *id = find_info(res, nres, PMIX_GROUP_ID);
    if (id == NULL || id->value.type != PMIX_STRING || strcmp(id->value.data.string, grp) != 0)
        FAIL("results lack PMIX_GROUP_ID %s", grp);
    const pmix_info_t *mem = find_info(res, nres, PMIX_GROUP_MEMBERSHIP);
    pmix_rank_t three[] = {0, 1, 2};
    if (mem == NULL || !is_members(&mem->value, three, 3))
        FAIL("results lack the membership 0,1,2");
    ctx = get_size(res, nres, PMIX_GROUP_CONTEXT_ID, &found);
    if (!found)
        FAIL("no PMIX_GROUP_CONTEXT_ID in the results");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    return ctx;
}

static void check_group_data(const char *grp, size_t ctx, size_t size)
{
    pmix_proc_t g;
    PMIX_LOAD_PROCID(&g, grp, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&g, PMIX_GROUP_CONTEXT_ID, NULL, 0, &v), PMIX_SUCCESS,
           "Get of the group's context id");
    if (v != NULL && (v->type != PMIX_SIZE || v->data.size != ctx))
        FAIL("Get of the context id gave another value");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    EXPECT(PMIx_Get(&g, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "Get of the group's size");
    if (v != NULL && (v->type != PMIX_UINT32 || v->data.uint32 != size))
        FAIL("the group's size is not %zu", size);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void destruct_nb_done(pmix_status_t st, void *cbdata)
{
    (void)st;
    itest_bump(cbdata);
}

static pmix_status_t nb_status;
static size_t nb_nres;
static void construct_nb_done(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
                              pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    nb_status = st;
    nb_nres = ninfo;
    if (release_fn != NULL)
        release_fn(release_cbdata);
    itest_bump(cbdata);
}

static void construct_mode(void)
{
    bool yes = true, found;
    PMIX_INFO_LOAD(&ctxid_dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    on_event(PMIX_GROUP_CONSTRUCT_COMPLETE, h_record);
    on_event(PMIX_GROUP_CONTEXT_ID_ASSIGNED, h_record);
    char buf[32];
    snprintf(buf, sizeof buf, "val-%u", me.rank);
    put_str("sy.grpkey", buf);
    EXPECT(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");

    /* bad requests */
    pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(PMIx_Group_construct(NULL, &all, 1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "construct without an id");
    EXPECT(PMIx_Group_construct(me.nspace, &all, 1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "construct named like a namespace");
    pmix_proc_t others[2] = {rank_of((me.rank + 1) % 3), rank_of((me.rank + 2) % 3)};
    EXPECT(PMIx_Group_construct("sy-grp-notme", others, 2, NULL, 0, &res, &nres),
           PMIX_ERR_BAD_PARAM, "construct of a group the caller is not in");
    pmix_proc_t twice[2] = {me, me};
    EXPECT(PMIx_Group_construct("sy-grp-twice", twice, 2, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "construct naming a member twice");
    /* PMIX_TIMEOUT is whole seconds of an integer type, as for PMIx_Get */
    pmix_info_t ft;
    float secs = 1.5f;
    PMIX_INFO_LOAD(&ft, PMIX_TIMEOUT, &secs, PMIX_FLOAT);
    EXPECT(PMIx_Group_construct("sy-grp-float", &all, 1, &ft, 1, &res, &nres), PMIX_ERR_BAD_PARAM,
           "construct with a float PMIX_TIMEOUT");
    EXPECT(PMIx_Group_destruct("sy-grp-float", &ft, 1), PMIX_ERR_BAD_PARAM,
           "destruct with a float PMIX_TIMEOUT");
    PMIX_INFO_DESTRUCT(&ft);

    /* with a context id */
    size_t ctx_a = construct_all("sy-grp-a");
    check_group_data("sy-grp-a", ctx_a, 3);
    if (itest_read(&n_complete) < 1)
        FAIL("no PMIX_GROUP_CONSTRUCT_COMPLETE before the construct returned");
    if (itest_read(&n_ctxid_ev) < 1 || ctxid_ev != ctx_a)
        FAIL("no PMIX_GROUP_CONTEXT_ID_ASSIGNED with id %zu", ctx_a);
    /* the members' posted data came with the construction: no fence, no
     * direct modex (PMIX_OPTIONAL: what is here) */
    for (pmix_rank_t r = 0; r < 3; r++) {
        pmix_proc_t p = rank_of(r);
        pmix_info_t opt;
        PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        pmix_value_t *v = NULL;
        snprintf(buf, sizeof buf, "val-%u", r);
        EXPECT(PMIx_Get(&p, "sy.grpkey", &opt, 1, &v), PMIX_SUCCESS, "Get of a member's key");
        if (v != NULL && (v->type != PMIX_STRING || strcmp(v->data.string, buf) != 0))
            FAIL("member %u's key is wrong", r);
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        PMIX_INFO_DESTRUCT(&opt);
    }
    /* the group id names its members in a fence */
    pmix_proc_t grp_all;
    PMIX_LOAD_PROCID(&grp_all, "sy-grp-a", PMIX_RANK_WILDCARD);
    EXPECT(PMIx_Fence(&grp_all, 1, NULL, 0), PMIX_SUCCESS, "a fence over the group id");
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v), PMIX_SUCCESS, "Get PMIX_GROUP_NAMES");
    if (!has_name(v, "sy-grp-a"))
        FAIL("PMIX_GROUP_NAMES lacks sy-grp-a");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    /* queries the server answers */
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char *k0[] = {PMIX_QUERY_GROUP_NAMES, PMIX_QUERY_NUM_GROUPS, NULL};
    char *k1[] = {PMIX_QUERY_GROUP_MEMBERSHIP, NULL};
    q[0].keys = k0;
    q[1].keys = k1;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_GROUP_ID, "sy-grp-a", PMIX_STRING);
    q[1].qualifiers = &qual;
    q[1].nqual = 1;
    EXPECT(PMIx_Query_info(q, 2, &res, &nres), PMIX_SUCCESS, "the group queries");
    const pmix_info_t *names = find_info(res, nres, PMIX_QUERY_GROUP_NAMES);
    const pmix_info_t *mem = find_info(res, nres, PMIX_QUERY_GROUP_MEMBERSHIP);
    pmix_rank_t three[] = {0, 1, 2};
    if (names == NULL || !has_name(&names->value, "sy-grp-a"))
        FAIL("PMIX_QUERY_GROUP_NAMES lacks sy-grp-a");
    if (mem == NULL || !is_members(&mem->value, three, 3))
        FAIL("PMIX_QUERY_GROUP_MEMBERSHIP is not 0,1,2");
    if (get_size(res, nres, PMIX_QUERY_NUM_GROUPS, &found) < 1 || !found)
        FAIL("PMIX_QUERY_NUM_GROUPS");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&qual);
    EXPECT(PMIx_Group_construct("sy-grp-a", &all, 1, NULL, 0, &res, &nres), PMIX_EXISTS,
           "construct of an existing group");

    /* ranks 0 and 1, no context id */
    if (me.rank < 2) {
        pmix_proc_t two[2] = {rank_of(0), rank_of(1)};
        EXPECT(PMIx_Group_construct("sy-grp-b", two, 2, NULL, 0, &res, &nres), PMIX_SUCCESS,
               "construct of ranks 0,1");
        get_size(res, nres, PMIX_GROUP_CONTEXT_ID, &found);
        if (found)
            FAIL("a context id came without being asked for");
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        pmix_proc_t g;
        PMIX_LOAD_PROCID(&g, "sy-grp-b", PMIX_RANK_WILDCARD);
        EXPECT(PMIx_Get(&g, PMIX_GROUP_CONTEXT_ID, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
               "Get of the context id of a group without one");
        EXPECT(PMIx_Group_destruct("sy-grp-b", NULL, 0), PMIX_SUCCESS, "destruct of sy-grp-b");
    }
    /* another context id: a new one */
    size_t ctx_c = construct_all("sy-grp-c");
    if (ctx_c == ctx_a)
        FAIL("two groups got the same context id %zu", ctx_a);
    /* directives repeated, endpoint data of the caller's own: the host
     * answers each once, the server's endpoint data stands */
    pmix_info_t dup[3];
    pmix_byte_object_t junk = {.bytes = "not endpoint data", .size = 17};
    PMIX_INFO_LOAD(&dup[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dup[1], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dup[2], PMIX_GROUP_ENDPT_DATA, &junk, PMIX_BYTE_OBJECT);
    EXPECT(PMIx_Group_construct("sy-grp-dup", &all, 1, dup, 3, &res, &nres), PMIX_SUCCESS,
           "construct with repeated directives");
    size_t ctx_d = get_size(res, nres, PMIX_GROUP_CONTEXT_ID, &found);
    if (!found || ctx_d == ctx_a || ctx_d == ctx_c)
        FAIL("repeated directives: context id %zu (found %d)", ctx_d, (int)found);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&dup[i]);
    EXPECT(PMIx_Group_destruct("sy-grp-dup", NULL, 0), PMIX_SUCCESS, "destruct of sy-grp-dup");

    /* the non-blocking forms */
    int done = 0;
    EXPECT(PMIx_Group_construct_nb("sy-grp-nb", &all, 1, NULL, 0, construct_nb_done, &done),
           PMIX_SUCCESS, "PMIx_Group_construct_nb");
    wait_count(&done, 1, "the construct_nb callback");
    if (nb_status != PMIX_SUCCESS || nb_nres < 2)
        FAIL("construct_nb: %s with %zu results", PMIx_Error_string(nb_status), nb_nres);
    EXPECT(PMIx_Group_destruct_nb("sy-grp-nb", NULL, 0, destruct_nb_done, &done), PMIX_SUCCESS,
           "PMIx_Group_destruct_nb");
    wait_count(&done, 2, "the destruct_nb callback");

    EXPECT(PMIx_Group_destruct("sy-grp-a", NULL, 0), PMIX_SUCCESS, "destruct of sy-grp-a");
    EXPECT(PMIx_Group_destruct("sy-grp-c", NULL, 0), PMIX_SUCCESS, "destruct of sy-grp-c");
    PMIX_LOAD_PROCID(&grp_all, "sy-grp-a", PMIX_RANK_WILDCARD);
    EXPECT(PMIx_Get(&grp_all, PMIX_GROUP_CONTEXT_ID, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
           "Get of a destructed group's context id");
    EXPECT(PMIx_Group_destruct("sy-grp-a", NULL, 0), PMIX_ERR_NOT_FOUND,
           "destruct of a destructed group");
    EXPECT(PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v), PMIX_SUCCESS, "Get PMIX_GROUP_NAMES");
    if (has_name(v, "sy-grp-a"))
        FAIL("PMIX_GROUP_NAMES still has sy-grp-a");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&ctxid_dir);
}

/* ---- invite / join / leave ---- */

static void invite_mode(void)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_proc_t g;
    PMIX_LOAD_PROCID(&g, "sy-inv", PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_rank_t zero_one[] = {0, 1};
    if (me.rank == 0) {
        on_event(PMIX_GROUP_INVITE_ACCEPTED, h_record);
        on_event(PMIX_GROUP_INVITE_DECLINED, h_record);
        on_event(PMIX_GROUP_LEFT, h_record);
        pmix_proc_t invitees[2] = {rank_of(1), rank_of(2)};
        EXPECT(PMIx_Group_invite(me.nspace, invitees, 2, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
               "an invitation named like a namespace");
        EXPECT(PMIx_Group_invite("sy-inv", invitees, 2, NULL, 0, &res, &nres),
               PMIX_ERR_PARTIAL_SUCCESS, "the invitation one process declines");
        const pmix_info_t *mem = find_info(res, nres, PMIX_GROUP_MEMBERSHIP);
        if (mem == NULL || !is_members(&mem->value, zero_one, 2))
            FAIL("the invitation's membership is not 0,1");
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        if (itest_read(&n_accepted) != 1 || itest_read(&n_declined) != 1)
            FAIL("the leader heard %d acceptances and %d refusals", n_accepted, n_declined);
        /* rank 1 leaves the group */
        wait_count(&n_left, 1, "PMIX_GROUP_LEFT");
        if (itest_read((int *)&left_rank) != 1)
            FAIL("PMIX_GROUP_LEFT names rank %u", left_rank);
        EXPECT(PMIx_Group_destruct("sy-inv", NULL, 0), PMIX_SUCCESS,
               "the destruct of a group the others left");
    } else {
        on_event(PMIX_GROUP_INVITED, h_record);
        wait_count(&n_invited, 1, "PMIX_GROUP_INVITED");
        if (strcmp(invited_grp, "sy-inv") != 0 || invited_by.rank != 0)
            FAIL("invited to %s by rank %u", invited_grp, invited_by.rank);
        if (me.rank == 1) {
            EXPECT(PMIx_Group_join("sy-inv", &invited_by, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres),
                   PMIX_SUCCESS, "accepting the invitation");
            const pmix_info_t *mem = find_info(res, nres, PMIX_GROUP_MEMBERSHIP);
            if (mem == NULL || !is_members(&mem->value, zero_one, 2))
                FAIL("the joiner's membership is not 0,1");
            if (res != NULL)
                PMIX_INFO_FREE(res, nres);
            EXPECT(PMIx_Get(&g, PMIX_GROUP_MEMBERSHIP, NULL, 0, &v), PMIX_SUCCESS,
                   "Get of the membership");
            if (v != NULL)
                PMIX_VALUE_RELEASE(v);
            EXPECT(PMIx_Group_leave("sy-inv", NULL, 0), PMIX_SUCCESS, "PMIx_Group_leave");
            EXPECT(PMIx_Get(&g, PMIX_GROUP_MEMBERSHIP, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
                   "Get of the membership of a group left");
            EXPECT(PMIx_Group_leave("sy-inv", NULL, 0), PMIX_ERR_NOT_FOUND,
                   "leaving a group twice");
        } else {
            EXPECT(PMIx_Group_join("sy-inv", &invited_by, PMIX_GROUP_DECLINE, NULL, 0, &res, &nres),
                   PMIX_SUCCESS, "declining the invitation");
            if (nres != 0)
                FAIL("declining returned %zu results", nres);
            EXPECT(PMIx_Group_join("sy-inv", &invited_by, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres),
                   PMIX_ERR_NOT_FOUND, "accepting an invitation declined");
        }
    }
    EXPECT(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the closing fence");
}

/* ---- a member that ends ---- */

/* Ranks 0 then 1 start the construction; rank 2 waits for both and ends. */
static pmix_status_t construct_in_turn(const char *grp, const pmix_info_t *dirs, size_t ndirs,
                                       int *done)
{
    pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
    if (me.rank == 2) {
        await_key(1, "sy.joined");
        raise(SIGKILL);
    }
    if (me.rank == 1)
        await_key(0, "sy.joined");
    pmix_status_t rc = PMIx_Group_construct_nb(grp, &all, 1, dirs, ndirs, construct_nb_done, done);
    /* the server sees the construct before this commit */
    put_str("sy.joined", "yes");
    EXPECT(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    return rc;
}

static void die_mode(const char *mode)
{
    bool yes = true;
    pmix_info_t dirs[2];
    size_t ndirs = 0;
    int done = 0;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    signal(SIGTERM, SIG_IGN);
    on_event(PMIX_GROUP_CONSTRUCT_ABORT, h_record);
    on_event(PMIX_GROUP_LEADER_SELECTED, h_record);
    if (strcmp(mode, "die-error") == 0) {
        on_event(PMIX_GROUP_MEMBER_FAILED, h_record);
    } else if (strcmp(mode, "die-notify") == 0) {
        PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
        if (me.rank == 1)
            PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
        on_event(PMIX_GROUP_MEMBER_FAILED, h_record);
    } else if (strcmp(mode, "die-abort") == 0) {
        PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
        on_event(PMIX_GROUP_MEMBER_FAILED, me.rank == 0 ? h_abort : h_record);
    } else { /* die-leader: rank 2 leads, joins first and ends after rank 0
              * joined; rank 1 joins once it heard the leader failed */
        PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
        if (me.rank == 2)
            PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
        on_event(PMIX_GROUP_MEMBER_FAILED, h_record);
        on_event(PMIX_GROUP_LEADER_FAILED, me.rank == 0 ? h_lead : h_record);
        pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
        if (me.rank == 2) {
            PMIx_Group_construct_nb("sy-die", &all, 1, dirs, ndirs, construct_nb_done, &done);
            put_str("sy.leader", "in");
            PMIx_Commit();
            await_key(0, "sy.joined");
            raise(SIGKILL);
        }
        if (me.rank == 0)
            await_key(2, "sy.leader");
        else
            wait_count(&n_leader_failed, 1, "PMIX_GROUP_LEADER_FAILED before joining");
    }
    if (strcmp(mode, "die-leader") == 0) {
        pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
        EXPECT(PMIx_Group_construct_nb("sy-die", &all, 1, dirs, ndirs, construct_nb_done, &done),
               PMIX_SUCCESS, "starting the construction");
        put_str("sy.joined", "yes");
        EXPECT(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    } else {
        EXPECT(construct_in_turn("sy-die", dirs, ndirs, &done), PMIX_SUCCESS,
               "starting the construction");
    }
    wait_count(&done, 1, "the construction's end");
    pmix_rank_t zero_one[] = {0, 1};
    if (strcmp(mode, "die-error") == 0) {
        if (nb_status != PMIX_PROC_TERMINATED)
            FAIL("a construction whose member ended returned %s", PMIx_Error_string(nb_status));
        if (itest_read(&n_member_failed) != 0)
            FAIL("PMIX_GROUP_MEMBER_FAILED without notification asked for");
        /* later: rank 2 is known gone, so at once */
        pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
        EXPECT(PMIx_Group_construct("sy-die2", &all, 1, NULL, 0, &res, &nres), PMIX_PROC_TERMINATED,
               "a construction with a member gone before");
        pmix_info_t ft;
        PMIX_INFO_LOAD(&ft, PMIX_GROUP_FT_COLLECTIVE, &yes, PMIX_BOOL);
        EXPECT(PMIx_Group_construct("sy-die3", &all, 1, &ft, 1, &res, &nres),
               PMIX_ERR_PARTIAL_SUCCESS, "a fault-tolerant construction");
        const pmix_info_t *mem = find_info(res, nres, PMIX_GROUP_MEMBERSHIP);
        if (mem == NULL || !is_members(&mem->value, zero_one, 2))
            FAIL("the fault-tolerant group is not 0,1");
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        EXPECT(PMIx_Group_destruct("sy-die3", NULL, 0), PMIX_SUCCESS, "destruct of sy-die3");
    } else if (strcmp(mode, "die-abort") == 0) {
        if (nb_status != PMIX_GROUP_CONSTRUCT_ABORT)
            FAIL("the aborted construction returned %s", PMIx_Error_string(nb_status));
        if (me.rank == 1 && itest_read(&n_abort_ev) < 1)
            FAIL("no PMIX_GROUP_CONSTRUCT_ABORT event");
    } else {
        if (nb_status != PMIX_SUCCESS)
            FAIL("the construction returned %s", PMIx_Error_string(nb_status));
        if (nb_nres < 2)
            FAIL("%zu results", nb_nres);
        pmix_proc_t g;
        PMIX_LOAD_PROCID(&g, "sy-die", PMIX_RANK_WILDCARD);
        pmix_value_t *v = NULL;
        EXPECT(PMIx_Get(&g, PMIX_GROUP_MEMBERSHIP, NULL, 0, &v), PMIX_SUCCESS,
               "Get of the membership");
        if (!is_members(v, zero_one, 2))
            FAIL("the group is not 0,1");
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        int heard = itest_read(&n_member_failed);
        if (strcmp(mode, "die-notify") == 0 && heard != (me.rank == 1 ? 1 : 0))
            FAIL("rank %u heard %d PMIX_GROUP_MEMBER_FAILED (only the leader must)", me.rank,
                 heard);
        if (strcmp(mode, "die-leader") == 0) {
            if (heard != 1 || itest_read(&n_leader_failed) != 1)
                FAIL("heard %d member and %d leader failures", heard, n_leader_failed);
            if (itest_read(&n_leader_selected) != 1 || itest_read((int *)&selected_rank) != 0)
                FAIL("PMIX_GROUP_LEADER_SELECTED (%d) does not name rank 0", n_leader_selected);
        }
        EXPECT(PMIx_Group_destruct("sy-die", NULL, 0), PMIX_SUCCESS, "destruct of sy-die");
    }
    for (size_t i = 0; i < ndirs; i++)
        PMIX_INFO_DESTRUCT(&dirs[i]);
    pmix_proc_t two[2] = {rank_of(0), rank_of(1)};
    EXPECT(PMIx_Fence(two, 2, NULL, 0), PMIX_SUCCESS, "the closing fence");
}

/* ---- against test_host ---- */

static void host_mode(bool have_group)
{
    const char *nl = getenv("SY_TEST_NLOCAL");
    layout_t l;
    layout_init(&l, nl != NULL ? (unsigned)atoi(nl) : 1);
    pmix_proc_t all = rank_of(PMIX_RANK_WILDCARD);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    bool yes = true, found;
    PMIX_INFO_LOAD(&ctxid_dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    char buf[32];
    snprintf(buf, sizeof buf, "here-%u", me.rank);
    put_str("sy.here", buf);
    EXPECT(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    pmix_status_t rc = PMIx_Group_construct("sy-host-grp", &all, 1, &ctxid_dir, 1, &res, &nres);
    if (!have_group) {
        EXPECT(rc, PMIX_ERR_NOT_SUPPORTED, "a group across nodes without the host's upcall");
    } else {
        EXPECT(rc, PMIX_SUCCESS, "a group across nodes");
        if (get_size(res, nres, PMIX_GROUP_CONTEXT_ID, &found) != 4242 || !found)
            FAIL("the host's context id did not come back");
        const pmix_info_t *mem = find_info(res, nres, PMIX_GROUP_MEMBERSHIP);
        if (mem == NULL || mem->value.type != PMIX_DATA_ARRAY ||
            mem->value.data.darray->size != l.size)
            FAIL("the membership is not the %u ranks of the job", l.size);
        /* what the other nodes contributed, without asking anyone */
        pmix_info_t opt;
        PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        for (unsigned r = 0; r < l.size; r++) {
            pmix_proc_t p = rank_of(r);
            bool here = layout_node_of(&l, r) == LAYOUT_LOCAL_NODE;
            snprintf(buf, sizeof buf, here ? "here-%u" : "afar-%u", r);
            pmix_value_t *v = NULL;
            EXPECT(PMIx_Get(&p, here ? "sy.here" : "test.afar", &opt, 1, &v), PMIX_SUCCESS,
                   "Get of a member's endpoint data");
            if (v != NULL && (v->type != PMIX_STRING || strcmp(v->data.string, buf) != 0))
                FAIL("rank %u's endpoint data is wrong", r);
            if (v != NULL)
                PMIX_VALUE_RELEASE(v);
        }
        PMIX_INFO_DESTRUCT(&opt);
        EXPECT(PMIx_Group_destruct("sy-host-grp", NULL, 0), PMIX_SUCCESS,
               "destruct of a group across nodes");
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    /* this node's ranks: no host needed, unless a context id is wanted */
    pmix_proc_t local[256];
    for (unsigned i = 0; i < l.nlocal && i < 256; i++)
        local[i] = rank_of(l.first_rank[LAYOUT_LOCAL_NODE] + i);
    EXPECT(PMIx_Group_construct("sy-local-grp", local, l.nlocal, NULL, 0, &res, &nres),
           PMIX_SUCCESS, "a group of this node's ranks");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    EXPECT(PMIx_Group_destruct("sy-local-grp", NULL, 0), PMIX_SUCCESS,
           "destruct of a group of this node's ranks");
    if (!have_group)
        EXPECT(PMIx_Group_construct("sy-local-ctx", local, l.nlocal, &ctxid_dir, 1, &res, &nres),
               PMIX_ERR_NOT_SUPPORTED, "a context id without the host's upcall");
    PMIX_INFO_DESTRUCT(&ctxid_dir);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "construct";
    itest_name = "test_groups";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (strcmp(mode, "invite") == 0)
        invite_mode();
    else if (strcmp(mode, "host-group") == 0 || strcmp(mode, "no-group") == 0)
        host_mode(strcmp(mode, "host-group") == 0);
    else if (strncmp(mode, "die-", 4) == 0)
        die_mode(mode);
    else
        construct_mode();
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Finalize: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("test_groups %s rank %u: ok\n", mode, me.rank);
    return failures == 0 ? 0 : 1;
}
