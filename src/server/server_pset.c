/* Process sets (Chap_API_Sets_Groups.tex, "Process Sets"):
 * PMIx_server_define_process_set / PMIx_server_delete_process_set, the
 * PMIX_PROCESS_SET_DEFINE / _DELETE events to every local client (cached,
 * so a client that registers later still learns of the sets defined
 * before), and what queries and PMIx_Get(PMIX_PSET_NAMES) read.  The
 * registry lives on the loop. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "server/server_group.h"
#include "server/server_internal.h"
#include "server/server_pset.h"
#include "server/server_event.h"
#include "server/server_util.h"

typedef struct pset {
    char *name;
    pmix_proc_t *members;
    size_t nmembers;
    struct pset *next;
} pset_t;

static pset_t *psets;

static pset_t *pset_find(const char *name)
{
    for (pset_t *p = psets; p != NULL; p = p->next)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

static void pset_free(pset_t *p)
{
    free(p->name);
    free(p->members);
    free(p);
}

static bool pset_has(const pset_t *p, const pmix_proc_t *proc)
{
    for (size_t i = 0; i < p->nmembers; i++)
        if (PMIX_CHECK_NSPACE(p->members[i].nspace, proc->nspace) &&
            (p->members[i].rank == proc->rank || p->members[i].rank == PMIX_RANK_WILDCARD))
            return true;
    return false;
}

typedef struct {
    sy_srv_op_t op; /* first */
    char *name;
    pmix_proc_t *members;
    size_t nmembers;
} pset_req_t;

static void announce(pmix_status_t code, const pset_t *p)
{
    pmix_info_t info[3];
    size_t n = 0;
    bool yes = true;
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[n++], PMIX_PSET_NAME, p->name, PMIX_STRING);
    if (code == PMIX_PROCESS_SET_DEFINE) {
        PMIX_LOAD_KEY(info[n].key, PMIX_PSET_MEMBERS);
        info[n].flags = 0;
        if (sy_group_load_procs(&info[n].value, p->members, p->nmembers) == PMIX_SUCCESS)
            n++;
    }
    sy_srv_event_raise(code, &sy_srv->me, PMIX_RANGE_LOCAL, info, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static void define_on_loop(void *arg)
{
    pset_req_t *r = arg;
    pmix_status_t rc = PMIX_SUCCESS;
    if (sy_srv == NULL) {
        rc = PMIX_ERR_INIT;
    } else if (pset_find(r->name) != NULL) {
        rc = PMIX_EXISTS;
    } else {
        pset_t *p = calloc(1, sizeof(*p));
        if (p == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            p->name = r->name;
            p->members = r->members;
            p->nmembers = r->nmembers;
            r->name = NULL;
            r->members = NULL;
            p->next = psets;
            psets = p;
            announce(PMIX_PROCESS_SET_DEFINE, p);
        }
    }
    free(r->name);
    free(r->members);
    sy_srv_op_finish(&r->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers, const char *pset_name)
{
    if (pset_name == NULL || pset_name[0] == '\0' || (members == NULL && nmembers > 0))
        return PMIX_ERR_BAD_PARAM;
    pset_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->name = strdup(pset_name)) == NULL ||
        (nmembers > 0 && (r->members = calloc(nmembers, sizeof(*members))) == NULL)) {
        if (r != NULL)
            free(r->name);
        free(r);
        return PMIX_ERR_NOMEM;
    }
    if (nmembers > 0)
        memcpy(r->members, members, nmembers * sizeof(*members));
    r->nmembers = nmembers;
    /* blocking: the set exists for every query once we return */
    return sy_srv_op_start(&r->op, define_on_loop, NULL, NULL);
}

static void delete_on_loop(void *arg)
{
    pset_req_t *r = arg;
    pmix_status_t rc = sy_srv == NULL ? PMIX_ERR_INIT : PMIX_ERR_NOT_FOUND;
    for (pset_t **pp = &psets; sy_srv != NULL && *pp != NULL; pp = &(*pp)->next) {
        pset_t *p = *pp;
        if (strcmp(p->name, r->name) != 0)
            continue;
        *pp = p->next;
        announce(PMIX_PROCESS_SET_DELETE, p);
        pset_free(p);
        rc = PMIX_SUCCESS;
        break;
    }
    free(r->name);
    sy_srv_op_finish(&r->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name)
{
    if (pset_name == NULL || pset_name[0] == '\0')
        return PMIX_ERR_BAD_PARAM;
    pset_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->name = strdup(pset_name)) == NULL) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    return sy_srv_op_start(&r->op, delete_on_loop, NULL, NULL);
}

void sy_srv_pset_finalize(sy_srv_t *s)
{
    (void)s;
    while (psets != NULL) {
        pset_t *p = psets;
        psets = p->next;
        pset_free(p);
    }
}

size_t sy_srv_pset_count(void)
{
    size_t n = 0;
    for (pset_t *p = psets; p != NULL; p = p->next)
        n++;
    return n;
}

pmix_status_t sy_srv_pset_names(const pmix_proc_t *member, pmix_value_t *out)
{
    const char **names = calloc(sy_srv_pset_count() + 1, sizeof(char *));
    if (names == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (pset_t *p = psets; p != NULL; p = p->next)
        if (member == NULL || pset_has(p, member))
            names[k++] = p->name;
    pmix_status_t rc = sy_group_load_strings(out, names, k);
    free(names);
    return rc;
}

pmix_status_t sy_srv_pset_members(const char *name, pmix_value_t *out)
{
    pset_t *p = name != NULL ? pset_find(name) : NULL;
    if (p == NULL)
        return PMIX_ERR_NOT_FOUND;
    return sy_group_load_procs(out, p->members, p->nmembers);
}
