/* Seeded community detection on the switch graph (see structure.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/igraph_guard.h"
#include "fabric/structure.h"

/* Leiden's membership ids are arbitrary; renumber by lowest switch id so
 * the partition looks like every other one. */
static pmix_status_t to_partition(const sy_topo_t *t, const sy_igraph_view_t *view,
                                  const igraph_vector_int_t *memb, sy_partition_t *out)
{
    uint32_t *map = malloc(((size_t)view->n + 1) * sizeof(uint32_t));
    out->part = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    if (map == NULL || out->part == NULL) {
        free(map);
        sy_partition_free(out);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < view->n; i++) {
        map[i] = SY_TOPO_NONE;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        out->part[v] = SY_TOPO_NONE;
        uint32_t i = view->from_topo[v];
        if (i == SY_TOPO_NONE) {
            continue;
        }
        igraph_integer_t c = VECTOR(*memb)[i];
        if (c < 0 || (uint64_t)c >= view->n) {
            free(map);
            sy_partition_free(out);
            return PMIX_ERROR;
        }
        if (map[c] == SY_TOPO_NONE) {
            map[c] = out->npart++;
        }
        out->part[v] = map[c];
    }
    free(map);
    return PMIX_SUCCESS;
}

static pmix_status_t leiden(const sy_topo_t *t, const sy_igraph_view_t *view, sy_partition_t *out)
{
    igraph_integer_t m = igraph_ecount(&view->g);
    if (m == 0) {
        return sy_partition_leaf(t, out);
    }
    igraph_vector_t weight;
    igraph_vector_int_t memb;
    igraph_error_t err = igraph_vector_init(&weight, 0);
    if (IGRAPH_SUCCESS != err) {
        return sy_igraph_status(err);
    }
    err = igraph_vector_int_init(&memb, 0);
    if (IGRAPH_SUCCESS != err) {
        igraph_vector_destroy(&weight);
        return sy_igraph_status(err);
    }
    err = igraph_strength(&view->g, &weight, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS, NULL);
    igraph_integer_t nb = 0;
    igraph_real_t quality = 0;
    if (IGRAPH_SUCCESS == err) {
        err = igraph_community_leiden(&view->g, NULL, &weight, 1.0 / (2.0 * (double)m), 0.01, false,
                                      2, &memb, &nb, &quality);
    }
    pmix_status_t rc = sy_igraph_status(err);
    if (rc == PMIX_SUCCESS) {
        rc = to_partition(t, view, &memb, out);
    }
    igraph_vector_int_destroy(&memb);
    igraph_vector_destroy(&weight);
    return rc;
}

pmix_status_t sy_partition_community(const sy_topo_t *t, uint64_t seed, sy_partition_t *out)
{
    if (t == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (!t->finalized) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    sy_igraph_lock();
    sy_igraph_view_t view;
    sy_igraph_rng_t rng;
    pmix_status_t rc = sy_igraph_from_topo(t, true, &view);
    if (rc == PMIX_SUCCESS) {
        rc = sy_igraph_rng_begin(&rng, seed);
        if (rc == PMIX_SUCCESS) {
            rc = leiden(t, &view, out);
            sy_igraph_rng_end(&rng);
        }
        sy_igraph_view_free(&view);
    }
    sy_igraph_unlock();
    return rc;
}
