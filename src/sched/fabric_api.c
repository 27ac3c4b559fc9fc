/* PMIx_Fabric_register / update / deregister (+ _nb) for every role, and
 * the fabric update protocol (Chap_API_Fabric.tex): PMIX_FABRIC_UPDATE_PENDING
 * goes down this process's handler chain; once the chain completed, every
 * registered pmix_fabric_t gets its new data; then PMIX_FABRIC_UPDATED.
 *
 * Each registration keeps what it was asked with (index, plane,
 * directives) so that updates go through the same route.  Its info array
 * and, for data that came by value, its copy of the cost matrix are
 * library memory freed at deregistration, at an update, or when the last
 * role finalizes (the pmix_fabric_t is then emptied).  A matrix a client
 * mapped from its server's memfd is such a copy too, unmapped instead of
 * freed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pmix.h>

#include "common/info.h"
#include "common/datatype.h"
#include "common/event.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "common/sync.h"
#include "sched/sched.h"
#include "switchyard.h"

typedef struct reg {
    pmix_fabric_t *fabric; /* NULL once deregistered (the struct may linger) */
    size_t index;
    pmix_info_t *dirs; /* the registration's directives */
    size_t ndirs;
    void *owned;            /* our copy of the cost matrix, or NULL */
    unsigned busy;          /* route requests in flight for it */
    pmix_info_t *next_info; /* update protocol: data waiting for the swap */
    size_t next_ninfo;
    pmix_status_t next_status;
    struct reg *next;
} reg_t;

static reg_t *regs;
static sy_fabric_route_fn routes[2];

/* Matrices the route handed over as mappings (sy_fabric_adopt_mapping),
 * until they are unmapped. */
typedef struct mapped {
    void *p;
    size_t size;
    struct mapped *next;
} mapped_t;
static mapped_t *mappings;
/* (the loop's, but a client's reply may come on the thread that saw its
 * connection die) */
static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;

/* the update protocol */
static bool upd_running, upd_again;
static size_t upd_waiting;
static pmix_proc_t upd_source;
static pmix_info_t *upd_info;
static size_t upd_ninfo;

static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;

static sy_fabric_route_fn route(void)
{
    pthread_mutex_lock(&route_lock);
    sy_fabric_route_fn fn = routes[SY_FABRIC_ROUTE_SERVER] != NULL ? routes[SY_FABRIC_ROUTE_SERVER]
                                                                   : routes[SY_FABRIC_ROUTE_CLIENT];
    pthread_mutex_unlock(&route_lock);
    return fn;
}

/* *out is NULL when there is nothing to copy. */
static pmix_status_t copy_infos(const pmix_info_t *src, size_t n, pmix_info_t **out)
{
    return sy_array_copy((void **)out, src, n, PMIX_INFO);
}

void sy_fabric_adopt_mapping(pmix_info_t *e, void *map, size_t size)
{
    mapped_t *m = malloc(sizeof(*m));
    PMIX_INFO_DESTRUCT(e);
    PMIX_LOAD_KEY(e->key, PMIX_FABRIC_COST_MATRIX);
    if (m == NULL) {
        munmap(map, size); /* no record: no matrix */
        e->value.type = PMIX_UNDEF;
        return;
    }
    m->p = map;
    m->size = size;
    pthread_mutex_lock(&mappings_lock);
    m->next = mappings;
    mappings = m;
    pthread_mutex_unlock(&mappings_lock);
    e->value.type = PMIX_POINTER;
    e->value.data.ptr = map;
}

/* The record of mapping p, taken out of the list; NULL for other memory. */
static mapped_t *take_mapping(const void *p)
{
    mapped_t *m = NULL;
    pthread_mutex_lock(&mappings_lock);
    for (mapped_t **pp = &mappings; p != NULL && *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->p == p) {
            m = *pp;
            *pp = m->next;
            break;
        }
    pthread_mutex_unlock(&mappings_lock);
    return m;
}

/* Our copy of a matrix: unmapped, or freed. */
static void matrix_free(void *p)
{
    mapped_t *m = take_mapping(p);
    if (m == NULL) {
        free(p);
        return;
    }
    munmap(m->p, m->size);
    free(m);
}

/* A route's answer that is not installed: with the mapping it may hold
 * (another pointer, e.g. the engine's own matrix, is not ours). */
static void answer_free(pmix_info_t *info, size_t ninfo)
{
    if (info == NULL)
        return;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_COST_MATRIX) &&
            info[i].value.type == PMIX_POINTER) {
            mapped_t *m = take_mapping(info[i].value.data.ptr);
            if (m != NULL) {
                munmap(m->p, m->size);
                free(m);
            }
        }
    PMIX_INFO_FREE(info, ninfo);
}

/* Release what the registration put in its pmix_fabric_t. */
static void clear_fabric(reg_t *r)
{
    if (r->fabric != NULL) {
        if (r->fabric->info != NULL)
            PMIX_INFO_FREE(r->fabric->info, r->fabric->ninfo);
        r->fabric->info = NULL;
        r->fabric->ninfo = 0;
        r->fabric->module = NULL;
    }
    matrix_free(r->owned);
    r->owned = NULL;
}

static void reg_free(reg_t *r)
{
    clear_fabric(r);
    if (r->dirs != NULL)
        PMIX_INFO_FREE(r->dirs, r->ndirs);
    answer_free(r->next_info, r->next_ninfo);
    free(r);
}

static void unlink_reg(reg_t *r)
{
    for (reg_t **pp = &regs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            return;
        }
}

static reg_t *find_reg(const pmix_fabric_t *f)
{
    for (reg_t *r = regs; r != NULL; r = r->next)
        if (r->fabric == f && f->module == r)
            return r;
    return NULL;
}

/* SWITCHYARD_FABRIC_BY_VALUE among the registration's directives. */
static bool by_value(const reg_t *r)
{
    for (size_t i = 0; i < r->ndirs; i++)
        if (PMIX_CHECK_KEY(&r->dirs[i], SWITCHYARD_FABRIC_BY_VALUE))
            return sy_info_true(&r->dirs[i]);
    return false;
}

/* Install a route's answer in the registration: the matrix, if it came by
 * value, becomes a pointer to our own copy (unless the caller asked for
 * the byte object). */
static void install(reg_t *r, pmix_info_t *info, size_t ninfo)
{
    void *owned = NULL;
    bool keep_bytes = by_value(r);
    for (size_t i = 0; i < ninfo; i++) {
        pmix_info_t *e = &info[i];
        mapped_t *m = PMIX_CHECK_KEY(e, PMIX_FABRIC_COST_MATRIX) && e->value.type == PMIX_POINTER
                          ? take_mapping(e->value.data.ptr)
                          : NULL;
        if (m != NULL && keep_bytes) {
            /* a byte object is malloc'd memory, freed with the infos */
            void *copy = malloc(m->size);
            if (copy != NULL)
                memcpy(copy, m->p, m->size);
            munmap(m->p, m->size);
            e->value.type = copy != NULL ? PMIX_BYTE_OBJECT : PMIX_UNDEF;
            e->value.data.bo.bytes = copy;
            e->value.data.bo.size = copy != NULL ? m->size : 0;
            free(m);
        } else if (m != NULL) {
            /* ours until matrix_free */
            pthread_mutex_lock(&mappings_lock);
            m->next = mappings;
            mappings = m;
            pthread_mutex_unlock(&mappings_lock);
            owned = m->p;
        } else if (PMIX_CHECK_KEY(e, PMIX_FABRIC_COST_MATRIX) &&
                   e->value.type == PMIX_BYTE_OBJECT && !keep_bytes) {
            owned = e->value.data.bo.bytes;
            e->value.data.bo.bytes = NULL;
            e->value.data.bo.size = 0;
            e->value.type = PMIX_POINTER;
            e->value.data.ptr = owned;
        } else if (PMIX_CHECK_KEY(e, PMIX_FABRIC_INDEX) && e->value.type == PMIX_SIZE) {
            r->index = e->value.data.size;
        }
    }
    clear_fabric(r);
    r->owned = owned;
    r->fabric->info = info;
    r->fabric->ninfo = ninfo;
    r->fabric->index = r->index;
    r->fabric->module = r;
}

/* The directives of an update: the fabric's index first, then what the
 * registration was made with (plane, vendor, ...). */
static pmix_status_t update_dirs(const reg_t *r, pmix_info_t **out, size_t *n)
{
    *n = r->ndirs + 1;
    PMIX_INFO_CREATE(*out, *n);
    if (*out == NULL)
        return PMIX_ERR_NOMEM;
    PMIx_Info_load(&(*out)[0], PMIX_FABRIC_INDEX, &r->index, PMIX_SIZE);
    for (size_t i = 0; i < r->ndirs; i++)
        PMIx_Info_xfer(&(*out)[i + 1], &r->dirs[i]);
    return PMIX_SUCCESS;
}

/* ---- requests of the API, on the loop ---- */

typedef enum { OP_REGISTER, OP_UPDATE, OP_DEREGISTER } api_op_t;

typedef struct {
    api_op_t op;
    pmix_fabric_t *fabric;
    pmix_info_t *dirs;
    size_t ndirs;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    reg_t *reg;
    /* blocking callers */
    sy_sync_t *sync;
} api_req_t;

static void api_done(api_req_t *q, pmix_status_t status)
{
    if (q->cbfunc != NULL)
        q->cbfunc(status, q->cbdata);
    if (q->dirs != NULL)
        PMIX_INFO_FREE(q->dirs, q->ndirs);
    free(q);
}

static void api_reply(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *arg)
{
    api_req_t *q = arg;
    reg_t *r = q->reg;
    r->busy--;
    if (r->fabric == NULL) {
        /* deregistered meanwhile */
        answer_free(info, ninfo);
        if (r->busy == 0)
            reg_free(r);
        api_done(q, PMIX_ERR_INVALID_OPERATION);
        return;
    }
    if (status == PMIX_SUCCESS) {
        install(r, info, ninfo);
    } else {
        answer_free(info, ninfo);
        if (q->op == OP_REGISTER) {
            unlink_reg(r);
            r->fabric->module = NULL;
            r->fabric = NULL;
            if (r->busy == 0)
                reg_free(r);
        }
    }
    api_done(q, status);
}

static void api_on_loop(void *arg)
{
    api_req_t *q = arg;
    sy_fabric_route_fn fn = route();
    pmix_status_t rc;
    if (fn == NULL) {
        api_done(q, PMIX_ERR_INIT);
        return;
    }
    if (q->op == OP_REGISTER) {
        if (find_reg(q->fabric) != NULL) {
            api_done(q, PMIX_ERR_BAD_PARAM); /* already registered */
            return;
        }
        reg_t *r = calloc(1, sizeof(*r));
        if (r == NULL) {
            api_done(q, PMIX_ERR_NOMEM);
            return;
        }
        r->fabric = q->fabric;
        r->dirs = q->dirs;
        r->ndirs = q->ndirs;
        q->dirs = NULL;
        q->ndirs = 0;
        r->next = regs;
        regs = r;
        q->reg = r;
        r->busy++;
        q->fabric->module = r;
        rc = fn(NULL, PMIX_FABRIC_REQUEST_INFO, r->dirs, r->ndirs, api_reply, q);
        if (rc != PMIX_SUCCESS) {
            r->busy--;
            unlink_reg(r);
            r->fabric->module = NULL;
            r->fabric = NULL;
            reg_free(r);
            api_done(q, rc);
        }
        return;
    }
    reg_t *r = find_reg(q->fabric);
    if (r == NULL) {
        api_done(q, PMIX_ERR_BAD_PARAM);
        return;
    }
    if (q->op == OP_DEREGISTER) {
        unlink_reg(r);
        clear_fabric(r);
        r->fabric = NULL;
        if (r->busy == 0)
            reg_free(r);
        api_done(q, PMIX_SUCCESS);
        return;
    }
    pmix_info_t *dirs;
    size_t ndirs;
    rc = update_dirs(r, &dirs, &ndirs);
    if (rc == PMIX_SUCCESS) {
        q->reg = r;
        r->busy++;
        rc = fn(NULL, PMIX_FABRIC_UPDATE_INFO, dirs, ndirs, api_reply, q);
        PMIX_INFO_FREE(dirs, ndirs);
        if (rc != PMIX_SUCCESS)
            r->busy--;
    }
    if (rc != PMIX_SUCCESS)
        api_done(q, rc);
}

static pmix_status_t api_start(api_op_t op, pmix_fabric_t *fabric, const pmix_info_t dirs[],
                               size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (fabric == NULL || (dirs == NULL && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    sy_progress_t *p = sy_runtime();
    if (p == NULL)
        return PMIX_ERR_INIT;
    api_req_t *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return PMIX_ERR_NOMEM;
    q->op = op;
    q->fabric = fabric;
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    pmix_status_t rc = copy_infos(dirs, ndirs, &q->dirs);
    if (rc == PMIX_SUCCESS) {
        q->ndirs = q->dirs != NULL ? ndirs : 0;
        rc = sy_progress_post(p, api_on_loop, q);
    }
    if (rc != PMIX_SUCCESS) {
        if (q->dirs != NULL)
            PMIX_INFO_FREE(q->dirs, q->ndirs);
        free(q);
    }
    return rc;
}

static void sync_done(pmix_status_t status, void *cbdata)
{
    sy_sync_signal(cbdata, status, NULL);
}

static pmix_status_t api_wait(api_op_t op, pmix_fabric_t *fabric, const pmix_info_t dirs[],
                              size_t ndirs)
{
    sy_sync_t s;
    if (sy_sync_init(&s) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = api_start(op, fabric, dirs, ndirs, sync_done, &s);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&s, sy_runtime());
    sy_sync_destroy(&s);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return api_start(OP_REGISTER, fabric, directives, ndirs, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric,
                                               const pmix_info_t directives[], size_t ndirs)
{
    return api_wait(OP_REGISTER, fabric, directives, ndirs);
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc,
                                                void *cbdata)
{
    return api_start(OP_UPDATE, fabric, NULL, 0, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric)
{
    return api_wait(OP_UPDATE, fabric, NULL, 0);
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc,
                                                    void *cbdata)
{
    return api_start(OP_DEREGISTER, fabric, NULL, 0, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric)
{
    return api_wait(OP_DEREGISTER, fabric, NULL, 0);
}

/* ---- the update protocol ---- */

static void upd_start(void);

static void upd_finish(void)
{
    /* every answer is in: swap, then tell the handlers */
    for (reg_t *r = regs; r != NULL; r = r->next) {
        if (r->next_status == PMIX_SUCCESS && r->next_info != NULL)
            install(r, r->next_info, r->next_ninfo);
        else
            answer_free(r->next_info, r->next_ninfo);
        r->next_info = NULL;
        r->next_ninfo = 0;
    }
    sy_event_deliver_cb(PMIX_FABRIC_UPDATED, &upd_source, upd_info, upd_ninfo, NULL, NULL);
    if (upd_info != NULL)
        PMIX_INFO_FREE(upd_info, upd_ninfo);
    upd_ninfo = 0;
    upd_running = false;
    if (upd_again) {
        upd_again = false;
        upd_start();
    }
}

static void upd_reply(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *arg)
{
    reg_t *r = arg;
    r->busy--;
    if (r->fabric == NULL) {
        answer_free(info, ninfo);
        if (r->busy == 0)
            reg_free(r);
    } else {
        answer_free(r->next_info, r->next_ninfo);
        r->next_status = status;
        r->next_info = info;
        r->next_ninfo = info != NULL ? ninfo : 0;
    }
    if (--upd_waiting == 0)
        upd_finish();
}

/* The PENDING chain completed: the data may change now. */
static void upd_after_pending(void *arg)
{
    (void)arg;
    if (sy_sched_active())
        sy_sched_apply_pending();
    sy_fabric_route_fn fn = route();
    upd_waiting = 1; /* held until every request went out */
    for (reg_t *r = regs; r != NULL && fn != NULL; r = r->next) {
        pmix_info_t *dirs;
        size_t ndirs;
        r->next_status = PMIX_ERR_NOT_AVAILABLE;
        if (update_dirs(r, &dirs, &ndirs) != PMIX_SUCCESS)
            continue;
        r->busy++;
        upd_waiting++;
        pmix_status_t rc = fn(NULL, PMIX_FABRIC_UPDATE_INFO, dirs, ndirs, upd_reply, r);
        PMIX_INFO_FREE(dirs, ndirs);
        if (rc != PMIX_SUCCESS) {
            r->busy--;
            upd_waiting--;
        }
    }
    if (--upd_waiting == 0)
        upd_finish();
}

static void upd_start(void)
{
    upd_running = true;
    pmix_info_t *info = NULL;
    if (copy_infos(upd_info, upd_ninfo, &info) != PMIX_SUCCESS)
        info = NULL;
    sy_event_deliver_cb(PMIX_FABRIC_UPDATE_PENDING, &upd_source, info, info != NULL ? upd_ninfo : 0,
                        upd_after_pending, NULL);
    if (info != NULL)
        PMIX_INFO_FREE(info, upd_ninfo);
}

static bool intercept(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                      size_t ninfo)
{
    if (status != PMIX_FABRIC_UPDATE_PENDING)
        return false;
    if (upd_running) {
        /* one more round after this one: the data changed again */
        upd_again = true;
        return true;
    }
    memset(&upd_source, 0, sizeof(upd_source));
    if (source != NULL)
        upd_source = *source;
    if (upd_info != NULL)
        PMIX_INFO_FREE(upd_info, upd_ninfo);
    upd_ninfo = 0;
    if (copy_infos(info, ninfo, &upd_info) == PMIX_SUCCESS && upd_info != NULL)
        upd_ninfo = ninfo;
    upd_start();
    return true;
}

/* The last role is going: nothing can serve the registrations any more. */
static void release_all(void *arg)
{
    while (regs != NULL) {
        reg_t *r = regs;
        regs = r->next;
        clear_fabric(r);
        r->fabric = NULL;
        if (r->busy == 0)
            reg_free(r);
    }
    if (upd_info != NULL)
        PMIX_INFO_FREE(upd_info, upd_ninfo);
    upd_ninfo = 0;
    upd_running = upd_again = false;
    if (arg != NULL)
        sy_sync_signal(arg, PMIX_SUCCESS, NULL);
}

void sy_fabric_set_route(sy_fabric_route_level_t level, sy_fabric_route_fn fn)
{
    pthread_mutex_lock(&route_lock);
    routes[level] = fn;
    pthread_mutex_unlock(&route_lock);
    if (fn != NULL) {
        sy_event_set_intercept(intercept);
        return;
    }
    if (route() != NULL)
        return;
    sy_event_set_intercept(NULL);
    sy_progress_t *p = sy_runtime();
    sy_sync_t s;
    if (p == NULL || sy_progress_in_loop(p) || sy_sync_init(&s) != PMIX_SUCCESS) {
        release_all(NULL);
        return;
    }
    if (sy_progress_post(p, release_all, &s) == PMIX_SUCCESS)
        sy_sync_wait_progress(&s, p);
    else
        release_all(NULL);
    sy_sync_destroy(&s);
}
