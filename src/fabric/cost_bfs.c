/* Search graphs and kernels of the cost matrix (see cost.h for the
 * conventions).  Devices never forward: they are recorded when reached and
 * never expanded, which is also what makes leaf-collapse exact. */
#include "fabric/cost_impl.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static uint64_t ref_speed(const sy_topo_t *t)
{
    uint64_t ref = 0;
    for (uint32_t i = 0; i < t->ne; i++) {
        if (sy_topo_edge_usable(t, &t->e[i]) && t->e[i].speed > ref) {
            ref = t->e[i].speed;
        }
    }
    return ref;
}

static inline uint32_t link_cost(sy_cost_metric_t metric, uint64_t ref, uint64_t speed)
{
    if (metric != SY_COST_SPEED || speed == 0) {
        return 1;
    }
    uint64_t q = ref / speed + (0 != ref % speed);
    if (q < 1) {
        q = 1;
    }
    return q > SY_COST_MAX ? SY_COST_MAX : (uint32_t)q;
}

static inline uint16_t sat16(uint64_t d)
{
    return d >= SY_COST_MAX ? SY_COST_MAX : (uint16_t)d;
}

static void cgraph_free(sy_cgraph_t *g)
{
    free(g->off);
    free(g->adj);
    free(g->w);
    memset(g, 0, sizeof(*g));
}

/* Allocate a CSR whose off[] already holds the degrees shifted by one
 * (off[v+1] = deg(v)); turns them into offsets and returns the fill
 * cursors in *pos (caller frees). */
static pmix_status_t cgraph_alloc(sy_cgraph_t *g, bool weighted, uint32_t **pos)
{
    for (uint32_t v = 0; v < g->n; v++) {
        g->off[v + 1] += g->off[v];
    }
    size_t na = g->off[g->n];
    g->adj = malloc(sizeof(uint32_t) * (na ? na : 1));
    g->w = weighted ? malloc(sizeof(uint32_t) * (na ? na : 1)) : NULL;
    *pos = malloc(sizeof(uint32_t) * (g->n ? g->n : 1));
    if (g->adj == NULL || (weighted && g->w == NULL) || *pos == NULL) {
        free(*pos);
        *pos = NULL;
        return PMIX_ERR_NOMEM;
    }
    memcpy(*pos, g->off, sizeof(uint32_t) * g->n);
    return PMIX_SUCCESS;
}

pmix_status_t sy_cost_build_full(sy_cost_ctx_t *c)
{
    const sy_topo_t *t = c->t;
    sy_cgraph_t *g = &c->g;
    bool weighted = c->metric == SY_COST_SPEED;
    uint64_t ref = weighted ? ref_speed(t) : 0;
    g->n = t->nv;
    g->off = calloc((size_t)t->nv + 1, sizeof(uint32_t));
    if (g->off == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        if (sy_topo_edge_usable(t, &t->e[i])) {
            g->off[t->e[i].a + 1]++;
            g->off[t->e[i].b + 1]++;
        }
    }
    uint32_t *pos = NULL;
    if (cgraph_alloc(g, weighted, &pos) != PMIX_SUCCESS) {
        cgraph_free(g);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        const sy_topo_edge_t *e = &t->e[i];
        if (!sy_topo_edge_usable(t, e)) {
            continue;
        }
        uint32_t pa = pos[e->a]++, pb = pos[e->b]++;
        g->adj[pa] = e->b;
        g->adj[pb] = e->a;
        if (weighted) {
            g->w[pa] = g->w[pb] = link_cost(c->metric, ref, e->speed);
        }
    }
    free(pos);
    return PMIX_SUCCESS;
}

/* The generators record "torus:D0xD1x..." as the source of a torus whose
 * routers come in lattice order (dimension 0 fastest).  Take that as a
 * hypothesis only and keep it if the switch graph is exactly that torus:
 * the right number of switches, every up switch link a +-1 step (mod D)
 * in exactly one dimension, and as many links as the full torus has (a
 * subset of the torus's links that is as large as the whole is the
 * whole).  A down link or any other change makes it fail; BFS then runs. */
static void detect_lattice(sy_cost_ctx_t *c)
{
    const sy_topo_t *t = c->t;
    const sy_cgraph_t *g = &c->sg;
    uint32_t nd = 0, dim[SY_COST_LATTICE_MAX_DIMS], stride[SY_COST_LATTICE_MAX_DIMS];
    c->lat_nd = 0;
    if (c->metric != SY_COST_HOPS || t->format == NULL || t->source == NULL ||
        strcmp(t->format, "torus") != 0 || strncmp(t->source, "torus:", 6) != 0) {
        return;
    }
    const char *p = t->source + 6;
    uint64_t prod = 1, sum = 0, diameter = 2;
    for (;;) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > SY_TOPO_GEN_MAX_VERTICES || nd == SY_COST_LATTICE_MAX_DIMS) {
            return;
        }
        stride[nd] = (uint32_t)prod;
        dim[nd++] = (uint32_t)v;
        prod *= v;
        sum += v;
        diameter += v / 2;
        if (prod > g->n) {
            return;
        }
        p = end;
        if ('x' != *p) {
            break;
        }
        p++;
    }
    /* the closed form is computed in uint16 without saturation */
    if (('\0' != *p && ',' != *p) || prod != g->n || g->n == 0 || diameter > SY_COST_MAX) {
        return;
    }
    uint64_t want = 0;
    for (uint32_t k = 0; k < nd; k++) {
        want += dim[k] >= 3 ? g->n : (dim[k] == 2 ? g->n / 2 : 0);
    }
    if ((uint64_t)g->off[g->n] != 2 * want) {
        return;
    }
    for (uint32_t s = 0; s < g->n; s++) {
        for (uint32_t e = g->off[s]; e < g->off[s + 1]; e++) {
            uint32_t u = g->adj[e], ndiff = 0;
            bool step = false;
            for (uint32_t k = 0; k < nd; k++) {
                uint32_t a = (s / stride[k]) % dim[k], b = (u / stride[k]) % dim[k];
                if (a != b) {
                    ndiff++;
                    uint32_t d = a > b ? a - b : b - a;
                    step = d == 1 || dim[k] - 1 == d;
                }
            }
            if (ndiff != 1 || !step) {
                return;
            }
        }
    }
    memcpy(c->lat_dim, dim, sizeof(uint32_t) * nd);
    memcpy(c->lat_stride, stride, sizeof(uint32_t) * nd);
    c->lat_sum = (uint32_t)sum;
    c->lat_nd = nd;
    /* the generator's device order: p devices per router, in router order */
    uint32_t per = c->ndev / g->n;
    c->lat_p = 0;
    if (per > 0 && (uint64_t)per * g->n == c->ndev) {
        uint32_t j = 0;
        while (j < c->ndev && c->attach[j] == j / per) {
            j++;
        }
        c->lat_p = j == c->ndev ? per : 0;
    }
}

/* Everything sy_cost_build_leaf builds, released and reset. */
static void leaf_free(sy_cost_ctx_t *c)
{
    cgraph_free(&c->sg);
    free(c->sidx);
    free(c->attach);
    free(c->wdev);
    free(c->grp_sw);
    free(c->grp_off);
    free(c->grp_dev);
    c->sidx = c->attach = c->wdev = c->grp_sw = c->grp_off = c->grp_dev = NULL;
    c->ngroups = 0;
}

pmix_status_t sy_cost_build_leaf(sy_cost_ctx_t *c, bool *applies)
{
    const sy_topo_t *t = c->t;
    const uint32_t *v2d = c->ix->vertex_to_dev;
    bool weighted = c->metric == SY_COST_SPEED;
    uint64_t ref = weighted ? ref_speed(t) : 0;
    uint32_t *pos = NULL, *cnt = NULL;
    pmix_status_t rc = PMIX_ERR_NOMEM;
    *applies = false;

    c->sidx = malloc(sizeof(uint32_t) * (t->nv ? t->nv : 1));
    c->attach = malloc(sizeof(uint32_t) * (c->ndev ? c->ndev : 1));
    c->wdev = malloc(sizeof(uint32_t) * (c->ndev ? c->ndev : 1));
    if (c->sidx == NULL || c->attach == NULL || c->wdev == NULL) {
        goto fail;
    }
    uint32_t ns = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        c->sidx[v] = v2d[v] == SY_TOPO_NONE ? ns++ : SY_TOPO_NONE;
    }
    for (uint32_t d = 0; d < c->ndev; d++) {
        c->attach[d] = SY_TOPO_NONE;
    }
    c->sg.n = ns;
    c->sg.off = calloc((size_t)ns + 1, sizeof(uint32_t));
    if (c->sg.off == NULL) {
        goto fail;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        const sy_topo_edge_t *e = &t->e[i];
        if (!sy_topo_edge_usable(t, e)) {
            continue;
        }
        uint32_t da = v2d[e->a], db = v2d[e->b];
        if (da != SY_TOPO_NONE && db != SY_TOPO_NONE) {
            rc = PMIX_SUCCESS; /* device-device link: not applicable */
            goto fail;
        }
        if (da == SY_TOPO_NONE && db == SY_TOPO_NONE) {
            c->sg.off[c->sidx[e->a] + 1]++;
            c->sg.off[c->sidx[e->b] + 1]++;
            continue;
        }
        uint32_t d = da != SY_TOPO_NONE ? da : db;
        uint32_t sw = da != SY_TOPO_NONE ? e->b : e->a;
        if (c->attach[d] != SY_TOPO_NONE) {
            rc = PMIX_SUCCESS; /* multi-homed */
            goto fail;
        }
        c->attach[d] = c->sidx[sw];
        c->wdev[d] = link_cost(c->metric, ref, e->speed);
    }
    if (cgraph_alloc(&c->sg, weighted, &pos) != PMIX_SUCCESS) {
        goto fail;
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        const sy_topo_edge_t *e = &t->e[i];
        if (!sy_topo_edge_usable(t, e) || v2d[e->a] != SY_TOPO_NONE || v2d[e->b] != SY_TOPO_NONE) {
            continue;
        }
        uint32_t a = c->sidx[e->a], b = c->sidx[e->b];
        uint32_t pa = pos[a]++, pb = pos[b]++;
        c->sg.adj[pa] = b;
        c->sg.adj[pb] = a;
        if (weighted) {
            c->sg.w[pa] = c->sg.w[pb] = link_cost(c->metric, ref, e->speed);
        }
    }

    /* Group devices by attachment (counting sort keeps them ascending);
     * slot ns collects the detached ones. */
    cnt = calloc((size_t)ns + 2, sizeof(uint32_t));
    c->grp_dev = malloc(sizeof(uint32_t) * (c->ndev ? c->ndev : 1));
    if (cnt == NULL || c->grp_dev == NULL) {
        goto fail;
    }
    for (uint32_t d = 0; d < c->ndev; d++) {
        uint32_t s = c->attach[d] == SY_TOPO_NONE ? ns : c->attach[d];
        cnt[s + 1]++;
    }
    uint32_t ngroups = 0;
    for (uint32_t s = 0; s <= ns; s++) {
        ngroups += cnt[s + 1] != 0;
    }
    c->grp_sw = malloc(sizeof(uint32_t) * (ngroups ? ngroups : 1));
    c->grp_off = malloc(sizeof(uint32_t) * ((size_t)ngroups + 1));
    if (c->grp_sw == NULL || c->grp_off == NULL) {
        goto fail;
    }
    uint32_t k = 0;
    c->grp_off[0] = 0;
    for (uint32_t s = 0; s <= ns; s++) {
        if (cnt[s + 1] != 0) {
            c->grp_sw[k] = s == ns ? SY_TOPO_NONE : s;
            c->grp_off[k + 1] = c->grp_off[k] + cnt[s + 1];
            k++;
        }
        cnt[s + 1] += cnt[s]; /* cnt[s] becomes the start of slot s */
    }
    for (uint32_t d = 0; d < c->ndev; d++) {
        uint32_t s = c->attach[d] == SY_TOPO_NONE ? ns : c->attach[d];
        c->grp_dev[cnt[s]++] = d;
    }
    c->ngroups = ngroups;
    free(cnt);
    free(pos);
    detect_lattice(c);
    *applies = true;
    return PMIX_SUCCESS;

fail:
    free(cnt);
    free(pos);
    leaf_free(c);
    return rc;
}

void sy_cost_ctx_free(sy_cost_ctx_t *c)
{
    cgraph_free(&c->g);
    leaf_free(c);
}

pmix_status_t sy_cost_scratch_init(const sy_cost_ctx_t *c, bool leaf, sy_cost_scratch_t *s)
{
    const sy_cgraph_t *g = leaf ? &c->sg : &c->g;
    size_t n = g->n ? g->n : 1;
    bool weighted = c->metric == SY_COST_SPEED;
    memset(s, 0, sizeof(*s));
    s->stamp = calloc(n, sizeof(uint32_t));
    if (weighted) {
        s->dist64 = malloc(sizeof(uint64_t) * n);
        s->heap_cap = (size_t)g->off[g->n] + 1;
        s->heap_key = malloc(sizeof(uint64_t) * s->heap_cap);
        s->heap_v = malloc(sizeof(uint32_t) * s->heap_cap);
    } else {
        s->dist32 = malloc(sizeof(uint32_t) * n);
        s->queue = malloc(sizeof(uint32_t) * n);
    }
    if (leaf && !weighted && c->lat_nd == 0) {
        s->ms_seen = malloc(sizeof(uint64_t) * n);
        s->ms_front = calloc(n, sizeof(uint64_t));
        s->ms_next = calloc(n, sizeof(uint64_t));
        s->ms_list_a = malloc(sizeof(uint32_t) * n);
        s->ms_list_b = malloc(sizeof(uint32_t) * n);
        s->ms_dist = malloc(sizeof(uint16_t) * n * SY_COST_BATCH);
        if (s->ms_seen == NULL || s->ms_front == NULL || s->ms_next == NULL ||
            s->ms_list_a == NULL || s->ms_list_b == NULL || s->ms_dist == NULL) {
            sy_cost_scratch_free(s);
            return PMIX_ERR_NOMEM;
        }
    }
    if (leaf && c->lat_nd > 0) {
        s->lat_tab = malloc(sizeof(uint16_t) * c->lat_sum);
        if (s->lat_tab == NULL) {
            sy_cost_scratch_free(s);
            return PMIX_ERR_NOMEM;
        }
    }
    if (leaf) {
        s->tmpl = malloc(sizeof(uint16_t) * (c->ndev ? c->ndev : 1));
        if (weighted) {
            s->tmpl2 = malloc(sizeof(uint16_t) * (c->ndev ? c->ndev : 1));
        }
    }
    if (s->stamp == NULL ||
        (weighted ? (s->dist64 == NULL || s->heap_key == NULL || s->heap_v == NULL)
                  : (s->dist32 == NULL || s->queue == NULL)) ||
        (leaf && (s->tmpl == NULL || (weighted && s->tmpl2 == NULL)))) {
        sy_cost_scratch_free(s);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void sy_cost_scratch_free(sy_cost_scratch_t *s)
{
    free(s->stamp);
    free(s->queue);
    free(s->dist32);
    free(s->dist64);
    free(s->heap_key);
    free(s->heap_v);
    free(s->tmpl);
    free(s->tmpl2);
    free(s->lat_tab);
    free(s->ms_seen);
    free(s->ms_front);
    free(s->ms_next);
    free(s->ms_list_a);
    free(s->ms_list_b);
    free(s->ms_dist);
    memset(s, 0, sizeof(*s));
}

/* A fresh visit mark; on wrap-around clear the stamps once. */
static void next_stamp(sy_cost_scratch_t *s, uint32_t n)
{
    if (0 == ++s->cur) {
        memset(s->stamp, 0, sizeof(uint32_t) * (n ? n : 1));
        s->cur = 1;
    }
}

/* ---- lazy binary min-heap (speed mode) ---- */

static void heap_push(sy_cost_scratch_t *s, size_t *len, uint64_t key, uint32_t v)
{
    size_t i = (*len)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (s->heap_key[p] <= key) {
            break;
        }
        s->heap_key[i] = s->heap_key[p];
        s->heap_v[i] = s->heap_v[p];
        i = p;
    }
    s->heap_key[i] = key;
    s->heap_v[i] = v;
}

static void heap_pop(sy_cost_scratch_t *s, size_t *len, uint64_t *key, uint32_t *v)
{
    *key = s->heap_key[0];
    *v = s->heap_v[0];
    size_t n = --(*len);
    if (n == 0) {
        return;
    }
    uint64_t lk = s->heap_key[n];
    uint32_t lv = s->heap_v[n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) {
            break;
        }
        if (l + 1 < n && s->heap_key[l + 1] < s->heap_key[l]) {
            l++;
        }
        if (s->heap_key[l] >= lk) {
            break;
        }
        s->heap_key[i] = s->heap_key[l];
        s->heap_v[i] = s->heap_v[l];
        i = l;
    }
    s->heap_key[i] = lk;
    s->heap_v[i] = lv;
}

/* Dijkstra over g from `src` with start cost 0.  Vertices for which
 * `stop` (may be NULL) is not SY_TOPO_NONE are reached but not expanded;
 * when `row` is given, the cost of reaching such a vertex x is folded into
 * row[stop[x]] instead of being queued. */
static void dijkstra(const sy_cgraph_t *g, sy_cost_scratch_t *s, uint32_t src, const uint32_t *stop,
                     uint16_t *row)
{
    size_t len = 0;
    next_stamp(s, g->n);
    s->stamp[src] = s->cur;
    s->dist64[src] = 0;
    heap_push(s, &len, 0, src);
    while (len > 0) {
        uint64_t d;
        uint32_t x;
        heap_pop(s, &len, &d, &x);
        if (d > s->dist64[x]) {
            continue;
        }
        for (uint32_t e = g->off[x]; e < g->off[x + 1]; e++) {
            uint32_t y = g->adj[e];
            uint64_t nd = d + g->w[e];
            if (stop != NULL && stop[y] != SY_TOPO_NONE) {
                uint16_t v = sat16(nd);
                if (v < row[stop[y]]) {
                    row[stop[y]] = v;
                }
                continue;
            }
            if (s->stamp[y] != s->cur || nd < s->dist64[y]) {
                s->stamp[y] = s->cur;
                s->dist64[y] = nd;
                heap_push(s, &len, nd, y);
            }
        }
    }
}

/* BFS over g from `src`; same `stop` / `row` rule as dijkstra(). */
static void bfs(const sy_cgraph_t *g, sy_cost_scratch_t *s, uint32_t src, const uint32_t *stop,
                uint16_t *row)
{
    uint32_t *q = s->queue, *dist = s->dist32, *stamp = s->stamp;
    uint32_t cur, head = 0, tail = 0;
    next_stamp(s, g->n);
    cur = s->cur;
    stamp[src] = cur;
    dist[src] = 0;
    q[tail++] = src;
    while (head < tail) {
        uint32_t x = q[head++];
        uint32_t dx = dist[x] + 1;
        for (uint32_t e = g->off[x]; e < g->off[x + 1]; e++) {
            uint32_t y = g->adj[e];
            if (stamp[y] == cur) {
                continue;
            }
            stamp[y] = cur;
            if (stop != NULL && stop[y] != SY_TOPO_NONE) {
                row[stop[y]] = sat16(dx);
                continue;
            }
            dist[y] = dx;
            q[tail++] = y;
        }
    }
}

/* Ring distances from `src` along each dimension into s->lat_tab. */
static void lattice_tables(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t src,
                           uint16_t **tab)
{
    uint16_t *q = s->lat_tab;
    for (uint32_t k = 0; k < c->lat_nd; k++) {
        uint32_t D = c->lat_dim[k], sk = (src / c->lat_stride[k]) % D;
        tab[k] = q;
        for (uint32_t x = 0; x < D; x++) {
            uint32_t d = x > sk ? x - sk : sk - x;
            q[x] = (uint16_t)(d < D - d ? d : D - d);
        }
        q += D;
    }
}

/* Torus switch distances from `src` in closed form (the sum over the
 * dimensions of the ring distance), filled in lattice order, dimension 0
 * innermost, so the writes are sequential.  Adds `plus` to each. */
static void lattice_fill(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t src, uint16_t plus,
                         uint32_t p, uint16_t *out16, uint32_t *out32)
{
    const uint32_t nd = c->lat_nd;
    uint16_t *tab[SY_COST_LATTICE_MAX_DIMS];
    uint32_t cnt[SY_COST_LATTICE_MAX_DIMS] = {0};
    lattice_tables(c, s, src, tab);
    const uint16_t *t0 = tab[0];
    const uint32_t d0 = c->lat_dim[0];
    for (uint32_t idx = 0; idx < c->sg.n; idx += d0) {
        uint16_t base = plus;
        for (uint32_t k = 1; k < nd; k++) {
            base = (uint16_t)(base + tab[k][cnt[k]]);
        }
        if (out32 != NULL) {
            for (uint32_t x = 0; x < d0; x++) {
                out32[idx + x] = (uint32_t)base + t0[x];
            }
        } else if (p == 1) {
            uint16_t *o = out16 + idx;
            uint32_t x = 0;
#if defined(__SSE2__)
            /* the hot loop of a one-device-per-router torus: 8 at a time */
            const __m128i vb = _mm_set1_epi16((short)base);
            for (; x + 8 <= d0; x += 8) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(t0 + x));
                _mm_storeu_si128((__m128i *)(void *)(o + x), _mm_add_epi16(v, vb));
            }
#endif
            for (; x < d0; x++) {
                o[x] = (uint16_t)(base + t0[x]);
            }
        } else {
            uint16_t *o = out16 + (size_t)idx * p;
            for (uint32_t x = 0; x < d0; x++) {
                uint16_t v = (uint16_t)(base + t0[x]);
                for (uint32_t q = 0; q < p; q++) {
                    *o++ = v;
                }
            }
        }
        for (uint32_t k = 1; k < nd && ++cnt[k] == c->lat_dim[k]; k++) {
            cnt[k] = 0;
        }
    }
}

/* Copy one finished row into the matrix.  The matrix is written once and
 * not read back here, so on x86 non-temporal stores skip the read for
 * ownership of every destination line (a third less memory traffic than
 * memcpy, whose own streaming threshold is far above one row). */
static void row_store(uint16_t *dst, const uint16_t *src, uint32_t n)
{
#if defined(__SSE2__)
    uint32_t j = 0;
    while (j < n && ((uintptr_t)(dst + j) & 15) != 0) {
        dst[j] = src[j];
        j++;
    }
    for (; j + 8 <= n; j += 8) {
        _mm_stream_si128((__m128i *)(void *)(dst + j),
                         _mm_loadu_si128((const __m128i *)(const void *)(src + j)));
    }
    for (; j < n; j++) {
        dst[j] = src[j];
    }
#else
    memcpy(dst, src, sizeof(uint16_t) * n);
#endif
}

/* Make the streamed rows visible before the thread reports them done. */
static inline void rows_done(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

void sy_cost_source_row(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t i)
{
    uint16_t *row = c->m + (size_t)i * c->ndev;
    uint32_t src = c->ix->dev_to_vertex[i];
    memset(row, 0xff, sizeof(uint16_t) * c->ndev); /* 0xffff = unreachable */
    if (c->metric == SY_COST_SPEED) {
        dijkstra(&c->g, s, src, c->ix->vertex_to_dev, row);
    } else {
        bfs(&c->g, s, src, c->ix->vertex_to_dev, row);
    }
    row[i] = 0;
}

/* Bit-parallel BFS (one bit per source) over the switch graph from up to
 * 64 switches at once: a vertex is expanded at a level when any source
 * first reached it at the previous one, with one word OR per link, so
 * sources whose frontiers move together share the work; it is never more
 * work than separate searches.  Row b of s->ms_dist receives the
 * distances from srcs[b] (SY_COST_UNREACHABLE where none). */
static void msbfs(const sy_cgraph_t *g, sy_cost_scratch_t *s, const uint32_t *srcs, uint32_t nsrc)
{
    const uint32_t n = g->n;
    uint64_t *seen = s->ms_seen, *front = s->ms_front, *next = s->ms_next;
    uint32_t *la = s->ms_list_a, *lb = s->ms_list_b, na = 0;
    uint16_t *dist = s->ms_dist;
    memset(seen, 0, sizeof(uint64_t) * n);
    memset(dist, 0xff, sizeof(uint16_t) * n * nsrc);
    for (uint32_t b = 0; b < nsrc; b++) {
        uint32_t v = srcs[b];
        if (front[v] == 0) {
            la[na++] = v;
        }
        front[v] |= (uint64_t)1 << b;
        seen[v] |= (uint64_t)1 << b;
        dist[(size_t)b * n + v] = 0;
    }
    uint32_t level = 0;
    while (na > 0) {
        uint32_t nb = 0;
        uint16_t lv = ++level >= SY_COST_MAX ? SY_COST_MAX : (uint16_t)level;
        for (uint32_t i = 0; i < na; i++) {
            uint32_t v = la[i];
            uint64_t f = front[v];
            for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
                uint32_t u = g->adj[e];
                uint64_t add = f & ~seen[u];
                if (add != 0) {
                    if (next[u] == 0) {
                        lb[nb++] = u;
                    }
                    next[u] |= add;
                }
            }
        }
        for (uint32_t i = 0; i < na; i++) {
            front[la[i]] = 0;
        }
        for (uint32_t i = 0; i < nb; i++) {
            uint32_t u = lb[i];
            uint64_t add = next[u];
            next[u] = 0;
            seen[u] |= add;
            front[u] = add;
            while (add != 0) {
                uint32_t b = (uint32_t)__builtin_ctzll(add);
                dist[(size_t)b * n + u] = lv;
                add &= add - 1;
            }
        }
        uint32_t *tmp = la;
        la = lb;
        lb = tmp;
        na = nb;
    }
}

/* Rows of group k from switch distances dsw (uint16, SY_COST_UNREACHABLE
 * for none), hop mode: device links cost 1 each. */
static void leaf_rows_from(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t k,
                           const uint16_t *dsw)
{
    const uint32_t n = c->ndev;
    const uint32_t *devs = c->grp_dev + c->grp_off[k];
    const uint32_t ndevs = c->grp_off[k + 1] - c->grp_off[k];
    const uint32_t *att = c->attach;
    uint16_t *tm = ndevs == 1 ? c->m + (size_t)devs[0] * n : s->tmpl;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t a = att[j];
        uint32_t d = a == SY_TOPO_NONE ? SY_COST_UNREACHABLE : dsw[a];
        tm[j] = d == SY_COST_UNREACHABLE ? SY_COST_UNREACHABLE
                                         : (d + 2 > SY_COST_MAX ? SY_COST_MAX : (uint16_t)(d + 2));
    }
    if (ndevs != 1) {
        for (uint32_t r = 0; r < ndevs; r++) {
            row_store(c->m + (size_t)devs[r] * n, tm, n);
        }
        rows_done();
    }
    for (uint32_t r = 0; r < ndevs; r++) {
        c->m[(size_t)devs[r] * n + devs[r]] = 0;
    }
}

static void leaf_group(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t k);

void sy_cost_leaf_batch(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t k)
{
    uint32_t g0 = k * SY_COST_BATCH;
    uint32_t g1 = g0 + SY_COST_BATCH < c->ngroups ? g0 + SY_COST_BATCH : c->ngroups;
    if (s->ms_dist == NULL) { /* speed metric or torus closed form */
        for (uint32_t g = g0; g < g1; g++) {
            leaf_group(c, s, g);
        }
        return;
    }
    uint32_t srcs[SY_COST_BATCH], nsrc = 0;
    for (uint32_t g = g0; g < g1; g++) {
        if (c->grp_sw[g] != SY_TOPO_NONE) {
            srcs[nsrc++] = c->grp_sw[g];
        }
    }
    msbfs(&c->sg, s, srcs, nsrc);
    for (uint32_t g = g0, b = 0; g < g1; g++) {
        if (c->grp_sw[g] == SY_TOPO_NONE) {
            leaf_group(c, s, g);
        } else {
            leaf_rows_from(c, s, g, s->ms_dist + (size_t)b++ * c->sg.n);
        }
    }
}

static void leaf_group(const sy_cost_ctx_t *c, sy_cost_scratch_t *s, uint32_t k)
{
    const uint32_t n = c->ndev;
    const uint32_t *devs = c->grp_dev + c->grp_off[k];
    const uint32_t ndevs = c->grp_off[k + 1] - c->grp_off[k];
    const uint32_t sw = c->grp_sw[k];
    const bool weighted = c->metric == SY_COST_SPEED;
    const size_t rowbytes = sizeof(uint16_t) * n;

    if (sw == SY_TOPO_NONE) {
        for (uint32_t r = 0; r < ndevs; r++) {
            uint16_t *row = c->m + (size_t)devs[r] * n;
            memset(row, 0xff, rowbytes);
            row[devs[r]] = 0;
        }
        return;
    }
    const bool lattice = c->lat_nd > 0;
    if (lattice && c->lat_p > 0) {
        /* devices in lattice order: build the row from the closed form
         * (+2 for the two device links) in the cache-resident template,
         * then stream it into every row of the group */
        lattice_fill(c, s, sw, 2, c->lat_p, s->tmpl, NULL);
        for (uint32_t r = 0; r < ndevs; r++) {
            row_store(c->m + (size_t)devs[r] * n, s->tmpl, n);
        }
        rows_done();
        for (uint32_t r = 0; r < ndevs; r++) {
            c->m[(size_t)devs[r] * n + devs[r]] = 0;
        }
        return;
    }
    /* Hop mode without a lattice never gets here: sy_cost_leaf_batch
     * serves it with the bit-parallel search. */
    if (weighted) {
        dijkstra(&c->sg, s, sw, NULL, NULL);
    } else {
        lattice_fill(c, s, sw, 0, 0, NULL, s->dist32); /* all reached: no stamps */
    }
    /* Template: cost from the switch to each device, including that
     * device's own link.  A lone device writes it straight into its row. */
    uint16_t *tm = (ndevs == 1 && !weighted) ? c->m + (size_t)devs[0] * n : s->tmpl;
    const uint32_t *att = c->attach;
    const uint32_t *stamp = s->stamp;
    const uint32_t cur = s->cur;
    if (weighted) {
        for (uint32_t j = 0; j < n; j++) {
            uint32_t a = att[j];
            tm[j] = (a == SY_TOPO_NONE || stamp[a] != cur) ? SY_COST_UNREACHABLE
                                                           : sat16(s->dist64[a] + c->wdev[j]);
        }
    } else {
        /* hop mode (lattice): both device links cost 1, so add 2 here */
        const uint32_t *dist = s->dist32;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t a = att[j];
            tm[j] = a == SY_TOPO_NONE ? SY_COST_UNREACHABLE : sat16((uint64_t)dist[a] + 2);
        }
    }
    uint32_t cached_w = 0; /* tmpl2 holds tm + cached_w (0 = none yet) */
    for (uint32_t r = 0; r < ndevs; r++) {
        uint32_t i = devs[r];
        uint16_t *row = c->m + (size_t)i * n;
        if (!weighted) {
            if (row != tm) {
                row_store(row, tm, n);
            }
        } else {
            uint32_t wi = c->wdev[i];
            if (wi != cached_w) {
                uint16_t *t2 = s->tmpl2;
                for (uint32_t j = 0; j < n; j++) {
                    uint32_t v = tm[j];
                    t2[j] =
                        v == SY_COST_UNREACHABLE ? SY_COST_UNREACHABLE : sat16((uint64_t)v + wi);
                }
                cached_w = wi;
            }
            row_store(row, s->tmpl2, n);
        }
    }
    rows_done();
    for (uint32_t r = 0; r < ndevs; r++) {
        c->m[(size_t)devs[r] * n + devs[r]] = 0;
    }
}
