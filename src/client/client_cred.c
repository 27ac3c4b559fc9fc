/* PMIx_Get_credential / PMIx_Validate_credential (+ _nb)
 * (Chap_API_Security.tex): requests to the server, which has its host
 * issue and check credentials or does so itself (server_cred.c).  A
 * credential is opaque here.  A singleton has no server to vouch for it:
 * PMIX_ERR_NOT_SUPPORTED. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/sync.h"

/* What the callback gets is ours: it copies what it keeps. */
static void cred_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                       void *cbdata)
{
    (void)id;
    sy_wire_get_cred_rep_t *m = reply;
    bool ok = status == PMIX_SUCCESS;
    user.cred(status, &m->cred, ok ? m->info : NULL, ok ? m->ninfo : 0, cbdata);
}

static void valid_reply(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                        void *cbdata)
{
    (void)id;
    sy_wire_validate_cred_rep_t *m = reply;
    bool ok = status == PMIX_SUCCESS;
    user.valid(status, ok ? m->info : NULL, ok ? m->ninfo : 0, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_wire_get_cred_req_t m = {.info = (pmix_info_t *)info, .ninfo = ninfo};
    return sy_client_call_nb(SY_WMSG_GET_CRED_REQ, &m, cred_reply, (sy_client_cb_t){.cred = cbfunc},
                             cbdata);
}

typedef struct {
    sy_sync_t sync;
    pmix_byte_object_t cred;
} cred_wait_t;

static void cred_done(pmix_status_t status, pmix_byte_object_t *credential, pmix_info_t info[],
                      size_t ninfo, void *cbdata)
{
    (void)info;
    (void)ninfo;
    cred_wait_t *w = cbdata;
    if (status == PMIX_SUCCESS && credential != NULL && credential->size > 0) {
        w->cred.bytes = malloc(credential->size);
        if (w->cred.bytes == NULL) {
            status = PMIX_ERR_NOMEM;
        } else {
            memcpy(w->cred.bytes, credential->bytes, credential->size);
            w->cred.size = credential->size;
        }
    }
    sy_sync_signal(&w->sync, status, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
                                              pmix_byte_object_t *credential)
{
    if (credential == NULL)
        return PMIX_ERR_BAD_PARAM;
    credential->bytes = NULL;
    credential->size = 0;
    cred_wait_t w = {0};
    if (sy_sync_init(&w.sync) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIx_Get_credential_nb(info, ninfo, cred_done, &w);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&w.sync, sy_client.progress);
    sy_sync_destroy(&w.sync);
    if (rc == PMIX_SUCCESS) {
        *credential = w.cred; /* malloc'd: the caller's */
    } else {
        free(w.cred.bytes);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred,
                                                      const pmix_info_t info[], size_t ninfo,
                                                      pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    if (cred == NULL || cbfunc == NULL || (info == NULL && ninfo > 0) ||
        (cred->bytes == NULL && cred->size > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_wire_validate_cred_req_t m = {.cred = *cred, .info = (pmix_info_t *)info, .ninfo = ninfo};
    return sy_client_call_nb(SY_WMSG_VALIDATE_CRED_REQ, &m, valid_reply,
                             (sy_client_cb_t){.valid = cbfunc}, cbdata);
}

static void valid_done(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata)
{
    sy_client_info_done(status, info, ninfo, cbdata, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[], size_t ninfo,
                                                   pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w;
    if (sy_client_info_wait_begin(&w, results, nresults) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(PMIx_Validate_credential_nb(cred, info, ninfo, valid_done, &w), &w,
                                results, nresults);
}
