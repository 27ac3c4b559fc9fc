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

/* The connection for a request, or why there is none. */
static pmix_status_t pack_infos(pmix_data_buffer_t *b, const pmix_info_t info[], size_t ninfo)
{
    size_t n = info != NULL ? ninfo : 0;
    pmix_status_t rc = sy_pack(b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(b, info, (int32_t)n, PMIX_INFO);
    return rc;
}

static pmix_status_t pack_keys(pmix_data_buffer_t *b, char **keys)
{
    size_t n = 0;
    while (keys != NULL && keys[n] != NULL)
        n++;
    pmix_status_t rc = sy_pack(b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(b, keys, (int32_t)n, PMIX_STRING);
    return rc;
}

/* ---- op requests (publish, unpublish) ---- */

typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} op_req_t;

static void op_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    op_req_t *r = cbdata;
    if (r->cbfunc != NULL)
        r->cbfunc(status, r->cbdata);
    free(r);
}

static pmix_status_t send_op(pmix_data_buffer_t *req, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    sy_conn_t *conn;
    pmix_status_t rc = sy_client_server_conn(&conn);
    op_req_t *r = rc == PMIX_SUCCESS ? calloc(1, sizeof(*r)) : NULL;
    if (r == NULL) {
        sy_buffer_destruct(req);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    }
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    rc = sy_client_request_nb(conn, req, op_reply, r);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
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
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_PUBLISH);
    if (rc == PMIX_SUCCESS)
        rc = pack_infos(&req, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return rc;
    }
    return send_op(&req, cbfunc, cbdata);
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
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_cmd(&req, SY_CMD_UNPUBLISH);
    if (rc == PMIX_SUCCESS)
        rc = pack_keys(&req, keys);
    if (rc == PMIX_SUCCESS)
        rc = pack_infos(&req, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req);
        return rc;
    }
    return send_op(&req, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return wait_op(PMIx_Unpublish_nb(keys, info, ninfo, sync_done, &s), &s);
}

/* ---- lookup ---- */

typedef struct {
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
} lookup_req_t;

/* Reply after the status: SIZE n, then n x (PROC, STRING key, VALUE). */
static void lookup_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    lookup_req_t *r = cbdata;
    pmix_pdata_t *pd = NULL;
    size_t n = 0;
    if (status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS) {
        pmix_status_t rc = sy_client_unpack_one(reply, &n, PMIX_SIZE);
        if (rc == PMIX_SUCCESS && n > sy_buffer_remaining(reply))
            rc = PMIX_ERR_UNPACK_FAILURE;
        if (rc == PMIX_SUCCESS && n > 0) {
            PMIX_PDATA_CREATE(pd, n);
            if (pd == NULL)
                rc = PMIX_ERR_NOMEM;
            for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
                char *key = NULL;
                rc = sy_client_unpack_one(reply, &pd[i].proc, PMIX_PROC);
                if (rc == PMIX_SUCCESS)
                    rc = sy_client_unpack_one(reply, &key, PMIX_STRING);
                if (rc == PMIX_SUCCESS && key != NULL)
                    PMIX_LOAD_KEY(pd[i].key, key);
                free(key);
                if (rc == PMIX_SUCCESS)
                    rc = sy_client_unpack_one(reply, &pd[i].value, PMIX_VALUE);
            }
        }
        if (rc != PMIX_SUCCESS) {
            status = rc;
            if (pd != NULL)
                PMIX_PDATA_FREE(pd, n);
            pd = NULL;
            n = 0;
        }
    }
    if (r->cbfunc != NULL)
        r->cbfunc(status, pd, n, r->cbdata);
    if (pd != NULL)
        PMIX_PDATA_FREE(pd, n);
    free(r);
}

PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (keys == NULL || keys[0] == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_conn_t *conn;
    pmix_status_t rc = sy_client_server_conn(&conn);
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_data_buffer_t req;
    rc = sy_client_pack_cmd(&req, SY_CMD_LOOKUP);
    if (rc == PMIX_SUCCESS)
        rc = pack_keys(&req, keys);
    if (rc == PMIX_SUCCESS)
        rc = pack_infos(&req, info, ninfo);
    lookup_req_t *r = rc == PMIX_SUCCESS ? calloc(1, sizeof(*r)) : NULL;
    if (r == NULL) {
        sy_buffer_destruct(&req);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    }
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    rc = sy_client_request_nb(conn, &req, lookup_reply, r);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
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
