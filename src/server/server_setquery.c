/* The query keys of process sets and groups, which the server library
 * answers itself from what it holds: PMIX_QUERY_NUM_PSETS, _PSET_NAMES,
 * _PSET_MEMBERSHIP, PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES, _GROUP_MEMBERSHIP,
 * and the sets and groups a process is in (PMIX_PSET_NAMES,
 * PMIX_GROUP_NAMES with a PMIX_PROCID qualifier, which is how a client's
 * PMIx_Get of those keys reaches us).  The other keys go to the host's
 * query upcall (server_hostops.c).  Loop only. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/store.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_setquery.h"
#include "server/server_group.h"
#include "server/server_pset.h"

static const pmix_info_t *qualifier(const pmix_query_t *q, const char *key)
{
    for (size_t i = 0; q->qualifiers != NULL && i < q->nqual; i++)
        if (sy_info_is(&q->qualifiers[i], key))
            return &q->qualifiers[i];
    return NULL;
}

static const char *qual_string(const pmix_query_t *q, const char *key)
{
    const pmix_info_t *i = qualifier(q, key);
    return i != NULL && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* PMIX_PROCID, or PMIX_NSPACE with PMIX_RANK. */
static bool qual_proc(const pmix_query_t *q, pmix_proc_t *p)
{
    const pmix_info_t *id = qualifier(q, PMIX_PROCID);
    if (id != NULL && id->value.type == PMIX_PROC && id->value.data.proc != NULL) {
        *p = *id->value.data.proc;
        return true;
    }
    const char *ns = qual_string(q, PMIX_NSPACE);
    const pmix_info_t *rank = qualifier(q, PMIX_RANK);
    if (ns == NULL || rank == NULL || rank->value.type != PMIX_PROC_RANK)
        return false;
    PMIX_LOAD_PROCID(p, ns, rank->value.data.rank);
    return true;
}

/* "a,b,c": what 4.2.2 and its consumers (PRRTE, Open MPI's sessions)
 * exchange for PMIX_QUERY_PSET_NAMES. */
static pmix_status_t joined_names(pmix_value_t *v)
{
    pmix_value_t arr = {0};
    pmix_status_t rc = sy_srv_pset_names(NULL, &arr);
    if (rc != PMIX_SUCCESS)
        return rc;
    char **names = arr.data.darray->array;
    size_t len = 1;
    for (size_t i = 0; i < arr.data.darray->size; i++)
        len += strlen(names[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; s != NULL && i < arr.data.darray->size; i++) {
        if (i > 0)
            strcat(s, ",");
        strcat(s, names[i]);
    }
    PMIx_Value_destruct(&arr);
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    v->type = PMIX_STRING;
    v->data.string = s;
    return PMIX_SUCCESS;
}

/* The process's sets: ours plus those its job data names. */
static pmix_status_t psets_of(const pmix_proc_t *p, pmix_value_t *v)
{
    pmix_status_t rc = sy_srv_pset_names(p, v);
    pmix_value_t *reg = NULL;
    if (rc != PMIX_SUCCESS || sy_store_get(p, PMIX_PSET_NAMES, NULL, 0, &reg) != PMIX_SUCCESS)
        return rc;
    pmix_data_array_t *da = v->data.darray;
    const char *one = reg->type == PMIX_STRING ? reg->data.string : NULL;
    char **extra = one != NULL ? (char **)&one : NULL;
    size_t nextra = one != NULL ? 1 : 0;
    if (reg->type == PMIX_DATA_ARRAY && reg->data.darray != NULL &&
        reg->data.darray->type == PMIX_STRING) {
        extra = reg->data.darray->array;
        nextra = reg->data.darray->size;
    }
    char **grown = realloc(da->array, (da->size + nextra + 1) * sizeof(char *));
    if (grown != NULL) {
        da->array = grown;
        for (size_t i = 0; i < nextra; i++) {
            bool dup = extra[i] == NULL;
            for (size_t k = 0; k < da->size && !dup; k++)
                dup = strcmp(grown[k], extra[i]) == 0;
            if (!dup && (grown[da->size] = strdup(extra[i])) != NULL)
                da->size++;
        }
    }
    PMIX_VALUE_RELEASE(reg);
    return PMIX_SUCCESS;
}

pmix_status_t sy_srv_sets_answer(const pmix_query_t *q, const char *key, pmix_value_t *v)
{
    pmix_proc_t p;
    if (strcmp(key, PMIX_QUERY_NUM_PSETS) == 0) {
        size_t n = sy_srv_pset_count();
        PMIX_VALUE_LOAD(v, &n, PMIX_SIZE);
        return PMIX_SUCCESS;
    }
    if (strcmp(key, PMIX_QUERY_PSET_NAMES) == 0)
        return joined_names(v);
    if (strcmp(key, PMIX_QUERY_PSET_MEMBERSHIP) == 0)
        return sy_srv_pset_members(qual_string(q, PMIX_PSET_NAME), v);
    if (strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0) {
        pmix_value_t names = {0};
        pmix_status_t rc = sy_srv_group_names(NULL, &names);
        if (rc == PMIX_SUCCESS) {
            size_t n = names.data.darray->size;
            PMIx_Value_destruct(&names);
            PMIX_VALUE_LOAD(v, &n, PMIX_SIZE);
        }
        return rc;
    }
    if (strcmp(key, PMIX_QUERY_GROUP_NAMES) == 0)
        return sy_srv_group_names(NULL, v);
    if (strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) == 0)
        return sy_srv_group_members(qual_string(q, PMIX_GROUP_ID), v);
    if (strcmp(key, PMIX_PSET_NAMES) == 0)
        return qual_proc(q, &p) ? psets_of(&p, v) : PMIX_ERR_BAD_PARAM;
    if (strcmp(key, PMIX_GROUP_NAMES) == 0)
        return qual_proc(q, &p) ? sy_srv_group_names(&p, v) : PMIX_ERR_BAD_PARAM;
    return PMIX_ERR_NOT_SUPPORTED;
}
