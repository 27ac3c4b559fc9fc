/* The debugger flows of Chap_API_Tools.tex against switchyard-run (run by
 * tests/tools/debug.sh).  One program, several roles:
 *   debugger MODE       a tool (PMIX_CONNECT_TO_SYSTEM: a
 *                       switchyard-run --system): asks for the spawn and
 *                       debug support, spawns two targets paused by MODE
 *                       (init: PMIX_DEBUG_STOP_IN_INIT, exec:
 *                       PMIX_DEBUG_STOP_ON_EXEC, app: PMIX_DEBUG_STOP_IN_APP),
 *                       waits for PMIX_READY_FOR_DEBUG, checks that no
 *                       target went past its pause, spawns one debugger
 *                       daemon per node (PMIX_DEBUGGER_DAEMONS,
 *                       PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_NODE),
 *                       which releases them, and waits until both jobs
 *                       ended well and every target went past its pause.
 *   attach PID NSPACE   a tool beside a running job (the launcher PID):
 *                       debugger daemons for that job, one per process
 *                       (PMIX_DEBUG_DAEMONS_PER_PROC), which find their
 *                       targets running; their end is heard.
 *   target MODE         a process of the job being debugged: marks
 *                       $SY_DBG_DIR/past.<rank> once past its pause.
 *   daemon MODE         a debugger daemon: PMIX_DEBUG_TARGET from its job,
 *                       the target's local process table (PMIx_Query_info
 *                       PMIX_QUERY_LOCAL_PROC_TABLE), each target paused
 *                       as MODE says (exec: stopped, state T), then
 *                       PMIX_DEBUGGER_RELEASE to the target job; MODE
 *                       "observe": the targets run, no release.
 * Prints "<role>: ok" when all held. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <pmix_tool.h>

#include "itest.h"

static int n_ended, n_bad_end, n_released;
static char target_ns[PMIX_MAX_NSLEN + 1], daemon_ns[PMIX_MAX_NSLEN + 1];

/* The pause events heard (they may come before PMIx_Spawn returns). */
#define MAX_SEEN 16
static struct {
    pmix_status_t code;
    char nspace[PMIX_MAX_NSLEN + 1];
    char bp[64];
} seen[MAX_SEEN];
static int nseen;

static const char *dbg_dir(void)
{
    const char *d = getenv("SY_DBG_DIR");
    return d != NULL ? d : ".";
}

static bool past(pmix_rank_t r)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/past.%u", dbg_dir(), r);
    return stat(path, &st) == 0;
}

static void mark_past(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/past.%u", dbg_dir(), me.rank);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        FAIL("cannot write %s", path);
    else
        fclose(f);
}

static void h_ready(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)src, (void)res, (void)nres;
    const pmix_info_t *bp = find_info(info, ninfo, PMIX_BREAKPOINT);
    const pmix_info_t *aff = find_info(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
    pthread_mutex_lock(&itest_lock);
    if (nseen < MAX_SEEN && aff != NULL && aff->value.type == PMIX_PROC) {
        seen[nseen].code = st;
        snprintf(seen[nseen].nspace, sizeof(seen[nseen].nspace), "%s",
                 aff->value.data.proc->nspace);
        snprintf(seen[nseen].bp, sizeof(seen[nseen].bp), "%s",
                 bp != NULL && bp->value.type == PMIX_STRING ? bp->value.data.string : "");
        nseen++;
    }
    pthread_mutex_unlock(&itest_lock);
    if (cb != NULL)
        cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_ended(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)res, (void)nres;
    const pmix_info_t *code = find_info(info, ninfo, PMIX_EXIT_CODE);
    if (code != NULL && code->value.type == PMIX_INT && code->value.data.integer != 0)
        itest_bump(&n_bad_end);
    itest_bump(&n_ended);
    if (cb != NULL)
        cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_release(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                      size_t ninfo, pmix_info_t *res, size_t nres,
                      pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    itest_bump(&n_released);
    if (cb != NULL)
        cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static const char *support(const char *key)
{
    static char buf[2][2048];
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {(char *)key, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, key);
    const pmix_info_t *i = find_info(res, nres, key);
    char *out = buf[strcmp(key, PMIX_QUERY_SPAWN_SUPPORT) == 0];
    snprintf(out, 2048, "%s",
             i != NULL && i->value.type == PMIX_STRING ? i->value.data.string : "");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    return out;
}

/* Wait (30 s at most) for code about the target job; its breakpoint. */
static bool heard(pmix_status_t code, char *bp, size_t len)
{
    for (int t = 0; t < 3000; t++) {
        pthread_mutex_lock(&itest_lock);
        for (int i = 0; i < nseen; i++)
            if (seen[i].code == code && strcmp(seen[i].nspace, target_ns) == 0) {
                snprintf(bp, len, "%s", seen[i].bp);
                pthread_mutex_unlock(&itest_lock);
                return true;
            }
        pthread_mutex_unlock(&itest_lock);
        usleep(10000);
    }
    FAIL("waited 30 s for %s about %s", PMIx_Error_string(code), target_ns);
    return false;
}

static const char *self_path;

/* Spawn argv = self ROLE MODE, np processes (0: placed by the launcher). */
static pmix_status_t spawn_self(const char *role, const char *mode, int np, pmix_info_t *job_info,
                                size_t nji, pmix_info_t *app_info, size_t nai, char *ns)
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = (char *)self_path;
    char *argv[] = {(char *)self_path, (char *)role, (char *)mode, NULL};
    app.argv = argv;
    app.maxprocs = np;
    char *dir = NULL;
    char *env[] = {NULL, NULL};
    if (asprintf(&dir, "SY_DBG_DIR=%s", dbg_dir()) < 0)
        return PMIX_ERR_NOMEM;
    env[0] = dir;
    app.env = env;
    app.info = app_info;
    app.ninfo = nai;
    pmix_nspace_t got;
    pmix_status_t rc = PMIx_Spawn(job_info, nji, &app, 1, got);
    free(dir);
    if (rc == PMIX_SUCCESS)
        snprintf(ns, PMIX_MAX_NSLEN + 1, "%s", got);
    return rc;
}

static void debugger_mode(const char *mode)
{
    const char *dsup = support(PMIX_QUERY_DEBUG_SUPPORT);
    const char *ssup = support(PMIX_QUERY_SPAWN_SUPPORT);
    const char *pause_attr = strcmp(mode, "exec") == 0  ? PMIX_DEBUG_STOP_ON_EXEC
                             : strcmp(mode, "app") == 0 ? PMIX_DEBUG_STOP_IN_APP
                                                        : PMIX_DEBUG_STOP_IN_INIT;
    if (strstr(dsup, pause_attr) == NULL || strstr(dsup, PMIX_DEBUGGER_DAEMONS) == NULL)
        FAIL("debug support \"%s\" lacks %s", dsup, pause_attr);
    if (strstr(ssup, PMIX_DEBUG_TARGET) == NULL ||
        strstr(ssup, PMIX_DEBUG_DAEMONS_PER_NODE) == NULL)
        FAIL("spawn support \"%s\" lacks the debugger daemons' attributes", ssup);
    on_event(PMIX_READY_FOR_DEBUG, h_ready);
    on_event(PMIX_LAUNCH_COMPLETE, h_ready);
    on_event(PMIX_ERR_JOB_TERMINATED, h_ended);

    /* the job, paused */
    pmix_info_t ji;
    PMIX_INFO_LOAD(&ji, pause_attr, NULL, PMIX_BOOL);
    pmix_status_t rc = spawn_self("target", mode, 2, &ji, 1, NULL, 0, target_ns);
    EXPECT(rc, PMIX_SUCCESS, "spawning the paused job");
    PMIX_INFO_DESTRUCT(&ji);
    if (rc != PMIX_SUCCESS)
        return;
    char bp[64] = "";
    const char *want_bp = strcmp(mode, "exec") == 0  ? "exec"
                          : strcmp(mode, "app") == 0 ? "sy-app-pause"
                                                     : "pmix-init";
    if (heard(PMIX_READY_FOR_DEBUG, bp, sizeof(bp)) && strcmp(bp, want_bp) != 0)
        FAIL("PMIX_BREAKPOINT %s, not %s", bp, want_bp);
    if (strcmp(mode, "exec") == 0)
        heard(PMIX_LAUNCH_COMPLETE, bp, sizeof(bp));
    usleep(200000);
    if (past(0) || past(1))
        FAIL("a target went past its pause before any release");

    /* the daemons, beside it; they release it */
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, target_ns, PMIX_RANK_WILDCARD);
    uint16_t one = 1;
    pmix_info_t ai[3];
    PMIX_INFO_LOAD(&ai[0], PMIX_DEBUGGER_DAEMONS, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&ai[1], PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    PMIX_INFO_LOAD(&ai[2], PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
    rc = spawn_self("daemon", mode, 0, NULL, 0, ai, 3, daemon_ns);
    EXPECT(rc, PMIX_SUCCESS, "spawning the debugger daemon");
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&ai[i]);
    if (rc != PMIX_SUCCESS)
        return;
    wait_count(&n_ended, 2, "the end of the target job and of the daemons");
    if (itest_read(&n_bad_end) != 0)
        FAIL("a job ended with a non-zero exit code");
    if (!past(0) || !past(1))
        FAIL("a target never went past its pause");
}

static void attach_mode(const char *nspace)
{
    on_event(PMIX_ERR_JOB_TERMINATED, h_ended);
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, nspace, PMIX_RANK_WILDCARD);
    uint16_t one = 1;
    pmix_info_t ai[3];
    PMIX_INFO_LOAD(&ai[0], PMIX_DEBUGGER_DAEMONS, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&ai[1], PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    PMIX_INFO_LOAD(&ai[2], PMIX_DEBUG_DAEMONS_PER_PROC, &one, PMIX_UINT16);
    pmix_status_t rc = spawn_self("daemon", "observe", 0, NULL, 0, ai, 3, daemon_ns);
    EXPECT(rc, PMIX_SUCCESS, "spawning debugger daemons beside a running job");
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&ai[i]);
    /* a target that is no job is refused */
    PMIX_LOAD_PROCID(&target, "no-such-job", PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&ai[0], PMIX_DEBUGGER_DAEMONS, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&ai[1], PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    char none[PMIX_MAX_NSLEN + 1];
    if (spawn_self("daemon", "observe", 0, NULL, 0, ai, 2, none) == PMIX_SUCCESS)
        FAIL("debugger daemons for a job that does not exist were spawned");
    PMIX_INFO_DESTRUCT(&ai[0]);
    PMIX_INFO_DESTRUCT(&ai[1]);
    if (rc == PMIX_SUCCESS) {
        wait_count(&n_ended, 1, "the end of the daemons");
        if (itest_read(&n_bad_end) != 0)
            FAIL("a daemon failed");
    }
}

static void target_mode(const char *mode)
{
    /* init and exec pauses happened before we got here */
    if (strcmp(mode, "app") == 0) {
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
        pmix_value_t *v = NULL;
        EXPECT(PMIx_Get(&job, PMIX_DEBUG_STOP_IN_APP, NULL, 0, &v), PMIX_SUCCESS,
               "Get PMIX_DEBUG_STOP_IN_APP");
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        pmix_status_t code = PMIX_DEBUGGER_RELEASE;
        if (PMIx_Register_event_handler(&code, 1, NULL, 0, h_release, NULL, NULL) < 0)
            FAIL("registering for the release");
        pmix_info_t bp;
        PMIX_INFO_LOAD(&bp, PMIX_BREAKPOINT, "sy-app-pause", PMIX_STRING);
        EXPECT(PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &me, PMIX_RANGE_RM, &bp, 1, NULL, NULL),
               PMIX_SUCCESS, "telling the launcher we paused");
        PMIX_INFO_DESTRUCT(&bp);
        wait_count(&n_released, 1, "PMIX_DEBUGGER_RELEASE");
    }
    mark_past();
}

static void daemon_mode(const char *mode)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&job, PMIX_DEBUG_TARGET, NULL, 0, &v), PMIX_SUCCESS, "Get PMIX_DEBUG_TARGET");
    if (v == NULL || v->type != PMIX_PROC) {
        FAIL("no PMIX_DEBUG_TARGET");
        return;
    }
    pmix_proc_t target = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    /* OpenPMIx's debugger daemon reads PMIX_DEBUG_JOB */
    EXPECT(PMIx_Get(&job, PMIX_DEBUG_JOB, NULL, 0, &v), PMIX_SUCCESS, "Get PMIX_DEBUG_JOB");
    if (v != NULL && (v->type != PMIX_STRING || strcmp(v->data.string, target.nspace) != 0))
        FAIL("PMIX_DEBUG_JOB is not the target's namespace");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_LOCAL_PROC_TABLE, NULL};
    q.keys = keys;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_NSPACE, target.nspace, PMIX_STRING);
    q.qualifiers = &qual;
    q.nqual = 1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "the target's local proc table");
    PMIX_INFO_DESTRUCT(&qual);
    const pmix_info_t *t = find_info(res, nres, PMIX_QUERY_LOCAL_PROC_TABLE);
    if (t == NULL || t->value.type != PMIX_DATA_ARRAY || t->value.data.darray->size < 1 ||
        t->value.data.darray->type != PMIX_PROC_INFO) {
        FAIL("no process table of %s", target.nspace);
    } else {
        const pmix_proc_info_t *pi = t->value.data.darray->array;
        for (size_t i = 0; i < t->value.data.darray->size; i++) {
            if (!PMIX_CHECK_NSPACE(pi[i].proc.nspace, target.nspace) || pi[i].pid <= 0 ||
                kill(pi[i].pid, 0) != 0) {
                FAIL("target %zu: no live process (pid %ld)", i, (long)pi[i].pid);
                continue;
            }
            char path[64], stat_line[512] = "";
            snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pi[i].pid);
            FILE *f = fopen(path, "r");
            if (f != NULL) {
                if (fgets(stat_line, sizeof(stat_line), f) == NULL)
                    stat_line[0] = '\0';
                fclose(f);
            }
            const char *close_paren = strrchr(stat_line, ')');
            char state = close_paren != NULL ? close_paren[2] : '?';
            if (strcmp(mode, "exec") == 0 && state != 'T')
                FAIL("target %zu is not stopped at its exec (state %c)", i, state);
            if (strcmp(mode, "observe") != 0 && past(pi[i].proc.rank))
                FAIL("target %u went past its pause", pi[i].proc.rank);
        }
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    if (strcmp(mode, "observe") == 0)
        return;
    pmix_info_t rel;
    PMIX_INFO_LOAD(&rel, PMIX_EVENT_CUSTOM_RANGE, &target, PMIX_PROC);
    EXPECT(PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &rel, 1, NULL, NULL),
           PMIX_SUCCESS, "PMIX_DEBUGGER_RELEASE");
    PMIX_INFO_DESTRUCT(&rel);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s debugger|target|daemon MODE | attach PID NSPACE\n", argv[0]);
        return 2;
    }
    self_path = argv[0];
    const char *role = argv[1];
    itest_name = role;
    bool tool = strcmp(role, "debugger") == 0 || strcmp(role, "attach") == 0;
    pmix_status_t rc;
    if (strcmp(role, "attach") == 0) {
        if (argc < 4)
            return 2;
        pid_t pid = (pid_t)atol(argv[2]);
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        rc = PMIx_tool_init(&me, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else if (tool) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
        rc = PMIx_tool_init(&me, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        rc = PMIx_Init(&me, NULL, 0);
    }
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "%s: init failed: %s\n", role, PMIx_Error_string(rc));
        return 1;
    }
    if (strcmp(role, "debugger") == 0)
        debugger_mode(argv[2]);
    else if (strcmp(role, "attach") == 0)
        attach_mode(argv[3]);
    else if (strcmp(role, "target") == 0)
        target_mode(argv[2]);
    else if (strcmp(role, "daemon") == 0)
        daemon_mode(argv[2]);
    else
        FAIL("unknown role %s", role);
    rc = tool ? PMIx_tool_finalize() : PMIx_Finalize(NULL, 0);
    EXPECT(rc, PMIX_SUCCESS, "finalize");
    if (failures == 0)
        printf("%s: ok\n", role);
    return failures == 0 ? 0 : 1;
}
