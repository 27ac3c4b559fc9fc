/* Switch peers (see peers.h): two counting sorts over the device-switch
 * links, no graph search. */
#include "fabric/peers.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void sy_peers_free(sy_peers_t *p)
{
    if (p == NULL) {
        return;
    }
    for (uint32_t i = 0; p->sw_name != NULL && i < p->nswitches; i++) {
        free(p->sw_name[i]);
    }
    free(p->sw_name);
    free(p->sw_vertex);
    free(p->sw_dev_off);
    free(p->sw_dev);
    free(p->dev_sw_off);
    free(p->dev_sw);
    memset(p, 0, sizeof(*p));
}

/* The link's device end and switch end, or false for other links. */
static bool dev_switch(const sy_topo_t *t, const sy_devindex_t *ix, const sy_topo_edge_t *e,
                       uint32_t *dev, uint32_t *sw)
{
    if (!sy_topo_edge_usable(t, e)) {
        return false;
    }
    uint32_t da = ix->vertex_to_dev[e->a], db = ix->vertex_to_dev[e->b];
    if ((da == SY_TOPO_NONE) == (db == SY_TOPO_NONE)) {
        return false;
    }
    *dev = da != SY_TOPO_NONE ? da : db;
    *sw = da != SY_TOPO_NONE ? e->b : e->a;
    return true;
}

pmix_status_t sy_peers_compute(const sy_topo_t *t, const sy_devindex_t *ix, sy_peers_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL || (t->nv > 0 && t->v == NULL) || (t->ne > 0 && t->e == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_devindex_t own = {0};
    pmix_status_t rc;
    if (ix == NULL) {
        if ((rc = sy_devindex_build(t, &own)) != PMIX_SUCCESS) {
            return rc;
        }
        ix = &own;
    } else if (ix->ndev > t->nv || ix->vertex_to_dev == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    rc = PMIX_ERR_NOMEM;
    uint32_t *fill = NULL;
    uint32_t n = ix->ndev;
    size_t nv = t->nv ? t->nv : 1;
    uint32_t *swnum = malloc(sizeof(uint32_t) * nv);
    out->dev_sw_off = calloc((size_t)n + 1, sizeof(uint32_t));
    if (swnum == NULL || out->dev_sw_off == NULL) {
        goto fail;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        swnum[v] = SY_TOPO_NONE;
    }
    uint32_t npairs = 0, dev, sw;
    for (uint32_t i = 0; i < t->ne; i++) {
        if (dev_switch(t, ix, &t->e[i], &dev, &sw)) {
            out->dev_sw_off[dev + 1]++;
            swnum[sw] = 0; /* attached; numbered below */
            npairs++;
        }
    }
    uint32_t ns = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        if (swnum[v] != SY_TOPO_NONE) {
            swnum[v] = ns++;
        }
    }
    out->ndev = n;
    out->nswitches = ns;
    out->dev_sw = malloc(sizeof(uint32_t) * (npairs ? npairs : 1));
    out->sw_dev = malloc(sizeof(uint32_t) * (npairs ? npairs : 1));
    out->sw_dev_off = calloc((size_t)ns + 1, sizeof(uint32_t));
    out->sw_vertex = malloc(sizeof(uint32_t) * (ns ? ns : 1));
    out->sw_name = calloc(ns ? ns : 1, sizeof(char *));
    if (out->dev_sw == NULL || out->sw_dev == NULL || out->sw_dev_off == NULL ||
        out->sw_vertex == NULL || out->sw_name == NULL) {
        goto fail;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        if (swnum[v] != SY_TOPO_NONE) {
            out->sw_vertex[swnum[v]] = v;
            if ((out->sw_name[swnum[v]] = strdup(t->v[v].name ? t->v[v].name : "")) == NULL) {
                goto fail;
            }
        }
    }
    for (uint32_t d = 0; d < n; d++) {
        out->dev_sw_off[d + 1] += out->dev_sw_off[d];
    }
    /* Each device's switches (filled with a cursor per device, then
     * insertion-sorted: a handful each), then the switches' devices by a
     * counting sort that walks devices in order, so lists come out sorted. */
    fill = calloc(n ? n : 1, sizeof(uint32_t));
    if (fill == NULL) {
        goto fail;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        if (dev_switch(t, ix, &t->e[i], &dev, &sw)) {
            uint32_t *lst = out->dev_sw + out->dev_sw_off[dev];
            uint32_t k = fill[dev]++, s = swnum[sw];
            while (k > 0 && lst[k - 1] > s) {
                lst[k] = lst[k - 1];
                k--;
            }
            lst[k] = s;
            out->sw_dev_off[s + 1]++;
        }
    }
    for (uint32_t k = 0; k < ns; k++) {
        out->sw_dev_off[k + 1] += out->sw_dev_off[k];
    }
    memset(fill, 0, sizeof(uint32_t) * (n ? n : 1));
    uint32_t *pos = swnum; /* reused: switch number -> fill cursor */
    for (uint32_t k = 0; k < ns; k++) {
        pos[k] = out->sw_dev_off[k];
    }
    for (uint32_t d = 0; d < n; d++) {
        for (uint32_t e = out->dev_sw_off[d]; e < out->dev_sw_off[d + 1]; e++) {
            out->sw_dev[pos[out->dev_sw[e]]++] = d;
        }
    }
    free(fill);
    free(swnum);
    sy_devindex_free(&own);
    return PMIX_SUCCESS;

fail:
    free(fill);
    free(swnum);
    sy_devindex_free(&own);
    sy_peers_free(out);
    return rc;
}
