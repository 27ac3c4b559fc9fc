/* Every way a host completes an upcall, for one upcall of each family,
 * checked with a host of ours and real clients (this program exec'd):
 *
 *   families: client (client_finalized), pubsub (publish), hostops
 *             (job_control), query (query), iof (push_stdin), events
 *             (notify_event), groups (group), fabric (fabric), cred
 *             (get_credential), tool (tool_connected), fence (fence_nb with
 *             a participant on another node), dmodex (direct_modex of a
 *             rank on another node).
 *   modes:    inside: the callback comes inside the upcall;
 *             later:  from another thread 100 ms after the upcall returned;
 *             twice:  inside, and again from another thread later (the
 *                     second one must reach nothing);
 *             died:   the requesting client is killed before the host
 *                     answers (the server must live on: a second client of
 *                     the same family then gets its answer);
 *             never:  the host never answers; PMIx_server_finalize must
 *                     return anyway, and the callback made after it must be
 *                     harmless.
 *
 * In every mode each release_fn the host hands over is called exactly once.
 * Run as root or not.  Exit status 0 when all held; "FAIL(...)" lines say
 * what did not. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "forkhost.h"

static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_upcalls %s/%s): ", family, mode);                               \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        failures++;                                                                                \
    } while (0)

static const char *family = "-", *mode = "-";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define ANSWER_KEY "upc.answer"
#define REMOTE_RANK 2 /* ranks 0 and 1 here, 2 on REMOTE_HOST */
#define REMOTE_HOST "remote.test"
#define CTXID 77

/* ================= the client ================= */

static pmix_proc_t me;

static bool has_answer(const pmix_info_t *res, size_t n)
{
    for (size_t i = 0; res != NULL && i < n; i++)
        if (PMIX_CHECK_KEY(&res[i], ANSWER_KEY))
            return true;
    return false;
}

/* The family's call; 0 when the host's answer arrived as sent. */
static int client_call(void)
{
    pmix_status_t rc = PMIX_ERROR;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    if (strcmp(family, "client") == 0) {
        rc = PMIx_Finalize(NULL, 0);
        return rc == PMIX_SUCCESS ? 0 : 10;
    } else if (strcmp(family, "pubsub") == 0) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, "upc.pub", "v", PMIX_STRING);
        rc = PMIx_Publish(&info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else if (strcmp(family, "hostops") == 0) {
        pmix_info_t dir;
        bool yes = true;
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
        rc = PMIx_Job_control(NULL, 0, &dir, 1, &res, &nres);
        PMIX_INFO_DESTRUCT(&dir);
        if (rc == PMIX_SUCCESS && !has_answer(res, nres))
            rc = PMIX_ERR_NOT_FOUND;
    } else if (strcmp(family, "query") == 0) {
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        char *keys[] = {ANSWER_KEY, NULL};
        q.keys = keys;
        rc = PMIx_Query_info(&q, 1, &res, &nres);
        q.keys = NULL;
        PMIX_QUERY_DESTRUCT(&q);
        if (rc == PMIX_SUCCESS && !has_answer(res, nres))
            rc = PMIX_ERR_NOT_FOUND;
    } else if (strcmp(family, "iof") == 0) {
        pmix_byte_object_t bo = {.bytes = "in\n", .size = 3};
        fh_waiter_t w = FH_WAITER;
        rc = fh_wait(PMIx_IOF_push(&me, 1, &bo, NULL, 0, fh_op_cb, &w), &w);
    } else if (strcmp(family, "events") == 0) {
        fh_waiter_t w = FH_WAITER;
        rc = fh_wait(PMIx_Notify_event(PMIX_EXTERNAL_ERR_BASE - 7, &me, PMIX_RANGE_GLOBAL, NULL, 0,
                                       fh_op_cb, &w),
                     &w);
    } else if (strcmp(family, "groups") == 0) {
        pmix_info_t dir;
        bool yes = true;
        PMIX_INFO_LOAD(&dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        rc = PMIx_Group_construct("upcgrp", &me, 1, &dir, 1, &res, &nres);
        PMIX_INFO_DESTRUCT(&dir);
        size_t id = 0;
        for (size_t i = 0; i < nres; i++)
            if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID))
                id = res[i].value.data.size;
        if (rc == PMIX_SUCCESS && id != CTXID)
            rc = PMIX_ERR_NOT_FOUND;
    } else if (strcmp(family, "fabric") == 0) {
        pmix_fabric_t f;
        PMIX_FABRIC_CONSTRUCT(&f);
        rc = PMIx_Fabric_register(&f, NULL, 0);
        /* the host answers NOT_FOUND: proof that its answer came */
        rc = rc == PMIX_ERR_NOT_FOUND ? PMIX_SUCCESS : (rc == PMIX_SUCCESS ? PMIX_ERROR : rc);
    } else if (strcmp(family, "fence") == 0) {
        pmix_proc_t procs[2];
        PMIX_LOAD_PROCID(&procs[0], me.nspace, me.rank);
        PMIX_LOAD_PROCID(&procs[1], me.nspace, REMOTE_RANK);
        rc = PMIx_Fence(procs, 2, NULL, 0);
    } else if (strcmp(family, "dmodex") == 0) {
        pmix_proc_t remote;
        PMIX_LOAD_PROCID(&remote, me.nspace, REMOTE_RANK);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&remote, "upc.remote", NULL, 0, &v);
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        /* the host answers NO_PERMISSIONS: proof that its answer came */
        rc = rc == PMIX_ERR_NO_PERMISSIONS ? PMIX_SUCCESS : (rc == PMIX_SUCCESS ? PMIX_ERROR : rc);
    } else if (strcmp(family, "cred") == 0) {
        pmix_byte_object_t cred = {0};
        rc = PMIx_Get_credential(NULL, 0, &cred);
        if (rc == PMIX_SUCCESS && (cred.size != 8 || memcmp(cred.bytes, "upc-cred", 8) != 0))
            rc = PMIX_ERR_INVALID_CRED;
        free(cred.bytes);
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "test_upcalls client %s/%s: %s\n", family, mode, PMIx_Error_string(rc));
        return 11;
    }
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 12;
}

static int client(void)
{
    alarm(60);
    if (strcmp(family, "tool") == 0) {
        /* the host's server, by its pid, in its directory */
        pmix_info_t info[2];
        pid_t host = getppid();
        const char *dir = getenv("UPC_DIR");
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &host, PMIX_PID);
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, dir != NULL ? dir : "/nonexistent",
                       PMIX_STRING);
        pmix_status_t rc = PMIx_tool_init(&me, info, 2);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        if (rc != PMIX_SUCCESS || me.rank != 5 || strcmp(me.nspace, "upc-tool") != 0) {
            fprintf(stderr, "test_upcalls tool %s: %s as %s:%u\n", mode, PMIx_Error_string(rc),
                    me.nspace, me.rank);
            return 11;
        }
        return PMIx_tool_finalize() == PMIX_SUCCESS ? 0 : 12;
    }
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 9;
    return client_call();
}

/* ================= the host ================= */

typedef enum { CB_OP, CB_INFO, CB_CRED, CB_TOOL, CB_MODEX } cb_kind_t;

/* One answer the host owes. */
typedef struct {
    cb_kind_t kind;
    pmix_op_cbfunc_t op;
    pmix_info_cbfunc_t info;
    pmix_credential_cbfunc_t cred;
    pmix_tool_connection_cbfunc_t tool;
    pmix_modex_cbfunc_t modex;
    void *cbdata;
    pmix_status_t status;
    bool ctxid; /* the answer carries PMIX_GROUP_CONTEXT_ID */
} answer_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int n_upcalls, n_infos_given, n_released;
static bool holding;
static answer_t held;
static pthread_t late_threads[8];
static int n_late;
static const char *policy; /* the mode of the upcall of the family under test */

static void released(void *cbdata)
{
    pmix_info_t *info = cbdata;
    PMIX_INFO_FREE(info, 1);
    pthread_mutex_lock(&lock);
    n_released++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void released_data(void *cbdata)
{
    free(cbdata);
    pthread_mutex_lock(&lock);
    n_released++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void fire(const answer_t *a)
{
    if (a->kind == CB_OP) {
        a->op(a->status, a->cbdata);
    } else if (a->kind == CB_INFO) {
        pmix_info_t *info;
        PMIX_INFO_CREATE(info, 1);
        if (a->ctxid) {
            size_t id = CTXID;
            PMIX_INFO_LOAD(&info[0], PMIX_GROUP_CONTEXT_ID, &id, PMIX_SIZE);
        } else {
            PMIX_INFO_LOAD(&info[0], ANSWER_KEY, "yes", PMIX_STRING);
        }
        pthread_mutex_lock(&lock);
        n_infos_given++;
        pthread_mutex_unlock(&lock);
        a->info(a->status, info, 1, a->cbdata, released, info);
    } else if (a->kind == CB_MODEX) {
        /* no data from elsewhere, but a buffer that is the host's until
         * its release */
        char *data = calloc(1, 1);
        pthread_mutex_lock(&lock);
        n_infos_given++;
        pthread_mutex_unlock(&lock);
        a->modex(a->status, data, 0, a->cbdata, released_data, data);
    } else if (a->kind == CB_CRED) {
        pmix_byte_object_t bo = {.bytes = "upc-cred", .size = 8};
        a->cred(a->status, &bo, NULL, 0, a->cbdata);
    } else {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "upc-tool", 5);
        a->tool(a->status, &p, a->cbdata);
    }
}

static void *fire_later(void *arg)
{
    usleep(100000);
    fire(arg);
    free(arg);
    return NULL;
}

/* The upcall of the family under test: answer as the mode says. */
static pmix_status_t answer(answer_t a)
{
    pthread_mutex_lock(&lock);
    n_upcalls++;
    const char *how = policy;
    if (strcmp(how, "died") == 0 || strcmp(how, "never") == 0) {
        held = a;
        holding = true;
        policy = "inside"; /* what comes after (the second client) is answered */
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    if (strcmp(how, "inside") == 0 || strcmp(how, "twice") == 0)
        fire(&a);
    if (strcmp(how, "later") == 0 || strcmp(how, "twice") == 0) {
        answer_t *copy = malloc(sizeof(*copy));
        *copy = a;
        pthread_mutex_lock(&lock);
        if (n_late < 8 && pthread_create(&late_threads[n_late], NULL, fire_later, copy) == 0)
            n_late++;
        else
            free(copy);
        pthread_mutex_unlock(&lock);
    }
    return PMIX_SUCCESS;
}

static bool testing(const char *f)
{
    return strcmp(family, f) == 0;
}

static pmix_status_t up_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)obj;
    if (!testing("client") || p->nspace[0] == '\0' || strncmp(p->nspace, "upc-tool", 8) == 0)
        return PMIX_OPERATION_SUCCEEDED;
    return answer((answer_t){.kind = CB_OP, .op = cb, .cbdata = cbd});
}

static pmix_status_t up_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p, (void)info, (void)ninfo;
    return answer((answer_t){.kind = CB_OP, .op = cb, .cbdata = cbd});
}

static pmix_status_t up_job_control(const pmix_proc_t *p, const pmix_proc_t targets[], size_t nt,
                                    const pmix_info_t dirs[], size_t nd, pmix_info_cbfunc_t cb,
                                    void *cbd)
{
    (void)p, (void)targets, (void)nt, (void)dirs, (void)nd;
    return answer((answer_t){.kind = CB_INFO, .info = cb, .cbdata = cbd});
}

static pmix_status_t up_query(pmix_proc_t *p, pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb,
                              void *cbd)
{
    (void)p, (void)q, (void)nq;
    return answer((answer_t){.kind = CB_INFO, .info = cb, .cbdata = cbd});
}

static pmix_status_t up_push_stdin(const pmix_proc_t *src, const pmix_proc_t targets[], size_t nt,
                                   const pmix_info_t dirs[], size_t nd,
                                   const pmix_byte_object_t *bo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)src, (void)targets, (void)nt, (void)dirs, (void)nd, (void)bo;
    return answer((answer_t){.kind = CB_OP, .op = cb, .cbdata = cbd});
}

static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
                               pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)src, (void)range, (void)info, (void)ninfo;
    if (code != PMIX_EXTERNAL_ERR_BASE - 7)
        return PMIX_OPERATION_SUCCEEDED;
    return answer((answer_t){.kind = CB_OP, .op = cb, .cbdata = cbd});
}

static pmix_status_t up_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                              size_t np, const pmix_info_t dirs[], size_t nd, pmix_info_cbfunc_t cb,
                              void *cbd)
{
    (void)grp, (void)procs, (void)np, (void)dirs, (void)nd;
    if (op != PMIX_GROUP_CONSTRUCT)
        return PMIX_OPERATION_SUCCEEDED;
    return answer((answer_t){.kind = CB_INFO, .info = cb, .cbdata = cbd, .ctxid = true});
}

static pmix_status_t up_fabric(const pmix_proc_t *p, pmix_fabric_operation_t op,
                               const pmix_info_t dirs[], size_t nd, pmix_info_cbfunc_t cb,
                               void *cbd)
{
    (void)p, (void)op, (void)dirs, (void)nd;
    return answer(
        (answer_t){.kind = CB_INFO, .info = cb, .cbdata = cbd, .status = PMIX_ERR_NOT_FOUND});
}

static pmix_status_t up_get_cred(const pmix_proc_t *p, const pmix_info_t dirs[], size_t nd,
                                 pmix_credential_cbfunc_t cb, void *cbd)
{
    (void)p, (void)dirs, (void)nd;
    return answer((answer_t){.kind = CB_CRED, .cred = cb, .cbdata = cbd});
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t np, const pmix_info_t info[],
                              size_t ni, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                              void *cbd)
{
    (void)procs, (void)np, (void)info, (void)ni, (void)ndata;
    free(data); /* ours (the host's) to free */
    return answer((answer_t){.kind = CB_MODEX, .modex = cb, .cbdata = cbd});
}

static pmix_status_t up_dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ni,
                               pmix_modex_cbfunc_t cb, void *cbd)
{
    (void)p, (void)info, (void)ni;
    return answer((answer_t){
        .kind = CB_MODEX, .modex = cb, .cbdata = cbd, .status = PMIX_ERR_NO_PERMISSIONS});
}

static void up_tool(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cb, void *cbd)
{
    (void)info, (void)ninfo;
    answer((answer_t){.kind = CB_TOOL, .tool = cb, .cbdata = cbd});
}

/* Ranks 0 and 1 here, REMOTE_RANK on REMOTE_HOST, as a host registers a
 * job of two nodes; 0 and 1 registered as clients. */
static pmix_status_t register_job(const char *nspace)
{
    char host[256] = "", nodes_in[600], *nodes = NULL, *procs = NULL;
    gethostname(host, sizeof host - 1);
    snprintf(nodes_in, sizeof nodes_in, "%s,%s", host, REMOTE_HOST);
    pmix_status_t rc = PMIx_generate_regex(nodes_in, &nodes);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn("0,1;2", &procs);
    if (rc != PMIX_SUCCESS) {
        free(nodes);
        return rc;
    }
    uint32_t size = 3, local = 2, nn = 2;
    pmix_info_t info[7];
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_NUM_NODES, &nn, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[4], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    PMIX_INFO_LOAD(&info[5], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&info[6], PMIX_PROC_MAP, procs, PMIX_STRING);
    free(nodes);
    free(procs);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    fh_waiter_t w = FH_WAITER;
    rc = fh_wait(PMIx_server_register_nspace(ns, 2, info, 7, fh_op_cb, &w), &w);
    for (int i = 0; i < 7; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    for (pmix_rank_t r = 0; rc == PMIX_SUCCESS && r < 2; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        fh_waiter_t wc = FH_WAITER;
        rc = fh_wait(PMIx_server_register_client(&p, getuid(), getgid(), NULL, fh_op_cb, &wc), &wc);
    }
    return rc;
}

static char self_path[4096];

static pid_t start(const char *nspace, pmix_rank_t r)
{
    char **env = NULL;
    if (nspace != NULL) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
            return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        char *argv[] = {self_path, "client", (char *)family, (char *)mode, NULL};
        execv(self_path, argv);
        _exit(127);
    }
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    return pid;
}

/* Its exit status, or -1 (killed when it hangs past `seconds`). */
static int reap(pid_t pid, double seconds)
{
    double deadline = now_s() + seconds;
    int st = 0;
    pid_t got;
    while ((got = waitpid(pid, &st, WNOHANG)) == 0 && now_s() < deadline)
        usleep(10000);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool wait_held(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)seconds;
    pthread_mutex_lock(&lock);
    while (!holding && pthread_cond_timedwait(&cond, &lock, &ts) == 0)
        ;
    bool h = holding;
    pthread_mutex_unlock(&lock);
    return h;
}

/* Every release_fn handed over was called, once. */
static void check_released(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    pthread_mutex_lock(&lock);
    while (n_released < n_infos_given && pthread_cond_timedwait(&cond, &lock, &ts) == 0)
        ;
    int given = n_infos_given, rel = n_released;
    pthread_mutex_unlock(&lock);
    if (given != rel)
        FAIL("%d release_fn(s) handed over, %d called", given, rel);
}

static void join_late(void)
{
    pthread_mutex_lock(&lock);
    int n = n_late;
    pthread_t t[8];
    memcpy(t, late_threads, sizeof t);
    n_late = 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static void scenario(const char *f, const char *m)
{
    family = f;
    mode = m;
    pthread_mutex_lock(&lock);
    n_upcalls = n_infos_given = n_released = 0;
    holding = false;
    policy = m;
    pthread_mutex_unlock(&lock);
    bool tool = strcmp(f, "tool") == 0;
    pmix_server_module_t module = {.client_finalized = up_finalized,
                                   .publish = up_publish,
                                   .job_control = up_job_control,
                                   .query = up_query,
                                   .push_stdin = up_push_stdin,
                                   .notify_event = up_notify,
                                   .group = up_group,
                                   .fabric = up_fabric,
                                   .get_credential = up_get_cred,
                                   .tool_connected = up_tool,
                                   .fence_nb = up_fence,
                                   .direct_modex = up_dmodex};
    char tmpdir[4096];
    snprintf(tmpdir, sizeof tmpdir, "%s/sy-upc.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        FAIL("mkdtemp: %s", strerror(errno));
        return;
    }
    pmix_info_t info[3];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, info, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        rmdir(tmpdir);
        return;
    }
    char ns[64];
    snprintf(ns, sizeof ns, "upc-%s-%s", f, m);
    if (!tool && (rc = register_job(ns)) != PMIX_SUCCESS)
        FAIL("register the job: %s", PMIx_Error_string(rc));
    if (tool)
        setenv("UPC_DIR", tmpdir, 1);
    pid_t pid = start(tool ? NULL : ns, 0);
    bool finalized = false;
    if (strcmp(m, "inside") == 0 || strcmp(m, "later") == 0 || strcmp(m, "twice") == 0) {
        int st = reap(pid, 30);
        if (st != 0)
            FAIL("the client ended with %d, expected 0", st);
        join_late();
    } else if (!wait_held(20)) {
        FAIL("the upcall never came");
        kill(pid, SIGKILL);
        reap(pid, 5);
    } else if (strcmp(m, "died") == 0) {
        kill(pid, SIGKILL);
        reap(pid, 5);
        usleep(300000); /* the server sees the connection end */
        fire(&held);
        /* the server lives on and still answers */
        pid = start(tool ? NULL : ns, 1);
        int st = reap(pid, 30);
        if (st != 0)
            FAIL("the second client ended with %d, expected 0", st);
    } else {
        double t0 = now_s();
        rc = PMIx_server_finalize();
        finalized = true;
        if (rc != PMIX_SUCCESS)
            FAIL("PMIx_server_finalize: %s", PMIx_Error_string(rc));
        if (now_s() - t0 > 10)
            FAIL("PMIx_server_finalize took %.1f s", now_s() - t0);
        fire(&held); /* late: after finalize */
        if (reap(pid, 30) < 0)
            FAIL("the client hangs after the server finalized");
    }
    pthread_mutex_lock(&lock);
    int upcalls = n_upcalls;
    pthread_mutex_unlock(&lock);
    if (upcalls == 0)
        FAIL("the upcall was never made");
    check_released();
    if (!finalized) {
        if (!tool)
            fh_deregister_job(ns, 2);
        rc = PMIx_server_finalize();
        if (rc != PMIX_SUCCESS)
            FAIL("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    }
    unsetenv("UPC_DIR");
    if (rmdir(tmpdir) != 0)
        FAIL("%s left behind: %s", tmpdir, strerror(errno));
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 4 && strcmp(argv[1], "client") == 0) {
        family = argv[2];
        mode = argv[3];
        return client();
    }
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return 1;
    self_path[n] = '\0';
    alarm(600);
    static const char *families[] = {"client", "pubsub", "hostops", "query", "iof",   "events",
                                     "groups", "fabric", "cred",    "tool",  "fence", "dmodex"};
    static const char *modes[] = {"inside", "later", "twice", "died", "never"};
    for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
        if (argc > 1 && strcmp(argv[1], families[f]) != 0)
            continue;
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
            if (argc > 2 && strcmp(argv[2], modes[m]) != 0)
                continue;
            int before = failures;
            scenario(families[f], modes[m]);
            printf("%s %s/%s\n", failures == before ? "ok" : "FAILED", families[f], modes[m]);
            fflush(stdout);
        }
    }
    return failures == 0 ? 0 : 1;
}
