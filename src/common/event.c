/* The event handler registry and delivery chain (event.h), and the public
 * PMIx_Register_event_handler / PMIx_Deregister_event_handler /
 * PMIx_Notify_event shared by every role. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/event.h"
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
    struct handler *next;
} handler_t;

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static handler_t *handlers; /* in chain order, FIRST/LAST placed at delivery */
static size_t next_ref = 1;
static sy_event_forward_fn forwarder;
static sy_event_register_fn register_hook;
static pmix_proc_t self_proc;
static sy_event_intercept_fn intercept;

void sy_event_set_forwarder(sy_event_forward_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    forwarder = fn;
    pthread_mutex_unlock(&ev_lock);
}

void sy_event_set_register_hook(sy_event_register_fn fn)
{
    pthread_mutex_lock(&ev_lock);
    register_hook = fn;
    pthread_mutex_unlock(&ev_lock);
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

void sy_event_clear(void)
{
    pthread_mutex_lock(&ev_lock);
    while (handlers != NULL) {
        handler_t *h = handlers;
        handlers = h->next;
        handler_free(h);
    }
    forwarder = NULL;
    register_hook = NULL;
    pthread_mutex_unlock(&ev_lock);
}

static bool is(const pmix_info_t *i, const char *key)
{
    return strncmp(i->key, key, PMIX_MAX_KEYLEN) == 0;
}

static bool flag(const pmix_info_t *i)
{
    return i->value.type != PMIX_BOOL || i->value.data.flag;
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
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
        v->data.darray->type == PMIX_PROC) {
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
                                 size_t ninfo, pmix_notification_fn_t fn, void *cbdata,
                                 size_t *ref)
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
        if (is(in, PMIX_EVENT_HDLR_NAME) && in->value.type == PMIX_STRING)
            h->name = in->value.data.string ? strdup(in->value.data.string) : NULL;
        else if (is(in, PMIX_EVENT_HDLR_FIRST) && flag(in))
            h->pos = POS_FIRST;
        else if (is(in, PMIX_EVENT_HDLR_LAST) && flag(in))
            h->pos = POS_LAST;
        else if (is(in, PMIX_EVENT_HDLR_PREPEND) && flag(in))
            prepend = true;
        else if (is(in, PMIX_EVENT_HDLR_BEFORE) && in->value.type == PMIX_STRING)
            before = in->value.data.string;
        else if (is(in, PMIX_EVENT_HDLR_AFTER) && in->value.type == PMIX_STRING)
            after = in->value.data.string;
        else if (is(in, PMIX_EVENT_AFFECTED_PROC) || is(in, PMIX_EVENT_AFFECTED_PROCS))
            rc = copy_procs(&in->value, &h->affected, &h->naffected);
        else if (is(in, PMIX_EVENT_RETURN_OBJECT) && in->value.type == PMIX_POINTER)
            h->return_object = in->value.data.ptr;
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
    pmix_status_t rc = do_register(codes, ncodes, info, ninfo, evhdlr, cbdata, &ref);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&ev_lock);
        sy_event_register_fn hook = register_hook;
        pthread_mutex_unlock(&ev_lock);
        if (hook != NULL) /* events cached elsewhere may be owed to it */
            hook(ref, codes, ncodes);
    }
    if (cbfunc == NULL) /* blocking form: the reference is the answer */
        return rc == PMIX_SUCCESS ? (pmix_status_t)ref : rc;
    reg_done_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->status = rc;
    d->ref = ref;
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
        if ((*pp)->ref == evhdlr_ref) {
            gone = *pp;
            *pp = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&ev_lock);
    pmix_status_t rc = gone != NULL ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
    if (gone != NULL)
        handler_free(gone);
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
    pmix_info_t *view; /* info + the running handler's return object */
    pmix_info_t **old_views; /* earlier handlers' views, kept until the end */
    size_t nold;
    sy_event_done_fn done; /* told when the chain has completed */
    void *done_arg;
} chain_t;

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
        free(c->old_views[i]);
    free(c->old_views);
    if (c->info != NULL)
        PMIX_INFO_FREE(c->info, c->ninfo);
    if (c->results != NULL)
        PMIX_INFO_FREE(c->results, c->nresults);
    free(c->links);
    free(c);
}

static void chain_run(chain_t *c);

static void chain_free_cb(void *arg)
{
    chain_t *c = arg;
    if (c->done != NULL)
        c->done(c->done_arg);
    chain_free(c);
}

/* A handler is done: its results go down the chain. */
static void chain_step(pmix_status_t status, pmix_info_t *results, size_t nresults,
                       pmix_op_cbfunc_t cbfunc, void *thiscbdata, void *notification_cbdata)
{
    chain_t *c = notification_cbdata;
    if (results != NULL && nresults > 0) {
        pmix_info_t *all;
        PMIX_INFO_CREATE(all, c->nresults + nresults);
        if (all != NULL) {
            for (size_t i = 0; i < c->nresults; i++)
                PMIx_Info_xfer(&all[i], &c->results[i]);
            for (size_t i = 0; i < nresults; i++)
                PMIx_Info_xfer(&all[c->nresults + i], &results[i]);
            if (c->results != NULL)
                PMIX_INFO_FREE(c->results, c->nresults);
            c->results = all;
            c->nresults += nresults;
        }
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, thiscbdata);
    if (c->view != NULL) {
        pmix_info_t **g = realloc(c->old_views, (c->nold + 1) * sizeof(*g));
        if (g != NULL) {
            c->old_views = g;
            c->old_views[c->nold++] = c->view;
        } else {
            free(c->view);
        }
        c->view = NULL;
    }
    if (status == PMIX_EVENT_ACTION_COMPLETE || c->next >= c->nlinks) {
        /* handlers may still read what they were given after answering
         * (OpenPMIx's own examples do): freed once the loop comes back */
        sy_progress_t *p = sy_runtime();
        if (p == NULL || sy_progress_post(p, chain_free_cb, c) != PMIX_SUCCESS)
            chain_free_cb(c);
        return;
    }
    chain_run(c);
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
    l->fn(l->ref, c->status, &c->source, info, ninfo, c->results, c->nresults, chain_step, c);
}

static void affected_of(const pmix_info_t *info, size_t ninfo, const pmix_proc_t **procs,
                        size_t *n, bool *non_default)
{
    *procs = NULL;
    *n = 0;
    *non_default = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (is(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            *procs = info[i].value.data.proc;
            *n = 1;
        } else if (is(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL &&
                   info[i].value.data.darray->type == PMIX_PROC) {
            *procs = info[i].value.data.darray->array;
            *n = info[i].value.data.darray->size;
        } else if (is(&info[i], PMIX_EVENT_NON_DEFAULT) && flag(&info[i])) {
            *non_default = true;
        }
    }
}

static void deliver(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                    size_t ninfo, size_t only_ref, sy_event_done_fn done, void *done_arg);

void sy_event_deliver(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                      const pmix_info_t info[], size_t ninfo)
{
    (void)range;
    pthread_mutex_lock(&ev_lock);
    sy_event_intercept_fn fn = intercept;
    pthread_mutex_unlock(&ev_lock);
    if (fn != NULL && fn(status, source, info, ninfo))
        return;
    deliver(status, source, info, ninfo, 0, NULL, NULL);
}

void sy_event_deliver_cb(pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t info[], size_t ninfo, sy_event_done_fn done,
                         void *arg)
{
    deliver(status, source, info, ninfo, 0, done, arg);
}

void sy_event_deliver_to(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t info[], size_t ninfo)
{
    if (ref != 0)
        deliver(status, source, info, ninfo, ref, NULL, NULL);
}

/* only_ref != 0: to that handler alone (a cached event replayed for a
 * registration that came after it). */
static void deliver(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                    size_t ninfo, size_t only_ref, sy_event_done_fn done, void *done_arg)
{
    const pmix_proc_t *affected;
    size_t naffected;
    bool non_default;
    affected_of(info, ninfo, &affected, &naffected, &non_default);
    chain_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        if (done != NULL)
            done(done_arg);
        return;
    }
    c->done = done;
    c->done_arg = done_arg;
    c->status = status;
    if (source != NULL)
        c->source = *source;
    pthread_mutex_lock(&ev_lock);
    size_t n = 0;
    for (handler_t *h = handlers; h != NULL; h = h->next)
        n++;
    c->links = calloc(n ? n : 1, sizeof(link_t));
    /* FIRST, specific, default, LAST */
    for (int pass = 0; pass < 4 && c->links != NULL; pass++) {
        for (handler_t *h = handlers; h != NULL; h = h->next) {
            bool in_pass = (pass == 0 && h->pos == POS_FIRST) ||
                           (pass == 1 && h->pos == POS_NORMAL && h->codes != NULL) ||
                           (pass == 2 && h->pos == POS_NORMAL && h->codes == NULL) ||
                           (pass == 3 && h->pos == POS_LAST);
            if (in_pass && (only_ref == 0 || h->ref == only_ref) &&
                wants(h, status, affected, naffected, non_default))
                c->links[c->nlinks++] = (link_t){h->ref, h->fn, h->cbdata, h->return_object};
        }
    }
    pthread_mutex_unlock(&ev_lock);
    if (c->nlinks == 0) {
        chain_free_cb(c);
        return;
    }
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
    sy_event_forward_fn fwd = forwarder;
    pthread_mutex_unlock(&ev_lock);
    /* this process is in every range but RM */
    if (n->range != PMIX_RANGE_RM)
        sy_event_deliver(n->status, &n->source, n->range, n->info, n->ninfo);
    if (n->range != PMIX_RANGE_PROC_LOCAL && fwd != NULL)
        fwd(n->status, &n->source, n->range, n->info, n->ninfo);
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
