/* End-to-end benchmark of the fabric service on a big fabric (issue 22,
 * part 3): a 3-level fat tree (fattree:k=K) written as a real
 * `ibnetdiscover -p` capture (every port from both ends, as the tool
 * prints it), then, each in a fresh child so that peak RSS does not mix:
 *
 *   floor  write the N x N uint16 matrix once into fresh memory (mmap,
 *          MADV_HUGEPAGE, as the engine allocates it) and read it back once;
 *   ours   load the capture (sy_fabric_engine_load, format detected),
 *          compute everything the scheduler serves (refresh: device index,
 *          planes, peers, cost matrix, groups, coordinates, shapes), and
 *          export the matrix to a remote requester the way switchyard-sched
 *          does: the product's own code (tools/sched/sched_chunk.c,
 *          sched_link.c) sends it in 8 MiB chunks, encoded (runs,
 *          palettes: src/fabric/cm_codec.h), as frames with a MAC (a TCP
 *          link with key or MUNGE; --no-mac: a UNIX link) through a socket
 *          to a node-daemon process that allocates its matrix and decodes
 *          every chunk into it as sched_node.c does.  The export ends when
 *          the node holds the whole matrix; its hash is then checked
 *          against the scheduler's (not timed).  "export raw" is the same
 *          with raw chunks (what every node got before the encoding), the
 *          two in turn first; --node-reuse: the node decodes into one
 *          matrix it touched before the load (a requester that keeps its
 *          buffer: the link's cost without the first touch of fresh memory,
 *          which on this VM is most of it and very uneven);
 *   shm    (in the same child, after ours) the export to a requester on the
 *          same host: the matrix copied into a sealed memfd
 *          (tools/sched/sched_shm.c, what switchyard-sched does), mapped
 *          read-only and every entry read; "ours shm" is load + compute +
 *          this export.
 *
 * Times are wall clock, best of --reps (the load's CPU time is printed
 * too: on a shared machine it moves less); RSS is the child's ru_maxrss.  The
 * issue's targets: ours <= 2x floor, peak RSS <= 1.1x the matrix.
 *
 *   make -C build bench && build/bench/fabric_e2e [--k 40] [--reps 3] [--threads T]
 *                                                 [--no-mac] [--node-reuse]
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabric/engine.h"
#include "fabric/topo.h"

#include "../tools/sched/sched_daemon.h"
#include "../tools/sched/sched_shm.h"

typedef struct {
    double secs, load, compute, export, raw, shm, load_cpu;
    size_t encoded; /* the encoded chunks' bytes */
    long maxrss_kb;
    uint64_t check;
    int ok;
} result_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* ---- the capture ---- */

static uint64_t guid_of(const sy_topo_t *t, uint32_t v)
{
    return t->v[v].kind == SY_TOPO_DEVICE ? 0x100000u + 2u * v : 0x200000u + v;
}

/* Port numbers: a vertex's links numbered 1.. in adjacency order. */
static uint32_t port_of(const sy_topo_t *t, uint32_t v, uint32_t peer)
{
    for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
        if (t->adj[k] == peer)
            return k - t->adj_off[v] + 1;
    return 0;
}

/* Unicast LIDs are 1..0xBFFF: a 64k-device capture reuses them (the
 * readers identify ports by GUID; the LID is only checked to be 16-bit). */
static uint32_t lid_of(uint32_t v)
{
    return v % 0xBFFFu + 1;
}

static int write_capture(const char *spec, const char *path, uint32_t *ndev)
{
    sy_topo_t *t = NULL;
    char *err = NULL;
    if (sy_topo_generate(spec, &t, &err) != PMIX_SUCCESS || sy_topo_finalize(t) != PMIX_SUCCESS) {
        fprintf(stderr, "generate %s: %s\n", spec, err != NULL ? err : "failed");
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (uint32_t v = 0; v < t->nv; v++) {
        bool ca = t->v[v].kind == SY_TOPO_DEVICE;
        uint64_t g = guid_of(t, v);
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            uint32_t w = t->adj[k];
            bool wca = t->v[w].kind == SY_TOPO_DEVICE;
            fprintf(f,
                    "%2s %5u %2u 0x%016" PRIx64 " 4x EDR - %2s %5u %2u 0x%016" PRIx64
                    " ( '%s%s' - '%s%s' )\n",
                    ca ? "CA" : "SW", lid_of(v), ca ? 1 : k - t->adj_off[v] + 1, ca ? g + 1 : g,
                    wca ? "CA" : "SW", lid_of(w), wca ? 1 : port_of(t, w, v),
                    wca ? guid_of(t, w) + 1 : guid_of(t, w), t->v[v].name, ca ? " HCA-1" : "",
                    t->v[w].name, wca ? " HCA-1" : "");
        }
    }
    *ndev = t->ndevices;
    sy_topo_free(t);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the floor ---- */

static void *fresh(size_t bytes)
{
    size_t align = 2u << 20;
    char *p = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    madvise(a, bytes, MADV_HUGEPAGE);
    return a;
}

static void run_floor(uint32_t n, result_t *r)
{
    size_t bytes = (size_t)n * n * sizeof(uint16_t);
    double t0 = now();
    uint16_t *m = fresh(bytes);
    if (m == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        uint16_t *row = m + i * n;
        for (size_t j = 0; j < n; j++)
            row[j] = (uint16_t)(i + j);
    }
    uint64_t sum = 0;
    const uint64_t *w = (const uint64_t *)m;
    for (size_t i = 0; i < bytes / 8; i++)
        sum += w[i];
    r->secs = now() - t0;
    r->check = sum;
    r->ok = 1;
}

/* ---- ours: the export through the daemons' link ---- */

static bool use_mac = true; /* --no-mac: a UNIX link between daemons (no session key) */
/* --node-reuse: the node decodes every export into one matrix it touched
 * before the load, instead of a fresh one each time as sched_node.c does */
static bool node_reuse;

/* Order-sensitive: a chunk in the wrong place changes it. */
static uint64_t matrix_hash(const uint16_t *v, size_t count)
{
    uint64_t h = 0;
    for (size_t i = 0; i < count; i++)
        h = h * 0x100000001B3ull + v[i];
    return h;
}

static uint64_t entry_sum(const uint16_t *v, size_t count)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += v[i];
    return sum;
}

/* The node daemon's side, in a process of its own (its matrix is not the
 * scheduler's RSS): what sched_node.c does with a streamed reply's
 * chunks: the matrix allocated as it does (chunk_matrix_alloc), each
 * frame read, unpacked and placed or decoded (chunk_read, chunk_apply).
 * Reports "done" (the end of the timed export), then a hash of the whole
 * matrix, checked against the scheduler's outside the timing; one per
 * export. */
static void peer_side(int fd, int res, const uint8_t *key, size_t reuse_bytes)
{
    link_t *l = link_new(fd, use_mac ? key : NULL, true);
    char *kept = reuse_bytes > 0 ? chunk_matrix_alloc(reuse_bytes) : NULL;
    if (kept != NULL)
        memset(kept, 0xff, reuse_bytes);
    pmix_data_buffer_t b;
    while (l != NULL && link_recv(l, &b) == 0) {
        uint64_t msize = 0;
        size_t got = 0;
        int32_t one = 1;
        if (PMIx_Data_unpack(NULL, &b, &msize, &one, PMIX_UINT64) != PMIX_SUCCESS)
            break;
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        char *m = kept != NULL && msize == reuse_bytes ? kept : chunk_matrix_alloc(msize);
        bool ok = m != NULL;
        while (ok && got < msize && link_recv(l, &b) == 0) {
            uint8_t kind = 0;
            chunk_t c;
            const char *why = "";
            ok = PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8) == PMIX_SUCCESS &&
                 chunk_read(&b, kind, &c) == 0;
            if (ok && chunk_apply(&c, m, msize, &got, &why) != 0) {
                fprintf(stderr, "node: chunk refused: %s\n", why);
                ok = false;
            }
            PMIX_DATA_BUFFER_DESTRUCT(&b);
        }
        uint8_t done = ok && got == msize;
        if (write(res, &done, 1) != 1)
            break;
        uint64_t hash = ok ? matrix_hash((const uint16_t *)(void *)m, msize / 2) : 0;
        if (m != kept)
            free(m);
        else
            memset(kept, 0xff, reuse_bytes); /* no entry of this export left for the next */
        if (write(res, &hash, 8) != 8)
            break;
    }
    free(kept);
    link_free(l);
}

typedef struct {
    link_t *link;
    size_t payload; /* the last export's chunk bytes */
    int res;
    pid_t pid;
} peer_t;

static int peer_start(peer_t *nd, const uint8_t *key, size_t reuse_bytes)
{
    int sv[2], p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    if (pipe(p) != 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    nd->pid = fork();
    if (nd->pid == 0) {
        close(sv[0]);
        close(p[0]);
        peer_side(sv[1], p[1], key, reuse_bytes);
        _exit(0);
    }
    close(sv[1]);
    close(p[1]);
    nd->res = p[0];
    nd->link = link_new(sv[0], use_mac ? key : NULL, false);
    return nd->pid > 0 && nd->link != NULL ? 0 : -1;
}

static void peer_stop(peer_t *nd)
{
    link_free(nd->link);
    close(nd->res);
    waitpid(nd->pid, NULL, 0);
}

/* The matrix to the node as stream_thread (sched_main.c) sends it: its
 * size, then the chunks.  The seconds until the node has all of it, or 0
 * when it failed; *hash is the node's hash of the matrix it holds. */
static double export_link(peer_t *nd, const sy_cost_t *c, bool encode, uint64_t *hash)
{
    uint64_t msize = (uint64_t)c->n * c->n * sizeof(uint16_t);
    double t0 = now();
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    PMIx_Data_pack(NULL, &b, &msize, 1, PMIX_UINT64);
    int rc = link_send(nd->link, &b);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    if (rc == 0)
        rc = chunk_send_all(nd->link, 1, (const char *)c->m, msize, encode, &nd->payload);
    uint8_t done = 0;
    if (rc != 0 || read(nd->res, &done, 1) != 1 || done != 1)
        return 0;
    double secs = now() - t0;
    return read(nd->res, hash, 8) == 8 ? secs : 0;
}

/* The same-host export: a sealed memfd, mapped read-only, every entry
 * read.  0 when it failed. */
static double export_shm(const sy_cost_t *c, uint64_t *sum)
{
    size_t bytes = (size_t)c->n * c->n * sizeof(uint16_t);
    double t0 = now();
    int fd = shm_export(c->m, bytes);
    const char *why = "";
    const uint16_t *v = fd >= 0 ? shm_map(fd, bytes, &why) : NULL;
    if (v == NULL) {
        fprintf(stderr, "shm: %s\n", fd < 0 ? "no memfd" : why);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    uint64_t s = 0;
    for (size_t i = 0; i < bytes / 2; i++)
        s += v[i];
    munmap((void *)v, bytes);
    close(fd);
    *sum = s;
    return now() - t0;
}

static void run_ours(const char *path, uint32_t n, unsigned threads, bool raw_first, result_t *r)
{
    /* the node daemon starts first: its fork is no part of the export */
    uint8_t key[32];
    peer_t nd;
    if (!link_random(key, sizeof(key)) ||
        peer_start(&nd, key, node_reuse ? (size_t)n * n * sizeof(uint16_t) : 0) != 0)
        return;
    double c0 = cpu_now();
    double t0 = now();
    sy_fabric_engine_opts_t opts;
    memset(&opts, 0, sizeof(opts));
    opts.nthreads = threads;
    opts.max_bytes = (uint64_t)64 << 30; /* 64k devices: 8 GiB */
    sy_fabric_engine_t *eng = NULL;
    char *err = NULL;
    if (sy_fabric_engine_load(path, NULL, &opts, &eng, &err) != PMIX_SUCCESS) {
        fprintf(stderr, "load: %s\n", err != NULL ? err : "failed");
        peer_stop(&nd);
        return;
    }
    double t1 = now();
    r->load_cpu = cpu_now() - c0;
    const sy_cost_t *c;
    if (sy_fabric_engine_refresh(eng) != PMIX_SUCCESS ||
        sy_fabric_engine_cost(eng, &c) != PMIX_SUCCESS) {
        fprintf(stderr, "compute: %s\n", sy_fabric_engine_last_error(eng));
        peer_stop(&nd);
        return;
    }
    double t2 = now();
    uint64_t hash = 0, raw_hash = 0;
    /* alternately first: the second export's node gets the pages the
     * first one's just freed, which on this VM are much cheaper to touch */
    double exp = 0;
    if (raw_first)
        r->raw = export_link(&nd, c, false, &raw_hash);
    if (!raw_first || r->raw > 0) {
        exp = export_link(&nd, c, true, &hash);
        r->encoded = nd.payload;
    }
    if (!raw_first && exp > 0)
        r->raw = export_link(&nd, c, false, &raw_hash);
    double t3 = t2 + exp;
    peer_stop(&nd);
    uint64_t want = matrix_hash(c->m, (size_t)c->n * c->n);
    r->load = t1 - t0;
    r->compute = t2 - t1;
    r->export = t3 - t2;
    r->secs = t3 - t0;
    /* the peak RSS of the path through the socket, before the memfd adds
     * a second matrix */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->maxrss_kb = ru.ru_maxrss;
    uint64_t shm_sum = 0;
    r->shm = export_shm(c, &shm_sum);
    r->check = entry_sum(c->m, (size_t)c->n * c->n);
    r->ok = exp > 0 && r->raw > 0 && hash == want && raw_hash == want && r->shm > 0 &&
            shm_sum == r->check;
    if (!r->ok)
        fprintf(stderr, "ours: an export failed or the node's matrix differs\n");
    sy_fabric_engine_free(eng);
}

/* One measurement in a fresh child. */
static result_t measure(bool floor, const char *path, uint32_t n, unsigned threads, bool raw_first)
{
    result_t res = {0};
    int p[2];
    if (pipe(p) != 0)
        return res;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        result_t r = {0};
        if (floor)
            run_floor(n, &r);
        else
            run_ours(path, n, threads, raw_first, &r);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        if (r.maxrss_kb == 0)
            r.maxrss_kb = ru.ru_maxrss;
        if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
        res.ok = 0;
    close(p[0]);
    waitpid(pid, NULL, 0);
    return res;
}

int main(int argc, char **argv)
{
    int k = 40, reps = 3;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--k") && i + 1 < argc)
            k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-mac"))
            use_mac = false;
        else if (!strcmp(argv[i], "--node-reuse"))
            node_reuse = true;
        else {
            fprintf(stderr, "usage: fabric_e2e [--k K] [--reps R] [--threads T] [--no-mac]\n"
                            "                  [--node-reuse]\n");
            return 2;
        }
    }
    char spec[64], path[256];
    snprintf(spec, sizeof(spec), "fattree:k=%d", k);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/fabric_e2e.%ld.ports", tmp != NULL ? tmp : "/tmp",
             (long)getpid());
    uint32_t n = 0;
    if (write_capture(spec, path, &n) != 0)
        return 1;
    FILE *f = fopen(path, "r");
    fseek(f, 0, SEEK_END);
    long fsize = ftell(f);
    fclose(f);
    double la[3];
    getloadavg(la, 3);
    printf("# fabric end-to-end: %s, %u devices, ibnetdiscover -p capture of %.1f MB, "
           "matrix %.1f MiB\n# load average at start: %.2f %.2f %.2f\n",
           spec, n, (double)fsize / 1e6, (double)n * n * 2 / 1048576.0, la[0], la[1], la[2]);
    result_t best_floor = {0}, best = {0}, best_shm = {0};
    for (int r = 0; r < reps; r++) {
        result_t fl = measure(true, path, n, threads, false);
        result_t ou = measure(false, path, n, threads, r % 2 == 1);
        if (fl.ok && (best_floor.secs == 0 || fl.secs < best_floor.secs))
            best_floor = fl;
        if (ou.ok && (best.secs == 0 || ou.secs < best.secs))
            best = ou;
        double ou_shm = ou.load + ou.compute + ou.shm;
        if (ou.ok && (best_shm.secs == 0 || ou_shm < best_shm.secs)) {
            best_shm = ou;
            best_shm.secs = ou_shm;
        }
        printf("# run %d: floor %.3f s, ours %.3f s (load %.3f [cpu %.3f], compute %.3f, export "
               "%.3f [%zu bytes encoded]; raw chunks %.3f; by shm %.3f)\n",
               r, fl.secs, ou.secs, ou.load, ou.load_cpu, ou.compute, ou.export, ou.encoded, ou.raw,
               ou.shm);
        fflush(stdout);
    }
    unlink(path);
    getloadavg(la, 3);
    double mib = (double)n * n * 2 / 1048576.0;
    printf("# load average at end: %.2f %.2f %.2f\n", la[0], la[1], la[2]);
    printf("# link: %s; export = encoded chunks, raw = the same link with raw chunks "
           "(raw first in odd runs); node matrix: %s\n",
           use_mac ? "MAC on every frame (TCP with key or MUNGE)" : "no MAC (UNIX socket)",
           node_reuse ? "one, touched before the load (--node-reuse)" : "fresh per export");
    printf("| devices | matrix MiB | floor s | ours s | load s | load cpu s | compute s | "
           "export s | export raw s | ours/floor | ours shm s | export shm s | ours shm/floor | "
           "floor RSS MiB | ours RSS MiB | ours RSS/matrix |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| %u | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f | "
           "%.2f | %.0f | %.0f | %.3f |\n",
           n, mib, best_floor.secs, best.secs, best.load, best.load_cpu, best.compute, best.export,
           best.raw, best_floor.secs > 0 ? best.secs / best_floor.secs : 0, best_shm.secs,
           best_shm.shm, best_floor.secs > 0 ? best_shm.secs / best_floor.secs : 0,
           best_floor.maxrss_kb / 1024.0, best.maxrss_kb / 1024.0, best.maxrss_kb / 1024.0 / mib);
    return best.ok && best_floor.ok ? 0 : 1;
}
