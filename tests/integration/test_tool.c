/* A PMIx tool against real switchyard-run jobs (tests/tools/tool.sh drives
 * it): attaching by pid, queries (jobs, process table, the server's URI,
 * attribute support at every level), forwarded output (tags, the cache and
 * its drop policies, completion), stdin pushed to rank 0, job control,
 * several servers, and the ways tool_init fails.  Public API only.
 *
 *   test_tool basic PID NPROCS     test_tool iof PID ATTACHED_FILE [copy]
 *   test_tool cache PID oldest|newest|all
 *   test_tool stdin PID            test_tool stdin-refused PID
 *   test_tool jobctl PID RANK      test_tool two PID1 PID2
 *   test_tool nosrv                test_tool dies PID READY_FILE
 *   test_tool orte                 test_tool nobody ROOT_FILE URI
 *   test_tool connect PID RENDEZVOUS_FILE URI EMPTY_DIR
 *   test_tool system DIR           (a system server in a child)
 *   test_tool client-attrs         (a rank of a job)
 *   test_tool server-module        PMIx_tool_is_connected and
 *                                  PMIx_tool_set_server_module: a launcher
 *                                  tool's client reaches the module's log
 * Each prints "<mode>: ok" or FAIL lines, and exits non-zero on failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>
#include <pmix_tool.h>
#include <switchyard.h> /* PMIx_tool_is_connected, PMIx_tool_set_server_module */

static int fails;
static const char *mode = "?";

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s: ", mode);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fails++;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__VA_ARGS__);                                                                     \
    } while (0)
#define EXPECT_RC(rc, want)                                                                        \
    do {                                                                                           \
        pmix_status_t r_ = (rc);                                                                   \
        if (r_ != (want))                                                                          \
            fail("line %d: %s, want %s", __LINE__, PMIx_Error_string(r_),                          \
                 PMIx_Error_string(want));                                                         \
    } while (0)

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static pmix_status_t init_pid(pid_t pid, pmix_proc_t *me)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    pmix_status_t rc = PMIx_tool_init(me, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static pmix_status_t query1(const char *key, pmix_info_t *qual, size_t nq, pmix_info_t **out,
                            size_t *n)
{
    char *keys[] = {(char *)key, NULL};
    pmix_query_t q = {.keys = keys, .qualifiers = qual, .nqual = nq};
    return PMIx_Query_info(&q, 1, out, n);
}

static char *job_nspace(void)
{
    pmix_info_t *res = NULL;
    size_t n = 0;
    char *ns = NULL;
    if (query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &n) == PMIX_SUCCESS && n == 1 &&
        res[0].value.type == PMIX_STRING)
        ns = strdup(res[0].value.data.string);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    return ns;
}

/* Attach to the launcher of pid: its job's namespace (malloc'd), or NULL
 * (reported, nothing left initialized). */
static char *attach(pid_t pid)
{
    pmix_proc_t me;
    if (init_pid(pid, &me) != PMIX_SUCCESS) {
        fail("cannot attach to %ld", (long)pid);
        return NULL;
    }
    char *ns = job_nspace();
    if (ns == NULL) {
        fail("the server reports no job");
        PMIx_tool_finalize();
    }
    return ns;
}

/* Does the attribute-support answer hold `attr` for fn at `level`? */
static bool has_attr(pmix_info_t *res, size_t n, const char *fn, const char *level,
                     const char *attr)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].key, fn) != 0 || res[i].value.type != PMIX_DATA_ARRAY)
            continue;
        pmix_data_array_t *lv = res[i].value.data.darray;
        for (size_t l = 0; l < lv->size; l++) {
            pmix_info_t *li = &((pmix_info_t *)lv->array)[l];
            if (strcmp(li->key, level) != 0 || li->value.type != PMIX_DATA_ARRAY)
                continue;
            pmix_data_array_t *ra = li->value.data.darray;
            if (ra->type != PMIX_REGATTR)
                return false;
            for (size_t k = 0; k < ra->size; k++) {
                pmix_regattr_t *r = &((pmix_regattr_t *)ra->array)[k];
                if (strcmp(r->name, attr) == 0)
                    return true;
            }
        }
    }
    return false;
}

/* The registration of `attr` for fn at `level` in an attribute-support
 * answer, or NULL. */
static const pmix_regattr_t *find_regattr(pmix_info_t *res, size_t n, const char *fn,
                                          const char *level, const char *attr)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].key, fn) != 0 || res[i].value.type != PMIX_DATA_ARRAY)
            continue;
        pmix_data_array_t *lv = res[i].value.data.darray;
        for (size_t l = 0; l < lv->size; l++) {
            pmix_info_t *li = &((pmix_info_t *)lv->array)[l];
            if (strcmp(li->key, level) != 0 || li->value.type != PMIX_DATA_ARRAY ||
                li->value.data.darray->type != PMIX_REGATTR)
                continue;
            pmix_data_array_t *ra = li->value.data.darray;
            for (size_t k = 0; k < ra->size; k++)
                if (strcmp(((pmix_regattr_t *)ra->array)[k].name, attr) == 0)
                    return &((pmix_regattr_t *)ra->array)[k];
        }
    }
    return NULL;
}

/* Its range bound `key` (description "pmix.descr.minval=N"), -1: none. */
static long long range_of(const pmix_regattr_t *r, const char *key)
{
    size_t len = strlen(key);
    for (size_t i = 0; r != NULL && r->description != NULL && r->description[i] != NULL; i++)
        if (strncmp(r->description[i], key, len) == 0 && r->description[i][len] == '=')
            return strtoll(r->description[i] + len + 1, NULL, 10);
    return -1;
}

static bool enum_has(const pmix_regattr_t *r, const char *name)
{
    size_t len = strlen(PMIX_ENUM_VALUE);
    for (size_t i = 0; r != NULL && r->description != NULL && r->description[i] != NULL; i++) {
        const char *d = r->description[i];
        if (strncmp(d, PMIX_ENUM_VALUE, len) != 0 || d[len] != '=')
            continue;
        char list[512];
        snprintf(list, sizeof list, ",%s,", d + len + 1);
        char want[128];
        snprintf(want, sizeof want, ",%s,", name);
        return strstr(list, want) != NULL;
    }
    return false;
}

static pmix_status_t attr_query(char **keys, const char *level, pmix_info_t **res, size_t *n)
{
    pmix_info_t qual;
    size_t nq = 0;
    if (level != NULL) {
        PMIX_INFO_LOAD(&qual, level, NULL, PMIX_BOOL);
        nq = 1;
    }
    pmix_query_t q = {.keys = keys, .qualifiers = nq ? &qual : NULL, .nqual = nq};
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, n);
    if (nq)
        PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

static void check_attr_support(bool with_host)
{
    pmix_info_t *res = NULL;
    size_t n = 0;
    char *k1[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_tool_init", NULL};
    EXPECT_RC(attr_query(k1, PMIX_TOOL_ATTRIBUTES, &res, &n), PMIX_SUCCESS);
    EXPECT(has_attr(res, n, "PMIx_tool_init", PMIX_TOOL_ATTRIBUTES, "PMIX_SERVER_PIDINFO"),
           "tool level of PMIx_tool_init lacks PMIX_SERVER_PIDINFO");
    EXPECT(!has_attr(res, n, "PMIx_tool_init", PMIX_TOOL_ATTRIBUTES, "PMIX_JOB_SIZE"),
           "tool level of PMIx_tool_init claims PMIX_JOB_SIZE");
    PMIX_INFO_FREE(res, n);

    char *k2[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Get_nb", NULL};
    EXPECT_RC(attr_query(k2, PMIX_CLIENT_ATTRIBUTES, &res, &n), PMIX_SUCCESS);
    EXPECT(has_attr(res, n, "PMIx_Get_nb", PMIX_CLIENT_ATTRIBUTES, "PMIX_TIMEOUT"),
           "client level of PMIx_Get_nb lacks PMIX_TIMEOUT");
    PMIX_INFO_FREE(res, n);

    /* machine-usable ranges (PMIX_MIN_VALUE, PMIX_MAX_VALUE, PMIX_ENUM_VALUE),
     * from the server, across the wire */
    char *kr[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_server_init", NULL};
    EXPECT_RC(attr_query(kr, PMIX_SERVER_ATTRIBUTES, &res, &n), PMIX_SUCCESS);
    const pmix_regattr_t *port =
        find_regattr(res, n, "PMIx_server_init", PMIX_SERVER_ATTRIBUTES, "PMIX_TCP_IPV4_PORT");
    EXPECT(port != NULL && range_of(port, PMIX_MIN_VALUE) == 0 &&
               range_of(port, PMIX_MAX_VALUE) == 65535,
           "PMIX_TCP_IPV4_PORT's range 0..65535");
    const pmix_regattr_t *sockmode =
        find_regattr(res, n, "PMIx_server_init", PMIX_SERVER_ATTRIBUTES, "PMIX_SOCKET_MODE");
    EXPECT(sockmode != NULL && range_of(sockmode, PMIX_MAX_VALUE) == 0777,
           "PMIX_SOCKET_MODE's range");
    const pmix_regattr_t *fmt = find_regattr(res, n, "PMIx_server_init", PMIX_SERVER_ATTRIBUTES,
                                             "SWITCHYARD_FABRIC_FORMAT");
    EXPECT(fmt != NULL && enum_has(fmt, "ibnet") && enum_has(fmt, "slurm") &&
               !enum_has(fmt, "xml") && range_of(fmt, PMIX_MIN_VALUE) == -1,
           "SWITCHYARD_FABRIC_FORMAT's names");
    const pmix_regattr_t *host =
        find_regattr(res, n, "PMIx_server_init", PMIX_SERVER_ATTRIBUTES, "PMIX_HOSTNAME");
    EXPECT(host != NULL && range_of(host, PMIX_MIN_VALUE) == -1 && !enum_has(host, "x"),
           "PMIX_HOSTNAME has no range");
    PMIX_INFO_FREE(res, n);

    char *k3[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_No_such_function", NULL};
    res = NULL;
    n = 0;
    EXPECT_RC(attr_query(k3, PMIX_CLIENT_ATTRIBUTES, &res, &n), PMIX_ERR_NOT_FOUND);
    EXPECT(res == NULL && n == 0, "results for an unknown function");

    char *k4[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    EXPECT_RC(attr_query(k4, PMIX_TOOL_FUNCTIONS, &res, &n), PMIX_SUCCESS);
    EXPECT(n == 1 && res[0].value.type == PMIX_STRING &&
               strstr(res[0].value.data.string, "PMIx_IOF_pull") != NULL &&
               strstr(res[0].value.data.string, "PMIx_tool_attach_to_server") != NULL,
           "tool functions list");
    PMIX_INFO_FREE(res, n);

    /* OpenPMIx's form: the level names its functions */
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_CLIENT_ATTRIBUTES, "PMIx_Init,PMIx_Get", PMIX_STRING);
    pmix_query_t q = {.keys = k4, .qualifiers = &qual, .nqual = 1};
    EXPECT_RC(PMIx_Query_info(&q, 1, &res, &n), PMIX_SUCCESS);
    EXPECT(n == 2 && has_attr(res, n, "PMIx_Init", PMIX_CLIENT_ATTRIBUTES, "PMIX_EVENT_BASE"),
           "client attributes of PMIx_Init and PMIx_Get by list");
    PMIX_INFO_FREE(res, n);
    PMIX_INFO_DESTRUCT(&qual);
    if (!with_host)
        return;

    /* the host level comes from switchyard-run's PMIx_Register_attributes */
    char *k5[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Query_info", "PMIx_IOF_push", NULL};
    EXPECT_RC(attr_query(k5, PMIX_HOST_ATTRIBUTES, &res, &n), PMIX_SUCCESS);
    EXPECT(has_attr(res, n, "PMIx_Query_info", PMIX_HOST_ATTRIBUTES, "PMIX_QUERY_PROC_TABLE"),
           "host level of PMIx_Query_info lacks PMIX_QUERY_PROC_TABLE");
    EXPECT(has_attr(res, n, "PMIx_IOF_push", PMIX_HOST_ATTRIBUTES, "PMIX_IOF_COMPLETE"),
           "host level of PMIx_IOF_push lacks PMIX_IOF_COMPLETE");
    PMIX_INFO_FREE(res, n);
    /* every level at once (no qualifier) */
    char *k6[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_IOF_pull", NULL};
    EXPECT_RC(attr_query(k6, NULL, &res, &n), PMIX_SUCCESS);
    EXPECT(has_attr(res, n, "PMIx_IOF_pull", PMIX_SERVER_ATTRIBUTES, "PMIX_IOF_CACHE_SIZE") &&
               has_attr(res, n, "PMIx_IOF_pull", PMIX_TOOL_ATTRIBUTES, "PMIX_IOF_TAG_OUTPUT") &&
               has_attr(res, n, "PMIx_IOF_pull", PMIX_HOST_ATTRIBUTES, "PMIX_IOF_REDIRECT"),
           "PMIx_IOF_pull at every level");
    PMIX_INFO_FREE(res, n);
    EXPECT_RC(attr_query(k4, PMIX_HOST_FUNCTIONS, &res, &n), PMIX_SUCCESS);
    EXPECT(n == 1 && res[0].value.type == PMIX_STRING &&
               strstr(res[0].value.data.string, "PMIx_IOF_pull") != NULL,
           "host functions list");
    PMIX_INFO_FREE(res, n);
}

/* ---- basic: identity, servers, queries, job data ---- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    char *uri;
} uri_wait_t;

static void uri_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                   pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    uri_wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    /* what Open MPI's ORTE tools read: the first result, keyed pmix.srvr.uri */
    if (ninfo > 0 && strcmp(info[0].key, PMIX_SERVER_URI) == 0 && info[0].value.type == PMIX_STRING)
        w->uri = strdup(info[0].value.data.string);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

static char *server_uri_nb(void)
{
    uri_wait_t w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    char *keys[] = {PMIX_SERVER_URI, NULL};
    pmix_query_t q = {.keys = keys};
    pmix_status_t rc = PMIx_Query_info_nb(&q, 1, uri_cb, &w);
    EXPECT_RC(rc, PMIX_SUCCESS);
    pthread_mutex_lock(&w.lock);
    while (rc == PMIX_SUCCESS && !w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    EXPECT_RC(w.status, PMIX_SUCCESS);
    return w.uri;
}

static int basic(pid_t pid, unsigned nprocs)
{
    pmix_proc_t me;
    pmix_status_t rc = init_pid(pid, &me);
    EXPECT_RC(rc, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS)
        return 1;
    EXPECT(strncmp(me.nspace, "switchyard.", 11) == 0 && strstr(me.nspace, ".tool.") != NULL &&
               me.rank == 0,
           "assigned identity %s:%u", me.nspace, me.rank);
    EXPECT(PMIx_Initialized(), "PMIx_Initialized in a tool");
    EXPECT(PMIx_tool_is_connected(), "an attached tool is not connected");
    pmix_proc_t *srv = NULL;
    size_t nsrv = 0;
    EXPECT_RC(PMIx_tool_get_servers(&srv, &nsrv), PMIX_SUCCESS);
    char want[64];
    snprintf(want, sizeof want, "switchyard-run.%ld", (long)pid);
    EXPECT(nsrv == 1 && strcmp(srv[0].nspace, want) == 0, "the server is %s", want);
    /* attaching again to the same server changes nothing */
    pmix_info_t again;
    PMIX_INFO_LOAD(&again, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    pmix_proc_t s2;
    EXPECT_RC(PMIx_tool_attach_to_server(NULL, &s2, &again, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&again);
    PMIX_PROC_FREE(srv, nsrv);
    EXPECT_RC(PMIx_tool_get_servers(&srv, &nsrv), PMIX_SUCCESS);
    EXPECT(nsrv == 1 && PMIX_CHECK_PROCID(&s2, &srv[0]), "still one server");
    PMIX_PROC_FREE(srv, nsrv);

    char *ns = job_nspace();
    char job[64];
    snprintf(job, sizeof job, "switchyard.%ld.1", (long)pid);
    EXPECT(ns != NULL && strcmp(ns, job) == 0, "job namespace %s", ns ? ns : "(none)");
    pmix_info_t *res = NULL;
    size_t n = 0;
    EXPECT_RC(query1(PMIX_QUERY_PROC_TABLE, NULL, 0, &res, &n), PMIX_SUCCESS);
    EXPECT(n == 1 && res[0].value.type == PMIX_DATA_ARRAY &&
               res[0].value.data.darray->size == nprocs,
           "proc table of %u", nprocs);
    PMIX_INFO_FREE(res, n);
    /* job data through the store, as any client would */
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, job, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    EXPECT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS);
    EXPECT(v != NULL && v->type == PMIX_UINT32 && v->data.uint32 == nprocs, "PMIX_JOB_SIZE");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    /* the library answers the server's URI; some keys found is partial */
    char *uri = server_uri_nb();
    EXPECT(uri != NULL && strncmp(uri, want, strlen(want)) == 0 && strstr(uri, ";tcp4://"),
           "server URI %s", uri ? uri : "(none)");
    free(uri);
    char *keys[] = {PMIX_QUERY_NAMESPACES, "sy.no.such.key", NULL};
    pmix_query_t q = {.keys = keys};
    EXPECT_RC(PMIx_Query_info(&q, 1, &res, &n), PMIX_ERR_PARTIAL_SUCCESS);
    EXPECT(n == 1 && strcmp(res[0].key, PMIX_QUERY_NAMESPACES) == 0, "the found half");
    PMIX_INFO_FREE(res, n);
    check_attr_support(true);
    /* the rest of the client API goes through the server as well */
    pmix_info_t line;
    PMIX_INFO_LOAD(&line, PMIX_LOG_STDERR, "a line logged by the tool", PMIX_STRING);
    EXPECT_RC(PMIx_Log(&line, 1, NULL, 0), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&line);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("true");
    app.maxprocs = 1;
    pmix_nspace_t child;
    EXPECT_RC(PMIx_Spawn(NULL, 0, &app, 1, child), PMIX_SUCCESS);
    EXPECT(strncmp(child, "switchyard.", 11) == 0 && strcmp(child, job) != 0, "spawned %s", child);
    PMIX_APP_DESTRUCT(&app);
    free(ns);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_ERR_INIT);
    return 0;
}

/* ---- forwarded output ---- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *out, *err; /* everything received, per channel */
    size_t olen, elen;
    unsigned completes;
    unsigned deliveries; /* callbacks that carried data */
    size_t smallest;     /* the smallest of them but the last */
    size_t last;
    bool registered;
    pmix_status_t regstatus;
    size_t id;
} sink_t;

static sink_t sink = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void append(char **buf, size_t *len, const char *p, size_t n)
{
    char *g = realloc(*buf, *len + n + 1);
    if (g == NULL)
        return;
    memcpy(g + *len, p, n);
    *len += n;
    g[*len] = '\0';
    *buf = g;
}

static void on_output(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                      pmix_info_t info[], size_t ninfo)
{
    (void)id;
    (void)src;
    pthread_mutex_lock(&sink.lock);
    if (bo->size > 0) {
        if (sink.deliveries > 0 && (sink.smallest == 0 || sink.last < sink.smallest))
            sink.smallest = sink.last;
        sink.deliveries++;
        sink.last = bo->size;
        if (ch & PMIX_FWD_STDERR_CHANNEL)
            append(&sink.err, &sink.elen, bo->bytes, bo->size);
        else
            append(&sink.out, &sink.olen, bo->bytes, bo->size);
    }
    for (size_t i = 0; i < ninfo; i++)
        if (strcmp(info[i].key, PMIX_IOF_COMPLETE) == 0)
            sink.completes++;
    pthread_cond_broadcast(&sink.cond);
    pthread_mutex_unlock(&sink.lock);
}

static void on_registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&sink.lock);
    sink.regstatus = status;
    sink.id = ref;
    sink.registered = true;
    pthread_cond_broadcast(&sink.cond);
    pthread_mutex_unlock(&sink.lock);
}

static void sink_reset(void)
{
    pthread_mutex_lock(&sink.lock);
    free(sink.out);
    free(sink.err);
    sink.out = sink.err = NULL;
    sink.olen = sink.elen = 0;
    sink.completes = 0;
    sink.deliveries = 0;
    sink.smallest = sink.last = 0;
    sink.registered = false;
    pthread_mutex_unlock(&sink.lock);
}

static pmix_status_t pull(const pmix_proc_t *p, size_t np, pmix_info_t *dirs, size_t nd,
                          pmix_iof_channel_t ch)
{
    pmix_status_t rc = PMIx_IOF_pull(p, np, dirs, nd, ch, on_output, on_registered, NULL);
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&sink.lock);
    while (!sink.registered)
        pthread_cond_wait(&sink.cond, &sink.lock);
    rc = sink.regstatus;
    pthread_mutex_unlock(&sink.lock);
    return rc;
}

/* Wait until `want` streams ended; false after `ms`. */
static bool wait_completes(unsigned want, long ms)
{
    bool ok = false;
    for (long t = 0; t <= ms; t += 20) {
        pthread_mutex_lock(&sink.lock);
        ok = sink.completes >= want;
        pthread_mutex_unlock(&sink.lock);
        if (ok)
            break;
        sleep_ms(20);
    }
    return ok;
}

static int iof(pid_t pid, const char *attached, bool copy)
{
    char *ns = attach(pid);
    if (ns == NULL)
        return 1;
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, ns, PMIX_RANK_WILDCARD);
    pmix_info_t dirs[2];
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_TAG_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], copy ? PMIX_IOF_COPY : PMIX_IOF_REDIRECT, NULL, PMIX_BOOL);
    /* asking for stdin is a mistake the library refuses at once */
    EXPECT_RC(
        PMIx_IOF_pull(&all, 1, dirs, 2, PMIX_FWD_STDIN_CHANNEL, on_output, on_registered, NULL),
        PMIX_ERR_NOT_SUPPORTED);
    pmix_info_t bad;
    PMIX_INFO_LOAD(&bad, PMIX_IOF_OUTPUT_TO_FILE, "/tmp/x", PMIX_STRING);
    EXPECT_RC(
        PMIx_IOF_pull(&all, 1, &bad, 1, PMIX_FWD_STDOUT_CHANNEL, on_output, on_registered, NULL),
        PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&bad);
    EXPECT_RC(pull(&all, 1, dirs, 2, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
              PMIX_SUCCESS);
    /* now the job writes the rest (the launcher waits for this file) */
    FILE *f = fopen(attached, "w");
    if (f != NULL)
        fclose(f);
    /* 2 ranks x stdout, stderr */
    EXPECT(wait_completes(4, 60000), "the end of every stream");
    pthread_mutex_lock(&sink.lock);
    for (int r = 0; r < 2; r++) {
        char line[256];
        for (int i = 1; i <= 50; i++) {
            snprintf(line, sizeof line, "[%s,%d]<stdout>: out %d %d\n", ns, r, r, i);
            EXPECT(sink.out != NULL && strstr(sink.out, line) != NULL, "missing %s", line);
            snprintf(line, sizeof line, "[%s,%d]<stderr>: err %d %d\n", ns, r, r, i);
            EXPECT(sink.err != NULL && strstr(sink.err, line) != NULL, "missing %s", line);
        }
        snprintf(line, sizeof line, "[%s,%d]<stdout>: after %d\n", ns, r, r);
        EXPECT(sink.out != NULL && strstr(sink.out, line) != NULL, "missing %s", line);
        /* an unterminated last line is flushed when the stream ends */
        snprintf(line, sizeof line, "[%s,%d]<stdout>: tail %d\n", ns, r, r);
        EXPECT(sink.out != NULL && strstr(sink.out, line) != NULL, "missing %s", line);
    }
    pthread_mutex_unlock(&sink.lock);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    EXPECT_RC(PMIx_IOF_deregister(sink.id, NULL, 0, NULL, NULL), PMIX_SUCCESS);
    EXPECT_RC(PMIx_IOF_deregister(sink.id, NULL, 0, NULL, NULL), PMIX_ERR_NOT_FOUND);
    free(ns);
    PMIx_tool_finalize();
    return 0;
}

/* ---- the server's cache and its drop policies ---- */

static int cache(pid_t pid, const char *how)
{
    char *ns = attach(pid);
    if (ns == NULL)
        return 1;
    pmix_proc_t r0;
    PMIX_LOAD_PROCID(&r0, ns, 0);
    uint32_t cap = 1000;
    pmix_info_t dirs[2];
    size_t nd = 0;
    uint32_t bsize = 4096;
    if (strcmp(how, "buffered") == 0) {
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_BUFFERING_SIZE, &bsize, PMIX_UINT32);
    } else if (strcmp(how, "all") != 0) {
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_CACHE_SIZE, &cap, PMIX_UINT32);
        PMIX_INFO_LOAD(&dirs[nd++],
                       strcmp(how, "oldest") == 0 ? PMIX_IOF_DROP_OLDEST : PMIX_IOF_DROP_NEWEST,
                       NULL, PMIX_BOOL);
    }
    /* The job wrote 10000 bytes and closed its stdout before we came; once
     * the server has seen the end, the replay holds everything it kept. */
    bool ended = false;
    for (int attempt = 0; attempt < 300 && !ended; attempt++) {
        sink_reset();
        EXPECT_RC(pull(&r0, 1, dirs, nd, PMIX_FWD_STDOUT_CHANNEL), PMIX_SUCCESS);
        ended = wait_completes(1, 200);
        EXPECT_RC(PMIx_IOF_deregister(sink.id, NULL, 0, NULL, NULL), PMIX_SUCCESS);
    }
    EXPECT(ended, "the end of rank 0's stdout never came");
    char want[10001];
    size_t wl = 0;
    for (int i = 0; i < 2000; i++)
        wl += (size_t)snprintf(want + wl, sizeof want - wl, "%04d\n", i);
    pthread_mutex_lock(&sink.lock);
    /* buffered: held until 4096 bytes are there, the rest flushed at the end */
    if (strcmp(how, "buffered") == 0)
        EXPECT(sink.deliveries >= 1 && sink.deliveries <= 3 &&
                   (sink.deliveries == 1 || sink.smallest >= 4096),
               "%u deliveries, the smallest %zu before the last", sink.deliveries, sink.smallest);
    if (strcmp(how, "all") == 0 || strcmp(how, "buffered") == 0)
        EXPECT(sink.olen == 10000 && memcmp(sink.out, want, 10000) == 0, "all 10000 bytes");
    else if (strcmp(how, "oldest") == 0)
        EXPECT(sink.olen == 1000 && memcmp(sink.out, want + 9000, 1000) == 0,
               "the newest 1000 bytes (got %zu)", sink.olen);
    else
        EXPECT(sink.olen == 1000 && memcmp(sink.out, want, 1000) == 0,
               "the oldest 1000 bytes (got %zu)", sink.olen);
    pthread_mutex_unlock(&sink.lock);
    for (size_t i = 0; i < nd; i++)
        PMIX_INFO_DESTRUCT(&dirs[i]);
    free(ns);
    PMIx_tool_finalize();
    return 0;
}

/* ---- stdin ---- */

static int stdin_push(pid_t pid, bool refused)
{
    char *ns = attach(pid);
    if (ns == NULL)
        return 1;
    pmix_proc_t r0, r1;
    PMIX_LOAD_PROCID(&r0, ns, 0);
    PMIX_LOAD_PROCID(&r1, ns, 1);
    pmix_byte_object_t bo = {.bytes = "alpha\nbeta\n", .size = 11};
    if (refused) {
        /* the job reads the launcher's stdin: the host says no */
        EXPECT_RC(PMIx_IOF_push(&r0, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
        free(ns);
        PMIx_tool_finalize();
        return 0;
    }
    /* output held up to 1 MiB, but never more than a second */
    uint32_t big = 1 << 20, second = 1;
    pmix_info_t hold[2];
    PMIX_INFO_LOAD(&hold[0], PMIX_IOF_BUFFERING_SIZE, &big, PMIX_UINT32);
    PMIX_INFO_LOAD(&hold[1], PMIX_IOF_BUFFERING_TIME, &second, PMIX_UINT32);
    EXPECT_RC(pull(&r0, 1, hold, 2, PMIX_FWD_STDOUT_CHANNEL), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&hold[0]);
    PMIX_INFO_DESTRUCT(&hold[1]);
    EXPECT_RC(PMIx_IOF_push(&r1, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_RC(PMIx_IOF_push(&r0, 1, &bo, NULL, 0, NULL, NULL), PMIX_SUCCESS);
    /* the echo comes through the buffering timer, the stream still open */
    bool early = false;
    for (int i = 0; i < 3000 && !early; i++) {
        pthread_mutex_lock(&sink.lock);
        early = sink.out != NULL && strstr(sink.out, "echo:beta\n") != NULL && sink.completes == 0;
        pthread_mutex_unlock(&sink.lock);
        if (!early)
            sleep_ms(20);
    }
    EXPECT(early, "held output not delivered after PMIX_IOF_BUFFERING_TIME");
    pmix_info_t done;
    PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, NULL, PMIX_BOOL);
    pmix_byte_object_t last = {.bytes = "gamma\n", .size = 6};
    EXPECT_RC(PMIx_IOF_push(&r0, 1, &last, &done, 1, NULL, NULL), PMIX_SUCCESS);
    /* stdin is closed now */
    EXPECT_RC(PMIx_IOF_push(&r0, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_IOF_COMPLETE);
    PMIX_INFO_DESTRUCT(&done);
    EXPECT(wait_completes(1, 60000), "rank 0's stdout did not end");
    pthread_mutex_lock(&sink.lock);
    EXPECT(sink.out != NULL && strstr(sink.out, "echo:alpha\necho:beta\necho:gamma\nEND\n"),
           "rank 0 echoed %s", sink.out ? sink.out : "(nothing)");
    pthread_mutex_unlock(&sink.lock);
    free(ns);
    PMIx_tool_finalize();
    return 0;
}

static int jobctl(pid_t pid, pmix_rank_t rank)
{
    char *ns = attach(pid);
    if (ns == NULL)
        return 1;
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns, rank);
    pmix_info_t dir;
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, NULL, PMIX_BOOL);
    pmix_info_t *res = NULL;
    size_t n = 0;
    EXPECT_RC(PMIx_Job_control(&target, 1, &dir, 1, &res, &n), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&dir);
    /* a tool takes part in no collective */
    EXPECT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
    free(ns);
    PMIx_tool_finalize();
    return 0;
}

/* ---- several servers ---- */

static int two(pid_t p1, pid_t p2)
{
    pmix_proc_t me, s1, s2;
    if (init_pid(p1, &me) != PMIX_SUCCESS) {
        fail("attach");
        return 1;
    }
    pmix_proc_t *srv = NULL;
    size_t n = 0;
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 1, "one server");
    s1 = srv[0];
    PMIX_PROC_FREE(srv, n);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &p2, PMIX_PID);
    pmix_proc_t me2;
    EXPECT_RC(PMIx_tool_attach_to_server(&me2, &s2, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    EXPECT(PMIX_CHECK_PROCID(&me, &me2), "the identity stays the same");
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 2 && PMIX_CHECK_PROCID(&srv[0], &s1) && PMIX_CHECK_PROCID(&srv[1], &s2),
           "primary first, then in order of attachment");
    PMIX_PROC_FREE(srv, n);
    char j1[64], j2[64];
    snprintf(j1, sizeof j1, "switchyard.%ld.1", (long)p1);
    snprintf(j2, sizeof j2, "switchyard.%ld.1", (long)p2);
    char *ns = job_nspace();
    EXPECT(ns != NULL && strcmp(ns, j1) == 0, "requests go to the primary (%s)", ns);
    free(ns);
    EXPECT_RC(PMIx_tool_set_server(&s2, NULL, 0), PMIX_SUCCESS);
    ns = job_nspace();
    EXPECT(ns != NULL && strcmp(ns, j2) == 0, "requests go to the new primary (%s)", ns);
    free(ns);
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 2 && PMIX_CHECK_PROCID(&srv[0], &s2), "the new primary first");
    PMIX_PROC_FREE(srv, n);
    /* dropping the primary leaves no server for requests */
    EXPECT_RC(PMIx_tool_disconnect(&s2), PMIX_SUCCESS);
    EXPECT_RC(PMIx_tool_disconnect(&s2), PMIX_ERR_NOT_FOUND);
    pmix_info_t *res = NULL;
    size_t nr = 0;
    EXPECT_RC(query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &nr), PMIX_ERR_UNREACH);
    EXPECT_RC(PMIx_tool_set_server(&s2, NULL, 0), PMIX_ERR_NOT_FOUND);
    pmix_info_t w[2];
    int one = 1;
    PMIX_INFO_LOAD(&w[0], PMIX_WAIT_FOR_CONNECTION, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&w[1], PMIX_TIMEOUT, &one, PMIX_INT);
    EXPECT_RC(PMIx_tool_set_server(&s2, w, 2), PMIX_ERR_TIMEOUT);
    PMIX_INFO_DESTRUCT(&w[0]);
    PMIX_INFO_DESTRUCT(&w[1]);
    EXPECT_RC(PMIx_tool_set_server(&s1, NULL, 0), PMIX_SUCCESS);
    ns = job_nspace();
    EXPECT(ns != NULL && strcmp(ns, j1) == 0, "back to the first server");
    free(ns);
    /* the deprecated form: the server reached becomes the primary */
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &p2, PMIX_PID);
    EXPECT_RC(PMIx_tool_connect_to_server(&me2, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    ns = job_nspace();
    EXPECT(ns != NULL && strcmp(ns, j2) == 0, "connect_to_server made %s primary", j2);
    free(ns);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    return 0;
}

/* ---- every way of naming a server ---- */

static int try_info(const char *what, pmix_info_t *info, size_t n, pmix_status_t want,
                    const char *want_ns)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, n);
    if (rc != want)
        fail("%s: %s, want %s", what, PMIx_Error_string(rc), PMIx_Error_string(want));
    if (rc != PMIX_SUCCESS)
        return 0;
    char *ns = job_nspace();
    EXPECT(ns != NULL && want_ns != NULL && strcmp(ns, want_ns) == 0, "%s: reached %s", what,
           ns != NULL ? ns : "(nothing)");
    free(ns);
    PMIx_tool_finalize();
    return 0;
}

static int connect_modes(pid_t pid, const char *rdv, const char *uri, const char *empty)
{
    char job[64], srv[64];
    snprintf(job, sizeof job, "switchyard.%ld.1", (long)pid);
    snprintf(srv, sizeof srv, "switchyard-run.%ld", (long)pid);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, srv, PMIX_STRING);
    try_info("PMIX_SERVER_NSPACE", info, 1, PMIX_SUCCESS, job);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_TCP_URI, uri, PMIX_STRING);
    try_info("PMIX_TCP_URI", info, 1, PMIX_SUCCESS, job);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri, PMIX_STRING);
    try_info("PMIX_SERVER_URI", info, 1, PMIX_SUCCESS, job);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_ATTACHMENT_FILE, rdv, PMIX_STRING);
    try_info("PMIX_TOOL_ATTACHMENT_FILE", info, 1, PMIX_SUCCESS, job);
    PMIX_INFO_DESTRUCT(&info[0]);
    /* no system server: the search goes on to the others */
    PMIX_INFO_LOAD(&info[0], PMIX_CONNECT_SYSTEM_FIRST, NULL, PMIX_BOOL);
    try_info("PMIX_CONNECT_SYSTEM_FIRST", info, 1, PMIX_SUCCESS, job);
    PMIX_INFO_DESTRUCT(&info[0]);
    /* a search under a directory with no server finds nobody */
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, empty, PMIX_STRING);
    try_info("PMIX_SERVER_TMPDIR", info, 1, PMIX_ERR_UNREACH, NULL);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    /* ... and so does a pid looked for there */
    try_info("PMIX_SERVER_PIDINFO under PMIX_SERVER_TMPDIR", info, 2, PMIX_ERR_NOT_FOUND, NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return 0;
}

/* A system server (PMIX_SERVER_SYSTEM_SUPPORT) of a host in a child. */
static void sys_tool_connected(pmix_info_t *info, size_t ninfo,
                               pmix_tool_connection_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    static pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, "sys-tool", 7);
    cbfunc(PMIX_SUCCESS, &who, cbdata);
}

static int system_server(const char *dir)
{
    int go[2], ready[2];
    if (pipe(go) != 0 || pipe(ready) != 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        close(go[1]);
        close(ready[0]);
        pmix_server_module_t m;
        memset(&m, 0, sizeof m);
        m.tool_connected = sys_tool_connected;
        pmix_info_t si[3];
        PMIX_INFO_LOAD(&si[0], PMIX_SERVER_SYSTEM_SUPPORT, NULL, PMIX_BOOL);
        PMIX_INFO_LOAD(&si[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
        PMIX_INFO_LOAD(&si[2], PMIX_SERVER_NSPACE, "sys-server", PMIX_STRING);
        pmix_status_t rc = PMIx_server_init(&m, si, 3);
        char c = rc == PMIX_SUCCESS ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || rc != PMIX_SUCCESS)
            _exit(1);
        if (read(go[0], &c, 1) < 0)
            _exit(1);
        PMIx_server_finalize();
        _exit(0);
    }
    close(go[0]);
    close(ready[1]);
    char c = 'n';
    EXPECT(read(ready[0], &c, 1) == 1 && c == 'y', "the system server did not start");
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    pmix_proc_t me;
    EXPECT_RC(PMIx_tool_init(&me, info, 2), PMIX_SUCCESS);
    EXPECT(strcmp(me.nspace, "sys-tool") == 0 && me.rank == 7, "the system server's tool id");
    pmix_proc_t *srv = NULL;
    size_t n = 0;
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 1 && strcmp(srv[0].nspace, "sys-server") == 0, "connected to sys-server");
    if (srv != NULL)
        PMIX_PROC_FREE(srv, n);
    /* its host answers no query: the library still says what it knows */
    pmix_info_t *res = NULL;
    EXPECT_RC(query1(PMIX_SERVER_URI, NULL, 0, &res, &n), PMIX_SUCCESS);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    EXPECT_RC(query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &n), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (write(go[1], "x", 1) != 1)
        fail("cannot stop the system server");
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the system server's exit");
    return 0;
}

/* ---- failures ---- */

static int nosrv(void)
{
    pmix_proc_t me;
    pid_t nobody = 1; /* init: alive, but no PMIx server */
    EXPECT_RC(PMIx_tool_init(&me, NULL, 0), PMIX_ERR_UNREACH);
    EXPECT(!PMIx_Initialized(), "initialized after a failed tool_init");
    EXPECT_RC(init_pid(nobody, &me), PMIX_ERR_NOT_FOUND);
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_ATTACHMENT_FILE, "/nonexistent/rendezvous", PMIX_STRING);
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, "no-such-server", PMIX_STRING);
    uint32_t two = 2, delay = 0;
    PMIX_INFO_LOAD(&info[1], PMIX_CONNECT_MAX_RETRIES, &two, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_CONNECT_RETRY_DELAY, &delay, PMIX_UINT32);
    EXPECT_RC(PMIx_tool_init(&me, info, 3), PMIX_ERR_NOT_FOUND);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, "x.0;tcp4://127.0.0.1:1", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_TCP_URI, "x.0;tcp4://127.0.0.1:1", PMIX_STRING);
    EXPECT_RC(PMIx_tool_init(&me, info, 2), PMIX_ERR_BAD_PARAM);
    /* nobody listens at that URI */
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_ERR_UNREACH);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* optional: up without a server; the library's own answers still work */
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_CONNECT_OPTIONAL, NULL, PMIX_BOOL);
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    pmix_info_t *res = NULL;
    size_t n = 0;
    EXPECT_RC(query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &n), PMIX_ERR_UNREACH);
    check_attr_support(false);
    pmix_proc_t *srv = NULL;
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 0 && srv == NULL, "no server");
    pmix_proc_t any;
    PMIX_LOAD_PROCID(&any, "x", 0);
    EXPECT_RC(
        PMIx_IOF_pull(&any, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, on_registered, NULL),
        PMIX_ERR_UNREACH);
    EXPECT_RC(PMIx_tool_attach_to_server(NULL, NULL, NULL, 0), PMIX_ERR_UNREACH);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);

    /* no connection at all: an empty identity, unless one is given */
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_SUCCESS);
    EXPECT(me.nspace[0] == '\0' && me.rank == PMIX_RANK_UNDEF, "an empty identity");
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, "my-tool", PMIX_STRING);
    EXPECT_RC(PMIx_tool_init(&me, info, 2), PMIX_SUCCESS);
    EXPECT(strcmp(me.nspace, "my-tool") == 0 && me.rank == 0, "the given identity");
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* a launcher: a server of its own in this process, that others find */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/launcher", getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    PMIX_INFO_LOAD(&info[1], PMIX_LAUNCHER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    pmix_info_t ns;
    PMIX_INFO_LOAD(&ns, PMIX_TOOL_NSPACE, "launcher-tool", PMIX_STRING);
    pmix_info_t all[4] = {info[0], info[1], info[2], ns};
    EXPECT_RC(PMIx_tool_init(&me, all, 4), PMIX_SUCCESS);
    EXPECT_RC(query1(PMIX_QUERY_AVAIL_SERVERS, NULL, 0, &res, &n), PMIX_SUCCESS);
    bool listed = false, started = false;
    pmix_data_array_t *srvs = n == 1 ? res[0].value.data.darray : NULL;
    for (size_t i = 0; srvs != NULL && i < srvs->size; i++) {
        pmix_data_array_t *e = ((pmix_info_t *)srvs->array)[i].value.data.darray;
        bool ours = false;
        const char *when = NULL;
        for (size_t k = 0; k < e->size; k++) {
            pmix_info_t *x = &((pmix_info_t *)e->array)[k];
            if (strcmp(x->key, PMIX_NSPACE) == 0 &&
                strcmp(x->value.data.string, "launcher-tool") == 0)
                ours = true;
            if (strcmp(x->key, PMIX_SERVER_START_TIME) == 0 && x->value.type == PMIX_STRING)
                when = x->value.data.string;
        }
        if (ours) {
            listed = true;
            /* ctime's form, this year: "Fri Nov 27 14:25:01 2026" */
            time_t now = time(NULL);
            struct tm tm;
            char year[16];
            strftime(year, sizeof year, " %Y", localtime_r(&now, &tm));
            started = when != NULL && strlen(when) == 24 && strstr(when, year) != NULL;
        }
    }
    EXPECT(listed, "the launcher's own server among the node's servers");
    EXPECT(started, "its PMIX_SERVER_START_TIME, in ctime's form");
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    /* its server API works: setup_fork of a registered process */
    pmix_proc_t child;
    PMIX_LOAD_PROCID(&child, "launched-job", 0);
    char **env = NULL;
    EXPECT_RC(PMIx_server_setup_fork(&child, &env), PMIX_SUCCESS);
    EXPECT(env != NULL, "setup_fork gave no environment");
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    struct stat st;
    EXPECT(stat(dir, &st) != 0, "the launcher's server left %s", dir);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    PMIX_INFO_DESTRUCT(&ns);
    return 0;
}

static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;
static int lost_events;

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lost_lock);
    if (status == PMIX_ERR_LOST_CONNECTION)
        lost_events++;
    pthread_mutex_unlock(&lost_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int dies(pid_t pid, const char *ready)
{
    pmix_proc_t me;
    if (init_pid(pid, &me) != PMIX_SUCCESS) {
        fail("attach");
        return 1;
    }
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_lost, NULL, NULL);
    FILE *f = fopen(ready, "w");
    if (f != NULL)
        fclose(f);
    bool seen = false;
    for (int i = 0; i < 3000 && !seen; i++) {
        pthread_mutex_lock(&lost_lock);
        seen = lost_events > 0;
        pthread_mutex_unlock(&lost_lock);
        if (!seen)
            sleep_ms(20);
    }
    EXPECT(seen, "no PMIX_ERR_LOST_CONNECTION when the server died");
    pmix_info_t *res = NULL;
    size_t n = 0;
    EXPECT_RC(query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &n), PMIX_ERR_UNREACH);
    pmix_proc_t *srv = NULL;
    EXPECT_RC(PMIx_tool_get_servers(&srv, &n), PMIX_SUCCESS);
    EXPECT(n == 0, "the dead server is gone from the list");
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    return 0;
}

/* What Open MPI 4.1's ORTE tools do: tool_init with nothing, then ask the
 * server for its URI. */
static int orte(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    EXPECT_RC(rc, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS)
        return 1;
    char *uri = server_uri_nb();
    EXPECT(uri != NULL && strstr(uri, "switchyard-run.") == uri, "URI %s", uri ? uri : "-");
    free(uri);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    return 0;
}

/* Another user: the rendezvous file cannot be read and the TCP port wants
 * a token.  (What a tool that holds the token is taken for, whatever uid
 * it claims, is tests/tools/security.sh's.) */
static int nobody(const char *root_file, const char *uri)
{
    if (getuid() != 0) {
        printf("nobody: skipped (not root)\n");
        return 0;
    }
    pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(3);
        pmix_proc_t me;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_TOOL_ATTACHMENT_FILE, root_file, PMIX_STRING);
        EXPECT_RC(PMIx_tool_init(&me, &info, 1), PMIX_ERR_NO_PERMISSIONS);
        PMIX_INFO_DESTRUCT(&info);
        PMIX_INFO_LOAD(&info, PMIX_TCP_URI, uri, PMIX_STRING);
        EXPECT_RC(PMIx_tool_init(&me, &info, 1), PMIX_ERR_NO_PERMISSIONS);
        PMIX_INFO_DESTRUCT(&info);
        _exit(fails == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other user's tool (status %d)",
           status);
    return 0;
}

/* A rank of a job: attribute support through its server, host level
 * included. */
static int client_attrs(void)
{
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fail("PMIx_Init");
        return 1;
    }
    pmix_info_t *res = NULL;
    size_t n = 0;
    char *k[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Publish", NULL};
    EXPECT_RC(attr_query(k, NULL, &res, &n), PMIX_SUCCESS);
    EXPECT(has_attr(res, n, "PMIx_Publish", PMIX_HOST_ATTRIBUTES, "PMIX_RANGE"),
           "host level of PMIx_Publish");
    EXPECT(has_attr(res, n, "PMIx_Publish", PMIX_SERVER_ATTRIBUTES, "PMIX_USERID"),
           "server level of PMIx_Publish");
    PMIX_INFO_FREE(res, n);
    check_attr_support(true);
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* ---- a launcher tool's own host module ---- */

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static int mod_logs;

static void mod_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                    const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)dirs, (void)ndirs;
    bool ours = strcmp(client->nspace, "sm-job") == 0 && ndata == 1 &&
                strcmp(data[0].key, PMIX_LOG_STDOUT) == 0 && data[0].value.type == PMIX_STRING &&
                strcmp(data[0].value.data.string, "via-module") == 0;
    pthread_mutex_lock(&mod_lock);
    mod_logs += ours;
    pthread_mutex_unlock(&mod_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

/* The launcher's client: one log line, for the tool's module. */
static int module_client(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return 3;
    pmix_info_t msg;
    PMIX_INFO_LOAD(&msg, PMIX_LOG_STDOUT, "via-module", PMIX_STRING);
    rc = PMIx_Log(&msg, 1, NULL, 0);
    PMIX_INFO_DESTRUCT(&msg);
    PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 4;
}

static int server_module(const char *self)
{
    pmix_server_module_t m;
    memset(&m, 0, sizeof m);
    m.log = mod_log;
    pmix_proc_t me;
    EXPECT(!PMIx_tool_is_connected(), "connected before tool_init");
    EXPECT_RC(PMIx_tool_set_server_module(&m), PMIX_ERR_INIT);
    /* a tool that runs no server has nothing to give the module to */
    pmix_info_t info[4];
    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    EXPECT_RC(PMIx_tool_init(&me, info, 1), PMIX_SUCCESS);
    EXPECT(!PMIx_tool_is_connected(), "a do-not-connect tool is connected");
    EXPECT_RC(PMIx_tool_set_server_module(&m), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    /* a launcher: its server's clients reach the module given */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/sm-launcher",
             getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    PMIX_INFO_LOAD(&info[1], PMIX_LAUNCHER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_TOOL_NSPACE, "sm-launcher", PMIX_STRING);
    EXPECT_RC(PMIx_tool_init(&me, info, 4), PMIX_SUCCESS);
    EXPECT_RC(PMIx_tool_set_server_module(NULL), PMIX_ERR_BAD_PARAM);
    EXPECT_RC(PMIx_tool_set_server_module(&m), PMIX_SUCCESS);
    pmix_info_t job;
    uint32_t one = 1;
    PMIX_INFO_LOAD(&job, PMIX_JOB_SIZE, &one, PMIX_UINT32);
    pmix_nspace_t jobns;
    PMIX_LOAD_NSPACE(jobns, "sm-job");
    EXPECT_RC(PMIx_server_register_nspace(jobns, 1, &job, 1, NULL, NULL), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&job);
    pmix_proc_t child;
    PMIX_LOAD_PROCID(&child, "sm-job", 0);
    EXPECT_RC(PMIx_server_register_client(&child, getuid(), getgid(), NULL, NULL, NULL),
              PMIX_SUCCESS);
    char **env = NULL;
    EXPECT_RC(PMIx_server_setup_fork(&child, &env), PMIX_SUCCESS);
    pid_t pid = fork();
    if (pid == 0) {
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        execl(self, self, "module-client", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
               WEXITSTATUS(status) == 0,
           "the launcher's client failed (status %d)", status);
    pthread_mutex_lock(&mod_lock);
    int logs = mod_logs;
    pthread_mutex_unlock(&mod_lock);
    EXPECT(logs == 1, "the module's log upcall ran %d times, not once", logs);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    PMIx_server_deregister_client(&child, NULL, NULL);
    PMIx_server_deregister_nspace(jobns, NULL, NULL);
    EXPECT_RC(PMIx_tool_finalize(), PMIX_SUCCESS);
    for (int i = 0; i < 4; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tool MODE ...\n");
        return 2;
    }
    mode = argv[1];
    int rc = 2;
    if (!strcmp(mode, "basic") && argc == 4)
        rc = basic((pid_t)atol(argv[2]), (unsigned)atoi(argv[3]));
    else if (!strcmp(mode, "iof") && argc >= 4)
        rc = iof((pid_t)atol(argv[2]), argv[3], argc > 4 && !strcmp(argv[4], "copy"));
    else if (!strcmp(mode, "cache") && argc == 4)
        rc = cache((pid_t)atol(argv[2]), argv[3]);
    else if (!strcmp(mode, "stdin") && argc == 3)
        rc = stdin_push((pid_t)atol(argv[2]), false);
    else if (!strcmp(mode, "stdin-refused") && argc == 3)
        rc = stdin_push((pid_t)atol(argv[2]), true);
    else if (!strcmp(mode, "jobctl") && argc == 4)
        rc = jobctl((pid_t)atol(argv[2]), (pmix_rank_t)atoi(argv[3]));
    else if (!strcmp(mode, "two") && argc == 4)
        rc = two((pid_t)atol(argv[2]), (pid_t)atol(argv[3]));
    else if (!strcmp(mode, "nosrv"))
        rc = nosrv();
    else if (!strcmp(mode, "dies") && argc == 4)
        rc = dies((pid_t)atol(argv[2]), argv[3]);
    else if (!strcmp(mode, "orte"))
        rc = orte();
    else if (!strcmp(mode, "nobody") && argc == 4)
        rc = nobody(argv[2], argv[3]);
    else if (!strcmp(mode, "connect") && argc == 6)
        rc = connect_modes((pid_t)atol(argv[2]), argv[3], argv[4], argv[5]);
    else if (!strcmp(mode, "system") && argc == 3)
        rc = system_server(argv[2]);
    else if (!strcmp(mode, "client-attrs"))
        rc = client_attrs();
    else if (!strcmp(mode, "server-module"))
        rc = server_module(argv[0]);
    else if (!strcmp(mode, "module-client"))
        return module_client();
    else
        fprintf(stderr, "test_tool: bad arguments for %s\n", mode);
    if (rc == 2)
        return 2;
    if (fails == 0)
        printf("%s: ok\n", mode);
    return fails == 0 && rc == 0 ? 0 : 1;
}
