/* Event registrations seen by the host, and handlers that do not answer.
 *
 * The host (this program) inits a server whose module records every
 * register_events / deregister_events upcall, registers a job of two local
 * ranks and forks/execs itself twice as the clients.  Step by step (the
 * clients wait on a pipe for each step and acknowledge it), with the
 * host's own handler for C_HOST registered first:
 *   1. rank 0 registers for C1 (a user code), PMIX_EVENT_NODE_DOWN (an
 *      environmental code) and PMIX_ERR_PROC_ABORTED (a PMIx code the host
 *      is not told about): register_events(C1, NODE_DOWN), with the
 *      client's PMIX_USERID and PMIX_GRPID;
 *   2. rank 1 registers for C1 and C_HOST: no upcall (both are held);
 *   3. rank 0 deregisters: deregister_events(NODE_DOWN) (C1 is still
 *      rank 1's);
 *   4. rank 1 is killed: deregister_events(C1) (C_HOST is the host's);
 *   5. the host deregisters its handler: deregister_events(C_HOST);
 *   6. rank 0 registers for C2 and finalizes: register_events(C2), then
 *      deregister_events(C2) when it is gone.
 * Rank 0, meanwhile, checks PMIX_EVENT_ACTION_TIMEOUT in its own process:
 * a handler registered with a 1 s timeout that never answers is passed
 * over (the next handler runs), and its late answer is refused with
 * PMIX_ERR_TIMEOUT; the same with the timeout carried by the event; a
 * handler that answers in time runs the chain once; a handler that never
 * answers at all is simply dropped at finalize.  The host runs the same
 * check in the server process.  Exit status 0 when all held. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "forkhost.h"

#define C1 (PMIX_EXTERNAL_ERR_BASE - 1)
#define C2 (PMIX_EXTERNAL_ERR_BASE - 2)
#define C_HOST (PMIX_EXTERNAL_ERR_BASE - 3)
/* a code of the standard the host is not told about */
#define C_TMO PMIX_OPENMP_PARALLEL_ENTERED

static const char *who = "host";
static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_evreg %s): ", who);                                             \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

/* Wait until *v >= want (under lock), at most `secs`. */
static bool wait_count(const int *v, int want, double secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)secs;
    pthread_mutex_lock(&lock);
    int rc = 0;
    while (*v < want && rc == 0)
        rc = pthread_cond_timedwait(&cond, &lock, &ts);
    bool ok = *v >= want;
    pthread_mutex_unlock(&lock);
    return ok;
}

static void bump(int *v)
{
    pthread_mutex_lock(&lock);
    (*v)++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* ---------------- handler timeouts (any process) ---------------- */

static int ran_next, op_done, op_status, ran_stuck;
static pmix_event_notification_cbfunc_fn_t stashed_cb;
static void *stashed_cbdata;

static void h_stuck(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    /* answers later (or never) */
    pthread_mutex_lock(&lock);
    stashed_cb = cb;
    stashed_cbdata = cbdata;
    pthread_mutex_unlock(&lock);
    bump(&ran_stuck);
}

static void h_quick(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_next(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    bump(&ran_next);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void late_op(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&lock);
    op_status = status;
    pthread_mutex_unlock(&lock);
    bump(&op_done);
}

static size_t reg(pmix_status_t code, int timeout, const char *name, const char *after,
                  pmix_notification_fn_t fn)
{
    pmix_info_t info[3];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    n++;
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_EVENT_ACTION_TIMEOUT, &timeout, PMIX_INT);
        n++;
    }
    if (after != NULL) {
        PMIX_INFO_LOAD(&info[n], PMIX_EVENT_HDLR_AFTER, after, PMIX_STRING);
        n++;
    }
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, info, n, fn, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc < 0) {
        FAIL("register %s: %s", name, PMIx_Error_string(rc));
        return 0;
    }
    return (size_t)rc;
}

static void notify(pmix_status_t code, int event_timeout)
{
    pmix_info_t info;
    size_t n = 0;
    if (event_timeout > 0) {
        PMIX_INFO_LOAD(&info, PMIX_EVENT_ACTION_TIMEOUT, &event_timeout, PMIX_INT);
        n = 1;
    }
    pmix_status_t rc =
        PMIx_Notify_event(code, NULL, PMIX_RANGE_PROC_LOCAL, n ? &info : NULL, n, NULL, NULL);
    if (n)
        PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        FAIL("notify: %s", PMIx_Error_string(rc));
}

/* One round: the stuck handler, then "next"; the chain must reach "next"
 * after about a second, and the late answer must be refused. */
static void timeout_round(int reg_timeout, int event_timeout, const char *label)
{
    size_t a = reg(C_TMO, reg_timeout, "stuck", NULL, h_stuck);
    size_t b = reg(C_TMO, 0, "next", "stuck", h_next);
    pthread_mutex_lock(&lock);
    int next0 = ran_next, stuck0 = ran_stuck, op0 = op_done;
    pthread_mutex_unlock(&lock);
    double t0 = now();
    notify(C_TMO, event_timeout);
    if (!wait_count(&ran_stuck, stuck0 + 1, 10))
        FAIL("%s: the stuck handler never ran", label);
    if (!wait_count(&ran_next, next0 + 1, 10))
        FAIL("%s: the chain hung behind a handler that did not answer", label);
    else if (now() - t0 < 0.9)
        FAIL("%s: the chain went on after %.3f s, before the timeout", label, now() - t0);
    /* the late answer: refused, but its op callback fires */
    pmix_info_t res;
    PMIX_INFO_LOAD(&res, "sy.late", "late", PMIX_STRING);
    pthread_mutex_lock(&lock);
    pmix_event_notification_cbfunc_fn_t cb = stashed_cb;
    void *cbdata = stashed_cbdata;
    stashed_cb = NULL;
    pthread_mutex_unlock(&lock);
    if (cb != NULL)
        cb(PMIX_EVENT_ACTION_COMPLETE, &res, 1, late_op, NULL, cbdata);
    PMIX_INFO_DESTRUCT(&res);
    if (!wait_count(&op_done, op0 + 1, 5))
        FAIL("%s: the late answer's callback never fired", label);
    pthread_mutex_lock(&lock);
    if (op_status != PMIX_ERR_TIMEOUT)
        FAIL("%s: late answer got %s, not PMIX_ERR_TIMEOUT", label, PMIx_Error_string(op_status));
    pthread_mutex_unlock(&lock);
    usleep(200000);
    pthread_mutex_lock(&lock);
    if (ran_next != next0 + 1)
        FAIL("%s: the next handler ran %d times", label, ran_next - next0);
    pthread_mutex_unlock(&lock);
    PMIx_Deregister_event_handler(a, NULL, NULL);
    PMIx_Deregister_event_handler(b, NULL, NULL);
}

static void timeout_checks(void)
{
    timeout_round(1, 0, "registration timeout");
    timeout_round(0, 1, "event timeout");
    /* answering in time: the timer must not run the chain a second time */
    size_t a = reg(C_TMO, 1, "quick", NULL, h_quick);
    size_t b = reg(C_TMO, 0, "next", "quick", h_next);
    pthread_mutex_lock(&lock);
    int next0 = ran_next;
    pthread_mutex_unlock(&lock);
    notify(C_TMO, 0);
    if (!wait_count(&ran_next, next0 + 1, 10))
        FAIL("in time: the chain did not go on");
    usleep(1500000);
    pthread_mutex_lock(&lock);
    if (ran_next != next0 + 1)
        FAIL("in time: the next handler ran %d times", ran_next - next0);
    pthread_mutex_unlock(&lock);
    PMIx_Deregister_event_handler(a, NULL, NULL);
    PMIx_Deregister_event_handler(b, NULL, NULL);
    /* one that never answers and has no timeout: dropped at finalize */
    reg(C_TMO, 0, "forever", NULL, h_stuck);
    pthread_mutex_lock(&lock);
    int stuck0 = ran_stuck;
    pthread_mutex_unlock(&lock);
    notify(C_TMO, 0);
    if (!wait_count(&ran_stuck, stuck0 + 1, 10))
        FAIL("the forever handler never ran");
}

/* ---------------- client ---------------- */

/* A round trip after nb registrations: the server has handled them. */
static void sync_server(void)
{
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        FAIL("commit: %s", PMIx_Error_string(rc));
}

static int client(const char *barrier)
{
    fh_step_t s;
    if (fh_step_parse(barrier, &s) != 0)
        return 2;
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 1;
    }
    static char name[32];
    snprintf(name, sizeof(name), "rank %u", me.rank);
    who = name;
    size_t ref = 0;
    if (fh_step(&s) != 0) /* initialized */
        return 2;
    if (me.rank == 0) {
        pmix_status_t codes[3] = {C1, PMIX_EVENT_NODE_DOWN, PMIX_ERR_PROC_ABORTED};
        rc = PMIx_Register_event_handler(codes, 3, NULL, 0, h_quick, NULL, NULL);
        if (rc < 0)
            FAIL("register: %s", PMIx_Error_string(rc));
        ref = (size_t)rc;
        sync_server();
    }
    if (fh_step(&s) != 0) /* step 1 done */
        return 2;
    if (me.rank == 1) {
        pmix_status_t codes[2] = {C1, C_HOST};
        rc = PMIx_Register_event_handler(codes, 2, NULL, 0, h_quick, NULL, NULL);
        if (rc < 0)
            FAIL("register: %s", PMIx_Error_string(rc));
        sync_server();
    }
    if (fh_step(&s) != 0) /* step 2 done */
        return 2;
    if (me.rank == 0) {
        rc = PMIx_Deregister_event_handler(ref, NULL, NULL);
        if (rc != PMIX_SUCCESS)
            FAIL("deregister: %s", PMIx_Error_string(rc));
        sync_server();
    }
    if (me.rank == 1) {
        /* killed by the host in step 4 */
        fh_step(&s);
        pause();
        return 3;
    }
    if (fh_step(&s) != 0) /* step 3 done */
        return 2;
    if (fh_step(&s) != 0) /* steps 4 and 5 done */
        return 2;
    timeout_checks();
    pmix_status_t c2 = C2;
    rc = PMIx_Register_event_handler(&c2, 1, NULL, 0, h_quick, NULL, NULL);
    if (rc < 0)
        FAIL("register C2: %s", PMIx_Error_string(rc));
    sync_server();
    if (fh_step(&s) != 0) /* registered C2 */
        return 2;
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 4;
}

/* ---------------- host ---------------- */

typedef struct {
    bool registering;
    pmix_status_t codes[8];
    size_t ncodes;
    bool ids_ok; /* PMIX_USERID and PMIX_GRPID are ours */
} upcall_t;

static upcall_t calls[64];
static int ncalls;

static void record(bool registering, const pmix_status_t *codes, size_t n, const pmix_info_t info[],
                   size_t ninfo)
{
    pthread_mutex_lock(&lock);
    if (ncalls < 64) {
        upcall_t *u = &calls[ncalls];
        u->registering = registering;
        u->ncodes = n < 8 ? n : 8;
        memcpy(u->codes, codes, u->ncodes * sizeof(*codes));
        int ids = 0;
        for (size_t i = 0; i < ninfo; i++) {
            if (strcmp(info[i].key, PMIX_USERID) == 0 && info[i].value.type == PMIX_UINT32 &&
                info[i].value.data.uint32 == (uint32_t)getuid())
                ids++;
            if (strcmp(info[i].key, PMIX_GRPID) == 0 && info[i].value.type == PMIX_UINT32 &&
                info[i].value.data.uint32 == (uint32_t)getgid())
                ids++;
        }
        u->ids_ok = ids == 2;
    }
    ncalls++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

typedef struct {
    pmix_op_cbfunc_t cb;
    void *cbdata;
} later_t;

static void *call_back(void *arg)
{
    later_t *l = arg;
    l->cb(PMIX_SUCCESS, l->cbdata);
    free(l);
    return NULL;
}

/* Answer from another thread, after the upcall returned, as hosts may. */
static pmix_status_t answer_later(pmix_op_cbfunc_t cb, void *cbdata)
{
    later_t *l = malloc(sizeof(*l));
    pthread_t t;
    if (l == NULL)
        return PMIX_ERR_NOMEM;
    l->cb = cb;
    l->cbdata = cbdata;
    if (pthread_create(&t, NULL, call_back, l) != 0) {
        free(l);
        return PMIX_ERR_NOMEM;
    }
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static pmix_status_t host_register(pmix_status_t *codes, size_t ncodes, const pmix_info_t info[],
                                   size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    record(true, codes, ncodes, info, ninfo);
    return answer_later(cbfunc, cbdata);
}

static pmix_status_t host_deregister(pmix_status_t *codes, size_t ncodes, pmix_op_cbfunc_t cbfunc,
                                     void *cbdata)
{
    record(false, codes, ncodes, NULL, 0);
    /* the immediate answer: no callback */
    (void)cbfunc;
    (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

/* The next upcall must be `registering` with exactly these codes (any
 * order); with n == 0, no upcall may have come. */
static void expect(int step_no, bool registering, const pmix_status_t *codes, size_t n)
{
    static int seen;
    if (n == 0) {
        usleep(300000);
        pthread_mutex_lock(&lock);
        if (ncalls != seen)
            FAIL("step %d: an unexpected %s upcall", step_no,
                 calls[seen].registering ? "register_events" : "deregister_events");
        seen = ncalls;
        pthread_mutex_unlock(&lock);
        return;
    }
    if (!wait_count(&ncalls, seen + 1, 10)) {
        FAIL("step %d: no %s upcall", step_no,
             registering ? "register_events" : "deregister_events");
        return;
    }
    pthread_mutex_lock(&lock);
    const upcall_t *u = &calls[seen++];
    bool same = u->registering == registering && u->ncodes == n;
    for (size_t i = 0; i < n && same; i++) {
        bool found = false;
        for (size_t j = 0; j < u->ncodes; j++)
            found = found || u->codes[j] == codes[i];
        same = found;
    }
    if (!same)
        FAIL("step %d: got %s of %zu codes (first %d), wanted %s of %zu", step_no,
             u->registering ? "register_events" : "deregister_events", u->ncodes,
             u->ncodes ? u->codes[0] : 0, registering ? "register_events" : "deregister_events", n);
    if (same && registering && !u->ids_ok)
        FAIL("step %d: register_events without our PMIX_USERID/PMIX_GRPID", step_no);
    pthread_mutex_unlock(&lock);
}

static int host(void)
{
    char tmpdir[] = "/tmp/sy-evreg-XXXXXX";
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.register_events = host_register;
    module.deregister_events = host_deregister;
    pmix_status_t rc = fh_server_init(&module, tmpdir);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        return 1;
    }
    /* the host's own handler holds C_HOST */
    pmix_status_t hc = C_HOST;
    rc = PMIx_Register_event_handler(&hc, 1, NULL, 0, h_quick, NULL, NULL);
    size_t host_ref = rc >= 0 ? (size_t)rc : 0;
    if (rc < 0)
        FAIL("host register: %s", PMIx_Error_string(rc));
    expect(0, true, &hc, 1);

    const char *nspace = "evreg";
    rc = fh_register_job(nspace, 2);
    if (rc != PMIX_SUCCESS) {
        FAIL("registering the job: %s", PMIx_Error_string(rc));
        return 1;
    }
    fh_barrier_t b;
    char *args[] = {"client", NULL};
    pid_t pids[2];
    if (fh_start_job(nspace, 2, args, &b, pids) != 0) {
        FAIL("cannot start the clients");
        return 1;
    }
    /* a step: every live client says it is ready, then all are released */
    unsigned alive = 2;
#define GATHER()                                                                                   \
    do {                                                                                           \
        if (fh_barrier_gather(&b, alive, -1) != (int)alive)                                        \
            FAIL("a client vanished");                                                             \
    } while (0)
#define RELEASE()                                                                                  \
    do {                                                                                           \
        if (fh_barrier_release(&b, alive) != 0)                                                    \
            FAIL("cannot release the clients");                                                    \
    } while (0)
    GATHER(); /* both initialized */
    RELEASE();
    GATHER(); /* rank 0 registered */
    pmix_status_t s1[2] = {C1, PMIX_EVENT_NODE_DOWN};
    expect(1, true, s1, 2);
    RELEASE();
    GATHER(); /* rank 1 registered */
    expect(2, false, NULL, 0);
    RELEASE();
    GATHER(); /* rank 0 deregistered */
    pmix_status_t s3 = PMIX_EVENT_NODE_DOWN;
    expect(3, false, &s3, 1);
    RELEASE();
    kill(pids[1], SIGKILL);
    int st;
    waitpid(pids[1], &st, 0);
    alive = 1;
    pmix_status_t s4 = C1;
    expect(4, false, &s4, 1);
    GATHER();
    fh_waiter_t wd = FH_WAITER;
    rc = fh_wait(PMIx_Deregister_event_handler(host_ref, fh_op_cb, &wd), &wd);
    if (rc != PMIX_SUCCESS)
        FAIL("host deregister: %s", PMIx_Error_string(rc));
    expect(5, false, &hc, 1);
    RELEASE(); /* rank 0 checks timeouts, registers C2 */
    GATHER();
    pmix_status_t s6 = C2;
    expect(6, true, &s6, 1);
    RELEASE(); /* rank 0 finalizes */
    waitpid(pids[0], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("rank 0 failed (status %d)", st);
    expect(6, false, &s6, 1);
    fh_barrier_close(&b);
    /* the same handler timeouts in the server process */
    timeout_checks();
    fh_deregister_job(nspace, 2);
    rc = fh_server_finalize(tmpdir);
    if (rc != PMIX_SUCCESS)
        FAIL("server finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "client") == 0)
        return client(argv[2]);
    int rc = host();
    if (rc == 0)
        printf("test_evreg: ok\n");
    return rc;
}
