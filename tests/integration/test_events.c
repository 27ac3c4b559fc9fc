/* Run under switchyard-run with 3 ranks: event handlers and notification.
 * Every rank registers, for code 1000, a FIRST handler, an appended "a"
 * (which returns a result) and a prepended "b", a prepended multi-code
 * handler "m" (1000 and 1002: after every single-code one, whatever its
 * place in the registrations), plus a default handler, and
 * for code 1001 a handler that ends the chain before a second one; rank 0
 * notifies 1000 to the namespace and 1001 to itself only.  Then rank 2
 * dies: ranks 0 and 1, registered for PMIX_PROC_TERMINATED, hear of it.
 *   test_events lost FILE READY: one rank waits in a held PMIx_Lookup (on
 *   the connection) and, from another thread, in a held PMIx_Get (on the
 *   direct channel); when the server is killed, both must fail and
 *   PMIX_ERR_LOST_CONNECTION be delivered; the outcome goes to FILE (READY
 *   is touched when waiting).  It clears the death signal the launcher
 *   gave it, so that it outlives the launcher's SIGKILL.
 *   test_events storm (2 ranks): rank 0 notifies STORM_EVENTS events,
 *   numbered, while rank 1 registers STORM_HANDLERS handlers for them one
 *   after another: each handler must get every event exactly once, live or
 *   replayed from the server's cache, whatever was in flight when it
 *   registered. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_events rank %u): ", me.rank);                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char order[256];
static int got1000, got1001_x, got1001_y, got_term, dflt_results, got2000;

static void note(const char *what)
{
    pthread_mutex_lock(&lock);
    strncat(order, what, sizeof(order) - strlen(order) - 1);
    pthread_mutex_unlock(&lock);
}

static void h_first(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    note("F");
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_a(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                size_t ninfo, pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb,
                void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    note("a");
    pmix_info_t out;
    PMIX_INFO_LOAD(&out, "sy.result", "from-a", PMIX_STRING);
    cb(PMIX_SUCCESS, &out, 1, NULL, NULL, cbdata);
    PMIX_INFO_DESTRUCT(&out);
}

static void h_b(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                size_t ninfo, pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb,
                void *cbdata)
{
    (void)id, (void)st, (void)info, (void)ninfo, (void)res, (void)nres;
    note("b");
    if (src->rank != 0)
        FAIL("event 1000 came from rank %u", src->rank);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_m(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                size_t ninfo, pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb,
                void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    note("m");
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_dflt(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)src, (void)info, (void)ninfo;
    if (st == 1000) {
        note("d");
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < nres; i++)
            if (!strcmp(res[i].key, "sy.result"))
                dflt_results++;
        got1000++;
        pthread_mutex_unlock(&lock);
    }
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_x(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                size_t ninfo, pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb,
                void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    pthread_mutex_lock(&lock);
    got1001_x++;
    pthread_mutex_unlock(&lock);
    cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void h_y(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                size_t ninfo, pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb,
                void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    pthread_mutex_lock(&lock);
    got1001_y++;
    pthread_mutex_unlock(&lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_term(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)info, (void)ninfo, (void)res, (void)nres;
    pthread_mutex_lock(&lock);
    if (src->rank == 2)
        got_term++;
    pthread_mutex_unlock(&lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_late(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)info, (void)ninfo, (void)res, (void)nres;
    pthread_mutex_lock(&lock);
    if (src->rank == 0)
        got2000++;
    pthread_mutex_unlock(&lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int wait_for(int *counter, int want)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&lock);
        int v = *counter;
        pthread_mutex_unlock(&lock);
        if (v >= want)
            return 0;
        usleep(10000);
    }
    return -1;
}

static void reg(pmix_status_t code, pmix_info_t *info, size_t ninfo, pmix_notification_fn_t fn)
{
    pmix_status_t codes[1] = {code};
    pmix_status_t rc =
        PMIx_Register_event_handler(code ? codes : NULL, code ? 1 : 0, info, ninfo, fn, NULL, NULL);
    if (rc < 0)
        FAIL("Register_event_handler(%d): %s", code, PMIx_Error_string(rc));
}

static int got_lost;

static void h_lost(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)st, (void)src, (void)info, (void)ninfo, (void)res, (void)nres;
    pthread_mutex_lock(&lock);
    got_lost++;
    pthread_mutex_unlock(&lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* A Get of a key nobody posts, for any rank: held by the server. */
static void *held_get(void *arg)
{
    pmix_status_t *out = arg;
    pmix_proc_t any;
    PMIX_LOAD_PROCID(&any, me.nspace, PMIX_RANK_UNDEF);
    pmix_value_t *v = NULL;
    *out = PMIx_Get(&any, "sy.never.posted", NULL, 0, &v);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return NULL;
}

static int lost(const char *file, const char *ready)
{
    /* the launcher kills its ranks when it dies (PR_SET_PDEATHSIG): this
     * one opts out, to live on and see how the library takes the loss */
    prctl(PR_SET_PDEATHSIG, 0);
    signal(SIGPIPE, SIG_IGN);
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    if (PMIx_Register_event_handler(&code, 1, NULL, 0, h_lost, NULL, NULL) < 0)
        return 1;
    pmix_status_t got = PMIX_SUCCESS;
    pthread_t t;
    if (pthread_create(&t, NULL, held_get, &got) != 0)
        return 1;
    usleep(100000); /* most likely waiting in the server by now */
    FILE *r = fopen(ready, "w");
    if (r != NULL)
        fclose(r);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "sy.never.published");
    pmix_info_t w;
    bool yes = true;
    PMIX_INFO_LOAD(&w, PMIX_WAIT, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, &w, 1); /* held until the server dies */
    PMIX_INFO_DESTRUCT(&w);
    PMIX_PDATA_DESTRUCT(&pd);
    wait_for(&got_lost, 1);
    pthread_join(t, NULL);
    FILE *f = fopen(file, "w");
    if (f != NULL) {
        fprintf(f, "lookup=%s event=%d get=%s\n", PMIx_Error_string(rc), got_lost,
                PMIx_Error_string(got));
        fclose(f);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}

#define STORM_EVENTS 100
#define STORM_HANDLERS 24
static int storm_seen[STORM_HANDLERS][STORM_EVENTS];
static int storm_total;

static size_t storm_ids[STORM_HANDLERS];
static int storm_nids;

/* Counts, per registration (its id) and event number, what it was given. */
static void h_storm(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *res, size_t nres,
                    pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)st, (void)src, (void)res, (void)nres;
    int n = -1;
    for (size_t i = 0; i < ninfo; i++)
        if (strcmp(info[i].key, "sy.storm.n") == 0 && info[i].value.type == PMIX_INT)
            n = info[i].value.data.integer;
    pthread_mutex_lock(&lock);
    int h = -1;
    for (int k = 0; k < storm_nids; k++)
        if (storm_ids[k] == id)
            h = k;
    if (h >= 0 && n >= 0 && n < STORM_EVENTS) {
        storm_seen[h][n]++;
        storm_total++;
    }
    pthread_mutex_unlock(&lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void storm(void)
{
    pmix_status_t code = 3000;
    PMIx_Fence(NULL, 0, NULL, 0);
    if (me.rank == 0) {
        for (int n = 0; n < STORM_EVENTS; n++) {
            pmix_info_t i;
            PMIX_INFO_LOAD(&i, "sy.storm.n", &n, PMIX_INT);
            pmix_status_t rc =
                PMIx_Notify_event(code, NULL, PMIX_RANGE_NAMESPACE, &i, 1, NULL, NULL);
            if (rc != PMIX_SUCCESS)
                FAIL("Notify_event %d: %s", n, PMIx_Error_string(rc));
            PMIX_INFO_DESTRUCT(&i);
            if (n % 10 == 0)
                usleep(1000);
        }
    } else {
        for (int k = 0; k < STORM_HANDLERS; k++) {
            /* the lock keeps a delivery from looking before the id is known */
            pthread_mutex_lock(&lock);
            pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, h_storm, NULL, NULL);
            if (rc >= 0)
                storm_ids[storm_nids++] = (size_t)rc;
            pthread_mutex_unlock(&lock);
            if (rc < 0)
                FAIL("Register_event_handler %d: %s", k, PMIx_Error_string(rc));
            usleep(500);
        }
        wait_for(&storm_total, storm_nids * STORM_EVENTS);
        usleep(200000); /* a duplicate would come late */
        pthread_mutex_lock(&lock);
        int bad = 0;
        for (int k = 0; k < storm_nids; k++)
            for (int n = 0; n < STORM_EVENTS; n++)
                if (storm_seen[k][n] != 1 && bad++ < 5)
                    FAIL("handler %d got event %d %d times", k, n, storm_seen[k][n]);
        pthread_mutex_unlock(&lock);
    }
    PMIx_Fence(NULL, 0, NULL, 0);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "lost") == 0) {
        if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
            return 1;
        return lost(argv[2], argv[3]);
    }
    if (argc == 2 && strcmp(argv[1], "storm") == 0) {
        if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
            return 1;
        storm();
        PMIx_Finalize(NULL, 0);
        if (failures == 0)
            printf("test_events storm rank %u: ok\n", me.rank);
        return failures == 0 ? 0 : 1;
    }
    signal(SIGTERM, SIG_IGN); /* see rank 2's death through; SIGKILL ends us */
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    bool yes = true;
    pmix_info_t i1[2], i2[2], i3;
    pmix_status_t multi[2] = {1000, 1002};
    PMIX_INFO_LOAD(&i3, PMIX_EVENT_HDLR_PREPEND, &yes, PMIX_BOOL);
    rc = PMIx_Register_event_handler(multi, 2, &i3, 1, h_m, NULL, NULL);
    if (rc < 0)
        FAIL("Register_event_handler(1000, 1002): %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&i3);
    PMIX_INFO_LOAD(&i1[0], PMIX_EVENT_HDLR_NAME, "a", PMIX_STRING);
    PMIX_INFO_LOAD(&i1[1], PMIX_EVENT_HDLR_APPEND, &yes, PMIX_BOOL);
    reg(1000, i1, 2, h_a);
    PMIX_INFO_LOAD(&i2[0], PMIX_EVENT_HDLR_NAME, "b", PMIX_STRING);
    PMIX_INFO_LOAD(&i2[1], PMIX_EVENT_HDLR_PREPEND, &yes, PMIX_BOOL);
    reg(1000, i2, 2, h_b);
    PMIX_INFO_LOAD(&i3, PMIX_EVENT_HDLR_FIRST, &yes, PMIX_BOOL);
    reg(1000, &i3, 1, h_first);
    reg(0, NULL, 0, h_dflt);
    reg(1001, NULL, 0, h_x);
    reg(1001, NULL, 0, h_y);
    reg(PMIX_PROC_TERMINATED, NULL, 0, h_term);
    for (int i = 0; i < 2; i++) {
        PMIX_INFO_DESTRUCT(&i1[i]);
        PMIX_INFO_DESTRUCT(&i2[i]);
    }
    PMIX_INFO_DESTRUCT(&i3);

    /* everyone registered before anyone notifies */
    PMIx_Fence(NULL, 0, NULL, 0);
    if (me.rank == 0) {
        rc = PMIx_Notify_event(1000, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
        if (rc != PMIX_SUCCESS)
            FAIL("Notify_event: %s", PMIx_Error_string(rc));
        PMIx_Notify_event(1001, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    }
    if (wait_for(&got1000, 1) != 0)
        FAIL("event 1000 never arrived");
    pthread_mutex_lock(&lock);
    if (strcmp(order, "Fbamd") != 0)
        FAIL("handlers ran in order \"%s\", expected \"Fbamd\"", order);
    if (dflt_results != 1)
        FAIL("results of handler a did not reach the default handler");
    pthread_mutex_unlock(&lock);
    if (me.rank == 0) {
        if (wait_for(&got1001_x, 1) != 0 || got1001_y != 0)
            FAIL("ACTION_COMPLETE did not end the chain (%d, %d)", got1001_x, got1001_y);
    } else {
        usleep(100000);
        if (got1001_x != 0)
            FAIL("a PROC_LOCAL event reached another process");
    }
    /* an event nobody listens to yet: the server caches it for later */
    if (me.rank == 0)
        PMIx_Notify_event(2000, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
    PMIx_Fence(NULL, 0, NULL, 0);
    if (me.rank != 0) {
        usleep(100000);
        reg(2000, NULL, 0, h_late);
        if (wait_for(&got2000, 1) != 0)
            FAIL("an event sent before registration was not replayed");
        usleep(100000);
        if (got2000 != 1)
            FAIL("the cached event arrived %d times", got2000);
    }
    PMIx_Fence(NULL, 0, NULL, 0);
    if (me.rank == 2)
        raise(SIGKILL);
    if (wait_for(&got_term, 1) != 0)
        FAIL("PMIX_PROC_TERMINATED for rank 2 never arrived");
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_events rank %u: ok\n", me.rank);
    return failures == 0 ? 0 : 1;
}
