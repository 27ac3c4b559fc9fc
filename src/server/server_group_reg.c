/* The process groups that exist on this node (constructed, not yet
 * destructed), what happens to them afterwards: a member leaves
 * (PMIX_GROUP_LEFT to the others), ends without leaving
 * (PMIX_GROUP_MEMBER_FAILED when the group asked for
 * PMIX_GROUP_NOTIFY_TERMINATION), the same news from other nodes through
 * the host; and what queries and PMIx_Get ask of them.  Loop only. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_group.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_msg.h"
#include "server/server_event.h"
#include "server/server_peer.h"
#include "server/server_registry.h"

static sy_group_t *groups;

/* Clients that ended while registered, so that an operation started
 * later does not wait for them. */
typedef struct ended {
    pmix_proc_t proc;
    bool finalized;
    struct ended *next;
} ended_t;
static ended_t *ended;

static void note_ended(const pmix_proc_t *p, bool finalized)
{
    /* forget the ones whose registration is gone, so this stays small */
    for (ended_t **pp = &ended; *pp != NULL;) {
        ended_t *e = *pp;
        if (!sy_group_local(&e->proc)) {
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
    ended_t *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return;
    e->proc = *p;
    e->finalized = finalized;
    e->next = ended;
    ended = e;
}

bool sy_group_ended(const pmix_proc_t *p, bool *finalized)
{
    sy_srv_client_t *c = sy_srv_client_find(sy_srv, p);
    if (c != NULL && c->peer != NULL)
        return false; /* connected again */
    for (ended_t *e = ended; e != NULL; e = e->next)
        if (PMIX_CHECK_PROCID(&e->proc, p)) {
            *finalized = e->finalized;
            return true;
        }
    return false;
}

sy_group_t *sy_group_find(const char *id)
{
    for (sy_group_t *g = groups; g != NULL; g = g->next)
        if (strncmp(g->id, id, PMIX_MAX_NSLEN) == 0)
            return g;
    return NULL;
}

static void group_free(sy_group_t *g)
{
    free(g->members);
    free(g);
}

void sy_group_remove(sy_group_t *g)
{
    for (sy_group_t **pp = &groups; *pp != NULL; pp = &(*pp)->next)
        if (*pp == g) {
            *pp = g->next;
            group_free(g);
            return;
        }
}

pmix_status_t sy_group_add(const char *id, const pmix_proc_t *members, size_t n, bool has_ctxid,
                           size_t ctxid, bool notify_term, bool via_host)
{
    sy_group_t *old = sy_group_find(id);
    if (old != NULL)
        sy_group_remove(old);
    sy_group_t *g = calloc(1, sizeof(*g));
    if (g == NULL || (n > 0 && (g->members = calloc(n, sizeof(*members))) == NULL)) {
        free(g);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_NSPACE(g->id, id);
    if (n > 0)
        memcpy(g->members, members, n * sizeof(*members));
    g->nmembers = n;
    g->has_ctxid = has_ctxid;
    g->ctxid = ctxid;
    g->notify_term = notify_term;
    g->via_host = via_host;
    g->next = groups;
    groups = g;
    return PMIX_SUCCESS;
}

bool sy_group_has(const sy_group_t *g, const pmix_proc_t *p)
{
    for (size_t i = 0; i < g->nmembers; i++)
        if (PMIX_CHECK_PROCID(&g->members[i], p))
            return true;
    return false;
}

/* Take p out of g's members; true when it was one. */
static bool drop_member(sy_group_t *g, const pmix_proc_t *p)
{
    for (size_t i = 0; i < g->nmembers; i++) {
        if (!PMIX_CHECK_PROCID(&g->members[i], p))
            continue;
        memmove(&g->members[i], &g->members[i + 1], (g->nmembers - i - 1) * sizeof(*p));
        g->nmembers--;
        return true;
    }
    return false;
}

bool sy_group_local(const pmix_proc_t *p)
{
    sy_srv_client_t *c = sy_srv_client_find(sy_srv, p);
    return c != NULL && c->registered;
}

/* No member of this node is left: the other nodes keep their own view. */
static void forget_if_unused(sy_group_t *g)
{
    for (size_t i = 0; i < g->nmembers; i++)
        if (sy_group_local(&g->members[i]))
            return;
    sy_group_remove(g);
}

pmix_status_t sy_group_load_procs(pmix_value_t *v, const pmix_proc_t *procs, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL || (n > 0 && (da->array = calloc(n, sizeof(pmix_proc_t))) == NULL)) {
        free(da);
        return PMIX_ERR_NOMEM;
    }
    if (n > 0)
        memcpy(da->array, procs, n * sizeof(pmix_proc_t));
    da->type = PMIX_PROC;
    da->size = n;
    v->type = PMIX_DATA_ARRAY;
    v->data.darray = da;
    return PMIX_SUCCESS;
}

void sy_group_notify(pmix_status_t code, const char *grp, const pmix_proc_t *source,
                     const pmix_proc_t *to, size_t nto, const pmix_proc_t *affected,
                     const pmix_info_t *extra, size_t nextra, bool non_default)
{
    if (nto == 0)
        return;
    pmix_info_t *info;
    size_t n = 0;
    PMIX_INFO_CREATE(info, 4 + nextra);
    if (info == NULL)
        return;
    PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_ID, grp, PMIX_STRING);
    PMIX_LOAD_KEY(info[n].key, PMIX_EVENT_CUSTOM_RANGE);
    if (sy_group_load_procs(&info[n].value, to, nto) == PMIX_SUCCESS)
        n++;
    if (affected != NULL)
        PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, affected, PMIX_PROC);
    if (non_default) {
        bool yes = true;
        PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    }
    for (size_t i = 0; i < nextra; i++)
        PMIx_Info_xfer(&info[n++], &extra[i]);
    sy_srv_event_raise(code, source != NULL ? source : &sy_srv->me, PMIX_RANGE_CUSTOM, info, n);
    PMIX_INFO_FREE(info, 4 + nextra);
}

/* ---- departures ---- */

/* p is no member of g any more: tell the others how it went. */
static void departed(sy_group_t *g, const pmix_proc_t *p, pmix_status_t how, bool tell)
{
    if (!drop_member(g, p))
        return;
    if (tell)
        sy_group_notify(how, g->id, p, g->members, g->nmembers, p, NULL, 0, false);
    forget_if_unused(g);
}

void sy_group_handle_leave(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_group_leave_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_GROUP_LEAVE_REQ, &m);
    if (rc != PMIX_SUCCESS || m.grp == NULL) {
        sy_wire_group_leave_req_free(&m);
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_BAD_PARAM);
        return;
    }
    char *grp = m.grp; /* taken */
    m.grp = NULL;
    sy_wire_group_leave_req_free(&m);
    /* the directives (PMIX_TIMEOUT at most) need no handling: the
     * departure is generated here and now */
    sy_group_t *g = sy_group_find(grp);
    if (g == NULL || !sy_group_has(g, &peer->proc)) {
        free(grp);
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_FOUND);
        return;
    }
    pmix_proc_t me = peer->proc;
    departed(g, &me, PMIX_GROUP_LEFT, true);
    /* a destruct the others started does not wait for it */
    sy_group_op_left(grp, &me);
    free(grp);
    sy_srv_peer_reply_status(peer, tag, PMIX_SUCCESS);
}

void sy_srv_group_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    sy_srv_group_proc_gone(&peer->proc, finalized);
}

void sy_srv_group_proc_gone(const pmix_proc_t *proc, bool finalized)
{
    pmix_proc_t who = *proc;
    note_ended(&who, finalized);
    for (sy_group_t *g = groups, *next; g != NULL; g = next) {
        next = g->next;
        if (sy_group_has(g, &who))
            departed(g, &who, PMIX_GROUP_MEMBER_FAILED, !finalized && g->notify_term);
    }
}

static const char *info_string(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (sy_info_is(&info[i], key) && info[i].value.type == PMIX_STRING)
            return info[i].value.data.string;
    return NULL;
}

static const pmix_proc_t *info_proc(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (sy_info_is(&info[i], key) && info[i].value.type == PMIX_PROC)
            return info[i].value.data.proc;
    return NULL;
}

void sy_srv_group_event(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                        size_t ninfo)
{
    const char *grp = info_string(info, ninfo, PMIX_GROUP_ID);
    if (grp == NULL || sy_srv == NULL)
        return;
    const pmix_proc_t *who = info_proc(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
    sy_group_t *g = sy_group_find(grp);
    switch (status) {
    case PMIX_GROUP_CONSTRUCT_ABORT:
        /* a participant (here or elsewhere) gave up the construction; it
         * was told to everyone already */
        sy_group_op_abort(grp, source, false);
        break;
    case PMIX_GROUP_LEFT:
    case PMIX_GROUP_MEMBER_FAILED:
        /* another node's news of a member of a group we share */
        if (g != NULL && who != NULL && !sy_group_local(who))
            departed(g, who, status, false);
        break;
    default: break;
    }
}

void sy_srv_group_finalize(sy_srv_t *s)
{
    (void)s;
    sy_srv_group_info_finalize();
    while (ended != NULL) {
        ended_t *e = ended;
        ended = e->next;
        free(e);
    }
    while (groups != NULL) {
        sy_group_t *g = groups;
        groups = g->next;
        group_free(g);
    }
}

/* ---- queries ---- */

pmix_status_t sy_group_load_strings(pmix_value_t *v, const char *const *names, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    char **copy = calloc(n + 1, sizeof(char *));
    if (da == NULL || copy == NULL) {
        free(da);
        free(copy);
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((copy[k] = strdup(names[i])) != NULL)
            k++;
    da->type = PMIX_STRING;
    da->size = k;
    da->array = copy;
    v->type = PMIX_DATA_ARRAY;
    v->data.darray = da;
    return k == n ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t sy_srv_group_names(const pmix_proc_t *member, pmix_value_t *out)
{
    size_t n = 0;
    for (sy_group_t *g = groups; g != NULL; g = g->next)
        n++;
    const char **names = calloc(n + 1, sizeof(char *));
    if (names == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (sy_group_t *g = groups; g != NULL; g = g->next)
        if (member == NULL || sy_group_has(g, member))
            names[k++] = g->id;
    pmix_status_t rc = sy_group_load_strings(out, names, k);
    free(names);
    return rc;
}

pmix_status_t sy_srv_group_members(const char *grp, pmix_value_t *out)
{
    sy_group_t *g = grp != NULL ? sy_group_find(grp) : NULL;
    if (g == NULL)
        return PMIX_ERR_NOT_FOUND;
    return sy_group_load_procs(out, g->members, g->nmembers);
}

pmix_status_t sy_srv_group_expand(pmix_proc_t **procs, size_t *nprocs)
{
    size_t total = 0;
    bool any = false;
    for (size_t i = 0; i < *nprocs; i++) {
        sy_group_t *g = sy_group_find((*procs)[i].nspace);
        if (g == NULL || sy_srv_nspace_find(sy_srv, g->id) != NULL) {
            total++;
            continue;
        }
        any = true;
        if ((*procs)[i].rank == PMIX_RANK_WILDCARD)
            total += g->nmembers;
        else if ((*procs)[i].rank < g->nmembers)
            total++;
        else
            return PMIX_ERR_BAD_PARAM; /* no such group rank */
    }
    if (!any)
        return PMIX_SUCCESS;
    pmix_proc_t *out = calloc(total, sizeof(*out));
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < *nprocs; i++) {
        const pmix_proc_t *p = &(*procs)[i];
        sy_group_t *g = sy_group_find(p->nspace);
        if (g == NULL || sy_srv_nspace_find(sy_srv, g->id) != NULL)
            out[k++] = *p;
        else if (p->rank == PMIX_RANK_WILDCARD)
            for (size_t m = 0; m < g->nmembers; m++)
                out[k++] = g->members[m];
        else
            out[k++] = g->members[p->rank];
    }
    /* a process named twice (in a group and by itself) takes part once */
    size_t uniq = 0;
    for (size_t i = 0; i < k; i++) {
        bool dup = false;
        for (size_t j = 0; j < uniq && !dup; j++)
            dup = PMIX_CHECK_NSPACE(out[j].nspace, out[i].nspace) &&
                  (out[j].rank == out[i].rank || out[j].rank == PMIX_RANK_WILDCARD);
        if (!dup)
            out[uniq++] = out[i];
    }
    free(*procs);
    *procs = out;
    *nprocs = uniq;
    return PMIX_SUCCESS;
}
