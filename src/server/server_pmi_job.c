/* Each PMI job's state on the server (server_pmi.h): node attributes, the
 * values read from the job's registration, and the host upcalls (abort,
 * name service, connected/finalized) made for a PMI process.  A PMI
 * process is a process of its job like a PMIx client: its puts go to the
 * server's modex store as its own committed data, its barrier is the
 * job's fence in the collective engine, and its end is told as a client's
 * is. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "common/pmi_map.h"
#include "common/store.h"
#include "common/datatype.h"
#include "common/event.h"
#include "server/server_cleanup.h"
#include "server/server_coll.h"
#include "server/server_group.h"
#include "server/server_internal.h"
#include "server/server_modex.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"
#include "server/server_pmi.h"

typedef struct kv {
    char *key, *val;
    struct kv *next;
} kv_t;

struct sy_pmi_job {
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t size;
    kv_t *nodeattrs; /* few: a list */
    bool aborted;    /* a rank aborted: the others' ends are expected */
    struct sy_pmi_job *next;
};

static sy_pmi_job_t *jobs;

static void kv_list_free(kv_t *k)
{
    while (k != NULL) {
        kv_t *n = k->next;
        free(k->key);
        free(k->val);
        free(k);
        k = n;
    }
}

static void job_free(sy_pmi_job_t *j)
{
    kv_list_free(j->nodeattrs);
    free(j);
}

sy_pmi_job_t *sy_pmi_job_get(const char *nspace)
{
    for (sy_pmi_job_t *j = jobs; j != NULL; j = j->next)
        if (strcmp(j->nspace, nspace) == 0)
            return j;
    sy_srv_nspace_t *ns = sy_srv != NULL ? sy_srv_nspace_find(sy_srv, nspace) : NULL;
    if (ns == NULL || ns->summary.job_size == 0)
        return NULL;
    sy_pmi_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL)
        return NULL;
    snprintf(j->nspace, sizeof(j->nspace), "%s", nspace);
    j->size = ns->summary.job_size;
    j->next = jobs;
    jobs = j;
    return j;
}

const char *sy_pmi_job_nspace(const sy_pmi_job_t *j)
{
    return j->nspace;
}

uint32_t sy_pmi_job_size(const sy_pmi_job_t *j)
{
    return j->size;
}

void sy_pmi_jobs_free(void)
{
    while (jobs != NULL) {
        sy_pmi_job_t *j = jobs;
        jobs = j->next;
        job_free(j);
    }
}

void sy_pmi_job_free_nspace(const char *nspace)
{
    for (sy_pmi_job_t **pp = &jobs; *pp != NULL; pp = &(*pp)->next) {
        if (strcmp((*pp)->nspace, nspace) == 0) {
            sy_pmi_job_t *j = *pp;
            *pp = j->next;
            job_free(j);
            return;
        }
    }
}

static bool kv_set(kv_t **head, const char *key, const char *val)
{
    for (kv_t *k = *head; k != NULL; k = k->next) {
        if (strcmp(k->key, key) == 0) {
            char *v = strdup(val);
            if (v == NULL)
                return false;
            free(k->val);
            k->val = v;
            return true;
        }
    }
    kv_t *k = calloc(1, sizeof(*k));
    if (k == NULL || (k->key = strdup(key)) == NULL || (k->val = strdup(val)) == NULL) {
        if (k != NULL)
            free(k->key);
        free(k);
        return false;
    }
    k->next = *head;
    *head = k;
    return true;
}

bool sy_pmi_nodeattr_put(sy_pmi_job_t *j, const char *key, const char *val)
{
    return kv_set(&j->nodeattrs, key, val);
}

const char *sy_pmi_nodeattr_get(const sy_pmi_job_t *j, const char *key)
{
    for (const kv_t *k = j->nodeattrs; k != NULL; k = k->next)
        if (strcmp(k->key, key) == 0)
            return k->val;
    return NULL;
}

/* ---- the job's data: the server's modex store, shared with PMIx ranks ---- */

bool sy_pmi_kvs_put(sy_pmi_conn_t *c, const char *key, const char *val)
{
    /* as a PMIx_Put(PMIX_GLOBAL) + PMIx_Commit of that rank: its PMIx
     * peers Get it after the next fence, PMI processes at once */
    sy_srv_posted_t *p = sy_srv_posted_find(&c->proc, true);
    sy_srv_kv_t *k = p != NULL ? calloc(1, sizeof(*k)) : NULL;
    if (k == NULL || (k->key = strdup(key)) == NULL || (k->val.data.string = strdup(val)) == NULL) {
        if (k != NULL)
            free(k->key);
        free(k);
        return false;
    }
    k->scope = PMIX_GLOBAL;
    k->val.type = PMIX_STRING;
    sy_srv_posted_put(p, k);
    p->committed = true;
    sy_srv_dmodex_poke(&c->proc);
    return true;
}

static const char *string_of(const sy_srv_posted_t *p, const char *key)
{
    const sy_srv_kv_t *k = sy_srv_kv_find(p, key);
    return k != NULL && k->val.type == PMIX_STRING ? k->val.data.string : NULL;
}

const char *sy_pmi_kvs_get(const sy_pmi_conn_t *c, const char *nspace, long srcid, const char *key)
{
    /* PMI names no source: the hinted rank, the asker, then the lowest
     * rank of the job that posted the key as a string */
    pmix_proc_t p;
    const char *v;
    if (srcid >= 0) {
        PMIX_LOAD_PROCID(&p, nspace, (pmix_rank_t)srcid);
        if ((v = string_of(sy_srv_posted_find(&p, false), key)) != NULL)
            return v;
    }
    if (strcmp(nspace, c->proc.nspace) == 0 &&
        (v = string_of(sy_srv_posted_find(&c->proc, false), key)) != NULL)
        return v;
    const char *best = NULL;
    pmix_rank_t best_rank = PMIX_RANK_VALID;
    for (const sy_srv_posted_t *x = sy_srv_posted_all(); x != NULL; x = x->next) {
        if (!PMIX_CHECK_NSPACE(x->proc.nspace, nspace) || x->proc.rank >= best_rank)
            continue;
        if ((v = string_of(x, key)) != NULL) {
            best = v;
            best_rank = x->proc.rank;
        }
    }
    /* a spawned job's preput pairs: its parent's data (server_pmi_spawn.c) */
    pmix_proc_t parent;
    if (best == NULL && sy_pmi_parent(nspace, &parent))
        best = string_of(sy_srv_posted_find(&parent, false), key);
    return best;
}

/* ---- barrier: the job's fence in the server's collective engine ---- */

typedef struct {
    unsigned long serial;
    pmix_status_t status;
} fence_note_t;

/* On the loop, after the engine is done with the fence (the reply may
 * drop a connection, which must not happen inside the engine). */
static void barrier_told(void *arg)
{
    fence_note_t *n = arg;
    sy_pmi_conn_t *c = sy_srv != NULL ? sy_pmi_conn_by_serial(n->serial) : NULL;
    if (c != NULL && c->in_barrier) {
        c->in_barrier = false;
        c->barrier_done(c, n->status);
    }
    free(n);
}

static void barrier_notify(pmix_status_t status, void *ctx)
{
    fence_note_t *n = malloc(sizeof(*n));
    if (n == NULL) {
        sy_log(SY_LOG_ERROR, "pmi: out of memory ending a barrier");
        return;
    }
    n->serial = (unsigned long)(uintptr_t)ctx;
    n->status = status;
    if (sy_progress_post(sy_srv->progress, barrier_told, n) != PMIX_SUCCESS)
        free(n);
}

/* c's data counts as committed: another node's direct modex for this
 * process is answered now, even when it put nothing. */
static void commit_own(const sy_pmi_conn_t *c)
{
    sy_srv_posted_t *p = sy_srv_posted_find(&c->proc, true);
    if (p != NULL && !p->committed) {
        p->committed = true;
        sy_srv_dmodex_poke(&c->proc);
    }
}

void sy_pmi_barrier_enter(sy_pmi_conn_t *c, sy_pmi_barrier_fn done)
{
    if (c->in_barrier) {
        sy_pmi_drop(c, "entered a barrier twice");
        return;
    }
    c->in_barrier = true;
    c->barrier_done = done;
    commit_own(c); /* as PMI_Barrier is Commit + Fence */
    pmix_status_t rc =
        sy_srv_coll_fence_job(&c->proc, barrier_notify, (void *)(uintptr_t)c->serial);
    if (rc != PMIX_SUCCESS)
        barrier_notify(rc, (void *)(uintptr_t)c->serial);
}

/* ---- the process's life, as the host and the other clients see it ---- */

static void *server_object(const pmix_proc_t *proc)
{
    sy_srv_client_t *cl = sy_srv_client_find(sy_srv, proc);
    return cl != NULL ? cl->server_object : NULL;
}

static void ignore_op(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

void sy_pmi_conn_started(sy_pmi_conn_t *c)
{
    /* what a PMIx client's HELLO tells the host: a client of the job is
     * connected (switchyard-run then expects its finalize) */
    sy_srv_t *s = sy_srv;
    void *obj = server_object(&c->proc);
    pmix_status_t rc = PMIX_SUCCESS;
    if (s->module.client_connected2 != NULL)
        rc = s->module.client_connected2(&c->proc, obj, NULL, 0, ignore_op, NULL);
    else if (s->module.client_connected != NULL)
        rc = s->module.client_connected(&c->proc, obj, ignore_op, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED && rc != PMIX_ERR_NOT_SUPPORTED)
        sy_log(SY_LOG_WARN, "pmi: the host's client_connected for %s.%u: %s", c->proc.nspace,
               c->proc.rank, PMIx_Error_string(rc));
}

void sy_pmi_conn_finalized(sy_pmi_conn_t *c)
{
    c->finalized = true;
    commit_own(c); /* nothing more will come */
    sy_srv_t *s = sy_srv;
    if (s->module.client_finalized == NULL)
        return;
    pmix_status_t rc =
        s->module.client_finalized(&c->proc, server_object(&c->proc), ignore_op, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED && rc != PMIX_ERR_NOT_SUPPORTED)
        sy_log(SY_LOG_WARN, "pmi: the host's client_finalized for %s.%u: %s", c->proc.nspace,
               c->proc.rank, PMIx_Error_string(rc));
}

void sy_pmi_conn_gone(sy_pmi_conn_t *c)
{
    if (c->version == 0 || c->job == NULL || sy_srv == NULL)
        return; /* never spoke PMI (a PMIx program): nothing to tell */
    /* as a PMIx client's connection ending: its collectives end for the
     * others, requests for its data are answered, groups lose it */
    sy_srv_modex_proc_gone(&c->proc, c->finalized);
    sy_srv_group_proc_gone(&c->proc, c->finalized);
    if (!c->finalized) {
        pmix_info_t info[1];
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &c->proc, PMIX_PROC);
        sy_event_deliver(PMIX_ERR_LOST_CONNECTION, &c->proc, PMIX_RANGE_PROC_LOCAL, info, 1);
        PMIX_INFO_DESTRUCT(&info[0]);
    }
    sy_srv_cleanup_proc_gone(&c->proc);
}

/* ---- values from the registration ---- */

static bool store_u32(const char *nspace, pmix_rank_t rank, const char *key, uint32_t *out)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    if (sy_store_get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return false;
    bool ok = true;
    if (v->type == PMIX_UINT32)
        *out = v->data.uint32;
    else if (v->type == PMIX_PROC_RANK)
        *out = v->data.rank;
    else if (v->type == PMIX_UINT16)
        *out = v->data.uint16;
    else if (v->type == PMIX_INT)
        *out = (uint32_t)v->data.integer;
    else
        ok = false;
    PMIX_VALUE_RELEASE(v);
    return ok;
}

long sy_pmi_appnum(const pmix_proc_t *proc)
{
    uint32_t a;
    return store_u32(proc->nspace, proc->rank, PMIX_APPNUM, &a) ? (long)a : 0;
}

long sy_pmi_universe(const sy_pmi_job_t *j)
{
    uint32_t u;
    return store_u32(j->nspace, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &u) ? (long)u : -1;
}

bool sy_pmi_mapping(const sy_pmi_job_t *j, char *out, size_t len)
{
    sy_pmi_map_t m;
    sy_pmi_map_begin(&m, out, len);
    for (uint32_t r = 0; r < j->size; r++) {
        uint32_t node;
        if (!store_u32(j->nspace, r, PMIX_NODEID, &node))
            node = 0;
        sy_pmi_map_add(&m, node);
    }
    return sy_pmi_map_end(&m);
}

/* ---- host upcalls ---- */

bool sy_pmi_job_aborted(const sy_pmi_job_t *j)
{
    return j->aborted;
}

void sy_pmi_abort(sy_pmi_conn_t *c, int status, const char *msg)
{
    c->aborted = true;
    c->job->aborted = true;
    if (sy_srv->module.abort == NULL) {
        sy_log(SY_LOG_ERROR, "pmi: %s.%u aborted (status %d: %s), and the host cannot abort jobs",
               c->proc.nspace, c->proc.rank, status, msg);
        return;
    }
    /* the whole job (NULL procs); the host kills it, the client waits */
    pmix_status_t rc = sy_srv->module.abort(&c->proc, server_object(&c->proc), status, msg, NULL, 0,
                                            ignore_op, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        sy_log(SY_LOG_WARN, "pmi: the host's abort for %s.%u: %s", c->proc.nspace, c->proc.rank,
               PMIx_Error_string(rc));
}

typedef struct {
    sy_srv_req_t req; /* first: the library's own, no peer to answer */
    unsigned long serial;
    sy_pmi_ns_done_fn done;
    char *port;
    char *thrid; /* the client's, echoed */
    pmix_info_t *info;
    size_t ninfo;
    char *keys[2];
} ns_req_t;

static void ns_req_free(sy_srv_req_t *req)
{
    ns_req_t *r = (ns_req_t *)req;
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    free(r->keys[0]);
    free(r->port);
    free(r->thrid);
    free(r);
}

/* On the loop: the PMI connection, if still there, gets the answer. */
static void ns_req_done(sy_srv_req_t *req)
{
    ns_req_t *r = (ns_req_t *)req;
    sy_pmi_conn_t *c = sy_pmi_conn_by_serial(r->serial);
    pmix_status_t status = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
    if (c != NULL)
        r->done(c, status, status == PMIX_SUCCESS ? r->port : NULL, r->thrid);
}

static const sy_srv_req_type_t ns_req_type = {
    .name = "PMI name service",
    .done = ns_req_done,
    .free = ns_req_free,
};

static void ns_lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    ns_req_t *r = (ns_req_t *)sy_srv_req_claim(cbdata);
    if (r == NULL)
        return;
    r->req.status = status;
    if (status == PMIX_SUCCESS) {
        r->req.status = PMIX_ERR_NOT_FOUND;
        for (size_t i = 0; data != NULL && i < ndata; i++)
            if (PMIX_CHECK_KEY(&data[i], r->keys[0]) && data[i].value.type == PMIX_STRING &&
                data[i].value.data.string != NULL) {
                r->port = strdup(data[i].value.data.string);
                r->req.status = r->port != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
                break;
            }
    }
    sy_srv_req_post(&r->req);
}

typedef enum { NS_PUBLISH, NS_UNPUBLISH, NS_LOOKUP } ns_kind_t;

static void ns_call(sy_pmi_conn_t *c, ns_kind_t kind, const char *service, const char *port,
                    const char *thrid, sy_pmi_ns_done_fn done)
{
    ns_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->keys[0] = strdup(service)) == NULL ||
        (thrid != NULL && (r->thrid = strdup(thrid)) == NULL)) {
        if (r != NULL)
            free(r->keys[0]);
        free(r);
        done(c, PMIX_ERR_NOMEM, NULL, thrid);
        return;
    }
    sy_srv_req_init(&r->req, &ns_req_type, NULL, 0);
    r->serial = c->serial;
    r->done = done;
    sy_srv_client_t *cl = sy_srv_client_find(sy_srv, &c->proc);
    if (kind == NS_PUBLISH) {
        PMIX_INFO_CREATE(r->info, 1);
        if (r->info == NULL) {
            sy_srv_req_complete(&r->req, PMIX_ERR_NOMEM);
            return;
        }
        r->ninfo = 1;
        PMIX_INFO_LOAD(&r->info[0], service, port, PMIX_STRING);
    }
    /* the ids the upcalls made for a client carry */
    if (cl != NULL && sy_srv_add_ids(&r->info, &r->ninfo, cl) != PMIX_SUCCESS) {
        sy_srv_req_complete(&r->req, PMIX_ERR_NOMEM);
        return;
    }
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    void *ticket = sy_srv_req_ticket(&r->req);
    if (kind == NS_PUBLISH && sy_srv->module.publish != NULL)
        rc = sy_srv->module.publish(&c->proc, r->info, r->ninfo, sy_srv_req_op_done, ticket);
    else if (kind == NS_UNPUBLISH && sy_srv->module.unpublish != NULL)
        rc = sy_srv->module.unpublish(&c->proc, r->keys, r->info, r->ninfo, sy_srv_req_op_done,
                                      ticket);
    else if (kind == NS_LOOKUP && sy_srv->module.lookup != NULL)
        rc = sy_srv->module.lookup(&c->proc, r->keys, r->info, r->ninfo, ns_lookup_cb, ticket);
    /* PMIX_SUCCESS: the callback ends it; anything else ends it here
     * (unless the callback came inside the upcall and has it already) */
    sy_srv_req_returned(&r->req, rc);
}

void sy_pmi_publish(sy_pmi_conn_t *c, const char *service, const char *port, const char *thrid,
                    sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_PUBLISH, service, port, thrid, done);
}

void sy_pmi_unpublish(sy_pmi_conn_t *c, const char *service, const char *thrid,
                      sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_UNPUBLISH, service, NULL, thrid, done);
}

void sy_pmi_lookup(sy_pmi_conn_t *c, const char *service, const char *thrid, sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_LOOKUP, service, NULL, thrid, done);
}
