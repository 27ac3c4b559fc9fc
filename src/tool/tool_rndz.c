/* A tool started by another tool (Chap_API_Tools.tex, "Indirect launch"
 * and "Tool initialization environmental variables"): in PMIx_tool_init
 *   PMIX_LAUNCHER_RNDZ_URI  connect back to the initiator at that URI (its
 *                           server becomes ours, the primary one unless we
 *                           have another), record it as PMIX_PARENT_ID,
 *                           and pause there while the job info it gave our
 *                           namespace has PMIX_DEBUG_STOP_IN_INIT naming
 *                           us, until its PMIX_DEBUGGER_RELEASE;
 *   PMIX_KEEPALIVE_PIPE     watch that pipe: when the initiator's end
 *                           closes, this process's handlers hear
 *                           PMIX_EVENT_JOB_END for the initiator's job.
 * Both variables leave the environment, so our children do not see them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <pmix.h>
#include <pmix_tool.h>

#include "client/client_internal.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "common/sync.h"
#include "tool/tool_internal.h"

static struct event *keepalive_ev;
static int keepalive_fd = -1;
static pmix_proc_t parent;

/* The identity the initiator gave us, when it started us. */
bool sy_tool_rndz_identity(pmix_proc_t *me)
{
    const char *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
    if (getenv("PMIX_LAUNCHER_RNDZ_URI") == NULL || ns == NULL || strlen(ns) > PMIX_MAX_NSLEN)
        return false;
    char *end = NULL;
    unsigned long r = rank != NULL ? strtoul(rank, &end, 10) : 0;
    if (rank != NULL && (end == rank || *end != '\0' || r >= PMIX_RANK_VALID))
        return false;
    PMIX_LOAD_PROCID(me, ns, (pmix_rank_t)r);
    return true;
}

bool sy_tool_rndz_given(void)
{
    return getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL;
}

/* ---- the keepalive pipe ---- */

static void on_keepalive(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    (void)arg;
    char buf[64];
    ssize_t got = read(fd, buf, sizeof(buf));
    if (got > 0 || (got < 0 && (errno == EINTR || errno == EAGAIN)))
        return;
    event_del(keepalive_ev);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, parent.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t term = PMIX_ERR_LOST_CONNECTION;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    sy_log(SY_LOG_INFO, "PMIx tool: the tool that started us (%s) is gone", parent.nspace);
    PMIx_Notify_event(PMIX_EVENT_JOB_END, &job, PMIX_RANGE_PROC_LOCAL, info, 2, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static void watch_on_loop(void *arg)
{
    (void)arg;
    if (keepalive_ev != NULL)
        event_add(keepalive_ev, NULL);
}

static void watch_keepalive(void)
{
    const char *v = getenv("PMIX_KEEPALIVE_PIPE");
    if (v == NULL)
        return;
    char *end = NULL;
    long fd = strtol(v, &end, 10);
    unsetenv("PMIX_KEEPALIVE_PIPE");
    if (end == v || *end != '\0' || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0) {
        sy_log(SY_LOG_WARN, "PMIx_tool_init: PMIX_KEEPALIVE_PIPE=%s is no open descriptor", v);
        return;
    }
    keepalive_fd = (int)fd;
    fcntl(keepalive_fd, F_SETFD, FD_CLOEXEC); /* not our children's */
    fcntl(keepalive_fd, F_SETFL, fcntl(keepalive_fd, F_GETFL) | O_NONBLOCK);
    keepalive_ev = event_new(sy_progress_base(sy_runtime()), keepalive_fd, EV_READ | EV_PERSIST,
                             on_keepalive, NULL);
    if (keepalive_ev == NULL || sy_progress_post(sy_runtime(), watch_on_loop, NULL) != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "PMIx_tool_init: cannot watch PMIX_KEEPALIVE_PIPE");
}

static void unwatch_on_loop(void *arg)
{
    if (keepalive_ev != NULL) {
        event_free(keepalive_ev);
        keepalive_ev = NULL;
    }
    sy_sync_signal(arg, PMIX_SUCCESS, NULL);
}

void sy_tool_rndz_finalize(void)
{
    sy_progress_t *p = sy_runtime();
    sy_sync_t s;
    if (keepalive_ev != NULL && p != NULL && sy_sync_init(&s) == PMIX_SUCCESS) {
        if (sy_progress_post(p, unwatch_on_loop, &s) == PMIX_SUCCESS)
            sy_sync_wait_progress(&s, p);
        sy_sync_destroy(&s);
    }
    if (keepalive_fd >= 0)
        close(keepalive_fd);
    keepalive_fd = -1;
}

/* ---- connecting back ---- */

pmix_status_t sy_tool_rndz_connect(const pmix_proc_t *me)
{
    const char *v = getenv("PMIX_LAUNCHER_RNDZ_URI");
    if (v == NULL) {
        watch_keepalive();
        return PMIX_SUCCESS;
    }
    char *uri = strdup(v);
    unsetenv("PMIX_LAUNCHER_RNDZ_URI");
    if (uri == NULL)
        return PMIX_ERR_NOMEM;
    pthread_mutex_lock(&sy_tool_lock);
    bool have_primary = sy_tool.primary != NULL;
    sy_tool_server_t *before = sy_tool.primary;
    pthread_mutex_unlock(&sy_tool_lock);
    pmix_info_t info[2];
    int timeout = 10;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_proc_t srv;
    /* primary while we ask it for our job info and wait for its release */
    pmix_status_t rc = sy_tool_attach(info, 2, true, &srv);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN,
               "PMIx_tool_init: cannot connect back to the tool that started us at %s: %s", uri,
               PMIx_Error_string(rc));
        free(uri);
        return PMIX_ERR_UNREACH;
    }
    free(uri);
    parent = srv; /* before the loop may look at it */
    watch_keepalive();
    pmix_value_t val = {.type = PMIX_PROC, .data.proc = &srv};
    rc = PMIx_Store_internal(me, PMIX_PARENT_ID, &val);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_debug_hold(me);
    if (have_primary) {
        pthread_mutex_lock(&sy_tool_lock);
        for (sy_tool_server_t *s = sy_tool.servers; s != NULL; s = s->next)
            if (s == before)
                sy_tool_make_primary(s);
        pthread_mutex_unlock(&sy_tool_lock);
    }
    return rc;
}
