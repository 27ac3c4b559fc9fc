/* Shared by the fabric API tests test_fabric.c (a client) and
 * test_fabric_sched.c (the scheduler's own process): failure reporting,
 * reading a registered pmix_fabric_t, and a PMIX_FABRIC_UPDATE_PENDING
 * handler that completes late.  Standard API only; header-only. */
#ifndef SWITCHYARD_TESTS_TEST_FABRIC_H
#define SWITCHYARD_TESTS_TEST_FABRIC_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmix.h>

static int fails;
/* who reports a failure: the program, and its rank when it has one */
static char check_who[PMIX_MAX_NSLEN + 64] = "test_fabric";

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s: FAIL line %d: ", check_who, __LINE__);                            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static inline const pmix_info_t *info_find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; info != NULL && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

static inline const pmix_value_t *fabric_find(const pmix_fabric_t *f, const char *key)
{
    const pmix_info_t *e = info_find(f->info, f->ninfo, key);
    return e != NULL ? &e->value : NULL;
}

/* PMIX_FABRIC_NUM_DEVICES, 0 when absent */
static inline size_t fabric_ndev(const pmix_fabric_t *f)
{
    const pmix_value_t *n = fabric_find(f, PMIX_FABRIC_NUM_DEVICES);
    return n != NULL && n->type == PMIX_SIZE ? n->data.size : 0;
}

/* the type of an entry, PMIX_UNDEF when absent */
static inline pmix_data_type_t fabric_type(const pmix_fabric_t *f, const char *key)
{
    const pmix_value_t *v = fabric_find(f, key);
    return v != NULL ? v->type : PMIX_UNDEF;
}

/* m[i*n + j] of the fabric's matrix (a pointer in every process), 0 when
 * there is none or (i, j) is outside it. */
static inline uint16_t fabric_cost(const pmix_fabric_t *f, size_t i, size_t j)
{
    size_t n = fabric_ndev(f);
    const pmix_value_t *m = fabric_find(f, PMIX_FABRIC_COST_MATRIX);
    if (i >= n || j >= n || m == NULL || m->type != PMIX_POINTER || m->data.ptr == NULL)
        return 0;
    return ((const uint16_t *)m->data.ptr)[i * n + j];
}

/* A PENDING handler that holds the update protocol: 300 ms later, from
 * another thread, it calls before() (what must still hold while the
 * handler runs) and only then completes. */
typedef struct {
    pmix_event_notification_cbfunc_fn_t cbfunc;
    void *cbdata;
    void (*before)(void);
} late_t;

static inline void *late_run(void *arg)
{
    late_t *l = arg;
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    l->before();
    l->cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, l->cbdata);
    free(l);
    return NULL;
}

static inline void complete_late(pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata,
                                 void (*before)(void))
{
    late_t *l = malloc(sizeof(*l));
    pthread_t t;
    CHECK(l != NULL, "out of memory");
    if (l == NULL)
        return;
    *l = (late_t){cbfunc, cbdata, before};
    if (pthread_create(&t, NULL, late_run, l) != 0) {
        CHECK(0, "pthread_create");
        late_run(l);
        return;
    }
    pthread_detach(t);
}
#endif
