/* The scheduler role: the fabrics a PMIX_SERVER_SCHEDULER server serves,
 * opened on first use through the engine module, their changes and the
 * update protocol's scheduler side (docs/fabric.md, "Scheduler role").
 *
 * A change (a watched topology file that changed, a link state delivered
 * with the inventory) is applied to the topology at once but nothing is
 * recomputed: the cost matrix the process's pmix_fabric_t point to stays
 * valid.  PMIX_FABRIC_UPDATE_PENDING goes out (this process's handlers and,
 * range GLOBAL, every other process through the server and its host);
 * requests are held until this process's chain completed, then the
 * engines recompute and the held requests get the new data. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/info.h"
#include "common/datatype.h"
#include "common/event.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "fabmod/fabmod.h"
#include "sched/sched.h"
#include "switchyard.h"

#define DEFAULT_WATCH 2.0

typedef struct {
    char *path, *format, *spec;
    char *vendor, *identifier;
    double watch;
    sy_fabmod_fab_t *f;
    bool failed;  /* opening failed: not tried again */
    bool pending; /* a change waits for the PENDING chain */
    sy_timer_t *timer;
} fab_t;

typedef struct held {
    pmix_fabric_operation_t op;
    pmix_info_t *dirs;
    size_t ndirs;
    sy_fabric_reply_fn cb;
    void *arg;
    struct held *next;
} held_t;

typedef struct inv {
    char *host;
    pmix_value_t *devices;
    struct inv *next;
} inv_t;

static struct {
    bool active;
    pmix_proc_t me;
    fab_t *fabs;
    size_t nfabs;
    bool updating;
    held_t *held, **held_tail;
    inv_t *inv;
    const sy_fabmod_ops_t *ops;
} S;

static const char *str_of(const pmix_info_t *i)
{
    return i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static bool number_of(const pmix_info_t *i, double *d)
{
    switch (i->value.type) {
    case PMIX_DOUBLE: *d = i->value.data.dval; return true;
    case PMIX_FLOAT: *d = i->value.data.fval; return true;
    case PMIX_INT: *d = i->value.data.integer; return true;
    case PMIX_UINT32: *d = i->value.data.uint32; return true;
    case PMIX_UINT64: *d = (double)i->value.data.uint64; return true;
    case PMIX_SIZE: *d = (double)i->value.data.size; return true;
    default: return false;
    }
}

static void fab_free(fab_t *f)
{
    if (f->timer != NULL)
        sy_timer_cancel(f->timer);
    if (f->f != NULL && S.ops != NULL)
        S.ops->close(f->f);
    free(f->path);
    free(f->format);
    free(f->spec);
    free(f->vendor);
    free(f->identifier);
}

/* A fabric from the keys of one definition; PMIX_ERR_NOT_FOUND when they
 * name no topology. */
static pmix_status_t add_fabric(const pmix_info_t *info, size_t ninfo, size_t *index)
{
    fab_t f = {.watch = DEFAULT_WATCH};
    bool bad = false;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *e = &info[i];
        char **dst = sy_info_is(e, SWITCHYARD_FABRIC_TOPOLOGY)   ? &f.path
                     : sy_info_is(e, SWITCHYARD_FABRIC_FORMAT)   ? &f.format
                     : sy_info_is(e, SWITCHYARD_FABRIC_GENERATE) ? &f.spec
                     : sy_info_is(e, PMIX_FABRIC_VENDOR)         ? &f.vendor
                     : sy_info_is(e, PMIX_FABRIC_IDENTIFIER)     ? &f.identifier
                                                                 : NULL;
        if (dst != NULL) {
            if (str_of(e) == NULL) {
                bad = true;
                continue;
            }
            free(*dst);
            *dst = strdup(str_of(e));
        } else if (sy_info_is(e, SWITCHYARD_FABRIC_WATCH) &&
                   (!number_of(e, &f.watch) || f.watch < 0)) {
            bad = true;
        }
    }
    if (bad || (f.path != NULL && f.spec != NULL)) {
        fab_free(&f);
        return PMIX_ERR_BAD_PARAM;
    }
    if (f.path == NULL && f.spec == NULL) {
        fab_free(&f);
        return PMIX_ERR_NOT_FOUND;
    }
    if (f.vendor == NULL)
        f.vendor = strdup("switchyard");
    if (f.identifier == NULL) {
        const char *src = f.path != NULL ? f.path : f.spec;
        const char *slash = strrchr(src, '/');
        f.identifier = strdup(slash != NULL && f.path != NULL ? slash + 1 : src);
    }
    fab_t *g = realloc(S.fabs, (S.nfabs + 1) * sizeof(*g));
    if (g == NULL || f.vendor == NULL || f.identifier == NULL) {
        if (g != NULL)
            S.fabs = g;
        fab_free(&f);
        return PMIX_ERR_NOMEM;
    }
    S.fabs = g;
    S.fabs[S.nfabs] = f;
    *index = S.nfabs++;
    return PMIX_SUCCESS;
}

pmix_status_t sy_sched_init(const pmix_info_t info[], size_t ninfo, const pmix_proc_t *me)
{
    memset(&S, 0, sizeof(S));
    S.held_tail = &S.held;
    S.me = *me;
    S.active = true;
    size_t idx;
    for (size_t i = 0; i < ninfo; i++) {
        if (!sy_info_is(&info[i], SWITCHYARD_FABRIC))
            continue;
        const pmix_value_t *v = &info[i].value;
        pmix_status_t rc = v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
                                   v->data.darray->type == PMIX_INFO
                               ? add_fabric(v->data.darray->array, v->data.darray->size, &idx)
                               : PMIX_ERR_BAD_PARAM;
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "PMIx_server_init: %s: %s", SWITCHYARD_FABRIC,
                   rc == PMIX_ERR_NOT_FOUND ? "names no topology" : PMIx_Error_string(rc));
            sy_sched_finalize();
            return PMIX_ERR_BAD_PARAM;
        }
    }
    /* the keys given flat define one more fabric */
    pmix_status_t rc = add_fabric(info, ninfo, &idx);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
        sy_log(SY_LOG_WARN, "PMIx_server_init: bad fabric definition: %s", PMIx_Error_string(rc));
        sy_sched_finalize();
        return rc;
    }
    return PMIX_SUCCESS;
}

void sy_sched_finalize(void)
{
    while (S.held != NULL) {
        held_t *h = S.held;
        S.held = h->next;
        h->cb(PMIX_ERR_INIT, NULL, 0, h->arg);
        if (h->dirs != NULL)
            PMIX_INFO_FREE(h->dirs, h->ndirs);
        free(h);
    }
    for (size_t i = 0; i < S.nfabs; i++)
        fab_free(&S.fabs[i]);
    free(S.fabs);
    while (S.inv != NULL) {
        inv_t *v = S.inv;
        S.inv = v->next;
        free(v->host);
        PMIX_VALUE_RELEASE(v->devices);
        free(v);
    }
    memset(&S, 0, sizeof(S));
}

bool sy_sched_active(void)
{
    return S.active;
}

/* ---- changes ---- */

static void begin_update(size_t k)
{
    S.fabs[k].pending = true;
    if (S.updating)
        return;
    S.updating = true;
    pmix_info_t info[2];
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_FABRIC_INDEX, &k, PMIX_SIZE);
    /* a client registering later must not run an update long past */
    PMIx_Info_load(&info[1], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
    /* here through the interceptor (fabric_api.c), elsewhere through the
     * server's clients and the host.  Should that fail, this process still
     * runs the protocol: refreshing the engines at once would free the
     * matrix its registrations point to. */
    if (PMIx_Notify_event(PMIX_FABRIC_UPDATE_PENDING, &S.me, PMIX_RANGE_GLOBAL, info, 2, NULL,
                          NULL) != PMIX_SUCCESS)
        sy_event_deliver(PMIX_FABRIC_UPDATE_PENDING, &S.me, PMIX_RANGE_PROC_LOCAL, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static void watch(void *arg);

static void arm_watch(size_t k)
{
    fab_t *f = &S.fabs[k];
    sy_progress_t *p = sy_runtime();
    if (f->path != NULL && f->watch > 0 && f->timer == NULL && p != NULL &&
        sy_progress_timer(p, f->watch, watch, (void *)(uintptr_t)(k + 1), &f->timer) !=
            PMIX_SUCCESS)
        f->timer = NULL;
}

static void watch(void *arg)
{
    size_t k = (size_t)(uintptr_t)arg - 1;
    if (!S.active || k >= S.nfabs)
        return;
    fab_t *f = &S.fabs[k];
    sy_timer_cancel(f->timer);
    f->timer = NULL;
    bool changed = false;
    /* a change during an update is picked up at the next tick */
    if (!S.updating && f->f != NULL) {
        pmix_status_t rc = S.ops->reload(f->f, &changed);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_SUPPORTED)
            sy_log(SY_LOG_WARN, "fabric %s: %s", f->identifier, S.ops->last_error(f->f));
    }
    if (changed)
        begin_update(k);
    arm_watch(k);
}

void sy_sched_apply_pending(void)
{
    for (size_t k = 0; k < S.nfabs; k++) {
        if (!S.fabs[k].pending)
            continue;
        S.fabs[k].pending = false;
        if (S.fabs[k].f != NULL && S.ops->refresh(S.fabs[k].f) != PMIX_SUCCESS)
            sy_log(SY_LOG_WARN, "fabric %s: %s", S.fabs[k].identifier,
                   S.ops->last_error(S.fabs[k].f));
    }
    S.updating = false;
    held_t *h = S.held;
    S.held = NULL;
    S.held_tail = &S.held;
    while (h != NULL) {
        held_t *next = h->next;
        pmix_status_t rc = sy_sched_route(&S.me, h->op, h->dirs, h->ndirs, h->cb, h->arg);
        if (rc != PMIX_SUCCESS)
            h->cb(rc, NULL, 0, h->arg);
        if (h->dirs != NULL)
            PMIX_INFO_FREE(h->dirs, h->ndirs);
        free(h);
        h = next;
    }
}

/* ---- serving requests ---- */

static pmix_status_t open_fab(size_t k)
{
    fab_t *f = &S.fabs[k];
    if (f->f != NULL)
        return PMIX_SUCCESS;
    if (f->failed)
        return PMIX_ERR_NOT_AVAILABLE;
    pmix_status_t rc = S.ops != NULL ? PMIX_SUCCESS : sy_fabmod_load(&S.ops);
    char *err = NULL;
    if (rc == PMIX_SUCCESS)
        rc = S.ops->open(f->path, f->format, f->spec, &f->f, &err);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "fabric %s: %s", f->identifier,
               err != NULL ? err : PMIx_Error_string(rc));
        free(err);
        f->failed = true;
        return PMIX_ERR_NOT_AVAILABLE;
    }
    arm_watch(k);
    return PMIX_SUCCESS;
}

static bool has_plane(size_t k, const char *plane)
{
    char **ids = NULL;
    bool hit = false;
    if (open_fab(k) != PMIX_SUCCESS || S.ops->planes(S.fabs[k].f, &ids) != PMIX_SUCCESS)
        return false;
    for (size_t i = 0; ids[i] != NULL; i++) {
        hit = hit || strcmp(ids[i], plane) == 0;
        free(ids[i]);
    }
    free(ids);
    return hit;
}

/* The fabric the directives name: PMIX_FABRIC_INDEX, a topology of ours
 * (added when new), or the first whose vendor, identifier and planes
 * match. */
static pmix_status_t select_fab(const pmix_info_t dirs[], size_t ndirs, size_t *k,
                                const char **plane)
{
    const char *vendor = NULL, *ident = NULL, *path = NULL, *spec = NULL;
    bool have_index = false;
    *plane = NULL;
    for (size_t i = 0; i < ndirs; i++) {
        const pmix_info_t *e = &dirs[i];
        if (sy_info_is(e, PMIX_FABRIC_INDEX)) {
            if (e->value.type != PMIX_SIZE)
                return PMIX_ERR_BAD_PARAM;
            *k = e->value.data.size;
            have_index = true;
        } else if (sy_info_is(e, PMIX_FABRIC_PLANE) || sy_info_is(e, PMIX_FABRIC_VENDOR) ||
                   sy_info_is(e, PMIX_FABRIC_IDENTIFIER) ||
                   sy_info_is(e, SWITCHYARD_FABRIC_TOPOLOGY) ||
                   sy_info_is(e, SWITCHYARD_FABRIC_GENERATE)) {
            if (str_of(e) == NULL)
                return PMIX_ERR_BAD_PARAM;
            const char **dst = sy_info_is(e, PMIX_FABRIC_PLANE)            ? plane
                               : sy_info_is(e, PMIX_FABRIC_VENDOR)         ? &vendor
                               : sy_info_is(e, PMIX_FABRIC_IDENTIFIER)     ? &ident
                               : sy_info_is(e, SWITCHYARD_FABRIC_TOPOLOGY) ? &path
                                                                           : &spec;
            *dst = str_of(e);
        }
    }
    if (have_index)
        return *k < S.nfabs ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
    if (path != NULL || spec != NULL) {
        for (size_t i = 0; i < S.nfabs; i++) {
            fab_t *f = &S.fabs[i];
            if ((path != NULL && f->path != NULL && strcmp(path, f->path) == 0) ||
                (spec != NULL && f->spec != NULL && strcmp(spec, f->spec) == 0)) {
                *k = i;
                return PMIX_SUCCESS;
            }
        }
        return add_fabric(dirs, ndirs, k);
    }
    for (size_t i = 0; i < S.nfabs; i++) {
        fab_t *f = &S.fabs[i];
        if ((vendor != NULL && strcmp(vendor, f->vendor) != 0) ||
            (ident != NULL && strcmp(ident, f->identifier) != 0) ||
            (*plane != NULL && !has_plane(i, *plane)))
            continue;
        *k = i;
        return PMIX_SUCCESS;
    }
    return PMIX_ERR_NOT_FOUND;
}

pmix_status_t sy_sched_route(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                             const pmix_info_t dirs[], size_t ndirs, sy_fabric_reply_fn cb,
                             void *arg)
{
    (void)requestor;
    if (!S.active)
        return PMIX_ERR_INIT;
    if (op != PMIX_FABRIC_REQUEST_INFO && op != PMIX_FABRIC_UPDATE_INFO)
        return PMIX_ERR_BAD_PARAM;
    if (op == PMIX_FABRIC_UPDATE_INFO) {
        bool have_index = false;
        for (size_t i = 0; i < ndirs; i++)
            have_index = have_index || sy_info_is(&dirs[i], PMIX_FABRIC_INDEX);
        if (!have_index)
            return PMIX_ERR_BAD_PARAM;
    }
    if (S.updating) {
        held_t *h = calloc(1, sizeof(*h));
        if (h == NULL)
            return PMIX_ERR_NOMEM;
        pmix_status_t rc = sy_array_copy((void **)&h->dirs, dirs, ndirs, PMIX_INFO);
        if (rc != PMIX_SUCCESS) {
            free(h);
            return rc;
        }
        h->ndirs = h->dirs != NULL ? ndirs : 0;
        h->op = op;
        h->cb = cb;
        h->arg = arg;
        *S.held_tail = h;
        S.held_tail = &h->next;
        return PMIX_SUCCESS;
    }
    size_t k = 0;
    const char *plane = NULL;
    bool by_value = false;
    for (size_t i = 0; i < ndirs; i++)
        if (sy_info_is(&dirs[i], SWITCHYARD_FABRIC_BY_VALUE))
            by_value = sy_info_true(&dirs[i]);
    pmix_status_t rc = select_fab(dirs, ndirs, &k, &plane);
    if (rc == PMIX_SUCCESS)
        rc = open_fab(k);
    pmix_info_t *info = NULL, *all = NULL;
    size_t ninfo = 0;
    if (rc == PMIX_SUCCESS)
        rc = S.ops->describe(S.fabs[k].f, plane, by_value, &info, &ninfo);
    if (rc == PMIX_SUCCESS) {
        PMIX_INFO_CREATE(all, ninfo + 3);
        if (all == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            PMIx_Info_load(&all[0], PMIX_FABRIC_VENDOR, S.fabs[k].vendor, PMIX_STRING);
            PMIx_Info_load(&all[1], PMIX_FABRIC_IDENTIFIER, S.fabs[k].identifier, PMIX_STRING);
            PMIx_Info_load(&all[2], PMIX_FABRIC_INDEX, &k, PMIX_SIZE);
            /* moved, not copied: the matrix may be large */
            for (size_t i = 0; i < ninfo; i++) {
                all[i + 3] = info[i];
                memset(&info[i], 0, sizeof(info[i]));
            }
        }
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    cb(PMIX_SUCCESS, all, ninfo + 3, arg);
    return PMIX_SUCCESS;
}

/* ---- inventory and jobs ---- */

static pmix_status_t change(size_t k, const char *link, bool have_state, uint8_t state, bool reload)
{
    pmix_status_t rc = open_fab(k);
    bool changed = false;
    if (rc == PMIX_SUCCESS && link != NULL) {
        if (!have_state)
            return PMIX_ERR_BAD_PARAM;
        char *a = strdup(link), *b = a != NULL ? strchr(a, ' ') : NULL;
        if (a == NULL)
            return PMIX_ERR_NOMEM;
        if (b == NULL) {
            free(a);
            return PMIX_ERR_BAD_PARAM;
        }
        *b++ = '\0';
        rc = S.ops->link_state(S.fabs[k].f, a, b, state, &changed);
        free(a);
    }
    if (rc == PMIX_SUCCESS && reload) {
        bool c2 = false;
        rc = S.ops->reload(S.fabs[k].f, &c2);
        changed = changed || c2;
    }
    if (changed)
        begin_update(k);
    return rc;
}

pmix_status_t sy_sched_inventory(const pmix_info_t info[], size_t ninfo, const pmix_info_t dirs[],
                                 size_t ndirs)
{
    const char *host = NULL;
    const pmix_value_t *devs = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (sy_info_is(&info[i], PMIX_HOSTNAME))
            host = str_of(&info[i]);
        else if (sy_info_is(&info[i], PMIX_FABRIC_DEVICES) && info[i].value.type == PMIX_DATA_ARRAY)
            devs = &info[i].value;
    }
    if (host != NULL && devs != NULL) {
        inv_t *v = S.inv;
        while (v != NULL && strcmp(v->host, host) != 0)
            v = v->next;
        pmix_value_t *copy = calloc(1, sizeof(*copy));
        if (copy == NULL || PMIx_Value_xfer(copy, devs) != PMIX_SUCCESS) {
            free(copy);
            return PMIX_ERR_NOMEM;
        }
        if (v == NULL) {
            v = calloc(1, sizeof(*v));
            if (v == NULL || (v->host = strdup(host)) == NULL) {
                free(v);
                PMIX_VALUE_RELEASE(copy);
                return PMIX_ERR_NOMEM;
            }
            v->next = S.inv;
            S.inv = v;
        } else {
            PMIX_VALUE_RELEASE(v->devices);
        }
        v->devices = copy;
    }
    const char *link = NULL;
    bool have_state = false, reload = false;
    uint8_t state = 0;
    size_t k = 0;
    for (size_t i = 0; i < ndirs; i++) {
        const pmix_info_t *e = &dirs[i];
        if (sy_info_is(e, SWITCHYARD_FABRIC_LINK)) {
            if ((link = str_of(e)) == NULL)
                return PMIX_ERR_BAD_PARAM;
        } else if (sy_info_is(e, SWITCHYARD_FABRIC_LINK_STATE)) {
            if (e->value.type != PMIX_LINK_STATE && e->value.type != PMIX_UINT8)
                return PMIX_ERR_BAD_PARAM;
            state = e->value.data.uint8;
            have_state = true;
        } else if (sy_info_is(e, SWITCHYARD_FABRIC_RELOAD)) {
            reload = sy_info_true(e);
        } else if (sy_info_is(e, PMIX_FABRIC_INDEX)) {
            if (e->value.type != PMIX_SIZE)
                return PMIX_ERR_BAD_PARAM;
            k = e->value.data.size;
        }
    }
    if (link == NULL && !reload)
        return PMIX_SUCCESS;
    if (k >= S.nfabs)
        return PMIX_ERR_NOT_FOUND;
    return change(k, link, have_state, state, reload);
}

const pmix_value_t *sy_sched_node_devices(const char *hostname)
{
    for (inv_t *v = S.inv; v != NULL; v = v->next)
        if (strcmp(v->host, hostname) == 0)
            return v->devices;
    return NULL;
}

/* "0,1,5" -> ranks */
static pmix_status_t parse_ranks(const char *s, pmix_rank_t **out, size_t *n)
{
    size_t cap = 1;
    for (const char *c = s; *c; c++)
        cap += *c == ',';
    *out = calloc(cap, sizeof(pmix_rank_t));
    *n = 0;
    if (*out == NULL)
        return PMIX_ERR_NOMEM;
    while (*s) {
        char *end;
        unsigned long r = strtoul(s, &end, 10);
        if (end == s)
            return PMIX_ERR_BAD_PARAM;
        (*out)[(*n)++] = (pmix_rank_t)r;
        s = *end == ',' ? end + 1 : end;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_sched_job_data(char **nodes, char **ranks, pmix_info_t **info, size_t *ninfo)
{
    if (!S.active || S.nfabs == 0)
        return PMIX_SUCCESS;
    pmix_status_t rc = open_fab(0);
    if (rc != PMIX_SUCCESS)
        return rc;
    size_t nn = 0;
    while (nodes[nn] != NULL)
        nn++;
    sy_fabmod_node_t *v = calloc(nn + 1, sizeof(*v));
    if (v == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < nn && rc == PMIX_SUCCESS; i++) {
        v[i].name = nodes[i];
        v[i].inventory = sy_sched_node_devices(nodes[i]);
        pmix_rank_t *r = NULL;
        rc = parse_ranks(ranks != NULL && ranks[i] != NULL ? ranks[i] : "", &r, &v[i].nranks);
        v[i].ranks = r;
    }
    if (rc == PMIX_SUCCESS)
        rc = S.ops->job_data(S.fabs[0].f, v, nn, info, ninfo);
    for (size_t i = 0; i < nn; i++)
        free((void *)v[i].ranks);
    free(v);
    return rc;
}
