/* The scheduler's worker thread (sched_worker.h): every call into the
 * fabric engine runs here, one at a time, so that the server's progress
 * thread never waits for a topology to load or a cost matrix to be
 * computed (a 32k-device recomputation takes a fraction of a second to
 * seconds).  Jobs run in submission order; each job's completion is posted
 * to the runtime's loop, where the requesters' callbacks run. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "sched/sched_worker.h"

typedef struct job {
    sy_work_fn run;
    sy_work_done_fn done;
    void *arg;
    bool ran;
    struct job *next;
} job_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    bool running, stopping;
    job_t *head, **tail;
    double tick; /* seconds between tick() calls, 0 = none */
    sy_work_fn tick_fn;
} W = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The condition variable waits on CLOCK_MONOTONIC deadlines. */
static void cond_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&W.cond, &a);
    pthread_condattr_destroy(&a);
}

static void finish_on_loop(void *arg)
{
    job_t *j = arg;
    if (j->done != NULL)
        j->done(j->arg, j->ran);
    free(j);
}

static void deadline_after(struct timespec *ts, double s)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)s;
    ts->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void *worker(void *arg)
{
    (void)arg;
    struct timespec next_tick;
    bool ticking = false;
    pthread_mutex_lock(&W.lock);
    for (;;) {
        if (W.stopping)
            break;
        if (W.head == NULL) {
            if (W.tick > 0 && !ticking) {
                deadline_after(&next_tick, W.tick);
                ticking = true;
            }
            int rc = ticking ? pthread_cond_timedwait(&W.cond, &W.lock, &next_tick)
                             : pthread_cond_wait(&W.cond, &W.lock);
            if (rc == ETIMEDOUT && W.tick_fn != NULL && !W.stopping) {
                ticking = false;
                sy_work_fn fn = W.tick_fn;
                pthread_mutex_unlock(&W.lock);
                fn(NULL);
                pthread_mutex_lock(&W.lock);
            }
            continue;
        }
        job_t *j = W.head;
        W.head = j->next;
        if (W.head == NULL)
            W.tail = &W.head;
        pthread_mutex_unlock(&W.lock);
        j->run(j->arg);
        j->ran = true;
        sy_progress_t *p = sy_runtime();
        /* the loop always outlives us: sy_work_stop joins this thread */
        if (p == NULL || sy_progress_post(p, finish_on_loop, j) != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "fabric worker: no loop to complete a job on");
            finish_on_loop(j);
        }
        pthread_mutex_lock(&W.lock);
    }
    pthread_mutex_unlock(&W.lock);
    return NULL;
}

/* A forked child has no worker: it starts its own on first use. */
static void child_reset(void)
{
    pthread_mutex_init(&W.lock, NULL);
    cond_init();
    W.running = W.stopping = false;
    W.head = NULL; /* the parent's jobs: the parent's to finish */
    W.tail = &W.head;
    W.tick = 0;
    W.tick_fn = NULL;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void once_init(void)
{
    cond_init();
    pthread_atfork(NULL, NULL, child_reset);
}

pmix_status_t sy_work_submit(sy_work_fn run, sy_work_done_fn done, void *arg)
{
    pthread_once(&init_once, once_init);
    job_t *j = calloc(1, sizeof(*j));
    if (j == NULL)
        return PMIX_ERR_NOMEM;
    j->run = run;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&W.lock);
    if (!W.running) {
        W.stopping = false;
        W.head = NULL;
        W.tail = &W.head;
        if (pthread_create(&W.thread, NULL, worker, NULL) != 0) {
            pthread_mutex_unlock(&W.lock);
            free(j);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        W.running = true;
    }
    *W.tail = j;
    W.tail = &j->next;
    pthread_cond_signal(&W.cond);
    pthread_mutex_unlock(&W.lock);
    return PMIX_SUCCESS;
}

void sy_work_set_tick(double seconds, sy_work_fn fn)
{
    pthread_once(&init_once, once_init);
    pthread_mutex_lock(&W.lock);
    W.tick = seconds;
    W.tick_fn = fn;
    pthread_cond_signal(&W.cond);
    pthread_mutex_unlock(&W.lock);
}

void sy_work_stop(void)
{
    pthread_mutex_lock(&W.lock);
    if (!W.running) {
        pthread_mutex_unlock(&W.lock);
        return;
    }
    W.stopping = true;
    W.tick = 0;
    W.tick_fn = NULL;
    pthread_cond_signal(&W.cond);
    pthread_mutex_unlock(&W.lock);
    /* a job running now finishes first (its completion is posted) */
    pthread_join(W.thread, NULL);
    pthread_mutex_lock(&W.lock);
    job_t *left = W.head;
    W.head = NULL;
    W.tail = &W.head;
    W.running = false;
    pthread_mutex_unlock(&W.lock);
    /* jobs that never ran complete here, not run */
    while (left != NULL) {
        job_t *next = left->next;
        finish_on_loop(left);
        left = next;
    }
}
