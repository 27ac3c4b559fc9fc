/* PMIx_Get_credential / PMIx_Validate_credential (+ _nb)
 * (Chap_API_Security.tex): requests to the server, which has its host
 * issue and check credentials or does so itself (server_cred.c).  A
 * credential is opaque here.  A singleton has no server to vouch for it:
 * PMIX_ERR_NOT_SUPPORTED. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/sync.h"

typedef struct {
    pmix_credential_cbfunc_t cred_cb;
    pmix_validation_cbfunc_t valid_cb;
    void *cbdata;
} cred_req_t;

/* Reply after the status: [BYTE_OBJECT credential,] SIZE n, n INFO. */
static void cred_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    cred_req_t *r = cbdata;
    pmix_byte_object_t cred = {0};
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (status == PMIX_SUCCESS) {
        pmix_status_t rc = PMIX_SUCCESS;
        if (r->cred_cb != NULL)
            rc = sy_client_unpack_one(reply, &cred, PMIX_BYTE_OBJECT);
        if (rc == PMIX_SUCCESS)
            rc = sy_client_unpack_one(reply, &n, PMIX_SIZE);
        if (rc == PMIX_SUCCESS && n > sy_buffer_remaining(reply))
            rc = PMIX_ERR_UNPACK_FAILURE;
        if (rc == PMIX_SUCCESS && n > 0) {
            PMIX_INFO_CREATE(info, n);
            int32_t cnt = (int32_t)n;
            rc = info == NULL ? PMIX_ERR_NOMEM : sy_unpack(reply, info, &cnt, PMIX_INFO);
        }
        if (rc != PMIX_SUCCESS)
            status = rc;
    }
    /* what the callback gets is ours: it copies what it keeps */
    if (r->cred_cb != NULL)
        r->cred_cb(status, &cred, status == PMIX_SUCCESS ? info : NULL,
                   status == PMIX_SUCCESS ? n : 0, r->cbdata);
    else if (r->valid_cb != NULL)
        r->valid_cb(status, status == PMIX_SUCCESS ? info : NULL, status == PMIX_SUCCESS ? n : 0,
                    r->cbdata);
    if (info != NULL)
        PMIX_INFO_FREE(info, n);
    free(cred.bytes);
    free(r);
}

/* GET_CRED: SIZE n, n INFO; VALIDATE_CRED: BYTE_OBJECT cred, SIZE n, n INFO.
 * One callback is set in r, which is freed here on failure. */
static pmix_status_t send_cred(uint8_t cmd, const pmix_byte_object_t *cred,
                               const pmix_info_t info[], size_t ninfo, cred_req_t *r)
{
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, cmd);
    if (rc == PMIX_SUCCESS && cred != NULL)
        rc = sy_pack(&req, cred, 1, PMIX_BYTE_OBJECT);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_pack_infos(&req, info, ninfo);
    sy_conn_t *conn;
    if (rc == PMIX_SUCCESS)
        rc = sy_client_server_conn(&conn);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_request_nb(conn, &req, cred_reply, r);
    else
        sy_buffer_destruct(&req);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    cred_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->cred_cb = cbfunc;
    r->cbdata = cbdata;
    return send_cred(SY_CMD_GET_CRED, NULL, info, ninfo, r);
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
    cred_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->valid_cb = cbfunc;
    r->cbdata = cbdata;
    return send_cred(SY_CMD_VALIDATE_CRED, cred, info, ninfo, r);
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
