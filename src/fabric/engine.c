/* Fabric engine: topology ownership, dirty tracking and lazy
 * recomputation.  See engine.h for the invalidation rules. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <pmix.h>

#include "fabric/engine.h"
#include "fabric/read_util.h"

struct sy_fabric_engine {
    sy_topo_t *topo;
    sy_fabric_engine_opts_t opts;
    uint64_t generation;

    /* file source (NULL path: generated) */
    char *path;
    char *format;
    struct stat st;
    uint64_t hash;

    unsigned dirty;
    uint64_t res_gen[SY_FABRIC_R_COUNT];
    uint64_t count[SY_FABRIC_R_COUNT];
    double seconds[SY_FABRIC_R_COUNT];

    sy_devindex_t ix;
    sy_planes_t planes;
    sy_peers_t peers;
    sy_cost_t cost;
    sy_groups_t groups;
    sy_coords_t coords;
    sy_fabric_shapes_t shapes;

    char err[256];
};

static const char *const result_names[SY_FABRIC_R_COUNT] = {"devindex", "planes", "peers", "cost",
                                                            "groups",   "coords", "shapes"};

/* What each result needs computed first. */
static const unsigned deps[SY_FABRIC_R_COUNT] = {
    [SY_FABRIC_R_DEVINDEX] = 0,
    [SY_FABRIC_R_PLANES] = SY_FABRIC_BIT(SY_FABRIC_R_DEVINDEX),
    [SY_FABRIC_R_PEERS] = SY_FABRIC_BIT(SY_FABRIC_R_DEVINDEX),
    [SY_FABRIC_R_COST] = SY_FABRIC_BIT(SY_FABRIC_R_DEVINDEX),
    [SY_FABRIC_R_GROUPS] = SY_FABRIC_BIT(SY_FABRIC_R_DEVINDEX),
    [SY_FABRIC_R_COORDS] = SY_FABRIC_BIT(SY_FABRIC_R_DEVINDEX),
    [SY_FABRIC_R_SHAPES] = SY_FABRIC_BIT(SY_FABRIC_R_PLANES) | SY_FABRIC_BIT(SY_FABRIC_R_COORDS),
};

const char *sy_fabric_result_name(sy_fabric_result_t r)
{
    return (unsigned)r < SY_FABRIC_R_COUNT ? result_names[r] : "unknown";
}

__attribute__((format(printf, 2, 3))) static void set_err(sy_fabric_engine_t *eng, const char *fmt,
                                                          ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(eng->err, sizeof(eng->err), fmt, ap);
    va_end(ap);
}

/* "PATH: what went wrong", PATH cut to 500 characters. */
static char *dup_msg(const char *path, const char *what)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%.500s: %s", path, what);
    return strdup(buf);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ results */

static void shapes_free(sy_fabric_shapes_t *s)
{
    for (uint32_t p = 0; p < s->nplanes; p++) {
        free(s->shape[p]);
        free(s->shape_string[p]);
    }
    free(s->shape);
    free(s->shape_string);
    memset(s, 0, sizeof(*s));
}

static void result_free(sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    switch (r) {
    case SY_FABRIC_R_DEVINDEX: sy_devindex_free(&eng->ix); break;
    case SY_FABRIC_R_PLANES: sy_planes_free(&eng->planes); break;
    case SY_FABRIC_R_PEERS: sy_peers_free(&eng->peers); break;
    case SY_FABRIC_R_COST: sy_cost_free(&eng->cost); break;
    case SY_FABRIC_R_GROUPS: sy_groups_free(&eng->groups); break;
    case SY_FABRIC_R_COORDS: sy_coords_free(&eng->coords); break;
    case SY_FABRIC_R_SHAPES: shapes_free(&eng->shapes); break;
    default: break;
    }
}

static pmix_status_t shapes_compute(sy_fabric_engine_t *eng, sy_fabric_shapes_t *out)
{
    const sy_planes_t *pl = &eng->planes;
    memset(out, 0, sizeof(*out));
    out->dims = eng->coords.dims;
    if (pl->nplanes == 0) {
        return PMIX_SUCCESS;
    }
    uint32_t *devs = malloc((size_t)(pl->ndevices ? pl->ndevices : 1) * sizeof(*devs));
    out->shape = calloc(pl->nplanes, sizeof(*out->shape));
    out->shape_string = calloc(pl->nplanes, sizeof(*out->shape_string));
    if (devs == NULL || out->shape == NULL || out->shape_string == NULL) {
        free(devs);
        free(out->shape);
        free(out->shape_string);
        memset(out, 0, sizeof(*out));
        return PMIX_ERR_NOMEM;
    }
    out->nplanes = pl->nplanes;
    pmix_status_t rc = PMIX_SUCCESS;
    for (uint32_t p = 0; rc == PMIX_SUCCESS && p < pl->nplanes; p++) {
        size_t n = 0;
        for (uint32_t d = 0; d < pl->ndevices; d++) {
            if (pl->plane_of[d] == p) {
                devs[n++] = d;
            }
        }
        rc = sy_coords_shape(&eng->coords, devs, n, &out->shape[p], &out->shape_string[p]);
    }
    free(devs);
    if (rc != PMIX_SUCCESS) {
        shapes_free(out);
    }
    return rc;
}

static pmix_status_t compute_one(sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    pmix_status_t rc = sy_topo_finalize(eng->topo);
    if (rc != PMIX_SUCCESS) {
        set_err(eng, "finalizing the topology failed (%d)", (int)rc);
        return rc;
    }
    const sy_topo_t *t = eng->topo;
    double t0 = now_s();
    sy_cost_opts_t co = {.metric = eng->opts.metric,
                         .algo = eng->opts.algo,
                         .nthreads = eng->opts.nthreads,
                         .max_bytes = eng->opts.max_bytes,
                         .progress = eng->opts.progress,
                         .progress_arg = eng->opts.progress_arg};
    sy_groups_opts_t go = {.method = eng->opts.group_method, .tree_mode = eng->opts.tree_mode};
    /* Compute into a temporary so a failure keeps nothing half-built. */
    union {
        sy_devindex_t ix;
        sy_planes_t planes;
        sy_peers_t peers;
        sy_cost_t cost;
        sy_groups_t groups;
        sy_coords_t coords;
        sy_fabric_shapes_t shapes;
    } tmp;
    memset(&tmp, 0, sizeof(tmp));
    switch (r) {
    case SY_FABRIC_R_DEVINDEX: rc = sy_devindex_build(t, &tmp.ix); break;
    case SY_FABRIC_R_PLANES: rc = sy_planes_compute(t, &eng->ix, &tmp.planes); break;
    case SY_FABRIC_R_PEERS: rc = sy_peers_compute(t, &eng->ix, &tmp.peers); break;
    case SY_FABRIC_R_COST: rc = sy_cost_compute(t, &eng->ix, &co, &tmp.cost); break;
    case SY_FABRIC_R_GROUPS: rc = sy_groups_compute(t, &eng->ix, &go, &tmp.groups); break;
    case SY_FABRIC_R_COORDS:
        rc = sy_coords_compute(t, &eng->ix, PMIX_COORD_LOGICAL_VIEW, &tmp.coords);
        break;
    case SY_FABRIC_R_SHAPES: rc = shapes_compute(eng, &tmp.shapes); break;
    default: return PMIX_ERR_BAD_PARAM;
    }
    if (rc != PMIX_SUCCESS) {
        if (r == SY_FABRIC_R_COST && rc == PMIX_ERR_OUT_OF_RESOURCE) {
            set_err(eng, "cost matrix for %u devices is above the size cap", eng->ix.ndev);
        } else {
            set_err(eng, "computing %s failed: %s", result_names[r], PMIx_Error_string(rc));
        }
        return rc;
    }
    result_free(eng, r);
    switch (r) {
    case SY_FABRIC_R_DEVINDEX: eng->ix = tmp.ix; break;
    case SY_FABRIC_R_PLANES: eng->planes = tmp.planes; break;
    case SY_FABRIC_R_PEERS: eng->peers = tmp.peers; break;
    case SY_FABRIC_R_COST: eng->cost = tmp.cost; break;
    case SY_FABRIC_R_GROUPS: eng->groups = tmp.groups; break;
    case SY_FABRIC_R_COORDS: eng->coords = tmp.coords; break;
    case SY_FABRIC_R_SHAPES: eng->shapes = tmp.shapes; break;
    default: break;
    }
    eng->seconds[r] = now_s() - t0;
    eng->count[r]++;
    eng->res_gen[r] = eng->generation;
    eng->dirty &= ~SY_FABRIC_BIT(r);
    return PMIX_SUCCESS;
}

static pmix_status_t ensure(sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    if (!(eng->dirty & SY_FABRIC_BIT(r))) {
        return PMIX_SUCCESS;
    }
    for (unsigned d = 0; d < SY_FABRIC_R_COUNT; d++) {
        if (deps[r] & SY_FABRIC_BIT(d)) {
            pmix_status_t rc = ensure(eng, (sy_fabric_result_t)d);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    return compute_one(eng, r);
}

pmix_status_t sy_fabric_engine_refresh(sy_fabric_engine_t *eng)
{
    if (eng == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t first = PMIX_SUCCESS;
    /* Enum order already lists dependencies first; keep going past a
     * failure so one oversized matrix does not block the groups. */
    for (unsigned r = 0; r < SY_FABRIC_R_COUNT; r++) {
        pmix_status_t rc = ensure(eng, (sy_fabric_result_t)r);
        if (rc != PMIX_SUCCESS && first == PMIX_SUCCESS) {
            first = rc;
        }
    }
    return first;
}

#define GETTER(fn, R, field, type)                                                                 \
    pmix_status_t fn(sy_fabric_engine_t *eng, const type **out)                                    \
    {                                                                                              \
        if (eng == NULL || out == NULL) {                                                          \
            return PMIX_ERR_BAD_PARAM;                                                             \
        }                                                                                          \
        pmix_status_t rc = ensure(eng, R);                                                         \
        *out = rc == PMIX_SUCCESS ? &eng->field : NULL;                                            \
        return rc;                                                                                 \
    }

GETTER(sy_fabric_engine_devindex, SY_FABRIC_R_DEVINDEX, ix, sy_devindex_t)
GETTER(sy_fabric_engine_planes, SY_FABRIC_R_PLANES, planes, sy_planes_t)
GETTER(sy_fabric_engine_peers, SY_FABRIC_R_PEERS, peers, sy_peers_t)
GETTER(sy_fabric_engine_cost, SY_FABRIC_R_COST, cost, sy_cost_t)
GETTER(sy_fabric_engine_groups, SY_FABRIC_R_GROUPS, groups, sy_groups_t)
GETTER(sy_fabric_engine_coords, SY_FABRIC_R_COORDS, coords, sy_coords_t)
GETTER(sy_fabric_engine_shapes, SY_FABRIC_R_SHAPES, shapes, sy_fabric_shapes_t)

unsigned sy_fabric_engine_dirty(const sy_fabric_engine_t *eng)
{
    return eng == NULL ? 0 : eng->dirty;
}

uint64_t sy_fabric_engine_result_generation(const sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    return (eng == NULL || (unsigned)r >= SY_FABRIC_R_COUNT) ? 0 : eng->res_gen[r];
}

uint64_t sy_fabric_engine_compute_count(const sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    return (eng == NULL || (unsigned)r >= SY_FABRIC_R_COUNT) ? 0 : eng->count[r];
}

double sy_fabric_engine_compute_seconds(const sy_fabric_engine_t *eng, sy_fabric_result_t r)
{
    return (eng == NULL || (unsigned)r >= SY_FABRIC_R_COUNT) ? 0.0 : eng->seconds[r];
}

const sy_topo_t *sy_fabric_engine_topo(const sy_fabric_engine_t *eng)
{
    return eng == NULL ? NULL : eng->topo;
}

uint64_t sy_fabric_engine_generation(const sy_fabric_engine_t *eng)
{
    return eng == NULL ? 0 : eng->generation;
}

const char *sy_fabric_engine_last_error(const sy_fabric_engine_t *eng)
{
    return eng == NULL ? "" : eng->err;
}

/* ------------------------------------------------------------ creation */

static uint64_t fnv1a(const char *buf, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)buf[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Read the whole file, with its stat taken before reading so a write
 * racing the read shows up as a change at the next reload. */
static pmix_status_t read_file(const char *path, char **buf, size_t *len, struct stat *st,
                               char **errmsg)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errmsg != NULL) {
            char m[1024];
            snprintf(m, sizeof(m), "%.500s: cannot open: %s", path, strerror(errno));
            *errmsg = strdup(m);
        }
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (fstat(fileno(f), st) != 0) {
        memset(st, 0, sizeof(*st));
    }
    pmix_status_t rc = sy_read_stream(f, buf, len);
    fclose(f);
    if (rc == PMIX_ERR_FILE_READ_FAILURE) {
        if (errmsg != NULL) {
            *errmsg = dup_msg(path, "read error");
        }
        return rc;
    }
    if (rc != PMIX_SUCCESS) {
        if (errmsg != NULL) {
            *errmsg = dup_msg(path, "too large or out of memory");
        }
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t engine_new(sy_topo_t *t, const sy_fabric_engine_opts_t *opts,
                                sy_fabric_engine_t **out)
{
    sy_fabric_engine_t *eng = calloc(1, sizeof(*eng));
    if (eng == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (opts != NULL) {
        eng->opts = *opts;
    }
    eng->topo = t;
    eng->generation = 1;
    t->generation = 1;
    eng->dirty = SY_FABRIC_ALL;
    *out = eng;
    return PMIX_SUCCESS;
}

static pmix_status_t finish_create(sy_fabric_engine_t *eng, sy_fabric_engine_t **out, char **errmsg)
{
    if (eng->opts.flags & SY_FABRIC_ENGINE_EAGER) {
        pmix_status_t rc = sy_fabric_engine_refresh(eng);
        if (rc != PMIX_SUCCESS) {
            if (errmsg != NULL) {
                *errmsg = strdup(eng->err);
            }
            sy_fabric_engine_free(eng);
            return rc;
        }
    }
    *out = eng;
    return PMIX_SUCCESS;
}

pmix_status_t sy_fabric_engine_load(const char *path, const char *format,
                                    const sy_fabric_engine_opts_t *opts, sy_fabric_engine_t **out,
                                    char **errmsg)
{
    if (path == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *buf = NULL;
    size_t len = 0;
    struct stat st;
    pmix_status_t rc = read_file(path, &buf, &len, &st, errmsg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    sy_topo_t *t = NULL;
    rc = sy_topo_load_buffer(buf, len, path, format, NULL, &t, errmsg);
    uint64_t h = fnv1a(buf, len);
    sy_big_free(buf);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    sy_fabric_engine_t *eng = NULL;
    if ((rc = engine_new(t, opts, &eng)) != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    eng->path = strdup(path);
    eng->format = format != NULL ? strdup(format) : NULL;
    if (eng->path == NULL || (format != NULL && eng->format == NULL)) {
        sy_fabric_engine_free(eng);
        return PMIX_ERR_NOMEM;
    }
    eng->st = st;
    eng->hash = h;
    return finish_create(eng, out, errmsg);
}

pmix_status_t sy_fabric_engine_generate(const char *spec, const sy_fabric_engine_opts_t *opts,
                                        sy_fabric_engine_t **out, char **errmsg)
{
    if (spec == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_topo_t *t = NULL;
    pmix_status_t rc = sy_topo_generate(spec, &t, errmsg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    sy_fabric_engine_t *eng = NULL;
    if ((rc = engine_new(t, opts, &eng)) != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    return finish_create(eng, out, errmsg);
}

void sy_fabric_engine_free(sy_fabric_engine_t *eng)
{
    if (eng == NULL) {
        return;
    }
    for (unsigned r = 0; r < SY_FABRIC_R_COUNT; r++) {
        result_free(eng, (sy_fabric_result_t)r);
    }
    sy_topo_free(eng->topo);
    free(eng->path);
    free(eng->format);
    free(eng);
}

/* ------------------------------------------------------------- changes */

static void bump(sy_fabric_engine_t *eng, unsigned invalidate)
{
    eng->generation++;
    eng->topo->generation = eng->generation;
    eng->dirty |= invalidate;
}

pmix_status_t sy_fabric_engine_link_state(sy_fabric_engine_t *eng, const char *a_name,
                                          const char *b_name, uint8_t state)
{
    if (eng == NULL || a_name == NULL || b_name == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (state != PMIX_LINK_UP && state != PMIX_LINK_DOWN && state != PMIX_LINK_STATE_UNKNOWN) {
        set_err(eng, "invalid link state %u", (unsigned)state);
        return PMIX_ERR_BAD_PARAM;
    }
    sy_topo_t *t = eng->topo;
    uint32_t a, b, e;
    if (sy_topo_find(t, a_name, &a) != PMIX_SUCCESS ||
        sy_topo_find(t, b_name, &b) != PMIX_SUCCESS ||
        sy_topo_find_link(t, a, b, &e) != PMIX_SUCCESS) {
        set_err(eng, "no link %.100s - %.100s", a_name, b_name);
        return PMIX_ERR_NOT_FOUND;
    }
    uint8_t old = t->e[e].state;
    if (old == state) {
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = sy_topo_set_link_state(t, e, state);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    unsigned inv = 0;
    if ((old == PMIX_LINK_DOWN) != (state == PMIX_LINK_DOWN)) {
        inv = SY_FABRIC_BIT(SY_FABRIC_R_COST) | SY_FABRIC_BIT(SY_FABRIC_R_PLANES) |
              SY_FABRIC_BIT(SY_FABRIC_R_COORDS) | SY_FABRIC_BIT(SY_FABRIC_R_SHAPES);
        bool touches_device = t->v[a].kind == SY_TOPO_DEVICE || t->v[b].kind == SY_TOPO_DEVICE;
        if (touches_device) {
            /* Attachments (peers, first switch of a device) moved. */
            inv |= SY_FABRIC_BIT(SY_FABRIC_R_PEERS) | SY_FABRIC_BIT(SY_FABRIC_R_GROUPS);
        } else if (eng->opts.group_method != SY_GROUPS_LEAF) {
            /* Pods, triangles and communities follow switch links. */
            inv |= SY_FABRIC_BIT(SY_FABRIC_R_GROUPS);
        }
    }
    bump(eng, inv);
    return PMIX_SUCCESS;
}

pmix_status_t sy_fabric_engine_add_device(sy_fabric_engine_t *eng, const char *name,
                                          const char *host, const char *switch_name, uint64_t speed)
{
    if (eng == NULL || name == NULL || switch_name == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_topo_t *t = eng->topo;
    uint32_t sw, id;
    if (sy_topo_find(t, switch_name, &sw) != PMIX_SUCCESS || t->v[sw].kind != SY_TOPO_SWITCH) {
        set_err(eng, "no switch %.100s", switch_name);
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_status_t rc = sy_topo_add_device(t, name, host, NULL, &id);
    if (rc != PMIX_SUCCESS) {
        t->generation = eng->generation;
        set_err(eng, "cannot add device %.100s: %s", name, PMIx_Error_string(rc));
        return rc;
    }
    if (t->v[sw].plane != SY_TOPO_NONE) {
        rc = sy_topo_set_plane(t, id, t->v[sw].plane);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_topo_add_link(t, id, sw, speed, PMIX_LINK_UP, 0, NULL);
    }
    if (rc != PMIX_SUCCESS) {
        /* Undo: the vertex is the last one, so removal moves no id and
         * gives back the graph the results were computed from. */
        if (sy_topo_remove_vertex(t, id) == PMIX_SUCCESS) {
            t->generation = eng->generation;
        } else {
            bump(eng, SY_FABRIC_ALL);
        }
        set_err(eng, "cannot link device %.100s: %s", name, PMIx_Error_string(rc));
        return rc;
    }
    bump(eng, SY_FABRIC_ALL);
    return PMIX_SUCCESS;
}

pmix_status_t sy_fabric_engine_remove_device(sy_fabric_engine_t *eng, const char *name)
{
    if (eng == NULL || name == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t v;
    if (sy_topo_find(eng->topo, name, &v) != PMIX_SUCCESS) {
        set_err(eng, "no device %.100s", name);
        return PMIX_ERR_NOT_FOUND;
    }
    if (eng->topo->v[v].kind != SY_TOPO_DEVICE) {
        set_err(eng, "%.100s is a switch, not a device", name);
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = sy_topo_remove_vertex(eng->topo, v);
    if (rc != PMIX_SUCCESS) {
        set_err(eng, "cannot remove %.100s: %s", name, PMIx_Error_string(rc));
        return rc;
    }
    bump(eng, SY_FABRIC_ALL);
    return PMIX_SUCCESS;
}

pmix_status_t sy_fabric_engine_reload(sy_fabric_engine_t *eng)
{
    if (eng == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (eng->path == NULL) {
        set_err(eng, "generated topology: nothing to reload");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    struct stat st;
    if (stat(eng->path, &st) == 0 && st.st_size == eng->st.st_size &&
        st.st_mtim.tv_sec == eng->st.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == eng->st.st_mtim.tv_nsec && st.st_ino == eng->st.st_ino) {
        return PMIX_SUCCESS;
    }
    char *buf = NULL, *msg = NULL;
    size_t len = 0;
    pmix_status_t rc = read_file(eng->path, &buf, &len, &st, &msg);
    if (rc != PMIX_SUCCESS) {
        set_err(eng, "%s", msg != NULL ? msg : "read failed");
        free(msg);
        return rc;
    }
    uint64_t h = fnv1a(buf, len);
    if (h == eng->hash) {
        /* Touched but identical: remember the new stat, change nothing. */
        sy_big_free(buf);
        eng->st = st;
        return PMIX_SUCCESS;
    }
    sy_topo_t *t = NULL;
    rc = sy_topo_load_buffer(buf, len, eng->path, eng->format, NULL, &t, &msg);
    sy_big_free(buf);
    if (rc != PMIX_SUCCESS) {
        set_err(eng, "%s", msg != NULL ? msg : "parse failed");
        free(msg);
        return rc;
    }
    sy_topo_free(eng->topo);
    eng->topo = t;
    eng->st = st;
    eng->hash = h;
    bump(eng, SY_FABRIC_ALL);
    return PMIX_SUCCESS;
}
