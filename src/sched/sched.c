/* The scheduler role: the fabrics a PMIX_SERVER_SCHEDULER server serves,
 * opened on first use through the engine module, their changes and the
 * update protocol's scheduler side (docs/fabric.md, "Scheduler role").
 *
 * Every call into the engine module runs on the worker thread
 * (sched_worker.h), so that the server's loop never waits for a topology
 * to load or a matrix to be computed: the loop queues requests and
 * answers them when their job completes.  What the worker owns: S.fabs
 * and the modules' engines.  What the loop owns: S.updating and the held
 * requests.  The node inventory is shared, under inv_lock.
 *
 * A change (a watched topology file that changed, a link state delivered
 * with the inventory) is applied to the topology at once but nothing is
 * recomputed: the cost matrix the process's pmix_fabric_t point to stays
 * valid.  PMIX_FABRIC_UPDATE_PENDING goes out (this process's handlers and,
 * range GLOBAL, every other process through the server and its host);
 * requests are held until this process's chain completed, then the
 * engines recompute (on the worker, into new memory, swapped in when
 * complete) and the held requests get the new data. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "common/info.h"
#include "common/datatype.h"
#include "common/event.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/runtime.h"
#include "fabmod/fabmod.h"
#include "sched/sched.h"
#include "sched/sched_worker.h"
#include "switchyard.h"

#define DEFAULT_WATCH 2.0

typedef struct {
    char *path, *format, *spec;
    char *vendor, *identifier;
    double watch;
    sy_fabmod_fab_t *f;
    bool failed;  /* opening failed: not tried again */
    bool pending; /* a change waits for the PENDING chain */
    double last_check;
    uint64_t devices_hash; /* the device set the endpoints were given for */
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
    /* read by the worker (watch ticks) while finalize clears it */
    atomic_bool active;
    pmix_proc_t me;
    /* the worker's */
    fab_t *fabs;
    size_t nfabs;
    bool announced; /* a PENDING went out for changes not yet applied */
    const sy_fabmod_ops_t *ops;
    /* the loop's */
    bool updating; /* between PENDING and the recomputation's end */
    held_t *held, **held_tail;
    /* both, under inv_lock */
    inv_t *inv;
} S;

static pthread_mutex_t inv_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    S.active = false;
    /* the job running now ends first; queued ones complete as dropped */
    sy_work_stop();
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
    pthread_mutex_lock(&inv_lock);
    while (S.inv != NULL) {
        inv_t *v = S.inv;
        S.inv = v->next;
        free(v->host);
        PMIX_VALUE_RELEASE(v->devices);
        free(v);
    }
    pthread_mutex_unlock(&inv_lock);
    memset(&S, 0, sizeof(S));
}

bool sy_sched_active(void)
{
    return S.active;
}

/* ---- changes ---- */

/* On the loop: PMIX_FABRIC_UPDATE_PENDING goes out for fabric k. */
static void notify_pending(void *arg)
{
    size_t k = (size_t)(uintptr_t)arg;
    if (!S.active)
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

/* Worker: fabric k changed. */
static void begin_update(size_t k)
{
    S.fabs[k].pending = true;
    if (S.announced)
        return;
    S.announced = true;
    sy_progress_t *p = sy_runtime();
    if (p == NULL || sy_progress_post(p, notify_pending, (void *)(uintptr_t)k) != PMIX_SUCCESS)
        S.announced = false;
}

/* Worker, when idle: the watched files that are due are checked. */
static void watch_tick(void *arg)
{
    (void)arg;
    double t = now_s();
    /* a change during an update is picked up at a later tick */
    for (size_t k = 0; k < S.nfabs && S.active && !S.announced; k++) {
        fab_t *f = &S.fabs[k];
        if (f->f == NULL || f->path == NULL || f->watch <= 0 || t - f->last_check < f->watch)
            continue;
        f->last_check = t;
        bool changed = false;
        pmix_status_t rc = S.ops->reload(f->f, &changed);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_SUPPORTED)
            sy_log(SY_LOG_WARN, "fabric %s: %s", f->identifier, S.ops->last_error(f->f));
        if (changed)
            begin_update(k);
    }
}

/* The tick: as often as the most eager watched fabric asks. */
static void arm_watch(void)
{
    double tick = 0;
    for (size_t k = 0; k < S.nfabs; k++)
        if (S.fabs[k].f != NULL && S.fabs[k].path != NULL && S.fabs[k].watch > 0 &&
            (tick == 0 || S.fabs[k].watch < tick))
            tick = S.fabs[k].watch;
    sy_work_set_tick(tick, tick > 0 ? watch_tick : NULL);
}

/* Which fabrics' device sets changed in a recomputation. */
typedef struct {
    size_t n;
    bool *endpoints;
} refresh_job_t;

static void refresh_run(void *arg)
{
    refresh_job_t *j = arg;
    j->n = S.nfabs;
    j->endpoints = calloc(S.nfabs + 1, sizeof(bool));
    for (size_t k = 0; k < S.nfabs; k++) {
        if (!S.fabs[k].pending)
            continue;
        S.fabs[k].pending = false;
        if (S.fabs[k].f == NULL)
            continue;
        struct timespec a, b;
        clock_gettime(CLOCK_REALTIME, &a);
        if (S.ops->refresh(S.fabs[k].f) != PMIX_SUCCESS)
            sy_log(SY_LOG_WARN, "fabric %s: %s", S.fabs[k].identifier,
                   S.ops->last_error(S.fabs[k].f));
        clock_gettime(CLOCK_REALTIME, &b);
        double t0 = (double)a.tv_sec + (double)a.tv_nsec * 1e-9;
        double t1 = (double)b.tv_sec + (double)b.tv_nsec * 1e-9;
        sy_log(SY_LOG_INFO, "fabric %s: recomputed in %.3f s (from %.6f to %.6f)",
               S.fabs[k].identifier, t1 - t0, t0, t1);
        uint64_t h = S.ops->devices_hash(S.fabs[k].f);
        if (j->endpoints != NULL && h != S.fabs[k].devices_hash)
            j->endpoints[k] = true;
        S.fabs[k].devices_hash = h;
    }
    S.announced = false;
}

/* Loop: devices came or went: the endpoints assigned to processes too. */
static void notify_endpoints(size_t k)
{
    pmix_info_t info[2];
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_FABRIC_INDEX, &k, PMIX_SIZE);
    PMIx_Info_load(&info[1], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
    if (PMIx_Notify_event(PMIX_FABRIC_UPDATE_ENDPOINTS, &S.me, PMIX_RANGE_GLOBAL, info, 2, NULL,
                          NULL) != PMIX_SUCCESS)
        sy_event_deliver(PMIX_FABRIC_UPDATE_ENDPOINTS, &S.me, PMIX_RANGE_PROC_LOCAL, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

/* Loop: the recomputation is in; the requests held meanwhile go on. */
static void refresh_done(void *arg, bool ran)
{
    refresh_job_t *j = arg;
    bool active = S.active;
    for (size_t k = 0; active && ran && j->endpoints != NULL && k < j->n; k++)
        if (j->endpoints[k])
            notify_endpoints(k);
    free(j->endpoints);
    free(j);
    if (!active)
        return;
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

void sy_sched_apply_pending(void)
{
    /* requests keep being held until the new data is there */
    refresh_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL || sy_work_submit(refresh_run, refresh_done, j) != PMIX_SUCCESS) {
        if (j == NULL)
            j = calloc(1, sizeof(*j));
        if (j != NULL)
            refresh_done(j, false);
        else
            S.updating = false;
    }
}

/* ---- serving requests (worker) ---- */

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
    f->devices_hash = S.ops->devices_hash(f->f);
    const char *note = S.ops->note(f->f);
    if (note != NULL)
        sy_log(SY_LOG_WARN, "fabric %s: %s", f->identifier, note);
    f->last_check = now_s();
    arm_watch();
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

typedef struct {
    pmix_fabric_operation_t op;
    pmix_info_t *dirs;
    size_t ndirs;
    sy_fabric_reply_fn cb;
    void *arg;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} route_job_t;

static void route_run(void *arg)
{
    route_job_t *j = arg;
    size_t k = 0;
    const char *plane = NULL;
    bool by_value = false;
    for (size_t i = 0; i < j->ndirs; i++)
        if (sy_info_is(&j->dirs[i], SWITCHYARD_FABRIC_BY_VALUE))
            by_value = sy_info_true(&j->dirs[i]);
    pmix_status_t rc = select_fab(j->dirs, j->ndirs, &k, &plane);
    if (rc == PMIX_SUCCESS)
        rc = open_fab(k);
    pmix_info_t *info = NULL, *all = NULL;
    size_t ninfo = 0;
    if (rc == PMIX_SUCCESS)
        rc = S.ops->describe(S.fabs[k].f, plane, by_value, j->dirs, j->ndirs, &info, &ninfo);
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
    j->status = rc;
    j->info = all;
    j->ninfo = all != NULL ? ninfo + 3 : 0;
}

static void route_done(void *arg, bool ran)
{
    route_job_t *j = arg;
    if (!ran)
        j->status = PMIX_ERR_INIT;
    if (j->status != PMIX_SUCCESS && j->info != NULL) {
        PMIX_INFO_FREE(j->info, j->ninfo);
        j->info = NULL;
    }
    j->cb(j->status, j->info, j->info != NULL ? j->ninfo : 0, j->arg);
    if (j->dirs != NULL)
        PMIX_INFO_FREE(j->dirs, j->ndirs);
    free(j);
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
    pmix_info_t *copy = NULL;
    pmix_status_t rc = sy_array_copy((void **)&copy, dirs, ndirs, PMIX_INFO);
    if (rc != PMIX_SUCCESS)
        return rc;
    size_t ncopy = copy != NULL ? ndirs : 0;
    if (S.updating) {
        held_t *h = calloc(1, sizeof(*h));
        if (h == NULL) {
            if (copy != NULL)
                PMIX_INFO_FREE(copy, ncopy);
            return PMIX_ERR_NOMEM;
        }
        h->dirs = copy;
        h->ndirs = ncopy;
        h->op = op;
        h->cb = cb;
        h->arg = arg;
        *S.held_tail = h;
        S.held_tail = &h->next;
        return PMIX_SUCCESS;
    }
    route_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        if (copy != NULL)
            PMIX_INFO_FREE(copy, ncopy);
        return PMIX_ERR_NOMEM;
    }
    j->op = op;
    j->dirs = copy;
    j->ndirs = ncopy;
    j->cb = cb;
    j->arg = arg;
    rc = sy_work_submit(route_run, route_done, j);
    if (rc != PMIX_SUCCESS) {
        if (copy != NULL)
            PMIX_INFO_FREE(copy, ncopy);
        free(j);
    }
    return rc;
}

/* ---- inventory and jobs ---- */

/* Worker. */
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

typedef struct {
    char *link;
    bool have_state, reload;
    uint8_t state;
    size_t k;
    pmix_status_t status;
    sy_sched_done_fn cb;
    void *arg;
} change_job_t;

static void change_run(void *arg)
{
    change_job_t *j = arg;
    j->status = j->k >= S.nfabs ? PMIX_ERR_NOT_FOUND
                                : change(j->k, j->link, j->have_state, j->state, j->reload);
}

static void change_done(void *arg, bool ran)
{
    change_job_t *j = arg;
    j->cb(ran ? j->status : PMIX_ERR_INIT, j->arg);
    free(j->link);
    free(j);
}

static pmix_status_t keep_devices(const char *host, const pmix_value_t *devs)
{
    pmix_value_t *copy = calloc(1, sizeof(*copy));
    if (copy == NULL || PMIx_Value_xfer(copy, devs) != PMIX_SUCCESS) {
        free(copy);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&inv_lock);
    inv_t *v = S.inv;
    while (v != NULL && strcmp(v->host, host) != 0)
        v = v->next;
    if (v == NULL) {
        v = calloc(1, sizeof(*v));
        if (v == NULL || (v->host = strdup(host)) == NULL) {
            pthread_mutex_unlock(&inv_lock);
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
    pthread_mutex_unlock(&inv_lock);
    return PMIX_SUCCESS;
}

pmix_status_t sy_sched_inventory(const pmix_info_t info[], size_t ninfo, const pmix_info_t dirs[],
                                 size_t ndirs, sy_sched_done_fn cb, void *arg)
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
        pmix_status_t rc = keep_devices(host, devs);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    change_job_t c = {0};
    const char *link = NULL;
    for (size_t i = 0; i < ndirs; i++) {
        const pmix_info_t *e = &dirs[i];
        if (sy_info_is(e, SWITCHYARD_FABRIC_LINK)) {
            if ((link = str_of(e)) == NULL)
                return PMIX_ERR_BAD_PARAM;
        } else if (sy_info_is(e, SWITCHYARD_FABRIC_LINK_STATE)) {
            if (e->value.type != PMIX_LINK_STATE && e->value.type != PMIX_UINT8)
                return PMIX_ERR_BAD_PARAM;
            c.state = e->value.data.uint8;
            c.have_state = true;
        } else if (sy_info_is(e, SWITCHYARD_FABRIC_RELOAD)) {
            c.reload = sy_info_true(e);
        } else if (sy_info_is(e, PMIX_FABRIC_INDEX)) {
            if (e->value.type != PMIX_SIZE)
                return PMIX_ERR_BAD_PARAM;
            c.k = e->value.data.size;
        }
    }
    if (link == NULL && !c.reload) {
        cb(PMIX_SUCCESS, arg);
        return PMIX_SUCCESS;
    }
    change_job_t *j = malloc(sizeof(*j));
    if (j == NULL)
        return PMIX_ERR_NOMEM;
    *j = c;
    j->cb = cb;
    j->arg = arg;
    j->link = link != NULL ? strdup(link) : NULL;
    pmix_status_t rc = link != NULL && j->link == NULL ? PMIX_ERR_NOMEM
                                                       : sy_work_submit(change_run, change_done, j);
    if (rc != PMIX_SUCCESS) {
        free(j->link);
        free(j);
    }
    return rc;
}

/* Worker: a copy of what a node delivered, or NULL. */
static pmix_value_t *node_devices(const char *hostname)
{
    pmix_value_t *copy = NULL;
    pthread_mutex_lock(&inv_lock);
    for (inv_t *v = S.inv; v != NULL; v = v->next)
        if (strcmp(v->host, hostname) == 0) {
            copy = calloc(1, sizeof(*copy));
            if (copy != NULL && PMIx_Value_xfer(copy, v->devices) != PMIX_SUCCESS) {
                free(copy);
                copy = NULL;
            }
            break;
        }
    pthread_mutex_unlock(&inv_lock);
    return copy;
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

typedef struct {
    char **nodes, **ranks;
    pmix_info_t **info;
    size_t *ninfo;
    pmix_status_t status;
    sy_sched_done_fn cb;
    void *arg;
} data_job_t;

static void data_run(void *arg)
{
    data_job_t *j = arg;
    if (S.nfabs == 0) {
        j->status = PMIX_SUCCESS;
        return;
    }
    pmix_status_t rc = open_fab(0);
    size_t nn = 0;
    while (rc == PMIX_SUCCESS && j->nodes[nn] != NULL)
        nn++;
    sy_fabmod_node_t *v = rc == PMIX_SUCCESS ? calloc(nn + 1, sizeof(*v)) : NULL;
    if (rc == PMIX_SUCCESS && v == NULL)
        rc = PMIX_ERR_NOMEM;
    for (size_t i = 0; i < nn && rc == PMIX_SUCCESS; i++) {
        v[i].name = j->nodes[i];
        v[i].inventory = node_devices(j->nodes[i]);
        pmix_rank_t *r = NULL;
        rc = parse_ranks(j->ranks != NULL && j->ranks[i] != NULL ? j->ranks[i] : "", &r,
                         &v[i].nranks);
        v[i].ranks = r;
    }
    if (rc == PMIX_SUCCESS)
        rc = S.ops->job_data(S.fabs[0].f, v, nn, j->info, j->ninfo);
    for (size_t i = 0; v != NULL && i < nn; i++) {
        free((void *)v[i].ranks);
        if (v[i].inventory != NULL)
            PMIX_VALUE_RELEASE(*(pmix_value_t **)&v[i].inventory);
    }
    free(v);
    j->status = rc;
}

static void data_done(void *arg, bool ran)
{
    data_job_t *j = arg;
    j->cb(ran ? j->status : PMIX_ERR_INIT, j->arg);
    free(j);
}

pmix_status_t sy_sched_job_data(char **nodes, char **ranks, pmix_info_t **info, size_t *ninfo,
                                sy_sched_done_fn cb, void *arg)
{
    if (!S.active) {
        cb(PMIX_SUCCESS, arg);
        return PMIX_SUCCESS;
    }
    data_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL)
        return PMIX_ERR_NOMEM;
    *j = (data_job_t){
        .nodes = nodes, .ranks = ranks, .info = info, .ninfo = ninfo, .cb = cb, .arg = arg};
    pmix_status_t rc = sy_work_submit(data_run, data_done, j);
    if (rc != PMIX_SUCCESS)
        free(j);
    return rc;
}
