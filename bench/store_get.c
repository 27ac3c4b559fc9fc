/* Benchmark of sy_store_get, the PMIx_Get path of job data: a job of
 * --ranks processes (default 1024) with the usual keys is published,
 * attached, and each kind of lookup below is timed over --iters calls
 * (default 2,000,000) on one thread and, for the first, on --threads
 * threads at once.  Each call includes the malloc'd result and its
 * release, as a caller of PMIx_Get pays them.  Prints ns per call.
 *
 * With --maps the job is registered as ORTE does (maps over ranks/64
 * nodes, this node's data) and compiled by the jobinfo compiler, so that
 * per-rank and per-node values are derived from the layout; the lookups
 * then also include a remote rank's host name and node, and each kind's
 * first Get after a fresh attach is timed too (median of 21 attaches:
 * what a client's first Get pays for checking the chunks it reads).
 * Run: build/bench/store_get [--ranks N] [--iters N] [--threads N] [--maps]. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/jobinfo.h"
#include "common/jseg.h"
#include "common/store.h"

typedef struct {
    const char *what;
    pmix_rank_t rank;
    const char *key;
    bool node_info;
} lookup_t;

static const char *nspace = "bench.job";
static long iters = 2000000;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put_u32(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                    uint32_t u)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    if (sy_jseg_put(b, realm, id, key, &v) != PMIX_SUCCESS) {
        abort();
    }
}

static void put_str(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                    const char *s)
{
    pmix_value_t v = {.type = PMIX_STRING, .data.string = (char *)s};
    if (sy_jseg_put(b, realm, id, key, &v) != PMIX_SUCCESS) {
        abort();
    }
}

static void publish(const char *path, uint32_t ranks)
{
    sy_jseg_builder_t *b;
    char buf[64];

    if (sy_jseg_builder_new(nspace, &b) != PMIX_SUCCESS) {
        abort();
    }
    put_u32(b, SY_REALM_JOB, 0, PMIX_JOB_SIZE, ranks);
    put_u32(b, SY_REALM_JOB, 0, PMIX_UNIV_SIZE, ranks);
    put_u32(b, SY_REALM_JOB, 0, PMIX_LOCAL_SIZE, 16);
    put_u32(b, SY_REALM_JOB, 0, PMIX_NODEID, 0);
    put_str(b, SY_REALM_JOB, 0, PMIX_LOCAL_PEERS, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
    put_str(b, SY_REALM_JOB, 0, PMIX_JOBID, "bench.job");
    put_u32(b, SY_REALM_APP, 0, PMIX_APP_SIZE, ranks);
    for (uint32_t n = 0; n < ranks / 16; n++) {
        snprintf(buf, sizeof(buf), "node%04u", n);
        put_str(b, SY_REALM_NODE, n, PMIX_HOSTNAME, buf);
        put_u32(b, SY_REALM_NODE, n, PMIX_NODE_SIZE, 16);
    }
    for (uint32_t r = 0; r < ranks; r++) {
        snprintf(buf, sizeof(buf), "node%04u", r / 16);
        put_str(b, SY_REALM_PROC, r, PMIX_HOSTNAME, buf);
        put_u32(b, SY_REALM_PROC, r, PMIX_NODEID, r / 16);
        put_u32(b, SY_REALM_PROC, r, PMIX_APPNUM, 0);
        put_u32(b, SY_REALM_PROC, r, PMIX_LOCAL_RANK, r % 16);
        put_u32(b, SY_REALM_PROC, r, PMIX_NODE_RANK, r % 16);
        put_u32(b, SY_REALM_PROC, r, PMIX_GLOBAL_RANK, r);
    }
    if (sy_jseg_publish(b, path, 0600) != PMIX_SUCCESS) {
        abort();
    }
    sy_jseg_builder_free(b);
}

/* The job as ORTE registers it: maps over ranks/64 nodes, this node's
 * (node 0) peers, leader and per-process data. */
static void publish_maps(const char *path, uint32_t ranks)
{
    size_t cap = (size_t)ranks * 12 + 64, len = 0, nlen = 0;
    char *procs = malloc(cap), *names = malloc((size_t)(ranks / 64 + 1) * 16), buf[64];
    char *nmap = NULL, *pmap = NULL, peers[1024] = "";
    for (uint32_t r = 0; r < ranks; r++) {
        len += (size_t)snprintf(procs + len, cap - len, "%s%u",
                                r == 0   ? ""
                                : r % 64 ? ","
                                         : ";",
                                r);
        if (r % 64 == 0) {
            nlen += (size_t)sprintf(names + nlen, "%snode%06u", r ? "," : "", r / 64);
        }
        if (r < 64) {
            snprintf(buf, sizeof(buf), "%s%u", r ? "," : "", r);
            strcat(peers, buf);
        }
    }
    if (PMIx_generate_regex(names, &nmap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(procs, &pmap) != PMIX_SUCCESS) {
        abort();
    }
    pmix_info_t info[10 + 64];
    size_t n = 0;
    uint32_t u = ranks, zero = 0, nodes = ranks / 64, ppn = 64;
    PMIX_INFO_LOAD(&info[n++], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOB_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_UNIV_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_NUM_NODES, &nodes, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_NODEID, &zero, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_LOCAL_SIZE, &ppn, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOBID, "bench.job", PMIX_STRING);
    for (uint32_t r = 0; r < 64; r++) {
        pmix_info_t *pd;
        PMIX_INFO_CREATE(pd, 3);
        uint16_t lr = (uint16_t)r;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_HOSTNAME, "node000000", PMIX_STRING);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 3, .array = pd};
        PMIX_INFO_LOAD(&info[n++], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
        PMIX_INFO_FREE(pd, 3);
    }
    sy_jseg_builder_t *b;
    sy_jobinfo_summary_t sum;
    if (sy_jseg_builder_new(nspace, &b) != PMIX_SUCCESS ||
        sy_jobinfo_compile(nspace, 64, info, n, "node000000", b, &sum, NULL) != PMIX_SUCCESS ||
        sy_jseg_publish(b, path, 0600) != PMIX_SUCCESS) {
        abort();
    }
    sy_jobinfo_summary_free(&sum);
    sy_jseg_builder_free(b);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    free(nmap);
    free(pmap);
    free(procs);
    free(names);
}

static void *run(void *arg)
{
    const lookup_t *l = arg;
    pmix_proc_t p;
    pmix_info_t info;
    bool t = true;

    PMIX_LOAD_PROCID(&p, nspace, l->rank);
    PMIX_INFO_LOAD(&info, PMIX_NODE_INFO, &t, PMIX_BOOL);
    for (long i = 0; i < iters; i++) {
        pmix_value_t *v;
        if (sy_store_get(&p, l->key, &info, l->node_info ? 1 : 0, &v) != PMIX_SUCCESS) {
            fprintf(stderr, "lookup %s failed\n", l->what);
            abort();
        }
        PMIX_VALUE_RELEASE(v);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const lookup_t lookups[] = {
        {"job key, wildcard rank (PMIX_JOB_SIZE)", PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, false},
        {"job string key (PMIX_LOCAL_PEERS)", PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, false},
        {"proc key, rank 517 (PMIX_LOCAL_RANK)", 517, PMIX_LOCAL_RANK, false},
        {"proc string key, rank 517 (PMIX_HOSTNAME)", 517, PMIX_HOSTNAME, false},
        {"job key via rank 517 (proc, app, job)", 517, PMIX_JOB_SIZE, false},
        {"node key, PMIX_NODE_INFO, rank 517", 517, PMIX_NODE_SIZE, true},
    };
    static const lookup_t remote[] = {
        {"remote proc string key (last rank's PMIX_HOSTNAME)", 0, PMIX_HOSTNAME, false},
        {"remote proc key (last rank's PMIX_NODEID)", 0, PMIX_NODEID, false},
        {"remote proc key (last rank's PMIX_LOCAL_RANK)", 0, PMIX_LOCAL_RANK, false},
    };
    bool maps = false;
    uint32_t ranks = 1024;
    int threads = 2;
    char dir[] = "/tmp/sy-bench-XXXXXX", path[64];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--maps") == 0) {
            maps = true;
            continue;
        }
        if (i + 1 == argc) {
            break;
        }
        if (strcmp(argv[i], "--ranks") == 0) {
            ranks = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = strtol(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = atoi(argv[i + 1]);
        }
        i++;
    }
    if (ranks < 1024 || iters < 1 || threads < 1 || threads > 64 || mkdtemp(dir) == NULL) {
        fprintf(stderr, "usage: store_get [--ranks N>=1024] [--iters N] [--threads 1..64]\n");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/job.seg", dir);
    double t0 = now();
    if (maps) {
        publish_maps(path, ranks);
    } else {
        publish(path, ranks);
    }
    double t1 = now();
    sy_store_acquire();
    if (sy_store_attach(nspace, path) != PMIX_SUCCESS) {
        abort();
    }
    double t2 = now();
    printf("store_get: %u ranks, publish %.2f ms, attach (validation) %.2f ms\n", ranks,
           1e3 * (t1 - t0), 1e3 * (t2 - t1));
    lookup_t all[sizeof(lookups) / sizeof(lookups[0]) + sizeof(remote) / sizeof(remote[0])];
    size_t nall = 0;
    for (size_t k = 0; k < sizeof(lookups) / sizeof(lookups[0]); k++) {
        all[nall++] = lookups[k];
    }
    for (size_t k = 0; maps && k < sizeof(remote) / sizeof(remote[0]); k++) {
        all[nall] = remote[k];
        all[nall++].rank = ranks - 1;
    }
    for (size_t k = 0; k < nall; k++) {
        run((void *)&all[k]); /* warm */
        double s = now();
        run((void *)&all[k]);
        printf("  %-52s %7.1f ns/Get\n", all[k].what, 1e9 * (now() - s) / (double)iters);
    }
    for (size_t k = 0; maps && k < nall; k++) {
        double t[21];
        for (int a = 0; a < 21; a++) {
            sy_store_detach(nspace);
            if (sy_store_attach(nspace, path) != PMIX_SUCCESS) {
                abort();
            }
            pmix_proc_t p;
            pmix_info_t info;
            bool yes = true;
            pmix_value_t *v;
            PMIX_LOAD_PROCID(&p, nspace, all[k].rank);
            PMIX_INFO_LOAD(&info, PMIX_NODE_INFO, &yes, PMIX_BOOL);
            double s = now();
            if (sy_store_get(&p, all[k].key, &info, all[k].node_info ? 1 : 0, &v) != PMIX_SUCCESS) {
                abort();
            }
            t[a] = now() - s;
            PMIX_VALUE_RELEASE(v);
        }
        for (int i = 1; i < 21; i++) { /* insertion sort for the median */
            for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
                double x = t[j];
                t[j] = t[j - 1];
                t[j - 1] = x;
            }
        }
        printf("  first Get after attach: %-28.28s %7.1f us\n", all[k].what, 1e6 * t[10]);
    }
    pthread_t tid[64];
    double s = now();
    for (int i = 0; i < threads; i++) {
        pthread_create(&tid[i], NULL, run, (void *)&lookups[0]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
    }
    printf("  %-44s %7.1f ns/Get per thread (%d threads)\n", lookups[0].what,
           1e9 * (now() - s) / (double)iters, threads);
    sy_store_release();
    unlink(path);
    rmdir(dir);
    return 0;
}
