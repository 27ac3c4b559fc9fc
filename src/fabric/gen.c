/* Synthetic topologies from a spec string (full description in
 * docs/fabric.md):
 *
 *   fattree:k=K[,speed=S]
 *   dragonfly:a=A,p=P,h=H,g=G[,speed=S]
 *   torus:D1xD2x...[,p=P][,speed=S]
 *
 * Devices come first (ids 0..N-1, named n0..n{N-1}, host = name), then
 * switches, so device order is the natural one of each structure. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_util.h"

#define GEN_MAX_DIMS 16
#define GEN_MAX_PARAM 10000000ULL

typedef struct {
    const char *spec;
    char **errmsg;
    uint64_t speed;
} gen_ctx_t;

static pmix_status_t gen_err(gen_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static pmix_status_t gen_err(gen_ctx_t *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sy_read_error(c->errmsg, c->spec, 0, "%s", msg);
}

static pmix_status_t add_dev(gen_ctx_t *c, sy_topo_t *t, uint64_t i)
{
    char name[32];
    snprintf(name, sizeof(name), "n%" PRIu64, i);
    pmix_status_t rc = sy_topo_add_device(t, name, name, NULL, NULL);
    return rc == PMIX_SUCCESS ? rc : gen_err(c, "cannot add device %s", name);
}

static pmix_status_t add_sw(gen_ctx_t *c, sy_topo_t *t, const char *name, int32_t level)
{
    pmix_status_t rc = sy_topo_add_switch(t, name, level, NULL);
    return rc == PMIX_SUCCESS ? rc : gen_err(c, "cannot add switch %s", name);
}

static pmix_status_t gen_link(gen_ctx_t *c, sy_topo_t *t, uint64_t a, uint64_t b)
{
    pmix_status_t rc = sy_topo_add_link(t, (uint32_t)a, (uint32_t)b, c->speed, PMIX_LINK_UP,
                                        SY_TOPO_LINK_PARALLEL, NULL);
    return rc == PMIX_SUCCESS ? rc : gen_err(c, "cannot add a link");
}

static pmix_status_t check_size(gen_ctx_t *c, uint64_t nv)
{
    if (nv > SY_TOPO_GEN_MAX_VERTICES) {
        return gen_err(c, "would create %" PRIu64 " vertices, more than the generator limit of %u",
                       nv, SY_TOPO_GEN_MAX_VERTICES);
    }
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------ fat tree */

/* k pods of k/2 edge + k/2 aggregation switches, (k/2)^2 cores, k/2 hosts
 * per edge switch.  Aggregation switch j of every pod connects to cores
 * j*k/2 .. j*k/2+k/2-1. */
static pmix_status_t gen_fattree(gen_ctx_t *c, sy_topo_t *t, uint64_t k)
{
    if (k < 2 || k % 2 || k > 4096) {
        return gen_err(c, "fattree needs an even k between 2 and 4096");
    }
    uint64_t h = k / 2, nhost = k * h * h, nedge = k * h, ncore = h * h;
    pmix_status_t rc = check_size(c, nhost + 2 * nedge + ncore);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    char name[48];
    for (uint64_t i = 0; i < nhost && rc == PMIX_SUCCESS; i++) {
        rc = add_dev(c, t, i);
    }
    uint64_t edge0 = nhost, agg0 = edge0 + nedge, core0 = agg0 + nedge;
    for (uint64_t i = 0; i < nedge && rc == PMIX_SUCCESS; i++) {
        snprintf(name, sizeof(name), "edge%" PRIu64, i);
        rc = add_sw(c, t, name, 0);
    }
    for (uint64_t i = 0; i < nedge && rc == PMIX_SUCCESS; i++) {
        snprintf(name, sizeof(name), "agg%" PRIu64, i);
        rc = add_sw(c, t, name, 1);
    }
    for (uint64_t i = 0; i < ncore && rc == PMIX_SUCCESS; i++) {
        snprintf(name, sizeof(name), "core%" PRIu64, i);
        rc = add_sw(c, t, name, 2);
    }
    for (uint64_t i = 0; i < nhost && rc == PMIX_SUCCESS; i++) {
        rc = gen_link(c, t, i, edge0 + i / h);
    }
    for (uint64_t pod = 0; pod < k && rc == PMIX_SUCCESS; pod++) {
        for (uint64_t e = 0; e < h && rc == PMIX_SUCCESS; e++) {
            for (uint64_t a = 0; a < h && rc == PMIX_SUCCESS; a++) {
                rc = gen_link(c, t, edge0 + pod * h + e, agg0 + pod * h + a);
            }
        }
        for (uint64_t a = 0; a < h && rc == PMIX_SUCCESS; a++) {
            for (uint64_t j = 0; j < h && rc == PMIX_SUCCESS; j++) {
                rc = gen_link(c, t, agg0 + pod * h + a, core0 + a * h + j);
            }
        }
    }
    return rc;
}

/* ----------------------------------------------------------- dragonfly */

/* g groups of a routers, all-to-all inside a group, p terminals and h
 * global ports per router.  Global wiring ("absolute" arrangement): group
 * i's global ports are numbered j = 0..a*h-1, port j on router j/h; with
 * m = g-1, port j leads to group s = j mod m if s < i, else s+1, where it
 * lands on port (j/m)*m + (i < t ? i : i-1).  Every group pair is thus
 * joined by a*h/m cables. */
static pmix_status_t gen_dragonfly(gen_ctx_t *c, sy_topo_t *t, uint64_t a, uint64_t p, uint64_t h,
                                   uint64_t g)
{
    if (a == 0 || p == 0 || g == 0 || (g > 1 && h == 0)) {
        return gen_err(c, "dragonfly needs a, p, g >= 1 and h >= 1 when g > 1");
    }
    if (a > 65536 || p > 65536 || h > 65536 || g > 65536) {
        return gen_err(c, "dragonfly parameter too large");
    }
    uint64_t m = g - 1;
    if (g > 1 && (a * h) % m) {
        return gen_err(c, "dragonfly needs a*h to be a multiple of g-1 (every group pair gets "
                          "the same number of global links)");
    }
    uint64_t nr = g * a, nd = nr * p;
    pmix_status_t rc = check_size(c, nr + nd);
    if (rc == PMIX_SUCCESS && g * a * (a - 1) / 2 + nd + g * a * h / 2 > SY_TOPO_MAX_EDGES) {
        rc = gen_err(c, "dragonfly has too many links");
    }
    char name[48];
    for (uint64_t i = 0; i < nd && rc == PMIX_SUCCESS; i++) {
        rc = add_dev(c, t, i);
    }
    for (uint64_t gi = 0; gi < g && rc == PMIX_SUCCESS; gi++) {
        for (uint64_t r = 0; r < a && rc == PMIX_SUCCESS; r++) {
            snprintf(name, sizeof(name), "r%" PRIu64 "_%" PRIu64, gi, r);
            rc = add_sw(c, t, name, 0);
        }
    }
    for (uint64_t i = 0; i < nd && rc == PMIX_SUCCESS; i++) {
        rc = gen_link(c, t, i, nd + i / p);
    }
    for (uint64_t gi = 0; gi < g && rc == PMIX_SUCCESS; gi++) {
        for (uint64_t r = 0; r < a && rc == PMIX_SUCCESS; r++) {
            for (uint64_t s = r + 1; s < a && rc == PMIX_SUCCESS; s++) {
                rc = gen_link(c, t, nd + gi * a + r, nd + gi * a + s);
            }
        }
    }
    for (uint64_t gi = 0; gi < g && g > 1 && rc == PMIX_SUCCESS; gi++) {
        for (uint64_t j = 0; j < a * h && rc == PMIX_SUCCESS; j++) {
            uint64_t s = j % m, tg = s < gi ? s : s + 1;
            if (tg < gi) {
                continue; /* laid from the other end */
            }
            uint64_t jj = (j / m) * m + (gi < tg ? gi : gi - 1);
            rc = gen_link(c, t, nd + gi * a + j / h, nd + tg * a + jj / h);
        }
    }
    return rc;
}

/* --------------------------------------------------------------- torus */

/* One router per lattice point (dimension 0 varies fastest), named
 * r<c0>-<c1>-..., with p devices each; every router links to its +1
 * neighbour along each dimension, wrapping around.  A dimension of size 2
 * gives one link per pair, size 1 none. */
static pmix_status_t gen_torus(gen_ctx_t *c, sy_topo_t *t, const uint64_t *dim, size_t nd,
                               uint64_t p)
{
    uint64_t n = 1;
    for (size_t i = 0; i < nd; i++) {
        if (dim[i] == 0 || dim[i] > SY_TOPO_GEN_MAX_VERTICES) {
            return gen_err(c, "torus dimensions must be between 1 and the vertex limit");
        }
        n *= dim[i];
        if (n > SY_TOPO_GEN_MAX_VERTICES) {
            return check_size(c, n);
        }
    }
    if (p == 0 || p > 65536) {
        return gen_err(c, "torus needs p between 1 and 65536");
    }
    pmix_status_t rc = check_size(c, n + n * p);
    uint64_t ndev = n * p;
    for (uint64_t i = 0; i < ndev && rc == PMIX_SUCCESS; i++) {
        rc = add_dev(c, t, i);
    }
    uint64_t coord[GEN_MAX_DIMS] = {0};
    for (uint64_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        char name[16 * GEN_MAX_DIMS + 8];
        size_t off = 0;
        for (size_t d = 0; d < nd; d++) {
            off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%" PRIu64, d ? "-" : "r",
                                    coord[d]);
        }
        rc = add_sw(c, t, name, 0);
        for (size_t d = 0; d < nd; d++) { /* odometer */
            if (++coord[d] < dim[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    for (uint64_t i = 0; i < ndev && rc == PMIX_SUCCESS; i++) {
        rc = gen_link(c, t, i, ndev + i / p);
    }
    memset(coord, 0, sizeof(coord));
    for (uint64_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        uint64_t stride = 1;
        for (size_t d = 0; d < nd && rc == PMIX_SUCCESS; d++) {
            if (dim[d] >= 3 || (dim[d] == 2 && coord[d] == 0)) {
                uint64_t nb = (coord[d] + 1 < dim[d]) ? i + stride : i - coord[d] * stride;
                rc = gen_link(c, t, ndev + i, ndev + nb);
            }
            stride *= dim[d];
        }
        for (size_t d = 0; d < nd; d++) {
            if (++coord[d] < dim[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    return rc;
}

/* ---------------------------------------------------------------- spec */

static bool parse_param(const char *s, uint64_t *v)
{
    return sy_parse_u64(s, false, v) && *v <= GEN_MAX_PARAM;
}

pmix_status_t sy_topo_generate(const char *spec, sy_topo_t **out, char **errmsg)
{
    if (spec == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    gen_ctx_t c = {.spec = spec, .errmsg = errmsg};
    if (strlen(spec) > 1024) {
        return sy_read_error(errmsg, "<spec>", 0, "generator spec too long");
    }
    char *copy = strdup(spec);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    char *colon = strchr(copy, ':');
    char *kind = copy, *params = colon ? colon + 1 : copy + strlen(copy);
    if (colon) {
        *colon = '\0';
    }
    enum { K_FT, K_DF, K_TORUS } k;
    pmix_status_t rc = PMIX_SUCCESS;
    if (strcmp(kind, "fattree") == 0) {
        k = K_FT;
    } else if (strcmp(kind, "dragonfly") == 0) {
        k = K_DF;
    } else if (strcmp(kind, "torus") == 0) {
        k = K_TORUS;
    } else {
        rc = gen_err(&c, "unknown generator '%.64s' (expected fattree, dragonfly or torus)", kind);
        free(copy);
        return rc;
    }
    /* Parameters: comma-separated key=value; a torus's first item is its
     * dimensions. */
    uint64_t kk = 0, a = 0, p = 0, h = 0, g = 0, dims[GEN_MAX_DIMS];
    bool seen[6] = {false}; /* k a p h g speed */
    size_t ndims = 0;
    char *save = NULL, *item;
    bool first = true;
    for (item = strtok_r(params, ",", &save); item != NULL && rc == PMIX_SUCCESS;
         item = strtok_r(NULL, ",", &save), first = false) {
        if (K_TORUS == k && first) {
            /* Strict split: "4xx4" or a trailing 'x' is an error. */
            for (char *d = item;;) {
                char *x = strchr(d, 'x');
                if (x != NULL) {
                    *x = '\0';
                }
                if (ndims == GEN_MAX_DIMS || !parse_param(d, &dims[ndims])) {
                    rc = gen_err(
                        &c, "expected torus dimensions like 4x4x8 (at most 16), got '%.64s'", d);
                    break;
                }
                ndims++;
                if (x == NULL) {
                    break;
                }
                d = x + 1;
            }
            continue;
        }
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            rc = gen_err(&c, "expected key=value, got '%.64s'", item);
            break;
        }
        *eq = '\0';
        const char *val = eq + 1;
        static const char *const keys[] = {"k", "a", "p", "h", "g", "speed"};
        int ki = -1;
        for (int i = 0; i < 6; i++) {
            if (strcmp(item, keys[i]) == 0) {
                ki = i;
            }
        }
        bool allowed = (ki == 5) || (K_FT == k && ki == 0) || (K_DF == k && ki >= 1 && ki <= 4) ||
                       (K_TORUS == k && ki == 2);
        if (ki < 0 || !allowed) {
            rc = gen_err(&c, "unknown parameter '%.64s' for this generator", item);
            break;
        }
        if (seen[ki]) {
            rc = gen_err(&c, "parameter '%.64s' given twice", item);
            break;
        }
        seen[ki] = true;
        uint64_t *slot[] = {&kk, &a, &p, &h, &g};
        bool ok = (ki == 5) ? sy_parse_speed(val, &c.speed) : parse_param(val, slot[ki]);
        if (!ok) {
            rc = gen_err(&c, "bad value for '%.64s'", item);
        }
    }
    if (rc == PMIX_SUCCESS) {
        if (K_FT == k && !seen[0]) {
            rc = gen_err(&c, "fattree needs k=K");
        } else if (K_DF == k && !(seen[1] && seen[2] && seen[3] && seen[4])) {
            rc = gen_err(&c, "dragonfly needs a=, p=, h= and g=");
        } else if (K_TORUS == k && ndims == 0) {
            rc = gen_err(&c, "torus needs dimensions, e.g. torus:4x4x8");
        }
    }
    sy_topo_t *t = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_new_topo(NULL, spec, kind, &t);
    }
    if (rc == PMIX_SUCCESS) {
        switch (k) {
        case K_FT: rc = gen_fattree(&c, t, kk); break;
        case K_DF: rc = gen_dragonfly(&c, t, a, p, h, g); break;
        case K_TORUS: rc = gen_torus(&c, t, dims, ndims, seen[2] ? p : 1); break;
        }
    }
    free(copy);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}
