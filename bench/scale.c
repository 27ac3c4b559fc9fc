/* Scale benchmark: one source, compiled once against Switchyard and once
 * against OpenPMIx 4.2.2 (bench/scale-compare.sh), using only the standard
 * API so that both builds do the same work.
 *
 *   scale reg -R RANKS -s maps|pdata|slurm [-g GETS]
 *       A host registers a job of RANKS ranks, 64 per node on RANKS/64
 *       nodes, the way ORTE and Slurm do: PMIX_NODE_MAP / PMIX_PROC_MAP
 *       from PMIx_generate_regex / PMIx_generate_ppn, the job sizes, this
 *       node's PMIX_LOCAL_PEERS, PMIX_LOCALLDR, PMIX_NODEID, and
 *       PMIX_PROC_DATA for this node's 64 ranks ("maps"), or for every
 *       rank of the job in ORTE's types ("pdata") or in Slurm's ("slurm":
 *       INT application numbers and leaders, UINT32 global ranks, this
 *       node's id for every rank).  This node is node 0, named as the
 *       machine; the others n000001, n000002, ...  Measured around
 *       PMIx_server_register_nspace, from the call to its callback: wall
 *       and CPU time (every thread of the host), the growth of the peak
 *       resident set (VmHWM, reset first through /proc/self/clear_refs)
 *       and the bytes of every file in the server's tmpdir and the growth
 *       of /dev/shm (the larger of right after the registration and after
 *       the client ran: a library may write when its first client comes).  Then one client (rank 0)
 * is started: its PMIx_Init, its first Get of a job key (PMIX_JOB_SIZE), a node key (PMIX_HOSTNAME
 * of the last node, with PMIX_NODE_INFO and PMIX_NODEID), and the PMIX_HOSTNAME, PMIX_NODEID and
 *       PMIX_LOCAL_RANK of a local rank (1) and of a remote one (the last),
 *       each timed alone and checked; then GETS repetitions of the job key
 *       and of the remote rank's host name (mean ns per Get).  Last,
 *       PMIx_server_deregister_nspace, from the call to its callback.
 *       Output, one line:
 *         R style reg_ms cpu_ms rss_mb tmpdir_mb shm_mb init_us init_cpu_us
 *         job_us node_us lhost_us lnode_us lrank_us rhost_us rnode_us
 *         rrank_us rep_job_ns rep_host_ns dereg_ms
 *       (init_cpu_us: the client's CPU time in PMIx_Init, every thread.)
 *       (-1 for a Get that found nothing.)
 *
 *   scale cycles -R RANKS -c CYCLES
 *       CYCLES register/deregister pairs of the "maps" job: the resident
 *       set after the first and after the last, and the files left in the
 *       tmpdir (beyond those the server had before the first).  Output: "R cycles rss_first_kb
 * rss_last_kb leftover_files"
 *
 *   scale clients -n N [-r REPS]
 *       N local clients of one server (a job registered as mpirun does):
 *       PMIx_Init; PMIx_Fence; PMIx_Fence with PMIX_COLLECT_DATA after a
 *       Put of 1 KiB each; a Get of every peer's 1 KiB, checked; Finalize.
 *       Each phase between barriers outside PMIx (pipes to the host); the
 *       slowest rank, and for the collectives and Finalize also from the
 *       last rank's entry to the last rank's return (CLOCK_MONOTONIC is
 *       one clock for the machine's processes), which leaves out how
 *       unevenly the barrier before woke 128 processes on 2 cores; medians
 *       over REPS launches.  Output:
 *         N init_us fence_us collect_us getall_us finalize_us
 *         fence_lastin_us collect_lastin_us finalize_lastin_us */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "../tests/integration/forkhost.h"

#define PPN 64u
#define NSPACE "scale.job"

static char host[256];

/* Node i's name: this machine for node 0. */
static void node_name(uint32_t i, char *buf, size_t len)
{
    if (i == 0)
        snprintf(buf, len, "%s", host);
    else
        snprintf(buf, len, "n%06u", i);
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* A field of /proc/self/status, in kB. */
static long status_kb(const char *field)
{
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, field, len) == 0 && line[len] == ':')
            kb = strtol(line + len + 1, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kb;
}

static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

/* Bytes allocated to the files under dir; *files counts them. */
static double dir_bytes(const char *dir, long *files)
{
    double total = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            total += dir_bytes(path, files);
        } else {
            total += (double)st.st_blocks * 512;
            if (files != NULL)
                (*files)++;
        }
    }
    if (d != NULL)
        closedir(d);
    return total;
}

static double shm_used(void)
{
    struct statvfs v;
    return statvfs("/dev/shm", &v) == 0 ? (double)(v.f_blocks - v.f_bfree) * v.f_frsize : 0;
}

/* ---- the registration ---- */

static void load_u32(pmix_info_t *i, const char *key, uint32_t u)
{
    PMIX_INFO_LOAD(i, key, &u, PMIX_UINT32);
}

static void load_rank(pmix_info_t *i, const char *key, pmix_rank_t r)
{
    PMIX_INFO_LOAD(i, key, &r, PMIX_PROC_RANK);
}

static void load_u16(pmix_info_t *i, const char *key, uint16_t u)
{
    PMIX_INFO_LOAD(i, key, &u, PMIX_UINT16);
}

static void load_int(pmix_info_t *i, const char *key, int v)
{
    PMIX_INFO_LOAD(i, key, &v, PMIX_INT);
}

/* A PMIX_PROC_DATA array holding pd (taken over). */
static void load_pdata(pmix_info_t *i, pmix_info_t *pd, size_t n)
{
    pmix_data_array_t *da = malloc(sizeof(*da));
    da->type = PMIX_INFO;
    da->size = n;
    da->array = pd;
    PMIX_LOAD_KEY(i->key, PMIX_PROC_DATA);
    i->value.type = PMIX_DATA_ARRAY;
    i->value.data.darray = da;
}

/* Rank r's data: ORTE's (the standard's types) or Slurm's. */
static void load_rank_data(pmix_info_t *i, uint32_t r, bool slurm)
{
    char name[300];
    uint32_t node = r / PPN;
    node_name(node, name, sizeof name);
    pmix_info_t *pd;
    size_t n = 7, k = 0;
    PMIX_INFO_CREATE(pd, n);
    load_rank(&pd[k++], PMIX_RANK, r);
    if (slurm) {
        load_int(&pd[k++], PMIX_APPNUM, 0);
        load_int(&pd[k++], PMIX_APPLDR, 0);
        load_u32(&pd[k++], PMIX_GLOBAL_RANK, r);
        load_u32(&pd[k++], PMIX_APP_RANK, r);
        PMIX_INFO_LOAD(&pd[k++], PMIX_HOSTNAME, name, PMIX_STRING);
        load_u32(&pd[k++], PMIX_NODEID, 0); /* this node's, as Slurm gives */
    } else {
        load_rank(&pd[k++], PMIX_GLOBAL_RANK, r);
        load_u16(&pd[k++], PMIX_LOCAL_RANK, (uint16_t)(r % PPN));
        load_u16(&pd[k++], PMIX_NODE_RANK, (uint16_t)(r % PPN));
        load_u32(&pd[k++], PMIX_NODEID, node);
        load_u32(&pd[k++], PMIX_APPNUM, 0);
        PMIX_INFO_LOAD(&pd[k++], PMIX_HOSTNAME, name, PMIX_STRING);
    }
    load_pdata(i, pd, k);
}

/* The growable text the map generators are given. */
typedef struct {
    char *s;
    size_t len, cap;
} text_t;

static void text_add(text_t *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = t->cap == 0 ? 1 << 20 : 2 * t->cap;
        while (t->cap < t->len + n + 1)
            t->cap *= 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

/* The job's description; *n entries. */
static pmix_info_t *describe(uint32_t R, const char *style, size_t *n)
{
    uint32_t nodes = (R + PPN - 1) / PPN;
    bool all = strcmp(style, "maps") != 0, slurm = strcmp(style, "slurm") == 0;
    text_t names = {0}, procs = {0}, peers = {0};
    char buf[300], *nmap = NULL, *pmap = NULL;
    for (uint32_t i = 0; i < nodes; i++) {
        node_name(i, buf, sizeof buf);
        if (i > 0)
            text_add(&names, ",");
        text_add(&names, buf);
        for (uint32_t r = i * PPN; r < (i + 1) * PPN && r < R; r++) {
            snprintf(buf, sizeof buf, "%s%u", r == i * PPN ? (i ? ";" : "") : ",", r);
            text_add(&procs, buf);
            if (i == 0) {
                snprintf(buf, sizeof buf, "%s%u", r ? "," : "", r);
                text_add(&peers, buf);
            }
        }
    }
    if (PMIx_generate_regex(names.s, &nmap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(procs.s, &pmap) != PMIX_SUCCESS) {
        fprintf(stderr, "scale: cannot generate the maps\n");
        exit(1);
    }
    size_t cap = 16 + (all ? R : PPN), k = 0;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, cap);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, NSPACE, PMIX_STRING);
    load_u32(&info[k++], PMIX_NPROC_OFFSET, 0);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, pmap, PMIX_STRING);
    load_u32(&info[k++], PMIX_NODEID, 0);
    load_u32(&info[k++], PMIX_NODE_SIZE, R < PPN ? R : PPN);
    load_u32(&info[k++], PMIX_NUM_NODES, nodes);
    load_u32(&info[k++], PMIX_UNIV_SIZE, R);
    load_u32(&info[k++], PMIX_MAX_PROCS, R);
    load_u32(&info[k++], PMIX_JOB_SIZE, R);
    load_u32(&info[k++], PMIX_JOB_NUM_APPS, 1);
    load_u32(&info[k++], PMIX_LOCAL_SIZE, R < PPN ? R : PPN);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, peers.s, PMIX_STRING);
    load_rank(&info[k++], PMIX_LOCALLDR, 0);
    for (uint32_t r = 0; r < (all ? R : PPN) && r < R; r++)
        load_rank_data(&info[k++], r, slurm);
    free(nmap);
    free(pmap);
    free(names.s);
    free(procs.s);
    free(peers.s);
    *n = k;
    return info;
}

static pmix_status_t reg(pmix_info_t *info, size_t n, uint32_t R)
{
    fh_waiter_t w = FH_WAITER;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    return fh_wait(PMIx_server_register_nspace(ns, (int)(R < PPN ? R : PPN), info, n, fh_op_cb, &w),
                   &w);
}

static void dereg(void)
{
    fh_waiter_t w = FH_WAITER;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    PMIx_server_deregister_nspace(ns, fh_op_cb, &w);
    fh_wait(PMIX_SUCCESS, &w);
}

/* ---- the client of "reg" ---- */

static double ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Every Get carries PMIX_OPTIONAL: what the library holds or can derive,
 * never a request to the host (whose module here has no direct_modex). */
static pmix_info_t optional;

/* One Get, timed and checked: microseconds, -1 when absent or wrong.  q
 * (nq, at most 3 entries) qualifies it. */
static double timed_get(uint32_t rank, const char *key, pmix_info_t *q, size_t nq,
                        const char *want_str, int64_t want)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NSPACE, rank);
    pmix_value_t *v = NULL;
    pmix_info_t all[4];
    if (nq > 0)
        memcpy(all, q, nq * sizeof(*q));
    all[nq] = optional;
    double t0 = ns_now();
    pmix_status_t rc = PMIx_Get(&p, key, all, nq + 1, &v);
    double t = (ns_now() - t0) / 1e3;
    if (rc != PMIX_SUCCESS)
        return -1;
    bool ok;
    if (want_str != NULL) {
        ok = v->type == PMIX_STRING && v->data.string != NULL &&
             strcmp(v->data.string, want_str) == 0;
    } else {
        int64_t got = v->type == PMIX_UINT16 ? v->data.uint16
                      : v->type == PMIX_INT  ? v->data.integer
                                             : (int64_t)v->data.uint32;
        ok = got == want;
    }
    PMIX_VALUE_RELEASE(v);
    if (!ok)
        fprintf(stderr, "scale client: a wrong value of %s for rank %u\n", key, rank);
    return ok ? t : -1;
}

/* PMIx_Get of (rank, key), checked against the integer or string: the
 * loop of repeated Gets, without a clock read per Get. */
static bool plain_get(uint32_t rank, const char *key, const char *want_str, uint32_t want)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NSPACE, rank);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&p, key, &optional, 1, &v) != PMIX_SUCCESS)
        return false;
    bool ok = want_str != NULL ? v->type == PMIX_STRING && strcmp(v->data.string, want_str) == 0
                               : v->data.uint32 == want;
    PMIX_VALUE_RELEASE(v);
    return ok;
}

static int reg_client(uint32_t R, int gets)
{
    pmix_proc_t me;
    bool yes = true;
    PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    double c0 = cpu_ms(), t0 = ns_now();
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    double init = (ns_now() - t0) / 1e3, init_cpu = (cpu_ms() - c0) * 1e3;
    uint32_t last = R - 1, last_node = last / PPN;
    char lname[300], rname[300];
    node_name(0, lname, sizeof lname);
    node_name(last_node, rname, sizeof rname);
    pmix_info_t q[2];
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &last_node, PMIX_UINT32);
    double job = timed_get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0, NULL, R);
    double node = timed_get(PMIX_RANK_WILDCARD, PMIX_HOSTNAME, q, 2, rname, 0);
    double lhost = timed_get(1, PMIX_HOSTNAME, NULL, 0, lname, 0);
    double lnode = timed_get(1, PMIX_NODEID, NULL, 0, NULL, 0);
    double lrank = timed_get(1, PMIX_LOCAL_RANK, NULL, 0, NULL, 1);
    double rhost = timed_get(last, PMIX_HOSTNAME, NULL, 0, rname, 0);
    double rnode = timed_get(last, PMIX_NODEID, NULL, 0, NULL, last_node);
    double rrank = timed_get(last, PMIX_LOCAL_RANK, NULL, 0, NULL, last % PPN);
    double rep_job = -1, rep_host = -1;
    bool ok = true;
    if (job >= 0) {
        double s = ns_now();
        for (int i = 0; i < gets; i++)
            ok = plain_get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, R) && ok;
        rep_job = (ns_now() - s) / gets;
    }
    if (rhost >= 0) {
        double s = ns_now();
        for (int i = 0; i < gets; i++)
            ok = plain_get(last, PMIX_HOSTNAME, rname, 0) && ok;
        rep_host = (ns_now() - s) / gets;
    }
    if (!ok) {
        fprintf(stderr, "scale client: a repeated Get failed\n");
        rep_job = rep_host = -1;
    }
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    printf("%.1f %.1f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.1f %.1f\n", init, init_cpu, job,
           node, lhost, lnode, lrank, rhost, rnode, rrank, rep_job, rep_host);
    fflush(stdout);
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}

/* ---- the host of "reg" and "cycles" ---- */

static int reg_host(uint32_t R, const char *style, int gets)
{
    pmix_server_module_t module = {0};
    char tmpdir[] = "/tmp/sy-scale-XXXXXX";
    if (fh_server_init(&module, tmpdir) != PMIX_SUCCESS)
        return 1;
    size_t n;
    pmix_info_t *info = describe(R, style, &n);
    double shm0 = shm_used();
    long rss0 = status_kb("VmRSS");
    reset_peak();
    double c0 = cpu_ms(), t0 = fh_now_us();
    pmix_status_t rc = reg(info, n, R);
    double t1 = fh_now_us(), c1 = cpu_ms();
    long hwm = status_kb("VmHWM");
    double shm1 = shm_used();
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "scale: register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    double files = dir_bytes(tmpdir, NULL);
    PMIX_INFO_FREE(info, n);

    /* the client: rank 0, on this node */
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NSPACE, 0);
    fh_waiter_t wc = FH_WAITER;
    fh_wait(PMIx_server_register_client(&p, getuid(), getgid(), NULL, fh_op_cb, &wc), &wc);
    char self[4096], rs[16], gs[16];
    int out[2];
    if (fh_self(self, sizeof self) != 0 || pipe(out) != 0)
        return 1;
    snprintf(rs, sizeof rs, "%u", R);
    snprintf(gs, sizeof gs, "%d", gets);
    char *argv[] = {self, "reg-client", rs, gs, NULL};
    char **env = NULL;
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        execv(self, argv);
        _exit(127);
    }
    close(out[1]);
    char line[512] = "";
    FILE *f = fdopen(out[0], "r");
    if (f == NULL || fgets(line, sizeof line, f) == NULL)
        snprintf(line, sizeof line, "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n");
    if (f != NULL)
        fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    line[strcspn(line, "\n")] = '\0';
    /* what a library wrote for the job, whether at registration or when
     * its first client came */
    double files_after = dir_bytes(tmpdir, NULL), shm2 = shm_used();
    if (files_after > files)
        files = files_after;
    if (shm2 > shm1)
        shm1 = shm2;
    fh_waiter_t wd = FH_WAITER;
    PMIx_server_deregister_client(&p, fh_op_cb, &wd);
    fh_wait(PMIX_SUCCESS, &wd);

    double d0 = fh_now_us();
    dereg();
    double d1 = fh_now_us();
    printf("%u %s %.1f %.1f %.1f %.2f %.2f %s %.2f\n", R, style, (t1 - t0) / 1e3, c1 - c0,
           (double)(hwm - rss0) / 1024, files / 1048576, (shm1 - shm0) / 1048576, line,
           (d1 - d0) / 1e3);
    fflush(stdout);
    fh_server_finalize(tmpdir);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int cycles_host(uint32_t R, int cycles)
{
    pmix_server_module_t module = {0};
    char tmpdir[] = "/tmp/sy-scale-XXXXXX";
    if (fh_server_init(&module, tmpdir) != PMIX_SUCCESS)
        return 1;
    size_t n;
    pmix_info_t *info = describe(R, "maps", &n);
    long first = 0, last = 0, files = 0, before = 0;
    dir_bytes(tmpdir, &before); /* the server's own files (sockets, rendezvous) */
    for (int c = 0; c < cycles; c++) {
        if (reg(info, n, R) != PMIX_SUCCESS)
            return 1;
        dereg();
        if (c == 0)
            first = status_kb("VmRSS");
        last = status_kb("VmRSS");
    }
    dir_bytes(tmpdir, &files);
    PMIX_INFO_FREE(info, n);
    printf("%u %d %ld %ld %ld\n", R, cycles, first, last, files - before);
    fh_server_finalize(tmpdir);
    return 0;
}

/* ---- "clients" ---- */

#define KIB 1024
#define NSTEPS 4 /* barriers each client passes */

static void payload(pmix_rank_t rank, unsigned char *out)
{
    uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)rank + 1) * 0xbf58476d1ce4e5b9ull;
    for (size_t i = 0; i < KIB; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (unsigned char)x;
    }
}

static int many_client(int fd, const char *barrier)
{
    fh_step_t s;
    if (fh_step_parse(barrier, &s) != 0)
        return 6;
    pmix_proc_t me;
    double t0 = fh_now_us();
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    double init = fh_now_us() - t0;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
        return 2;
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    unsigned char mine[KIB], *want = malloc((size_t)n * KIB);
    for (pmix_rank_t r = 0; r < n; r++)
        payload(r, want + (size_t)r * KIB);
    if (fh_step(&s) != 0)
        return 6;
    double f_in = fh_now_us();
    if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
        return 3;
    double f_out = fh_now_us();
    payload(me.rank, mine);
    pmix_value_t val;
    pmix_byte_object_t bo = {.bytes = (char *)mine, .size = KIB};
    PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
    if (PMIx_Put(PMIX_GLOBAL, "scale.blob", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        return 3;
    PMIX_VALUE_DESTRUCT(&val);
    if (fh_step(&s) != 0)
        return 6;
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    double c_in = fh_now_us();
    if (PMIx_Fence(NULL, 0, &collect, 1) != PMIX_SUCCESS)
        return 4;
    double c_out = fh_now_us();
    PMIX_INFO_DESTRUCT(&collect);
    if (fh_step(&s) != 0)
        return 6;
    t0 = fh_now_us();
    for (pmix_rank_t r = 0; r < n; r++) {
        if (r == me.rank)
            continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        v = NULL;
        if (PMIx_Get(&peer, "scale.blob", NULL, 0, &v) != PMIX_SUCCESS ||
            v->type != PMIX_BYTE_OBJECT || v->data.bo.size != KIB ||
            memcmp(v->data.bo.bytes, want + (size_t)r * KIB, KIB) != 0) {
            fprintf(stderr, "scale client %u: wrong data for rank %u\n", me.rank, r);
            return 5;
        }
        PMIX_VALUE_RELEASE(v);
    }
    double getall = fh_now_us() - t0;
    free(want);
    if (fh_step(&s) != 0)
        return 6;
    double z_in = fh_now_us();
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        return 7;
    double z_out = fh_now_us();
    char line[300];
    int len = snprintf(line, sizeof line, "%u %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", me.rank,
                       init, f_in, f_out, c_in, c_out, getall, z_in, z_out);
    return write(fd, line, (size_t)len) == len ? 0 : 8;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* One node: the all-gather of this node's blob is the blob itself. */
static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    char *copy = ndata > 0 ? malloc(ndata) : NULL;
    if (ndata > 0)
        memcpy(copy, data, ndata);
    free(data);
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

static int many_host(unsigned n, int reps)
{
    pmix_server_module_t module = {0};
    module.fence_nb = host_fence;
    char tmpdir[] = "/tmp/sy-scale-XXXXXX";
    if (fh_server_init(&module, tmpdir) != PMIX_SUCCESS)
        return 1;
    /* slowest rank: init, fence, collect, getall, finalize; then
     * last-in to all-out: fence, collect, finalize */
    double *phase[8];
    for (int k = 0; k < 8; k++)
        phase[k] = calloc((size_t)reps, sizeof(double));
    pid_t *pids = calloc(n, sizeof(pid_t));
    for (int rep = 0; rep < reps; rep++) {
        char ns[64];
        snprintf(ns, sizeof ns, "scale.n%u.%d", n, rep);
        if (fh_register_job(ns, n) != PMIX_SUCCESS)
            return 1;
        int res[2];
        if (pipe(res) != 0)
            return 1;
        char fdarg[16];
        snprintf(fdarg, sizeof fdarg, "%d", res[1]);
        char *args[] = {"many-client", fdarg, NULL};
        fh_barrier_t b;
        if (fh_start_job(ns, n, args, &b, pids) != 0)
            return 1;
        close(res[1]);
        for (int step = 0; step < NSTEPS; step++) {
            if (fh_barrier_gather(&b, n, 600000) != (int)n) {
                fprintf(stderr, "scale: a client went away\n");
                return 1;
            }
            fh_barrier_release(&b, n);
        }
        double worst[8] = {0}, last_in[3] = {0}, last_out[3] = {0};
        FILE *f = fdopen(res[0], "r");
        char line[300];
        unsigned got = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            double v[8];
            unsigned r;
            if (sscanf(line, "%u %lf %lf %lf %lf %lf %lf %lf %lf", &r, &v[0], &v[1], &v[2], &v[3],
                       &v[4], &v[5], &v[6], &v[7]) != 9)
                continue;
            got++;
            double d[5] = {v[0], v[2] - v[1], v[4] - v[3], v[5], v[7] - v[6]};
            for (int k = 0; k < 5; k++)
                worst[k] = d[k] > worst[k] ? d[k] : worst[k];
            const int in[3] = {1, 3, 6};
            for (int k = 0; k < 3; k++) {
                last_in[k] = v[in[k]] > last_in[k] ? v[in[k]] : last_in[k];
                last_out[k] = v[in[k] + 1] > last_out[k] ? v[in[k] + 1] : last_out[k];
            }
        }
        for (int k = 0; k < 3; k++)
            worst[5 + k] = last_out[k] - last_in[k];
        if (f != NULL)
            fclose(f);
        for (unsigned r = 0; r < n; r++)
            waitpid(pids[r], NULL, 0);
        fh_barrier_close(&b);
        fh_deregister_job(ns, n);
        if (got != n) {
            fprintf(stderr, "scale: %u of %u clients reported\n", got, n);
            return 1;
        }
        for (int k = 0; k < 8; k++)
            phase[k][rep] = worst[k];
    }
    printf("%u", n);
    for (int k = 0; k < 8; k++)
        printf(" %.1f", fh_median(phase[k], reps));
    printf("\n");
    fh_server_finalize(tmpdir);
    return 0;
}

int main(int argc, char **argv)
{
    gethostname(host, sizeof host - 1);
    if (argc >= 4 && strcmp(argv[1], "reg-client") == 0)
        return reg_client((uint32_t)strtoul(argv[2], NULL, 10), atoi(argv[3]));
    if (argc >= 4 && strcmp(argv[1], "many-client") == 0)
        return many_client(atoi(argv[2]), argv[3]);
    uint32_t R = 10000;
    int gets = 20000, cycles = 100, reps = 3;
    unsigned nclients = 128;
    const char *style = "maps";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-R") == 0)
            R = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "-s") == 0)
            style = argv[i + 1];
        else if (strcmp(argv[i], "-g") == 0)
            gets = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-c") == 0)
            cycles = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-n") == 0)
            nclients = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-r") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (argc >= 2 && strcmp(argv[1], "reg") == 0)
        return reg_host(R, style, gets);
    if (argc >= 2 && strcmp(argv[1], "cycles") == 0)
        return cycles_host(R, cycles);
    if (argc >= 2 && strcmp(argv[1], "clients") == 0)
        return many_host(nclients, reps);
    fprintf(stderr, "usage: scale reg -R RANKS -s maps|pdata|slurm [-g GETS]\n"
                    "       scale cycles -R RANKS -c CYCLES\n"
                    "       scale clients -n N [-r REPS]\n");
    return 2;
}
