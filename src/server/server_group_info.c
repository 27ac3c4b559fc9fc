/* PMIX_GROUP_INFO of OpenPMIx clients (Chap_API_Sets_Groups.tex,
 * PMIx_Group_construct): a member gives values (e.g. PMIX_GROUP_LOCAL_CID)
 * in its construct request, and any member reads them back with PMIx_Get
 * of that key qualified by the group's PMIX_GROUP_CONTEXT_ID, even after
 * the group is destructed.
 *
 * Our own clients post such elements themselves (client_group.c); for an
 * OpenPMIx client the server posts them on its behalf under the same keys
 * (SY_GRPINFO_PREFIX "<grp>.<key>"), so the construct publishes them to
 * every member, ours included.  The context ids this server assigned or
 * learned are kept, with their group, until it finalizes.  An OpenPMIx
 * client's qualified Get misses its cache and comes as GETNB with the
 * qualifier among its directives; it accepts the value only as a
 * PMIX_QUALIFIED_VALUE (the key-value, then the qualifier), which its
 * store files under the qualifier.  Loop only. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/datatype.h"
#include "common/info.h"
#include "common/wire.h"
#include "server/server_group.h"
#include "server/server_modex.h"
#include "server/server_msg.h"
#include "server/server_peer.h"

typedef struct cid_grp {
    size_t cid;
    char grp[PMIX_MAX_NSLEN + 1];
    struct cid_grp *next;
} cid_grp_t;

static cid_grp_t *cids;

static char *grpinfo_key(const char *grp, const char *key)
{
    char *k = NULL;
    return asprintf(&k, SY_GRPINFO_PREFIX "%s.%s", grp, key) < 0 ? NULL : k;
}

pmix_status_t sy_srv_group_info_post(const pmix_proc_t *member, const char *grp,
                                     const pmix_info_t *dirs, size_t ndirs)
{
    const pmix_info_t *gi = sy_info_find(dirs, ndirs, PMIX_GROUP_INFO);
    if (gi == NULL)
        return PMIX_SUCCESS;
    const pmix_data_array_t *da = gi->value.data.darray;
    if (gi->value.type != PMIX_DATA_ARRAY || da == NULL || da->type != PMIX_INFO ||
        (da->array == NULL && da->size > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_srv_posted_t *p = sy_srv_posted_find(member, true);
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    const pmix_info_t *el = da->array;
    for (size_t i = 0; i < da->size; i++) {
        sy_srv_kv_t *k = calloc(1, sizeof(*k));
        if (k == NULL)
            return PMIX_ERR_NOMEM;
        k->scope = PMIX_GLOBAL;
        k->key = grpinfo_key(grp, el[i].key);
        pmix_status_t rc = k->key == NULL ? PMIX_ERR_NOMEM : sy_value_copy(&k->val, &el[i].value);
        if (rc != PMIX_SUCCESS) {
            free(k->key);
            free(k);
            return rc;
        }
        sy_srv_posted_put(p, k); /* given again (a construct retried): the new value */
    }
    return PMIX_SUCCESS;
}

void sy_srv_group_info_cid(const char *grp, size_t cid)
{
    cid_grp_t *c = cids;
    while (c != NULL && c->cid != cid)
        c = c->next;
    if (c == NULL && (c = calloc(1, sizeof(*c))) != NULL) {
        c->cid = cid;
        c->next = cids;
        cids = c;
    }
    if (c != NULL)
        PMIX_LOAD_NSPACE(c->grp, grp);
}

/* The answer: PMIX_QUALIFIED_VALUE = [{key, value}, {PMIX_GROUP_CONTEXT_ID
 * cid, a qualifier}] of the target. */
static void answer(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target, const char *key,
                   const pmix_value_t *v, size_t cid)
{
    pmix_info_t q[2];
    memset(q, 0, sizeof(q));
    PMIX_LOAD_KEY(q[0].key, key);
    q[0].value = *v; /* lent */
    PMIX_INFO_LOAD(&q[1], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q[1]);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 2, .array = q};
    sy_wire_dmodex_rep_t rep = {.owner = *target, .key = PMIX_QUALIFIED_VALUE};
    rep.value.type = PMIX_DATA_ARRAY;
    rep.value.data.darray = &da;
    sy_srv_peer_reply_msg(peer, tag, PMIX_SUCCESS, SY_WMSG_DMODEX_REP, &rep);
}

bool sy_srv_group_info_get(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target,
                           const char *key, const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *q = sy_info_find(info, ninfo, PMIX_GROUP_CONTEXT_ID);
    if (q == NULL)
        return false;
    size_t cid = 0;
    pmix_status_t rc;
    PMIX_VALUE_GET_NUMBER(rc, &q->value, cid, size_t);
    const cid_grp_t *c = cids;
    while (rc == PMIX_SUCCESS && c != NULL && c->cid != cid)
        c = c->next;
    const sy_srv_kv_t *k = NULL;
    if (rc == PMIX_SUCCESS && c != NULL) {
        char *gkey = grpinfo_key(c->grp, key);
        const sy_srv_posted_t *p = sy_srv_posted_find(target, false);
        if (gkey == NULL)
            rc = PMIX_ERR_NOMEM;
        else if (p != NULL)
            k = sy_srv_kv_find(p, gkey);
        free(gkey);
    }
    if (rc != PMIX_SUCCESS)
        sy_srv_peer_reply_status(peer, tag, rc == PMIX_ERR_NOMEM ? rc : PMIX_ERR_BAD_PARAM);
    else if (k == NULL)
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_FOUND);
    else
        answer(peer, tag, target, key, &k->val, cid);
    return true;
}

void sy_srv_group_info_finalize(void)
{
    while (cids != NULL) {
        cid_grp_t *c = cids;
        cids = c->next;
        free(c);
    }
}
