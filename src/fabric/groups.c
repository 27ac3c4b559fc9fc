/* Fabric groups and the PMIX_FABRIC_GROUPS string (see groups.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/groups.h"
#include "fabric/levels.h"
#include "fabric/structure.h"

/* ------------------------------------------------------------ methods */

static sy_groups_method_t pick_auto(const sy_topo_t *t, const sy_levels_t *lv,
                                    const sy_groups_opts_t *o, pmix_status_t *rc)
{
    sy_partition_t tri;
    uint32_t nkept = 0;
    *rc = sy_partition_triangles(t, &tri, &nkept);
    if (PMIX_SUCCESS != *rc) {
        return SY_GROUPS_LEAF;
    }
    sy_fabric_kind_t kind = sy_fabric_classify(t, lv, &tri, nkept);
    sy_partition_free(&tri);
    switch (kind) {
    case SY_FABRIC_TREE:
        if (o->tree_mode == SY_GROUPS_TREE_LEAF) {
            return SY_GROUPS_LEAF;
        }
        if (o->tree_mode == SY_GROUPS_TREE_POD) {
            return SY_GROUPS_POD;
        }
        return lv->max_level >= 2 ? SY_GROUPS_POD : SY_GROUPS_LEAF;
    case SY_FABRIC_DRAGONFLY: return SY_GROUPS_TRIANGLE;
    case SY_FABRIC_OTHER: return SY_GROUPS_COMMUNITY;
    case SY_FABRIC_FLAT:
    case SY_FABRIC_DIRECT:
    default: return SY_GROUPS_LEAF;
    }
}

static pmix_status_t switch_partition(const sy_topo_t *t, const sy_levels_t *lv,
                                      sy_groups_method_t m, uint64_t seed, sy_partition_t *p)
{
    switch (m) {
    case SY_GROUPS_LEAF: return sy_partition_leaf(t, p);
    case SY_GROUPS_POD: return sy_partition_pods(t, lv, p);
    case SY_GROUPS_TRIANGLE: return sy_partition_triangles(t, p, NULL);
    case SY_GROUPS_COMMUNITY:
        return sy_partition_community(t, seed ? seed : SY_GROUPS_DEFAULT_SEED, p);
    default: return PMIX_ERR_BAD_PARAM;
    }
}

/* Device d joins the part of its attachment switch; unattached devices
 * are alone.  Ids follow the first device of each group. */
static pmix_status_t assign(const sy_topo_t *t, const sy_devindex_t *ix, const sy_levels_t *lv,
                            const sy_partition_t *p, sy_groups_t *out)
{
    uint32_t *map = malloc(((size_t)p->npart + 1) * sizeof(uint32_t));
    out->group = malloc(((size_t)ix->ndev + 1) * sizeof(uint32_t));
    if (map == NULL || out->group == NULL) {
        free(map);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->npart; i++) {
        map[i] = SY_TOPO_NONE;
    }
    out->ndev = ix->ndev;
    for (uint32_t d = 0; d < ix->ndev; d++) {
        uint32_t v = ix->dev_to_vertex[d];
        uint32_t sw = (v < t->nv) ? lv->attach[v] : SY_TOPO_NONE;
        uint32_t part = (sw == SY_TOPO_NONE) ? SY_TOPO_NONE : p->part[sw];
        if (part == SY_TOPO_NONE || part >= p->npart) {
            out->group[d] = out->ngroups++;
            continue;
        }
        if (map[part] == SY_TOPO_NONE) {
            map[part] = out->ngroups++;
        }
        out->group[d] = map[part];
    }
    free(map);
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------- string */

typedef struct {
    char *s;
    size_t len, cap;
} strbuf_t;

static pmix_status_t sb_add(strbuf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *p = realloc(b->s, cap);
        if (p == NULL) {
            return PMIX_ERR_NOMEM;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return PMIX_SUCCESS;
}

/* Set of (group, name) pairs for the current group only: a slot holding
 * another group counts as empty, so nothing needs clearing between
 * groups (entries are never removed within one group). */
typedef struct {
    const char **name;
    uint32_t *grp;
    size_t mask;
} nameset_t;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h;
}

/* true if (g, name) was new */
static bool nameset_add(nameset_t *ns, uint32_t g, const char *name)
{
    size_t i = (size_t)hash_str(name) & ns->mask;
    while (ns->grp[i] == g) {
        if (strcmp(ns->name[i], name) == 0) {
            return false;
        }
        i = (i + 1) & ns->mask;
    }
    ns->grp[i] = g;
    ns->name[i] = name;
    return true;
}

static const char *listed_name(const sy_topo_t *t, const sy_groups_opts_t *o, uint32_t v)
{
    if (o->names == SY_GROUPS_NAMES_HOST && t->v[v].host != NULL && '\0' != t->v[v].host[0]) {
        return t->v[v].host;
    }
    return t->v[v].name;
}

static bool writable(const char *name)
{
    return name != NULL && '\0' != name[0] && strpbrk(name, ",;:") == NULL;
}

static pmix_status_t build_string(const sy_topo_t *t, const sy_devindex_t *ix,
                                  const sy_groups_opts_t *o, sy_groups_t *g)
{
    size_t n = ix->ndev;
    for (size_t d = 0; d < n; d++) {
        if (!writable(listed_name(t, o, ix->dev_to_vertex[d]))) {
            return PMIX_SUCCESS; /* str stays NULL, see groups.h */
        }
    }
    /* Counting sort of the devices by group keeps device order inside. */
    uint32_t *start = calloc((size_t)g->ngroups + 1, sizeof(uint32_t));
    uint32_t *order = malloc((n + 1) * sizeof(uint32_t));
    size_t cap = 2;
    while (cap < 2 * n) {
        cap *= 2;
    }
    nameset_t ns = {.name = malloc(cap * sizeof(char *)),
                    .grp = malloc(cap * sizeof(uint32_t)),
                    .mask = cap - 1};
    strbuf_t b = {0};
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (start == NULL || order == NULL || ns.name == NULL || ns.grp == NULL) {
        goto done;
    }
    for (size_t i = 0; i < cap; i++) {
        ns.grp[i] = SY_TOPO_NONE;
    }
    for (size_t d = 0; d < n; d++) {
        start[g->group[d] + 1]++;
    }
    for (uint32_t i = 0; i < g->ngroups; i++) {
        start[i + 1] += start[i];
    }
    for (size_t d = 0; d < n; d++) {
        order[start[g->group[d]]++] = (uint32_t)d;
    }
    rc = sb_add(&b, "", 0);
    size_t k = 0;
    for (uint32_t gi = 0; gi < g->ngroups && rc == PMIX_SUCCESS; gi++) {
        char head[16];
        int hl = snprintf(head, sizeof(head), "%s%u:", gi ? ";" : "", gi);
        rc = sb_add(&b, head, (size_t)hl);
        bool first = true;
        for (; k < n && g->group[order[k]] == gi && rc == PMIX_SUCCESS; k++) {
            const char *name = listed_name(t, o, ix->dev_to_vertex[order[k]]);
            if (!nameset_add(&ns, gi, name)) {
                continue;
            }
            if (!first) {
                rc = sb_add(&b, ",", 1);
            }
            first = false;
            if (rc == PMIX_SUCCESS) {
                rc = sb_add(&b, name, strlen(name));
            }
        }
    }
    if (rc == PMIX_SUCCESS) {
        g->str = b.s;
        b.s = NULL;
    }
done:
    free(b.s);
    free(start);
    free(order);
    free(ns.name);
    free(ns.grp);
    return rc;
}

/* --------------------------------------------------------------- API */

pmix_status_t sy_groups_compute(const sy_topo_t *t, const sy_devindex_t *ix,
                                const sy_groups_opts_t *opts, sy_groups_t *out)
{
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL || ix == NULL || (ix->ndev > 0 && ix->dev_to_vertex == NULL) ||
        ix->ndev != t->ndevices) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_groups_opts_t o = {0};
    if (opts != NULL) {
        o = *opts;
    }
    if ((unsigned)o.method > SY_GROUPS_COMMUNITY || (unsigned)o.tree_mode > SY_GROUPS_TREE_POD ||
        (unsigned)o.names > SY_GROUPS_NAMES_DEVICE) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (uint32_t d = 0; d < ix->ndev; d++) {
        uint32_t v = ix->dev_to_vertex[d];
        if (v >= t->nv || t->v[v].kind != SY_TOPO_DEVICE) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    sy_levels_t lv;
    pmix_status_t rc = sy_levels_compute(t, &lv);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    sy_groups_method_t m = o.method;
    if (m == SY_GROUPS_AUTO) {
        m = pick_auto(t, &lv, &o, &rc);
    }
    sy_partition_t p = {0};
    if (rc == PMIX_SUCCESS) {
        rc = switch_partition(t, &lv, m, o.seed, &p);
    }
    if (rc == PMIX_SUCCESS) {
        out->method = m;
        rc = assign(t, ix, &lv, &p, out);
    }
    if (rc == PMIX_SUCCESS) {
        rc = build_string(t, ix, &o, out);
    }
    sy_partition_free(&p);
    sy_levels_free(&lv);
    if (rc != PMIX_SUCCESS) {
        sy_groups_free(out);
    }
    return rc;
}

void sy_groups_free(sy_groups_t *g)
{
    if (g == NULL) {
        return;
    }
    free(g->group);
    free(g->str);
    memset(g, 0, sizeof(*g));
}
