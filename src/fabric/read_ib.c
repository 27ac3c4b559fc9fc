/* The InfiniBand readers' common build step (read_ib.h).  Vertices are
 * looked up by GUID in an integer hash map while the cables are resolved,
 * so that a capture of 100,000 lines costs one string name per vertex,
 * not one per cable end. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_ib.h"

void sy_ib_cables_free(sy_ib_cables_t *c)
{
    sy_big_free(c->l);
    c->l = NULL;
    c->n = c->cap = 0;
}

pmix_status_t sy_ib_cables_reserve(sy_ib_cables_t *c, size_t n)
{
    if (n <= c->cap)
        return PMIX_SUCCESS;
    if (n > SIZE_MAX / sizeof(sy_ib_cable_t)) {
        return PMIX_SUCCESS;
    }
    sy_ib_cable_t *g = sy_big_realloc(c->l, n * sizeof(*g));
    if (g == NULL)
        return PMIX_SUCCESS; /* push grows it as it can */
    c->l = g;
    c->cap = n;
    return PMIX_SUCCESS;
}

pmix_status_t sy_ib_cables_push(sy_ib_cables_t *c, sy_ib_cable_t *l)
{
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 256;
        sy_ib_cable_t *n = sy_big_realloc(c->l, ncap * sizeof(*n));
        if (n == NULL) {
            return sy_read_error(c->errmsg, c->name, l->line, "out of memory");
        }
        c->l = n;
        c->cap = ncap;
    }
    c->l[c->n++] = *l;
    return PMIX_SUCCESS;
}

bool sy_ib_hex(const char *s, size_t n, uint64_t *out)
{
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16) {
        return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        unsigned d;
        if (ch >= '0' && ch <= '9') {
            d = ch - '0';
        } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
            d = (ch | 0x20) - 'a' + 10;
        } else {
            return false;
        }
        v = v * 16 + d;
    }
    *out = v;
    return true;
}

bool sy_ib_dec(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 9) {
        return false;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (v > max) {
        return false;
    }
    *out = v;
    return true;
}

char *sy_ib_strndup(const char *s, size_t n)
{
    if (n > SY_TOPO_MAX_NAME) {
        n = SY_TOPO_MAX_NAME;
    }
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

uint64_t sy_ib_speed(const char *width, size_t wn, const char *rate, size_t rn)
{
    /* ibnetdiscover names the lane rate, OpenSM prints it in Gb/s */
    static const struct {
        const char *name;
        uint64_t lane;
    } rates[] = {
        {"SDR", 2500000000ULL},    {"DDR", 5000000000ULL},   {"QDR", 10000000000ULL},
        {"FDR10", 10000000000ULL}, {"FDR", 14000000000ULL},  {"EDR", 25000000000ULL},
        {"HDR", 50000000000ULL},   {"NDR", 100000000000ULL}, {"XDR", 200000000000ULL},
        {"2.5", 2500000000ULL},    {"5", 5000000000ULL},     {"10", 10000000000ULL},
        {"14", 14000000000ULL},    {"25", 25000000000ULL},   {"50", 50000000000ULL},
        {"100", 100000000000ULL},  {"200", 200000000000ULL},
    };
    uint32_t lanes;
    if (wn < 2 || (width[wn - 1] != 'x' && width[wn - 1] != 'X') ||
        !sy_ib_dec(width, wn - 1, 64, &lanes)) {
        return 0;
    }
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        if (strlen(rates[i].name) == rn && memcmp(rate, rates[i].name, rn) == 0) {
            return lanes * rates[i].lane;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ resolve */

/* GUID -> vertex, open addressing; key 0 is never a GUID we look up.
 * Grown as GUIDs come (load <= 1/2): a capture names each vertex many
 * times, so sizing it by the cable count would touch far more memory. */
typedef struct {
    uint64_t *key;
    uint32_t *vid;
    size_t cap, count;
} guid_map_t;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static bool map_init(guid_map_t *m, size_t cap)
{
    m->key = calloc(cap, sizeof(uint64_t));
    m->vid = malloc(cap * sizeof(uint32_t));
    m->cap = cap;
    m->count = 0;
    if (m->key == NULL || m->vid == NULL) {
        return false;
    }
    memset(m->vid, 0xff, cap * sizeof(uint32_t));
    return true;
}

static void map_free(guid_map_t *m)
{
    free(m->key);
    free(m->vid);
    m->key = NULL;
    m->vid = NULL;
}

/* The slot of key, inserted when absent (its vid then SY_TOPO_NONE);
 * NULL when out of memory. */
static uint32_t *map_slot(guid_map_t *m, uint64_t key)
{
    if ((m->count + 1) * 2 > m->cap) {
        guid_map_t g;
        if (!map_init(&g, m->cap * 2)) {
            map_free(&g);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->key[i] != 0) {
                size_t j = mix(m->key[i]) & (g.cap - 1);
                while (g.key[j] != 0) {
                    j = (j + 1) & (g.cap - 1);
                }
                g.key[j] = m->key[i];
                g.vid[j] = m->vid[i];
            }
        }
        g.count = m->count;
        map_free(m);
        *m = g;
    }
    size_t mask = m->cap - 1;
    for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
        if (m->key[i] == key) {
            return &m->vid[i];
        }
        if (m->key[i] == 0) {
            m->key[i] = key;
            m->count++;
            return &m->vid[i];
        }
    }
}

typedef struct {
    uint64_t node, pguid;
    uint32_t port;
} obs_t;

static int obs_cmp(const void *x, const void *y)
{
    const obs_t *a = x, *b = y;
    if (a->node != b->node) {
        return a->node < b->node ? -1 : 1;
    }
    if (a->port != b->port) {
        return a->port < b->port ? -1 : 1;
    }
    return 0;
}

static void guid_text(char *out, uint64_t g)
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < 16; i++) {
        out[2 + i] = hex[(g >> (60 - 4 * i)) & 0xf];
    }
    out[18] = '\0';
}

typedef struct {
    sy_ib_cables_t *c;
    sy_topo_t *t;
    guid_map_t map;
    const obs_t *obs;
    size_t nobs;
} resolver_t;

static pmix_status_t add_vertex(resolver_t *r, sy_ib_end_t *ep, const char *name, uint64_t pg,
                                size_t line)
{
    sy_topo_t *t = r->t;
    char guid[20], desc[SY_TOPO_MAX_NAME + 1] = "";
    guid_text(guid, pg);
    if (ep->desc != NULL) {
        size_t dn = ep->dlen > SY_TOPO_MAX_NAME ? SY_TOPO_MAX_NAME : ep->dlen;
        memcpy(desc, ep->desc, dn);
        desc[dn] = '\0';
    }
    pmix_status_t rc;
    if (SY_IB_CA == ep->type) {
        char host[SY_TOPO_MAX_NAME + 1];
        size_t n = strcspn(desc, " \t");
        memcpy(host, desc, n);
        host[n] = '\0';
        rc = sy_topo_add_device(t, name, '\0' != host[0] ? host : NULL, pg != 0 ? guid : NULL,
                                &ep->vid);
    } else {
        rc = sy_topo_add_switch(t, name, -1, &ep->vid);
        if (rc == PMIX_SUCCESS) {
            rc = sy_topo_set_guid(t, ep->vid, guid);
        }
    }
    if (rc == PMIX_EXISTS) {
        if ((SY_IB_CA == ep->type) != (t->v[ep->vid].kind == SY_TOPO_DEVICE)) {
            return sy_read_error(r->c->errmsg, r->c->name, line,
                                 "GUID %s is used by a CA and a switch", name);
        }
        return PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS && '\0' != desc[0]) {
        rc = sy_topo_set_label(t, ep->vid, desc);
    }
    if (rc != PMIX_SUCCESS) {
        return sy_read_error(r->c->errmsg, r->c->name, line, "cannot add %s: %s", name,
                             rc == PMIX_ERR_OUT_OF_RESOURCE ? "too many vertices"
                                                            : "out of memory");
    }
    return PMIX_SUCCESS;
}

static pmix_status_t resolve(resolver_t *r, sy_ib_end_t *ep, size_t line)
{
    uint64_t pg = ep->pguid;
    if (SY_IB_CA == ep->type) {
        if (pg == 0 && ep->node != 0) {
            obs_t key = {.node = ep->node, .port = ep->port};
            const obs_t *f = bsearch(&key, r->obs, r->nobs, sizeof(*r->obs), obs_cmp);
            if (f != NULL) {
                pg = f->pguid;
            }
        }
        if (pg == 0) {
            /* no port GUID anywhere: named by node and port (rare) */
            char name[48];
            snprintf(name, sizeof(name), "0x%016" PRIx64 "/%u", ep->node, ep->port);
            return add_vertex(r, ep, name, 0, line);
        }
    } else {
        pg = ep->node;
    }
    if (pg == 0) {
        /* GUID 0 is not hashed: the string index decides */
        return add_vertex(r, ep, "0x0000000000000000", 0, line);
    }
    uint32_t *slot = map_slot(&r->map, pg);
    if (slot == NULL) {
        return sy_read_error(r->c->errmsg, r->c->name, line, "out of memory");
    }
    if (*slot != SY_TOPO_NONE) {
        ep->vid = *slot;
        if ((SY_IB_CA == ep->type) != (r->t->v[ep->vid].kind == SY_TOPO_DEVICE)) {
            char name[20];
            guid_text(name, pg);
            return sy_read_error(r->c->errmsg, r->c->name, line,
                                 "GUID %s is used by a CA and a switch", name);
        }
        return PMIX_SUCCESS;
    }
    char name[20];
    guid_text(name, pg);
    pmix_status_t rc = add_vertex(r, ep, name, pg, line);
    if (rc == PMIX_SUCCESS) {
        /* add_vertex does not touch the map: the slot is still ours */
        *slot = ep->vid;
    }
    return rc;
}

typedef struct {
    uint32_t va, pa, vb, pb;
    size_t idx;
} cable_key_t;

static int cable_cmp(const void *x, const void *y)
{
    const cable_key_t *a = x, *b = y;
    if (a->va != b->va)
        return a->va < b->va ? -1 : 1;
    if (a->pa != b->pa)
        return a->pa < b->pa ? -1 : 1;
    if (a->vb != b->vb)
        return a->vb < b->vb ? -1 : 1;
    if (a->pb != b->pb)
        return a->pb < b->pb ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

pmix_status_t sy_ib_cables_build(sy_ib_cables_t *c, sy_topo_t *t)
{
    resolver_t r = {.c = c, .t = t};
    /* captures name a vertex about five times (a port line from each
     * end): room for n/2 GUIDs is rarely regrown and not oversized */
    size_t mcap = 1024;
    while (mcap < c->n / 2) {
        mcap *= 2;
    }
    bool map_ok = map_init(&r.map, mcap);
    obs_t *obs = malloc((2 * c->n + 1) * sizeof(*obs));
    cable_key_t *cab = malloc((c->n + 1) * sizeof(*cab));
    bool *keep = calloc(c->n + 1, sizeof(bool));
    pmix_status_t rc = PMIX_SUCCESS;
    if (!map_ok || obs == NULL || cab == NULL || keep == NULL) {
        rc = sy_read_error(c->errmsg, c->name, 0, "out of memory");
        goto out;
    }
    size_t nobs = 0, ncab = 0;
    for (size_t i = 0; i < c->n; i++) {
        sy_ib_end_t *e[2] = {&c->l[i].a, &c->l[i].b};
        for (int k = 0; k < (c->l[i].connected ? 2 : 1); k++) {
            if (SY_IB_CA == e[k]->type && e[k]->node != 0 && e[k]->pguid != 0) {
                obs[nobs++] = (obs_t){e[k]->node, e[k]->pguid, e[k]->port};
            }
        }
    }
    qsort(obs, nobs, sizeof(*obs), obs_cmp);
    r.obs = obs;
    r.nobs = nobs;
    for (size_t i = 0; i < c->n && rc == PMIX_SUCCESS; i++) {
        sy_ib_cable_t *l = &c->l[i];
        rc = resolve(&r, &l->a, l->line);
        if (rc == PMIX_SUCCESS && l->connected) {
            rc = resolve(&r, &l->b, l->line);
        }
        if (rc == PMIX_SUCCESS && l->connected && l->a.vid != l->b.vid) {
            /* a loopback cable gives no edge */
            bool swap = l->a.vid > l->b.vid;
            cab[ncab++] = swap ? (cable_key_t){l->b.vid, l->b.port, l->a.vid, l->a.port, i}
                               : (cable_key_t){l->a.vid, l->a.port, l->b.vid, l->b.port, i};
        }
    }
    if (rc != PMIX_SUCCESS) {
        goto out;
    }
    /* One cable seen from both ends (or listed twice) counts once; the
     * first mention in file order wins. */
    qsort(cab, ncab, sizeof(*cab), cable_cmp);
    for (size_t i = 0; i < ncab; i++) {
        if (i == 0 || memcmp(&cab[i], &cab[i - 1], 4 * sizeof(uint32_t)) != 0) {
            keep[cab[i].idx] = true;
        }
    }
    for (size_t i = 0; i < c->n && rc == PMIX_SUCCESS; i++) {
        if (!keep[i]) {
            continue;
        }
        sy_ib_cable_t *l = &c->l[i];
        pmix_status_t r2 = sy_topo_add_link(t, l->a.vid, l->b.vid, l->speed, l->state,
                                            SY_TOPO_LINK_PARALLEL, NULL);
        if (r2 != PMIX_SUCCESS) {
            rc = sy_read_error(c->errmsg, c->name, l->line, "cannot add link: %s",
                               r2 == PMIX_ERR_OUT_OF_RESOURCE ? "too many links" : "out of memory");
        }
    }
out:
    map_free(&r.map);
    free(obs);
    free(cab);
    free(keep);
    return rc;
}
