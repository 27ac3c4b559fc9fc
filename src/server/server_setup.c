/* PMIx_server_setup_application and PMIx_server_setup_local_support
 * (Chap_API_Server.tex).  The first, on the launcher's server, returns the
 * launch data of a job: with a fabric (a scheduler server), each node's
 * devices and coordinates, each rank's switch peers and assigned
 * endpoints, the fabric's plane and switch lists; the PMIX_ALLOC_FABRIC
 * requests; with PMIX_SETUP_APP_ENVARS, the fabric library's environment.
 * The second, on each node's server, adds that data to the registered
 * namespace, where clients PMIx_Get it, and keeps its environment
 * directives for setup_fork (server_fork_env.c).  Both always fire their
 * callback. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "common/regex.h"
#include "sched/sched.h"
#include "server/server_fork.h"
#include "server/server_internal.h"
#include "server/server_nspace.h"
#include "server/server_registry.h"
#include "server/server_util.h"

extern char **environ;

typedef struct {
    pmix_nspace_t nspace;
    pmix_info_t *in;
    size_t nin;
    pmix_setup_application_cbfunc_t cbfunc;
    void *cbdata;
    pmix_info_t *out;
    size_t nout;
} setup_t;

static void setup_free(setup_t *q)
{
    if (q->in != NULL)
        PMIX_INFO_FREE(q->in, q->nin);
    if (q->out != NULL)
        PMIX_INFO_FREE(q->out, q->nout);
    free(q);
}

static void setup_release(pmix_status_t status, void *cbdata)
{
    (void)status;
    setup_free(cbdata);
}

static pmix_status_t append(setup_t *q, pmix_info_t *e)
{
    pmix_info_t *g = realloc(q->out, (q->nout + 1) * sizeof(*g));
    if (g == NULL) {
        PMIX_INFO_DESTRUCT(e);
        return PMIX_ERR_NOMEM;
    }
    q->out = g;
    q->out[q->nout++] = *e;
    return PMIX_SUCCESS;
}

static size_t size_of(const pmix_info_t *e)
{
    switch (e->value.type) {
    case PMIX_SIZE: return e->value.data.size;
    case PMIX_UINT32: return e->value.data.uint32;
    case PMIX_INT: return e->value.data.integer > 0 ? (size_t)e->value.data.integer : 0;
    case PMIX_UINT64: return (size_t)e->value.data.uint64;
    default: return 0;
    }
}

/* ---- endpoints: PMIX_FABRIC_ENDPT for every rank of a mapped node ---- */

static const pmix_data_array_t *node_devices(const pmix_info_t *node)
{
    const pmix_data_array_t *a = node->value.data.darray;
    for (size_t i = 0; a != NULL && i < a->size; i++) {
        const pmix_info_t *e = &((const pmix_info_t *)a->array)[i];
        if (PMIX_CHECK_KEY(e, PMIX_FABRIC_DEVICES) && e->value.type == PMIX_DATA_ARRAY)
            return e->value.data.darray;
    }
    return NULL;
}

static const char *dev_string(const pmix_info_t *dev, const char *key)
{
    if (dev->value.type != PMIX_DATA_ARRAY || dev->value.data.darray == NULL)
        return NULL;
    const pmix_data_array_t *a = dev->value.data.darray;
    for (size_t i = 0; i < a->size; i++) {
        const pmix_info_t *e = &((const pmix_info_t *)a->array)[i];
        if (PMIX_CHECK_KEY(e, key) && e->value.type == PMIX_STRING)
            return e->value.data.string;
    }
    return NULL;
}

/* One endpoint per (device of the node, endpoint number): the vendor
 * object is the text "<device id>#<n>", n counting the node's endpoints
 * of that device (docs/fabric.md, "Endpoints"). */
static pmix_status_t endpoints(setup_t *q, char **nodes, char **ranks, size_t per_proc)
{
    for (size_t i = 0; i < q->nout; i++) {
        pmix_info_t *node = &q->out[i];
        if (!PMIX_CHECK_KEY(node, PMIX_NODE_INFO_ARRAY) || node->value.type != PMIX_DATA_ARRAY)
            continue;
        const char *host = NULL;
        const pmix_data_array_t *a = node->value.data.darray;
        for (size_t k = 0; a != NULL && k < a->size; k++) {
            const pmix_info_t *e = &((const pmix_info_t *)a->array)[k];
            if (PMIX_CHECK_KEY(e, PMIX_HOSTNAME) && e->value.type == PMIX_STRING)
                host = e->value.data.string;
        }
        const pmix_data_array_t *devs = node_devices(node);
        size_t n = 0;
        while (host != NULL && nodes[n] != NULL && strcmp(nodes[n], host) != 0)
            n++;
        if (host == NULL || nodes[n] == NULL || devs == NULL || devs->size == 0)
            continue;
        /* the node's ranks in map order, each with its local position */
        size_t local = 0;
        for (const char *s = ranks[n] != NULL ? ranks[n] : ""; *s; local++) {
            char *end;
            unsigned long r = strtoul(s, &end, 10);
            if (end == s)
                return PMIX_ERR_BAD_PARAM;
            s = *end == ',' ? end + 1 : end;
            pmix_data_array_t *eps;
            PMIX_DATA_ARRAY_CREATE(eps, devs->size * per_proc, PMIX_ENDPOINT);
            if (eps == NULL)
                return PMIX_ERR_NOMEM;
            pmix_endpoint_t *ep = eps->array;
            for (size_t d = 0; d < devs->size; d++) {
                const pmix_info_t *dev = &((const pmix_info_t *)devs->array)[d];
                const char *id = dev_string(dev, PMIX_DEVICE_ID);
                const char *os = dev_string(dev, PMIX_FABRIC_DEVICE_NAME);
                for (size_t e = 0; e < per_proc; e++) {
                    pmix_endpoint_t *x = &ep[d * per_proc + e];
                    x->uuid = strdup(id != NULL ? id : "");
                    x->osname = strdup(os != NULL ? os : "");
                    int len = asprintf(&x->endpt.bytes, "%s#%zu", id != NULL ? id : "",
                                       local * per_proc + e);
                    x->endpt.size = len > 0 ? (size_t)len : 0;
                    if (len < 0)
                        x->endpt.bytes = NULL;
                }
            }
            pmix_info_t proc[2];
            pmix_rank_t rank = (pmix_rank_t)r;
            PMIx_Info_load(&proc[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
            PMIX_LOAD_KEY(proc[1].key, PMIX_FABRIC_ENDPT);
            proc[1].flags = 0;
            proc[1].value.type = PMIX_DATA_ARRAY;
            proc[1].value.data.darray = eps;
            pmix_info_t wrap;
            PMIX_INFO_CONSTRUCT(&wrap);
            pmix_data_array_t da = {.type = PMIX_INFO, .size = 2, .array = proc};
            pmix_status_t rc = PMIx_Info_load(&wrap, PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
            PMIX_INFO_DESTRUCT(&proc[0]);
            PMIX_INFO_DESTRUCT(&proc[1]);
            if (rc == PMIX_SUCCESS)
                rc = append(q, &wrap);
            if (rc != PMIX_SUCCESS)
                return rc;
        }
    }
    return PMIX_SUCCESS;
}

/* ---- PMIX_ALLOC_FABRIC ---- */

/* The allocation is stored under its PMIX_ALLOC_FABRIC_ID: first the id
 * and a description, then what was asked for and granted. */
static pmix_status_t alloc_fabric(setup_t *q, const pmix_info_t *req, size_t nreq,
                                  size_t per_proc_default)
{
    const char *id = NULL, *type = "fabric", *plane = NULL;
    size_t per_proc = per_proc_default, per_node = 0;
    bool seckey = false;
    for (size_t i = 0; i < nreq; i++) {
        const pmix_info_t *e = &req[i];
        if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_ID) && e->value.type == PMIX_STRING)
            id = e->value.data.string;
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_TYPE) && e->value.type == PMIX_STRING)
            type = e->value.data.string;
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_PLANE) && e->value.type == PMIX_STRING)
            plane = e->value.data.string;
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_ENDPTS))
            per_proc = size_of(e);
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_ENDPTS_NODE))
            per_node = size_of(e);
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_SEC_KEY))
            seckey = sy_info_true(e);
    }
    if (id == NULL || id[0] == '\0' || strlen(id) > PMIX_MAX_KEYLEN)
        return PMIX_ERR_BAD_PARAM;
    char *desc = NULL;
    if (asprintf(&desc, "%s: %zu endpoints per process, %zu per node%s%s", type, per_proc, per_node,
                 plane != NULL ? ", plane " : "", plane != NULL ? plane : "") < 0)
        return PMIX_ERR_NOMEM;
    pmix_info_t *v;
    size_t n = 4 + (plane != NULL) + seckey;
    PMIX_INFO_CREATE(v, n);
    if (v == NULL) {
        free(desc);
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    PMIx_Info_load(&v[k++], id, desc, PMIX_STRING);
    PMIx_Info_load(&v[k++], PMIX_ALLOC_FABRIC_TYPE, type, PMIX_STRING);
    PMIx_Info_load(&v[k++], PMIX_ALLOC_FABRIC_ENDPTS, &per_proc, PMIX_SIZE);
    PMIx_Info_load(&v[k++], PMIX_ALLOC_FABRIC_ENDPTS_NODE, &per_node, PMIX_SIZE);
    if (plane != NULL)
        PMIx_Info_load(&v[k++], PMIX_ALLOC_FABRIC_PLANE, plane, PMIX_STRING);
    pmix_status_t rc = PMIX_SUCCESS;
    if (seckey) {
        unsigned char key[32];
        rc = sy_srv_random(key, sizeof(key));
        pmix_byte_object_t bo = {.bytes = (char *)key, .size = sizeof(key)};
        if (rc == PMIX_SUCCESS)
            PMIx_Info_load(&v[k++], PMIX_ALLOC_FABRIC_SEC_KEY, &bo, PMIX_BYTE_OBJECT);
    }
    free(desc);
    pmix_info_t e;
    PMIX_INFO_CONSTRUCT(&e);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = k, .array = v};
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_load(&e, id, &da, PMIX_DATA_ARRAY);
    PMIX_INFO_FREE(v, n);
    return rc == PMIX_SUCCESS ? append(q, &e) : rc;
}

/* ---- PMIX_SETUP_APP_ENVARS: the fabric library's settings ---- */

/* The job's transport key: PSM, PSM2 and OPX (Omni-Path) take it from the
 * environment to keep jobs apart on the fabric, which a fabric-aware
 * server hands out per job (as OpenPMIx's pnet/opa does); 128 random bits. */
static pmix_status_t transport_key(setup_t *q)
{
    uint64_t k[2];
    pmix_status_t rc = sy_srv_random(k, sizeof(k));
    if (rc != PMIX_SUCCESS)
        return rc;
    char val[40];
    snprintf(val, sizeof(val), "%016llx-%016llx", (unsigned long long)k[0],
             (unsigned long long)k[1]);
    pmix_envar_t ev = {
        .envar = "OMPI_MCA_orte_precondition_transports", .value = val, .separator = ':'};
    pmix_info_t i;
    PMIX_INFO_CONSTRUCT(&i);
    rc = PMIx_Info_load(&i, PMIX_SET_ENVAR, &ev, PMIX_ENVAR);
    return rc == PMIX_SUCCESS ? append(q, &i) : rc;
}

static pmix_status_t envars(setup_t *q)
{
    pmix_status_t krc = transport_key(q);
    if (krc != PMIX_SUCCESS)
        return krc;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, "FI_", 3) != 0)
            continue;
        char *eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        char *name = strndup(*e, (size_t)(eq - *e));
        if (name == NULL)
            return PMIX_ERR_NOMEM;
        pmix_envar_t ev = {.envar = name, .value = eq + 1, .separator = ':'};
        pmix_info_t i;
        PMIX_INFO_CONSTRUCT(&i);
        pmix_status_t rc = PMIx_Info_load(&i, PMIX_SET_ENVAR, &ev, PMIX_ENVAR);
        free(name);
        if (rc == PMIX_SUCCESS)
            rc = append(q, &i);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    return PMIX_SUCCESS;
}

/* The second half of a setup, once the scheduler's job data is in. */
typedef struct {
    setup_t *q;
    char **nodes, **ranks;
    bool env, nonenv;
    size_t per_proc;
} setup_step_t;

static void free_list(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

static void setup_finish(pmix_status_t rc, void *arg)
{
    setup_step_t *st = arg;
    setup_t *q = st->q;
    if (rc == PMIX_SUCCESS && st->nodes != NULL && st->per_proc > 0)
        rc = endpoints(q, st->nodes, st->ranks, st->per_proc);
    for (size_t i = 0; rc == PMIX_SUCCESS && st->nonenv && i < q->nin; i++) {
        const pmix_info_t *e = &q->in[i];
        if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC) && e->value.type == PMIX_DATA_ARRAY &&
            e->value.data.darray != NULL && e->value.data.darray->type == PMIX_INFO)
            rc = alloc_fabric(q, e->value.data.darray->array, e->value.data.darray->size,
                              st->per_proc);
        else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC))
            rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS && st->env)
        rc = envars(q);
    free_list(st->nodes);
    free_list(st->ranks);
    free(st);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_server_setup_application %s: %s", q->nspace,
               PMIx_Error_string(rc));
        if (q->out != NULL)
            PMIX_INFO_FREE(q->out, q->nout);
        q->nout = 0;
    }
    /* the library keeps the array until the host calls setup_release */
    q->cbfunc(rc, q->out, q->nout, q->cbdata, setup_release, q);
}

static void setup_on_loop(void *arg)
{
    setup_t *q = arg;
    bool any = false;
    const char *nmap = NULL, *pmap = NULL;
    setup_step_t *st = calloc(1, sizeof(*st));
    if (st == NULL) {
        q->cbfunc(PMIX_ERR_NOMEM, NULL, 0, q->cbdata, setup_release, q);
        return;
    }
    st->q = q;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < q->nin; i++) {
        const pmix_info_t *e = &q->in[i];
        bool on = sy_info_true(e);
        if (PMIX_CHECK_KEY(e, PMIX_SETUP_APP_ENVARS)) {
            st->env = st->env || on;
            any = true;
        } else if (PMIX_CHECK_KEY(e, PMIX_SETUP_APP_NONENVARS)) {
            st->nonenv = st->nonenv || on;
            any = true;
        } else if (PMIX_CHECK_KEY(e, PMIX_SETUP_APP_ALL)) {
            st->env = st->nonenv = st->env || on;
            any = true;
        } else if (PMIX_CHECK_KEY(e, PMIX_NODE_MAP) && sy_regex_value_text(&e->value) != NULL) {
            /* PMIX_STRING, or PMIX_REGEX as the standard's examples pass them */
            nmap = sy_regex_value_text(&e->value);
        } else if (PMIX_CHECK_KEY(e, PMIX_PROC_MAP) && sy_regex_value_text(&e->value) != NULL) {
            pmap = sy_regex_value_text(&e->value);
        } else if (PMIX_CHECK_KEY(e, PMIX_ALLOC_FABRIC_ENDPTS)) {
            st->per_proc = size_of(e);
        }
    }
    if (!any)
        st->env = st->nonenv = true;
    if (st->nonenv && nmap != NULL && pmap != NULL) {
        rc = sy_regex_parse_nodes(nmap, &st->nodes);
        if (rc == PMIX_SUCCESS)
            rc = sy_regex_parse_procs(pmap, &st->ranks);
        /* the scheduler computes on its worker thread */
        if (rc == PMIX_SUCCESS)
            rc = sy_sched_job_data(st->nodes, st->ranks, &q->out, &q->nout, setup_finish, st);
        if (rc == PMIX_SUCCESS)
            return;
    }
    setup_finish(rc, st);
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata)
{
    if (nspace == NULL || cbfunc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    setup_t *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_NSPACE(q->nspace, nspace);
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    pmix_status_t rc = PMIX_SUCCESS;
    if (ninfo > 0) {
        PMIX_INFO_CREATE(q->in, ninfo);
        rc = q->in != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < ninfo; i++)
            rc = PMIx_Info_xfer(&q->in[i], &info[i]);
        q->nin = ninfo;
    }
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_post(setup_on_loop, q);
    if (rc != PMIX_SUCCESS)
        setup_free(q);
    return rc;
}

/* ---- setup_local_support ---- */

typedef struct {
    sy_srv_op_t op;
    pmix_nspace_t nspace;
    pmix_info_t *info;
    size_t ninfo;
} local_t;

static void local_on_loop(void *arg)
{
    local_t *l = arg;
    sy_srv_t *s = sy_srv;
    pmix_status_t rc = PMIX_ERR_INIT;
    if (s != NULL) {
        sy_srv_nspace_t *ns = sy_srv_nspace_find(s, l->nspace);
        pmix_info_t *copy = NULL;
        /* the host registers the namespace first (the standard) */
        rc = ns == NULL ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
        if (rc == PMIX_SUCCESS && l->ninfo > 0) {
            PMIX_INFO_CREATE(copy, l->ninfo);
            rc = copy != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
            for (size_t i = 0; rc == PMIX_SUCCESS && i < l->ninfo; i++)
                rc = PMIx_Info_xfer(&copy[i], &l->info[i]);
            if (rc != PMIX_SUCCESS && copy != NULL)
                PMIX_INFO_FREE(copy, l->ninfo);
        }
        if (rc == PMIX_SUCCESS && l->ninfo > 0)
            rc = sy_srv_nspace_add_info(s, ns, copy, l->ninfo);
        /* the environment its processes are to start with */
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_fork_env_add(l->nspace, l->info, l->ninfo);
    }
    sy_srv_op_finish(&l->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (nspace == NULL || nspace[0] == '\0' || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    local_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_NSPACE(l->nspace, nspace);
    /* valid until the callback: the host keeps it until then */
    l->info = info;
    l->ninfo = ninfo;
    return sy_srv_op_start(&l->op, local_on_loop, cbfunc, cbdata);
}
