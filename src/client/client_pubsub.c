/* PMIx_Publish / PMIx_Lookup / PMIx_Unpublish (+ _nb): requests passed to
 * the server, which hands them to its host's datastore
 * (Chap_API_Publish.tex).  A singleton has no datastore:
 * PMIX_ERR_NOT_SUPPORTED. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/sync.h"

static size_t count_keys(char **keys)
{
    size_t n = 0;
    while (keys != NULL && keys[n] != NULL)
        n++;
    return n;
}

static void sync_done(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

/* Blocking form of an op: start it with our callback and wait. */
static pmix_status_t wait_op(pmix_status_t started, sy_sync_t *s)
{
    pmix_status_t rc =
        started == PMIX_SUCCESS ? sy_sync_wait_progress(s, sy_client.progress) : started;
    sy_sync_destroy(s);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    sy_wire_publish_req_t m = {.info = (pmix_info_t *)info, .ninfo = ninfo};
    return sy_client_call_op_nb(SY_WMSG_PUBLISH_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return wait_op(PMIx_Publish_nb(info, ninfo, sync_done, &s), &s);
}

PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    sy_wire_unpublish_req_t m = {
        .keys = keys, .nkeys = count_keys(keys), .info = (pmix_info_t *)info, .ninfo = ninfo};
    return sy_client_call_op_nb(SY_WMSG_UNPUBLISH_REQ, &m, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return wait_op(PMIx_Unpublish_nb(keys, info, ninfo, sync_done, &s), &s);
}

/* ---- lookup ---- */

/* The reply's data as the pmix_pdata_t the callback wants. */
static void lookup_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply,
                         sy_client_cb_t user, void *cbdata)
{
    (void)id;
    sy_wire_lookup_rep_t *m = reply;
    pmix_pdata_t *pd = NULL;
    size_t n = 0;
    if ((status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS) && m->ndata > 0) {
        PMIX_PDATA_CREATE(pd, m->ndata);
        if (pd == NULL)
            status = PMIX_ERR_NOMEM;
        for (size_t i = 0; pd != NULL && i < m->ndata; i++) {
            pd[i].proc = m->data[i].proc;
            if (m->data[i].key != NULL)
                PMIX_LOAD_KEY(pd[i].key, m->data[i].key);
            pd[i].value = m->data[i].value; /* taken */
            memset(&m->data[i].value, 0, sizeof(pmix_value_t));
        }
        n = pd != NULL ? m->ndata : 0;
    }
    if (user.lookup != NULL)
        user.lookup(status, pd, n, cbdata);
    if (pd != NULL)
        PMIX_PDATA_FREE(pd, n);
}

PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (keys == NULL || keys[0] == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_wire_lookup_req_t m = {
        .keys = keys, .nkeys = count_keys(keys), .info = (pmix_info_t *)info, .ninfo = ninfo};
    return sy_client_call_nb(SY_WMSG_LOOKUP_REQ, &m, lookup_reply,
                             (sy_client_cb_t){.lookup = cbfunc}, cbdata);
}

typedef struct {
    sy_sync_t sync;
    pmix_pdata_t *data;
    size_t ndata;
} lookup_wait_t;

/* Copy each found value into the caller's entry of the same key. */
static void lookup_fill(pmix_status_t status, pmix_pdata_t found[], size_t nfound, void *cbdata)
{
    lookup_wait_t *w = cbdata;
    for (size_t i = 0; i < nfound; i++) {
        for (size_t j = 0; j < w->ndata; j++) {
            if (strncmp(w->data[j].key, found[i].key, PMIX_MAX_KEYLEN) != 0)
                continue;
            w->data[j].proc = found[i].proc;
            PMIX_VALUE_DESTRUCT(&w->data[j].value);
            PMIx_Value_xfer(&w->data[j].value, &found[i].value);
        }
    }
    sy_sync_signal(&w->sync, status, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[],
                                      size_t ninfo)
{
    if (data == NULL || ndata == 0)
        return PMIX_ERR_BAD_PARAM;
    char **keys = calloc(ndata + 1, sizeof(char *));
    if (keys == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ndata; i++)
        keys[i] = data[i].key;
    lookup_wait_t w = {.data = data, .ndata = ndata};
    pmix_status_t rc = sy_sync_init(&w.sync);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Lookup_nb(keys, info, ninfo, lookup_fill, &w);
        if (rc == PMIX_SUCCESS)
            rc = sy_sync_wait_progress(&w.sync, sy_client.progress);
        sy_sync_destroy(&w.sync);
    }
    free(keys);
    return rc;
}
