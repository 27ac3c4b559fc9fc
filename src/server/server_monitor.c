/* PMIX_SERVER_ENABLE_MONITORING (Chap_API_Server.tex: "Enable PMIx internal
 * monitoring by the PMIx server"): the library serves the heartbeat
 * monitoring of its clients (Chap_API_Job_Mgmt.tex, "Process and Job
 * Monitoring") without the host:
 *   PMIX_MONITOR_HEARTBEAT       start watching the requester; directives
 *                                PMIX_MONITOR_ID, PMIX_MONITOR_HEARTBEAT_TIME
 *                                (seconds between beats, default 1) and
 *                                PMIX_MONITOR_HEARTBEAT_DROPS (beats it may
 *                                miss, default 1)
 *   PMIX_SEND_HEARTBEAT          a beat (PMIx_Heartbeat)
 *   PMIX_MONITOR_CANCEL          stop (the id given, or all of the requester's)
 * A process that misses more beats than allowed raises the request's error
 * code once, PMIX_EVENT_AFFECTED_PROC being it, to itself and its server's
 * handlers (custom range), as a host would; then it is watched no more.
 * Other monitor requests (files, ...) still go to the host's monitor.  On
 * the server's loop only. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "common/info.h"
#include "common/progress.h"
#include "server/server_event.h"
#include "server/server_internal.h"
#include "server/server_monitor.h"

typedef struct watch {
    pmix_proc_t proc;
    char *id;
    pmix_status_t alert;
    double period;
    unsigned drops;
    double last; /* its last beat, or the request */
    struct watch *next;
} watch_t;

static watch_t *watches;
static sy_timer_t *ticker;

/* How often the beats are checked: often enough for a 1 s period. */
#define SY_MONITOR_TICK 0.25

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void watch_free(watch_t *w)
{
    free(w->id);
    free(w);
}

static void alert(const watch_t *w)
{
    pmix_info_t info[2];
    pmix_data_array_t range = {.type = PMIX_PROC, .size = 1, .array = (void *)&w->proc};
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &w->proc, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
    sy_srv_event_raise(w->alert, &w->proc, PMIX_RANGE_CUSTOM, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static void arm(void);

static void tick(void *arg)
{
    (void)arg;
    if (ticker != NULL) {
        sy_timer_cancel(ticker); /* fired: frees it */
        ticker = NULL;
    }
    double now = mono();
    for (watch_t **pp = &watches; *pp != NULL;) {
        watch_t *w = *pp;
        if (now - w->last <= w->period * (w->drops + 1)) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        alert(w);
        watch_free(w);
    }
    arm();
}

static void arm(void)
{
    if (watches == NULL || ticker != NULL || sy_srv == NULL)
        return;
    if (sy_progress_timer(sy_srv->progress, SY_MONITOR_TICK, tick, NULL, &ticker) != PMIX_SUCCESS)
        ticker = NULL;
}

/* An integer directive no smaller than min. */
static bool number_of(const pmix_info_t *d, long long min, double *out)
{
    long long v = 0;
    pmix_status_t rc;
    PMIX_VALUE_GET_NUMBER(rc, &d->value, v, long long);
    if (rc != PMIX_SUCCESS || v < min)
        return false;
    *out = (double)v;
    return true;
}

static pmix_status_t start(const pmix_proc_t *who, pmix_status_t error,
                           const pmix_info_t directives[], size_t ndirs)
{
    watch_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return PMIX_ERR_NOMEM;
    w->proc = *who;
    w->alert = error;
    w->period = 1;
    w->drops = 1;
    for (size_t i = 0; directives != NULL && i < ndirs; i++) {
        const pmix_info_t *d = &directives[i];
        double v = 0;
        if (sy_info_is(d, PMIX_MONITOR_ID) && d->value.type == PMIX_STRING &&
            d->value.data.string != NULL) {
            free(w->id);
            w->id = strdup(d->value.data.string);
        } else if (sy_info_is(d, PMIX_MONITOR_HEARTBEAT_TIME)) {
            if (!number_of(d, 1, &v)) {
                watch_free(w);
                return PMIX_ERR_BAD_PARAM;
            }
            w->period = v;
        } else if (sy_info_is(d, PMIX_MONITOR_HEARTBEAT_DROPS)) {
            if (!number_of(d, 0, &v)) {
                watch_free(w);
                return PMIX_ERR_BAD_PARAM;
            }
            w->drops = (unsigned)v;
        }
    }
    w->last = mono();
    w->next = watches;
    watches = w;
    arm();
    return PMIX_SUCCESS;
}

bool sy_srv_monitor_take(const pmix_proc_t *who, const pmix_info_t *monitor, pmix_status_t error,
                         const pmix_info_t directives[], size_t ndirs, pmix_status_t *status)
{
    if (sy_info_is(monitor, PMIX_MONITOR_HEARTBEAT)) {
        *status = start(who, error, directives, ndirs);
        return true;
    }
    if (sy_info_is(monitor, PMIX_SEND_HEARTBEAT)) {
        *status = PMIX_ERR_NOT_FOUND;
        double now = mono();
        for (watch_t *w = watches; w != NULL; w = w->next)
            if (PMIX_CHECK_PROCID(&w->proc, who)) {
                w->last = now;
                *status = PMIX_SUCCESS;
            }
        return true;
    }
    if (sy_info_is(monitor, PMIX_MONITOR_CANCEL)) {
        const char *id = monitor->value.type == PMIX_STRING ? monitor->value.data.string : NULL;
        *status = PMIX_ERR_NOT_FOUND;
        for (watch_t **pp = &watches; *pp != NULL;) {
            watch_t *w = *pp;
            if (PMIX_CHECK_PROCID(&w->proc, who) &&
                (id == NULL || (w->id != NULL && strcmp(w->id, id) == 0))) {
                *pp = w->next;
                watch_free(w);
                *status = PMIX_SUCCESS;
            } else {
                pp = &w->next;
            }
        }
        return true;
    }
    return false;
}

void sy_srv_monitor_proc_gone(const pmix_proc_t *who)
{
    for (watch_t **pp = &watches; *pp != NULL;) {
        watch_t *w = *pp;
        if (PMIX_CHECK_PROCID(&w->proc, who)) {
            *pp = w->next;
            watch_free(w);
        } else {
            pp = &w->next;
        }
    }
}

void sy_srv_monitor_finalize(void)
{
    if (ticker != NULL && sy_timer_cancel(ticker))
        ticker = NULL;
    ticker = NULL;
    while (watches != NULL) {
        watch_t *w = watches;
        watches = w->next;
        watch_free(w);
    }
}
