/* Reader for ibsim's net files (ibsim-utils: the simulator that produces
 * genuine ibnetdiscover output without hardware):
 *
 *   Switch 24 "leaf0"          # "leaf0 ISR9024" enhanced port 0 lid 1
 *   [1]  "node01"[1]   w=2 s=1
 *   [24] "spine0"[3]
 *
 *   Hca 1 "node01"
 *   [1]  "leaf0"[1]
 *
 * A record is a header (Switch, Hca, Ca or Rt; the port count; the quoted
 * node id; an optional "# "description"") and its port lines
 * "[port] "remote id"[remote port]" (remote port 1 when absent) with
 * optional w= (enabled widths: 1 1x, 2 4x, 4 8x, 8 12x) and s= (enabled
 * speeds: 1 SDR, 2 DDR, 4 QDR) bit masks; the link runs at the highest
 * width and speed both ends enable (4x SDR by default, as in ibsim).
 * Global lines: width= and speed= (defaults for later nodes),
 * switchguid=, caguid=, hcaguids=, rtguid= (with '=' absolute, with '+'
 * relative GUID bases), devid=, module="prefix" (node ids become
 * "prefix#id").  include and do are not followed; they and any other line
 * are passed over with a note, as ibsim ignores unknown lines.
 *
 * Vertices: a switch or router per node, named by its id; a device per
 * cabled HCA port, named by the node id for one-port HCAs and
 * "<id>/<port>" otherwise, with host = the first word of the description
 * (or of the id).  GUIDs are assigned as ibsim assigns them (switches from
 * 0x200000, HCAs from 0x100000, each HCA reserving ports + 1), so that a
 * device's GUID text matches what ibnetdiscover reports on the simulated
 * fabric.  Each cable is kept once whether one or both ends list it. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_ib.h"

typedef struct {
    char *id, *desc;
    uint8_t type; /* SY_IB_* */
    uint32_t nports;
    uint64_t guid;
    uint32_t width, speed; /* enabled masks for its ports */
    uint32_t first_vid;    /* devices: vertex of port 1.. (per port below) */
    uint32_t *port_vid;    /* HCAs: vertex per port, SY_TOPO_NONE if uncabled */
    size_t line;
} node_t;

typedef struct {
    uint32_t node, port;
    char *remote;
    uint32_t rport;
    uint32_t width, speed; /* 0: the node's */
    size_t line;
} pline_t;

typedef struct {
    node_t *n;
    size_t nn, capn;
    pline_t *p;
    size_t np, capp;
    bool in_node;
    char prefix[64];
    uint64_t guids[3]; /* indexed by SY_IB_* */
    uint32_t width, speed;
    const char *name;
    char **errmsg;
    sy_read_skips_t skips;
} sim_t;

static void sim_free(sim_t *s)
{
    for (size_t i = 0; i < s->nn; i++) {
        free(s->n[i].id);
        free(s->n[i].desc);
        free(s->n[i].port_vid);
    }
    for (size_t i = 0; i < s->np; i++) {
        free(s->p[i].remote);
    }
    free(s->n);
    free(s->p);
}

/* The quoted string at p (p at the opening quote); *end after the closing
 * one. */
static char *quoted(const char *p, const char **end)
{
    if ('"' != *p) {
        return NULL;
    }
    const char *q = strchr(p + 1, '"');
    if (q == NULL || q == p + 1) {
        return NULL;
    }
    *end = q + 1;
    return sy_ib_strndup(p + 1, (size_t)(q - p - 1));
}

/* An id with the module prefix, as ibsim builds it. */
static char *with_prefix(sim_t *s, char *id)
{
    if (id == NULL || s->prefix[0] == '\0' || strchr(id, '#') != NULL) {
        return id;
    }
    size_t n = strlen(s->prefix) + strlen(id) + 2;
    char *full = malloc(n);
    if (full != NULL) {
        snprintf(full, n, "%s#%s", s->prefix, id);
    }
    free(id);
    return full;
}

static pmix_status_t header(sim_t *s, const char *p, size_t w, uint8_t type, size_t lineno)
{
    const char *q = p + w;
    while (' ' == *q || '\t' == *q) {
        q++;
    }
    const char *d0 = q;
    while (isdigit((unsigned char)*q)) {
        q++;
    }
    uint32_t nports;
    if (!sy_ib_dec(d0, (size_t)(q - d0), 255, &nports) || nports == 0) {
        return sy_read_error(s->errmsg, s->name, lineno,
                             "expected the number of ports (1-255) after the node type");
    }
    while (' ' == *q || '\t' == *q) {
        q++;
    }
    const char *rest;
    char *id = with_prefix(s, quoted(q, &rest));
    if (id == NULL) {
        return sy_read_error(s->errmsg, s->name, lineno, "expected a quoted node id");
    }
    if (strchr(id, '@') != NULL) {
        free(id);
        return sy_read_error(s->errmsg, s->name, lineno, "'@' is reserved in node ids");
    }
    char *desc = NULL;
    const char *hash = strchr(rest, '#');
    if (hash != NULL) {
        const char *d = hash + 1;
        while (' ' == *d || '\t' == *d) {
            d++;
        }
        const char *e;
        desc = '"' == *d ? quoted(d, &e) : NULL;
    }
    if (s->nn == s->capn) {
        size_t nc = s->capn ? 2 * s->capn : 64;
        node_t *g = realloc(s->n, nc * sizeof(*g));
        if (g == NULL) {
            free(id);
            free(desc);
            return sy_read_error(s->errmsg, s->name, lineno, "out of memory");
        }
        s->n = g;
        s->capn = nc;
    }
    node_t *n = &s->n[s->nn++];
    memset(n, 0, sizeof(*n));
    n->id = id;
    n->desc = desc;
    n->type = type;
    n->nports = nports;
    n->width = s->width;
    n->speed = s->speed;
    n->line = lineno;
    n->guid = s->guids[type];
    /* ibsim: a switch takes one GUID, an end node one per port plus one */
    s->guids[type] += type == SY_IB_SW ? 1 : (uint64_t)nports + 1;
    s->in_node = true;
    return PMIX_SUCCESS;
}

static pmix_status_t port_line(sim_t *s, const char *p, size_t lineno)
{
    node_t *n = &s->n[s->nn - 1];
    const char *q = strchr(p, ']');
    uint32_t port, rport = 1;
    if (q == NULL || !sy_ib_dec(p + 1, (size_t)(q - p - 1), 255, &port) || port > n->nports ||
        (port == 0 && n->type != SY_IB_SW)) {
        return sy_read_error(s->errmsg, s->name, lineno, "expected \"[port]\" with a port of %s",
                             n->id);
    }
    q++;
    while (' ' == *q || '\t' == *q) {
        q++;
    }
    const char *rest;
    char *remote = with_prefix(s, quoted(q, &rest));
    if (remote == NULL) {
        return sy_read_error(s->errmsg, s->name, lineno, "expected the quoted remote node id");
    }
    if ('[' == *rest) {
        const char *e = strchr(rest, ']');
        if (e == NULL || !sy_ib_dec(rest + 1, (size_t)(e - rest - 1), 255, &rport) || rport == 0) {
            free(remote);
            return sy_read_error(s->errmsg, s->name, lineno, "expected \"[remote port]\"");
        }
        rest = e + 1;
    }
    pline_t pl = {.node = (uint32_t)(s->nn - 1),
                  .port = port,
                  .remote = remote,
                  .rport = rport,
                  .line = lineno};
    /* w=N s=N options; anything after '#' is a comment */
    for (const char *o = rest; *o != '\0' && *o != '#'; o++) {
        if ((*o == 'w' || *o == 's') && o[1] == '=') {
            char *end;
            unsigned long v = strtoul(o + 2, &end, 0);
            if (end == o + 2 || v == 0 || v > 15) {
                free(remote);
                return sy_read_error(s->errmsg, s->name, lineno, "bad %c= port option", *o);
            }
            if (*o == 'w') {
                pl.width = (uint32_t)v;
            } else {
                pl.speed = (uint32_t)v;
            }
        }
    }
    if (port == 0) {
        free(remote); /* the switch's management port has no cable */
        return PMIX_SUCCESS;
    }
    if (s->np == s->capp) {
        size_t nc = s->capp ? 2 * s->capp : 256;
        pline_t *g = realloc(s->p, nc * sizeof(*g));
        if (g == NULL) {
            free(remote);
            return sy_read_error(s->errmsg, s->name, lineno, "out of memory");
        }
        s->p = g;
        s->capp = nc;
    }
    s->p[s->np++] = pl;
    return PMIX_SUCCESS;
}

/* "key=N" / "key+N" global lines; true when the line was one. */
static bool assignment(sim_t *s, const char *p, size_t lineno, pmix_status_t *rc)
{
    static const struct {
        const char *key;
        int what; /* SY_IB_* GUID base, or 10 width, 11 speed, 12 devid */
    } keys[] = {{"switchguid", SY_IB_SW},
                {"hcaguids", SY_IB_CA},
                {"caguid", SY_IB_CA},
                {"rtguid", SY_IB_RT},
                {"width", 10},
                {"speed", 11},
                {"devid", 12}};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        size_t k = strlen(keys[i].key);
        if (strncmp(p, keys[i].key, k) != 0) {
            continue;
        }
        const char *e = p + k;
        while (' ' == *e || '\t' == *e) {
            e++;
        }
        if (*e != '=' && *e != '+') {
            return false;
        }
        bool rel = *e == '+';
        char *end;
        unsigned long long v = strtoull(e + 1, &end, 0);
        *rc = PMIX_SUCCESS;
        if (end == e + 1) {
            *rc = sy_read_error(s->errmsg, s->name, lineno, "expected a number after %s%c",
                                keys[i].key, *e);
        } else if (keys[i].what <= SY_IB_RT) {
            static const uint64_t base[3] = {0x100000, 0x200000, 0};
            s->guids[keys[i].what] = (rel ? base[keys[i].what] : 0) + v;
        } else if (keys[i].what == 10 || keys[i].what == 11) {
            if (v == 0 || v > 15) {
                *rc = sy_read_error(s->errmsg, s->name, lineno, "%s must be 1-15", keys[i].key);
            } else if (keys[i].what == 10) {
                s->width = (uint32_t)v;
            } else {
                s->speed = (uint32_t)v;
            }
        }
        return true;
    }
    if (strncmp(p, "module", 6) == 0 && strchr(p, '=') != NULL) {
        const char *q = strchr(p, '"'), *e;
        char *m = q != NULL ? quoted(q, &e) : NULL;
        if (m == NULL || strlen(m) >= sizeof(s->prefix)) {
            free(m);
            *rc = sy_read_error(s->errmsg, s->name, lineno, "expected module=\"prefix\"");
        } else {
            snprintf(s->prefix, sizeof(s->prefix), "%s", m);
            free(m);
            *rc = PMIX_SUCCESS;
        }
        return true;
    }
    return false;
}

static pmix_status_t parse_line(void *ctx, char *line, size_t lineno)
{
    sim_t *s = ctx;
    const char *p = line;
    while (' ' == *p || '\t' == *p) {
        p++;
    }
    if ('#' == *p) {
        return PMIX_SUCCESS;
    }
    if ('[' == *p && s->in_node) {
        return port_line(s, p, lineno);
    }
    s->in_node = false;
    if ('\0' == *p) {
        return PMIX_SUCCESS;
    }
    static const struct {
        const char *word;
        uint8_t type;
    } hdr[] = {{"Switch", SY_IB_SW}, {"Hca", SY_IB_CA}, {"Ca", SY_IB_CA}, {"Rt", SY_IB_RT}};
    for (size_t i = 0; i < 4; i++) {
        size_t w = strlen(hdr[i].word);
        if (strncmp(p, hdr[i].word, w) == 0 && (p[w] == ' ' || p[w] == '\t')) {
            return header(s, p, w, hdr[i].type, lineno);
        }
    }
    pmix_status_t rc;
    if (assignment(s, p, lineno, &rc)) {
        return rc;
    }
    /* include, do, aliases ('@' port lines), anything else */
    sy_read_skip(&s->skips, lineno, p);
    return PMIX_SUCCESS;
}

/* ---- build ---- */

typedef struct {
    const sim_t *s;
    /* node id -> node, open addressing */
    uint32_t *slot;
    size_t cap;
} ids_t;

static uint64_t hash_str(const char *x)
{
    uint64_t h = 1469598103934665603ULL;
    while (*x) {
        h = (h ^ (unsigned char)*x++) * 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static long id_find(const ids_t *ix, const char *id)
{
    for (size_t i = hash_str(id) & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        if (ix->slot[i] == SY_TOPO_NONE) {
            return -1;
        }
        if (strcmp(ix->s->n[ix->slot[i]].id, id) == 0) {
            return ix->slot[i];
        }
    }
}

static uint32_t top_bit(uint32_t m)
{
    uint32_t b = 0;
    while (m >> 1) {
        m >>= 1;
        b++;
    }
    return 1u << b;
}

static uint64_t link_speed(uint32_t width, uint32_t speed)
{
    uint32_t w = top_bit(width), sp = top_bit(speed);
    uint64_t lanes = w == 1 ? 1 : w == 2 ? 4 : w == 4 ? 8 : 12;
    uint64_t lane = sp == 1 ? 2500000000ULL : sp == 2 ? 5000000000ULL : 10000000000ULL;
    return width == 0 || speed == 0 ? 0 : lanes * lane;
}

typedef struct {
    uint32_t na, pa, nb, pb;
    size_t idx;
} cable_ends_t;

static int key_cmp(const void *x, const void *y)
{
    const cable_ends_t *a = x, *b = y;
    if (a->na != b->na)
        return a->na < b->na ? -1 : 1;
    if (a->pa != b->pa)
        return a->pa < b->pa ? -1 : 1;
    if (a->nb != b->nb)
        return a->nb < b->nb ? -1 : 1;
    if (a->pb != b->pb)
        return a->pb < b->pb ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

static char *host_of(const node_t *n)
{
    const char *src = n->desc != NULL ? n->desc : n->id;
    return sy_ib_strndup(src, strcspn(src, " \t"));
}

static pmix_status_t add_node_vertices(sim_t *s, sy_topo_t *t, node_t *n, const bool *cabled)
{
    char guid[24];
    pmix_status_t rc = PMIX_SUCCESS;
    if (n->type != SY_IB_CA) {
        uint32_t v;
        rc = sy_topo_add_switch(t, n->id, -1, &v);
        snprintf(guid, sizeof(guid), "0x%016" PRIx64, n->guid);
        if (rc == PMIX_SUCCESS) {
            rc = sy_topo_set_guid(t, v, guid);
        }
        if (rc == PMIX_SUCCESS && n->desc != NULL) {
            rc = sy_topo_set_label(t, v, n->desc);
        }
        n->first_vid = v;
    } else {
        n->port_vid = malloc(((size_t)n->nports + 1) * sizeof(uint32_t));
        char *host = host_of(n);
        if (n->port_vid == NULL || host == NULL) {
            free(host);
            return PMIX_ERR_NOMEM;
        }
        for (uint32_t p = 0; p <= n->nports && rc == PMIX_SUCCESS; p++) {
            n->port_vid[p] = SY_TOPO_NONE;
            if (p == 0 || !cabled[p]) {
                continue;
            }
            char name[SY_TOPO_MAX_NAME + 16];
            if (n->nports == 1) {
                snprintf(name, sizeof(name), "%s", n->id);
            } else {
                snprintf(name, sizeof(name), "%s/%u", n->id, p);
            }
            snprintf(guid, sizeof(guid), "0x%016" PRIx64, n->guid + p);
            rc = sy_topo_add_device(t, name, host, guid, &n->port_vid[p]);
            if (rc == PMIX_SUCCESS && n->desc != NULL) {
                rc = sy_topo_set_label(t, n->port_vid[p], n->desc);
            }
        }
        free(host);
    }
    if (rc == PMIX_EXISTS) {
        return sy_read_error(s->errmsg, s->name, n->line, "node id %s given twice", n->id);
    }
    if (rc != PMIX_SUCCESS) {
        return sy_read_error(s->errmsg, s->name, n->line, "cannot add %s: %s", n->id,
                             rc == PMIX_ERR_OUT_OF_RESOURCE ? "too many vertices"
                                                            : "out of memory");
    }
    return PMIX_SUCCESS;
}

static pmix_status_t build(sim_t *s, sy_topo_t *t)
{
    ids_t ix = {.s = s, .cap = 64};
    while (ix.cap < 2 * s->nn + 2) {
        ix.cap *= 2;
    }
    ix.slot = malloc(ix.cap * sizeof(uint32_t));
    cable_ends_t *keys = malloc((s->np + 1) * sizeof(*keys));
    uint32_t *rnode = malloc((s->np + 1) * sizeof(uint32_t));
    /* per node, which ports carry a cable (from either end) */
    size_t total_ports = 0;
    for (size_t i = 0; i < s->nn; i++) {
        total_ports += s->n[i].nports + 1;
    }
    size_t *base = malloc((s->nn + 1) * sizeof(size_t));
    bool *cabled = calloc(total_ports + 1, sizeof(bool));
    /* enabled width and speed of every port: its line's, else its node's */
    uint32_t *pw = malloc((total_ports + 1) * sizeof(uint32_t));
    uint32_t *ps = malloc((total_ports + 1) * sizeof(uint32_t));
    pmix_status_t rc = PMIX_SUCCESS;
    if (ix.slot == NULL || keys == NULL || rnode == NULL || base == NULL || cabled == NULL ||
        pw == NULL || ps == NULL) {
        rc = sy_read_error(s->errmsg, s->name, 0, "out of memory");
        goto out;
    }
    memset(ix.slot, 0xff, ix.cap * sizeof(uint32_t));
    size_t off = 0;
    for (size_t i = 0; i < s->nn; i++) {
        base[i] = off;
        for (uint32_t p = 0; p <= s->n[i].nports; p++) {
            pw[off + p] = s->n[i].width;
            ps[off + p] = s->n[i].speed;
        }
        off += s->n[i].nports + 1;
        size_t k = hash_str(s->n[i].id) & (ix.cap - 1);
        while (ix.slot[k] != SY_TOPO_NONE) {
            if (strcmp(s->n[ix.slot[k]].id, s->n[i].id) == 0) {
                rc = sy_read_error(s->errmsg, s->name, s->n[i].line, "node id %s given twice",
                                   s->n[i].id);
                goto out;
            }
            k = (k + 1) & (ix.cap - 1);
        }
        ix.slot[k] = (uint32_t)i;
    }
    for (size_t i = 0; i < s->np; i++) {
        pw[base[s->p[i].node] + s->p[i].port] =
            s->p[i].width ? s->p[i].width : s->n[s->p[i].node].width;
        ps[base[s->p[i].node] + s->p[i].port] =
            s->p[i].speed ? s->p[i].speed : s->n[s->p[i].node].speed;
    }
    size_t nk = 0;
    for (size_t i = 0; i < s->np; i++) {
        pline_t *pl = &s->p[i];
        long r = id_find(&ix, pl->remote);
        if (r < 0) {
            rc = sy_read_error(s->errmsg, s->name, pl->line, "remote node %s is not defined",
                               pl->remote);
            goto out;
        }
        if (pl->rport > s->n[r].nports) {
            rc = sy_read_error(s->errmsg, s->name, pl->line, "%s has no port %u", pl->remote,
                               pl->rport);
            goto out;
        }
        rnode[i] = (uint32_t)r;
        cabled[base[pl->node] + pl->port] = true;
        cabled[base[r] + pl->rport] = true;
        if ((uint32_t)r == pl->node && pl->rport == pl->port) {
            continue;
        }
        bool swap = (uint32_t)r < pl->node || ((uint32_t)r == pl->node && pl->rport < pl->port);
        keys[nk++] = swap ? (cable_ends_t){(uint32_t)r, pl->rport, pl->node, pl->port, i}
                          : (cable_ends_t){pl->node, pl->port, (uint32_t)r, pl->rport, i};
    }
    for (size_t i = 0; i < s->nn && rc == PMIX_SUCCESS; i++) {
        rc = add_node_vertices(s, t, &s->n[i], &cabled[base[i]]);
    }
    if (rc != PMIX_SUCCESS) {
        goto out;
    }
    qsort(keys, nk, sizeof(*keys), key_cmp);
    for (size_t i = 0; i < nk && rc == PMIX_SUCCESS; i++) {
        if (i > 0 && memcmp(&keys[i], &keys[i - 1], 4 * sizeof(uint32_t)) == 0) {
            continue; /* the same cable from its other end */
        }
        const pline_t *pl = &s->p[keys[i].idx];
        const node_t *a = &s->n[pl->node], *b = &s->n[rnode[keys[i].idx]];
        uint32_t va = a->type == SY_IB_CA ? a->port_vid[pl->port] : a->first_vid;
        uint32_t vb = b->type == SY_IB_CA ? b->port_vid[pl->rport] : b->first_vid;
        if (va == vb) {
            continue;
        }
        size_t ea = base[pl->node] + pl->port, eb = base[rnode[keys[i].idx]] + pl->rport;
        uint32_t w = pw[ea] & pw[eb], sp = ps[ea] & ps[eb];
        pmix_status_t r2 = sy_topo_add_link(t, va, vb, link_speed(w, sp), PMIX_LINK_UP,
                                            SY_TOPO_LINK_PARALLEL, NULL);
        if (r2 != PMIX_SUCCESS) {
            rc = sy_read_error(s->errmsg, s->name, pl->line, "cannot add link: %s",
                               r2 == PMIX_ERR_OUT_OF_RESOURCE ? "too many links" : "out of memory");
        }
    }
out:
    free(ix.slot);
    free(keys);
    free(rnode);
    free(base);
    free(cabled);
    free(pw);
    free(ps);
    return rc;
}

pmix_status_t sy_topo_read_ibsim_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* 4x enabled (with 1x, as ibsim's default) and SDR */
    sim_t s = {
        .name = name, .errmsg = errmsg, .guids = {0x100000, 0x200000, 0}, .width = 3, .speed = 1};
    pmix_status_t rc = sy_read_each_line(buf, len, name, false, parse_line, &s, errmsg);
    sy_topo_t *t = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_new_topo(lim, name, "ibsim", &t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = build(&s, t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_skips_note(&s.skips, "ibsim net", t);
    }
    sim_free(&s);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}
