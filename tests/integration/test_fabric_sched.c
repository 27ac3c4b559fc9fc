/* The scheduler role inside its own process (public API and
 * <switchyard.h>): several fabrics and their selection, the pointer to the
 * engine's matrix, a link state delivered with the inventory raising
 * PENDING -> UPDATED here (a registration made while PENDING runs is held
 * and gets the new data), setup_application / setup_local_support
 * (callbacks always fire, bad input refused), collect_inventory, and
 * PMIx_Compute_distances on a given hwloc topology.
 *
 *   test_fabric_sched TOPOLOGY-FILE HWLOC-XML */
#include <hwloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>
#include <switchyard.h>

#include "test_fabric.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    pmix_op_cbfunc_t release;
    void *release_data;
} wait_t;
#define WAIT_INIT                                                                                  \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL, 0, NULL, NULL             \
    }

static void wait_for(wait_t *w, int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w->lock);
    while (w->done < n)
        if (pthread_cond_timedwait(&w->cond, &w->lock, &until) != 0)
            break;
    pthread_mutex_unlock(&w->lock);
}

static void setup_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *provided_cbdata,
                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    wait_t *w = provided_cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->info = info;
    w->ninfo = ninfo;
    w->release = cbfunc;
    w->release_data = cbdata;
    w->done++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* The local set-up reaches the processes: setup_fork gives each one the
 * environment the launch data set up (the fabric's transport key) and
 * what a second setup_local_support adds, in order: prepend, append, add
 * only when unset, unset, set. */
static const char *env_of(char **env, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return env[i] + len + 1;
    return NULL;
}

static void local_env_check(const char *job, const char *key)
{
    pmix_envar_t e[4] = {{.envar = "SY_T_LIST", .value = "a", .separator = ':'},
                         {.envar = "SY_T_LIST", .value = "c", .separator = ':'},
                         {.envar = "SY_T_KEEP", .value = "theirs"},
                         {.envar = "SY_T_NEW", .value = "x"}};
    pmix_info_t ex[5];
    PMIX_INFO_LOAD(&ex[0], PMIX_PREPEND_ENVAR, &e[0], PMIX_ENVAR);
    PMIX_INFO_LOAD(&ex[1], PMIX_APPEND_ENVAR, &e[1], PMIX_ENVAR);
    PMIX_INFO_LOAD(&ex[2], PMIX_ADD_ENVAR, &e[2], PMIX_ENVAR);
    PMIX_INFO_LOAD(&ex[3], PMIX_UNSET_ENVAR, "SY_T_GONE", PMIX_STRING);
    PMIX_INFO_LOAD(&ex[4], PMIX_SET_ENVAR, &e[3], PMIX_ENVAR);
    wait_t w = WAIT_INIT;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, job);
    pmix_status_t rc = PMIx_server_setup_local_support(ns, ex, 5, op_cb, &w);
    if (rc == PMIX_SUCCESS)
        wait_for(&w, 1);
    CHECK(rc == PMIX_SUCCESS && w.status == PMIX_SUCCESS, "setup_local_support of envars: %s",
          PMIx_Error_string(rc == PMIX_SUCCESS ? w.status : rc));
    char **env = calloc(4, sizeof(char *));
    env[0] = strdup("SY_T_LIST=b");
    env[1] = strdup("SY_T_GONE=1");
    env[2] = strdup("SY_T_KEEP=mine");
    pmix_proc_t p0;
    PMIX_LOAD_PROCID(&p0, job, 0);
    rc = PMIx_server_setup_fork(&p0, &env);
    CHECK(rc == PMIX_SUCCESS, "setup_fork: %s", PMIx_Error_string(rc));
    const char *tk = env_of(env, "OMPI_MCA_orte_precondition_transports");
    CHECK(tk != NULL && strcmp(tk, key) == 0, "setup_fork: transport key %s, not %s",
          tk != NULL ? tk : "(none)", key);
    const char *list = env_of(env, "SY_T_LIST"), *keep = env_of(env, "SY_T_KEEP");
    const char *nw = env_of(env, "SY_T_NEW");
    CHECK(list != NULL && strcmp(list, "a:b:c") == 0, "prepend and append: %s",
          list != NULL ? list : "(none)");
    CHECK(keep != NULL && strcmp(keep, "mine") == 0, "add overrode a set variable");
    CHECK(env_of(env, "SY_T_GONE") == NULL, "unset left SY_T_GONE");
    CHECK(nw != NULL && strcmp(nw, "x") == 0, "set: SY_T_NEW %s", nw != NULL ? nw : "(none)");
    CHECK(env_of(env, "PMIX_NAMESPACE") != NULL, "setup_fork's own variables are there too");
    for (size_t i = 0; env[i] != NULL; i++)
        free(env[i]);
    free(env);
    for (int i = 0; i < 5; i++)
        PMIX_INFO_DESTRUCT(&ex[i]);
}

static bool inv_host, inv_devices;

/* what collect_inventory must hold: this host's name and its devices */
static void inventory_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    wait_t *w = cbdata;
    const pmix_info_t *h = info_find(info, ninfo, PMIX_HOSTNAME);
    const pmix_info_t *d = info_find(info, ninfo, PMIX_FABRIC_DEVICES);
    pthread_mutex_lock(&w->lock);
    inv_host = h != NULL && h->value.type == PMIX_STRING && h->value.data.string[0] != '\0';
    inv_devices = d != NULL && d->value.type == PMIX_DATA_ARRAY;
    w->status = status;
    w->done++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

/* ---- events in the scheduler's process ---- */

static pmix_fabric_t evf;
static wait_t evw = WAIT_INIT;
static int order[4], norder;
static uint16_t seen_pending, seen_updated;

/* registered from the PENDING handler: held until the chain completed */
static pmix_fabric_t heldf;
static wait_t heldw = WAIT_INIT;
static int held_early = -1;

static uint16_t cost01(const pmix_fabric_t *f)
{
    return fabric_cost(f, 0, 2);
}

static void pending_ends(void)
{
    pthread_mutex_lock(&heldw.lock);
    held_early = heldw.done;
    pthread_mutex_unlock(&heldw.lock);
}

static void on_event(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&evw.lock);
    if (norder < 4)
        order[norder++] = status;
    if (status == PMIX_FABRIC_UPDATE_PENDING)
        seen_pending = cost01(&evf);
    else
        seen_updated = cost01(&evf);
    evw.done++;
    pthread_cond_signal(&evw.cond);
    pthread_mutex_unlock(&evw.lock);
    if (status != PMIX_FABRIC_UPDATE_PENDING) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
        return;
    }
    /* the engine has the change but must not serve it before the chain
     * completed: this request waits, then gets the new data */
    PMIX_FABRIC_CONSTRUCT(&heldf);
    pmix_status_t rc = PMIx_Fabric_register_nb(&heldf, NULL, 0, op_cb, &heldw);
    CHECK(rc == PMIX_SUCCESS, "register_nb during PENDING: %s", PMIx_Error_string(rc));
    complete_late(cbfunc, cbdata, pending_ends);
}

static pmix_nspace_t job1, nojob, job2, job3, job4;

int main(int argc, char **argv)
{
    snprintf(check_who, sizeof(check_who), "test_fabric_sched");
    PMIX_LOAD_NSPACE(job1, "job1");
    PMIX_LOAD_NSPACE(nojob, "nojob");
    PMIX_LOAD_NSPACE(job2, "job2");
    PMIX_LOAD_NSPACE(job3, "job3");
    PMIX_LOAD_NSPACE(job4, "job4");
    if (argc != 3)
        return 2;
    /* two fabrics: the file (first, default) and a generated fat tree */
    pmix_info_t fab2[3];
    PMIX_INFO_LOAD(&fab2[0], SWITCHYARD_FABRIC_GENERATE, "fattree:k=4", PMIX_STRING);
    PMIX_INFO_LOAD(&fab2[1], PMIX_FABRIC_VENDOR, "acme", PMIX_STRING);
    PMIX_INFO_LOAD(&fab2[2], PMIX_FABRIC_IDENTIFIER, "clos", PMIX_STRING);
    pmix_data_array_t d2 = {.type = PMIX_INFO, .size = 3, .array = fab2};
    pmix_info_t fab1[2];
    PMIX_INFO_LOAD(&fab1[0], SWITCHYARD_FABRIC_TOPOLOGY, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&fab1[1], SWITCHYARD_FABRIC_WATCH, &(double){0}, PMIX_DOUBLE);
    pmix_data_array_t d1 = {.type = PMIX_INFO, .size = 2, .array = fab1};
    pmix_info_t init[3];
    PMIX_INFO_LOAD(&init[0], PMIX_SERVER_SCHEDULER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&init[1], SWITCHYARD_FABRIC, &d1, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&init[2], SWITCHYARD_FABRIC, &d2, PMIX_DATA_ARRAY);
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, init, 3);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&init[i]);
        PMIX_INFO_DESTRUCT(&fab2[i]);
    }
    PMIX_INFO_DESTRUCT(&fab1[0]);
    PMIX_INFO_DESTRUCT(&fab1[1]);
    CHECK(rc == PMIX_SUCCESS, "server_init: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS)
        return 1;

    /* selection */
    pmix_fabric_t a, b;
    PMIX_FABRIC_CONSTRUCT(&a);
    PMIX_FABRIC_CONSTRUCT(&b);
    rc = PMIx_Fabric_register(&a, NULL, 0);
    CHECK(rc == PMIX_SUCCESS && a.index == 0 && fabric_ndev(&a) == 4, "default fabric: %s",
          PMIx_Error_string(rc));
    CHECK(fabric_type(&a, PMIX_FABRIC_COST_MATRIX) == PMIX_POINTER, "a pointer in the scheduler");
    pmix_info_t sel;
    PMIX_INFO_LOAD(&sel, PMIX_FABRIC_VENDOR, "acme", PMIX_STRING);
    rc = PMIx_Fabric_register(&b, &sel, 1);
    CHECK(rc == PMIX_SUCCESS && b.index == 1 && fabric_ndev(&b) == 16, "by vendor: %s",
          PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&sel);
    PMIx_Fabric_deregister(&b);
    PMIX_INFO_LOAD(&sel, PMIX_FABRIC_IDENTIFIER, "clos", PMIX_STRING);
    rc = PMIx_Fabric_register(&b, &sel, 1);
    CHECK(rc == PMIX_SUCCESS && b.index == 1, "by identifier: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&sel);
    PMIx_Fabric_deregister(&b);
    PMIX_INFO_LOAD(&sel, PMIX_FABRIC_PLANE, "plane0", PMIX_STRING);
    rc = PMIx_Fabric_register(&b, &sel, 1);
    const pmix_value_t *pl = rc == PMIX_SUCCESS ? fabric_find(&b, PMIX_FABRIC_PLANE) : NULL;
    CHECK(pl != NULL && pl->type == PMIX_STRING && strcmp(pl->data.string, "plane0") == 0 &&
              fabric_type(&b, PMIX_FABRIC_COST_MATRIX) == PMIX_POINTER,
          "by plane: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&sel);
    PMIx_Fabric_deregister(&b);
    PMIX_INFO_LOAD(&sel, SWITCHYARD_FABRIC_GENERATE, "torus:3x3", PMIX_STRING);
    rc = PMIx_Fabric_register(&b, &sel, 1);
    CHECK(rc == PMIX_SUCCESS && b.index == 2 && fabric_ndev(&b) == 9,
          "a fabric added by a directive: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&sel);
    PMIx_Fabric_deregister(&b);
    PMIX_INFO_LOAD(&sel, SWITCHYARD_FABRIC_GENERATE, "torus:banana", PMIX_STRING);
    rc = PMIx_Fabric_register(&b, &sel, 1);
    CHECK(rc != PMIX_SUCCESS && b.info == NULL, "a bad generator is refused");
    PMIX_INFO_DESTRUCT(&sel);
    PMIx_Fabric_deregister(&a);
    if (fails == 0)
        printf("ok fabric selection\n");

    /* a link goes down: PENDING, this handler, swap, UPDATED */
    pmix_status_t codes[2] = {PMIX_FABRIC_UPDATE_PENDING, PMIX_FABRIC_UPDATED};
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    PMIX_FABRIC_CONSTRUCT(&evf);
    rc = PMIx_Fabric_register(&evf, NULL, 0);
    CHECK(rc == PMIX_SUCCESS && cost01(&evf) == 4, "register before the change");
    pmix_info_t dirs[2];
    PMIX_INFO_LOAD(&dirs[0], SWITCHYARD_FABRIC_LINK, "s1 sp", PMIX_STRING);
    pmix_link_state_t down = PMIX_LINK_DOWN;
    PMIX_INFO_LOAD(&dirs[1], SWITCHYARD_FABRIC_LINK_STATE, &down, PMIX_LINK_STATE);
    rc = PMIx_server_deliver_inventory(NULL, 0, dirs, 2, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS, "link state delivered: %s", PMIx_Error_string(rc));
    wait_for(&evw, 2);
    CHECK(norder == 2 && order[0] == PMIX_FABRIC_UPDATE_PENDING && order[1] == PMIX_FABRIC_UPDATED,
          "PENDING then UPDATED (%d events)", norder);
    CHECK(seen_pending == 4 && seen_updated == UINT16_MAX,
          "old data at PENDING (%u), new at "
          "UPDATED (%u)",
          seen_pending, seen_updated);
    wait_for(&heldw, 1);
    CHECK(held_early == 0, "a registration during PENDING was answered before the chain completed");
    CHECK(heldw.done == 1 && heldw.status == PMIX_SUCCESS && cost01(&heldf) == UINT16_MAX,
          "the held registration: %s, new data (%u)", PMIx_Error_string(heldw.status),
          cost01(&heldf));
    PMIx_Fabric_deregister(&heldf);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_LOAD(&dirs[0], SWITCHYARD_FABRIC_LINK, "s1 nowhere", PMIX_STRING);
    rc = PMIx_server_deliver_inventory(NULL, 0, dirs, 2, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "unknown link: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIx_Fabric_deregister(&evf);
    if (fails == 0)
        printf("ok update protocol in the scheduler\n");

    /* setup_application: always a callback */
    wait_t w1 = WAIT_INIT;
    pmix_info_t app[3];
    size_t two = 2;
    char *nmap = NULL, *pmap = NULL;
    PMIx_generate_regex("nodeA,nodeB", &nmap);
    PMIx_generate_ppn("0,1;2", &pmap);
    PMIX_INFO_LOAD(&app[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&app[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&app[2], PMIX_ALLOC_FABRIC_ENDPTS, &two, PMIX_SIZE);
    rc = PMIx_server_setup_application(job1, app, 3, setup_cb, &w1);
    CHECK(rc == PMIX_SUCCESS, "setup_application: %s", PMIx_Error_string(rc));
    wait_for(&w1, 1);
    CHECK(w1.done == 1 && w1.status == PMIX_SUCCESS, "setup callback: %s",
          PMIx_Error_string(w1.status));
    size_t nodes = 0, procs = 0, endpts = 0;
    for (size_t i = 0; i < w1.ninfo; i++) {
        nodes += PMIX_CHECK_KEY(&w1.info[i], PMIX_NODE_INFO_ARRAY);
        if (PMIX_CHECK_KEY(&w1.info[i], PMIX_PROC_DATA)) {
            procs++;
            pmix_data_array_t *pd = w1.info[i].value.data.darray;
            const pmix_info_t *e = info_find(pd->array, pd->size, PMIX_FABRIC_ENDPT);
            if (e != NULL)
                endpts += e->value.data.darray->size;
        }
    }
    /* 2 nodes; per rank a switch-peers entry and an endpoint entry; 2
     * devices x 2 endpoints per rank */
    CHECK(nodes == 2 && procs == 6 && endpts == 12,
          "job data: %zu nodes, %zu proc entries, %zu "
          "endpoints",
          nodes, procs, endpts);
    CHECK(info_find(w1.info, w1.ninfo, PMIX_FABRIC_PLANE) != NULL &&
              info_find(w1.info, w1.ninfo, PMIX_FABRIC_SWITCH) != NULL,
          "plane and switch lists");
    /* the job's fabric environment: a transport key of its own */
    char key1[64] = "";
    for (size_t i = 0; i < w1.ninfo; i++)
        if (PMIX_CHECK_KEY(&w1.info[i], PMIX_SET_ENVAR) &&
            strcmp(w1.info[i].value.data.envar.envar, "OMPI_MCA_orte_precondition_transports") == 0)
            snprintf(key1, sizeof(key1), "%s", w1.info[i].value.data.envar.value);
    CHECK(strlen(key1) == 33 && key1[16] == '-', "transport key '%s'", key1);

    /* the same maps typed PMIX_REGEX, as the standard's own examples pass
     * them: the same job data (issue 16) */
    wait_t wr = WAIT_INIT;
    pmix_info_t rx[2];
    pmix_nspace_t jobr;
    PMIX_LOAD_NSPACE(jobr, "job1r");
    PMIX_INFO_LOAD(&rx[0], PMIX_NODE_MAP, nmap, PMIX_REGEX);
    PMIX_INFO_LOAD(&rx[1], PMIX_PROC_MAP, pmap, PMIX_REGEX);
    rc = PMIx_server_setup_application(jobr, rx, 2, setup_cb, &wr);
    if (rc == PMIX_SUCCESS)
        wait_for(&wr, 1);
    size_t rnodes = 0, rprocs = 0;
    for (size_t i = 0; i < wr.ninfo; i++) {
        rnodes += PMIX_CHECK_KEY(&wr.info[i], PMIX_NODE_INFO_ARRAY);
        rprocs += PMIX_CHECK_KEY(&wr.info[i], PMIX_PROC_DATA);
    }
    CHECK(rc == PMIX_SUCCESS && wr.status == PMIX_SUCCESS && rnodes == 2 && rprocs == 3,
          "maps typed PMIX_REGEX: %s, %zu nodes, %zu proc entries", PMIx_Error_string(wr.status),
          rnodes, rprocs);
    if (wr.release != NULL)
        wr.release(PMIX_SUCCESS, wr.release_data);
    PMIX_INFO_DESTRUCT(&rx[0]);
    PMIX_INFO_DESTRUCT(&rx[1]);

    /* setup_local_support of that data: the namespace must be known */
    wait_t w2 = WAIT_INIT;
    rc = PMIx_server_setup_local_support(nojob, w1.info, w1.ninfo, op_cb, &w2);
    if (rc == PMIX_SUCCESS)
        wait_for(&w2, 1);
    CHECK(rc == PMIX_SUCCESS && w2.done == 1 && w2.status == PMIX_ERR_NOT_FOUND,
          "unknown namespace: %s / %s", PMIx_Error_string(rc), PMIx_Error_string(w2.status));
    uint32_t size = 3;
    pmix_info_t reg[3];
    PMIX_INFO_LOAD(&reg[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&reg[1], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&reg[2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    free(nmap);
    free(pmap);
    rc = PMIx_server_register_nspace(job1, 0, reg, 3, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS, "register_nspace: %s", PMIx_Error_string(rc));
    wait_t w3 = WAIT_INIT;
    rc = PMIx_server_setup_local_support(job1, w1.info, w1.ninfo, op_cb, &w3);
    if (rc == PMIX_SUCCESS)
        wait_for(&w3, 1);
    CHECK(rc == PMIX_SUCCESS && w3.done == 1 && w3.status == PMIX_SUCCESS,
          "setup_local_support: %s / %s", PMIx_Error_string(rc), PMIx_Error_string(w3.status));
    w1.release(PMIX_SUCCESS, w1.release_data);
    /* the data is in the job now, for the host too */
    pmix_proc_t p2;
    PMIX_LOAD_PROCID(&p2, "job1", 2);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&p2, PMIX_FABRIC_COORDINATES, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v->type == PMIX_DATA_ARRAY && v->data.darray->size == 2,
          "coordinates of rank 2's node: %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&p2, PMIX_FABRIC_ENDPT, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v->data.darray->size == 4, "rank 2's endpoints: %s",
          PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(v);
    local_env_check(job1, key1);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&reg[i]);
        PMIX_INFO_DESTRUCT(&app[i]);
    }
    /* bad maps: still a callback, with the error */
    wait_t w4 = WAIT_INIT;
    PMIX_INFO_LOAD(&app[0], PMIX_NODE_MAP, "pmix[nodeA[0-", PMIX_STRING);
    PMIX_INFO_LOAD(&app[1], PMIX_PROC_MAP, "0", PMIX_STRING);
    rc = PMIx_server_setup_application(job2, app, 2, setup_cb, &w4);
    if (rc == PMIX_SUCCESS)
        wait_for(&w4, 1);
    CHECK(rc == PMIX_SUCCESS && w4.done == 1 && w4.status != PMIX_SUCCESS && w4.ninfo == 0,
          "bad maps: %s", PMIx_Error_string(w4.status));
    if (w4.release != NULL)
        w4.release(PMIX_SUCCESS, w4.release_data);
    PMIX_INFO_DESTRUCT(&app[0]);
    PMIX_INFO_DESTRUCT(&app[1]);
    rc = PMIx_server_setup_application(job3, NULL, 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "no callback: %s", PMIx_Error_string(rc));
    /* PMIX_ALLOC_FABRIC without maps */
    wait_t w5 = WAIT_INIT;
    pmix_info_t req[3];
    PMIX_INFO_LOAD(&req[0], PMIX_ALLOC_FABRIC_ID, "myfab", PMIX_STRING);
    PMIX_INFO_LOAD(&req[1], PMIX_ALLOC_FABRIC_TYPE, "tcp", PMIX_STRING);
    PMIX_INFO_LOAD(&req[2], PMIX_ALLOC_FABRIC_SEC_KEY, NULL, PMIX_BOOL);
    pmix_data_array_t rq = {.type = PMIX_INFO, .size = 3, .array = req};
    PMIX_INFO_LOAD(&app[0], PMIX_ALLOC_FABRIC, &rq, PMIX_DATA_ARRAY);
    rc = PMIx_server_setup_application(job4, app, 1, setup_cb, &w5);
    if (rc == PMIX_SUCCESS)
        wait_for(&w5, 1);
    const pmix_info_t *al = w5.done ? info_find(w5.info, w5.ninfo, "myfab") : NULL;
    CHECK(al != NULL && al->value.type == PMIX_DATA_ARRAY &&
              PMIX_CHECK_KEY((pmix_info_t *)al->value.data.darray->array, "myfab") &&
              info_find(al->value.data.darray->array, al->value.data.darray->size,
                        PMIX_ALLOC_FABRIC_SEC_KEY) != NULL,
          "fabric allocation under its id");
    char key4[64] = "";
    for (size_t i = 0; w5.done && i < w5.ninfo; i++)
        if (PMIX_CHECK_KEY(&w5.info[i], PMIX_SET_ENVAR) &&
            strcmp(w5.info[i].value.data.envar.envar, "OMPI_MCA_orte_precondition_transports") == 0)
            snprintf(key4, sizeof(key4), "%s", w5.info[i].value.data.envar.value);
    CHECK(strlen(key4) == 33 && strcmp(key4, key1) != 0, "another job, another transport key");
    if (w5.release != NULL)
        w5.release(PMIX_SUCCESS, w5.release_data);
    PMIX_INFO_DESTRUCT(&app[0]);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&req[i]);
    if (fails == 0)
        printf("ok setup_application / setup_local_support\n");

    /* distances on a given topology: an HCA on package 0, a GPU on 1 */
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_set_xml(topo, argv[2]) == 0 && hwloc_topology_load(topo) == 0) {
        pmix_topology_t t = {.source = "hwloc", .topology = topo};
        hwloc_bitmap_t pu0 = hwloc_bitmap_alloc();
        hwloc_bitmap_only(pu0, 0);
        pmix_cpuset_t cs = {.source = "hwloc", .bitmap = pu0};
        pmix_device_distance_t *dist = NULL;
        size_t nd = 0;
        rc = PMIx_Compute_distances(&t, &cs, NULL, 0, &dist, &nd);
        CHECK(rc == PMIX_SUCCESS && nd >= 2, "distances: %s, %zu", PMIx_Error_string(rc), nd);
        bool near = false, far = false;
        for (size_t i = 0; i < nd; i++) {
            near = near || (dist[i].type == PMIX_DEVTYPE_OPENFABRICS && dist[i].mindist == 0);
            far = far || (dist[i].type == PMIX_DEVTYPE_GPU && dist[i].mindist == 1);
        }
        CHECK(near && far, "the HCA is near PU 0, the GPU one level away");
        if (dist != NULL)
            PMIX_DEVICE_DIST_FREE(dist, nd);
        pmix_info_t ty;
        pmix_device_type_t gpu = PMIX_DEVTYPE_GPU;
        PMIX_INFO_LOAD(&ty, PMIX_DEVICE_TYPE, &gpu, PMIX_DEVTYPE);
        rc = PMIx_Compute_distances(&t, &cs, &ty, 1, &dist, &nd);
        CHECK(rc == PMIX_SUCCESS && nd >= 1 && dist[0].type == PMIX_DEVTYPE_GPU, "GPUs only");
        if (dist != NULL)
            PMIX_DEVICE_DIST_FREE(dist, nd);
        pmix_cpuset_t nobits = {.source = "hwloc", .bitmap = NULL};
        rc = PMIx_Compute_distances(&t, &nobits, NULL, 0, &dist, &nd);
        CHECK(rc == PMIX_ERR_BAD_PARAM, "a cpuset without bits: %s", PMIx_Error_string(rc));
        hwloc_bitmap_free(pu0);
    } else {
        CHECK(0, "cannot load %s", argv[2]);
    }
    hwloc_topology_destroy(topo);
    if (fails == 0)
        printf("ok PMIx_Compute_distances\n");

    /* a delivered inventory is node data; a device can be deregistered */
    {
        pmix_info_t dev[3], node[2];
        PMIX_INFO_LOAD(&dev[0], PMIX_DEVICE_ID, "nodeX:mlx5_0", PMIX_STRING);
        PMIX_INFO_LOAD(&dev[1], PMIX_FABRIC_DEVICE_NAME, "mlx5_0", PMIX_STRING);
        PMIX_INFO_LOAD(&dev[2], PMIX_FABRIC_DEVICE_VENDOR, "Mellanox", PMIX_STRING);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 3, .array = dev};
        PMIX_INFO_LOAD(&node[0], PMIX_FABRIC_DEVICE, &da, PMIX_DATA_ARRAY);
        pmix_data_array_t all = {.type = PMIX_INFO, .size = 1, .array = node};
        pmix_info_t inv[2];
        PMIX_INFO_LOAD(&inv[0], PMIX_HOSTNAME, "nodeX", PMIX_STRING);
        PMIX_INFO_LOAD(&inv[1], PMIX_FABRIC_DEVICES, &all, PMIX_DATA_ARRAY);
        rc = PMIx_server_deliver_inventory(inv, 2, NULL, 0, NULL, NULL);
        CHECK(rc == PMIX_SUCCESS, "deliver_inventory: %s", PMIx_Error_string(rc));
        pmix_proc_t any;
        PMIX_LOAD_PROCID(&any, "job1", PMIX_RANK_WILDCARD);
        pmix_info_t q;
        PMIX_INFO_LOAD(&q, PMIX_DEVICE_ID, "nodeX:mlx5_0", PMIX_STRING);
        v = NULL;
        rc = PMIx_Get(&any, PMIX_FABRIC_DEVICE, &q, 1, &v);
        CHECK(rc == PMIX_SUCCESS && v->type == PMIX_DATA_ARRAY && v->data.darray->size == 3,
              "the delivered device: %s", PMIx_Error_string(rc));
        if (rc == PMIX_SUCCESS)
            PMIX_VALUE_RELEASE(v);
        rc = PMIx_server_deregister_resources(&q, 1, NULL, NULL);
        CHECK(rc == PMIX_SUCCESS, "deregister_resources: %s", PMIx_Error_string(rc));
        rc = PMIx_Get(&any, PMIX_FABRIC_DEVICE, &q, 1, &v);
        CHECK(rc == PMIX_ERR_NOT_FOUND, "the device is gone: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&q);
        for (int i = 0; i < 3; i++)
            PMIX_INFO_DESTRUCT(&dev[i]);
        PMIX_INFO_DESTRUCT(&node[0]);
        PMIX_INFO_DESTRUCT(&inv[0]);
        PMIX_INFO_DESTRUCT(&inv[1]);
        if (fails == 0)
            printf("ok inventory: delivered, read, deregistered\n");
    }

    /* inventory of this machine */
    wait_t w6 = WAIT_INIT;
    rc = PMIx_server_collect_inventory(NULL, 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "collect without a callback: %s", PMIx_Error_string(rc));
    rc = PMIx_server_collect_inventory(NULL, 0, inventory_cb, &w6);
    if (rc == PMIX_SUCCESS)
        wait_for(&w6, 1);
    CHECK(rc == PMIX_SUCCESS && w6.done == 1 && w6.status == PMIX_SUCCESS && inv_host &&
              inv_devices,
          "collect_inventory: %s / %s, hostname %d, devices %d", PMIx_Error_string(rc),
          PMIx_Error_string(w6.status), inv_host, inv_devices);
    if (fails == 0)
        printf("ok inventory of this machine collected\n");
    PMIx_server_finalize();
    if (fails == 0)
        printf("ok server finalized\n");
    return fails != 0;
}
