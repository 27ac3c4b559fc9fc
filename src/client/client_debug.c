/* PMIX_DEBUG_STOP_IN_INIT (Chap_API_Tools.tex): a process its launcher
 * registered with that job-level value (true, its rank, the wildcard rank,
 * or an array of ranks or processes naming it) tells its server it is
 * pausing (PMIX_READY_FOR_DEBUG, range RM, PMIX_BREAKPOINT "pmix-init")
 * and waits in PMIx_Init for PMIX_DEBUGGER_RELEASE, which a debugger (or
 * its daemons) sends once attached.  The launcher gathers the pauses into
 * one PMIX_READY_FOR_DEBUG for the debugger. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/log.h"

/* One hold for the process, never destroyed: a handler invocation chosen
 * before the deregistration (a second release, the server lost) may still
 * run after the wait returned, so its object must outlive the wait.  The
 * generation tells a late invocation from the hold it belongs to. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uintptr_t gen; /* of the hold waiting now */
    bool released;
    pmix_status_t why; /* the release, or the server lost */
} hold = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static bool names_me(const pmix_value_t *v, const pmix_proc_t *me)
{
    switch (v->type) {
    case PMIX_BOOL: return v->data.flag;
    case PMIX_PROC_RANK: return v->data.rank == me->rank || v->data.rank == PMIX_RANK_WILDCARD;
    case PMIX_PROC:
        return v->data.proc != NULL && PMIX_CHECK_NSPACE(v->data.proc->nspace, me->nspace) &&
               (v->data.proc->rank == me->rank || v->data.proc->rank == PMIX_RANK_WILDCARD);
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *da = v->data.darray;
        if (da == NULL || da->array == NULL)
            return false;
        for (size_t i = 0; i < da->size; i++) {
            if (da->type == PMIX_PROC_RANK) {
                pmix_rank_t r = ((const pmix_rank_t *)da->array)[i];
                if (r == me->rank || r == PMIX_RANK_WILDCARD)
                    return true;
            } else if (da->type == PMIX_PROC) {
                const pmix_proc_t *p = &((const pmix_proc_t *)da->array)[i];
                if (PMIX_CHECK_NSPACE(p->nspace, me->nspace) &&
                    (p->rank == me->rank || p->rank == PMIX_RANK_WILDCARD))
                    return true;
            }
        }
        return false;
    }
    default: return false;
    }
}

static void released(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    uintptr_t gen = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT) &&
            info[i].value.type == PMIX_POINTER)
            gen = (uintptr_t)info[i].value.data.ptr;
    pthread_mutex_lock(&hold.lock);
    if (gen != 0 && gen == hold.gen && !hold.released) {
        hold.released = true;
        hold.why = status;
        pthread_cond_broadcast(&hold.cond);
    }
    pthread_mutex_unlock(&hold.lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

pmix_status_t sy_client_debug_hold(const pmix_proc_t *me)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
    pmix_info_t opt;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, NULL, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&job, PMIX_DEBUG_STOP_IN_INIT, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS || v == NULL)
        return PMIX_SUCCESS; /* no debugger asked for a stop */
    bool stop = names_me(v, me);
    PMIX_VALUE_RELEASE(v);
    if (!stop)
        return PMIX_SUCCESS;

    static uintptr_t last_gen;
    pthread_mutex_lock(&hold.lock);
    uintptr_t gen = ++last_gen;
    hold.gen = gen;
    hold.released = false;
    hold.why = PMIX_SUCCESS;
    pthread_mutex_unlock(&hold.lock);
    pmix_info_t ev[2];
    PMIX_INFO_LOAD(&ev[0], PMIX_EVENT_RETURN_OBJECT, (void *)gen, PMIX_POINTER);
    PMIX_INFO_LOAD(&ev[1], PMIX_EVENT_HDLR_NAME, "switchyard-debugger-release", PMIX_STRING);
    /* a server that goes away releases us too (PMIx_Init fails) */
    pmix_status_t codes[2] = {PMIX_DEBUGGER_RELEASE, PMIX_ERR_LOST_CONNECTION};
    rc = PMIx_Register_event_handler(codes, 2, ev, 2, released, NULL, NULL);
    PMIX_INFO_DESTRUCT(&ev[0]);
    PMIX_INFO_DESTRUCT(&ev[1]);
    if (rc < 0) {
        sy_log(SY_LOG_WARN, "PMIx_Init: cannot wait for the debugger: %s", PMIx_Error_string(rc));
        return rc;
    }
    size_t ref = (size_t)rc;
    PMIX_INFO_LOAD(&ev[0], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&ev[1], PMIX_BREAKPOINT, "pmix-init", PMIX_STRING);
    rc = PMIx_Notify_event(PMIX_READY_FOR_DEBUG, me, PMIX_RANGE_RM, ev, 2, NULL, NULL);
    PMIX_INFO_DESTRUCT(&ev[0]);
    PMIX_INFO_DESTRUCT(&ev[1]);
    pmix_status_t why = PMIX_SUCCESS;
    pthread_mutex_lock(&hold.lock);
    if (rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED) {
        while (!hold.released)
            pthread_cond_wait(&hold.cond, &hold.lock);
        why = hold.why;
    }
    hold.gen = 0; /* late invocations find no hold */
    pthread_mutex_unlock(&hold.lock);
    PMIx_Deregister_event_handler(ref, NULL, NULL);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        rc = PMIX_SUCCESS;
    if (rc == PMIX_SUCCESS && why != PMIX_DEBUGGER_RELEASE)
        rc = PMIX_ERR_UNREACH;
    return rc;
}
