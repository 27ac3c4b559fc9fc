/* Progress runtime (src/common/progress.c) and sync objects (sync.c). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "common/progress.h"
#include "common/sync.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static sy_progress_t *make(sy_progress_mode_t mode, struct event_base *base)
{
    sy_progress_opts_t o = {.mode = mode, .base = base};
    sy_progress_t *p = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_progress_create(&o, &p));
    assert_non_null(p);
    return p;
}

static void signal_cb(void *arg)
{
    sy_sync_signal(arg, PMIX_SUCCESS, arg);
}

/* Wait until every post made so far has run. */
static void flush(sy_progress_t *p)
{
    sy_sync_t s;
    assert_int_equal(PMIX_SUCCESS, sy_sync_init(&s));
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, signal_cb, &s));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait(&s));
    sy_sync_destroy(&s);
}

/* ---- 8 threads x 10 000 posts ---- */

#define NPOSTERS 8
#define NPOSTS 10000

struct mt {
    sy_progress_t *p;
    long next[NPOSTERS]; /* loop thread only */
    long out_of_order;
    long not_in_loop;
    long total;
};
static struct mt g_mt;

static void mt_cb(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    int who = (int)(v >> 32);
    long seq = (long)(v & 0xffffffffu);
    if (!sy_progress_in_loop(g_mt.p)) {
        g_mt.not_in_loop++;
    }
    if (g_mt.next[who] != seq) {
        g_mt.out_of_order++;
    }
    g_mt.next[who] = seq + 1;
    g_mt.total++;
}

static void *poster(void *arg)
{
    uintptr_t who = (uintptr_t)arg;
    for (uintptr_t i = 0; i < NPOSTS; i++) {
        if (sy_progress_post(g_mt.p, mt_cb, (void *)((who << 32) | i)) != PMIX_SUCCESS) {
            return (void *)1;
        }
    }
    return NULL;
}

static void test_many_posters(void **state)
{
    (void)state;
    memset(&g_mt, 0, sizeof(g_mt));
    g_mt.p = make(SY_PROGRESS_THREAD, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(g_mt.p));
    pthread_t th[NPOSTERS];
    for (uintptr_t i = 0; i < NPOSTERS; i++) {
        assert_int_equal(0, pthread_create(&th[i], NULL, poster, (void *)i));
    }
    for (int i = 0; i < NPOSTERS; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    flush(g_mt.p);
    assert_int_equal(NPOSTERS * NPOSTS, g_mt.total);
    assert_int_equal(0, g_mt.out_of_order);
    assert_int_equal(0, g_mt.not_in_loop);
    for (int i = 0; i < NPOSTERS; i++) {
        assert_int_equal(NPOSTS, g_mt.next[i]);
    }
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(g_mt.p));
    sy_progress_destroy(g_mt.p);
}

/* ---- post from a posted function ---- */

struct nest {
    sy_progress_t *p;
    int step; /* loop thread only */
    int inner_saw;
    sy_sync_t done;
};

static void nest_inner(void *arg)
{
    struct nest *n = arg;
    n->inner_saw = n->step;
    sy_sync_signal(&n->done, PMIX_SUCCESS, NULL);
}

static void nest_outer(void *arg)
{
    struct nest *n = arg;
    n->step = 1;
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(n->p, nest_inner, n));
    /* Re-entrant execution would have run nest_inner already. */
    n->step = 2;
}

static void test_post_from_loop(void **state)
{
    (void)state;
    struct nest n = {0};
    n.p = make(SY_PROGRESS_THREAD, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_sync_init(&n.done));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(n.p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(n.p, nest_outer, &n));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&n.done, 10.0));
    assert_int_equal(2, n.inner_saw);
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(n.p));
    sy_progress_destroy(n.p);
    sy_sync_destroy(&n.done);
}

/* ---- stop drains ---- */

static atomic_int g_count;

static void count_cb(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_count, 1);
}

static void slow_cb(void *arg)
{
    (void)arg;
    usleep(50000);
    atomic_fetch_add(&g_count, 1);
}

static void test_stop_drains(void **state)
{
    (void)state;
    sy_progress_t *p = make(SY_PROGRESS_THREAD, NULL);
    atomic_store(&g_count, 0);
    /* Before the thread exists: kept until it starts. */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, count_cb, NULL));
    }
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, slow_cb, NULL));
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, count_cb, NULL));
    }
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    /* The thread is joined and everything ran. */
    assert_int_equal(1011, atomic_load(&g_count));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_release(p));
    /* After the stop: run at destroy, on the destroying thread. */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, count_cb, NULL));
    }
    assert_int_equal(1011, atomic_load(&g_count));
    sy_progress_destroy(p);
    assert_int_equal(1016, atomic_load(&g_count));
}

/* ---- timers ---- */

struct tick {
    atomic_int fired;
    sy_sync_t sync;
    sy_progress_t *p;
    int in_loop;
};

static void tick_cb(void *arg)
{
    struct tick *t = arg;
    t->in_loop = sy_progress_in_loop(t->p);
    atomic_fetch_add(&t->fired, 1);
    sy_sync_signal(&t->sync, PMIX_SUCCESS, NULL);
}

static void test_timers(void **state)
{
    (void)state;
    sy_progress_t *p = make(SY_PROGRESS_THREAD, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    struct tick a = {.p = p}, b = {.p = p}, c = {.p = p}, d = {.p = p};
    sy_sync_init(&a.sync);
    sy_sync_init(&b.sync);
    sy_sync_init(&c.sync);
    sy_sync_init(&d.sync);
    sy_timer_t *ta, *tb;

    double t0 = now();
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(p, 0.05, tick_cb, &a, &ta));
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(p, 0.05, tick_cb, &b, &tb));
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(p, 0.02, tick_cb, &c, NULL));
    assert_true(sy_timer_cancel(tb));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&a.sync, 10.0));
    assert_true(now() - t0 >= 0.045);
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&c.sync, 10.0));
    usleep(100000);
    assert_int_equal(1, atomic_load(&a.fired));
    assert_int_equal(1, a.in_loop);
    assert_int_equal(0, atomic_load(&b.fired));
    assert_int_equal(1, atomic_load(&c.fired));
    /* Fired already: cancel says so and frees the handle. */
    assert_false(sy_timer_cancel(ta));
    assert_false(sy_timer_cancel(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_timer(p, -1.0, tick_cb, &d, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_timer(p, 1.0, NULL, &d, NULL));

    /* Many timers cancelled from another thread while others fire. */
    sy_timer_t *many[200];
    atomic_store(&d.fired, 0);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(PMIX_SUCCESS,
                         sy_progress_timer(p, (i % 2) ? 0.0 : 30.0, tick_cb, &d, &many[i]));
    }
    int cancelled = 0;
    for (int i = 0; i < 200; i++) {
        cancelled += sy_timer_cancel(many[i]);
    }
    flush(p);
    usleep(20000);
    flush(p);
    assert_int_equal(200, cancelled + atomic_load(&d.fired));
    assert_true(cancelled >= 100);

    /* Still armed at destroy: fires then, exactly once. */
    struct tick e = {.p = p};
    sy_sync_init(&e.sync);
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(p, 1000.0, tick_cb, &e, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    assert_int_equal(0, atomic_load(&e.fired));
    sy_progress_destroy(p);
    assert_int_equal(1, atomic_load(&e.fired));
    sy_sync_destroy(&a.sync);
    sy_sync_destroy(&b.sync);
    sy_sync_destroy(&c.sync);
    sy_sync_destroy(&d.sync);
    sy_sync_destroy(&e.sync);
}

/* ---- acquire / release ---- */

struct who {
    sy_progress_t *p;
    pthread_t tid;
    int in_loop;
    pmix_status_t release_rc;
    sy_sync_t sync;
};

static void who_cb(void *arg)
{
    struct who *w = arg;
    w->tid = pthread_self();
    w->in_loop = sy_progress_in_loop(w->p);
    w->release_rc = sy_progress_release(w->p);
    sy_sync_signal(&w->sync, PMIX_SUCCESS, NULL);
}

static void ask(struct who *w)
{
    sy_sync_init(&w->sync);
    w->in_loop = 0;
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(w->p, who_cb, w));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&w->sync, 10.0));
    sy_sync_destroy(&w->sync);
}

static void test_refcount(void **state)
{
    (void)state;
    sy_progress_t *p = make(SY_PROGRESS_THREAD, NULL);
    struct who w = {.p = p};
    assert_false(sy_progress_in_loop(p));
    assert_false(sy_progress_in_loop(NULL));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    /* From the loop, at count 2: allowed (2 -> 1). */
    ask(&w);
    pthread_t first = w.tid;
    assert_true(w.in_loop);
    assert_int_equal(PMIX_SUCCESS, w.release_rc);
    assert_false(pthread_equal(first, pthread_self()));
    /* From the loop, at count 1: would have to join itself. */
    ask(&w);
    assert_true(pthread_equal(first, w.tid));
    assert_int_equal(PMIX_ERR_WOULD_BLOCK, w.release_rc);
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    /* Stopped: a post waits for the next start. */
    atomic_store(&g_count, 0);
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, count_cb, NULL));
    usleep(20000);
    assert_int_equal(0, atomic_load(&g_count));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    ask(&w);
    assert_true(w.in_loop);
    assert_int_equal(1, atomic_load(&g_count));
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_release(p));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_acquire(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_post(p, NULL, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_post(NULL, count_cb, NULL));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_progress_run_once(p));
    sy_progress_destroy(p);

    sy_progress_opts_t bad = {.mode = SY_PROGRESS_EXT_BASE, .base = NULL};
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_create(&bad, &p));
    assert_null(p);
    bad.mode = (sy_progress_mode_t)42;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_create(&bad, &p));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_progress_create(NULL, NULL));
}

/* ---- external base ---- */

struct ext {
    sy_progress_t *p;
    atomic_int ran;
    int in_loop;
    atomic_int timer_fired;
};

static void ext_cb(void *arg)
{
    struct ext *e = arg;
    e->in_loop = sy_progress_in_loop(e->p);
    atomic_fetch_add(&e->ran, 1);
}

static void ext_timer_cb(void *arg)
{
    struct ext *e = arg;
    atomic_fetch_add(&e->timer_fired, 1);
}

static void *ext_poster(void *arg)
{
    struct ext *e = arg;
    for (int i = 0; i < 100; i++) {
        sy_progress_post(e->p, ext_cb, e);
    }
    sy_progress_timer(e->p, 0.01, ext_timer_cb, e, NULL);
    return NULL;
}

static void test_external_base(void **state)
{
    (void)state;
    evthread_use_pthreads();
    struct event_base *base = event_base_new();
    assert_non_null(base);
    struct ext e = {0};
    e.p = make(SY_PROGRESS_EXT_BASE, base);
    assert_ptr_equal(base, sy_progress_base(e.p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(e.p));
    pthread_t th;
    assert_int_equal(0, pthread_create(&th, NULL, ext_poster, &e));
    double t0 = now();
    while ((atomic_load(&e.ran) < 100 || atomic_load(&e.timer_fired) < 1) && now() - t0 < 10.0) {
        event_base_loop(base, EVLOOP_ONCE);
    }
    pthread_join(th, NULL);
    assert_int_equal(100, atomic_load(&e.ran));
    assert_int_equal(1, atomic_load(&e.timer_fired));
    assert_true(e.in_loop);
    assert_false(sy_progress_in_loop(e.p));
    /* Not running our base: run_once is refused from outside. */
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_progress_run_once(e.p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(e.p));
    sy_progress_destroy(e.p);
    event_base_free(base);
}

/* ---- external progress ---- */

static void test_external_progress(void **state)
{
    (void)state;
    struct ext e = {0};
    e.p = make(SY_PROGRESS_EXT_PROGRESS, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(e.p));
    for (int i = 0; i < 5; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_progress_post(e.p, ext_cb, &e));
    }
    usleep(10000);
    assert_int_equal(0, atomic_load(&e.ran));
    assert_int_equal(5, sy_progress_run_once(e.p));
    assert_int_equal(5, atomic_load(&e.ran));
    assert_true(e.in_loop);
    assert_int_equal(0, sy_progress_run_once(e.p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(e.p, 0.01, ext_timer_cb, &e, NULL));
    double t0 = now();
    while (atomic_load(&e.timer_fired) == 0 && now() - t0 < 10.0) {
        sy_progress_run_once(e.p);
        usleep(1000);
    }
    assert_int_equal(1, atomic_load(&e.timer_fired));
    /* A blocking call in this mode progresses the runtime itself. */
    sy_sync_t s;
    sy_sync_init(&s);
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(e.p, signal_cb, &s));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_progress(&s, e.p));
    assert_ptr_equal(&s, s.result);
    sy_sync_destroy(&s);
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(e.p));
    sy_progress_destroy(e.p);
}

/* ---- sync ---- */

struct req {
    sy_progress_t *p;
    sy_sync_t inner;
    pmix_status_t inner_rc;
    sy_sync_t outer;
};

static void complete_later(void *arg)
{
    sy_sync_signal(arg, PMIX_ERR_EXISTS, NULL);
}

/* A "blocking call" made on the loop thread: the completion is itself a
 * posted function, so waiting on the condvar would deadlock. */
static void blocking_on_loop(void *arg)
{
    struct req *r = arg;
    sy_sync_init(&r->inner);
    sy_progress_post(r->p, complete_later, &r->inner);
    r->inner_rc = sy_sync_wait_progress(&r->inner, r->p);
    sy_sync_destroy(&r->inner);
    sy_sync_signal(&r->outer, PMIX_SUCCESS, NULL);
}

static void blocking_in_timer(void *arg)
{
    blocking_on_loop(arg);
}

static void *sync_waiter(void *arg)
{
    sy_progress_t *p = arg;
    for (int i = 0; i < 200; i++) {
        sy_sync_t s;
        sy_sync_init(&s);
        sy_progress_post(p, complete_later, &s);
        if (sy_sync_wait_progress(&s, p) != PMIX_ERR_EXISTS) {
            return (void *)1;
        }
        sy_sync_destroy(&s);
    }
    return NULL;
}

static void test_sync(void **state)
{
    (void)state;
    sy_progress_t *p = make(SY_PROGRESS_THREAD, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    /* From other threads (plain condvar wait), destroying right after. */
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(0, pthread_create(&th[i], NULL, sync_waiter, p));
    }
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    /* From the loop thread, in a posted function and in a timer. */
    struct req r = {.p = p};
    sy_sync_init(&r.outer);
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, blocking_on_loop, &r));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&r.outer, 10.0));
    assert_int_equal(PMIX_ERR_EXISTS, r.inner_rc);
    sy_sync_destroy(&r.outer);
    struct req r2 = {.p = p};
    sy_sync_init(&r2.outer);
    assert_int_equal(PMIX_SUCCESS, sy_progress_timer(p, 0.0, blocking_in_timer, &r2, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_sync_wait_timeout(&r2.outer, 10.0));
    assert_int_equal(PMIX_ERR_EXISTS, r2.inner_rc);
    sy_sync_destroy(&r2.outer);

    /* Timeout, first signal wins, bad input. */
    sy_sync_t s;
    sy_sync_init(&s);
    double t0 = now();
    assert_int_equal(PMIX_ERR_TIMEOUT, sy_sync_wait_timeout(&s, 0.05));
    assert_true(now() - t0 >= 0.045);
    int x;
    sy_sync_signal(&s, PMIX_ERR_NOMEM, &x);
    sy_sync_signal(&s, PMIX_SUCCESS, NULL);
    assert_int_equal(PMIX_ERR_NOMEM, sy_sync_wait(&s));
    assert_ptr_equal(&x, s.result);
    assert_int_equal(PMIX_ERR_NOMEM, sy_sync_wait_timeout(&s, 0.0));
    sy_sync_destroy(&s);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_sync_init(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_sync_wait(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_sync_wait_progress(NULL, p));
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    sy_progress_destroy(p);
}

/* ---- fork ---- */

static int child_main(sy_progress_t *parent)
{
    /* The parent's runtime is dead here. */
    if (sy_progress_post(parent, count_cb, NULL) != PMIX_ERR_NOT_AVAILABLE) {
        return 10;
    }
    if (sy_progress_in_loop(parent)) {
        return 11;
    }
    sy_progress_atfork_child();
    sy_progress_t *p = NULL;
    if (sy_progress_create(NULL, &p) != PMIX_SUCCESS || sy_progress_acquire(p) != PMIX_SUCCESS) {
        return 12;
    }
    atomic_store(&g_count, 0);
    for (int i = 0; i < 1000; i++) {
        if (sy_progress_post(p, count_cb, NULL) != PMIX_SUCCESS) {
            return 13;
        }
    }
    sy_sync_t s;
    sy_sync_init(&s);
    if (sy_progress_timer(p, 0.01, signal_cb, &s, NULL) != PMIX_SUCCESS ||
        sy_sync_wait_timeout(&s, 10.0) != PMIX_SUCCESS) {
        return 14;
    }
    sy_sync_destroy(&s);
    if (sy_progress_release(p) != PMIX_SUCCESS) {
        return 15;
    }
    sy_progress_destroy(p);
    return atomic_load(&g_count) == 1000 ? 0 : 16;
}

static void fork_in_loop(void *arg)
{
    pid_t *pid = arg;
    *pid = fork();
    if (0 == *pid) {
        sy_progress_atfork_child();
        sy_progress_t *p = NULL;
        int ok =
            sy_progress_create(NULL, &p) == PMIX_SUCCESS && sy_progress_acquire(p) == PMIX_SUCCESS;
        if (ok) {
            flush(p);
            sy_progress_release(p);
            sy_progress_destroy(p);
        }
        _exit(ok ? 0 : 20);
    }
}

static void test_fork(void **state)
{
    (void)state;
    sy_progress_t *p = make(SY_PROGRESS_THREAD, NULL);
    assert_int_equal(PMIX_SUCCESS, sy_progress_acquire(p));
    flush(p);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        _exit(child_main(p));
    }
    int st = 0;
    assert_int_equal(pid, waitpid(pid, &st, 0));
    assert_true(WIFEXITED(st));
    assert_int_equal(0, WEXITSTATUS(st));
    /* Forking from the progress thread itself. */
    pid_t pid2 = -1;
    flush(p);
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, fork_in_loop, &pid2));
    flush(p);
    assert_true(pid2 > 0);
    assert_int_equal(pid2, waitpid(pid2, &st, 0));
    assert_true(WIFEXITED(st));
    assert_int_equal(0, WEXITSTATUS(st));
    /* Parent unaffected. */
    atomic_store(&g_count, 0);
    assert_int_equal(PMIX_SUCCESS, sy_progress_post(p, count_cb, NULL));
    flush(p);
    assert_int_equal(1, atomic_load(&g_count));
    assert_int_equal(PMIX_SUCCESS, sy_progress_release(p));
    sy_progress_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_posters),
        cmocka_unit_test(test_post_from_loop),
        cmocka_unit_test(test_stop_drains),
        cmocka_unit_test(test_timers),
        cmocka_unit_test(test_refcount),
        cmocka_unit_test(test_external_base),
        cmocka_unit_test(test_external_progress),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
