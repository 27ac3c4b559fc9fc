/* The launcher's answers to PMIx_Query_info, PMIx_Log and
 * PMIx_Job_control (Chap_API_Query.tex, Chap_API_Job_Mgmt.tex). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

static run_job_t *job_of_ops;

static void release_infos(void *cbdata)
{
    pmix_info_t *info = cbdata;
    size_t n = 0;
    while (info != NULL && info[n].key[0] != '\0')
        n++;
    if (info != NULL)
        PMIX_INFO_FREE(info, n + 1);
}

static pmix_status_t proc_table_of(const run_job_t *job, pmix_value_t *v)
{
    pmix_proc_info_t *pi;
    PMIX_PROC_INFO_CREATE(pi, job->nprocs);
    if (pi == NULL)
        return PMIX_ERR_NOMEM;
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        PMIX_LOAD_PROCID(&pi[r].proc, job->nspace, r);
        pi[r].hostname = strdup(job->hostname);
        pi[r].executable_name = strdup(job->opts->apps[p->app].argv[0]);
        pi[r].pid = p->pid;
        pi[r].exit_code = p->exited && WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 0;
        pi[r].state = p->exited    ? PMIX_PROC_STATE_TERMINATED
                      : p->pid > 0 ? PMIX_PROC_STATE_RUNNING
                                   : PMIX_PROC_STATE_LAUNCH_UNDERWAY; /* not forked yet */
    }
    pmix_data_array_t *da = malloc(sizeof(*da));
    if (da == NULL) {
        PMIX_PROC_INFO_FREE(pi, job->nprocs);
        return PMIX_ERR_NOMEM;
    }
    da->type = PMIX_PROC_INFO;
    da->size = job->nprocs;
    da->array = pi;
    v->type = PMIX_DATA_ARRAY;
    v->data.darray = da;
    return PMIX_SUCCESS;
}

typedef struct {
    const char *want;
    pmix_value_t *v;
    pmix_status_t rc;
} table_t;

static void table_of(void *arg, const run_job_t *job)
{
    table_t *t = arg;
    if (t->rc == PMIX_ERR_NOT_FOUND && PMIX_CHECK_NSPACE(job->nspace, t->want))
        t->rc = proc_table_of(job, t->v);
}

/* The process table of the job a PMIX_NSPACE qualifier names (a running
 * spawned one too: debugger daemons ask about their target), else of the
 * launcher's own job. */
static pmix_status_t proc_table(const pmix_query_t *q, pmix_value_t *v)
{
    table_t t = {.v = v, .rc = PMIX_ERR_NOT_FOUND};
    for (size_t i = 0; q->qualifiers != NULL && i < q->nqual; i++)
        if (PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_NSPACE) &&
            q->qualifiers[i].value.type == PMIX_STRING)
            t.want = q->qualifiers[i].value.data.string;
    if (t.want == NULL || PMIX_CHECK_NSPACE(t.want, job_of_ops->nspace))
        return job_of_ops->nprocs > 0 ? proc_table_of(job_of_ops, v) : PMIX_ERR_NOT_FOUND;
    run_spawn_each(table_of, &t);
    return t.rc;
}

/* ---- the jobs this launcher runs: its own and the spawned ones ---- */

typedef struct {
    const char *want;  /* PMIX_NSPACE qualifier, or NULL: every job */
    pmix_info_t *info; /* PMIX_QUERY_NAMESPACE_INFO elements */
    size_t n, cap;
    char *names;   /* comma list */
    uint32_t size; /* of the job wanted */
    bool found;
} jobs_t;

/* The command line of a job: every app's argv, apps separated by " : ". */
static char *cmd_line(const run_job_t *job)
{
    size_t len = 1;
    for (unsigned a = 0; a < job->opts->napps; a++)
        for (char **v = job->opts->apps[a].argv; v != NULL && *v != NULL; v++)
            len += strlen(*v) + 3;
    char *s = calloc(1, len + 3 * job->opts->napps);
    for (unsigned a = 0; s != NULL && a < job->opts->napps; a++) {
        if (a > 0)
            strcat(s, " :");
        for (char **v = job->opts->apps[a].argv; v != NULL && *v != NULL; v++) {
            if (s[0] != '\0')
                strcat(s, " ");
            strcat(s, *v);
        }
    }
    return s;
}

static void add_job(void *arg, const run_job_t *job)
{
    jobs_t *j = arg;
    if (job->nprocs == 0)
        return; /* a system server's: no job of its own */
    if (j->want != NULL && !PMIX_CHECK_NSPACE(j->want, job->nspace))
        return;
    if (!j->found) /* the launcher's own job first: the default */
        j->size = job->nprocs;
    j->found = true;
    size_t old = j->names != NULL ? strlen(j->names) : 0;
    char *names = realloc(j->names, old + strlen(job->nspace) + 2);
    if (names != NULL) {
        if (old > 0)
            names[old++] = ',';
        strcpy(names + old, job->nspace);
        j->names = names;
    }
    if (j->n == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 4;
        pmix_info_t *g = realloc(j->info, cap * sizeof(*g));
        if (g == NULL)
            return;
        j->info = g;
        j->cap = cap;
    }
    /* {PMIX_NSPACE, PMIX_CMD_LINE}, as Chap_API_Query.tex describes */
    pmix_info_t pair[2];
    char *cmd = cmd_line(job);
    PMIX_INFO_LOAD(&pair[0], PMIX_NSPACE, job->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&pair[1], PMIX_CMD_LINE, cmd != NULL ? cmd : "", PMIX_STRING);
    free(cmd);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 2, .array = pair};
    PMIX_INFO_LOAD(&j->info[j->n], PMIX_QUERY_NAMESPACE_INFO, &da, PMIX_DATA_ARRAY);
    j->n++;
    PMIX_INFO_DESTRUCT(&pair[0]);
    PMIX_INFO_DESTRUCT(&pair[1]);
}

/* The jobs a query's PMIX_NSPACE qualifier (if any) names. */
static void jobs_of(const pmix_query_t *q, jobs_t *j)
{
    memset(j, 0, sizeof(*j));
    for (size_t i = 0; q->qualifiers != NULL && i < q->nqual; i++)
        if (PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_NSPACE) &&
            q->qualifiers[i].value.type == PMIX_STRING)
            j->want = q->qualifiers[i].value.data.string;
    add_job(j, job_of_ops);
    run_spawn_each(add_job, j);
}

static void jobs_free(jobs_t *j)
{
    if (j->info != NULL)
        PMIX_INFO_FREE(j->info, j->n);
    free(j->names);
}

/* ---- PMIX_QUERY_ALLOC_STATUS ---- */

/* The allocation a query names (its PMIX_ALLOC_ID qualifier), or NULL. */
static const char *alloc_of(const pmix_query_t *q)
{
    for (size_t i = 0; q->qualifiers != NULL && i < q->nqual; i++)
        if (PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_ALLOC_ID) &&
            q->qualifiers[i].value.type == PMIX_STRING)
            return q->qualifiers[i].value.data.string;
    return NULL;
}

/* A query about an allocation no request named yet waits for one: a
 * member of the job may ask about the request another member is still
 * sending (OpenPMIx's alloc example does).  It is answered when a request
 * is decided, else after PMIX_TIMEOUT seconds (a qualifier of that query)
 * or ALLOC_WAIT_S, with what is known then.  The library keeps the
 * queries until they are answered. */
#define ALLOC_WAIT_S 10.0
typedef struct parked {
    pmix_proc_t requestor;
    pmix_query_t *queries;
    size_t nqueries;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    double until;
    struct parked *next;
} parked_t;
static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;
static parked_t *parked;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static pmix_status_t answer_query(pmix_query_t *queries, size_t nqueries, pmix_info_cbfunc_t cbfunc,
                                  void *cbdata);

static bool alloc_unknown(const pmix_query_t *queries, size_t nqueries, double *wait)
{
    bool unknown = false;
    for (size_t q = 0; q < nqueries; q++)
        for (size_t k = 0; queries[q].keys != NULL && queries[q].keys[k] != NULL; k++) {
            if (strcmp(queries[q].keys[k], PMIX_QUERY_ALLOC_STATUS) != 0)
                continue;
            char *st = run_alloc_status(alloc_of(&queries[q]));
            unknown = unknown || st == NULL;
            free(st);
            for (size_t i = 0; queries[q].qualifiers != NULL && i < queries[q].nqual; i++)
                if (PMIX_CHECK_KEY(&queries[q].qualifiers[i], PMIX_TIMEOUT)) {
                    double t = -1;
                    pmix_status_t rc;
                    PMIX_VALUE_GET_NUMBER(rc, &queries[q].qualifiers[i].value, t, double);
                    if (rc == PMIX_SUCCESS && t >= 0)
                        *wait = t;
                }
        }
    return unknown;
}

/* Answer the parked queries that can be answered (all of them: every). */
static void unpark(bool every)
{
    double now = mono();
    parked_t *ready = NULL;
    pthread_mutex_lock(&parked_lock);
    for (parked_t **pp = &parked; *pp != NULL;) {
        parked_t *p = *pp;
        double wait = 0;
        if (every || now >= p->until || !alloc_unknown(p->queries, p->nqueries, &wait)) {
            *pp = p->next;
            p->next = ready;
            ready = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_mutex_unlock(&parked_lock);
    while (ready != NULL) {
        parked_t *p = ready;
        ready = p->next;
        if (answer_query(p->queries, p->nqueries, p->cbfunc, p->cbdata) != PMIX_SUCCESS)
            p->cbfunc(PMIX_ERR_NOMEM, NULL, 0, p->cbdata, NULL, NULL);
        free(p);
    }
}

void run_ops_alloc_decided(void)
{
    unpark(false);
}

static pmix_status_t query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    double wait = ALLOC_WAIT_S;
    if (alloc_unknown(queries, nqueries, &wait) && wait > 0) {
        parked_t *p = calloc(1, sizeof(*p));
        if (p == NULL)
            return PMIX_ERR_NOMEM;
        *p = (parked_t){.requestor = *proct,
                        .queries = queries,
                        .nqueries = nqueries,
                        .cbfunc = cbfunc,
                        .cbdata = cbdata,
                        .until = mono() + wait};
        pthread_mutex_lock(&parked_lock);
        p->next = parked;
        parked = p;
        pthread_mutex_unlock(&parked_lock);
        /* decided meanwhile? */
        unpark(false);
        return PMIX_SUCCESS;
    }
    return answer_query(queries, nqueries, cbfunc, cbdata);
}

static pmix_status_t answer_query(pmix_query_t *queries, size_t nqueries, pmix_info_cbfunc_t cbfunc,
                                  void *cbdata)
{
    size_t nkeys = 0;
    for (size_t q = 0; q < nqueries; q++)
        for (size_t k = 0; queries[q].keys != NULL && queries[q].keys[k] != NULL; k++)
            nkeys++;
    /* one spare, zeroed entry marks the end for release_infos */
    pmix_info_t *out;
    PMIX_INFO_CREATE(out, nkeys + 1);
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    size_t n = 0;
    run_job_t *job = job_of_ops;
    for (size_t q = 0; q < nqueries; q++) {
        for (size_t k = 0; queries[q].keys != NULL && queries[q].keys[k] != NULL; k++) {
            const char *key = queries[q].keys[k];
            pmix_info_t *o = &out[n];
            jobs_t jobs;
            bool about_jobs = !strcmp(key, PMIX_QUERY_NAMESPACES) ||
                              !strcmp(key, PMIX_QUERY_NAMESPACE_INFO) ||
                              !strcmp(key, PMIX_JOB_SIZE);
            if (about_jobs)
                jobs_of(&queries[q], &jobs);
            if (about_jobs && !jobs.found) {
                jobs_free(&jobs);
                continue;
            }
            if (!strcmp(key, PMIX_QUERY_NAMESPACES)) {
                PMIX_INFO_LOAD(o, key, jobs.names, PMIX_STRING);
            } else if (!strcmp(key, PMIX_QUERY_NAMESPACE_INFO)) {
                pmix_data_array_t da = {.type = PMIX_INFO, .size = jobs.n, .array = jobs.info};
                PMIX_INFO_LOAD(o, key, &da, PMIX_DATA_ARRAY);
            } else if (!strcmp(key, PMIX_JOB_SIZE)) {
                PMIX_INFO_LOAD(o, key, &jobs.size, PMIX_UINT32);
            } else if (!strcmp(key, PMIX_QUERY_JOB_STATUS)) {
                pmix_status_t st =
                    job->nexited < job->nprocs ? PMIX_SUCCESS : PMIX_ERR_JOB_TERMINATED;
                PMIX_INFO_LOAD(o, key, &st, PMIX_STATUS);
            } else if (!strcmp(key, PMIX_QUERY_PROC_TABLE) ||
                       !strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE)) {
                PMIX_LOAD_KEY(o->key, key);
                if (proc_table(&queries[q], &o->value) != PMIX_SUCCESS)
                    continue;
            } else if (!strcmp(key, PMIX_QUERY_SPAWN_SUPPORT)) {
                PMIX_INFO_LOAD(o, key, run_debug_spawn_support(), PMIX_STRING);
            } else if (!strcmp(key, PMIX_QUERY_DEBUG_SUPPORT)) {
                PMIX_INFO_LOAD(o, key, run_debug_debug_support(), PMIX_STRING);
            } else if (!strcmp(key, PMIX_HOSTNAME)) {
                PMIX_INFO_LOAD(o, key, job->hostname, PMIX_STRING);
            } else if (!strcmp(key, PMIX_QUERY_ALLOC_STATUS)) {
                char *st = run_alloc_status(alloc_of(&queries[q]));
                if (st == NULL)
                    continue;
                PMIX_INFO_LOAD(o, key, st, PMIX_STRING);
                free(st);
            } else {
                continue;
            }
            if (about_jobs)
                jobs_free(&jobs);
            n++;
        }
    }
    pmix_status_t st = n == nkeys ? PMIX_SUCCESS
                       : n > 0    ? PMIX_ERR_PARTIAL_SUCCESS
                                  : PMIX_ERR_NOT_FOUND;
    cbfunc(st, n > 0 ? out : NULL, n, cbdata, release_infos, out);
    return PMIX_SUCCESS;
}

static void log_upcall(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                       const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                       void *cbdata)
{
    (void)directives;
    (void)ndirs;
    size_t done = 0;
    for (size_t i = 0; i < ndata; i++) {
        const pmix_value_t *v = &data[i].value;
        const char *msg = v->type == PMIX_STRING ? v->data.string : NULL;
        if (PMIX_CHECK_KEY(&data[i], PMIX_LOG_STDERR) && msg != NULL) {
            fprintf(stderr, "[%s,%u] %s%s", client->nspace, client->rank, msg,
                    msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
            done++;
        } else if (PMIX_CHECK_KEY(&data[i], PMIX_LOG_STDOUT) && msg != NULL) {
            fprintf(stdout, "[%s,%u] %s%s", client->nspace, client->rank, msg,
                    msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
            fflush(stdout);
            done++;
        } else if (PMIX_CHECK_KEY(&data[i], PMIX_LOG_SYSLOG) && msg != NULL) {
            syslog(LOG_INFO, "[%s,%u] %s", client->nspace, client->rank, msg);
            done++;
        } else if (PMIX_CHECK_KEY(&data[i], PMIX_LOG_MSG) && v->type == PMIX_BYTE_OBJECT) {
            fprintf(stderr, "[%s,%u] %.*s\n", client->nspace, client->rank, (int)v->data.bo.size,
                    v->data.bo.bytes);
            done++;
        }
    }
    if (cbfunc != NULL)
        cbfunc(done > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED, cbdata);
}

static void signal_targets(const pmix_proc_t *req, const pmix_proc_t targets[], size_t n, int sig)
{
    run_job_t *job = job_of_ops;
    /* on the server's thread: the main thread reaps (exited) under it */
    run_host_lock();
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        bool hit = n == 0 && PMIX_CHECK_NSPACE(req->nspace, job->nspace);
        for (size_t t = 0; t < n && !hit; t++)
            hit = PMIX_CHECK_NSPACE(targets[t].nspace, job->nspace) &&
                  (targets[t].rank == PMIX_RANK_WILDCARD || targets[t].rank == r);
        if (hit && p->pid > 0 && !p->exited)
            kill(-p->pid, sig); /* its process group */
    }
    run_host_unlock();
}

static pmix_status_t job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                 size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t st = PMIX_ERR_NOT_SUPPORTED;
    for (size_t i = 0; i < ndirs; i++) {
        const pmix_info_t *d = &directives[i];
        if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_KILL)) {
            signal_targets(requestor, targets, ntargets, SIGKILL);
            st = PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_TERMINATE)) {
            signal_targets(requestor, targets, ntargets, SIGTERM);
            st = PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_SIGNAL) && d->value.type == PMIX_INT) {
            signal_targets(requestor, targets, ntargets, d->value.data.integer);
            st = PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_PREEMPTIBLE) ||
                   PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_CHECKPOINT_METHOD) ||
                   PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_CHECKPOINT_EVENT) ||
                   PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_CHECKPOINT_SIGNAL)) {
            /* informational: nothing on one machine ever preempts or
             * checkpoints a job, so noted and accepted */
            st = PMIX_SUCCESS;
        }
    }
    if (cbfunc != NULL)
        cbfunc(st, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

/* Heartbeat monitoring is the server library's (PMIX_SERVER_ENABLE_MONITORING,
 * given at PMIx_server_init); no other kind is served. */

/* From the main loop: parked requests whose time came. */
void run_ops_tick(void)
{
    unpark(false);
}

void run_ops_module(pmix_server_module_t *m, run_job_t *job)
{
    job_of_ops = job;
    m->query = query;
    m->log = log_upcall;
    m->job_control = job_control;
}

void run_ops_cleanup(void)
{
    unpark(true);
}
