/* Device coordinates (see coords.h). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/coords.h"
#include "fabric/levels.h"
#include "fabric/structure.h"

#define TORUS_MAX_DIMS 16

static pmix_status_t alloc_coords(sy_coords_t *c, uint32_t ndev, uint32_t dims)
{
    c->ndev = ndev;
    c->dims = dims;
    c->coord = calloc((size_t)ndev * dims + 1, sizeof(uint32_t));
    return c->coord == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

/* -------------------------------------------------------------- torus */

static bool parse_uint(const char **p, uint32_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (*s < '0' || *s > '9') {
        return false;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        x = x * 10 + (uint64_t)(*s - '0');
        if (x > UINT32_MAX) {
            return false;
        }
    }
    *v = (uint32_t)x;
    *p = s;
    return true;
}

/* Dimensions from the generator spec "torus:D1xD2x...[,...]". */
static uint32_t torus_dims(const sy_topo_t *t, uint32_t *dim)
{
    if (t->format == NULL || t->source == NULL || strcmp(t->format, "torus") != 0 ||
        strncmp(t->source, "torus:", 6) != 0) {
        return 0;
    }
    const char *p = t->source + 6;
    uint32_t nd = 0;
    for (;;) {
        if (nd == TORUS_MAX_DIMS || !parse_uint(&p, &dim[nd]) || dim[nd] == 0) {
            return 0;
        }
        nd++;
        if ('x' != *p) {
            break;
        }
        p++;
    }
    return ('\0' == *p || ',' == *p) ? nd : 0;
}

/* Lattice position from a generator router name "r<c0>-<c1>-...". */
static bool router_pos(const char *name, uint32_t nd, const uint32_t *dim, uint32_t *pos)
{
    if (name == NULL || name[0] != 'r') {
        return false;
    }
    const char *p = name + 1;
    for (uint32_t d = 0; d < nd; d++) {
        if ((d > 0 && '-' != *p++) || !parse_uint(&p, &pos[d]) || pos[d] >= dim[d]) {
            return false;
        }
    }
    return '\0' == *p;
}

/* PMIX_ERR_NOT_SUPPORTED when the topology is not a generated torus
 * whose devices all hang off correctly named routers. */
static pmix_status_t coords_torus(const sy_topo_t *t, const sy_devindex_t *ix,
                                  const sy_levels_t *lv, sy_coords_t *out)
{
    uint32_t dim[TORUS_MAX_DIMS], pos[TORUS_MAX_DIMS];
    uint32_t nd = torus_dims(t, dim);
    if (nd == 0 || ix->ndev == 0) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    uint32_t *port = calloc((size_t)t->nv + 1, sizeof(uint32_t));
    if (port == NULL) {
        return PMIX_ERR_NOMEM;
    }
    uint32_t maxport = 0;
    for (uint32_t d = 0; d < ix->ndev; d++) {
        uint32_t sw = lv->attach[ix->dev_to_vertex[d]];
        if (sw == SY_TOPO_NONE || !router_pos(t->v[sw].name, nd, dim, pos)) {
            free(port);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (++port[sw] > maxport) {
            maxport = port[sw];
        }
    }
    uint32_t dims = nd + (maxport > 1 ? 1 : 0);
    pmix_status_t rc = alloc_coords(out, ix->ndev, dims);
    memset(port, 0, ((size_t)t->nv + 1) * sizeof(uint32_t));
    for (uint32_t d = 0; rc == PMIX_SUCCESS && d < ix->ndev; d++) {
        uint32_t sw = lv->attach[ix->dev_to_vertex[d]];
        uint32_t *x = out->coord + (size_t)d * dims;
        router_pos(t->v[sw].name, nd, dim, x);
        if (dims > nd) {
            x[nd] = port[sw];
        }
        port[sw]++;
    }
    free(port);
    out->method = SY_COORDS_TORUS;
    return rc;
}

/* ------------------------------------------- (part, switch, port) */

static pmix_status_t coords_partition(const sy_topo_t *t, const sy_devindex_t *ix,
                                      const sy_levels_t *lv, const sy_partition_t *p,
                                      sy_coords_t *out)
{
    size_t nv = (size_t)t->nv + 1;
    uint32_t *partid = malloc(((size_t)p->npart + 1) * sizeof(uint32_t));
    uint32_t *nsw = calloc((size_t)p->npart + 1, sizeof(uint32_t));
    uint32_t *swid = malloc(nv * sizeof(uint32_t));
    uint32_t *port = calloc(nv, sizeof(uint32_t));
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (partid == NULL || nsw == NULL || swid == NULL || port == NULL) {
        goto done;
    }
    for (uint32_t i = 0; i < p->npart; i++) {
        partid[i] = SY_TOPO_NONE;
    }
    for (size_t v = 0; v < nv; v++) {
        swid[v] = SY_TOPO_NONE;
    }
    rc = alloc_coords(out, ix->ndev, 3);
    uint32_t next = 0;
    for (uint32_t d = 0; rc == PMIX_SUCCESS && d < ix->ndev; d++) {
        uint32_t *x = out->coord + (size_t)d * 3;
        uint32_t sw = lv->attach[ix->dev_to_vertex[d]];
        uint32_t part = sw == SY_TOPO_NONE ? SY_TOPO_NONE : p->part[sw];
        if (part == SY_TOPO_NONE || part >= p->npart) {
            x[0] = next++;
            continue;
        }
        if (partid[part] == SY_TOPO_NONE) {
            partid[part] = next++;
        }
        if (swid[sw] == SY_TOPO_NONE) {
            swid[sw] = nsw[part]++;
        }
        x[0] = partid[part];
        x[1] = swid[sw];
        x[2] = port[sw]++;
    }
done:
    free(partid);
    free(nsw);
    free(swid);
    free(port);
    return rc;
}

/* ---------------------------------------------------------------- BFS */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* (component, layer, ordinal in layer).  Devices do not forward: a BFS
 * expands only its root device and switches. */
static pmix_status_t coords_bfs(const sy_topo_t *t, const sy_devindex_t *ix, sy_coords_t *out)
{
    size_t nv = (size_t)t->nv + 1;
    uint32_t *dist = malloc(nv * sizeof(uint32_t));
    uint32_t *queue = malloc(nv * sizeof(uint32_t));
    uint32_t *found = malloc(((size_t)ix->ndev + 1) * sizeof(uint32_t));
    uint32_t *count = calloc(nv, sizeof(uint32_t));
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (dist == NULL || queue == NULL || found == NULL || count == NULL) {
        goto done;
    }
    rc = alloc_coords(out, ix->ndev, 3);
    for (size_t v = 0; v < nv; v++) {
        dist[v] = UINT32_MAX;
    }
    uint32_t comp = 0;
    for (uint32_t d0 = 0; rc == PMIX_SUCCESS && d0 < ix->ndev; d0++) {
        uint32_t root = ix->dev_to_vertex[d0];
        if (UINT32_MAX != dist[root]) {
            continue;
        }
        size_t head = 0, tail = 0, nfound = 0;
        uint32_t maxd = 0;
        dist[root] = 0;
        queue[tail++] = root;
        while (head < tail) {
            uint32_t v = queue[head++];
            if (t->v[v].kind == SY_TOPO_DEVICE) {
                found[nfound++] = ix->vertex_to_dev[v];
                if (v != root) {
                    continue;
                }
            }
            for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
                uint32_t u = t->adj[k];
                if (UINT32_MAX == dist[u] && sy_link_usable(t, t->adj_edge[k])) {
                    dist[u] = dist[v] + 1;
                    maxd = dist[u] > maxd ? dist[u] : maxd;
                    queue[tail++] = u;
                }
            }
        }
        qsort(found, nfound, sizeof(uint32_t), cmp_u32);
        for (size_t i = 0; i < nfound; i++) {
            uint32_t *x = out->coord + (size_t)found[i] * 3;
            uint32_t layer = dist[ix->dev_to_vertex[found[i]]];
            x[0] = comp;
            x[1] = layer;
            x[2] = count[layer]++;
        }
        memset(count, 0, ((size_t)maxd + 1) * sizeof(uint32_t));
        comp++;
    }
done:
    free(dist);
    free(queue);
    free(found);
    free(count);
    out->method = SY_COORDS_BFS;
    return rc;
}

/* -------------------------------------------------------- uniqueness */

static uint64_t hash_vec(const uint32_t *x, uint32_t dims)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t i = 0; i < dims; i++) {
        h = (h ^ x[i]) * 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static pmix_status_t check_unique(const sy_coords_t *c)
{
    size_t cap = 2;
    while (cap < 2 * (size_t)c->ndev) {
        cap *= 2;
    }
    uint32_t *slot = malloc(cap * sizeof(uint32_t));
    if (slot == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < cap; i++) {
        slot[i] = SY_TOPO_NONE;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    size_t bytes = (size_t)c->dims * sizeof(uint32_t);
    for (uint32_t d = 0; d < c->ndev && rc == PMIX_SUCCESS; d++) {
        const uint32_t *x = c->coord + (size_t)d * c->dims;
        size_t i = (size_t)hash_vec(x, c->dims) & (cap - 1);
        for (; slot[i] != SY_TOPO_NONE; i = (i + 1) & (cap - 1)) {
            if (memcmp(c->coord + (size_t)slot[i] * c->dims, x, bytes) == 0) {
                rc = PMIX_ERROR;
                break;
            }
        }
        slot[i] = d;
    }
    free(slot);
    return rc;
}

/* --------------------------------------------------------------- API */

/* method 0: pick from the classification. */
static pmix_status_t structural(const sy_topo_t *t, const sy_devindex_t *ix, const sy_levels_t *lv,
                                sy_coords_method_t method, sy_coords_t *out)
{
    sy_partition_t tri, pods;
    uint32_t nkept = 0;
    pmix_status_t rc = sy_partition_triangles(t, &tri, &nkept);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (method == 0) {
        switch (sy_fabric_classify(t, lv, &tri, nkept)) {
        case SY_FABRIC_FLAT:
        case SY_FABRIC_TREE: method = SY_COORDS_TREE; break;
        case SY_FABRIC_DRAGONFLY: method = SY_COORDS_DRAGONFLY; break;
        default: method = SY_COORDS_BFS; break;
        }
    }
    switch (method) {
    case SY_COORDS_TREE:
        rc = sy_partition_pods(t, lv, &pods);
        if (rc == PMIX_SUCCESS) {
            rc = coords_partition(t, ix, lv, &pods, out);
            sy_partition_free(&pods);
        }
        break;
    case SY_COORDS_DRAGONFLY: rc = coords_partition(t, ix, lv, &tri, out); break;
    default: rc = coords_bfs(t, ix, out); break;
    }
    out->method = method;
    sy_partition_free(&tri);
    return rc;
}

pmix_status_t sy_coords_compute(const sy_topo_t *t, const sy_devindex_t *ix, pmix_coord_view_t view,
                                sy_coords_t *out)
{
    return sy_coords_compute_method(t, ix, view, 0, out);
}

pmix_status_t sy_coords_compute_method(const sy_topo_t *t, const sy_devindex_t *ix,
                                       pmix_coord_view_t view, sy_coords_method_t method,
                                       sy_coords_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if ((unsigned)method > SY_COORDS_BFS) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (t == NULL || ix == NULL || (ix->ndev > 0 && ix->dev_to_vertex == NULL) ||
        (t->nv > 0 && ix->vertex_to_dev == NULL) || ix->ndev != t->ndevices) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (view == PMIX_COORD_VIEW_UNDEF) {
        view = PMIX_COORD_LOGICAL_VIEW;
    }
    if (view != PMIX_COORD_LOGICAL_VIEW && view != PMIX_COORD_PHYSICAL_VIEW) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (uint32_t d = 0; d < ix->ndev; d++) {
        uint32_t v = ix->dev_to_vertex[d];
        if (v >= t->nv || t->v[v].kind != SY_TOPO_DEVICE || ix->vertex_to_dev[v] != d) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    if (view == PMIX_COORD_PHYSICAL_VIEW) {
        /* placement, not structure: the method does not apply */
        pmix_status_t prc = sy_coords_physical(t, ix, out);
        if (prc == PMIX_SUCCESS && (prc = check_unique(out)) != PMIX_SUCCESS) {
            sy_coords_free(out);
        }
        return prc;
    }
    sy_levels_t lv;
    pmix_status_t rc = sy_levels_compute(t, &lv);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = PMIX_ERR_NOT_SUPPORTED;
    if (method == 0 || method == SY_COORDS_TORUS) {
        rc = coords_torus(t, ix, &lv, out);
    }
    if (rc == PMIX_ERR_NOT_SUPPORTED && method != SY_COORDS_TORUS) {
        rc = structural(t, ix, &lv, method, out);
    }
    sy_levels_free(&lv);
    if (rc == PMIX_SUCCESS) {
        out->view = view;
        rc = check_unique(out);
    }
    if (rc != PMIX_SUCCESS) {
        sy_coords_free(out);
    }
    return rc;
}

void sy_coords_free(sy_coords_t *c)
{
    if (c == NULL) {
        return;
    }
    free(c->coord);
    memset(c, 0, sizeof(*c));
}

pmix_status_t sy_coords_get(const sy_coords_t *c, uint32_t dev, pmix_coord_t *out)
{
    if (c == NULL || out == NULL || dev >= c->ndev || c->coord == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t *x = malloc((size_t)c->dims * sizeof(uint32_t) + 1);
    if (x == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(x, c->coord + (size_t)dev * c->dims, (size_t)c->dims * sizeof(uint32_t));
    out->view = c->view;
    out->coord = x;
    out->dims = c->dims;
    return PMIX_SUCCESS;
}

static pmix_status_t shape_of(const sy_coords_t *c, const uint32_t *devs, size_t n,
                              const sy_topo_t *t, const sy_devindex_t *ix, uint32_t plane,
                              uint32_t **shape, char **str)
{
    uint32_t *s = calloc((size_t)c->dims + 1, sizeof(uint32_t));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = devs ? devs[i] : (uint32_t)i;
        if (d >= c->ndev) {
            free(s);
            return PMIX_ERR_BAD_PARAM;
        }
        if (t != NULL && plane != SY_TOPO_NONE && t->v[ix->dev_to_vertex[d]].plane != plane) {
            continue;
        }
        seen++;
        for (uint32_t k = 0; k < c->dims; k++) {
            uint32_t v = c->coord[(size_t)d * c->dims + k];
            if (v + 1 > s[k]) {
                s[k] = v + 1;
            }
        }
    }
    if (seen == 0) {
        free(s);
        return PMIX_ERR_NOT_FOUND;
    }
    if (str != NULL) {
        size_t cap = (size_t)c->dims * 11 + 1, off = 0;
        char *p = malloc(cap);
        if (p == NULL) {
            free(s);
            return PMIX_ERR_NOMEM;
        }
        p[0] = '\0';
        for (uint32_t k = 0; k < c->dims; k++) {
            off += (size_t)snprintf(p + off, cap - off, "%s%u", k ? "x" : "", s[k]);
        }
        *str = p;
    }
    if (shape != NULL) {
        *shape = s;
    } else {
        free(s);
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_coords_shape(const sy_coords_t *c, const uint32_t *devs, size_t ndevs,
                              uint32_t **shape, char **shape_string)
{
    if (c == NULL || (c->coord == NULL && c->ndev > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    return shape_of(c, devs, devs ? ndevs : c->ndev, NULL, NULL, SY_TOPO_NONE, shape, shape_string);
}

pmix_status_t sy_coords_plane_shape(const sy_coords_t *c, const sy_topo_t *t,
                                    const sy_devindex_t *ix, uint32_t plane, uint32_t **shape,
                                    char **shape_string)
{
    if (c == NULL || t == NULL || ix == NULL || ix->ndev != c->ndev ||
        (c->coord == NULL && c->ndev > 0) || (plane != SY_TOPO_NONE && plane >= t->nplanes)) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (uint32_t d = 0; d < ix->ndev; d++) {
        if (ix->dev_to_vertex[d] >= t->nv) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    return shape_of(c, NULL, c->ndev, t, ix, plane, shape, shape_string);
}
