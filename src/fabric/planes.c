/* Planes by union-find over the up links (see planes.h). */
#include "fabric/planes.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

static bool id_taken(char **ids, uint32_t n, const char *s)
{
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(ids[i], s) == 0) {
            return true;
        }
    }
    return false;
}

/* "plane<k>", or "plane<k>.<m>" if a declared name already took it. */
static char *generic_id(char **ids, uint32_t n, uint32_t k)
{
    char buf[48];
    snprintf(buf, sizeof(buf), "plane%u", k);
    for (uint32_t m = 1; id_taken(ids, n, buf); m++) {
        snprintf(buf, sizeof(buf), "plane%u.%u", k, m);
    }
    return strdup(buf);
}

void sy_planes_free(sy_planes_t *p)
{
    if (p == NULL) {
        return;
    }
    for (uint32_t i = 0; p->ids != NULL && i < p->nplanes; i++) {
        free(p->ids[i]);
    }
    free(p->ids);
    free(p->ndev);
    free(p->plane_of);
    memset(p, 0, sizeof(*p));
}

pmix_status_t sy_planes_compute(const sy_topo_t *t, const sy_devindex_t *ix, sy_planes_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL || (t->nv > 0 && t->v == NULL) || (t->ne > 0 && t->e == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_devindex_t own = {0};
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (ix == NULL) {
        if ((rc = sy_devindex_build(t, &own)) != PMIX_SUCCESS) {
            return rc;
        }
        ix = &own;
    } else if (ix->ndev > t->nv || (ix->ndev > 0 && ix->dev_to_vertex == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    rc = PMIX_ERR_NOMEM;
    uint32_t n = ix->ndev;
    size_t nv = t->nv ? t->nv : 1;
    uint32_t *parent = malloc(sizeof(uint32_t) * nv);
    uint32_t *root_plane = malloc(sizeof(uint32_t) * nv);
    /* per plane: the declared name shared by its devices, NONE when none
     * yet, UINT32_MAX-1 when they disagree */
    uint32_t *decl = malloc(sizeof(uint32_t) * (n ? n : 1));
    out->plane_of = malloc(sizeof(uint32_t) * (n ? n : 1));
    out->ndev = calloc(n ? n : 1, sizeof(uint32_t));
    if (parent == NULL || root_plane == NULL || decl == NULL || out->plane_of == NULL ||
        out->ndev == NULL) {
        goto fail;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        parent[v] = v;
        root_plane[v] = SY_TOPO_NONE;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        const sy_topo_edge_t *e = &t->e[i];
        if (!sy_topo_edge_usable(t, e)) {
            continue;
        }
        uint32_t ra = uf_find(parent, e->a), rb = uf_find(parent, e->b);
        if (ra != rb) {
            parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
        }
    }
    const uint32_t MIXED = UINT32_MAX - 1;
    uint32_t np = 0;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t v = ix->dev_to_vertex[d];
        if (v >= t->nv) {
            rc = PMIX_ERR_BAD_PARAM;
            goto fail;
        }
        uint32_t r = uf_find(parent, v);
        if (root_plane[r] == SY_TOPO_NONE) {
            root_plane[r] = np;
            decl[np] = t->v[v].plane;
            np++;
        }
        uint32_t p = root_plane[r];
        out->plane_of[d] = p;
        out->ndev[p]++;
        uint32_t vp = t->v[v].plane;
        if (decl[p] != vp) {
            decl[p] = MIXED;
        }
    }
    out->ids = calloc(np ? np : 1, sizeof(char *));
    if (out->ids == NULL) {
        goto fail;
    }
    out->nplanes = np;
    out->ndevices = n;
    for (uint32_t p = 0; p < np; p++) {
        const char *name = (decl[p] < t->nplanes && t->planes != NULL) ? t->planes[decl[p]] : NULL;
        if (name != NULL && !id_taken(out->ids, p, name)) {
            out->ids[p] = strdup(name);
        } else {
            out->ids[p] = generic_id(out->ids, p, p);
        }
        if (out->ids[p] == NULL) {
            goto fail;
        }
    }
    free(parent);
    free(root_plane);
    free(decl);
    sy_devindex_free(&own);
    return PMIX_SUCCESS;

fail:
    free(parent);
    free(root_plane);
    free(decl);
    sy_devindex_free(&own);
    sy_planes_free(out);
    return rc;
}
