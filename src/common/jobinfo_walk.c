/* Containers and realms: every value the host gave goes into the builder
 * under the realm of the container that holds it (flat keys under the
 * caller's realm), identified by the PMIX_SESSION_ID / PMIX_APPNUM /
 * PMIX_NODEID or PMIX_HOSTNAME / PMIX_RANK found anywhere in the
 * container.  A later duplicate of a key replaces the earlier one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/jobinfo_internal.h"
#include "common/log.h"

typedef enum { C_NONE, C_SESSION, C_JOB, C_APP, C_NODE, C_PROC } container_t;

static container_t container_of(const char *key)
{
    if (strcmp(key, PMIX_SESSION_INFO_ARRAY) == 0) {
        return C_SESSION;
    }
    if (strcmp(key, PMIX_JOB_INFO_ARRAY) == 0) {
        return C_JOB;
    }
    if (strcmp(key, PMIX_APP_INFO_ARRAY) == 0) {
        return C_APP;
    }
    if (strcmp(key, PMIX_NODE_INFO_ARRAY) == 0) {
        return C_NODE;
    }
    if (strcmp(key, PMIX_PROC_DATA) == 0) {
        return C_PROC;
    }
    return C_NONE;
}

pmix_status_t sy_ji_items(sy_ji_t *ctx, const pmix_info_t *in, const pmix_info_t **items, size_t *n)
{
    const pmix_data_array_t *da;

    if (in->value.type != PMIX_DATA_ARRAY) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s must be a data array of PMIX_INFO (got %s)",
                          in->key, PMIx_Data_type_string(in->value.type));
    }
    da = in->value.data.darray;
    *items = NULL;
    *n = 0;
    if (da == NULL || da->size == 0) {
        return PMIX_SUCCESS;
    }
    if (da->type != PMIX_INFO) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s must hold PMIX_INFO elements (got %s)",
                          in->key, PMIx_Data_type_string(da->type));
    }
    if (da->array == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s claims %zu elements but has no array",
                          in->key, da->size);
    }
    *items = da->array;
    *n = da->size;
    return PMIX_SUCCESS;
}

/* The last entry of `key` among items (last wins, order not relied on). */
static const pmix_info_t *find(const pmix_info_t *items, size_t n, const char *key)
{
    for (size_t i = n; i > 0; i--) {
        if (strncmp(items[i - 1].key, key, PMIX_MAX_KEYLEN) == 0) {
            return &items[i - 1];
        }
    }
    return NULL;
}

static bool all_zeroed(const pmix_info_t *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ('\0' != items[i].key[0]) {
            return false;
        }
    }
    return true;
}

/* The integer identifying a container, type-checked like any value. */
static pmix_status_t id_of(sy_ji_t *ctx, const pmix_info_t *ident, uint32_t *id)
{
    uint64_t u;
    pmix_status_t rc = sy_ji_check_type(ctx, ident->key, &ident->value);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (!sy_ji_uint(&ident->value, &u) || u >= UINT32_MAX) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s is not a valid identifier", ident->key);
    }
    *id = (uint32_t)u;
    return PMIX_SUCCESS;
}

uint32_t sy_ji_node_id_for(sy_ji_t *ctx, const char *name)
{
    uint32_t *ids = NULL, found = SY_JI_NO_ID, next = 0;
    size_t n = 0;

    if (sy_jseg_builder_ids(ctx->b, SY_REALM_NODE, &ids, &n) == PMIX_SUCCESS) {
        for (size_t i = 0; i < n && found == SY_JI_NO_ID; i++) {
            const char *h = sy_ji_peek_text(ctx, SY_REALM_NODE, ids[i], PMIX_HOSTNAME, NULL);
            const char *al =
                sy_ji_peek_text(ctx, SY_REALM_NODE, ids[i], PMIX_HOSTNAME_ALIASES, NULL);
            if ((h != NULL && strcmp(h, name) == 0) || sy_ji_in_aliases(al, name)) {
                found = ids[i];
            }
        }
        if (n > 0) {
            next = ids[n - 1] + 1;
        }
    }
    for (size_t i = 0; i < ctx->nnodes && found == SY_JI_NO_ID; i++) {
        if (ctx->nodes[i].name != NULL && strcmp(ctx->nodes[i].name, name) == 0) {
            found = ctx->nodes[i].id;
        }
    }
    for (size_t i = 0; i < ctx->nnodes && found == SY_JI_NO_ID; i++) {
        if (sy_ji_same_host(ctx->nodes[i].name, name)) {
            found = ctx->nodes[i].id;
        }
    }
    for (size_t i = 0; i < n && found == SY_JI_NO_ID; i++) {
        if (sy_ji_same_host(sy_ji_peek_text(ctx, SY_REALM_NODE, ids[i], PMIX_HOSTNAME, NULL),
                            name)) {
            found = ids[i];
        }
    }
    free(ids);
    /* an earlier segment's layout: its names, and its ids taken */
    for (uint32_t i = 0; ctx->prior != NULL && i < ctx->prior->h.nnodes; i++) {
        uint32_t nid;
        const char *nm;
        size_t len;
        if (!sy_jl_node_at(ctx->prior, i, &nid, &nm, &len)) {
            break;
        }
        if (found == SY_JI_NO_ID && nm != NULL && len == strlen(name) &&
            memcmp(nm, name, len) == 0) {
            found = nid;
        }
        if (nid != SY_JI_NO_ID && nid >= next) {
            next = nid + 1;
        }
    }
    if (found != SY_JI_NO_ID) {
        return found;
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (ctx->nodes[i].id != SY_JI_NO_ID && ctx->nodes[i].id >= next) {
            next = ctx->nodes[i].id + 1;
        }
    }
    return next;
}

static pmix_status_t defer_node(sy_ji_t *ctx, const pmix_info_t *items, size_t n,
                                const char *hostname, int depth)
{
    sy_ji_deferred_t *d = realloc(ctx->deferred, (ctx->ndeferred + 1) * sizeof(*d));
    if (d == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    ctx->deferred = d;
    d[ctx->ndeferred++] = (sy_ji_deferred_t){items, n, hostname, depth};
    return PMIX_SUCCESS;
}

/* Per-process data is read once the layout is known (jobinfo_procs.c). */
static pmix_status_t record_proc(sy_ji_t *ctx, pmix_rank_t rank, const pmix_info_t *items, size_t n,
                                 int depth, const pmix_value_t *nodeid, const pmix_value_t *appnum)
{
    if (ctx->nprocs == ctx->procs_cap) {
        size_t cap = ctx->procs_cap == 0 ? 64 : 2 * ctx->procs_cap;
        sy_ji_proc_t *p = realloc(ctx->procs, cap * sizeof(*p));
        if (p == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        ctx->procs = p;
        ctx->procs_cap = cap;
    }
    if (ctx->nprocs >= UINT32_MAX) {
        return sy_ji_fail(ctx, PMIX_ERR_OUT_OF_RESOURCE, "too many %s", PMIX_PROC_DATA);
    }
    ctx->procs[ctx->nprocs] =
        (sy_ji_proc_t){rank, (uint32_t)ctx->nprocs, items, n, depth, nodeid, appnum};
    ctx->nprocs++;
    return PMIX_SUCCESS;
}

/* A PMIX_PROC_DATA to record: one pass over its items finds its rank and
 * the values the layout needs. */
static pmix_status_t enter_proc(sy_ji_t *ctx, const pmix_info_t *in, const pmix_info_t *items,
                                size_t n, int depth)
{
    const pmix_info_t *ident = NULL;
    const pmix_value_t *nodeid = NULL, *appnum = NULL;
    uint32_t id = 0;
    pmix_status_t rc;

    for (size_t i = 0; i < n; i++) {
        const char *k = items[i].key;
        if (strncmp(k, PMIX_RANK, PMIX_MAX_KEYLEN) == 0) {
            ident = &items[i];
        } else if (strncmp(k, PMIX_NODEID, PMIX_MAX_KEYLEN) == 0) {
            nodeid = &items[i].value;
        } else if (strncmp(k, PMIX_APPNUM, PMIX_MAX_KEYLEN) == 0) {
            appnum = &items[i].value;
        }
    }
    if (ident == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s without %s", in->key, PMIX_RANK);
    }
    if ((rc = id_of(ctx, ident, &id)) != PMIX_SUCCESS) {
        return rc;
    }
    if (id >= PMIX_RANK_VALID) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s names the special rank %u", in->key, id);
    }
    return record_proc(ctx, id, items, n, depth + 1, nodeid, appnum);
}

static pmix_status_t enter(sy_ji_t *ctx, const pmix_info_t *in, container_t c, int depth)
{
    const pmix_info_t *items, *ident;
    size_t n;
    uint32_t id = 0;
    pmix_status_t rc;

    if (depth >= SY_JI_MAX_DEPTH) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "containers nested deeper than %d levels",
                          SY_JI_MAX_DEPTH);
    }
    if ((rc = sy_ji_items(ctx, in, &items, &n)) != PMIX_SUCCESS) {
        return rc;
    }
    if (all_zeroed(items, n)) {
        return PMIX_SUCCESS; /* an unused slot of a host's preallocated array */
    }
    if (ctx->nspace == NULL && C_NODE != c && C_SESSION != c) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s is not resource (node) data", in->key);
    }
    switch (c) {
    case C_SESSION:
        if ((ident = find(items, n, PMIX_SESSION_ID)) != NULL &&
            (rc = id_of(ctx, ident, &id)) != PMIX_SUCCESS) {
            return rc;
        }
        return sy_ji_walk(ctx, items, n, SY_REALM_SESSION, id, depth + 1);
    case C_JOB:
        ident = find(items, n, PMIX_NSPACE);
        if (ident != NULL && ident->value.type == PMIX_STRING && ident->value.data.string != NULL &&
            strncmp(ident->value.data.string, ctx->nspace, PMIX_MAX_NSLEN) != 0) {
            /* a session array may describe its other jobs too */
            sy_log(SY_LOG_DEBUG, "register_nspace %s: skipping the job array of %s", ctx->nspace,
                   ident->value.data.string);
            return PMIX_SUCCESS;
        }
        return sy_ji_walk(ctx, items, n, SY_REALM_JOB, 0, depth + 1);
    case C_APP:
        if ((ident = find(items, n, PMIX_APPNUM)) != NULL &&
            (rc = id_of(ctx, ident, &id)) != PMIX_SUCCESS) {
            return rc;
        }
        return sy_ji_walk(ctx, items, n, SY_REALM_APP, id, depth + 1);
    case C_NODE:
        if ((ident = find(items, n, PMIX_NODEID)) != NULL) {
            if ((rc = id_of(ctx, ident, &id)) != PMIX_SUCCESS) {
                return rc;
            }
            return sy_ji_walk(ctx, items, n, SY_REALM_NODE, id, depth + 1);
        }
        ident = find(items, n, PMIX_HOSTNAME);
        if (ident == NULL || ident->value.type != PMIX_STRING || ident->value.data.string == NULL ||
            '\0' == ident->value.data.string[0]) {
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s needs %s or a non-empty %s", in->key,
                              PMIX_NODEID, PMIX_HOSTNAME);
        }
        if (ctx->defer_nodes) {
            return defer_node(ctx, items, n, ident->value.data.string, depth + 1);
        }
        id = sy_ji_node_id_for(ctx, ident->value.data.string);
        if ((rc = sy_ji_walk(ctx, items, n, SY_REALM_NODE, id, depth + 1)) != PMIX_SUCCESS) {
            return rc;
        }
        return sy_ji_default_u32(ctx, SY_REALM_NODE, id, PMIX_NODEID, id);
    case C_PROC:
        if (ctx->record_procs) {
            return enter_proc(ctx, in, items, n, depth);
        }
        ident = find(items, n, PMIX_RANK);
        if (ident == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s without %s", in->key, PMIX_RANK);
        }
        if ((rc = id_of(ctx, ident, &id)) != PMIX_SUCCESS) {
            return rc;
        }
        if (id >= PMIX_RANK_VALID) {
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s names the special rank %u", in->key, id);
        }
        return sy_ji_walk(ctx, items, n, SY_REALM_PROC, id, depth + 1);
    default: return PMIX_ERR_BAD_PARAM;
    }
}

pmix_status_t sy_ji_flat(sy_ji_t *ctx, const pmix_info_t *in, sy_realm_t realm, uint32_t id)
{
    pmix_status_t rc;
    uint64_t sid;

    if ((rc = sy_ji_check_type(ctx, in->key, &in->value)) != PMIX_SUCCESS) {
        return rc;
    }
    if (strcmp(in->key, PMIX_REGISTER_NODATA) == 0) {
        return PMIX_SUCCESS; /* a directive, not data */
    }
    rc = sy_ji_put_host(ctx, realm, id, in->key, &in->value);
    if (rc != PMIX_SUCCESS) {
        return sy_ji_fail(ctx, rc, "cannot store %s (%s)", in->key,
                          PMIx_Data_type_string(in->value.type));
    }
    /* a session id given outside a session array also names the
     * session the job belongs to */
    if (strcmp(in->key, PMIX_SESSION_ID) == 0 && realm != SY_REALM_SESSION &&
        sy_ji_uint(&in->value, &sid) && sid < UINT32_MAX) {
        rc = sy_ji_put_host(ctx, SY_REALM_SESSION, (uint32_t)sid, in->key, &in->value);
        if (rc != PMIX_SUCCESS) {
            return sy_ji_fail(ctx, rc, "cannot store %s", in->key);
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_ji_walk(sy_ji_t *ctx, const pmix_info_t *info, size_t ninfo, sy_realm_t realm,
                         uint32_t id, int depth)
{
    pmix_status_t rc;

    if (info == NULL && ninfo > 0) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%zu info entries but no array", ninfo);
    }
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if ('\0' == in->key[0]) {
            continue; /* zeroed entry */
        }
        if (memchr(in->key, '\0', sizeof(in->key)) == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "an info key is not terminated");
        }
        container_t c = container_of(in->key);
        if (C_NONE != c) {
            if ((rc = enter(ctx, in, c, depth)) != PMIX_SUCCESS) {
                return rc;
            }
            continue;
        }
        if ((rc = sy_ji_flat(ctx, in, realm, id)) != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

static int by_name(const void *a, const void *b)
{
    const sy_ji_node_t *x = *(const sy_ji_node_t *const *)a;
    const sy_ji_node_t *y = *(const sy_ji_node_t *const *)b;
    return strcmp(x->name, y->name);
}

/* A mapped node of exactly this name, found without scanning: a host may
 * describe thousands of nodes by hostname. */
static const sy_ji_node_t *mapped(sy_ji_node_t *const *sorted, size_t n, const char *name)
{
    sy_ji_node_t key = {.name = (char *)name};
    const sy_ji_node_t *pk = &key;
    sy_ji_node_t *const *hit =
        sorted == NULL ? NULL : bsearch(&pk, sorted, n, sizeof(*sorted), by_name);
    return hit == NULL ? NULL : *hit;
}

pmix_status_t sy_ji_walk_deferred(sy_ji_t *ctx)
{
    sy_ji_node_t **sorted = NULL;
    pmix_status_t rc = PMIX_SUCCESS;

    ctx->defer_nodes = false;
    if (ctx->ndeferred > 0 && ctx->have_names && ctx->nnodes > 0 &&
        (sorted = malloc(ctx->nnodes * sizeof(*sorted))) != NULL) {
        for (size_t i = 0; i < ctx->nnodes; i++) {
            sorted[i] = &ctx->nodes[i];
        }
        qsort(sorted, ctx->nnodes, sizeof(*sorted), by_name);
    }
    for (size_t i = 0; i < ctx->ndeferred && rc == PMIX_SUCCESS; i++) {
        sy_ji_deferred_t *d = &ctx->deferred[i];
        const sy_ji_node_t *nd = mapped(sorted, ctx->nnodes, d->hostname);
        uint32_t id = nd != NULL ? nd->id : sy_ji_node_id_for(ctx, d->hostname);
        rc = sy_ji_walk(ctx, d->info, d->ninfo, SY_REALM_NODE, id, d->depth);
        if (rc == PMIX_SUCCESS) {
            rc = sy_ji_default_u32(ctx, SY_REALM_NODE, id, PMIX_NODEID, id);
        }
    }
    free(sorted);
    return rc;
}
