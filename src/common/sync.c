/* Blocking on non-blocking calls (see sync.h). */
#define _GNU_SOURCE
#include "common/sync.h"

#include <errno.h>
#include <math.h>
#include <time.h>

pmix_status_t sy_sync_init(sy_sync_t *s)
{
    pthread_condattr_t ca;
    if (s == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    s->done = false;
    s->status = PMIX_SUCCESS;
    s->result = NULL;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pthread_condattr_init(&ca);
    /* Timeouts must not jump with the wall clock. */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0) {
        pthread_mutex_destroy(&s->lock);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

void sy_sync_signal(sy_sync_t *s, pmix_status_t status, void *result)
{
    if (s == NULL) {
        return;
    }
    pthread_mutex_lock(&s->lock);
    if (!s->done) {
        s->done = true;
        s->status = status;
        s->result = result;
        /* Under the lock: the waiter cannot see done, return and destroy
         * the condition variable before we are finished with it. */
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
}

pmix_status_t sy_sync_wait(sy_sync_t *s)
{
    if (s == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->done) {
        pthread_cond_wait(&s->cond, &s->lock);
    }
    pmix_status_t rc = s->status;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void deadline_after(struct timespec *ts, double seconds)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    double whole = floor(seconds);
    ts->tv_sec += (time_t)whole;
    ts->tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Wait until done or the deadline; returns done. */
static bool wait_until(sy_sync_t *s, const struct timespec *ts)
{
    pthread_mutex_lock(&s->lock);
    while (!s->done) {
        if (ETIMEDOUT == pthread_cond_timedwait(&s->cond, &s->lock, ts)) {
            break;
        }
    }
    bool done = s->done;
    pthread_mutex_unlock(&s->lock);
    return done;
}

pmix_status_t sy_sync_wait_timeout(sy_sync_t *s, double seconds)
{
    struct timespec ts;
    if (s == NULL || !(seconds >= 0.0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (seconds > 1e9) {
        return sy_sync_wait(s);
    }
    deadline_after(&ts, seconds);
    if (!wait_until(s, &ts)) {
        return PMIX_ERR_TIMEOUT;
    }
    return s->status;
}

pmix_status_t sy_sync_wait_progress(sy_sync_t *s, sy_progress_t *p)
{
    if (s == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (p == NULL || !(sy_progress_in_loop(p) || sy_progress_mode(p) == SY_PROGRESS_EXT_PROGRESS)) {
        return sy_sync_wait(s);
    }
    for (;;) {
        pthread_mutex_lock(&s->lock);
        bool done = s->done;
        pmix_status_t rc = s->status;
        pthread_mutex_unlock(&s->lock);
        if (done) {
            return rc;
        }
        int n = sy_progress_run_once(p);
        if (n < 0 && n == PMIX_ERR_NOT_AVAILABLE) {
            return n; /* a parent's runtime in a forked child */
        }
        if (n <= 0) {
            /* Nothing of ours to run: the signal comes from another thread
             * or from I/O that the next round will pick up. */
            struct timespec ts;
            deadline_after(&ts, 0.001);
            wait_until(s, &ts);
        }
    }
}

void sy_sync_destroy(sy_sync_t *s)
{
    if (s == NULL) {
        return;
    }
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
}
