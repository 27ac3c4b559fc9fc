/* A minimal PMIx host that forks and execs itself as its clients, shared by
 * the integration tests test_direct and test_evreg and the benchmarks
 * bench/launch.c and bench/modex.c: waiting for a server call's callback,
 * a server in a private tmpdir, a job of N local ranks registered the way
 * mpirun does, clients started with setup_fork's environment, and
 * barriers made of pipes (outside PMIx) between the host and its clients.
 *
 * Standard API only and header-only: the benchmarks are also built, one
 * file each, against OpenPMIx 4.2.2 (bench/launch-compare.sh and
 * bench/modex-compare.sh). */
#ifndef SWITCHYARD_TESTS_FORKHOST_H
#define SWITCHYARD_TESTS_FORKHOST_H
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

/* ---- waiting for a non-blocking server call ---- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} fh_waiter_t;
#define FH_WAITER                                                                                  \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_ERROR                     \
    }

static inline void fh_op_cb(pmix_status_t status, void *cbdata)
{
    fh_waiter_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* rc is what the call returned: PMIX_SUCCESS means its callback will say. */
static inline pmix_status_t fh_wait(pmix_status_t rc, fh_waiter_t *w)
{
    if (rc != PMIX_SUCCESS)
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

/* ---- the server ---- */

static inline pmix_status_t fh_host_ok(const pmix_proc_t *p, void *o, pmix_op_cbfunc_t cb,
                                       void *cbd)
{
    (void)p, (void)o, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

/* PMIx_server_init with module, whose client_connected and
 * client_finalized accept every client unless set, in a fresh directory
 * made from tmpdir (a mkdtemp template, rewritten in place). */
static inline pmix_status_t fh_server_init(pmix_server_module_t *module, char *tmpdir)
{
    if (mkdtemp(tmpdir) == NULL)
        return PMIX_ERR_FILE_OPEN_FAILURE;
    if (module->client_connected == NULL)
        module->client_connected = fh_host_ok;
    if (module->client_finalized == NULL)
        module->client_finalized = fh_host_ok;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS)
        rmdir(tmpdir);
    return rc;
}

static inline pmix_status_t fh_server_finalize(const char *tmpdir)
{
    pmix_status_t rc = PMIx_server_finalize();
    rmdir(tmpdir);
    return rc;
}

/* ---- the job ---- */

/* A job of n ranks on this node, registered as Open MPI's mpirun does
 * (job-level keys, node and proc maps from PMIx_generate_regex/ppn,
 * per-rank data with the rank first), and its n clients. */
static inline pmix_status_t fh_register_job(const char *nspace, unsigned n)
{
    char host[256] = "", ranks[8192] = "", *nodes = NULL, *procs = NULL;
    gethostname(host, sizeof host - 1);
    for (unsigned r = 0, len = 0; r < n && len < sizeof ranks; r++)
        len += (unsigned)snprintf(ranks + len, sizeof ranks - len, "%s%u", r ? "," : "", r);
    pmix_status_t rc = PMIx_generate_regex(host, &nodes);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(ranks, &procs);
    if (rc != PMIX_SUCCESS) {
        free(nodes);
        return rc;
    }
    size_t ninfo = 9 + n, k = 0;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t u = n, one = 1;
    PMIX_INFO_LOAD(&info[k++], PMIX_UNIV_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOB_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_MAX_PROCS, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, ranks, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NUM_NODES, &one, PMIX_UINT32);
    free(nodes);
    free(procs);
    for (unsigned r = 0; r < n; r++) {
        pmix_info_t *pd;
        PMIX_INFO_CREATE(pd, 5);
        pmix_rank_t rank = r;
        uint16_t lr = (uint16_t)r;
        uint32_t app = 0;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[3], PMIX_APPNUM, &app, PMIX_UINT32);
        PMIX_INFO_LOAD(&pd[4], PMIX_HOSTNAME, host, PMIX_STRING);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 5, .array = pd};
        PMIX_INFO_LOAD(&info[k++], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
        PMIX_INFO_FREE(pd, 5);
    }
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    fh_waiter_t w = FH_WAITER;
    rc = fh_wait(PMIx_server_register_nspace(ns, (int)n, info, k, fh_op_cb, &w), &w);
    PMIX_INFO_FREE(info, ninfo);
    for (unsigned r = 0; rc == PMIX_SUCCESS && r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        fh_waiter_t wc = FH_WAITER;
        rc = fh_wait(PMIx_server_register_client(&p, getuid(), getgid(), NULL, fh_op_cb, &wc), &wc);
    }
    return rc;
}

static inline void fh_deregister_job(const char *nspace, unsigned n)
{
    for (unsigned r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        fh_waiter_t w = FH_WAITER;
        PMIx_server_deregister_client(&p, fh_op_cb, &w);
        fh_wait(PMIX_SUCCESS, &w);
    }
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    fh_waiter_t w = FH_WAITER;
    PMIx_server_deregister_nspace(ns, fh_op_cb, &w);
    fh_wait(PMIX_SUCCESS, &w);
}

/* ---- barriers: pipes between the host and every client ---- */

/* Each client writes a byte to `ready` and reads one from `go`; the host
 * reads n bytes, then writes n.  Two go pipes, taken in turn: a fast rank
 * could otherwise take a go byte of the previous barrier meant for a
 * slower one (every byte of barrier k is read before anyone can reach
 * barrier k + 1, so two are enough). */
typedef struct {
    int ready[2];
    int go[2][2];
    unsigned count; /* barriers passed */
} fh_barrier_t;

static inline int fh_barrier_open(fh_barrier_t *b)
{
    b->count = 0;
    if (pipe(b->ready) != 0)
        return -1;
    if (pipe(b->go[0]) != 0) {
        close(b->ready[0]);
        close(b->ready[1]);
        return -1;
    }
    if (pipe(b->go[1]) != 0) {
        close(b->ready[0]);
        close(b->ready[1]);
        close(b->go[0][0]);
        close(b->go[0][1]);
        return -1;
    }
    return 0;
}

/* The client's ends, as one argument for its command line. */
static inline void fh_barrier_arg(const fh_barrier_t *b, char *buf, size_t len)
{
    snprintf(buf, len, "%d,%d,%d", b->ready[1], b->go[0][0], b->go[1][0]);
}

/* The host, once every client is started: without the clients' ends a
 * client that dies is seen (end of file) instead of waited for. */
static inline void fh_barrier_started(fh_barrier_t *b)
{
    close(b->ready[1]);
    close(b->go[0][0]);
    close(b->go[1][0]);
    b->ready[1] = b->go[0][0] = b->go[1][0] = -1;
}

/* The host: wait until n clients arrived.  n when they did, fewer when
 * clients went away first, -1 after timeout_ms (-1: no limit). */
static inline int fh_barrier_gather(fh_barrier_t *b, unsigned n, int timeout_ms)
{
    unsigned got = 0;
    while (got < n) {
        struct pollfd pf = {.fd = b->ready[0], .events = POLLIN};
        int p = poll(&pf, 1, timeout_ms);
        if (p == 0)
            return -1;
        char c;
        if (p < 0 || read(b->ready[0], &c, 1) != 1)
            break;
        got++;
    }
    return (int)got;
}

/* The host: let n clients go on. */
static inline int fh_barrier_release(fh_barrier_t *b, unsigned n)
{
    int fd = b->go[b->count++ % 2][1];
    for (unsigned i = 0; i < n; i++)
        if (write(fd, "g", 1) != 1)
            return -1;
    return 0;
}

static inline void fh_barrier_close(fh_barrier_t *b)
{
    int *fds[] = {b->ready, b->go[0], b->go[1]};
    for (int i = 0; i < 3; i++)
        for (int e = 0; e < 2; e++)
            if (fds[i][e] >= 0)
                close(fds[i][e]);
}

/* A client's side, from fh_barrier_arg's argument. */
typedef struct {
    int ready, go[2];
    unsigned count;
} fh_step_t;

static inline int fh_step_parse(const char *arg, fh_step_t *s)
{
    s->count = 0;
    return sscanf(arg, "%d,%d,%d", &s->ready, &s->go[0], &s->go[1]) == 3 ? 0 : -1;
}

/* Arrive, and wait until everyone did: 0, or -1 when the host is gone. */
static inline int fh_step(fh_step_t *s)
{
    char c = 'r';
    return write(s->ready, &c, 1) == 1 && read(s->go[s->count++ % 2], &c, 1) == 1 ? 0 : -1;
}

/* ---- starting the clients ---- */

/* This program's path.  Read here, not exec'd as /proc/self/exe: under
 * valgrind this readlink answers the program it runs, where an exec of
 * /proc/self/exe would start valgrind itself. */
static inline int fh_self(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Fork and exec argv[0] (argv NULL-terminated) as rank `rank` of nspace,
 * with setup_fork's environment; b: the barrier whose host ends the child
 * closes, or NULL.  The child's pid, or -1. */
static inline pid_t fh_start(const char *nspace, pmix_rank_t rank, char *const argv[],
                             const fh_barrier_t *b)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    char **env = NULL;
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (b != NULL) {
            close(b->ready[0]);
            close(b->go[0][1]);
            close(b->go[1][1]);
        }
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        execv(argv[0], argv);
        _exit(127);
    }
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    return pid;
}

/* Start ranks 0..n-1 of nspace, each the program prog (NULL: this
 * program) run with args (a NULL-terminated list) and the barrier's
 * argument last; pids[n] gets their pids (-1: not started).  b is opened
 * here and ready for the host once this returns 0; -1 when anything
 * failed.  Another prog is the same source built against another PMIx
 * library: a host on one library with clients on the other. */
static inline int fh_start_job_prog(const char *prog, const char *nspace, unsigned n,
                                    char *const args[], fh_barrier_t *b, pid_t *pids)
{
    char self[4096], barg[64];
    size_t nargs = 0;
    while (args[nargs] != NULL)
        nargs++;
    char **argv = calloc(nargs + 3, sizeof(char *));
    if (argv == NULL || (prog == NULL && fh_self(self, sizeof self) != 0) ||
        fh_barrier_open(b) != 0) {
        free(argv);
        return -1;
    }
    fh_barrier_arg(b, barg, sizeof barg);
    argv[0] = prog != NULL ? (char *)prog : self;
    memcpy(argv + 1, args, nargs * sizeof(char *));
    argv[nargs + 1] = barg;
    int rc = 0;
    for (unsigned r = 0; r < n; r++)
        pids[r] = -1;
    for (unsigned r = 0; r < n && rc == 0; r++)
        if ((pids[r] = fh_start(nspace, r, argv, b)) < 0)
            rc = -1;
    free(argv);
    fh_barrier_started(b);
    return rc;
}

static inline int fh_start_job(const char *nspace, unsigned n, char *const args[], fh_barrier_t *b,
                               pid_t *pids)
{
    return fh_start_job_prog(NULL, nspace, n, args, b, pids);
}

/* The path of the libpmix this process runs on, from /proc/self/maps
 * ("none" when there is none): benchmarks pairing a host on one library
 * with clients on another report it, so a wrong pairing fails instead of
 * giving figures. */
static inline void fh_libpmix(char *buf, size_t len)
{
    snprintf(buf, len, "none");
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *path = strchr(line, '/');
        if (path != NULL && strstr(path, "/libpmix.so") != NULL) {
            path[strcspn(path, "\n")] = '\0';
            snprintf(buf, len, "%s", path);
            break;
        }
    }
    if (f != NULL)
        fclose(f);
}

/* ---- for the benchmarks ---- */

static inline double fh_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int fh_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (sorts v). */
static inline double fh_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, fh_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
#endif
