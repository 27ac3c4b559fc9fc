/* A PMIx tool for the tool interop test (tests/external/opx-tool.sh),
 * built against either library:
 *   opx_attach_tool pid PID GO DONE | uri URI GO DONE | tcp URI GO DONE
 * attaches (PMIX_SERVER_PIDINFO, PMIX_SERVER_URI or PMIX_TCP_URI), prints
 * the identity the server gave it, queries the namespaces and each one's
 * process table, gets each one's PMIX_JOB_SIZE (job data the server
 * holds), registers for the event a waiter rank sends
 * (opx_waiter.c) and for PMIX_EVENT_JOB_END, creates the file GO, waits
 * for the rank's event, creates DONE (the ranks then finalize and exit),
 * waits for the job's end, deregisters its handler, finalizes.  With DONE "-" it stops after the
 * rank's event, with GO "-" before registering.
 * One line per step; exit 1 at the first failure. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix_tool.h>

#include "../openmpi/sy_mapcheck.h"

#define SY_TOOLTEST_EVENT (PMIX_EXTERNAL_ERR_BASE - 77)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int got_event, got_end, registered_done;
static pmix_proc_t event_src;
static pmix_status_t reg_status;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
    pthread_mutex_lock(&lock);
    if (status == SY_TOOLTEST_EVENT) {
        got_event = 1;
        if (source != NULL)
            event_src = *source;
    } else if (status == PMIX_EVENT_JOB_END) {
        got_end = 1;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static size_t handler_ref;

static void on_registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&lock);
    handler_ref = ref;
    reg_status = status;
    registered_done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* wait until *flag is set or `seconds` pass */
static int wait_flag(int *flag, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&lock);
    while (!*flag && pthread_cond_timedwait(&cond, &lock, &until) == 0)
        ;
    int v = *flag;
    pthread_mutex_unlock(&lock);
    return v;
}

static char *query_str(const char *key, const char *ns, pmix_status_t *rc, size_t *count)
{
    char *keys[] = {(char *)key, NULL};
    pmix_info_t qual;
    pmix_query_t q = {.keys = keys};
    if (ns != NULL) {
        PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    pmix_info_t *res = NULL;
    size_t n = 0;
    char *out = NULL;
    *count = 0;
    *rc = PMIx_Query_info(&q, 1, &res, &n);
    if (*rc == PMIX_SUCCESS && n > 0) {
        if (res[0].value.type == PMIX_STRING && res[0].value.data.string != NULL)
            out = strdup(res[0].value.data.string);
        else if (res[0].value.type == PMIX_DATA_ARRAY && res[0].value.data.darray != NULL)
            *count = res[0].value.data.darray->size;
    }
    if (ns != NULL)
        PMIX_INFO_DESTRUCT(&qual);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: opx_tool pid|uri|tcp VALUE GOFILE DONEFILE\n");
        return 2;
    }
    pmix_info_t info[2];
    size_t ninfo = 0;
    if (strcmp(argv[1], "pid") == 0) {
        pid_t pid = (pid_t)atol(argv[2]);
        PMIX_INFO_LOAD(&info[ninfo], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    } else {
        PMIX_INFO_LOAD(&info[ninfo], strcmp(argv[1], "tcp") == 0 ? PMIX_TCP_URI : PMIX_SERVER_URI,
                       argv[2], PMIX_STRING);
    }
    ninfo++;
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        printf("tool FAIL PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    sy_mapcheck("tool", 0); /* "tool libpmix <path>": the library it runs on */
    printf("tool attached as %s:%u\n", me.nspace, me.rank);
    fflush(stdout);
    size_t cnt = 0;
    char *all = query_str(PMIX_QUERY_NAMESPACES, NULL, &rc, &cnt);
    printf("tool namespaces %s (%s)\n", all != NULL ? all : "-", PMIx_Error_string(rc));
    int fails = all == NULL;
    char *save = NULL;
    for (char *ns = all != NULL ? strtok_r(all, ",", &save) : NULL; ns != NULL;
         ns = strtok_r(NULL, ",", &save)) {
        free(query_str(PMIX_QUERY_PROC_TABLE, ns, &rc, &cnt));
        printf("tool proctable %s %zu procs (%s)\n", ns, cnt, PMIx_Error_string(rc));
        /* the job's data, which the server holds */
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, ns, PMIX_RANK_WILDCARD);
        rc = PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &v);
        printf("tool jobsize %s %u (%s)\n", ns,
               rc == PMIX_SUCCESS && v->type == PMIX_UINT32 ? v->data.uint32 : 0,
               PMIx_Error_string(rc));
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
    }
    free(all);
    fflush(stdout);
    pmix_status_t codes[] = {SY_TOOLTEST_EVENT, PMIX_EVENT_JOB_END};
    if (strcmp(argv[3], "-") == 0) {
        /* attach and query only */
    } else if (PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, on_registered, NULL),
               !wait_flag(&registered_done, 30) || reg_status != PMIX_SUCCESS) {
        printf("tool FAIL register: %s\n", PMIx_Error_string(reg_status));
        fails++;
    } else {
        printf("tool registered\n");
        fflush(stdout);
        FILE *f = fopen(argv[3], "w");
        if (f != NULL)
            fclose(f);
        if (wait_flag(&got_event, 30))
            printf("tool event from %s:%u\n", event_src.nspace, event_src.rank);
        else
            printf("tool FAIL no event\n");
        fails += !got_event;
        if (got_event && strcmp(argv[4], "-") != 0) {
            fflush(stdout);
            f = fopen(argv[4], "w");
            if (f != NULL)
                fclose(f);
            if (wait_flag(&got_end, 30))
                printf("tool job end\n");
            else
                printf("tool FAIL no job end\n");
            fails += !got_end;
        }
        /* the last handler of its codes: the server is told */
        rc = PMIx_Deregister_event_handler(handler_ref, NULL, NULL);
        printf("tool deregistered: %s\n", PMIx_Error_string(rc));
        fails += rc != PMIX_SUCCESS;
    }
    fflush(stdout);
    rc = PMIx_tool_finalize();
    printf("tool finalized: %s\n", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info[0]);
    return fails > 0 || rc != PMIX_SUCCESS;
}
