/* PMIx_Spawn under switchyard-run: the host's spawn upcall (on the
 * server's thread) queues the request; the main loop starts the new job
 * (a namespace of its own, registered like the first one plus
 * PMIX_SPAWNED and PMIX_PARENT_ID), answers the requester with the
 * namespace, forwards the children's output and reaps them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

typedef struct request {
    pmix_proc_t parent;
    run_opts_t opts;
    char **argv_store; /* every string the opts point to, to free */
    size_t nstore;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
    struct request *next;
} request_t;

typedef struct child {
    run_job_t job;
    request_t *req; /* its options and the strings they point to */
    struct child *next;
} child_t;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static request_t *pending;
static child_t *children;
static unsigned next_job = 2;
static int wake;

static char *keep(request_t *r, const char *s)
{
    char **g = realloc(r->argv_store, (r->nstore + 1) * sizeof(char *));
    if (g == NULL)
        return NULL;
    r->argv_store = g;
    char *copy = strdup(s != NULL ? s : "");
    if (copy != NULL)
        r->argv_store[r->nstore++] = copy;
    return copy;
}

static void request_free(request_t *r)
{
    for (size_t i = 0; i < r->nstore; i++)
        free(r->argv_store[i]);
    free(r->argv_store);
    for (unsigned a = 0; a < r->opts.napps; a++) {
        free(r->opts.apps[a].argv);
        free(r->opts.apps[a].env); /* its strings are in argv_store */
    }
    run_opts_free(&r->opts);
    free(r);
}

/* A copy of the apps as an app-context list of switchyard-run's own. */
static pmix_status_t copy_apps(request_t *r, const pmix_app_t apps[], size_t napps)
{
    r->opts.apps = calloc(napps, sizeof(run_app_t));
    if (r->opts.apps == NULL)
        return PMIX_ERR_NOMEM;
    r->opts.napps = (unsigned)napps;
    r->opts.bind_to = RUN_BIND_NONE;
    r->opts.oversubscribe = true;
    for (size_t a = 0; a < napps; a++) {
        const pmix_app_t *app = &apps[a];
        size_t argc = 0;
        while (app->argv != NULL && app->argv[argc] != NULL)
            argc++;
        char **argv = calloc(argc + 2, sizeof(char *));
        if (argv == NULL)
            return PMIX_ERR_NOMEM;
        /* the program is cmd (else argv[0]); the arguments follow argv[0] */
        const char *prog = app->cmd != NULL ? app->cmd : argc > 0 ? app->argv[0] : NULL;
        if (prog == NULL) {
            free(argv);
            return PMIX_ERR_BAD_PARAM;
        }
        size_t k = 0;
        argv[k++] = keep(r, prog);
        for (size_t i = 1; i < argc; i++)
            argv[k++] = keep(r, app->argv[i]);
        r->opts.apps[a].argv = argv;
        r->opts.apps[a].np = app->maxprocs > 0 ? (unsigned)app->maxprocs : 1;
        r->opts.apps[a].wdir = app->cwd != NULL ? keep(r, app->cwd) : NULL;
        for (size_t i = 0; app->info != NULL && i < app->ninfo; i++)
            if (PMIX_CHECK_KEY(&app->info[i], PMIX_PSET_NAME) &&
                app->info[i].value.type == PMIX_STRING && app->info[i].value.data.string != NULL)
                r->opts.apps[a].pset = keep(r, app->info[i].value.data.string);
        size_t nenv = 0;
        while (app->env != NULL && app->env[nenv] != NULL)
            nenv++;
        if (nenv > 0 && (r->opts.apps[a].env = calloc(nenv + 1, sizeof(char *))) == NULL)
            return PMIX_ERR_NOMEM;
        for (size_t e = 0, k = 0; e < nenv; e++)
            if (strchr(app->env[e], '=') != NULL)
                r->opts.apps[a].env[k++] = keep(r, app->env[e]);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                           const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                           void *cbdata)
{
    (void)job_info;
    (void)ninfo;
    request_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->parent = *proc;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    if (copy_apps(r, apps, napps) != PMIX_SUCCESS) {
        request_free(r);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&spawn_lock);
    request_t **tail = &pending;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = r;
    pthread_mutex_unlock(&spawn_lock);
    char c = 's';
    if (write(wake, &c, 1) < 0) {
        /* the main loop polls every 100 ms anyway */
    }
    return PMIX_SUCCESS;
}

void run_spawn_module(pmix_server_module_t *m, int wake_fd)
{
    wake = wake_fd;
    m->spawn = spawn;
}

/* The launcher's -x/--env settings go to spawned jobs too (as mpirun's
 * do); each app's own environment (run_app_t.env) is applied after them. */
static pmix_status_t inherit_env(const run_opts_t *main_opts, run_opts_t *opts)
{
    for (size_t i = 0; i < main_opts->nenv; i++)
        if (run_opts_add_env(opts, main_opts->env[i]) != 0)
            return PMIX_ERR_NOMEM;
    return PMIX_SUCCESS;
}

static void start_child(run_job_t *main_job, request_t *r)
{
    pmix_nspace_t ns;
    memset(ns, 0, sizeof(ns));
    child_t *c = calloc(1, sizeof(*c));
    pmix_status_t rc = c != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (c != NULL)
        c->req = r;
    if (rc == PMIX_SUCCESS)
        rc = inherit_env(main_job->opts, &r->opts);
    if (rc == PMIX_SUCCESS) {
        run_job_t *j = &c->job;
        j->opts = &r->opts;
        j->first_failed = -1;
        j->topo = main_job->topo;
        j->session_dir = main_job->session_dir;
        j->spawned = true;
        j->parent = r->parent;
        memcpy(j->hostname, main_job->hostname, sizeof(j->hostname));
        snprintf(j->nspace, sizeof(j->nspace), "switchyard.%ld.%u", (long)getpid(), next_job++);
        for (unsigned a = 0; a < r->opts.napps; a++)
            j->nprocs += r->opts.apps[a].np;
        j->procs = calloc(j->nprocs, sizeof(run_proc_t));
        if (j->procs == NULL)
            rc = PMIX_ERR_NOMEM;
        for (unsigned a = 0, k = 0; rc == PMIX_SUCCESS && a < r->opts.napps; a++)
            for (unsigned i = 0; i < r->opts.apps[a].np; i++, k++)
                j->procs[k] = (run_proc_t){.rank = k,
                                           .app = a,
                                           .app_rank = i,
                                           .out_fd = -1,
                                           .err_fd = -1,
                                           .out_file = -1,
                                           .err_file = -1};
        if (rc == PMIX_SUCCESS && (run_register(j) != 0 || run_iof_setup(j) != 0))
            rc = PMIX_ERROR;
        for (unsigned k = 0; rc == PMIX_SUCCESS && k < j->nprocs; k++) {
            if (run_start(j, &j->procs[k]) != 0) {
                /* what did start is stopped; the rest never ran */
                for (unsigned x = k; x < j->nprocs; x++) {
                    j->procs[x].exited = true;
                    j->procs[x].status = 127 << 8;
                    j->nexited++;
                }
                run_kill_all(j, SIGTERM);
                rc = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
            }
        }
        PMIX_LOAD_NSPACE(ns, j->nspace);
    }
    if (c != NULL) {
        pthread_mutex_lock(&spawn_lock);
        c->next = children;
        children = c;
        pthread_mutex_unlock(&spawn_lock);
    } else {
        request_free(r);
    }
    if (r->cbfunc != NULL)
        r->cbfunc(rc, ns, r->cbdata);
}

void run_spawn_service(run_job_t *main_job)
{
    for (;;) {
        pthread_mutex_lock(&spawn_lock);
        request_t *r = pending;
        if (r != NULL)
            pending = r->next;
        pthread_mutex_unlock(&spawn_lock);
        if (r == NULL)
            break;
        r->next = NULL;
        start_child(main_job, r);
    }
    for (child_t *c = children; c != NULL; c = c->next)
        run_iof_poll(&c->job, -1, 0);
}

bool run_spawn_reaped(pid_t pid, int status, bool *failed)
{
    for (child_t *c = children; c != NULL; c = c->next) {
        for (unsigned r = 0; r < c->job.nprocs; r++) {
            run_proc_t *p = &c->job.procs[r];
            if (p->pid != pid || p->exited)
                continue;
            p->exited = true;
            p->status = status;
            c->job.nexited++;
            *failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            if (*failed)
                fprintf(stderr, "switchyard-run: rank %u of spawned job %s %s %d\n", p->rank,
                        c->job.nspace,
                        WIFEXITED(status) ? "exited with status" : "was killed by signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            return true;
        }
    }
    return false;
}

bool run_spawn_knows(const char *nspace)
{
    bool yes = false;
    pthread_mutex_lock(&spawn_lock);
    for (child_t *c = children; c != NULL && !yes; c = c->next)
        yes = PMIX_CHECK_NSPACE(c->job.nspace, nspace);
    pthread_mutex_unlock(&spawn_lock);
    return yes;
}

bool run_spawn_active(void)
{
    pthread_mutex_lock(&spawn_lock);
    bool any = pending != NULL;
    pthread_mutex_unlock(&spawn_lock);
    for (child_t *c = children; c != NULL && !any; c = c->next)
        any = c->job.nexited < c->job.nprocs;
    return any;
}

void run_spawn_kill_all(int sig)
{
    for (child_t *c = children; c != NULL; c = c->next)
        run_kill_all(&c->job, sig);
}

void run_spawn_finish(void)
{
    /* requests that never got started still get their answer */
    for (;;) {
        pthread_mutex_lock(&spawn_lock);
        request_t *r = pending;
        if (r != NULL)
            pending = r->next;
        pthread_mutex_unlock(&spawn_lock);
        if (r == NULL)
            break;
        pmix_nspace_t none;
        memset(none, 0, sizeof(none));
        if (r->cbfunc != NULL)
            r->cbfunc(PMIX_ERR_JOB_CANCELED, none, r->cbdata);
        request_free(r);
    }
    while (children != NULL) {
        child_t *c = children;
        children = c->next;
        run_iof_drain(&c->job);
        run_iof_close(&c->job);
        run_deregister(&c->job);
        for (unsigned r = 0; r < c->job.nprocs; r++) {
            free(c->job.procs[r].locality);
            free(c->job.procs[r].cpuset_str);
        }
        free(c->job.procs);
        request_free(c->req);
        free(c);
    }
}
