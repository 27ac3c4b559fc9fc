/* Reader for InfiniBand `ibnetdiscover` output, default and `-p` (ports)
 * formats; a file may mix both (the line's first word decides).
 *
 * Vertices: every switch or router (named by its node GUID, or by its port
 * GUID in -p output, which is the same for switches) and every connected
 * CA port (named by its port GUID; when no line gives that GUID, by
 * "<node GUID>/<port>").  Names are "0x" + 16 lower-case hex digits.  A
 * CA's host is the first word of its NodeDescription ("node031 HCA-1" ->
 * "node031"); the whole description becomes the vertex label.
 *
 * Each cable normally appears once from each end: cables are identified by
 * their two (vertex, port) ends and kept once; several cables between the
 * same two vertices become one edge with `count` cables and the summed
 * speed.  Speeds are nominal: lanes x per-lane rate (SDR 2.5, DDR 5,
 * QDR/FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s); 0 if
 * unknown. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_util.h"

enum { T_CA = 0, T_SW = 1, T_RT = 2 };

typedef struct {
    uint64_t node;  /* node GUID, 0 if unknown (-p output) */
    uint64_t pguid; /* port GUID, 0 if unknown */
    uint32_t port;
    uint8_t type;
    char *desc;   /* NodeDescription or NULL */
    uint32_t vid; /* resolved vertex */
} ep_t;

typedef struct {
    ep_t a, b;
    uint64_t speed;
    size_t line;
    bool connected;
} ln_t;

typedef struct {
    ln_t *l;
    size_t n, cap;
    /* current record of the default format */
    bool in_node;
    uint8_t cur_type;
    uint64_t cur_guid;
    uint32_t cur_nports;
    char *cur_desc;
    bool saw_default, saw_ports;
    const char *name;
    char **errmsg;
} ib_ctx_t;

static void ctx_free(ib_ctx_t *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->l[i].a.desc);
        free(c->l[i].b.desc);
    }
    free(c->l);
    free(c->cur_desc);
}

static bool parse_hex(const char *s, size_t n, uint64_t *out)
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
        if (!isxdigit((unsigned char)s[i])) {
            return false;
        }
        v = v * 16 + (uint64_t)(isdigit((unsigned char)s[i])
                                    ? s[i] - '0'
                                    : tolower((unsigned char)s[i]) - 'a' + 10);
    }
    *out = v;
    return true;
}

static bool parse_dec(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 9) {
        return false;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) {
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

/* "4x" + "EDR" (either in one token "4xEDR" or two). */
static uint64_t ib_speed(const char *width, const char *rate)
{
    static const struct {
        const char *name;
        uint64_t lane;
    } rates[] = {
        {"SDR", 2500000000ULL},    {"DDR", 5000000000ULL},   {"QDR", 10000000000ULL},
        {"FDR10", 10000000000ULL}, {"FDR", 14000000000ULL},  {"EDR", 25000000000ULL},
        {"HDR", 50000000000ULL},   {"NDR", 100000000000ULL}, {"XDR", 200000000000ULL},
    };
    uint32_t lanes;
    size_t wn = strlen(width);
    if (wn < 2 || width[wn - 1] != 'x' || !parse_dec(width, wn - 1, 64, &lanes)) {
        return 0;
    }
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        if (strcmp(rate, rates[i].name) == 0) {
            return lanes * rates[i].lane;
        }
    }
    return 0;
}

/* Speed from the text after a port line's last quote: " lid 0 4xSDR". */
static uint64_t speed_from_tail(const char *s)
{
    uint64_t best = 0;
    while ('\0' != *s) {
        while (isspace((unsigned char)*s)) {
            s++;
        }
        const char *tok = s;
        while ('\0' != *s && !isspace((unsigned char)*s)) {
            s++;
        }
        size_t n = (size_t)(s - tok);
        const char *x = memchr(tok, 'x', n);
        if (x != NULL && x > tok && n < 32) {
            char w[32], r[32];
            size_t wl = (size_t)(x - tok) + 1;
            memcpy(w, tok, wl);
            w[wl] = '\0';
            memcpy(r, x + 1, n - wl);
            r[n - wl] = '\0';
            uint64_t sp = ib_speed(w, r);
            if (sp != 0) {
                best = sp;
            }
        }
    }
    return best;
}

static pmix_status_t push_link(ib_ctx_t *c, ln_t *l)
{
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 64;
        ln_t *n = realloc(c->l, ncap * sizeof(*n));
        if (n == NULL) {
            return sy_read_error(c->errmsg, c->name, l->line, "out of memory");
        }
        c->l = n;
        c->cap = ncap;
    }
    c->l[c->n++] = *l;
    return PMIX_SUCCESS;
}

static char *dup_n(const char *s, size_t n)
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

/* The description quoted after '#': from the first '"' to the last. */
static bool comment_desc(const char *s, const char **d, size_t *dn, const char **tail)
{
    const char *hash = strchr(s, '#');
    if (hash == NULL) {
        return false;
    }
    const char *q1 = strchr(hash, '"');
    const char *q2 = strrchr(hash, '"');
    if (q1 == NULL || q1 == q2) {
        return false;
    }
    *d = q1 + 1;
    *dn = (size_t)(q2 - q1 - 1);
    *tail = q2 + 1;
    return true;
}

/* ------------------------------------------------------ default format */

/* '"' ("S-"|"H-"|"R-") 16hex '"' */
static bool parse_id(const char **pp, uint8_t *type, uint64_t *guid)
{
    const char *p = *pp;
    if (p[0] != '"' || p[2] != '-') {
        return false;
    }
    switch (p[1]) {
    case 'S': *type = T_SW; break;
    case 'H': *type = T_CA; break;
    case 'R': *type = T_RT; break;
    default: return false;
    }
    const char *q = strchr(p + 3, '"');
    if (q == NULL || !parse_hex(p + 3, (size_t)(q - p - 3), guid)) {
        return false;
    }
    *pp = q + 1;
    return true;
}

/* "[" port "]" ["(" hex ")"] */
static bool parse_port(const char **pp, uint32_t *port, uint64_t *pguid)
{
    const char *p = *pp;
    if ('[' != *p) {
        return false;
    }
    const char *q = strchr(p, ']');
    if (q == NULL || !parse_dec(p + 1, (size_t)(q - p - 1), 65535, port)) {
        return false;
    }
    p = q + 1;
    *pguid = 0;
    if ('(' == *p) {
        q = strchr(p, ')');
        if (q == NULL || !parse_hex(p + 1, (size_t)(q - p - 1), pguid)) {
            return false;
        }
        p = q + 1;
    }
    *pp = p;
    return true;
}

static pmix_status_t default_header(ib_ctx_t *c, char *line, size_t lineno, uint8_t type)
{
    const char *p = line;
    while (!isspace((unsigned char)*p)) {
        p++;
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    const char *n0 = p;
    while (isdigit((unsigned char)*p)) {
        p++;
    }
    uint32_t nports;
    uint8_t idtype;
    uint64_t guid;
    if (!parse_dec(n0, (size_t)(p - n0), 255, &nports)) {
        return sy_read_error(c->errmsg, c->name, lineno,
                             "expected the number of ports after the node type");
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if (!parse_id(&p, &idtype, &guid) || idtype != type) {
        return sy_read_error(c->errmsg, c->name, lineno,
                             "expected a quoted node id (\"S-\", \"H-\" or \"R-\" + hex GUID) "
                             "matching the node type");
    }
    const char *d, *tail;
    size_t dn = 0;
    free(c->cur_desc);
    c->cur_desc = NULL;
    if (comment_desc(p, &d, &dn, &tail) && (c->cur_desc = dup_n(d, dn)) == NULL) {
        return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
    }
    c->in_node = true;
    c->cur_type = type;
    c->cur_guid = guid;
    c->cur_nports = nports;
    c->saw_default = true;
    if (T_CA != type) {
        /* Switches exist even with no cable: record a lone endpoint. */
        ln_t l = {.line = lineno, .connected = false};
        l.a = (ep_t){.node = guid, .type = type};
        if (c->cur_desc != NULL && (l.a.desc = strdup(c->cur_desc)) == NULL) {
            return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
        }
        pmix_status_t rc = push_link(c, &l);
        if (rc != PMIX_SUCCESS) {
            free(l.a.desc);
        }
        return rc;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t default_port(ib_ctx_t *c, char *line, size_t lineno)
{
    if (!c->in_node) {
        return sy_read_error(c->errmsg, c->name, lineno, "port line outside a Switch/Ca/Rt record");
    }
    const char *p = line;
    ln_t l = {.line = lineno, .connected = true};
    l.a.node = c->cur_guid;
    l.a.type = c->cur_type;
    if (!parse_port(&p, &l.a.port, &l.a.pguid)) {
        return sy_read_error(c->errmsg, c->name, lineno,
                             "expected \"[port](portguid)\" at the start of the port line");
    }
    if (l.a.port > c->cur_nports) {
        return sy_read_error(c->errmsg, c->name, lineno, "port %u beyond the node's %u ports",
                             l.a.port, c->cur_nports);
    }
    /* Extended port GUIDs ("{...}") may follow; they are not needed. */
    if ('{' == *p) {
        const char *q = strchr(p, '}');
        p = q ? q + 1 : p;
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if (!parse_id(&p, &l.b.type, &l.b.node) || !parse_port(&p, &l.b.port, &l.b.pguid)) {
        return sy_read_error(c->errmsg, c->name, lineno,
                             "expected the peer as \"X-GUID\"[port](portguid)");
    }
    const char *d, *tail;
    size_t dn;
    if (comment_desc(p, &d, &dn, &tail)) {
        l.speed = speed_from_tail(tail);
        if ((l.b.desc = dup_n(d, dn)) == NULL) {
            return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
        }
    }
    if (c->cur_desc != NULL && (l.a.desc = strdup(c->cur_desc)) == NULL) {
        free(l.b.desc);
        return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
    }
    pmix_status_t rc = push_link(c, &l);
    if (rc != PMIX_SUCCESS) {
        free(l.a.desc);
        free(l.b.desc);
    }
    return rc;
}

static bool type_word(const char *tok, uint8_t *type)
{
    if (strcmp(tok, "CA") == 0) {
        *type = T_CA;
    } else if (strcmp(tok, "SW") == 0) {
        *type = T_SW;
    } else if (strcmp(tok, "RT") == 0) {
        *type = T_RT;
    } else {
        return false;
    }
    return true;
}

/* --------------------------------------------------------- -p format */

/* "CA 0 1 0xGUID 4x SDR - SW 0 8 0xGUID ( 'd1' - 'd2' )"
 * "SW 0 36 0xGUID 4x SDR 'd1'" (unconnected) */
static pmix_status_t ports_line(ib_ctx_t *c, char *line, size_t lineno)
{
    char *cur = line;
    char *tok[11];
    size_t nt = 0;
    ln_t l = {.line = lineno};
    c->saw_ports = true;
    /* Up to 11 plain tokens, then the quoted descriptions. */
    while (nt < 11) {
        while (isspace((unsigned char)*cur)) {
            cur++;
        }
        if ('\'' == *cur || '(' == *cur || '\0' == *cur) {
            break;
        }
        char *tk = sy_next_token(&cur);
        if (tk == NULL) {
            break;
        }
        tok[nt++] = tk;
    }
    while (isspace((unsigned char)*cur)) {
        cur++;
    }
    uint32_t lid;
    if (nt < 6 || !type_word(tok[0], &l.a.type) ||
        !parse_dec(tok[1], strlen(tok[1]), 65535, &lid) ||
        !parse_dec(tok[2], strlen(tok[2]), 65535, &l.a.port) ||
        !parse_hex(tok[3], strlen(tok[3]), &l.a.pguid)) {
        return sy_read_error(c->errmsg, c->name, lineno,
                             "expected \"TYPE LID PORT GUID WIDTH SPEED\" (TYPE = CA, SW or RT)");
    }
    l.speed = ib_speed(tok[4], tok[5]);
    const char *rest = cur;
    if (nt == 6) {
        /* Unconnected port: only the node's existence matters. */
        const char *q1 = strchr(rest, '\''), *q2 = strrchr(rest, '\'');
        if (q1 == NULL || q1 == q2) {
            return sy_read_error(c->errmsg, c->name, lineno,
                                 "expected '- PEER...' or a quoted description");
        }
        if (T_CA == l.a.type) {
            return PMIX_SUCCESS; /* a CA port without cable is no device of the fabric */
        }
        if ((l.a.desc = dup_n(q1 + 1, (size_t)(q2 - q1 - 1))) == NULL) {
            return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
        }
    } else {
        if (nt != 11 || strcmp(tok[6], "-") != 0 || !type_word(tok[7], &l.b.type) ||
            !parse_dec(tok[8], strlen(tok[8]), 65535, &lid) ||
            !parse_dec(tok[9], strlen(tok[9]), 65535, &l.b.port) ||
            !parse_hex(tok[10], strlen(tok[10]), &l.b.pguid)) {
            return sy_read_error(c->errmsg, c->name, lineno,
                                 "expected \"- TYPE LID PORT GUID\" for the peer");
        }
        /* ( 'desc' - 'peer desc' ) */
        const char *q1 = strchr(rest, '\''), *sep = q1 ? strstr(q1 + 1, "' - '") : NULL;
        const char *q2 = strrchr(rest, '\'');
        if ('(' != *rest || q1 == NULL || sep == NULL || q2 <= sep + 4) {
            return sy_read_error(c->errmsg, c->name, lineno,
                                 "expected ( 'description' - 'peer description' )");
        }
        if ((l.a.desc = dup_n(q1 + 1, (size_t)(sep - q1 - 1))) == NULL ||
            (l.b.desc = dup_n(sep + 5, (size_t)(q2 - sep - 5))) == NULL) {
            free(l.a.desc);
            return sy_read_error(c->errmsg, c->name, lineno, "out of memory");
        }
        l.connected = true;
    }
    /* Switch GUIDs here are port GUIDs, equal to the switch's node GUID. */
    if (T_CA != l.a.type) {
        l.a.node = l.a.pguid;
    }
    if (l.connected && T_CA != l.b.type) {
        l.b.node = l.b.pguid;
    }
    pmix_status_t rc = push_link(c, &l);
    if (rc != PMIX_SUCCESS) {
        free(l.a.desc);
        free(l.b.desc);
    }
    return rc;
}

static pmix_status_t parse_line(void *ctx, char *line, size_t lineno)
{
    ib_ctx_t *c = ctx;
    char *p = line;
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if ('\0' == *p) {
        c->in_node = false; /* a blank line ends a record */
        return PMIX_SUCCESS;
    }
    if ('#' == *p) {
        return PMIX_SUCCESS;
    }
    if ('[' == *p) {
        return default_port(c, p, lineno);
    }
    size_t w = 0;
    while (isalnum((unsigned char)p[w]) || p[w] == '-') {
        w++;
    }
    char word[16];
    if (w >= sizeof(word)) {
        w = sizeof(word) - 1;
    }
    memcpy(word, p, w);
    word[w] = '\0';
    uint8_t type;
    if (type_word(word, &type) && isspace((unsigned char)p[w])) {
        return ports_line(c, p, lineno);
    }
    if (isspace((unsigned char)p[w])) {
        if (strcmp(word, "Switch") == 0) {
            return default_header(c, p, lineno, T_SW);
        }
        if (strcmp(word, "Ca") == 0) {
            return default_header(c, p, lineno, T_CA);
        }
        if (strcmp(word, "Rt") == 0) {
            return default_header(c, p, lineno, T_RT);
        }
    }
    if (p[w] == '=' && (strcmp(word, "vendid") == 0 || strcmp(word, "devid") == 0 ||
                        strcmp(word, "sysimgguid") == 0 || strcmp(word, "switchguid") == 0 ||
                        strcmp(word, "caguid") == 0 || strcmp(word, "routerguid") == 0)) {
        const char *v = p + w + 1, *e = v;
        while (isxdigit((unsigned char)*e) || 'x' == *e || 'X' == *e) {
            e++;
        }
        uint64_t dummy;
        if (!parse_hex(v, (size_t)(e - v), &dummy)) {
            return sy_read_error(c->errmsg, c->name, lineno,
                                 "expected a hex value after %s=", word);
        }
        return PMIX_SUCCESS;
    }
    /* -g output groups nodes by chassis; the grouping is not needed. */
    if (strcmp(word, "Chassis") == 0 || strncmp(p, "Non-Chassis Nodes", 17) == 0) {
        return PMIX_SUCCESS;
    }
    return sy_read_error(
        c->errmsg, c->name, lineno,
        "expected a Switch/Ca/Rt record, a port line \"[n]...\", a GUID attribute or a "
        "\"CA|SW|RT LID PORT GUID ...\" ports line");
}

/* ------------------------------------------------------------ resolve */

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

typedef struct {
    uint32_t va, pa, vb, pb;
    size_t idx;
} cable_t;

static int cable_cmp(const void *x, const void *y)
{
    const cable_t *a = x, *b = y;
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

static pmix_status_t resolve_ep(ib_ctx_t *c, sy_topo_t *t, ep_t *ep, size_t line, const obs_t *obs,
                                size_t nobs)
{
    char name[64], guid[32];
    uint64_t pg = ep->pguid;
    if (T_CA == ep->type) {
        if (pg == 0 && ep->node != 0) {
            obs_t key = {.node = ep->node, .port = ep->port};
            const obs_t *f = bsearch(&key, obs, nobs, sizeof(*obs), obs_cmp);
            if (f != NULL) {
                pg = f->pguid;
            }
        }
        if (pg != 0) {
            snprintf(name, sizeof(name), "0x%016" PRIx64, pg);
        } else {
            snprintf(name, sizeof(name), "0x%016" PRIx64 "/%u", ep->node, ep->port);
        }
    } else {
        pg = ep->node;
        snprintf(name, sizeof(name), "0x%016" PRIx64, pg);
    }
    snprintf(guid, sizeof(guid), "0x%016" PRIx64, pg);
    pmix_status_t rc;
    if (T_CA == ep->type) {
        char host[SY_TOPO_MAX_NAME + 1] = "";
        if (ep->desc != NULL) {
            size_t n = strcspn(ep->desc, " \t");
            memcpy(host, ep->desc, n);
            host[n] = '\0';
        }
        rc = sy_topo_add_device(t, name, '\0' != host[0] ? host : NULL, pg != 0 ? guid : NULL,
                                &ep->vid);
    } else {
        rc = sy_topo_add_switch(t, name, -1, &ep->vid);
        if (rc == PMIX_SUCCESS) {
            rc = sy_topo_set_guid(t, ep->vid, guid);
        }
    }
    if (rc == PMIX_EXISTS) {
        if ((T_CA == ep->type) != (t->v[ep->vid].kind == SY_TOPO_DEVICE)) {
            return sy_read_error(c->errmsg, c->name, line, "GUID %s is used by a CA and a switch",
                                 name);
        }
        return PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS && ep->desc != NULL && '\0' != ep->desc[0]) {
        rc = sy_topo_set_label(t, ep->vid, ep->desc);
    }
    if (rc != PMIX_SUCCESS) {
        return sy_read_error(c->errmsg, c->name, line, "cannot add %s: %s", name,
                             rc == PMIX_ERR_OUT_OF_RESOURCE ? "too many vertices"
                                                            : "out of memory");
    }
    return PMIX_SUCCESS;
}

static pmix_status_t build(ib_ctx_t *c, sy_topo_t *t)
{
    pmix_status_t rc = PMIX_SUCCESS;
    obs_t *obs = malloc((2 * c->n + 1) * sizeof(*obs));
    cable_t *cab = malloc((c->n + 1) * sizeof(*cab));
    size_t nobs = 0, ncab = 0;
    if (obs == NULL || cab == NULL) {
        free(obs);
        free(cab);
        return sy_read_error(c->errmsg, c->name, 0, "out of memory");
    }
    for (size_t i = 0; i < c->n; i++) {
        ep_t *e[2] = {&c->l[i].a, &c->l[i].b};
        for (int k = 0; k < (c->l[i].connected ? 2 : 1); k++) {
            if (T_CA == e[k]->type && e[k]->node != 0 && e[k]->pguid != 0) {
                obs[nobs++] = (obs_t){e[k]->node, e[k]->pguid, e[k]->port};
            }
        }
    }
    qsort(obs, nobs, sizeof(*obs), obs_cmp);
    for (size_t i = 0; i < c->n && rc == PMIX_SUCCESS; i++) {
        ln_t *l = &c->l[i];
        rc = resolve_ep(c, t, &l->a, l->line, obs, nobs);
        if (rc == PMIX_SUCCESS && l->connected) {
            rc = resolve_ep(c, t, &l->b, l->line, obs, nobs);
        }
        if (rc == PMIX_SUCCESS && l->connected) {
            if (l->a.vid == l->b.vid) {
                continue; /* loopback cable: no edge in the graph */
            }
            bool swap = l->a.vid > l->b.vid || (l->a.vid == l->b.vid && l->a.port > l->b.port);
            cab[ncab++] = swap ? (cable_t){l->b.vid, l->b.port, l->a.vid, l->a.port, i}
                               : (cable_t){l->a.vid, l->a.port, l->b.vid, l->b.port, i};
        }
    }
    if (rc == PMIX_SUCCESS) {
        /* One cable seen from both ends (or listed twice) counts once;
         * the first mention in file order wins. */
        qsort(cab, ncab, sizeof(*cab), cable_cmp);
        bool *keep = calloc(c->n + 1, sizeof(bool));
        if (keep == NULL) {
            rc = sy_read_error(c->errmsg, c->name, 0, "out of memory");
        } else {
            for (size_t i = 0; i < ncab; i++) {
                if (i == 0 || memcmp(&cab[i], &cab[i - 1], 4 * sizeof(uint32_t)) != 0) {
                    keep[cab[i].idx] = true;
                }
            }
            for (size_t i = 0; i < c->n && rc == PMIX_SUCCESS; i++) {
                if (!keep[i]) {
                    continue;
                }
                ln_t *l = &c->l[i];
                pmix_status_t r2 = sy_topo_add_link(t, l->a.vid, l->b.vid, l->speed, PMIX_LINK_UP,
                                                    SY_TOPO_LINK_PARALLEL, NULL);
                if (r2 != PMIX_SUCCESS) {
                    rc = sy_read_error(c->errmsg, c->name, l->line, "cannot add link: %s",
                                       r2 == PMIX_ERR_OUT_OF_RESOURCE ? "too many links"
                                                                      : "out of memory");
                }
            }
            free(keep);
        }
    }
    free(obs);
    free(cab);
    return rc;
}

pmix_status_t sy_topo_read_ibnet_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    ib_ctx_t c = {.name = name, .errmsg = errmsg};
    pmix_status_t rc = sy_read_each_line(buf, len, name, false, parse_line, &c, errmsg);
    sy_topo_t *t = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_new_topo(lim, name, c.saw_ports && !c.saw_default ? "ibnet-ports" : "ibnet",
                              &t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = build(&c, t);
    }
    ctx_free(&c);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}
