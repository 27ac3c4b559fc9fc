/* What switchyard-run serves for process groups, process sets and
 * allocations on its one machine (docs/launcher.md):
 *   group     context ids unique for the launcher's life (1, 2, ...); every
 *             member is here, so this node's endpoint data is all of it
 *   allocate  a request with no amounts is answered with this node's
 *             resources; time is granted by pushing back --timeout; any
 *             growth is refused (PMIX_ERR_OUT_OF_RESOURCE) with what there
 *             is; nothing is lent (RELEASE/REAQUIRE: not supported); the
 *             requester's namespace hears PMIX_NOTIFY_ALLOC_COMPLETE when
 *             a request was decided (OpenPMIx 4.2.2's event, which its
 *             alloc example waits for); every decision is kept by its
 *             PMIX_ALLOC_ID for PMIX_QUERY_ALLOC_STATUS (run_ops.c)
 *   psets     one per app context given --pset NAME (as prun's --pset),
 *             defined after registration and deleted before deregistration */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

static run_job_t *grp_job;
static pthread_mutex_t grp_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t last_ctxid;

static bool flag(const pmix_info_t *i)
{
    return PMIX_INFO_TRUE(i);
}

typedef struct {
    pmix_info_t *info;
    size_t n;
} answer_t;

static void release_answer(void *cbdata)
{
    answer_t *a = cbdata;
    if (a->info != NULL)
        PMIX_INFO_FREE(a->info, a->n);
    free(a);
}

static answer_t *answer_new(size_t cap)
{
    answer_t *a = calloc(1, sizeof(*a));
    if (a != NULL && cap > 0) {
        PMIX_INFO_CREATE(a->info, cap);
        if (a->info == NULL) {
            free(a);
            return NULL;
        }
    }
    return a;
}

static pmix_status_t group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                           size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)grp;
    if (op == PMIX_GROUP_DESTRUCT) {
        cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
        return PMIX_SUCCESS;
    }
    if (op != PMIX_GROUP_CONSTRUCT)
        return PMIX_ERR_NOT_SUPPORTED;
    answer_t *a = answer_new(3);
    if (a == NULL)
        return PMIX_ERR_NOMEM;
    /* each answer once, however often its directive is repeated; of the
     * endpoint data the last (the server's own comes after a caller's) */
    bool assign = false;
    const pmix_info_t *endpts = NULL;
    for (size_t i = 0; i < ndirs; i++) {
        if (PMIX_CHECK_KEY(&directives[i], PMIX_GROUP_ASSIGN_CONTEXT_ID))
            assign = assign || flag(&directives[i]);
        else if (PMIX_CHECK_KEY(&directives[i], PMIX_GROUP_ENDPT_DATA) &&
                 directives[i].value.type == PMIX_BYTE_OBJECT)
            endpts = &directives[i];
    }
    if (assign) {
        pthread_mutex_lock(&grp_lock);
        size_t id = ++last_ctxid;
        pthread_mutex_unlock(&grp_lock);
        PMIX_INFO_LOAD(&a->info[a->n++], PMIX_GROUP_CONTEXT_ID, &id, PMIX_SIZE);
    }
    /* one node: the all-gather of the endpoint data is ours */
    if (endpts != NULL)
        PMIX_INFO_LOAD(&a->info[a->n++], PMIX_GROUP_ENDPT_DATA, &endpts->value.data.bo,
                       PMIX_BYTE_OBJECT);
    pmix_data_array_t mem = {.type = PMIX_PROC, .size = nprocs, .array = (void *)procs};
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_GROUP_MEMBERSHIP, &mem, PMIX_DATA_ARRAY);
    cbfunc(PMIX_SUCCESS, a->info, a->n, cbdata, release_answer, a);
    return PMIX_SUCCESS;
}

/* ---- allocations ---- */

/* The decided requests, by the PMIX_ALLOC_ID they named (else ours). */
typedef struct decided {
    char *id;
    pmix_status_t outcome;
    struct decided *next;
} decided_t;
static decided_t *decisions;

static void own_alloc_id(char *id, size_t len)
{
    snprintf(id, len, "switchyard-run.%ld", (long)getpid());
}

static void remember(const char *id, pmix_status_t outcome)
{
    pthread_mutex_lock(&grp_lock);
    decided_t *d = decisions;
    while (d != NULL && strcmp(d->id, id) != 0)
        d = d->next;
    if (d == NULL && (d = calloc(1, sizeof(*d))) != NULL) {
        d->id = strdup(id);
        if (d->id == NULL) {
            free(d);
            d = NULL;
        } else {
            d->next = decisions;
            decisions = d;
        }
    }
    if (d != NULL)
        d->outcome = outcome; /* the last decision on that id counts */
    pthread_mutex_unlock(&grp_lock);
}

char *run_alloc_status(const char *id)
{
    char own[64];
    own_alloc_id(own, sizeof(own));
    if (id == NULL || strcmp(id, own) == 0)
        return strdup("active"); /* the launcher's node, held until it ends */
    char *text = NULL;
    pthread_mutex_lock(&grp_lock);
    for (decided_t *d = decisions; d != NULL; d = d->next)
        if (strcmp(d->id, id) == 0) {
            if (d->outcome == PMIX_SUCCESS)
                text = strdup("granted");
            else if (asprintf(&text, "refused: %s", PMIx_Error_string(d->outcome)) < 0)
                text = NULL;
            break;
        }
    pthread_mutex_unlock(&grp_lock);
    return text;
}

void run_alloc_free(void)
{
    pthread_mutex_lock(&grp_lock);
    while (decisions != NULL) {
        decided_t *d = decisions;
        decisions = d->next;
        free(d->id);
        free(d);
    }
    pthread_mutex_unlock(&grp_lock);
}

static void describe_node(answer_t *a, const char *req_id)
{
    run_job_t *job = grp_job;
    char id[64];
    own_alloc_id(id, sizeof(id));
    uint64_t nodes = 1;
    uint64_t cpus = (uint64_t)hwloc_get_nbobjs_by_type(job->topo, HWLOC_OBJ_PU);
    hwloc_obj_t root = hwloc_get_root_obj(job->topo);
    float mb = (float)(root->total_memory >> 20);
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_ID, id, PMIX_STRING);
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_NODE_LIST, job->hostname, PMIX_STRING);
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_NUM_NODES, &nodes, PMIX_UINT64);
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_MEM_SIZE, &mb, PMIX_FLOAT);
    if (req_id != NULL)
        PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_REQ_ID, req_id, PMIX_STRING);
}

static double number(const pmix_value_t *v)
{
    double d = 0;
    pmix_status_t rc;
    PMIX_VALUE_GET_NUMBER(rc, v, d, double);
    return rc == PMIX_SUCCESS ? d : -1;
}

/* The decided request, to the requester's job: PMIX_ALLOC_ID (the one the
 * request named, else ours), its PMIX_ALLOC_REQ_ID, the requester as the
 * affected process and the outcome as PMIX_JOB_TERM_STATUS. */
static void notify_complete(const pmix_proc_t *client, const char *req_alloc_id, const char *req_id,
                            pmix_status_t outcome)
{
    char id[64];
    own_alloc_id(id, sizeof(id));
    pmix_info_t info[4];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_ID, req_alloc_id != NULL ? req_alloc_id : id,
                   PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, client, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOB_TERM_STATUS, &outcome, PMIX_STATUS);
    if (req_id != NULL)
        PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_REQ_ID, req_id, PMIX_STRING);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, client->nspace, PMIX_RANK_WILDCARD);
    PMIx_Notify_event(PMIX_NOTIFY_ALLOC_COMPLETE, &job, PMIX_RANGE_NAMESPACE, info, n, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static pmix_status_t allocate(const pmix_proc_t *client, pmix_alloc_directive_t directive,
                              const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
                              void *cbdata)
{
    if (directive == PMIX_ALLOC_RELEASE || directive == PMIX_ALLOC_REAQUIRE)
        return PMIX_ERR_NOT_SUPPORTED; /* nothing is lent on one machine */
    if (directive != PMIX_ALLOC_NEW && directive != PMIX_ALLOC_EXTEND)
        return PMIX_ERR_BAD_PARAM;
    const char *req_id = NULL, *alloc_id = NULL;
    bool amounts = false;
    double more_time = 0;
    for (size_t i = 0; i < ndata; i++) {
        const pmix_info_t *d = &data[i];
        if (PMIX_CHECK_KEY(d, PMIX_ALLOC_REQ_ID) && d->value.type == PMIX_STRING)
            req_id = d->value.data.string;
        else if (PMIX_CHECK_KEY(d, PMIX_ALLOC_ID) && d->value.type == PMIX_STRING)
            alloc_id = d->value.data.string;
        else if (PMIX_CHECK_KEY(d, PMIX_ALLOC_TIME))
            more_time = number(&d->value);
        else if (PMIX_CHECK_KEY(d, PMIX_ALLOC_NUM_NODES) ||
                 PMIX_CHECK_KEY(d, PMIX_ALLOC_NUM_CPUS) ||
                 PMIX_CHECK_KEY(d, PMIX_ALLOC_NUM_CPU_LIST) ||
                 PMIX_CHECK_KEY(d, PMIX_ALLOC_CPU_LIST) || PMIX_CHECK_KEY(d, PMIX_ALLOC_MEM_SIZE) ||
                 PMIX_CHECK_KEY(d, PMIX_ALLOC_NODE_LIST) || PMIX_CHECK_KEY(d, PMIX_ALLOC_FABRIC) ||
                 PMIX_CHECK_KEY(d, PMIX_ALLOC_BANDWIDTH))
            amounts = true;
    }
    answer_t *a = answer_new(7);
    if (a == NULL)
        return PMIX_ERR_NOMEM;
    pmix_status_t st = PMIX_SUCCESS;
    if (amounts || (directive == PMIX_ALLOC_NEW && more_time > 0)) {
        /* this machine is all there is: nothing new, nothing more */
        st = PMIX_ERR_OUT_OF_RESOURCE;
    } else if (more_time > 0) {
        run_host_lock();
        if (grp_job->opts->timeout > 0)
            grp_job->extra_time += more_time;
        run_host_unlock();
        uint32_t t = (uint32_t)more_time;
        PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_TIME, &t, PMIX_UINT32);
    }
    describe_node(a, req_id);
    if (alloc_id != NULL)
        remember(alloc_id, st);
    notify_complete(client, alloc_id, req_id, st);
    run_ops_alloc_decided();
    cbfunc(st, a->info, a->n, cbdata, release_answer, a);
    return PMIX_SUCCESS;
}

void run_group_module(pmix_server_module_t *m, run_job_t *job)
{
    grp_job = job;
    m->group = group;
    m->allocate = allocate;
}

/* ---- process sets ---- */

/* The first app context that names this set (so each set is done once;
 * app contexts that share a name share the set). */
static bool first_naming(const run_job_t *job, unsigned a)
{
    for (unsigned b = 0; b < a; b++)
        if (job->opts->apps[b].pset != NULL &&
            strcmp(job->opts->apps[b].pset, job->opts->apps[a].pset) == 0)
            return false;
    return true;
}

int run_psets_define(run_job_t *job)
{
    for (unsigned a = 0; a < job->opts->napps; a++) {
        const char *name = job->opts->apps[a].pset;
        if (name == NULL || !first_naming(job, a))
            continue;
        pmix_proc_t *members = calloc(job->nprocs, sizeof(*members));
        if (members == NULL)
            return -1;
        size_t n = 0;
        for (unsigned r = 0; r < job->nprocs; r++) {
            const char *mine = job->opts->apps[job->procs[r].app].pset;
            if (mine != NULL && strcmp(mine, name) == 0) {
                PMIX_LOAD_PROCID(&members[n], job->nspace, r);
                n++;
            }
        }
        pmix_status_t rc = PMIx_server_define_process_set(members, n, name);
        free(members);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-run: process set %s: %s\n", name, PMIx_Error_string(rc));
            return -1;
        }
    }
    return 0;
}

void run_psets_delete(run_job_t *job)
{
    for (unsigned a = 0; a < job->opts->napps; a++)
        if (job->opts->apps[a].pset != NULL && first_naming(job, a))
            PMIx_server_delete_process_set((char *)job->opts->apps[a].pset);
}
