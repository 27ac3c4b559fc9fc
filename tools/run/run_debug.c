/* Debugger support of switchyard-run (Chap_API_Tools.tex, "Debugger
 * support"), for jobs a tool spawns:
 *   PMIX_DEBUG_STOP_IN_INIT   registered with the job (true, or the ranks
 *                             of the app contexts that asked); the client
 *                             library pauses in PMIx_Init and says so
 *                             (PMIX_READY_FOR_DEBUG, range RM)
 *   PMIX_DEBUG_STOP_IN_APP    registered as given; the application says
 *                             when it reached its pause point
 *   PMIX_DEBUG_STOP_ON_EXEC   the process is traced from fork and stopped
 *                             (SIGSTOP, untraced) at its first instruction
 *   When every process named has paused, the spawner hears one
 *   PMIX_READY_FOR_DEBUG (the job as PMIX_EVENT_AFFECTED_PROC, the
 *   PMIX_BREAKPOINT: "pmix-init", the application's, or "exec"; for exec
 *   stops also PMIX_LAUNCH_COMPLETE, as the standard asks).
 *   PMIX_DEBUGGER_RELEASE naming the job (PMIX_EVENT_CUSTOM_RANGE or
 *   PMIX_EVENT_AFFECTED_PROC(S)) continues the exec-stopped processes;
 *   the client library releases its own pause in PMIx_Init.
 *   PMIX_DEBUGGER_DAEMONS     an app context of debugger daemons for the
 *                             job PMIX_DEBUG_TARGET (or PMIX_DEBUG_JOB)
 *                             names, a running job of this launcher: one
 *                             per target process by default,
 *                             PMIX_DEBUG_DAEMONS_PER_PROC per process,
 *                             PMIX_DEBUG_DAEMONS_PER_NODE (or a mapping
 *                             ppr:N:node) per node, or maxprocs; their job
 *                             gets PMIX_DEBUG_TARGET and PMIX_DEBUG_JOB;
 *                             pause directives do not apply to them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

/* What a spawn request asked of the debugger support. */
struct run_debug {
    bool init_all, exec_all;   /* job-level STOP_IN_INIT / ON_EXEC */
    bool *init_app, *exec_app; /* per app context */
    bool *daemons;             /* per app context: debugger daemons */
    pmix_value_t *in_app;      /* STOP_IN_APP as given, or NULL */
    bool have_target;
    pmix_proc_t target;
    unsigned napps;
};

/* A job whose processes pause for a debugger, until all of them did. */
typedef struct held {
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_proc_t spawner;
    run_job_t *job; /* main thread only (pids) */
    unsigned expect_pause, paused;
    unsigned expect_exec, exec_stopped;
    bool *seen; /* per rank: its pause counted */
    pid_t *stopped_pids;
    char breakpoint[64];
    struct held *next;
} held_t;

static const run_job_t *main_of_dbg;
static pthread_mutex_t dbg_lock = PTHREAD_MUTEX_INITIALIZER;
static held_t *helds;
static size_t release_ref;
static bool release_registered;

void run_debug_free(run_debug_t *d)
{
    if (d == NULL)
        return;
    free(d->init_app);
    free(d->exec_app);
    free(d->daemons);
    if (d->in_app != NULL)
        PMIX_VALUE_RELEASE(d->in_app);
    free(d);
}

static bool flag_of(const pmix_info_t *i)
{
    return PMIX_INFO_TRUE(i);
}

/* The debugger-related directives in one info array (app == -1: job). */
static pmix_status_t take(run_debug_t *d, const pmix_info_t *info, size_t n, int app,
                          uint32_t *per_node, uint32_t *per_proc, uint32_t *ppr)
{
    for (size_t i = 0; info != NULL && i < n; i++) {
        const pmix_info_t *x = &info[i];
        if (PMIX_CHECK_KEY(x, PMIX_DEBUG_STOP_IN_INIT)) {
            if (app < 0)
                d->init_all = flag_of(x);
            else
                d->init_app[app] = flag_of(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUG_STOP_ON_EXEC)) {
            if (app < 0)
                d->exec_all = flag_of(x);
            else
                d->exec_app[app] = flag_of(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUG_STOP_IN_APP)) {
            if (d->in_app != NULL)
                PMIX_VALUE_RELEASE(d->in_app);
            PMIX_VALUE_CREATE(d->in_app, 1);
            if (d->in_app == NULL || PMIx_Value_xfer(d->in_app, &x->value) != PMIX_SUCCESS)
                return PMIX_ERR_NOMEM;
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUGGER_DAEMONS)) {
            /* in the job info: every app context of the request */
            for (unsigned a = 0; a < d->napps; a++)
                if (app < 0 || (unsigned)app == a)
                    d->daemons[a] = flag_of(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUG_TARGET)) {
            if (x->value.type != PMIX_PROC || x->value.data.proc == NULL)
                return PMIX_ERR_BAD_PARAM;
            d->target = *x->value.data.proc;
            d->have_target = true;
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUG_JOB)) {
            if (x->value.type != PMIX_STRING || x->value.data.string == NULL)
                return PMIX_ERR_BAD_PARAM;
            PMIX_LOAD_PROCID(&d->target, x->value.data.string, PMIX_RANK_WILDCARD);
            d->have_target = true;
        } else if (PMIX_CHECK_KEY(x, PMIX_DEBUG_DAEMONS_PER_NODE) ||
                   PMIX_CHECK_KEY(x, PMIX_DEBUG_DAEMONS_PER_PROC)) {
            uint32_t v = 0;
            pmix_status_t rc;
            PMIX_VALUE_GET_NUMBER(rc, &x->value, v, uint32_t);
            if (rc != PMIX_SUCCESS || v == 0)
                return PMIX_ERR_BAD_PARAM;
            *(PMIX_CHECK_KEY(x, PMIX_DEBUG_DAEMONS_PER_NODE) ? per_node : per_proc) = v;
        } else if (PMIX_CHECK_KEY(x, PMIX_MAPBY) && x->value.type == PMIX_STRING &&
                   x->value.data.string != NULL) {
            unsigned v = 0;
            char tail[16] = "";
            /* ppr:N:node, the mapping OpenPMIx's debugger asks of daemons */
            if (sscanf(x->value.data.string, "ppr:%u:%15s", &v, tail) == 2 && v > 0 &&
                strcmp(tail, "node") == 0)
                *ppr = v;
        }
    }
    return PMIX_SUCCESS;
}

typedef struct {
    const char *nspace;
    unsigned nprocs;
    bool found;
} find_t;

static void find_job(void *arg, const run_job_t *job)
{
    find_t *f = arg;
    if (!f->found && job->nprocs > 0 && PMIX_CHECK_NSPACE(job->nspace, f->nspace)) {
        f->found = true;
        f->nprocs = job->nprocs;
    }
}

pmix_status_t run_debug_parse(run_opts_t *o, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps)
{
    const run_job_t *main_job = main_of_dbg;
    run_debug_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->napps = (unsigned)napps;
    d->init_app = calloc(napps, sizeof(bool));
    d->exec_app = calloc(napps, sizeof(bool));
    d->daemons = calloc(napps, sizeof(bool));
    if (d->init_app == NULL || d->exec_app == NULL || d->daemons == NULL) {
        run_debug_free(d);
        return PMIX_ERR_NOMEM;
    }
    uint32_t job_node = 0, job_proc = 0, job_ppr = 0;
    pmix_status_t rc = take(d, job_info, ninfo, -1, &job_node, &job_proc, &job_ppr);
    bool any = d->init_all || d->exec_all || d->in_app != NULL;
    for (size_t a = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        uint32_t per_node = job_node, per_proc = job_proc, ppr = job_ppr;
        rc = take(d, apps[a].info, apps[a].ninfo, (int)a, &per_node, &per_proc, &ppr);
        any = any || d->init_app[a] || d->exec_app[a] || d->daemons[a];
        if (rc != PMIX_SUCCESS || !d->daemons[a])
            continue;
        /* debugger daemons: beside the target, placed as asked */
        if (!d->have_target) {
            fprintf(stderr, "switchyard-run: spawn refused: debugger daemons without "
                            "PMIX_DEBUG_TARGET\n");
            rc = PMIX_ERR_BAD_PARAM;
            break;
        }
        find_t f = {.nspace = d->target.nspace};
        find_job(&f, main_job);
        run_spawn_each(find_job, &f);
        if (!f.found) {
            fprintf(stderr, "switchyard-run: spawn refused: debug target %s is no running job\n",
                    d->target.nspace);
            rc = PMIX_ERR_NOT_FOUND;
            break;
        }
        unsigned targets = d->target.rank == PMIX_RANK_WILDCARD ? f.nprocs : 1;
        unsigned np = per_node > 0           ? per_node
                      : per_proc > 0         ? per_proc * targets
                      : ppr > 0              ? ppr
                      : apps[a].maxprocs > 0 ? (unsigned)apps[a].maxprocs
                                             : targets;
        o->apps[a].np = np;
    }
    if (rc != PMIX_SUCCESS || !any) {
        run_debug_free(d);
        return rc;
    }
    o->debug = d;
    return PMIX_SUCCESS;
}

/* Does the directive (job-level or its app's) pause this process?  Never
 * a debugger daemon. */
static bool pauses_in_init(const run_debug_t *d, unsigned app)
{
    return d != NULL && !d->daemons[app] && (d->init_all || d->init_app[app]);
}

bool run_debug_stop_on_exec(const run_job_t *job, const run_proc_t *p)
{
    const run_debug_t *d = job->opts->debug;
    return d != NULL && !d->daemons[p->app] && (d->exec_all || d->exec_app[p->app]);
}

static bool rank_in(const pmix_value_t *v, pmix_rank_t r)
{
    switch (v->type) {
    case PMIX_BOOL: return v->data.flag;
    case PMIX_PROC_RANK: return v->data.rank == r || v->data.rank == PMIX_RANK_WILDCARD;
    case PMIX_DATA_ARRAY:
        if (v->data.darray == NULL || v->data.darray->array == NULL)
            return false;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            if (v->data.darray->type == PMIX_PROC_RANK) {
                pmix_rank_t x = ((const pmix_rank_t *)v->data.darray->array)[i];
                if (x == r || x == PMIX_RANK_WILDCARD)
                    return true;
            } else if (v->data.darray->type == PMIX_PROC) {
                pmix_rank_t x = ((const pmix_proc_t *)v->data.darray->array)[i].rank;
                if (x == r || x == PMIX_RANK_WILDCARD)
                    return true;
            }
        }
        return false;
    default: return false;
    }
}

pmix_info_t *run_debug_job_info(const run_job_t *job, size_t *n)
{
    const run_debug_t *d = job->opts->debug;
    *n = 0;
    if (d == NULL)
        return NULL;
    pmix_info_t *out;
    PMIX_INFO_CREATE(out, 4);
    if (out == NULL)
        return NULL;
    bool all = true, some = false;
    for (unsigned a = 0; a < d->napps; a++) {
        all = all && pauses_in_init(d, a);
        some = some || pauses_in_init(d, a);
    }
    if (all && some) {
        bool yes = true;
        PMIX_INFO_LOAD(&out[(*n)++], PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    } else if (some) {
        /* the ranks of the app contexts that asked */
        pmix_rank_t *ranks = calloc(job->nprocs, sizeof(pmix_rank_t));
        size_t k = 0;
        for (unsigned r = 0; ranks != NULL && r < job->nprocs; r++)
            if (pauses_in_init(d, job->procs[r].app))
                ranks[k++] = r;
        pmix_data_array_t da = {.type = PMIX_PROC_RANK, .size = k, .array = ranks};
        if (ranks != NULL)
            PMIX_INFO_LOAD(&out[(*n)++], PMIX_DEBUG_STOP_IN_INIT, &da, PMIX_DATA_ARRAY);
        free(ranks);
    }
    if (d->in_app != NULL) {
        PMIX_LOAD_KEY(out[*n].key, PMIX_DEBUG_STOP_IN_APP);
        if (PMIx_Value_xfer(&out[*n].value, d->in_app) == PMIX_SUCCESS)
            (*n)++;
    }
    bool daemons = false;
    for (unsigned a = 0; a < d->napps; a++)
        daemons = daemons || d->daemons[a];
    if (daemons) {
        PMIX_INFO_LOAD(&out[(*n)++], PMIX_DEBUG_TARGET, &d->target, PMIX_PROC);
        PMIX_INFO_LOAD(&out[(*n)++], PMIX_DEBUG_JOB, d->target.nspace, PMIX_STRING);
    }
    return out;
}

void run_debug_job_registered(run_job_t *job)
{
    const run_debug_t *d = job->opts->debug;
    if (d == NULL)
        return;
    unsigned pause = 0, exec = 0;
    for (unsigned r = 0; r < job->nprocs; r++) {
        unsigned a = job->procs[r].app;
        if (pauses_in_init(d, a) || (!d->daemons[a] && d->in_app != NULL && rank_in(d->in_app, r)))
            pause++;
        if (run_debug_stop_on_exec(job, &job->procs[r]))
            exec++;
    }
    if (pause == 0 && exec == 0)
        return;
    held_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return;
    h->seen = calloc(job->nprocs, sizeof(bool));
    h->stopped_pids = calloc(job->nprocs, sizeof(pid_t));
    if (h->seen == NULL || h->stopped_pids == NULL) {
        free(h->seen);
        free(h->stopped_pids);
        free(h);
        return;
    }
    PMIX_LOAD_NSPACE(h->nspace, job->nspace);
    h->spawner = job->parent;
    h->job = job;
    h->expect_pause = pause;
    h->expect_exec = exec;
    pthread_mutex_lock(&dbg_lock);
    h->next = helds;
    helds = h;
    pthread_mutex_unlock(&dbg_lock);
}

/* The job has paused: its spawner hears it. */
static void tell_spawner(const char *nspace, const pmix_proc_t *spawner, pmix_status_t code,
                         const char *breakpoint)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[4];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_CUSTOM_RANGE, spawner, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    if (breakpoint != NULL)
        PMIX_INFO_LOAD(&info[n++], PMIX_BREAKPOINT, breakpoint, PMIX_STRING);
    PMIx_Notify_event(code, &job, PMIX_RANGE_CUSTOM, info, n, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

/* A process paused (its PMIX_READY_FOR_DEBUG, on the server's thread). */
static void paused(const pmix_proc_t *source, const pmix_info_t info[], size_t ninfo)
{
    if (source->rank == PMIX_RANK_WILDCARD)
        return; /* our own aggregate, on its way out */
    const char *bp = NULL;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING)
            bp = info[i].value.data.string;
    bool all = false;
    pmix_proc_t spawner;
    char bpcopy[64] = "";
    pthread_mutex_lock(&dbg_lock);
    for (held_t *h = helds; h != NULL; h = h->next) {
        if (!PMIX_CHECK_NSPACE(h->nspace, source->nspace) || h->seen == NULL ||
            source->rank >= h->job->nprocs || h->seen[source->rank])
            continue;
        h->seen[source->rank] = true;
        if (bp != NULL)
            snprintf(h->breakpoint, sizeof(h->breakpoint), "%s", bp);
        all = ++h->paused == h->expect_pause;
        spawner = h->spawner;
        snprintf(bpcopy, sizeof(bpcopy), "%s", h->breakpoint);
        break;
    }
    pthread_mutex_unlock(&dbg_lock);
    if (all)
        tell_spawner(source->nspace, &spawner, PMIX_READY_FOR_DEBUG,
                     bpcopy[0] != '\0' ? bpcopy : "pmix-init");
}

bool run_debug_exec_stopped(pid_t pid)
{
    /* traced since fork: stopped by its exec; from now on it is an
     * ordinary stopped process a debugger may attach to */
    if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)SIGSTOP) != 0)
        return false;
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    pmix_proc_t spawner;
    bool all = false;
    pthread_mutex_lock(&dbg_lock);
    for (held_t *h = helds; h != NULL && nspace[0] == '\0'; h = h->next)
        for (unsigned r = 0; r < h->job->nprocs; r++)
            if (h->job->procs[r].pid == pid) {
                h->stopped_pids[r] = pid;
                all = ++h->exec_stopped == h->expect_exec;
                PMIX_LOAD_NSPACE(nspace, h->nspace);
                spawner = h->spawner;
                break;
            }
    pthread_mutex_unlock(&dbg_lock);
    if (all) {
        tell_spawner(nspace, &spawner, PMIX_READY_FOR_DEBUG, "exec");
        tell_spawner(nspace, &spawner, PMIX_LAUNCH_COMPLETE, NULL);
    }
    return true;
}

/* Does the release name this job? */
static bool names_job(const pmix_info_t info[], size_t ninfo, const char *nspace)
{
    bool any = false;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *x = &info[i];
        if (!PMIX_CHECK_KEY(x, PMIX_EVENT_CUSTOM_RANGE) &&
            !PMIX_CHECK_KEY(x, PMIX_EVENT_AFFECTED_PROC) &&
            !PMIX_CHECK_KEY(x, PMIX_EVENT_AFFECTED_PROCS))
            continue;
        any = true;
        if (x->value.type == PMIX_PROC && x->value.data.proc != NULL &&
            PMIX_CHECK_NSPACE(x->value.data.proc->nspace, nspace))
            return true;
        if (x->value.type == PMIX_DATA_ARRAY && x->value.data.darray != NULL &&
            x->value.data.darray->type == PMIX_PROC)
            for (size_t k = 0; k < x->value.data.darray->size; k++)
                if (PMIX_CHECK_NSPACE(((const pmix_proc_t *)x->value.data.darray->array)[k].nspace,
                                      nspace))
                    return true;
    }
    return !any; /* naming nobody: every held job on the node */
}

static void released(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&dbg_lock);
    for (held_t *h = helds; h != NULL; h = h->next) {
        if (!names_job(info, ninfo, h->nspace))
            continue;
        for (unsigned r = 0; r < h->job->nprocs; r++)
            if (h->stopped_pids[r] > 0) {
                kill(h->stopped_pids[r], SIGCONT);
                h->stopped_pids[r] = 0;
            }
    }
    pthread_mutex_unlock(&dbg_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Events the clients raise beyond this node (range RM and wider) come
 * here: the pauses are counted; nothing goes further on one machine. */
static pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t *source,
                                  pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)range;
    (void)cbfunc;
    (void)cbdata;
    if (code == PMIX_READY_FOR_DEBUG && source != NULL)
        paused(source, info, ninfo);
    return PMIX_OPERATION_SUCCEEDED;
}

void run_debug_module(pmix_server_module_t *m, const run_job_t *main_job)
{
    main_of_dbg = main_job;
    m->notify_event = notify_event;
}

int run_debug_init(void)
{
    pmix_status_t code = PMIX_DEBUGGER_RELEASE;
    pmix_info_t name;
    PMIX_INFO_LOAD(&name, PMIX_EVENT_HDLR_NAME, "switchyard-run-release", PMIX_STRING);
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, &name, 1, released, NULL, NULL);
    PMIX_INFO_DESTRUCT(&name);
    if (rc < 0) {
        fprintf(stderr, "switchyard-run: cannot watch for debugger releases: %s\n",
                PMIx_Error_string(rc));
        return -1;
    }
    release_ref = (size_t)rc;
    release_registered = true;
    return 0;
}

void run_debug_finish(void)
{
    if (release_registered)
        PMIx_Deregister_event_handler(release_ref, NULL, NULL);
    release_registered = false;
    pthread_mutex_lock(&dbg_lock);
    while (helds != NULL) {
        held_t *h = helds;
        helds = h->next;
        free(h->seen);
        free(h->stopped_pids);
        free(h);
    }
    pthread_mutex_unlock(&dbg_lock);
}

/* What PMIX_QUERY_SPAWN_SUPPORT and PMIX_QUERY_DEBUG_SUPPORT answer: the
 * spawn attributes this launcher acts on, and the debugger ones. */
const char *run_debug_spawn_support(void)
{
    return PMIX_PSET_NAME "," PMIX_NOTIFY_COMPLETION "," PMIX_DEBUG_STOP_IN_INIT
                          "," PMIX_DEBUG_STOP_ON_EXEC "," PMIX_DEBUG_STOP_IN_APP
                          "," PMIX_DEBUGGER_DAEMONS "," PMIX_DEBUG_TARGET "," PMIX_DEBUG_JOB
                          "," PMIX_DEBUG_DAEMONS_PER_NODE "," PMIX_DEBUG_DAEMONS_PER_PROC;
}

const char *run_debug_debug_support(void)
{
    return PMIX_DEBUG_STOP_IN_INIT "," PMIX_DEBUG_STOP_ON_EXEC "," PMIX_DEBUG_STOP_IN_APP
                                   "," PMIX_DEBUGGER_DAEMONS "," PMIX_DEBUG_TARGET
                                   "," PMIX_DEBUG_JOB "," PMIX_DEBUG_DAEMONS_PER_NODE
                                   "," PMIX_DEBUG_DAEMONS_PER_PROC "," PMIX_BREAKPOINT;
}
