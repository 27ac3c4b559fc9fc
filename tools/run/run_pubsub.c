/* The launcher's datastore for PMIx_Publish / Lookup / Unpublish
 * (Chap_API_Publish.tex): entries keyed by (key, range), visible to the
 * requesters the range admits; lookups with PMIX_WAIT are held until every
 * key is published or PMIX_TIMEOUT passes; PMIX_PERSIST_PROC entries go
 * when their publisher exits.  Upcalls run on the server's thread, the
 * timeout sweep on the main thread: one mutex guards it all. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

typedef struct entry {
    pmix_proc_t owner;
    pmix_key_t key;
    pmix_value_t value;
    pmix_data_range_t range;
    pmix_persistence_t persist;
    uint32_t uid;
    struct entry *next;
} entry_t;

typedef struct waiter {
    pmix_proc_t who;
    char **keys;
    pmix_data_range_t range;
    double deadline; /* 0 = none */
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
    struct waiter *next;
} waiter_t;

static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *entries;
static waiter_t *waiters;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Directives the datastore reads (and never stores). */
static bool directive(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_RANGE) || PMIX_CHECK_KEY(i, PMIX_PERSISTENCE) ||
           PMIX_CHECK_KEY(i, PMIX_TIMEOUT) || PMIX_CHECK_KEY(i, PMIX_WAIT) ||
           PMIX_CHECK_KEY(i, PMIX_USERID) || PMIX_CHECK_KEY(i, PMIX_GRPID) ||
           PMIX_CHECK_KEY(i, PMIX_ACCESS_PERMISSIONS) || PMIX_CHECK_KEY(i, PMIX_ACCESS_USERIDS) ||
           PMIX_CHECK_KEY(i, PMIX_ACCESS_GRPIDS);
}

static pmix_data_range_t range_of(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) && info[i].value.type == PMIX_DATA_RANGE)
            return info[i].value.data.range;
    return PMIX_RANGE_SESSION;
}

/* Can `who` see an entry?  One machine, one session: only the narrow
 * ranges restrict. */
static bool visible(const entry_t *e, const pmix_proc_t *who, pmix_data_range_t asked)
{
    if (asked != PMIX_RANGE_UNDEF && asked != e->range && e->range != PMIX_RANGE_GLOBAL &&
        asked != PMIX_RANGE_GLOBAL)
        return false;
    switch (e->range) {
    case PMIX_RANGE_PROC_LOCAL: return PMIX_CHECK_PROCID(&e->owner, who);
    case PMIX_RANGE_NAMESPACE: return PMIX_CHECK_NSPACE(e->owner.nspace, who->nspace);
    default: return true;
    }
}

static entry_t *find(const char *key, const pmix_proc_t *who, pmix_data_range_t range)
{
    for (entry_t *e = entries; e != NULL; e = e->next)
        if (strncmp(e->key, key, PMIX_MAX_KEYLEN) == 0 && visible(e, who, range))
            return e;
    return NULL;
}

/* Answer a lookup: every found key; NULL when `need_all` and some are missing. */
static pmix_status_t collect(char **keys, const pmix_proc_t *who, pmix_data_range_t range,
                             bool need_all, pmix_pdata_t **out, size_t *nout)
{
    size_t nk = 0, nf = 0;
    while (keys[nk] != NULL)
        nk++;
    for (size_t i = 0; i < nk; i++)
        nf += find(keys[i], who, range) != NULL;
    *out = NULL;
    *nout = 0;
    if (nf == 0 || (need_all && nf < nk))
        return PMIX_ERR_NOT_FOUND;
    pmix_pdata_t *pd;
    PMIX_PDATA_CREATE(pd, nf);
    if (pd == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < nk; i++) {
        entry_t *e = find(keys[i], who, range);
        if (e == NULL)
            continue;
        pd[k].proc = e->owner;
        PMIX_LOAD_KEY(pd[k].key, e->key);
        PMIx_Value_xfer(&pd[k].value, &e->value);
        k++;
    }
    *out = pd;
    *nout = nf;
    return nf == nk ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS;
}

static void free_keys(char **keys)
{
    for (size_t i = 0; keys != NULL && keys[i] != NULL; i++)
        free(keys[i]);
    free(keys);
}

/* A completed waiter, answered once the lock is dropped. */
typedef struct done {
    waiter_t *w;
    pmix_status_t status;
    pmix_pdata_t *pd;
    size_t n;
    struct done *next;
} done_t;

static void answer(done_t *d)
{
    while (d != NULL) {
        done_t *next = d->next;
        d->w->cbfunc(d->status, d->pd, d->n, d->w->cbdata);
        if (d->pd != NULL)
            PMIX_PDATA_FREE(d->pd, d->n);
        free_keys(d->w->keys);
        free(d->w);
        free(d);
        d = next;
    }
}

/* Under store_lock: take the waiters that can be answered now (all keys
 * found) or never (deadline passed). */
static done_t *ripe_waiters(double now)
{
    done_t *out = NULL;
    for (waiter_t **pp = &waiters; *pp != NULL;) {
        waiter_t *w = *pp;
        pmix_pdata_t *pd = NULL;
        size_t n = 0;
        pmix_status_t rc = collect(w->keys, &w->who, w->range, true, &pd, &n);
        bool expired = w->deadline > 0 && now > w->deadline;
        if (rc != PMIX_SUCCESS && !expired) {
            pp = &w->next;
            continue;
        }
        done_t *d = calloc(1, sizeof(*d));
        if (d == NULL) {
            if (pd != NULL)
                PMIX_PDATA_FREE(pd, n);
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        d->w = w;
        d->status = rc == PMIX_SUCCESS ? PMIX_SUCCESS : PMIX_ERR_TIMEOUT;
        d->pd = pd;
        d->n = n;
        d->next = out;
        out = d;
    }
    return out;
}

static pmix_status_t publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    pmix_data_range_t range = range_of(info, ninfo);
    pmix_persistence_t persist = PMIX_PERSIST_APP;
    uint32_t uid = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) && info[i].value.type == PMIX_PERSIST)
            persist = info[i].value.data.persist;
        if (PMIX_CHECK_KEY(&info[i], PMIX_USERID) && info[i].value.type == PMIX_UINT32)
            uid = info[i].value.data.uint32;
    }
    pthread_mutex_lock(&store_lock);
    for (size_t i = 0; i < ninfo; i++) {
        if (directive(&info[i]))
            continue;
        for (entry_t *e = entries; e != NULL; e = e->next) {
            if (strncmp(e->key, info[i].key, PMIX_MAX_KEYLEN) == 0 && e->range == range) {
                pthread_mutex_unlock(&store_lock);
                return PMIX_ERR_DUPLICATE_KEY;
            }
        }
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (directive(&info[i]))
            continue;
        entry_t *e = calloc(1, sizeof(*e));
        if (e == NULL)
            break;
        e->owner = *proc;
        PMIX_LOAD_KEY(e->key, info[i].key);
        PMIx_Value_xfer(&e->value, &info[i].value);
        e->range = range;
        e->persist = persist;
        e->uid = uid;
        e->next = entries;
        entries = e;
    }
    done_t *d = ripe_waiters(now_s());
    pthread_mutex_unlock(&store_lock);
    answer(d);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                            size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    pmix_data_range_t range = PMIX_RANGE_UNDEF;
    bool wait = false;
    double timeout = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) && info[i].value.type == PMIX_DATA_RANGE)
            range = info[i].value.data.range;
        /* PMIX_WAIT is an int (how many keys; 0: all), a flag from some
         * callers: only a false bool means no wait (PMIX_INFO_TRUE reads
         * an int as no boolean at all) */
        if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT))
            wait = info[i].value.type != PMIX_BOOL || info[i].value.data.flag;
        if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) && info[i].value.type == PMIX_INT)
            timeout = info[i].value.data.integer;
    }
    pthread_mutex_lock(&store_lock);
    pmix_pdata_t *pd = NULL;
    size_t n = 0;
    pmix_status_t rc = collect(keys, proc, range, false, &pd, &n);
    if (rc != PMIX_SUCCESS && wait) {
        if (pd != NULL)
            PMIX_PDATA_FREE(pd, n);
        waiter_t *w = calloc(1, sizeof(*w));
        size_t nk = 0;
        while (keys[nk] != NULL)
            nk++;
        if (w != NULL)
            w->keys = calloc(nk + 1, sizeof(char *));
        if (w == NULL || w->keys == NULL) {
            free(w);
            pthread_mutex_unlock(&store_lock);
            return PMIX_ERR_NOMEM;
        }
        for (size_t i = 0; i < nk; i++)
            w->keys[i] = strdup(keys[i]);
        w->who = *proc;
        w->range = range;
        w->deadline = timeout > 0 ? now_s() + timeout : 0;
        w->cbfunc = cbfunc;
        w->cbdata = cbdata;
        w->next = waiters;
        waiters = w;
        pthread_mutex_unlock(&store_lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&store_lock);
    cbfunc(rc, pd, n, cbdata);
    if (pd != NULL)
        PMIX_PDATA_FREE(pd, n);
    return PMIX_SUCCESS;
}

static pmix_status_t unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    pmix_data_range_t range = range_of(info, ninfo);
    bool any_range = true;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE))
            any_range = false;
    pthread_mutex_lock(&store_lock);
    for (entry_t **pp = &entries; *pp != NULL;) {
        entry_t *e = *pp;
        bool match = PMIX_CHECK_PROCID(&e->owner, proc) && (any_range || e->range == range);
        if (match && keys != NULL) {
            match = false;
            for (size_t k = 0; keys[k] != NULL && !match; k++)
                match = strncmp(keys[k], e->key, PMIX_MAX_KEYLEN) == 0;
        }
        if (match) {
            *pp = e->next;
            PMIX_VALUE_DESTRUCT(&e->value);
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&store_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

void run_pubsub_module(pmix_server_module_t *m)
{
    m->publish = publish;
    m->lookup = lookup;
    m->unpublish = unpublish;
}

void run_pubsub_tick(void)
{
    pthread_mutex_lock(&store_lock);
    done_t *d = waiters != NULL ? ripe_waiters(now_s()) : NULL;
    pthread_mutex_unlock(&store_lock);
    answer(d);
}

void run_pubsub_proc_gone(const pmix_proc_t *proc)
{
    pthread_mutex_lock(&store_lock);
    for (entry_t **pp = &entries; *pp != NULL;) {
        entry_t *e = *pp;
        if (e->persist == PMIX_PERSIST_PROC && PMIX_CHECK_PROCID(&e->owner, proc)) {
            *pp = e->next;
            PMIX_VALUE_DESTRUCT(&e->value);
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&store_lock);
}

/* At the end of the job, before the server goes: held lookups are answered
 * PMIX_ERR_NOT_FOUND (callbacks always fire) and everything is freed. */
void run_pubsub_free(void)
{
    pthread_mutex_lock(&store_lock);
    while (entries != NULL) {
        entry_t *e = entries;
        entries = e->next;
        PMIX_VALUE_DESTRUCT(&e->value);
        free(e);
    }
    done_t *d = NULL;
    while (waiters != NULL) {
        waiter_t *w = waiters;
        waiters = w->next;
        done_t *x = calloc(1, sizeof(*x));
        if (x == NULL) {
            free_keys(w->keys);
            free(w);
            continue;
        }
        x->w = w;
        x->status = PMIX_ERR_NOT_FOUND;
        x->next = d;
        d = x;
    }
    pthread_mutex_unlock(&store_lock);
    answer(d);
}
