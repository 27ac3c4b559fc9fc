/* The standard's "IL-based command line parsing" flow (Chap_API_Tools.tex,
 * Indirect launch), as a debugger front end would run it, with real
 * processes (tests/tools/spawn-tool.sh):
 *
 *   test_spawn_tool initiator DIR MODE -- LAUNCHER ARGS...
 *     a tool with its own server (PMIX_LAUNCHER), attached to no other,
 *     spawns the launcher with PMIX_SPAWN_TOOL and PMIX_DEBUG_STOP_IN_INIT
 *     (and PMIX_LAUNCH_DIRECTIVES asking the launcher's job to stop in
 *     PMIx_Init when MODE is "app-init"); makes the launcher its primary
 *     server; checks that nothing ran yet; releases it; hears
 *     PMIX_LAUNCH_COMPLETE with the job's namespace; for "app-init" hears
 *     the job's PMIX_READY_FOR_DEBUG, checks no rank got past PMIx_Init,
 *     releases the job; then hears PMIX_EVENT_JOB_END of the job.
 *     MODE "vanish": after the launch, exits at once (no finalize): the
 *     launcher must see its keepalive pipe close and stop the job.
 *   test_spawn_tool app DIR [sleep]
 *     a rank: PMIx_Init, then DIR/past.<rank> holding its pid; with
 *     "sleep", waits to be killed.
 * Prints "initiator: ok" when every step held. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "initiator: FAIL: " __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int launch_complete, ready, job_end, end_code = -1;
static char job_ns[PMIX_MAX_NSLEN + 1];

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    const char *ns = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            ns = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT)
            end_code = info[i].value.data.integer;
    }
    if (status == PMIX_LAUNCH_COMPLETE) {
        launch_complete++;
        if (ns != NULL)
            snprintf(job_ns, sizeof(job_ns), "%s", ns);
    } else if (status == PMIX_READY_FOR_DEBUG) {
        ready++;
    } else if (status == PMIX_EVENT_JOB_END && source != NULL && job_ns[0] != '\0' &&
               PMIX_CHECK_NSPACE(source->nspace, job_ns)) {
        job_end++;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void wait_for(int *counter, const char *what)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&lock);
    while (*counter == 0)
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0) {
            pthread_mutex_unlock(&lock);
            FAIL("no %s within 30 s", what);
        }
    pthread_mutex_unlock(&lock);
}

static int past_count(const char *dir)
{
    int n = 0;
    for (int r = 0; r < 64; r++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/past.%d", dir, r);
        n += access(path, F_OK) == 0;
    }
    return n;
}

static void release(const pmix_proc_t *target)
{
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, target, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, info, 2, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        FAIL("release: %s", PMIx_Error_string(rc));
}

static int initiator(const char *dir, const char *mode, int argc, char **argv)
{
    bool app_init = strcmp(mode, "app-init") == 0, vanish = strcmp(mode, "vanish") == 0;
    pmix_info_t tinfo[2];
    PMIX_INFO_LOAD(&tinfo[0], PMIX_LAUNCHER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&tinfo[1], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, tinfo, 2);
    PMIX_INFO_DESTRUCT(&tinfo[0]);
    PMIX_INFO_DESTRUCT(&tinfo[1]);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_tool_init: %s", PMIx_Error_string(rc));

    /* the launcher with its whole command line, paused in its init */
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[0]);
    app.argv = calloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++)
        app.argv[i] = strdup(argv[i]);
    app.maxprocs = 1;
    pmix_info_t dirs[1];
    PMIX_INFO_LOAD(&dirs[0], PMIX_DEBUG_STOP_IN_INIT, NULL, PMIX_BOOL);
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 1, .array = dirs};
    pmix_info_t jinfo[3];
    PMIX_INFO_LOAD(&jinfo[0], PMIX_SPAWN_TOOL, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_DEBUG_STOP_IN_INIT, NULL, PMIX_BOOL);
    size_t nj = 2;
    if (app_init)
        PMIX_INFO_LOAD(&jinfo[nj++], PMIX_LAUNCH_DIRECTIVES, &darray, PMIX_DATA_ARRAY);
    pmix_nspace_t ilns;
    rc = PMIx_Spawn(jinfo, nj, &app, 1, ilns);
    for (size_t i = 0; i < nj; i++)
        PMIX_INFO_DESTRUCT(&jinfo[i]);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Spawn of the launcher: %s", PMIx_Error_string(rc));
    printf("initiator: launcher %s\n", ilns);

    /* it becomes our primary server */
    pmix_proc_t il;
    PMIX_LOAD_PROCID(&il, ilns, 0);
    pmix_info_t sinfo[2];
    int timeout = 20;
    PMIX_INFO_LOAD(&sinfo[0], PMIX_WAIT_FOR_CONNECTION, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_tool_set_server(&il, sinfo, 2);
    PMIX_INFO_DESTRUCT(&sinfo[0]);
    PMIX_INFO_DESTRUCT(&sinfo[1]);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_tool_set_server(%s): %s", ilns, PMIx_Error_string(rc));
    pmix_status_t codes[3] = {PMIX_LAUNCH_COMPLETE, PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END};
    rc = PMIx_Register_event_handler(codes, 3, NULL, 0, on_event, NULL, NULL);
    if (rc < 0)
        FAIL("register: %s", PMIx_Error_string(rc));

    /* held in its init: nothing of the job ran */
    usleep(500 * 1000);
    if (past_count(dir) != 0)
        FAIL("the launcher started its job before we released it");
    printf("initiator: launcher held\n");
    release(&il);
    wait_for(&launch_complete, "PMIX_LAUNCH_COMPLETE");
    printf("initiator: launch complete %s\n", job_ns);
    if (vanish) {
        /* the ranks are up (they wrote their pids): we go */
        for (int i = 0; i < 300 && past_count(dir) < 2; i++)
            usleep(100 * 1000);
        printf("initiator: vanishing\n");
        fflush(stdout);
        _exit(0);
    }
    if (app_init) {
        wait_for(&ready, "PMIX_READY_FOR_DEBUG from the job");
        usleep(300 * 1000);
        if (past_count(dir) != 0)
            FAIL("a rank got past PMIx_Init before the release");
        printf("initiator: job held in init\n");
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, job_ns, PMIX_RANK_WILDCARD);
        release(&job);
    }
    wait_for(&job_end, "PMIX_EVENT_JOB_END of the job");
    printf("initiator: job ended, exit code %d\n", end_code);
    if (end_code != 0)
        FAIL("the job failed");
    if (past_count(dir) == 0)
        FAIL("no rank ran");
    rc = PMIx_tool_finalize();
    if (rc != PMIX_SUCCESS)
        FAIL("finalize: %s", PMIx_Error_string(rc));
    PMIX_APP_DESTRUCT(&app);
    printf("initiator: ok\n");
    return 0;
}

static int app(const char *dir, bool sleeping)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "app: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/past.%u", dir, me.rank);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    while (sleeping)
        pause();
    PMIx_Finalize(NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "app") == 0)
        return app(argv[2], argc > 3 && strcmp(argv[3], "sleep") == 0);
    if (argc >= 6 && strcmp(argv[1], "initiator") == 0 && strcmp(argv[4], "--") == 0)
        return initiator(argv[2], argv[3], argc - 5, argv + 5);
    fprintf(stderr,
            "usage: %s initiator DIR plain|app-init|vanish -- LAUNCHER ARGS...\n"
            "       %s app DIR [sleep]\n",
            argv[0], argv[0]);
    return 2;
}
