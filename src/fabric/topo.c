/* Graph model of sy_topo_t: vertex/edge arrays, name and pair indexes,
 * CSR adjacency. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/topo.h"

/* ---------------------------------------------------------------- index */

static uint64_t mix64(uint64_t x)
{
    /* splitmix64 finaliser: pair keys are highly regular (a<<32|b). */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; '\0' != *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return mix64(h);
}

static uint64_t hash_pair(uint32_t a, uint32_t b)
{
    return mix64(((uint64_t)a << 32) | b);
}

typedef bool (*index_eq_fn)(const sy_topo_t *t, uint32_t id, const void *key);

static bool name_eq(const sy_topo_t *t, uint32_t id, const void *key)
{
    return strcmp(t->v[id].name, (const char *)key) == 0;
}

static bool pair_eq(const sy_topo_t *t, uint32_t id, const void *key)
{
    const uint32_t *ab = key;
    return t->e[id].a == ab[0] && t->e[id].b == ab[1];
}

static uint32_t index_get(const sy_topo_t *t, const sy_topo_index_t *ix, uint64_t h,
                          const void *key, index_eq_fn eq)
{
    if (ix->cap == 0) {
        return SY_TOPO_NONE;
    }
    size_t mask = ix->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        if (ix->id[i] == SY_TOPO_NONE) {
            return SY_TOPO_NONE;
        }
        if (ix->hash[i] == h && eq(t, ix->id[i], key)) {
            return ix->id[i];
        }
    }
}

static void index_put_raw(sy_topo_index_t *ix, uint64_t h, uint32_t id)
{
    size_t mask = ix->cap - 1;
    size_t i = h & mask;
    while (ix->id[i] != SY_TOPO_NONE) {
        i = (i + 1) & mask;
    }
    ix->hash[i] = h;
    ix->id[i] = id;
    ix->count++;
}

/* Insert (the caller checked absence); keeps the load factor <= 1/2. */
static pmix_status_t index_put(sy_topo_index_t *ix, uint64_t h, uint32_t id)
{
    if ((ix->count + 1) * 2 > ix->cap) {
        size_t ncap = ix->cap ? ix->cap * 2 : 64;
        sy_topo_index_t n = {0};
        n.hash = malloc(ncap * sizeof(*n.hash));
        n.id = malloc(ncap * sizeof(*n.id));
        if (n.hash == NULL || n.id == NULL) {
            free(n.hash);
            free(n.id);
            return PMIX_ERR_NOMEM;
        }
        n.cap = ncap;
        for (size_t i = 0; i < ncap; i++) {
            n.id[i] = SY_TOPO_NONE;
        }
        for (size_t i = 0; i < ix->cap; i++) {
            if (ix->id[i] != SY_TOPO_NONE) {
                index_put_raw(&n, ix->hash[i], ix->id[i]);
            }
        }
        free(ix->hash);
        free(ix->id);
        *ix = n;
    }
    index_put_raw(ix, h, id);
    return PMIX_SUCCESS;
}

static void index_free(sy_topo_index_t *ix)
{
    free(ix->hash);
    free(ix->id);
    memset(ix, 0, sizeof(*ix));
}

/* ------------------------------------------------------------ lifecycle */

pmix_status_t sy_topo_new(sy_topo_t **out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_topo_t *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *out = t;
    return PMIX_SUCCESS;
}

static void csr_free(sy_topo_t *t)
{
    free(t->adj_off);
    free(t->adj);
    free(t->adj_edge);
    t->adj_off = t->adj = t->adj_edge = NULL;
    t->finalized = false;
}

void sy_topo_free(sy_topo_t *t)
{
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; i < t->nv; i++) {
        free(t->v[i].name);
        free(t->v[i].host);
        free(t->v[i].guid);
        free(t->v[i].label);
    }
    free(t->v);
    free(t->e);
    for (uint32_t i = 0; i < t->nplanes; i++) {
        free(t->planes[i]);
    }
    free(t->planes);
    csr_free(t);
    free(t->note);
    free(t->source);
    free(t->format);
    index_free(&t->names);
    index_free(&t->pairs);
    free(t);
}

/* Replace *slot by a copy of s (NULL allowed). */
static pmix_status_t set_str(char **slot, const char *s)
{
    char *c = NULL;
    if (s != NULL) {
        if (strlen(s) > SY_TOPO_MAX_NAME) {
            return PMIX_ERR_BAD_PARAM;
        }
        if ((c = strdup(s)) == NULL) {
            return PMIX_ERR_NOMEM;
        }
    }
    free(*slot);
    *slot = c;
    return PMIX_SUCCESS;
}

static void changed(sy_topo_t *t, bool structural)
{
    t->generation++;
    if (structural && t->finalized) {
        csr_free(t);
    }
}

pmix_status_t sy_topo_set_source(sy_topo_t *t, const char *source, const char *format)
{
    if (t == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *s = NULL, *f = NULL;
    if ((source != NULL && (s = strdup(source)) == NULL) ||
        (format != NULL && (f = strdup(format)) == NULL)) {
        free(s);
        return PMIX_ERR_NOMEM;
    }
    free(t->source);
    free(t->format);
    t->source = s;
    t->format = f;
    changed(t, false);
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------- vertices */

/* Room for element n of a vertex or edge array: the per-topology limit
 * (0 = the hard one) applies first, then the array doubles from 64 up to
 * `hard`.  Returns the (possibly moved) array, or NULL with *rc set and
 * the old array untouched. */
static void *grow_for_one(void *arr, size_t elem, uint32_t n, uint32_t *cap, uint32_t limit,
                          uint32_t hard, pmix_status_t *rc)
{
    if (n >= (limit ? limit : hard)) {
        *rc = PMIX_ERR_OUT_OF_RESOURCE;
        return NULL;
    }
    if (n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 64;
        if (ncap > hard) {
            ncap = hard;
        }
        void *grown = realloc(arr, (size_t)ncap * elem);
        if (grown == NULL) {
            *rc = PMIX_ERR_NOMEM;
            return NULL;
        }
        arr = grown;
        *cap = ncap;
    }
    return arr;
}

static pmix_status_t add_vertex(sy_topo_t *t, const char *name, uint8_t kind, uint32_t *id)
{
    if (t == NULL || name == NULL || '\0' == *name || strlen(name) > SY_TOPO_MAX_NAME) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint64_t h = hash_name(name);
    uint32_t found = index_get(t, &t->names, h, name, name_eq);
    if (found != SY_TOPO_NONE) {
        if (id != NULL) {
            *id = found;
        }
        return PMIX_EXISTS;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    sy_topo_vertex_t *nv = grow_for_one(t->v, sizeof(*nv), t->nv, &t->cap_v, t->max_vertices,
                                        SY_TOPO_MAX_VERTICES, &rc);
    if (nv == NULL) {
        return rc;
    }
    t->v = nv;
    sy_topo_vertex_t *v = &t->v[t->nv];
    memset(v, 0, sizeof(*v));
    if ((v->name = strdup(name)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (index_put(&t->names, h, t->nv) != PMIX_SUCCESS) {
        free(v->name);
        return PMIX_ERR_NOMEM;
    }
    v->kind = kind;
    v->plane = SY_TOPO_NONE;
    v->level = -1;
    if (id != NULL) {
        *id = t->nv;
    }
    t->nv++;
    if (kind == SY_TOPO_DEVICE) {
        t->ndevices++;
    } else {
        t->nswitches++;
    }
    changed(t, true);
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_add_device(sy_topo_t *t, const char *name, const char *host, const char *guid,
                                 uint32_t *id)
{
    uint32_t v;
    if ((host != NULL && strlen(host) > SY_TOPO_MAX_NAME) ||
        (guid != NULL && strlen(guid) > SY_TOPO_MAX_NAME)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = add_vertex(t, name, SY_TOPO_DEVICE, &v);
    if (id != NULL) {
        *id = v;
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if ((rc = set_str(&t->v[v].host, host)) != PMIX_SUCCESS ||
        (rc = set_str(&t->v[v].guid, guid)) != PMIX_SUCCESS) {
        /* The vertex stays (ids are never reused) but the caller fails. */
        return rc;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_add_switch(sy_topo_t *t, const char *name, int32_t level, uint32_t *id)
{
    uint32_t v;
    pmix_status_t rc = add_vertex(t, name, SY_TOPO_SWITCH, &v);
    if (id != NULL) {
        *id = v;
    }
    if (rc == PMIX_SUCCESS) {
        t->v[v].level = level;
    }
    return rc;
}

static pmix_status_t set_vertex_str(sy_topo_t *t, uint32_t v, size_t off, const char *s)
{
    if (t == NULL || v >= t->nv) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = set_str((char **)((char *)&t->v[v] + off), s);
    if (rc == PMIX_SUCCESS) {
        changed(t, false);
    }
    return rc;
}

pmix_status_t sy_topo_set_label(sy_topo_t *t, uint32_t v, const char *label)
{
    return set_vertex_str(t, v, offsetof(sy_topo_vertex_t, label), label);
}

pmix_status_t sy_topo_set_guid(sy_topo_t *t, uint32_t v, const char *guid)
{
    return set_vertex_str(t, v, offsetof(sy_topo_vertex_t, guid), guid);
}

pmix_status_t sy_topo_set_level(sy_topo_t *t, uint32_t v, int32_t level)
{
    if (t == NULL || v >= t->nv) {
        return PMIX_ERR_BAD_PARAM;
    }
    t->v[v].level = level;
    changed(t, false);
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_find(const sy_topo_t *t, const char *name, uint32_t *id)
{
    if (t == NULL || name == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t v = index_get(t, &t->names, hash_name(name), name, name_eq);
    if (v == SY_TOPO_NONE) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (id != NULL) {
        *id = v;
    }
    return PMIX_SUCCESS;
}

/* --------------------------------------------------------------- planes */

pmix_status_t sy_topo_add_plane(sy_topo_t *t, const char *plane, uint32_t *idx)
{
    if (t == NULL || plane == NULL || '\0' == *plane || strlen(plane) > SY_TOPO_MAX_NAME) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* Few planes per fabric (rails): a linear scan is the right tool. */
    for (uint32_t i = 0; i < t->nplanes; i++) {
        if (strcmp(t->planes[i], plane) == 0) {
            if (idx != NULL) {
                *idx = i;
            }
            return PMIX_SUCCESS;
        }
    }
    if (t->nplanes >= SY_TOPO_MAX_PLANES) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    char **np = realloc(t->planes, (t->nplanes + 1) * sizeof(*np));
    if (np == NULL) {
        return PMIX_ERR_NOMEM;
    }
    t->planes = np;
    if ((np[t->nplanes] = strdup(plane)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (idx != NULL) {
        *idx = t->nplanes;
    }
    t->nplanes++;
    changed(t, false);
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_set_plane(sy_topo_t *t, uint32_t v, uint32_t plane)
{
    if (t == NULL || v >= t->nv || (plane != SY_TOPO_NONE && plane >= t->nplanes)) {
        return PMIX_ERR_BAD_PARAM;
    }
    t->v[v].plane = plane;
    changed(t, false);
    return PMIX_SUCCESS;
}

/* ---------------------------------------------------------------- links */

pmix_status_t sy_topo_find_link(const sy_topo_t *t, uint32_t a, uint32_t b, uint32_t *edge)
{
    if (t == NULL || a >= t->nv || b >= t->nv) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t ab[2] = {a < b ? a : b, a < b ? b : a};
    uint32_t e = index_get(t, &t->pairs, hash_pair(ab[0], ab[1]), ab, pair_eq);
    if (e == SY_TOPO_NONE) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (edge != NULL) {
        *edge = e;
    }
    return PMIX_SUCCESS;
}

static bool valid_state(uint8_t s)
{
    return s == PMIX_LINK_UP || s == PMIX_LINK_DOWN || s == PMIX_LINK_STATE_UNKNOWN;
}

pmix_status_t sy_topo_add_link(sy_topo_t *t, uint32_t a, uint32_t b, uint64_t speed, uint8_t state,
                               unsigned flags, uint32_t *edge)
{
    if (t == NULL || a >= t->nv || b >= t->nv || a == b || !valid_state(state)) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t ab[2] = {a < b ? a : b, a < b ? b : a};
    uint64_t h = hash_pair(ab[0], ab[1]);
    uint32_t e = index_get(t, &t->pairs, h, ab, pair_eq);
    if (e != SY_TOPO_NONE) {
        if (edge != NULL) {
            *edge = e;
        }
        if (!(flags & SY_TOPO_LINK_PARALLEL)) {
            return PMIX_EXISTS;
        }
        sy_topo_edge_t *x = &t->e[e];
        x->speed = (UINT64_MAX - x->speed < speed) ? UINT64_MAX : x->speed + speed;
        if (x->count < UINT32_MAX) {
            x->count++;
        }
        /* One working cable keeps the pair connected. */
        if (state == PMIX_LINK_UP || x->state == PMIX_LINK_UP) {
            x->state = PMIX_LINK_UP;
        }
        changed(t, false);
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    sy_topo_edge_t *ne =
        grow_for_one(t->e, sizeof(*ne), t->ne, &t->cap_e, t->max_edges, SY_TOPO_MAX_EDGES, &rc);
    if (ne == NULL) {
        return rc;
    }
    t->e = ne;
    t->e[t->ne] =
        (sy_topo_edge_t){.a = ab[0], .b = ab[1], .speed = speed, .count = 1, .state = state};
    if (index_put(&t->pairs, h, t->ne) != PMIX_SUCCESS) {
        return PMIX_ERR_NOMEM;
    }
    if (edge != NULL) {
        *edge = t->ne;
    }
    t->ne++;
    changed(t, true);
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_set_link_state(sy_topo_t *t, uint32_t edge, uint8_t state)
{
    if (t == NULL || edge >= t->ne || !valid_state(state)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (t->e[edge].state != state) {
        t->e[edge].state = state;
        changed(t, false);
    }
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ CSR */

pmix_status_t sy_topo_finalize(sy_topo_t *t)
{
    if (t == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (t->finalized) {
        return PMIX_SUCCESS;
    }
    size_t nadj = 2 * (size_t)t->ne;
    uint32_t *off = calloc((size_t)t->nv + 1, sizeof(*off));
    uint32_t *adj = malloc((nadj ? nadj : 1) * sizeof(*adj));
    uint32_t *aedge = malloc((nadj ? nadj : 1) * sizeof(*aedge));
    uint32_t *fill = calloc((size_t)t->nv + 1, sizeof(*fill));
    if (off == NULL || adj == NULL || aedge == NULL || fill == NULL) {
        free(off);
        free(adj);
        free(aedge);
        free(fill);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        off[t->e[i].a + 1]++;
        off[t->e[i].b + 1]++;
    }
    for (uint32_t i = 0; i < t->nv; i++) {
        off[i + 1] += off[i];
    }
    /* Two counting passes give lists sorted by neighbour in O(V+E):
     * first unsorted lists (tmp), then walking u in increasing order and
     * appending u to each neighbour's final list. */
    uint32_t *tmp = malloc((nadj ? nadj : 1) * sizeof(*tmp));
    uint32_t *tmpe = malloc((nadj ? nadj : 1) * sizeof(*tmpe));
    if (tmp == NULL || tmpe == NULL) {
        free(tmp);
        free(tmpe);
        free(off);
        free(adj);
        free(aedge);
        free(fill);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        uint32_t a = t->e[i].a, b = t->e[i].b;
        tmp[off[a] + fill[a]] = b;
        tmpe[off[a] + fill[a]++] = i;
        tmp[off[b] + fill[b]] = a;
        tmpe[off[b] + fill[b]++] = i;
    }
    memset(fill, 0, ((size_t)t->nv + 1) * sizeof(*fill));
    for (uint32_t u = 0; u < t->nv; u++) {
        for (uint32_t i = off[u]; i < off[u + 1]; i++) {
            uint32_t w = tmp[i];
            adj[off[w] + fill[w]] = u;
            aedge[off[w] + fill[w]++] = tmpe[i];
        }
    }
    free(tmp);
    free(tmpe);
    free(fill);
    t->adj_off = off;
    t->adj = adj;
    t->adj_edge = aedge;
    t->finalized = true;
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_neighbors(const sy_topo_t *t, uint32_t v, const uint32_t **nbrs,
                                const uint32_t **edges, uint32_t *n)
{
    if (t == NULL || v >= t->nv || nbrs == NULL || n == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!t->finalized) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    *nbrs = t->adj + t->adj_off[v];
    if (edges != NULL) {
        *edges = t->adj_edge + t->adj_off[v];
    }
    *n = t->adj_off[v + 1] - t->adj_off[v];
    return PMIX_SUCCESS;
}
