/* Progress runtime: event base, progress thread, thread-shift queue and
 * timers (semantics in progress.h). */
#define _GNU_SOURCE
#include "common/progress.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

/* Where the calling thread is with respect to a runtime's loop.  Posted
 * functions of THREAD/EXT_PROGRESS runtimes run outside libevent's
 * dispatch, so a nested wait there may run event_base_loop; inside dispatch
 * (timer callbacks, everything in EXT_BASE mode) libevent forbids it. */
enum { CTX_NONE = 0, CTX_DISPATCH = 1, CTX_POSTED = 2 };

static __thread sy_progress_t *tl_p;
static __thread int tl_ctx;

struct node {
    struct node *next;
    sy_progress_fn_t fn;
    void *arg;
    bool embedded; /* lives inside a timer: not ours to free */
};

enum { T_ARMED = 0, T_FIRED = 1, T_CANCELLED = 2 };

struct sy_timer {
    sy_progress_t *p;
    struct event *ev;
    sy_progress_fn_t fn;
    void *arg;
    struct timeval tv;
    atomic_int state;
    atomic_int refs;              /* loop's reference + the owner's, if any */
    struct sy_timer *next, *prev; /* p->live, under p->lock */
    struct node arm_node;         /* EXT_BASE from a foreign thread */
    struct node reap_node;        /* after a successful cancel */
};

struct sy_progress {
    sy_progress_mode_t mode;
    bool own_base;
    struct event_base *base;
    struct event *wake_ev;
    int efd;
    unsigned long gen; /* fork generation we belong to */

    pthread_mutex_t lock; /* queue, wake flag, thread state, live timers */
    struct node *head, *tail;
    size_t qlen;
    bool wake_pending;
    bool running;
    bool exit_req;
    struct sy_timer *live; /* timers still holding the loop's reference */

    pthread_mutex_t life_lock; /* serialises acquire/release/start/stop */
    int refcount;
    pthread_t thread;
    bool joinable;

    pthread_mutex_t run_lock; /* EXT_PROGRESS: one progressing thread */

    struct sy_progress *reg_next, *reg_prev;
};

/* Process-wide state: the fork generation (bumped in every child) and the
 * registry of runtimes, used only to close inherited descriptors in a
 * child.  reg_lock is held across fork() by the atfork handlers, so the
 * child always finds it unlocked and the list consistent. */
static atomic_ulong g_gen;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static sy_progress_t *reg_head;
/* A child's list of the parent's runtimes, kept reachable rather than freed
 * (their locks may be held by threads that do not exist here). */
static sy_progress_t *abandoned;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_rc;

static void fork_prepare(void)
{
    pthread_mutex_lock(&reg_lock);
}
static void fork_parent(void)
{
    pthread_mutex_unlock(&reg_lock);
}
static void fork_child(void)
{
    atomic_fetch_add(&g_gen, 1);
    pthread_mutex_unlock(&reg_lock);
}

static void init_once(void)
{
    once_rc = evthread_use_pthreads();
    if (once_rc == 0) {
        once_rc = pthread_atfork(fork_prepare, fork_parent, fork_child);
    }
}

static bool alive(const sy_progress_t *p)
{
    return p->gen == atomic_load(&g_gen);
}

/* ---- the queue ---- */

static void wake(sy_progress_t *p)
{
    uint64_t one = 1;
    /* Only EAGAIN (counter saturated) can happen, and then it is readable. */
    ssize_t rc = write(p->efd, &one, sizeof(one));
    (void)rc;
}

static void enqueue(sy_progress_t *p, struct node *n)
{
    bool need;
    n->next = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->tail) {
        p->tail->next = n;
    } else {
        p->head = n;
    }
    p->tail = n;
    p->qlen++;
    need = !p->wake_pending;
    p->wake_pending = true;
    pthread_mutex_unlock(&p->lock);
    /* The progress thread looks at the queue before it sleeps, so a post
     * from the thread itself needs no system call. */
    if (need && !(p->mode == SY_PROGRESS_THREAD && tl_p == p)) {
        wake(p);
    }
}

/* Run the functions queued when we started (later ones wait for the next
 * round so that I/O is not starved).  Items are popped one at a time so
 * that a nested drain keeps the global FIFO order. */
static int drain(sy_progress_t *p, int ctx)
{
    size_t n;
    int ran = 0;
    pthread_mutex_lock(&p->lock);
    n = p->qlen;
    p->wake_pending = false;
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < n; i++) {
        struct node *nd;
        pthread_mutex_lock(&p->lock);
        nd = p->head;
        if (nd) {
            p->head = nd->next;
            if (!p->head) {
                p->tail = NULL;
            }
            p->qlen--;
        }
        pthread_mutex_unlock(&p->lock);
        if (!nd) {
            break;
        }
        sy_progress_fn_t fn = nd->fn;
        void *arg = nd->arg;
        if (!nd->embedded) {
            free(nd);
        }
        sy_progress_t *save_p = tl_p;
        int save_ctx = tl_ctx;
        tl_p = p;
        tl_ctx = ctx;
        fn(arg);
        tl_p = save_p;
        tl_ctx = save_ctx;
        ran++;
    }
    return ran;
}

static size_t queued(sy_progress_t *p)
{
    size_t n;
    pthread_mutex_lock(&p->lock);
    n = p->qlen;
    pthread_mutex_unlock(&p->lock);
    return n;
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
    sy_progress_t *p = arg;
    uint64_t v;
    (void)what;
    ssize_t rc = read(fd, &v, sizeof(v));
    (void)rc;
    if (p->mode == SY_PROGRESS_EXT_BASE) {
        /* Nobody else will drain for us: the caller only runs its base. */
        drain(p, CTX_DISPATCH);
    }
}

/* ---- the thread ---- */

static void *thread_main(void *arg)
{
    sy_progress_t *p = arg;
    tl_p = p;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        bool stop = p->exit_req;
        pthread_mutex_unlock(&p->lock);
        if (stop) {
            break;
        }
        drain(p, CTX_POSTED);
        tl_ctx = CTX_DISPATCH;
        event_base_loop(p->base, queued(p) ? EVLOOP_NONBLOCK : EVLOOP_ONCE);
        tl_ctx = CTX_NONE;
    }
    /* Drain until empty, then declare ourselves gone in the same critical
     * section: anything posted afterwards waits for a restart or destroy. */
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->qlen == 0) {
            p->running = false;
            pthread_mutex_unlock(&p->lock);
            break;
        }
        pthread_mutex_unlock(&p->lock);
        drain(p, CTX_POSTED);
    }
    tl_p = NULL;
    return NULL;
}

static pmix_status_t start_thread(sy_progress_t *p)
{
    sigset_t all, old;
    pthread_mutex_lock(&p->lock);
    p->exit_req = false;
    p->running = true;
    pthread_mutex_unlock(&p->lock);
    /* Signals belong to the application's threads, not ours. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&p->thread, NULL, thread_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_mutex_lock(&p->lock);
        p->running = false;
        pthread_mutex_unlock(&p->lock);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    p->joinable = true;
    return PMIX_SUCCESS;
}

static void stop_thread(sy_progress_t *p)
{
    if (!p->joinable) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->exit_req = true;
    pthread_mutex_unlock(&p->lock);
    wake(p);
    pthread_join(p->thread, NULL);
    p->joinable = false;
}

/* ---- lifecycle ---- */

pmix_status_t sy_progress_create(const sy_progress_opts_t *opts, sy_progress_t **out)
{
    sy_progress_opts_t def = {.mode = SY_PROGRESS_THREAD, .base = NULL};
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *out = NULL;
    if (opts == NULL) {
        opts = &def;
    }
    if (opts->mode != SY_PROGRESS_THREAD && opts->mode != SY_PROGRESS_EXT_BASE &&
        opts->mode != SY_PROGRESS_EXT_PROGRESS) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((opts->mode == SY_PROGRESS_EXT_BASE) != (opts->base != NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_once(&once, init_once);
    if (once_rc != 0) {
        return PMIX_ERR_INIT;
    }
    sy_progress_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    p->mode = opts->mode;
    p->gen = atomic_load(&g_gen);
    p->efd = -1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->life_lock, NULL);
    pthread_mutex_init(&p->run_lock, NULL);
    if (p->mode == SY_PROGRESS_EXT_BASE) {
        p->base = opts->base;
    } else {
        p->base = event_base_new();
        p->own_base = true;
    }
    if (p->base == NULL) {
        goto fail;
    }
    p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->efd < 0) {
        goto fail;
    }
    p->wake_ev = event_new(p->base, p->efd, EV_READ | EV_PERSIST, wake_cb, p);
    if (p->wake_ev == NULL || event_add(p->wake_ev, NULL) != 0) {
        goto fail;
    }
    pthread_mutex_lock(&reg_lock);
    p->reg_next = reg_head;
    if (reg_head) {
        reg_head->reg_prev = p;
    }
    reg_head = p;
    pthread_mutex_unlock(&reg_lock);
    *out = p;
    return PMIX_SUCCESS;
fail:
    if (p->wake_ev) {
        event_free(p->wake_ev);
    }
    if (p->efd >= 0) {
        close(p->efd);
    }
    if (p->own_base && p->base) {
        event_base_free(p->base);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->life_lock);
    pthread_mutex_destroy(&p->run_lock);
    free(p);
    return PMIX_ERR_OUT_OF_RESOURCE;
}

pmix_status_t sy_progress_acquire(sy_progress_t *p)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (p == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!alive(p)) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    pthread_mutex_lock(&p->life_lock);
    if (p->refcount == 0 && p->mode == SY_PROGRESS_THREAD) {
        rc = start_thread(p);
    }
    if (rc == PMIX_SUCCESS) {
        p->refcount++;
    }
    pthread_mutex_unlock(&p->life_lock);
    return rc;
}

pmix_status_t sy_progress_release(sy_progress_t *p)
{
    if (p == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!alive(p)) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    pthread_mutex_lock(&p->life_lock);
    if (p->refcount == 0) {
        pthread_mutex_unlock(&p->life_lock);
        return PMIX_ERR_BAD_PARAM;
    }
    if (p->refcount == 1 && p->mode == SY_PROGRESS_THREAD && tl_p == p) {
        pthread_mutex_unlock(&p->life_lock);
        return PMIX_ERR_WOULD_BLOCK;
    }
    if (0 == --p->refcount) {
        stop_thread(p);
    }
    pthread_mutex_unlock(&p->life_lock);
    return PMIX_SUCCESS;
}

static void timer_loop_drop(struct sy_timer *t);

void sy_progress_destroy(sy_progress_t *p)
{
    if (p == NULL || !alive(p) || tl_p == p) {
        return;
    }
    pthread_mutex_lock(&p->life_lock);
    stop_thread(p);
    p->refcount = 0;
    pthread_mutex_unlock(&p->life_lock);
    /* No loop runs now: we are it.  Run every post, fire every armed timer
     * (their functions may post or arm more), until nothing is left. */
    sy_progress_t *save_p = tl_p;
    int save_ctx = tl_ctx;
    tl_p = p;
    for (;;) {
        while (queued(p)) {
            drain(p, CTX_DISPATCH);
        }
        pthread_mutex_lock(&p->lock);
        struct sy_timer *t = p->live;
        pthread_mutex_unlock(&p->lock);
        if (t == NULL) {
            break;
        }
        int armed = T_ARMED;
        if (!atomic_compare_exchange_strong(&t->state, &armed, T_FIRED)) {
            continue; /* cancelled: its reaper is queued */
        }
        tl_ctx = CTX_DISPATCH;
        t->fn(t->arg);
        tl_ctx = save_ctx;
        timer_loop_drop(t);
    }
    tl_p = save_p;
    tl_ctx = save_ctx;
    pthread_mutex_lock(&reg_lock);
    if (p->reg_prev) {
        p->reg_prev->reg_next = p->reg_next;
    } else if (reg_head == p) {
        reg_head = p->reg_next;
    }
    if (p->reg_next) {
        p->reg_next->reg_prev = p->reg_prev;
    }
    pthread_mutex_unlock(&reg_lock);
    event_free(p->wake_ev);
    if (p->efd >= 0) {
        close(p->efd);
    }
    if (p->own_base) {
        event_base_free(p->base);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->life_lock);
    pthread_mutex_destroy(&p->run_lock);
    free(p);
}

struct event_base *sy_progress_base(sy_progress_t *p)
{
    return (p && alive(p)) ? p->base : NULL;
}

sy_progress_mode_t sy_progress_mode(const sy_progress_t *p)
{
    return p ? p->mode : SY_PROGRESS_THREAD;
}

bool sy_progress_in_loop(const sy_progress_t *p)
{
    return p != NULL && tl_p == p && alive(p);
}

pmix_status_t sy_progress_post(sy_progress_t *p, sy_progress_fn_t fn, void *arg)
{
    if (p == NULL || fn == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!alive(p)) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    struct node *n = malloc(sizeof(*n));
    if (n == NULL) {
        return PMIX_ERR_NOMEM;
    }
    n->fn = fn;
    n->arg = arg;
    n->embedded = false;
    enqueue(p, n);
    return PMIX_SUCCESS;
}

int sy_progress_run_once(sy_progress_t *p)
{
    if (p == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!alive(p)) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    bool mine = (tl_p == p);
    sy_progress_t *save_p = tl_p;
    int save_ctx = tl_ctx;
    if (!mine) {
        if (p->mode != SY_PROGRESS_EXT_PROGRESS) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (pthread_mutex_trylock(&p->run_lock) != 0) {
            return 0;
        }
        tl_p = p;
        tl_ctx = CTX_NONE;
    }
    int ctx = tl_ctx;
    if (p->own_base && CTX_DISPATCH != ctx) {
        tl_ctx = CTX_DISPATCH;
        event_base_loop(p->base, EVLOOP_NONBLOCK);
        tl_ctx = ctx;
    }
    int n = drain(p, CTX_DISPATCH == ctx ? CTX_DISPATCH : CTX_POSTED);
    if (!mine) {
        tl_p = save_p;
        tl_ctx = save_ctx;
        pthread_mutex_unlock(&p->run_lock);
    }
    return n;
}

/* ---- timers ---- */

static void timer_free_ref(struct sy_timer *t)
{
    if (atomic_fetch_sub(&t->refs, 1) == 1) {
        free(t);
    }
}

/* The loop's reference goes when the event can no longer fire: always on
 * the loop (or in destroy, when no loop runs). */
static void timer_loop_drop(struct sy_timer *t)
{
    sy_progress_t *p = t->p;
    pthread_mutex_lock(&p->lock);
    if (t->prev) {
        t->prev->next = t->next;
    } else {
        p->live = t->next;
    }
    if (t->next) {
        t->next->prev = t->prev;
    }
    pthread_mutex_unlock(&p->lock);
    event_free(t->ev);
    t->ev = NULL;
    timer_free_ref(t);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sy_timer *t = arg;
    int armed = T_ARMED;
    (void)fd;
    (void)what;
    if (!atomic_compare_exchange_strong(&t->state, &armed, T_FIRED)) {
        return; /* cancelled: its reaper is queued and drops the reference */
    }
    sy_progress_t *save_p = tl_p;
    int save_ctx = tl_ctx;
    tl_p = t->p;
    tl_ctx = CTX_DISPATCH;
    t->fn(t->arg);
    tl_p = save_p;
    tl_ctx = save_ctx;
    timer_loop_drop(t);
}

static void timer_arm(void *arg)
{
    struct sy_timer *t = arg;
    if (T_ARMED == atomic_load(&t->state)) {
        event_add(t->ev, &t->tv);
    }
}

static void timer_reap(void *arg)
{
    timer_loop_drop(arg);
}

pmix_status_t sy_progress_timer(sy_progress_t *p, double seconds, sy_progress_fn_t fn, void *arg,
                                sy_timer_t **out)
{
    if (out) {
        *out = NULL;
    }
    if (p == NULL || fn == NULL || !(seconds >= 0.0) || seconds > 1e9) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!alive(p)) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    struct sy_timer *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return PMIX_ERR_NOMEM;
    }
    t->p = p;
    t->fn = fn;
    t->arg = arg;
    double whole = floor(seconds);
    t->tv.tv_sec = (time_t)whole;
    t->tv.tv_usec = (suseconds_t)((seconds - whole) * 1e6);
    atomic_init(&t->state, T_ARMED);
    atomic_init(&t->refs, out ? 2 : 1);
    t->arm_node = (struct node){.fn = timer_arm, .arg = t, .embedded = true};
    t->reap_node = (struct node){.fn = timer_reap, .arg = t, .embedded = true};
    t->ev = event_new(p->base, -1, 0, timer_cb, t);
    if (t->ev == NULL) {
        free(t);
        return PMIX_ERR_NOMEM;
    }
    /* Listed before it is armed: it may fire at once on the loop thread. */
    pthread_mutex_lock(&p->lock);
    t->next = p->live;
    if (p->live) {
        p->live->prev = t;
    }
    p->live = t;
    pthread_mutex_unlock(&p->lock);
    if (p->own_base || tl_p == p) {
        /* Our bases are thread-safe; a foreign one is only touched from its
         * loop. */
        if (event_add(t->ev, &t->tv) != 0) {
            atomic_store(&t->refs, 1);
            timer_loop_drop(t);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
    } else {
        enqueue(p, &t->arm_node);
    }
    if (out) {
        *out = t;
    }
    return PMIX_SUCCESS;
}

bool sy_timer_cancel(sy_timer_t *t)
{
    if (t == NULL) {
        return false;
    }
    int armed = T_ARMED;
    /* A fired timer may have outlived its runtime: only touch p while the
     * loop still holds the timer (state ARMED; destroy fires them all). */
    bool cancelled = T_ARMED == atomic_load(&t->state) && alive(t->p) &&
                     atomic_compare_exchange_strong(&t->state, &armed, T_CANCELLED);
    if (cancelled) {
        /* Removing the event is the loop's business; never block here. */
        enqueue(t->p, &t->reap_node);
    }
    timer_free_ref(t);
    return cancelled;
}

/* ---- fork ---- */

void sy_progress_atfork_child(void)
{
    tl_p = NULL;
    tl_ctx = CTX_NONE;
    unsigned long gen = atomic_load(&g_gen);
    pthread_mutex_lock(&reg_lock);
    sy_progress_t **pp = &reg_head;
    while (*pp) {
        sy_progress_t *p = *pp;
        if (p->gen != gen) {
            /* The parent's: its memory and locks are left alone (another
             * thread may have held them at fork time); only our copy of its
             * wake-up descriptor is closed. */
            if (p->efd >= 0) {
                close(p->efd);
                p->efd = -1;
            }
            *pp = p->reg_next;
            if (*pp) {
                (*pp)->reg_prev = p->reg_prev;
            }
            p->reg_prev = NULL;
            p->reg_next = abandoned;
            abandoned = p;
        } else {
            pp = &p->reg_next;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}
