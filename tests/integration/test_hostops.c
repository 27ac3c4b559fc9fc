/* Run under switchyard-run with 2 ranks: PMIx_Query_info, PMIx_Log and
 * PMIx_Job_control through the launcher.  Rank 0 queries the namespaces
 * and the process table, logs a line, registers a file for cleanup (with a
 * NULL callback), then kills rank 1, which waits forever: the job must end
 * with rank 1 killed by SIGKILL and the file gone. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_hostops): " __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static int alerted; /* set by the handler on the progress thread */

static void on_alert(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                     size_t ninfo, pmix_info_t *res, size_t nres,
                     pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    __atomic_store_n(&alerted, 1, __ATOMIC_RELEASE);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* test_hostops monitor: heartbeats every second, none sent: the alert must
 * come; a beat is accepted. */
static int monitor_mode(pmix_proc_t *me)
{
    (void)me;
    pmix_status_t code = PMIX_MONITOR_HEARTBEAT_ALERT;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_alert, NULL, NULL);
    pmix_info_t mon, dirs[2];
    uint32_t one = 1, zero = 0;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &zero, PMIX_UINT32);
    pmix_status_t rc =
        PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, dirs, 2, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        FAIL("Process_monitor(heartbeat): %s", PMIx_Error_string(rc));
    PMIx_Heartbeat();
    for (int i = 0; i < 60 && !__atomic_load_n(&alerted, __ATOMIC_ACQUIRE); i++)
        usleep(100000);
    if (!__atomic_load_n(&alerted, __ATOMIC_ACQUIRE))
        FAIL("no heartbeat alert after missed beats");
    PMIX_INFO_DESTRUCT(&mon);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_hostops monitor: ok\n");
    return failures == 0 ? 0 : 1;
}

/* test_hostops spawn [fail]: PMIx_Spawn of 2 copies of ourselves ("child"
 * mode), which must see PMIX_SPAWNED, their parent, and in their
 * environment the launcher's -x SY_FROM_LAUNCHER=yes and the app's own
 * SY_FROM_APP=yes and SY_BOTH=app (the app's setting wins over the
 * launcher's --env SY_BOTH=launcher); the parent reads the new job's size.
 * With "fail", child 1 then exits with status 5. */
static int spawn_mode(pmix_proc_t *me, const char *self, bool fail)
{
    pmix_app_t *app;
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup(self);
    app->argv = calloc(4, sizeof(char *));
    app->argv[0] = strdup(self);
    app->argv[1] = strdup("child");
    app->argv[2] = fail ? strdup("fail") : NULL;
    app->env = calloc(3, sizeof(char *));
    app->env[0] = strdup("SY_FROM_APP=yes");
    app->env[1] = strdup("SY_BOTH=app");
    app->maxprocs = 2;
    pmix_nspace_t child;
    pmix_status_t rc = PMIx_Spawn(NULL, 0, app, 1, child);
    PMIX_APP_FREE(app, 1);
    if (rc != PMIX_SUCCESS || child[0] == '\0' || strcmp(child, me->nspace) == 0) {
        FAIL("Spawn: %s, namespace \"%s\"", PMIx_Error_string(rc), child);
    } else {
        pmix_proc_t wild;
        PMIX_LOAD_PROCID(&wild, child, PMIX_RANK_WILDCARD);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_UINT32 || v->data.uint32 != 2)
            FAIL("Get(%s, JOB_SIZE): %s", child, PMIx_Error_string(rc));
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
    }
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_hostops spawn: ok\n");
    return failures == 0 ? 0 : 1;
}

static void expect_env(const char *name, const char *want)
{
    const char *v = getenv(name);
    if (v == NULL || strcmp(v, want) != 0)
        FAIL("child: %s=%s, not %s", name, v != NULL ? v : "(unset)", want);
}

static int child_mode(pmix_proc_t *me, bool fail)
{
    expect_env("SY_FROM_LAUNCHER", "yes");
    expect_env("SY_FROM_APP", "yes");
    expect_env("SY_BOTH", "app");
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_SPAWNED, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_BOOL || !v->data.flag)
        FAIL("child: Get(PMIX_SPAWNED): %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    rc = PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_PROC || v->data.proc->rank != 0)
        FAIL("child: Get(PMIX_PARENT_ID): %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_hostops child %u: ok\n", me->rank);
    if (fail && me->rank == 1)
        return 5;
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "monitor") == 0)
        return monitor_mode(&me);
    bool fail = argc > 2 && strcmp(argv[2], "fail") == 0;
    if (argc > 1 && strcmp(argv[1], "spawn") == 0)
        return spawn_mode(&me, argv[0], fail);
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_mode(&me, fail);
    /* both started (and known to the launcher) before rank 0 looks */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Fence: %s", PMIx_Error_string(rc));
    if (me.rank != 0) {
        for (;;)
            pause(); /* until rank 0 has us killed */
    }
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char *k0[] = {PMIX_QUERY_NAMESPACES, NULL}, *k1[] = {PMIX_QUERY_PROC_TABLE, NULL};
    q[0].keys = k0;
    q[1].keys = k1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Query_info(q, 2, &res, &nres);
    if (rc != PMIX_SUCCESS || nres != 2)
        FAIL("Query_info: %s, %zu results", PMIx_Error_string(rc), nres);
    for (size_t i = 0; i < nres; i++) {
        if (!strcmp(res[i].key, PMIX_QUERY_NAMESPACES) &&
            (res[i].value.type != PMIX_STRING || !strstr(res[i].value.data.string, me.nspace)))
            FAIL("namespaces do not name ours");
        if (!strcmp(res[i].key, PMIX_QUERY_PROC_TABLE)) {
            pmix_data_array_t *da = res[i].value.data.darray;
            if (res[i].value.type != PMIX_DATA_ARRAY || da->type != PMIX_PROC_INFO ||
                da->size != 2 || ((pmix_proc_info_t *)da->array)[1].pid <= 0)
                FAIL("process table malformed");
        }
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);

    pmix_info_t log;
    PMIX_INFO_LOAD(&log, PMIX_LOG_STDOUT, "hostops log line", PMIX_STRING);
    if ((rc = PMIx_Log(&log, 1, NULL, 0)) != PMIX_SUCCESS)
        FAIL("Log: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&log);

    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (f != NULL)
            fclose(f);
        pmix_info_t cl;
        PMIX_INFO_LOAD(&cl, PMIX_REGISTER_CLEANUP, argv[1], PMIX_STRING);
        if ((rc = PMIx_Job_control_nb(NULL, 0, &cl, 1, NULL, NULL)) != PMIX_SUCCESS)
            FAIL("Job_control_nb(cleanup, NULL callback): %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&cl);
    }
    pmix_proc_t victim;
    PMIX_LOAD_PROCID(&victim, me.nspace, 1);
    pmix_info_t kill;
    bool yes = true;
    PMIX_INFO_LOAD(&kill, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    if ((rc = PMIx_Job_control(&victim, 1, &kill, 1, NULL, NULL)) != PMIX_SUCCESS)
        FAIL("Job_control(kill rank 1): %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&kill);
    rc = PMIx_Finalize(NULL, 0);
    return failures == 0 && rc == PMIX_SUCCESS ? 0 : 1;
}
