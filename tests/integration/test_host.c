/* A host written only against the public PMIx server API, the way a
 * resource manager's node daemon uses it: init a server, register a job
 * with hierarchical data (session, job, nested app arrays, node arrays,
 * per-process data) for three nodes of which this machine is one, fork the
 * local clients with setup_fork's environment, count the host upcalls,
 * then deregister and finalize and check that the tmpdir is left empty.
 *
 *   test_host -c CLIENT [-n NLOCAL] [-m keys|hostile|abort|host-...|no-...] [-t]
 *
 * host-group, no-group, host-psets, host-cred, host-alloc, no-alloc: the
 * host upcalls of test_host_ops.c (with or without group/allocate), the
 * clients run CLIENT in the same mode.
 * keys:    every local rank runs CLIENT's full key check.
 * abort:   every local rank calls PMIx_Abort, which the host must see.
 * -t:      no UNIX socket (PMIX_USOCK_DISABLE): clients connect over TCP
 *          and authenticate with the token setup_fork gave them.
 * hostile: the same as keys, plus peers that must be refused (a rank registered
 *          with another uid, an unregistered rank, garbage bytes, a
 *          truncated frame, a peer killed in the middle of its handshake),
 *          started first; the good clients must still all pass.
 * Exit status 0 when everything held; each failure prints a FAIL line. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "job_layout.h"
#include "test_host_ops.h"

extern char **environ;

static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(host): " __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

/* ---- waiting for completion callbacks ---- */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int fired;
    pmix_status_t status;
} waiter_t;

static void waiter_init(waiter_t *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->fired = 0;
    w->status = PMIX_ERROR;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    waiter_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->fired++;
    w->status = status;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Wait up to 10 s; the status of the call and of its callback must both be
 * success (an immediate PMIX_OPERATION_SUCCEEDED means no callback). */
static pmix_status_t wait_op(const char *what, pmix_status_t rc, waiter_t *w)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) {
        FAIL("%s returned %s", what, PMIx_Error_string(rc));
        return rc;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&w->lock);
    while (w->fired == 0 && pthread_cond_timedwait(&w->cond, &w->lock, &deadline) != ETIMEDOUT)
        ;
    int fired = w->fired;
    pmix_status_t st = w->status;
    pthread_mutex_unlock(&w->lock);
    if (fired != 1) {
        FAIL("%s: callback fired %d times", what, fired);
        return PMIX_ERR_TIMEOUT;
    }
    if (st != PMIX_SUCCESS)
        FAIL("%s: callback status %s", what, PMIx_Error_string(st));
    return st;
}

/* ---- host module ---- */
static layout_t L;
static int server_objects[1024];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_connected, n_connected2, n_finalized, n_aborted, n_fence, n_fence_bad_info, n_dmodex;
static unsigned n_good_clients; /* local ranks that really run */
static pmix_nspace_t job_nspace = "test-job";
static pmix_nspace_t host_nspace = "test-host";

static bool object_matches(const pmix_proc_t *proc, void *server_object)
{
    if (strcmp(proc->nspace, job_nspace) != 0 || proc->rank >= L.size)
        return false;
    return server_object == &server_objects[proc->rank];
}

static pmix_status_t host_connected(const pmix_proc_t *proc, void *server_object,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&count_lock);
    n_connected++;
    pthread_mutex_unlock(&count_lock);
    if (!object_matches(proc, server_object))
        FAIL("client_connected for %s.%u carries the wrong server_object", proc->nspace,
             proc->rank);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata); /* answer before returning, as ORTE can */
    return PMIX_SUCCESS;
}

static pmix_status_t host_connected2(const pmix_proc_t *proc, void *server_object,
                                     pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                     void *cbdata)
{
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&count_lock);
    n_connected2++;
    pthread_mutex_unlock(&count_lock);
    if (!object_matches(proc, server_object))
        FAIL("client_connected2 for %s.%u carries the wrong server_object", proc->nspace,
             proc->rank);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t host_finalized(const pmix_proc_t *proc, void *server_object,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&count_lock);
    n_finalized++;
    pthread_mutex_unlock(&count_lock);
    if (!object_matches(proc, server_object))
        FAIL("client_finalized for %s.%u carries the wrong server_object", proc->nspace,
             proc->rank);
    (void)cbfunc;
    (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED; /* done inline: no callback expected */
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *server_object, int status,
                                const char msg[], pmix_proc_t procs[], size_t nprocs,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs;
    pthread_mutex_lock(&count_lock);
    n_aborted++;
    pthread_mutex_unlock(&count_lock);
    if (!object_matches(proc, server_object))
        FAIL("abort from %s.%u carries the wrong server_object", proc->nspace, proc->rank);
    if (status != 7 || msg == NULL || strcmp(msg, "test_client abort mode") != 0 || nprocs != 0)
        FAIL("abort from %s.%u: status %d, message \"%s\", %zu procs", proc->nspace, proc->rank,
             status, msg ? msg : "(null)", nprocs);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* This host plays the node daemon of a three-node job whose other nodes
 * contribute nothing: the all-gather is our own blob, handed back. */
static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs;
    (void)nprocs;
    /* the clients' directives (PMIX_TIMEOUT), the collection they asked
     * for and the outcome of the local part (Chap_API_Server.tex) */
    bool timeout = false, collect = false, local_ok = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT))
            timeout = info[i].value.type == PMIX_INT && info[i].value.data.integer == 600;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA))
            collect = info[i].value.type == PMIX_BOOL && info[i].value.data.flag;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_LOCAL_COLLECTIVE_STATUS))
            local_ok =
                info[i].value.type == PMIX_STATUS && info[i].value.data.status == PMIX_SUCCESS;
    }
    pthread_mutex_lock(&count_lock);
    n_fence++;
    if (!timeout || !collect || !local_ok)
        n_fence_bad_info++;
    pthread_mutex_unlock(&count_lock);
    char *copy = malloc(ndata ? ndata : 1);
    if (ndata > 0)
        memcpy(copy, data, ndata);
    free(data); /* the blob is the host's */
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t host_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                 pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&count_lock);
    n_dmodex++;
    pthread_mutex_unlock(&count_lock);
    return PMIX_ERR_NOT_FOUND;
}

static waiter_t dmx_wait;
static size_t dmx_bytes;

static void dmodex_answer(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    (void)data;
    dmx_bytes = sz;
    op_done(status, cbdata);
}

/* ---- the job description ---- */
static void load_uint32(pmix_info_t *info, const char *key, uint32_t v)
{
    PMIX_INFO_LOAD(info, key, &v, PMIX_UINT32);
}

static void load_rank(pmix_info_t *info, const char *key, pmix_rank_t v)
{
    PMIX_INFO_LOAD(info, key, &v, PMIX_PROC_RANK);
}

static void load_array(pmix_info_t *info, const char *key, pmix_info_t *arr, size_t n)
{
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = n, .array = arr};
    PMIX_INFO_LOAD(info, key, &darray, PMIX_DATA_ARRAY);
    /* PMIX_INFO_LOAD copied the array: release ours. */
    PMIX_INFO_FREE(arr, n);
}

static pmix_info_t *build_job_info(size_t *ninfo)
{
    char *nodes = NULL, *procs = NULL, csv[4096] = "", ppn[8192] = "";
    for (int n = 0; n < LAYOUT_NNODES; n++) {
        size_t len = strlen(csv);
        snprintf(csv + len, sizeof csv - len, "%s%s", n ? "," : "", L.names[n]);
        char peers[2048];
        layout_peers(&L, (unsigned)n, peers, sizeof peers);
        len = strlen(ppn);
        snprintf(ppn + len, sizeof ppn - len, "%s%s", n ? ";" : "", peers);
    }
    if (PMIx_generate_regex(csv, &nodes) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ppn, &procs) != PMIX_SUCCESS) {
        FAIL("PMIx_generate_regex/ppn failed");
        exit(1);
    }

    size_t n = 0, cap = 16 + L.size;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, cap);

    /* Session realm in its own container. */
    pmix_info_t *ssn;
    PMIX_INFO_CREATE(ssn, 2);
    load_uint32(&ssn[0], PMIX_SESSION_ID, LAYOUT_SESSION_ID);
    load_uint32(&ssn[1], PMIX_UNIV_SIZE, LAYOUT_UNIV_SIZE);
    load_array(&info[n++], PMIX_SESSION_INFO_ARRAY, ssn, 2);

    /* Job realm in a container that also nests the two app containers. */
    pmix_info_t *job;
    size_t nj = 0;
    PMIX_INFO_CREATE(job, 9);
    PMIX_INFO_LOAD(&job[nj++], PMIX_JOBID, LAYOUT_JOBID, PMIX_STRING);
    load_uint32(&job[nj++], PMIX_JOB_SIZE, L.size);
    load_uint32(&job[nj++], PMIX_MAX_PROCS, L.size + 8);
    PMIX_INFO_LOAD(&job[nj++], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&job[nj++], PMIX_PROC_MAP, procs, PMIX_STRING);
    load_uint32(&job[nj++], PMIX_JOB_NUM_APPS, 2);
    for (uint32_t a = 0; a < 2; a++) {
        pmix_info_t *app;
        PMIX_INFO_CREATE(app, 3);
        load_uint32(&app[0], PMIX_APPNUM, a);
        load_uint32(&app[1], PMIX_APP_SIZE, L.app_size[a]);
        char wdir[64];
        snprintf(wdir, sizeof wdir, "/work/app%u", a);
        PMIX_INFO_LOAD(&app[2], PMIX_WDIR, wdir, PMIX_STRING);
        load_array(&job[nj++], PMIX_APP_INFO_ARRAY, app, 3);
    }
    load_array(&info[n++], PMIX_JOB_INFO_ARRAY, job, nj);
    free(nodes);
    free(procs);

    /* Node realm: one container per node, named by id and hostname. */
    for (uint32_t nd = 0; nd < LAYOUT_NNODES; nd++) {
        pmix_info_t *node;
        PMIX_INFO_CREATE(node, 3);
        load_uint32(&node[0], PMIX_NODEID, nd);
        PMIX_INFO_LOAD(&node[1], PMIX_HOSTNAME, L.names[nd], PMIX_STRING);
        uint64_t mem = (uint64_t)(nd + 1) << 30;
        PMIX_INFO_LOAD(&node[2], PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
        load_array(&info[n++], PMIX_NODE_INFO_ARRAY, node, 3);
    }

    /* Flat job-level extras of several types, one given twice (last wins). */
    uint64_t u64 = 0x1122334455667788ull;
    PMIX_INFO_LOAD(&info[n++], "test.u64", &u64, PMIX_UINT64);
    PMIX_INFO_LOAD(&info[n++], "test.dup", "first", PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], "test.dup", "second", PMIX_STRING);
    pmix_byte_object_t bo = {.bytes = "\x01\x00\x02\xff", .size = 4};
    PMIX_INFO_LOAD(&info[n++], "test.bo", &bo, PMIX_BYTE_OBJECT);

    /* Per-process data: only what a host knows that cannot be derived,
     * with the rank not in first position. */
    for (unsigned r = 0; r < L.size; r++) {
        pmix_info_t *pd;
        PMIX_INFO_CREATE(pd, 3);
        char color[64];
        layout_color(r, color, sizeof color);
        PMIX_INFO_LOAD(&pd[0], "test.color", color, PMIX_STRING);
        /* a NULL string, as ORTE registers for unbound procs */
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCALITY_STRING, NULL, PMIX_STRING);
        load_rank(&pd[2], PMIX_RANK, r);
        load_array(&info[n++], PMIX_PROC_DATA, pd, 3);
    }
    *ninfo = n;
    return info;
}

/* ---- children ---- */
static char **env_copy(void)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 1, sizeof *env);
    for (size_t i = 0; i < n; i++)
        env[i] = strdup(environ[i]);
    return env;
}

static void env_free(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

static void env_set(char ***env, const char *name, const char *value)
{
    size_t nl = strlen(name), n = 0;
    char *entry;
    if (asprintf(&entry, "%s=%s", name, value) < 0)
        exit(1);
    for (; (*env)[n] != NULL; n++) {
        if (strncmp((*env)[n], name, nl) == 0 && (*env)[n][nl] == '=') {
            free((*env)[n]);
            (*env)[n] = entry;
            return;
        }
    }
    *env = realloc(*env, (n + 2) * sizeof **env);
    (*env)[n] = entry;
    (*env)[n + 1] = NULL;
}

static pid_t spawn(const char *client, const char *mode, unsigned rank, char ***extra_env)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job_nspace, rank);
    char **env = env_copy();
    pmix_status_t rc = PMIx_server_setup_fork(&proc, &env);
    if (rc != PMIX_SUCCESS) {
        FAIL("setup_fork(%u) returned %s", rank, PMIx_Error_string(rc));
        env_free(env);
        return -1;
    }
    /* What setup_fork added must be NAME=VALUE without '*' (ORTE joins
     * singleton environments with '*'); inherited entries are not ours. */
    for (size_t i = 0; env[i] != NULL; i++) {
        bool inherited = false;
        for (size_t j = 0; environ[j] != NULL && !inherited; j++)
            inherited = strcmp(environ[j], env[i]) == 0;
        if (!inherited && (strchr(env[i], '=') == NULL || strchr(env[i], '*') != NULL))
            FAIL("setup_fork produced a malformed entry \"%s\"", env[i]);
    }
    char nlocal[16];
    snprintf(nlocal, sizeof nlocal, "%u", L.nlocal);
    env_set(&env, "SY_TEST_NLOCAL", nlocal);
    snprintf(nlocal, sizeof nlocal, "%u", n_good_clients);
    env_set(&env, "SY_TEST_NGOOD", nlocal);
    if (extra_env != NULL)
        *extra_env = env;
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)client, (char *)mode, NULL};
        execve(client, argv, env);
        _exit(127);
    }
    if (extra_env == NULL)
        env_free(env);
    return pid;
}

static int wait_child(pid_t pid, const char *what)
{
    int status = 0;
    for (int i = 0; i < 3000; i++) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
            FAIL("%s exited with %s %d", what, WIFEXITED(status) ? "status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            return -1;
        }
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL("%s did not finish within 30 s", what);
    return -1;
}

static unsigned dir_entries(const char *path)
{
    DIR *d = opendir(path);
    unsigned n = 0;
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "  left in tmpdir: %s\n", e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    const char *client = NULL, *mode = "keys";
    unsigned nlocal = 3;
    bool tcp_only = false;
    int opt;
    while ((opt = getopt(argc, argv, "c:n:m:t")) != -1) {
        if (opt == 'c')
            client = optarg;
        else if (opt == 'n')
            nlocal = (unsigned)atoi(optarg);
        else if (opt == 'm')
            mode = optarg;
        else if (opt == 't')
            tcp_only = true;
    }
    bool hostile = strcmp(mode, "hostile") == 0;
    bool aborting = strcmp(mode, "abort") == 0;
    bool ops = host_ops_mode(mode);
    if (client == NULL || nlocal < 1 || nlocal > 256 || (hostile && nlocal < 2)) {
        fprintf(stderr, "usage: %s -c CLIENT [-n NLOCAL] [-m keys|hostile|abort|host-...] [-t]\n",
                argv[0]);
        return 2;
    }
    layout_init(&L, nlocal);
    signal(SIGPIPE, SIG_IGN);

    char tmpdir[] = "/tmp/sy-host-XXXXXX";
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected = host_connected;
    module.client_connected2 = host_connected2;
    module.client_finalized = host_finalized;
    module.abort = host_abort;
    module.fence_nb = host_fence;
    module.direct_modex = host_dmodex;
    if (ops)
        host_ops_module(&module, mode, &L, job_nspace, nlocal);

    pmix_info_t *sinfo;
    size_t nsinfo = tcp_only ? 5 : 4;
    PMIX_INFO_CREATE(sinfo, nsinfo);
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[2], PMIX_SERVER_NSPACE, "test-host", PMIX_STRING);
    load_rank(&sinfo[3], PMIX_SERVER_RANK, 0);
    if (tcp_only)
        PMIX_INFO_LOAD(&sinfo[4], PMIX_USOCK_DISABLE, &tcp_only, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, sinfo, nsinfo);
    PMIX_INFO_FREE(sinfo, nsinfo);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        rmdir(tmpdir);
        return 1;
    }

    /* The daemon's own namespace carries no data, as ORTE registers it. */
    waiter_t w;
    waiter_init(&w);
    pmix_info_t nodata;
    bool yes = true;
    PMIX_INFO_LOAD(&nodata, PMIX_REGISTER_NODATA, &yes, PMIX_BOOL);
    wait_op("register_nspace(NODATA)",
            PMIx_server_register_nspace(host_nspace, 1, &nodata, 1, op_done, &w), &w);
    PMIX_INFO_DESTRUCT(&nodata);

    /* Clients before their namespace, in ORTE's order.  In hostile mode
     * the last local rank is registered under another uid. */
    unsigned first = L.first_rank[LAYOUT_LOCAL_NODE];
    for (unsigned i = 0; i < nlocal; i++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, job_nspace, first + i);
        uid_t uid = getuid();
        if (hostile && i == nlocal - 1)
            uid += 4242;
        waiter_init(&w);
        wait_op("register_client",
                PMIx_server_register_client(&proc, uid, getgid(), &server_objects[first + i],
                                            op_done, &w),
                &w);
    }
    size_t ninfo;
    pmix_info_t *jinfo = build_job_info(&ninfo);
    waiter_init(&w);
    rc = wait_op("register_nspace(job)",
                 PMIx_server_register_nspace(job_nspace, (int)nlocal, jinfo, ninfo, op_done, &w),
                 &w);
    PMIX_INFO_FREE(jinfo, ninfo);

    unsigned ngood = hostile ? nlocal - 1 : nlocal;
    n_good_clients = ngood;
    pid_t rogue[5] = {-1, -1, -1, -1, -1};
    if (rc == PMIX_SUCCESS && hostile) {
        /* Peers that must be refused, started before the good ones. */
        rogue[0] = spawn(client, "refused", first + nlocal - 1, NULL); /* wrong uid */
        rogue[1] = spawn(client, "refused-unknown-rank", first, NULL);
        rogue[2] = spawn(client, "garbage", first, NULL);
        rogue[3] = spawn(client, "truncated", first, NULL);
        rogue[4] = spawn(client, "stall", first, NULL);
    }
    pid_t good[256];
    if (rc == PMIX_SUCCESS && ops)
        host_ops_before_clients();
    for (unsigned i = 0; rc == PMIX_SUCCESS && i < ngood; i++)
        good[i] = spawn(client, aborting ? "abort" : ops ? mode : "keys", first + i, NULL);
    if (rc == PMIX_SUCCESS && hostile) {
        /* The stalled peer dies in the middle of its handshake. */
        usleep(200000);
        if (rogue[4] > 0)
            kill(rogue[4], SIGKILL);
        waitpid(rogue[4], NULL, 0);
        const char *names[] = {"wrong-uid peer", "unknown-rank peer", "garbage peer",
                               "truncated-frame peer"};
        for (int i = 0; i < 4; i++)
            if (rogue[i] > 0)
                wait_child(rogue[i], names[i]);
    }
    for (unsigned i = 0; rc == PMIX_SUCCESS && i < ngood; i++) {
        char what[64];
        snprintf(what, sizeof what, "client rank %u", first + i);
        if (good[i] > 0)
            wait_child(good[i], what);
    }

    if (!aborting && !ops && rc == PMIX_SUCCESS) {
        /* the other nodes' daemons ask us for a local rank's posted data */
        pmix_proc_t p0;
        PMIX_LOAD_PROCID(&p0, job_nspace, first);
        waiter_init(&dmx_wait);
        pmix_status_t drc = PMIx_server_dmodex_request(&p0, dmodex_answer, &dmx_wait);
        if (wait_op("PMIx_server_dmodex_request", drc, &dmx_wait) == PMIX_SUCCESS && dmx_bytes == 0)
            FAIL("PMIx_server_dmodex_request returned no data for rank %u", first);
    }
    pthread_mutex_lock(&count_lock);
    if (ops)
        failures += host_ops_check();
    if (!aborting && !hostile && !ops && n_fence < 1)
        FAIL("the fence of a three-node job never reached the host's fence_nb");
    if (n_fence_bad_info > 0)
        FAIL("%d fence_nb upcalls lacked the clients' PMIX_TIMEOUT, PMIX_COLLECT_DATA or "
             "PMIX_LOCAL_COLLECTIVE_STATUS",
             n_fence_bad_info);
    if (n_connected2 != (int)ngood || n_connected != 0)
        FAIL("expected %u client_connected2 upcalls (and no client_connected), got %d and %d",
             ngood, n_connected2, n_connected);
    if (n_finalized != (int)ngood)
        FAIL("expected %u client_finalized upcalls, got %d", ngood, n_finalized);
    if (n_aborted != (aborting ? (int)ngood : 0))
        FAIL("expected %u abort upcalls, got %d", aborting ? ngood : 0, n_aborted);
    pthread_mutex_unlock(&count_lock);

    for (unsigned i = 0; i < nlocal; i++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, job_nspace, first + i);
        waiter_t d;
        waiter_init(&d);
        PMIx_server_deregister_client(&proc, op_done, &d);
        wait_op("deregister_client", PMIX_SUCCESS, &d);
    }
    waiter_init(&w);
    PMIx_server_deregister_nspace(job_nspace, op_done, &w);
    wait_op("deregister_nspace(job)", PMIX_SUCCESS, &w);
    waiter_init(&w);
    PMIx_server_deregister_nspace(host_nspace, op_done, &w);
    wait_op("deregister_nspace(host)", PMIX_SUCCESS, &w);

    rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    if (dir_entries(tmpdir) != 0)
        FAIL("the server left files in its tmpdir %s", tmpdir);
    rmdir(tmpdir);
    if (failures == 0)
        printf("test_host %s: %u local clients passed\n", mode, ngood);
    return failures == 0 ? 0 : 1;
}
