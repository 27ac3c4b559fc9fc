/* Each PMI job's state on the server (server_pmi.h): the flat key-value
 * space PMI-1 `get` and PMI-2 `kvs-get` read, node attributes, the
 * job-wide barrier, the values read from the job's registration, and the
 * host upcalls (abort, name service) made for a PMI process. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "common/pmi_map.h"
#include "common/store.h"
#include "server/server_internal.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"
#include "server/server_util.h"
#include "server/server_pmi.h"

#define KV_BUCKETS 256

typedef struct kv {
    char *key, *val;
    struct kv *next;
} kv_t;

struct sy_pmi_job {
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t size;
    kv_t *kvs[KV_BUCKETS];
    kv_t *nodeattrs;   /* few: a list */
    uint32_t nbarrier; /* ranks in the barrier now */
    bool aborted;      /* a rank aborted: the others' ends are expected */
    struct sy_pmi_job *next;
};

static sy_pmi_job_t *jobs;

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % KV_BUCKETS;
}

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
    for (int b = 0; b < KV_BUCKETS; b++)
        kv_list_free(j->kvs[b]);
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

static const char *kv_find(const kv_t *k, const char *key)
{
    for (; k != NULL; k = k->next)
        if (strcmp(k->key, key) == 0)
            return k->val;
    return NULL;
}

bool sy_pmi_kvs_put(sy_pmi_job_t *j, const char *key, const char *val)
{
    return kv_set(&j->kvs[hash(key)], key, val);
}

const char *sy_pmi_kvs_get(const sy_pmi_job_t *j, const char *key)
{
    return kv_find(j->kvs[hash(key)], key);
}

bool sy_pmi_nodeattr_put(sy_pmi_job_t *j, const char *key, const char *val)
{
    return kv_set(&j->nodeattrs, key, val);
}

const char *sy_pmi_nodeattr_get(const sy_pmi_job_t *j, const char *key)
{
    return kv_find(j->nodeattrs, key);
}

/* ---- barrier ---- */

/* Every rank of the job is a PMI process of this server (one node, as
 * switchyard-run runs jobs): the barrier completes when all entered. */
static void barrier_check(sy_pmi_job_t *j, void (*done)(sy_pmi_conn_t *c))
{
    if (j->nbarrier < j->size)
        return;
    j->nbarrier = 0;
    /* done() may drop a connection: take the serials first */
    size_t n = 0;
    for (sy_pmi_conn_t *c = sy_pmi_conns(); c != NULL; c = c->next)
        n += c->job == j && c->in_barrier;
    unsigned long *serials = calloc(n ? n : 1, sizeof(*serials));
    size_t k = 0;
    for (sy_pmi_conn_t *c = sy_pmi_conns(); c != NULL; c = c->next)
        if (c->job == j && c->in_barrier) {
            c->in_barrier = false;
            if (serials != NULL)
                serials[k++] = c->serial;
        }
    for (size_t i = 0; serials != NULL && i < k; i++) {
        sy_pmi_conn_t *c = sy_pmi_conn_by_serial(serials[i]);
        if (c != NULL)
            done(c);
    }
    if (serials == NULL)
        sy_log(SY_LOG_ERROR, "pmi: out of memory ending a barrier of %s", j->nspace);
    free(serials);
}

/* done of the barrier in progress, per job (PMI-1 and PMI-2 processes of
 * one job answer differently: done looks at the connection's version) */
void sy_pmi_barrier_enter(sy_pmi_conn_t *c, void (*done)(sy_pmi_conn_t *c))
{
    if (c->in_barrier) {
        sy_pmi_drop(c, "entered a barrier twice");
        return;
    }
    c->in_barrier = true;
    c->job->nbarrier++;
    barrier_check(c->job, done);
}

void sy_pmi_barrier_leave(sy_pmi_conn_t *c)
{
    if (c->in_barrier && c->job != NULL && c->job->nbarrier > 0)
        c->job->nbarrier--;
    c->in_barrier = false;
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
    free(r);
}

/* On the loop: the PMI connection, if still there, gets the answer. */
static void ns_req_done(sy_srv_req_t *req)
{
    ns_req_t *r = (ns_req_t *)req;
    sy_pmi_conn_t *c = sy_pmi_conn_by_serial(r->serial);
    pmix_status_t status = req->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : req->status;
    if (c != NULL)
        r->done(c, status, status == PMIX_SUCCESS ? r->port : NULL);
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
                    sy_pmi_ns_done_fn done)
{
    ns_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->keys[0] = strdup(service)) == NULL) {
        free(r);
        done(c, PMIX_ERR_NOMEM, NULL);
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

void sy_pmi_publish(sy_pmi_conn_t *c, const char *service, const char *port, sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_PUBLISH, service, port, done);
}

void sy_pmi_unpublish(sy_pmi_conn_t *c, const char *service, sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_UNPUBLISH, service, NULL, done);
}

void sy_pmi_lookup(sy_pmi_conn_t *c, const char *service, sy_pmi_ns_done_fn done)
{
    ns_call(c, NS_LOOKUP, service, NULL, done);
}
