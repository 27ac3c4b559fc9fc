/* Benchmark of the fabric cost matrix (src/fabric/cost.c).
 *
 * For each generated topology, in a forked child per measurement (so peak
 * RSS figures do not mix; ru_maxrss of the child):
 *   ours     sy_cost_compute, default options (2 threads here) and 1 thread
 *   igraph   the obvious approach: igraph_distances between all devices
 *            (N x N doubles) on the whole graph, then conversion to uint16;
 *            skipped above --igraph-max devices (minutes and GBs)
 *   floor    the memory lower bound: memset of N*N*2 bytes into a freshly
 *            mmap'd buffer, with MADV_HUGEPAGE (as ours) and without
 * Times are wall clock (best of --reps); the checksum of the ours and
 * igraph matrices must agree.  Run: build/bench/fabric_cost [--quick]. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <igraph.h>

#include "fabric/cost.h"
#include "fabric/devindex.h"
#include "fabric/igraph_guard.h"
#include "fabric/topo.h"

typedef struct {
    double secs;
    double cpu;
    long maxrss_kb;
    long base_kb;
    uint64_t sum;
    int algo;
    int ok;
} result_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long rss_kb(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) {
            res = 0;
        }
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static uint64_t checksum(const uint16_t *m, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s = s * 31 + m[i];
    }
    return s;
}

typedef enum { M_OURS, M_OURS1, M_IGRAPH, M_FLOOR_THP, M_FLOOR_4K } method_t;

static int run_ours(const sy_topo_t *t, const sy_devindex_t *ix, unsigned threads, result_t *r)
{
    sy_cost_opts_t o = {0};
    sy_cost_t c;
    o.nthreads = threads;
    o.max_bytes = (uint64_t)16 << 30;
    double t0 = now();
    if (sy_cost_compute(t, ix, &o, &c) != PMIX_SUCCESS) {
        return -1;
    }
    r->secs = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->maxrss_kb = ru.ru_maxrss;
    r->cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
             ru.ru_stime.tv_usec * 1e-6;
    r->sum = checksum(c.m, (size_t)c.n * c.n);
    r->algo = c.torus_closed_form ? 2 : SY_COST_ALGO_LEAF == c.algo ? 1 : 0;
    sy_cost_free(&c);
    return 0;
}

static int run_floor(size_t bytes, bool thp, result_t *r)
{
    double t0 = now();
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == p) {
        return -1;
    }
    if (thp) {
        (void)madvise(p, bytes, MADV_HUGEPAGE);
    } else {
        (void)madvise(p, bytes, MADV_NOHUGEPAGE);
    }
    memset(p, 0xff, bytes);
    r->secs = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->maxrss_kb = ru.ru_maxrss;
    munmap(p, bytes);
    return 0;
}

static int run_igraph(const sy_topo_t *t, const sy_devindex_t *ix, result_t *r)
{
    int rc = -1;
    igraph_t g;
    igraph_vector_int_t edges, devs;
    igraph_matrix_t res;
    uint32_t n = ix->ndev;
    double t0 = now();
    sy_igraph_lock();
    if (IGRAPH_SUCCESS != igraph_vector_int_init(&edges, 0)) {
        goto out;
    }
    for (uint32_t e = 0; e < t->ne; e++) {
        if (t->e[e].state != PMIX_LINK_DOWN) {
            igraph_vector_int_push_back(&edges, t->e[e].a);
            igraph_vector_int_push_back(&edges, t->e[e].b);
        }
    }
    if (IGRAPH_SUCCESS != igraph_create(&g, &edges, t->nv, IGRAPH_UNDIRECTED)) {
        igraph_vector_int_destroy(&edges);
        goto out;
    }
    igraph_vector_int_destroy(&edges);
    igraph_vector_int_init(&devs, n);
    for (uint32_t i = 0; i < n; i++) {
        VECTOR(devs)[i] = ix->dev_to_vertex[i];
    }
    igraph_matrix_init(&res, 0, 0);
    if (IGRAPH_SUCCESS == igraph_distances(&g, &res, igraph_vss_vector(&devs),
                                           igraph_vss_vector(&devs), IGRAPH_ALL)) {
        uint16_t *m = malloc((size_t)n * n * sizeof(uint16_t));
        if (m != NULL) {
            for (uint32_t i = 0; i < n; i++) {
                for (uint32_t j = 0; j < n; j++) {
                    igraph_real_t d = MATRIX(res, i, j);
                    m[(size_t)i * n + j] = (d == IGRAPH_INFINITY) ? SY_COST_UNREACHABLE
                                           : d >= SY_COST_MAX     ? SY_COST_MAX
                                                                  : (uint16_t)d;
                }
            }
            r->secs = now() - t0;
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            r->maxrss_kb = ru.ru_maxrss;
            r->sum = checksum(m, (size_t)n * n);
            free(m);
            rc = 0;
        }
    }
    igraph_matrix_destroy(&res);
    igraph_vector_int_destroy(&devs);
    igraph_destroy(&g);
out:
    sy_igraph_unlock();
    return rc;
}

/* One measurement in a fresh child. */
static result_t measure(method_t m, const sy_topo_t *t, const sy_devindex_t *ix)
{
    result_t r = {0};
    int fds[2];
    if (pipe(fds) != 0) {
        return r;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        result_t c = {0};
        int rc = -1;
        close(fds[0]);
        c.base_kb = rss_kb();
        size_t bytes = (size_t)ix->ndev * ix->ndev * sizeof(uint16_t);
        switch (m) {
        case M_OURS: rc = run_ours(t, ix, 0, &c); break;
        case M_OURS1: rc = run_ours(t, ix, 1, &c); break;
        case M_IGRAPH: rc = run_igraph(t, ix, &c); break;
        case M_FLOOR_THP: rc = run_floor(bytes, true, &c); break;
        case M_FLOOR_4K: rc = run_floor(bytes, false, &c); break;
        }
        c.ok = rc == 0;
        ssize_t w = write(fds[1], &c, sizeof(c));
        _exit(w == (ssize_t)sizeof(c) ? 0 : 1);
    }
    close(fds[1]);
    if (pid > 0) {
        if (sizeof(r) != read(fds[0], &r, sizeof(r))) {
            memset(&r, 0, sizeof(r));
        }
        waitpid(pid, NULL, 0);
    }
    close(fds[0]);
    return r;
}

static result_t best_of(int reps, method_t m, const sy_topo_t *t, const sy_devindex_t *ix)
{
    result_t best = {0};
    for (int i = 0; i < reps; i++) {
        result_t r = measure(m, t, ix);
        if (r.ok && (!best.ok || r.secs < best.secs)) {
            best = r;
        }
    }
    return best;
}

static void print_load(const char *when)
{
    double l[3];
    if (getloadavg(l, 3) == 3) {
        printf("# load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
    }
}

static void usage(void)
{
    printf("usage: fabric_cost [--quick] [--reps R] [--max-n N] [--igraph-max N] [--only SPEC]\n"
           "  --quick        only the ~1k and ~4k rows\n"
           "  --reps R       best of R runs for ours and the floors (default 3)\n"
           "  --max-n N      skip topologies with more than N devices (default 40000)\n"
           "  --igraph-max N run the igraph baseline only up to N devices (default 8192)\n"
           "  --only SPEC    benchmark one generator spec\n");
}

int main(int argc, char **argv)
{
    static const char *const specs[] = {
        "fattree:k=16",
        "fattree:k=26",
        "fattree:k=40",
        "fattree:k=50",
        "dragonfly:a=8,p=4,h=4,g=33",
        "dragonfly:a=16,p=8,h=2,g=33",
        "dragonfly:a=16,p=8,h=8,g=129",
        "dragonfly:a=32,p=16,h=2,g=65",
        "torus:16x8x8",
        "torus:16x16x16",
        "torus:32x32x16",
        "torus:32x32x32",
        "torus:32x16x16,p=2",
    };
    int reps = 3;
    uint32_t max_n = 40000, igraph_max = 8192;
    bool quick = false;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc) {
            max_n = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--igraph-max") == 0 && i + 1 < argc) {
            igraph_max = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 1;
        }
    }
    if (reps < 1) {
        reps = 1;
    }
    if (quick) {
        max_n = 5000;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# fabric cost matrix benchmark: %ld online CPUs, best of %d (igraph: 1 run)\n", cpus,
           reps);
    printf("# times in seconds (wall; ours CPU = user+sys of the child, all threads, setup\n"
           "# included), RSS = peak resident set of the measuring child in MiB\n");
    print_load("at start");
    printf("| topology | devices | matrix MiB | ours (%ldT) s | ours 1T s | ours CPU s | algo | "
           "floor THP s | "
           "floor 4K s | igraph s | ours/igraph | ours/floor THP | ours/floor 4K | ours RSS | "
           "RSS/matrix | igraph RSS |\n",
           cpus);
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_t nspecs = sizeof(specs) / sizeof(specs[0]);
    for (size_t s = 0; s < (only ? 1 : nspecs); s++) {
        const char *spec = only ? only : specs[s];
        sy_topo_t *t = NULL;
        char *err = NULL;
        if (sy_topo_generate(spec, &t, &err) != PMIX_SUCCESS) {
            fprintf(stderr, "%s: %s\n", spec, err ? err : "generation failed");
            free(err);
            continue;
        }
        if (t->ndevices > max_n) {
            sy_topo_free(t);
            continue;
        }
        sy_devindex_t ix;
        if (sy_devindex_build(t, &ix) != PMIX_SUCCESS || sy_topo_finalize(t) != PMIX_SUCCESS) {
            sy_topo_free(t);
            continue;
        }
        uint32_t n = ix.ndev;
        double mib = (double)n * n * 2 / (1 << 20);
        result_t ours = best_of(reps, M_OURS, t, &ix);
        result_t ours1 = best_of(reps, M_OURS1, t, &ix);
        result_t fthp = best_of(reps, M_FLOOR_THP, t, &ix);
        result_t f4k = best_of(reps, M_FLOOR_4K, t, &ix);
        result_t ig = {0};
        bool ig_run = n <= igraph_max;
        if (ig_run) {
            ig = measure(M_IGRAPH, t, &ix);
        }
        const char *algo = ours.algo == 2   ? "torus closed form"
                           : 1 == ours.algo ? "leaf-collapse"
                                            : "per-source";
        char igs[64], igr[32], igm[32];
        if (!ig_run) {
            snprintf(igs, sizeof(igs), "skipped");
            snprintf(igr, sizeof(igr), "–");
            snprintf(igm, sizeof(igm), "–");
        } else if (!ig.ok) {
            snprintf(igs, sizeof(igs), "failed");
            snprintf(igr, sizeof(igr), "–");
            snprintf(igm, sizeof(igm), "–");
        } else {
            snprintf(igs, sizeof(igs), "%.4f%s", ig.secs, ig.sum == ours.sum ? "" : " (MISMATCH)");
            snprintf(igr, sizeof(igr), "%.4f", ours.secs / ig.secs);
            snprintf(igm, sizeof(igm), "%.0f", ig.maxrss_kb / 1024.0);
        }
        printf("| %s | %u | %.1f | %.4f | %.4f | %.4f | %s | %.4f | %.4f | %s | %s | %.2f | %.2f | "
               "%.0f | "
               "%.3f | %s |\n",
               spec, n, mib, ours.secs, ours1.secs, ours.cpu, algo, fthp.secs, f4k.secs, igs, igr,
               ours.secs / fthp.secs, ours.secs / f4k.secs, ours.maxrss_kb / 1024.0,
               ours.maxrss_kb / 1024.0 / mib, igm);
        fflush(stdout);
        if (!ours.ok || ours.sum != ours1.sum) {
            fprintf(stderr, "%s: ours failed or 1T/2T mismatch\n", spec);
        }
        sy_devindex_free(&ix);
        sy_topo_free(t);
    }
    print_load("at end");
    printf("\nigraph not measured above %u devices: its N x N double matrix alone is "
           "8*N^2 bytes (2 GiB at 16k) and it runs for minutes\n",
           igraph_max);
    return 0;
}
