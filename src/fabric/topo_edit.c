/* Vertex removal by compact rebuild.  Ids are dense by design (they fix
 * the device index order), so a hole cannot be left behind: the graph is
 * copied without the vertex and the copy replaces the original. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/topo.h"

static pmix_status_t copy_vertex(sy_topo_t *n, const sy_topo_vertex_t *x)
{
    pmix_status_t rc;
    uint32_t id;
    if (x->kind == SY_TOPO_DEVICE) {
        rc = sy_topo_add_device(n, x->name, x->host, x->guid, &id);
    } else {
        rc = sy_topo_add_switch(n, x->name, x->level, &id);
        if (rc == PMIX_SUCCESS && x->guid != NULL) {
            rc = sy_topo_set_guid(n, id, x->guid);
        }
    }
    if (rc == PMIX_SUCCESS && x->label != NULL) {
        rc = sy_topo_set_label(n, id, x->label);
    }
    if (rc == PMIX_SUCCESS && x->plane != SY_TOPO_NONE) {
        rc = sy_topo_set_plane(n, id, x->plane);
    }
    return rc;
}

pmix_status_t sy_topo_remove_vertex(sy_topo_t *t, uint32_t v)
{
    if (t == NULL || v >= t->nv) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_topo_t *n = NULL;
    pmix_status_t rc = sy_topo_new(&n);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    n->max_vertices = t->max_vertices;
    n->max_edges = t->max_edges;
    rc = sy_topo_set_source(n, t->source, t->format);
    if (rc == PMIX_SUCCESS && t->note != NULL && (n->note = strdup(t->note)) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    /* Planes first, in the same order, so plane indexes stay valid. */
    for (uint32_t p = 0; rc == PMIX_SUCCESS && p < t->nplanes; p++) {
        rc = sy_topo_add_plane(n, t->planes[p], NULL);
    }
    for (uint32_t i = 0; rc == PMIX_SUCCESS && i < t->nv; i++) {
        if (i != v) {
            rc = copy_vertex(n, &t->v[i]);
        }
    }
    for (uint32_t e = 0; rc == PMIX_SUCCESS && e < t->ne; e++) {
        const sy_topo_edge_t *x = &t->e[e];
        if (x->a == v || x->b == v) {
            continue;
        }
        uint32_t a = x->a > v ? x->a - 1 : x->a;
        uint32_t b = x->b > v ? x->b - 1 : x->b;
        uint32_t id;
        rc = sy_topo_add_link(n, a, b, x->speed, x->state, 0, &id);
        if (rc == PMIX_SUCCESS) {
            /* The parallel-cable count has no setter; the copy is ours. */
            n->e[id].count = x->count;
        }
    }
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(n);
        return rc;
    }
    n->generation = t->generation + 1;
    /* Swap contents so callers holding `t` see the rebuilt graph. */
    sy_topo_t tmp = *t;
    *t = *n;
    *n = tmp;
    sy_topo_free(n);
    return PMIX_SUCCESS;
}
