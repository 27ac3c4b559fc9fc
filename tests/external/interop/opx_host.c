/* A PMIx host on OpenPMIx 4.2.2 (built against Debian's libpmix-dev,
 * pinned by DT_RPATH) for the tool interop test (tests/external/opx-tool.sh):
 *   opx_host TMPDIR NPROCS PROGRAM ARGS...
 * starts an OpenPMIx server with tool support whose rendezvous files go
 * into TMPDIR, registers the job "opxjob" of NPROCS local ranks, runs
 * PROGRAM ARGS as each rank, answers tools (an identity per tool) and the
 * queries PMIX_QUERY_NAMESPACES and PMIX_QUERY_PROC_TABLE, forwards to a
 * tool that pulls the job's output a line per rank and the end of both of
 * each rank's streams (PMIX_IOF_COMPLETE; the ranks' real output stays in
 * this host's), and when every rank has exited notifies
 * PMIX_EVENT_JOB_END.  It then waits for the file
 * TMPDIR/quit (at most 60 s) and finalizes.  Prints "host ..." lines. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define JOB "opxjob"
#define MAXPROCS 16

extern char **environ;
static int nprocs;
static pid_t pids[MAXPROCS];
static int ntools;

static pmix_status_t connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs_, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                           void *cbd)
{
    (void)procs, (void)nprocs_, (void)info, (void)ninfo;
    cb(PMIX_SUCCESS, data, ndata, cbd, NULL, NULL); /* every rank is local */
    return PMIX_SUCCESS;
}

static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cb,
                           void *cbd)
{
    (void)info, (void)ninfo;
    pmix_proc_t p;
    char ns[PMIX_MAX_NSLEN + 1];
    snprintf(ns, sizeof(ns), "opx-host-tool.%d", ++ntools);
    PMIX_LOAD_PROCID(&p, ns, 0);
    printf("host tool %s connected\n", ns);
    fflush(stdout);
    cb(PMIX_SUCCESS, &p, cbd);
}

static void release_infos(void *cbdata)
{
    pmix_info_t *info = cbdata;
    PMIX_INFO_FREE(info, 1);
}

static pmix_status_t query(pmix_proc_t *who, pmix_query_t *queries, size_t nq,
                           pmix_info_cbfunc_t cb, void *cbd)
{
    (void)who;
    if (nq != 1 || queries[0].keys == NULL || queries[0].keys[0] == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    pmix_info_t *out;
    PMIX_INFO_CREATE(out, 1);
    const char *key = queries[0].keys[0];
    if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        PMIX_INFO_LOAD(out, PMIX_QUERY_NAMESPACES, JOB, PMIX_STRING);
    } else if (strcmp(key, PMIX_QUERY_PROC_TABLE) == 0) {
        pmix_data_array_t da;
        PMIX_DATA_ARRAY_CONSTRUCT(&da, (size_t)nprocs, PMIX_PROC_INFO);
        pmix_proc_info_t *pi = da.array;
        for (int i = 0; i < nprocs; i++) {
            PMIX_LOAD_PROCID(&pi[i].proc, JOB, (pmix_rank_t)i);
            pi[i].hostname = strdup("localhost");
            pi[i].executable_name = strdup("opx_waiter");
            pi[i].pid = pids[i];
            pi[i].state = PMIX_PROC_STATE_RUNNING;
        }
        PMIX_INFO_LOAD(out, PMIX_QUERY_PROC_TABLE, &da, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_DESTRUCT(&da);
    } else {
        PMIX_INFO_FREE(out, 1);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    cb(PMIX_SUCCESS, out, 1, cbd, release_infos, out);
    return PMIX_SUCCESS;
}

/* IOF_deliver keeps pointers to what it is given until its callback */
static pthread_mutex_t iof_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t iof_cond = PTHREAD_COND_INITIALIZER;
static int iof_done;

static void delivered(pmix_status_t status, void *cbdata)
{
    (void)status, (void)cbdata;
    pthread_mutex_lock(&iof_lock);
    iof_done = 1;
    pthread_cond_signal(&iof_cond);
    pthread_mutex_unlock(&iof_lock);
}

static void deliver(const pmix_proc_t *src, pmix_iof_channel_t ch, const char *text, int complete)
{
    pmix_byte_object_t bo = {.bytes = (char *)text, .size = strlen(text)};
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_IOF_COMPLETE, NULL, PMIX_BOOL);
    pthread_mutex_lock(&iof_lock);
    iof_done = 0;
    pthread_mutex_unlock(&iof_lock);
    if (PMIx_server_IOF_deliver(src, ch, &bo, complete ? &info : NULL, complete ? 1 : 0, delivered,
                                NULL) != PMIX_SUCCESS)
        return;
    pthread_mutex_lock(&iof_lock);
    while (!iof_done)
        pthread_cond_wait(&iof_cond, &iof_lock);
    pthread_mutex_unlock(&iof_lock);
}

static void *forward(void *arg)
{
    (void)arg;
    for (int i = 0; i < nprocs; i++) {
        pmix_proc_t src;
        char line[64];
        PMIX_LOAD_PROCID(&src, JOB, (pmix_rank_t)i);
        snprintf(line, sizeof(line), "rank %d says hello through the OpenPMIx host\n", i);
        deliver(&src, PMIX_FWD_STDOUT_CHANNEL, line, 0);
        deliver(&src, PMIX_FWD_STDOUT_CHANNEL, "", 1);
        deliver(&src, PMIX_FWD_STDERR_CHANNEL, "", 1);
    }
    return NULL;
}

static pmix_status_t iof_pull(const pmix_proc_t procs[], size_t np, const pmix_info_t dirs[],
                              size_t ndirs, pmix_iof_channel_t channels, pmix_op_cbfunc_t cb,
                              void *cbd)
{
    (void)procs, (void)np, (void)dirs, (void)ndirs, (void)cb, (void)cbd;
    printf("host iof_pull of channels 0x%x\n", (unsigned)channels);
    fflush(stdout);
    /* off the server's thread: the deliveries wait for their callbacks */
    pthread_t t;
    if (pthread_create(&t, NULL, forward, NULL) != 0)
        return PMIX_ERR_NOMEM;
    pthread_detach(t);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_server_module_t module = {
    .client_connected = connected,
    .client_finalized = finalized,
    .fence_nb = fence,
    .query = query,
    .tool_connected = tool_connected,
    .iof_pull = iof_pull,
};

static void registered(pmix_status_t status, void *cbdata)
{
    *(volatile int *)cbdata = status == PMIX_SUCCESS ? 1 : -1;
}

static void wait_done(volatile int *flag)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 3000 && *flag == 0; i++)
        nanosleep(&ts, NULL);
}

static int register_job(void)
{
    char *ranks = NULL, *nodes = NULL, *procs = NULL, *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    for (int i = 0; i < nprocs; i++)
        fprintf(f, "%s%d", i > 0 ? "," : "", i);
    fclose(f);
    ranks = list;
    PMIx_generate_regex("localhost", &nodes);
    PMIx_generate_ppn(ranks, &procs);
    uint32_t n = (uint32_t)nprocs;
    int k = 0;
    pmix_info_t *info;
    size_t ninfo = 6 + (size_t)nprocs;
    PMIX_INFO_CREATE(info, ninfo);
    PMIX_INFO_LOAD(&info[k++], PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, ranks, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nodes, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, procs, PMIX_REGEX);
    for (int i = 0; i < nprocs; i++) {
        pmix_data_array_t da;
        PMIX_DATA_ARRAY_CONSTRUCT(&da, 3, PMIX_INFO);
        pmix_info_t *pd = da.array;
        pmix_rank_t r = (pmix_rank_t)i;
        uint16_t lr = (uint16_t)i;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&info[k++], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_DESTRUCT(&da);
    }
    volatile int done = 0;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, JOB);
    pmix_status_t rc =
        PMIx_server_register_nspace(ns, nprocs, info, (size_t)k, registered, (void *)&done);
    if (rc == PMIX_SUCCESS)
        wait_done(&done);
    PMIX_INFO_FREE(info, ninfo);
    free(ranks);
    free(nodes);
    free(procs);
    return rc == PMIX_SUCCESS && done == 1 ? 0 : -1;
}

static void notified(pmix_status_t status, void *cbdata)
{
    (void)status;
    *(volatile int *)cbdata = 1;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (nprocs = atoi(argv[2])) <= 0 || nprocs > MAXPROCS) {
        fprintf(stderr, "usage: opx_host TMPDIR NPROCS PROGRAM ARGS...\n");
        return 2;
    }
    /* forwarded output goes to tools only: 4.2.2's server, not a gateway,
     * has no local sink to write it to (it would crash) */
    bool no = false;
    pmix_info_t info[4];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TOOL_SUPPORT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SYSTEM_TMPDIR, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_IOF_LOCAL_OUTPUT, &no, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, info, 4);
    if (rc != PMIX_SUCCESS) {
        printf("host FAIL PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (register_job() != 0) {
        printf("host FAIL register_nspace\n");
        PMIx_server_finalize();
        return 1;
    }
    for (int i = 0; i < nprocs; i++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, JOB, (pmix_rank_t)i);
        volatile int done = 0;
        if (PMIx_server_register_client(&p, getuid(), getgid(), NULL, registered, (void *)&done) ==
            PMIX_SUCCESS)
            wait_done(&done);
        /* setup_fork appends to a malloc'd, NULL-terminated array */
        size_t n = 0;
        while (environ[n] != NULL)
            n++;
        char **env = calloc(n + 1, sizeof(*env));
        for (size_t e = 0; e < n; e++)
            env[e] = strdup(environ[e]);
        PMIx_server_setup_fork(&p, &env);
        pids[i] = fork();
        if (pids[i] == 0) {
            execve(argv[3], &argv[3], env);
            _exit(127);
        }
        for (char **e = env; *e != NULL; e++)
            free(*e);
        free(env);
    }
    printf("host %d ready with %d ranks\n", (int)getpid(), nprocs);
    fflush(stdout);
    int bad = 0;
    for (int i = 0; i < nprocs; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, JOB, PMIX_RANK_WILDCARD);
    pmix_status_t term = bad ? PMIX_ERROR : PMIX_SUCCESS;
    pmix_info_t ev[2];
    PMIX_INFO_LOAD(&ev[0], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&ev[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    volatile int done = 0;
    rc = PMIx_Notify_event(PMIX_EVENT_JOB_END, &job, PMIX_RANGE_GLOBAL, ev, 2, notified,
                           (void *)&done);
    if (rc == PMIX_SUCCESS)
        wait_done(&done);
    printf("host job ended (%d failed), notified: %s\n", bad, PMIx_Error_string(rc));
    fflush(stdout);
    char quit[4096];
    snprintf(quit, sizeof(quit), "%s/quit", argv[1]);
    struct timespec ts = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 3000 && access(quit, F_OK) != 0; i++)
        nanosleep(&ts, NULL);
    PMIx_server_finalize();
    printf("host finalized\n");
    return bad != 0;
}
