/* Launch benchmark: one source, compiled once against Switchyard and once
 * against OpenPMIx 4.2.2 (bench/launch-compare.sh), using only Standard v4
 * calls so both builds do the same work.
 *
 * The host (this program without arguments) inits a server in a private
 * tmpdir, and for N local ranks registers the job the way Open MPI's
 * mpirun does (job-level keys, node/proc maps from PMIx_generate_regex/ppn,
 * per-rank data with the rank first), then forks and execs itself as N
 * clients.  Each client times PMIx_Init, then (after a barrier made of pipes
 * to the host, outside PMIx) a loop of Gets of a job-level key
 * (PMIX_JOB_SIZE, wildcard rank) and of a proc-level key (its own
 * PMIX_LOCAL_RANK), and PMIx_Finalize, checks every value it read, and
 * writes one line to a pipe.  The host reports, per N, the median over
 * repetitions of: max Init over ranks, mean Get latency over ranks, max
 * Finalize, and launch-to-all-exited.
 *
 *   launch [-n "1 2 4 8"] [-r REPS] [-g GETS]      (host)
 * Output: one line per N, "N init_us getjob_ns getproc_ns fin_us total_us". */
#define _GNU_SOURCE
#include <errno.h>
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

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---------------- client ---------------- */
/* A barrier outside PMIx (pipes to and from the host), so that no phase of
 * one rank is timed while others run another: without it, ranks looping
 * over cheap Gets would starve the later ranks' Init of CPU. */
/* One go pipe per barrier: a fast rank would otherwise take a go byte of
 * the previous barrier meant for a slower one. */
static int barrier(int ready, int go)
{
    char c = 'r';
    return write(ready, &c, 1) == 1 && read(go, &c, 1) == 1 ? 0 : -1;
}

static int client(int fd, long gets, int ready, int go0, int go1)
{
    pmix_proc_t me, wild;
    double t0 = now_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "launch client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    double t_init = now_us() - t0;
    if (barrier(ready, go0) != 0)
        return 6;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    const char *n_env = getenv("BENCH_N");
    uint32_t want = n_env ? (uint32_t)atoi(n_env) : 0;

    pmix_value_t *v;
    t0 = now_us();
    for (long i = 0; i < gets; i++) {
        v = NULL;
        if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_UINT32 || v->data.uint32 != want)
            return 2;
        PMIX_VALUE_RELEASE(v);
    }
    double t_job = (now_us() - t0) * 1e3 / (double)gets;
    t0 = now_us();
    for (long i = 0; i < gets; i++) {
        v = NULL;
        if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_UINT16 || v->data.uint16 != me.rank)
            return 3;
        PMIX_VALUE_RELEASE(v);
    }
    double t_proc = (now_us() - t0) * 1e3 / (double)gets;
    if (barrier(ready, go1) != 0)
        return 6;
    t0 = now_us();
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        return 4;
    double t_fin = now_us() - t0;
    char line[256];
    int len = snprintf(line, sizeof line, "%u %.1f %.1f %.1f %.1f\n", me.rank, t_init, t_job,
                       t_proc, t_fin);
    return write(fd, line, (size_t)len) == len ? 0 : 5;
}

/* ---------------- host ---------------- */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} waiter_t;

static void op_done(pmix_status_t status, void *cbdata)
{
    waiter_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_status_t wait_op(pmix_status_t rc, waiter_t *w)
{
    if (rc != PMIX_SUCCESS)
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

#define WAITER_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_ERROR}

static pmix_status_t host_ok(const pmix_proc_t *p, void *o, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p;
    (void)o;
    (void)cb;
    (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int register_job(const char *nspace, unsigned n, const char *host)
{
    char ranks[8192] = "", *nodes = NULL, *procs = NULL;
    for (unsigned r = 0; r < n; r++) {
        size_t len = strlen(ranks);
        snprintf(ranks + len, sizeof ranks - len, "%s%u", r ? "," : "", r);
    }
    if (PMIx_generate_regex(host, &nodes) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks, &procs) != PMIX_SUCCESS)
        return -1;
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
    waiter_t w = WAITER_INIT;
    pmix_status_t rc = wait_op(PMIx_server_register_nspace(ns, (int)n, info, k, op_done, &w), &w);
    PMIX_INFO_FREE(info, ninfo);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

/* One launch of n clients; fills the per-launch figures. */
static int launch(unsigned n, int run, long gets, double out[5])
{
    char nspace[64], host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(nspace, sizeof nspace, "bench-%u-%d", n, run);
    double t0 = now_us();
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    for (unsigned r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        waiter_t w = WAITER_INIT;
        if (wait_op(PMIx_server_register_client(&p, getuid(), getgid(), NULL, op_done, &w),
                    &w) != PMIX_SUCCESS)
            return -1;
    }
    if (register_job(nspace, n, host) != 0)
        return -1;
    int pfd[2], ready[2], go[2][2];
    if (pipe(pfd) != 0 || pipe(ready) != 0 || pipe(go[0]) != 0 || pipe(go[1]) != 0)
        return -1;
    char nbuf[16], gbuf[32], fdbuf[16], rbuf[16], go0buf[16], go1buf[16];
    snprintf(rbuf, sizeof rbuf, "%d", ready[1]);
    snprintf(go0buf, sizeof go0buf, "%d", go[0][0]);
    snprintf(go1buf, sizeof go1buf, "%d", go[1][0]);
    snprintf(nbuf, sizeof nbuf, "%u", n);
    snprintf(gbuf, sizeof gbuf, "%ld", gets);
    snprintf(fdbuf, sizeof fdbuf, "%d", pfd[1]);
    pid_t pids[1024];
    for (unsigned r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        char **env = NULL;
        if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
            return -1;
        pids[r] = fork();
        if (pids[r] == 0) {
            for (size_t i = 0; env[i] != NULL; i++)
                putenv(env[i]);
            setenv("BENCH_N", nbuf, 1);
            close(ready[0]);
            close(go[0][1]);
            close(go[1][1]);
            execl("/proc/self/exe", "launch", "client", fdbuf, gbuf, rbuf, go0buf, go1buf,
                  (char *)NULL);
            _exit(127);
        }
        for (size_t i = 0; env[i] != NULL; i++)
            free(env[i]);
        free(env);
    }
    close(pfd[1]);
    close(ready[1]);
    close(go[0][0]);
    close(go[1][0]);
    /* Two barriers: after Init, and before Finalize. */
    for (int phase = 0; phase < 2; phase++) {
        char c;
        unsigned got = 0;
        while (got < n && read(ready[0], &c, 1) == 1)
            got++;
        for (unsigned r = 0; r < got; r++)
            if (write(go[phase][1], "g", 1) != 1)
                break;
    }
    close(ready[0]);
    close(go[0][1]);
    close(go[1][1]);
    int failed = 0;
    for (unsigned r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "client %u failed (status %d)\n", r, WEXITSTATUS(st));
            failed = 1;
        }
    }
    double total = now_us() - t0;
    FILE *f = fdopen(pfd[0], "r");
    double init_max = 0, job_sum = 0, proc_sum = 0, fin_max = 0;
    unsigned lines = 0, rank;
    double a, b, c, d;
    while (f != NULL && fscanf(f, "%u %lf %lf %lf %lf", &rank, &a, &b, &c, &d) == 5) {
        init_max = a > init_max ? a : init_max;
        job_sum += b;
        proc_sum += c;
        fin_max = d > fin_max ? d : fin_max;
        lines++;
    }
    if (f != NULL)
        fclose(f);
    for (unsigned r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        waiter_t w = WAITER_INIT;
        PMIx_server_deregister_client(&p, op_done, &w);
        wait_op(PMIX_SUCCESS, &w);
    }
    waiter_t w = WAITER_INIT;
    PMIx_server_deregister_nspace(ns, op_done, &w);
    wait_op(PMIX_SUCCESS, &w);
    if (failed || lines != n)
        return -1;
    out[0] = init_max;
    out[1] = job_sum / n;
    out[2] = proc_sum / n;
    out[3] = fin_max;
    out[4] = total;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "client") == 0) {
        int rc = client(atoi(argv[2]), atol(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
        if (rc != 0)
            fprintf(stderr, "launch client: failed at step %d\n", rc);
        return rc;
    }
    const char *sizes = "1 2 4 8";
    int reps = 5;
    long gets = 20000;
    int opt;
    while ((opt = getopt(argc, argv, "n:r:g:")) != -1) {
        if (opt == 'n')
            sizes = optarg;
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'g')
            gets = atol(optarg);
    }
    if (reps < 1 || reps > 100 || gets < 1)
        return 2;
    char tmpdir[] = "/tmp/sy-bench-XXXXXX";
    if (mkdtemp(tmpdir) == NULL)
        return 1;
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected = host_ok;
    module.client_finalized = host_ok;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    if (PMIx_server_init(&module, info, 2) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_server_init failed\n");
        return 1;
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    int rc = 0;
    char *list = strdup(sizes), *save = NULL;
    for (char *tok = strtok_r(list, " ,", &save); tok != NULL && rc == 0;
         tok = strtok_r(NULL, " ,", &save)) {
        unsigned n = (unsigned)atoi(tok);
        if (n < 1 || n > 1024)
            continue;
        double fig[5][100];
        for (int run = 0; run < reps && rc == 0; run++) {
            double out[5];
            if (launch(n, run, gets, out) != 0) {
                fprintf(stderr, "launch of %u clients failed\n", n);
                rc = 1;
                break;
            }
            for (int i = 0; i < 5; i++)
                fig[i][run] = out[i];
        }
        if (rc == 0)
            printf("%u %.1f %.1f %.1f %.1f %.1f\n", n, median(fig[0], reps),
                   median(fig[1], reps), median(fig[2], reps), median(fig[3], reps),
                   median(fig[4], reps));
        fflush(stdout);
    }
    free(list);
    PMIx_server_finalize();
    rmdir(tmpdir);
    return rc;
}
