/* The event handler registry and delivery chain (event.h), and the public
 * PMIx_Register_event_handler / PMIx_Deregister_event_handler /
 * PMIx_Notify_event shared by every role. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/info.h"
#include "common/event.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "common/sync.h"

typedef enum { POS_NORMAL, POS_FIRST, POS_LAST } position_t;

typedef struct handler {
    size_t ref;
    pmix_status_t *codes; /* NULL: a default handler */
    size_t ncodes;
    char *name;
    position_t pos;
    pmix_proc_t *affected; /* only events about these procs, when set */
    size_t naffected;
    pmix_notification_fn_t fn;
    void *cbdata;
    void *return_object; /* PMIX_EVENT_RETURN_OBJECT, handed back on delivery */
    int timeout;         /* PMIX_EVENT_ACTION_TIMEOUT at registration, s; 0 = none */
    struct handler *next;
} handler_t;

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static handler_t *handlers; /* in chain order, FIRST/LAST placed at delivery */
/* Registrations are numbered from 1 inside (0 means "none" in replays and
 * on the wire); the API shows them from 0, as OpenPMIx 4.2.2 does: hosts
 * such as Slurm deregister "their" handler as 0 without reading the id
 * they were given. */
static size_t next_ref = 1;
#define PUBLIC_REF(ref) ((ref)-1)
static sy_event_forward_fn forwarder[SY_EVENT_ROUTES];
static sy_event_register_fn register_hook[SY_EVENT_ROUTES];
static sy_event_deregister_fn deregister_hook[SY_EVENT_ROUTES];
static sy_event_outcome_fn outcome_hook;
static pmix_proc_t self_proc;
static sy_event_intercept_fn intercept;
/* sy_event_deliver_counted's deliveries so far (see event.h) */
static uint64_t counted;

void sy_event_set_forwarder(unsigned route, sy_event_forward_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    forwarder[route] = fn;
    pthread_mutex_unlock(&ev_lock);
}

void sy_event_set_register_hook(unsigned route, sy_event_register_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    register_hook[route] = fn;
    pthread_mutex_unlock(&ev_lock);
}

void sy_event_set_deregister_hook(unsigned route, sy_event_deregister_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    deregister_hook[route] = fn;
    pthread_mutex_unlock(&ev_lock);
}

void sy_event_set_outcome_hook(sy_event_outcome_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    outcome_hook = fn;
    pthread_mutex_unlock(&ev_lock);
}

static void outcome(pmix_status_t code, pmix_status_t objection, const pmix_info_t *results,
                    size_t nresults, const pmix_info_t *info, size_t ninfo)
{
    pthread_mutex_lock(&ev_lock);
    sy_event_outcome_fn hook = outcome_hook;
    pthread_mutex_unlock(&ev_lock);
    if (hook != NULL)
        hook(code, objection, results, nresults, info, ninfo);
}

void sy_event_set_intercept(sy_event_intercept_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    intercept = fn;
    pthread_mutex_unlock(&ev_lock);
}

void sy_event_set_self(const pmix_proc_t *self)
{
    pthread_mutex_lock(&ev_lock);
    self_proc = *self;
    pthread_mutex_unlock(&ev_lock);
}

static void handler_free(handler_t *h)
{
    free(h->codes);
    free(h->name);
    free(h->affected);
    free(h);
}

/* A whole number of seconds from any integer value; 0 (none) otherwise. */
static int seconds_of(const pmix_value_t *v)
{
    int64_t t;
    switch (v->type) {
    case PMIX_INT: t = v->data.integer; break;
    case PMIX_INT8: t = v->data.int8; break;
    case PMIX_INT16: t = v->data.int16; break;
    case PMIX_INT32: t = v->data.int32; break;
    case PMIX_INT64: t = v->data.int64; break;
    case PMIX_UINT: t = v->data.uint; break;
    case PMIX_UINT8: t = v->data.uint8; break;
    case PMIX_UINT16: t = v->data.uint16; break;
    case PMIX_UINT32: t = v->data.uint32; break;
    case PMIX_UINT64: t = v->data.uint64 > INT32_MAX ? INT32_MAX : (int64_t)v->data.uint64; break;
    case PMIX_SIZE: t = v->data.size > INT32_MAX ? INT32_MAX : (int64_t)v->data.size; break;
    default: return 0;
    }
    return t <= 0 ? 0 : t > INT32_MAX ? INT32_MAX : (int)t;
}

/* ---- registration ---- */

static pmix_status_t copy_procs(const pmix_value_t *v, pmix_proc_t **out, size_t *n)
{
    if (v->type == PMIX_PROC && v->data.proc != NULL) {
        *out = malloc(sizeof(pmix_proc_t));
        if (*out == NULL)
            return PMIX_ERR_NOMEM;
        **out = *v->data.proc;
        *n = 1;
        return PMIX_SUCCESS;
    }
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL && v->data.darray->type == PMIX_PROC) {
        *n = v->data.darray->size;
        *out = calloc(*n ? *n : 1, sizeof(pmix_proc_t));
        if (*out == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(*out, v->data.darray->array, *n * sizeof(pmix_proc_t));
        return PMIX_SUCCESS;
    }
    return PMIX_ERR_BAD_PARAM;
}

/* Insert h where its ordering attributes say (under ev_lock). */
static void insert(handler_t *h, bool prepend, const char *before, const char *after)
{
    handler_t **pp = &handlers;
    if (before != NULL || after != NULL) {
        const char *anchor = before != NULL ? before : after;
        for (handler_t **q = &handlers; *q != NULL; q = &(*q)->next) {
            if ((*q)->name != NULL && strcmp((*q)->name, anchor) == 0) {
                pp = before != NULL ? q : &(*q)->next;
                h->next = *pp;
                *pp = h;
                return;
            }
        }
    }
    if (!prepend) {
        while (*pp != NULL)
            pp = &(*pp)->next;
    } else if (h->codes == NULL) {
        /* prepending a default handler: first among the defaults */
        while (*pp != NULL && (*pp)->codes != NULL)
            pp = &(*pp)->next;
    }
    h->next = *pp;
    *pp = h;
}

static pmix_status_t do_register(pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                                 size_t ninfo, pmix_notification_fn_t fn, void *cbdata, size_t *ref,
                                 uint64_t *seen)
{
    handler_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return PMIX_ERR_NOMEM;
    if (codes != NULL && ncodes > 0) {
        h->codes = malloc(ncodes * sizeof(pmix_status_t));
        if (h->codes == NULL) {
            free(h);
            return PMIX_ERR_NOMEM;
        }
        memcpy(h->codes, codes, ncodes * sizeof(pmix_status_t));
        h->ncodes = ncodes;
    }
    h->fn = fn;
    h->cbdata = cbdata;
    bool prepend = false;
    const char *before = NULL, *after = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        const pmix_info_t *in = &info[i];
        if (sy_info_is(in, PMIX_EVENT_HDLR_NAME) && in->value.type == PMIX_STRING)
            h->name = in->value.data.string ? strdup(in->value.data.string) : NULL;
        else if (sy_info_is(in, PMIX_EVENT_HDLR_FIRST) && sy_info_true(in))
            h->pos = POS_FIRST;
        else if (sy_info_is(in, PMIX_EVENT_HDLR_LAST) && sy_info_true(in))
            h->pos = POS_LAST;
        else if (sy_info_is(in, PMIX_EVENT_HDLR_PREPEND) && sy_info_true(in))
            prepend = true;
        else if (sy_info_is(in, PMIX_EVENT_HDLR_APPEND) && sy_info_true(in))
            prepend = false; /* the default; the later of the two wins */
        else if (sy_info_is(in, PMIX_EVENT_HDLR_BEFORE) && in->value.type == PMIX_STRING)
            before = in->value.data.string;
        else if (sy_info_is(in, PMIX_EVENT_HDLR_AFTER) && in->value.type == PMIX_STRING)
            after = in->value.data.string;
        else if (sy_info_is(in, PMIX_EVENT_AFFECTED_PROC) ||
                 sy_info_is(in, PMIX_EVENT_AFFECTED_PROCS))
            rc = copy_procs(&in->value, &h->affected, &h->naffected);
        else if (sy_info_is(in, PMIX_EVENT_RETURN_OBJECT) && in->value.type == PMIX_POINTER)
            h->return_object = in->value.data.ptr;
        else if (sy_info_is(in, PMIX_EVENT_ACTION_TIMEOUT))
            h->timeout = seconds_of(&in->value);
    }
    if (rc != PMIX_SUCCESS) {
        handler_free(h);
        return rc;
    }
    pthread_mutex_lock(&ev_lock);
    /* only one FIRST and one LAST handler may exist */
    for (handler_t *x = handlers; x != NULL && h->pos != POS_NORMAL; x = x->next) {
        if (x->pos == h->pos) {
            pthread_mutex_unlock(&ev_lock);
            handler_free(h);
            return PMIX_EXISTS;
        }
    }
    h->ref = next_ref++;
    insert(h, prepend, before, after);
    *ref = h->ref;
    *seen = counted;
    pthread_mutex_unlock(&ev_lock);
    return PMIX_SUCCESS;
}

typedef struct {
    pmix_status_t status;
    size_t ref;
    pmix_hdlr_reg_cbfunc_t cbfunc;
    void *cbdata;
} reg_done_t;

static void reg_done(void *arg)
{
    reg_done_t *d = arg;
    d->cbfunc(d->status, d->ref, d->cbdata);
    free(d);
}

PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    if (evhdlr == NULL || (codes == NULL && ncodes > 0) || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    size_t ref = 0;
    uint64_t seen = 0;
    pmix_status_t rc = do_register(codes, ncodes, info, ninfo, evhdlr, cbdata, &ref, &seen);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&ev_lock);
        sy_event_register_fn hook[SY_EVENT_ROUTES];
        memcpy(hook, register_hook, sizeof(hook));
        pthread_mutex_unlock(&ev_lock);
        for (unsigned k = 0; k < SY_EVENT_ROUTES; k++)
            if (hook[k] != NULL) /* events cached elsewhere may be owed to it */
                hook[k](ref, codes, ncodes, seen);
    }
    if (cbfunc == NULL) /* blocking form: the reference is the answer */
        return rc == PMIX_SUCCESS ? (pmix_status_t)PUBLIC_REF(ref) : rc;
    reg_done_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->status = rc;
    d->ref = rc == PMIX_SUCCESS ? PUBLIC_REF(ref) : SIZE_MAX;
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    if (sy_progress_post(p, reg_done, d) != PMIX_SUCCESS) {
        free(d);
        return PMIX_ERR_INIT;
    }
    return PMIX_SUCCESS;
}

typedef struct {
    pmix_status_t status;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} op_done_t;

static void op_done(void *arg)
{
    op_done_t *d = arg;
    if (d->cbfunc != NULL)
        d->cbfunc(d->status, d->cbdata);
    free(d);
}

static pmix_status_t post_op(pmix_status_t status, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    sy_progress_t *p = sy_runtime();
    op_done_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->status = status;
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    if (p == NULL || sy_progress_post(p, op_done, d) != PMIX_SUCCESS) {
        free(d);
        return PMIX_ERR_INIT;
    }
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata)
{
    if (sy_runtime() == NULL)
        return PMIX_ERR_INIT;
    handler_t *gone = NULL;
    pthread_mutex_lock(&ev_lock);
    for (handler_t **pp = &handlers; *pp != NULL; pp = &(*pp)->next) {
        if (PUBLIC_REF((*pp)->ref) == evhdlr_ref) {
            gone = *pp;
            *pp = gone->next;
            break;
        }
    }
    sy_event_deregister_fn hook[SY_EVENT_ROUTES];
    memcpy(hook, deregister_hook, sizeof(hook));
    pthread_mutex_unlock(&ev_lock);
    /* an id never given out: the standard's answer */
    pmix_status_t rc = gone != NULL ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
    if (gone != NULL) {
        for (unsigned k = 0; k < SY_EVENT_ROUTES; k++)
            if (hook[k] != NULL) /* whoever was told of the registration */
                hook[k](gone->ref, gone->codes, gone->ncodes);
        handler_free(gone);
    }
    if (cbfunc == NULL)
        return rc;
    return post_op(rc, cbfunc, cbdata);
}

/* ---- delivery ---- */

typedef struct {
    size_t ref;
    pmix_notification_fn_t fn;
    void *cbdata;
    void *return_object;
    int timeout;
} link_t;

typedef struct {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_info_t *info;
    size_t ninfo;
    pmix_info_t *results;
    size_t nresults;
    link_t *links;
    size_t nlinks, next;
    int timeout;             /* PMIX_EVENT_ACTION_TIMEOUT of the event, for handlers without one */
    pmix_status_t objection; /* the first answer that was not plain success */
    bool live;               /* not a replay to one handler */
    pmix_info_t *view;       /* info + the running handler's return object */
    /* what earlier handlers were given (views, results arrays): kept until
     * the chain is freed, as a handler may read them until it answers */
    void **old;
    size_t nold;
    pmix_info_t **old_results;
    size_t *old_nresults, nold_results;
    unsigned refs;         /* the chain itself + handlers that timed out and may still answer */
    sy_event_done_fn done; /* told when the chain has completed */
    void *done_arg;
} chain_t;

/* One handler running.  The handler gets the step's number, not a pointer,
 * as its completion cbdata: a completion that comes after the step timed
 * out, a second one, or one after finalize finds no step and is refused
 * harmlessly. */
typedef struct step {
    uintptr_t id;
    chain_t *c;
    sy_timer_t *timer; /* PMIX_EVENT_ACTION_TIMEOUT */
    bool timed_out;    /* the chain went on; the handler may still answer */
    struct step *next;
} step_t;

static step_t *steps; /* under ev_lock */
static uintptr_t next_step = 1;

static bool wants(const handler_t *h, pmix_status_t status, const pmix_proc_t *affected,
                  size_t naffected, bool non_default)
{
    if (h->codes == NULL) {
        if (non_default)
            return false;
    } else {
        bool hit = false;
        for (size_t i = 0; i < h->ncodes && !hit; i++)
            hit = h->codes[i] == status;
        if (!hit)
            return false;
    }
    if (h->affected == NULL)
        return true;
    for (size_t i = 0; i < h->naffected; i++)
        for (size_t j = 0; j < naffected; j++)
            if (PMIX_CHECK_NSPACE(h->affected[i].nspace, affected[j].nspace) &&
                (h->affected[i].rank == PMIX_RANK_WILDCARD ||
                 affected[j].rank == PMIX_RANK_WILDCARD || h->affected[i].rank == affected[j].rank))
                return true;
    return false;
}

static void chain_free(chain_t *c)
{
    free(c->view);
    for (size_t i = 0; i < c->nold; i++)
        free(c->old[i]);
    free(c->old);
    for (size_t i = 0; i < c->nold_results; i++)
        PMIX_INFO_FREE(c->old_results[i], c->old_nresults[i]);
    free(c->old_results);
    free(c->old_nresults);
    if (c->info != NULL)
        PMIX_INFO_FREE(c->info, c->ninfo);
    if (c->results != NULL)
        PMIX_INFO_FREE(c->results, c->nresults);
    free(c->links);
    free(c);
}

/* Drop one reference (under ev_lock); true when the chain must be freed. */
static bool chain_unref(chain_t *c)
{
    return --c->refs == 0;
}

static void chain_run(chain_t *c);

static void chain_free_cb(void *arg)
{
    chain_t *c = arg;
    if (c->done != NULL)
        c->done(c->done_arg);
    pthread_mutex_lock(&ev_lock);
    bool last = chain_unref(c);
    pthread_mutex_unlock(&ev_lock);
    if (last)
        chain_free(c);
}

/* Keep p until the chain is freed (a handler that timed out may still
 * read it). */
static void keep(chain_t *c, void *p)
{
    void **g = realloc(c->old, (c->nold + 1) * sizeof(*g));
    if (g == NULL) {
        free(p); /* only views come here: a leak is worse than a dangling view */
        return;
    }
    c->old = g;
    c->old[c->nold++] = p;
}

static void keep_results(chain_t *c)
{
    pmix_info_t **r = realloc(c->old_results, (c->nold_results + 1) * sizeof(*r));
    size_t *n = r != NULL ? realloc(c->old_nresults, (c->nold_results + 1) * sizeof(*n)) : NULL;
    if (r != NULL)
        c->old_results = r;
    if (n == NULL) {
        PMIX_INFO_FREE(c->results, c->nresults);
    } else {
        c->old_nresults = n;
        c->old_results[c->nold_results] = c->results;
        c->old_nresults[c->nold_results++] = c->nresults;
    }
    c->results = NULL;
    c->nresults = 0;
}

/* The running handler is done (answered, or timed out with results NULL):
 * its results go down the chain, which goes on or ends. */
static void chain_next(chain_t *c, pmix_status_t status, pmix_info_t *results, size_t nresults)
{
    if (results != NULL && nresults > 0) {
        pmix_info_t *all;
        PMIX_INFO_CREATE(all, c->nresults + nresults);
        if (all != NULL) {
            for (size_t i = 0; i < c->nresults; i++)
                PMIx_Info_xfer(&all[i], &c->results[i]);
            for (size_t i = 0; i < nresults; i++)
                PMIx_Info_xfer(&all[c->nresults + i], &results[i]);
            size_t n = c->nresults + nresults;
            if (c->results != NULL)
                keep_results(c);
            c->results = all;
            c->nresults = n;
        }
    }
    if (c->view != NULL) {
        keep(c, c->view);
        c->view = NULL;
    }
    if (status == PMIX_EVENT_ACTION_COMPLETE || c->next >= c->nlinks) {
        if (c->live)
            outcome(c->status, c->objection, c->results, c->nresults, c->info, c->ninfo);
        /* handlers may still read what they were given after answering
         * (OpenPMIx's own examples do): freed once the loop comes back */
        sy_progress_t *p = sy_runtime();
        if (p == NULL || sy_progress_post(p, chain_free_cb, c) != PMIX_SUCCESS)
            chain_free_cb(c);
        return;
    }
    chain_run(c);
}

/* Take step id out of the table (under ev_lock): NULL when it is not
 * running any more. */
static step_t *step_take(uintptr_t id, bool *late)
{
    *late = false;
    for (step_t **pp = &steps; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            step_t *st = *pp;
            *late = st->timed_out;
            *pp = st->next;
            return st;
        }
    }
    return NULL;
}

/* The completion a handler calls (pmix_event_notification_cbfunc_fn_t). */
static void chain_step(pmix_status_t status, pmix_info_t *results, size_t nresults,
                       pmix_op_cbfunc_t cbfunc, void *thiscbdata, void *notification_cbdata)
{
    bool late;
    pthread_mutex_lock(&ev_lock);
    step_t *st = step_take((uintptr_t)notification_cbdata, &late);
    chain_t *c = st != NULL ? st->c : NULL;
    bool free_chain = st != NULL && late && chain_unref(c);
    pthread_mutex_unlock(&ev_lock);
    if (st == NULL || late) {
        /* after its timeout (or twice): the chain did not wait; the
         * handler still learns we are done with its results */
        if (cbfunc != NULL)
            cbfunc(PMIX_ERR_TIMEOUT, thiscbdata);
        free(st);
        if (free_chain)
            chain_free(c);
        return;
    }
    if (st->timer != NULL)
        sy_timer_cancel(st->timer); /* whoever takes the step cancels */
    free(st);
    /* (a handler that timed out did not object: it decided nothing) */
    if (c->objection == PMIX_SUCCESS && status != PMIX_SUCCESS &&
        status != PMIX_EVENT_ACTION_COMPLETE)
        c->objection = status;
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, thiscbdata);
    chain_next(c, status, results, nresults);
}

/* A handler did not answer within its PMIX_EVENT_ACTION_TIMEOUT: the chain
 * goes on without its results (on the loop). */
static void step_timeout(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    pthread_mutex_lock(&ev_lock);
    step_t *st = NULL;
    for (step_t *x = steps; x != NULL; x = x->next)
        if (x->id == id && !x->timed_out)
            st = x;
    chain_t *c = NULL;
    size_t ref = 0;
    int secs = 0;
    if (st != NULL) {
        /* the step stays listed so that a late answer is recognised; it
         * holds the chain (and what the handler was given) until then */
        st->timed_out = true;
        c = st->c;
        c->refs++;
        ref = c->links[c->next - 1].ref;
        secs = c->links[c->next - 1].timeout > 0 ? c->links[c->next - 1].timeout : c->timeout;
        sy_timer_cancel(st->timer);
        st->timer = NULL;
    }
    pthread_mutex_unlock(&ev_lock);
    if (c == NULL)
        return;
    sy_log(SY_LOG_INFO, "event %s: handler %zu did not answer within %d s; the chain goes on",
           PMIx_Error_string(c->status), PUBLIC_REF(ref), secs);
    chain_next(c, PMIX_ERR_TIMEOUT, NULL, 0);
}

static void chain_run(chain_t *c)
{
    link_t *l = &c->links[c->next++];
    pmix_info_t *info = c->info;
    size_t ninfo = c->ninfo;
    if (l->return_object != NULL) {
        /* a shallow view: the entries stay c->info's */
        c->view = calloc(c->ninfo + 1, sizeof(pmix_info_t));
        if (c->view != NULL) {
            if (c->ninfo > 0)
                memcpy(c->view, c->info, c->ninfo * sizeof(pmix_info_t));
            PMIX_LOAD_KEY(c->view[c->ninfo].key, PMIX_EVENT_RETURN_OBJECT);
            c->view[c->ninfo].value.type = PMIX_POINTER;
            c->view[c->ninfo].value.data.ptr = l->return_object;
            info = c->view;
            ninfo = c->ninfo + 1;
        }
    }
    step_t *st = calloc(1, sizeof(*st));
    if (st == NULL) {
        chain_next(c, PMIX_ERR_NOMEM, NULL, 0); /* skip it rather than hang */
        return;
    }
    st->c = c;
    int secs = l->timeout > 0 ? l->timeout : c->timeout;
    sy_progress_t *p = secs > 0 ? sy_runtime() : NULL; /* not under ev_lock: lock order */
    pthread_mutex_lock(&ev_lock);
    st->id = next_step++;
    st->next = steps;
    steps = st;
    if (secs > 0 && p != NULL &&
        sy_progress_timer(p, secs, step_timeout, (void *)st->id, &st->timer) != PMIX_SUCCESS)
        st->timer = NULL;
    uintptr_t id = st->id;
    pthread_mutex_unlock(&ev_lock);
    l->fn(PUBLIC_REF(l->ref), c->status, &c->source, info, ninfo, c->results, c->nresults,
          chain_step, (void *)id);
}

/* The last role is gone: registrations, and handlers still running or
 * timed out (their chains are dropped; an answer that comes later finds no
 * step).  Called before the runtime is destroyed, so no step timer fires
 * any more. */
void sy_event_clear(void)
{
    pthread_mutex_lock(&ev_lock);
    while (handlers != NULL) {
        handler_t *h = handlers;
        handlers = h->next;
        handler_free(h);
    }
    while (steps != NULL) {
        step_t *st = steps;
        steps = st->next;
        if (st->timer != NULL)
            sy_timer_cancel(st->timer);
        /* a running step holds its chain's own reference, a timed-out one
         * the reference it took (chain_free takes no lock) */
        if (chain_unref(st->c))
            chain_free(st->c);
        free(st);
    }
    memset(forwarder, 0, sizeof(forwarder));
    memset(register_hook, 0, sizeof(register_hook));
    memset(deregister_hook, 0, sizeof(deregister_hook));
    outcome_hook = NULL;
    counted = 0; /* a next init numbers a new connection's events */
    pthread_mutex_unlock(&ev_lock);
}

static void affected_of(const pmix_info_t *info, size_t ninfo, const pmix_proc_t **procs, size_t *n,
                        bool *non_default)
{
    *procs = NULL;
    *n = 0;
    *non_default = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (sy_info_is(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            *procs = info[i].value.data.proc;
            *n = 1;
        } else if (sy_info_is(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL &&
                   info[i].value.data.darray->type == PMIX_PROC) {
            *procs = info[i].value.data.darray->array;
            *n = info[i].value.data.darray->size;
        } else if (sy_info_is(&info[i], PMIX_EVENT_NON_DEFAULT) && sy_info_true(&info[i])) {
            *non_default = true;
        }
    }
}

static void deliver(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                    size_t ninfo, size_t only_ref, bool count, sy_event_done_fn done,
                    void *done_arg);

static void deliver_live(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                         size_t ninfo, bool count)
{
    pthread_mutex_lock(&ev_lock);
    sy_event_intercept_fn fn = intercept;
    pthread_mutex_unlock(&ev_lock);
    if (fn != NULL && fn(status, source, info, ninfo)) {
        if (count) { /* no handler gets it, and none is owed a replay of it */
            pthread_mutex_lock(&ev_lock);
            counted++;
            pthread_mutex_unlock(&ev_lock);
        }
        return;
    }
    deliver(status, source, info, ninfo, 0, count, NULL, NULL);
}

void sy_event_deliver(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                      const pmix_info_t info[], size_t ninfo)
{
    (void)range;
    deliver_live(status, source, info, ninfo, false);
}

void sy_event_deliver_counted(pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
    (void)range;
    deliver_live(status, source, info, ninfo, true);
}

void sy_event_deliver_cb(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                         size_t ninfo, sy_event_done_fn done, void *arg)
{
    deliver(status, source, info, ninfo, 0, false, done, arg);
}

void sy_event_deliver_to(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t info[], size_t ninfo)
{
    if (ref != 0)
        deliver(status, source, info, ninfo, ref, false, NULL, NULL);
}

/* only_ref != 0: to that handler alone (a cached event replayed for a
 * registration that came after it). */
static void deliver(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                    size_t ninfo, size_t only_ref, bool count, sy_event_done_fn done,
                    void *done_arg)
{
    const pmix_proc_t *affected;
    size_t naffected;
    bool non_default;
    affected_of(info, ninfo, &affected, &naffected, &non_default);
    chain_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        pthread_mutex_lock(&ev_lock);
        counted += count; /* lost to every handler alike */
        pthread_mutex_unlock(&ev_lock);
        if (done != NULL)
            done(done_arg);
        return;
    }
    c->done = done;
    c->done_arg = done_arg;
    c->status = status;
    c->refs = 1;
    for (size_t i = 0; i < ninfo && info != NULL; i++)
        if (sy_info_is(&info[i], PMIX_EVENT_ACTION_TIMEOUT))
            c->timeout = seconds_of(&info[i].value);
    if (source != NULL)
        c->source = *source;
    pthread_mutex_lock(&ev_lock);
    /* the handlers chosen below are the ones a registration counted it for */
    if (count)
        counted++;
    size_t n = 0;
    for (handler_t *h = handlers; h != NULL; h = h->next)
        n++;
    c->links = calloc(n ? n : 1, sizeof(link_t));
    /* FIRST, then the categories of Chap_API_Event.tex (single-code,
     * multi-code, default handlers; PREPEND/APPEND order each), LAST */
    for (int pass = 0; pass < 5 && c->links != NULL; pass++) {
        for (handler_t *h = handlers; h != NULL; h = h->next) {
            bool in_pass = (pass == 0 && h->pos == POS_FIRST) ||
                           (pass == 1 && h->pos == POS_NORMAL && h->ncodes == 1) ||
                           (pass == 2 && h->pos == POS_NORMAL && h->ncodes > 1) ||
                           (pass == 3 && h->pos == POS_NORMAL && h->codes == NULL) ||
                           (pass == 4 && h->pos == POS_LAST);
            if (in_pass && (only_ref == 0 || h->ref == only_ref) &&
                wants(h, status, affected, naffected, non_default))
                c->links[c->nlinks++] =
                    (link_t){h->ref, h->fn, h->cbdata, h->return_object, h->timeout};
        }
    }
    pthread_mutex_unlock(&ev_lock);
    if (c->nlinks == 0) {
        chain_free_cb(c);
        if (only_ref == 0)
            outcome(status, PMIX_SUCCESS, NULL, 0, info, ninfo);
        return;
    }
    c->live = only_ref == 0;
    if (ninfo > 0 && info != NULL) {
        PMIX_INFO_CREATE(c->info, ninfo);
        if (c->info != NULL) {
            c->ninfo = ninfo;
            for (size_t i = 0; i < ninfo; i++)
                PMIx_Info_xfer(&c->info[i], &info[i]);
        }
    }
    chain_run(c);
}

/* ---- PMIx_Notify_event ---- */

typedef struct {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info;
    size_t ninfo;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} notify_t;

static void notify_on_loop(void *arg)
{
    notify_t *n = arg;
    pthread_mutex_lock(&ev_lock);
    sy_event_forward_fn fwd[SY_EVENT_ROUTES];
    memcpy(fwd, forwarder, sizeof(fwd));
    pthread_mutex_unlock(&ev_lock);
    /* this process is in every range but RM */
    if (n->range != PMIX_RANGE_RM)
        sy_event_deliver(n->status, &n->source, n->range, n->info, n->ninfo);
    for (unsigned k = 0; k < SY_EVENT_ROUTES; k++)
        if (n->range != PMIX_RANGE_PROC_LOCAL && fwd[k] != NULL)
            fwd[k](n->status, &n->source, n->range, n->info, n->ninfo);
    if (n->cbfunc != NULL)
        n->cbfunc(PMIX_SUCCESS, n->cbdata);
    if (n->info != NULL)
        PMIX_INFO_FREE(n->info, n->ninfo);
    free(n);
}

PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
                                            pmix_data_range_t range, const pmix_info_t info[],
                                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    notify_t *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return PMIX_ERR_NOMEM;
    n->status = status;
    pthread_mutex_lock(&ev_lock);
    n->source = source != NULL ? *source : self_proc;
    pthread_mutex_unlock(&ev_lock);
    n->range = range;
    n->cbfunc = cbfunc;
    n->cbdata = cbdata;
    if (ninfo > 0) {
        PMIX_INFO_CREATE(n->info, ninfo);
        if (n->info == NULL) {
            free(n);
            return PMIX_ERR_NOMEM;
        }
        n->ninfo = ninfo;
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&n->info[i], &info[i]);
    }
    if (sy_progress_post(p, notify_on_loop, n) != PMIX_SUCCESS) {
        if (n->info != NULL)
            PMIX_INFO_FREE(n->info, n->ninfo);
        free(n);
        return PMIX_ERR_INIT;
    }
    return PMIX_SUCCESS;
}
