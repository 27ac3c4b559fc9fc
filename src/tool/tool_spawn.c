/* A tool that runs its own server (PMIX_LAUNCHER) and is connected to no
 * other one starts tools itself (Chap_API_Tools.tex, "Indirect launch":
 * "locally spawn the IL itself if not connected to a server and the PMIx
 * implementation includes self-spawn support").  Only tools: a request
 * without PMIX_SPAWN_TOOL needs a launcher to place and wire up
 * application processes, and is refused with PMIX_ERR_NOT_SUPPORTED.
 *
 * Each process started gets, beside its app's environment:
 *   PMIX_NAMESPACE / PMIX_RANK        its identity, which it claims when it
 *   PMIX_SERVER_NSPACE / _RANK        connects back (and its server's, when
 *                                     it runs one, as a launcher does)
 *   PMIX_LAUNCHER_RNDZ_URI            our server, unless the app names one
 *   PMIX_KEEPALIVE_PIPE               the read end of a pipe whose write end
 *                                     only we hold (none with PMIX_NOHUP)
 * The namespace is registered with our server with the request's job info
 * (so PMIX_DEBUG_STOP_IN_INIT and PMIX_LAUNCH_DIRECTIVES reach the tool
 * through PMIx_Get), PMIX_SPAWNED and PMIX_PARENT_ID.  A tool connecting
 * back is accepted under that identity only if the kernel says it is the
 * process we started (its pid).  When every process of the namespace has
 * ended, this process's handlers hear PMIX_EVENT_JOB_END and the namespace
 * is deregistered. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "client/client_internal.h"
#include "common/info.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "common/sync.h"
#include "server/server_module.h"
#include "tool/tool_internal.h"

extern char **environ;

typedef struct kid {
    pid_t pid;
    int pidfd;
    int keepalive; /* write end, or -1 */
    struct event *ev;
    bool exited;
    bool connected; /* it connected back to our server */
    int status;
    struct spawned *job;
} kid_t;

typedef struct spawned {
    char nspace[PMIX_MAX_NSLEN + 1];
    unsigned nprocs, nexited;
    kid_t *kids;
    struct spawned *next;
} spawned_t;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static spawned_t *jobs;
static unsigned seq, ntools;

static void job_free(spawned_t *j)
{
    for (unsigned r = 0; r < j->nprocs; r++) {
        kid_t *k = &j->kids[r];
        if (k->ev != NULL)
            event_free(k->ev);
        if (k->pidfd >= 0)
            close(k->pidfd);
        if (k->keepalive >= 0)
            close(k->keepalive);
    }
    free(j->kids);
    free(j);
}

/* ---- the environment of one process ---- */

static int env_add(char ***env, size_t *n, const char *name, const char *value)
{
    char *e;
    if (asprintf(&e, "%s=%s", name, value) < 0)
        return -1;
    size_t len = strlen(name);
    for (size_t i = 0; i < *n; i++)
        if (strncmp((*env)[i], name, len) == 0 && (*env)[i][len] == '=') {
            free((*env)[i]);
            (*env)[i] = e;
            return 0;
        }
    char **grown = realloc(*env, (*n + 2) * sizeof(char *));
    if (grown == NULL) {
        free(e);
        return -1;
    }
    *env = grown;
    (*env)[(*n)++] = e;
    (*env)[*n] = NULL;
    return 0;
}

static void env_free(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

static bool named_in(char *const *env, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return true;
    return false;
}

/* Ours, the app's, then the identity and rendezvous of the process. */
static char **env_of(const pmix_app_t *app, const char *nspace, pmix_rank_t rank, const char *uri,
                     int keepalive)
{
    char **env = NULL;
    size_t n = 0;
    char num[32];
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        char *eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        char *name = strndup(*e, (size_t)(eq - *e));
        /* a launcher's variables of ours are not the child's */
        bool ours = name == NULL || strcmp(name, "PMIX_KEEPALIVE_PIPE") == 0 ||
                    strcmp(name, "PMIX_LAUNCHER_RNDZ_URI") == 0;
        int rc = ours ? 0 : env_add(&env, &n, name, eq + 1);
        free(name);
        if (rc != 0)
            goto fail;
    }
    for (size_t i = 0; app->env != NULL && app->env[i] != NULL; i++) {
        char *eq = strchr(app->env[i], '=');
        if (eq == NULL)
            continue;
        char *name = strndup(app->env[i], (size_t)(eq - app->env[i]));
        int rc = name == NULL ? -1 : env_add(&env, &n, name, eq + 1);
        free(name);
        if (rc != 0)
            goto fail;
    }
    snprintf(num, sizeof(num), "%u", rank);
    if (env_add(&env, &n, "PMIX_NAMESPACE", nspace) != 0 ||
        env_add(&env, &n, "PMIX_RANK", num) != 0 ||
        env_add(&env, &n, "PMIX_SERVER_NSPACE", nspace) != 0 ||
        env_add(&env, &n, "PMIX_SERVER_RANK", num) != 0)
        goto fail;
    if (uri != NULL && !named_in(app->env, "PMIX_LAUNCHER_RNDZ_URI") &&
        env_add(&env, &n, "PMIX_LAUNCHER_RNDZ_URI", uri) != 0)
        goto fail;
    snprintf(num, sizeof(num), "%d", keepalive);
    if (keepalive >= 0 && env_add(&env, &n, "PMIX_KEEPALIVE_PIPE", num) != 0)
        goto fail;
    if (env == NULL && env_add(&env, &n, "PMIX_NAMESPACE", nspace) != 0)
        goto fail;
    return env;
fail:
    env_free(env);
    return NULL;
}

/* ---- processes ending ---- */

static void job_ended(spawned_t *j)
{
    int code = 0;
    pmix_rank_t first = PMIX_RANK_UNDEF;
    for (unsigned r = 0; r < j->nprocs; r++) {
        int st = j->kids[r].status;
        int c = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (c != 0 && first == PMIX_RANK_UNDEF) {
            first = r;
            code = c;
        }
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, j->nspace, PMIX_RANK_WILDCARD);
    pmix_status_t term = code == 0 ? PMIX_SUCCESS : PMIX_ERR_JOB_TERMINATED;
    pmix_info_t info[4];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    if (first != PMIX_RANK_UNDEF) {
        pmix_proc_t who;
        PMIX_LOAD_PROCID(&who, j->nspace, first);
        PMIX_INFO_LOAD(&info[n++], PMIX_PROCID, &who, PMIX_PROC);
        PMIX_INFO_LOAD(&info[n++], PMIX_EXIT_CODE, &code, PMIX_INT);
    }
    /* this process's handlers: the tools we started were ours alone */
    PMIx_Notify_event(PMIX_EVENT_JOB_END, &job, PMIX_RANGE_PROC_LOCAL, info, n, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static void ignore_op(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

/* Its pidfd became readable: it ended (on the loop). */
static void on_exit_of(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kid_t *k = arg;
    int st = 0;
    if (waitpid(k->pid, &st, WNOHANG) == 0)
        return;
    event_del(k->ev);
    pthread_mutex_lock(&spawn_lock);
    k->exited = true;
    k->status = st;
    if (k->keepalive >= 0) {
        close(k->keepalive);
        k->keepalive = -1;
    }
    spawned_t *j = k->job;
    bool all = ++j->nexited == j->nprocs;
    if (all) {
        for (spawned_t **pp = &jobs; *pp != NULL; pp = &(*pp)->next)
            if (*pp == j) {
                *pp = j->next;
                break;
            }
    }
    pthread_mutex_unlock(&spawn_lock);
    if (!all)
        return;
    job_ended(j);
    PMIx_server_deregister_nspace(j->nspace, ignore_op, NULL);
    job_free(j);
}

/* ---- starting them ---- */

/* Fork and exec one process; its exec failing is reported through a
 * close-on-exec pipe (errno, or EOF when the program runs). */
static pmix_status_t start_one(const pmix_app_t *app, char **env, int keep_read, kid_t *k)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0)
        return PMIX_ERR_SYS_OTHER;
    pid_t pid = fork();
    if (pid < 0) {
        close(ep[0]);
        close(ep[1]);
        return PMIX_ERR_SYS_OTHER;
    }
    if (pid == 0) {
        if (keep_read >= 0)
            fcntl(keep_read, F_SETFD, 0); /* the one fd it inherits */
        if (app->cwd != NULL && chdir(app->cwd) != 0) {
            int e = errno;
            (void)!write(ep[1], &e, sizeof(e));
            _exit(127);
        }
        char *argv0[] = {app->cmd, NULL};
        execvpe(app->cmd, app->argv != NULL && app->argv[0] != NULL ? app->argv : argv0, env);
        int e = errno;
        (void)!write(ep[1], &e, sizeof(e));
        _exit(127);
    }
    close(ep[1]);
    int e = 0;
    ssize_t got;
    do
        got = read(ep[0], &e, sizeof(e));
    while (got < 0 && errno == EINTR);
    close(ep[0]);
    k->pid = pid;
    if (got > 0) {
        waitpid(pid, NULL, 0);
        sy_log(SY_LOG_WARN, "PMIx_Spawn: cannot start %s: %s", app->cmd, strerror(e));
        k->pid = 0;
        return PMIX_ERR_JOB_EXE_NOT_FOUND;
    }
    return PMIX_SUCCESS;
}

typedef struct {
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
    pmix_status_t status;
    pmix_nspace_t nspace;
} answer_t;

static void answer_on_loop(void *arg)
{
    answer_t *a = arg;
    a->cbfunc(a->status, a->nspace, a->cbdata);
    free(a);
}

static void watch_on_loop(void *arg)
{
    spawned_t *j = arg;
    for (unsigned r = 0; r < j->nprocs; r++)
        if (j->kids[r].ev != NULL)
            event_add(j->kids[r].ev, NULL);
}

static bool flag_in(const pmix_info_t info[], size_t ninfo, const char *key)
{
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        if (sy_info_is(&info[i], key))
            return sy_info_true(&info[i]);
    return false;
}

/* The namespace's job info: the request's, and who started it. */
static pmix_status_t register_job(const char *nspace, unsigned nprocs, const pmix_info_t job_info[],
                                  size_t ninfo)
{
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo + 3);
    if (info == NULL)
        return PMIX_ERR_NOMEM;
    size_t n = 0;
    for (size_t i = 0; job_info != NULL && i < ninfo; i++)
        PMIx_Info_xfer(&info[n++], &job_info[i]);
    bool yes = true;
    uint32_t size = nprocs;
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    PMIX_INFO_LOAD(&info[n++], PMIX_SPAWNED, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[n++], PMIX_PARENT_ID, &me, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    pmix_status_t rc = PMIx_server_register_nspace(nspace, 0, info, n, NULL, NULL);
    PMIX_INFO_FREE(info, ninfo + 3);
    return rc;
}

pmix_status_t sy_tool_self_spawn(const pmix_info_t job_info[], size_t ninfo,
                                 const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                                 void *cbdata)
{
    if (!flag_in(job_info, ninfo, PMIX_SPAWN_TOOL)) {
        sy_log(SY_LOG_WARN, "PMIx_Spawn: a tool attached to no server starts only tools "
                            "(PMIX_SPAWN_TOOL); attach to a launcher to start applications");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    unsigned nprocs = 0;
    for (size_t a = 0; a < napps; a++) {
        if (apps[a].cmd == NULL)
            return PMIX_ERR_BAD_PARAM;
        nprocs += apps[a].maxprocs > 0 ? (unsigned)apps[a].maxprocs : 1;
    }
    spawned_t *j = calloc(1, sizeof(*j));
    answer_t *ans = calloc(1, sizeof(*ans));
    if (j == NULL || ans == NULL || (j->kids = calloc(nprocs, sizeof(kid_t))) == NULL) {
        free(ans);
        if (j != NULL)
            free(j->kids);
        free(j);
        return PMIX_ERR_NOMEM;
    }
    j->nprocs = nprocs;
    for (unsigned r = 0; r < nprocs; r++) {
        j->kids[r].pidfd = -1;
        j->kids[r].keepalive = -1;
        j->kids[r].job = j;
    }
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    pthread_mutex_lock(&spawn_lock);
    snprintf(j->nspace, sizeof(j->nspace), "%.200s.spawn.%u", me.nspace, ++seq);
    pthread_mutex_unlock(&spawn_lock);
    bool nohup = flag_in(job_info, ninfo, PMIX_NOHUP);
    char *uri = sy_srv_uri_dup();
    pmix_status_t rc = register_job(j->nspace, nprocs, job_info, ninfo);
    bool registered = rc == PMIX_SUCCESS;
    unsigned started = 0;
    for (size_t a = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        unsigned np = apps[a].maxprocs > 0 ? (unsigned)apps[a].maxprocs : 1;
        for (unsigned i = 0; rc == PMIX_SUCCESS && i < np; i++) {
            kid_t *k = &j->kids[started];
            int kp[2] = {-1, -1};
            if (!nohup && pipe2(kp, O_CLOEXEC) != 0) {
                rc = PMIX_ERR_SYS_OTHER;
                break;
            }
            char **env = env_of(&apps[a], j->nspace, started, uri, kp[0]);
            rc = env == NULL ? PMIX_ERR_NOMEM : start_one(&apps[a], env, kp[0], k);
            env_free(env);
            if (kp[0] >= 0)
                close(kp[0]);
            k->keepalive = kp[1];
            if (rc != PMIX_SUCCESS)
                break;
            started++;
            k->pidfd = pidfd_open(k->pid, 0);
            if (k->pidfd >= 0)
                k->ev = event_new(sy_progress_base(sy_runtime()), k->pidfd, EV_READ | EV_PERSIST,
                                  on_exit_of, k);
            if (k->ev == NULL) {
                /* without a way to see it exit, the tool is not started */
                sy_log(SY_LOG_WARN, "tool: cannot watch the spawned tool (pid %d): %s", (int)k->pid,
                       k->pidfd < 0 ? strerror(errno) : "no event");
                rc = PMIX_ERR_SYS_OTHER;
                started--;
                kill(k->pid, SIGKILL);
                waitpid(k->pid, NULL, 0);
                break;
            }
        }
    }
    free(uri);
    if (rc != PMIX_SUCCESS) {
        /* the ones started go again: a spawn is all or nothing */
        for (unsigned r = 0; r < started; r++) {
            kill(j->kids[r].pid, SIGKILL);
            waitpid(j->kids[r].pid, NULL, 0);
        }
        if (registered)
            PMIx_server_deregister_nspace(j->nspace, NULL, NULL);
        job_free(j);
        free(ans);
        return rc;
    }
    pthread_mutex_lock(&spawn_lock);
    j->next = jobs;
    jobs = j;
    pthread_mutex_unlock(&spawn_lock);
    ans->cbfunc = cbfunc;
    ans->status = PMIX_SUCCESS;
    ans->cbdata = cbdata;
    PMIX_LOAD_NSPACE(ans->nspace, j->nspace);
    sy_progress_post(sy_runtime(), watch_on_loop, j);
    if (cbfunc == NULL || sy_progress_post(sy_runtime(), answer_on_loop, ans) != PMIX_SUCCESS)
        free(ans);
    return PMIX_SUCCESS;
}

/* ---- tools connecting to our server ---- */

/* The default host answer of a launcher tool's server: a process we
 * started keeps the identity we gave it (the kernel's pid proves it);
 * another tool of our user gets a fresh one. */
static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    const char *ns = NULL;
    pmix_rank_t rank = 0;
    pid_t pid = 0;
    uint32_t uid = UINT32_MAX;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *x = &info[i];
        if (sy_info_is(x, PMIX_TOOL_NSPACE) && x->value.type == PMIX_STRING)
            ns = x->value.data.string;
        else if (sy_info_is(x, PMIX_TOOL_RANK) && x->value.type == PMIX_UINT32)
            rank = x->value.data.uint32;
        else if (sy_info_is(x, PMIX_PROC_PID) && x->value.type == PMIX_PID)
            pid = x->value.data.pid;
        else if (sy_info_is(x, PMIX_USERID) && x->value.type == PMIX_UINT32)
            uid = x->value.data.uint32;
    }
    pmix_proc_t who;
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&spawn_lock);
    if (uid != (uint32_t)geteuid()) {
        rc = PMIX_ERR_NO_PERMISSIONS;
    } else if (ns != NULL) {
        rc = PMIX_ERR_NO_PERMISSIONS;
        for (spawned_t *j = jobs; j != NULL; j = j->next)
            if (strcmp(j->nspace, ns) == 0 && rank < j->nprocs && j->kids[rank].pid == pid) {
                j->kids[rank].connected = true;
                rc = PMIX_SUCCESS;
            }
        PMIX_LOAD_PROCID(&who, ns, rank);
    } else {
        pthread_mutex_lock(&sy_client_lock);
        pmix_proc_t me = sy_client.me;
        pthread_mutex_unlock(&sy_client_lock);
        char name[PMIX_MAX_NSLEN + 1];
        snprintf(name, sizeof(name), "%.200s.tool.%u", me.nspace, ++ntools);
        PMIX_LOAD_PROCID(&who, name, 0);
    }
    pthread_mutex_unlock(&spawn_lock);
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "a tool claiming %s:%u was refused: not a process this tool started",
               ns != NULL ? ns : "(none)", rank);
    cbfunc(rc, rc == PMIX_SUCCESS ? &who : NULL, cbdata);
}

bool sy_tool_spawn_connected(const pmix_proc_t *proc)
{
    bool yes = false;
    pthread_mutex_lock(&spawn_lock);
    for (spawned_t *j = jobs; j != NULL; j = j->next)
        if (PMIX_CHECK_NSPACE(j->nspace, proc->nspace) && proc->rank < j->nprocs)
            yes = j->kids[proc->rank].connected;
    pthread_mutex_unlock(&spawn_lock);
    return yes;
}

void sy_tool_spawn_module(pmix_server_module_t *module)
{
    module->tool_connected = tool_connected;
}

static void unwatch_on_loop(void *arg)
{
    pthread_mutex_lock(&spawn_lock);
    for (spawned_t *j = jobs; j != NULL; j = j->next)
        for (unsigned r = 0; r < j->nprocs; r++)
            if (j->kids[r].ev != NULL)
                event_del(j->kids[r].ev);
    pthread_mutex_unlock(&spawn_lock);
    sy_sync_signal(arg, PMIX_SUCCESS, NULL);
}

void sy_tool_spawn_finalize(void)
{
    /* the loop no longer watches them; their keepalive pipes close, and
     * the tools we started hear that we are gone */
    sy_progress_t *p = sy_runtime();
    sy_sync_t s;
    if (p != NULL && sy_sync_init(&s) == PMIX_SUCCESS) {
        if (sy_progress_post(p, unwatch_on_loop, &s) == PMIX_SUCCESS)
            sy_sync_wait_progress(&s, p);
        sy_sync_destroy(&s);
    }
    pthread_mutex_lock(&spawn_lock);
    spawned_t *all = jobs;
    jobs = NULL;
    pthread_mutex_unlock(&spawn_lock);
    while (all != NULL) {
        spawned_t *j = all;
        all = j->next;
        job_free(j);
    }
}
