/* How hosts really call the server library and complete its upcalls
 * (Slurm's slurmstepd, Open MPI's ORTE, PRRTE), checked with a host of
 * ours and real clients (this program exec'd), one scenario at a time:
 *
 *   early:   a host thread calls setup_fork before and while
 *            PMIx_server_init runs (PMIX_ERR_INIT, then SUCCESS); the first
 *            event handler is id 0 and PMIx_Deregister_event_handler(0)
 *            succeeds, an unknown id is PMIX_ERR_BAD_PARAM.
 *   fork:    setup_fork in a forked child, where no progress thread
 *            exists, while another host thread keeps the server busy; in
 *            that child a call that needs the loop fails at once; rank 1
 *            is registered only after its child ran setup_fork.  The v1
 *            client_connected returns SUCCESS and never calls back (as
 *            Slurm's).  fence_nb and direct_modex complete inside the
 *            upcall under a non-recursive (error-checking) host lock that
 *            the release_fn also takes: release_fn must come after cbfunc
 *            returned, from another thread.
 *   agent:   client_connected2 answers 300 ms later from another thread
 *            (PMIx_Init waits for it); fence_nb and direct_modex complete
 *            from the host's agent thread under its lock; the node and
 *            process maps are registered typed PMIX_REGEX.
 *   errors:  fence_nb and direct_modex call back with PMIX_ERROR and
 *            also return it (Slurm's error paths); publish returns
 *            NOT_SUPPORTED and calls back later anyway; lookup returns
 *            PMIX_OPERATION_SUCCEEDED; client_connected2 refuses rank 1
 *            by calling back inside the upcall.
 *   cleanup: PMIX_REGISTER_CLEANUP(_DIR), RECURSIVE, IGNORE, job scope,
 *            a rank that dies; as root the client runs as nobody and
 *            nothing it could not remove itself is removed (a root-owned
 *            file, a symbolic link's target).  job_control gets only what
 *            is not cleanup.
 *   final:   PMIx_server_finalize while fence_nb holds a fence; the
 *            clients' fence fails, finalize returns; the host's late
 *            callback afterwards is harmless and its release_fn runs.
 * Exit status 0 when all held; "FAIL(...)" lines say what did not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "forkhost.h"

#define REMOTE_HOST "remote.test"

/* clang 14's ASan allocator is not fork-safe: a forked child that
 * allocates deadlocks when another thread of the parent was allocating at
 * fork() time.  setup_fork allocates by contract, so in a sanitizer build
 * the forks happen while nothing else of the host runs (no stress thread,
 * no client connected yet). */
#if defined(__SANITIZE_ADDRESS__)
#define SY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY_ASAN 1
#endif
#endif
#ifndef SY_ASAN
#define SY_ASAN 0
#endif

static const char *who = "host";
static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_conventions %s): ", who);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static double now_s(void)
{
    return fh_now_us() / 1e6;
}

/* ================= client ================= */

static pmix_proc_t me;

static pmix_status_t put_commit(const char *key, const char *val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc == PMIX_SUCCESS ? PMIx_Commit() : rc;
}

static pmix_status_t fence(bool collect)
{
    pmix_info_t c[2];
    bool yes = true;
    int secs = 20;
    PMIX_INFO_LOAD(&c[0], PMIX_TIMEOUT, &secs, PMIX_INT);
    PMIX_INFO_LOAD(&c[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, c, collect ? 2 : 1);
    PMIX_INFO_DESTRUCT(&c[0]);
    PMIX_INFO_DESTRUCT(&c[1]);
    return rc;
}

/* A Get of a key of the remote rank: asks the host's direct_modex. */
static pmix_status_t get_remote(void)
{
    pmix_proc_t r;
    PMIX_LOAD_PROCID(&r, me.nspace, 2);
    pmix_info_t t;
    int secs = 20;
    PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&r, "conv.key", &t, 1, &v);
    PMIX_INFO_DESTRUCT(&t);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return rc;
}

static void check_peer(void)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, 1 - me.rank);
    pmix_value_t *v = NULL;
    char want[32];
    snprintf(want, sizeof want, "value-%u", 1 - me.rank);
    pmix_status_t rc = PMIx_Get(&p, "conv.key", NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || strcmp(v->data.string, want) != 0)
        FAIL("Get of the peer's key after the fence: %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

/* The job data that comes from the maps: the remote rank's host. */
static void check_maps(void)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, 2);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || strcmp(v->data.string, REMOTE_HOST) != 0)
        FAIL("rank 2's PMIX_HOSTNAME (from the node/proc maps): %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static pmix_status_t job_control(bool job, const pmix_info_t *dirs, size_t n)
{
    return PMIx_Job_control(job ? NULL : &me, job ? 0 : 1, dirs, n, NULL, NULL);
}

static void touch(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0)
        FAIL("cannot create %s: %s", path, strerror(errno));
    else
        close(fd);
}

/* Rank 0 registers its tree and finalizes; rank 1 registers its own and
 * dies without finalizing. */
static void client_cleanup(const char *base)
{
    char p[8][4096];
    const char *names[] = {"r0", "r0/a", "r0/sub", "r0/sub/b", "r0/keep", "r0/link", "r1", "r1/x"};
    for (int i = 0; i < 8; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", base, names[i]);
    char file0[4096], file1[4096], job[4096], jobf[4096], rootfile[4096], outside[4096];
    snprintf(file0, sizeof file0, "%s/file0", base);
    snprintf(file1, sizeof file1, "%s/file1", base);
    snprintf(job, sizeof job, "%s/job", base);
    snprintf(jobf, sizeof jobf, "%s/job/f", base);
    snprintf(rootfile, sizeof rootfile, "%s/rootfile", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    bool yes = true;
    pmix_info_t d[3];
    pmix_status_t rc;
    if (me.rank == 0) {
        mkdir(p[0], 0755);
        touch(p[1]);
        mkdir(p[2], 0755);
        touch(p[3]);
        touch(p[4]);
        if (symlink(outside, p[5]) != 0)
            FAIL("symlink: %s", strerror(errno));
        touch(file0);
        touch(file1);
        mkdir(job, 0755);
        touch(jobf);
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP_DIR, p[0], PMIX_STRING);
        PMIX_INFO_LOAD(&d[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&d[2], PMIX_CLEANUP_IGNORE, p[4], PMIX_STRING);
        if ((rc = job_control(false, d, 3)) != PMIX_SUCCESS)
            FAIL("cleanup of r0: %s", PMIx_Error_string(rc));
        for (int i = 0; i < 3; i++)
            PMIX_INFO_DESTRUCT(&d[i]);
        /* two files in one list, one of them the host's own */
        char both[8300];
        snprintf(both, sizeof both, "%s,%s", file0, rootfile);
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP, both, PMIX_STRING);
        if ((rc = job_control(false, d, 1)) != PMIX_SUCCESS)
            FAIL("cleanup of file0: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
        /* the job's, done when the namespace goes */
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP_DIR, job, PMIX_STRING);
        PMIX_INFO_LOAD(&d[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
        if ((rc = job_control(true, d, 2)) != PMIX_SUCCESS)
            FAIL("job cleanup: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
        PMIX_INFO_DESTRUCT(&d[1]);
        /* cleanup beside a directive for the host, which gets that alone */
        int sig = SIGUSR2;
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP, file1, PMIX_STRING);
        PMIX_INFO_LOAD(&d[1], PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        if ((rc = job_control(false, d, 2)) != PMIX_SUCCESS)
            FAIL("cleanup + signal: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
        PMIX_INFO_DESTRUCT(&d[1]);
        /* refused: relative, and a path both kept and removed */
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP, "relative/path", PMIX_STRING);
        if ((rc = job_control(false, d, 1)) != PMIX_ERR_BAD_PARAM)
            FAIL("a relative path: %s, expected BAD-PARAM", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
        PMIX_INFO_LOAD(&d[0], PMIX_CLEANUP_IGNORE, file0, PMIX_STRING);
        if ((rc = job_control(false, d, 1)) != PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES)
            FAIL("ignoring a registered file: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
    } else {
        mkdir(p[6], 0755);
        touch(p[7]);
        PMIX_INFO_LOAD(&d[0], PMIX_REGISTER_CLEANUP_DIR, p[6], PMIX_STRING);
        if ((rc = job_control(false, d, 1)) != PMIX_SUCCESS)
            FAIL("cleanup of r1: %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
    }
}

static int client(const char *mode, const char *arg)
{
    double t0 = now_s();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double took = now_s() - t0;
    if (strcmp(mode, "errors") == 0 && rc != PMIX_SUCCESS)
        return 10; /* refused by the host: what the host expects of rank 1 */
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 1;
    }
    static char name[48];
    snprintf(name, sizeof name, "%s rank %u", mode, me.rank);
    who = name;
    check_maps();
    char val[32];
    snprintf(val, sizeof val, "value-%u", me.rank);
    if ((rc = put_commit("conv.key", val)) != PMIX_SUCCESS)
        FAIL("put/commit: %s", PMIx_Error_string(rc));
    if (strcmp(mode, "fence") == 0 || strcmp(mode, "agent") == 0) {
        if (strcmp(mode, "agent") == 0 && took < 0.25)
            FAIL("PMIx_Init returned after %.3f s: before client_connected2 called back", took);
        if ((rc = fence(true)) != PMIX_SUCCESS)
            FAIL("fence with collect: %s", PMIx_Error_string(rc));
        else
            check_peer();
        if ((rc = get_remote()) != PMIX_ERR_NOT_FOUND)
            FAIL("direct modex of the remote rank: %s, the host said NOT-FOUND",
                 PMIx_Error_string(rc));
        if ((rc = fence(false)) != PMIX_SUCCESS)
            FAIL("fence: %s", PMIx_Error_string(rc));
    } else if (strcmp(mode, "errors") == 0) {
        /* with the remote rank only: rank 1 was refused */
        pmix_proc_t two[2];
        PMIX_LOAD_PROCID(&two[0], me.nspace, me.rank);
        PMIX_LOAD_PROCID(&two[1], me.nspace, 2);
        if ((rc = PMIx_Fence(two, 2, NULL, 0)) == PMIX_SUCCESS)
            FAIL("a fence the host failed succeeded");
        if ((rc = get_remote()) == PMIX_SUCCESS)
            FAIL("a direct modex the host failed succeeded");
        pmix_info_t pub;
        PMIX_INFO_LOAD(&pub, "conv.pub", "x", PMIX_STRING);
        if ((rc = PMIx_Publish(&pub, 1)) != PMIX_ERR_NOT_SUPPORTED)
            FAIL("publish: %s, the host said NOT-SUPPORTED", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&pub);
        pmix_pdata_t pd;
        PMIX_PDATA_CONSTRUCT(&pd);
        PMIX_LOAD_KEY(pd.key, "conv.pub");
        if ((rc = PMIx_Lookup(&pd, 1, NULL, 0)) != PMIX_ERR_NOT_FOUND)
            FAIL("lookup: %s, expected NOT-FOUND", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&pd);
    } else if (strcmp(mode, "cleanup") == 0) {
        client_cleanup(arg);
        if (me.rank == 1)
            _exit(failures == 0 ? 0 : 4); /* dies without finalizing */
    } else if (strcmp(mode, "final") == 0) {
        /* the server goes away while we wait */
        if ((rc = fence(true)) == PMIX_SUCCESS)
            FAIL("the fence succeeded although the server finalized");
        PMIx_Finalize(NULL, 0); /* fails (no server); frees what it can */
        return failures == 0 ? 0 : 4;
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 4;
}

/* ================= host ================= */

static pthread_mutex_t host_lock; /* error-checking: a self-deadlock is EDEADLK */
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_connected, n_fence, n_dmodex, n_released, n_callbacks_with_release, n_jc;
static int jc_ndirs = -1; /* besides the requester's ids */
static bool jc_ids;       /* PMIX_USERID and PMIX_GRPID, which the library adds */
static char jc_key[PMIX_MAX_KEYLEN + 1];
static pthread_t cb_thread;
static bool in_cb; /* under host_lock */

static void count(int *c)
{
    pthread_mutex_lock(&count_lock);
    (*c)++;
    pthread_mutex_unlock(&count_lock);
}

static int counted(const int *c)
{
    pthread_mutex_lock(&count_lock);
    int v = *c;
    pthread_mutex_unlock(&count_lock);
    return v;
}

/* The release_fn: it takes the host's lock, as Slurm's does. */
static void host_release(void *cbdata)
{
    int e = pthread_mutex_lock(&host_lock);
    if (e == EDEADLK)
        FAIL("release_fn called on the host's thread while it holds its lock (inside cbfunc)");
    else if (in_cb && pthread_equal(cb_thread, pthread_self()))
        FAIL("release_fn called inside cbfunc");
    if (e == 0)
        pthread_mutex_unlock(&host_lock);
    free(cbdata);
    count(&n_released);
}

/* cbfunc under the host's lock, as Slurm calls it. */
static void modex_locked(pmix_modex_cbfunc_t cbfunc, void *cbdata, pmix_status_t status,
                         const char *data, size_t ndata, bool with_release)
{
    char *copy = NULL;
    if (with_release) {
        copy = malloc(ndata > 0 ? ndata : 1);
        if (ndata > 0)
            memcpy(copy, data, ndata);
        count(&n_callbacks_with_release);
    }
    pthread_mutex_lock(&host_lock);
    cb_thread = pthread_self();
    in_cb = true;
    cbfunc(status, copy, copy != NULL ? ndata : 0, cbdata, with_release ? host_release : NULL,
           copy);
    in_cb = false;
    pthread_mutex_unlock(&host_lock);
}

typedef struct {
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
    pmix_status_t status;
    char *data;
    size_t ndata;
    /* what the upcall was given: still the library's until the callback */
    const pmix_proc_t *procs;
    size_t nprocs;
    const pmix_info_t *info;
    size_t ninfo;
} agent_job_t;

static void *agent(void *arg)
{
    agent_job_t *j = arg;
    usleep(20000);
    /* read after the upcall returned: valid until we call back */
    if (j->nprocs == 0 || strncmp(j->procs[0].nspace, "conv.", 5) != 0)
        FAIL("the procs given to the upcall are gone before the callback");
    bool keys = true;
    for (size_t i = 0; i < j->ninfo; i++)
        keys = keys && strncmp(j->info[i].key, "pmix.", 5) == 0;
    if (!keys)
        FAIL("the infos given to the upcall are gone before the callback");
    modex_locked(j->cbfunc, j->cbdata, j->status, j->data, j->ndata, true);
    free(j->data);
    free(j);
    return NULL;
}

static void run_agent(pmix_modex_cbfunc_t cbfunc, void *cbdata, pmix_status_t status, char *data,
                      size_t ndata, const pmix_proc_t *procs, size_t nprocs,
                      const pmix_info_t *info, size_t ninfo)
{
    agent_job_t *j = calloc(1, sizeof(*j));
    *j = (agent_job_t){cbfunc, cbdata, status, data, ndata, procs, nprocs, info, ninfo};
    pthread_t t;
    pthread_create(&t, NULL, agent, j);
    pthread_detach(t);
}

/* ---- fence_nb and direct_modex, one way each ---- */

static pmix_status_t fence_inside(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, char *data, size_t ndata,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    count(&n_fence);
    /* every node's data: only ours (the remote node has nobody to fence) */
    modex_locked(cbfunc, cbdata, PMIX_SUCCESS, data, ndata, true);
    free(data); /* the blob is the host's */
    return PMIX_SUCCESS;
}

static pmix_status_t fence_agent(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                 size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                 void *cbdata)
{
    count(&n_fence);
    run_agent(cbfunc, cbdata, PMIX_SUCCESS, data, ndata, procs, nprocs, info, ninfo);
    return PMIX_SUCCESS;
}

/* Slurm's error path: the callback with the error, and the error. */
static pmix_status_t fence_error(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                 size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                 void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo, (void)ndata;
    count(&n_fence);
    free(data);
    cbfunc(PMIX_ERROR, NULL, 0, cbdata, NULL, NULL);
    return PMIX_ERROR;
}

static struct {
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} held;

static pmix_status_t fence_hold(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo, (void)ndata;
    free(data);
    pthread_mutex_lock(&count_lock);
    held.cbfunc = cbfunc;
    held.cbdata = cbdata;
    n_fence++;
    pthread_mutex_unlock(&count_lock);
    return PMIX_SUCCESS;
}

static pmix_status_t dmodex_inside(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                   pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)info, (void)ninfo;
    count(&n_dmodex);
    modex_locked(cbfunc, cbdata, PMIX_ERR_NOT_FOUND, "", 0, true);
    return PMIX_SUCCESS;
}

static pmix_status_t dmodex_agent(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    count(&n_dmodex);
    run_agent(cbfunc, cbdata, PMIX_ERR_NOT_FOUND, NULL, 0, proc, 1, info, ninfo);
    return PMIX_SUCCESS;
}

static pmix_status_t dmodex_error(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)info, (void)ninfo;
    count(&n_dmodex);
    cbfunc(PMIX_ERROR, NULL, 0, cbdata, NULL, NULL);
    return PMIX_ERROR;
}

/* ---- client_connected, v1 and v2 ---- */

static pmix_status_t connected_v1_never(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cbfunc,
                                        void *cbdata)
{
    (void)p, (void)obj, (void)cbfunc, (void)cbdata;
    count(&n_connected);
    return PMIX_SUCCESS; /* Slurm's: and no callback, ever */
}

typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} later_t;

static void *connect_later(void *arg)
{
    later_t *l = arg;
    usleep(300000);
    l->cbfunc(PMIX_SUCCESS, l->cbdata);
    free(l);
    return NULL;
}

static pmix_status_t connected2_slow(const pmix_proc_t *p, void *obj, pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)p, (void)obj, (void)info, (void)ninfo;
    count(&n_connected);
    later_t *l = malloc(sizeof(*l));
    *l = (later_t){cbfunc, cbdata};
    pthread_t t;
    pthread_create(&t, NULL, connect_later, l);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

/* Rank 1 refused through a callback made inside the upcall. */
static pmix_status_t connected2_refuse1(const pmix_proc_t *p, void *obj, pmix_info_t info[],
                                        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)obj, (void)info, (void)ninfo;
    count(&n_connected);
    cbfunc(p->rank == 1 ? PMIX_ERR_NO_PERMISSIONS : PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t finalized_done(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    (void)p, (void)obj, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

/* ---- publish / lookup / job control ---- */

static void *op_later(void *arg)
{
    later_t *l = arg;
    usleep(100000);
    l->cbfunc(PMIX_SUCCESS, l->cbdata);
    free(l);
    return NULL;
}

static pmix_status_t publish_late(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)p, (void)info, (void)ninfo;
    later_t *l = malloc(sizeof(*l));
    *l = (later_t){cbfunc, cbdata};
    pthread_t t;
    pthread_create(&t, NULL, op_later, l);
    pthread_detach(t);
    return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t lookup_done(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    (void)p, (void)keys, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_job_control(const pmix_proc_t *p, const pmix_proc_t targets[],
                                      size_t ntargets, const pmix_info_t dirs[], size_t ndirs,
                                      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)p, (void)targets, (void)ntargets, (void)cbfunc, (void)cbdata;
    pthread_mutex_lock(&count_lock);
    n_jc++;
    jc_ndirs = 0;
    jc_key[0] = '\0';
    int ids = 0;
    for (size_t i = 0; i < ndirs; i++) {
        if (PMIX_CHECK_KEY(&dirs[i], PMIX_USERID) || PMIX_CHECK_KEY(&dirs[i], PMIX_GRPID)) {
            ids++;
        } else if (jc_ndirs++ == 0) {
            snprintf(jc_key, sizeof jc_key, "%s", dirs[i].key);
        }
    }
    jc_ids = ids == 2;
    pthread_mutex_unlock(&count_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

/* ---- the job: ranks 0..nlocal-1 here, rank nlocal on REMOTE_HOST ---- */

static char host_name[256];

static pmix_status_t register_job(const char *nspace, unsigned nlocal, bool regex)
{
    char nodes_in[600], procs_in[256] = "", *nodes = NULL, *procs = NULL, peers[128] = "";
    snprintf(nodes_in, sizeof nodes_in, "%s,%s", host_name, REMOTE_HOST);
    for (unsigned r = 0; r < nlocal; r++) {
        size_t len = strlen(procs_in);
        snprintf(procs_in + len, sizeof procs_in - len, "%s%u", r ? "," : "", r);
    }
    snprintf(peers, sizeof peers, "%s", procs_in);
    size_t len = strlen(procs_in);
    snprintf(procs_in + len, sizeof procs_in - len, ";%u", nlocal);
    pmix_status_t rc = PMIx_generate_regex(nodes_in, &nodes);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(procs_in, &procs);
    if (rc != PMIX_SUCCESS) {
        free(nodes);
        return rc;
    }
    uint32_t size = nlocal + 1, local = nlocal, nn = 2;
    pmix_info_t info[7];
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_NUM_NODES, &nn, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[4], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    /* typed as the standard's own examples type them, or as strings */
    PMIX_INFO_LOAD(&info[5], PMIX_NODE_MAP, nodes, regex ? PMIX_REGEX : PMIX_STRING);
    PMIX_INFO_LOAD(&info[6], PMIX_PROC_MAP, procs, regex ? PMIX_REGEX : PMIX_STRING);
    free(nodes);
    free(procs);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    /* blocking: a NULL callback */
    rc = PMIx_server_register_nspace(ns, (int)nlocal, info, 7, NULL, NULL);
    for (int i = 0; i < 7; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

static pmix_status_t register_rank(const char *nspace, pmix_rank_t r, uid_t uid, gid_t gid)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, r);
    fh_waiter_t w = FH_WAITER;
    return fh_wait(PMIx_server_register_client(&p, uid, gid, NULL, fh_op_cb, &w), &w);
}

static char self_path[4096];

/* Fork a client of rank r.  in_child: setup_fork runs in the child after
 * fork() (as slurmstepd does), which also checks that a call needing the
 * server's loop fails there at once; gate >= 0: the child waits for a byte
 * on it before exec.  uid/gid: the child becomes them (root only). */
static pid_t start_client(const char *nspace, pmix_rank_t r, const char *mode, const char *arg,
                          bool in_child, int gate, uid_t uid, gid_t gid)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, r);
    char **env = NULL;
    if (!in_child && PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30);
        if (in_child) {
            if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
                _exit(90);
            pmix_proc_t other;
            PMIX_LOAD_PROCID(&other, nspace, 99);
            double t0 = now_s();
            pmix_status_t rc = PMIx_server_register_client(&other, 0, 0, NULL, NULL, NULL);
            if (rc == PMIX_SUCCESS || now_s() - t0 > 5)
                _exit(91); /* no loop here: it cannot have worked */
            char *regex = NULL;
            if (PMIx_generate_regex("a1,a2", &regex) != PMIX_SUCCESS)
                _exit(92);
            free(regex);
        }
        if (gate >= 0) {
            char c;
            if (read(gate, &c, 1) != 1)
                _exit(93);
        }
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        if (getuid() == 0 && uid != 0 && (setgid(gid) != 0 || setuid(uid) != 0))
            _exit(94);
        char *argv[] = {self_path, "client", (char *)mode, (char *)(arg ? arg : "-"), NULL};
        alarm(0);
        execv(self_path, argv);
        _exit(127);
    }
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    return pid;
}

/* Wait for the clients; want[i]: the exit status rank i must have. */
static void wait_clients(const char *scenario, pid_t *pids, const int *want, unsigned n)
{
    double deadline = now_s() + 90;
    for (unsigned i = 0; i < n; i++) {
        int st = 0;
        pid_t got = 0;
        while (pids[i] > 0 && (got = waitpid(pids[i], &st, WNOHANG)) == 0 && now_s() < deadline)
            usleep(10000);
        if (pids[i] <= 0) {
            FAIL("%s: rank %u was not started", scenario, i);
        } else if (got == 0) {
            FAIL("%s: rank %u hangs", scenario, i);
            kill(pids[i], SIGKILL);
            waitpid(pids[i], &st, 0);
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != want[i]) {
            FAIL("%s: rank %u ended with %s %d, expected exit %d", scenario, i,
                 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
                 want[i]);
        }
    }
}

static char tmpdir[4096];

static bool server_up(pmix_server_module_t *m)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/sy-conv.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        FAIL("mkdtemp: %s", strerror(errno));
        return false;
    }
    chmod(tmpdir, 0755); /* clients of another uid (cleanup) reach the socket */
    pmix_info_t info[3];
    mode_t mode = 0777;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SOCKET_MODE, &mode, PMIX_UINT32);
    pmix_status_t rc = PMIx_server_init(m, info, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        rmdir(tmpdir);
        return false;
    }
    return true;
}

static void server_down(void)
{
    pmix_status_t rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    if (rmdir(tmpdir) != 0)
        FAIL("%s left behind: %s", tmpdir, strerror(errno));
}

static void deregister_job(const char *nspace)
{
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    PMIx_server_deregister_nspace(ns, NULL, NULL); /* blocking: NULL callback */
}

/* ---- scenarios ---- */

static atomic_bool early_stop;
static atomic_int early_bad, early_ok;

static void *early_setup_fork(void *arg)
{
    (void)arg;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "conv.early", 0);
    while (!early_stop) {
        char **env = NULL;
        pmix_status_t rc = PMIx_server_setup_fork(&p, &env);
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            free(env[i]);
        free(env);
        if (rc == PMIX_SUCCESS)
            early_ok++;
        else if (rc != PMIX_ERR_INIT)
            early_bad++;
    }
    return NULL;
}

static void evh(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[], size_t n,
                pmix_info_t res[], size_t nres, pmix_event_notification_cbfunc_fn_t cb, void *cbd)
{
    (void)id, (void)st, (void)src, (void)info, (void)n, (void)res, (void)nres;
    if (cb != NULL)
        cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbd);
}

static void scenario_early(void)
{
    who = "host early";
    pthread_t t;
    pthread_create(&t, NULL, early_setup_fork, NULL);
    usleep(20000);
    pmix_server_module_t m = {0};
    bool up = server_up(&m);
    int ok_before = early_ok; /* all calls before init returned */
    usleep(50000);
    early_stop = true;
    pthread_join(t, NULL);
    if (early_bad != 0)
        FAIL("setup_fork around PMIx_server_init: %d answers neither INIT nor SUCCESS", early_bad);
    if (up && early_ok == ok_before)
        FAIL("setup_fork never succeeded once PMIx_server_init had returned");
    if (!up)
        return;
    /* Slurm deregisters "its" handler as 0, never reading the id */
    pmix_status_t rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, evh, NULL, NULL);
    if (rc != 0)
        FAIL("the first event handler has id %d, OpenPMIx gives 0", rc);
    if ((rc = PMIx_Deregister_event_handler(0, NULL, NULL)) != PMIX_SUCCESS)
        FAIL("PMIx_Deregister_event_handler(0): %s", PMIx_Error_string(rc));
    if ((rc = PMIx_Deregister_event_handler(12345, NULL, NULL)) != PMIX_ERR_BAD_PARAM)
        FAIL("deregistering an unknown id: %s, expected BAD-PARAM", PMIx_Error_string(rc));
    server_down();
}

static atomic_bool stress_stop;

/* Keeps the server's lock and loop busy while the host forks. */
static void *stress(void *arg)
{
    const char *nspace = arg;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, 7);
    while (!stress_stop) {
        char **env = NULL;
        PMIx_server_setup_fork(&p, &env);
        for (size_t i = 0; env != NULL && env[i] != NULL; i++)
            free(env[i]);
        free(env);
        PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL);
        PMIx_server_deregister_client(&p, NULL, NULL);
    }
    return NULL;
}

static void check_release(const char *scenario)
{
    double deadline = now_s() + 10;
    while (counted(&n_released) < counted(&n_callbacks_with_release) && now_s() < deadline)
        usleep(10000);
    if (counted(&n_released) != counted(&n_callbacks_with_release))
        FAIL("%s: %d release_fn calls for %d callbacks that gave one", scenario,
             counted(&n_released), counted(&n_callbacks_with_release));
}

static void reset_counts(void)
{
    pthread_mutex_lock(&count_lock);
    n_connected = n_fence = n_dmodex = n_released = n_callbacks_with_release = n_jc = 0;
    jc_ndirs = -1;
    jc_ids = false;
    jc_key[0] = '\0';
    pthread_mutex_unlock(&count_lock);
}

static void scenario_fork(void)
{
    who = "host fork";
    reset_counts();
    pmix_server_module_t m = {.client_connected = connected_v1_never,
                              .client_finalized = fh_host_ok,
                              .fence_nb = fence_inside,
                              .direct_modex = dmodex_inside};
    if (!server_up(&m))
        return;
    const char *ns = "conv.fork";
    if (register_job(ns, 2, false) != PMIX_SUCCESS || register_rank(ns, 0, getuid(), getgid()))
        FAIL("registering the job");
    pthread_t t;
    stress_stop = false;
    if (!SY_ASAN)
        pthread_create(&t, NULL, stress, (void *)ns);
    int gate[2];
    if (pipe(gate) != 0)
        FAIL("pipe");
    pid_t pids[2];
    /* (ASan: both children wait, so that neither connects during a fork) */
    pids[0] = start_client(ns, 0, "fence", NULL, true, SY_ASAN ? gate[0] : -1, 0, 0);
    pids[1] = start_client(ns, 1, "fence", NULL, true, gate[0], 0, 0);
    close(gate[0]);
    /* rank 1 is registered after its child called setup_fork */
    if (register_rank(ns, 1, getuid(), getgid()) != PMIX_SUCCESS)
        FAIL("registering rank 1");
    if (write(gate[1], "gg", 2) != 2)
        FAIL("gate");
    close(gate[1]);
    if (!SY_ASAN) {
        usleep(200000);
        stress_stop = true;
        pthread_join(t, NULL);
    }
    int want[2] = {0, 0};
    wait_clients("fork", pids, want, 2);
    if (counted(&n_connected) != 2)
        FAIL("client_connected (v1) called %d times for 2 clients", counted(&n_connected));
    if (counted(&n_fence) < 2 || counted(&n_dmodex) < 1)
        FAIL("fence_nb called %d times, direct_modex %d", counted(&n_fence), counted(&n_dmodex));
    check_release("fork");
    deregister_job(ns);
    server_down();
}

static void scenario_agent(void)
{
    who = "host agent";
    reset_counts();
    pmix_server_module_t m = {.client_connected2 = connected2_slow,
                              .client_finalized = finalized_done,
                              .fence_nb = fence_agent,
                              .direct_modex = dmodex_agent};
    if (!server_up(&m))
        return;
    const char *ns = "conv.agent";
    if (register_job(ns, 2, true) != PMIX_SUCCESS || register_rank(ns, 0, getuid(), getgid()) ||
        register_rank(ns, 1, getuid(), getgid()))
        FAIL("registering the job (maps typed PMIX_REGEX)");
    pid_t pids[2];
    for (unsigned r = 0; r < 2; r++)
        pids[r] = start_client(ns, r, "agent", NULL, false, -1, 0, 0);
    int want[2] = {0, 0};
    wait_clients("agent", pids, want, 2);
    if (counted(&n_fence) < 2 || counted(&n_dmodex) < 1)
        FAIL("fence_nb called %d times, direct_modex %d", counted(&n_fence), counted(&n_dmodex));
    check_release("agent");
    deregister_job(ns);
    server_down();
}

static void scenario_errors(void)
{
    who = "host errors";
    reset_counts();
    pmix_server_module_t m = {.client_connected2 = connected2_refuse1,
                              .client_finalized = fh_host_ok,
                              .fence_nb = fence_error,
                              .direct_modex = dmodex_error,
                              .publish = publish_late,
                              .lookup = lookup_done};
    if (!server_up(&m))
        return;
    const char *ns = "conv.errors";
    if (register_job(ns, 2, false) != PMIX_SUCCESS || register_rank(ns, 0, getuid(), getgid()) ||
        register_rank(ns, 1, getuid(), getgid()))
        FAIL("registering the job");
    pid_t pids[2];
    for (unsigned r = 0; r < 2; r++)
        pids[r] = start_client(ns, r, "errors", NULL, r == 0, -1, 0, 0);
    int want[2] = {0, 10}; /* rank 1 refused */
    wait_clients("errors", pids, want, 2);
    usleep(200000); /* the late publish callback comes and must be harmless */
    deregister_job(ns);
    server_down();
}

static bool exists(const char *base, const char *name)
{
    char p[4300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", base, name);
    return lstat(p, &st) == 0;
}

/* Wait up to 10 s for name's existence to be `want`. */
static bool settles(const char *base, const char *name, bool want)
{
    double deadline = now_s() + 10;
    while (exists(base, name) != want && now_s() < deadline)
        usleep(20000);
    return exists(base, name) == want;
}

static void scenario_cleanup(void)
{
    who = "host cleanup";
    reset_counts();
    pmix_server_module_t m = {.client_finalized = fh_host_ok, .job_control = host_job_control};
    /* as root, the client is somebody else, as under Slurm */
    bool as_root = getuid() == 0;
    uid_t uid = as_root ? 65534 : getuid();
    gid_t gid = as_root ? 65534 : getgid();
    if (as_root) {
        pid_t c = fork();
        if (c == 0)
            _exit(setgid(gid) == 0 && setuid(uid) == 0 && access(self_path, X_OK) == 0 ? 0 : 1);
        int st = 1;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("test_conventions: cleanup as uid 65534 skipped: %s is not theirs to run\n",
                   self_path);
            uid = getuid();
            gid = getgid();
            as_root = false;
        }
    }
    if (!server_up(&m))
        return;
    char base[4200];
    snprintf(base, sizeof base, "%s/tree", tmpdir);
    char outside[4300], precious[4400], rootfile[4300];
    snprintf(outside, sizeof outside, "%s/outside", base);
    snprintf(precious, sizeof precious, "%s/precious", outside);
    snprintf(rootfile, sizeof rootfile, "%s/rootfile", base);
    if (mkdir(base, 0755) != 0 || chown(base, uid, gid) != 0 || mkdir(outside, 0755) != 0)
        FAIL("making %s", base);
    int fd = open(precious, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0)
        close(fd);
    if (as_root && (fd = open(rootfile, O_CREAT | O_WRONLY, 0644)) >= 0)
        close(fd); /* the host's: not the client's to remove */
    const char *ns = "conv.cleanup";
    if (register_job(ns, 2, false) != PMIX_SUCCESS || register_rank(ns, 0, uid, gid) ||
        register_rank(ns, 1, uid, gid))
        FAIL("registering the job");
    /* rank 0 first: rank 1 dies at once */
    pid_t pids[2];
    pids[0] = start_client(ns, 0, "cleanup", base, false, -1, uid, gid);
    int want[2] = {0, 0};
    wait_clients("cleanup rank 0", pids, want, 1);
    pids[1] = start_client(ns, 1, "cleanup", base, false, -1, uid, gid);
    wait_clients("cleanup rank 1", pids + 1, want, 1);
    struct {
        const char *name;
        bool stays;
    } expect[] = {{"r0/a", false},       {"r0/sub", false}, {"r0/link", false},
                  {"r0/keep", true},     {"r0", true},      {"outside/precious", true},
                  {"file0", false},      {"file1", false},  {"r1", false},
                  {"rootfile", as_root}, {"job/f", true}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        if (!settles(base, expect[i].name, expect[i].stays))
            FAIL("cleanup: %s %s", expect[i].name,
                 expect[i].stays ? "was removed" : "was not removed");
    if (counted(&n_jc) != 1 || jc_ndirs != 1 || strcmp(jc_key, PMIX_JOB_CTRL_SIGNAL) != 0 ||
        !jc_ids)
        FAIL("job_control: %d calls, the last with %d directives (%s)%s; expected one, with "
             "PMIX_JOB_CTRL_SIGNAL alone besides PMIX_USERID and PMIX_GRPID",
             counted(&n_jc), jc_ndirs, jc_key, jc_ids ? "" : " and no requester ids");
    /* the job's own: when its namespace goes */
    deregister_job(ns);
    if (!settles(base, "job", false))
        FAIL("cleanup: the job's directory was not removed with its namespace");
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        FAIL("rm -rf %s", base);
    server_down();
}

static void scenario_final(void)
{
    who = "host final";
    reset_counts();
    pmix_server_module_t m = {.client_finalized = fh_host_ok, .fence_nb = fence_hold};
    if (!server_up(&m))
        return;
    const char *ns = "conv.final";
    if (register_job(ns, 2, false) != PMIX_SUCCESS || register_rank(ns, 0, getuid(), getgid()) ||
        register_rank(ns, 1, getuid(), getgid()))
        FAIL("registering the job");
    pid_t pids[2];
    for (unsigned r = 0; r < 2; r++)
        pids[r] = start_client(ns, r, "final", NULL, false, -1, 0, 0);
    double deadline = now_s() + 30;
    while (counted(&n_fence) == 0 && now_s() < deadline)
        usleep(10000);
    if (counted(&n_fence) == 0)
        FAIL("the fence never reached fence_nb");
    /* finalize while the host holds the fence */
    server_down();
    int want[2] = {0, 0};
    wait_clients("final", pids, want, 2);
    /* and the host's answer comes afterwards */
    if (held.cbfunc != NULL) {
        modex_locked(held.cbfunc, held.cbdata, PMIX_SUCCESS, "late", 4, true);
        check_release("final");
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "client") == 0)
        return client(argv[2], argv[3]);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&host_lock, &a);
    pthread_mutexattr_destroy(&a);
    gethostname(host_name, sizeof host_name - 1);
    if (fh_self(self_path, sizeof self_path) != 0) {
        FAIL("cannot find this program");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    scenario_early(); /* first: the first event handler of the process */
    scenario_fork();
    scenario_agent();
    scenario_errors();
    scenario_cleanup();
    scenario_final();
    if (failures == 0)
        printf("test_conventions: ok\n");
    return failures == 0 ? 0 : 1;
}
