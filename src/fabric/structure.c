/* Switch partitions (pods, dragonfly groups, leaves); see structure.h. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/structure.h"

static bool is_switch(const sy_topo_t *t, uint32_t v)
{
    return t->v[v].kind == SY_TOPO_SWITCH;
}

static bool switch_link(const sy_topo_t *t, uint32_t e)
{
    return is_switch(t, t->e[e].a) && is_switch(t, t->e[e].b) && sy_link_usable(t, e);
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static void uf_union(uint32_t *p, uint32_t a, uint32_t b)
{
    a = uf_find(p, a);
    b = uf_find(p, b);
    if (a < b) {
        p[b] = a;
    } else if (b < a) {
        p[a] = b;
    }
}

/* Components of the switches with in[v] (all when in == NULL) joined by
 * switch links with keep[e] (all usable ones when keep == NULL).
 * Switches outside `in` get SY_TOPO_NONE. */
static pmix_status_t components(const sy_topo_t *t, const uint8_t *in, const uint8_t *keep,
                                sy_partition_t *out)
{
    memset(out, 0, sizeof(*out));
    size_t n = (size_t)t->nv + 1;
    uint32_t *uf = malloc(n * sizeof(uint32_t));
    out->part = malloc(n * sizeof(uint32_t));
    if (uf == NULL || out->part == NULL) {
        free(uf);
        sy_partition_free(out);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        uf[v] = v;
    }
    for (uint32_t e = 0; e < t->ne; e++) {
        uint32_t a = t->e[e].a, b = t->e[e].b;
        if (!switch_link(t, e) || (keep && !keep[e]) || (in && (!in[a] || !in[b]))) {
            continue;
        }
        uf_union(uf, a, b);
    }
    /* Roots are the lowest member, so ascending scans number parts by
     * their lowest switch id. */
    for (uint32_t v = 0; v < t->nv; v++) {
        out->part[v] = SY_TOPO_NONE;
        if (!is_switch(t, v) || (in && !in[v])) {
            continue;
        }
        uint32_t r = uf_find(uf, v);
        out->part[v] = (r == v) ? out->npart++ : out->part[r];
    }
    free(uf);
    return PMIX_SUCCESS;
}

pmix_status_t sy_partition_leaf(const sy_topo_t *t, sy_partition_t *out)
{
    if (t == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    out->part = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    if (out->part == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        out->part[v] = is_switch(t, v) ? out->npart++ : SY_TOPO_NONE;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_partition_pods(const sy_topo_t *t, const sy_levels_t *lv, sy_partition_t *out)
{
    if (t == NULL || lv == NULL || out == NULL || lv->nv != t->nv) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    sy_partition_t whole;
    pmix_status_t rc = components(t, NULL, NULL, &whole);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    int32_t *top = malloc(((size_t)whole.npart + 1) * sizeof(int32_t));
    uint8_t *in = malloc((size_t)t->nv + 1);
    if (top == NULL || in == NULL) {
        free(top);
        free(in);
        sy_partition_free(&whole);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t c = 0; c < whole.npart; c++) {
        top[c] = -1;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        if (whole.part[v] != SY_TOPO_NONE && lv->level[v] > top[whole.part[v]]) {
            top[whole.part[v]] = lv->level[v];
        }
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        in[v] = is_switch(t, v) && !(top[whole.part[v]] >= 1 && lv->level[v] == top[whole.part[v]]);
    }
    rc = components(t, in, NULL, out);
    for (uint32_t v = 0; rc == PMIX_SUCCESS && v < t->nv; v++) {
        if (is_switch(t, v) && !in[v]) {
            out->part[v] = out->npart++;
        }
    }
    free(top);
    free(in);
    sy_partition_free(&whole);
    return rc;
}

/* Number of switch neighbours (over usable links) shared by a and b; both
 * CSR lists are sorted by neighbour id. */
static uint32_t common_switch_neighbours(const sy_topo_t *t, uint32_t a, uint32_t b)
{
    uint32_t i = t->adj_off[a], ie = t->adj_off[a + 1];
    uint32_t j = t->adj_off[b], je = t->adj_off[b + 1];
    uint32_t n = 0;
    while (i < ie && j < je) {
        uint32_t x = t->adj[i], y = t->adj[j];
        if (x < y) {
            i++;
        } else if (y < x) {
            j++;
        } else {
            if (is_switch(t, x) && sy_link_usable(t, t->adj_edge[i]) &&
                sy_link_usable(t, t->adj_edge[j])) {
                n++;
            }
            i++;
            j++;
        }
    }
    return n;
}

pmix_status_t sy_partition_triangles(const sy_topo_t *t, sy_partition_t *out, uint32_t *nkept)
{
    if (t == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (!t->finalized) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    uint32_t *deg = calloc((size_t)t->nv + 1, sizeof(uint32_t));
    uint8_t *keep = calloc((size_t)t->ne + 1, 1);
    if (deg == NULL || keep == NULL) {
        free(deg);
        free(keep);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t e = 0; e < t->ne; e++) {
        if (switch_link(t, e)) {
            deg[t->e[e].a]++;
            deg[t->e[e].b]++;
        }
    }
    uint32_t mindeg = UINT32_MAX;
    for (uint32_t v = 0; v < t->nv; v++) {
        if (deg[v] > 0 && deg[v] < mindeg) {
            mindeg = deg[v];
        }
    }
    uint32_t thr = (UINT32_MAX == mindeg || mindeg / 2 < 2) ? 2 : mindeg / 2;
    uint32_t kept = 0;
    for (uint32_t e = 0; e < t->ne; e++) {
        if (switch_link(t, e) && common_switch_neighbours(t, t->e[e].a, t->e[e].b) >= thr) {
            keep[e] = 1;
            kept++;
        }
    }
    pmix_status_t rc = components(t, NULL, keep, out);
    free(deg);
    free(keep);
    if (rc == PMIX_SUCCESS && nkept != NULL) {
        *nkept = kept;
    }
    return rc;
}

void sy_partition_free(sy_partition_t *p)
{
    if (p == NULL) {
        return;
    }
    free(p->part);
    memset(p, 0, sizeof(*p));
}

sy_fabric_kind_t sy_fabric_classify(const sy_topo_t *t, const sy_levels_t *lv,
                                    const sy_partition_t *tri, uint32_t nkept)
{
    if (t == NULL || lv == NULL || tri == NULL || tri->part == NULL) {
        return SY_FABRIC_OTHER;
    }
    bool any = false;
    for (uint32_t e = 0; e < t->ne && !any; e++) {
        any = switch_link(t, e);
    }
    if (!any) {
        return SY_FABRIC_FLAT;
    }
    if (nkept > 0) {
        /* Parts among switches that have switch links: isolated switches
         * would make any partition look split. */
        uint32_t first = SY_TOPO_NONE;
        for (uint32_t e = 0; e < t->ne; e++) {
            if (!switch_link(t, e)) {
                continue;
            }
            uint32_t p = tri->part[t->e[e].a];
            if (first == SY_TOPO_NONE) {
                first = p;
            } else if (p != first || tri->part[t->e[e].b] != first) {
                return SY_FABRIC_DRAGONFLY;
            }
        }
        return SY_FABRIC_OTHER;
    }
    return lv->max_level >= 1 ? SY_FABRIC_TREE : SY_FABRIC_DIRECT;
}
