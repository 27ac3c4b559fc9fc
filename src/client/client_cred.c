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

static pmix_status_t server_conn(sy_conn_t **conn)
{
    pthread_mutex_lock(&sy_client_lock);
    pmix_status_t rc = PMIX_SUCCESS;
    if (sy_client.refcount == 0)
        rc = PMIX_ERR_INIT;
    else if (sy_client.conn == NULL)
        rc = PMIX_ERR_NOT_SUPPORTED;
    *conn = sy_client.conn;
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

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

static pmix_status_t send_cred(pmix_data_buffer_t *req, cred_req_t *r)
{
    sy_conn_t *conn;
    pmix_status_t rc = server_conn(&conn);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_request_nb(conn, req, cred_reply, r);
    else
        sy_buffer_destruct(req);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}

static pmix_status_t pack_infos(pmix_data_buffer_t *b, const pmix_info_t info[], size_t ninfo)
{
    size_t n = info != NULL ? ninfo : 0;
    pmix_status_t rc = sy_pack(b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(b, info, (int32_t)n, PMIX_INFO);
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
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_GET_CRED);
    if (rc == PMIX_SUCCESS)
        rc = pack_infos(&req, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        free(r);
        return rc;
    }
    return send_cred(&req, r);
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
                                                      pmix_validation_cbfunc_t cbfunc,
                                                      void *cbdata)
{
    if (cred == NULL || cbfunc == NULL || (info == NULL && ninfo > 0) ||
        (cred->bytes == NULL && cred->size > 0))
        return PMIX_ERR_BAD_PARAM;
    cred_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->valid_cb = cbfunc;
    r->cbdata = cbdata;
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_VALIDATE_CRED);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(&req, cred, 1, PMIX_BYTE_OBJECT);
    if (rc == PMIX_SUCCESS)
        rc = pack_infos(&req, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        free(r);
        return rc;
    }
    return send_cred(&req, r);
}

static void valid_done(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata)
{
    sy_client_info_done(status, info, ninfo, cbdata, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[], size_t ninfo,
                                                   pmix_info_t **results, size_t *nresults)
{
    sy_client_info_wait_t w = {0};
    if (results != NULL)
        *results = NULL;
    if (nresults != NULL)
        *nresults = 0;
    if (sy_sync_init(&w.sync) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return sy_client_wait_infos(PMIx_Validate_credential_nb(cred, info, ninfo, valid_done, &w),
                                &w, results, nresults);
}
