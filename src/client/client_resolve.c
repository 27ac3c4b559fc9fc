/* PMIx_Resolve_peers / PMIx_Resolve_nodes, answered from the job data of
 * the store: a node's PMIX_LOCAL_PEERS and a job's PMIX_NODE_LIST. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/store.h"

static bool nspace_given(const char *nspace)
{
    return nspace != NULL && nspace[0] != '\0';
}

/* The namespaces to look at: the one named, or every one the store knows. */
static pmix_status_t nspaces_of(const char *nspace, char ***out)
{
    if (!nspace_given(nspace))
        return sy_store_nspaces(out);
    char **l = calloc(2, sizeof(char *));
    if (l == NULL || (l[0] = strndup(nspace, PMIX_MAX_NSLEN)) == NULL) {
        free(l);
        return PMIX_ERR_NOMEM;
    }
    *out = l;
    return PMIX_SUCCESS;
}

static void free_list(char **l)
{
    for (size_t i = 0; l != NULL && l[i] != NULL; i++)
        free(l[i]);
    free(l);
}

static pmix_status_t job_string(const char *nspace, const char *key, const char *nodename,
                                char **out)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, nspace, PMIX_RANK_WILDCARD);
    pmix_info_t q[2];
    size_t nq = 0;
    PMIX_INFO_CONSTRUCT(&q[0]);
    PMIX_INFO_CONSTRUCT(&q[1]);
    if (nodename != NULL) {
        PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, nodename, PMIX_STRING);
        nq = 2;
    }
    pmix_value_t *v = NULL;
    pmix_status_t rc = sy_store_get(&wild, key, nq > 0 ? q : NULL, nq, &v);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    *out = NULL;
    if (rc != PMIX_SUCCESS)
        return rc;
    if (v->type == PMIX_STRING) {
        *out = v->data.string;
        v->data.string = NULL;
    } else {
        rc = PMIX_ERR_TYPE_MISMATCH;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static bool known_nspace(const char *nspace)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (sy_store_get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
        return false;
    PMIX_VALUE_RELEASE(v);
    return true;
}

static pmix_status_t add_ranks(const char *nspace, const char *list, pmix_proc_t **procs, size_t *n)
{
    size_t more = 0;
    for (const char *p = list; *p; p++)
        more += (*p == ',');
    more += (*list != '\0');
    if (more == 0)
        return PMIX_SUCCESS;
    pmix_proc_t *grown = realloc(*procs, (*n + more) * sizeof(pmix_proc_t));
    if (grown == NULL)
        return PMIX_ERR_NOMEM;
    *procs = grown;
    const char *p = list;
    while (*p != '\0') {
        char *end = NULL;
        unsigned long r = strtoul(p, &end, 10);
        if (end == p)
            return PMIX_ERR_BAD_PARAM;
        PMIX_LOAD_PROCID(&grown[*n], nspace, (pmix_rank_t)r);
        (*n)++;
        p = (*end == ',') ? end + 1 : end;
    }
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename, const pmix_nspace_t nspace,
                                             pmix_proc_t **procs, size_t *nprocs)
{
    if (!sy_store_active())
        return PMIX_ERR_INIT;
    if (procs == NULL || nprocs == NULL)
        return PMIX_ERR_BAD_PARAM;
    *procs = NULL;
    *nprocs = 0;
    char **names = NULL;
    pmix_status_t rc = nspaces_of(nspace, &names);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (nspace_given(nspace) && !known_nspace(names[0])) {
        free_list(names);
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_proc_t *out = NULL;
    size_t n = 0;
    for (size_t i = 0; names[i] != NULL && rc == PMIX_SUCCESS; i++) {
        char *peers = NULL;
        if (job_string(names[i], PMIX_LOCAL_PEERS, nodename, &peers) == PMIX_SUCCESS &&
            peers != NULL)
            rc = add_ranks(names[i], peers, &out, &n);
        free(peers);
    }
    free_list(names);
    if (rc != PMIX_SUCCESS) {
        free(out);
        return rc;
    }
    /* Same memory contract as PMIX_PROC_CREATE/FREE: calloc'd, free(). */
    if (n > 0) {
        PMIX_PROC_CREATE(*procs, n);
        if (*procs == NULL) {
            free(out);
            return PMIX_ERR_NOMEM;
        }
        memcpy(*procs, out, n * sizeof(pmix_proc_t));
        *nprocs = n;
    }
    free(out);
    return PMIX_SUCCESS;
}

static bool in_csv(const char *csv, const char *item, size_t len)
{
    for (const char *p = csv; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t l = end != NULL ? (size_t)(end - p) : strlen(p);
        if (l == len && strncmp(p, item, len) == 0)
            return true;
        p = end != NULL ? end + 1 : NULL;
    }
    return false;
}

/* Append the names of `list` that `acc` lacks, keeping their order. */
static pmix_status_t merge_csv(char **acc, const char *list)
{
    if (*acc == NULL) {
        *acc = strdup(list);
        return *acc != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t l = end != NULL ? (size_t)(end - p) : strlen(p);
        if (l > 0 && !in_csv(*acc, p, l)) {
            size_t have = strlen(*acc);
            char *grown = realloc(*acc, have + l + 2);
            if (grown == NULL)
                return PMIX_ERR_NOMEM;
            grown[have] = ',';
            memcpy(grown + have + 1, p, l);
            grown[have + 1 + l] = '\0';
            *acc = grown;
        }
        p = end != NULL ? end + 1 : NULL;
    }
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist)
{
    if (!sy_store_active())
        return PMIX_ERR_INIT;
    if (nodelist == NULL)
        return PMIX_ERR_BAD_PARAM;
    *nodelist = NULL;
    char **names = NULL;
    pmix_status_t rc = nspaces_of(nspace, &names);
    if (rc != PMIX_SUCCESS)
        return rc;
    char *acc = NULL;
    for (size_t i = 0; names[i] != NULL && rc == PMIX_SUCCESS; i++) {
        char *list = NULL;
        pmix_status_t grc = job_string(names[i], PMIX_NODE_LIST, NULL, &list);
        if (grc == PMIX_SUCCESS && list != NULL)
            rc = merge_csv(&acc, list);
        else if (nspace_given(nspace))
            rc = grc == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : grc;
        free(list);
    }
    free_list(names);
    if (rc != PMIX_SUCCESS) {
        free(acc);
        return rc;
    }
    *nodelist = acc;
    return PMIX_SUCCESS;
}
