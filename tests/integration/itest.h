/* Helpers shared by the integration clients test_groups.c and
 * test_sets_creds.c: failure reporting, waiting for what event handlers
 * record, registering handlers, small Get checks.  Header-only. */
#ifndef SWITCHYARD_TESTS_ITEST_H
#define SWITCHYARD_TESTS_ITEST_H
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int failures;
static const char *itest_name = "itest";
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(%s rank %u, line %d): ", itest_name, me.rank, __LINE__);             \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)
#define EXPECT(rc, want, what)                                                                     \
    do {                                                                                           \
        pmix_status_t rc_ = (rc);                                                                  \
        if (rc_ != (want))                                                                         \
            FAIL("%s returned %s, not %s", what, PMIx_Error_string(rc_), PMIx_Error_string(want)); \
    } while (0)

/* What event handlers saw, read by the main thread. */
static pthread_mutex_t itest_lock = PTHREAD_MUTEX_INITIALIZER;

static inline int itest_read(const int *counter)
{
    pthread_mutex_lock(&itest_lock);
    int v = *counter;
    pthread_mutex_unlock(&itest_lock);
    return v;
}

static inline void itest_bump(int *counter)
{
    pthread_mutex_lock(&itest_lock);
    (*counter)++;
    pthread_mutex_unlock(&itest_lock);
}

/* Wait (up to 30 s, generous for a loaded machine) until *counter >= n. */
static inline bool wait_count(const int *counter, int n, const char *what)
{
    for (int i = 0; i < 3000; i++) {
        if (itest_read(counter) >= n)
            return true;
        usleep(10000);
    }
    FAIL("waited 30 s for %s", what);
    return false;
}

/* Register fn for one code (non-default events need it); blocking. */
static inline void on_event(pmix_status_t code, pmix_notification_fn_t fn)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, fn, NULL, NULL);
    if (rc < 0)
        FAIL("registering for %s: %s", PMIx_Error_string(code), PMIx_Error_string(rc));
}

static inline const pmix_info_t *find_info(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; info != NULL && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

static inline pmix_proc_t rank_of(pmix_rank_t r)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    return p;
}

static inline void put_str(const char *key, const char *v)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, v, PMIX_STRING);
    EXPECT(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&val);
}

/* Wait until rank r committed key (a direct-modex Get is held until then). */
static inline void await_key(pmix_rank_t r, const char *key)
{
    pmix_proc_t p = rank_of(r);
    pmix_info_t t;
    int secs = 60;
    PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&p, key, &t, 1, &v), PMIX_SUCCESS, "PMIx_Get of a peer's signal key");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&t);
}

/* Do procs (a PMIX_DATA_ARRAY of PMIX_PROC) list exactly ranks, in order? */
static inline bool is_members(const pmix_value_t *v, const pmix_rank_t *ranks, size_t n)
{
    if (v == NULL || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        v->data.darray->type != PMIX_PROC || v->data.darray->size != n)
        return false;
    const pmix_proc_t *p = v->data.darray->array;
    for (size_t i = 0; i < n; i++)
        if (!PMIX_CHECK_NSPACE(p[i].nspace, me.nspace) || p[i].rank != ranks[i])
            return false;
    return true;
}

/* Does a PMIX_DATA_ARRAY of strings hold name? */
static inline bool has_name(const pmix_value_t *v, const char *name)
{
    if (v == NULL || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        v->data.darray->type != PMIX_STRING)
        return false;
    char **s = v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++)
        if (s[i] != NULL && strcmp(s[i], name) == 0)
            return true;
    return false;
}
#endif
