#include "common/runtime.h"

#include <pthread.h>
#include <string.h>

#include "common/event.h"
#include "common/log.h"
#include "pmix.h"

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static sy_progress_t *runtime;
static unsigned runtime_users;

static bool info_flag(const pmix_info_t *inf)
{
    return inf->value.type == PMIX_UNDEF || (inf->value.type == PMIX_BOOL && inf->value.data.flag);
}

static void mode_from_info(const pmix_info_t info[], size_t ninfo, sy_progress_opts_t *opts)
{
    opts->mode = SY_PROGRESS_THREAD;
    opts->base = NULL;
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (strncmp(info[i].key, PMIX_EXTERNAL_PROGRESS, PMIX_MAX_KEYLEN) == 0 &&
            info_flag(&info[i])) {
            opts->mode = SY_PROGRESS_EXT_PROGRESS;
        } else if (strncmp(info[i].key, PMIX_EVENT_BASE, PMIX_MAX_KEYLEN) == 0 &&
                   info[i].value.type == PMIX_POINTER && info[i].value.data.ptr != NULL) {
            opts->mode = SY_PROGRESS_EXT_BASE;
            opts->base = info[i].value.data.ptr;
        }
    }
    if (opts->base != NULL)
        opts->mode = SY_PROGRESS_EXT_BASE;
}

pmix_status_t sy_runtime_acquire(const pmix_info_t info[], size_t ninfo, sy_progress_t **out)
{
    sy_progress_opts_t opts;
    mode_from_info(info, ninfo, &opts);
    pthread_mutex_lock(&runtime_lock);
    pmix_status_t rc = PMIX_SUCCESS;
    if (runtime == NULL) {
        rc = sy_progress_create(&opts, &runtime);
        if (rc != PMIX_SUCCESS)
            runtime = NULL;
    } else if (sy_progress_mode(runtime) != opts.mode) {
        sy_log(SY_LOG_INFO, "a second PMIx role shares the existing progress mode");
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_progress_acquire(runtime);
        if (rc == PMIX_SUCCESS) {
            runtime_users++;
            *out = runtime;
        } else if (runtime_users == 0) {
            sy_progress_destroy(runtime);
            runtime = NULL;
        }
    }
    pthread_mutex_unlock(&runtime_lock);
    return rc;
}

void sy_runtime_release(void)
{
    pthread_mutex_lock(&runtime_lock);
    if (runtime != NULL && runtime_users > 0) {
        sy_progress_release(runtime);
        if (--runtime_users == 0) {
            /* first: no event handler timer may fire inside destroy */
            sy_event_clear();
            sy_progress_destroy(runtime);
            runtime = NULL;
            sy_log_flush(); /* what the rate limiting held back */
        }
    }
    pthread_mutex_unlock(&runtime_lock);
}

sy_progress_t *sy_runtime(void)
{
    pthread_mutex_lock(&runtime_lock);
    sy_progress_t *p = runtime;
    pthread_mutex_unlock(&runtime_lock);
    return p;
}

PMIX_EXPORT void PMIx_Progress(void)
{
    sy_progress_t *p = sy_runtime();
    if (p != NULL)
        (void)sy_progress_run_once(p);
}
