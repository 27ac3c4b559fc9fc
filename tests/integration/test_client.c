/* The client side of the integration tests, written only against the
 * public PMIx client API (plus plain sockets for the hostile modes).
 *
 *   test_client keys      Init, then check every reserved key of every realm
 *                         of the job in job_layout.h, derived ones included,
 *                         with their exact types; Store_internal, key-NULL
 *                         Get, Resolve_peers/nodes; Finalize.
 *   test_client abort     PMIx_Abort must succeed (the host acks it).
 *   test_client refused   PMIx_Init must fail (we were registered under
 *                         another uid).
 *   test_client refused-unknown-rank   PMIx_Init with a rank nobody
 *                         registered must fail.
 *   test_client garbage   send random bytes to the server's UNIX socket;
 *                         the server must close the connection.
 *   test_client truncated send a frame cut short and leave.
 *   test_client stall     send half a frame header, then wait to be killed.
 * Exit status 0 when every check held. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <pmix.h>

#include "job_layout.h"

extern char **environ;

static int failures;
static pmix_proc_t me;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(rank %u): ", me.rank);                                               \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static layout_t L;

/* ---- one Get, checked for status and type ---- */
static pmix_value_t *get(const char *what, pmix_rank_t rank, const char *key, pmix_info_t *info,
                         size_t ninfo, pmix_data_type_t type)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, info, ninfo, &v);
    if (rc != PMIX_SUCCESS) {
        FAIL("%s: Get(%u, %s) returned %s", what, rank, key, PMIx_Error_string(rc));
        return NULL;
    }
    if (v == NULL) {
        FAIL("%s: Get(%u, %s) returned success without a value", what, rank, key);
        return NULL;
    }
    if (v->type != type) {
        FAIL("%s: Get(%u, %s) returned type %s, expected %s", what, rank, key,
             PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
        PMIX_VALUE_RELEASE(v);
        return NULL;
    }
    return v;
}

static void expect_u32(const char *what, pmix_rank_t rank, const char *key, pmix_info_t *info,
                       size_t ninfo, uint32_t want)
{
    pmix_value_t *v = get(what, rank, key, info, ninfo, PMIX_UINT32);
    if (v != NULL && v->data.uint32 != want)
        FAIL("%s: %s of %u is %u, expected %u", what, key, rank, v->data.uint32, want);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void expect_u16(const char *what, pmix_rank_t rank, const char *key, uint16_t want)
{
    pmix_value_t *v = get(what, rank, key, NULL, 0, PMIX_UINT16);
    if (v != NULL && v->data.uint16 != want)
        FAIL("%s: %s of %u is %u, expected %u", what, key, rank, v->data.uint16, want);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void expect_rank(const char *what, pmix_rank_t rank, const char *key, pmix_info_t *info,
                        size_t ninfo, pmix_rank_t want)
{
    pmix_value_t *v = get(what, rank, key, info, ninfo, PMIX_PROC_RANK);
    if (v != NULL && v->data.rank != want)
        FAIL("%s: %s of %u is %u, expected %u", what, key, rank, v->data.rank, want);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void expect_str(const char *what, pmix_rank_t rank, const char *key, pmix_info_t *info,
                       size_t ninfo, const char *want)
{
    pmix_value_t *v = get(what, rank, key, info, ninfo, PMIX_STRING);
    if (v == NULL)
        return;
    const char *got = v->data.string;
    if ((want == NULL) != (got == NULL) || (want != NULL && strcmp(want, got) != 0))
        FAIL("%s: %s of %u is \"%s\", expected \"%s\"", what, key, rank, got ? got : "(null)",
             want ? want : "(null)");
    PMIX_VALUE_RELEASE(v);
}

static void expect_missing(const char *what, pmix_rank_t rank, const char *key)
{
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, &opt, 1, &v);
    if (rc != PMIX_ERR_NOT_FOUND)
        FAIL("%s: Get(%u, %s) returned %s, expected PMIX_ERR_NOT_FOUND", what, rank, key,
             PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS && v != NULL)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&opt);
}

/* ---- the realms ---- */
static void check_job(void)
{
    char list[4096];
    snprintf(list, sizeof list, "%s,%s,%s", L.names[0], L.names[1], L.names[2]);
    expect_u32("job", PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, L.size);
    expect_u32("job", PMIX_RANK_WILDCARD, PMIX_MAX_PROCS, NULL, 0, L.size + 8);
    expect_u32("job", PMIX_RANK_WILDCARD, PMIX_JOB_NUM_APPS, NULL, 0, 2);
    expect_u32("job", PMIX_RANK_WILDCARD, PMIX_NUM_NODES, NULL, 0, LAYOUT_NNODES);
    expect_str("job", PMIX_RANK_WILDCARD, PMIX_JOBID, NULL, 0, LAYOUT_JOBID);
    expect_str("job", PMIX_RANK_WILDCARD, PMIX_NSPACE, NULL, 0, me.nspace);
    expect_str("job", PMIX_RANK_WILDCARD, PMIX_NODE_LIST, NULL, 0, list);
    expect_str("job", PMIX_RANK_WILDCARD, "test.dup", NULL, 0, "second");

    pmix_value_t *v = get("job", PMIX_RANK_WILDCARD, "test.u64", NULL, 0, PMIX_UINT64);
    if (v != NULL && v->data.uint64 != 0x1122334455667788ull)
        FAIL("job: test.u64 has the wrong value");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = get("job", PMIX_RANK_WILDCARD, "test.bo", NULL, 0, PMIX_BYTE_OBJECT);
    if (v != NULL && (v->data.bo.size != 4 || memcmp(v->data.bo.bytes, "\x01\x00\x02\xff", 4)))
        FAIL("job: test.bo has the wrong bytes");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);

    /* With the job-realm qualifier, and from any rank (rank-level fallback). */
    pmix_info_t q;
    bool yes = true;
    PMIX_INFO_LOAD(&q, PMIX_JOB_INFO, &yes, PMIX_BOOL);
    expect_u32("job+qualifier", PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &q, 1, L.size);
    PMIX_INFO_DESTRUCT(&q);
    expect_u32("job via rank", me.rank, PMIX_JOB_SIZE, NULL, 0, L.size);

    /* This node, asked with the wildcard rank as Open MPI does. */
    char peers[2048];
    layout_peers(&L, LAYOUT_LOCAL_NODE, peers, sizeof peers);
    expect_u32("this node", PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, NULL, 0, L.nlocal);
    expect_str("this node", PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL, 0, peers);
    expect_rank("this node", PMIX_RANK_WILDCARD, PMIX_LOCALLDR, NULL, 0,
                L.first_rank[LAYOUT_LOCAL_NODE]);
}

static void check_session(void)
{
    expect_u32("session", PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, NULL, 0, LAYOUT_UNIV_SIZE);
    pmix_info_t q[2];
    bool yes = true;
    uint32_t sid = LAYOUT_SESSION_ID;
    PMIX_INFO_LOAD(&q[0], PMIX_SESSION_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_SESSION_ID, &sid, PMIX_UINT32);
    expect_u32("session+qualifier", PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, q, 1, LAYOUT_UNIV_SIZE);
    expect_u32("session+id", PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, q, 2, LAYOUT_UNIV_SIZE);
    expect_u32("session", PMIX_RANK_WILDCARD, PMIX_SESSION_ID, NULL, 0, LAYOUT_SESSION_ID);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void check_apps(void)
{
    for (uint32_t a = 0; a < 2; a++) {
        pmix_info_t q[2];
        bool yes = true;
        PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &a, PMIX_UINT32);
        char wdir[64];
        snprintf(wdir, sizeof wdir, "/work/app%u", a);
        expect_u32("app", PMIX_RANK_WILDCARD, PMIX_APP_SIZE, q, 2, L.app_size[a]);
        expect_rank("app", PMIX_RANK_WILDCARD, PMIX_APPLDR, q, 2, layout_app_leader(&L, a));
        expect_str("app", PMIX_RANK_WILDCARD, PMIX_WDIR, q, 2, wdir);
        PMIX_INFO_DESTRUCT(&q[0]);
        PMIX_INFO_DESTRUCT(&q[1]);
    }
    /* My own app, found from my rank. */
    pmix_info_t q;
    bool yes = true;
    PMIX_INFO_LOAD(&q, PMIX_APP_INFO, &yes, PMIX_BOOL);
    unsigned mine = layout_app_of(&L, me.rank);
    expect_u32("my app", me.rank, PMIX_APP_SIZE, &q, 1, L.app_size[mine]);
    PMIX_INFO_DESTRUCT(&q);
}

static void check_nodes(void)
{
    for (uint32_t n = 0; n < LAYOUT_NNODES; n++) {
        char peers[2048];
        layout_peers(&L, n, peers, sizeof peers);
        pmix_info_t q[2];
        bool yes = true;
        PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
        /* by id, then by name */
        PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &n, PMIX_UINT32);
        expect_str("node by id", PMIX_RANK_WILDCARD, PMIX_HOSTNAME, q, 2, L.names[n]);
        expect_u32("node by id", PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, q, 2, L.per_node[n]);
        expect_str("node by id", PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, q, 2, peers);
        PMIX_INFO_DESTRUCT(&q[1]);
        PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, L.names[n], PMIX_STRING);
        expect_u32("node by name", PMIX_RANK_WILDCARD, PMIX_NODEID, q, 2, n);
        pmix_value_t *v =
            get("node by name", PMIX_RANK_WILDCARD, PMIX_AVAIL_PHYS_MEMORY, q, 2, PMIX_UINT64);
        if (v != NULL && v->data.uint64 != (uint64_t)(n + 1) << 30)
            FAIL("node %u: PMIX_AVAIL_PHYS_MEMORY has the wrong value", n);
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        PMIX_INFO_DESTRUCT(&q[0]);
        PMIX_INFO_DESTRUCT(&q[1]);
    }
    /* The node of a given process, without naming it. */
    pmix_info_t q;
    bool yes = true;
    PMIX_INFO_LOAD(&q, PMIX_NODE_INFO, &yes, PMIX_BOOL);
    expect_u32("my node", me.rank, PMIX_LOCAL_SIZE, &q, 1, L.nlocal);
    PMIX_INFO_DESTRUCT(&q);
}

static void check_procs(void)
{
    for (unsigned r = 0; r < L.size; r++) {
        unsigned n = layout_node_of(&L, r), a = layout_app_of(&L, r);
        char color[64];
        layout_color(r, color, sizeof color);
        expect_str("proc", r, PMIX_HOSTNAME, NULL, 0, L.names[n]);
        expect_u32("proc", r, PMIX_NODEID, NULL, 0, n);
        expect_u32("proc", r, PMIX_APPNUM, NULL, 0, a);
        expect_u16("proc", r, PMIX_LOCAL_RANK, (uint16_t)(r - L.first_rank[n]));
        expect_u16("proc", r, PMIX_NODE_RANK, (uint16_t)(r - L.first_rank[n]));
        expect_rank("proc", r, PMIX_APP_RANK, NULL, 0, r - layout_app_leader(&L, a));
        expect_rank("proc", r, PMIX_GLOBAL_RANK, NULL, 0, r);
        expect_rank("proc", r, PMIX_RANK, NULL, 0, r);
        expect_str("proc", r, "test.color", NULL, 0, color);
        expect_str("proc", r, PMIX_LOCALITY_STRING, NULL, 0, NULL);
    }
    expect_missing("absent", me.rank, "test.no-such-key");
    expect_missing("absent", PMIX_RANK_WILDCARD, "test.no-such-key");
}

static void check_getall_and_internal(void)
{
    /* Store_internal on my own rank and on a foreign namespace. */
    pmix_value_t val;
    uint16_t loc = 0x55;
    PMIX_VALUE_LOAD(&val, &loc, PMIX_UINT16);
    pmix_proc_t foreign;
    PMIX_LOAD_PROCID(&foreign, "some-daemon-job", 0);
    pmix_status_t rc = PMIx_Store_internal(&me, "test.internal", &val);
    if (rc != PMIX_SUCCESS)
        FAIL("Store_internal(me): %s", PMIx_Error_string(rc));
    rc = PMIx_Store_internal(&foreign, "opal.puri", &val);
    if (rc != PMIX_SUCCESS)
        FAIL("Store_internal(foreign): %s", PMIx_Error_string(rc));
    pmix_value_t *v = NULL;
    if (PMIx_Get(&foreign, "opal.puri", NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
        v->type != PMIX_UINT16 || v->data.uint16 != 0x55)
        FAIL("Get of a Store_internal value of a foreign namespace failed");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);

    /* key == NULL: everything about me as a data array of infos. */
    v = NULL;
    rc = PMIx_Get(&me, NULL, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        v->data.darray->type != PMIX_INFO) {
        FAIL("Get(me, NULL) did not return a data array of infos (%s)", PMIx_Error_string(rc));
    } else {
        bool color = false, internal = false;
        pmix_info_t *infos = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            color |= strcmp(infos[i].key, "test.color") == 0;
            internal |= strcmp(infos[i].key, "test.internal") == 0;
        }
        if (!color || !internal)
            FAIL("Get(me, NULL) lacks %s", !color ? "test.color" : "test.internal");
    }
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void check_resolve(void)
{
    pmix_proc_t *procs = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Resolve_peers(L.names[2], me.nspace, &procs, &n);
    if (rc != PMIX_SUCCESS || n != L.per_node[2])
        FAIL("Resolve_peers(%s): %s, %zu procs", L.names[2], PMIx_Error_string(rc), n);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n && i < L.per_node[2]; i++)
        if (procs[i].rank != L.first_rank[2] + i || strcmp(procs[i].nspace, me.nspace) != 0)
            FAIL("Resolve_peers: entry %zu is %s.%u", i, procs[i].nspace, procs[i].rank);
    if (procs != NULL)
        PMIX_PROC_FREE(procs, n);

    char *nodes = NULL;
    rc = PMIx_Resolve_nodes(me.nspace, &nodes);
    char want[4096];
    snprintf(want, sizeof want, "%s,%s,%s", L.names[0], L.names[1], L.names[2]);
    if (rc != PMIX_SUCCESS || nodes == NULL || strcmp(nodes, want) != 0)
        FAIL("Resolve_nodes: %s \"%s\"", PMIx_Error_string(rc), nodes ? nodes : "(null)");
    free(nodes);
}

/* ---- Get_nb: the callback fires once, after the call returned ---- */
typedef struct {
    pthread_mutex_t lock;
    int fired;
    bool returned_first;
    volatile bool returned;
    pmix_status_t status;
    uint32_t value;
} nb_t;

static void nb_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    nb_t *nb = cbdata;
    pthread_mutex_lock(&nb->lock);
    nb->fired++;
    nb->returned_first = nb->returned;
    nb->status = status;
    if (status == PMIX_SUCCESS && kv != NULL && kv->type == PMIX_UINT32)
        nb->value = kv->data.uint32;
    pthread_mutex_unlock(&nb->lock);
}

static void check_get_nb(void)
{
    static nb_t nb = {.lock = PTHREAD_MUTEX_INITIALIZER};
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pthread_mutex_lock(&nb.lock);
    pmix_status_t rc = PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, nb_done, &nb);
    nb.returned = true;
    pthread_mutex_unlock(&nb.lock);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Get_nb: %s", PMIx_Error_string(rc));
        return;
    }
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&nb.lock);
        int fired = nb.fired;
        pthread_mutex_unlock(&nb.lock);
        if (fired)
            break;
        usleep(10000);
    }
    usleep(20000);
    pthread_mutex_lock(&nb.lock);
    if (nb.fired != 1 || !nb.returned_first || nb.status != PMIX_SUCCESS || nb.value != L.size)
        FAIL("Get_nb: fired %d times (after return: %d), %s, value %u", nb.fired, nb.returned_first,
             PMIx_Error_string(nb.status), nb.value);
    pthread_mutex_unlock(&nb.lock);
}

/* Data exchange in a three-node job: the fence goes through the host's
 * fence_nb (remote participants), and local peers' data is then here. */
static void check_modex(void)
{
    char card[64];
    snprintf(card, sizeof card, "card-%u", me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, card, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "test.card", &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    /* with hostile peers one local rank never runs: fence the good ones
     * only (a purely local fence); else the whole three-node job */
    const char *ng = getenv("SY_TEST_NGOOD");
    unsigned ngood = ng != NULL ? (unsigned)atoi(ng) : L.nlocal;
    unsigned first = L.first_rank[LAYOUT_LOCAL_NODE];
    pmix_proc_t procs[256];
    for (unsigned i = 0; i < ngood && i < 256; i++)
        PMIX_LOAD_PROCID(&procs[i], me.nspace, first + i);
    /* a directive of our own that the host's fence_nb must see too */
    pmix_info_t dirs[2];
    int secs = 600;
    dirs[0] = collect;
    PMIX_INFO_LOAD(&dirs[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    if (rc == PMIX_SUCCESS)
        rc = ngood < L.nlocal ? PMIx_Fence(procs, ngood, dirs, 2) : PMIx_Fence(NULL, 0, dirs, 2);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) {
        FAIL("Put/Commit/Fence: %s", PMIx_Error_string(rc));
        return;
    }
    for (unsigned r = first; r < first + ngood; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        pmix_value_t *got = NULL;
        snprintf(card, sizeof card, "card-%u", r);
        rc = PMIx_Get(&p, "test.card", NULL, 0, &got);
        if (rc != PMIX_SUCCESS || got->type != PMIX_STRING || strcmp(got->data.string, card))
            FAIL("Get(%u, test.card) after the fence: %s", r, PMIx_Error_string(rc));
        if (got != NULL)
            PMIX_VALUE_RELEASE(got);
    }
}

/* Init is reference counted: a second Init and one Finalize leave us up. */
static void check_refcount(void)
{
    pmix_proc_t again;
    pmix_status_t rc = PMIx_Init(&again, NULL, 0);
    if (rc != PMIX_SUCCESS || !PMIX_CHECK_PROCID(&again, &me))
        FAIL("second PMIx_Init: %s, %s.%u", PMIx_Error_string(rc), again.nspace, again.rank);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS || !PMIx_Initialized())
        FAIL("inner PMIx_Finalize: %s, initialized %d", PMIx_Error_string(rc), PMIx_Initialized());
}

static int run_keys(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    const char *env_rank = getenv("PMIX_RANK"), *env_ns = getenv("PMIX_NAMESPACE");
    if (env_rank == NULL || (pmix_rank_t)atoi(env_rank) != me.rank || env_ns == NULL ||
        strcmp(env_ns, me.nspace) != 0)
        FAIL("PMIx_Init returned %s.%u, not the identity setup_fork gave", me.nspace, me.rank);
    if (!PMIx_Initialized())
        FAIL("PMIx_Initialized is false after PMIx_Init");
    check_job();
    check_session();
    check_apps();
    check_nodes();
    check_procs();
    check_getall_and_internal();
    check_resolve();
    check_get_nb();
    check_modex();
    check_refcount();
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Finalize: %s", PMIx_Error_string(rc));
    if (PMIx_Initialized())
        FAIL("PMIx_Initialized is true after the last PMIx_Finalize");
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&me, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_ERR_INIT)
        FAIL("PMIx_Get after PMIx_Finalize returned %s", PMIx_Error_string(rc));
    if (PMIx_Finalize(NULL, 0) != PMIX_ERR_INIT)
        FAIL("a PMIx_Finalize too many did not return PMIX_ERR_INIT");
    return failures == 0 ? 0 : 1;
}

/* PMIx_Abort reaches the host's abort upcall and returns once it acked. */
static int run_abort(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = PMIx_Abort(7, "test_client abort mode", NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Abort: %s", PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}

/* ---- hostile modes ---- */
static int connect_server_socket(void)
{
    for (char **e = environ; *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        struct stat st;
        if (eq == NULL || eq[1] != '/' || stat(eq + 1, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        if (strlen(eq + 1) >= sizeof addr.sun_path)
            continue;
        strcpy(addr.sun_path, eq + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
            return fd;
        if (fd >= 0)
            close(fd);
    }
    fprintf(stderr, "FAIL: no server UNIX socket named in the environment\n");
    exit(1);
}

/* The server must hang up on us within 10 s. */
static int expect_hangup(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char buf[4096];
    for (;;) {
        int n = poll(&p, 1, 10000);
        if (n <= 0) {
            fprintf(stderr, "FAIL: the server kept a garbage connection open\n");
            return 1;
        }
        ssize_t r = read(fd, buf, sizeof buf);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            return 0;
        if (r < 0 && errno != EINTR && errno != EAGAIN)
            return 0;
    }
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "keys";
    const char *nl = getenv("SY_TEST_NLOCAL");
    layout_init(&L, nl ? (unsigned)atoi(nl) : 1);
    if (strcmp(mode, "keys") == 0)
        return run_keys();
    if (strcmp(mode, "abort") == 0)
        return run_abort();
    if (strcmp(mode, "refused") == 0 || strcmp(mode, "refused-unknown-rank") == 0) {
        if (strcmp(mode, "refused-unknown-rank") == 0)
            setenv("PMIX_RANK", "999", 1);
        pmix_status_t rc = PMIx_Init(&me, NULL, 0);
        if (rc == PMIX_SUCCESS) {
            fprintf(stderr, "FAIL: PMIx_Init succeeded for a peer the server must refuse\n");
            PMIx_Finalize(NULL, 0);
            return 1;
        }
        return 0;
    }
    int fd = connect_server_socket();
    if (strcmp(mode, "garbage") == 0) {
        unsigned char junk[512];
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (unsigned char)(i * 131u + 17u);
        if (write(fd, junk, sizeof junk) < 0)
            return 0; /* already refused */
        return expect_hangup(fd);
    }
    if (strcmp(mode, "truncated") == 0) {
        /* A header announcing 100 bytes, then only 10 of them. */
        unsigned char frame[16 + 10] = {'S', 'Y', 'W', '1', 1, 0, 0, 0};
        put_le32(frame + 8, 1);
        put_le32(frame + 12, 100);
        memset(frame + 16, 0x7f, 10);
        ssize_t w = write(fd, frame, sizeof frame);
        (void)w;
        close(fd);
        return 0;
    }
    if (strcmp(mode, "stall") == 0) {
        ssize_t w = write(fd, "SYW1\x01\x00\x00\x00", 8);
        (void)w;
        pause(); /* killed by the host */
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
