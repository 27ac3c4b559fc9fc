/* switchyard-run started by a tool as its intermediate launcher
 * (Chap_API_Tools.tex, "IL-based command line parsing"): the tool spawned
 * us with PMIX_SPAWN_TOOL and PMIX_DEBUG_STOP_IN_INIT, and gave us
 * PMIX_LAUNCHER_RNDZ_URI (and PMIX_KEEPALIVE_PIPE) in our environment.
 *   - Our server takes the identity the tool gave us (PMIX_SERVER_NSPACE),
 *     so that it can make us its primary server by that namespace.
 *   - PMIx_tool_init, on a thread of its own, connects back to the tool
 *     and pauses until the tool's PMIX_DEBUGGER_RELEASE; meanwhile the
 *     main loop keeps answering tools (the tool attaching to us is one).
 *   - The tool's PMIX_LAUNCH_DIRECTIVES (PMIx_Get from the job info it
 *     registered for us) apply to our job as a spawn request's would:
 *     stop in init, on exec, in the application.
 *   - The tool hears PMIX_LAUNCH_COMPLETE (PMIX_NSPACE: our job) once
 *     every rank runs its program, and PMIX_EVENT_JOB_END when the job
 *     ends; if the tool goes away first (its keepalive pipe closes), we
 *     stop the job. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "run.h"

static bool il; /* we were started by a tool */
static pthread_t init_thread;
static bool thread_started;
static atomic_bool init_done, parent_gone;
static pmix_status_t init_status = PMIX_ERR_INIT;
static bool tool_up;
static pmix_proc_t me, parent;
static int wake_fd = -1;
static size_t end_ref;
static bool end_registered;

bool run_il_requested(void)
{
    return getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL;
}

const char *run_il_server_nspace(void)
{
    return run_il_requested() ? getenv("PMIX_SERVER_NSPACE") : NULL;
}

static void wake_main(void)
{
    char c = 'i';
    if (wake_fd >= 0 && write(wake_fd, &c, 1) < 0) {
        /* the main loop polls every 100 ms anyway */
    }
}

static void *init_main(void *arg)
{
    (void)arg;
    /* the library connects back to PMIX_LAUNCHER_RNDZ_URI itself (and
     * only there), and returns once the tool released us */
    init_status = PMIx_tool_init(&me, NULL, 0);
    atomic_store(&init_done, true);
    wake_main();
    return NULL;
}

int run_il_start(int wake)
{
    il = run_il_requested();
    if (!il)
        return 0;
    wake_fd = wake;
    if (pthread_create(&init_thread, NULL, init_main, NULL) != 0) {
        fprintf(stderr, "switchyard-run: cannot start the tool connection\n");
        return -1;
    }
    thread_started = true;
    return 0;
}

bool run_il_holding(void)
{
    return il && !atomic_load(&init_done);
}

bool run_il_parent_gone(void)
{
    return il && atomic_load(&parent_gone);
}

/* The tool that started us ended (its keepalive pipe closed). */
static void on_job_end(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    bool ours = source != NULL && PMIX_CHECK_NSPACE(source->nspace, parent.nspace);
    for (size_t i = 0; i < ninfo && !ours; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC &&
            info[i].value.data.proc != NULL)
            ours = PMIX_CHECK_NSPACE(info[i].value.data.proc->nspace, parent.nspace);
    if (ours) {
        fprintf(stderr, "switchyard-run: the tool that started us is gone; stopping the job\n");
        atomic_store(&parent_gone, true);
        wake_main();
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* The tool's directives for our job, as a spawn request's. */
static int apply_directives(run_opts_t *o)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t opt;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, NULL, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&job, PMIX_LAUNCH_DIRECTIVES, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS || v == NULL)
        return 0; /* none given */
    int ret = 0;
    if (v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        (v->data.darray->type != PMIX_INFO && v->data.darray->size > 0)) {
        fprintf(stderr, "switchyard-run: PMIX_LAUNCH_DIRECTIVES is not an array of infos\n");
        ret = -1;
    } else {
        pmix_app_t *apps = calloc(o->napps, sizeof(pmix_app_t));
        if (apps == NULL || run_debug_parse(o, v->data.darray->array, v->data.darray->size, apps,
                                            o->napps) != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-run: the launch directives cannot be applied\n");
            ret = -1;
        }
        free(apps);
    }
    PMIX_VALUE_RELEASE(v);
    return ret;
}

int run_il_released(run_job_t *job)
{
    if (!il)
        return 0;
    if (thread_started) {
        pthread_join(init_thread, NULL);
        thread_started = false;
    }
    if (init_status != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-run: the tool that started us did not let us run: %s\n",
                PMIx_Error_string(init_status));
        return -1;
    }
    tool_up = true;
    pmix_value_t *v = NULL;
    if (PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_PROC && v->data.proc != NULL)
        parent = *v->data.proc;
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    job->parent = parent;
    pmix_status_t code = PMIX_EVENT_JOB_END;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_job_end, NULL, NULL);
    if (rc >= 0) {
        end_ref = (size_t)rc;
        end_registered = true;
    }
    return apply_directives(job->opts);
}

/* Tell the tool that started us. */
static void tell_parent(pmix_status_t code, const run_job_t *job, const pmix_info_t *extra,
                        size_t nextra, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t whole;
    PMIX_LOAD_PROCID(&whole, job->nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[8];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, &whole, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_NSPACE, job->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &parent, PMIX_PROC);
    PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    for (size_t i = 0; i < nextra && n < 8; i++)
        PMIx_Info_xfer(&info[n++], &extra[i]);
    if (PMIx_Notify_event(code, &whole, PMIX_RANGE_CUSTOM, info, n, cbfunc, cbdata) !=
            PMIX_SUCCESS &&
        cbfunc != NULL)
        cbfunc(PMIX_ERR_INIT, cbdata);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

void run_il_launched(const run_job_t *job)
{
    if (!tool_up)
        return;
    /* a job stopped on exec says so itself, when all of them stopped */
    for (unsigned r = 0; r < job->nprocs; r++)
        if (run_debug_stop_on_exec(job, &job->procs[r]))
            return;
    tell_parent(PMIX_LAUNCH_COMPLETE, job, NULL, 0, NULL, NULL);
}

static void sent(pmix_status_t status, void *cbdata)
{
    (void)status;
    *(atomic_bool *)cbdata = true;
}

void run_il_ended(const run_job_t *job, int code)
{
    if (!tool_up)
        return;
    pmix_status_t term = code == 0 ? PMIX_SUCCESS : PMIX_ERR_JOB_TERMINATED;
    pmix_info_t extra[2];
    PMIX_INFO_LOAD(&extra[0], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    PMIX_INFO_LOAD(&extra[1], PMIX_EXIT_CODE, &code, PMIX_INT);
    /* it has left through our server when the callback comes: only then
     * may the server go; static, as the callback may come after we gave
     * up waiting */
    static atomic_bool done;
    atomic_store(&done, false);
    tell_parent(PMIX_EVENT_JOB_END, job, extra, 2, sent, &done);
    PMIX_INFO_DESTRUCT(&extra[0]);
    PMIX_INFO_DESTRUCT(&extra[1]);
    for (int i = 0; i < 400 && !atomic_load(&done); i++)
        usleep(5000);
}

void run_il_finish(void)
{
    if (!il)
        return;
    if (thread_started && !atomic_load(&init_done)) {
        /* stopped while the tool still holds us in PMIx_tool_init: that
         * thread ends with the process */
        pthread_detach(init_thread);
        thread_started = false;
        return;
    }
    if (thread_started) {
        pthread_join(init_thread, NULL);
        thread_started = false;
        tool_up = init_status == PMIX_SUCCESS;
    }
    if (end_registered)
        PMIx_Deregister_event_handler(end_ref, NULL, NULL);
    end_registered = false;
    if (tool_up)
        PMIx_tool_finalize();
    tool_up = false;
}
