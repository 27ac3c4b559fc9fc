/* Modex benchmark: one source, compiled once against Switchyard and once
 * against OpenPMIx 4.2.2 (bench/modex-compare.sh), using only Standard-v4
 * calls so both builds do the same work.
 *
 * The host (this program without "client") inits a server in a private
 * tmpdir and, for each N and payload size, registers a job of N local
 * ranks the way mpirun does and forks/execs itself N times.  Its module
 * is a one-node resource manager: fence_nb copies the node's blob and
 * hands the copy back (an all-gather over one daemon), direct_modex says
 * PMIX_ERR_NOT_FOUND.  Each client: Init; Put(GLOBAL) of one byte object of
 * SIZE bytes (an xorshift stream seeded by its rank, incompressible);
 * Commit; computes the payload every peer will have posted (outside any
 * timed phase); a barrier (pipes to the host, outside PMIx); a timed
 * PMIx_Fence with PMIX_COLLECT_DATA; a barrier; a timed PMIx_Fence without
 * data (a barrier, as MPI_Barrier or a job's startup uses it); a barrier;
 * the timed pipe barrier (below); a barrier; a timed "getall" — Get of
 * every peer's key, checked byte for byte; a barrier; Finalize.
 *
 * Each timed phase starts after a barrier and ends before the next one, so
 * a rank that is done waits blocked in read() instead of running the next
 * phase on the CPUs that slower ranks still need (with 32 ranks on 2 cores,
 * early ranks generating and checking data inflated the last ranks' fence
 * by several milliseconds, for both libraries).
 *
 * Between the fence and getall one more barrier is timed like the fence:
 * the same collective with no PMIx at all (write a byte to the host, which
 * answers every rank once all wrote), i.e. the floor of any collective
 * through one server process on this machine.
 *
 * Reported per (N, SIZE), medians over repetitions of: the slowest rank's
 * fence and getall; launch to all exited; the number of host fence_nb and
 * direct_modex calls in the last repetition; the fence from the last
 * rank's entry to the last rank's return (CLOCK_MONOTONIC is one clock for
 * every process of the machine), which leaves out the wake-up skew of the
 * barrier before it; and the pipe barrier's slowest rank and last-in to
 * all-out.
 *
 * What a fence costs (-k, bench/fence-cost.sh): each client counts the
 * context switches of all its threads across its PMIx_Fence (voluntary:
 * a thread slept and was woken; from /proc/self/task/{*}/status), the host
 * those of its own process (the server's threads and its own) from the
 * release that starts the fence to the gather after it, and the same over
 * an empty window (release, then at once the next gather: the benchmark's
 * own pipe traffic), to subtract.  With MODEX_PERF_CTL=CTL,ACK (the
 * fifos of `perf stat --control fifo:CTL,ACK -D -1`) the host enables
 * perf's counters over one of the windows, MODEX_PERF_WINDOW=fence|empty.
 *
 *   modex [-n "2 4 8 16 32"] [-s "64 4096"] [-r REPS] [-c CLIENT] [-l] [-k]
 * Output: "N size fence_us getall_us total_us fence_calls dmodex_calls
 *          fence_lastin_us barrier_us barrier_lastin_us nodata_us
 *          nodata_lastin_us" (the fence without data); with -k, then
 *          "cost N size member_vcs member_ivcs server_vcs server_ivcs
 *          empty_server_vcs empty_server_ivcs" (medians of the per-launch
 *          mean over members, and of the server's)
 * -c CLIENT: exec CLIENT for the clients instead of this program (the same
 * source built against the other library: bench/interop-compare.sh); every
 * client reports the libpmix it runs on and a launch whose clients do not
 * agree fails.  -l: first print "lib server PATH" and "lib client PATH". */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "../tests/integration/forkhost.h"

static void payload(pmix_rank_t rank, unsigned char *out, size_t len)
{
    uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)rank + 1) * 0xbf58476d1ce4e5b9ull;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (unsigned char)x;
    }
}

/* Context switches of every thread of this process so far. */
typedef struct {
    double vcs, ivcs;
} cswitch_t;

static cswitch_t cswitches(void)
{
    cswitch_t c = {0, 0};
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/status", e->d_name);
        FILE *f = fopen(path, "r");
        long v;
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
                c.vcs += (double)v;
            else if (sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
                c.ivcs += (double)v;
        }
        if (f != NULL)
            fclose(f);
    }
    if (d != NULL)
        closedir(d);
    return c;
}

/* Barriers: before the fence, after it, the timed one (the floor), after
 * that, before Finalize. */
#define NPHASES 6

/* ---------------- client ---------------- */
static int client(int fd, size_t size, const char *barrier)
{
    fh_step_t s;
    if (fh_step_parse(barrier, &s) != 0)
        return 6;
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "modex client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_UINT32)
        return 2;
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    unsigned char *mine = malloc(size), *want = malloc((size_t)n * size);
    if (mine == NULL || want == NULL)
        return 2;
    payload(me.rank, mine, size);
    pmix_value_t val;
    pmix_byte_object_t bo = {.bytes = (char *)mine, .size = size};
    PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
    rc = PMIx_Put(PMIX_GLOBAL, "bench.blob", &val);
    PMIX_VALUE_DESTRUCT(&val);
    if (rc != PMIX_SUCCESS || (rc = PMIx_Commit()) != PMIX_SUCCESS) {
        fprintf(stderr, "modex client: Put/Commit: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    /* what each peer posted, for the check: not the library's work */
    for (pmix_rank_t r = 0; r < n; r++)
        payload(r, want + (size_t)r * size, size);
    if (fh_step(&s) != 0)
        return 6;

    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    /* only when counting (-k): reading /proc beside the fence slows the
     * other members' */
    bool counting = getenv("MODEX_COUNT") != NULL;
    cswitch_t c0 = counting ? cswitches() : (cswitch_t){0, 0};
    double t_enter = fh_now_us();
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    double t_exit = fh_now_us();
    cswitch_t c1 = counting ? cswitches() : (cswitch_t){0, 0};
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "modex client: Fence: %s\n", PMIx_Error_string(rc));
        return 4;
    }
    if (fh_step(&s) != 0)
        return 6;
    /* A fence without data (a barrier), timed the same way */
    double nc_enter = fh_now_us();
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    double nc_exit = fh_now_us();
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "modex client: Fence without data: %s\n", PMIx_Error_string(rc));
        return 4;
    }
    if (fh_step(&s) != 0)
        return 6;
    /* The same collective without PMIx: through the host's pipes, timed
     * like the fence.  Its figures are what 32 processes sharing 2 cores
     * cost to meet at one server and all wake up again. */
    double b_enter = fh_now_us();
    if (fh_step(&s) != 0)
        return 6;
    double b_exit = fh_now_us();
    if (fh_step(&s) != 0)
        return 6;
    double t0 = fh_now_us();
    for (pmix_rank_t r = 0; r < n; r++) {
        if (r == me.rank)
            continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        v = NULL;
        rc = PMIx_Get(&peer, "bench.blob", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT || v->data.bo.size != size ||
            memcmp(v->data.bo.bytes, want + (size_t)r * size, size) != 0) {
            fprintf(stderr, "modex client %u: wrong data for rank %u: %s\n", me.rank, r,
                    PMIx_Error_string(rc));
            return 5;
        }
        PMIX_VALUE_RELEASE(v);
    }
    double t_getall = fh_now_us() - t0;
    free(mine);
    free(want);
    if (fh_step(&s) != 0)
        return 6;
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        return 7;
    char line[1400], lib[1024];
    fh_libpmix(lib, sizeof lib);
    int len = snprintf(line, sizeof line, "%u %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.0f %.0f %s\n",
                       me.rank, t_enter, t_exit, t_getall, b_enter, b_exit, nc_enter, nc_exit,
                       c1.vcs - c0.vcs, c1.ivcs - c0.ivcs, lib);
    return write(fd, line, (size_t)len) == len ? 0 : 8;
}

/* ---------------- host ---------------- */
static atomic_int fence_calls, dmodex_calls;
static const char *client_prog; /* -c, or NULL: this program */
static bool costs;              /* -k */
static char client_lib[1024];   /* the libpmix the clients reported */

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* One daemon: the all-gather of this node's blob is the blob itself. */
static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    atomic_fetch_add(&fence_calls, 1);
    char *copy = ndata > 0 ? malloc(ndata) : NULL;
    if (ndata > 0)
        memcpy(copy, data, ndata);
    free(data); /* both libraries hand the blob over to the host */
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
    atomic_fetch_add(&dmodex_calls, 1);
    return PMIX_ERR_NOT_FOUND;
}

/* Slowest rank and last-in to all-out of one collective phase. */
typedef struct {
    double slowest, last_in, last_out;
} phase_t;

static void phase_add(phase_t *p, double in, double out)
{
    p->slowest = out - in > p->slowest ? out - in : p->slowest;
    p->last_in = in > p->last_in ? in : p->last_in;
    p->last_out = out > p->last_out ? out : p->last_out;
}

enum {
    FIG_FENCE,
    FIG_GETALL,
    FIG_TOTAL,
    FIG_FENCE_LASTIN,
    FIG_BARRIER,
    FIG_BARRIER_LASTIN,
    FIG_NC,
    FIG_NC_LASTIN,
    FIG_MEMBER_VCS,
    FIG_MEMBER_IVCS,
    FIG_SERVER_VCS,
    FIG_SERVER_IVCS,
    FIG_EMPTY_VCS,
    FIG_EMPTY_IVCS,
    NFIG
};

/* perf's counters over one window (MODEX_PERF_CTL, MODEX_PERF_WINDOW) */
static int perf_ctl = -1, perf_ack = -1;
static int perf_phase = -1; /* the barrier whose release opens the window */

static void perf_open(void)
{
    const char *ctl = getenv("MODEX_PERF_CTL"), *win = getenv("MODEX_PERF_WINDOW");
    if (ctl == NULL || win == NULL)
        return;
    char c[512], *ack;
    snprintf(c, sizeof c, "%s", ctl);
    if ((ack = strchr(c, ',')) == NULL)
        return;
    *ack++ = '\0';
    perf_ctl = open(c, O_WRONLY | O_CLOEXEC);
    perf_ack = open(ack, O_RDONLY | O_CLOEXEC);
    perf_phase = strcmp(win, "fence") == 0 ? 0 : strcmp(win, "empty") == 0 ? 3 : -1;
}

/* "enable" or "disable", once perf acknowledged it */
static void perf_say(const char *what)
{
    char buf[16];
    if (perf_ctl < 0 || write(perf_ctl, what, strlen(what)) < 0 || perf_ack < 0)
        return;
    (void)!read(perf_ack, buf, sizeof buf);
}

/* One launch; out[] indexed by FIG_*. */
static int launch(unsigned n, size_t size, int run, double out[NFIG])
{
    char nspace[64];
    snprintf(nspace, sizeof nspace, "modex-%u-%zu-%d", n, size, run);
    double t0 = fh_now_us();
    if (fh_register_job(nspace, n) != PMIX_SUCCESS)
        return -1;
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    char sbuf[32], fdbuf[16];
    snprintf(sbuf, sizeof sbuf, "%zu", size);
    snprintf(fdbuf, sizeof fdbuf, "%d", pfd[1]);
    char *args[] = {"client", fdbuf, sbuf, NULL};
    fh_barrier_t b;
    pid_t pids[1024];
    if (fh_start_job_prog(client_prog, nspace, n, args, &b, pids) != 0)
        return -1;
    close(pfd[1]);
    bool hung = false;
    /* the server's context switches over the fence (from the release of
     * barrier 0 to the gather of 1) and over an empty window (3 to 4) */
    cswitch_t open_at[NPHASES], close_at[NPHASES];
    for (int phase = 0; phase < NPHASES; phase++) {
        /* a launch stuck for a minute (OpenPMIx 4.2.2 clients now and
         * then never return from PMIx_Init here) is killed and redone */
        int got = fh_barrier_gather(&b, n, 60000);
        hung = got < 0;
        if (hung)
            fprintf(stderr,
                    "modex: clients (%s) of a server on %s stuck before barrier %d (0: Init)\n",
                    client_prog != NULL ? client_prog : "this program", PMIx_Get_version(), phase);
        if (phase == perf_phase + 1 && perf_phase >= 0)
            perf_say("disable\n");
        close_at[phase] = costs ? cswitches() : (cswitch_t){0, 0};
        if (got <= 0)
            break;
        if (phase == perf_phase)
            perf_say("enable\n");
        open_at[phase] = costs ? cswitches() : (cswitch_t){0, 0};
        if (fh_barrier_release(&b, (unsigned)got) != 0)
            break;
    }
    if (hung)
        for (unsigned r = 0; r < n; r++)
            kill(pids[r], SIGKILL);
    fh_barrier_close(&b);
    int failed = 0;
    for (unsigned r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    double total = fh_now_us() - t0;
    FILE *f = fdopen(pfd[0], "r");
    phase_t fence = {0}, bar = {0}, nc = {0};
    double getall_max = 0, fin, fout, ga, bin, bout, nin, nout, vcs, ivcs, sum_vcs = 0,
           sum_ivcs = 0;
    unsigned lines = 0, rank;
    char lib[1024];
    while (f != NULL && fscanf(f, "%u %lf %lf %lf %lf %lf %lf %lf %lf %lf %1023s", &rank, &fin,
                               &fout, &ga, &bin, &bout, &nin, &nout, &vcs, &ivcs, lib) == 11) {
        phase_add(&nc, nin, nout);
        sum_vcs += vcs;
        sum_ivcs += ivcs;
        if (client_lib[0] == '\0')
            snprintf(client_lib, sizeof client_lib, "%s", lib);
        else if (strcmp(lib, client_lib) != 0) {
            fprintf(stderr, "modex: clients on %s and %s\n", client_lib, lib);
            failed = 1;
        }
        phase_add(&fence, fin, fout);
        phase_add(&bar, bin, bout);
        getall_max = ga > getall_max ? ga : getall_max;
        lines++;
    }
    if (f != NULL)
        fclose(f);
    fh_deregister_job(nspace, n);
    if (hung)
        return -2;
    if (failed || lines != n)
        return -1;
    out[FIG_FENCE] = fence.slowest;
    out[FIG_GETALL] = getall_max;
    out[FIG_TOTAL] = total;
    out[FIG_FENCE_LASTIN] = fence.last_out - fence.last_in;
    out[FIG_BARRIER] = bar.slowest;
    out[FIG_BARRIER_LASTIN] = bar.last_out - bar.last_in;
    out[FIG_NC] = nc.slowest;
    out[FIG_NC_LASTIN] = nc.last_out - nc.last_in;
    out[FIG_MEMBER_VCS] = sum_vcs / n;
    out[FIG_MEMBER_IVCS] = sum_ivcs / n;
    out[FIG_SERVER_VCS] = close_at[1].vcs - open_at[0].vcs;
    out[FIG_SERVER_IVCS] = close_at[1].ivcs - open_at[0].ivcs;
    out[FIG_EMPTY_VCS] = close_at[4].vcs - open_at[3].vcs;
    out[FIG_EMPTY_IVCS] = close_at[4].ivcs - open_at[3].ivcs;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "client") == 0) {
        int rc = client(atoi(argv[2]), (size_t)atol(argv[3]), argv[4]);
        if (rc != 0)
            fprintf(stderr, "modex client: failed at step %d\n", rc);
        return rc;
    }
    const char *counts = "2 4 8 16 32", *sizes = "64 4096";
    int reps = 5, opt;
    bool libs = false;
    while ((opt = getopt(argc, argv, "n:s:r:c:lk")) != -1) {
        if (opt == 'n')
            counts = optarg;
        else if (opt == 's')
            sizes = optarg;
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'c')
            client_prog = optarg;
        else if (opt == 'l')
            libs = true;
        else if (opt == 'k')
            costs = true;
    }
    if (costs)
        setenv("MODEX_COUNT", "1", 1); /* for the clients */
    perf_open();
    if (reps < 1 || reps > 100)
        return 2;
    char tmpdir[] = "/tmp/sy-bench-XXXXXX";
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.fence_nb = host_fence;
    module.direct_modex = host_dmodex;
    if (fh_server_init(&module, tmpdir) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_server_init failed\n");
        return 1;
    }
    int rc = 0;
    char *clist = strdup(counts), *cs = NULL;
    for (char *ct = strtok_r(clist, " ,", &cs); ct != NULL && rc == 0;
         ct = strtok_r(NULL, " ,", &cs)) {
        unsigned n = (unsigned)atoi(ct);
        char *slist = strdup(sizes), *ss = NULL;
        for (char *st = strtok_r(slist, " ,", &ss); st != NULL && rc == 0;
             st = strtok_r(NULL, " ,", &ss)) {
            size_t size = (size_t)atol(st);
            if (n < 2 || n > 1024 || size < 1)
                continue;
            double fig[NFIG][100];
            for (int run = 0; run < reps && rc == 0; run++) {
                atomic_store(&fence_calls, 0);
                atomic_store(&dmodex_calls, 0);
                double out[NFIG];
                int lrc = -2;
                /* (OpenPMIx 4.2.2 clients hang in Init now and then, more
                 * often on a loaded machine: up to 5 tries) */
                for (int attempt = 0; attempt < 5 && lrc == -2; attempt++) {
                    lrc = launch(n, size, run * 5 + attempt, out);
                    if (lrc == -2)
                        fprintf(stderr, "modex: launch of %u clients (%zu B) hung; killed\n", n,
                                size);
                }
                if (lrc != 0) {
                    fprintf(stderr, "modex: launch of %u clients (%zu B) failed\n", n, size);
                    rc = 1;
                    break;
                }
                for (int i = 0; i < NFIG; i++)
                    fig[i][run] = out[i];
            }
            if (rc == 0 && libs) {
                char server_lib[1024];
                fh_libpmix(server_lib, sizeof server_lib);
                printf("lib server %s\nlib client %s\n", server_lib, client_lib);
                libs = false;
            }
            if (rc == 0)
                printf("%u %zu %.1f %.1f %.1f %d %d %.1f %.1f %.1f %.1f %.1f\n", n, size,
                       fh_median(fig[FIG_FENCE], reps), fh_median(fig[FIG_GETALL], reps),
                       fh_median(fig[FIG_TOTAL], reps), atomic_load(&fence_calls),
                       atomic_load(&dmodex_calls), fh_median(fig[FIG_FENCE_LASTIN], reps),
                       fh_median(fig[FIG_BARRIER], reps), fh_median(fig[FIG_BARRIER_LASTIN], reps),
                       fh_median(fig[FIG_NC], reps), fh_median(fig[FIG_NC_LASTIN], reps));
            if (rc == 0 && costs)
                printf("cost %u %zu %.1f %.1f %.1f %.1f %.1f %.1f\n", n, size,
                       fh_median(fig[FIG_MEMBER_VCS], reps), fh_median(fig[FIG_MEMBER_IVCS], reps),
                       fh_median(fig[FIG_SERVER_VCS], reps), fh_median(fig[FIG_SERVER_IVCS], reps),
                       fh_median(fig[FIG_EMPTY_VCS], reps), fh_median(fig[FIG_EMPTY_IVCS], reps));
            fflush(stdout);
        }
        free(slist);
    }
    free(clist);
    fh_server_finalize(tmpdir);
    return rc;
}
