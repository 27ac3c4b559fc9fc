/* Switch levels by multi-source BFS from the devices (see levels.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/levels.h"

static void first_attachments(const sy_topo_t *t, uint32_t *attach)
{
    for (uint32_t v = 0; v < t->nv; v++) {
        attach[v] = SY_TOPO_NONE;
        if (t->v[v].kind != SY_TOPO_DEVICE) {
            continue;
        }
        /* CSR lists are sorted by neighbour id: the first hit is the lowest. */
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            uint32_t u = t->adj[k];
            if (t->v[u].kind == SY_TOPO_SWITCH && sy_link_usable(t, t->adj_edge[k])) {
                attach[v] = u;
                break;
            }
        }
    }
}

/* dist[] = hops to the nearest device, UINT32_MAX when unreachable. */
static pmix_status_t bfs_from_devices(const sy_topo_t *t, uint32_t *dist)
{
    uint32_t *queue = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    if (queue == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t head = 0, tail = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        dist[v] = UINT32_MAX;
        if (t->v[v].kind == SY_TOPO_DEVICE) {
            dist[v] = 0;
            queue[tail++] = v;
        }
    }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            uint32_t u = t->adj[k];
            if (UINT32_MAX == dist[u] && sy_link_usable(t, t->adj_edge[k])) {
                dist[u] = dist[v] + 1;
                queue[tail++] = u;
            }
        }
    }
    free(queue);
    return PMIX_SUCCESS;
}

pmix_status_t sy_levels_compute(const sy_topo_t *t, sy_levels_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!t->finalized) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    size_t n = (size_t)t->nv + 1;
    out->level = malloc(n * sizeof(int32_t));
    out->attach = malloc(n * sizeof(uint32_t));
    uint32_t *dist = malloc(n * sizeof(uint32_t));
    if (out->level == NULL || out->attach == NULL || dist == NULL) {
        free(dist);
        sy_levels_free(out);
        return PMIX_ERR_NOMEM;
    }
    out->nv = t->nv;
    first_attachments(t, out->attach);
    pmix_status_t rc = bfs_from_devices(t, dist);
    if (rc != PMIX_SUCCESS) {
        free(dist);
        sy_levels_free(out);
        return rc;
    }
    bool given = t->nswitches > 0;
    for (uint32_t v = 0; v < t->nv && given; v++) {
        if (t->v[v].kind == SY_TOPO_SWITCH && UINT32_MAX != dist[v] && t->v[v].level < 0) {
            given = false;
        }
    }
    out->from_input = given;
    out->max_level = -1;
    for (uint32_t v = 0; v < t->nv; v++) {
        int32_t lv = -1;
        if (t->v[v].kind == SY_TOPO_SWITCH) {
            if (given && t->v[v].level >= 0) {
                lv = t->v[v].level;
            } else if (!given && UINT32_MAX != dist[v] && dist[v] - 1 <= INT32_MAX) {
                lv = (int32_t)(dist[v] - 1);
            }
        }
        out->level[v] = lv;
        if (lv > out->max_level) {
            out->max_level = lv;
        }
    }
    free(dist);
    return PMIX_SUCCESS;
}

void sy_levels_free(sy_levels_t *l)
{
    if (l == NULL) {
        return;
    }
    free(l->level);
    free(l->attach);
    memset(l, 0, sizeof(*l));
}
