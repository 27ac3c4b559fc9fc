/* Device index (see devindex.h). */
#include "fabric/devindex.h"

#include <stdlib.h>
#include <string.h>

pmix_status_t sy_devindex_build(const sy_topo_t *t, sy_devindex_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL || (t->nv > 0 && t->v == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t ndev = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        if (t->v[v].kind == SY_TOPO_DEVICE) {
            ndev++;
        }
    }
    /* malloc(0) may return NULL; keep the arrays non-NULL for callers that
     * index them unconditionally. */
    uint32_t *d2v = malloc(sizeof(uint32_t) * (ndev ? ndev : 1));
    uint32_t *v2d = malloc(sizeof(uint32_t) * (t->nv ? t->nv : 1));
    if (d2v == NULL || v2d == NULL) {
        free(d2v);
        free(v2d);
        return PMIX_ERR_NOMEM;
    }
    uint32_t k = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        if (t->v[v].kind == SY_TOPO_DEVICE) {
            d2v[k] = v;
            v2d[v] = k++;
        } else {
            v2d[v] = SY_TOPO_NONE;
        }
    }
    out->ndev = ndev;
    out->dev_to_vertex = d2v;
    out->vertex_to_dev = v2d;
    return PMIX_SUCCESS;
}

void sy_devindex_free(sy_devindex_t *d)
{
    if (d == NULL) {
        return;
    }
    free(d->dev_to_vertex);
    free(d->vertex_to_dev);
    memset(d, 0, sizeof(*d));
}
