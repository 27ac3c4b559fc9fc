/* PMIx_Spawn under switchyard-run: the host's spawn upcall (on the
 * server's thread) queues the request; the main loop admits it (the
 * program found and executable, its working directory there, free cores
 * unless --oversubscribe, no more than --max-procs processes at once),
 * registers the new job (a namespace of its own, registered like the first
 * one plus PMIX_SPAWNED and PMIX_PARENT_ID) and starts its processes a
 * batch per pass of the loop, so that a large spawn never holds the loop
 * (signals, output, other requests); once all run it answers the requester
 * with the namespace, forwards the children's output and reaps them.  A job
 * that cannot be started (or is cancelled) fails the spawn, never the
 * parent job: what of it did start is killed, and those deaths are no
 * failure of the parent.  The library has already checked what the
 * standard requires of the request (server_hostops.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Processes started per pass of the main loop. */
#define RUN_SPAWN_BATCH 32

typedef struct child {
    run_job_t job;
    request_t *req;   /* its options and the strings they point to */
    unsigned started; /* processes started so far, in rank order */
    bool launching;   /* more to start; the requester not answered yet */
    bool doomed;      /* failed to start or cancelled: its ends are no
                       * failure of the parent job */
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
    run_debug_free(r->opts.debug);
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
        /* cmd "client" with argv[0] "./client" (OpenPMIx's debugger): the
         * path is where to look when PATH does not have it */
        const char *slash = argc > 0 && app->cmd != NULL ? strrchr(app->argv[0], '/') : NULL;
        if (slash != NULL && strcmp(slash + 1, app->cmd) == 0 && strchr(app->cmd, '/') == NULL)
            r->opts.apps[a].where = keep(r, app->argv[0]);
        for (size_t i = 1; i < argc; i++)
            argv[k++] = keep(r, app->argv[i]);
        r->opts.apps[a].argv = argv;
        if (app->maxprocs < 0)
            return PMIX_ERR_BAD_PARAM; /* the library refuses it first */
        /* 0 only for debugger daemons, placed by run_debug_parse */
        r->opts.apps[a].np = (unsigned)app->maxprocs;
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
        for (size_t e = 0, ne = 0; e < nenv; e++)
            if (strchr(app->env[e], '=') != NULL)
                r->opts.apps[a].env[ne++] = keep(r, app->env[e]);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                           const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                           void *cbdata)
{
    request_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->parent = *proc;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    pmix_status_t rc = copy_apps(r, apps, napps);
    if (rc == PMIX_SUCCESS)
        rc = run_debug_parse(&r->opts, job_info, ninfo, apps, napps);
    for (unsigned a = 0; rc == PMIX_SUCCESS && a < r->opts.napps; a++)
        if (r->opts.apps[a].np < 1)
            rc = PMIX_ERR_BAD_PARAM;
    if (rc != PMIX_SUCCESS) {
        request_free(r);
        return rc;
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

/* PATH for finding a spawned program: its app's own, else -x/--env's, else
 * ours, as execvp in the child will see it. */
static const char *search_path(const run_opts_t *main_opts, const run_app_t *app)
{
    for (size_t i = 0; app->env != NULL && app->env[i] != NULL; i++)
        if (strncmp(app->env[i], "PATH=", 5) == 0)
            return app->env[i] + 5;
    const char *found = NULL;
    for (size_t i = 0; i < main_opts->nenv; i++)
        if (strncmp(main_opts->env[i], "PATH=", 5) == 0)
            found = main_opts->env[i] + 5;
    if (found == NULL)
        found = getenv("PATH");
    return found != NULL ? found : "/usr/local/bin:/usr/bin:/bin";
}

/* PMIX_SUCCESS when path is a regular file we may execute; else
 * PMIX_ERR_JOB_EXE_NOT_FOUND (nothing there) or
 * PMIX_ERR_JOB_APP_NOT_EXECUTABLE (a directory, no x permission). */
static pmix_status_t check_exe(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return PMIX_ERR_JOB_EXE_NOT_FOUND;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return PMIX_ERR_JOB_APP_NOT_EXECUTABLE;
    return PMIX_SUCCESS;
}

/* The program of an app as the child's execvp will look for it. */
static pmix_status_t find_program(const run_opts_t *main_opts, const run_app_t *app)
{
    const char *prog = app->argv[0];
    const char *wdir = app->wdir != NULL ? app->wdir : main_opts->wdir;
    if (strchr(prog, '/') != NULL) {
        if (prog[0] == '/' || wdir == NULL)
            return check_exe(prog);
        char *full = NULL;
        if (asprintf(&full, "%s/%s", wdir, prog) < 0)
            return PMIX_ERR_NOMEM;
        pmix_status_t rc = check_exe(full);
        free(full);
        return rc;
    }
    pmix_status_t best = PMIX_ERR_JOB_EXE_NOT_FOUND;
    const char *path = search_path(main_opts, app);
    for (const char *d = path; best != PMIX_SUCCESS;) {
        const char *end = strchr(d, ':');
        size_t len = end != NULL ? (size_t)(end - d) : strlen(d);
        char *full = NULL;
        if (asprintf(&full, "%.*s/%s", (int)len, len > 0 ? d : ".", prog) < 0)
            return PMIX_ERR_NOMEM;
        pmix_status_t rc = check_exe(full);
        free(full);
        if (rc != PMIX_ERR_JOB_EXE_NOT_FOUND)
            best = rc; /* there, executable or not */
        if (end == NULL)
            break;
        d = end + 1;
    }
    return best;
}

static unsigned live_procs(const run_job_t *main_job)
{
    unsigned n = main_job->nprocs - main_job->nexited;
    for (child_t *c = children; c != NULL; c = c->next)
        n += c->job.nprocs - c->job.nexited;
    return n;
}

/* The launcher's rules for a spawned job: its programs exist and may be
 * executed, their working directories exist, it fits (free cores, unless
 * --oversubscribe; --max-procs in any case).  A line says why not. */
static pmix_status_t admit(const run_job_t *main_job, request_t *r, unsigned nprocs)
{
    const run_opts_t *mo = main_job->opts;
    for (unsigned a = 0; a < r->opts.napps; a++) {
        const run_app_t *app = &r->opts.apps[a];
        struct stat st;
        if (app->wdir != NULL && (stat(app->wdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            fprintf(stderr, "switchyard-run: spawn refused: no directory %s\n", app->wdir);
            return PMIX_ERR_JOB_WDIR_NOT_FOUND;
        }
        pmix_status_t rc = find_program(mo, app);
        if (rc == PMIX_ERR_JOB_EXE_NOT_FOUND && app->where != NULL) {
            r->opts.apps[a].argv[0] = app->where;
            rc = find_program(mo, app);
        }
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-run: spawn refused: %s %s\n", app->argv[0],
                    rc == PMIX_ERR_JOB_EXE_NOT_FOUND ? "not found" : "is not executable");
            return rc;
        }
    }
    unsigned live = live_procs(main_job);
    int cores = hwloc_get_nbobjs_by_type(main_job->topo, HWLOC_OBJ_CORE);
    unsigned ncores = cores > 0 ? (unsigned)cores : 1;
    if (!mo->oversubscribe && live + nprocs > ncores) {
        fprintf(stderr,
                "switchyard-run: spawn of %u processes refused: %u of %u cores are taken "
                "(add --oversubscribe to run more processes than cores)\n",
                nprocs, live < ncores ? live : ncores, ncores);
        return PMIX_ERR_JOB_INSUFFICIENT_RESOURCES;
    }
    if (live + nprocs > mo->max_procs || live + nprocs < live) {
        fprintf(stderr,
                "switchyard-run: spawn of %u processes refused: %u run already, at most %u at "
                "once (--max-procs)\n",
                nprocs, live, mo->max_procs);
        return PMIX_ERR_JOB_INSUFFICIENT_RESOURCES;
    }
    return PMIX_SUCCESS;
}

static void answer(request_t *r, pmix_status_t rc, const char *nspace)
{
    pmix_nspace_t ns;
    memset(ns, 0, sizeof(ns));
    if (rc == PMIX_SUCCESS)
        PMIX_LOAD_NSPACE(ns, nspace);
    if (r->cbfunc != NULL)
        r->cbfunc(rc, ns, r->cbdata);
    r->cbfunc = NULL; /* answered once */
}

/* Admit and register a request's job; its processes start in batches
 * (launch_batch).  The requester is answered now only on a refusal. */
static void start_child(run_job_t *main_job, request_t *r)
{
    unsigned nprocs = 0;
    for (unsigned a = 0; a < r->opts.napps; a++) {
        if (nprocs + r->opts.apps[a].np < nprocs) {
            nprocs = UINT32_MAX; /* refused below */
            break;
        }
        nprocs += r->opts.apps[a].np;
    }
    pmix_status_t rc = main_job->failing ? PMIX_ERR_JOB_CANCELED : admit(main_job, r, nprocs);
    child_t *c = rc == PMIX_SUCCESS ? calloc(1, sizeof(*c)) : NULL;
    if (rc == PMIX_SUCCESS && c == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = inherit_env(main_job->opts, &r->opts);
    if (rc != PMIX_SUCCESS) {
        answer(r, rc, NULL);
        free(c);
        request_free(r);
        return;
    }
    c->req = r;
    run_job_t *j = &c->job;
    j->opts = &r->opts;
    j->first_failed = -1;
    j->topo = main_job->topo;
    j->session_dir = main_job->session_dir;
    j->spawned = true;
    j->parent = r->parent;
    memcpy(j->hostname, main_job->hostname, sizeof(j->hostname));
    snprintf(j->nspace, sizeof(j->nspace), "switchyard.%ld.%u", (long)getpid(), next_job++);
    j->nprocs = nprocs;
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
                                       .exec_fd = -1,
                                       .stdin_fd = -1,
                                       .out_file = -1,
                                       .err_file = -1};
    if (rc == PMIX_SUCCESS && (run_register(j) != 0 || run_iof_setup(j) != 0))
        rc = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    c->launching = rc == PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) {
        /* nothing ran: every process counts as gone */
        c->doomed = true;
        j->nexited = j->nprocs;
        for (unsigned k = 0; k < j->nprocs && j->procs != NULL; k++)
            j->procs[k].exited = true;
        answer(r, rc, NULL);
    }
    pthread_mutex_lock(&spawn_lock);
    c->next = children;
    children = c;
    pthread_mutex_unlock(&spawn_lock);
}

/* The job will not run: what started is killed (its deaths are no failure
 * of the parent), the rest never starts, the requester hears why. */
static void abandon(child_t *c, pmix_status_t why)
{
    c->doomed = true;
    c->launching = false;
    run_job_t *j = &c->job;
    pthread_mutex_lock(&spawn_lock);
    for (unsigned k = c->started; k < j->nprocs; k++) {
        if (!j->procs[k].exited) {
            j->procs[k].exited = true;
            j->procs[k].status = 127 << 8;
            j->nexited++;
        }
    }
    pthread_mutex_unlock(&spawn_lock);
    run_kill_all(j, SIGKILL);
    answer(c->req, why, NULL);
}

static pmix_status_t launch_status(int err)
{
    switch (err) {
    case ENOENT: return PMIX_ERR_JOB_EXE_NOT_FOUND;
    case EACCES:
    case ENOEXEC:
    case EISDIR: return PMIX_ERR_JOB_APP_NOT_EXECUTABLE;
    default: return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    }
}

/* The next batch of a job being launched; answered once all run. */
static void launch_batch(child_t *c)
{
    run_job_t *j = &c->job;
    for (unsigned n = 0; n < RUN_SPAWN_BATCH && c->started < j->nprocs; n++) {
        run_proc_t *p = &j->procs[c->started];
        if (run_start(j, p) != 0) {
            int e = errno;
            fprintf(stderr, "switchyard-run: spawned job %s: cannot start %s (rank %u): %s\n",
                    j->nspace, j->opts->apps[p->app].argv[0], p->rank, strerror(e));
            abandon(c, launch_status(e));
            return;
        }
        c->started++;
    }
    if (c->started == j->nprocs) {
        c->launching = false;
        answer(c->req, PMIX_SUCCESS, j->nspace);
    }
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
    for (child_t *c = children; c != NULL; c = c->next) {
        if (c->launching && main_job->failing)
            abandon(c, PMIX_ERR_JOB_CANCELED);
        else if (c->launching)
            launch_batch(c);
        run_iof_poll(&c->job, -1, 0);
    }
}

bool run_spawn_launching(void)
{
    pthread_mutex_lock(&spawn_lock);
    bool any = pending != NULL;
    pthread_mutex_unlock(&spawn_lock);
    for (child_t *c = children; c != NULL && !any; c = c->next)
        any = c->launching;
    return any;
}

/* A spawned job ended (every process reaped): PMIX_ERR_JOB_TERMINATED to
 * the process that spawned it and to the job's namespace, naming the job
 * (PMIX_EVENT_AFFECTED_PROC) and, among the affected processes, its
 * spawner too, whose handler may filter on its own namespace (OpenPMIx's
 * tool example does); the first failure's exit code, else 0. */
static void notify_ended(const child_t *c)
{
    const run_job_t *j = &c->job;
    int code = 0;
    for (unsigned r = 0; r < j->nprocs && code == 0; r++) {
        int st = j->procs[r].status;
        code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    pmix_status_t term = code == 0 ? PMIX_SUCCESS : PMIX_ERR_JOB_TERMINATED;
    pmix_proc_t who[2];
    PMIX_LOAD_PROCID(&who[0], j->nspace, PMIX_RANK_WILDCARD);
    who[1] = j->parent;
    pmix_data_array_t procs = {.type = PMIX_PROC, .size = 2, .array = who};
    pmix_info_t info[5];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &who[0], PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_AFFECTED_PROCS, &procs, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&info[2], PMIX_EVENT_CUSTOM_RANGE, &procs, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&info[3], PMIX_EXIT_CODE, &code, PMIX_INT);
    PMIX_INFO_LOAD(&info[4], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    PMIx_Notify_event(PMIX_ERR_JOB_TERMINATED, &who[0], PMIX_RANGE_CUSTOM, info, 5, NULL, NULL);
    for (int i = 0; i < 5; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

bool run_spawn_reaped(pid_t pid, int status, bool *failed)
{
    for (child_t *c = children; c != NULL; c = c->next) {
        for (unsigned r = 0; r < c->job.nprocs; r++) {
            run_proc_t *p = &c->job.procs[r];
            if (p->pid != pid || p->exited)
                continue;
            /* under the lock: run_spawn_each's readers look at nexited */
            pthread_mutex_lock(&spawn_lock);
            p->exited = true;
            p->status = status;
            c->job.nexited++;
            pthread_mutex_unlock(&spawn_lock);
            /* a job that never fully started failed its spawn, not us */
            *failed = !c->doomed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0);
            if (*failed)
                fprintf(stderr, "switchyard-run: rank %u of spawned job %s %s %d\n", p->rank,
                        c->job.nspace,
                        WIFEXITED(status) ? "exited with status" : "was killed by signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            if (c->job.nexited == c->job.nprocs && !c->doomed)
                notify_ended(c);
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

void run_spawn_each(void (*fn)(void *arg, const run_job_t *job), void *arg)
{
    pthread_mutex_lock(&spawn_lock);
    for (child_t *c = children; c != NULL; c = c->next)
        if (c->job.procs != NULL && c->job.nexited < c->job.nprocs)
            fn(arg, &c->job);
    pthread_mutex_unlock(&spawn_lock);
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
    for (child_t *c = children; c != NULL; c = c->next) {
        if (c->launching)
            abandon(c, PMIX_ERR_JOB_CANCELED);
        run_kill_all(&c->job, sig);
    }
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
        if (c->launching)
            abandon(c, PMIX_ERR_JOB_CANCELED);
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
