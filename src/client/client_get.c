/* PMIx_Get / PMIx_Get_nb / PMIx_Store_internal.  A Get is answered by the
 * process-wide store on the caller's thread (job data, the special keys,
 * what the peers posted: all in mapped segments or computed here, so no
 * IPC and no hand-off to the progress thread); this file only asks the
 * server what the store cannot know.  Works in any process where some
 * role is initialized (a server process too). */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "common/datatype.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "common/store.h"

/* A NULL proc names the caller itself (the client's identity). */
static pmix_status_t target(const pmix_proc_t *proc, pmix_proc_t *out)
{
    if (proc != NULL) {
        *out = *proc;
        return PMIX_SUCCESS;
    }
    pthread_mutex_lock(&sy_client_lock);
    pmix_status_t rc = sy_client.refcount > 0 ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
    *out = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

static bool refresh_asked(const pmix_info_t info[], size_t ninfo)
{
    return sy_info_flag(info, ninfo, PMIX_GET_REFRESH_CACHE);
}

PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    if (!sy_store_active())
        return PMIX_ERR_INIT;
    if (val == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    *val = NULL;
    pmix_proc_t who;
    pmix_status_t rc = target(proc, &who);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* a PMIX_TIMEOUT that is no count of seconds is refused up front */
    double secs;
    if ((rc = sy_info_timeout(info, ninfo, &secs)) != PMIX_SUCCESS)
        return rc;
    /* PMIX_GET_REFRESH_CACHE on a peer's key: past every local copy */
    if (key != NULL && refresh_asked(info, ninfo)) {
        pmix_proc_t mine;
        if (target(NULL, &mine) != PMIX_SUCCESS || !PMIX_CHECK_PROCID(&mine, &who))
            return sy_client_dmodex_get(&who, key, info, ninfo, val);
    }
    /* what a group member gave in PMIX_GROUP_INFO, by context id */
    if (key != NULL && sy_info_find(info, ninfo, PMIX_GROUP_CONTEXT_ID) != NULL)
        return sy_client_group_info_get(&who, key, info, ninfo, val);
    /* the sets and groups a process is in live in the server */
    if (key != NULL && (strcmp(key, PMIX_PSET_NAMES) == 0 || strcmp(key, PMIX_GROUP_NAMES) == 0)) {
        rc = sy_client_membership_get(&who, key, val);
        if (rc != PMIX_ERR_NOT_SUPPORTED && rc != PMIX_ERR_INIT)
            return rc;
    }
    rc = sy_store_get(&who, key, info, ninfo, val);
    if (rc == PMIX_ERR_NOT_FOUND && key != NULL)
        rc = sy_client_dmodex_get(&who, key, info, ninfo, val);
    return rc;
}

typedef struct {
    pmix_status_t status;
    pmix_value_t *val;
    pmix_value_cbfunc_t cbfunc;
    void *cbdata;
} get_nb_t;

/* The value belongs to us: the callback copies what it keeps. */
static void deliver(void *arg)
{
    get_nb_t *g = arg;
    g->cbfunc(g->status, g->val, g->cbdata);
    if (g->val != NULL)
        PMIX_VALUE_RELEASE(g->val);
    free(g);
}

PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata)
{
    if (!sy_store_active())
        return PMIX_ERR_INIT;
    if (cbfunc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    get_nb_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return PMIX_ERR_NOMEM;
    g->cbfunc = cbfunc;
    g->cbdata = cbdata;
    g->status = PMIx_Get(proc, key, info, ninfo, &g->val);
    /* Posted, so the callback never runs before we return. */
    sy_progress_t *p = sy_runtime();
    pmix_status_t rc = p != NULL ? sy_progress_post(p, deliver, g) : PMIX_ERR_INIT;
    if (rc != PMIX_SUCCESS) {
        if (g->val != NULL)
            PMIX_VALUE_RELEASE(g->val);
        free(g);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char key[],
                                              pmix_value_t *val)
{
    if (!sy_store_active())
        return PMIX_ERR_INIT;
    if (proc == NULL || key == NULL || val == NULL || sy_value_check(val) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    return sy_store_internal_put(proc, key, val);
}
