/* Queries the library answers itself (query_lib.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "common/datatype.h"
#include "common/progress.h"
#include "common/query_lib.h"
#include "common/rendezvous.h"
#include "common/runtime.h"

static sy_query_path_fn server_path;

void sy_query_set_server_path(sy_query_path_fn fn)
{
    __atomic_store_n(&server_path, fn, __ATOMIC_RELEASE);
}

sy_query_path_fn sy_query_server_path(void)
{
    return __atomic_load_n(&server_path, __ATOMIC_ACQUIRE);
}

/* The PMIx Standard ABI versions of pmix-abi this library matches: those
 * OpenPMIx 4.2.2 reports (its headers are the ABI we keep). */
#define SY_ABI_STABLE_VERSION "0.0"
#define SY_ABI_PROVISIONAL_VERSION "0.0"

static bool key_abi(const char *key)
{
    return strcmp(key, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ||
           strcmp(key, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0;
}

static bool key_local(const char *key, const sy_query_ctx_t *ctx)
{
    return key_abi(key) || strcmp(key, PMIX_QUERY_AVAIL_SERVERS) == 0 ||
           (ctx->server_uri != NULL && strcmp(key, PMIX_SERVER_URI) == 0);
}

static bool query_local(const pmix_query_t *q, const sy_query_ctx_t *ctx)
{
    if (sy_support_is_query(q))
        return ctx->have_host || !sy_support_wants_host(q);
    for (size_t k = 0; q->keys != NULL && q->keys[k] != NULL; k++)
        if (!key_local(q->keys[k], ctx))
            return false;
    return true;
}

bool sy_query_abi_only(const pmix_query_t q[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (q[i].keys == NULL || q[i].keys[0] == NULL)
            return false;
        for (size_t k = 0; q[i].keys[k] != NULL; k++)
            if (!key_abi(q[i].keys[k]))
                return false;
    }
    return n > 0;
}

bool sy_query_local_only(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx)
{
    for (size_t i = 0; i < n; i++)
        if (!query_local(&q[i], ctx))
            return false;
    return true;
}

/* One element of PMIX_QUERY_AVAIL_SERVERS. */
static pmix_status_t server_entry(const sy_rndz_t *r, pmix_info_t *out)
{
    pmix_info_t *in;
    size_t n = 0, cap = 10;
    PMIX_INFO_CREATE(in, cap);
    if (in == NULL)
        return PMIX_ERR_NOMEM;
    uint32_t pid = (uint32_t)r->pid;
    PMIX_INFO_LOAD(&in[n++], PMIX_NSPACE, r->server.nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&in[n++], PMIX_RANK, &r->server.rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&in[n++], PMIX_SERVER_PIDINFO, &pid, PMIX_UINT32);
    PMIX_INFO_LOAD(&in[n++], PMIX_TOOL_ATTACHMENT_FILE, r->path, PMIX_STRING);
    if (r->uri != NULL)
        PMIX_INFO_LOAD(&in[n++], PMIX_SERVER_URI, r->uri, PMIX_STRING);
    if (r->hostname != NULL)
        PMIX_INFO_LOAD(&in[n++], PMIX_HOSTNAME, r->hostname, PMIX_STRING);
    if (r->version != NULL)
        PMIX_INFO_LOAD(&in[n++], PMIX_VERSION_INFO, r->version, PMIX_STRING);
    if (r->system)
        PMIX_INFO_LOAD(&in[n++], PMIX_SERVER_SYSTEM_SUPPORT, NULL, PMIX_BOOL);
    /* when it began serving (wrote its rendezvous file), as ctime() puts it */
    time_t start = (time_t)r->start;
    char when[64];
    if (r->start > 0 && ctime_r(&start, when) != NULL) {
        when[strcspn(when, "\n")] = '\0';
        PMIX_INFO_LOAD(&in[n++], PMIX_SERVER_START_TIME, when, PMIX_STRING);
    }
    pmix_data_array_t *da = malloc(sizeof(*da));
    if (da == NULL) {
        PMIX_INFO_FREE(in, cap);
        return PMIX_ERR_NOMEM;
    }
    /* the unused tail stays allocated but uncounted: shrink it away */
    for (size_t i = n; i < cap; i++)
        PMIX_INFO_DESTRUCT(&in[i]);
    da->type = PMIX_INFO;
    da->size = n;
    da->array = in;
    PMIX_LOAD_KEY(out->key, PMIX_SERVER_INFO_ARRAY);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = da;
    return PMIX_SUCCESS;
}

static pmix_status_t avail_servers(pmix_info_t *out)
{
    sy_rndz_t *list = NULL;
    size_t n = 0;
    sy_rndz_scan(sy_rndz_default_dir(), &list, &n);
    PMIX_LOAD_KEY(out->key, PMIX_QUERY_AVAIL_SERVERS);
    pmix_info_t *arr = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    if (n > 0) {
        PMIX_INFO_CREATE(arr, n);
        rc = arr == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
    }
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = server_entry(&list[i], &arr[i]);
    sy_rndz_list_free(list, n);
    pmix_data_array_t *da = rc == PMIX_SUCCESS ? malloc(sizeof(*da)) : NULL;
    if (da == NULL) {
        if (arr != NULL)
            PMIX_INFO_FREE(arr, n);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    }
    da->type = PMIX_INFO;
    da->size = n;
    da->array = arr;
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = da;
    return PMIX_SUCCESS;
}

static pmix_status_t answer_key(const char *key, const sy_query_ctx_t *ctx, sy_infos_t *out)
{
    pmix_info_t *o = sy_infos_add(out);
    if (o == NULL)
        return PMIX_ERR_NOMEM;
    if (strcmp(key, PMIX_QUERY_AVAIL_SERVERS) == 0) {
        pmix_status_t rc = avail_servers(o);
        if (rc != PMIX_SUCCESS)
            out->n--;
        return rc;
    }
    if (key_abi(key))
        return PMIx_Info_load(o, key,
                              strcmp(key, PMIX_QUERY_STABLE_ABI_VERSION) == 0
                                  ? SY_ABI_STABLE_VERSION
                                  : SY_ABI_PROVISIONAL_VERSION,
                              PMIX_STRING);
    return PMIx_Info_load(o, PMIX_SERVER_URI, ctx->server_uri, PMIX_STRING);
}

static pmix_status_t add_rest(pmix_query_t **rest, size_t *nrest, size_t *cap,
                              const pmix_query_t *q, char **keys)
{
    if (*nrest == *cap) {
        size_t c = *cap ? 2 * *cap : 4;
        pmix_query_t *g = realloc(*rest, c * sizeof(*g));
        if (g == NULL)
            return PMIX_ERR_NOMEM;
        *rest = g;
        *cap = c;
    }
    pmix_query_t *r = &(*rest)[*nrest];
    memset(r, 0, sizeof(*r));
    r->keys = keys;
    (*nrest)++;
    if (q->nqual > 0 && q->qualifiers != NULL) {
        PMIX_INFO_CREATE(r->qualifiers, q->nqual);
        if (r->qualifiers == NULL)
            return PMIX_ERR_NOMEM;
        r->nqual = q->nqual;
        for (size_t i = 0; i < q->nqual; i++)
            PMIx_Info_xfer(&r->qualifiers[i], &q->qualifiers[i]);
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_query_split(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx,
                             sy_infos_t *answers, size_t *asked, size_t *found, pmix_query_t **rest,
                             size_t *nrest)
{
    size_t cap = 0;
    *rest = NULL;
    *nrest = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        const pmix_query_t *qi = &q[i];
        size_t nk = 0;
        while (qi->keys != NULL && qi->keys[nk] != NULL)
            nk++;
        if (sy_support_is_query(qi) && query_local(qi, ctx)) {
            rc =
                sy_support_answer(qi, ctx->host, ctx->nhost, ctx->have_host, answers, asked, found);
            continue;
        }
        char **keys = calloc(nk + 1, sizeof(char *));
        if (keys == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        size_t left = 0;
        for (size_t k = 0; k < nk && rc == PMIX_SUCCESS; k++) {
            pmix_value_t v = {0};
            pmix_status_t own = ctx->answer != NULL && !sy_support_is_query(qi)
                                    ? ctx->answer(qi, qi->keys[k], &v)
                                    : PMIX_ERR_NOT_SUPPORTED;
            if (own != PMIX_ERR_NOT_SUPPORTED) {
                (*asked)++;
                pmix_info_t *o = own == PMIX_SUCCESS ? sy_infos_add(answers) : NULL;
                if (o != NULL) {
                    PMIX_LOAD_KEY(o->key, qi->keys[k]);
                    o->value = v;
                    (*found)++;
                } else if (own == PMIX_SUCCESS) {
                    PMIx_Value_destruct(&v);
                    rc = PMIX_ERR_NOMEM;
                }
            } else if (!sy_support_is_query(qi) && key_local(qi->keys[k], ctx)) {
                (*asked)++;
                rc = answer_key(qi->keys[k], ctx, answers);
                if (rc == PMIX_SUCCESS)
                    (*found)++;
                else if (rc == PMIX_ERR_NOT_FOUND)
                    rc = PMIX_SUCCESS;
            } else if ((keys[left] = strdup(qi->keys[k])) == NULL) {
                rc = PMIX_ERR_NOMEM;
            } else {
                left++;
            }
        }
        if (rc == PMIX_SUCCESS && left > 0) {
            rc = add_rest(rest, nrest, &cap, qi, keys);
        } else {
            for (size_t k = 0; k < left; k++)
                free(keys[k]);
            free(keys);
        }
    }
    if (rc != PMIX_SUCCESS && *rest != NULL) {
        PMIX_QUERY_FREE(*rest, *nrest);
        *rest = NULL;
        *nrest = 0;
    }
    return rc;
}

pmix_status_t sy_query_status(size_t asked, size_t found, bool host_asked,
                              pmix_status_t host_status, size_t host_n)
{
    if (!host_asked)
        return found == asked ? PMIX_SUCCESS
               : found > 0    ? PMIX_ERR_PARTIAL_SUCCESS
                              : PMIX_ERR_NOT_FOUND;
    bool host_all = host_status == PMIX_SUCCESS;
    bool host_some = host_all || (host_status == PMIX_ERR_PARTIAL_SUCCESS && host_n > 0);
    if (asked == 0)
        return host_status;
    if (found == asked && host_all)
        return PMIX_SUCCESS;
    if (found > 0 || host_some)
        return PMIX_ERR_PARTIAL_SUCCESS;
    return host_status == PMIX_ERR_NOT_FOUND || host_status == PMIX_ERR_NOT_SUPPORTED
               ? PMIX_ERR_NOT_FOUND
               : host_status;
}

typedef struct {
    pmix_status_t status;
    sy_infos_t answers;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
} local_t;

static void release_answers(void *arg)
{
    sy_infos_t *l = arg;
    sy_infos_free(l);
    free(l);
}

void sy_query_deliver(pmix_status_t status, sy_infos_t *answers, pmix_info_cbfunc_t cbfunc,
                      void *cbdata)
{
    sy_infos_t *l = malloc(sizeof(*l));
    if (l == NULL) {
        sy_infos_free(answers);
        if (cbfunc != NULL)
            cbfunc(PMIX_ERR_NOMEM, NULL, 0, cbdata, NULL, NULL);
        return;
    }
    *l = *answers;
    memset(answers, 0, sizeof(*answers));
    bool none = status != PMIX_SUCCESS && status != PMIX_ERR_PARTIAL_SUCCESS;
    if (cbfunc == NULL) {
        release_answers(l);
        return;
    }
    cbfunc(status, none || l->n == 0 ? NULL : l->info, none ? 0 : l->n, cbdata, release_answers, l);
}

static void deliver_local(void *arg)
{
    local_t *x = arg;
    sy_query_deliver(x->status, &x->answers, x->cbfunc, x->cbdata);
    free(x);
}

pmix_status_t sy_query_answer_local(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    local_t *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return PMIX_ERR_NOMEM;
    size_t asked = 0, found = 0, nrest = 0;
    pmix_query_t *rest = NULL;
    pmix_status_t rc = sy_query_split(q, n, ctx, &x->answers, &asked, &found, &rest, &nrest);
    if (rest != NULL)
        PMIX_QUERY_FREE(rest, nrest); /* sy_query_local_only said there is none */
    if (rc != PMIX_SUCCESS) {
        sy_infos_free(&x->answers);
        free(x);
        return rc;
    }
    x->status = sy_query_status(asked, found, false, PMIX_SUCCESS, 0);
    x->cbfunc = cbfunc;
    x->cbdata = cbdata;
    rc = sy_progress_post(p, deliver_local, x);
    if (rc != PMIX_SUCCESS) {
        sy_infos_free(&x->answers);
        free(x);
    }
    return rc;
}

pmix_status_t sy_query_answer_now(const pmix_query_t q[], size_t n, pmix_info_t **results,
                                  size_t *nresults)
{
    sy_query_ctx_t ctx = {0};
    sy_infos_t answers = {0};
    size_t asked = 0, found = 0, nrest = 0;
    pmix_query_t *rest = NULL;
    pmix_status_t rc = sy_query_split(q, n, &ctx, &answers, &asked, &found, &rest, &nrest);
    if (rest != NULL)
        PMIX_QUERY_FREE(rest, nrest);
    if (rc == PMIX_SUCCESS)
        rc = sy_query_status(asked, found, false, PMIX_SUCCESS, 0);
    if (rc == PMIX_SUCCESS && answers.n > 0) {
        PMIX_INFO_CREATE(*results, answers.n);
        if (*results == NULL)
            rc = PMIX_ERR_NOMEM;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < answers.n; i++)
            rc = PMIx_Info_xfer(&(*results)[i], &answers.info[i]);
        if (rc == PMIX_SUCCESS) {
            *nresults = answers.n;
        } else if (*results != NULL) {
            PMIX_INFO_FREE(*results, answers.n);
            *results = NULL;
        }
    }
    sy_infos_free(&answers);
    return rc;
}
