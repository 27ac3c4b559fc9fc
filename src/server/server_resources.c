/* PMIx_server_register_resources / deregister_resources: static node data
 * (for this node as flat keys, for any node in PMIX_NODE_INFO_ARRAY
 * entries) that every job on the node sees.  Registrations accumulate; a
 * deregistration removes what it names; each change republishes the
 * resources segment. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_fabric.h"
#include "server/server_registry.h"
#include "server/server_util.h"

typedef struct {
    sy_srv_op_t op;
    pmix_info_t *info;
    size_t ninfo;
} res_req_t;

static pmix_status_t copy_infos(const pmix_info_t *src, size_t n, pmix_info_t **out)
{
    *out = NULL;
    if (n == 0)
        return PMIX_SUCCESS;
    pmix_info_t *dst;
    PMIX_INFO_CREATE(dst, n);
    if (dst == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = PMIx_Info_xfer(&dst[i], &src[i]);
        if (rc != PMIX_SUCCESS) {
            PMIX_INFO_FREE(dst, n);
            return rc;
        }
    }
    *out = dst;
    return PMIX_SUCCESS;
}

static void register_on_loop(void *arg)
{
    res_req_t *r = arg;
    sy_srv_t *s = sy_srv;
    pmix_status_t rc = PMIX_ERR_INIT;
    if (s != NULL) {
        sy_srv_res_t *res = calloc(1, sizeof(*res));
        rc = res != NULL ? copy_infos(r->info, r->ninfo, &res->info) : PMIX_ERR_NOMEM;
        if (rc == PMIX_SUCCESS) {
            res->ninfo = r->ninfo;
            sy_srv_res_t **tail = &s->resources;
            while (*tail != NULL)
                tail = &(*tail)->next;
            *tail = res;
            rc = sy_srv_resources_publish(s);
            if (rc != PMIX_SUCCESS) {
                *tail = NULL;
                PMIX_INFO_FREE(res->info, res->ninfo);
                free(res);
            }
        } else {
            free(res);
        }
    }
    sy_srv_op_finish(&r->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    res_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->info = info;
    r->ninfo = ninfo;
    return sy_srv_op_start(&r->op, register_on_loop, cbfunc, cbdata);
}

/* ---- deregistration ---- */

static bool is_node_array(const pmix_info_t *inf)
{
    return strncmp(inf->key, PMIX_NODE_INFO_ARRAY, PMIX_MAX_KEYLEN) == 0 &&
           inf->value.type == PMIX_DATA_ARRAY && inf->value.data.darray != NULL &&
           inf->value.data.darray->type == PMIX_INFO;
}

static bool is_identity(const pmix_info_t *inf)
{
    return strncmp(inf->key, PMIX_HOSTNAME, PMIX_MAX_KEYLEN) == 0 ||
           strncmp(inf->key, PMIX_NODEID, PMIX_MAX_KEYLEN) == 0;
}

/* Two node arrays describe the same node when they share a hostname or a
 * node id. */
static bool same_node(const pmix_data_array_t *a, const pmix_data_array_t *b)
{
    const pmix_info_t *ia = a->array, *ib = b->array;
    for (size_t i = 0; i < a->size; i++) {
        if (!is_identity(&ia[i]))
            continue;
        for (size_t j = 0; j < b->size; j++)
            if (strncmp(ia[i].key, ib[j].key, PMIX_MAX_KEYLEN) == 0 &&
                PMIx_Value_compare((pmix_value_t *)&ia[i].value, (pmix_value_t *)&ib[j].value) ==
                    PMIX_EQUAL)
                return true;
    }
    return false;
}

static bool names_key(const pmix_info_t *list, size_t n, const char *key, bool skip_identity)
{
    for (size_t i = 0; i < n; i++) {
        if (skip_identity && is_identity(&list[i]))
            continue;
        if (!is_node_array(&list[i]) && strncmp(list[i].key, key, PMIX_MAX_KEYLEN) == 0)
            return true;
    }
    return false;
}

/* Drop from node array `arr` the keys `gone` lists (all of its data when
 * `gone` names only the node).  Returns true when nothing but the node's
 * identity is left. */
static bool prune_node(pmix_data_array_t *arr, const pmix_data_array_t *gone)
{
    const pmix_info_t *g = gone->array;
    bool whole = true;
    for (size_t j = 0; j < gone->size; j++)
        if (!is_identity(&g[j]))
            whole = false;
    pmix_info_t *a = arr->array;
    size_t keep = 0;
    for (size_t i = 0; i < arr->size; i++) {
        bool drop = !is_identity(&a[i]) && (whole || names_key(g, gone->size, a[i].key, true));
        if (drop) {
            PMIX_INFO_DESTRUCT(&a[i]);
        } else {
            if (keep != i) {
                a[keep] = a[i];
                memset(&a[i], 0, sizeof(a[i]));
            }
            keep++;
        }
    }
    arr->size = keep;
    for (size_t i = 0; i < keep; i++)
        if (!is_identity(&a[i]))
            return false;
    return true;
}

static void prune_registration(sy_srv_res_t *res, const pmix_info_t *gone, size_t ngone)
{
    size_t keep = 0;
    for (size_t i = 0; i < res->ninfo; i++) {
        pmix_info_t *inf = &res->info[i];
        bool drop = false;
        if (is_node_array(inf)) {
            for (size_t j = 0; j < ngone && !drop; j++)
                if (is_node_array(&gone[j]) &&
                    same_node(inf->value.data.darray, gone[j].value.data.darray))
                    drop = prune_node(inf->value.data.darray, gone[j].value.data.darray);
        } else {
            drop = names_key(gone, ngone, inf->key, false);
        }
        if (drop) {
            PMIX_INFO_DESTRUCT(inf);
        } else {
            if (keep != i) {
                res->info[keep] = *inf;
                memset(inf, 0, sizeof(*inf));
            }
            keep++;
        }
    }
    /* ninfo shrinks; PMIX_INFO_FREE of the original count stays valid since
     * the tail entries were zeroed. */
    res->ninfo = keep;
}

static void deregister_on_loop(void *arg)
{
    res_req_t *r = arg;
    sy_srv_t *s = sy_srv;
    pmix_status_t rc = PMIX_ERR_INIT;
    if (s != NULL) {
        for (sy_srv_res_t *res = s->resources; res != NULL; res = res->next) {
            sy_srv_fabric_prune_devices(res, r->info, r->ninfo);
            prune_registration(res, r->info, r->ninfo);
        }
        rc = sy_srv_resources_publish(s);
    }
    sy_srv_op_finish(&r->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    res_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->info = info;
    r->ninfo = ninfo;
    return sy_srv_op_start(&r->op, deregister_on_loop, cbfunc, cbdata);
}
