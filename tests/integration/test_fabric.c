/* A client of a node daemon (switchyard-sched --node) whose scheduler
 * serves tests/integration/fabric.sh's two-leaf topology:
 *
 *   s0 -- sp -- s1      a0, a1 on s0 (host nodeA); b0, b1 on s1 (nodeB)
 *
 *   test_fabric node HOST   the fabric by value, groups, the node's
 *                           coordinates, devices, switch peers, endpoints,
 *                           plane and switch lists, then deregistration
 *   test_fabric events      PENDING -> (this handler completes late) ->
 *                           UPDATED, data old before and new after
 *   test_fabric bad         refused requests
 *   test_fabric leak N      N register/update/deregister rounds
 * Prints "ok" lines; exits non-zero at the first failure. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "test_fabric.h"

static pmix_proc_t me;

static pmix_value_t *get(const pmix_proc_t *p, const char *key, const pmix_info_t *q, size_t nq)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, q, nq, &v);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Get %s: %s", key, PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? v : NULL;
}

static int node(const char *host)
{
    pmix_fabric_t f;
    PMIX_FABRIC_CONSTRUCT(&f);
    pmix_status_t rc = PMIx_Fabric_register(&f, NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "register: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS)
        return 1;
    const pmix_value_t *v = fabric_find(&f, PMIX_FABRIC_NUM_DEVICES);
    CHECK(v != NULL && v->type == PMIX_SIZE && v->data.size == 4, "4 devices");
    CHECK(fabric_find(&f, PMIX_FABRIC_VENDOR) != NULL &&
              fabric_find(&f, PMIX_FABRIC_IDENTIFIER) != NULL,
          "vendor and identifier");
    /* the matrix is this process's copy: device order a0 a1 b0 b1 */
    CHECK(fabric_cost(&f, 0, 0) == 0 && fabric_cost(&f, 0, 1) == 2 && fabric_cost(&f, 0, 2) == 4 &&
              fabric_cost(&f, 3, 2) == 2 && fabric_cost(&f, 1, 3) == 4,
          "cost matrix");
    v = fabric_find(&f, PMIX_FABRIC_GROUPS);
    CHECK(v != NULL && v->type == PMIX_STRING && strcmp(v->data.string, "0:nodeA;1:nodeB") == 0,
          "groups %s", v != NULL && v->type == PMIX_STRING ? v->data.string : "(none)");
    CHECK(fabric_find(&f, PMIX_FABRIC_SHAPE_STRING) != NULL &&
              fabric_find(&f, PMIX_FABRIC_DIMS) != NULL,
          "shape and dims");
    printf("ok %s: fabric by value\n", host);

    /* node realm: this node's coordinates and devices */
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t q[2];
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, host, PMIX_STRING);
    pmix_value_t *val = get(&wild, PMIX_FABRIC_COORDINATES, q, 2);
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->type == PMIX_GEOMETRY &&
                  val->data.darray->size == 2,
              "two geometries");
        pmix_geometry_t *g = val->data.darray->array;
        /* a native file places nothing: the logical view only, no copy
         * of it labelled physical */
        CHECK(g[0].ncoords == 1 && g[0].coordinates[0].view == PMIX_COORD_LOGICAL_VIEW &&
                  g[0].coordinates[0].dims == 3,
              "coordinates of the first device");
        PMIX_VALUE_RELEASE(val);
    }
    val = get(&wild, PMIX_FABRIC_DEVICES, q, 2);
    /* the node's inventory (its real devices) names the first devices,
     * the topology the others: "<host>:<name>" either way */
    char id[256] = "";
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->size >= 2, "two devices");
        pmix_info_t *d = val->data.darray->array;
        pmix_info_t *first = d[0].value.data.darray->array;
        CHECK(PMIX_CHECK_KEY(&d[0], PMIX_FABRIC_DEVICE) &&
                  PMIX_CHECK_KEY(&first[0], PMIX_DEVICE_ID) &&
                  strncmp(first[0].value.data.string, host, strlen(host)) == 0 &&
                  first[0].value.data.string[strlen(host)] == ':',
              "device id first");
        snprintf(id, sizeof(id), "%s", first[0].value.data.string);
        bool have_index = false;
        for (size_t i = 0; i < d[0].value.data.darray->size; i++)
            have_index = have_index || PMIX_CHECK_KEY(&first[i], PMIX_FABRIC_DEVICE_INDEX);
        CHECK(have_index, "device index");
        PMIX_VALUE_RELEASE(val);
    }
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_LOAD(&q[0], PMIX_DEVICE_ID, id, PMIX_STRING);
    val = get(&wild, PMIX_FABRIC_DEVICE, q, 1);
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->type == PMIX_INFO &&
                  strcmp(((pmix_info_t *)val->data.darray->array)[0].value.data.string, id) == 0,
              "the device by its id");
        PMIX_VALUE_RELEASE(val);
    }
    PMIX_INFO_DESTRUCT(&q[0]);
    printf("ok %s: node devices and coordinates\n", host);

    /* job and process realms */
    val = get(&me, PMIX_SWITCH_PEERS, NULL, 0);
    if (val != NULL) {
        pmix_info_t *e = val->data.darray->array;
        CHECK(val->data.darray->size == 2, "one peer entry per device");
        pmix_info_t *three = e[0].value.data.darray->array;
        CHECK(e[0].value.data.darray->size == 3 && PMIX_CHECK_KEY(&three[1], PMIX_FABRIC_SWITCH) &&
                  strcmp(three[1].value.data.string, strcmp(host, "nodeA") == 0 ? "s0" : "s1") ==
                      0 &&
                  strcmp(three[2].value.data.string, "0") == 0,
              "switch peers");
        PMIX_VALUE_RELEASE(val);
    }
    val = get(&me, PMIX_FABRIC_ENDPT, NULL, 0);
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->type == PMIX_ENDPOINT &&
                  val->data.darray->size == 2,
              "one endpoint per device");
        PMIX_VALUE_RELEASE(val);
    }
    val = get(&wild, PMIX_FABRIC_PLANE, NULL, 0);
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->size == 1, "one plane");
        PMIX_VALUE_RELEASE(val);
    }
    val = get(&wild, PMIX_FABRIC_SWITCH, NULL, 0);
    if (val != NULL) {
        CHECK(val->type == PMIX_DATA_ARRAY && val->data.darray->size == 3, "three switches");
        PMIX_VALUE_RELEASE(val);
    }
    printf("ok %s: switch peers, endpoints, planes, switches\n", host);

    rc = PMIx_Fabric_update(&f);
    CHECK(rc == PMIX_SUCCESS && fabric_cost(&f, 0, 2) == 4, "update: %s", PMIx_Error_string(rc));
    rc = PMIx_Fabric_deregister(&f);
    CHECK(rc == PMIX_SUCCESS && f.info == NULL && f.ninfo == 0 && f.module == NULL,
          "deregister: %s", PMIx_Error_string(rc));
    rc = PMIx_Fabric_deregister(&f);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "second deregister: %s", PMIx_Error_string(rc));
    printf("ok %s: update and deregister\n", host);
    return fails != 0;
}

/* ---- events ---- */

static pmix_fabric_t ef;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int pending_seen, pending_done, updated_seen, updated_before_done;
static uint16_t cost_at_pending, cost_at_updated;

/* just before the PENDING handler completes */
static void pending_ends(void)
{
    pthread_mutex_lock(&lock);
    CHECK(fabric_cost(&ef, 0, 2) == cost_at_pending,
          "the data changed while the PENDING handler ran");
    pending_done = 1;
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    if (status == PMIX_FABRIC_UPDATE_PENDING) {
        pending_seen++;
        cost_at_pending = fabric_cost(&ef, 0, 2);
        pthread_mutex_unlock(&lock);
        complete_late(cbfunc, cbdata, pending_ends);
        return;
    }
    updated_seen++;
    updated_before_done = !pending_done;
    cost_at_updated = fabric_cost(&ef, 0, 2);
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int events(void)
{
    pmix_status_t codes[2] = {PMIX_FABRIC_UPDATE_PENDING, PMIX_FABRIC_UPDATED};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    CHECK(rc > 0 || rc == PMIX_SUCCESS, "handler: %s", PMIx_Error_string(rc));
    PMIX_FABRIC_CONSTRUCT(&ef);
    rc = PMIx_Fabric_register(&ef, NULL, 0);
    CHECK(rc == PMIX_SUCCESS && fabric_cost(&ef, 0, 2) == 4, "register: %s", PMIx_Error_string(rc));
    printf("ready\n");
    fflush(stdout);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&lock);
    while (updated_seen == 0)
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0)
            break;
    CHECK(pending_seen == 1 && updated_seen == 1, "one PENDING (%d), one UPDATED (%d)",
          pending_seen, updated_seen);
    CHECK(!updated_before_done, "UPDATED only after the PENDING handler completed");
    CHECK(cost_at_pending == 4, "old data during PENDING (%u)", cost_at_pending);
    CHECK(cost_at_updated == UINT16_MAX, "new data at UPDATED (%u)", cost_at_updated);
    pthread_mutex_unlock(&lock);
    rc = PMIx_Fabric_deregister(&ef);
    CHECK(rc == PMIX_SUCCESS, "deregister: %s", PMIx_Error_string(rc));
    if (fails == 0)
        printf("ok events: PENDING -> completion -> UPDATED with the new data\n");
    return fails != 0;
}

static int bad(void)
{
    pmix_fabric_t f;
    PMIX_FABRIC_CONSTRUCT(&f);
    pmix_status_t rc = PMIx_Fabric_register(NULL, NULL, 0);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "NULL fabric: %s", PMIx_Error_string(rc));
    rc = PMIx_Fabric_update(&f);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "update of an unregistered fabric: %s", PMIx_Error_string(rc));
    pmix_info_t d;
    PMIX_INFO_LOAD(&d, PMIX_FABRIC_PLANE, "no-such-plane", PMIX_STRING);
    rc = PMIx_Fabric_register(&f, &d, 1);
    CHECK(rc == PMIX_ERR_NOT_FOUND && f.info == NULL, "unknown plane: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&d);
    size_t idx = 7;
    PMIX_INFO_LOAD(&d, PMIX_FABRIC_INDEX, &idx, PMIX_SIZE);
    rc = PMIx_Fabric_register(&f, &d, 1);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "unknown index: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&d);
    int bogus = 42;
    PMIX_INFO_LOAD(&d, PMIX_FABRIC_VENDOR, &bogus, PMIX_INT);
    rc = PMIx_Fabric_register(&f, &d, 1);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "vendor of the wrong type: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&d);
    rc = PMIx_Fabric_register(&f, NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "register: %s", PMIx_Error_string(rc));
    rc = PMIx_Fabric_register(&f, NULL, 0);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "registered twice: %s", PMIx_Error_string(rc));
    PMIx_Fabric_deregister(&f);
    if (fails == 0)
        printf("ok bad requests refused\n");
    return fails != 0;
}

static int leak(int rounds)
{
    for (int i = 0; i < rounds && fails == 0; i++) {
        pmix_fabric_t f;
        PMIX_FABRIC_CONSTRUCT(&f);
        CHECK(PMIx_Fabric_register(&f, NULL, 0) == PMIX_SUCCESS, "register");
        CHECK(PMIx_Fabric_update(&f) == PMIX_SUCCESS, "update");
        CHECK(PMIx_Fabric_deregister(&f) == PMIX_SUCCESS && f.info == NULL, "deregister");
    }
    if (fails == 0)
        printf("ok %d register/update/deregister rounds\n", rounds);
    return fails != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "test_fabric: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    snprintf(check_who, sizeof(check_who), "test_fabric %s:%u", me.nspace, me.rank);
    int ret = 2;
    if (!strcmp(argv[1], "node") && argc > 2)
        ret = node(argv[2]);
    else if (!strcmp(argv[1], "events"))
        ret = events();
    else if (!strcmp(argv[1], "bad"))
        ret = bad();
    else if (!strcmp(argv[1], "leak") && argc > 2)
        ret = leak(atoi(argv[2]));
    PMIx_Finalize(NULL, 0);
    return ret;
}
